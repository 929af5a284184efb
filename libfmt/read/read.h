/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * read.h - the reading layer's shared pieces, never seen by the tools: the
 * input source, the decompression codecs, the parsed file and its event
 * types and fields, the trace.dat parsers, the per-CPU cursor and the merge.
 * Everything above it (model, writers, capture) builds on these.
 */
#ifndef TDAT_READ_H
#define TDAT_READ_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "tdat.h"
#include "guard/guard.h"

struct tep_handle;
struct tep_plugin_list;
struct kbuffer;
struct tdat_sink;

#define TDAT_MSG_LEN 512

/* Format a message into a fixed buffer (errmsg fields of the handles). */
void tdat_msg(char *dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Room for element @n of the array *@arr (*@cap elements of @size bytes):
 * doubled when full, @first elements at first.  0 or TDAT_ENOMEM (the
 * array is kept).  Call as array_room((void **)&a, n, &cap, sizeof(*a), 16).
 */
int array_room(void **arr, int n, int *cap, size_t size, int first);

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

/* ---- io.c: a seekable input read with pread ---- */

/* How an input is compressed as a whole (io-unpack.c): a .dat.gz, .dat.zst, .dat.xz. */
enum unpack_kind { UNPACK_NONE, UNPACK_GZIP, UNPACK_ZSTD, UNPACK_XZ };

struct tdat_src {
	int fd;			/* -1: parked (src_park()), opened again by path when read */
	uint64_t size;
	bool owned;		/* we opened fd and close it */
	char *path;		/* a regular file read in place: it can be parked */
	uint64_t dev, ino;	/* and must be the same file when opened again */
	enum unpack_kind packing;	/* fd holds its decompressed copy */
	uint64_t packed_size;	/* the compressed bytes read, for packing */
};

/*
 * Open @path ("-": standard input).  A regular trace.dat is read in place;
 * a pipe or a device is copied once into an unlinked temporary file, and a
 * compressed one (by its magic) decompressed into it: reopening @path
 * decompresses it again.
 */
int src_open(struct tdat_src *s, const char *path, char *err);
void src_close(struct tdat_src *s);
/* An unlinked temporary file under $TMPDIR: its fd, or a negative error. */
int tmp_file(char *err);
/* Read exactly @len bytes at @off; TDAT_EFORMAT if the file ends first. */
int src_pread(struct tdat_src *s, void *buf, size_t len, uint64_t off, char *err);
/*
 * Close the descriptor of a file read in place (one of thousands of
 * pieces, not read now); the next read opens it again, after checking it
 * is the same file.  Others (standard input, a copy) stay open.
 */
void src_park(struct tdat_src *s);
/* Open a parked source again (0), or say why not. */
int src_ready(struct tdat_src *s, char *err);

/* An input read from its start to its end, with read() or pread() (a regular file). */
struct src_in {
	int fd;
	bool seekable;
	uint64_t off;
};

/* Up to @n bytes of @in: their count, 0 at the end, -1 with errno. */
ssize_t src_in_read(struct src_in *in, void *buf, size_t n);

/* The temporary copy of an input being written. */
struct spool_out {
	int fd;
	uint64_t size;		/* bytes written */
	uint64_t limit;		/* at most this many (fuzzing builds), else UINT64_MAX */
	const char *dir;	/* its folder ($TMPDIR), for messages */
};

/*
 * Append @n bytes to @o, unless its file system would be left with less
 * than 5% of its size (at most 1 GiB) free: then TDAT_EIO and a message
 * that says so (a copy never fills the disk).
 */
int spool_put(struct spool_out *o, const void *p, size_t n, char *err);

/* io-unpack.c: the compression @head (@n bytes) begins with; others' names in *@other. */
enum unpack_kind unpack_kind(const unsigned char *head, size_t n, const char **other);
const char *unpack_name(enum unpack_kind k);
/* Decompress @head (@nhead bytes already read), then the rest of @in, into @out. */
int unpack(enum unpack_kind kind, struct src_in *in, const unsigned char *head, size_t nhead,
	   struct spool_out *out, char *err);

/* ---- codec.c: decompression of sections and chunks ---- */

struct prefetch;

/*
 * thread.c: pthread_create() with every signal blocked in the new thread
 * (signals are the tools' to handle, on their own thread), named after
 * @kind, its CPU time added to the kind's (tdat_thread_cpu()) when it
 * ends.  0 or an errno.
 */
int thread_start(pthread_t *th, enum tdat_thread_kind kind, void *(*fn)(void *), void *arg);

struct tdat_codec {
	const char *name;
	/* 0 when exactly @dlen bytes came out, else a negative enum tdat_err. */
	int (*decompress)(void *ctx, const void *src, size_t slen, void *dst, size_t dlen);
	void *(*ctx_new)(void);
	void (*ctx_free)(void *ctx);
};

const struct tdat_codec *codec_find(const char *name);
struct tdat_file;
/* Decompress with @f's codec, its context made on first use; TDAT_ENOMEM without one. */
int file_decompress(struct tdat_file *f, const void *src, size_t slen, void *dst, size_t dlen);
/* A file not read now (a piece done or not begun): its descriptor and codec context let go. */
void file_park(struct tdat_file *f);
/* The CPU numbers of @f: up to its header's count or the highest a buffer lists (< MAX_CPUS). */
int file_cpu_count(struct tdat_file *f);

/* The first ten bytes of every trace.dat (dat-header.c checks them, write/dat-write.c writes them). */
extern const unsigned char dat_magic[10];

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
	struct tdat_blob btf, modules;	/* v7 sections 23 and 25, decompressed; NULL: absent */
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
	uint64_t ts2secs_hz;	/* tdat_open_opts.ts2secs_hz as given */
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

	struct idtab *types;	/* struct ttype by event type id, built on use (NULL: none yet) */

	/* cpustat.c: the CPUSTAT text parsed on first use */
	struct tdat_kernel_cpu_stats *kstats;
	uint64_t (*kraw)[2];	/* per entry: its oldest and now ts as printed (ns or clock) */
	char **knames;		/* buffer names the text gives */
	int nkstats, nknames;
	bool kparsed;

	bool syms_pending;	/* kallsyms kept, not given to libtraceevent yet */
	bool no_syms;		/* a clone that names no function: kallsyms not kept */
	bool is_piece;		/* a tdat-split piece (piece.c) */
	/*
	 * A v7 piece of a split reads only its header and options when opened;
	 * its metadata sections are read, or shared with the first piece of its
	 * split a merge has (piece.c), when it is added to a merge
	 * (file_meta_load()).
	 */
	bool meta_deferred;
	uint64_t sec_offs[NSECTIONS];	/* deferred: where its metadata sections are */
	uint64_t sec_btf, sec_modules;	/* and trace-cmd 3.4's BTF and MODULES_FILE sections */
	uint64_t sec_first;		/* v7: where the sections begin (after the header) */
	struct tdat_file *meta_owner;	/* the file whose tep, meta, types it uses; NULL: its own */
	int nborrowers;			/* files using this one's */
	bool zombie;			/* freed by its user while borrowers remain */
	/* origin.c: the inputs a merged file holds, and which one a view reads */
	struct origin *origins;
	int norigins;
	uint64_t *origin_offs;	/* their sections, as the options locate them */
	int norigin_offs;
	int origin_want;	/* a view of input N of a merged file; -1: the file */
	struct tdat_file *view_of;	/* a view: the file opened by its user */
	int *file_buffer;	/* a view: per buffer, its index in that file */
	struct tdat_piece piece;
	char *piece_name;
	char *piece_how;
	char **warnings;	/* damage found while opening (file_warn) */
	struct last_boot *last_boot;	/* lastboot.c: a persistent buffer's earlier boot */
	bool last_boot_off;	/* file_last_boot(f, false): names as libtraceevent 1.7 gives them */
	struct tdat_section_info *secs;	/* sections.c: every section and option read */
	unsigned *sec_strid;	/* a section's description in the strings, ~0: none */
	int nsecs;
	int nwarnings;
	char **notes;		/* not damage: formats libtraceevent cannot print (notes.c) */
	int nnotes;
	int *unsupp_ids;	/* and their event type ids */
	int nunsupp;
};

