/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * json.h - what the "json" writer's files share (json.c: traceEvents and
 * the end; json-slices.c: the slices, and how -j workers pair them;
 * json-line.c: the ftrace text lines of systemTraceEvents): its state, and
 * the number and string encoders of its hot path.  Private to those files.
 */
#ifndef TDAT_WRITE_JSON_H
#define TDAT_WRITE_JSON_H

#include "model/model.h"
#include "write/sink.h"
#include "write/writer-int.h"

#define put_lit(sk, s) sink_write((sk), (s), sizeof(s) - 1)

enum jrole { JR_INSTANT, JR_SLICE, JR_SWITCH, JR_WAKE, JR_BLOCKED, JR_POWER, JR_PRINT };

/* What the writer keeps per event type. */
struct jtype {
	const struct ttype *tt;
	enum jrole role;
	const struct sl_type *sl;		/* a slice's begin or end (slices.c) */
	bool feed;				/* the process model needs every event */
	bool remaps;				/* it may give a tid a new thread (pm_remaps()) */
	char *head;				/* instant: {"ph":"i",...,"ts": */
	char *argkey;				/* "name":{ */
	char *cat;				/* ,"cat":"system","ts": */
	size_t head_len, argkey_len, cat_len;
	char **keys;				/* ,"field": (no comma for the first) */
	unsigned *key_lens;
	const struct tfield *lf[7];		/* fields the text lines use */
	struct sched_states *states;		/* sched_switch: its kernel's prev_state letters */
};

/* A buffer's name as JSON string content; a label only for buffers that have a name. */
struct jlabel {
	char *s;
	size_t len;
};

struct jthread {
	int64_t pid;		/* pid written with this thread; -1 none yet */
	bool fed;		/* the process model saw one of its events */
};

struct jcpu {
	bool used;
};

/* Text lines of one kind come from one buffer per input (enum jline). */
enum jline { JL_SCHED, JL_FREQ, JL_IDLE, NJLINES };

struct jinput {
	struct idtab types;	/* struct jtype by event type id */
	struct jcpu *cpus;
	int ncpus;
	struct jlabel *labels;	/* per buffer: its label, s NULL for the unnamed top buffer */
	int nbuffers;
	int line_buffer[NJLINES];	/* the buffer whose events become the lines, -1: none yet */
	int cpu_base;		/* its CPUs in the lines: after the inputs' before it (ucpu) */
};

struct json {
	struct jinput *in;
	int ninputs;
	struct procmodel *pm;
	struct slices *sl;	/* begin/end pairs (model/slices.c) */
	struct tdat_sink *out;
	struct tdat_sink scratch;	/* a slice's args while it is open */
	struct jthread *th;
	int nth;
	struct tdat_sink stage;	/* the systemTraceEvents text, escaped */
	bool stage_ok;
	bool started, based;
	uint64_t base, last_ts, nev;
	const struct tdat_event *pre_ev;	/* the event being put, if a worker prepared its fields */
	const char *pre;		/* those fields (json_prepare()) */
	size_t pre_len;
	const struct tdat_event *inst_ev;	/* the event being put, if a worker prepared its instant: */
	int64_t inst_tid;		/* its tid, */
	const char *inst_head, *inst_tail;	/* its ",\n" and bytes up to "ts":, from ,"tid": */
	size_t inst_head_len, inst_tail_len;
	bool local;			/* a -j worker pairing slices itself (json-slices.c) */
	bool moded;			/* a worker: the event's mode op is written */
	const struct jtype *cur;	/* a worker: the type of the event being prepared */
};

/* ---- json.c ---- */

#define SYNTH_PID 0x40000000u	/* per-CPU tracks: above any real pid */

/* Synthetic ids of the per-CPU tracks: never a real pid, never tid 0. */
static inline uint32_t cpu_pid(int input)
{
	return SYNTH_PID + (uint32_t)input * 0x20000u;
}

static inline uint32_t cpu_tid(int input, int cpu)
{
	return cpu_pid(input) + 1 + (uint32_t)cpu;
}

struct jtype *type_of(struct json *j, const struct tdat_event *ev);
/* The label of @ev's buffer, NULL for an unnamed one. */
const struct jlabel *label_of(const struct json *j, const struct tdat_event *ev);
struct jcpu *cpu_of(struct json *j, int input, int cpu);
/* "buffer":"LABEL" */
void put_label(struct tdat_sink *sk, const struct jlabel *lb);
/* @cat, a string ending in ",\"ts\":", with ",LABEL" put at the end of the category. */
void put_cat(struct tdat_sink *sk, const char *cat, size_t len, const struct jlabel *lb);
/* "field":value,... of every field of @ev */
void put_fields(struct tdat_sink *sk, const struct tdat_event *ev, const struct jtype *jt);
/* {"field":value,...}, the buffer first if @lb (prepared fields: json.c) */
void put_args(const struct json *j, struct tdat_sink *sk, const struct tdat_event *ev,
	      const struct jtype *jt, const struct jlabel *lb);
void emit_instant(struct json *j, struct tdat_sink *sk, const struct tdat_event *ev,
		  const struct jtype *jt, uint32_t pid, uint32_t tid);
/* A worker: ,\n{"ph":"i",...,"ts": of @ev's instant, its first piece (OP_INST, json-slices.c) */
void instant_head(const struct json *j, struct tdat_sink *sk, const struct tdat_event *ev,
		  const struct jtype *jt);
