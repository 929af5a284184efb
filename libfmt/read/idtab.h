/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* idtab.h - pointers by event type id (idtab.c). */
#ifndef TDAT_READ_IDTAB_H
#define TDAT_READ_IDTAB_H

#include "read/types.h"

void **idtab_grow(struct idtab *t, unsigned id);

/* Where id's pointer lives (NULL until set); NULL if out of memory. */
static inline void **idtab_slot(struct idtab *t, unsigned id)
{
	void **leaf = t->leaf[(id >> 8) & (IDTAB_LEAVES - 1)];

	return leaf ? &leaf[id & 255] : idtab_grow(t, id);
}

/* Call @release (if any) on every pointer set, and free the table's memory. */
void idtab_release(struct idtab *t, void (*release)(void *));

#endif /* TDAT_READ_IDTAB_H */