/* ---- fields.c: typed access to event fields ---- */

enum tkind { TK_INT, TK_UINT, TK_PTR, TK_STR, TK_ARRAY };
struct tmsg;
struct tsymtext;

/*
 * How the text output prints a field as a kernel symbol: as its print
 * format's %ps/%pf (the function's name) or %pS/%pF/%pB (name+0xOFF),
 * either 0x and hex when no symbol holds the address; or, for a stack's
 * entries (ftrace:kernel_stack's caller), the name, bare hex if none.
 */
enum tsym { TSYM_NONE, TSYM_NAME, TSYM_OFFSET, TSYM_STACK };

struct tfield {
	const char *name;	/* owned by libtraceevent */
	unsigned offset, size, elem;
	unsigned long flags;	/* TEP_FIELD_IS_* */
	enum tkind kind;
	bool stack;		/* ftrace:kernel_stack's caller: as many entries as
				 * the record holds, up to a -1 (caller[8] or not) */
	struct tmsg *msg;	/* not in the record: ftrace:bprint's message, as the
				 * text output prints it after the ip (fields.c) */
	enum tsym sym;		/* printed as a kernel symbol (a FIELD_sym column) */
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
	int nsyms;		/* fields with a sym */
	struct tsymtext *symtext;	/* their text (tfield_sym) */
	int nfields;
	struct tfield fields[];
};

