/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sched.c - the scheduling state machine the exports share.  Fed
 * sched_switch and wake-ups in timeline order, it hands back through
 * callbacks what Perfetto calls sched slices (who ran on a CPU, from
 * switch-in to switch-out, with the state the task left in) and thread
 * states (Running on a CPU, then the state it switched out in, then R from
 * its wake-up until it runs again).  Rows are numbered when they open and
 * reported when they close; sched_finish() reports the ones still open
 * with dur -1.  The idle task (utid 0) has slices but no thread states: it
 * runs on every CPU at once.  The rules are trace processor's (Perfetto's
 * FtraceSchedEventTracker and ThreadStateTracker), so that our tables and
 * the ones it builds from our .pftrace are the same: where switches were
 * lost, what ended unseen keeps dur -1 (doc/tdat-sqlite.7).
 *
 * Also here, as they go with it: the one prev_state decoder, exactly as the
 * kernel's sched_switch print format spells it (its __print_flags table is
 * read from the format, so the bits of any kernel version come out as that
 * kernel prints them), and the atrace grammar of trace_marker text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "model/model.h"

struct sm_thread {
	int64_t id;		/* open thread_state row, -1 if none */
	uint64_t ts;
	const char *state;	/* interned; "Running" while on a CPU */
	int cpu, ucpu;		/* while Running */
	int waker;
	int io_wait;
	const char *blocked;	/* interned */
	/* its last blocked state, ended, kept until it runs for sched_blocked_reason */
	struct sched_state_row held;
	bool has_held;
	bool woken;		/* its open state is the R of a wake-up (wake_id, target_cpu) */
	int64_t wake_id;
	int target_cpu;
};

struct sm_cpu {
	int64_t id;		/* open sched slice, -1 if none */
	uint64_t ts;
	int cpu, utid, prio;
};

struct sched_sm {
	struct sched_ops ops;
	struct sm_thread *th;
	int nth;
	struct sm_cpu *cpus;
	int ncpus;
	int64_t next_slice, next_state, next_wakeup;
	char **strs;		/* interned strings */
	int nstrs, scap;
};

static const char RUNNING[] = "Running";

struct sched_sm *sched_new(const struct sched_ops *ops)
{
	struct sched_sm *s = calloc(1, sizeof(*s));

	if (s)
		s->ops = *ops;
	return s;
}

void sched_free(struct sched_sm *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nstrs; i++)
		free(s->strs[i]);
	free(s->strs);
	free(s->th);
	free(s->cpus);
	free(s);
}

const char *sched_intern(struct sched_sm *s, const char *str)
{
	if (!str)
		return NULL;
	for (int i = 0; i < s->nstrs; i++)
		if (!strcmp(s->strs[i], str))
			return s->strs[i];
	if (array_room((void **)&s->strs, s->nstrs, &s->scap, sizeof(*s->strs), 16))
		return NULL;
	if (!(s->strs[s->nstrs] = strdup(str)))
		return NULL;
	return s->strs[s->nstrs++];
}

/* Grow an array of @size-byte elements to hold index @i; new ones get id -1. */
static int grow(void **arr, int *n, int i, size_t size)
{
	int cap = *n ? *n : 16;
	char *p;

	if (i < *n)
		return 0;
	while (cap <= i)
		cap *= 2;
	if (!(p = realloc(*arr, size * (size_t)cap)))
		return TDAT_ENOMEM;
	for (int k = *n; k < cap; k++) {
		memset(p + size * (size_t)k, 0, size);
		*(int64_t *)(void *)(p + size * (size_t)k) = -1;	/* id is first */
	}
	*arr = p;
	*n = cap;
	return 0;
}

static struct sm_thread *thread(struct sched_sm *s, int utid)
{
	if (utid < 0 || grow((void **)&s->th, &s->nth, utid, sizeof(*s->th)))
		return NULL;
	return &s->th[utid];
}

/* A sleep: any state but Running and R (R+ too; an undecodable one too). */
static bool blocked(const char *state)
{
	return state != RUNNING && (!state || strcmp(state, "R"));
}

static int flush_held(struct sched_sm *s, struct sm_thread *t)
{
	if (!t->has_held)
		return 0;
	t->has_held = false;
	return s->ops.state(s->ops.ctx, &t->held);
}

