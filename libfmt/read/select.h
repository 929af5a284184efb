/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* select.h - the selection (select.c, select-names.c, select-window.c). */
#ifndef TDAT_READ_SELECT_H
#define TDAT_READ_SELECT_H

#include "read/types.h"

/* Whether --top or -B (one was given) keeps buffer @b of @f. */
bool select_lane_buffer(const struct tdat_select *s, const struct tdat_file *f, int b);
/* Whether CPU @cpu of buffer @b of @f passes the buffer and CPU tests of @s. */
bool select_lane(const struct tdat_select *s, const struct tdat_file *f, int b, int cpu);
/*
 * Side @which (0 start, 1 end) of the window of a bound @s, relative times
 * resolved, in *@ns; false when @s leaves that side open.
 */
bool select_window_get(const struct tdat_select *s, int which, int64_t *ns);

bool select_is_stack(const struct ttype *t);
/* A copy of @s's criteria (its window resolved), to bind to a worker's merge; NULL: no memory. */
struct tdat_select *select_clone(const struct tdat_select *s);
/* Whether an event glob ("SYS:EVENT", or one glob for either) fits an event. */
bool select_glob_fits(const char *g, const char *system, const char *name);
/* Whether -B @sel names buffer @b of @f (by its name; with several inputs INPUT or INPUT:INSTANCE). */
bool select_buffer_named(const struct tdat_select *s, const struct tdat_file *f, int b, const char *sel);
/*
 * select-names.c: what @s names must be in the inputs of @m (events,
 * buffers, CPUs), and its window must not end before it starts; else
 * TDAT_EINVAL with the message in s->errmsg.
 */
int select_check_events(struct tdat_select *s, struct tdat_merge *m);
int select_check_buffers(struct tdat_select *s, struct tdat_merge *m);
int select_check_cpus(struct tdat_select *s, struct tdat_merge *m);
int select_check_window(struct tdat_select *s);
/* Whether --comm patterns select (the names they match may be learnt as the text prints). */
bool select_comms(const struct tdat_select *s);
/* Whether @s has filter expressions (-F, -v -F). */
bool select_filters(const struct tdat_select *s);
/* A window begins: nothing is known of the events before it. */
void select_window(struct tdat_select *s);
/*
 * tdat_select_match() that knows the unknown: -1 when @ev is a stack trace
 * whose fate is that of the event before it on its CPU, in an earlier time
 * window (select_window()); s->undecided_neg then says whether the
 * negative filter drops it anyway.  Its slot stays unknown.
 */
int select_match3(struct tdat_select *s, const struct tdat_event *ev);
/* The slot of @ev's CPU (last_kept), or -1. */
int select_slot(const struct tdat_select *s, const struct tdat_event *ev);
/*
 * An undecided stack trace (select_match3()'s -1) of slot @slot, in
 * timeline order: whether the caller's @s keeps it, which it then knows.
 */
bool select_decide(struct tdat_select *s, int slot, bool neg);
int select_state_init(const struct tdat_select *s, struct sel_state *st);
void select_state_release(struct sel_state *st);
void select_take(struct tdat_select *s, struct sel_state *st);
/* Add what a window learnt (in timeline order) to @s, as if @s had seen its events. */
void select_absorb(struct tdat_select *s, const struct sel_state *st);

#endif /* TDAT_READ_SELECT_H */
