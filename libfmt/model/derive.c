/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * derive.c - the tables of the analysis model, derived from events as
 * Perfetto's trace processor derives them from our .pftrace, for every
 * writer that stores them (the sqlite and parquet writers, doc/tdat-sqlite.7):
 *
 *   thread, process       the process model (procs.c), at the end;
 *   sched_slice, thread_state, wakeup_latency  the scheduling state
 *       machine (sched.c), fed sched_switch, sched_waking (sched_wakeup and
 *       sched_wakeup_new stand in for it in an input that did not record
 *       it), task_newtask and sched_blocked_reason;
 *   slice                 the slice model (slices.c) in SL_PERFETTO mode;
 *   counter               cpu_frequency and cpu_idle per CPU, atrace
 *       counters ("C|pid|name|value" in ftrace print) per process;
 *   tracks                what the slices and counters lie on: a CPU's
 *       counter track, a process's, a thread's, a CPU's slice track.
 *
 * Every id is given here, by one rule: utids and upids by the process
 * model, sched and slice row ids by their models, ucpu as the CPUs of input
 * 0, then those of input 1, ...; tracks numbered from 0 as they are first
 * used, counters from 0 in event order.  Each input takes a role (the
 * scheduling events, cpu_frequency, cpu_idle) from the first buffer that
 * had it.  The rows go to the writer through struct derive_ops, one
 * callback for every table (described in tables.c); the writer only
 * stores them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "model/model.h"

enum { D_SWITCH = 1, D_WAKE, D_WAKEUP, D_NEWTASK, D_BLOCKED, D_PRINT, D_FREQ, D_IDLE, NROLES };

/* An event type's role, and the fields it reads. */
struct dtype {
	int role;
	const struct tfield *f[4];
};

struct dinput {
	struct idtab types;		/* struct dtype by event type id */
	int role_buffer[NROLES];	/* the buffer a role comes from, -1 none yet */
	int ucpu_base, ncpus;
	struct sched_states states;
	bool waking;			/* sched_waking was recorded (its format is there) */
	int64_t last_state;		/* cache of the last prev_state decoded */
	const char *last_str;
};

/* An atrace counter of a process, by its name. */
struct dpcounter {
	int input;
	int64_t pid, track;
	char *name;
};

struct derive {
	struct derive_ops ops;
	struct tdat_merge *merge;
	struct procmodel *pm;
	struct sched_sm *sm;
	struct slices *sl;
	struct dinput *in;
	int ninputs;
	int64_t next_track, next_counter;
	int64_t *freq_tracks, *idle_tracks, *thread_tracks, *cpu_tracks[NSLK];
	int nfreq_tracks, nidle_tracks, nthread_tracks, ncpu_tracks[NSLK];
	struct dpcounter *pc;
	int npc;
	char **names;			/* the CPU slice tracks' names */
	int nnames;
	uint64_t now;			/* the latest time of an event taken */
	int64_t nleft_out;		/* events the model did not take */
};

static const struct {
	const char *sys, *name;
	int role;
	const char *fields[4];
} roles[] = {
	{ "sched", "sched_switch", D_SWITCH, { "prev_pid", "prev_state", "next_pid", "next_prio" } },
	{ "sched", "sched_waking", D_WAKE, { "pid" } },
	{ "sched", "sched_wakeup", D_WAKEUP, { "pid" } },
	{ "sched", "sched_wakeup_new", D_WAKEUP, { "pid" } },
	{ "task", "task_newtask", D_NEWTASK, { "pid" } },
	{ "sched", "sched_blocked_reason", D_BLOCKED, { "pid", "io_wait", "caller" } },
	{ "ftrace", "print", D_PRINT, { "buf" } },
	{ "power", "cpu_frequency", D_FREQ, { "state", "cpu_id" } },
	{ "power", "cpu_idle", D_IDLE, { "state", "cpu_id" } },
};

/* @*arr grown to hold index @i, new entries -1 (ids not given yet); NULL without memory. */
static int64_t *id_slot(int64_t **arr, int *n, int i)
{
	if (i >= *n) {
		int cap = *n ? *n : 16;
		int64_t *a;

		while (cap <= i)
			cap *= 2;
		if (!(a = realloc(*arr, sizeof(*a) * (size_t)cap)))
			return NULL;
		for (int k = *n; k < cap; k++)
			a[k] = -1;
		*arr = a;
		*n = cap;
	}
	return &(*arr)[i];
}