/*
 * stats.c: one more event of type @id in a table of counts by type id,
 * grown (zeroed) to the highest id seen; 0 or TDAT_ENOMEM.
 */
int count_bump(uint64_t **counts, unsigned *n, unsigned id);
/* stats.c: @s's event counts from @counts (per common_type), sorted; its totals. */
int stats_event_counts(struct tdat_file *f, struct tdat_stats *s, const uint64_t *counts,
		       unsigned ncounts);
void stats_totals(struct tdat_stats *s);

/* ---- select.c: what outputs that draw the timeline ask of a selection (svg.c) ---- */

/* Whether --top or -B (one was given) keeps buffer @b of @f. */
bool select_lane_buffer(const struct tdat_select *s, const struct tdat_file *f, int b);
/* Whether CPU @cpu of buffer @b of @f passes the buffer and CPU tests of @s. */
bool select_lane(const struct tdat_select *s, const struct tdat_file *f, int b, int cpu);
/*
 * Side @which (0 start, 1 end) of the window of a bound @s, relative times
 * resolved, in *@ns; false when @s leaves that side open.
 */
bool select_window_get(const struct tdat_select *s, int which, int64_t *ns);

/*
 * The type of @ev (built on first use, owned by the file; a record shorter
 * than a type id: type 0, of no format); NULL without memory.
 */
const struct ttype *file_type(struct tdat_file *f, const struct tdat_event *ev);
/* The type of event type id @id of @f (as file_type()); NULL without memory. */
const struct ttype *file_type_id(struct tdat_file *f, unsigned id);
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
 * Field @f of @t (one with a sym) in @ev as the text output prints its
 * symbol: "name", "name+0x1f", "0xffffffff81000000"; a stack's entries
 * joined by ';'.  False if outside the event or without memory.  The text
 * is valid until the next call for that type.
 */
bool tfield_sym(const struct ttype *t, const struct tdat_event *ev, const struct tfield *f,
		const char **p, unsigned *len);
/*
 * Address @addr of @f as @how prints it (file's kallsyms loaded on first use),
 * into @buf of @size bytes; the length it needs, as snprintf.
 */
int sym_format(struct tdat_file *f, uint64_t addr, enum tsym how, char *buf, size_t size);
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

/* Hand kallsyms to libtraceevent now (writers that print function names). */
void file_load_symbols(struct tdat_file *f);
/* The kernel function at @addr (kallsyms loaded on first use), or NULL. */
const char *function_name(struct tdat_file *f, uint64_t addr);

