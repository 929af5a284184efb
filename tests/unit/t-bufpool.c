/*
 * t-bufpool.c - unit tests of the memory sinks' block pool
 * (libfmt/write/bufpool.c) and of a sink that takes its buffers from one:
 * a buffer keeps its bytes through every way it grows (malloc()'s below
 * BP_MIN, a cached block, mremap()), blocks are powers of two and a freed
 * one is the next taken of its size, the cache stays under its bound and
 * drops larger blocks for smaller ones, a sink's hint sizes its first
 * buffer, a size no block holds fails cleanly, and threads share a pool
 * (under ASan in CI, which also checks that a cached block is poisoned).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "write/sink.h"
#include "../tap.h"
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

static void fill(char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (char)((i * 131 + seed) >> 3);
}

static bool filled(const char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (char)((i * 131 + seed) >> 3))
			return false;
	return true;
}

/* Grow a buffer from nothing through malloc()'s sizes, a fresh block and mremap(). */
static void grow_keeps_bytes(void)
{
	struct bufpool *bp = bufpool_new(0);	/* caches nothing: each growth maps or moves */
	size_t cap = 0, len = 0, want[] = { 100, 4000, BP_MIN - 1, BP_MIN, BP_MIN + 1,
					    5 * BP_MIN, 64 * BP_MIN + 3 };
	char *p = NULL;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char *q = bufpool_grow(bp, p, len, cap, want[i], &cap);

		if (!ok(q != NULL, "grow to %zu", want[i]))
			break;
		p = q;
		ok(filled(p, len, 7), "the first %zu bytes kept growing to %zu", len, want[i]);
		ok(cap >= want[i] && (want[i] < BP_MIN ? cap == want[i] :
				      cap >= BP_MIN && !(cap & (cap - 1))),
		   "%zu bytes: a buffer of %zu (%s)", want[i], cap,
		   want[i] < BP_MIN ? "exact, malloc's" : "a block, a power of two");
		len = want[i];
		fill(p, len, 7);
	}
	bufpool_put(bp, p, cap);
	is_uint(bufpool_cached(bp), 0, "a pool of no room caches nothing");
	bufpool_free(bp);
}

/* A freed block is the next one taken of its size; growing takes a cached one. */
static void reuse(void)
{
	struct bufpool *bp = bufpool_new(64 * BP_MIN);
	size_t c1, c2, c3;
	char *a = bufpool_grow(bp, NULL, 0, 0, 3 * BP_MIN, &c1), *b, *c;

	if (!ok(a != NULL, "a block of 3 * BP_MIN bytes"))
		return;
	is_uint(c1, 4 * BP_MIN, "is 4 * BP_MIN");
	bufpool_put(bp, a, c1);
	is_uint(bufpool_cached(bp), 4 * BP_MIN, "freed, it is cached");
#ifdef __SANITIZE_ADDRESS__
	/* a use after release is caught as with free()'s memory (checked under ASan only) */
	ok(__asan_address_is_poisoned(a + 100) && __asan_address_is_poisoned(a + c1 - 1),
	   "ASan: a cached block is poisoned");
#endif
	b = bufpool_grow(bp, NULL, 0, 0, 4 * BP_MIN, &c2);
	ok(b == a && c2 == c1, "the next buffer of that size is that block");
	is_uint(bufpool_cached(bp), 0, "and leaves the cache");
#ifdef __SANITIZE_ADDRESS__
	ok(!__asan_address_is_poisoned(b) && !__asan_address_is_poisoned(b + c2 - 1),
	   "ASan: taken again, it is not");
#endif
	/* a cached block of the size a growing buffer needs is taken, the old one cached */
	c = bufpool_grow(bp, NULL, 0, 0, 8 * BP_MIN, &c3);
	fill(b, c2, 3);
	bufpool_put(bp, c, c3);
	c = bufpool_grow(bp, b, c2, c2, c2 + 1, &c3);
	ok(c != NULL && c3 == 8 * BP_MIN, "grown into the cached 8 * BP_MIN block");
	ok(c && filled(c, c2, 3), "with its bytes");
	is_uint(bufpool_cached(bp), 4 * BP_MIN, "the block it left is cached");
	bufpool_put(bp, c, c3);
	bufpool_free(bp);	/* unmaps the cached blocks (LSan: nothing lost) */
}

