/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * jobring.h - a ring of jobs done by worker threads and taken back in
 * order (jobring.c): what gzip.c's deflate workers run on.
 */
#ifndef TDAT_WRITE_JOBRING_H
#define TDAT_WRITE_JOBRING_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

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
};

int jobring_init(struct jobring *r, unsigned n);
void jobring_release(struct jobring *r);
/* @delta workers more (started) or fewer (gone). */
void jobring_workers(struct jobring *r, int delta);
/* Wake the workers to leave (jobring_take() returns -1). */
void jobring_stop(struct jobring *r);
/* A worker: the oldest submitted slot, its own until jobring_done(); -1 once stopped. */
int jobring_take(struct jobring *r);
void jobring_done(struct jobring *r, int slot);
void jobring_submit(struct jobring *r);
/* Wait for slot tail % n: true when done, false when no worker is left to do it (the caller must). */
bool jobring_wait_oldest(struct jobring *r);
void jobring_free_oldest(struct jobring *r);

#endif /* TDAT_WRITE_JOBRING_H */