/* Record damage found while opening that does not stop the file from opening. */
void file_warn(struct tdat_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * notes.c: the format @buf of @system passed tep_guard_format() as
 * TEP_GUARD_UNSUPP: note it, and remember its id for the text writer.
 */
void file_unsupported(struct tdat_file *f, const char *buf, const char *system);
/* Whether event type @id of @f has such a print format. */
bool file_print_unsupported(const struct tdat_file *f, int id);
void file_unsupported_free(struct tdat_file *f);

/* Convert a raw ring-buffer timestamp of @cpu into the reported one. */
/* A timestamp of a clock that counts ticks in ns: as --ts2secs, or TSC2NSEC (mult 0: as it is). */
uint64_t ts_convert(uint64_t ts, double ts2secs, uint32_t mult, uint32_t shift);
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
#define OPT_BTF		23	/* trace-cmd 3.4: the kernel's BTF, a section */
#define OPT_LAST_BOOT_INFO 24	/* "instance:last_boot_info" of a persistent buffer */
#define OPT_MODULES	25	/* /proc/modules of that boot, a section */
#define OPT_TDAT_PIECE	0x7464	/* ours: a tdat-split piece (piece.c); trace-cmd skips it */
#define OPT_TDAT_ORIGIN	0x7465	/* ours: an input of a merged file (origin.c): its section */
#define MAX_ORIGINS	65536	/* inputs of a merged file; more is damage */
#define MAX_OPTION_SECTIONS 256
#define MAX_CPUS	65536	/* more is damage, not a machine */
#define COMMIT_MASK	((1u << 27) - 1)	/* a page's commit word: its data bytes */
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
	uint64_t btf_off, modules_off;	/* v7: the BTF and MODULES_FILE sections, 0: none */
	bool has_clock_opt;
	char *clock_text;
};

/* ---- sections.c: the file's sections and options as read (tdat_file_sections()) ---- */

/* A v7 section's header was read (rd_section()); returns its entry, -1 without memory. */
int sections_note(struct tdat_file *f, unsigned id, unsigned flags, unsigned strid, uint64_t offset,
		  uint64_t size);
void sections_usize(struct tdat_file *f, int i, uint64_t usize);
/* An option: @offset its header's (v6) or its options section's (v7, @pos in its data). */
void sections_option(struct tdat_file *f, unsigned id, uint64_t offset, uint64_t pos, uint64_t size);
/* A v6 part between @start and @end, with the id of the v7 section that holds the same. */
void sections_v6(struct tdat_file *f, unsigned id, const char *what, uint64_t start, uint64_t end);
/* The section at @offset was skipped: @why. */
void sections_damage(struct tdat_file *f, uint64_t offset, const char *why);
/* The BTF and MODULES_FILE sections the options point to, into f->meta (damage: a warning). */
int sections_extra(struct tdat_file *f, struct rd *r, const struct opts_state *st);
/* Every section from @off (the end of the v7 header) on, one after the other; then their labels. */
void sections_tail(struct tdat_file *f, struct rd *r, uint64_t off);
/* ---- lastboot.c: addresses of a persistent buffer's earlier boot, as trace-cmd 3.4 names them ---- */

struct last_boot;
/* With the kallsyms parsed: LAST_BOOT_INFO and MODULES_FILE move function lookups (a resolver). */
void last_boot_setup(struct tdat_file *f);
/* @on false: lookups as libtraceevent 1.7 (trace-cmd 3.1.6) does them, ignoring the earlier boot. */
void file_last_boot(struct tdat_file *f, bool on);
void last_boot_free(struct tdat_file *f);

/* In file order (an options section's options after it); no entry is added after. */
void sections_sort(struct tdat_file *f);
void sections_free(struct tdat_file *f);