static int64_t num(const struct tdat_event *ev, const struct tfield *f)
{
	uint64_t x = 0;

	tfield_num(ev, f, &x);
	return (int64_t)x;
}

static struct dtype *map_type(struct dinput *in, const struct ttype *tt)
{
	struct dtype *ty = calloc(1, sizeof(*ty));

	if (!ty)
		return NULL;
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		if (strcmp(roles[i].sys, tt->system) || strcmp(roles[i].name, tt->name))
			continue;
		for (int k = 0; k < 4 && roles[i].fields[k]; k++)
			if (!(ty->f[k] = ttype_field(tt, roles[i].fields[k])))
				return ty;		/* a format we do not know: no role */
		ty->role = roles[i].role;
		/* the CPU it is woken to: wakeup_latency's target_cpu, when the format has it */
		if (ty->role == D_WAKE || ty->role == D_WAKEUP)
			ty->f[1] = ttype_field(tt, "target_cpu");
		if (ty->role == D_SWITCH)
			sched_states_init(&in->states, tt->event);
		break;
	}
	return ty;
}

/* ---- tracks, counters ---- */

/* A row of track, then one of the table of its kind. */
static int64_t new_track(struct derive *d, struct dv_track *t)
{
	static const int sub[] = {
		[DVT_CPU_COUNTER] = MT_CPU_COUNTER_TRACK, [DVT_PROCESS_COUNTER] = MT_PROCESS_COUNTER_TRACK,
		[DVT_THREAD] = MT_THREAD_TRACK, [DVT_CPU] = MT_CPU_TRACK,
	};

	t->id = d->next_track++;
	if (d->ops.row(d->ops.ctx, MT_TRACK, t) || d->ops.row(d->ops.ctx, sub[t->kind], t))
		return -1;
	return t->id;
}

static int counter(struct derive *d, uint64_t ts, int64_t track, double value)
{
	struct dv_counter c = { .id = d->next_counter++, .ts = ts, .track_id = track,
				.value = value };

	return d->ops.row(d->ops.ctx, MT_COUNTER, &c);
}

/* cpu_frequency, cpu_idle: a counter of the CPU the event names, its track made first. */
static int on_cpu_counter(struct derive *d, struct dinput *in, const struct dtype *ty,
			  const struct tdat_event *ev)
{
	int64_t cpu = num(ev, ty->f[1]), ucpu = in->ucpu_base + cpu, *track;
	bool freq = ty->role == D_FREQ;

	if (cpu < 0 || cpu >= in->ncpus)
		return 0;
	track = freq ? id_slot(&d->freq_tracks, &d->nfreq_tracks, (int)ucpu) :
		id_slot(&d->idle_tracks, &d->nidle_tracks, (int)ucpu);
	if (!track)
		return TDAT_ENOMEM;
	if (*track < 0) {
		struct dv_track t = { .kind = DVT_CPU_COUNTER, .cpu = cpu, .ucpu = ucpu,
				      .upid = -1, .utid = -1 };

		t.name = freq ? "cpufreq" : "cpuidle";
		t.type = freq ? "cpu_frequency" : "cpu_idle";
		if ((*track = new_track(d, &t)) < 0)
			return TDAT_EIO;
	}
	return counter(d, ev->ts, *track, (double)(uint64_t)num(ev, ty->f[0]));
}

