/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * worker.h - what a -j worker's writer notes beside its text, held by
 * struct tdat_writer: the cuts of its text by destination (par_segs,
 * worker-notes.c) and the task names it left out or learnt (par_names;
 * worker-notes.c adds them, run/par-names.c puts them in).
 */
#ifndef TDAT_WRITE_WORKER_H
#define TDAT_WRITE_WORKER_H

#include <stddef.h>

/*
 * A worker's batch text for several destinations (typed csv's files), in
 * order: @len bytes for event type @id of input @input each (run/par.c).
 */
struct par_seg {
	int input;
	unsigned id;
	size_t len;
};
struct par_segs {
	struct par_seg *v;
	size_t n, cap;
};
/* Add @len bytes for (@input, @id) to @s, joined to the last one when it is the same. */
int par_seg_add(struct par_segs *s, int input, unsigned id, size_t len);

/*
 * A -j worker's text leaves out the names of tasks it cannot know (learnt
 * from events before its window) and notes what it learnt (names_add());
 * run/par-names.c puts them in.
 */
#define NAME_MAX_COMM	24	/* a comm field is 16 bytes: more is cut */
enum { NAME_PUT, NAME_LEARN };
struct par_name {
	size_t at;		/* NAME_PUT: where the name goes; NAME_LEARN: its event's start */
	int input, pid;
	unsigned char kind;
	char comm[NAME_MAX_COMM];	/* NAME_LEARN: the name */
};
struct par_names {
	struct par_name *v;
	size_t n, cap;
};
int names_add(struct par_names *n, int kind, int input, int pid, size_t at, const char *comm,
	      size_t len);

#endif /* TDAT_WRITE_WORKER_H */
