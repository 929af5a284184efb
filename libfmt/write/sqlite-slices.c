/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite-slices.c - the slice table of the sqlite writer, as Perfetto's
 * trace processor (v58.2) fills it from our .pftrace: the slice model
 * (model/slices.c) in SL_PERFETTO mode pairs irq and softirq handlers (on
 * the CPU tracks "Irq Cpu N" and "SoftIrq Cpu N", type cpu_irq and
 * cpu_softirq, category irq), raw syscalls, workqueue items and atrace
 * B/E/I markers (on the thread's track, type thread_execution), and each
 * slice becomes a row of slice (id, ts, dur, track_id, category, name,
 * depth, parent_id) as it closes.  A track's rows (track plus cpu_track or
 * thread_track) are made by the writer when its first slice closes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/sqlite-slices.h"

struct sqs {
	struct sqdb *d;
	struct sq_table *slice;
	sqs_track_fn track;
	void *ctx;
	struct slices *model;
	int64_t *thread_tracks;		/* by utid, -1: none yet */
	int nthreads;
	int64_t *cpu_tracks[NSLK];	/* by ucpu */
	int ncpus[NSLK];
	int *ucpu_base;			/* by input */
	int ninputs;
	char **names;			/* the CPU tracks' names */
	int nnames;
	int err;
};

static int64_t cpu_track(struct sqs *s, const struct sl_track *t)
{
	int ucpu = (t->input < s->ninputs ? s->ucpu_base[t->input] : 0) + t->cpu;
	int64_t *id = id_slot(&s->cpu_tracks[t->kind], &s->ncpus[t->kind], ucpu);
	char **names;

	if (!id)
		return -1;
	if (*id >= 0)
		return *id;
	if (!(names = realloc(s->names, sizeof(*names) * (size_t)(s->nnames + 1))))
		return -1;
	s->names = names;
	/* as the .pftrace numbers the CPUs of several inputs: by ucpu */
	if (asprintf(&names[s->nnames], "%s Cpu %d", t->kind == SLK_IRQ ? "Irq" :
		     t->kind == SLK_SOFTIRQ ? "SoftIrq" : "Hrtimer", ucpu) < 0)
		return -1;
	*id = s->track(s->ctx, t->kind, names[s->nnames++], t->kind == SLK_IRQ ? "cpu_irq" :
		       t->kind == SLK_SOFTIRQ ? "cpu_softirq" : "cpu_hrtimer", t->cpu, ucpu);
	return *id;
}

static int64_t track_of(struct sqs *s, const struct sl_track *t)
{
	int64_t *id;

	if (t->kind != SLK_THREAD)
		return cpu_track(s, t);
	if (!(id = id_slot(&s->thread_tracks, &s->nthreads, t->utid)))
		return -1;
	if (*id < 0)
		*id = s->track(s->ctx, SLK_THREAD, NULL, "thread_execution", t->utid, -1);
	return *id;
}

static int on_slice(void *ctx, const struct sl_slice *sl)
{
	struct sqs *s = ctx;
	int64_t track = track_of(s, sl->track);
	struct sq_val *v;

	if (track < 0)
		return TDAT_EIO;
	v = row_begin(s->slice);
	v_int(&v[0], sl->id);
	v_int(&v[1], (int64_t)sl->ts);
	v_int(&v[2], sl->dur);
	v_int(&v[3], track);
	v_static(&v[4], sl->type->rule->category);
	if (v_text(s->slice, &v[5], sl->name, sl->name_len))
		return TDAT_ENOMEM;
	v_int(&v[6], sl->depth);
	v_id(&v[7], sl->parent_id);
	return row_end(s->d, s->slice);
}

struct sqs *sqs_new(struct sqdb *d, struct sq_table *slice, sqs_track_fn track, void *ctx)
{
	struct sqs *s = calloc(1, sizeof(*s));
	struct sl_ops ops = { .slice = on_slice };

	if (!s)
		return NULL;
	ops.ctx = s;
	*s = (struct sqs){ .d = d, .slice = slice, .track = track, .ctx = ctx };
	if (!(s->model = slices_new(SL_PERFETTO, &ops))) {
		free(s);
		return NULL;
	}
	return s;
}

int sqs_put(struct sqs *s, const struct tdat_event *ev, const struct ttype *tt, int utid, int ucpu)
{
	const struct sl_type *st = slices_type(s->model, ev, tt);

	if (!st)
		return 0;
	if (ev->input >= s->ninputs) {
		int *b = realloc(s->ucpu_base, sizeof(*b) * (size_t)(ev->input + 1));

		if (!b)
			return TDAT_ENOMEM;
		memset(b + s->ninputs, 0, sizeof(*b) * (size_t)(ev->input + 1 - s->ninputs));
		s->ucpu_base = b;
		s->ninputs = ev->input + 1;
	}
	s->ucpu_base[ev->input] = ucpu - ev->cpu;
	return slices_put(s->model, st, ev, utid);
}

int sqs_finish(struct sqs *s)
{
	return slices_finish(s->model, 0);
}

void sqs_free(struct sqs *s)
{
	if (!s)
		return;
	slices_free(s->model);
	free(s->thread_tracks);
	for (int k = 0; k < NSLK; k++)
		free(s->cpu_tracks[k]);
	for (int i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->ucpu_base);
	free(s);
}