/* An atrace counter: a counter of the process it names, its track made first. */
static int on_print(struct derive *d, const struct dtype *ty, const struct tdat_event *ev)
{
	struct dv_track t = { .kind = DVT_PROCESS_COUNTER, .cpu = -1, .ucpu = -1, .utid = -1,
			      .type = "process_counter" };
	const unsigned char *p;
	struct dpcounter *pc = NULL;
	struct atrace a;
	unsigned len;
	int utid;

	/* B, E and I are slices (slices.c) */
	if (!tfield_bytes(ev, ty->f[0], &p, &len) || !atrace_parse((const char *)p, len, &a) ||
	    a.kind != 'C')
		return 0;
	for (int i = 0; i < d->npc && !pc; i++)
		if (d->pc[i].input == ev->input && d->pc[i].pid == a.pid &&
		    strlen(d->pc[i].name) == a.name_len && !memcmp(d->pc[i].name, a.name, a.name_len))
			pc = &d->pc[i];
	if (!pc) {
		if (!(pc = realloc(d->pc, sizeof(*pc) * (size_t)(d->npc + 1))))
			return TDAT_ENOMEM;
		d->pc = pc;
		pc = &d->pc[d->npc];
		if (!(pc->name = strndup(a.name, a.name_len)))
			return TDAT_ENOMEM;
		d->npc++;
		pc->input = ev->input;
		pc->pid = a.pid;
		if ((utid = pm_utid(d->pm, ev->input, a.pid)) < 0)
			return TDAT_ENOMEM;
		t.name = pc->name;
		t.upid = pm_thread(d->pm, utid)->upid;
		if ((pc->track = new_track(d, &t)) < 0)
			return TDAT_EIO;
	}
	return counter(d, ev->ts, pc->track, (double)a.value);
}

/* The track a slice lies on, made when its first slice closes. */
static int64_t slice_track(struct derive *d, const struct sl_track *st)
{
	int ucpu = (st->input < d->ninputs ? d->in[st->input].ucpu_base : 0) + st->cpu;
	struct dv_track t = { .cpu = -1, .ucpu = -1, .upid = -1, .utid = -1 };
	int64_t *id;
	char **names;

	if (st->kind == SLK_THREAD) {
		if (!(id = id_slot(&d->thread_tracks, &d->nthread_tracks, st->utid)))
			return -1;
		t.kind = DVT_THREAD;
		t.type = "thread_execution";
		t.utid = st->utid;
		return *id >= 0 ? *id : (*id = new_track(d, &t));
	}
	if (!(id = id_slot(&d->cpu_tracks[st->kind], &d->ncpu_tracks[st->kind], ucpu)))
		return -1;
	if (*id >= 0)
		return *id;
	if (!(names = realloc(d->names, sizeof(*names) * (size_t)(d->nnames + 1))))
		return -1;
	d->names = names;
	/* as the .pftrace numbers the CPUs of several inputs: by ucpu */
	if (asprintf(&names[d->nnames], "%s Cpu %d", st->kind == SLK_IRQ ? "Irq" :
		     st->kind == SLK_SOFTIRQ ? "SoftIrq" : "Hrtimer", ucpu) < 0)
		return -1;
	t.kind = DVT_CPU;
	t.name = names[d->nnames++];
	t.type = st->kind == SLK_IRQ ? "cpu_irq" : st->kind == SLK_SOFTIRQ ? "cpu_softirq" :
		 "cpu_hrtimer";
	t.cpu = st->cpu;
	t.ucpu = ucpu;
	return *id = new_track(d, &t);
}

static int on_slice(void *ctx, const struct sl_slice *sl)
{
	struct derive *d = ctx;
	struct dv_slice s = { .id = sl->id, .ts = sl->ts, .dur = sl->dur,
			      .category = sl->type->rule->category, .name = sl->name,
			      .name_len = sl->name_len, .depth = sl->depth,
			      .parent_id = sl->parent_id };

	if ((s.track_id = slice_track(d, sl->track)) < 0)
		return TDAT_EIO;
	return d->ops.row(d->ops.ctx, MT_SLICE, &s);
}

/* ---- the scheduling state machine ---- */

/* The prev_state letters of a switch, interned (one-value cache per input). */
static const char *prev_state(struct derive *d, struct dinput *in, int64_t v)
{
	char buf[128];

	if (in->last_str && in->last_state == v)
		return in->last_str;
	sched_state_str(&in->states, v, buf, sizeof(buf));
	in->last_state = v;
	return in->last_str = sched_intern(d->sm, buf);
}

