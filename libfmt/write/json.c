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
 * and workqueue items on the thread), paired by the slice model
 * (model/slices.c, SL_JSON; json-slices.c, also on -j workers), as "X"
 * slices whose args hold one object per event
 * ({"sys_enter":{...},"sys_exit":{...}}), kept properly nested per track;
 * everything else, and ends without a begin, as thread instants
 * ("ph":"i","s":"t") with the fields as typed args.  A begin still open at
 * the end of the trace (or when a begin of the same kind comes, or an outer
 * slice ends) is closed there with "unfinished":true.  "M" events name
 * every thread and process from the process model (procs.c).  The text
 * lines are json-line.c's.
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

#include "write/json.h"
#include "write/csvfmt.h"

#define REBASE_MIN (1ull << 52)	/* ns; beyond 2^53 doubles lose ns */

static void put_hex_str(struct tdat_sink *sk, uint64_t v)
{
	char *d = sink_reserve(sk, 20);
	size_t n;

	if (!d)
		return;
	memcpy(d, "\"0x", 3);
	n = fmt_hex64(d + 3, v);
	d[3 + n] = '"';
	sink_commit(sk, n + 4);
}

/* ---- typed args ---- */

#define JSON_EXACT ((uint64_t)1 << 53)	/* a double holds every integer up to this */

void json_put_number(struct tdat_sink *sk, enum tkind kind, uint64_t v)
{
	uint64_t mag = kind == TK_INT && (int64_t)v < 0 ? (uint64_t)0 - v : v;
	bool str = mag > JSON_EXACT;

	if (kind == TK_PTR) {
		put_hex_str(sk, v);
		return;
	}
	if (str)
		sink_putc(sk, '"');
	if (kind == TK_INT)
		put_i64(sk, (int64_t)v);
	else
		put_u64(sk, v);
	if (str)
		sink_putc(sk, '"');
}

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
			csv_put_array_with(sk, ev->file, p, len, f, json_put_number);
		}
	} else if (f->offset + f->size > ev->size) {
		put_lit(sk, "null");
	} else {
		/* the number kinds are only made for sizes 1, 2, 4 and 8 */
		v = field_raw(ev->file, (const unsigned char *)ev->data + f->offset, f->size);
		if (f->kind == TK_INT && f->size < 8)
			v = (uint64_t)((int64_t)(v << (64 - 8 * f->size)) >> (64 - 8 * f->size));
		json_put_number(sk, f->kind, v);
	}
}

/* "buffer":"LABEL" */
void put_label(struct tdat_sink *sk, const struct jlabel *lb)
{
	put_lit(sk, "\"buffer\":\"");
	sink_write(sk, lb->s, lb->len);
	sink_putc(sk, '"');
}

/* "field":value,... of every field of @ev */
void put_fields(struct tdat_sink *sk, const struct tdat_event *ev, const struct jtype *jt)
{
	for (int i = 0; i < jt->tt->nfields; i++) {
		put_padded(sk, jt->keys[i], jt->key_lens[i]);
		put_value(sk, ev, &jt->tt->fields[i]);
	}
}

/*
 * {"field":value,...}, with the buffer first if @lb; the fields a -j worker
 * prepared (json_prepare()) when @ev is the event being put and it has them.
 */
void put_args(const struct json *j, struct tdat_sink *sk, const struct tdat_event *ev,
	      const struct jtype *jt, const struct jlabel *lb)
{
	sink_putc(sk, '{');
	if (lb) {
		put_label(sk, lb);
		if (jt->tt->nfields)
			sink_putc(sk, ',');
	}
	if (ev == j->pre_ev)
		sink_write(sk, j->pre, j->pre_len);
	else
		put_fields(sk, ev, jt);
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
	free(jt->states);
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

static struct jtype *compile(struct json *j, const struct ttype *tt, const struct tdat_event *ev)
{
	struct jtype *jt = calloc(1, sizeof(*jt));
	const char *name = tt->event ? tt->name : "unknown";
	size_t len;

	if (!jt)
		return NULL;
	jt->tt = tt;
	jt->feed = tt->event && pm_wants(tt);
	jt->remaps = tt->event && pm_remaps(tt);
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
		if (line_role(jt))
			goto fail;
		if (jt->role == JR_INSTANT && (jt->sl = slices_type(j->sl, ev, tt)))
			jt->role = JR_SLICE;
	}
	return jt;
fail:
	free_type(jt);
	return NULL;
}

