/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * types.h - the reading layer's data: the input source, the codecs, the
 * parsed file (struct tdat_file) and its buffers and metadata, event types
 * and fields, the parsers' state, the selection, the per-CPU cursor and the
 * time windows' cuts.  The functions are in one header per module, which
 * read.h gathers.
 */
#ifndef TDAT_READ_TYPES_H
#define TDAT_READ_TYPES_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "tdat.h"
#include "guard/guard.h"
#include "read/rbpage.h"

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

#define IDTAB_LEAVES 256	/* 256 x 256 = every 16-bit common_type */
struct idtab {
	void **leaf[IDTAB_LEAVES];
};

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

/* An input read from its start to its end, with read() or pread() (a regular file). */
struct src_in {
	int fd;
	bool seekable;
	uint64_t off;
};

/* The temporary copy of an input being written. */
struct spool_out {
	int fd;
	uint64_t size;		/* bytes written */
	uint64_t limit;		/* at most this many (fuzzing builds), else UINT64_MAX */
	const char *dir;	/* its folder ($TMPDIR), for messages */
};

struct prefetch;

struct tdat_codec {
	const char *name;
	/* 0 when exactly @dlen bytes came out, else a negative enum tdat_err. */
	int (*decompress)(void *ctx, const void *src, size_t slen, void *dst, size_t dlen);
	void *(*ctx_new)(void);
	void (*ctx_free)(void *ctx);
};

struct tdat_file;
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
	/*
	 * common_pid where libtraceevent's tep_data_pid() reads it (its first
	 * event's format), found on the first tdat_event_pid() for @pid_tep
	 * (event.c); pid_size 0: not there.
	 */
	const struct tep_handle *pid_tep;
	int pid_off, pid_size;

	/* cpustat.c: the CPUSTAT text parsed on first use */
	struct tdat_kernel_cpu_stats *kstats;
	uint64_t (*kraw)[2];	/* per entry: its oldest and now ts as printed (ns or clock) */
	char **knames;		/* buffer names the text gives */
	int nkstats, nknames;
	bool kparsed;

	bool syms_pending;	/* kallsyms kept, not given to libtraceevent yet */
	bool no_syms;		/* a clone that names no function: kallsyms not kept */
	bool clone;		/* file_clone()'s: nothing copies its kallsyms text once parsed */
	const char *syms_text;	/* a clone's: the kallsyms text of the file it clones, read there */
	bool syms_loaded;	/* its kallsyms in its handle's map, none lost */
	bool syms_shared;	/* that map made before any worker and kept: clones look up there */
	struct tep_handle *syms_tep;	/* a clone's: that handle (kallsyms_share()), or NULL */
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
	int dyn_lo, dyn_hi;	/* fields[dyn_lo..dyn_hi) holds every __data_loc or
				 * __rel_loc one (none: empty) */
	bool bounded;		/* the kernel sizes its records by the fields (not ftrace's
				 * own events, flexible arrays or stacks) */
	int nsyms;		/* fields with a sym */
	struct tsymtext *symtext;	/* their text (tfield_sym) */
	int nfields;
	struct tfield fields[];
};

/* Each figure, with the name trace processor gives it for a .pftrace (at the end). */
struct kstat_field {
	unsigned bit;		/* enum tdat_kstat_have */
	const char *tp_name;	/* "ftrace_cpu_overrun_end", ... */
	const char *desc;
};

#define KSTAT_NFIELDS 8
/* What a writer wrote of one input's buffers, for the kernel's figures per CPU. */
struct kseen {
	const struct tdat_file *f;
	bool *used;		/* per buffer: an event of it was written */
	int *base;		/* per buffer: where its CPUs start in lost[] */
	uint64_t *lost;		/* per CPU of each buffer: lost events counted in the pages */
};

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

struct opts_state {
	uint64_t sections[NSECTIONS];	/* v7: offsets of HEADER_INFO.. */
	uint64_t btf_off, modules_off;	/* v7: the BTF and MODULES_FILE sections, 0: none */
	bool has_clock_opt;
	char *clock_text;
};

struct last_boot;
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
/* What a window's selection learnt since the last take, for select_absorb(). */
struct sel_state {
	uint64_t seen, passed[TDAT_SEL_NCRITERIA];
	bool kept;
	unsigned char *last;	/* nslots entries */
};
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
	struct rbpage pg;	/* the loaded page (rbpage.h) */
	struct kbuffer *old;	/* it instead, for a format before Linux 2.6.31 */

	unsigned char *buf;	/* window of pages, or one decompressed chunk */
	size_t buf_cap, buf_len;
	size_t page_pos;	/* offset of the current page inside buf */
	uint64_t buf_off;	/* file offset the window was read from */

	uint64_t next_off;	/* next stored byte to read */
	uint64_t end_off;
	uint32_t chunks_left;	/* compressed data only */
	unsigned char *zbuf;	/* one compressed chunk */
	size_t zbuf_cap;

	bool loaded;		/* a page is loaded (pg, or old) */
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
		const struct ttype *t;	/* its type, for records that pass it */
	} lens[16];
	uint64_t nofmt;		/* bytes of records with no format on the page walked */
	struct ahead ahead;
	uint64_t data_off;	/* where the data starts (after v7's chunk count) */
	uint32_t nchunks;	/* v7: chunks in all */
	unsigned char *pbuf, *pzbuf;	/* a chunk decompressed aside for its time (seeking) */
	size_t pbuf_cap, pzbuf_cap;
};

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
typedef void damage_fn(void *arg, int cursor, uint64_t off, uint64_t bytes, const char *reason);

#endif /* TDAT_READ_TYPES_H */
