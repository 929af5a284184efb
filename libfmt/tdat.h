/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tdat.h - the whole public contract of libfmt, the trace.dat library that
 * every tdat tool is built on.
 *
 * Pipeline: a struct tdat_file opens one trace.dat (v6 or v7; none, zstd or
 * zlib; any endianness), a struct tdat_merge streams the events of every CPU
 * of every buffer of every added file in timestamp order through a binary
 * heap, and a struct tdat_writer turns that stream into text, CSV, ...
 *
 * Conventions: functions return 0 (TDAT_OK) or a negative enum tdat_err;
 * iterators return TDAT_END (1) when done.  Detail on a failure is kept on
 * the handle and read with the handle's errmsg function.  The library never
 * prints and never exits.  A const pointer returned by a function belongs to
 * the handle; free functions accept NULL.
 */
#ifndef TDAT_H
#define TDAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X-macro list of error codes: name, value, generic text. */
#define TDAT_ERRORS							\
	_TE(TDAT_ENOMEM,   -1, "out of memory")				\
	_TE(TDAT_EIO,      -2, "input/output error")			\
	_TE(TDAT_EFORMAT,  -3, "damaged or not a trace.dat file")	\
	_TE(TDAT_EVERSION, -4, "unsupported trace.dat version")		\
	_TE(TDAT_EINVAL,   -5, "invalid argument")			\
	_TE(TDAT_EUNSUPP,  -6, "unsupported feature")			\
	_TE(TDAT_ELIMIT,   -7, "size beyond what the file can hold")

#define _TE(name, value, text) name = value,
enum tdat_err {
	TDAT_OK = 0,
	TDAT_END = 1,
	TDAT_ERRORS
};
#undef _TE

/**
 * tdat_strerror - generic text of an error code
 * @code: TDAT_OK, TDAT_END or a negative enum tdat_err
 *
 * Return: a static string; never NULL.
 */
const char *tdat_strerror(int code);

/**
 * tdat_version - the version of the library in use
 *
 * Return: a static string, "MAJOR.MINOR.PATCH" as the package's (the tools'
 * --version prints the same).
 */
const char *tdat_version(void);

/* ------------------------------------------------------------------ */
/* Opening a trace.dat                                                 */

/* Flags of struct tdat_open_opts. */
enum tdat_open_flags {
	TDAT_OPEN_RAW_TS     = 1 << 0, /* no time corrections at all (--raw-ts) */
	TDAT_OPEN_NO_PLUGINS = 1 << 1, /* do not load libtraceevent plugins */
	TDAT_OPEN_NO_DATE    = 1 << 2, /* ignore the DATE option */
};

/**
 * struct tdat_open_opts - how tdat_file_open() reads a file
 * @flags: enum tdat_open_flags
 * @ts_offset: ns added to every timestamp (--ts-offset)
 * @ts2secs_hz: if not 0, the trace clock counts this many ticks a second
 *	(trace-cmd report --ts2secs): every timestamp is multiplied by
 *	1e9 / @ts2secs_hz, in double precision and rounded down as trace-cmd
 *	does (a product past 2^64 ns stays at UINT64_MAX), before the offsets;
 *	in place of a TSC2NSEC option's factor.  The file then counts ns
 *	(tdat_file_info.in_usecs), whatever its clock.  Ignored with
 *	TDAT_OPEN_RAW_TS.
 */
struct tdat_open_opts {
	unsigned flags;
	int64_t ts_offset;
	uint64_t ts2secs_hz;
};

/* One CPU's stored data in a buffer. */
struct tdat_cpu_info {
	int cpu;		/* CPU id as the kernel numbered it */
	uint64_t offset;	/* file offset of the data */
	uint64_t size;		/* bytes stored in the file */
	uint64_t usize;		/* decompressed bytes; 0 = not known until read */
	unsigned nchunks;	/* compressed chunks (0 if not compressed) */
};

/* One ring buffer (tracefs instance) stored in the file. */
struct tdat_buffer_info {
	const char *name;	/* "" for the top buffer */
	const char *clock;	/* trace clock, "" if unknown */
	unsigned page_size;	/* sub-buffer size */
	int latency;		/* 1: a latency (text) buffer, no events */
	int ncpus;
	const struct tdat_cpu_info *cpus;
};

/* What the file header and options say. */
struct tdat_file_info {
	const char *path;	/* as given to tdat_file_open() ("-" = stdin) */
	const char *name;	/* the input's name in a merged trace.dat: the base
				 * name without ".dat" unless tdat_file_set_name() */
	uint64_t file_size;
	int version;		/* 6 or 7 */
	int big_endian;
	int long_size;		/* 4 or 8 */
	unsigned page_size;
	const char *compression;	/* "none", "zstd", "zlib" */
	const char *compression_version;
	const char *uname;		/* "" if absent */
	const char *tracecmd_version;	/* "" if absent */
	const char *clock;		/* trace clock of the top buffer */
	int cpus;			/* CPU count of the traced machine */
	int nbuffers;			/* flyrecord and latency buffers */
	int in_usecs;		/* timestamps are ns (printed as sec.usec) */
	int has_tsc2nsec, has_time_shift, has_date, has_offset;
	int64_t ts_offset;	/* DATE + OFFSET + user offset, ns */
	const char *cpustat;	/* CPUSTAT text of all CPUs, "" if absent */
	const char *packing;	/* the file compressed as a whole (a .dat.gz, .dat.zst,
				 * .dat.xz): "gzip", "zstd" or "xz", and file_size
				 * is what it decompresses to; else "none" */
	uint64_t packed_size;	/* its compressed size, 0 for "none" */
};

struct tdat_file;

/**
 * tdat_file_new - allocate a closed file handle
 *
 * Return: the handle (free with tdat_file_free()), or NULL without memory.
 */
struct tdat_file *tdat_file_new(void);

/**
 * tdat_file_open - open and parse a trace.dat
 * @f: handle from tdat_file_new()
 * @path: file name, or "-" for standard input (copied once, as it is, into
 *        an unlinked temporary file under $TMPDIR when not seekable; a
 *        trace.dat compressed as a whole with gzip, zstd or xz, known by its
 *        magic, is decompressed into one, from a file or a pipe)
 * @opts: options, or NULL for defaults
 *
 * Reads every header section and option; event data is only located, not
 * read.  On failure tdat_file_errmsg() names the reason and the offset.
 *
 * Return: 0 or a negative enum tdat_err.
 */
int tdat_file_open(struct tdat_file *f, const char *path,
		   const struct tdat_open_opts *opts);

/** tdat_file_info - header facts of an open file (owned by @f). */
const struct tdat_file_info *tdat_file_info(const struct tdat_file *f);

/** tdat_file_buffer - buffer @i (0 <= i < nbuffers) of @f, or NULL. */
const struct tdat_buffer_info *tdat_file_buffer(const struct tdat_file *f, int i);

/* What a part of a trace.dat is (struct tdat_section_info.kind). */
enum tdat_section_kind {
	TDAT_SECTION,		/* a v7 section: id, flags, description, size, then its data */
	TDAT_OPTION,		/* an option: in the v6 options block or a v7 options section */
	TDAT_V6_PART,		/* a v6 part at its fixed place (id: the v7 section of the same) */
};

/*
 * One section or option of a trace.dat as tdat_file_open() read it, known
 * or not (trace-cmd's ids, as "trace-cmd dump --options" lists them).
 */
