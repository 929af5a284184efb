/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stats.h - event counts (stats.c). */
#ifndef TDAT_READ_STATS_H
#define TDAT_READ_STATS_H

#include "read/types.h"

/*
 * stats.c: one more event of type @id in a table of counts by type id,
 * grown (zeroed) to the highest id seen; 0 or TDAT_ENOMEM.
 */
int count_bump(uint64_t **counts, unsigned *n, unsigned id);
/* stats.c: @s's event counts from @counts (per common_type), sorted; its totals. */
int stats_event_counts(struct tdat_file *f, struct tdat_stats *s, const uint64_t *counts,
		       unsigned ncounts);
void stats_totals(struct tdat_stats *s);

#endif /* TDAT_READ_STATS_H */