/*
 * The wake-up that made @utid runnable ends: it ran on @cpu after @dur, or
 * (dur -1) it never did, or the switch that ran it was lost.
 */
static int end_wakeup(struct sched_sm *s, int utid, struct sm_thread *t, int64_t dur,
		      int cpu, int ucpu)
{
	struct sched_wakeup_row r = {
		.id = t->wake_id, .ts = t->ts, .dur = dur, .utid = utid, .waker_utid = t->waker,
		.target_cpu = t->target_cpu, .cpu = cpu, .ucpu = ucpu,
	};

	if (!t->woken)
		return 0;
	t->woken = false;
	return s->ops.wakeup ? s->ops.wakeup(s->ops.ctx, &r) : 0;
}

/*
 * Report @utid's open state as ending at @ts (@open: at an unknown time).
 * A blocked state is held back until the thread runs again, as a
 * sched_blocked_reason may still come for it (trace processor's
 * last_blocked_row).
 */
static int close_state(struct sched_sm *s, int utid, struct sm_thread *t, uint64_t ts, bool open)
{
	struct sched_state_row r = {
		.id = t->id, .ts = t->ts, .dur = open ? -1 : (int64_t)(ts - t->ts),
		.cpu = -1, .ucpu = -1, .utid = utid, .state = t->state, .io_wait = t->io_wait,
		.blocked_function = t->blocked, .waker_utid = t->waker,
	};
	int ret;

	if (t->id < 0)
		return 0;
	t->id = -1;
	if ((ret = end_wakeup(s, utid, t, -1, -1, -1)))
		return ret;
	if (t->state == RUNNING) {
		r.cpu = t->cpu;
		r.ucpu = t->ucpu;
	}
	if (!blocked(t->state))
		return s->ops.state(s->ops.ctx, &r);
	if ((ret = flush_held(s, t)))
		return ret;
	t->held = r;
	t->has_held = true;
	return 0;
}

static void open_state(struct sched_sm *s, struct sm_thread *t, uint64_t ts, const char *state)
{
	t->id = s->next_state++;
	t->ts = ts;
	t->state = state;
	t->waker = -1;
	t->io_wait = -1;
	t->blocked = NULL;
}

/*
 * As Perfetto's thread state tracker: the task switched out ends the state
 * it was in, unless that was not Running (its switch-in was lost: that
 * state's end is unknown, dur -1), and starts its end state; the task
 * switched in ends whatever it was in and runs.
 */
static int switch_threads(struct sched_sm *s, const struct sched_switch_in *in)
{
	struct sm_thread *t;
	int ret;

	if (in->prev_utid > 0) {
		if (!(t = thread(s, in->prev_utid)))
			return TDAT_ENOMEM;
		if ((ret = close_state(s, in->prev_utid, t, in->ts, t->state != RUNNING)))
			return ret;
		open_state(s, t, in->ts, in->prev_state);
	}
	if (in->next_utid > 0) {
		if (!(t = thread(s, in->next_utid)))
			return TDAT_ENOMEM;
		if (t->id >= 0 && (ret = end_wakeup(s, in->next_utid, t, (int64_t)(in->ts - t->ts),
						    in->cpu, in->ucpu)))
			return ret;
		if ((ret = close_state(s, in->next_utid, t, in->ts, false)) ||
		    (ret = flush_held(s, t)))
			return ret;
		open_state(s, t, in->ts, RUNNING);
		t->cpu = in->cpu;
		t->ucpu = in->ucpu;
	}
	return 0;
}

/*
 * The switch says another task than the one the CPU's last switch put on
 * it left it: switches were lost in between.  The slice open on the CPU
 * ends at an unknown time in an unknown state (dur -1, end_state NULL), as
 * in Perfetto.
 */