struct tdat_section_info {
	int kind;		/* enum tdat_section_kind */
	unsigned id;
	const char *name;	/* trace-cmd's name of @id ("BTF_FILE", "LAST_BOOT_INFO"), "" unknown */
	const char *what;	/* what it holds, in a few words ("unknown" for an unknown id) */
	const char *label;	/* a v7 section's own description in the file's strings, else "" */
	uint64_t offset;	/* a section or v6 part: where it begins; an option: its header
				 * (v6), or the options section holding it (v7) */
	uint64_t pos;		/* a v7 option: its header's place in that section's data, else 0 */
	uint64_t size;		/* bytes after its header as stored (an option: its data) */
	uint64_t usize;		/* a compressed section's data decompressed, else @size */
	bool compressed;
	const char *damage;	/* NULL, or why it was skipped */
};

/**
 * tdat_file_sections - every section and option of @f, in the order read
 * @f: an open file
 * @n: set to the number of entries
 *
 * v7: the sections the header and the options point to, the options
 * sections and each option in them, and the sections after the last
 * options section (the strings that name them); v6: the parts at their
 * fixed places and each option of the options block.  A section that was
 * damaged and skipped (an optional one: the file opened with a warning)
 * says why.
 *
 * Return: the entries (owned by @f, valid until it is freed); NULL when @n is 0.
 */
const struct tdat_section_info *tdat_file_sections(const struct tdat_file *f, int *n);

/**
 * tdat_file_latency_text - the text of a latency buffer
 * @f: open file
 * @i: buffer index
 * @len: set to the text length
 *
 * Return: the text (owned by @f) or NULL if @i is not a latency buffer or
 * the text could not be read (see tdat_file_errmsg()).
 */
const char *tdat_file_latency_text(struct tdat_file *f, int i, size_t *len);

/**
 * tdat_file_set_name - name the buffers of @f get in a merged trace.dat
 * @f: an open file
 * @name: the name (copied); its top buffer becomes "NAME", its instance
 *        INST "NAME:INST"
 *
 * Return: 0 or TDAT_ENOMEM.
 */
int tdat_file_set_name(struct tdat_file *f, const char *name);

/**
 * tdat_file_set_ts_offset - change the user offset added to every timestamp
 * @f: an open file, not yet added to a merge
 * @ns: the new offset, in place of tdat_open_opts.ts_offset
 */
void tdat_file_set_ts_offset(struct tdat_file *f, int64_t ns);

/* The mark tdat-split leaves in each piece it writes (an option trace-cmd skips). */
struct tdat_piece {
	uint64_t split;		/* the same in every piece of one split, another in another */
	unsigned seq;		/* the piece's place in the split, from 1 */
	unsigned count;		/* pieces in the split; 0 where it was not known yet */
	const char *name;	/* the name of the file cut (as tdat_file_info.name) */
	uint64_t source;	/* the same for every split of one file's contents
				 * (0: not known, a mark of an older tdat-split) */
	const char *how;	/* how it was cut, as the options said ("--every 20ms
				 * -e sched"); "" if not known */
};

/**
 * tdat_file_piece - the piece mark of @f
 *
 * A piece opens with its name (tdat_file_info.name) set to the name of
 * the file it was cut from.
 *
 * Return: the mark (owned by @f), or NULL if @f is not a piece of a split.
 */
const struct tdat_piece *tdat_file_piece(const struct tdat_file *f);

/* An input of a merged trace.dat (the record tdat-merge leaves for each). */
struct tdat_origin {
	const char *name;		/* the input's name (its buffers' prefix) */
	int nbuffers;
	const char *const *buffers;	/* its buffers' names in the merged file */
};

/**
 * tdat_file_norigins - how many inputs a merged trace.dat holds
 *
 * A trace.dat that tdat-merge wrote from several inputs records, for each,
 * its name, its buffers and its own metadata (uname, command lines, CPU
 * count, kernel symbols ...).  tdat_merge_add() of such a file adds each of
 * those inputs as an input of its own (a view of the file, owned by the
 * merge: tdat_merge_file() returns it), so that the timeline, the threads
 * and the scheduling of each machine stay apart, exactly as when the
 * inputs are given themselves.
 *
 * Return: the number of inputs, 0 if @f is not such a file.
 */
int tdat_file_norigins(const struct tdat_file *f);

/** tdat_file_origin - input @i of merged file @f (owned by @f), NULL past the end. */
const struct tdat_origin *tdat_file_origin(const struct tdat_file *f, int i);

/**
 * tdat_file_nwarnings - damage found while opening that did not stop it
 *
 * For example an event format that is damaged: the file opens, but the
 * events of that type cannot be decoded; or a damaged v7 kallsyms, printk,
 * cmdlines or ftrace formats section, read as if absent.  Tools report these
 * and fail.
 */
int tdat_file_nwarnings(const struct tdat_file *f);

/** tdat_file_warning - warning @i of @f (owned by @f), NULL past the end. */
const char *tdat_file_warning(const struct tdat_file *f, int i);

/**
 * tdat_file_nnotes - what opening found that is not damage
 *
 * An event format of the kernel whose print format libtraceevent cannot
 * print (a GNU statement expression, as 4.x kernels' xhci and dwc3 formats
 * have): its events keep their fields in every export, and the text format
 * prints them with their fields only, as trace-cmd does.  Tools show these
 * with --verbose; they are no reason to fail.
 */
int tdat_file_nnotes(const struct tdat_file *f);

/** tdat_file_note - note @i of @f (owned by @f), NULL past the end. */
const char *tdat_file_note(const struct tdat_file *f, int i);

/** tdat_file_errmsg - detail of the last failure on @f ("" if none). */
const char *tdat_file_errmsg(const struct tdat_file *f);

/** tdat_file_free - close @f and free everything it owns; NULL is fine. */
void tdat_file_free(struct tdat_file *f);

/* ------------------------------------------------------------------ */
/* Events                                                              */

/*
 * One event.  Borrowed: valid until the next call on the handle that
 * returned it.  @data is the payload in the file's byte order, starting
 * with the common fields (common_type, common_flags, ...).
 */
struct tdat_event {
	uint64_t ts;		/* corrected timestamp (ns unless raw clock) */
	uint64_t raw_ts;	/* the ring buffer's own timestamp, before any
				 * correction (TSC2NSEC, TIME_SHIFT, offsets) */
	const void *data;
	unsigned size;
	int cpu;
	int input;		/* index of the file in the merge, from 0 */
	int buffer;		/* index of the buffer in its file */
	long long missed;	/* lost before this one: N, -1 unknown count, 0 */
	long long shown_missed;	/* the same as trace-cmd report shows it: only
				 * when no time extend precedes the page's first
				 * event */
	struct tdat_file *file;
};

/**
 * tdat_event_name - system and name of an event's type
 * @ev: the event
 * @system: if not NULL, set to the system name ("" if unknown)
 *
 * Return: the event name, or NULL if its format is not in the file.
 */
const char *tdat_event_name(const struct tdat_event *ev, const char **system);

/** tdat_event_pid - common_pid of @ev (-1 if unreadable). */
int tdat_event_pid(const struct tdat_event *ev);

/** tdat_event_comm - command name of @pid as known to @ev's file. */
const char *tdat_event_comm(const struct tdat_event *ev, int pid);

/* ------------------------------------------------------------------ */
/* The merge: all CPUs of all buffers of all files on one timeline      */

struct tdat_merge;

/** tdat_merge_new - an empty merge; NULL without memory. */
struct tdat_merge *tdat_merge_new(void);

