/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite-model.c - the tables of the model in the sqlite writer: the rows
 * the model derives (model/derive.c) stored as they come, sched_slice,
 * thread_state, slice, counter and the tracks (track plus cpu_counter_track,
 * process_counter_track, thread_track or cpu_track) while events stream,
 * thread and process at close.  The rules and ids are derive.c's, so these
 * tables equal the ones trace processor builds from our .pftrace
 * (doc/tdat-sqlite.7, tests/cli/t-tp-model.sh) and the parquet writer's.
 */
#include "sqlite.h"

static int on_sched_slice(void *ctx, const struct sched_slice_row *r)
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

static int on_thread_state(void *ctx, const struct sched_state_row *r)
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

static int on_slice(void *ctx, const struct dv_slice *s)
{
	struct sq *q = ctx;
	struct sq_val *v = row_begin(q->fx[FX_SLICE]);

	v_int(&v[0], s->id);
	v_int(&v[1], (int64_t)s->ts);
	v_int(&v[2], s->dur);
	v_int(&v[3], s->track_id);
	v_static(&v[4], s->category);
	if (v_text(q->fx[FX_SLICE], &v[5], s->name, s->name_len))
		return TDAT_ENOMEM;
	v_int(&v[6], s->depth);
	v_id(&v[7], s->parent_id);
	return row_end(&q->d, q->fx[FX_SLICE]);
}

/* A row of track, and one of the table of its kind. */
static int on_track(void *ctx, const struct dv_track *t)
{
	static const int sub[] = {
		[DVT_CPU_COUNTER] = FX_CPUTRACK, [DVT_PROCESS_COUNTER] = FX_PCTRACK,
		[DVT_THREAD] = FX_THTRACK, [DVT_CPU] = FX_CPUSLTRACK,
	};
	struct sq *q = ctx;
	struct sq_table *st = q->fx[sub[t->kind]];
	struct sq_val *v = row_begin(q->fx[FX_TRACK]);

	v_int(&v[0], t->id);
	v_static(&v[1], t->name);
	v_static(&v[2], t->type);
	if (row_end(&q->d, q->fx[FX_TRACK]))
		return TDAT_EIO;
	v = row_begin(st);
	v_int(&v[0], t->id);
	v_static(&v[1], t->name);
	v_static(&v[2], t->type);
	if (t->kind == DVT_CPU_COUNTER || t->kind == DVT_CPU) {
		v_id(&v[3], t->cpu);
		v_id(&v[4], t->ucpu);
	} else {
		v_id(&v[3], t->kind == DVT_THREAD ? t->utid : t->upid);
	}
	return row_end(&q->d, st) ? TDAT_EIO : 0;
}

static int on_counter(void *ctx, const struct dv_counter *c)
{
	struct sq *q = ctx;
	struct sq_val *v = row_begin(q->fx[FX_COUNTER]);

	v_int(&v[0], c->id);
	v_int(&v[1], (int64_t)c->ts);
	v_int(&v[2], c->track_id);
	v[3].type = V_REAL;
	v[3].u.d = c->value;
	return row_end(&q->d, q->fx[FX_COUNTER]);
}

static int on_thread(void *ctx, const struct pm_thread *t)
{
	struct sq *q = ctx;
	struct sq_val *v = row_begin(q->fx[FX_THREAD]);

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
	return row_end(&q->d, q->fx[FX_THREAD]);
}

static int on_process(void *ctx, const struct pm_process *p)
{
	struct sq *q = ctx;
	struct sq_val *v = row_begin(q->fx[FX_PROCESS]);

	v_int(&v[0], p->upid);
	v_int(&v[1], p->pid);
	v_static(&v[2], p->name);
	if (p->has_start)
		v_int(&v[3], (int64_t)p->start_ts);
	if (p->has_end)
		v_int(&v[4], (int64_t)p->end_ts);
	v_id(&v[5], p->parent_upid);
	v_static(&v[6], p->cmdline);
	v_int(&v[7], p->input);
	return row_end(&q->d, q->fx[FX_PROCESS]);
}

const struct derive_ops sq_model_ops = {
	.sched_slice = on_sched_slice, .thread_state = on_thread_state, .slice = on_slice,
	.track = on_track, .counter = on_counter, .thread = on_thread, .process = on_process,
};
