/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* window.h - a cursor's places and the plan of time windows for -j (window.c). */
#ifndef TDAT_READ_WINDOW_H
#define TDAT_READ_WINDOW_H

#include "read/types.h"

static inline bool cpos_eq(const struct cpos *a, const struct cpos *b)
{
	return a->unit == b->unit && (a->unit == CPOS_END || a->inner == b->inner);
}
/*
 * Rewind @c and peek its first event at or after @ts, searching for the unit
 * to start in between @lo and @hi (its units from @lo on: @lo's first event is
 * taken to be before @ts, @hi's not).  0, or a negative error.
 */
int cursor_seek_at(struct cursor *c, uint64_t ts, const struct cpos *lo, const struct cpos *hi);
/* Rewind @c and make the unit at @p the one it reads first, as cursor_seek() does. */
void cursor_place(struct cursor *c, const struct cpos *p);
/* Rewind @c and peek the event at @p.  0, TDAT_EFORMAT if @c has no event there. */
int cursor_goto(struct cursor *c, const struct cpos *p);
/* Bytes a whole pass over @c decompresses before the unit at @off (as c->ubytes counts). */
uint64_t cursor_ubytes_before(struct cursor *c, uint64_t off);

/*
 * Plan the windows of @m's timeline from @from (up to and with *@last when
 * not NULL), each holding about @window decompressed bytes.  The plan reads
 * the files through @m's cursors without moving them; one thread at a time.
 */
int plan_new(struct tdat_merge *m, uint64_t from, const uint64_t *last, uint64_t window,
	     struct plan **out);
/* The next window into @cut (its arrays filled); false after the last. */
bool plan_next(struct plan *p, struct wcut *cut);
int plan_ncursors(const struct plan *p);
void plan_free(struct plan *p);

#endif /* TDAT_READ_WINDOW_H */