/* The cache's bound: what does not fit is unmapped, larger blocks give way to smaller. */
static void bound(void)
{
	struct bufpool *bp = bufpool_new(4 * BP_MIN);
	char *b[6];
	size_t cap[6];

	for (int i = 0; i < 6; i++)
		b[i] = bufpool_grow(bp, NULL, 0, 0, i < 4 ? BP_MIN : 2 * BP_MIN, &cap[i]);
	for (int i = 0; i < 6; i++)
		if (!b[i])
			bail_out("no memory for the blocks");
	bufpool_put(bp, b[4], cap[4]);
	bufpool_put(bp, b[5], cap[5]);
	is_uint(bufpool_cached(bp), 4 * BP_MIN, "two blocks of 2 * BP_MIN fill a cache of 4");
	bufpool_put(bp, b[0], cap[0]);
	is_uint(bufpool_cached(bp), 3 * BP_MIN, "a smaller block drops a larger one for its room");
	bufpool_put(bp, b[1], cap[1]);
	is_uint(bufpool_cached(bp), 4 * BP_MIN, "another fits");
	bufpool_put(bp, b[2], cap[2]);
	is_uint(bufpool_cached(bp), 3 * BP_MIN, "the last larger block goes for the next");
	bufpool_put(bp, b[3], cap[3]);
	is_uint(bufpool_cached(bp), 4 * BP_MIN, "and the cache is full of the smallest");
	b[0] = bufpool_grow(bp, NULL, 0, 0, 2 * BP_MIN, &cap[0]);
	bufpool_put(bp, b[0], cap[0]);
	is_uint(bufpool_cached(bp), 4 * BP_MIN, "a larger block does not push smaller ones out");
	bufpool_free(bp);
}

/* A sink with a pool: its buffers come from it and go back; its hint sizes the first. */
static void sink_pool(void)
{
	struct bufpool *bp = bufpool_new(64 * BP_MIN);
	struct tdat_sink s = { .fd = -1, .pool = bp };
	char chunk[1000], *buf;
	bool same = true;
	size_t cap;

	for (int i = 0; i < 1000; i++) {
		fill(chunk, sizeof(chunk), (unsigned)i);
		sink_write(&s, chunk, sizeof(chunk));
	}
	ok(!s.err && s.len == 1000 * sizeof(chunk), "a million bytes written");
	for (int i = 0; i < 1000 && same; i++)
		same = filled(s.buf + (size_t)i * sizeof(chunk), sizeof(chunk), (unsigned)i);
	ok(same, "as they were written");
	s.hint = s.cap - 1;
	cap = s.cap;
	buf = s.buf;
	sink_release(&s);
	is_uint(bufpool_cached(bp), cap, "released, its block is cached");
	sink_putc(&s, 'x');
	ok(s.cap >= s.hint, "the next first buffer holds the hint (%zu of %zu)", s.cap, s.hint);
	ok(s.buf == buf && bufpool_cached(bp) == 0, "and is the cached block");
	ok(sink_reserve(&s, (size_t)1 << 62) == NULL && s.err == ENOMEM,
	   "a size no block holds: ENOMEM");
	ok(s.len == 1 && s.buf[0] == 'x', "the buffer as it was");
	sink_release(&s);
	bufpool_free(bp);
}

struct worker {
	struct bufpool *bp;
	unsigned seed;
	bool good;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned x = w->seed;

	w->good = true;
	for (int i = 0; i < 2000 && w->good; i++) {
		size_t cap = 0, len = 0;
		unsigned seed = 0;
		char *p = NULL;

		for (int k = 0; k < 4; k++) {
			size_t want = ((x = x * 1664525u + 1013904223u) >> 12) % (8 * BP_MIN) + 1;
			char *q;

			want = want > len ? want : len + 1;
			if (!(q = bufpool_grow(w->bp, p, len, cap, want, &cap)) ||
			    !filled(q, len, seed)) {
				w->good = false;
				break;
			}
			p = q;
			fill(p, want, seed = x);
			len = want;
		}
		bufpool_put(w->bp, p, cap);
	}
	return NULL;
}

/* Threads growing and freeing buffers of one pool at once. */
static void threads(void)
{
	struct bufpool *bp = bufpool_new(16 * BP_MIN);
	struct worker w[4];
	pthread_t t[4];

	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ .bp = bp, .seed = (unsigned)i * 77 };
		if (pthread_create(&t[i], NULL, work, &w[i]))
			bail_out("pthread_create");
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ok(w[i].good, "thread %d: 8,000 buffers grown, each with its bytes", i);
	}
	ok(bufpool_cached(bp) <= 16 * BP_MIN, "the cache within its bound (%zu)",
	   bufpool_cached(bp));
	bufpool_free(bp);
}

int main(void)
{
	grow_keeps_bytes();
	reuse();
	bound();
	sink_pool();
	threads();
	return done_testing();
}