int sched_switch(struct sched_sm *s, const struct sched_switch_in *in)
{
	struct sm_cpu *c;
	int ret;

	if (in->ucpu < 0 || grow((void **)&s->cpus, &s->ncpus, in->ucpu, sizeof(*s->cpus)))
		return in->ucpu < 0 ? TDAT_EINVAL : TDAT_ENOMEM;
	c = &s->cpus[in->ucpu];
	if (c->id >= 0) {
		bool lost = c->utid != in->prev_utid;
		struct sched_slice_row r = {
			.id = c->id, .ts = c->ts, .dur = lost ? -1 : (int64_t)(in->ts - c->ts),
			.cpu = c->cpu, .ucpu = in->ucpu, .utid = c->utid,
			.end_state = lost ? NULL : in->prev_state, .priority = c->prio,
		};

		if ((ret = s->ops.slice(s->ops.ctx, &r)))
			return ret;
	}
	c->id = s->next_slice++;
	c->ts = in->ts;
	c->cpu = in->cpu;
	c->utid = in->next_utid;
	c->prio = in->next_prio;
	return switch_threads(s, in);
}

/*
 * A wake-up ends a blocked state (anything but Running and R: R+ too, as
 * in Perfetto, since a task preempted between setting its sleeping state
 * and schedule() is woken like a sleeping one); a task not seen before
 * becomes runnable.  A new task is runnable whatever came before: a state
 * still open then belongs to a task gone unseen, its end unknown.
 */
static int runnable(struct sched_sm *s, uint64_t ts, int utid, int waker_utid, bool new_task,
		    int target_cpu)
{
	struct sm_thread *t;
	int ret;

	if (utid <= 0)
		return 0;
	if (!(t = thread(s, utid)))
		return TDAT_ENOMEM;
	if (!new_task && t->id >= 0 && !blocked(t->state))
		return 0;
	if ((ret = close_state(s, utid, t, ts, new_task)))
		return ret;
	open_state(s, t, ts, "R");
	t->waker = waker_utid;
	if (!new_task) {
		t->woken = true;
		t->wake_id = s->next_wakeup++;
		t->target_cpu = target_cpu;
	}
	return 0;
}

int sched_wake(struct sched_sm *s, uint64_t ts, int utid, int waker_utid, int target_cpu)
{
	return runnable(s, ts, utid, waker_utid, false, target_cpu);
}

int sched_new_task(struct sched_sm *s, uint64_t ts, int utid, int creator_utid)
{
	return runnable(s, ts, utid, creator_utid, true, -1);
}

/*
 * As trace processor: on the thread's state if it is blocked, else on its
 * last blocked state if it has not run since.
 */
void sched_blocked(struct sched_sm *s, int utid, int io_wait, const char *function)
{
	struct sm_thread *t = utid > 0 && utid < s->nth ? &s->th[utid] : NULL;

	if (!t)
		return;
	if (t->id >= 0 && blocked(t->state)) {
		t->io_wait = io_wait;
		t->blocked = sched_intern(s, function);
	} else if (t->has_held) {
		t->held.io_wait = io_wait;
		t->held.blocked_function = sched_intern(s, function);
	}
}

int sched_finish(struct sched_sm *s)
{
	int ret;

	for (int i = 0; i < s->ncpus; i++) {
		struct sm_cpu *c = &s->cpus[i];
		struct sched_slice_row r = {
			.id = c->id, .ts = c->ts, .dur = -1, .cpu = c->cpu, .ucpu = i,
			.utid = c->utid, .priority = c->prio,
		};

		if (c->id >= 0 && (ret = s->ops.slice(s->ops.ctx, &r)))
			return ret;
		c->id = -1;
	}
	for (int i = 0; i < s->nth; i++)
		if ((ret = close_state(s, i, &s->th[i], 0, true)) ||
		    (ret = flush_held(s, &s->th[i])))
			return ret;
	return 0;
}

/* ---- prev_state as the kernel prints it: the one decoder every format uses ---- */

/* @a without the casts around it. */
static const struct tep_print_arg *bare(const struct tep_print_arg *a)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	return a;
}

static bool is_op(const struct tep_print_arg *a, const char *op)
{
	return a && a->type == TEP_PRINT_OP && a->op.op && !strcmp(a->op.op, op);
}

static bool is_prev_state(const struct tep_print_arg *a)
{
	a = bare(a);
	return a && a->type == TEP_PRINT_FIELD && a->field.name && !strcmp(a->field.name, "prev_state");
}

