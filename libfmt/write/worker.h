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

struct tdat_merge;
struct tdat_sink;

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
 * run/par-names.c: a -j worker's text leaves out the names of tasks it cannot
 * know (learnt from events before its window) and notes what it learnt.
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
struct par_learnt;
struct par_und;
int names_add(struct par_names *n, int kind, int input, int pid, size_t at, const char *comm,
	      size_t len);
struct par_learnt *names_new(void);
void names_free(struct par_learnt *l);
/*
 * Write @len bytes of a worker's @text to @s, but its dropped stack traces
 * (@und), learning and putting in the names of @names; 0 or TDAT_ENOMEM.
 */
int names_write(struct par_learnt *l, struct tdat_merge *m, struct tdat_sink *s, const char *text,
		size_t len, const struct par_names *names, const struct par_und *und, size_t nund);
/* The caller reads on alone: its handles first learn what the workers' texts learnt. */
void names_seed(const struct par_learnt *l, struct tdat_merge *m);

#endif /* TDAT_WRITE_WORKER_H */
