// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gzip.c - a sink's gzip stream, compressed on several threads as pigz
 * does, yet one gzip member whose bytes do not depend on the thread count.
 *
 * The stream is cut into blocks of GZ_BLOCK (2 MiB), each deflated on its own with
 * libdeflate (level 6: about three times zlib's speed, and smaller).  A
 * block's deflate data ends with a final block; it is made to go on, as
 * zlib's examples/gzjoin.c joins files: walking its blocks (their codes
 * decoded, nothing inflated: deflate-walk.c) finds the final block's
 * header, whose BFINAL bit is cleared,
 * and where its last byte has spare bits an empty stored block (0000ffff,
 * as a sync flush writes) brings it to a byte boundary.  So the blocks'
 * outputs joined in order are one deflate stream, which an empty final
 * block ends; the CRC-32 of the whole is combined from the blocks'
 * (crc32_combine).  A block's bytes depend only on its input, so any number
 * of workers (none: the caller's thread) writes the same file, one member:
 * readers that stop at a member's end read all of it.
 *
 * The caller submits blocks in order to a ring of 2 x workers slots
 * (jobring.c); the workers deflate them; the caller writes finished blocks
 * in order, waiting for the oldest when the ring is full (and deflating it
 * itself when there is no worker).  Memory: each slot holds a block
 * and its output (about 4 MiB).
 */
#include <errno.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "read/read.h"
#include "write/sink.h"
#include "write/jobring.h"

#define GZ_LEVEL 6		/* the default */
#define GZ_FIXUP 5		/* bytes an empty stored block may add */

struct gz_slot {
	char *in;		/* GZ_BLOCK bytes */
	unsigned char *out;
	size_t inlen, outlen, outcap;
	uint32_t crc;
	int err;
};

/* What deflates blocks on one thread. */
struct coder {
	struct libdeflate_compressor *c;
	struct dwalk *walk;	/* to find the final block */
};

struct gz {
	struct jobring ring;	/* of the slots: next block to submit, next to write;
				 * no worker running: deflate in the caller's thread */
	struct gz_slot *slot;
	struct coder caller;	/* the caller's, when there are no workers */
	int level;
	uint32_t crc;
	uint64_t isize;
};

/*
 * Make the deflate data @p[0, *n) go on past its end: clear the BFINAL bit
 * of its final block, and end that block's last byte with an empty stored
 * block if it has spare bits.  False if the data cannot be walked.
 */
static bool unfinal(struct coder *k, unsigned char *p, size_t *n)
{
	size_t final, end;
	unsigned used, spare;

	if (!deflate_walk(k->walk, p, *n, &final, &end) || (end + 7) / 8 != *n)
		return false;
	p[final >> 3] &= (unsigned char)~(1u << (final & 7));
	if (!(used = end & 7))
		return true;	/* it ends on a byte boundary */
	spare = 8 - used;
	p[*n - 1] &= (unsigned char)((1u << used) - 1);	/* a stored block's header: 000 */
	if (spare < 3)
		p[(*n)++] = 0;	/* the rest of it */
	memcpy(p + *n, "\0\0\377\377", 4);	/* LEN 0, NLEN */
	*n += 4;
	return true;
}

/* Deflate @s's input with @k: deflate data that goes on, byte-aligned. */
static void deflate_slot(struct coder *k, struct gz_slot *s)
{
	size_t bound = libdeflate_deflate_compress_bound(k->c, s->inlen) + GZ_FIXUP;

	s->err = 0;
	if (bound > s->outcap) {
		unsigned char *p = realloc(s->out, bound);

		if (!p) {
			s->err = ENOMEM;
			return;
		}
		s->out = p;
		s->outcap = bound;
	}
	s->outlen = libdeflate_deflate_compress(k->c, s->in, s->inlen, s->out, s->outcap - GZ_FIXUP);
	if (!s->outlen || !unfinal(k, s->out, &s->outlen)) {
		s->err = EIO;
		return;
	}
	s->crc = libdeflate_crc32(0, s->in, s->inlen);
}

static void coder_release(struct coder *k)
{
	libdeflate_free_compressor(k->c);
	dwalk_free(k->walk);
	memset(k, 0, sizeof(*k));
}

static int coder_init(struct coder *k, int level)
{
	memset(k, 0, sizeof(*k));
	k->c = libdeflate_alloc_compressor(level);
	k->walk = dwalk_new();
	if (!k->c || !k->walk) {
		coder_release(k);
		return -1;
	}
	return 0;
}

static void *worker(void *arg)
{
	struct gz *g = arg;
	struct coder k;
	bool ok = !coder_init(&k, g->level);
	int i;

	while ((i = jobring_take(&g->ring)) >= 0) {
		if (ok)
			deflate_slot(&k, &g->slot[i]);
		else
			g->slot[i].err = ENOMEM;
		jobring_done(&g->ring, i);
	}
	if (ok)
		coder_release(&k);
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

/* Have the block being filled deflated. */
static void submit(struct gz *g)
{
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

		if (jobring_full(&g->ring))
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

	/* a block being filled (with a full ring, the head slot is the oldest's) */
	if (g->ring.head - g->ring.tail < g->ring.n && g->slot[g->ring.head % g->ring.n].inlen &&
	    !sk->err)
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
	jobring_close(&g->ring);	/* the workers are gone: the slots are the caller's */
	for (unsigned i = 0; g->slot && i < g->ring.n; i++) {
		free(g->slot[i].in);
		free(g->slot[i].out);
	}
	coder_release(&g->caller);
	free(g->slot);
	free(g);
}

/* The gzip header: no name, no time (so the bytes depend on the data only), OS unknown. */
static const unsigned char gzip_head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff };

struct gz *gz_new(struct tdat_sink *sk, int workers, int level)
{
	struct gz *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->level = level < 1 ? GZ_LEVEL : level > TDAT_GZIP_LEVEL_MAX ? TDAT_GZIP_LEVEL_MAX : level;
	g->crc = (uint32_t)crc32(0, NULL, 0);
	/* the workers touch a slot only once it is submitted */
	if (jobring_open(&g->ring, workers, TDAT_THREAD_GZIP, worker, g) ||
	    !(g->slot = calloc(g->ring.n, sizeof(*g->slot))) || coder_init(&g->caller, g->level)) {
		gz_free(g);
		return NULL;
	}
	write_out(sk, gzip_head, sizeof(gzip_head));
	return g;
}
