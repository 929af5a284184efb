/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * idtab.c - a table of pointers by event type id (common_type, 16 bits),
 * what every writer keeps per input for what it compiled of each event
 * type.  Ids are allocated 256 at a time, so a file with a few event types
 * costs a few KiB instead of a 512 KiB array, and releasing it walks only
 * what was used.  Also array_room(), the growth rule of every other
 * array of the library.
 */
#include <stdlib.h>

#include "read/read.h"

/* idtab_slot()'s slow path: the first id of its group of 256. */
void **idtab_grow(struct idtab *t, unsigned id)
{
	void ***leaf = &t->leaf[(id >> 8) & (IDTAB_LEAVES - 1)];

	if (!*leaf && !(*leaf = calloc(256, sizeof(**leaf))))
		return NULL;
	return &(*leaf)[id & 255];
}

void idtab_release(struct idtab *t, void (*release)(void *))
{
	for (int l = 0; l < IDTAB_LEAVES; l++) {
		for (int i = 0; t->leaf[l] && release && i < 256; i++)
			if (t->leaf[l][i])
				release(t->leaf[l][i]);
		free(t->leaf[l]);
		t->leaf[l] = NULL;
	}
}

int array_room(void **arr, int n, int *cap, size_t size, int first)
{
	int c = *cap ? *cap * 2 : first;
	void *p;

	if (n < *cap)
		return 0;
	if (!(p = realloc(*arr, size * (size_t)c)))
		return TDAT_ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}
