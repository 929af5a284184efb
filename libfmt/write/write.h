/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * write.h - what the writers share: the buffered output sink, the writer
 * ops and registry, protobuf and CSV cell encoders, and the trace.dat
 * container writer (pages, staged streams, the file).
 */
#ifndef TDAT_WRITE_H
#define TDAT_WRITE_H

#include <pthread.h>
#include <stddef.h>

#include "read/read.h"

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

/* ---- text-34.c: what trace-cmd 3.4 prints unlike 3.1.6 (text.c's default style) ---- */

struct text34;			/* what it learnt of the events it printed */
struct trace_seq;
struct tep_record;
struct tep_event;
struct text34 *text34_new(void);
void text34_free(struct text34 *c);
/*
 * The latency column of a record (" d..2."), or with @raw its common_flags
 * ("-0x1"), into @out (at least 64 bytes); returns its length.
 */
size_t text34_latency(struct text34 *c, struct tep_handle *tep, const void *data, unsigned size,
		      bool raw, char *out);
/* An event the sched_switch plugin prints: text34_sched_switch() prints it instead. */
bool text34_is_sched_switch(const struct tep_event *event);
void text34_sched_switch(struct text34 *c, struct trace_seq *s, struct tep_record *rec,
			 struct tep_event *event);
/* @s holds @rec's raw fields as libtraceevent 1.7 printed them: give functions their address. */
void text34_raw_pointers(struct text34 *c, struct trace_seq *s, struct tep_record *rec,
			 struct tep_event *event);

/* ---- writer.c: buffered output with a sticky error, and the registry ---- */


struct tdat_sink {
	int fd;			/* -1: a memory sink that grows */
	char *buf;
	size_t len, cap;
	int err;		/* errno of the first failure */
	struct gz *gz;		/* when gzipping (gzip.c) */
};

int sink_init(struct tdat_sink *s, int fd);
/*
 * Compress everything written from now on as one gzip stream, deflated on
 * @workers threads (1 or less: the caller's); the same bytes for any number.
 */
int sink_gzip(struct tdat_sink *s, int workers, int level);
/* Write @n bytes to the sink's descriptor now (a failure is sticky in s->err). */
void sink_write_fd(struct tdat_sink *s, const void *p, size_t n);
/*
 * jobring.c: jobs in @n slots done by worker threads and taken back in the
 * order given.  The caller fills slot head % n, submits it (the ring is
 * full when head - tail == n), waits for slot tail % n and frees it.
 */
struct jobring {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	int *state;
	unsigned n;
	uint64_t head, tail;	/* the slot being filled, the next to take back */
	int alive;		/* workers that take jobs */
	bool stop;
};

int jobring_init(struct jobring *r, unsigned n);
void jobring_release(struct jobring *r);
/* @delta workers more (started) or fewer (gone). */
void jobring_workers(struct jobring *r, int delta);
/* Wake the workers to leave (jobring_take() returns -1). */
void jobring_stop(struct jobring *r);
/* A worker: the oldest submitted slot, its own until jobring_done(); -1 once stopped. */
int jobring_take(struct jobring *r);
void jobring_done(struct jobring *r, int slot);
void jobring_submit(struct jobring *r);
/* Wait for slot tail % n: true when done, false when no worker is left to do it (the caller must). */
bool jobring_wait_oldest(struct jobring *r);
void jobring_free_oldest(struct jobring *r);

/* deflate-walk.c: the bit where a raw deflate stream's final block begins, and where it ends. */
struct dwalk;
struct dwalk *dwalk_new(void);
void dwalk_free(struct dwalk *w);
bool deflate_walk(struct dwalk *w, const unsigned char *p, size_t n, size_t *final_bit,
		  size_t *end_bit);

/* gzip.c: the stream of sink_gzip(): start (the header), a flushed buffer, the end. */
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

/* Length of the valid UTF-8 sequence at @p (of @n bytes), 0 if not valid. */
size_t utf8_len(const unsigned char *p, size_t n);

/* ---- pbenc.c: protobuf wire encoding into a sink ---- */

enum pb_wire { PB_WT_VARINT = 0, PB_WT_I64 = 1, PB_WT_LEN = 2, PB_WT_I32 = 5 };

#define PB_VARINT_MAX 10

