/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dat-stage.c - where the trace.dat writer keeps each CPU's data until it
 * can be written.  A trace.dat locates CPU data by offsets that are written
 * before it (v6) or in options written after it whose position the header
 * gives (v7), so nothing can go out to a pipe before every CPU is complete.
 *
 * Each CPU (of each buffer) is a stream: events are packed into pages by
 * dat-pages.c, ten pages make a chunk (trace-cmd's PAGES_IN_CHUNK), and a
 * chunk is compressed as an independent frame (u32 compressed size, u32
 * uncompressed size, frame) or kept as raw pages.  Chunks are staged in
 * memory up to a limit for all streams together, and beyond it appended to
 * one unlinked temporary file; each stream keeps the list of its pieces, so
 * that at close its data can be copied out contiguously.
 *
 * A recorder stages whole ring-buffer pages as the kernel wrote them
 * (dstream_put_page()); they go into the same chunks, not re-encoded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "read/read.h"
#include "write/sink.h"
#include "write/dat-enc.h"

#define PAGES_IN_CHUNK	10
#define COPY_BLOCK	(256 * 1024)

int stage_init(struct stage *st, const char *zname, size_t limit, char *err)
{
	memset(st, 0, sizeof(*st));
	st->fd = -1;
	st->mem_limit = limit;
	st->err = err;
	if (!strcmp(zname, "zstd"))
		st->zkind = 1;
	else if (!strcmp(zname, "zlib"))
		st->zkind = 2;
	if (st->zkind == 1 && !(st->zctx = ZSTD_createCCtx()))
		return TDAT_ENOMEM;
	return 0;
}

void stage_release(struct stage *st)
{
	if (st->zctx)
		ZSTD_freeCCtx(st->zctx);
	if (st->fd >= 0)
		close(st->fd);
	free(st->zbuf);
	memset(st, 0, sizeof(*st));
	st->fd = -1;
}

/*
 * Compress @len bytes as one frame into st->zbuf + 8, after room for the
 * (compressed size, uncompressed size) header that this fills; *olen is
 * the frame's size.
 */
int stage_compress(struct stage *st, const void *src, size_t len, bool big, size_t *olen)
{
	size_t bound = st->zkind == 1 ? ZSTD_compressBound(len) : compressBound(len);
	uLongf zl = bound;
	unsigned char *p;

	if (len > UINT32_MAX) {
		tdat_msg(st->err, "a block of %zu bytes is too big to compress", len);
		return TDAT_ELIMIT;
	}
	if (bound + 8 > st->zcap) {
		p = realloc(st->zbuf, bound + 8);
		if (!p)
			return TDAT_ENOMEM;
		st->zbuf = p;
		st->zcap = bound + 8;
	}
	if (st->zkind == 1) {
		*olen = ZSTD_compressCCtx(st->zctx, st->zbuf + 8, bound, src, len, ZSTD_CLEVEL_DEFAULT);
		if (ZSTD_isError(*olen)) {
			tdat_msg(st->err, "zstd: %s", ZSTD_getErrorName(*olen));
			return TDAT_EIO;
		}
	} else if (compress2(st->zbuf + 8, &zl, src, len, Z_DEFAULT_COMPRESSION) == Z_OK) {
		*olen = zl;
	} else {
		tdat_msg(st->err, "zlib compression failed");
		return TDAT_EIO;
	}
	enc_num(st->zbuf, *olen, 4, big);
	enc_num(st->zbuf + 4, len, 4, big);
	return 0;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int add_run(struct dstream *s, unsigned char *mem, uint64_t off, size_t len)
{
	struct stage_run *r;

	if (array_room((void **)&s->runs, s->nruns, &s->runs_cap, sizeof(*r), 16))
		return TDAT_ENOMEM;
	s->runs[s->nruns++] = (struct stage_run){ mem, off, len };
	return 0;
}

/* Append @n bytes to a stream: in memory below the limit, else to the temporary file. */
static int stage_put(struct stage *st, struct dstream *s, const void *p, size_t n)
{
	struct stage_run *last = s->nruns ? &s->runs[s->nruns - 1] : NULL;
	unsigned char *copy;

	s->stored += n;
	if (st->mem_used + n <= st->mem_limit) {
		copy = malloc(n);
		if (!copy || add_run(s, copy, 0, n)) {
			free(copy);
			return TDAT_ENOMEM;
		}
		memcpy(copy, p, n);
		st->mem_used += n;
		return 0;
	}
	if (st->fd < 0 && (st->fd = tmp_file(st->err)) < 0) {
		st->fd = -1;
		return TDAT_EIO;
	}
	if (write_all(st->fd, p, n)) {
		tdat_msg(st->err, "cannot stage CPU data in a temporary file: %s", strerror(errno));
		return TDAT_EIO;
	}
	if (last && !last->mem && last->off + last->len == st->fd_end)
		last->len += n;
	else if (add_run(s, NULL, st->fd_end, n))
		return TDAT_ENOMEM;
	st->fd_end += n;
	return 0;
}

/* The pages collected so far: one compressed chunk, or the raw pages. */
static int flush_chunk(struct stage *st, struct dstream *s)
{
	size_t zlen;
	int ret;

	if (!s->chunk_len)
		return 0;
	if (!st->zkind) {
		ret = stage_put(st, s, s->chunk, s->chunk_len);
	} else if (!(ret = stage_compress(st, s->chunk, s->chunk_len, s->pe.big, &zlen))) {
		ret = stage_put(st, s, st->zbuf, zlen + 8);
		s->nchunks++;
	}
	s->chunk_len = 0;
	return ret;
}

static int flush_page(struct stage *st, struct dstream *s)
{
	if (!s->pe.nevents)
		return 0;
	penc_finish(&s->pe);
	/* allocated on first use: a writer may have many streams that stay empty */
	if (!s->chunk && !(s->chunk = malloc((size_t)s->pe.page_size * PAGES_IN_CHUNK)))
		return TDAT_ENOMEM;
	memcpy(s->chunk + s->chunk_len, s->pe.page, s->pe.page_size);
	s->chunk_len += s->pe.page_size;
	penc_reset(&s->pe);
	return s->chunk_len >= (size_t)s->pe.page_size * PAGES_IN_CHUNK ? flush_chunk(st, s) : 0;
}

int dstream_init(struct dstream *s, int buffer, int cpu, unsigned page_size, int long_size,
		 bool big)
{
	memset(s, 0, sizeof(*s));
	s->buffer = buffer;
	s->cpu = cpu;
	return penc_init(&s->pe, page_size, long_size, big);
}

void dstream_release(struct dstream *s)
{
	for (int i = 0; i < s->nruns; i++)
		free(s->runs[i].mem);
	free(s->runs);
	free(s->chunk);
	penc_release(&s->pe);
	memset(s, 0, sizeof(*s));
}

int dstream_put(struct stage *st, struct dstream *s, const struct tdat_event *ev, uint64_t ts)
{
	bool hide = ev->missed && !ev->shown_missed;
	int ret = penc_add(&s->pe, ts, ev->data, ev->size, ev->missed, hide);

	if (ret == 1) {
		if ((ret = flush_page(st, s)))
			return ret;
		ret = penc_add(&s->pe, ts, ev->data, ev->size, ev->missed, hide);
	}
	if (ret == TDAT_ELIMIT)
		tdat_msg(st->err, "an event of %u bytes (cpu %d) does not fit a %u-byte page",
			 ev->size, ev->cpu, s->pe.page_size);
	s->events += !ret;
	return ret;
}

int dstream_flush(struct stage *st, struct dstream *s)
{
	int ret = flush_page(st, s);

	return ret ? ret : flush_chunk(st, s);
}

uint64_t dstream_size(const struct stage *st, const struct dstream *s)
{
	if (!s->stored)
		return 0;
	return s->stored + (st->zkind ? 4 : 0);	/* the chunk count */
}

/* Write a stream's staged data to @out, in order (the chunk count first). */
int dstream_copy(struct stage *st, const struct dstream *s, struct tdat_sink *out)
{
	unsigned char cnt[4], *buf;
	int ret = 0;

	if (!s->stored)
		return 0;
	if (st->zkind) {
		enc_num(cnt, s->nchunks, 4, s->pe.big);
		sink_write(out, cnt, 4);
	}
	buf = malloc(COPY_BLOCK);
	if (!buf)
		return TDAT_ENOMEM;
	for (int i = 0; i < s->nruns && !ret; i++) {
		const struct stage_run *r = &s->runs[i];

		if (r->mem) {
			sink_write(out, r->mem, r->len);
			continue;
		}
		for (uint64_t done = 0; done < r->len && !ret; ) {
			size_t n = r->len - done < COPY_BLOCK ? (size_t)(r->len - done) : COPY_BLOCK;
			ssize_t got = pread(st->fd, buf, n, (off_t)(r->off + done));

			if (got <= 0) {
				tdat_msg(st->err, "cannot read back staged CPU data: %s",
					 got < 0 ? strerror(errno) : "file shrank");
				ret = TDAT_EIO;
				break;
			}
			sink_write(out, buf, (size_t)got);
			done += (uint64_t)got;
		}
	}
	free(buf);
	return ret;
}

static uint64_t enc_get(const unsigned char *d, unsigned len, bool big)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < len; i++)
		v |= (uint64_t)d[i] << (8 * (big ? len - 1 - i : i));
	return v;
}

