// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gzip.c - a sink's gzip stream, compressed on several threads as pigz
 * does, yet one gzip member whose bytes do not depend on the thread count.
 *
 * The stream is cut into blocks of 256 KiB, each deflated on its own (raw
 * deflate, level 6) with the last 32 KiB of the block before it as the
 * dictionary, and ended with a sync flush, so the blocks' outputs joined in
 * order are one deflate stream; an empty final block ends it.  The CRC-32
 * of the whole is combined from the blocks' (crc32_combine).  A block's
 * bytes depend only on its input and the one before, so any number of
 * workers (none: the caller's thread) writes the same file.
 *
 * The caller submits blocks in order to a ring of 2 x workers slots
 * (jobring.c); the workers deflate them; the caller writes finished blocks
 * in order, waiting for the oldest when the ring is full (and deflating it
 * itself when there is no worker).  Memory: each slot holds a block
 * and its output (about 2 x the sink's buffer).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "write/write.h"

#define GZ_BLOCK (256 * 1024)	/* input bytes a block (the last may be fewer) */
#define GZ_DICT 32768
#define GZ_LEVEL 6

struct gz_slot {
	char *in, *out;		/* in: GZ_BLOCK bytes */
	size_t inlen, outlen, outcap;
	char dict[GZ_DICT];
	unsigned dictlen;
	uint32_t crc;
	int err;
};

struct gz {
	struct jobring ring;	/* of the slots: next block to submit, next to write */
	bool ring_init;
	pthread_t *th;
	int nth;		/* workers running; 0: deflate in the caller's thread */
	struct gz_slot *slot;
	z_stream caller;	/* the caller's deflater when there are no workers */
	bool caller_init;
	char tail_dict[GZ_DICT];	/* the last input's end: the next block's dictionary */
	unsigned tail_len;
	uint32_t crc;
	uint64_t isize;
};

/* Deflate @s's input with @z: raw deflate, ended by a sync flush. */
static void deflate_slot(z_stream *z, struct gz_slot *s)
{
	size_t bound = deflateBound(z, s->inlen) + 16;

	s->err = 0;
	if (bound > s->outcap) {
		char *p = realloc(s->out, bound);

		if (!p) {
			s->err = ENOMEM;
			return;
		}
		s->out = p;
		s->outcap = bound;
	}
	if (deflateReset(z) != Z_OK ||
	    (s->dictlen && deflateSetDictionary(z, (const Bytef *)s->dict, s->dictlen) != Z_OK)) {
		s->err = EIO;
		return;
	}
	z->next_in = (Bytef *)s->in;
	z->avail_in = (uInt)s->inlen;
	z->next_out = (Bytef *)s->out;
	z->avail_out = (uInt)s->outcap;
	if (deflate(z, Z_SYNC_FLUSH) != Z_OK || z->avail_in) {
		s->err = EIO;
		return;
	}
	s->outlen = s->outcap - z->avail_out;
	s->crc = (uint32_t)crc32(0, (const Bytef *)s->in, (uInt)s->inlen);
}

static int deflater_init(z_stream *z)
{
	memset(z, 0, sizeof(*z));
	return deflateInit2(z, GZ_LEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK ? 0 : -1;
}

static void *worker(void *arg)
{
	struct gz *g = arg;
	z_stream z;
	bool ok = !deflater_init(&z);
	int i;

	while ((i = jobring_take(&g->ring)) >= 0) {
		if (ok)
			deflate_slot(&z, &g->slot[i]);
		else
			g->slot[i].err = ENOMEM;
		jobring_done(&g->ring, i);
	}
	if (ok)
		deflateEnd(&z);
	return NULL;
}

static void write_out(struct tdat_sink *sk, const void *p, size_t n)
{
	sink_write_fd(sk, p, n);
}

/* Write the oldest block once it is done (waiting for it), and free its slot. */
static void write_oldest(struct tdat_sink *sk, struct gz *g)
{
	struct gz_slot *s = &g->slot[g->ring.tail % g->ring.n];

	if (!jobring_wait_oldest(&g->ring))	/* no worker: deflate it here */
		deflate_slot(&g->caller, s);
	if (s->err && !sk->err)
		sk->err = s->err;
	write_out(sk, s->out, s->outlen);
	g->crc = (uint32_t)crc32_combine(g->crc, s->crc, (z_off_t)s->inlen);
	g->isize += s->inlen;
	s->inlen = 0;
	jobring_free_oldest(&g->ring);
}

/* Have the block being filled deflated, with the dictionary the blocks before it leave. */
static void submit(struct gz *g)
{
	struct gz_slot *s = &g->slot[g->ring.head % g->ring.n];

	memcpy(s->dict, g->tail_dict, g->tail_len);
	s->dictlen = g->tail_len;
	/* the next block's dictionary: the last 32 KiB so far (blocks but the last are larger) */
	if (s->inlen >= GZ_DICT) {
		memcpy(g->tail_dict, s->in + s->inlen - GZ_DICT, GZ_DICT);
		g->tail_len = GZ_DICT;
	}
	jobring_submit(&g->ring);
}

/*
 * Append @n bytes to the blocks: each block is GZ_BLOCK bytes of the stream
 * whatever the sink's flushes were, so the file depends on its text only.
 */
int gz_put(struct tdat_sink *sk, const char *p, size_t n)
{
	struct gz *g = sk->gz;

	while (n && !sk->err) {
		struct gz_slot *s;
		size_t take;

		if (g->ring.head - g->ring.tail == g->ring.n)
			write_oldest(sk, g);
		s = &g->slot[g->ring.head % g->ring.n];
		if (!s->in && !(s->in = malloc(GZ_BLOCK))) {
			sk->err = ENOMEM;
			break;
		}
		take = GZ_BLOCK - s->inlen < n ? GZ_BLOCK - s->inlen : n;
		memcpy(s->in + s->inlen, p, take);
		s->inlen += take;
		p += take;
		n -= take;
		if (s->inlen == GZ_BLOCK)
			submit(g);
	}
	return sk->err ? TDAT_EIO : 0;
}

static void put_le32(unsigned char *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

int gz_finish(struct tdat_sink *sk)
{
	struct gz *g = sk->gz;
	static const unsigned char last[2] = { 0x03, 0x00 };	/* an empty final fixed block */
	unsigned char trailer[8];

	if (g->slot[g->ring.head % g->ring.n].inlen && !sk->err)
		submit(g);
	while (g->ring.tail < g->ring.head)
		write_oldest(sk, g);
	write_out(sk, last, sizeof(last));
	put_le32(trailer, g->crc);
	put_le32(trailer + 4, (uint32_t)g->isize);
	write_out(sk, trailer, sizeof(trailer));
	return sk->err ? TDAT_EIO : 0;
}

void gz_free(struct gz *g)
{
	if (!g)
		return;
	if (g->ring_init)
		jobring_stop(&g->ring);
	for (int i = 0; i < g->nth; i++)
		pthread_join(g->th[i], NULL);
	for (unsigned i = 0; g->slot && i < g->ring.n; i++) {
		free(g->slot[i].in);
		free(g->slot[i].out);
	}
	if (g->caller_init)
		deflateEnd(&g->caller);
	if (g->ring_init)
		jobring_release(&g->ring);
	free(g->slot);
	free(g->th);
	free(g);
}

/* The gzip header: no name, no time (so the bytes depend on the data only), OS unknown. */
static const unsigned char gzip_head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff };

struct gz *gz_new(struct tdat_sink *sk, int workers)
{
	struct gz *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->crc = (uint32_t)crc32(0, NULL, 0);
	g->ring_init = !jobring_init(&g->ring, workers > 1 ? 2 * (unsigned)workers : 1);
	g->slot = g->ring_init ? calloc(g->ring.n, sizeof(*g->slot)) : NULL;
	if (!g->slot || deflater_init(&g->caller)) {
		gz_free(g);
		return NULL;
	}
	g->caller_init = true;
	g->th = workers > 1 ? calloc((size_t)workers, sizeof(*g->th)) : NULL;
	for (int i = 0; g->th && i < workers; i++) {
		if (pthread_create(&g->th[i], NULL, worker, g))
			break;	/* fewer workers; none: the caller deflates */
		g->nth++;
	}
	jobring_workers(&g->ring, g->nth);
	write_out(sk, gzip_head, sizeof(gzip_head));
	return g;
}