/**
 * tdat_merge_add - add every flyrecord buffer of @f
 * @m: merge that has not started yet
 * @f: an open file; it must outlive @m
 *
 * Inputs are numbered in the order they are added; on equal timestamps the
 * lower input comes first, then the lower buffer, then the lower CPU.
 *
 * The pieces of one split (tdat_file_piece(): the same split and name) are
 * one input, whatever their order: the first added stands for them all in
 * tdat_merge_file() (events keep their own file in tdat_event.file), and
 * equal timestamps of one buffer and CPU come in the pieces' order, so the
 * timeline is the one of the file they were cut from.
 *
 * A merged trace.dat (tdat_file_norigins() > 0) adds each input it holds as
 * an input of its own, named as that input was; events of those inputs
 * have tdat_event.file set to the merge's view of @f, not to @f.
 *
 * Return: 0 or a negative enum tdat_err; TDAT_EINVAL (tdat_merge_errmsg())
 * for a second copy of a piece already added, or a piece whose metadata
 * differs from the other pieces of its split.
 */
int tdat_merge_add(struct tdat_merge *m, struct tdat_file *f);

/**
 * tdat_merge_next - the next event in timestamp order
 * @m: the merge
 * @ev: set to a borrowed event when 0 is returned
 *
 * Damage in one CPU's data does not stop the merge: the damaged page or
 * chunk is skipped and counted (see tdat_merge_damage()).
 *
 * Return: 0 with @ev set, TDAT_END, or a negative enum tdat_err.
 */
int tdat_merge_next(struct tdat_merge *m, const struct tdat_event **ev);

/**
 * tdat_merge_set_jobs - let @m read ahead on a thread of its own
 * @m: a merge that has not started
 * @jobs: the threads the caller gives the work (-j); 1 or less: none
 *
 * With @jobs > 1, the compressed (v7) chunks of every CPU are read and
 * decompressed ahead on one thread while the caller decodes the events.
 * The events, their order and the damage reported are the same.
 *
 * Return: 0, TDAT_EINVAL once started, or TDAT_ENOMEM.
 */
int tdat_merge_set_jobs(struct tdat_merge *m, int jobs);

/**
 * tdat_merge_seek - skip what comes before a time, without decoding it
 * @m: a merge that has not started
 * @ts: the time (as events report it)
 *
 * Each CPU starts at its last page (or chunk) that begins at or before @ts,
 * found by binary search on page timestamps, so a window late in a big file
 * costs a few page reads per CPU.  Events before @ts may still come out.
 *
 * Return: 0 or a negative enum tdat_err.
 */
int tdat_merge_seek(struct tdat_merge *m, uint64_t ts);

/**
 * tdat_merge_first_ts - the time of the first event of the timeline
 * @m: a merge that has not started
 * @ts: set to the time
 *
 * Return: 0, TDAT_END if there is no event, or a negative enum tdat_err.
 */
int tdat_merge_first_ts(struct tdat_merge *m, uint64_t *ts);

/**
 * tdat_merge_span - the times of the first and the last event of the timeline
 * @m: a merge (started or not: it is not moved)
 * @first: set to the earliest event time
 * @last: set to the latest
 *
 * Reads the first page and the last page (or chunk) of every CPU.
 *
 * Return: 0, TDAT_END if there is no event, or a negative enum tdat_err.
 */
int tdat_merge_span(struct tdat_merge *m, uint64_t *first, uint64_t *last);

/** tdat_merge_nfiles - number of inputs added to @m. */
int tdat_merge_nfiles(const struct tdat_merge *m);

/** tdat_merge_file - input @i of @m. */
struct tdat_file *tdat_merge_file(const struct tdat_merge *m, int i);

/**
 * tdat_merge_progress - stored bytes consumed so far and in total
 * @m: the merge
 * @done: set to the bytes of event data read so far
 * @total: set to the bytes of event data of all inputs
 */
void tdat_merge_progress(const struct tdat_merge *m, uint64_t *done, uint64_t *total);

/* One damaged region met while reading. */
struct tdat_damage {
	int input, buffer, cpu;
	const char *path;	/* the file the offset is in (a split's piece, say) */
	uint64_t offset;	/* file offset of the damaged page or chunk */
	uint64_t bytes;		/* stored bytes skipped */
	const char *reason;
};

/**
 * tdat_merge_damage - damaged regions met so far
 * @m: the merge
 * @n: set to the number of entries
 *
 * Return: an array owned by @m (valid until the next call on @m).
 */
const struct tdat_damage *tdat_merge_damage(const struct tdat_merge *m, int *n);

/** tdat_merge_errmsg - detail of the last failure on @m ("" if none). */
const char *tdat_merge_errmsg(const struct tdat_merge *m);

/** tdat_merge_free - free @m (not the files); NULL is fine. */
void tdat_merge_free(struct tdat_merge *m);

/* ------------------------------------------------------------------ */
/* Selection: which events a tool keeps                                */

struct tdat_select;

/** tdat_select_new - a selection that keeps everything; NULL without memory. */
struct tdat_select *tdat_select_new(void);

/**
 * tdat_select_event - keep only events whose type matches a glob
 * @s: selection
 * @glob: "SYSTEM:EVENT" (fnmatch globs on both), or a glob matched against
 *        the event name or the system name; repeatable (any may match)
 *
 * Return: 0 or TDAT_ENOMEM.
 */
int tdat_select_event(struct tdat_select *s, const char *glob);

/**
 * tdat_select_filter - a filter in the grammar of `trace-cmd report -F`
 * @s: selection
 * @expr: "EVENTS:EXPR" or "EVENTS" (libtraceevent filter syntax, with COMM)
 * @negative: drop the events that match instead (trace-cmd's -v)
 *
 * With positive filters, an event is kept only if a filter for its type
 * matches.  Filters are compiled by tdat_select_bind().
 *
 * Return: 0 or TDAT_ENOMEM.
 */
int tdat_select_filter(struct tdat_select *s, const char *expr, bool negative);

/** tdat_select_cpus - keep only CPUs of a list like "0,3-5"; TDAT_EINVAL if malformed. */
int tdat_select_cpus(struct tdat_select *s, const char *list);

/** tdat_select_pids - keep only pids (common_pid) of a list like "1,20-30". */
int tdat_select_pids(struct tdat_select *s, const char *list);

/** tdat_select_comm - keep only tasks whose command name matches a glob (repeatable). */
int tdat_select_comm(struct tdat_select *s, const char *glob);

/** tdat_select_buffer - keep only a buffer by name ("" or NULL: the top buffer); repeatable. */
int tdat_select_buffer(struct tdat_select *s, const char *name);

/**
 * tdat_select_window - keep only events in a time window (inclusive)
 * @s: selection
 * @which: 0 for the start, 1 for the end
 * @ns: the time in ns (of the timeline, after corrections)
 * @relative: @ns counts from the first event of the timeline
 *
 * Return: 0.
 */
int tdat_select_window(struct tdat_select *s, int which, int64_t ns, bool relative);

/**
 * tdat_select_bind - compile the filters against the inputs of @m
 *
 * Call before the first tdat_merge_next(): with a start time, the merge
 * seeks to it (tdat_merge_seek()).  A selection that names what no input
 * has is refused: an event glob that matches no event format, a buffer or
 * a CPU that no input has, a window that ends before it starts.
 *
 * Return: 0, or TDAT_EINVAL with tdat_select_errmsg() naming the bad
 * filter or name (and the closest one the inputs have, or what they have);
 * another negative enum tdat_err when finding the start failed (reading
 * the input, memory), tdat_select_errmsg() saying why.
 */
