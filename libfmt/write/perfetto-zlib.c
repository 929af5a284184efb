// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perfetto-zlib.c - the Perfetto writer's "compression" zlib batches,
 * deflated on worker threads and taken back in order (jobring.c), as the
 * -j gzip does (gzip.c).
 *
 * Each batch is one zlib stream of its own (libdeflate's zlib format at
 * the writer's level: the speed of zlib's level 1 at about its level 6's
 * size): its bytes depend on its packets only, so any number of workers
 * (none: the caller's thread, when it takes the batch) makes the same
 * file.  The caller hands a full batch over (its buffer is swapped with the
 * slot's, nothing copied), writes the oldest once the ring is full, and all
 * of them at the end.  Memory: each slot holds a batch and its output
 * (about 1 MiB), 2 x workers slots.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>

#include "write/jobring.h"
#include "write/perfetto.h"

struct pf_zslot {
	char *in;
	size_t inlen, incap;
	unsigned char *out;
	size_t outlen, outcap;
	int err;
};

struct pf_zring {
	struct jobring ring;	/* of the slots: next batch to submit, next to write;
				 * no worker running: the caller deflates */
	int level;
	struct libdeflate_compressor *caller;	/* the caller's, made when needed */
	struct pf_zslot *slot;
};

/* Deflate @s's batch as one zlib stream with @c (NULL: out of memory). */
static void deflate_slot(struct pf_zslot *s, struct libdeflate_compressor *c)
{
	size_t n;

	s->err = ENOMEM;
	if (!c)
		return;
	s->err = 0;
	n = libdeflate_zlib_compress_bound(c, s->inlen);
	if (n > s->outcap) {
		unsigned char *p = realloc(s->out, n);

		if (!p) {
			s->err = ENOMEM;
			return;
		}
		s->out = p;
		s->outcap = n;
	}
	if (!(s->outlen = libdeflate_zlib_compress(c, s->in, s->inlen, s->out, s->outcap)))
		s->err = ENOMEM;	/* cannot happen: the output has the bound's room */
}

static void *worker(void *arg)
{
	struct pf_zring *z = arg;
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(z->level);
	int i;

	while ((i = jobring_take(&z->ring)) >= 0) {
		deflate_slot(&z->slot[i], c);
		jobring_done(&z->ring, i);
	}
	libdeflate_free_compressor(c);
	return NULL;
}

void pf_zring_free(struct pf_zring *z)
{
	if (!z)
		return;
	jobring_close(&z->ring);	/* the workers are gone: the slots are the caller's */
	for (unsigned i = 0; z->slot && i < z->ring.n; i++) {
		free(z->slot[i].in);
		free(z->slot[i].out);
	}
	free(z->slot);
	libdeflate_free_compressor(z->caller);
	free(z);
}

struct pf_zring *pf_zring_new(int workers, int level)
{
	struct pf_zring *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	z->level = level;
	/* the workers touch a slot only once it is submitted */
	if (jobring_open(&z->ring, workers, TDAT_THREAD_GZIP, worker, z) ||
	    !(z->slot = calloc(z->ring.n, sizeof(*z->slot)))) {
		pf_zring_free(z);
		return NULL;
	}
	return z;
}

bool pf_zring_full(const struct pf_zring *z)
{
	return jobring_full(&z->ring);
}

bool pf_zring_pending(const struct pf_zring *z)
{
	return z->ring.tail < z->ring.head;
}

void pf_zring_submit(struct pf_zring *z, struct tdat_sink *batch)
{
	struct pf_zslot *s = &z->slot[z->ring.head % z->ring.n];
	char *buf = s->in;
	size_t cap = s->incap;

	s->in = batch->buf;
	s->incap = batch->cap;
	s->inlen = batch->len;
	batch->buf = buf;
	batch->cap = cap;
	batch->len = 0;
	jobring_submit(&z->ring);
}

int pf_zring_oldest(struct pf_zring *z, const unsigned char **out, size_t *len)
{
	struct pf_zslot *s = &z->slot[z->ring.tail % z->ring.n];

	if (!jobring_wait_oldest(&z->ring)) {	/* no worker: deflate it here */
		if (!z->caller)
			z->caller = libdeflate_alloc_compressor(z->level);
		deflate_slot(s, z->caller);
	}
	*out = s->out;
	*len = s->outlen;
	return s->err ? TDAT_ENOMEM : 0;
}

void pf_zring_free_oldest(struct pf_zring *z)
{
	z->slot[z->ring.tail % z->ring.n].inlen = 0;
	jobring_free_oldest(&z->ring);
}
