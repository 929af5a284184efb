/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - what the libfmt modules share and the tools never see:
 * the input source, the decompression codecs, the parsed file, the per-CPU
 * cursor and the writer ops table.
 */
#ifndef TDAT_INTERNAL_H
#define TDAT_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tdat.h"

struct tep_handle;
struct tep_plugin_list;
struct kbuffer;
struct tdat_sink;

#define TDAT_MSG_LEN 512

/* Format a message into a fixed buffer (errmsg fields of the handles). */
void tdat_msg(char *dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- idtab.c: pointers by event type id, allocated 256 ids at a time ---- */
#define IDTAB_LEAVES 256	/* 256 x 256 = every 16-bit common_type */
struct idtab {
	void **leaf[IDTAB_LEAVES];
};

void **idtab_grow(struct idtab *t, unsigned id);

/* Where id's pointer lives (NULL until set); NULL if out of memory. */
static inline void **idtab_slot(struct idtab *t, unsigned id)
{
	void **leaf = t->leaf[(id >> 8) & (IDTAB_LEAVES - 1)];

	return leaf ? &leaf[id & 255] : idtab_grow(t, id);
}

/* Call @release (if any) on every pointer set, and free the table's memory. */
void idtab_release(struct idtab *t, void (*release)(void *));

/* ---- tep-guard.c: what libtraceevent 1.7 crashes on, refused first ---- */
enum tep_guard {
	TEP_GUARD_OK,		/* parse it */
	TEP_GUARD_UNSUPP,	/* the same, but a kernel shape libtraceevent cannot print, not damage */
	TEP_GUARD_FIELDS,	/* parse only its first *keep bytes: the print format is unsafe */
	TEP_GUARD_BAD,		/* do not parse it at all */
};
enum tep_guard tep_guard_format(const char *buf, size_t *keep);
const char *tep_guard_filter(const char *expr, size_t *at);

/* print-guard.c: what libtraceevent's printer would read outside a record */
struct tep_event;
struct tep_print_arg;
enum { TEP_RECORD_SAFE, TEP_RECORD_BAD_PRINT, TEP_RECORD_BAD_FIELDS };
#define GUARD_LENS	4		/* printf widths taken from arguments, checked per type */
#define PRINT_WIDTH_MAX	4096		/* the widest printf width or precision printed */
struct tep_guard_type {		/* what tep_guard_record() learnt of one event type */
	struct tep_event *event;
	uint64_t need;			/* a record this long holds every static field */
	bool slow;			/* and that is not enough to know */
	const char *flaw;		/* in every record: the print format's own */
	const char *raw_flaw;		/* the same, in a conversion the raw printer uses */
	int nlens;			/* widths and precisions from arguments ("%*d") */
	struct tep_guard_len {
		struct tep_print_arg *arg;
		bool bounded;		/* not a string's precision: at most PRINT_WIDTH_MAX */
		bool field;		/* of a plain field's conversion (the raw printer's) */
		bool pointer;		/* of a "%*p": only worked out, by the raw printer */
	} lens[GUARD_LENS];
};
/* @raw: for tep_print_fields() (trace-cmd report -R) rather than the print format */
int tep_guard_record(struct tep_guard_type *t, struct tep_event *event, const void *data, unsigned size,
		     bool raw, char *why, size_t len);
/* a TEP_RECORD_BAD_PRINT record's fields, raw, not through its print format's conversions */
struct trace_seq;
struct tep_record;
void tep_guard_print_fields(struct trace_seq *s, struct tep_record *rec, struct tep_event *event);
void tep_guard_plugins(struct tep_handle *tep);
int tep_guard_refused(void);	/* helper calls refused since the last call, then 0 */

/* print-eval.c: a print argument's value for one record, as libtraceevent works it out */
struct print_rec {
	struct tep_event *event;
	const unsigned char *data;
	unsigned size;
};
enum print_val {
	PV_KNOWN,
	PV_UNKNOWN,		/* a function's, a symbol's or an address */
	PV_DIV0,		/* what libtraceevent would crash on working it out */
	PV_OUTSIDE,		/* an array element outside the record */
	PV_NULL_WRITE,		/* a __rel_loc array's length */
};
enum print_val print_arg_value(const struct print_rec *r, struct tep_print_arg *a, uint64_t *v);

/* ---- io.c: a seekable input read with pread ---- */

struct tdat_src {
	int fd;
	uint64_t size;
	bool owned;		/* we opened fd and close it */
};

int src_open(struct tdat_src *s, const char *path, char *err);
void src_close(struct tdat_src *s);
/* An unlinked temporary file under $TMPDIR: its fd, or a negative error. */
int tmp_file(char *err);
/* Read exactly @len bytes at @off; TDAT_EFORMAT if the file ends first. */
int src_pread(struct tdat_src *s, void *buf, size_t len, uint64_t off, char *err);

/* ---- codec.c: decompression of sections and chunks ---- */

struct tdat_codec {
	const char *name;
	/* 0 when exactly @dlen bytes came out, else a negative enum tdat_err. */
	int (*decompress)(void *ctx, const void *src, size_t slen, void *dst, size_t dlen);
	void *(*ctx_new)(void);
	void (*ctx_free)(void *ctx);
};

const struct tdat_codec *codec_find(const char *name);

/* ---- the parsed file ---- */

struct tsync_sample {
	int64_t time, offset, scaling, fraction;
};

struct tsync_cpu {
	int count;
	struct tsync_sample *samples;
};

struct tdat_buffer {
	struct tdat_buffer_info info;
	struct tdat_cpu_info *cpus;
	bool compressed;	/* per-CPU data is chunked */
	uint64_t lat_offset;	/* latency text: where and how big */
	uint64_t lat_size;
	char *lat_text;
	size_t lat_len;
};

/*
 * The metadata of a file kept as it was read, so that a writer can copy it
 * into a new trace.dat (writer-dat.c).  Blobs are NUL-terminated; len does
 * not count the NUL.
 */
struct tdat_blob {
	char *data;
	uint64_t len;
};

struct tdat_msys {		/* one event system and its format files */
	char *name;
	struct tdat_blob *fmts;
	int nfmts;
};

struct tdat_mopt {		/* an option copied as it is (DATE, UNAME, ...) */
	unsigned id;
	struct tdat_blob b;
};

#define NSECTIONS	6	/* HEADER_INFO .. CMDLINES */

struct tdat_meta {
	unsigned user_long;	/* the header's long size byte */
	struct tdat_blob header_page, header_event;
	struct tdat_blob *ftrace;	/* ftrace event formats */
	int nftrace;
	struct tdat_msys *systems;
	int nsystems;
	struct tdat_blob kallsyms, printk, cmdlines;	/* data NULL: absent */
	struct tdat_mopt *opts;		/* in file order */
	int nopts;
	/* v7: where each compressed section's stored bytes (after its header)
	 * are in the source, so that a writer of the same compression can
	 * copy them instead of compressing again; len 0: none */
	uint64_t raw_off[NSECTIONS], raw_len[NSECTIONS];
};

/* Append a blob (taking @data) to an array; TDAT_ENOMEM leaves @data to the caller. */
int meta_push(struct tdat_blob **arr, int *n, char *data, uint64_t len);
/* Keep option @id's payload if it is one a writer copies. */
int meta_keep_option(struct tdat_meta *m, unsigned id, const char *buf, uint64_t size);
void meta_release(struct tdat_meta *m);

struct tdat_file {
	struct tdat_file_info info;
	struct tdat_meta meta;
	struct tdat_src src;
	char errmsg[TDAT_MSG_LEN];
	unsigned flags;		/* enum tdat_open_flags */

	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	const struct tdat_codec *codec;
	void *codec_ctx;

	struct tdat_buffer *buffers;
	int nbuffers;
	bool meta_changed;	/* a format of the section being read was dropped or cut */

	/* timestamp corrections */
	double ts2secs;		/* ns a tick (tdat_open_opts.ts2secs_hz), 0: none */
	bool ts2secs_given;	/* a ts2secs_hz, even if TDAT_OPEN_RAW_TS drops it */
	int report_usecs;	/* trace-cmd report prints sec.usec (its IN_USECS flag),
				 * else the number: info.in_usecs, but for ts2secs */
	uint32_t tsc_mult, tsc_shift;
	int tsync_enabled;
	unsigned tsync_flags;
	int tsync_ncpus;
	struct tsync_cpu *tsync;

	/* strings the info struct points into */
	char *path, *name, *uname, *version, *clock, *cpustat, *zname, *zver;
	int64_t user_offset;	/* tdat_open_opts.ts_offset, part of info.ts_offset */
	char *strings;		/* v7 STRINGS */
	size_t strings_len;

	struct idtab types;	/* struct ttype by event type id, built on use */

	/* cpustat.c: the CPUSTAT text parsed on first use */
	struct tdat_kernel_cpu_stats *kstats;
	uint64_t (*kraw)[2];	/* per entry: its oldest and now ts as printed (ns or clock) */
	char **knames;		/* buffer names the text gives */
	int nkstats, nknames;
	bool kparsed;

	bool syms_pending;	/* kallsyms kept, not given to libtraceevent yet */
	bool is_piece;		/* a tdat-split piece (piece.c) */
	struct tdat_piece piece;
	char *piece_name;
	char **warnings;	/* damage found while opening (file_warn) */
	int nwarnings;
	char **notes;		/* not damage: formats libtraceevent cannot print (unsupported.c) */
	int nnotes;
	int *unsupp_ids;	/* and their event type ids */
	int nunsupp;
};

/* ---- fields.c: typed access to event fields ---- */

enum tkind { TK_INT, TK_UINT, TK_PTR, TK_STR, TK_ARRAY };
struct tmsg;

struct tfield {
	const char *name;	/* owned by libtraceevent */
	unsigned offset, size, elem;
	unsigned long flags;	/* TEP_FIELD_IS_* */
	enum tkind kind;
	bool stack;		/* ftrace:kernel_stack's caller: as many entries as
				 * the record holds, up to a -1 (caller[8] or not) */
	struct tmsg *msg;	/* not in the record: ftrace:bprint's message, as the
				 * text output prints it after the ip (fields.c) */
};

/*
 * One event type of a file: its own fields (not common_*) and the common
 * ones.  A last field of size 0 (old kernels' "char buf; size:0") is read as
 * the flexible array newer kernels declare ("char buf[]"); ftrace:bprint has
 * one field more, "msg", its formatted message.
 */
struct ttype {
	unsigned id;
	const char *system, *name;	/* "" if the type has no format */
	struct tep_event *event;	/* NULL if the type has no format */
	struct tfield pid, cflags, preempt;	/* size 0, name NULL if absent */
	uint64_t need;		/* a record this long holds every fixed field */
	uint64_t fixed_end;	/* where the last fixed field ends */
	bool dynamic;		/* some field is __data_loc or __rel_loc */
	bool bounded;		/* the kernel sizes its records by the fields (not ftrace's
				 * own events, flexible arrays or stacks) */
	int nfields;
	struct tfield fields[];
};

/* The type of @ev (built on first use, owned by the file); NULL without memory. */
const struct ttype *file_type(struct tdat_file *f, const struct tdat_event *ev);
const struct tfield *ttype_field(const struct ttype *t, const char *name);
void file_types_free(struct tdat_file *f);
/* A number field (TK_INT sign-extended); false if absent or outside the event. */
bool tfield_num(const struct tdat_event *ev, const struct tfield *f, uint64_t *v);
/*
 * A string (without its NUL) or array field's bytes; false if outside the
 * event.  A message field's text is valid until the next call for that type.
 */
bool tfield_bytes(const struct tdat_event *ev, const struct tfield *f, const unsigned char **p,
		  unsigned *len);
/*
 * Whether every field of @t in @ev can be shown (a static array may hang
 * RECORD_SLACK bytes over the end, as print-guard.c allows); if not, why.
 */
bool ttype_fits(const struct ttype *t, const struct tdat_event *ev, char *why, size_t len);
/*
 * Whether @ev is longer than the kernel makes a record of type @t (a damaged
 * length, which hides the events it swallowed); if so, by how many bytes.
 */
bool ttype_overlong(const struct ttype *t, const struct tdat_event *ev, unsigned *extra);
/* A record of @t no longer than this is never overlong (UINT64_MAX: no record of @t is). */
uint64_t ttype_sure_len(const struct ttype *t);

/* ---- procs.c: threads and processes as Perfetto models them ---- */

struct pm_thread {
	int utid;
	int input;		/* tids are per input file */
	int64_t tid;
	char *name;		/* NULL if never known */
	uint64_t start_ts, end_ts;
	bool has_start, has_end;
	int upid;		/* -1: process not known */
	bool is_main, is_idle;
	int parent_utid;	/* the thread that forked it, -1 if not seen */
	bool seen;		/* an event of this thread was seen */
	bool freed;		/* sched_process_free: the tid may be reused */
};

struct pm_process {
	int upid;
	int input;
	int64_t pid;
	char *name, *cmdline;	/* NULL if never known */
	uint64_t start_ts, end_ts;
	bool has_start, has_end;
	int parent_upid;	/* -1: not known */
};

struct procmodel;

struct procmodel *pm_new(void);
void pm_free(struct procmodel *pm);
/* Would pm_feed() learn from events of @tt more than that their thread ran? */
bool pm_wants(const struct ttype *tt);
/* Feed each event in timeline order, with its type from file_type(). */
int pm_feed(struct procmodel *pm, const struct tdat_event *ev, const struct ttype *t);
/* The current utid of @tid in @input (a new thread when unknown); <0 without memory. */
int pm_utid(struct procmodel *pm, int input, int64_t tid);
/* After the last event: names from the files' saved cmdlines, process names. */
void pm_finish(struct procmodel *pm, struct tdat_merge *m);
int pm_nthreads(const struct procmodel *pm);
const struct pm_thread *pm_thread(const struct procmodel *pm, int utid);
int pm_nprocs(const struct procmodel *pm);
const struct pm_process *pm_process(const struct procmodel *pm, int upid);

/* ---- sched.c: scheduling state machine (sched slices, thread states) ---- */

/* A closed (or, at the end, open: dur -1) run of a task on a CPU. */
struct sched_slice_row {
	int64_t id;
	uint64_t ts;
	int64_t dur;
	int cpu, ucpu, utid, priority;
	const char *end_state;	/* NULL while still running */
};

/* One state of a thread: "Running" (with cpu), R (woken), or an end state. */
struct sched_state_row {
	int64_t id;
	uint64_t ts;
	int64_t dur;		/* -1: still in it at the end */
	int cpu, ucpu;		/* -1 unless Running */
	int utid;
	const char *state;
	int io_wait;		/* -1 unknown */
	const char *blocked_function;	/* NULL unknown */
	int waker_utid;		/* -1 unknown */
};

struct sched_ops {
	void *ctx;
	/* Called as rows close, in no particular id order; non-zero stops. */
	int (*slice)(void *ctx, const struct sched_slice_row *r);
	int (*state)(void *ctx, const struct sched_state_row *r);
};

struct sched_switch_in {
	uint64_t ts;
	int cpu, ucpu;		/* ucpu: unique over inputs, small, from 0 */
	int prev_utid, next_utid, next_prio;
	const char *prev_state;	/* decoded (sched_state_str), interned */
};

struct sched_sm;

struct sched_sm *sched_new(const struct sched_ops *ops);
void sched_free(struct sched_sm *s);
/* A string kept as long as @s (for prev_state and blocked functions). */
const char *sched_intern(struct sched_sm *s, const char *str);
int sched_switch(struct sched_sm *s, const struct sched_switch_in *in);
/* sched_waking / sched_wakeup / sched_wakeup_new of @utid by @waker_utid. */
int sched_wake(struct sched_sm *s, uint64_t ts, int utid, int waker_utid);
/* sched_blocked_reason: marks the thread's current (blocked) state. */
void sched_blocked(struct sched_sm *s, int utid, int io_wait, const char *function);
/* After the last event: report what is still open, with dur -1. */
int sched_finish(struct sched_sm *s);

#define SCHED_MAX_STATES 32

/* prev_state bits -> letters, as one kernel's sched_switch format prints them. */
struct sched_states {
	uint64_t bits[SCHED_MAX_STATES];
	char letters[SCHED_MAX_STATES][8];
	int n;
	char delim[8];
	uint64_t preempt;	/* the "+" bit (0x100 on kernels >= 4.14) */
};

/* From @e's print format (NULL or no table: the kernel >= 4.14 one). */
void sched_states_init(struct sched_states *m, const struct tep_event *e);
/* "S", "D|K", "R+", ... as the kernel prints @state. */
void sched_state_str(const struct sched_states *m, int64_t state, char *buf, size_t len);

/* One trace_marker payload in the atrace grammar. */
struct atrace {
	char kind;		/* 'B' begin, 'E' end, 'C' counter, 'I' instant */
	bool has_pid;
	int64_t pid;		/* the tgid written in the payload */
	const char *name;	/* not NUL-terminated */
	size_t name_len;
	int64_t value;		/* 'C' */
};

/* Parse @n bytes (trailing newlines and NULs ignored); false if not atrace. */
bool atrace_parse(const char *p, size_t n, struct atrace *a);

/* Hand kallsyms to libtraceevent now (writers that print function names). */
void file_load_symbols(struct tdat_file *f);
/* The kernel function at @addr (kallsyms loaded on first use), or NULL. */
const char *function_name(struct tdat_file *f, uint64_t addr);

/* Record damage found while opening that does not stop the file from opening. */
void file_warn(struct tdat_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * unsupported.c: the format @buf of @system passed tep_guard_format() as
 * TEP_GUARD_UNSUPP: note it, and remember its id for the text writer.
 */
void file_unsupported(struct tdat_file *f, const char *buf, const char *system);
/* Whether event type @id of @f has such a print format. */
bool file_print_unsupported(const struct tdat_file *f, int id);
void file_unsupported_free(struct tdat_file *f);

/* Convert a raw ring-buffer timestamp of @cpu into the reported one. */
uint64_t file_ts(const struct tdat_file *f, uint64_t raw, int cpu);

/* ---- cpustat.c: the kernel's per-CPU ring-buffer statistics ---- */

/* Parse CPUSTAT @text (@len bytes) into @f's table, replacing it; 0 or TDAT_ENOMEM. */
int cpustat_parse(struct tdat_file *f, const char *text, size_t len);
void cpustat_free(struct tdat_file *f);

/* Each figure, with the name trace processor gives it for a .pftrace (at the end). */
struct kstat_field {
	unsigned bit;		/* enum tdat_kstat_have */
	const char *tp_name;	/* "ftrace_cpu_overrun_end", ... */
	const char *desc;
};

#define KSTAT_NFIELDS 8
extern const struct kstat_field kstat_fields[KSTAT_NFIELDS];
/* The figure of @k that @bit names. */
uint64_t kstat_value(const struct tdat_kernel_cpu_stats *k, unsigned bit);

/* What a writer wrote of one input's buffers, for the kernel's figures per CPU. */
struct kseen {
	const struct tdat_file *f;
	bool *used;		/* per buffer: an event of it was written */
	int *base;		/* per buffer: where its CPUs start in lost[] */
	uint64_t *lost;		/* per CPU of each buffer: lost events counted in the pages */
};

int kseen_init(struct kseen *k, const struct tdat_file *f);
void kseen_event(struct kseen *k, const struct tdat_event *ev);
void kseen_release(struct kseen *k);
/*
 * CPU @cpu's figures over the buffers written: counts summed, the oldest
 * ts the earliest, now_ts the latest; where a buffer's text has no overrun,
 * the lost events its pages counted stand in (so overrun is always set).
 */
void kseen_cpu(const struct kseen *k, struct tdat_file *f, int cpu,
	       struct tdat_kernel_cpu_stats *out);

/* Read an integer of @len bytes in the file's byte order. */
uint64_t file_num(const struct tdat_file *f, const void *p, int len);

/* The same for sizes 1, 2, 4, 8, fast on little-endian files. */
static inline uint64_t field_raw(const struct tdat_file *f, const unsigned char *p, unsigned size)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	if (f->info.big_endian)
		return file_num(f, p, (int)size);
	switch (size) {
	case 1: return p[0];
	case 2: memcpy(&v16, p, 2); return v16;
	case 4: memcpy(&v32, p, 4); return v32;
	default: memcpy(&v64, p, 8); return v64;
	}
}

/* ---- dat-read.c, dat-options.c: the trace.dat parsers' shared pieces ---- */

#define OPT_DONE	0
#define OPT_DATE	1
#define OPT_CPUSTAT	2
#define OPT_BUFFER	3
#define OPT_TRACECLOCK	4
#define OPT_UNAME	5
#define OPT_OFFSET	7
#define OPT_CPUCOUNT	8
#define OPT_VERSION	9
#define OPT_PROCMAPS	10
#define OPT_TRACEID	11
#define OPT_TIME_SHIFT	12
#define OPT_GUEST	13
#define OPT_TSC2NSEC	14
#define OPT_STRINGS	15
#define OPT_HEADER_INFO	16
#define OPT_FTRACE_EVENTS 17
#define OPT_EVENT_FORMATS 18
#define OPT_KALLSYMS	19
#define OPT_PRINTK	20
#define OPT_CMDLINES	21
#define OPT_BUFFER_TEXT	22
#define OPT_TDAT_PIECE	0x7464	/* ours: a tdat-split piece (piece.c); trace-cmd skips it */
#define MAX_OPTION_SECTIONS 256
#define MAX_CPUS	65536	/* more is damage, not a machine */
/*
 * Zeroed bytes after every buffer records are read from: kbuffer may peek
 * past the commit, and libtraceevent prints a static array field whole,
 * up to this far past a record that holds fewer entries (kernel_stack).
 */
#define RECORD_SLACK	64
#define SEC_FL_COMPRESS	1

/*
 * A reader over either the file (pread) or a decompressed section in
 * memory.  Offsets in messages are file offsets (of the section when in
 * memory).
 */
struct rd {
	struct tdat_file *f;
	uint64_t off;			/* file offset (file-backed) */
	unsigned char *mem;		/* decompressed section, owned */
	size_t mlen, mpos;
	uint64_t sec_off;		/* file offset of the section */
	uint64_t sec_size;		/* its size after the header */
	uint64_t sec_zlen;		/* compressed: the block's bytes (sizes + data) */
	/* file-backed: the last bytes read ahead, so that small numbers and
	 * strings do not each cost a system call */
	uint64_t win_off;
	size_t win_len;
	unsigned char win[4096];
};

uint64_t rd_left(const struct rd *r);
int rd_fail(struct rd *r, const char *what);
int rd_bytes(struct rd *r, void *dst, size_t n, const char *what);
int rd_num(struct rd *r, int len, uint64_t *v, const char *what);
int rd_blob(struct rd *r, uint64_t n, char **out, const char *what);
int rd_sized(struct rd *r, int lenbytes, char **out, uint64_t *n, const char *what);
int rd_str(struct rd *r, char **out, size_t max, const char *what);
int rd_expect(struct rd *r, const char *tag, size_t n);
void rd_drop_mem(struct rd *r);
/* Enter the v7 section at @off, checking its id; decompressed if it is compressed. */
int rd_section(struct rd *r, uint64_t off, unsigned want_id, unsigned *flags);

struct opts_state {
	uint64_t sections[NSECTIONS];	/* v7: offsets of HEADER_INFO.. */
	bool has_clock_opt;
	char *clock_text;
};

/* Read options until DONE; v7: @next is the offset of the next OPTIONS section. */
int opts_read(struct rd *r, struct opts_state *st, uint64_t *next);
/* Take the clock from trace_clock text ("... [local] ..."). */
void opts_set_clock(struct tdat_file *f, const char *text);
/* Whether trace-cmd takes trace clock @clock for one that counts ns (else ticks). */
bool clock_counts_ns(const char *clock);
int file_add_buffer(struct tdat_file *f, struct tdat_buffer **out);
/* piece.c: the mark of a tdat-split piece */
int piece_read(struct tdat_file *f, const char *buf, uint64_t size);
/* The option's payload for @p (malloc'd, NUL included in *@len). */
int piece_format(const struct tdat_piece *p, char **out, size_t *len);
/* Whether two pieces can be read as one file: the same metadata and buffers. */
bool piece_alike(const struct tdat_file *a, const struct tdat_file *b);
/* dat-salvage.c: a v7 file cut inside its data; see there. */
int v7_salvage(struct tdat_file *f, uint64_t from, const char *why);

/* ---- dat-cpu.c: a cursor over one CPU of one buffer ---- */

struct cursor {
	struct tdat_file *f;
	const struct tdat_buffer *b;
	const struct tdat_cpu_info *ci;
	int input, buffer;
	int rank;		/* tie-break order in the merge */
	unsigned piece;		/* the file's place in its split (0: not a piece) */
	struct kbuffer *kbuf;

	unsigned char *buf;	/* window of pages, or one decompressed chunk */
	size_t buf_cap, buf_len;
	size_t page_pos;	/* offset of the current page inside buf */
	uint64_t buf_off;	/* file offset the window was read from */

	uint64_t next_off;	/* next stored byte to read */
	uint64_t end_off;
	uint32_t chunks_left;	/* compressed data only */
	unsigned char *zbuf;	/* one compressed chunk */
	size_t zbuf_cap;

	bool loaded;		/* a page is loaded in kbuf */
	bool page_start;	/* next event is the page's first */
	long long page_missed;	/* lost-events mark of the loaded page */
	bool done;
	struct tdat_event ev;
	bool have;		/* ev is the peeked event */

	/* damage seen; reported through the owner's callback */
	void (*damage)(void *owner, const struct cursor *c, uint64_t off,
		       uint64_t bytes, const char *reason);
	void *owner;
	uint64_t consumed;	/* stored bytes read so far */
	uint64_t ubytes;	/* bytes after decompression */
	size_t page_len;	/* bytes of the loaded page in buf (less at the end) */
	const unsigned char *page;	/* the loaded page: in buf, or cut in cut */
	unsigned char *cut;	/* a damaged page cut to its whole events */
	struct {
		unsigned id;	/* a type checked for overlong records (by id % 16), */
		unsigned ok;	/* and a length its records never pass (0: none yet) */
	} lens[16];
	uint64_t nofmt;		/* bytes of records with no format on the page walked */
};

int cursor_init(struct cursor *c, struct tdat_file *f, int input, int buffer, int cpu_index);
/*
 * The reason given for records of a type with no format; damage_push() sums
 * them into one entry per CPU, from the first one's offset.
 */
extern const char damage_no_format[];
/* Note a damaged region of cursor @c in a list (merge.c; the last entry sums past a limit). */
void damage_push(struct tdat_damage **list, int *n, const struct cursor *c, uint64_t off,
		 uint64_t bytes, const char *reason);
/* Peek the next event: 0 with c->ev set, TDAT_END, or a negative error. */
int cursor_peek(struct cursor *c);
static inline void cursor_advance(struct cursor *c) { c->have = false; }
/* Before the first peek: skip the pages (or chunks) that end before @ts. */
int cursor_seek(struct cursor *c, uint64_t ts);
void cursor_release(struct cursor *c);
/*
 * The next whole page, for copying: its header and the extent of each of
 * its events are checked (a damaged page is reported and skipped), events
 * are not decoded.  0 with *@page and *@len set, TDAT_END, or an error.
 * Not mixed with cursor_peek().
 */
int cursor_next_page(struct cursor *c, const unsigned char **page, size_t *len);

/* File @i of every file added to @m, the pieces of a split too; NULL past the end. */
struct tdat_file *merge_member(const struct tdat_merge *m, int i);

/*
 * Hand every undamaged page of every CPU of @m to @fn, one CPU after the
 * other (damage is recorded as usual); @fn's non-zero return stops it.
 * Only before the merge has started; the merge is used up.
 */
int merge_copy_pages(struct tdat_merge *m,
		     int (*fn)(void *arg, const struct cursor *c, const unsigned char *page, size_t len),
		     void *arg);

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
 * What dat_out_write() writes.  dat_out_init() clears it and picks the
 * compression from enum tdat_writer_flags; then the caller sets meta, big,
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
};