int tdat_select_bind(struct tdat_select *s, struct tdat_merge *m);

/**
 * tdat_select_match - whether @ev is kept (call for every event, in order)
 *
 * A kernel_stack or user_stack event is kept when the event before it on
 * its CPU was kept, as trace-cmd does.
 */
bool tdat_select_match(struct tdat_select *s, const struct tdat_event *ev);

/**
 * tdat_select_done - whether no later event can match (past --end)
 *
 * The merge is in time order, so a tool may stop at the first event for
 * which this is true.
 */
bool tdat_select_done(const struct tdat_select *s, const struct tdat_event *ev);

/* The tests of a selection (struct tdat_select_empty). */
enum tdat_select_criterion {
	TDAT_SEL_WINDOW,	/* the time window */
	TDAT_SEL_BUFFER,	/* buffers */
	TDAT_SEL_CPU,		/* CPUs */
	TDAT_SEL_EVENT,		/* event type globs */
	TDAT_SEL_TASK,		/* pids and comm globs */
	TDAT_SEL_FILTER,	/* filter expressions */
	TDAT_SEL_NCRITERIA
};

/* Why a selection kept no event. */
struct tdat_select_empty {
	bool no_events;		/* the inputs hold no event at all */
	int criterion;		/* a test no event passed (enum tdat_select_criterion),
				 * or -1: each test alone kept some event, not all together */
	uint64_t seen;		/* events looked at (a window skips the others) */
	uint64_t first, last;	/* the timeline's span, unless no_events */
	bool has_start, has_end;
	int64_t start, end;	/* the window, relative times resolved */
};

/**
 * tdat_select_why_empty - explain a run in which nothing was kept
 * @s: a selection bound to @m, after tdat_select_match() kept no event
 * @m: its merge (its span is read again; it need not be at its end)
 * @out: the explanation
 *
 * Until one event is kept, tdat_select_match() counts for every test how
 * many events passed it alone; the first test in enum order that none
 * passed is the reason.
 *
 * Return: 0 or a negative enum tdat_err.
 */
int tdat_select_why_empty(struct tdat_select *s, struct tdat_merge *m,
			  struct tdat_select_empty *out);

/** tdat_select_errmsg - detail of the last failure ("" if none). */
const char *tdat_select_errmsg(const struct tdat_select *s);

/** tdat_select_free - free @s; NULL is fine. */
void tdat_select_free(struct tdat_select *s);

/* ------------------------------------------------------------------ */
/* Per-file statistics (tdat-info)                                     */

struct tdat_cpu_stats {
	int buffer, cpu;
	uint64_t events;
	uint64_t lost;		/* counted lost events */
	uint64_t lost_pages;	/* pages that lost an unknown number */
	uint64_t first_ts, last_ts;	/* valid when events > 0 */
	uint64_t stored, usize;	/* bytes in the file / decompressed (a chunk that does not
				 * decompress: the size its header gives) */
	uint64_t damaged;	/* bytes skipped as damaged */
};

struct tdat_event_count {
	const char *system, *name;
	uint64_t count;
};

struct tdat_stats {
	int ncpus;			/* over all buffers */
	struct tdat_cpu_stats *cpus;
	int nevents;			/* distinct event types seen */
	struct tdat_event_count *events;	/* sorted by count, then name */
	uint64_t total, lost;
	uint64_t first_ts, last_ts;	/* overall span */
	uint64_t common_start, common_end; /* window where every CPU has data */
	int ndamage;			/* damaged regions, as tdat_merge_damage() */
	struct tdat_damage *damage;
};

/**
 * tdat_stats_collect - read every event of @f and count them
 * @f: an open file
 * @out: set to the result, freed with tdat_stats_free()
 *
 * Return: 0, or a negative enum tdat_err; damage is counted, not fatal.
 */
int tdat_stats_collect(struct tdat_file *f, struct tdat_stats **out);

/**
 * tdat_merge_count - have @m count the events it hands out, per file
 * @m: a merge that has not started
 *
 * Then, once tdat_merge_next() has returned TDAT_END, tdat_merge_stats()
 * gives each file's statistics without reading the file again.
 *
 * Return: 0, or TDAT_EINVAL if @m has started.
 */
int tdat_merge_count(struct tdat_merge *m);

/**
 * tdat_merge_stats - the statistics of input @f, from what @m counted
 * @m: a merge set with tdat_merge_count(), run to its end, never sought
 * @f: a file added to @m
 * @out: set to the result (tdat_stats_free()): what tdat_stats_collect()
 *	gives, but for the damaged regions (tdat_merge_damage() has them)
 *
 * Return: 0, TDAT_EINVAL if @m did not count all of @f's events, or
 * TDAT_ENOMEM.
 */
int tdat_merge_stats(struct tdat_merge *m, struct tdat_file *f, struct tdat_stats **out);

/**
 * tdat_file_info_json - the facts of a file as one JSON object
 * @f: an open file
 * @s: its statistics (tdat_stats_collect() or tdat_merge_stats())
 *
 * What tdat-info --json prints, and the parquet format writes into a
 * dataset's _tdat/trace.json for each input: the header, the buffers and
 * their per-CPU counts, lost events, the kernel's figures, the time span,
 * the counts per event type, the piece mark, a merged file's inputs and
 * every section and option.  Integers above 2^53, which a double does not
 * hold, are strings of their decimal digits.
 *
 * Return: the object on one line ending in a newline (free() it), or NULL
 * when memory ran out.
 */
char *tdat_file_info_json(struct tdat_file *f, const struct tdat_stats *s);

/** tdat_stats_free - free @s; NULL is fine. */
void tdat_stats_free(struct tdat_stats *s);

/* Bits of tdat_kernel_cpu_stats.have: the figures the kernel's text gave. */
enum tdat_kstat_have {
	TDAT_KS_ENTRIES        = 1 << 0,
	TDAT_KS_OVERRUN        = 1 << 1,
	TDAT_KS_COMMIT_OVERRUN = 1 << 2,
	TDAT_KS_BYTES          = 1 << 3,
	TDAT_KS_OLDEST_TS      = 1 << 4,
	TDAT_KS_NOW_TS         = 1 << 5,
	TDAT_KS_DROPPED        = 1 << 6,
	TDAT_KS_READ           = 1 << 7,
};

/*
 * One CPU of one buffer as the kernel counted it at the end of recording
 * (its per_cpu/cpuN/stats, which trace-cmd keeps in the CPUSTAT options).
 * A figure is valid only when its bit is set in @have.
 */
struct tdat_kernel_cpu_stats {
	const char *buffer_name;	/* as the text names it: "" for the top buffer */
	int buffer;		/* its index (tdat_file_buffer()), -1 if the file has none of that name */
	int cpu;
	unsigned have;		/* enum tdat_kstat_have */
	uint64_t entries;	/* events still in the ring buffer (not in the file) */
	uint64_t overrun;	/* events overwritten before they were read: lost */
	uint64_t commit_overrun;	/* events lost to a buffer wrapping mid-commit */
	uint64_t bytes;		/* bytes of the entries still in the ring buffer */
	uint64_t oldest_event_ts;	/* the oldest event in the ring buffer and the */
	uint64_t now_ts;		/* clock then, as tdat_event.ts (corrected) */
	uint64_t dropped_events;	/* events refused because the buffer was full */
	uint64_t read_events;	/* events read (consumed) from the ring buffer */
};