static inline unsigned pb_varint_size(uint64_t v)
{
	/* 7 bits a byte: (bits + 6) / 7, with 0 taking one byte */
	return ((unsigned)(64 - __builtin_clzll(v | 1)) * 9 + 64) / 64;
}

/* @v as a varint at @d (room for PB_VARINT_MAX); returns the bytes written. */
static inline unsigned pb_enc_varint(unsigned char *d, uint64_t v)
{
	unsigned n = 0;

	while (v >= 0x80) {
		d[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	d[n++] = (unsigned char)v;
	return n;
}

/* A key (field << 3 | wire type), then @v as a varint. */
static inline void pb_key_varint(struct tdat_sink *s, uint64_t key, uint64_t v)
{
	unsigned char *d = (unsigned char *)sink_reserve(s, 2 * PB_VARINT_MAX);
	unsigned n;

	if (!d)
		return;
	n = pb_enc_varint(d, key);
	n += pb_enc_varint(d + n, v);
	sink_commit(s, n);
}

/* A varint field (int32/int64 negatives as their 64-bit two's complement). */
static inline void pb_varint(struct tdat_sink *s, unsigned field, uint64_t v)
{
	pb_key_varint(s, (uint64_t)field << 3 | PB_WT_VARINT, v);
}

/* Tag and length of a length-delimited field whose @len bytes follow. */
void pb_head(struct tdat_sink *s, unsigned field, uint64_t len);
void pb_bytes(struct tdat_sink *s, unsigned field, const void *p, size_t n);
/*
 * A string field: protobuf strings are UTF-8, so each byte of @p that does
 * not start a valid UTF-8 sequence is written as U+FFFD, the rule of the
 * sqlite and json formats (text that is valid goes as it is).
 */
void pb_text(struct tdat_sink *s, unsigned field, const void *p, size_t n);
/* A double field (fixed 64 bits). */
void pb_double(struct tdat_sink *s, unsigned field, double v);
/* Open a nested message in a memory sink; returns the mark for pb_end(). */
size_t pb_begin(struct tdat_sink *s, unsigned field);
/* Close it: back-patch its length. */
void pb_end(struct tdat_sink *s, size_t mark);

/* ---- csvfmt.c: cells shared by the CSV writers ---- */

/* What a double quote inside text becomes (csv_escape()). */
enum csv_quote {
	CSV_Q_RAW,		/* kept: the caller quotes the cell and doubles it */
	CSV_Q_BACKSLASH,	/* \" */
	CSV_Q_FIELDS,		/* \"" : inside the always-quoted fields cell */
	CSV_Q_DOUBLE,		/* "" : inside a quoted cell */
};

/* Up to @n bytes of @s (ending at a NUL), UTF-8 kept, \\, \xNN for the rest. */
void csv_escape(struct tdat_sink *sk, const char *s, size_t n, enum csv_quote q);
/* Text as one cell: escaped, quoted (quotes doubled) if it holds a comma or quote. */
void csv_text_cell(struct tdat_sink *sk, const char *s, size_t n);
/* A cell for @s, built once (escaped with @q, then quoted if needed); NULL without memory. */
char *csv_cell(const char *s, enum csv_quote q, size_t *len);
void csv_put_hex(struct tdat_sink *sk, uint64_t v);
/* A number of @kind: decimal, TK_INT signed, TK_PTR 0x hex. */
void csv_put_number(struct tdat_sink *sk, enum tkind kind, uint64_t v);
/* An array field's elements as [a,b,...] (valid CSV text and valid JSON). */
void csv_put_array(struct tdat_sink *sk, const struct tdat_file *f, const unsigned char *p,
		   unsigned len, const struct tfield *tf);
/* The same, each element written by @put (JSON's exact numbers: json.c). */
void csv_put_array_with(struct tdat_sink *sk, const struct tdat_file *f, const unsigned char *p,
			unsigned len, const struct tfield *tf,
			void (*put)(struct tdat_sink *, enum tkind, uint64_t));

static inline void csv_put_u64(struct tdat_sink *sk, uint64_t v)
{
	char *d;

	/* cpu, input, lost and many fields are one digit: skip the call */
	if (v < 10) {
		sink_putc(sk, (char)('0' + v));
		return;
	}
	d = sink_reserve(sk, 24);
	if (d)
		sink_commit(sk, fmt_u64(d, v));
}

static inline void csv_put_i64(struct tdat_sink *sk, int64_t v)
{
	if (v < 0) {
		sink_putc(sk, '-');
		csv_put_u64(sk, (uint64_t)0 - (uint64_t)v);
	} else {
		csv_put_u64(sk, (uint64_t)v);
	}
}

/* comm cells of one input, built once per pid (open addressing on pid). */
struct csv_comm {
	int pid;
	char *cell;		/* NULL: empty slot */
	size_t len;
};

struct csv_comms {
	struct csv_comm *slots;
	size_t n, cap;
};

/* The comm cell of @pid (escaped with @q); NULL without memory. */
const char *csv_comm_cell(struct csv_comms *c, struct tep_handle *tep, int pid,
			  enum csv_quote q, size_t *len);
void csv_comms_release(struct csv_comms *c);

struct tdat_writer;
struct tdat_sink;

/*
 * A worker's batch text for several destinations (typed csv's files), in
 * order: @len bytes for event type @id of input @input each (run/par.c).
 */
struct par_seg {
	int input;
	unsigned id;
	size_t len;
};
struct par_segs {
	struct par_seg *v;
	size_t n, cap;
};
/* Add @len bytes for (@input, @id) to @s, joined to the last one when it is the same. */
int par_seg_add(struct par_segs *s, int input, unsigned id, size_t len);

/*
 * run/par-names.c: a -j worker's text leaves out the names of tasks it cannot
 * know (learnt from events before its window) and notes what it learnt.
 */
#define NAME_MAX_COMM	24	/* a comm field is 16 bytes: more is cut */
enum { NAME_PUT, NAME_LEARN };
struct par_name {
	size_t at;		/* NAME_PUT: where the name goes; NAME_LEARN: its event's start */
	int input, pid;
	unsigned char kind;
	char comm[NAME_MAX_COMM];	/* NAME_LEARN: the name */
};
struct par_names {
	struct par_name *v;
	size_t n, cap;
};
struct par_learnt;
struct par_und;
int names_add(struct par_names *n, int kind, int input, int pid, size_t at, const char *comm,
	      size_t len);
struct par_learnt *names_new(void);
void names_free(struct par_learnt *l);
/*
 * Write @len bytes of a worker's @text to @s, but its dropped stack traces
 * (@und), learning and putting in the names of @names; 0 or TDAT_ENOMEM.
 */
int names_write(struct par_learnt *l, struct tdat_merge *m, struct tdat_sink *s, const char *text,
		size_t len, const struct par_names *names, const struct par_und *und, size_t nund);
/* The caller reads on alone: its handles first learn what the workers' texts learnt. */
void names_seed(const struct par_learnt *l, struct tdat_merge *m);

struct tdat_writer_ops {
	const char *name;
	const char *exts;	/* space separated file name endings */
	int output;		/* enum tdat_output_kind */
	bool symbols;		/* prints function names: load kallsyms first */
	bool fields;		/* writes every field: an event with fields outside
				 * its record is counted (writer_damaged()) */
	int threads;		/* threads the format keeps busy besides the caller's (sqlite's
				 * inserts): -j workers fewer by as many (run/par.c) */
	bool parallel;		/* an event's text depends on it and its file only:
				 * workers may print batches of events (run/par.c) */
	bool names;		/* but for the names of tasks libtraceevent learns from
				 * earlier events (run/par-names.c): --comm stays serial */
	const struct writer_option *options;	/* its own options, NULL: none */
	int (*open)(struct tdat_writer *w);
	int (*put)(struct tdat_writer *w, const struct tdat_event *ev);
	int (*close)(struct tdat_writer *w);
	void (*free)(struct tdat_writer *w);
	uint64_t (*size)(struct tdat_writer *w);	/* optional: output bytes so far */
	int (*copy)(struct tdat_writer *w);	/* optional: every event, page by page */
	/*
	 * Optional, for a parallel format with no single stream: write a worker's
	 * batch, @text cut by @s.  A worker's writer (opened with no fd and no
	 * path) puts its text in its sink and its cuts in w->segs.
	 */
	int (*put_segs)(struct tdat_writer *w, const char *text, const struct par_segs *s);
	/*
	 * Optional, for a format whose output for an event depends on the events
	 * before it: on a -j worker's writer, what of @ev depends on it and its
	 * file only (its fields, formatted) into w->sink; 0, or 1 if nothing is
	 * prepared for @ev, or a negative error.  The caller's writer then puts
	 * the events in order, each with its prepared bytes in w->pre (run/par.c).
	 */
	int (*prepare)(struct tdat_writer *w, const struct tdat_event *ev);
#define PREPARE_MORE_JOBS 3	/* from this many jobs, prepare may do more of the work
				   (json: pair slices, json-slices.c), and its blocks
				   run ahead as far as printed text (run/par-work.c) */
	/*
	 * Optional, with prepare: a worker's block of events ends; what the
	 * caller must know after its last event into w->sink.  The caller's
	 * writer takes those bytes with put_trailer() after the block's events.
	 */
	int (*prepare_end)(struct tdat_writer *w);
	int (*put_trailer)(struct tdat_writer *w, const char *p, size_t n);
};

/*
 * The per-format options (tdat_writer_set_option()), zeroed by default: a
 * format's table (ops->options) says which it takes, their values and
 * where each goes.  An int each: an on/off one 0 or 1, one of words the
 * index of the word, a number the number.
 */
struct writer_opts {
	int nsec, raw, style_3_1;	/* text: "nsec", "raw", "style" (3.4, 3.1) */
	int split;			/* csv: "split" (tdat_writer_output() a directory) */
	struct dat_layout dat;		/* dat: "version", "compression" */
	int zlib;			/* perfetto: "compression" (none, zlib) */
	int level;			/* parquet: "compression-level" (zstd), 0: its default */
	int gzip_level;			/* any: "gzip-level" of TDAT_W_GZIP, 0: the default */
};

enum wopt_kind { WO_BOOL, WO_WORD, WO_INT };

/* An option of a format's table (ops->options, ended by a NULL key). */
struct writer_option {
	const char *key;
	enum wopt_kind kind;
	const char *words;	/* WO_WORD: the values, space separated, the default first */
	int lo, hi;		/* WO_INT: the range */
	size_t off;		/* the int in struct writer_opts it sets */
};

#define WOPT_BOOL(k, field) { k, WO_BOOL, NULL, 0, 1, offsetof(struct writer_opts, field) }
#define WOPT_WORD(k, w, field) { k, WO_WORD, w, 0, 0, offsetof(struct writer_opts, field) }
#define WOPT_INT(k, lo, hi, field) { k, WO_INT, NULL, lo, hi, offsetof(struct writer_opts, field) }

/* @value of option @o (from a table like ops->options) into @opts; 0 or TDAT_EINVAL (@err says). */
int writer_option_parse(const struct writer_option *o, const char *value, struct writer_opts *opts,
			char *err);
/* The option @key of the NULL-key-ended table @t, or NULL. */
const struct writer_option *writer_option_find(const struct writer_option *t, const char *key);

/* dat-write.c: the dat writer's options (and tdat_capture_set_dat_option()'s). */
extern const struct writer_option dat_options[];

struct tdat_writer {
	const struct tdat_writer_ops *ops;
	struct writer_opts opt;		/* tdat_writer_set_option() */
	struct tdat_sink sink;		/* unused by file and directory formats */
	const char *path;		/* file or directory formats */
	struct tdat_merge *merge;
	unsigned flags;
	int jobs;			/* threads (tdat_writer_set_jobs()) */
	char errmsg[TDAT_MSG_LEN];
	char warning[TDAT_MSG_LEN];	/* tdat_writer_warning() */
	uint64_t ndamaged;		/* events written without part of them */
	struct writer_damage {
		const char *path;		/* the first one's file */
		char first[TDAT_MSG_LEN];	/* the first one: sys:name at time: why */
		const char *one, *many;		/* what the last one was, in the warning */
	} damage;
	uint64_t window;		/* -j: bytes a time window holds, 0: run/par.c's default */
	struct par_segs segs;		/* a worker's text by destination (ops->put_segs) */
	struct par_names names;		/* a worker's text: names left out and learnt (text.c) */
	const char *pre;		/* put(): what a worker's ops->prepare made of the event, */
	size_t pre_len;			/* NULL: nothing (run/par.c) */
	bool worker;			/* a -j worker's writer (writer_open_worker()) */
	int workers;			/* a worker's: how many share the run */
	char *piece;			/* dat: the piece mark to write, NULL: none */
	size_t piece_len;
	struct writer_notice {		/* events of a type whose print format is not supported */
		const struct tdat_file *file;
		const char *system, *name;	/* libtraceevent's, compared as pointers */
		uint64_t count;
	} *notices;
	int nnotices;
	char notice[TDAT_MSG_LEN];	/* tdat_writer_notice() */
	void *priv;
};

/*
 * An event written without part of it (@why), into tdat_writer_warning():
 * "PATH: N @many (the first, sys:name at time: why)", @one if N is 1.
 */
void writer_damaged(struct tdat_writer *w, const struct tdat_event *ev, const char *system,
		    const char *name, const char *why, const char *one, const char *many);
/* @n more damaged events, the first of them @d (a worker's, run/par.c), after those counted. */
void writer_damage_add(struct tdat_writer *w, const struct writer_damage *d, uint64_t n);

/*
 * A -j worker's writer (run/par.c): no output, its text into w->sink (and, for a
 * format with ops->put_segs, cut into w->segs); no workers of its own.
 */
int writer_open_worker(struct tdat_writer *w, struct tdat_merge *m, unsigned flags);

/* tdat_writer_put() on this thread (what run/par.c's workers and caller call). */
int writer_put_now(struct tdat_writer *w, const struct tdat_event *ev);

/* An event of a type whose print format is not supported, printed with its fields only (notices.c). */
void writer_unsupported(struct tdat_writer *w, const struct tdat_event *ev, const char *system,
			const char *name);

extern const struct tdat_writer_ops tdat_writer_text_ops;
extern const struct tdat_writer_ops tdat_writer_csv_ops;
extern const struct tdat_writer_ops tdat_writer_json_ops;
extern const struct tdat_writer_ops tdat_writer_sqlite_ops;
extern const struct tdat_writer_ops tdat_writer_dat_ops;
extern const struct tdat_writer_ops tdat_writer_perfetto_ops;
extern const struct tdat_writer_ops tdat_writer_parquet_ops;

/*
 * info-json.c: a dataset's _tdat/trace.json under the folder @dirfd: one
 * tdat_file_info_json() line per file added to the writer's merge, with the
 * statistics the merge counted (tdat_merge_count()), or read again.
 */
int dataset_info_write(struct tdat_writer *w, int dirfd);

/* writer-csvdir.c: csv with the "split" option; csv_open() hands over to it. */
int csvdir_open(struct tdat_writer *w);

/*
 * typed.c: what the writers of one typed file per event type share (csv
 * --split-by-event, parquet).  The file name "SYSTEM.EVENT" with anything
 * but [A-Za-z0-9_.-] turned into '_' (unknown.ID without a format), at most
 * TYPED_NAME_MAX bytes; the first of it, .2, .3 ... that @taken says no file
 * has yet; the field list ("name:kind,...": types whose lists agree share a
 * file); the column names, NULL-terminated: each field's (its name,
 * field_NAME if a fixed column has it) and after a field with a sym its
 * COLUMN_sym (free with typed_columns_free()); the type's name as files are
 * matched on it.
 */
#define TYPED_NAME_MAX 200	/* of SYSTEM.EVENT, below NAME_MAX with ".N.csv" */
char *typed_file_base(const struct ttype *tt);
char *typed_unique_base(const struct ttype *tt, bool (*taken)(const void *ctx, const char *base),
			const void *ctx);
char *typed_signature(const struct ttype *tt);
char **typed_columns(const struct ttype *tt);
void typed_columns_free(char **cols);
char *typed_type_name(const struct ttype *tt);

/* What a typed file is the file of: a type's system, name (typed_type_name()) and field list. */
struct typed_key {
	char *system, *name, *sig;
};
void typed_key_free(struct typed_key *k);
/*
 * typed_find(): among @files[@first..@n), each beginning with its struct
 * typed_key, the file of @tt; else NULL, with the signature a new file of
 * @tt is to have in @*sig (the caller's; NULL too when out of memory).
 */
void *typed_find(void *const *files, int first, int n, const struct ttype *tt, char **sig);

#endif /* TDAT_WRITE_H */
