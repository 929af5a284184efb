// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bufpool.c - the large buffers of memory sinks that come and go by the
 * thousand (the parquet writer's columns: a set for each row group) in
 * blocks of their own, mapped apart from malloc()'s heap, with a bounded
 * cache of freed blocks for the next ones.
 *
 * From malloc()'s heap, buffers of many sizes freed in another order than
 * they came left the heap ever more holes that it cannot give back: the
 * parquet writer's peak grew by about 17 MiB from the first 10% of
 * big-mixed.dat to the whole, with its data in use bounded.  A block here
 * is a power of two bytes from BP_MIN up, grown by taking a cached block of
 * the size wanted (and copying), else by mremap() (no copy: the page tables
 * move); a freed one waits in the cache while the cache holds under its
 * bound, else it is unmapped.  A buffer smaller than BP_MIN is malloc()'s,
 * as any sink's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "write/sink.h"

/*
 * Under ASan a cached block is poisoned past the pool's two link words, so
 * that a use after sink_release() is caught as with free()'s memory.
 */
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((char *)(p) + 16, (n) - 16)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define BP_NCLASS 40	/* BP_MIN << 39 is more than any address space */

struct bufpool {
	pthread_mutex_t mu;
	void *free[BP_NCLASS];	/* cached blocks by class, linked through their first word */
	size_t cached, max;	/* bytes of cached blocks; at most */
};

struct bufpool *bufpool_new(size_t max)
{
	struct bufpool *bp = calloc(1, sizeof(*bp));

	if (bp && pthread_mutex_init(&bp->mu, NULL)) {
		free(bp);
		return NULL;
	}
	if (bp)
		bp->max = max;
	return bp;
}

void bufpool_free(struct bufpool *bp)
{
	if (!bp)
		return;
	for (int k = 0; k < BP_NCLASS; k++) {
		while (bp->free[k]) {
			void *b = bp->free[k];

			bp->free[k] = *(void **)b;
			UNPOISON(b, BP_MIN << k);
			munmap(b, BP_MIN << k);
		}
	}
	pthread_mutex_destroy(&bp->mu);
	free(bp);
}

/* The class of blocks that hold @n bytes (n > 0), or -1 if none does. */
static int class_of(size_t n)
{
	int k = 0;

	while (k < BP_NCLASS && (BP_MIN << k) < n)
		k++;
	return k < BP_NCLASS ? k : -1;
}

/* A cached block of class @k, or NULL. */
static void *take(struct bufpool *bp, int k)
{
	void *b;

	pthread_mutex_lock(&bp->mu);
	if ((b = bp->free[k])) {
		bp->free[k] = *(void **)b;
		bp->cached -= BP_MIN << k;
		UNPOISON(b, BP_MIN << k);
	}
	pthread_mutex_unlock(&bp->mu);
	return b;
}

/*
 * Cache @buf, a block of class @k, making room by dropping larger cached
 * blocks first (a few large ones, each a row group's column, would keep
 * out the many smaller ones taken more often); else unmap it.
 */
static void cache(struct bufpool *bp, char *buf, int k)
{
	void *drop = NULL, *b;	/* blocks to unmap, linked through their second word */
	int j = BP_NCLASS - 1;

	pthread_mutex_lock(&bp->mu);
	while (bp->cached + (BP_MIN << k) > bp->max && j > k) {
		if (!(b = bp->free[j])) {
			j--;
			continue;
		}
		bp->free[j] = *(void **)b;
		bp->cached -= BP_MIN << j;
		UNPOISON(b, BP_MIN << j);
		((void **)b)[0] = (void *)(BP_MIN << j);
		((void **)b)[1] = drop;
		drop = b;
	}
	if (bp->cached + (BP_MIN << k) <= bp->max) {
		*(void **)buf = bp->free[k];
		bp->free[k] = buf;
		bp->cached += BP_MIN << k;
		POISON(buf, BP_MIN << k);
		buf = NULL;
	}
	pthread_mutex_unlock(&bp->mu);
	if (buf)
		munmap(buf, BP_MIN << k);
	while ((b = drop)) {
		drop = ((void **)b)[1];
		munmap(b, (size_t)((void **)b)[0]);
	}
}

size_t bufpool_cached(struct bufpool *bp)
{
	size_t n;

	pthread_mutex_lock(&bp->mu);
	n = bp->cached;
	pthread_mutex_unlock(&bp->mu);
	return n;
}

void bufpool_put(struct bufpool *bp, char *buf, size_t cap)
{
	if (!buf)
		return;
	if (cap < BP_MIN)
		free(buf);
	else
		cache(bp, buf, class_of(cap));
}

char *bufpool_grow(struct bufpool *bp, char *buf, size_t len, size_t cap, size_t want,
		   size_t *newcap)
{
	int k = class_of(want);
	void *b;

	if (want < BP_MIN) {	/* then cap < BP_MIN too: malloc()'s */
		if ((b = realloc(buf, want)))
			*newcap = want;
		return b;
	}
	if (k < 0)
		return NULL;
	if (!(b = take(bp, k)) && buf && cap >= BP_MIN) {
		/* moved by the page tables, not copied: only the new pages are fresh */
		b = mremap(buf, cap, BP_MIN << k, MREMAP_MAYMOVE);
		if (b == MAP_FAILED)
			return NULL;
		*newcap = BP_MIN << k;
		return b;
	}
	if (!b) {
		b = mmap(NULL, BP_MIN << k, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b == MAP_FAILED)
			return NULL;
	}
	if (len)
		memcpy(b, buf, len);
	bufpool_put(bp, buf, cap);
	*newcap = BP_MIN << k;
	return b;
}
