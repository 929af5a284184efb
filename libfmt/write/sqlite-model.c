/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite-model.c - the tables of the model in the sqlite writer: the
 * scheduling events each input takes its roles from feed the state machine
 * (model/sched.c), whose rows become sched_slice and thread_state; at close
 * the process model (model/procs.c) becomes thread and process.  The rules
 * are trace processor's, so these tables equal the ones it builds from our
 * .pftrace (doc/tdat-sqlite.7, tests/cli/t-tp-model.sh).
 */
#include <stdio.h>
#include <string.h>

#include "sqlite.h"

/* The prev_state letters of a switch, interned (one-value cache per input). */
static const char *prev_state(struct sq *q, struct sq_input *in, int64_t v)
{
	char buf[128];

	if (in->last_str && in->last_state == v)
		return in->last_str;
	sched_state_str(&in->states, v, buf, sizeof(buf));
	in->last_state = v;
	return in->last_str = sched_intern(q->sm, buf);
}

int sq_on_sched(struct sq *q, struct sq_input *in, const struct sq_type *ty,
		const struct tdat_event *ev, int utid)
{
	struct sched_switch_in s = { .ts = ev->ts, .cpu = ev->cpu, .ucpu = in->ucpu_base + ev->cpu };
	char fn[256];
	int who;

	if (ty->role == R_SWITCH) {
		s.prev_utid = pm_utid(q->pm, ev->input, num(ev, ty->f[0]));
		s.next_utid = pm_utid(q->pm, ev->input, num(ev, ty->f[2]));
		s.next_prio = (int)num(ev, ty->f[3]);
		s.prev_state = prev_state(q, in, num(ev, ty->f[1]));
		if (s.prev_utid < 0 || s.next_utid < 0 || !s.prev_state)
			return TDAT_ENOMEM;
		return sched_switch(q->sm, &s);
	}
	if ((who = pm_utid(q->pm, ev->input, num(ev, ty->f[0]))) < 0)
		return TDAT_ENOMEM;
	/*
	 * As in trace processor, sched_waking wakes; sched_wakeup and
	 * sched_wakeup_new stand in for it only in an input that did not
	 * record it, so that a capture of sched_wakeup alone still has R.
	 */
	if (ty->role == R_WAKE || (ty->role == R_WAKEUP && !in->waking))
		return sched_wake(q->sm, ev->ts, who, utid);
	if (ty->role == R_NEWTASK)
		return sched_new_task(q->sm, ev->ts, who, utid);
	if (ty->role == R_WAKEUP)
		return 0;
	snprintf(fn, sizeof(fn), "%s",
		 function_name(ev->file, (uint64_t)num(ev, ty->f[2])) ?: "");
	sched_blocked(q->sm, who, (int)num(ev, ty->f[1]), *fn ? fn : NULL);
	return 0;
}

/* ---- derived rows from sched.c ---- */

int sq_on_slice(void *ctx, const struct sched_slice_row *r)
{
	struct sq *q = ctx;
	struct sq_val *v = row_begin(q->fx[FX_SCHED]);

	v_int(&v[0], r->id);
	v_int(&v[1], (int64_t)r->ts);
	v_int(&v[2], r->dur);
	v_int(&v[3], r->cpu);
	v_int(&v[4], r->utid);
	v_static(&v[5], r->end_state);
	v_int(&v[6], r->priority);
	v_int(&v[7], r->ucpu);
	return row_end(&q->d, q->fx[FX_SCHED]);
}

int sq_on_state(void *ctx, const struct sched_state_row *r)
{
	struct sq *q = ctx;
	struct sq_val *v = row_begin(q->fx[FX_STATE]);

	v_int(&v[0], r->id);
	v_int(&v[1], (int64_t)r->ts);
	v_int(&v[2], r->dur);
	v_id(&v[3], r->cpu);
	v_int(&v[4], r->utid);
	v_static(&v[5], r->state);
	v_id(&v[6], r->io_wait);
	v_static(&v[7], r->blocked_function);
	v_id(&v[8], r->waker_utid);
	v_id(&v[9], r->ucpu);
	return row_end(&q->d, q->fx[FX_STATE]);
}

int sq_threads(struct sq *q)
{
	const struct pm_thread *t;
	const struct pm_process *p;
	struct sq_val *v;
	int ret;

	for (int i = 0; (t = pm_thread(q->pm, i)); i++) {
		v = row_begin(q->fx[FX_THREAD]);
		v_int(&v[0], t->utid);
		v_int(&v[1], t->tid);
		v_static(&v[2], t->name);
		if (t->has_start)
			v_int(&v[3], (int64_t)t->start_ts);
		if (t->has_end)
			v_int(&v[4], (int64_t)t->end_ts);
		v_id(&v[5], t->upid);
		if (t->upid >= 0)
			v_int(&v[6], t->is_main);
		v_int(&v[7], t->is_idle);
		v_int(&v[8], t->input);
		if ((ret = row_end(&q->d, q->fx[FX_THREAD])))
			return ret;
	}
	for (int i = 0; (p = pm_process(q->pm, i)); i++) {
		v = row_begin(q->fx[FX_PROCESS]);
		v_int(&v[0], p->upid);
		v_int(&v[1], p->pid);
		/* the idle process has no name in trace processor (its thread is swapper) */
		v_static(&v[2], p->upid ? p->name : NULL);
		if (p->has_start)
			v_int(&v[3], (int64_t)p->start_ts);
		if (p->has_end)
			v_int(&v[4], (int64_t)p->end_ts);
		v_id(&v[5], p->parent_upid);
		v_static(&v[6], p->cmdline);
		v_int(&v[7], p->input);
		if ((ret = row_end(&q->d, q->fx[FX_PROCESS])))
			return ret;
	}
	return 0;
}
