/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sink.h - the buffered output every writer writes to (writer.c): a file
 * descriptor or a growing memory buffer with a sticky error, its gzip
 * stream (gzip.c, deflated on worker threads with deflate-walk.c), and
 * the number and UTF-8 helpers of the writers' hot paths.
 */
#ifndef TDAT_WRITE_SINK_H
#define TDAT_WRITE_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- writer.c: buffered output with a sticky error ---- */

struct tdat_sink {
	int fd;			/* -1: a memory sink that grows */
	char *buf;
	size_t len, cap;
	int err;		/* errno of the first failure */
	struct gz *gz;		/* when gzipping (gzip.c) */
	struct behind *wb;	/* when written on a thread of its own (sink-behind.c) */
	struct bufpool *pool;	/* a memory sink's large buffers come from it, or NULL */
	size_t hint;		/* a memory sink's first buffer holds at least this */
};

int sink_init(struct tdat_sink *s, int fd);
/*
 * Compress everything written from now on as one gzip stream, deflated on
 * @workers threads (1 or less: the caller's); the same bytes for any number.
 */
int sink_gzip(struct tdat_sink *s, int workers, int level);
/*
 * sink-behind.c: from now on, write a file sink's full buffers on a thread
 * of its own while the caller fills the next (not with gzip); the same
 * bytes in the same order.  0, or TDAT_ENOMEM (the sink is as it was).
 */
int sink_behind(struct tdat_sink *s);
void behind_put(struct tdat_sink *s);
void behind_wait(struct tdat_sink *s);
void behind_free(struct tdat_sink *s);
/* Write @n bytes to the sink's descriptor now (a failure is sticky in s->err). */
void sink_write_fd(struct tdat_sink *s, const void *p, size_t n);
/*
 * bufpool.c: blocks of memory, mapped apart from malloc()'s heap, for
 * memory sinks whose large buffers come and go (a sink's pool); freed
 * ones are cached up to @max bytes.  Thread-safe.
 */
#define BP_MIN ((size_t)64 << 10)	/* a smaller buffer is malloc()'s */
struct bufpool;
struct bufpool *bufpool_new(size_t max);
void bufpool_free(struct bufpool *bp);
/*
 * @buf (@len bytes used of @cap, NULL if none) grown to hold @want: the
 * buffer that does, its size in @newcap; NULL (@buf as it was) if out of memory.
 */
char *bufpool_grow(struct bufpool *bp, char *buf, size_t len, size_t cap, size_t want,
		   size_t *newcap);
/* Free @buf of @cap bytes that bufpool_grow() gave. */
void bufpool_put(struct bufpool *bp, char *buf, size_t cap);
/* Bytes of freed blocks @bp holds for reuse. */
size_t bufpool_cached(struct bufpool *bp);
/* Grow a memory sink's buffer to hold @want bytes (0, or ENOMEM in s->err). */
int sink_grow(struct tdat_sink *s, size_t want);
/* deflate-walk.c: the bit where a raw deflate stream's final block begins, and where it ends. */
struct dwalk;
struct dwalk *dwalk_new(void);
void dwalk_free(struct dwalk *w);
bool deflate_walk(struct dwalk *w, const unsigned char *p, size_t n, size_t *final_bit,
		  size_t *end_bit);

/*
 * gzip.c: the stream of sink_gzip(): start (the header), a flushed buffer, the end.
 * It is deflated in blocks of GZ_BLOCK bytes of the stream (the last may be
 * fewer).  On big-mixed.dat's json.gz at -j 2, 2 MiB blocks took 0.97 of
 * 1 MiB's wall time (5 pairs; the same CPU: the threads hand over half as
 * often) for 4 MiB more; 4 MiB blocks gained nothing more for 8 MiB more.
 */
#define GZ_BLOCK ((size_t)2 << 20)
struct gz *gz_new(struct tdat_sink *s, int workers, int level);
int gz_put(struct tdat_sink *s, const char *p, size_t n);
int gz_finish(struct tdat_sink *s);
void gz_free(struct gz *g);
/* Flush, and end the gzip stream if there is one. */
int sink_finish(struct tdat_sink *s);
void sink_release(struct tdat_sink *s);
int sink_flush(struct tdat_sink *s);
void sink_write_slow(struct tdat_sink *s, const void *p, size_t n);
static inline void sink_write(struct tdat_sink *s, const void *p, size_t n)
{
	if (s->len + n <= s->cap && s->buf) {	/* an empty memory sink has no buffer */
		memcpy(s->buf + s->len, p, n);
		s->len += n;
	} else {
		sink_write_slow(s, p, n);
	}
}
void sink_printf(struct tdat_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Make room for @n bytes and return where to write them (commit with sink_commit). */
char *sink_reserve_slow(struct tdat_sink *s, size_t n);
static inline char *sink_reserve(struct tdat_sink *s, size_t n)
{
	return s->len + n <= s->cap ? s->buf + s->len : sink_reserve_slow(s, n);
}
static inline void sink_commit(struct tdat_sink *s, size_t n) { s->len += n; }
static inline void sink_putc(struct tdat_sink *s, char c)
{
	if (s->len < s->cap)
		s->buf[s->len++] = c;
	else
		sink_write_slow(s, &c, 1);
}

/* Decimal digits of @v at @d (room for 20); returns the count. */
size_t fmt_u64(char *d, uint64_t v);
/* Lowercase hex digits of @v, no leading zeros, at @d (16 bytes written); returns the count. */
size_t fmt_hex64(char *d, uint64_t v);

/* Length of the valid UTF-8 sequence at @p (of @n bytes), 0 if not valid. */
size_t utf8_len(const unsigned char *p, size_t n);

#endif /* TDAT_WRITE_SINK_H */
