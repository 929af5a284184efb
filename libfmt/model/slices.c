/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * slices.c - begin/end pairs of events as slices: irq and softirq handlers,
 * timer expiries, raw and per-call syscalls, workqueue items and atrace
 * markers, from ONE rule table (rules[] below), for every writer.
 *
 * A writer feeds the events of the types slices_type() gives a role, in
 * timeline order; each track (a CPU of an input, or a thread) keeps a stack
 * of open slices, so every slice has its depth and parent.  Closed slices go
 * to the writer through ops->slice, with the name and what ops->begin kept
 * of the begin event; slices_finish() hands over what is still open.
 *
 * The two modes pair the same rules differently:
 *
 *   SL_JSON      what the Chrome JSON writer has always written: its own
 *                pairing (ops->pairing, write/json-pair.c) on the stacks and
 *                with the machinery of this file (slices-int.h); here, only
 *                which rules it pairs (SLR_JSON), its one track per CPU and
 *                "0x0" for a function at address 0.
 *
 *   SL_PERFETTO  as Perfetto's trace processor (v58.2) imports the events of
 *                our .pftrace (ftrace_parser.cc, syscall_tracker.h,
 *                systrace_parser.cc, slice_tracker.cc): irq slices "IRQ (name)"
 *                on "Irq Cpu N", softirqs by vector name on "SoftIrq Cpu N",
 *                syscalls "sys_NAME" (the machine's table; "sys_N" without a
 *                name, none from 550 on), workqueue items and atrace B/E/I on
 *                the thread.  An end closes the innermost open slice of its
 *                category (irq, workqueue) or name (syscalls), or any (atrace
 *                E); one that is not the innermost stays on the stack,
 *                finished, until a later event on the track passes its end,
 *                which cuts what was left open inside it.  sys_rt_sigreturn
 *                and atrace I are slices of dur 0; a print ends an open
 *                sys_write of its thread; what is open at the end has dur -1.
 *                hrtimer expiries go on "Hrtimer Cpu N", named by the
 *                function's address (the .pftrace carries no kernel symbols).
 *                signal_generate and signal_deliver are slices of dur 0
 *                named so, on the thread signalled (the event's pid field:
 *                SLR_ON_KEY, the caller's to resolve) and the thread
 *                delivered to.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "model/model.h"
#include "model/slices-int.h"

#define TP_MAX_DEPTH 512	/* trace processor drops slices deeper than this */
#define TP_MAX_SYSCALLS 550	/* and syscall numbers from this on */

static const struct sl_rule rules[] = {
	{ "irq", "irq_handler_entry", "irq_handler_exit", "irq", "name", SLN_IRQ, SLK_IRQ,
	  SLR_JSON | SLR_TP | SLR_NESTS, "irq" },
	{ "irq", "softirq_entry", "softirq_exit", "vec", "vec", SLN_VEC, SLK_SOFTIRQ,
	  SLR_JSON | SLR_TP, "irq" },
	{ "timer", "hrtimer_expire_entry", "hrtimer_expire_exit", "hrtimer", "function", SLN_HEX,
	  SLK_HRTIMER, SLR_JSON | SLR_TP, "hrtimer" },
	{ "timer", "timer_expire_entry", "timer_expire_exit", "timer", "function", SLN_SYM,
	  SLK_CPU, SLR_JSON, NULL },
	{ "raw_syscalls", "sys_enter", "sys_exit", "id", "id", SLN_NUM, SLK_THREAD,
	  SLR_JSON | SLR_TP, NULL },
	{ "workqueue", "workqueue_execute_start", "workqueue_execute_end", "work", "function",
	  SLN_SYM, SLK_THREAD, SLR_JSON | SLR_TP, "workqueue" },
	{ "syscalls", "sys_enter_", "sys_exit_", NULL, NULL, SLN_EVENT, SLK_THREAD, SLR_JSON,
	  NULL },
	{ "ftrace", "print", "print", NULL, "buf", SLN_ATRACE, SLK_THREAD, SLR_TP, NULL },
	/* instants (dur 0) named after the event: on the thread signalled, the thread delivered to */
	{ "signal", "signal_generate", "signal_generate", "pid", "sig", SLN_INSTANT, SLK_THREAD,
	  SLR_TP | SLR_ON_KEY, NULL },
	{ "signal", "signal_deliver", "signal_deliver", NULL, "sig", SLN_INSTANT, SLK_THREAD,
	  SLR_TP, NULL },
};

/* softirq vectors: trace processor's names (its kActionNames); JSON's are write/json-pair.c's */
static const char *const vec_tp[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
				      "BLOCK_IOPOLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };

#define NVEC (sizeof(vec_tp) / sizeof(vec_tp[0]))

static struct sl_type none;	/* a type that is no slice's */

/* ---- buffers ---- */

void sl_keep(struct sl_buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *nb;

		while (cap < b->len + n)
			cap *= 2;
		if (!(nb = realloc(b->buf, cap))) {
			b->err = true;
			return;
		}
		b->buf = nb;
		b->cap = cap;
	}
	if (n)
		memcpy(b->buf + b->len, p, n);
	b->len += n;
}

void sl_keep_str(struct sl_buf *b, const char *s)
{
	sl_keep(b, s, strlen(s));
}

/* @prefix, then @v in hex or decimal (@sgn: as a signed number); no printf per slice. */
void sl_keep_num(struct sl_buf *b, const char *prefix, uint64_t v, bool hex, bool sgn)
{
	char t[24], *p = t + sizeof(t);
	bool neg = sgn && (int64_t)v < 0;
	uint64_t u = neg ? 0 - v : v;

	sl_keep_str(b, prefix);
	do {
		*--p = "0123456789abcdef"[hex ? u & 15 : u % 10];
		u = hex ? u >> 4 : u / 10;
	} while (u);
	if (neg)
		*--p = '-';
	sl_keep(b, p, (size_t)(t + sizeof(t) - p));
}

/* ---- event types ---- */

static bool is_num(const struct tfield *f)
{
	return f && f->kind != TK_STR && f->kind != TK_ARRAY;
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

/* The last word of the file's uname: its machine. */
static char *machine_of(struct tdat_file *f)
{
	const char *u = f->uname ? f->uname : "", *e = u + strlen(u), *w;

	while (e > u && e[-1] == ' ')
		e--;
	for (w = e; w > u && w[-1] != ' '; w--)
		;
	return strndup(w, (size_t)(e - w));
}

/* syscalls:sys_enter_NAME / sys_exit_NAME; false if @tt is neither. */
static int per_call(struct sl_type *st, const struct ttype *tt, struct tdat_file *f,
		    const struct sl_rule *r)
{
	size_t lb = strlen(r->begin), le = strlen(r->end);
	bool b = !strncmp(tt->name, r->begin, lb) && tt->name[lb];
	bool e = !strncmp(tt->name, r->end, le) && tt->name[le];

	if (b) {
		st->fixed_key = tt->id;
		if (!(st->evname = strdup(tt->name + lb)))
			return TDAT_ENOMEM;
	} else if (e && !syscall_pair(f, tt->name + le, &st->fixed_key)) {
		e = false;
	}
	if (b || e) {
		st->rule = r;
		st->begin = b;
	}
	return 0;
}

/* The rule of @tt in @mode, filled into @st (st->rule stays NULL for none). */
static int compile(struct sl_type *st, const struct ttype *tt, struct tdat_file *f,
		   enum sl_mode mode)
{
	unsigned want = mode == SL_JSON ? SLR_JSON : SLR_TP;

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct sl_rule *r = &rules[i];
		bool b, e;

		if (!(r->flags & want) || strcmp(tt->system, r->system))
			continue;
		if (r->how == SLN_EVENT)
			return per_call(st, tt, f, r);
		b = !strcmp(tt->name, r->begin);
		e = !strcmp(tt->name, r->end);
		if (!b && !e)
			continue;
		st->key = r->key ? ttype_field(tt, r->key) : NULL;
		st->namef = b || r->how == SLN_ATRACE ? ttype_field(tt, r->name) : NULL;
		if ((r->key && !is_num(st->key)) || ((b || r->how == SLN_ATRACE) && !st->namef))
			return 0;
		if (r->how == SLN_NUM && !(st->machine = machine_of(f)))
			return TDAT_ENOMEM;
		st->rule = r;
		st->begin = b;
		return 0;
	}
	return 0;
}

static void type_free(void *p)
{
	struct sl_type *st = p;

	if (!st || st == &none)
		return;
	free(st->evname);
	free(st->machine);
	free(st);
}

const struct sl_type *slices_type(struct slices *s, const struct tdat_event *ev,
				  const struct ttype *tt)
{
	struct sl_type *st;
	void **slot;

	if (ev->input >= s->ninputs) {
		struct idtab *t = realloc(s->types, sizeof(*t) * (size_t)(ev->input + 1));

		if (!t)
			return NULL;
		memset(t + s->ninputs, 0, sizeof(*t) * (size_t)(ev->input + 1 - s->ninputs));
		s->types = t;
		s->ninputs = ev->input + 1;
	}
	if (!tt || !tt->event || !(slot = idtab_slot(&s->types[ev->input], tt->id)))
		return NULL;
	if (!*slot) {
		if (!(st = calloc(1, sizeof(*st))))
			return NULL;
		if (compile(st, tt, ev->file, s->mode) || !st->rule) {
			type_free(st);
			st = &none;
		}
		*slot = st;
	}
	return *slot == &none ? NULL : *slot;
}

/* ---- tracks ---- */

static void stack_init(struct sl_stack *k, int n)
{
	memset(k, 0, sizeof(*k) * (size_t)n);
}

static struct sl_stack *grow(struct sl_stack **arr, int *n, int want)
{
	if (want >= *n) {
		int cap = *n ? *n : 8;
		struct sl_stack *a;

		while (cap <= want)
			cap *= 2;
		if (!(a = realloc(*arr, sizeof(*a) * (size_t)cap)))
			return NULL;
		stack_init(a + *n, cap - *n);
		*arr = a;
		*n = cap;
	}
	return &(*arr)[want];
}

struct sl_track slices_track(const struct slices *s, const struct sl_type *st,
			     const struct tdat_event *ev, int utid)
{
	struct sl_track t = { .kind = st->rule->kind, .input = ev->input, .utid = utid };

	if (t.kind != SLK_THREAD) {
		t.cpu = ev->cpu < 0 || ev->cpu >= MAX_CPUS ? 0 : ev->cpu;
		if (s->mode == SL_JSON)
			t.kind = SLK_CPU;
	}
	return t;
}

struct sl_stack *sl_stack_of(struct slices *s, const struct sl_track *t)
{
	struct sl_stack *k;

	if (t->kind == SLK_THREAD) {
		k = grow(&s->th, &s->nth, t->utid);
	} else {
		struct sl_cpus *c;

		if (t->input >= s->ncpus) {
			if (!(c = realloc(s->cpus, sizeof(*c) * (size_t)(t->input + 1))))
				return NULL;
			memset(c + s->ncpus, 0, sizeof(*c) * (size_t)(t->input + 1 - s->ncpus));
			s->cpus = c;
			s->ncpus = t->input + 1;
		}
		c = &s->cpus[t->input];
		k = grow(&c->c[t->kind], &c->n[t->kind], t->cpu);
	}
	/* written only when it changes: a store of the whole on every event costs */
	if (k && (k->track.kind != t->kind || k->track.input != t->input ||
		  k->track.cpu != t->cpu || k->track.utid != t->utid))
		k->track = *t;
	return k;
}

/* ---- closing ---- */

/* Hand stack entry @i over with @dur (-1: open at the end). */
int sl_report(struct slices *s, struct sl_stack *k, int i, int64_t dur, uint64_t end_ts,
	      const struct tdat_event *end)
{
	const struct sl_open *o = &k->st[i];
	struct sl_slice sl = {
		.track = &k->track, .type = o->st, .id = o->id,
		.parent_id = i ? k->st[i - 1].id : -1, .ts = o->ts, .end_ts = end_ts, .dur = dur,
		.depth = i, .unfinished = !end, .input = o->input, .buffer = o->buffer,
		.name = k->arena.buf + o->off, .name_len = o->name_len,
		.data = k->arena.buf + o->off + o->name_len,
		.data_len = (i + 1 < k->n ? k->st[i + 1].off : k->arena.len) - o->off - o->name_len,
		.end = end, .user = o->user,
	};

	return s->ops.slice(s->ops.ctx, &sl);
}

void sl_pop(struct sl_stack *k)
{
	k->arena.len = k->st[--k->n].off;
}

/*
 * SL_PERFETTO, before an event at @ts (of dur @dur, -1 open) on the track:
 * finished slices that end before it leave the stack; one that still has
 * open slices inside it cuts them at its end (slice_tracker's MaybeCloseStack).
 */
static int tp_settle(struct slices *s, struct sl_stack *k, uint64_t ts, int64_t dur)
{
	bool open_inside = false;
	int ret = 0;

	for (int i = k->n - 1; i >= 0 && !ret; i--) {
		const struct sl_open *o = &k->st[i];
		uint64_t end = o->ts + (uint64_t)o->dur;

		if (o->dur < 0) {
			open_inside = true;
			continue;
		}
		if (open_inside) {
			if (ts <= end)
				continue;
			while (k->n > i + 1 && !ret) {
				const struct sl_open *c = &k->st[k->n - 1];

				ret = sl_report(s, k, k->n - 1, (int64_t)(end - c->ts), end, NULL);
				sl_pop(k);
			}
			sl_pop(k);
			open_inside = false;
			continue;
		}
		if (end < ts || (end == ts && !(o->dur == 0 && dur == 0)))
			sl_pop(k);
	}
	return ret;
}

/* ---- names ---- */

uint64_t sl_key_of(const struct sl_type *st, const struct tdat_event *ev)
{
	uint64_t v = 0;

	if (st->rule->how == SLN_EVENT)
		return st->fixed_key;
	if (st->key)
		tfield_num(ev, st->key, &v);
	return v;
}

static void keep_field(struct sl_buf *b, const struct tdat_event *ev, const struct tfield *f)
{
	const unsigned char *p;
	unsigned n;

	if (f->kind == TK_STR && tfield_bytes(ev, f, &p, &n))
		sl_keep(b, p, strnlen((const char *)p, n));
}

void sl_keep_sym(struct sl_buf *b, const struct tdat_event *ev, const struct tfield *f,
		enum sl_mode mode)
{
	const char *fn;
	uint64_t v = 0;

	tfield_num(ev, f, &v);
	if ((fn = function_name(ev->file, v)))
		sl_keep_str(b, fn);
	else
		sl_keep_num(b, mode == SL_JSON || v ? "0x" : "", v, true, false);
}

/* "sys_NAME" as trace processor names syscall @nr; false: it makes no slice. */
static bool keep_syscall(struct sl_buf *b, const struct sl_type *st, uint64_t nr)
{
	char name[64];
	int n;

	if (nr >= TP_MAX_SYSCALLS)
		return false;
	n = syscall_slice_name(st->machine, (int64_t)nr, name, sizeof(name));
	sl_keep(b, name, n > 0 && (size_t)n < sizeof(name) ? (size_t)n : strlen(name));
	return true;
}

/* ---- pushing ---- */

struct sl_open *sl_push_slot(struct sl_stack *k)
{
	if (k->n == k->cap) {
		int cap = k->cap ? k->cap * 2 : 2;
		struct sl_open *o = realloc(k->st, sizeof(*o) * (size_t)cap);

		if (!o)
			return NULL;
		k->st = o;
		k->cap = cap;
	}
	return &k->st[k->n++];
}

/* Push a slice begun by @ev; its name is already at the end of the arena, from @off. */
int sl_push(struct slices *s, struct sl_stack *k, const struct sl_type *st,
	    const struct tdat_event *ev, uint64_t key, size_t off)
{
	struct sl_open *o = sl_push_slot(k);
	int ret = 0;

	if (!o)
		return TDAT_ENOMEM;
	*o = (struct sl_open){ .ts = ev->ts, .key = key, .id = s->next_id++, .dur = -1, .st = st,
			       .input = ev->input, .buffer = ev->buffer, .off = off,
			       .name_len = k->arena.len - off };
	if (s->local && !k->listed && sl_note_open(s, k))
		return TDAT_ENOMEM;
	if (s->ops.begin)
		ret = s->ops.begin(s->ops.ctx, ev, &k->arena, &o->user);
	return ret ? ret : k->arena.err ? TDAT_ENOMEM : 0;
}

/* ---- SL_PERFETTO pairing ---- */

/* Begin a slice named by what the arena holds from @off; @dur 0: one of no length. */
static int tp_begin(struct slices *s, struct sl_stack *k, const struct sl_type *st,
		    const struct tdat_event *ev, size_t off, int64_t dur)
{
	size_t len = k->arena.len - off;
	int ret;

	/* the name waits aside: settling may drop what lies before it */
	s->name.len = 0;
	sl_keep(&s->name, k->arena.buf + off, len);
	k->arena.len = off;
	if (k->arena.err || s->name.err)
		return TDAT_ENOMEM;
	if ((ret = tp_settle(s, k, ev->ts, dur)) || k->n >= TP_MAX_DEPTH)
		return ret;
	off = k->arena.len;
	sl_keep(&k->arena, s->name.buf, len);
	if ((ret = sl_push(s, k, st, ev, 0, off)) || dur < 0)
		return ret;
	k->st[k->n - 1].dur = 0;
	return sl_report(s, k, k->n - 1, 0, ev->ts, ev);
}

/* End the innermost open slice of @category (if not NULL) and @name (if not NULL). */
static int tp_end(struct slices *s, struct sl_stack *k, const struct tdat_event *ev,
		  const char *category, const char *name, size_t name_len)
{
	int ret = tp_settle(s, k, ev->ts, -1);

	for (int i = k->n - 1; i >= 0 && !ret; i--) {
		struct sl_open *o = &k->st[i];
		const char *cat = o->st->rule->category;

		if (o->dur >= 0 || (category && (!cat || strcmp(cat, category))) ||
		    (name && (o->name_len != name_len ||
			      memcmp(k->arena.buf + o->off, name, name_len))))
			continue;
		o->dur = (int64_t)(ev->ts - o->ts);
		ret = sl_report(s, k, i, o->dur, ev->ts, ev);
		if (i == k->n - 1)
			sl_pop(k);
		break;
	}
	return ret;
}

static int tp_syscall(struct slices *s, struct sl_stack *k, const struct sl_type *st,
		      const struct tdat_event *ev)
{
	size_t off = k->arena.len;
	uint64_t nr = sl_key_of(st, ev) & 0xffffffffu;
	bool is_write;
	int ret;

	if (!keep_syscall(&k->arena, st, nr))
		return 0;
	is_write = k->arena.len - off == 9 && !memcmp(k->arena.buf + off, "sys_write", 9);
	if (st->begin) {
		bool ret0 = k->arena.len - off == 16 &&
			    !memcmp(k->arena.buf + off, "sys_rt_sigreturn", 16);

		if (is_write)
			k->in_write = true;
		return tp_begin(s, k, st, ev, off, ret0 ? 0 : -1);
	}
	if (is_write && !k->in_write) {
		k->arena.len = off;
		return 0;
	}
	if (is_write)
		k->in_write = false;
	/* the name is compared in place, then dropped */
	{
		char name[64];
		size_t n = k->arena.len - off;

		memcpy(name, k->arena.buf + off, n < sizeof(name) ? n : sizeof(name));
		k->arena.len = off;
		ret = tp_end(s, k, ev, NULL, name, n < sizeof(name) ? n : sizeof(name));
	}
	return ret;
}

/* An ftrace print: it ends an open sys_write; B, E and I of atrace are slices. */
static int tp_print(struct slices *s, struct sl_stack *k, const struct sl_type *st,
		    const struct tdat_event *ev)
{
	const unsigned char *p;
	struct atrace a;
	unsigned n;
	size_t off;
	int ret;

	if (k->in_write) {
		k->in_write = false;
		if ((ret = tp_end(s, k, ev, NULL, "sys_write", 9)))
			return ret;
	}
	if (!tfield_bytes(ev, st->namef, &p, &n) || !atrace_parse((const char *)p, n, &a))
		return 0;
	if (a.kind == 'E')
		return tp_end(s, k, ev, NULL, NULL, 0);
	if (a.kind != 'B' && a.kind != 'I')
		return 0;
	off = k->arena.len;
	sl_keep(&k->arena, a.name, a.name_len);
	return tp_begin(s, k, st, ev, off, a.kind == 'I' ? 0 : -1);
}

static int tp_put(struct slices *s, struct sl_stack *k, const struct sl_type *st,
		  const struct tdat_event *ev)
{
	const struct sl_rule *r = st->rule;
	size_t off = k->arena.len;
	uint64_t vec;

	switch (r->how) {
	case SLN_NUM:
		return tp_syscall(s, k, st, ev);
	case SLN_ATRACE:
		return tp_print(s, k, st, ev);
	case SLN_INSTANT:
		sl_keep_str(&k->arena, r->begin);
		return tp_begin(s, k, st, ev, off, 0);
	default:
		break;
	}
	if (!st->begin)
		return tp_end(s, k, ev, r->category, NULL, 0);
	if (r->how == SLN_IRQ) {
		sl_keep_str(&k->arena, "IRQ (");
		keep_field(&k->arena, ev, st->namef);
		sl_keep_str(&k->arena, ")");
	} else if (r->how == SLN_VEC) {
		if ((vec = sl_key_of(st, ev) & 0xffffffffu) >= NVEC)
			return 0;
		sl_keep_str(&k->arena, vec_tp[vec]);
	} else if (r->how == SLN_HEX) {	/* the .pftrace has no kernel symbols */
		uint64_t fn = 0;

		tfield_num(ev, st->namef, &fn);
		sl_keep_num(&k->arena, "0x", fn, true, false);
	} else {
		sl_keep_sym(&k->arena, ev, st->namef, SL_PERFETTO);
	}
	return tp_begin(s, k, st, ev, off, -1);
}

/* ---- the model ---- */

int slices_put(struct slices *s, const struct sl_type *st, const struct tdat_event *ev, int utid)
{
	struct sl_track t = slices_track(s, st, ev, utid);
	struct sl_stack *k = sl_stack_of(s, &t);

	if (!k)
		return TDAT_ENOMEM;
	return s->ops.pairing ? s->ops.pairing->put(s, k, st, ev, false) : tp_put(s, k, st, ev);
}

int slices_check(struct slices *s, const struct sl_type *st, const struct tdat_event *ev, int utid)
{
	struct sl_track t = slices_track(s, st, ev, utid);
	struct sl_stack *k = sl_stack_of(s, &t);

	if (!k)
		return TDAT_ENOMEM;
	return s->ops.pairing && st->begin ? s->ops.pairing->put(s, k, st, ev, true) : TDAT_EINVAL;
}

/* Everything still open on @k: as the writer's pairing ends it (SL_JSON), or of dur -1. */
static int finish_stack(struct slices *s, struct sl_stack *k, uint64_t end_ts)
{
	int ret = 0;

	if (s->ops.pairing)
		return s->ops.pairing->finish(s, k, end_ts);
	for (int i = 0; i < k->n && !ret; i++)
		if (k->st[i].dur < 0)
			ret = sl_report(s, k, i, -1, end_ts, NULL);
	k->n = 0;
	k->arena.len = 0;
	return ret;
}

int slices_finish(struct slices *s, uint64_t end_ts)
{
	int ret = 0;

	for (int u = 0; u < s->nth && !ret; u++)
		ret = finish_stack(s, &s->th[u], end_ts);
	for (int i = 0; i < s->ncpus && !ret; i++)
		for (int kind = 0; kind < NSLK && !ret; kind++)
			for (int c = 0; c < s->cpus[i].n[kind] && !ret; c++)
				ret = finish_stack(s, &s->cpus[i].c[kind][c], end_ts);
	return ret;
}

struct slices *slices_new(enum sl_mode mode, const struct sl_ops *ops)
{
	struct slices *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->mode = mode;
	s->ops = *ops;
	return s;
}

static void stacks_free(struct sl_stack *k, int n)
{
	for (int i = 0; i < n; i++) {
		free(k[i].st);
		free(k[i].arena.buf);
	}
	free(k);
}

void slices_free(struct slices *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->ninputs; i++)
		idtab_release(&s->types[i], type_free);
	for (int i = 0; i < s->ncpus; i++)
		for (int kind = 0; kind < NSLK; kind++)
			stacks_free(s->cpus[i].c[kind], s->cpus[i].n[kind]);
	stacks_free(s->th, s->nth);
	free(s->open);
	free(s->name.buf);
	free(s->cpus);
	free(s->types);
	free(s);
}