int dat_out_init(struct dat_out *o, unsigned flags, size_t stage_limit, char *err);
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

/* ---- writer.c: buffered output with a sticky error, and the registry ---- */

struct tdat_sink {
	int fd;			/* -1: a memory sink that grows */
	char *buf;
	size_t len, cap;
	int err;		/* errno of the first failure */
	void *gz;		/* z_stream when gzipping */
};

int sink_init(struct tdat_sink *s, int fd);
/* Compress everything written from now on as one gzip stream. */
int sink_gzip(struct tdat_sink *s);
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
/*
 * Room for element @n of the array *@arr (*@cap elements of @size bytes):
 * doubled when full, @first elements at first.  0 or TDAT_ENOMEM (the
 * array is kept).  Call as array_room((void **)&a, n, &cap, sizeof(*a), 16).
 */
int array_room(void **arr, int n, int *cap, size_t size, int first);

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

struct tdat_writer_ops {
	const char *name;
	const char *exts;	/* space separated file name endings */
	int output;		/* enum tdat_output_kind */
	bool symbols;		/* prints function names: load kallsyms first */
	bool fields;		/* writes every field: an event with fields outside
				 * its record is counted (writer_damaged()) */
	int (*open)(struct tdat_writer *w);
	int (*put)(struct tdat_writer *w, const struct tdat_event *ev);
	int (*close)(struct tdat_writer *w);
	void (*free)(struct tdat_writer *w);
	uint64_t (*size)(struct tdat_writer *w);	/* optional: output bytes so far */
	int (*copy)(struct tdat_writer *w);	/* optional: every event, page by page */
};