struct jtype *type_of(struct json *j, const struct tdat_event *ev)
{
	const struct ttype *tt = file_type(ev->file, ev);
	void **slot = tt ? idtab_slot(&j->in[ev->input].types, tt->id) : NULL;

	if (!slot)
		return NULL;
	if (!*slot)
		*slot = compile(j, tt, ev);
	return *slot;
}

/* ---- threads, CPUs and time ---- */

struct jthread *json_thread(struct json *j, int utid)
{
	if (utid >= j->nth) {
		int cap = j->nth ? j->nth : 256;
		struct jthread *t;

		while (cap <= utid)
			cap *= 2;
		if (!(t = realloc(j->th, sizeof(*t) * (size_t)cap)))
			return NULL;
		memset(t + j->nth, 0, sizeof(*t) * (size_t)(cap - j->nth));
		for (int i = j->nth; i < cap; i++)
			t[i].pid = -1;
		j->th = t;
		j->nth = cap;
	}
	return &j->th[utid];
}

struct jcpu *cpu_of(struct json *j, int input, int cpu)
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
		in->cpus = c;
		in->ncpus = cap;
	}
	in->cpus[cpu].used = true;
	return &in->cpus[cpu];
}

/*
 * The pid written with @utid's events and lines, fixed at first use: every
 * event binds its tid to its pid in the importers, so a thread must keep
 * one (the process model may learn the process later; it is then too late).
 */
uint32_t json_thread_pid(struct json *j, int utid, struct jthread *t)
{
	if (t->pid < 0) {
		const struct pm_thread *th = pm_thread(j->pm, utid);
		const struct pm_process *pr = pm_process(j->pm, th->upid);

		t->pid = pr ? pr->pid : th->tid;
	}
	return (uint32_t)t->pid;
}


/* ---- events in traceEvents ---- */

const struct jlabel *label_of(const struct json *j, const struct tdat_event *ev)
{
	const struct jinput *in = &j->in[ev->input];

	if (ev->buffer < 0 || ev->buffer >= in->nbuffers || !in->labels[ev->buffer].s)
		return NULL;
	return &in->labels[ev->buffer];
}

#define CAT_END "\",\"ts\":"

/* @cat, a string ending in CAT_END, with ",LABEL" put at the end of the category. */
void put_cat(struct tdat_sink *sk, const char *cat, size_t len, const struct jlabel *lb)
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

void instant_head(const struct json *j, struct tdat_sink *sk, const struct tdat_event *ev,
		  const struct jtype *jt)
{
	put_lit(sk, ",\n");
	put_cat(sk, jt->head, jt->head_len, label_of(j, ev));
}

void instant_tail(const struct json *j, struct tdat_sink *sk, const struct tdat_event *ev,
		  const struct jtype *jt, uint32_t tid)
{
	put_lit(sk, ",\"tid\":");
	put_u64(sk, tid);
	put_lit(sk, ",\"args\":");
	put_args(j, sk, ev, jt, label_of(j, ev));
	sink_putc(sk, '}');
}

/* The instant a worker prepared (OP_INST): its pieces, with the time and pid put between. */
static void put_instant(struct json *j, struct tdat_sink *sk, const struct tdat_event *ev,
			uint32_t pid)
{
	/* the head starts with the separator: the first event has no comma */
	size_t skip = j->nev++ ? 0 : 1;

	sink_write(sk, j->inst_head + skip, j->inst_head_len - skip);
	put_us(sk, rel(j, ev->ts));
	put_lit(sk, ",\"pid\":");
	put_u64(sk, pid);
	sink_write(sk, j->inst_tail, j->inst_tail_len);
}

