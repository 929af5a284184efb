/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite-slices.h - the sqlite writer's slice table (sqlite-slices.c): the
 * slice model (model/slices.c) in trace processor's mode, written as rows
 * of slice and of the thread and CPU tracks they lie on.  Private to the
 * sqlite writer.
 */
#ifndef TDAT_SQLITE_SLICES_H
#define TDAT_SQLITE_SLICES_H

#include "model/model.h"
#include "write/sqlite-rows.h"

/*
 * Make a track's rows: a thread's (@kind SLK_THREAD, utid @a) or a CPU's
 * (@name, @type, cpu @a, ucpu @b); its id, or <0 on failure.  @name and
 * @type live until the writer closes.
 */
typedef int64_t (*sqs_track_fn)(void *ctx, enum sl_kind kind, const char *name, const char *type,
				int64_t a, int64_t b);

struct sqs;

/* Slices as rows of @slice (slice's columns), tracks made through @track. */
struct sqs *sqs_new(struct sqdb *d, struct sq_table *slice, sqs_track_fn track, void *ctx);
void sqs_free(struct sqs *s);
/* Every event, in timeline order, with its type, thread and ucpu. */
int sqs_put(struct sqs *s, const struct tdat_event *ev, const struct ttype *tt, int utid, int ucpu);
/* After the last event: the slices still open, with dur -1. */
int sqs_finish(struct sqs *s);

#endif
