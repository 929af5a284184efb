/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dat-enc.h - the trace.dat encoder under the dat writer (dat.c) and the
 * capture (capture/): events packed into ring-buffer pages (dat-pages.c),
 * per-CPU streams staged until close (dat-stage.c), and the container
 * written from them (dat-write.c).
 */
#ifndef TDAT_WRITE_DAT_ENC_H
#define TDAT_WRITE_DAT_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/types.h"

struct tdat_sink;

/* ---- dat-pages.c: events packed into ring-buffer pages (the writer's encoder) ---- */

struct page_enc {
	unsigned char *page;	/* page_size bytes */
	unsigned page_size, hdr, long_size;
	bool big;
	size_t len, cap;	/* data bytes used / usable after the header */
	uint64_t first_ts, last_ts;	/* raw timestamps */
	long long missed;	/* lost before the page: N, -1 unknown count, 0 */
	unsigned nevents;
};

/* Store @v in @len bytes of the given byte order. */
void enc_num(unsigned char *d, uint64_t v, unsigned len, bool big);
int penc_init(struct page_enc *p, unsigned page_size, int long_size, bool big_endian);
void penc_release(struct page_enc *p);
/*
 * Add an event of @size bytes (a multiple of 4 as kbuffer reports sizes).
 * @missed: events lost before it (only the first event of a page may have
 * some); @hide_missed: put a zero time extend in front so that kbuffer does
 * not report them (as in an input where one preceded the event).
 * Return: 0 added; 1 it needs a new page (penc_finish, use, penc_reset, add
 * again); TDAT_ELIMIT if it cannot fit even an empty page.
 */
int penc_add(struct page_enc *p, uint64_t raw_ts, const void *data, unsigned size,
	     long long missed, bool hide_missed);
/* Write the page header (and lost count); p->page is then a whole page. */
void penc_finish(struct page_enc *p);
void penc_reset(struct page_enc *p);

/* ---- dat-stage.c: per-CPU data of the writer, staged until close ---- */

struct stage_run {		/* a piece of a stream: in memory, or in the file */
	unsigned char *mem;
	uint64_t off;
	size_t len;
};

struct stage {
	size_t mem_used, mem_limit;
	int fd;			/* the temporary file; -1 until needed */
	uint64_t fd_end;
	int zkind;		/* 0 none, 1 zstd, 2 zlib */
	void *zctx;
	unsigned char *zbuf;	/* 8-byte chunk header + the last frame */
	size_t zcap;
	char *err;		/* the writer's errmsg */
};

struct dstream {		/* one CPU of one buffer */
	int buffer, cpu;
	struct page_enc pe;
	unsigned char *chunk;	/* pages not yet staged */
	size_t chunk_len;
	uint32_t nchunks;
	uint64_t stored, events;
	struct stage_run *runs;
	int nruns, runs_cap;
};

int stage_init(struct stage *st, const char *zname, size_t limit, char *err);
void stage_release(struct stage *st);
int stage_compress(struct stage *st, const void *src, size_t len, bool big, size_t *olen);
int dstream_init(struct dstream *s, int buffer, int cpu, unsigned page_size, int long_size,
		 bool big);
void dstream_release(struct dstream *s);
/* Pack @ev into the stream with timestamp @ts (its raw_ts, or ts when corrected). */
int dstream_put(struct stage *st, struct dstream *s, const struct tdat_event *ev, uint64_t ts);
/*
 * Stage one ring-buffer page as the kernel gave it (trace_pipe_raw): @len
 * bytes, at most the stream's page size (the rest is zeroed); an empty
 * page is dropped.  Its data events are counted in s->events.
 */
int dstream_put_page(struct stage *st, struct dstream *s, const void *page, size_t len);
/* At close: stage the last page and chunk. */
int dstream_flush(struct stage *st, struct dstream *s);
/* Bytes the stream takes in the file (with the chunk count if compressed). */
uint64_t dstream_size(const struct stage *st, const struct dstream *s);
int dstream_copy(struct stage *st, const struct dstream *s, struct tdat_sink *out);

/* ---- dat-write.c: the trace.dat container ---- */

struct dat_obuf {		/* one buffer of the output */
	const char *name;	/* "" for the top buffer */
	const char *clock;	/* NULL or "": the file's clock */
	unsigned page_size;
	int ncpus, first;	/* its streams: streams[first .. first + ncpus) */
};

/*
 * A trace.dat's version and compression: the dat writer's "version" and
 * "compression" options (and tdat_capture_set_dat_option()'s); zeroed: v7, zstd.
 */
enum dat_z { DAT_ZSTD, DAT_ZLIB, DAT_ZNONE };
struct dat_layout {
	int v6;			/* "version": 0 for "7", 1 for "6" */
	int z;			/* "compression": enum dat_z */
};

/*
 * What dat_out_write() writes.  dat_out_init() clears it and picks the
 * compression from @l; then the caller sets meta, big,
 * page_size, cpus, clock (and corrected_ts) before adding buffers, and
 * feeds the streams (dstream_put(), or whole pages).
 */
struct dat_out {
	const struct tdat_meta *meta;	/* sections and the options to copy */
	bool v6, big;
	bool corrected_ts;	/* timestamps are final: drop OFFSET, DATE, TSC2NSEC, TIME_SHIFT */
	bool ns_ticks;		/* and ns, but the clock's name counts ticks: a TSC2NSEC
				 * option of factor 1 says they are ns */
	unsigned page_size;	/* the file's (v6: every buffer's) */
	int cpus;		/* CPU count of the traced machine */
	const char *clock;	/* the file's trace clock */
	const char *zname, *zver;
	struct dat_obuf *bufs;
	int nbufs;
	struct dstream *streams;
	int nstreams;
	struct stage st;
	uint64_t meta_size;	/* dat_out_estimate()'s cache */
	struct tdat_src *raw_src;	/* where meta->raw_off points, NULL: compress all */
	const char *raw_path;		/* its name, for a read error */
	const char *raw_zname;		/* and how those sections are compressed */
	const char *extra_opt;		/* an option of ours to add (OPT_TDAT_PIECE), or NULL */
	size_t extra_len;
	const struct tdat_blob *origins;	/* merged: each input's section (origin.c) */
	int norigins;
};

int dat_out_init(struct dat_out *o, const struct dat_layout *l, size_t stage_limit, char *err);
/* A buffer with one stream per CPU id in @cpus; @name and @clock are borrowed. */
int dat_out_add_buffer(struct dat_out *o, const char *name, const char *clock, unsigned page_size,
		       const int *cpus, int ncpus, int long_size);
/* Index of the stream of buffer @b, CPU id @cpu, or -1. */
int dat_out_stream(const struct dat_out *o, int b, int cpu);
/* About how many bytes the file would have if written now. */
uint64_t dat_out_estimate(struct dat_out *o);
/* Flush every stream and write the whole file to @out. */
int dat_out_write(struct dat_out *o, struct tdat_sink *out);
void dat_out_release(struct dat_out *o);

#endif /* TDAT_WRITE_DAT_ENC_H */