struct tdat_writer {
	const struct tdat_writer_ops *ops;
	struct tdat_sink sink;		/* unused by file and directory formats */
	const char *path;		/* file or directory formats */
	struct tdat_merge *merge;
	unsigned flags;
	char errmsg[TDAT_MSG_LEN];
	char warning[TDAT_MSG_LEN];	/* tdat_writer_warning() */
	uint64_t ndamaged;		/* events written without part of them */
	const char *damaged_path;	/* the first one's file */
	char damaged_first[TDAT_MSG_LEN];	/* the first one: sys:name at time: why */
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

/* An event of a type whose print format is not supported, printed with its fields only (unsupported.c). */
void writer_unsupported(struct tdat_writer *w, const struct tdat_event *ev, const char *system,
			const char *name);

extern const struct tdat_writer_ops tdat_writer_text_ops;
extern const struct tdat_writer_ops tdat_writer_csv_ops;
extern const struct tdat_writer_ops tdat_writer_json_ops;
extern const struct tdat_writer_ops tdat_writer_sqlite_ops;
extern const struct tdat_writer_ops tdat_writer_dat_ops;
extern const struct tdat_writer_ops tdat_writer_perfetto_ops;

/* writer-csvdir.c: csv with TDAT_W_SPLIT; csv_open() hands over to it. */
int csvdir_open(struct tdat_writer *w);

#endif /* TDAT_INTERNAL_H */
