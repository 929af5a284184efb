/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * par.h - what par.c (the caller's side of tdat_writer_run() on -j
 * threads) and par-work.c (its workers) share: time windows, the blocks a
 * worker makes of one, and the lock over both.
 */
#ifndef TDAT_PAR_H
#define TDAT_PAR_H

#include "read/merge-par.h"
#include "write/sink.h"
#include "write/worker.h"
#include "write/writer-int.h"

#define BLOCK_EVENTS 16384	/* events a block holds, at most */
#define BLOCK_BYTES (2 << 20)	/* text or record bytes a block holds, about */
#define BLOCK_READ (16 * BLOCK_EVENTS)	/* events read (kept or not) a block stands for */
/*
 * PM_COPY's blocks are smaller: the caller, which puts each event through
 * the format, is the slower side, and each block in hand (queued, being
 * made, being taken, spare) holds its copies and their events.
 */
#define BLOCK_PUT_EVENTS 4096
#define BLOCK_PUT_BYTES (512u << 10)
/*
 * Bytes of blocks a window made and the caller has not taken: printed
 * text, which the caller only writes, and prepared events, which it
 * mostly copies, run ahead, QUEUE_AHEAD a window.  Copies the caller puts
 * through a format need to be ready when it comes back from the format's
 * own threads: QUEUE_PUT for all windows together (par-work.c no_room();
 * parquet at -j 2: the caller waited 0.6-0.8 s for its one worker with
 * 1 MiB a window, 0.05-0.24 s with 4 MiB in all).
 */
#define QUEUE_AHEAD (16u << 20)
#define QUEUE_PUT (4u << 20)
#define NO_PRE SIZE_MAX		/* an event ops->prepare made nothing of */

enum par_mode {
	PM_PRINT,	/* workers print the events (ops->parallel): text, csv, typed csv */
	PM_PREPARE,	/* workers format each event's fields (ops->prepare), the caller puts */
	PM_COPY,	/* workers decode and select, the caller puts copies */
};

/* A piece of a window's output, in timeline order, made by a worker and taken by the caller. */
struct block {
	struct block *next;
	struct tdat_event *ev;	/* PM_PREPARE, PM_COPY: the kept events, ->data an offset */
	int *cur;		/* and each one's cursor (for tdat_merge_count()) */
	bool *fit;		/* and whether its fields are inside it (writer_fields_fit()) */
	size_t nev;
	char *bytes;		/* their records */
	size_t blen, bcap;
	struct tdat_sink out;	/* PM_PRINT: the text; PM_PREPARE: the prepared bytes */
	struct par_segs segs;	/* PM_PRINT with ops->put_segs: the text's destinations */
	struct par_names names;	/* PM_PRINT: names its text left out or learnt (par-names.c) */
	size_t *pre_off, *pre_len;	/* PM_PREPARE: each event's bytes in out */
	size_t post, post_len;		/* PM_PREPARE: ops->prepare_end()'s bytes in out */
	uint64_t ndamaged;	/* events the worker's writer wrote without part of them */
	struct writer_damage first;
	/*
	 * what the worker's reading found (its places after the block, damage,
	 * what its selection learnt, the undecided stack traces: at, len are
	 * PM_PRINT's text, @len bytes of out, else the event's index)
	 */
	struct par_back *back;
	uint64_t events, kept;	/* read, and kept */
	size_t size;		/* what it holds, in bytes */
};

enum { W_FREE, W_QUEUED, W_BUSY, W_DONE };

struct win {
	int state;
	struct wcut cut;
	struct cpos *start;		/* the cursors' places where the window begins */
	bool started;			/* start is set: its worker found them */
	bool failed;			/* its worker could not go on */
	struct block *head, *tail;	/* made, not yet taken */
	size_t bytes;			/* what they hold */
};

struct worker;

struct par {
	struct tdat_writer *w;		/* the caller's */
	struct tdat_merge *m;		/* its merge */
	struct par_read *pr;		/* read in time windows */
	struct tdat_select *sel;	/* the caller's selection, or NULL */
	enum par_mode mode;
	size_t blk_events, blk_bytes;	/* a block's events and record bytes, at most (par_new()) */
	int ncur;			/* cursors of the merge */
	pthread_mutex_t mu;
	pthread_cond_t work;		/* a window was queued, or stop */
	pthread_cond_t made;		/* a block, a start, an end or a failure */
	pthread_cond_t room;		/* a block was taken, or stop */
	bool stop;
	int alive;			/* workers that take windows */
	struct win *ring;
	unsigned nring;
	uint64_t head, tail;		/* windows queued, taken */
	struct block *spare;		/* blocks to reuse */
	size_t bytes;			/* what the windows' blocks not taken hold */
	struct worker *wk;
	int nwk;
	struct par_learnt *learnt;	/* PM_PRINT: names the workers' texts learnt, in order */
};

/* par-names.c: the names a worker's text left out (write/worker.h), put in by the caller */
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

/* par-work.c */
int par_workers_start(struct par *p, int n);
void par_workers_stop(struct par *p);
void block_free(struct block *b, struct par *p);

#endif /* TDAT_PAR_H */
