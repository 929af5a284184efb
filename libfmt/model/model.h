/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model.h - the analysis model every export shares: threads and processes
 * (procs.c), scheduling slices and thread states (sched.c), atrace markers,
 * slices (slices.c), and the tables derived from all of them with their
 * ids (derive.c), which the sqlite and parquet writers store.  Fed events
 * in timeline order by a writer; knows nothing of output formats.
 */
#ifndef TDAT_MODEL_H
#define TDAT_MODEL_H

#include "read/read.h"

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
/* Whether pm_feed() may give an (input, tid) a new utid for events of this type. */
bool pm_remaps(const struct ttype *tt);
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

/*
 * A wake-up that made a thread runnable, and the switch that ran it: its
 * latency.  A wake-up of a task already runnable or running has none.
 */
struct sched_wakeup_row {
	int64_t id;		/* in wake-up order from 0 */
	uint64_t ts;		/* the wake-up */
	int64_t dur;		/* to the switch-in; -1: it never ran, or that switch was lost */
	int utid, waker_utid;	/* waker -1: unknown */
	int target_cpu;		/* the wake-up's, -1 unknown */
	int cpu, ucpu;		/* where it ran, -1 if dur is */
};

struct sched_ops {
	void *ctx;
	/* Called as rows close, in no particular id order; non-zero stops. */
	int (*slice)(void *ctx, const struct sched_slice_row *r);
	int (*state)(void *ctx, const struct sched_state_row *r);
	int (*wakeup)(void *ctx, const struct sched_wakeup_row *r);	/* NULL: not wanted */
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
/* sched_waking (or a stand-in, see derive.c) of @utid by @waker_utid, to @target_cpu (-1 unknown). */
int sched_wake(struct sched_sm *s, uint64_t ts, int utid, int waker_utid, int target_cpu);
/* task_newtask: the new task @utid is runnable, made by @creator_utid. */
int sched_new_task(struct sched_sm *s, uint64_t ts, int utid, int creator_utid);
/* sched_blocked_reason: marks the thread's blocked state (its last one if it is R since). */
void sched_blocked(struct sched_sm *s, int utid, int io_wait, const char *function);
/* After the last event: report what is still open, with dur -1. */
int sched_finish(struct sched_sm *s);

#define SCHED_MAX_STATES 32

/*
 * prev_state bits -> letters, as one kernel's sched_switch format prints
 * them: "COND ? __print_flags(prev_state & MASK, DELIM, { BIT, "L" }, ...)
 * : "R", prev_state & PREEMPT ? "+" : """ (4.14+: S D T t X Z P I, + at
 * 0x100; 4.8-4.13: S D T t Z X x K W P N, + at 0x1000).  The one decoder of
 * task states: every format's letters come from it.
 */
struct sched_states {
	uint64_t bits[SCHED_MAX_STATES];
	char letters[SCHED_MAX_STATES][8];
	int n;
	char delim[8];
	uint64_t mask;		/* the bits the table is applied to */
	char zero[8];		/* printed when none of them is set: "R" */
	uint64_t preempt;	/* the "+" bit (0x100 on kernels >= 4.14); 0: never printed */
};

/*
 * sched_states_init() - read the prev_state table of a kernel
 * @m: the table to fill
 * @e: that kernel's sched:sched_switch format; NULL, or a format without a
 *     __print_flags of prev_state: the table of kernels >= 4.14
 */
void sched_states_init(struct sched_states *m, const struct tep_event *e);
/*
 * sched_state_str() - @state as the kernel prints it: "S", "D|K", "R+", "x"
 * @m: the kernel's table (sched_states_init())
 * @state: the prev_state field's value
 * @buf: where the NUL-terminated text goes, cut to @len bytes (64 is ample)
 */
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

/* ---- slices.c: begin/end pairs of events as slices on CPU and thread tracks ---- */

/*
 * How pairs become slices.  SL_JSON: the Chrome JSON writer's (every pair it
 * knows, irq, softirq and timers sharing one track per CPU, an end matched
 * by its key and buffer, closing what is open above it).  SL_PERFETTO: as
 * Perfetto's trace processor (v58.2) imports the same events from a
 * .pftrace, with its slice names, tracks and nesting.
 */
enum sl_mode { SL_JSON, SL_PERFETTO };

/* The kind of track a slice lies on: per CPU (irq, softirq, other), per thread. */
enum sl_kind { SLK_THREAD, SLK_IRQ, SLK_SOFTIRQ, SLK_HRTIMER, SLK_CPU, NSLK };

/* How a rule names its slices (each mode has its own words, see slices.c). */
enum sl_name { SLN_IRQ, SLN_VEC, SLN_NUM, SLN_SYM, SLN_HEX, SLN_EVENT, SLN_ATRACE, SLN_INSTANT };

#define SLR_JSON	1u	/* SL_JSON pairs it */
#define SLR_TP		2u	/* SL_PERFETTO (trace processor) pairs it */
#define SLR_NESTS	4u	/* SL_JSON: several with different keys may be open */
#define SLR_ON_KEY	8u	/* on the thread its key field names, not the event's (signal_generate) */

/* One begin/end pair: the events, the fields keying and naming it, its track. */
struct sl_rule {
	const char *system, *begin, *end, *key, *name;
	enum sl_name how;
	enum sl_kind kind;
	unsigned flags;		/* SLR_* */
	const char *category;	/* Perfetto's slice category, NULL for none */
};

/* What the model makes of one event type: its rule, and whether it begins. */
struct sl_type {
	const struct sl_rule *rule;
	bool begin;
	const struct tfield *key, *namef;
	uint64_t fixed_key;		/* SLN_EVENT: the id of the sys_enter_ type */
	char *machine;			/* SLN_NUM: uname -m of the file, for syscall names */
	char *evname;			/* SLN_EVENT: the syscall named by the event */
};

/* A timeline holding slices: a CPU of an input, or a thread. */
struct sl_track {
	enum sl_kind kind;
	int input, cpu;		/* CPU kinds */
	int utid;		/* SLK_THREAD */
};

/* A slice as it closes (or, at the end, as it was left open). */
struct sl_slice {
	const struct sl_track *track;
	const struct sl_type *type;	/* of its begin */
	int64_t id, parent_id;	/* ids in begin order from 0; parent -1: none */
	uint64_t ts, end_ts;	/* end_ts: where it ends or, unfinished, is cut */
	int64_t dur;		/* -1: SL_PERFETTO, still open at the end */
	int depth;
	bool unfinished;	/* its end never came: closed at end_ts (SL_JSON) or dur -1 */
	int input, buffer;	/* of its begin */
	const char *name, *data;	/* not NUL-terminated; data: what ops->begin kept */
	size_t name_len, data_len;
	const struct tdat_event *end;	/* the end event; NULL if unfinished */
	void *user;		/* set by ops->begin */
};

/* A slice's bytes the writer keeps from its begin (sl_keep()). */
struct sl_buf {
	char *buf;
	size_t len, cap;
	bool err;
};

struct sl_ops {
	void *ctx;
	/* @ev begins a slice: keep what the writer needs later with sl_keep(). */
	int (*begin)(void *ctx, const struct tdat_event *ev, struct sl_buf *b, void **user);
	/* A slice closes (in the order they close); non-zero stops. */
	int (*slice)(void *ctx, const struct sl_slice *s);
	/* SL_JSON: an end without its begin. */
	int (*stray)(void *ctx, const struct sl_track *t, const struct tdat_event *ev);
	/*
	 * SL_JSON in local mode: what @ev does depends on the slices open
	 * before the stacks began (an end with no begin here, a begin with
	 * nothing here to close); SLB_END then goes no further, SLB_BEGIN pushes.
	 */
	int (*bottom)(void *ctx, const struct sl_track *t, const struct tdat_event *ev, int what);
	const struct sl_pairing *pairing;	/* SL_JSON: the writer's; SL_PERFETTO: NULL */
};

enum { SLB_END, SLB_BEGIN };

struct slices;
struct sl_stack;
/*
 * A writer's own pairing of begins and ends on a track's stack (SL_JSON:
 * write/json-pair.c), with the machinery of model/slices-int.h; without
 * one, the model's (SL_PERFETTO).
 */
struct sl_pairing {
	/* @ev of type @st on stack @k; @check: slices_check(), push nothing. */
	int (*put)(struct slices *s, struct sl_stack *k, const struct sl_type *st,
		   const struct tdat_event *ev, bool check);
	/* After the last event: what is still open on @k. */
	int (*finish)(struct slices *s, struct sl_stack *k, uint64_t end_ts);
};

/* An open slice, as a -j worker hands it to the caller (slices-hand.c). */
struct sl_entry {
	struct sl_track track;
	const struct sl_type *type;
	uint64_t ts, key;
	int input, buffer;
	const char *bytes;	/* the name (name_len bytes), then what ops->begin kept */
	size_t name_len, len;
	void *user;
};

struct slices;

struct slices *slices_new(enum sl_mode mode, const struct sl_ops *ops);
void slices_free(struct slices *s);
/* The slice role of @ev's type (cached per input and type); NULL if none in this mode. */
const struct sl_type *slices_type(struct slices *s, const struct tdat_event *ev,
				  const struct ttype *tt);
/* Feed an event of slice type @st in timeline order, on thread @utid: 0, or an op's failure. */
int slices_put(struct slices *s, const struct sl_type *st, const struct tdat_event *ev, int utid);
/* The track @st's events of @ev go to (for a writer's own bookkeeping). */
struct sl_track slices_track(const struct slices *s, const struct sl_type *st,
			     const struct tdat_event *ev, int utid);
/* After the last event: every open slice closes, unfinished, at @end_ts. */
int slices_finish(struct slices *s, uint64_t end_ts);
/* SL_JSON, a begin in the caller of a local worker: close what it closes, push nothing. */
int slices_check(struct slices *s, const struct sl_type *st, const struct tdat_event *ev, int utid);

/*
 * slices-hand.c: a -j worker pairs a block's events on stacks of its own
 * (local mode: ops->bottom is told what they cannot decide); what is
 * still open goes to the caller's model, bottom first, and the stacks empty.
 * @t NULL: every track's.
 */
void slices_set_local(struct slices *s);
int slices_hand_over(struct slices *s, const struct sl_track *t,
		     int (*fn)(void *ctx, const struct sl_entry *e), void *ctx);
/* The caller's side: @e pushed on its track's stack, as its begin would have. */
int slices_adopt(struct slices *s, const struct sl_entry *e);
/* Append @n bytes to what a slice keeps. */
void sl_keep(struct sl_buf *b, const void *p, size_t n);

/* syscalls.c: the name of syscall @nr on @machine (uname -m), NULL if unknown. */
const char *syscall_name(const char *machine, uint64_t nr);
/*
 * syscall_slice_name() - the name of a slice of syscall @nr, the same in every format
 * @machine: uname -m of the traced machine (NULL or unknown: no names)
 * @nr: the syscall's number (raw_syscalls' id)
 * @buf: where "sys_NAME" ("sys_N" if the machine's table has no name) goes, cut to @len
 * Return: the name's length, as snprintf().
 */
int syscall_slice_name(const char *machine, int64_t nr, char *buf, size_t len);

/* ---- derive.c: the model's tables (doc/tdat-sqlite.7), rows to a writer ---- */

/* The kinds of track: a CPU's counters, a process's, a thread's slices, a CPU's slices. */
enum dv_track_kind { DVT_CPU_COUNTER, DVT_PROCESS_COUNTER, DVT_THREAD, DVT_CPU };

/* A track, as it is first used; -1: a column that does not apply (or unknown upid). */
struct dv_track {
	int64_t id;
	enum dv_track_kind kind;
	const char *name, *type;	/* name NULL: none; both live until derive_free() */
	int64_t cpu, ucpu;		/* DVT_CPU_COUNTER, DVT_CPU */
	int64_t upid;			/* DVT_PROCESS_COUNTER */
	int64_t utid;			/* DVT_THREAD */
};

/* A value of a counter track at @ts. */
struct dv_counter {
	int64_t id;
	uint64_t ts;
	int64_t track_id;
	double value;
};

/* A slice as it closes (dur -1: still open at the end). */
struct dv_slice {
	int64_t id;
	uint64_t ts;
	int64_t dur, track_id;
	const char *category;	/* NULL: none */
	const char *name;	/* @name_len bytes, not NUL-terminated, valid during the call */
	size_t name_len;
	int depth;
	int64_t parent_id;	/* -1: none */
};

/*
 * Where the rows go: one callback, given the table (enum mt_table) and a
 * row of that table's struct (mt_tables[table].cols say how to read it),
 * stores it and returns 0, or non-zero to stop.  Strings live until
 * derive_free() unless said otherwise.  sched_slice, thread_state, slice,
 * wakeup_latency: as rows close, in no id order; a track's row (in track, then in the
 * table of its kind) before the first row on it; thread, process: in id
 * order at the end (a process's name is NULL for the idle process, as
 * trace processor has it).
 */
struct derive_ops {
	void *ctx;
	int (*row)(void *ctx, int table, const void *row);
};

/* ---- tables.c: the one description of the tables above, for every writer ---- */

/*
 * The model's tables, in the order a writer creates them.  Adding one:
 * its row struct and derivation (derive.c, sched.c, ...), its entry in
 * tables.c, and its page in doc/tdat-sqlite.7 and doc/tdat-parquet.7.
 */
enum mt_table {
	MT_THREAD, MT_PROCESS, MT_SCHED_SLICE, MT_THREAD_STATE, MT_TRACK, MT_CPU_COUNTER_TRACK,
	MT_PROCESS_COUNTER_TRACK, MT_THREAD_TRACK, MT_COUNTER, MT_SLICE, MT_CPU_TRACK,
	MT_WAKEUP_LATENCY, MT_NTABLES
};

/* A column's type in the files: SQLite's INTEGER (both widths), REAL, TEXT. */
enum mt_type { MT_I32, MT_I64, MT_REAL, MT_TEXT };

/* The C type of the row's member a value is read from (mt_src() picks it). */
enum mt_src { MS_NONE, MS_INT, MS_I64, MS_U64, MS_BOOL, MS_DOUBLE, MS_STR, MS_STRN };

/*
 * When a value is NULL: never; when negative (an unknown id, -1); unless
 * the bool at @aux is true; unless the int at @aux is not negative; always.
 * A string (MS_STR, MS_STRN) is also NULL when its pointer is.
 */
enum mt_null { MN_NEVER, MN_NEG, MN_UNLESS, MN_UNLESS_ID, MN_ALWAYS };

/*
 * One column: its name, type, NULL rule, and where in the row struct its
 * value is (@off; @aux: MS_STRN's size_t length, or the member
 * MN_UNLESS/MN_UNLESS_ID look at).  MS_STRN text lives only during the
 * call (a writer copies it); MS_STR text until derive_free().
 */
struct mt_col {
	const char *name;
	unsigned char type, src, null;
	size_t off, aux;
};

/* A table: its name and columns; the first column is its key (its id). */
struct mt_desc {
	const char *name;
	int ncols;
	const struct mt_col *cols;
};

extern const struct mt_desc mt_tables[MT_NTABLES];

/* Column @c of @row as an integer: false if NULL. */
bool mt_int(const struct mt_col *c, const void *row, int64_t *v);
/* ... as a double: false if NULL. */
bool mt_real(const struct mt_col *c, const void *row, double *v);
/* ... as text, @*n bytes at @*p (not always NUL-terminated): false if NULL. */
bool mt_text(const struct mt_col *c, const void *row, const char **p, size_t *n);

struct derive;

/* The model of @m's inputs, its rows to @ops; NULL if out of memory. */
struct derive *derive_new(struct tdat_merge *m, const struct derive_ops *ops);
void derive_free(struct derive *d);
/*
 * Each event in timeline order, with its type from file_type(): first to
 * derive_thread(), which returns its utid (<0: out of memory), then with
 * that to derive_put(), which makes the rows it brings (0 or an error).
 * An event earlier than one taken before (a damaged input: a CPU's clock
 * went back), or at 2^63 ns or later, gets its utid but makes no row and
 * changes no state.
 */
int derive_thread(struct derive *d, const struct tdat_event *ev, const struct ttype *tt);
int derive_put(struct derive *d, const struct tdat_event *ev, const struct ttype *tt, int utid);
/* How many events derive_put() left out (earlier than one taken, or past 2^63 ns). */
int64_t derive_left_out(const struct derive *d);
/* The CPU numbers of input @input: their count, and the ucpu of its CPU 0 in *@ucpu_base. */
int derive_cpus(const struct derive *d, int input, int *ucpu_base);
/* After the last event: the rows still open (dur -1), then thread and process. */
int derive_finish(struct derive *d);

#endif /* TDAT_MODEL_H */