void emit_instant(struct json *j, struct tdat_sink *sk, const struct tdat_event *ev,
		  const struct jtype *jt, uint32_t pid, uint32_t tid)
{
	sep(j, sk);
	put_cat(sk, jt->head, jt->head_len, label_of(j, ev));
	put_us(sk, rel(j, ev->ts));
	put_lit(sk, ",\"pid\":");
	put_u64(sk, pid);
	instant_tail(j, sk, ev, jt, tid);
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

static int json_put(struct tdat_writer *w, const struct tdat_event *ev)
{
	struct json *j = w->priv;
	struct tdat_sink *sk = &w->sink;
	const struct jtype *jt = type_of(j, ev);
	const char *op = NULL;	/* the worker's pairing to replay, after json_take_ops() */
	struct jthread *t;
	uint64_t v = 0;
	int64_t tid;
	int utid, ret = 0;

	if (!jt)
		return TDAT_ENOMEM;
	if (w->pre && (ret = json_take_ops(j, ev, w->pre, w->pre_len, &op)))
		return ret;
	if (!j->based) {
		j->based = true;
		j->base = ev->ts >= REBASE_MIN ? ev->ts : 0;
	}
	if (ev->ts > j->last_ts)
		j->last_ts = ev->ts;
	if (ev->missed)
		emit_lost(j, sk, ev);
	if (j->inst_ev == ev)
		tid = j->inst_tid;
	else
		tid = tfield_num(ev, &jt->tt->pid, &v) ? (int64_t)v : -1;
	if ((utid = pm_utid(j->pm, ev->input, tid)) < 0 || !(t = json_thread(j, utid)))
		return TDAT_ENOMEM;
	if (jt->feed || !t->fed) {
		t->fed = true;
		if ((ret = pm_feed(j->pm, ev, jt->tt)) < 0)
			return ret;
	}
	if (jt->role == JR_SLICE)
		ret = op ? json_replay(j, ev, jt, utid, op, w->pre + w->pre_len)
			 : put_slice(j, ev, jt, utid);
	else if (j->inst_ev == ev)
		put_instant(j, sk, ev, json_thread_pid(j, utid, &j->th[utid]));
	else if (jt->role == JR_INSTANT || !line_buffer(j, ev, jt) || put_line(j, ev, jt, utid, tid))
		emit_instant(j, sk, ev, jt, json_thread_pid(j, utid, &j->th[utid]), (uint32_t)tid);
	j->pre_ev = j->inst_ev = NULL;
	if (!ret && j->stage.err) {
		tdat_msg(w->errmsg, "temporary file: %s", strerror(j->stage.err));
		return TDAT_EIO;
	}
	return ret;
}

/* ---- the end: open slices, names, the text, metadata ---- */

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
	sink_printf(sk, ",\"inputs\":%d,\"ts_offset_ns\":", j->ninputs);
	json_put_number(sk, TK_UINT, j->base);
	sink_putc(sk, '}');
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
		ret = slices_finish(j->sl, j->last_ts);
		pm_finish(j->pm, w->merge);
		if ((r = name_threads(j, sk)) && !ret)
			ret = r;
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
	j->out = &w->sink;
	j->scratch.fd = -1;
	put_lit(&w->sink, "{\"traceEvents\":[");
	j->started = true;
	j->ninputs = tdat_merge_nfiles(w->merge);
	j->in = calloc((size_t)(j->ninputs ? j->ninputs : 1), sizeof(*j->in));
	if (!j->in || !(j->pm = pm_new()) || !(j->sl = json_slices_new(j)))
		return TDAT_ENOMEM;
	for (int i = 0; i < j->ninputs; i++) {
		if (labels(j, w, i))
			return TDAT_ENOMEM;
		if (i + 1 < j->ninputs)
			j->in[i + 1].cpu_base = j->in[i].cpu_base +
						file_cpu_count(tdat_merge_file(w->merge, i));
	}
	return w->worker ? 0 : stage_open(j, w);
}

static void json_free(struct tdat_writer *w)
{
	struct json *j = w->priv;

	if (!j)
		return;
	for (int i = 0; j->in && i < j->ninputs; i++) {
		idtab_release(&j->in[i].types, free_type);
		free(j->in[i].cpus);
		for (int b = 0; j->in[i].labels && b < j->in[i].nbuffers; b++)
			free(j->in[i].labels[b].s);
		free(j->in[i].labels);
	}
	if (j->stage_ok) {
		close(j->stage.fd);
		sink_release(&j->stage);
	}
	pm_free(j->pm);
	slices_free(j->sl);
	free(j->scratch.buf);
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
	.prepare = json_prepare,
	.prepare_end = json_prepare_end,
	.put_trailer = json_put_trailer,
	.close = json_close,
	.free = json_free,
};