/**
 * tdat_file_cpustat - the kernel's ring-buffer statistics kept in the file
 * @f: an open file
 * @n: set to the number of entries (0 when the file has no CPUSTAT text)
 *
 * Parses tdat_file_info()->cpustat once: each "CPU: N" section of the top
 * buffer and of each "Buffer: NAME" that follows, in the order of the text.
 * Figures that are missing or not numbers are left out (see @have).  The
 * kernel prints the timestamps as seconds with microseconds (or in clock
 * units for clocks that do not count ns); they are given on the timeline
 * of the events, with the corrections tdat_event.ts has.
 *
 * Return: an array owned by @f, valid until the next call on @f; NULL
 * when @n is 0 (or memory ran out: then @n is 0 too).
 */
const struct tdat_kernel_cpu_stats *tdat_file_cpustat(struct tdat_file *f, int *n);

/* ------------------------------------------------------------------ */
/* Writers                                                             */

/* What tdat_writer_open() takes, whatever the format. */
enum tdat_writer_flags {
	TDAT_W_GZIP = 1 << 0,	/* gzip the output: formats whose output is a stream
				 * (TDAT_OUT_STREAM), with the "gzip-level" option */
};

/* The highest "compression-level" of parquet (zstd's) and "gzip-level" (deflate's). */
#define TDAT_ZSTD_LEVEL_MAX 22
#define TDAT_GZIP_LEVEL_MAX 12

/* What a format needs for its output (tdat_format_output()). */
enum tdat_output_kind {
	TDAT_OUT_STREAM = 0,	/* any descriptor, a pipe too */
	TDAT_OUT_FILE,		/* a regular file by name (e.g. sqlite) */
	TDAT_OUT_DIR,		/* a directory by name */
};

struct tdat_writer;

/**
 * tdat_writer_new - a writer for a format
 * @format: "text", "csv", ... (see tdat_format_names())
 *
 * Return: the writer, or NULL if the format is unknown or memory ran out.
 */
struct tdat_writer *tdat_writer_new(const char *format);

/** tdat_format_names - the format names, space separated (static string). */
const char *tdat_format_names(void);

/**
 * tdat_format_output - what kind of output a format writes by default
 * @format: a format name
 *
 * Return: an enum tdat_output_kind, or -1 for an unknown format.
 */
int tdat_format_output(const char *format);

/**
 * tdat_writer_set_option - set an option of the writer's format
 * @w: a writer not yet open
 * @key: the option's name, one of its format's
 * @value: its value as text; NULL turns an on/off option off ("1" on)
 *
 * Each format takes its own options, in the spirit of libarchive's
 * archive_write_set_format_option():
 *
 *   text      "nsec"  1: full nanosecond timestamps (trace-cmd report -t)
 *             "raw"   1: each field as name=value, not through the event's
 *                     print format or plugins (trace-cmd report -R)
 *             "style" "3.4" (the default): as trace-cmd 3.4 prints
 *                     (libtraceevent 1.9: the irq-flags column, -R's raw
 *                     flags and function addresses, prev_state letters from
 *                     the kernel's format); "3.1": as trace-cmd 3.1.6
 *   csv       "split" 1: one typed file per event type in a directory
 *                     (tdat_writer_output() is then TDAT_OUT_DIR)
 *   dat       "version" "7" (the default) or "6" (uncompressed)
 *             "compression" "zstd" (the default), "zlib" or "none" (v7)
 *   perfetto  "compression" "none" (the default) or "zlib": packets
 *                     deflated into compressed_packets
 *   parquet   "compression-level" zstd's level of the column chunks,
 *                     1 to TDAT_ZSTD_LEVEL_MAX (default 3)
 *
 * and every format "gzip-level": the deflate level of a gzipped output
 * (TDAT_W_GZIP), 1 to TDAT_GZIP_LEVEL_MAX (default 6).
 *
 * Return: 0, or TDAT_EINVAL for a key the format does not have, a value
 * the option does not take, or a writer already open
 * (tdat_writer_errmsg() says which, and what it takes).
 */
int tdat_writer_set_option(struct tdat_writer *w, const char *key, const char *value);

/**
 * tdat_writer_output - what kind of output a writer writes, with its options
 * @w: a writer
 *
 * Return: an enum tdat_output_kind (csv with "split": TDAT_OUT_DIR).
 */
int tdat_writer_output(const struct tdat_writer *w);

/**
 * tdat_format_from_path - format name implied by an output file name
 * @path: output path
 *
 * A ".gz" ending is looked through (see TDAT_W_GZIP).
 *
 * Return: "text" for .txt, "csv" for .csv, ..., else NULL.
 */
const char *tdat_format_from_path(const char *path);

/**
 * tdat_writer_open - start writing
 * @w: writer
 * @fd: descriptor to write to (not closed by the library), or -1
 * @path: the file or directory to write, for writers whose output is not a
 *        stream (tdat_writer_output()); NULL otherwise
 * @m: the merge whose events will be written (for headers and names)
 * @flags: enum tdat_writer_flags (the format's own options:
 *         tdat_writer_set_option(), before)
 *
 * Return: 0 or a negative enum tdat_err.
 */
int tdat_writer_open(struct tdat_writer *w, int fd, const char *path, struct tdat_merge *m,
		     unsigned flags);

/**
 * tdat_writer_set_jobs - how many threads a writer may use
 * @w: a writer not yet open
 * @jobs: threads; 1 or less: the caller's only (the default)
 *
 * tdat_writer_run() decodes, selects and formats the events on @jobs
 * workers, one time window each, each with its own handles on the inputs
 * (opened again); the parquet format also encodes a row group's column
 * chunks on @jobs threads, and a gzipped stream (TDAT_W_GZIP) is deflated
 * in blocks on @jobs threads.  The bytes written are the same for any @jobs.
 */
void tdat_writer_set_jobs(struct tdat_writer *w, int jobs);

/**
 * tdat_writer_jobs - the threads a run of @w over @m's inputs is worth
 * @w: a writer
 * @m: the inputs, all added
 * @max: the most the caller gives (its CPUs, say)
 * @bytes: if not NULL, set as tdat_merge_jobs() sets it
 *
 * tdat_merge_jobs(), and one more for each thread the format keeps busy
 * with work of its own (sqlite stores its rows on one), counted in
 * tdat_writer_set_jobs()'s @jobs: at 1, that work is done on the caller's
 * thread.  Such a thread pays back on a smaller trace than a worker does:
 * from 4 MiB of event data (sqlite at 2 threads: 1.04 times the time of 1
 * at 0.8 MiB, 0.95 at 4.4 MiB, 0.75 at 24 MiB).  For tdat_writer_set_jobs()
 * when the user asked for no number.
 *
 * Return: the number of threads, 1 to @max.
 */
int tdat_writer_jobs(const struct tdat_writer *w, const struct tdat_merge *m, int max,
		     uint64_t *bytes);

/**
 * tdat_writer_set_window - the size of tdat_writer_run()'s time windows
 * @w: a writer
 * @bytes: trace data (decompressed) a window holds, about; 0: the default, 2 MiB
 *         (and 128 KiB for each CPU of the inputs at least)
 *
 * Smaller windows spread a small trace over the workers, at the cost of
 * a seek for each; a trace that fits in one window is read on one thread.
 */
void tdat_writer_set_window(struct tdat_writer *w, uint64_t bytes);

