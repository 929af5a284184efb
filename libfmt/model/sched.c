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
 * Also here, as they go with it: prev_state decoding exactly as the
 * kernel's sched_switch print format spells it (its __print_flags table is
 * read from the format, so the bits of any kernel version come out as that
 * kernel prints them), and the atrace grammar of trace_marker text.
 */
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
	int64_t next_slice, next_state;
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
static int runnable(struct sched_sm *s, uint64_t ts, int utid, int waker_utid, bool new_task)
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
	return 0;
}

int sched_wake(struct sched_sm *s, uint64_t ts, int utid, int waker_utid)
{
	return runnable(s, ts, utid, waker_utid, false);
}

int sched_new_task(struct sched_sm *s, uint64_t ts, int utid, int creator_utid)
{
	return runnable(s, ts, utid, creator_utid, true);
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

/* ---- prev_state as the kernel prints it ---- */

static bool is_prev_state(const struct tep_print_arg *a)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	if (a && a->type == TEP_PRINT_OP)
		return is_prev_state(a->op.left);
	return a && a->type == TEP_PRINT_FIELD && a->field.name && !strcmp(a->field.name, "prev_state");
}

/* The __print_flags() of prev_state somewhere under @a, or NULL. */
static const struct tep_print_arg *find_flags(const struct tep_print_arg *a)
{
	const struct tep_print_arg *r;

	for (; a; a = a->next) {
		if (a->type == TEP_PRINT_FLAGS && is_prev_state(a->flags.field))
			return a;
		if (a->type == TEP_PRINT_OP &&
		    ((r = find_flags(a->op.left)) || (r = find_flags(a->op.right))))
			return r;
		if (a->type == TEP_PRINT_TYPE && (r = find_flags(a->typecast.item)))
			return r;
	}
	return NULL;
}

static void default_states(struct sched_states *m)
{
	static const char letters[] = "SDTtXZPI";

	m->n = 8;
	for (int i = 0; i < 8; i++) {
		m->bits[i] = 1ull << i;
		m->letters[i][0] = letters[i];
		m->letters[i][1] = '\0';
	}
	strcpy(m->delim, "|");
}

void sched_states_init(struct sched_states *m, const struct tep_event *e)
{
	const struct tep_print_arg *fl = e ? find_flags(e->print_fmt.args) : NULL;
	const struct tep_print_flag_sym *f;
	uint64_t all = 0;

	memset(m, 0, sizeof(*m));
	if (!fl) {
		default_states(m);
	} else {
		snprintf(m->delim, sizeof(m->delim), "%s", fl->flags.delim ? fl->flags.delim : "|");
		for (f = fl->flags.flags; f && m->n < SCHED_MAX_STATES; f = f->next) {
			m->bits[m->n] = strtoull(f->value, NULL, 0);
			snprintf(m->letters[m->n], sizeof(m->letters[0]), "%s", f->str);
			m->n++;
		}
	}
	for (int i = 0; i < m->n; i++)
		all |= m->bits[i];
	/* the kernel's "+" bit is the one above the reported states */
	m->preempt = 1;
	while (m->preempt && m->preempt <= all)
		m->preempt <<= 1;
}

void sched_state_str(const struct sched_states *m, int64_t state, char *buf, size_t len)
{
	uint64_t v = (uint64_t)state;
	size_t o = 0;
	bool any = false;

	buf[0] = '\0';
	for (int i = 0; i < m->n; i++) {
		if (!(v & m->bits[i]))
			continue;
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s", any ? m->delim : "",
				      m->letters[i]);
		any = true;
	}
	if (!any)
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "R");
	if (v & m->preempt)
		snprintf(buf + o, o < len ? len - o : 0, "+");
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