/* Read options until DONE; v7: @next is the offset of the next OPTIONS section. */
int opts_read(struct rd *r, struct opts_state *st, uint64_t *next);
/* Take the clock from trace_clock text ("... [local] ..."). */
void opts_set_clock(struct tdat_file *f, const char *text);
/* Whether trace-cmd takes trace clock @clock for one that counts ns (else ticks). */
bool clock_counts_ns(const char *clock);
int file_add_buffer(struct tdat_file *f, struct tdat_buffer **out);
/* dat-header.c: every section up to the data, and libtraceevent set up; 0 or an error. */
int dat_read_sections(struct tdat_file *f, struct rd *r);
/* One option of @size bytes (its id read): kept for writers and handled. */
int opts_one(struct rd *r, struct opts_state *st, unsigned id, uint64_t size);
/* dat-header.c: the body of metadata section @id (HEADER_INFO .. CMDLINES) at @r. */
int dat_section_body(struct rd *r, int id);
/* origin.c: the inputs a merged trace.dat holds */
struct origin {
	struct tdat_origin info;
	char *name;
	char **in_file, **own;	/* per buffer: its name in the file, and its own */
	unsigned *ids;		/* the ids of its event formats, sorted */
	int nids;
	bool has_ids;		/* the record lists them (else: every format of the file) */
	/* how its own options corrected the times the kernel's CPU figures
	 * (CPUSTAT) give in its clock; its events were written corrected */
	struct stat_time {
		double ts2secs;
		uint32_t mult, shift;
		int64_t offset;
	} stat_time;
	bool has_stat_time;
};
/* A time of the kernel's CPU figures of @f (CPUSTAT), in @f's timeline. */
uint64_t origin_stat_ts(const struct tdat_file *f, uint64_t raw, int cpu);
/* Whether a view of a merged file's input keeps event format @fmt (the input had it). */
bool origin_keeps_format(const struct tdat_file *f, const char *fmt);
/* Whether option @id describes one input (a view takes its input's), not the file. */
bool origin_option(unsigned id);
/* An OPT_TDAT_ORIGIN option: where an input's section is. */
int origin_note(struct tdat_file *f, const char *buf, uint64_t size);
/*
 * After the options: read every origin section; a view also takes its
 * input's options, and @own[i] says which metadata sections it took.
 */
int origins_read(struct tdat_file *f, struct rd *r, struct opts_state *st, bool *own);
/* After the buffers are read: a view keeps only its input's, named as there. */
int origin_restrict(struct tdat_file *f);
void origins_free(struct tdat_file *f);
/*
 * The origin section body of input @f in a merged file whose metadata is
 * @file; @names: the names its buffers get there (malloc'd into *@out).
 */
int origin_format(const struct tdat_file *f, const struct tdat_meta *file, const char *const *names,
		  bool big, char **out, size_t *len);
/* piece.c: the mark of a tdat-split piece */
int piece_read(struct tdat_file *f, const char *buf, uint64_t size);
/* The option's payload for @p (malloc'd, NUL included in *@len). */
int piece_format(const struct tdat_piece *p, char **out, size_t *len);
/* Whether two pieces can be read as one file: the same metadata and buffers. */
bool piece_alike(const struct tdat_file *a, const struct tdat_file *b);
/* The splits of the pieces added to a merge: each the input its pieces join. */
struct split_ent {
	struct tdat_file *first;	/* its first piece added */
	int input;
	struct tdat_file **seats;	/* by seq: the piece added as it (NULL: none yet) */
	unsigned nseats;
};
struct splits {
	struct split_ent *v;
	int n;
};
/*
 * The input piece @f joins (-1: none yet, it begins a split that is input
 * @new_input); TDAT_EINVAL with @err for a second copy of a piece, a piece
 * whose metadata differs from its split's, or pieces of two splits of one file.
 */
int splits_join(struct splits *s, struct tdat_file *f, int new_input, int *input, char *err);
void splits_free(struct splits *s);
/* Whether @f, its options read, may defer its metadata (a v7 piece, not of a merged file). */
bool piece_defers(const struct tdat_file *f);
/*
 * @f (metadata deferred) takes the metadata of @from, a piece of its split
 * that has its own, instead of reading its own sections; true if it did.
 */
bool piece_borrow(struct tdat_file *f, struct tdat_file *from);
/* The first piece of @f's split among those @s has, or NULL. */
struct tdat_file *splits_first(const struct splits *s, const struct tdat_file *f);
/*
 * dat-header.c: the metadata of a file that deferred it: @from's (a piece
 * of its split, tdat_merge_add()), or read now; 0 or an error (f->errmsg).
 */
int file_meta_load(struct tdat_file *f, struct tdat_file *from);
/* The file holding @f's metadata: its owner for a piece that borrows, else @f. */
static inline struct tdat_file *meta_of(struct tdat_file *f)
{
	return f->meta_owner ? f->meta_owner : f;
}
/* dat-salvage.c: a v7 file cut inside its data; see there. */
int v7_salvage(struct tdat_file *f, uint64_t from, const char *why);

/* ---- select.c, select-window.c: the selection ---- */

struct strlist {
	char **v;
	int n;
};

