/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * json-slices.c - the "json" writer's slices ("X" events of begin/end
 * pairs, model/slices.c SL_JSON), on one thread or split across -j.
 *
 * On -j workers (from -j 3: run/par.c), a worker pairs the slice events of its block of events on
 * stacks of its own (slices_set_local()) and writes each pair's "X" event
 * whole but for the pid, which only the caller's process model knows.
 * What the worker's stacks cannot decide (an end whose begin came before
 * the block, a begin that may close one open from before) it leaves to the
 * caller, after handing it what it has open on that track; what is open
 * when the block ends, or before an event that may give a tid a new thread
 * (pm_remaps()), is handed over too.  The caller's stacks under the
 * worker's are therefore always the one-thread model's, and the output is
 * the same bytes.  The worker says what it did in a few ops per event:
 *
 *   OP_HAND   an open slice for the caller's stacks: struct hand, then its bytes
 *   OP_PUT    the caller puts the event: u64 n, then its fields (put_fields())
 *   OP_INST   an instant (JR_INSTANT): i64 tid, then two pieces (u64 n, n
 *             bytes): ",\n" and the event up to its "ts":, the rest from its
 *             ,"tid":; the caller puts the time and the pid between
 *   OP_LINE   the caller puts the event; nothing prepared
 *   OP_SLICE  the worker paired it; then OP_CHECK (a begin: the caller closes
 *             what it closes on its stacks), or OP_X slices: u8 on a thread,
 *             u64 ts, then three pieces (u64 n, n bytes): the event up to
 *             its "ts":, its ,"dur":, the rest from its "tid" (or "pid" on a
 *             CPU); the caller puts the time (its base) and the pid between
 *
 * Slices named by a kernel symbol stay the caller's (a worker would parse
 * kallsyms again).
 */
#include <stdlib.h>
#include <string.h>

#include "write/json.h"

enum {
	OP_HAND = 'H', OP_PUT = 'P', OP_INST = 'I', OP_LINE = 'L', OP_SLICE = 'S', OP_CHECK = 'C',
	OP_X = 'X'
};

struct hand {
	int32_t input, buffer;
	int64_t who;		/* the thread's tid, or the CPU */
	uint32_t type, kind;	/* the begin's event type id; the track's sl_kind */
	uint64_t ts, key, name_len, len;
};

/* ---- one thread: the model's callbacks ---- */

/* The tid written for thread @utid (a tid the event could not give is -1: 2^32 - 1). */
static uint32_t thread_tid(const struct json *j, int utid)
{
	return (uint32_t)pm_thread(j->pm, utid)->tid;
}

/* The ids of @t's events: a CPU's synthetic thread, or the thread itself. */
static void track_ids(struct json *j, const struct sl_track *t, uint32_t *pid, uint32_t *tid)
{
	if (t->kind != SLK_THREAD) {
		*pid = cpu_pid(t->input);
		*tid = cpu_tid(t->input, t->cpu);
		return;
	}
	*pid = json_thread_pid(j, t->utid, &j->th[t->utid]);
	*tid = thread_tid(j, t->utid);
}

/* A slice begins: keep its begin's args, {"name":{...}. */
static int sl_begin(void *ctx, const struct tdat_event *ev, struct sl_buf *b, void **user)
{
	struct json *j = ctx;
	struct jtype *jt = type_of(j, ev);

	*user = jt;
	j->scratch.len = 0;
	sink_write(&j->scratch, jt->argkey, jt->argkey_len);
	put_args(j, &j->scratch, ev, jt, NULL);
	if (j->scratch.err)
		return TDAT_ENOMEM;
	sl_keep(b, j->scratch.buf, j->scratch.len);
	return 0;
}

static const struct jlabel *slice_label(const struct json *j, const struct sl_slice *s)
{
	const struct jinput *in = &j->in[s->input];

	return s->buffer >= 0 && s->buffer < in->nbuffers && in->labels[s->buffer].s ?
	       &in->labels[s->buffer] : NULL;
}

/* {"ph":"X","name":...,"ts": of a closed slice */
static void x_head(struct tdat_sink *sk, const struct sl_slice *s, const struct jlabel *lb)
{
	const struct jtype *bjt = s->user;

	put_lit(sk, "{\"ph\":\"X\",\"name\":\"");
	put_esc(sk, s->name, s->name_len, JE_U);
	sink_putc(sk, '"');
	put_cat(sk, bjt->cat, bjt->cat_len, lb);
}

static void x_dur(struct tdat_sink *sk, const struct sl_slice *s)
{
	put_lit(sk, ",\"dur\":");
	put_us(sk, (uint64_t)s->dur);
}

