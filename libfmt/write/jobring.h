/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * jobring.h - a ring of jobs done by worker threads and taken back in
 * order (jobring.c): what gzip.c's and perfetto-zlib.c's deflate workers
 * run on.  The ring owns its threads: it starts them and joins them.
 */
#ifndef TDAT_WRITE_JOBRING_H
#define TDAT_WRITE_JOBRING_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "read/thread.h"

/*
 * jobring.c: jobs in @n slots done by worker threads and taken back in the
 * order given.  The caller fills slot head % n, submits it (the ring is
 * full when head - tail == n), waits for slot tail % n and frees it.
 */
struct jobring {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	int *state;
	unsigned n;
	uint64_t head, tail;	/* the slot being filled, the next to take back */
	int alive;		/* workers that take jobs */
	bool stop;
	bool open;		/* jobring_open() succeeded: jobring_close() undoes it */
	pthread_t *th;
	int nth;		/* threads started */
};

/*
 * A ring of 2 x @workers slots (1 when @workers < 2) and up to @workers
 * threads of @kind running @fn(@arg), which loops on jobring_take().  Fewer
 * threads (none: the caller does every job) when they cannot be started.
 * 0, or TDAT_ENOMEM with nothing left to close.
 */
int jobring_open(struct jobring *r, int workers, enum tdat_thread_kind kind,
		 void *(*fn)(void *), void *arg);
/* Stop the workers, wait for them to leave, free the ring (not the caller's slots). */
void jobring_close(struct jobring *r);
/* The ring has no free slot: the caller must take the oldest back first. */
static inline bool jobring_full(const struct jobring *r)
{
	return r->head - r->tail == r->n;
}
/* A worker: the oldest submitted slot, its own until jobring_done(); -1 once stopped. */
int jobring_take(struct jobring *r);
void jobring_done(struct jobring *r, int slot);
void jobring_submit(struct jobring *r);
/* Wait for slot tail % n: true when done, false when no worker is left to do it (the caller must). */
bool jobring_wait_oldest(struct jobring *r);
void jobring_free_oldest(struct jobring *r);

#endif /* TDAT_WRITE_JOBRING_H */