struct tdat_select {
	struct strlist events, filters, nfilters, comms, buffers;
	bool top;			/* --top: the top buffer */
	bool several;			/* bound to several inputs: -B INPUT[:INSTANCE] too */
	unsigned char *cpus;		/* bitmap, NULL: any */
	int64_t *pids;			/* sorted, NULL: any */
	int npids;
	bool has_start, has_end, start_rel, end_rel;
	int64_t start, end;		/* ns; relative ones add the first event's ts */
	bool based;

	int ninputs;
	struct tep_event_filter **pos, **neg;	/* per input */
	unsigned char *last_kept;	/* per (input, buffer, cpu) slot: SEL_* */
	int nslots;
	int *slot_base;			/* per input: first slot */
	unsigned char *names;		/* per input and type id: 0 unknown, 1 -e match, 2 not */
	/* until one event is kept: how many were looked at and passed each test alone */
	uint64_t seen, kept, passed[TDAT_SEL_NCRITERIA];
	bool undecided_neg;		/* select_match3()'s -1: a negative filter drops it */
	char errmsg[TDAT_MSG_LEN];
};

enum { SEL_DROPPED, SEL_KEPT, SEL_UNKNOWN };	/* the last event of a slot */

/* tdat_select_bind() without its checks of the names and its seek: the filters compiled. */
int select_bind_filters(struct tdat_select *s, struct tdat_merge *m);
bool select_is_stack(const struct ttype *t);
/* A copy of @s's criteria (its window resolved), to bind to a worker's merge; NULL: no memory. */
struct tdat_select *select_clone(const struct tdat_select *s);
/* Whether an event glob ("SYS:EVENT", or one glob for either) fits an event. */
bool select_glob_fits(const char *g, const char *system, const char *name);
/* Whether -B @sel names buffer @b of @f (by its name; with several inputs INPUT or INPUT:INSTANCE). */
bool select_buffer_named(const struct tdat_select *s, const struct tdat_file *f, int b, const char *sel);
/*
 * select-names.c: what @s names must be in the inputs of @m (events,
 * buffers, CPUs), and its window must not end before it starts; else
 * TDAT_EINVAL with the message in s->errmsg.
 */
int select_check_events(struct tdat_select *s, struct tdat_merge *m);
int select_check_buffers(struct tdat_select *s, struct tdat_merge *m);
int select_check_cpus(struct tdat_select *s, struct tdat_merge *m);
int select_check_window(struct tdat_select *s);
/* Whether --comm patterns select (the names they match may be learnt as the text prints). */
bool select_comms(const struct tdat_select *s);
/* Whether @s has filter expressions (-F, -v -F). */
bool select_filters(const struct tdat_select *s);
/* A window begins: nothing is known of the events before it. */
void select_window(struct tdat_select *s);
/*
 * tdat_select_match() that knows the unknown: -1 when @ev is a stack trace
 * whose fate is that of the event before it on its CPU, in an earlier time
 * window (select_window()); s->undecided_neg then says whether the
 * negative filter drops it anyway.  Its slot stays unknown.
 */
int select_match3(struct tdat_select *s, const struct tdat_event *ev);
/* The slot of @ev's CPU (last_kept), or -1. */
int select_slot(const struct tdat_select *s, const struct tdat_event *ev);
/*
 * An undecided stack trace (select_match3()'s -1) of slot @slot, in
 * timeline order: whether the caller's @s keeps it, which it then knows.
 */
bool select_decide(struct tdat_select *s, int slot, bool neg);
/* What a window's selection learnt since the last take, for select_absorb(). */
struct sel_state {
	uint64_t seen, passed[TDAT_SEL_NCRITERIA];
	bool kept;
	unsigned char *last;	/* nslots entries */
};
int select_state_init(const struct tdat_select *s, struct sel_state *st);
void select_state_release(struct sel_state *st);
void select_take(struct tdat_select *s, struct sel_state *st);
/* Add what a window learnt (in timeline order) to @s, as if @s had seen its events. */
void select_absorb(struct tdat_select *s, const struct sel_state *st);

/* ---- dat-cpu.c: a cursor over one CPU of one buffer ---- */