/* ,"args":{...}} of a closed slice: its begin's, then its end's or "unfinished". */
static void x_args(struct json *j, struct tdat_sink *sk, const struct sl_slice *s,
		   const struct jlabel *lb)
{
	const struct jtype *ejt;

	put_lit(sk, ",\"args\":{");
	if (lb) {
		put_label(sk, lb);
		sink_putc(sk, ',');
	}
	sink_write(sk, s->data, s->data_len);
	if (s->end && (ejt = type_of(j, s->end))) {
		sink_putc(sk, ',');
		sink_write(sk, ejt->argkey, ejt->argkey_len);
		put_args(j, sk, s->end, ejt, NULL);
	} else {
		put_lit(sk, ",\"unfinished\":true");
	}
	put_lit(sk, "}}");
}

static size_t len_open(struct tdat_sink *sk)
{
	size_t at = sk->len;
	uint64_t zero = 0;

	sink_write(sk, &zero, sizeof(zero));
	return at;
}

static void len_close(struct tdat_sink *sk, size_t at)
{
	uint64_t n = sk->len - at - sizeof(n);

	if (!sk->err)
		memcpy(sk->buf + at, &n, sizeof(n));
}

/* A worker's closed slice: an OP_X (the mode op first, if the event has none yet). */
static int x_op(struct json *j, const struct sl_slice *s)
{
	struct tdat_sink *sk = j->out;
	const struct jlabel *lb = slice_label(j, s);
	bool thread = s->track->kind == SLK_THREAD;
	size_t at;

	if (!j->moded)
		sink_putc(sk, OP_SLICE);
	j->moded = true;
	sink_putc(sk, OP_X);
	sink_putc(sk, thread);
	sink_write(sk, &s->ts, sizeof(s->ts));
	at = len_open(sk);
	x_head(sk, s, lb);
	len_close(sk, at);
	at = len_open(sk);
	x_dur(sk, s);
	len_close(sk, at);
	at = len_open(sk);
	if (thread) {
		put_lit(sk, ",\"tid\":");
		put_u64(sk, thread_tid(j, s->track->utid));
	} else {
		put_ids(sk, cpu_pid(s->track->input), cpu_tid(s->track->input, s->track->cpu));
	}
	x_args(j, sk, s, lb);
	len_close(sk, at);
	return sk->err ? TDAT_ENOMEM : 0;
}

/* A closed slice as an "X" event. */
static int sl_slice(void *ctx, const struct sl_slice *s)
{
	struct json *j = ctx;
	const struct jlabel *lb;
	uint32_t pid, tid;

	if (j->local)
		return x_op(j, s);
	lb = slice_label(j, s);
	track_ids(j, s->track, &pid, &tid);
	sep(j, j->out);
	x_head(j->out, s, lb);
	put_us(j->out, rel(j, s->ts));
	x_dur(j->out, s);
	put_ids(j->out, pid, tid);
	x_args(j, j->out, s, lb);
	return 0;
}

/* An end without its begin: an instant on the track. */
static int sl_stray(void *ctx, const struct sl_track *t, const struct tdat_event *ev)
{
	struct json *j = ctx;
	uint32_t pid, tid;

	track_ids(j, t, &pid, &tid);
	emit_instant(j, j->out, ev, type_of(j, ev), pid, tid);
	return 0;
}

/* What the end's metadata needs of @ev's track: its CPU used, or its thread's pid fixed. */
static bool track_seen(struct json *j, const struct tdat_event *ev, const struct jtype *jt, int utid)
{
	if (jt->sl->rule->kind != SLK_THREAD)
		return cpu_of(j, ev->input, ev->cpu);
	json_thread_pid(j, utid, &j->th[utid]);	/* fixed at its first event */
	return true;
}

int put_slice(struct json *j, const struct tdat_event *ev, const struct jtype *jt, int utid)
{
	return track_seen(j, ev, jt, utid) ? slices_put(j->sl, jt->sl, ev, utid) : TDAT_ENOMEM;
}

/* ---- a -j worker ---- */

/* One open slice for the caller, as an OP_HAND. */
static int hand_one(void *ctx, const struct sl_entry *e)
{
	struct json *j = ctx;
	const struct jtype *jt = e->user;
	bool thread = e->track.kind == SLK_THREAD;
	struct hand h = {
		.input = e->input, .buffer = e->buffer, .type = (uint32_t)jt->tt->id,
		.kind = (uint32_t)e->track.kind, .ts = e->ts, .key = e->key,
		.who = thread ? pm_thread(j->pm, e->track.utid)->tid : e->track.cpu,
		.name_len = e->name_len, .len = e->len,
	};

	sink_putc(j->out, OP_HAND);
	sink_write(j->out, &h, sizeof(h));
	sink_write(j->out, e->bytes, e->len);
	return j->out->err ? TDAT_ENOMEM : 0;
}

