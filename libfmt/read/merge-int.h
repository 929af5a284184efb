/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * merge-int.h - the merge's own state, shared by merge.c (the timeline),
 * and chain.c (the pieces of a split read one after the other).
 */
#ifndef TDAT_MERGE_INT_H
#define TDAT_MERGE_INT_H

#include "read/read.h"

/* A file of the merge (tdat_merge.all[i]): its cursors, and its place in a chain. */
struct member {
	int cur0, ncur;		/* its cursors: cursors[cur0 .. cur0 + ncur) */
	int live;		/* of them, those not at their end yet */
	int next;		/* the next piece of its chain, -1: none */
	bool held;		/* a piece of a chain not reached yet: not in the heap */
	bool chain;		/* a piece of a sequential split, read in turn */
	bool dead;		/* a piece that ends before tdat_merge_seek()'s time: never read */
	bool over;		/* a piece read to its end (its buffers freed, its file closed) */
};

struct tdat_merge {
	struct tdat_file **files;	/* per input: its file, or its split's first piece added */
	int nfiles;
	struct tdat_file **all;		/* every file added, pieces too */
	int nall;
	struct splits splits;		/* the splits of the pieces added (piece.c) */
	struct tdat_file **views;	/* made for the inputs of merged files: ours */
	int nviews;
	struct member *members;		/* per file of all: its cursors, and in a chain */
	struct cursor *cursors;
	int ncursors;
	int *heap;		/* indexes into cursors */
	int nheap;
	int last;		/* cursor of the event handed out, -1 if none */
	bool started;
	bool chained;		/* chains_setup() was run and found followers */
	bool chains_made;
	bool counting;		/* tdat_merge_count(): count what is handed out */
	bool seeked, ended;	/* moved by tdat_merge_seek(); TDAT_END returned */
	struct tally {		/* with counting, per cursor */
		struct tdat_cpu_stats cs;
		uint64_t *counts;	/* per common_type */
		unsigned ncounts;
	} *tally;
	struct tdat_damage *damage;
	int ndamage;
	struct prefetch *pf;	/* tdat_merge_set_jobs(): chunks read ahead */
	char errmsg[TDAT_MSG_LEN];
	/* time windows (window.c, run/par.c) */
	bool bounded;		/* a window's events end before hi */
	uint64_t hi;
	bool quiet;		/* damage found while seeking a window: another's to report */
	damage_fn *hook;	/* damage goes here, not to the list (NULL: the list) */
	void *hook_arg;
	bool windowed;		/* progress is win_done: the windows read the events */
	uint64_t win_done;
};

/* merge.c: the first (or @last) event time of cursor @c's CPU, @c not moved; TDAT_END: none. */
int merge_probe(const struct cursor *c, bool last, uint64_t *ts);
/* merge.c: put cursor @i (peeked, with an event) into the heap. */
void merge_heap_push(struct tdat_merge *m, int i);
int merge_fail(struct tdat_merge *m, const struct cursor *c, int ret);

/*
 * chain.c: the pieces of a split cut in time (--every, --events, --size)
 * hold consecutive stretches of the timeline, so they are read one after
 * the other: a piece's file is opened when the one before it ends, and
 * closed (its buffers freed) when it ends.  Thousands of pieces then cost
 * one open file and one piece's memory at a time.
 */
/* Link the pieces of each such split in order; hold all but the first. */
int chains_setup(struct tdat_merge *m);
/* Cursor @i reached its end: its piece may end, and the next begin. */
int chain_cursor_end(struct tdat_merge *m, int i);
/* tdat_merge_seek() of chains: the piece holding @ts only is sought, those before end. */
int chains_seek(struct tdat_merge *m, uint64_t ts, bool *done);
/* Whether cursor @i counts for the span's first (@last false) or last event time. */
bool chain_spans(const struct tdat_merge *m, int i, bool last);
/* After a probe of cursor @i's file: closed again if it is a piece not being read. */
void chain_park(struct tdat_merge *m, int i);

#endif