/* A worker: ,"tid":...,"args":{...}} of @ev's instant, its last piece */
void instant_tail(const struct json *j, struct tdat_sink *sk, const struct tdat_event *ev,
		  const struct jtype *jt, uint32_t tid);
struct jthread *json_thread(struct json *j, int utid);
/* The pid written with @utid's events and lines, fixed at first use. */
uint32_t json_thread_pid(struct json *j, int utid, struct jthread *t);

static inline uint64_t rel(const struct json *j, uint64_t ts)
{
	return ts > j->base ? ts - j->base : 0;
}

/* ---- json-slices.c: slices, on one thread or paired by the -j workers ---- */

struct slices *json_slices_new(struct json *j);
/* json-pair.c: how the JSON writer pairs begins and ends (the model's SL_JSON). */
extern const struct sl_pairing json_pairing;
/* A slice event on the caller's model (thread @utid). */
int put_slice(struct json *j, const struct tdat_event *ev, const struct jtype *jt, int utid);
int json_prepare(struct tdat_writer *w, const struct tdat_event *ev);
int json_prepare_end(struct tdat_writer *w);
int json_put_trailer(struct tdat_writer *w, const char *p, size_t n);
/*
 * The caller, with the bytes a worker prepared for @ev: take the open
 * slices it hands over; then the prepared fields are j->pre, or *@op
 * is what is left to replay of its own pairing (json_replay()).
 */
int json_take_ops(struct json *j, const struct tdat_event *ev, const char *p, size_t n,
		  const char **op);
int json_replay(struct json *j, const struct tdat_event *ev, const struct jtype *jt, int utid,
		const char *op, const char *end);

/* ---- json-line.c: strings, and the text lines ---- */

enum { JE_U = 1, JE_LINE = 2, JE_NOSPACE = 4, JE_NODASH = 8 };

/* Up to @n bytes of @s (ending at a NUL) as JSON string content (see json-line.c). */
void put_esc(struct tdat_sink *sk, const void *s, size_t n, unsigned mode);
void put_str(struct tdat_sink *sk, const char *s);
/* The text line role of @jt's type, if it has one: 0, or TDAT_ENOMEM. */
int line_role(struct jtype *jt);
/* @ev as a text line; 1 if it is not one (an ftrace print that is not atrace). */
int put_line(struct json *j, const struct tdat_event *ev, const struct jtype *jt, int utid,
	     int64_t tid);
/* Is @ev's buffer the one whose events of @jt's kind become text lines (the first seen)? */
bool line_buffer(struct json *j, const struct tdat_event *ev, const struct jtype *jt);
int stage_open(struct json *j, struct tdat_writer *w);
/* Append the staged text lines. */
int copy_stage(struct json *j, struct tdat_writer *w);

/* ---- numbers ---- */

/* Straight into the sink's buffer: the hot path of every event. */
static inline void put_u64(struct tdat_sink *sk, uint64_t v)
{
	char *d = sink_reserve(sk, 24);

	if (d)
		sink_commit(sk, fmt_u64(d, v));
}

/* A short string of @n bytes that may be copied 32 bytes at a time (padded). */
static inline void put_padded(struct tdat_sink *sk, const char *s, size_t n)
{
	char *d;

	if (n > 32 || !(d = sink_reserve(sk, 32))) {
		sink_write(sk, s, n);
		return;
	}
	memcpy(d, s, 32);
	sink_commit(sk, n);
}

static inline void put_i64(struct tdat_sink *sk, int64_t v)
{
	if (v < 0) {
		sink_putc(sk, '-');
		put_u64(sk, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(sk, (uint64_t)v);
	}
}

static inline void sep(struct json *j, struct tdat_sink *sk)
{
	if (j->nev++)
		put_lit(sk, ",\n");
	else
		sink_putc(sk, '\n');
}

static inline void put_ids(struct tdat_sink *sk, uint32_t pid, uint32_t tid)
{
	put_lit(sk, ",\"pid\":");
	put_u64(sk, pid);
	put_lit(sk, ",\"tid\":");
	put_u64(sk, tid);
}

/*
 * A field's integer as a JSON reader keeps it: a number while a double
 * holds it exactly (|v| <= 2^53), else its decimal digits as a string; a
 * pointer as a "0x..." string.
 */
void json_put_number(struct tdat_sink *sk, enum tkind kind, uint64_t v);

/* @v as exactly @n decimal digits. */
static inline void put_digits(struct tdat_sink *sk, unsigned v, int n)
{
	char *d = sink_reserve(sk, 16);

	if (!d)
		return;
	for (int i = n - 1; i >= 0; i--, v /= 10)
		d[i] = (char)('0' + v % 10);
	sink_commit(sk, (size_t)n);
}

/* Nanoseconds as microseconds with three decimals, straight into the sink's buffer. */
static inline void put_us(struct tdat_sink *sk, uint64_t ns)
{
	char *d = sink_reserve(sk, 32);
	unsigned f = (unsigned)(ns % 1000);
	size_t n;

	if (!d)
		return;
	n = fmt_u64(d, ns / 1000);
	d[n] = '.';
	d[n + 1] = (char)('0' + f / 100);
	d[n + 2] = (char)('0' + f / 10 % 10);
	d[n + 3] = (char)('0' + f % 10);
	sink_commit(sk, n + 4);
}

#endif /* TDAT_WRITE_JSON_H */