/* The value of a constant expression of the format ("(4096-1)", "((0x1 | 0x2) + 1) << 1"). */
static bool eval(const struct tep_print_arg *a, uint64_t *v)
{
	static const char ops[][3] = { "+", "-", "*", "|", "&", "^", "<<", ">>" };
	uint64_t l, r;
	char *end;
	int i;

	a = bare(a);
	if (a && a->type == TEP_PRINT_ATOM && a->atom.atom) {
		*v = strtoull(a->atom.atom, &end, 0);
		return end != a->atom.atom && !*end;
	}
	if (!a || a->type != TEP_PRINT_OP || !eval(a->op.left, &l) || !eval(a->op.right, &r))
		return false;
	for (i = 0; i < 8 && strcmp(a->op.op, ops[i]); i++)
		;
	switch (i) {
	case 0: *v = l + r; return true;
	case 1: *v = l - r; return true;
	case 2: *v = l * r; return true;
	case 3: *v = l | r; return true;
	case 4: *v = l & r; return true;
	case 5: *v = l ^ r; return true;
	case 6: *v = r < 64 ? l << r : 0; return true;
	case 7: *v = r < 64 ? l >> r : 0; return true;
	default: return false;
	}
}

/* @a is "prev_state" (mask all ones) or "prev_state & MASK" (either way round). */
static bool state_mask(const struct tep_print_arg *a, uint64_t *mask)
{
	a = bare(a);
	if (is_prev_state(a)) {
		*mask = ~0ull;
		return true;
	}
	if (!is_op(a, "&"))
		return false;
	return (is_prev_state(a->op.left) && eval(a->op.right, mask)) ||
	       (is_prev_state(a->op.right) && eval(a->op.left, mask));
}

static const char *atom_str(const struct tep_print_arg *a)
{
	a = bare(a);
	return a && a->type == TEP_PRINT_ATOM ? a->atom.atom : NULL;
}

/*
 * Walk the print arguments under @a (and after it): @fn is called on each
 * argument until it returns true.
 */
static bool walk(const struct tep_print_arg *a, struct sched_states *m,
		 bool (*fn)(const struct tep_print_arg *a, struct sched_states *m))
{
	for (; a; a = a->next) {
		if (fn(a, m))
			return true;
		if (a->type == TEP_PRINT_OP && (walk(a->op.left, m, fn) || walk(a->op.right, m, fn)))
			return true;
		if (a->type == TEP_PRINT_TYPE && walk(a->typecast.item, m, fn))
			return true;
	}
	return false;
}

static void add_state(struct sched_states *m, uint64_t bit, const char *str)
{
	if (m->n == SCHED_MAX_STATES)
		return;
	m->bits[m->n] = bit;
	snprintf(m->letters[m->n], sizeof(m->letters[0]), "%s", str);
	m->n++;
}

/* __print_flags(prev_state [& MASK], DELIM, { BIT, "L" }, ...): the table. */
static bool take_flags(const struct tep_print_arg *a, struct sched_states *m)
{
	const struct tep_print_flag_sym *f;

	if (a->type != TEP_PRINT_FLAGS || !state_mask(a->flags.field, &m->mask))
		return false;
	snprintf(m->delim, sizeof(m->delim), "%s", a->flags.delim ? a->flags.delim : "");
	for (f = a->flags.flags; f; f = f->next)
		add_state(m, strtoull(f->value, NULL, 0), f->str);
	return true;
}

/* COND ? __print_flags(...) : "R": what is printed when no bit of the mask is set. */
static bool take_zero(const struct tep_print_arg *a, struct sched_states *m)
{
	const struct tep_print_arg *l = is_op(a, ":") ? bare(a->op.left) : NULL;
	const char *z = l ? atom_str(a->op.right) : NULL;
	uint64_t mask;

	if (!z || l->type != TEP_PRINT_FLAGS || !state_mask(l->flags.field, &mask))
		return false;
	snprintf(m->zero, sizeof(m->zero), "%s", z);
	return true;
}

/* prev_state & BIT ? "+" : "": the kernel's mark of a preempted task. */
static bool take_plus(const struct tep_print_arg *a, struct sched_states *m)
{
	const struct tep_print_arg *r = is_op(a, "?") ? bare(a->op.right) : NULL;
	const char *plus = is_op(r, ":") ? atom_str(r->op.left) : NULL;
	uint64_t bit;

	if (!plus || strcmp(plus, "+") || !state_mask(a->op.left, &bit) || bit == ~0ull)
		return false;
	m->preempt = bit;
	return true;
}