/* OP_INST: @ev's instant but for its time and pid. */
static void inst_op(struct json *j, struct tdat_sink *sk, const struct tdat_event *ev,
		    const struct jtype *jt)
{
	uint64_t v = 0;
	int64_t tid = tfield_num(ev, &jt->tt->pid, &v) ? (int64_t)v : -1;
	size_t at;

	sink_putc(sk, OP_INST);
	sink_write(sk, &tid, sizeof(tid));
	at = len_open(sk);
	instant_head(j, sk, ev, jt);
	len_close(sk, at);
	at = len_open(sk);
	instant_tail(j, sk, ev, jt, (uint32_t)tid);
	len_close(sk, at);
}

/* OP_INST for an instant, OP_PUT with @ev's fields, or OP_LINE for an event that puts none. */
static int put_op(struct json *j, struct tdat_sink *sk, const struct tdat_event *ev,
		  const struct jtype *jt)
{
	size_t at;

	if (jt->role == JR_INSTANT) {
		inst_op(j, sk, ev, jt);
		return 0;
	}
	if (jt->role != JR_SLICE) {
		sink_putc(sk, OP_LINE);
		return 0;
	}
	sink_putc(sk, OP_PUT);
	at = len_open(sk);
	put_fields(sk, ev, jt);
	len_close(sk, at);
	return 0;
}

/* What the worker's stacks cannot decide: hand the track's over, leave @ev to the caller. */
static int sl_bottom(void *ctx, const struct sl_track *t, const struct tdat_event *ev, int what)
{
	struct json *j = ctx;
	int ret = slices_hand_over(j->sl, t, hand_one, j);

	if (ret)
		return ret;
	j->moded = true;
	if (what == SLB_END)
		return put_op(j, j->out, ev, j->cur);
	sink_putc(j->out, OP_SLICE);
	sink_putc(j->out, OP_CHECK);
	return 0;
}

/*
 * On a -j worker (run/par.c): the ops of @ev, after what it hands over.  An
 * undecided stack trace (run/par-work.c) is never a slice or a type that
 * remaps, so it hands nothing over and is dropped whole if it must be.
 */
int json_prepare(struct tdat_writer *w, const struct tdat_event *ev)
{
	struct json *j = w->priv;
	const struct jtype *jt = type_of(j, ev);
	uint64_t v = 0;
	int utid, ret;

	if (!jt)
		return TDAT_ENOMEM;
	if (!j->local) {
		j->local = true;
		slices_set_local(j->sl);
	}
	if (jt->remaps && (ret = slices_hand_over(j->sl, NULL, hand_one, j)))
		return ret;
	if (jt->role != JR_SLICE)
		return put_op(j, &w->sink, ev, jt);
	/* the worker's own threads: one per tid, as the caller's between remaps */
	if ((utid = pm_utid(j->pm, ev->input, tfield_num(ev, &jt->tt->pid, &v) ? (int64_t)v : -1)) < 0)
		return TDAT_ENOMEM;
	j->moded = false;
	j->cur = jt;
	if (jt->sl->rule->how == SLN_SYM || jt->sl->rule->how == SLN_HEX) {
		/* named by a kernel symbol: the caller's, whose file has them loaded */
		struct sl_track t = slices_track(j->sl, jt->sl, ev, utid);

		return (ret = slices_hand_over(j->sl, &t, hand_one, j)) ? ret : put_op(j, &w->sink, ev, jt);
	}
	if ((ret = slices_put(j->sl, jt->sl, ev, utid)))
		return ret;
	if (!j->moded)
		sink_putc(&w->sink, OP_SLICE);
	return w->sink.err ? TDAT_ENOMEM : 0;
}

/* The block ends: everything still open goes to the caller. */
int json_prepare_end(struct tdat_writer *w)
{
	struct json *j = w->priv;

	return j->local ? slices_hand_over(j->sl, NULL, hand_one, j) : 0;
}

/* ---- the caller of -j workers ---- */

/* One length-prefixed piece at *@p (u64 n, n bytes) into @s, @n; false if it overruns @end. */
static bool take(const char **p, const char *end, const char **s, uint64_t *n)
{
	if ((size_t)(end - *p) < sizeof(*n))
		return false;
	memcpy(n, *p, sizeof(*n));
	if (*n > (size_t)(end - *p) - sizeof(*n))
		return false;
	*s = *p + sizeof(*n);
	*p = *s + *n;
	return true;
}