/**
 * tdat_merge_jobs - the threads a run of @m's inputs is worth
 * @m: the inputs, all added
 * @max: the most the caller gives (its CPUs, say)
 * @bytes: if not NULL, set to the decompressed event data of the inputs,
 *         about (a compressed v7 file's as 7 times its stored bytes)
 *
 * Workers open the inputs again and keep buffers of their own, which a
 * small trace never pays back: one thread, and one more for each whole
 * 48 MiB of event data, at most @max.  For tdat_merge_set_jobs() and
 * tdat_writer_set_jobs() when the user asked for no number.
 *
 * Return: the number of threads, 1 to @max.
 */
int tdat_merge_jobs(const struct tdat_merge *m, int max, uint64_t *bytes);

/**
 * struct tdat_run - what tdat_writer_run() did, and whom it tells as it goes
 * @events: events read from the merge, kept or not
 * @kept: events the selection kept (every one without a selection)
 * @windows: time windows whose events -j workers read
 * @alone: 0, or the event (from 1) from which the caller read on alone
 *         after the windows (a CPU's times going back across a cut, a
 *         worker that cannot go on)
 * @tick: if not NULL, called on the caller's thread every few thousand
 *        events with @arg and @events (tdat_merge_progress() says how far)
 * @arg: for @tick
 */
struct tdat_run {
	uint64_t events, kept;
	uint64_t windows, alone;
	void (*tick)(void *arg, uint64_t events);
	void *arg;
};

/**
 * tdat_writer_run - write every event of the writer's merge that @sel keeps
 * @w: an open writer whose merge has not been read from
 * @sel: a selection bound to that merge (tdat_select_bind()), or NULL: all
 * @run: zeroed counts, and the progress callback
 *
 * The loop of tdat_merge_next(), tdat_select_done(), tdat_select_match()
 * and tdat_writer_put(), on the caller's thread or, with
 * tdat_writer_set_jobs() above 1, on that many workers, each of which
 * decodes, selects and formats one time window of the timeline while the
 * caller writes (or, for formats that keep state across events, puts)
 * the windows' events in timeline order.  The output, the damage
 * tdat_merge_damage() lists, the selection's counts and tdat_merge_stats()
 * are the same for any number of workers.  The merge is used up.
 *
 * Return: TDAT_END after the last event, or a negative enum tdat_err
 * (tdat_merge_errmsg() or tdat_writer_errmsg() says why).
 */
int tdat_writer_run(struct tdat_writer *w, struct tdat_select *sel, struct tdat_run *run);

/**
 * enum tdat_thread_kind - the threads the library starts, by what they do
 * @TDAT_THREAD_READ: reads and decompresses v7 chunks ahead (tdat_merge_set_jobs())
 * @TDAT_THREAD_WINDOW: a tdat_writer_run() worker, one time window at a time
 * @TDAT_THREAD_GZIP: deflates blocks of a gzipped output (or a Perfetto trace's zlib batches)
 * @TDAT_THREAD_PARQUET: encodes and compresses Parquet column chunks
 * @TDAT_THREAD_SQLITE: the one thread that inserts the sqlite format's rows
 * @TDAT_THREAD_CAPTURE: compresses the pages tdat_capture reads ("tdat-compress")
 * @TDAT_THREAD_WRITE: writes a writer's output file while it fills the next buffer
 *                     (tdat_writer_set_jobs() above 1)
 * @TDAT_THREAD_KINDS: how many kinds there are
 *
 * Each thread is named after its kind (tdat_thread_name()), as top -H,
 * ps -L and perf show it.
 */
enum tdat_thread_kind {
	TDAT_THREAD_READ,
	TDAT_THREAD_WINDOW,
	TDAT_THREAD_GZIP,
	TDAT_THREAD_PARQUET,
	TDAT_THREAD_SQLITE,
	TDAT_THREAD_CAPTURE,
	TDAT_THREAD_WRITE,
	TDAT_THREAD_KINDS
};

/**
 * struct tdat_thread_cpu - CPU time of the library's ended threads of a kind
 * @seconds: user and system time of all of them
 * @max: of the busiest one
 * @threads: how many have ended
 */
struct tdat_thread_cpu {
	double seconds, max;
	unsigned threads;
};

/**
 * tdat_thread_cpu - what the library's threads of @kind took, in this process
 * @kind: the kind
 * @out: the figures of the threads of @kind that have ended (a thread ends
 *       when the object that started it is closed or freed); zeros for an
 *       unknown kind
 *
 * With the caller's own CPU time, this tells which part of a run could not
 * be shared: one thread's work (the sqlite format inserts every row on
 * one) bounds the run however many cores there are.
 */
void tdat_thread_cpu(enum tdat_thread_kind kind, struct tdat_thread_cpu *out);

/** tdat_thread_name - the name threads of @kind get ("tdat-sqlite"); NULL for an unknown kind. */
const char *tdat_thread_name(enum tdat_thread_kind kind);

/** tdat_writer_put - write one event; 0 or a negative enum tdat_err. */
int tdat_writer_put(struct tdat_writer *w, const struct tdat_event *ev);

/**
 * tdat_writer_close - write what is pending and the trailer
 *
 * Return: 0, or a negative enum tdat_err if any write failed (sticky).
 */
int tdat_writer_close(struct tdat_writer *w);

/**
 * tdat_writer_copy - write every event of the merge, a whole page at a time
 * @w: an open writer to which nothing was put yet
 *
 * For a trace.dat of one input whose timestamps are not changed, the
 * ring-buffer pages are copied as they are (each page's events are still
 * read and checked; damaged pages are skipped and recorded as damage of
 * the merge), much faster than putting events one by one.
 *
 * Return: 0 when every event was written, TDAT_EUNSUPP (before reading
 * anything) when this writer cannot copy pages (put events instead), or
 * another negative enum tdat_err.
 */
int tdat_writer_copy(struct tdat_writer *w);

/**
 * tdat_writer_size - about how big the output would be if closed now
 * @w: an open writer
 *
 * Return: bytes (an estimate where the format compresses at close), or 0
 * if the format cannot tell (only "dat" can today).
 */
uint64_t tdat_writer_size(struct tdat_writer *w);

/**
 * tdat_writer_set_piece - mark the trace.dat being written as a piece of a split
 * @w: a "dat" writer, before tdat_writer_close()
 * @p: the mark (copied); its @count may be 0 until the last piece is known
 *
 * Return: 0; TDAT_EUNSUPP for another format; TDAT_EINVAL for a mark
 * without a @seq, or a name with a newline or longer than 200 bytes.
 */
int tdat_writer_set_piece(struct tdat_writer *w, const struct tdat_piece *p);

/** tdat_writer_errmsg - detail of the last failure ("" if none). */
const char *tdat_writer_errmsg(const struct tdat_writer *w);

/**
 * tdat_writer_warning - damage the writer worked around, "" if none
 * @w: a writer
 *
 * The text format prints an event without its print format when printing
 * it would read outside the record (a field past the record's end, a
 * __print_hex() or __print_array() longer than the record), and a plugin
 * helper given a pointer outside the record prints 0.  CSV, JSON, SQLite
 * and Perfetto write an event without the fields (or __data_loc data) that
 * lie outside its record.  The message names the first such event's file,
 * says how many and why.  Treat it as damage.
 */
const char *tdat_writer_warning(const struct tdat_writer *w);

/**
 * tdat_writer_nnotices - event types written in part for a reason that is not damage
 * @w: a writer
 *
 * The text format prints the events of a type whose print format
 * libtraceevent cannot print (tdat_file_nnotes()) with their fields only,
 * as trace-cmd does: one notice per file and event type, with the count.
 * Show them, but do not treat them as damage.
 */
int tdat_writer_nnotices(const struct tdat_writer *w);