static int on_sched(struct derive *d, struct dinput *in, const struct dtype *ty,
		    const struct tdat_event *ev, int utid)
{
	struct sched_switch_in s = { .ts = ev->ts, .cpu = ev->cpu, .ucpu = in->ucpu_base + ev->cpu };
	char fn[256];
	int who;

	if (ty->role == D_SWITCH) {
		s.prev_utid = pm_utid(d->pm, ev->input, num(ev, ty->f[0]));
		s.next_utid = pm_utid(d->pm, ev->input, num(ev, ty->f[2]));
		s.next_prio = (int)num(ev, ty->f[3]);
		s.prev_state = prev_state(d, in, num(ev, ty->f[1]));
		if (s.prev_utid < 0 || s.next_utid < 0 || !s.prev_state)
			return TDAT_ENOMEM;
		return sched_switch(d->sm, &s);
	}
	if ((who = pm_utid(d->pm, ev->input, num(ev, ty->f[0]))) < 0)
		return TDAT_ENOMEM;
	/*
	 * As in trace processor, sched_waking wakes; sched_wakeup and
	 * sched_wakeup_new stand in for it only in an input that did not
	 * record it, so that a capture of sched_wakeup alone still has R.
	 */
	if (ty->role == D_WAKE || (ty->role == D_WAKEUP && !in->waking))
		return sched_wake(d->sm, ev->ts, who, utid, ty->f[1] ? (int)num(ev, ty->f[1]) : -1);
	if (ty->role == D_NEWTASK)
		return sched_new_task(d->sm, ev->ts, who, utid);
	if (ty->role == D_WAKEUP)
		return 0;
	snprintf(fn, sizeof(fn), "%s",
		 function_name(ev->file, (uint64_t)num(ev, ty->f[2])) ?: "");
	sched_blocked(d->sm, who, (int)num(ev, ty->f[1]), *fn ? fn : NULL);
	return 0;
}

static int on_role(struct derive *d, struct dinput *in, const struct dtype *ty,
		   const struct tdat_event *ev, int utid)
{
	int r = ty->role;

	if (r == D_PRINT)
		return on_print(d, ty, ev);
	if (r == D_WAKE || r == D_WAKEUP || r == D_NEWTASK || r == D_BLOCKED)
		r = D_SWITCH;
	if (in->role_buffer[r] < 0)
		in->role_buffer[r] = ev->buffer;
	if (in->role_buffer[r] != ev->buffer)
		return 0;
	if (r == D_FREQ || r == D_IDLE)
		return on_cpu_counter(d, in, ty, ev);
	return on_sched(d, in, ty, ev, utid);
}

/* ---- the interface ---- */

/*
 * The merge hands out events by time, so one earlier than an event already
 * taken comes from a CPU whose clock went back: a damaged page (a time
 * delta or an absolute time overwritten) put its events, or the ones after
 * them, out of place.  The model takes no such event: its state machines
 * would make rows that end before they begin, overlap, or (a slice ended
 * before it began counts as open) are reported twice.  It is left out as a
 * lost event would be; its row stays in the event tables.  So is one
 * whose time does not fit the int64 of every format's ts and dur (2^63 ns
 * and more: no clock of a real trace, a damaged time).
 */
static bool left_out(const struct derive *d, const struct tdat_event *ev)
{
	return ev->ts < d->now || ev->ts > (uint64_t)INT64_MAX;
}

int derive_thread(struct derive *d, const struct tdat_event *ev, const struct ttype *tt)
{
	if (!left_out(d, ev) && pm_feed(d->pm, ev, tt) < 0)
		return TDAT_ENOMEM;
	return pm_utid(d->pm, ev->input, num(ev, &tt->pid));
}

int derive_put(struct derive *d, const struct tdat_event *ev, const struct ttype *tt, int utid)
{
	struct dinput *in = &d->in[ev->input];
	const struct sl_type *st;
	struct dtype *ty;
	void **slot;
	int ret;

	if (left_out(d, ev)) {
		d->nleft_out++;
		return 0;
	}
	d->now = ev->ts;
	slot = idtab_slot(&in->types, tt->id);
	if (!slot || (!(ty = *slot) && !(ty = *slot = map_type(in, tt))))
		return TDAT_ENOMEM;
	if (ty->role && (ret = on_role(d, in, ty, ev, utid)))
		return ret;
	if (!(st = slices_type(d->sl, ev, tt)))
		return 0;
	if ((st->rule->flags & SLR_ON_KEY) &&
	    (utid = pm_utid(d->pm, ev->input, (int64_t)num(ev, st->key))) < 0)
		return TDAT_ENOMEM;
	return slices_put(d->sl, st, ev, utid);
}