/* A chunk read ahead (prefetch.c); the state is the prefetch's lock's. */
enum { AHEAD_IDLE, AHEAD_QUEUED, AHEAD_RUNNING, AHEAD_READY };
struct ahead {
	struct prefetch *pf;	/* NULL: no reading ahead */
	int state;
	bool posted;		/* the cursor's own: a job is out */
	struct cursor *next;	/* in the prefetch's queue */
	uint64_t off, end_off;	/* the chunk's header, the CPU data's end */
	uint64_t zsize;
	size_t usize;
	unsigned char *buf, *zbuf;
	size_t cap, zcap;
};

struct cursor {
	struct tdat_file *f;
	const struct tdat_buffer *b;
	const struct tdat_cpu_info *ci;
	int input, buffer;
	int rank;		/* tie-break order in the merge */
	unsigned piece;		/* the file's place in its split (0: not a piece) */
	int member;		/* its file's index among every file the merge has */
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
	struct ahead ahead;
	uint64_t data_off;	/* where the data starts (after v7's chunk count) */
	uint32_t nchunks;	/* v7: chunks in all */
	unsigned char *pbuf, *pzbuf;	/* a chunk decompressed aside for its time (seeking) */
	size_t pbuf_cap, pzbuf_cap;
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
/* ---- window.c: a cursor's places, for time windows (-j) ---- */

/*
 * A place in one CPU's stream: the unit (page of plain data, chunk of
 * compressed data) an event is in, and its offset there.  The same event
 * has the same place however the cursor got there.
 */
#define CPOS_END UINT64_MAX
struct cpos {
	uint64_t unit;		/* stored offset of the unit; CPOS_END: past the last event */
	uint32_t left;		/* compressed data: chunks from this one to the end */
	uint32_t inner;		/* the event's offset in the decompressed unit */
};
static inline bool cpos_eq(const struct cpos *a, const struct cpos *b)
{
	return a->unit == b->unit && (a->unit == CPOS_END || a->inner == b->inner);
}
/* The place of @c's peeked event (or the end when it has none left). */
void cursor_pos(const struct cursor *c, struct cpos *p);
/* Back to the first event, keeping the buffers; damage already reported stays reported. */
void cursor_rewind(struct cursor *c);
/* The first (raw, then corrected) time of the unit at @off; false if it cannot be read. */
bool cursor_unit_ts(struct cursor *c, uint64_t off, uint64_t *ts);
/*
 * Rewind @c and peek its first event at or after @ts, searching for the unit
 * to start in between @lo and @hi (its units from @lo on: @lo's first event is
 * taken to be before @ts, @hi's not).  0, or a negative error.
 */
int cursor_seek_at(struct cursor *c, uint64_t ts, const struct cpos *lo, const struct cpos *hi);
/* Rewind @c and make the unit at @p the one it reads first, as cursor_seek() does. */
void cursor_place(struct cursor *c, const struct cpos *p);
/* Rewind @c and peek the event at @p.  0, TDAT_EFORMAT if @c has no event there. */
int cursor_goto(struct cursor *c, const struct cpos *p);
/* Bytes a whole pass over @c decompresses before the unit at @off (as c->ubytes counts). */
uint64_t cursor_ubytes_before(struct cursor *c, uint64_t off);

/*
 * A window of the timeline: the events at [lo, hi) (hi: none past the end
 * unless bounded), and where each CPU's first one lies: between the units
 * from[i] (its first event before lo) and to[i] (none before lo).  The
 * first window starts as one thread starts, at tdat_merge_seek(lo)'s page
 * (lo 0: the beginning).
 */
struct wcut {
	uint64_t lo, hi;
	bool bounded, first, last;
	/*
	 * first, when the caller's cursors had not read when planned: from[i]
	 * is where tdat_merge_seek(lo) put its cursor i (cursor_place())
	 */
	bool at_seek;
	struct cpos *from, *to;	/* per cursor of the merge; the caller's arrays */
};
struct plan;
/*
 * Plan the windows of @m's timeline from @from (up to and with *@last when
 * not NULL), each holding about @window decompressed bytes.  The plan reads
 * the files through @m's cursors without moving them; one thread at a time.
 */
int plan_new(struct tdat_merge *m, uint64_t from, const uint64_t *last, uint64_t window,
	     struct plan **out);
/* The next window into @cut (its arrays filled); false after the last. */
bool plan_next(struct plan *p, struct wcut *cut);
int plan_ncursors(const struct plan *p);
void plan_free(struct plan *p);

/* Whether a chunk header at @off claiming @zsize/@usize bytes can be read. */
bool chunk_fits(const struct cursor *c, uint64_t off, uint64_t end_off, uint64_t zsize,
		uint64_t usize);

/* ---- prefetch.c: v7 chunks decompressed ahead on a thread ---- */

struct prefetch *prefetch_new(void);
/* After @c took a chunk: read its next one ahead (if it has a prefetch). */
void prefetch_post(struct cursor *c);
/*
 * End @c's job: true if the chunk at @off is ready in c->ahead.buf (usize
 * bytes, zsize stored), false if @c must read it itself.
 */
bool prefetch_take(struct cursor *c, uint64_t off);
/* Stop the thread; the cursors' jobs must be taken first. */
void prefetch_free(struct prefetch *p);
/*
 * The next whole page, for copying: its header and the extent of each of
 * its events are checked (a damaged page is reported and skipped), events
 * are not decoded.  0 with *@page and *@len set, TDAT_END, or an error.
 * Not mixed with cursor_peek().
 */
int cursor_next_page(struct cursor *c, const unsigned char **page, size_t *len);

/* ---- merge.c: time windows ---- */

typedef void damage_fn(void *arg, int cursor, uint64_t off, uint64_t bytes, const char *reason);
int merge_ncursors(const struct tdat_merge *m);
struct cursor *merge_cursor(struct tdat_merge *m, int i);
/* Hand the damage @m finds to @fn (NULL: to its own list again). */
void merge_damage_hook(struct tdat_merge *m, damage_fn *fn, void *arg);
/*
 * Make @m hand out the events of window @w, then TDAT_END; each cursor's
 * first place into @start.  Damage met while seeking a cursor to its first
 * event is not reported (it is before the window: the windows before report
 * it).  Any number of times, one window after another.
 */
int merge_window(struct tdat_merge *m, const struct wcut *w, struct cpos *start);
/* The cursor whose event was handed out last (-1: none). */
/* Whether @m reads pieces of a split one after the other (chain.c): no time windows then. */
bool merge_chained(struct tdat_merge *m);
int merge_last(const struct tdat_merge *m);
/* Every cursor's place into @at; the cursor whose event was handed out last (-1: none). */
int merge_places(const struct tdat_merge *m, struct cpos *at);
/*
 * Before @m has started: go on from places @at (merge_places() of another
 * merge over the same files), cursor @last's event handed out already.
 */
int merge_resume(struct tdat_merge *m, const struct cpos *at, int last);
/* Damage another merge over the same files found, as @m's cursor @i would report it. */
void merge_damage_add(struct tdat_merge *m, int i, uint64_t off, uint64_t bytes,
		      const char *reason);
/* Count @ev, handed out elsewhere, as cursor @i's (tdat_merge_count()). */
int merge_tally(struct tdat_merge *m, int i, const struct tdat_event *ev);
bool merge_counting(const struct tdat_merge *m);
/* Progress: the events before places @at were read elsewhere. */
void merge_progress_at(struct tdat_merge *m, const struct cpos *at);
/* Every event was handed out elsewhere: @m ends as if it had read them. */
int merge_windows_done(struct tdat_merge *m);

/* File @i of every file added to @m, the pieces of a split too; NULL past the end. */
struct tdat_file *merge_member(const struct tdat_merge *m, int i);
/*
 * file.c: a second handle on the file @f reads (the same open file, so a
 * copy of standard input too), opened with @f's options, offset and name:
 * its events are the same, for another thread to decode and print;
 * without @symbols, its kallsyms are not kept (function names are not
 * printed on it).
 */
int file_clone(struct tdat_file *f, bool symbols, struct tdat_file **out);
/* The view of input @origin of merged file @f (tdat_file_norigins()); why not in @err. */
int file_view(struct tdat_file *f, int origin, struct tdat_file **out, char *err);

/*
 * Hand every undamaged page of every CPU of @m to @fn, one CPU after the
 * other (damage is recorded as usual); @fn's non-zero return stops it.
 * Only before the merge has started; the merge is used up.
 */
int merge_copy_pages(struct tdat_merge *m,
		     int (*fn)(void *arg, const struct cursor *c, const unsigned char *page, size_t len),
		     void *arg);


#endif /* TDAT_READ_H */
