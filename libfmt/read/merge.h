/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* merge.h - the merge's internals: cursors, time windows, damage (merge.c). */
#ifndef TDAT_READ_MERGE_H
#define TDAT_READ_MERGE_H

#include "read/types.h"

/*
 * The reason given for records of a type with no format; damage_push() sums
 * them into one entry per CPU, from the first one's offset.
 */
extern const char damage_no_format[];
/* Note a damaged region of cursor @c in a list (merge.c; the last entry sums past a limit). */
void damage_push(struct tdat_damage **list, int *n, const struct cursor *c, uint64_t off,
		 uint64_t bytes, const char *reason);
int merge_ncursors(const struct tdat_merge *m);
struct cursor *merge_cursor(struct tdat_merge *m, int i);
/* Hand the damage @m finds to @fn (NULL: to its own list again). */
void merge_damage_hook(struct tdat_merge *m, damage_fn *fn, void *arg);
/*
 * Make @m hand out the events of window @w, then TDAT_END; each cursor's
 * first place into @start.  Damage met while seeking a cursor to its first
 * event is not reported (it is before the window: the windows before report
 * it).  Any number of times, one window after another.
 */
int merge_window(struct tdat_merge *m, const struct wcut *w, struct cpos *start);
/* The cursor whose event was handed out last (-1: none). */
/* Whether @m reads pieces of a split one after the other (chain.c): no time windows then. */
bool merge_chained(struct tdat_merge *m);
int merge_last(const struct tdat_merge *m);
/* Every cursor's place into @at; the cursor whose event was handed out last (-1: none). */
int merge_places(const struct tdat_merge *m, struct cpos *at);
/*
 * Before @m has started: go on from places @at (merge_places() of another
 * merge over the same files), cursor @last's event handed out already.
 */
int merge_resume(struct tdat_merge *m, const struct cpos *at, int last);
/* Damage another merge over the same files found, as @m's cursor @i would report it. */
void merge_damage_add(struct tdat_merge *m, int i, uint64_t off, uint64_t bytes,
		      const char *reason);
bool merge_counting(const struct tdat_merge *m);
/* Progress: the events before places @at were read elsewhere. */
void merge_progress_at(struct tdat_merge *m, const struct cpos *at);
/* Every event was handed out elsewhere: @m ends as if it had read them. */
int merge_windows_done(struct tdat_merge *m);

/* File @i of every file added to @m, the pieces of a split too; NULL past the end. */
struct tdat_file *merge_member(const struct tdat_merge *m, int i);
/*
 * Hand every undamaged page of every CPU of @m to @fn, one CPU after the
 * other (damage is recorded as usual); @fn's non-zero return stops it.
 * Only before the merge has started; the merge is used up.
 */
int merge_copy_pages(struct tdat_merge *m,
		     int (*fn)(void *arg, const struct cursor *c, const unsigned char *page, size_t len),
		     void *arg);

#endif /* TDAT_READ_MERGE_H */
