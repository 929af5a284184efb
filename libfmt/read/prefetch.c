/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * prefetch.c - v7 chunks read and decompressed ahead on a thread of the
 * merge (tdat_merge_set_jobs()), so that the thread decoding the events
 * does not wait for zstd.
 *
 * When a cursor has taken a chunk, it posts the next one: the prefetch
 * thread reads that chunk's header and data into the cursor's second
 * buffer and decompresses it with a context of its own.  When the cursor
 * needs the chunk, it takes the buffer if it is ready, waits if it is being
 * made, or takes the job back if it has not started.  The thread only does
 * what cannot fail differently: a chunk whose header, sizes, read or
 * decompression fails is left to the cursor, which reads it again itself
 * and reports the damage as without a prefetch, at the same place.  So
 * the events and the damage are the same with or without this thread.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

#define MAX_CODECS 4	/* codecs in one merge: zstd and zlib, at most */

struct prefetch {
	pthread_mutex_t mu;
	pthread_cond_t work;	/* a job was posted, or stop */
	pthread_cond_t done;	/* a job ended */
	pthread_t th;
	bool running, broken, stop;
	struct cursor *head, *tail;	/* jobs, oldest first */
	struct {
		const struct tdat_codec *codec;
		void *ctx;
	} ctx[MAX_CODECS];
	int nctx;
};

struct prefetch *prefetch_new(void)
{
	struct prefetch *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	return p;
}

/* The thread's context for @codec; NULL if none can be made. */
static void *codec_ctx(struct prefetch *p, const struct tdat_codec *codec)
{
	for (int i = 0; i < p->nctx; i++)
		if (p->ctx[i].codec == codec)
			return p->ctx[i].ctx;
	if (p->nctx == MAX_CODECS || !codec->ctx_new)
		return NULL;
	p->ctx[p->nctx].codec = codec;
	p->ctx[p->nctx].ctx = codec->ctx_new();
	return p->ctx[p->nctx++].ctx;
}

static bool reserve(unsigned char **buf, size_t *cap, size_t need, size_t slack)
{
	unsigned char *q;

	if (need <= *cap)
		return true;
	if (!(q = realloc(*buf, need + slack)))
		return false;
	*buf = q;
	*cap = need;
	return true;
}

/* Read and decompress the chunk at a->off into a->buf: whether all went well. */
static bool load(struct prefetch *p, struct cursor *c)
{
	struct ahead *a = &c->ahead;
	struct tdat_file *f = c->f;
	char err[TDAT_MSG_LEN];
	unsigned char hdr[8];
	void *ctx = NULL;

	if (a->end_off - a->off < 8 || src_pread(&f->src, hdr, 8, a->off, err))
		return false;
	a->zsize = file_num(f, hdr, 4);
	a->usize = (size_t)file_num(f, hdr + 4, 4);
	if (!chunk_fits(c, a->off, a->end_off, a->zsize, a->usize))
		return false;
	if (f->codec->ctx_new && !(ctx = codec_ctx(p, f->codec)))
		return false;
	if (!reserve(&a->zbuf, &a->zcap, a->zsize, 0) ||
	    !reserve(&a->buf, &a->cap, a->usize, RECORD_SLACK))
		return false;
	if (src_pread(&f->src, a->zbuf, a->zsize, a->off + 8, err) ||
	    f->codec->decompress(ctx, a->zbuf, a->zsize, a->buf, a->usize))
		return false;
	memset(a->buf + a->usize, 0, RECORD_SLACK);
	return true;
}

static void *run(void *arg)
{
	struct prefetch *p = arg;
	struct cursor *c;
	bool ok;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && !p->head)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->stop)
			break;
		c = p->head;
		if (!(p->head = c->ahead.next))
			p->tail = NULL;
		c->ahead.state = AHEAD_RUNNING;
		pthread_mutex_unlock(&p->mu);
		ok = load(p, c);
		pthread_mutex_lock(&p->mu);
		c->ahead.state = ok ? AHEAD_READY : AHEAD_IDLE;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

void prefetch_post(struct cursor *c)
{
	struct prefetch *p = c->ahead.pf;
	struct ahead *a = &c->ahead;

	if (!p || p->broken || a->posted || !c->chunks_left)
		return;
	pthread_mutex_lock(&p->mu);
	if (!p->running && !(p->running = !thread_start(&p->th, TDAT_THREAD_READ, run, p)))
		p->broken = true;	/* no thread: the cursors read on their own */
	if (p->running) {
		a->off = c->next_off;
		a->end_off = c->end_off;
		a->state = AHEAD_QUEUED;
		a->posted = true;
		a->next = NULL;
		if (p->tail)
			p->tail->ahead.next = c;
		else
			p->head = c;
		p->tail = c;
		pthread_cond_signal(&p->work);
	}
	pthread_mutex_unlock(&p->mu);
}

/* Take @c's job out of the queue (the lock is held). */
static void unqueue(struct prefetch *p, struct cursor *c)
{
	struct cursor **pp = &p->head, *prev = NULL;

	while (*pp && *pp != c) {
		prev = *pp;
		pp = &(*pp)->ahead.next;
	}
	if (!*pp)
		return;
	*pp = c->ahead.next;
	if (p->tail == c)
		p->tail = prev;
}

bool prefetch_take(struct cursor *c, uint64_t off)
{
	struct prefetch *p = c->ahead.pf;
	struct ahead *a = &c->ahead;
	bool ready;

	if (!p || !a->posted)
		return false;
	a->posted = false;
	pthread_mutex_lock(&p->mu);
	if (a->state == AHEAD_QUEUED) {
		unqueue(p, c);
		a->state = AHEAD_IDLE;
	}
	while (a->state == AHEAD_RUNNING)
		pthread_cond_wait(&p->done, &p->mu);
	ready = a->state == AHEAD_READY && a->off == off;
	a->state = AHEAD_IDLE;
	pthread_mutex_unlock(&p->mu);
	return ready;
}

void prefetch_free(struct prefetch *p)
{
	if (!p)
		return;
	if (p->running) {
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_cond_signal(&p->work);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->th, NULL);
	}
	for (int i = 0; i < p->nctx; i++)
		p->ctx[i].codec->ctx_free(p->ctx[i].ctx);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
