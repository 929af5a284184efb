// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * jobring.c - jobs done on worker threads and taken back in the order
 * they were given: the ring under the -j gzip (gzip.c) and the Perfetto
 * writer's zlib batches (perfetto-zlib.c).  It starts its workers and joins
 * them.
 *
 * The caller fills the slot at head and submits it; workers take the
 * oldest submitted slot, do it and mark it done; the caller waits for the
 * slot at tail, uses its result and frees it.  When no worker is left (none
 * started, or all gave up), a submitted slot is handed back to the caller
 * to do itself, so a job is never lost.  Only the slot states, head, tail
 * and the worker count are shared; a slot's contents belong to the caller
 * until submitted, to one worker while it is busy, and to the caller again
 * once done.
 */
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "write/jobring.h"

enum { J_FREE, J_QUEUED, J_BUSY, J_DONE };

static void start_workers(struct jobring *r, int workers, enum tdat_thread_kind kind,
			  void *(*fn)(void *), void *arg)
{
	r->th = workers > 1 ? calloc((size_t)workers, sizeof(*r->th)) : NULL;
	for (int i = 0; r->th && i < workers; i++) {
		if (thread_start(&r->th[i], kind, fn, arg))
			break;	/* fewer workers; none: the caller does the jobs */
		r->nth++;
	}
	pthread_mutex_lock(&r->mu);
	r->alive = r->nth;
	pthread_mutex_unlock(&r->mu);
}

int jobring_open(struct jobring *r, int workers, enum tdat_thread_kind kind,
		 void *(*fn)(void *), void *arg)
{
	memset(r, 0, sizeof(*r));
	r->n = workers > 1 ? 2 * (unsigned)workers : 1;
	r->state = calloc(r->n, sizeof(*r->state));
	if (!r->state)
		return TDAT_ENOMEM;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->work, NULL);
	pthread_cond_init(&r->done, NULL);
	r->open = true;
	start_workers(r, workers, kind, fn, arg);
	return 0;
}

void jobring_close(struct jobring *r)
{
	if (!r->open)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = true;		/* jobring_take() returns -1 */
	pthread_cond_broadcast(&r->work);
	pthread_mutex_unlock(&r->mu);
	for (int i = 0; i < r->nth; i++)
		pthread_join(r->th[i], NULL);
	free(r->th);
	free(r->state);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->work);
	pthread_cond_destroy(&r->done);
	r->open = false;
}

int jobring_take(struct jobring *r)
{
	int slot = -1;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		for (uint64_t i = r->tail; i < r->head && slot < 0; i++)
			if (r->state[i % r->n] == J_QUEUED)
				slot = (int)(i % r->n);
		if (slot >= 0 || r->stop)
			break;
		pthread_cond_wait(&r->work, &r->mu);
	}
	if (slot >= 0)
		r->state[slot] = J_BUSY;
	pthread_mutex_unlock(&r->mu);
	return slot;
}

void jobring_done(struct jobring *r, int slot)
{
	pthread_mutex_lock(&r->mu);
	r->state[slot] = J_DONE;
	pthread_cond_broadcast(&r->done);
	pthread_mutex_unlock(&r->mu);
}

void jobring_submit(struct jobring *r)
{
	pthread_mutex_lock(&r->mu);
	r->state[r->head % r->n] = J_QUEUED;
	r->head++;
	pthread_cond_signal(&r->work);
	pthread_mutex_unlock(&r->mu);
}

bool jobring_wait_oldest(struct jobring *r)
{
	unsigned slot = (unsigned)(r->tail % r->n);
	bool done;

	pthread_mutex_lock(&r->mu);
	while (r->state[slot] != J_DONE && (r->alive || r->state[slot] != J_QUEUED))
		pthread_cond_wait(&r->done, &r->mu);
	done = r->state[slot] == J_DONE;
	if (!done)
		r->state[slot] = J_BUSY;	/* the caller's now */
	pthread_mutex_unlock(&r->mu);
	return done;
}

void jobring_free_oldest(struct jobring *r)
{
	pthread_mutex_lock(&r->mu);
	r->state[r->tail % r->n] = J_FREE;
	r->tail++;
	pthread_mutex_unlock(&r->mu);
}