/**
 * tdat_writer_notice - notice @i of @w, NULL past the end
 *
 * "PATH: N SYS:NAME events printed with their fields only: ...".  The text
 * belongs to @w and is overwritten by the next call.
 */
const char *tdat_writer_notice(struct tdat_writer *w, int i);

/** tdat_writer_errno - errno of the first failed write, 0 if none. */
int tdat_writer_errno(const struct tdat_writer *w);

/** tdat_writer_free - free @w; NULL is fine. */
void tdat_writer_free(struct tdat_writer *w);

/* ------------------------------------------------------------------ */
/* A picture of the timeline (tdat-info --svg)                         */

struct tdat_svg;

/** tdat_svg_new - a picture not started yet; NULL without memory. */
struct tdat_svg *tdat_svg_new(void);

/**
 * tdat_svg_open - start a picture of the events of a merge
 * @g: from tdat_svg_new()
 * @fd: where the SVG goes at tdat_svg_close() (not closed by the library)
 * @m: the merge whose events will be put; not started
 * @s: its selection, already bound (tdat_select_bind()), or NULL
 *
 * The time axis runs from the first to the last event of @m
 * (tdat_merge_span()), narrowed to the window of @s; it is cut into 1000
 * buckets.  Each CPU of each event buffer of each input that the buffer and
 * CPU tests of @s keep gets a lane.  Memory does not grow with the trace.
 *
 * Return: 0 or a negative enum tdat_err (tdat_svg_errmsg()).
 */
int tdat_svg_open(struct tdat_svg *g, int fd, struct tdat_merge *m, struct tdat_select *s);

/**
 * tdat_svg_put - count one event of the merge, in order
 * @g: an open picture
 * @ev: every event the merge gives, kept or not
 * @kept: whether the selection kept it (true without one)
 *
 * A kept event adds to its lane's density and to the counts per event
 * type.  The events lost before @ev (tdat_event.missed) are marked in its
 * lane at its time whether or not it is kept, when the lane is drawn and
 * the time is on the axis.
 *
 * Return: 0.
 */
int tdat_svg_put(struct tdat_svg *g, const struct tdat_event *ev, bool kept);

/**
 * tdat_svg_close - draw the picture and write it
 *
 * One self-contained SVG (no script, no external file or font): a time axis
 * in the trace's units (seconds when the clock counts ns), a density strip
 * per lane with a colour legend, marks where events were lost (red: a
 * count; orange: an unknown number), the span in which every lane has
 * events shaded, and the ten most frequent event types as bars.  Every
 * mark has a <title> with exact numbers.
 *
 * Return: 0, or TDAT_EIO if a write failed (tdat_svg_errno()).
 */
int tdat_svg_close(struct tdat_svg *g);

/** tdat_svg_errmsg - detail of the last failure ("" if none). */
const char *tdat_svg_errmsg(const struct tdat_svg *g);

/** tdat_svg_errno - errno of the failed write, 0 if none. */
int tdat_svg_errno(const struct tdat_svg *g);

/** tdat_svg_free - free @g; NULL is fine. */
void tdat_svg_free(struct tdat_svg *g);

/* ------------------------------------------------------------------ */
/* Capturing from tracefs (tdat-capture)                               */

/* Flags of tdat_capture_open(). */
enum tdat_capture_flags {
	TDAT_CAP_CREATE = 1 << 0, /* create the instance when it does not exist */
	TDAT_CAP_EXCL   = 1 << 1, /* with CREATE: fail if it exists already */
	TDAT_CAP_REMOVE = 1 << 2, /* remove the instance at tdat_capture_close() */
	TDAT_CAP_MOUNT  = 1 << 3, /* mount tracefs when it is not mounted */
};

/* What tdat_capture_list() lists. */
enum tdat_capture_what {
	TDAT_CAP_EVENTS,	/* "system:event" the kernel offers */
	TDAT_CAP_ENABLED,	/* "system:event" enabled in the instance */
	TDAT_CAP_CLOCKS,	/* trace clocks; the selected one as "[name]" */
	TDAT_CAP_OPTIONS,	/* options/ as "name" (set) or "noname" */
	TDAT_CAP_INSTANCES,	/* tracefs instances */
};

/* One CPU of a capture: what was read, and the kernel's counters. */
struct tdat_capture_cpu {
	int cpu;
	uint64_t events;	/* events read (or, in stats, in the buffer) */
	uint64_t read_bytes;	/* ring-buffer bytes read */
	uint64_t stored;	/* bytes they take in the file */
	uint64_t overrun;	/* events overwritten before they were read */
	uint64_t dropped;	/* events dropped (buffer full, overwrite off) */
	uint64_t entries;	/* events in the buffer now */
	uint64_t kernel_read;	/* events the kernel counted as read */
	uint64_t buffer_bytes;	/* bytes in the buffer now */
};

/**
 * tdat_capture_new - a capture handle, not attached to tracefs yet
 *
 * Return: the handle (tdat_capture_free()), or NULL without memory.
 */
struct tdat_capture *tdat_capture_new(void);

/**
 * tdat_capture_open - find tracefs and attach to an instance
 * @c: handle from tdat_capture_new()
 * @instance: instance name under instances/, or NULL for the top buffer
 * @flags: enum tdat_capture_flags
 *
 * Finds tracefs as libtracefs does (the mount table), mounting it on
 * /sys/kernel/tracing with TDAT_CAP_MOUNT when it is missing.  A created instance
 * starts with tracing off.  Every setting changed through @c is put back by
 * tdat_capture_close(), unless the instance is removed then.
 *
 * Return: 0; TDAT_EIO (no tracefs, no permission, no such instance) or
 * TDAT_EINVAL (a bad name), with tdat_capture_errmsg() saying why.
 */
int tdat_capture_open(struct tdat_capture *c, const char *instance, unsigned flags);

/**
 * tdat_capture_dir - the instance's directory in tracefs ("" before open)
 *
 * A workload writes to DIR/trace_marker to put lines in this capture.
 */
const char *tdat_capture_dir(const struct tdat_capture *c);

/**
 * tdat_capture_enable - enable events: "SYSTEM", "SYSTEM:EVENT", "EVENT", globs
 *
 * Return: 0; TDAT_EINVAL when no event matches; TDAT_EIO.
 */
int tdat_capture_enable(struct tdat_capture *c, const char *spec);

/**
 * tdat_capture_filter - a kernel-side filter, "EVENTS:EXPR"
 *
 * EVENTS is as in tdat_capture_enable(); EXPR is the kernel's filter
 * grammar (events/SYSTEM/EVENT/filter), e.g. "sched_switch:prev_pid > 1".
 * The same as tdat_capture_event_filter(c, EVENTS, EXPR).
 *
 * Return: 0; TDAT_EINVAL when nothing matches or the kernel refuses EXPR.
 */
int tdat_capture_filter(struct tdat_capture *c, const char *spec);

/**
 * tdat_capture_event_filter - a kernel-side filter on the events of @spec
 * @c: an open handle
 * @spec: events as in tdat_capture_enable(): "sched:sched_switch", "sched", globs
 * @expr: the kernel's filter grammar, e.g. "prev_pid > 1" (replaces the
 *        filter the events had; trace-cmd record's -f after an -e)
 *
 * Return: 0; TDAT_EINVAL when no event matches, @expr is empty or the
 * kernel refuses it for one of the events (tdat_capture_errmsg() names it).
 */
int tdat_capture_event_filter(struct tdat_capture *c, const char *spec, const char *expr);

