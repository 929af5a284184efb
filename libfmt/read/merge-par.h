/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * merge-par.h - what a parallel run (run/par.c, -j) needs of reading
 * (merge-par.c), and all it uses of read/ but the public tdat.h:
 *
 *  - the caller's side (struct par_read): whether its merge can be read in
 *    time windows, the windows one after the other, and taking back, in
 *    timeline order, what the workers found reading them;
 *  - a worker's side (struct par_reader): a merge of its own over clones of
 *    the caller's files with a copy of the selection, positioned at a
 *    window, its events with the selection's verdict, and what it found
 *    handed back in stretches (struct par_back).
 */
#ifndef TDAT_READ_MERGE_PAR_H
#define TDAT_READ_MERGE_PAR_H

#include "read/types.h"
#include "read/thread.h"	/* thread_start(): the workers' threads */

/*
 * An event the worker's selection could not decide on (par_reader_next()'s
 * -1: a stack trace whose fate is the event's before it, in an earlier
 * window): put as if kept, for the caller's selection to decide.
 */
struct par_und {
	size_t at, len;		/* the caller's: where the worker put it (text, or event index) */
	int slot;		/* its CPU's slot in the selection */
	bool neg;		/* the negative filter drops it anyway */
	bool keep;		/* the caller's decision (par_read_take()) */
};

/* Damage a worker's merge found, for the caller's merge to report. */
struct par_dmg {
	int cursor;
	uint64_t off, bytes;
	const char *reason;
};

/* What a worker's reading of a stretch of a window hands back (par_reader_seal()). */
struct par_back {
	struct cpos *at;	/* the worker's merge's places after it, */
	int last;		/* and its cursor handed out last (-1: the event before is next) */
	struct par_und *und;	/* in timeline order */
	size_t nund, ucap;
	struct par_dmg *dmg;
	size_t ndmg, dcap;
	struct sel_state sel;	/* with a selection: what it learnt */
};

/* What par_read_new() found of the caller's merge. */
struct par_how {
	int ncur;		/* cursors of the merge (a window's struct cpos arrays: ncur + 1) */
	bool counting;		/* tdat_merge_count(): the caller counts what it takes (merge_tally()) */
};

/* The caller's side. */
struct par_read;
/*
 * Whether merge @m (and selection @sel, NULL: none) can be read in time
 * windows of about @window decompressed bytes (0: a size fit for its
 * CPUs): 0 with *@out to read them, TDAT_EUNSUPP when not (pieces read one
 * after the other, notices, a window ending before it starts; with @names,
 * whose text learns task names as it prints, a --comm selection), or an
 * error.  The merge is not moved.
 */
int par_read_new(struct tdat_merge *m, struct tdat_select *sel, bool names, uint64_t window,
		 struct par_how *how, struct par_read **out);
/* The next window into @cut (its arrays ncur + 1 long): 1, 0 after the last, or an error. */
int par_read_next(struct par_read *pr, struct wcut *cut);
/* Whether a window a worker began at places @start follows what was taken so far. */
bool par_read_follows(const struct par_read *pr, const struct cpos *start);
/*
 * Take @bk, the next in timeline order: decide its undecided events
 * (und[].keep), learn what its selection learnt, report its damage as the
 * caller's merge would have, and go on from its places.  The number of
 * undecided events dropped.
 */
size_t par_read_take(struct par_read *pr, struct par_back *bk);
/*
 * The windows are over: with @all, every event was taken (the merge ends
 * as if it had read them); else the caller's merge goes on alone from
 * where what was taken ends.  0 or an error.
 */
int par_read_end(struct par_read *pr, bool all);
void par_read_free(struct par_read *pr);
/* Count @ev, taken from a worker, as cursor @i's (tdat_merge_count()). */
int merge_tally(struct tdat_merge *m, int i, const struct tdat_event *ev);

/* A worker's side: its own merge and selection, for one thread. */
struct par_reader {
	struct tdat_merge *m;		/* over clones of the caller's files */
	struct tdat_select *sel;	/* a copy of the caller's selection, bound to m; or NULL */
	struct tdat_file **files;	/* the clones, in the order of the caller's merge's members */
	struct tdat_file **orig;	/* the caller's files they clone */
	int nfiles;
	int last;			/* the cursor of the event par_reader_next() handed out */
	struct par_back *back;		/* being made */
	const struct par_read *pr;
};
/*
 * A worker's reader of @pr's merge (on the worker's thread); with @symbols,
 * the clones keep kallsyms (function names are printed).  0 or an error.
 */
int par_reader_new(const struct par_read *pr, bool symbols, struct par_reader **out);
void par_reader_free(struct par_reader *rd);
/* Read window @cut from its start (each cursor's first place into @start).  0 or an error. */
int par_reader_window(struct par_reader *rd, const struct wcut *cut, struct cpos *start);
/*
 * The window's next event into *@ev and the selection's verdict into
 * *@keep: 1 kept, 0 dropped, -1 undecided, noted in the back being made
 * (*@und: its entry, whose at and len the caller fills in).  0, TDAT_END
 * after the window's last, or an error.
 */
int par_reader_next(struct par_reader *rd, const struct tdat_event **ev, int *keep,
		    struct par_und **und);
/*
 * A stretch ends here (@last: rd->last, or -1 before the event just handed
 * out): what was found since the last seal into *@bk, which gives its old
 * back (or NULL) for the next stretch.  0 or TDAT_ENOMEM.
 */
int par_reader_seal(struct par_reader *rd, struct par_back **bk, int last);
void par_back_free(struct par_back *bk);

#endif /* TDAT_READ_MERGE_PAR_H */