/* An OP_HAND at *@p onto the caller's stacks. */
static int adopt(struct json *j, const char **p, const char *end)
{
	struct sl_entry e;
	struct jtype *jt;
	struct hand h;
	void **slot;

	if ((size_t)(end - *p) < 1 + sizeof(h))
		return TDAT_EINVAL;
	memcpy(&h, *p + 1, sizeof(h));
	if ((size_t)(end - *p) - 1 - sizeof(h) < h.len || h.input < 0 || h.input >= j->ninputs)
		return TDAT_EINVAL;
	/* the caller put the begin: its type is compiled */
	slot = idtab_slot(&j->in[h.input].types, h.type);
	if (!slot || !(jt = *slot) || !jt->sl)
		return TDAT_EINVAL;
	e = (struct sl_entry){
		.track = { .kind = (enum sl_kind)h.kind, .input = h.input }, .type = jt->sl,
		.ts = h.ts, .key = h.key, .input = h.input, .buffer = h.buffer,
		.bytes = *p + 1 + sizeof(h), .name_len = h.name_len, .len = h.len, .user = jt,
	};
	*p = e.bytes + h.len;
	if (e.track.kind != SLK_THREAD)
		e.track.cpu = (int)h.who;
	else if ((e.track.utid = pm_utid(j->pm, h.input, h.who)) < 0)
		return TDAT_ENOMEM;
	return slices_adopt(j->sl, &e);
}

/* The OP_HANDs at *@p, up to another op or @end. */
static int adopt_all(struct json *j, const char **p, const char *end)
{
	int ret = 0;

	while (*p < end && **p == OP_HAND && !ret)
		ret = adopt(j, p, end);
	return ret;
}

int json_take_ops(struct json *j, const struct tdat_event *ev, const char *p, size_t n,
		  const char **op)
{
	const char *end = p + n;
	uint64_t len;
	int ret;

	if ((ret = adopt_all(j, &p, end)))
		return ret;
	*op = NULL;
	j->pre_ev = j->inst_ev = NULL;
	if (p < end && *p == OP_SLICE) {
		*op = p + 1;
	} else if (p < end && *p == OP_INST) {
		if ((size_t)(end - p) < 1 + sizeof(j->inst_tid))
			return TDAT_EINVAL;
		memcpy(&j->inst_tid, p + 1, sizeof(j->inst_tid));
		p += 1 + sizeof(j->inst_tid);
		if (!take(&p, end, &j->inst_head, &len) || !(j->inst_head_len = len) ||
		    !take(&p, end, &j->inst_tail, &len))
			return TDAT_EINVAL;
		j->inst_tail_len = len;
		j->inst_ev = ev;
	} else if (p < end && *p == OP_PUT) {
		p++;
		if (!take(&p, end, &j->pre, &len))
			return TDAT_EINVAL;
		j->pre_ev = ev;
		j->pre_len = len;
	} else if (p >= end || *p != OP_LINE) {
		return TDAT_EINVAL;
	}
	return 0;
}

/* One piece of an op at *@p, written to @sk; false if it overruns @end. */
static bool piece(struct tdat_sink *sk, const char **p, const char *end)
{
	const char *s;
	uint64_t n;

	if (!take(p, end, &s, &n))
		return false;
	sink_write(sk, s, n);
	return true;
}

/*
 * An OP_X at @p: its time, which needs the caller's time base, and the pid
 * of thread @utid, put between the worker's pieces.  The ops after it.
 */
static const char *put_x(struct json *j, const char *p, const char *end, int utid)
{
	bool thread;
	uint64_t ts;

	if ((size_t)(end - p) < 2 + sizeof(ts))
		return NULL;
	thread = p[1];
	memcpy(&ts, p + 2, sizeof(ts));
	p += 2 + sizeof(ts);
	sep(j, j->out);
	if (!piece(j->out, &p, end))
		return NULL;
	put_us(j->out, rel(j, ts));
	if (!piece(j->out, &p, end))
		return NULL;
	if (thread) {
		put_lit(j->out, ",\"pid\":");
		put_u64(j->out, json_thread_pid(j, utid, &j->th[utid]));
	}
	return piece(j->out, &p, end) ? p : NULL;
}

int json_replay(struct json *j, const struct tdat_event *ev, const struct jtype *jt, int utid,
		const char *op, const char *end)
{
	int ret = 0;

	if (!track_seen(j, ev, jt, utid))
		return TDAT_ENOMEM;
	while (op && op < end && !ret) {
		if (*op == OP_CHECK)
			ret = slices_check(j->sl, jt->sl, ev, utid), op++;
		else if (*op == OP_X)
			op = put_x(j, op, end, utid);
		else
			op = NULL;
	}
	return ret ? ret : op ? 0 : TDAT_EINVAL;
}

int json_put_trailer(struct tdat_writer *w, const char *p, size_t n)
{
	const char *end = p + n;
	int ret = adopt_all(w->priv, &p, end);

	return ret ? ret : p == end ? 0 : TDAT_EINVAL;
}

struct slices *json_slices_new(struct json *j)
{
	struct sl_ops o = { .ctx = j, .begin = sl_begin, .slice = sl_slice, .stray = sl_stray,
			    .bottom = sl_bottom, .pairing = &json_pairing };

	return slices_new(SL_JSON, &o);
}