int64_t derive_left_out(const struct derive *d)
{
	return d->nleft_out;
}

int derive_cpus(const struct derive *d, int input, int *ucpu_base)
{
	*ucpu_base = d->in[input].ucpu_base;
	return d->in[input].ncpus;
}

int derive_finish(struct derive *d)
{
	const struct pm_thread *t;
	const struct pm_process *p;
	int ret;

	if ((ret = sched_finish(d->sm)) || (ret = slices_finish(d->sl, 0)))
		return ret;
	pm_finish(d->pm, d->merge);
	for (int i = 0; (t = pm_thread(d->pm, i)); i++)
		if ((ret = d->ops.row(d->ops.ctx, MT_THREAD, t)))
			return ret;
	for (int i = 0; (p = pm_process(d->pm, i)); i++) {
		struct pm_process row = *p;

		/* the idle process has no name in trace processor (its thread is swapper) */
		if (!row.upid)
			row.name = NULL;
		if ((ret = d->ops.row(d->ops.ctx, MT_PROCESS, &row)))
			return ret;
	}
	return 0;
}

static int on_sched_slice(void *ctx, const struct sched_slice_row *r)
{
	struct derive *d = ctx;

	return d->ops.row(d->ops.ctx, MT_SCHED_SLICE, r);
}

static int on_thread_state(void *ctx, const struct sched_state_row *r)
{
	struct derive *d = ctx;

	return d->ops.row(d->ops.ctx, MT_THREAD_STATE, r);
}

static int on_wakeup(void *ctx, const struct sched_wakeup_row *r)
{
	struct derive *d = ctx;

	return d->ops.row(d->ops.ctx, MT_WAKEUP_LATENCY, r);
}

static int derive_open(struct derive *d)
{
	struct sched_ops sops = { .ctx = d, .slice = on_sched_slice, .state = on_thread_state,
				  .wakeup = on_wakeup };
	struct sl_ops lops = { .ctx = d, .slice = on_slice };
	int base = 0;

	d->ninputs = tdat_merge_nfiles(d->merge);
	d->in = calloc((size_t)d->ninputs + 1, sizeof(*d->in));
	d->pm = pm_new();
	d->sm = sched_new(&sops);
	d->sl = slices_new(SL_PERFETTO, &lops);
	if (!d->in || !d->pm || !d->sm || !d->sl)
		return TDAT_ENOMEM;
	for (int i = 0; i < d->ninputs; i++) {
		struct tdat_file *f = tdat_merge_file(d->merge, i);

		for (int r = 0; r < NROLES; r++)
			d->in[i].role_buffer[r] = -1;
		d->in[i].ucpu_base = base;
		base += d->in[i].ncpus = file_cpu_count(f);
		sched_states_init(&d->in[i].states, NULL);
		/* trace-cmd saves the formats of the events it records */
		d->in[i].waking = f->tep && tep_find_event_by_name(f->tep, "sched", "sched_waking");
	}
	return 0;
}

struct derive *derive_new(struct tdat_merge *m, const struct derive_ops *ops)
{
	struct derive *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->ops = *ops;
	d->merge = m;
	if (derive_open(d)) {
		derive_free(d);
		return NULL;
	}
	return d;
}

void derive_free(struct derive *d)
{
	if (!d)
		return;
	for (int i = 0; d->in && i < d->ninputs; i++)
		idtab_release(&d->in[i].types, free);
	free(d->in);
	pm_free(d->pm);
	sched_free(d->sm);
	slices_free(d->sl);
	free(d->freq_tracks);
	free(d->idle_tracks);
	free(d->thread_tracks);
	for (int k = 0; k < NSLK; k++)
		free(d->cpu_tracks[k]);
	for (int i = 0; i < d->npc; i++)
		free(d->pc[i].name);
	free(d->pc);
	for (int i = 0; i < d->nnames; i++)
		free(d->names[i]);
	free(d->names);
	free(d);
}
