// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * jobring.c - jobs done on worker threads and taken back in the order
 * they were given: the ring under the -j gzip (gzip.c) and the -j text and
 * csv printing (run/par.c).
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

#include "tdat.h"
#include "write/jobring.h"

enum { J_FREE, J_QUEUED, J_BUSY, J_DONE };

int jobring_init(struct jobring *r, unsigned n)
{
	r->state = calloc(n, sizeof(*r->state));
	r->n = n;
	r->head = r->tail = 0;
	r->alive = 0;
	r->stop = false;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->work, NULL);
	pthread_cond_init(&r->done, NULL);
	return r->state ? 0 : TDAT_ENOMEM;
}

void jobring_release(struct jobring *r)
{
	free(r->state);
	r->state = NULL;
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->work);
	pthread_cond_destroy(&r->done);
}

void jobring_workers(struct jobring *r, int delta)
{
	pthread_mutex_lock(&r->mu);
	r->alive += delta;
	pthread_cond_broadcast(&r->done);	/* a caller may wait for a worker that is gone */
	pthread_mutex_unlock(&r->mu);
}

void jobring_stop(struct jobring *r)
{
	pthread_mutex_lock(&r->mu);
	r->stop = true;
	pthread_cond_broadcast(&r->work);
	pthread_mutex_unlock(&r->mu);
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
