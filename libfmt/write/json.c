/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * json.c - the "json" format: Chrome Trace Event JSON as Perfetto
 * (ui.perfetto.dev) and catapult (chrome://tracing) import it, streamed:
 *
 *   {"traceEvents":[ ...events... ],
 *    "displayTimeUnit":"ns",
 *    "systemTraceEvents":"# tracer: nop\n...ftrace text lines...",
 *    "metadata":{...}}
 *
 * Scheduling and power events (sched_switch, sched_waking, sched_wakeup,
 * sched_blocked_reason, cpu_frequency, cpu_idle) and atrace-style markers
 * (ftrace print "B|pid|name", "E", "C|pid|name|value"...) become ftrace text
 * lines in systemTraceEvents, in the one layout both importers' line
 * regexes accept, so the viewers build their own CPU, thread-state and
 * counter tracks.  Those lines are written while streaming to an unlinked
 * temporary file under $TMPDIR, already escaped, and copied in at close.
 *
 * Every other event goes into traceEvents: begin/end pairs (irq and softirq
 * handlers, hrtimer and timer expiry on synthetic per-CPU tracks; syscalls
 * and workqueue items on the thread) as "X" slices whose args hold one
 * object per event ({"sys_enter":{...},"sys_exit":{...}}), kept properly
 * nested per track; everything else, and ends without a begin, as thread
 * instants ("ph":"i","s":"t") with the fields as typed args.  A begin still
 * open at the end of the trace (or when a begin of the same kind comes, or
 * an outer slice ends) is closed there with "unfinished":true.  "M" events
 * name every thread and process from the process model (procs.c).
 *
 * Every event in traceEvents says which buffer it came from when the
 * buffer has a name: its category is "SYSTEM,BUFFER" and its args start
 * with "buffer":"BUFFER" (an event field of that name is "field_buffer").
 * A buffer is named as in a merged trace.dat: an instance's name, and with
 * several inputs "NAME" for an input's top buffer and "NAME:INSTANCE".
 * Text lines cannot say it without breaking the importers' ftrace parsers:
 * sched and power lines come from one buffer per input (the first that has
 * such an event, as for SQLite's tables); the same events of its other
 * buffers are instants in traceEvents, with their buffer.
 *
 * ts/dur are microseconds with three decimals (exact ns); text lines use
 * seconds with nine decimals plus a tenth, '5' (half a ns), so Perfetto's
 * truncating parse lands on the exact ns.  Clock values >= 2^52 ns are
 * rebased on the first event; the offset is in metadata.ts_offset_ns.
 * Strings are UTF-8: bytes that are not become U+FFFD, no \u surrogates.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "model/model.h"
#include "write/write.h"

#define SYNTH_PID 0x40000000u	/* per-CPU tracks: above any real pid */
#define REBASE_MIN (1ull << 52)	/* ns; beyond 2^53 doubles lose ns */
#define TASK_REPORT_MAX 0x100	/* prev_state bit: preempted (>= 4.14) */

#define put_lit(sk, s) sink_write((sk), (s), sizeof(s) - 1)

enum jrole { JR_INSTANT, JR_BEGIN, JR_END, JR_SWITCH, JR_WAKE, JR_BLOCKED, JR_POWER, JR_PRINT };
enum jname { JN_STR, JN_VEC, JN_NUM, JN_SYSCALL, JN_SYM };

/* A begin/end pair and how its slice is keyed and named. */
struct jrule {
	const char *system, *begin, *end, *key, *name;
	enum jname how;
	bool per_cpu, nests;	/* nests: several of it may be open on one track */
};

static const struct jrule rules[] = {
	{ "irq", "irq_handler_entry", "irq_handler_exit", "irq", "name", JN_STR, true, true },
	{ "irq", "softirq_entry", "softirq_exit", "vec", "vec", JN_VEC, true, false },
	{ "timer", "hrtimer_expire_entry", "hrtimer_expire_exit", "hrtimer", "function", JN_SYM, true, false },
	{ "timer", "timer_expire_entry", "timer_expire_exit", "timer", "function", JN_SYM, true, false },
	{ "raw_syscalls", "sys_enter", "sys_exit", "id", "id", JN_NUM, false, false },
	{ "workqueue", "workqueue_execute_start", "workqueue_execute_end", "work", "function", JN_SYM, false, false },
	{ "syscalls", "sys_enter_", "sys_exit_", NULL, NULL, JN_SYSCALL, false, false },
};

/* What the writer keeps per event type. */
struct jtype {
	const struct ttype *tt;
	enum jrole role;
	const struct jrule *rule;
	const struct tfield *key, *namef;	/* slices */
	uint64_t fixed_key;			/* syscalls: id of the sys_enter_ type */
	bool feed;				/* the process model needs every event */
	char *head;				/* instant: {"ph":"i",...,"ts": */
	char *argkey;				/* "name":{ */
	char *cat;				/* ,"cat":"system","ts": */
	char *sysname;				/* syscalls: "name" */
	size_t head_len, argkey_len, cat_len, sysname_len;
	char **keys;				/* ,"field": (no comma for the first) */
	unsigned *key_lens;
	const struct tfield *lf[7];		/* fields the text lines use */
};

/* A buffer's name as JSON string content; a label only for buffers that have a name. */
struct jlabel {
	char *s;
	size_t len;
};

struct jopen {
	uint64_t ts, key;
	const struct jtype *jt;
	const struct jlabel *label;	/* the begin's buffer: its end must come from it */
	size_t off, name_len;	/* in the arena: the name (JSON string), then the args */
};

/* A timeline that holds slices: a thread or a CPU. */
struct jtrack {
	struct jopen *st;
	int n, cap;
	struct tdat_sink arena;	/* memory sink */
};

struct jthread {
	int64_t pid;		/* pid written with this thread; -1 none yet */
	bool fed;		/* the process model saw one of its events */
	struct jtrack tr;
};

struct jcpu {
	bool used;
	struct jtrack tr;
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
};

struct json {
	struct jinput *in;
	int ninputs;
	struct procmodel *pm;
	struct jthread *th;
	int nth;
	struct tdat_sink stage;	/* the systemTraceEvents text, escaped */
	bool stage_ok;
	bool started, based;
	uint64_t base, last_ts, nev;
};

/* ---- text ---- */

enum { JE_U = 1, JE_LINE = 2, JE_NOSPACE = 4, JE_NODASH = 8 };

/*
 * Up to @n bytes of @s (ending at a NUL) as JSON string content.  Without
 * JE_LINE, control characters are escaped (short forms, else \u00XX); with
 * it (text lines, where the importers take only short forms and a line
 * break would split the line) they become '_', as do spaces (JE_NOSPACE)
 * and '-' (JE_NODASH).  Bytes that are not UTF-8 become U+FFFD.
 */
static void put_esc(struct tdat_sink *sk, const void *s, size_t n, unsigned mode)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = s;
	char *d = sink_reserve(sk, n * 6 + 8), *o = d;
	size_t i = 0, l;

	if (!d)
		return;
	while (i < n && p[i]) {
		unsigned ch = p[i];

		if (ch >= 0x80) {
			if ((l = utf8_len(p + i, n - i))) {
				memcpy(o, p + i, l);
				o += l;
				i += l;
			} else {
				memcpy(o, "\xef\xbf\xbd", 3);
				o += 3;
				i++;
			}
			continue;
		}
		i++;
		if (ch == '"' || ch == '\\') {
			*o++ = '\\';
			*o++ = (char)ch;
		} else if (ch < 0x20 || ch == 0x7f) {
			if (mode & JE_LINE) {
				*o++ = '_';
			} else if (ch == '\n' || ch == '\t' || ch == '\r') {
				*o++ = '\\';
				*o++ = ch == '\n' ? 'n' : ch == '\t' ? 't' : 'r';
			} else if (ch == 0x7f) {
				*o++ = (char)ch;
			} else {
				memcpy(o, "\\u00", 4);
				o[4] = hex[ch >> 4];
				o[5] = hex[ch & 15];
				o += 6;
			}
		} else if ((ch == ' ' && (mode & JE_NOSPACE)) || (ch == '-' && (mode & JE_NODASH))) {
			*o++ = '_';
		} else {
			*o++ = (char)ch;
		}
	}
	sink_commit(sk, (size_t)(o - d));
}

static void put_str(struct tdat_sink *sk, const char *s)
{
	sink_putc(sk, '"');
	put_esc(sk, s, strlen(s), JE_U);
	sink_putc(sk, '"');
}

/* ---- numbers ---- */

static const char pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* @v in decimal, backwards from @end; 32-bit arithmetic in 8-digit steps. */
static inline char *fmt_back(char *end, uint64_t v)
{
	char *p = end;

	while (v >= 100000000) {
		uint32_t r = (uint32_t)(v % 100000000);

		v /= 100000000;
		for (int i = 0; i < 4; i++, r /= 100) {
			p -= 2;
			memcpy(p, pairs + (r % 100) * 2, 2);
		}
	}
	for (uint32_t w = (uint32_t)v; ; ) {
		if (w < 10) {
			*--p = (char)('0' + w);
			break;
		}
		p -= 2;
		memcpy(p, pairs + (w % 100) * 2, 2);
		if ((w /= 100) == 0)
			break;
	}
	return p;
}

static const uint64_t pow10s[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

static inline unsigned ndigits(uint64_t v)
{
	/* v | 1 has as many digits as v (powers of ten are even), 0 has one */
	unsigned t = (unsigned)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + ((v | 1) >= pow10s[t]);
}

/* Straight into the sink's buffer: the hot path of every event. */
static inline void put_u64(struct tdat_sink *sk, uint64_t v)
{
	char *d = sink_reserve(sk, 24);
	unsigned n = ndigits(v);

	if (!d)
		return;
	fmt_back(d + n, v);
	sink_commit(sk, n);
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

/* Nanoseconds as microseconds with three decimals. */
static inline void put_us(struct tdat_sink *sk, uint64_t ns)
{
	char b[32], *e = b + sizeof(b), *p;
	unsigned f = (unsigned)(ns % 1000);

	e[-1] = (char)('0' + f % 10);
	memcpy(e - 3, pairs + (f / 10) * 2, 2);
	e[-4] = '.';
	p = fmt_back(e - 4, ns / 1000);
	sink_write(sk, p, (size_t)(e - p));
}

static void put_hex_str(struct tdat_sink *sk, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char b[24], *p = b + sizeof(b);

	*--p = '"';
	do
		*--p = hex[v & 15];
	while (v >>= 4);
	*--p = 'x';
	*--p = '0';
	*--p = '"';
	sink_write(sk, p, (size_t)(b + sizeof(b) - p));
}

/* ---- typed args ---- */

static void put_value(struct tdat_sink *sk, const struct tdat_event *ev, const struct tfield *f)
{
	const unsigned char *p;
	unsigned len;
	uint64_t v;

	if (f->kind == TK_STR || f->kind == TK_ARRAY) {
		if (!tfield_bytes(ev, f, &p, &len)) {
			put_lit(sk, "null");
		} else if (f->kind == TK_STR) {
			sink_putc(sk, '"');
			put_esc(sk, p, len, JE_U);
			sink_putc(sk, '"');
		} else {
			csv_put_array(sk, ev->file, p, len, f);	/* [a,b,...] is JSON too */
		}
	} else if (f->offset + f->size > ev->size) {
		put_lit(sk, "null");
	} else {
		/* the number kinds are only made for sizes 1, 2, 4 and 8 */
		v = field_raw(ev->file, (const unsigned char *)ev->data + f->offset, f->size);
		if (f->kind == TK_PTR) {
			put_hex_str(sk, v);
		} else if (f->kind == TK_INT) {
			if (f->size < 8)
				v = (uint64_t)((int64_t)(v << (64 - 8 * f->size)) >> (64 - 8 * f->size));
			put_i64(sk, (int64_t)v);
		} else {
			put_u64(sk, v);
		}
	}
}

/* "buffer":"LABEL" */
static void put_label(struct tdat_sink *sk, const struct jlabel *lb)
{
	put_lit(sk, "\"buffer\":\"");
	sink_write(sk, lb->s, lb->len);
	sink_putc(sk, '"');
}

/* {"field":value,...}, with the buffer first if @lb */
static void put_args(struct tdat_sink *sk, const struct tdat_event *ev, const struct jtype *jt,
		     const struct jlabel *lb)
{
	sink_putc(sk, '{');
	if (lb) {
		put_label(sk, lb);
		if (jt->tt->nfields)
			sink_putc(sk, ',');
	}
	for (int i = 0; i < jt->tt->nfields; i++) {
		put_padded(sk, jt->keys[i], jt->key_lens[i]);
		put_value(sk, ev, &jt->tt->fields[i]);
	}
	sink_putc(sk, '}');
}

/* ---- per-type tables ---- */

static void free_type(void *p)
{
	struct jtype *jt = p;

	if (!jt)
		return;
	for (int i = 0; jt->keys && i < jt->tt->nfields; i++)
		free(jt->keys[i]);
	free(jt->keys);
	free(jt->key_lens);
	free(jt->head);
	free(jt->argkey);
	free(jt->cat);
	free(jt->sysname);
	free(jt);
}

/* A string built with the escaping writers; NULL without memory. */
static char *build(size_t *len, const char *pre, const char *s, const char *post)
{
	struct tdat_sink b = { .fd = -1 };
	char *r;

	sink_write(&b, pre, strlen(pre));
	put_esc(&b, s, strlen(s), JE_U);
	sink_write(&b, post, strlen(post) + 1);
	sink_write(&b, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 32);
	b.len -= 32;	/* padding for put_padded() */
	r = b.err ? NULL : b.buf;
	if (!r)
		free(b.buf);
	*len = b.len - 1;
	return r;
}

static bool has_fields(const struct ttype *tt, const char *const *names, const struct tfield **out)
{
	for (int i = 0; names[i]; i++)
		if (!(out[i] = ttype_field(tt, names[i])))
			return false;
	return true;
}

static bool is_num(const struct tfield *f)
{
	return f && f->kind != TK_STR && f->kind != TK_ARRAY;
}

static bool is_str(const struct tfield *f)
{
	return f && f->kind == TK_STR;
}

/* sched, power and ftrace events that become text lines. */
static void line_role(struct jtype *jt)
{
	static const char *const sw[] = { "prev_comm", "prev_pid", "prev_prio", "prev_state",
					  "next_comm", "next_pid", "next_prio", NULL };
	static const char *const wk[] = { "comm", "pid", "prio", "target_cpu", NULL };
	static const char *const bl[] = { "pid", "io_wait", "caller", NULL };
	static const char *const pw[] = { "state", "cpu_id", NULL };
	static const char *const pr[] = { "buf", NULL };
	const struct ttype *tt = jt->tt;
	const char *n = tt->name;

	if (!strcmp(tt->system, "sched")) {
		if (!strcmp(n, "sched_switch") && has_fields(tt, sw, jt->lf) && is_str(jt->lf[0]) &&
		    is_str(jt->lf[4]) && is_num(jt->lf[1]) && is_num(jt->lf[2]) && is_num(jt->lf[3]) &&
		    is_num(jt->lf[5]) && is_num(jt->lf[6]))
			jt->role = JR_SWITCH;
		else if ((!strcmp(n, "sched_waking") || !strcmp(n, "sched_wakeup")) &&
			 has_fields(tt, wk, jt->lf) && is_str(jt->lf[0]) && is_num(jt->lf[1]) &&
			 is_num(jt->lf[2]) && is_num(jt->lf[3]))
			jt->role = JR_WAKE;
		else if (!strcmp(n, "sched_blocked_reason") && has_fields(tt, bl, jt->lf) &&
			 is_num(jt->lf[0]) && is_num(jt->lf[1]) && is_num(jt->lf[2]))
			jt->role = JR_BLOCKED;
	} else if (!strcmp(tt->system, "power")) {
		if ((!strcmp(n, "cpu_frequency") || !strcmp(n, "cpu_idle")) && has_fields(tt, pw, jt->lf) &&
		    is_num(jt->lf[0]) && is_num(jt->lf[1]))
			jt->role = JR_POWER;
	} else if (!strcmp(tt->system, "ftrace") && !strcmp(n, "print") && has_fields(tt, pr, jt->lf) &&
		   is_str(jt->lf[0])) {
		jt->role = JR_PRINT;
	}
}

/* The id of the sys_enter_ type that pairs with syscalls:sys_exit_NAME. */
static bool syscall_pair(struct tdat_file *f, const char *name, uint64_t *id)
{
	struct tep_event *e;
	char *b;

	if (asprintf(&b, "sys_enter_%s", name) < 0)
		return false;
	e = tep_find_event_by_name(f->tep, "syscalls", b);
	free(b);
	if (e)
		*id = (uint64_t)e->id;
	return e != NULL;
}

/* Begin and end events of the pairs in rules[]. */
static int slice_role(struct jtype *jt, struct tdat_file *f)
{
	const struct ttype *tt = jt->tt;

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct jrule *r = &rules[i];
		size_t lb = strlen(r->begin), le = strlen(r->end);
		bool b, e;

		if (strcmp(tt->system, r->system))
			continue;
		if (r->how == JN_SYSCALL) {
			b = !strncmp(tt->name, r->begin, lb) && tt->name[lb];
			e = !strncmp(tt->name, r->end, le) && tt->name[le];
			if (b) {
				jt->fixed_key = tt->id;
				jt->sysname = build(&jt->sysname_len, "\"", tt->name + lb, "\"");
				if (!jt->sysname)
					return TDAT_ENOMEM;
			} else if (e && !syscall_pair(f, tt->name + le, &jt->fixed_key)) {
				e = false;
			}
		} else {
			b = !strcmp(tt->name, r->begin);
			e = !strcmp(tt->name, r->end);
			if (!b && !e)
				continue;
			jt->key = ttype_field(tt, r->key);
			jt->namef = b ? ttype_field(tt, r->name) : NULL;
			if (!is_num(jt->key) || (b && !jt->namef))
				return 0;
		}
		if (b || e) {
			jt->role = b ? JR_BEGIN : JR_END;
			jt->rule = r;
			return 0;
		}
	}
	return 0;
}

static struct jtype *compile(const struct ttype *tt, struct tdat_file *f)
{
	struct jtype *jt = calloc(1, sizeof(*jt));
	const char *name = tt->event ? tt->name : "unknown";
	size_t len;

	if (!jt)
		return NULL;
	jt->tt = tt;
	jt->feed = tt->event && pm_wants(tt);
	jt->keys = calloc((size_t)tt->nfields + 1, sizeof(*jt->keys));
	jt->key_lens = calloc((size_t)tt->nfields + 1, sizeof(*jt->key_lens));
	jt->argkey = build(&jt->argkey_len, "\"", name, "\":");
	jt->cat = build(&jt->cat_len, ",\"cat\":\"", tt->system, "\",\"ts\":");
	if (!jt->keys || !jt->key_lens || !jt->argkey || !jt->cat)
		goto fail;
	if (asprintf(&jt->head, "{\"ph\":\"i\",\"s\":\"t\",\"name\":%.*s%s",
		     (int)jt->argkey_len - 1, jt->argkey, jt->cat) < 0) {
		jt->head = NULL;
		goto fail;
	}
	jt->head_len = strlen(jt->head);
	for (int i = 0; i < tt->nfields; i++) {
		/* "buffer" is the key of the event's buffer */
		const char *key = strcmp(tt->fields[i].name, "buffer") ? tt->fields[i].name : "field_buffer";

		if (!(jt->keys[i] = build(&len, i ? ",\"" : "\"", key, "\":")))
			goto fail;
		jt->key_lens[i] = (unsigned)len;
	}
	if (tt->event) {
		line_role(jt);
		if (jt->role == JR_INSTANT && slice_role(jt, f))
			goto fail;
	}
	return jt;
fail:
	free_type(jt);
	return NULL;
}

static struct jtype *type_of(struct json *j, const struct tdat_event *ev)
{
	const struct ttype *tt = file_type(ev->file, ev);
	void **slot = tt ? idtab_slot(&j->in[ev->input].types, tt->id) : NULL;

	if (!slot)
		return NULL;
	if (!*slot)
		*slot = compile(tt, ev->file);
	return *slot;
}

/* ---- threads, CPUs and time ---- */

static struct jthread *thread_of(struct json *j, int utid)
{
	if (utid >= j->nth) {
		int cap = j->nth ? j->nth : 256;
		struct jthread *t;

		while (cap <= utid)
			cap *= 2;
		if (!(t = realloc(j->th, sizeof(*t) * (size_t)cap)))
			return NULL;
		memset(t + j->nth, 0, sizeof(*t) * (size_t)(cap - j->nth));
		for (int i = j->nth; i < cap; i++) {
			t[i].pid = -1;
			t[i].tr.arena.fd = -1;
		}
		j->th = t;
		j->nth = cap;
	}
	return &j->th[utid];
}

static struct jcpu *cpu_of(struct json *j, int input, int cpu)
{
	struct jinput *in = &j->in[input];

	if (cpu < 0 || cpu >= MAX_CPUS)
		cpu = 0;
	if (cpu >= in->ncpus) {
		int cap = in->ncpus ? in->ncpus : 8;
		struct jcpu *c;

		while (cap <= cpu)
			cap *= 2;
		if (!(c = realloc(in->cpus, sizeof(*c) * (size_t)cap)))
			return NULL;
		memset(c + in->ncpus, 0, sizeof(*c) * (size_t)(cap - in->ncpus));
		for (int i = in->ncpus; i < cap; i++)
			c[i].tr.arena.fd = -1;
		in->cpus = c;
		in->ncpus = cap;
	}
	in->cpus[cpu].used = true;
	return &in->cpus[cpu];
}

/* Synthetic ids of the per-CPU tracks: never a real pid, never tid 0. */
static uint32_t cpu_pid(int input)
{
	return SYNTH_PID + (uint32_t)input * 0x20000u;
}

static uint32_t cpu_tid(int input, int cpu)
{
	return cpu_pid(input) + 1 + (uint32_t)cpu;
}

/*
 * The pid written with @utid's events and lines, fixed at first use: every
 * event binds its tid to its pid in the importers, so a thread must keep
 * one (the process model may learn the process later; it is then too late).
 */
static uint32_t thread_pid(struct json *j, int utid, struct jthread *t)
{
	if (t->pid < 0) {
		const struct pm_thread *th = pm_thread(j->pm, utid);
		const struct pm_process *pr = pm_process(j->pm, th->upid);

		t->pid = pr ? pr->pid : th->tid;
	}
	return (uint32_t)t->pid;
}

/* The tgid for a text line, -1 for "-----" (not known yet, or idle). */
static int64_t line_tgid(struct json *j, int utid, struct jthread *t)
{
	if (utid == 0 || (t->pid < 0 && pm_thread(j->pm, utid)->upid <= 0))
		return -1;
	return thread_pid(j, utid, t);
}

static inline uint64_t rel(const struct json *j, uint64_t ts)
{
	return ts > j->base ? ts - j->base : 0;
}

static inline void sep(struct json *j, struct tdat_sink *sk)
{
	if (j->nev++)
		put_lit(sk, ",\n");
	else
		sink_putc(sk, '\n');
}

static void put_ids(struct tdat_sink *sk, uint32_t pid, uint32_t tid)
{
	put_lit(sk, ",\"pid\":");
	put_u64(sk, pid);
	put_lit(sk, ",\"tid\":");
	put_u64(sk, tid);
}

/* ---- text lines (systemTraceEvents) ---- */

/* Right-aligned in @width columns. */
static void put_rjust(struct tdat_sink *sk, uint64_t v, int width)
{
	char b[24];
	size_t n = fmt_u64(b, v);

	for (int i = (int)n; i < width; i++)
		sink_putc(sk, ' ');
	sink_write(sk, b, n);
}

/* "%16s-%-5d (%5d) [%03d] .... SECONDS: " */
static void line_head(struct json *j, const void *comm, size_t n, uint32_t tid, int64_t tgid,
		      int cpu, uint64_t ts)
{
	static const char spaces[] = "                ";
	struct tdat_sink *s = &j->stage;
	char b[24];
	size_t l;

	if (!n) {
		comm = "<...>";
		n = 5;
	}
	if (n > 64)
		n = 64;
	if (n < 16)
		sink_write(s, spaces, 16 - n);
	put_esc(s, comm, n, JE_LINE | JE_NOSPACE | JE_NODASH);
	sink_putc(s, '-');
	l = fmt_u64(b, tid);
	sink_write(s, b, l);
	if (l < 5)
		sink_write(s, spaces, 5 - l);
	put_lit(s, " (");
	if (tgid < 0)
		put_lit(s, "-----");
	else
		put_rjust(s, (uint64_t)tgid, 5);
	put_lit(s, ") [");
	if (cpu < 0)
		cpu = 0;
	l = fmt_u64(b, (uint64_t)cpu);
	if (l < 3)
		sink_write(s, "000", 3 - l);
	sink_write(s, b, l);
	put_lit(s, "] .... ");
	ts = rel(j, ts);
	put_u64(s, ts / 1000000000);
	sink_putc(s, '.');
	put_digits(s, (unsigned)(ts % 1000000000), 9);
	put_lit(s, "5: ");	/* half a ns: see the top of the file */
}

static inline void line_end(struct json *j)
{
	put_lit(&j->stage, "\\n");
}

/* The command name of a thread: the process model's, the file's, or <...>. */
static const char *thread_comm(struct json *j, int utid, const struct tdat_event *ev, int64_t tid)
{
	const struct pm_thread *th = pm_thread(j->pm, utid);
	struct tep_handle *tep = ev->file->tep;

	if (utid == 0)
		return "<idle>";
	if (th && th->name)
		return th->name;
	if (tid >= 0 && tid <= 0x7fffffff && tep_is_pid_registered(tep, (int)tid))
		return tep_data_comm_from_pid(tep, (int)tid);
	return "<...>";
}

static void line_task(struct json *j, const struct tdat_event *ev, int utid, int64_t tid)
{
	const char *comm = thread_comm(j, utid, ev, tid);
	struct jthread *t = thread_of(j, utid);

	line_head(j, comm, strlen(comm), (uint32_t)tid, t ? line_tgid(j, utid, t) : -1, ev->cpu, ev->ts);
}

static void line_num(struct tdat_sink *s, const char *key, const struct tdat_event *ev,
		     const struct tfield *f)
{
	uint64_t v = 0;

	sink_write(s, key, strlen(key));
	tfield_num(ev, f, &v);
	if (f->kind == TK_INT)
		put_i64(s, (int64_t)v);
	else
		put_u64(s, v);
}

static void line_comm(struct tdat_sink *s, const char *key, const struct tdat_event *ev,
		      const struct tfield *f)
{
	const unsigned char *p = NULL;
	unsigned n = 0;

	sink_write(s, key, strlen(key));
	if (!tfield_bytes(ev, f, &p, &n) || !n) {
		p = (const unsigned char *)"<...>";
		n = 5;
	}
	put_esc(s, p, n, JE_LINE | JE_NOSPACE);
}

/* prev_state as the kernel prints it (>= 4.14): S|D..., R, and + if preempted. */
static void line_state(struct tdat_sink *s, uint64_t st)
{
	static const char letters[] = "SDTtXZPI";
	char b[24];
	size_t n = 0;

	for (int i = 0; i < 8; i++) {
		if (!(st & (1u << i)))
			continue;
		if (n)
			b[n++] = '|';
		b[n++] = letters[i];
	}
	if (!n)
		b[n++] = 'R';
	if (st & TASK_REPORT_MAX)
		b[n++] = '+';
	sink_write(s, b, n);
}

static void line_switch(struct json *j, const struct tdat_event *ev, const struct jtype *jt,
			int utid, int64_t tid)
{
	struct tdat_sink *s = &j->stage;
	struct jthread *t = thread_of(j, utid);
	const unsigned char *p;
	unsigned n = 0;
	uint64_t st = 0;

	if (utid == 0 || !tfield_bytes(ev, jt->lf[0], &p, &n)) {
		line_task(j, ev, utid, tid);
	} else {
		line_head(j, p, n, (uint32_t)tid, t ? line_tgid(j, utid, t) : -1, ev->cpu, ev->ts);
	}
	put_lit(s, "sched_switch: ");
	line_comm(s, "prev_comm=", ev, jt->lf[0]);
	line_num(s, " prev_pid=", ev, jt->lf[1]);
	line_num(s, " prev_prio=", ev, jt->lf[2]);
	put_lit(s, " prev_state=");
	tfield_num(ev, jt->lf[3], &st);
	line_state(s, st);
	line_comm(s, " ==> next_comm=", ev, jt->lf[4]);
	line_num(s, " next_pid=", ev, jt->lf[5]);
	line_num(s, " next_prio=", ev, jt->lf[6]);
	line_end(j);
}

static void line_wake(struct json *j, const struct tdat_event *ev, const struct jtype *jt,
		      int utid, int64_t tid)
{
	struct tdat_sink *s = &j->stage;
	uint64_t cpu = 0;
	char b[24];
	size_t l;

	line_task(j, ev, utid, tid);
	put_esc(s, jt->tt->name, strlen(jt->tt->name), JE_LINE);
	line_comm(s, ": comm=", ev, jt->lf[0]);
	line_num(s, " pid=", ev, jt->lf[1]);
	line_num(s, " prio=", ev, jt->lf[2]);
	put_lit(s, " target_cpu=");
	tfield_num(ev, jt->lf[3], &cpu);
	l = fmt_u64(b, (uint32_t)cpu);
	if (l < 3)
		sink_write(s, "000", 3 - l);
	sink_write(s, b, l);
	line_end(j);
}

static void line_blocked(struct json *j, const struct tdat_event *ev, const struct jtype *jt,
			 int utid, int64_t tid)
{
	struct tdat_sink *s = &j->stage;
	const char *fn;
	uint64_t v = 0;

	line_task(j, ev, utid, tid);
	line_num(s, "sched_blocked_reason: pid=", ev, jt->lf[0]);
	line_num(s, " iowait=", ev, jt->lf[1]);
	put_lit(s, " caller=");
	tfield_num(ev, jt->lf[2], &v);
	if ((fn = function_name(ev->file, v)))
		put_esc(s, fn, strlen(fn), JE_LINE | JE_NOSPACE);
	else
		sink_printf(s, "0x%llx", (unsigned long long)v);
	line_end(j);
}

static void line_power(struct json *j, const struct tdat_event *ev, const struct jtype *jt,
		       int utid, int64_t tid)
{
	struct tdat_sink *s = &j->stage;
	uint64_t v = 0;

	line_task(j, ev, utid, tid);
	sink_write(s, jt->tt->name, strlen(jt->tt->name));
	put_lit(s, ": state=");
	tfield_num(ev, jt->lf[0], &v);
	put_u64(s, (uint32_t)v);
	put_lit(s, " cpu_id=");
	tfield_num(ev, jt->lf[1], &v);
	put_u64(s, (uint32_t)v);
	line_end(j);
}

static bool digits_at(const unsigned char *p, size_t n, size_t *i, bool sign)
{
	size_t s;

	if (sign && *i < n && p[*i] == '-')
		(*i)++;
	s = *i;
	while (*i < n && p[*i] >= '0' && p[*i] <= '9')
		(*i)++;
	return *i > s;
}

/*
 * An atrace payload both importers take: B|pid|name, E or E|pid...,
 * C|pid|name|int, S|pid|name|int, F|pid|name|int; no control characters.
 */
static bool atrace_ok(const unsigned char *p, size_t n)
{
	const unsigned char *last;
	size_t i = 2;

	for (size_t k = 0; k < n; k++)
		if (p[k] < 0x20 || p[k] == 0x7f)
			return false;
	if (n == 1 && p[0] == 'E')
		return true;
	if (n < 3 || p[1] != '|' || !strchr("BECSF", p[0]) || !digits_at(p, n, &i, false))
		return false;
	if (p[0] == 'E')
		return i == n || p[i] == '|';
	if (i + 1 >= n || p[i] != '|')
		return false;
	if (p[0] == 'B')
		return true;
	/* C, S, F: a name, then an integer after the last bar */
	last = memrchr(p + i + 1, '|', n - i - 1);
	if (!last || last == p + i + 1)
		return false;
	i = (size_t)(last - p) + 1;
	return digits_at(p, n, &i, p[0] == 'C') && i == n;
}

/* An ftrace print: a tracing_mark_write line if it is atrace; false if not. */
static bool line_print(struct json *j, const struct tdat_event *ev, const struct jtype *jt,
		       int utid, int64_t tid)
{
	const unsigned char *p;
	unsigned n;

	if (!tfield_bytes(ev, jt->lf[0], &p, &n))
		return false;
	while (n && (p[n - 1] == '\n' || p[n - 1] == '\0'))
		n--;
	if (!atrace_ok(p, n))
		return false;
	line_task(j, ev, utid, tid);
	put_lit(&j->stage, "tracing_mark_write: ");
	put_esc(&j->stage, p, n, JE_LINE);
	line_end(j);
	return true;
}

/* ---- events in traceEvents ---- */

/* The label of @ev's buffer, NULL for an unnamed one. */
static const struct jlabel *label_of(const struct json *j, const struct tdat_event *ev)
{
	const struct jinput *in = &j->in[ev->input];

	if (ev->buffer < 0 || ev->buffer >= in->nbuffers || !in->labels[ev->buffer].s)
		return NULL;
	return &in->labels[ev->buffer];
}

#define CAT_END "\",\"ts\":"

/* @cat, a string ending in CAT_END, with ",LABEL" put at the end of the category. */
static void put_cat(struct tdat_sink *sk, const char *cat, size_t len, const struct jlabel *lb)
{
	size_t tail = sizeof(CAT_END) - 1;

	if (!lb || len < tail) {
		sink_write(sk, cat, len);
		return;
	}
	sink_write(sk, cat, len - tail);
	sink_putc(sk, ',');
	sink_write(sk, lb->s, lb->len);
	sink_write(sk, cat + len - tail, tail);
}

static void emit_instant(struct json *j, struct tdat_sink *sk, const struct tdat_event *ev,
			 const struct jtype *jt, uint32_t pid, uint32_t tid)
{
	const struct jlabel *lb = label_of(j, ev);

	sep(j, sk);
	put_cat(sk, jt->head, jt->head_len, lb);
	put_us(sk, rel(j, ev->ts));
	put_ids(sk, pid, tid);
	put_lit(sk, ",\"args\":");
	put_args(sk, ev, jt, lb);
	sink_putc(sk, '}');
}

static void emit_lost(struct json *j, struct tdat_sink *sk, const struct tdat_event *ev)
{
	static const char head[] = "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"lost_events\",\"cat\":\"tdat" CAT_END;
	const struct jlabel *lb = label_of(j, ev);

	if (!cpu_of(j, ev->input, ev->cpu))
		return;
	sep(j, sk);
	put_cat(sk, head, sizeof(head) - 1, lb);
	put_us(sk, rel(j, ev->ts));
	put_ids(sk, cpu_pid(ev->input), cpu_tid(ev->input, ev->cpu));
	put_lit(sk, ",\"args\":{");
	if (lb) {
		put_label(sk, lb);
		sink_putc(sk, ',');
	}
	put_lit(sk, "\"cpu\":");
	put_i64(sk, ev->cpu);
	put_lit(sk, ",\"lost\":");
	put_i64(sk, ev->missed);
	put_lit(sk, "}}");
}

/* A track and the ids its events carry. */
struct where {
	struct jtrack *tr;
	uint32_t pid, tid;
};

static uint64_t slice_key(const struct tdat_event *ev, const struct jtype *jt)
{
	uint64_t v = 0;

	if (jt->rule->how == JN_SYSCALL)
		return jt->fixed_key;
	tfield_num(ev, jt->key, &v);
	return v;
}

static void slice_name(struct tdat_sink *a, const struct tdat_event *ev, const struct jtype *jt,
		       uint64_t key)
{
	static const char *const vecs[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					    "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };
	const unsigned char *p;
	const char *fn;
	unsigned n;
	uint64_t v = 0;

	switch (jt->rule->how) {
	case JN_SYSCALL:
		sink_write(a, jt->sysname, jt->sysname_len);
		return;
	case JN_STR:
		if (jt->namef->kind == TK_STR && tfield_bytes(ev, jt->namef, &p, &n) && n) {
			sink_putc(a, '"');
			put_esc(a, p, n, JE_U);
			sink_putc(a, '"');
			return;
		}
		break;
	case JN_VEC:
		if (key < sizeof(vecs) / sizeof(vecs[0])) {
			sink_printf(a, "\"softirq %s\"", vecs[key]);
			return;
		}
		break;
	case JN_SYM:
		tfield_num(ev, jt->namef, &v);
		if ((fn = function_name(ev->file, v))) {
			put_str(a, fn);
			return;
		}
		sink_printf(a, "\"0x%llx\"", (unsigned long long)v);
		return;
	case JN_NUM:
		break;
	}
	sink_putc(a, '"');
	if (jt->rule->how == JN_NUM)
		put_lit(a, "syscall");
	else
		put_esc(a, jt->tt->name, strlen(jt->tt->name), JE_U);
	sink_putc(a, ' ');
	put_i64(a, (int64_t)key);
	sink_putc(a, '"');
}

/*
 * The innermost open slice of @rule begun in the buffer labelled @lb on
 * @tr, with @key unless @any_key; -1 if there is none.
 */
static int find_open(const struct jtrack *tr, const struct jrule *rule, const struct jlabel *lb,
		     uint64_t key, bool any_key)
{
	for (int i = tr->n - 1; i >= 0; i--)
		if (tr->st[i].jt->rule == rule && tr->st[i].label == lb &&
		    (any_key || tr->st[i].key == key))
			return i;
	return -1;
}

/* Close the innermost open slice at @end, by @ev (NULL: unfinished). */
static void emit_x(struct json *j, struct tdat_sink *sk, const struct where *wh, uint64_t end,
		   const struct tdat_event *ev, const struct jtype *ejt)
{
	struct jtrack *tr = wh->tr;
	const struct jopen *o = &tr->st[--tr->n];
	const char *a = tr->arena.buf + o->off;

	sep(j, sk);
	put_lit(sk, "{\"ph\":\"X\",\"name\":");
	sink_write(sk, a, o->name_len);
	put_cat(sk, o->jt->cat, o->jt->cat_len, o->label);
	put_us(sk, rel(j, o->ts));
	put_lit(sk, ",\"dur\":");
	put_us(sk, end > o->ts ? end - o->ts : 0);
	put_ids(sk, wh->pid, wh->tid);
	put_lit(sk, ",\"args\":{");
	if (o->label) {
		put_label(sk, o->label);
		sink_putc(sk, ',');
	}
	sink_write(sk, a + o->name_len, tr->arena.len - o->off - o->name_len);
	if (ev) {
		sink_putc(sk, ',');
		sink_write(sk, ejt->argkey, ejt->argkey_len);
		put_args(sk, ev, ejt, NULL);
	} else {
		put_lit(sk, ",\"unfinished\":true");
	}
	put_lit(sk, "}}");
	tr->arena.len = o->off;
}

/* Close slices [@from, top] at @ts as unfinished, so that nesting holds. */
static void close_from(struct json *j, struct tdat_sink *sk, const struct where *wh, int from,
		       uint64_t ts)
{
	while (wh->tr->n > from)
		emit_x(j, sk, wh, ts, NULL, NULL);
}

static int slice_begin(struct json *j, struct tdat_sink *sk, const struct where *wh,
		       const struct tdat_event *ev, const struct jtype *jt)
{
	struct jtrack *tr = wh->tr;
	const struct jlabel *lb = label_of(j, ev);
	uint64_t key = slice_key(ev, jt);
	int i = find_open(tr, jt->rule, lb, key, !jt->rule->nests);
	struct jopen *o;

	/* a second begin of the same: its end was lost */
	if (i >= 0)
		close_from(j, sk, wh, i, ev->ts);
	if (array_room((void **)&tr->st, tr->n, &tr->cap, sizeof(*tr->st), 4))
		return TDAT_ENOMEM;
	o = &tr->st[tr->n++];
	o->ts = ev->ts;
	o->key = key;
	o->jt = jt;
	o->label = lb;
	o->off = tr->arena.len;
	slice_name(&tr->arena, ev, jt, key);
	o->name_len = tr->arena.len - o->off;
	sink_write(&tr->arena, jt->argkey, jt->argkey_len);
	put_args(&tr->arena, ev, jt, NULL);
	return tr->arena.err ? TDAT_ENOMEM : 0;
}

static void slice_end(struct json *j, struct tdat_sink *sk, const struct where *wh,
		      const struct tdat_event *ev, const struct jtype *jt)
{
	int i = find_open(wh->tr, jt->rule, label_of(j, ev), slice_key(ev, jt), false);

	if (i < 0) {
		emit_instant(j, sk, ev, jt, wh->pid, wh->tid);
		return;
	}
	close_from(j, sk, wh, i + 1, ev->ts);
	emit_x(j, sk, wh, ev->ts, ev, jt);
}

static int put_slice(struct json *j, struct tdat_sink *sk, const struct tdat_event *ev,
		     const struct jtype *jt, int utid, uint32_t tid)
{
	struct where wh;

	if (jt->rule->per_cpu) {
		struct jcpu *c = cpu_of(j, ev->input, ev->cpu);

		if (!c)
			return TDAT_ENOMEM;
		wh = (struct where){ &c->tr, cpu_pid(ev->input), cpu_tid(ev->input, ev->cpu) };
	} else {
		struct jthread *t = thread_of(j, utid);

		if (!t)
			return TDAT_ENOMEM;
		wh = (struct where){ &t->tr, thread_pid(j, utid, t), tid };
	}
	if (jt->role == JR_BEGIN)
		return slice_begin(j, sk, &wh, ev, jt);
	slice_end(j, sk, &wh, ev, jt);
	return 0;
}

static int put_line(struct json *j, const struct tdat_event *ev, const struct jtype *jt, int utid,
		    int64_t tid)
{
	switch (jt->role) {
	case JR_SWITCH:
		line_switch(j, ev, jt, utid, tid);
		break;
	case JR_WAKE:
		line_wake(j, ev, jt, utid, tid);
		break;
	case JR_BLOCKED:
		line_blocked(j, ev, jt, utid, tid);
		break;
	case JR_POWER:
		line_power(j, ev, jt, utid, tid);
		break;
	default:
		return line_print(j, ev, jt, utid, tid) ? 0 : 1;
	}
	return 0;
}

/* Is @ev's buffer the one whose events of @jt's kind become text lines (the first seen)? */
static bool line_buffer(struct json *j, const struct tdat_event *ev, const struct jtype *jt)
{
	int *b;

	switch (jt->role) {
	case JR_SWITCH: case JR_WAKE: case JR_BLOCKED:
		b = &j->in[ev->input].line_buffer[JL_SCHED];
		break;
	case JR_POWER:
		b = &j->in[ev->input].line_buffer[strcmp(jt->tt->name, "cpu_idle") ? JL_FREQ : JL_IDLE];
		break;
	default:
		return true;	/* prints: every buffer's */
	}
	if (*b < 0)
		*b = ev->buffer;
	return *b == ev->buffer;
}

static int json_put(struct tdat_writer *w, const struct tdat_event *ev)
{
	struct json *j = w->priv;
	struct tdat_sink *sk = &w->sink;
	const struct jtype *jt = type_of(j, ev);
	struct jthread *t;
	uint64_t v = 0;
	int64_t tid;
	int utid, ret = 0;

	if (!jt)
		return TDAT_ENOMEM;
	if (!j->based) {
		j->based = true;
		j->base = ev->ts >= REBASE_MIN ? ev->ts : 0;
	}
	if (ev->ts > j->last_ts)
		j->last_ts = ev->ts;
	if (ev->missed)
		emit_lost(j, sk, ev);
	tid = tfield_num(ev, &jt->tt->pid, &v) ? (int64_t)v : -1;
	if ((utid = pm_utid(j->pm, ev->input, tid)) < 0 || !(t = thread_of(j, utid)))
		return TDAT_ENOMEM;
	if (jt->feed || !t->fed) {
		t->fed = true;
		if ((ret = pm_feed(j->pm, ev, jt->tt)) < 0)
			return ret;
	}
	if (jt->role == JR_BEGIN || jt->role == JR_END)
		ret = put_slice(j, sk, ev, jt, utid, (uint32_t)tid);
	else if (jt->role == JR_INSTANT || !line_buffer(j, ev, jt) || put_line(j, ev, jt, utid, tid))
		emit_instant(j, sk, ev, jt, thread_pid(j, utid, &j->th[utid]), (uint32_t)tid);
	if (!ret && j->stage.err) {
		tdat_msg(w->errmsg, "temporary file: %s", strerror(j->stage.err));
		return TDAT_EIO;
	}
	return ret;
}

/* ---- the end: open slices, names, the text, metadata ---- */

static void close_tracks(struct json *j, struct tdat_sink *sk)
{
	for (int u = 0; u < j->nth; u++) {
		struct jthread *t = &j->th[u];
		struct where wh = { &t->tr, 0, 0 };

		if (!t->tr.n)
			continue;
		wh.pid = thread_pid(j, u, t);
		wh.tid = (uint32_t)pm_thread(j->pm, u)->tid;
		close_from(j, sk, &wh, 0, j->last_ts);
	}
	for (int i = 0; i < j->ninputs; i++) {
		for (int c = 0; c < j->in[i].ncpus; c++) {
			struct where wh = { &j->in[i].cpus[c].tr, cpu_pid(i), cpu_tid(i, c) };

			close_from(j, sk, &wh, 0, j->last_ts);
		}
	}
}

static void emit_meta(struct json *j, struct tdat_sink *sk, const char *what, uint32_t pid,
		      int64_t tid, const char *key, const char *name, int64_t index)
{
	sep(j, sk);
	put_lit(sk, "{\"ph\":\"M\",\"name\":\"");
	sink_write(sk, what, strlen(what));
	put_lit(sk, "\",\"pid\":");
	put_u64(sk, pid);
	if (tid >= 0) {
		put_lit(sk, ",\"tid\":");
		put_u64(sk, (uint64_t)tid);
	}
	put_lit(sk, ",\"args\":{\"");
	sink_write(sk, key, strlen(key));
	put_lit(sk, "\":");
	if (name)
		put_str(sk, name);
	else
		put_i64(sk, index);
	put_lit(sk, "}}");
}

struct pname {
	uint32_t pid;
	int rank;		/* 0: the process's own name, 1: its main thread's */
	const char *name;
};

static int pname_cmp(const void *a, const void *b)
{
	const struct pname *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->rank - y->rank;
}

/* thread_name for every named thread, process_name for every pid they use. */
static int name_threads(struct json *j, struct tdat_sink *sk)
{
	int n = pm_nthreads(j->pm), np = 0;
	struct pname *pn = calloc((size_t)n + 1, sizeof(*pn));

	if (!pn)
		return TDAT_ENOMEM;
	for (int u = 0; u < n; u++) {
		const struct pm_thread *th = pm_thread(j->pm, u);
		const struct pm_process *pr = pm_process(j->pm, th->upid);
		int64_t pid = u < j->nth && j->th[u].pid >= 0 ? j->th[u].pid : pr ? pr->pid : th->tid;

		if (th->name)
			emit_meta(j, sk, "thread_name", (uint32_t)pid, (uint32_t)th->tid, "name", th->name, 0);
		if (pr && pr->pid == pid && pr->name)
			pn[np++] = (struct pname){ (uint32_t)pid, 0, pr->name };
		else if (pid == th->tid && th->name)
			pn[np++] = (struct pname){ (uint32_t)pid, 1, th->name };
	}
	qsort(pn, (size_t)np, sizeof(*pn), pname_cmp);
	for (int i = 0; i < np; i++)
		if (!i || pn[i].pid != pn[i - 1].pid)
			emit_meta(j, sk, "process_name", pn[i].pid, -1, "name", pn[i].name, 0);
	free(pn);
	return 0;
}

static void name_cpus(struct json *j, struct tdat_sink *sk)
{
	char name[64];

	for (int i = 0; i < j->ninputs; i++) {
		bool any = false;

		for (int c = 0; c < j->in[i].ncpus; c++) {
			if (!j->in[i].cpus[c].used)
				continue;
			any = true;
			snprintf(name, sizeof(name), "CPU %d", c);
			emit_meta(j, sk, "thread_name", cpu_pid(i), cpu_tid(i, c), "name", name, 0);
			emit_meta(j, sk, "thread_sort_index", cpu_pid(i), cpu_tid(i, c), "sort_index",
				  NULL, c);
		}
		if (!any)
			continue;
		if (j->ninputs > 1)
			snprintf(name, sizeof(name), "CPU interrupts (input %d)", i);
		else
			snprintf(name, sizeof(name), "CPU interrupts");
		emit_meta(j, sk, "process_name", cpu_pid(i), -1, "name", name, 0);
	}
}

/* Append the staged text lines. */
static int copy_stage(struct json *j, struct tdat_writer *w)
{
	uint64_t off = 0;

	if (!j->stage_ok)
		return 0;
	if (sink_flush(&j->stage)) {
		tdat_msg(w->errmsg, "temporary file: %s", strerror(j->stage.err));
		return TDAT_EIO;
	}
	for (;;) {
		char *d = sink_reserve(&w->sink, 1 << 16);
		ssize_t r;

		if (!d)
			return TDAT_ENOMEM;
		r = pread(j->stage.fd, d, 1 << 16, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			tdat_msg(w->errmsg, "temporary file: %s", strerror(errno));
			return TDAT_EIO;
		}
		if (!r)
			return 0;
		sink_commit(&w->sink, (size_t)r);
		off += (uint64_t)r;
	}
}

static void put_metadata(struct json *j, struct tdat_writer *w)
{
	struct tdat_sink *sk = &w->sink;
	const struct tdat_file_info *fi = j->ninputs ? tdat_file_info(tdat_merge_file(w->merge, 0)) : NULL;

	put_lit(sk, "\"metadata\":{\"source\":\"tdat-convert\"");
	if (fi) {
		put_lit(sk, ",\"uname\":");
		put_str(sk, fi->uname);
		put_lit(sk, ",\"clock\":");
		put_str(sk, fi->clock);
		put_lit(sk, ",\"ts_unit\":");
		put_str(sk, fi->in_usecs ? "ns" : "clock ticks");
		put_lit(sk, ",\"trace_cmd_version\":");
		put_str(sk, fi->tracecmd_version);
		sink_printf(sk, ",\"file_version\":%d,\"compression\":", fi->version);
		put_str(sk, fi->compression);
		sink_printf(sk, ",\"cpus\":%d", fi->cpus);
	}
	sink_printf(sk, ",\"inputs\":%d,\"ts_offset_ns\":%llu}", j->ninputs,
		    (unsigned long long)j->base);
}

static int json_close(struct tdat_writer *w)
{
	static const char head[] =
		"\n],\n\"displayTimeUnit\":\"ns\",\n\"systemTraceEvents\":\"# tracer: nop\\n"
		"          <idle>-0     (-----) [000] .... 0.000000: tracing_mark_write: "
		"trace_event_clock_sync: parent_ts=0\\n";
	struct json *j = w->priv;
	struct tdat_sink *sk = &w->sink;
	int ret = 0, r;

	if (!j || !j->started)
		return 0;
	if (j->pm) {
		close_tracks(j, sk);
		pm_finish(j->pm, w->merge);
		ret = name_threads(j, sk);
		name_cpus(j, sk);
	}
	sink_write(sk, head, sizeof(head) - 1);
	if ((r = copy_stage(j, w)) && !ret)
		ret = r;
	put_lit(sk, "\",\n");
	put_metadata(j, w);
	put_lit(sk, "}\n");
	j->started = false;
	return ret;
}

/* ---- setting up ---- */

static int stage_open(struct json *j, struct tdat_writer *w)
{
	const char *dir = getenv("TMPDIR");
	char *name;
	int fd = -1;

	if (!dir || !*dir)
		dir = "/tmp";
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
#endif
	if (fd < 0) {
		if (asprintf(&name, "%s/tdat-json-XXXXXX", dir) < 0)
			return TDAT_ENOMEM;
		if ((fd = mkstemp(name)) >= 0)
			unlink(name);
		free(name);
	}
	if (fd < 0) {
		tdat_msg(w->errmsg, "cannot make a temporary file in %s: %s", dir, strerror(errno));
		return TDAT_EIO;
	}
	if (sink_init(&j->stage, fd)) {
		close(fd);
		return TDAT_ENOMEM;
	}
	j->stage_ok = true;
	return 0;
}

/*
 * Labels of input @i's buffers, named as in a merged trace.dat: with one
 * input the instances' names (the top buffer has none); with several,
 * "NAME" and "NAME:INSTANCE" (NAME: tdat_file_info()->name).
 */
static int labels(struct json *j, struct tdat_writer *w, int i)
{
	struct tdat_file *f = tdat_merge_file(w->merge, i);
	struct jinput *in = &j->in[i];

	for (int k = 0; k < NJLINES; k++)
		in->line_buffer[k] = -1;
	in->nbuffers = tdat_file_info(f)->nbuffers;
	if (!(in->labels = calloc((size_t)in->nbuffers + 1, sizeof(*in->labels))))
		return TDAT_ENOMEM;
	for (int b = 0; b < in->nbuffers; b++) {
		const char *inst = tdat_file_buffer(f, b)->name, *name = tdat_file_info(f)->name;
		char *full = NULL;

		if (j->ninputs < 2 && !*inst)
			continue;
		if (j->ninputs > 1 && asprintf(&full, "%s%s%s", name, *inst ? ":" : "", inst) < 0)
			return TDAT_ENOMEM;
		in->labels[b].s = build(&in->labels[b].len, "", full ? full : inst, "");
		free(full);
		if (!in->labels[b].s)
			return TDAT_ENOMEM;
	}
	return 0;
}

static int json_open(struct tdat_writer *w)
{
	struct json *j = calloc(1, sizeof(*j));

	if (!j)
		return TDAT_ENOMEM;
	w->priv = j;
	put_lit(&w->sink, "{\"traceEvents\":[");
	j->started = true;
	j->ninputs = tdat_merge_nfiles(w->merge);
	j->in = calloc((size_t)(j->ninputs ? j->ninputs : 1), sizeof(*j->in));
	if (!j->in || !(j->pm = pm_new()))
		return TDAT_ENOMEM;
	for (int i = 0; i < j->ninputs; i++)
		if (labels(j, w, i))
			return TDAT_ENOMEM;
	return stage_open(j, w);
}

static void track_release(struct jtrack *tr)
{
	free(tr->st);
	free(tr->arena.buf);
}

static void json_free(struct tdat_writer *w)
{
	struct json *j = w->priv;

	if (!j)
		return;
	for (int i = 0; j->in && i < j->ninputs; i++) {
		idtab_release(&j->in[i].types, free_type);
		for (int c = 0; c < j->in[i].ncpus; c++)
			track_release(&j->in[i].cpus[c].tr);
		free(j->in[i].cpus);
		for (int b = 0; j->in[i].labels && b < j->in[i].nbuffers; b++)
			free(j->in[i].labels[b].s);
		free(j->in[i].labels);
	}
	for (int u = 0; u < j->nth; u++)
		track_release(&j->th[u].tr);
	if (j->stage_ok) {
		close(j->stage.fd);
		sink_release(&j->stage);
	}
	pm_free(j->pm);
	free(j->th);
	free(j->in);
	free(j);
	w->priv = NULL;
}

const struct tdat_writer_ops tdat_writer_json_ops = {
	.name = "json",
	.exts = ".json",
	.fields = true,
	.output = TDAT_OUT_STREAM,
	.open = json_open,
	.put = json_put,
	.close = json_close,
	.free = json_free,
};