/*
 * Data events in a ring-buffer page as the kernel wrote it (@len data
 * bytes after the header): what a recorder counts without decoding.
 */
static uint64_t page_events(const unsigned char *d, size_t len, bool big)
{
	uint64_t n = 0;
	size_t pos = 0;

	while (pos + 4 <= len) {
		uint32_t w = (uint32_t)enc_get(d + pos, 4, big);
		unsigned type_len = big ? w >> 27 : w & 0x1f;
		uint32_t delta = big ? w & 0x7ffffff : w >> 5;
		size_t size;

		if (type_len <= 28) {
			size = type_len ? 4 + 4 * (size_t)type_len :
			       pos + 8 <= len ? 4 + (size_t)enc_get(d + pos + 4, 4, big) : len;
			n++;
		} else if (type_len == 29) {
			if (!delta)
				break;		/* the rest of the page is padding */
			size = pos + 8 <= len ? 4 + (size_t)enc_get(d + pos + 4, 4, big) : len;
		} else {
			size = 8;		/* time extend, absolute time stamp */
		}
		if (size < 4)
			break;
		pos += size;
	}
	return n;
}

int dstream_put_page(struct stage *st, struct dstream *s, const void *page, size_t len)
{
	const unsigned char *p = page;
	unsigned hdr = s->pe.hdr, psize = s->pe.page_size;
	uint64_t commit;
	size_t dlen;
	int ret;

	if (len < hdr || len > psize) {
		tdat_msg(st->err, "a ring-buffer page of %zu bytes (cpu %d; sub-buffers are %u bytes)",
			 len, s->cpu, psize);
		return TDAT_EFORMAT;
	}
	commit = enc_get(p + 8, s->pe.long_size, s->pe.big);
	dlen = (size_t)(commit & 0x3fffffff);	/* without the lost-events flags */
	if (dlen > psize - hdr) {
		tdat_msg(st->err, "a ring-buffer page claims %zu data bytes (cpu %d)", dlen, s->cpu);
		return TDAT_EFORMAT;
	}
	if (!dlen && !(commit & (3ull << 30)))
		return 0;		/* nothing in it */
	if ((ret = flush_page(st, s)))		/* events put one by one go first */
		return ret;
	if (!s->chunk && !(s->chunk = malloc((size_t)psize * PAGES_IN_CHUNK)))
		return TDAT_ENOMEM;
	s->events += page_events(p + hdr, dlen, s->pe.big);
	memcpy(s->chunk + s->chunk_len, p, len);
	memset(s->chunk + s->chunk_len + len, 0, psize - len);
	s->chunk_len += psize;
	return s->chunk_len >= (size_t)psize * PAGES_IN_CHUNK ? flush_chunk(st, s) : 0;
}