/** tdat_capture_set_buffer_kb - ring-buffer size per CPU (buffer_size_kb). */
int tdat_capture_set_buffer_kb(struct tdat_capture *c, unsigned kb);

/**
 * tdat_capture_set_buffer_percent - how full a CPU's buffer gets before
 * tdat_capture_read() is woken (buffer_percent; the kernel's default is 50).
 */
int tdat_capture_set_buffer_percent(struct tdat_capture *c, unsigned pct);

/** tdat_capture_set_subbuf_kb - sub-buffer (page) size; TDAT_EUNSUPP before Linux 6.8. */
int tdat_capture_set_subbuf_kb(struct tdat_capture *c, unsigned kb);

/** tdat_capture_set_clock - trace_clock; TDAT_EINVAL if the kernel has no such clock. */
int tdat_capture_set_clock(struct tdat_capture *c, const char *clock);

/**
 * tdat_capture_set_cpus - trace only these CPUs ("0,2-3"; tracing_cpumask).
 *
 * Return: 0; TDAT_EINVAL for a malformed list, a CPU the machine lacks or
 * none at all.
 */
int tdat_capture_set_cpus(struct tdat_capture *c, const char *list);

/**
 * tdat_capture_set_cpumask - trace only the CPUs of a hex mask, as
 * trace-cmd record -M takes it: "3" (CPUs 0 and 1), "0x3", 32-bit words
 * apart with commas as tracing_cpumask prints them ("1,00000000" is CPU 32),
 * "-1" for every CPU.
 *
 * Return: as tdat_capture_set_cpus().
 */
int tdat_capture_set_cpumask(struct tdat_capture *c, const char *hex);

/**
 * tdat_capture_exclude_pid - do not record the events of @pid (the recorder
 * itself; set_event_notrace_pid), nor then those of the thread that
 * tdat_capture_read_begin() starts to compress.  TDAT_EUNSUPP before Linux 5.10.
 */
int tdat_capture_exclude_pid(struct tdat_capture *c, int pid);

/**
 * tdat_capture_follow_pid - record only the events of the pids followed
 * @c: an open handle
 * @pid: a task to follow (set_event_pid); each call adds one
 * @children: also the tasks the followed ones fork from now on, and their
 *            children (the event-fork option, which then holds for every
 *            pid followed: trace-cmd record's -c)
 *
 * Call it before tdat_capture_start(), so that the first events are caught.
 * A sched_switch or wakeup that involves a followed task is recorded, in
 * whichever task's context it happens (the kernel's rule).  The recorder
 * follows a command it runs by forking it first and letting it exec once
 * tracing is on (trace-cmd record -F).
 *
 * Return: 0; TDAT_EUNSUPP without set_event_pid (before Linux 4.4) or,
 * with @children, without event-fork; TDAT_EINVAL for a pid <= 0.
 */
int tdat_capture_follow_pid(struct tdat_capture *c, int pid, bool children);

/** tdat_capture_set_option - set "NAME" or clear "noNAME" in options/. */
int tdat_capture_set_option(struct tdat_capture *c, const char *name);

/**
 * tdat_capture_reset - tracing off, every event disabled, filters cleared,
 * no pid followed, the buffer emptied (the state of a new instance,
 * settings aside).
 */
int tdat_capture_reset(struct tdat_capture *c);

/** tdat_capture_start - empty the buffer and turn tracing on. */
int tdat_capture_start(struct tdat_capture *c);

/** tdat_capture_stop - turn tracing off (what is in the buffer stays). */
int tdat_capture_stop(struct tdat_capture *c);

/**
 * tdat_capture_set_dat_option - how the pages read are kept: the dat writer's
 * options "version" ("7", the default, or "6": uncompressed) and
 * "compression" ("zstd", the default, "zlib" or "none")
 * @c: a handle that has not begun reading
 * @key: "version" or "compression"
 * @value: its value (see tdat_writer_set_option())
 *
 * Return: 0, or TDAT_EINVAL for another key, a value it does not take, or
 * reading begun (tdat_capture_errmsg() says which).
 */
int tdat_capture_set_dat_option(struct tdat_capture *c, const char *key, const char *value);

/**
 * tdat_capture_read_begin - open every CPU's trace_pipe_raw for reading
 * @c: an open handle, its trace.dat layout set (tdat_capture_set_dat_option());
 *     pages are compressed as chunks fill
 *
 * Starts a thread that compresses what tdat_capture_read() reads (a queue
 * of up to 8 MB of raw pages).  Read pages are staged compressed: in memory
 * up to 16 MB for all CPUs, then in one unlinked temporary file ($TMPDIR).
 *
 * Return: 0 or a negative enum tdat_err.
 */
int tdat_capture_read_begin(struct tdat_capture *c);

/**
 * tdat_capture_read - wait for data, then read what every CPU has
 * @c: handle after tdat_capture_read_begin()
 * @timeout_ms: longest wait (-1: no limit); the kernel wakes us when a
 *              CPU's buffer is buffer_percent full.  Whole pages only,
 *              except with 0: no wait, and everything, the page the kernel
 *              is writing too (after tdat_capture_stop())
 * @wake_fd: also stop waiting when this descriptor is readable (a signal
 *           handler's pipe), or -1; it is not read
 *
 * Return: 0, or a negative enum tdat_err.
 */
int tdat_capture_read(struct tdat_capture *c, int timeout_ms, int wake_fd);

/**
 * tdat_capture_write - write what was read as a trace.dat
 * @c: handle after tdat_capture_read_begin(), reading done
 * @fd: output; written sequentially, a pipe is fine; not closed
 *
 * Reads the metadata the file needs from tracefs now (formats, kallsyms,
 * printk formats, saved cmdlines and tgids, per-CPU stats, clock, uname).
 *
 * Return: 0 or a negative enum tdat_err.
 */
int tdat_capture_write(struct tdat_capture *c, int fd);

/** tdat_capture_ncpus - CPUs of the instance (per_cpu/cpuN), 0 before open. */
int tdat_capture_ncpus(const struct tdat_capture *c);

/**
 * tdat_capture_cpu_stats - CPU index @i: what was read (if reading) and the
 * kernel's counters (per_cpu/cpuN/stats, read now, or at the write).
 */
int tdat_capture_cpu_stats(struct tdat_capture *c, int i, struct tdat_capture_cpu *out);

/**
 * tdat_capture_list - names of events, clocks, options or instances
 * @what: enum tdat_capture_what
 * @glob: keep only names that match (NULL: all)
 * @n: set to the count
 *
 * Return: an array owned by @c until the next call, or NULL on failure
 * (tdat_capture_errmsg()).
 */
const char *const *tdat_capture_list(struct tdat_capture *c, int what, const char *glob, int *n);

/**
 * tdat_capture_file - the text of a file of the instance ("buffer_size_kb")
 *
 * Return: text owned by @c until the next call (no trailing newline), or NULL.
 */
const char *tdat_capture_file(struct tdat_capture *c, const char *rel);

/**
 * tdat_capture_close - put back what was changed, remove the instance if
 * asked (TDAT_CAP_REMOVE), close the CPU files.
 *
 * Return: 0, or TDAT_EIO if something could not be put back or removed.
 */
int tdat_capture_close(struct tdat_capture *c);

/** tdat_capture_errmsg - detail of the last failure ("" if none). */
const char *tdat_capture_errmsg(const struct tdat_capture *c);

/** tdat_capture_free - close (if needed) and free @c; NULL is fine. */
void tdat_capture_free(struct tdat_capture *c);

#ifdef __cplusplus
}
#endif
#endif /* TDAT_H */