/* The table of kernels >= 4.14 (TASK_REPORT), for a file without a sched_switch format. */
static void default_states(struct sched_states *m)
{
	static const char letters[] = "SDTtXZPI";

	for (int i = 0; i < 8; i++)
		add_state(m, 1ull << i, (char[]){ letters[i], '\0' });
	strcpy(m->delim, "|");
	m->mask = 0xff;
	m->preempt = 0x100;
}

void sched_states_init(struct sched_states *m, const struct tep_event *e)
{
	memset(m, 0, sizeof(*m));
	strcpy(m->zero, "R");
	if (!e || !walk(e->print_fmt.args, m, take_flags)) {
		memset(m, 0, sizeof(*m));
		strcpy(m->zero, "R");
		default_states(m);
		return;
	}
	walk(e->print_fmt.args, m, take_zero);
	walk(e->print_fmt.args, m, take_plus);
}

/* Append @s to @buf at *@o (kept NUL-terminated, cut at @len). */
static void put(char *buf, size_t len, size_t *o, const char *s)
{
	size_t n = strlen(s);

	if (*o + 1 < len) {
		size_t k = n < len - 1 - *o ? n : len - 1 - *o;

		memcpy(buf + *o, s, k);
		buf[*o + k] = '\0';
	}
	*o += n;
}

/*
 * As the kernel's trace_print_flags_seq() and libtraceevent print it: the
 * letters of each flag whose bits are all set, in the table's order, the
 * bits no flag took in hex after them; the zero string if no bit of the
 * mask is set; "+" after either if the preempt bit is set.
 */
void sched_state_str(const struct sched_states *m, int64_t state, char *buf, size_t len)
{
	uint64_t v = (uint64_t)state & m->mask;
	size_t o = 0;
	bool any = false;
	char hex[24];

	if (len)
		buf[0] = '\0';
	if (!v)
		put(buf, len, &o, m->zero);
	for (int i = 0; v && i < m->n; i++) {
		if (!m->bits[i] || (v & m->bits[i]) != m->bits[i])
			continue;
		if (any)
			put(buf, len, &o, m->delim);
		put(buf, len, &o, m->letters[i]);
		any = true;
		v &= ~m->bits[i];
	}
	if (v) {
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)v);
		if (any)
			put(buf, len, &o, m->delim);
		put(buf, len, &o, hex);
	}
	if ((uint64_t)state & m->preempt)
		put(buf, len, &o, "+");
}

/* ---- atrace: B|pid|name, E[|pid], C|pid|name|value, I|pid|name ---- */

static bool take_int(const char **p, const char *end, int64_t *v)
{
	const char *s = *p;
	bool neg = s < end && *s == '-';
	uint64_t n = 0;

	if (neg)
		s++;
	if (s == end || *s < '0' || *s > '9')
		return false;
	while (s < end && *s >= '0' && *s <= '9')
		n = n * 10 + (uint64_t)(*s++ - '0');
	*v = neg ? -(int64_t)n : (int64_t)n;
	*p = s;
	return true;
}

bool atrace_parse(const char *p, size_t n, struct atrace *a)
{
	const char *end = p + n, *bar;

	while (end > p && (end[-1] == '\n' || end[-1] == '\0'))
		end--;
	memset(a, 0, sizeof(*a));
	if (end - p < 1 || !strchr("BECI", *p) || (end - p > 1 && p[1] != '|'))
		return false;
	a->kind = *p;
	if (end - p == 1)
		return a->kind == 'E';
	p += 2;
	if (!take_int(&p, end, &a->pid) || (p < end && *p != '|'))
		return false;
	a->has_pid = true;
	if (a->kind == 'E')
		return true;
	if (p == end)
		return false;
	p++;
	if (a->kind != 'C') {
		a->name = p;
		a->name_len = (size_t)(end - p);
		return true;
	}
	bar = memchr(p, '|', (size_t)(end - p));
	if (!bar)
		return false;
	a->name = p;
	a->name_len = (size_t)(bar - p);
	p = bar + 1;
	return take_int(&p, end, &a->value) && (p == end || *p == '|');
}
