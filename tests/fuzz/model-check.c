/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model-check.c - the analysis model's invariants (doc/tdat-sqlite.7),
 * checked on the rows model/derive.c makes of a whole input, as the sqlite
 * and parquet writers would store them (fuzz-writers.c runs it on every
 * input it opens):
 *
 *   - ids are unique in sched_slice, thread_state, slice, track and
 *     counter; utids and upids number threads and processes from 0;
 *   - ts fits an int64 and dur is >= 0, or -1 (open at the end, or an end
 *     that was not seen), and ts + dur fits too;
 *   - a slice's parent exists, on the same track, with depth one less;
 *     a slice without one has depth 0;
 *   - the sched_slice rows of one CPU, and the thread_state rows of one
 *     thread, do not overlap (a row of dur -1 is taken to end where it
 *     begins);
 *   - every utid, upid and track a row names exists;
 *   - a Running thread state has the ts, CPU and utid of a sched slice.
 *
 * A violation aborts (libFuzzer keeps the input; replay crashes).
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "fuzz.h"

/* One row: its id, span, and what it belongs to (a CPU, thread or track). */
struct mrow {
	int64_t id, ts, dur, owner;
	int64_t depth, parent;	/* slice; thread_state: its ucpu (-1 unless Running) */
};

struct mrows {
	struct mrow *r;
	size_t n, cap;
};

struct mcheck {
	struct mrows sched, state, slice, track, counter;
	int64_t nthreads, nprocs;
	struct mrows thread_upid, proc_parent;	/* id: utid/upid, owner: upid/parent */
};

#define CHECK(cond) do { if (!(cond)) fuzz_die("model invariant: " #cond); } while (0)

static void add(struct mrows *t, struct mrow r)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		if (!(t->r = realloc(t->r, t->cap * sizeof(*t->r))))
			fuzz_die("out of memory");
	}
	t->r[t->n++] = r;
}

static void span(uint64_t ts, int64_t dur)
{
	CHECK(ts <= (uint64_t)INT64_MAX);
	CHECK(dur >= -1);
	CHECK(dur <= INT64_MAX - (int64_t)ts);
}

static int on_sched(void *ctx, const struct sched_slice_row *r)
{
	span(r->ts, r->dur);
	add(&((struct mcheck *)ctx)->sched,
	    (struct mrow){ r->id, (int64_t)r->ts, r->dur, r->ucpu, 0, r->utid });
	return 0;
}

static int on_state(void *ctx, const struct sched_state_row *r)
{
	span(r->ts, r->dur);
	CHECK((r->cpu >= 0) == (r->state && !strcmp(r->state, "Running")));
	add(&((struct mcheck *)ctx)->state,
	    (struct mrow){ r->id, (int64_t)r->ts, r->dur, r->utid, 0, r->ucpu });
	return 0;
}

static int on_slice(void *ctx, const struct dv_slice *s)
{
	span(s->ts, s->dur);
	add(&((struct mcheck *)ctx)->slice,
	    (struct mrow){ s->id, (int64_t)s->ts, s->dur, s->track_id, s->depth, s->parent_id });
	return 0;
}

static int on_track(void *ctx, const struct dv_track *t)
{
	add(&((struct mcheck *)ctx)->track, (struct mrow){ .id = t->id });
	return 0;
}

static int on_counter(void *ctx, const struct dv_counter *c)
{
	span(c->ts, 0);
	add(&((struct mcheck *)ctx)->counter, (struct mrow){ .id = c->id, .owner = c->track_id });
	return 0;
}

static int on_thread(void *ctx, const struct pm_thread *t)
{
	struct mcheck *m = ctx;

	CHECK(t->utid == m->nthreads);
	m->nthreads++;
	add(&m->thread_upid, (struct mrow){ .id = t->utid, .owner = t->upid });
	return 0;
}

static int on_process(void *ctx, const struct pm_process *p)
{
	struct mcheck *m = ctx;

	CHECK(p->upid == m->nprocs);
	m->nprocs++;
	add(&m->proc_parent, (struct mrow){ .id = p->upid, .owner = p->parent_upid });
	return 0;
}

static int by_id(const void *a, const void *b)
{
	const struct mrow *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* By owner, then ts, then id: the order in which a timeline is read. */
static int by_owner_ts(const void *a, const void *b)
{
	const struct mrow *x = a, *y = b;

	if (x->owner != y->owner)
		return (x->owner > y->owner) - (x->owner < y->owner);
	if (x->ts != y->ts)
		return (x->ts > y->ts) - (x->ts < y->ts);
	return by_id(a, b);
}

static const struct mrow *find(const struct mrows *t, int64_t id)
{
	struct mrow key = { .id = id };

	return t->n ? bsearch(&key, t->r, t->n, sizeof(*t->r), by_id) : NULL;
}

/* Sorted by id, with no id twice. */
static void unique(struct mrows *t)
{
	if (t->n)	/* qsort() of NULL is undefined, even of 0 elements */
		qsort(t->r, t->n, sizeof(*t->r), by_id);
	for (size_t i = 1; i < t->n; i++)
		CHECK(t->r[i - 1].id != t->r[i].id);
}

/* The rows of each owner, in time order, do not overlap. */
static void no_overlap(struct mrows *t)
{
	if (t->n)
		qsort(t->r, t->n, sizeof(*t->r), by_owner_ts);
	for (size_t i = 1; i < t->n; i++) {
		const struct mrow *p = &t->r[i - 1];

		if (p->owner == t->r[i].owner)
			CHECK(p->ts + (p->dur > 0 ? p->dur : 0) <= t->r[i].ts);
	}
}

static void check_slices(const struct mcheck *m)
{
	for (size_t i = 0; i < m->slice.n; i++) {
		const struct mrow *s = &m->slice.r[i], *p;

		CHECK(find(&m->track, s->owner));
		if (s->parent < 0) {
			CHECK(s->depth == 0);
			continue;
		}
		p = find(&m->slice, s->parent);
		CHECK(p != NULL);
		CHECK(p->owner == s->owner);
		CHECK(p->depth + 1 == s->depth);
	}
}

static int by_owner_at(const void *a, const void *b)
{
	const struct mrow *x = a, *y = b;

	if (x->owner != y->owner)
		return (x->owner > y->owner) - (x->owner < y->owner);
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/*
 * A Running state: a sched slice with its ts, CPU and thread (utid in
 * .parent); @m->sched sorted by CPU and ts.
 */
static void check_running(const struct mcheck *m)
{
	for (size_t i = 0; i < m->state.n; i++) {
		const struct mrow *r = &m->state.r[i], *s, *end;
		struct mrow key = { .owner = r->parent, .ts = r->ts };

		CHECK(r->owner >= 0 && r->owner < m->nthreads);
		if (r->parent < 0)
			continue;
		s = m->sched.n ? bsearch(&key, m->sched.r, m->sched.n, sizeof(*s), by_owner_at) : NULL;
		CHECK(s != NULL);
		end = m->sched.r + m->sched.n;
		while (s > m->sched.r && !by_owner_at(s - 1, &key))
			s--;
		while (s < end && !by_owner_at(s, &key) && s->parent != r->owner)
			s++;
		CHECK(s < end && !by_owner_at(s, &key));
	}
}

static void check_all(struct mcheck *m)
{
	unique(&m->track);
	unique(&m->counter);
	unique(&m->slice);
	check_slices(m);
	for (size_t i = 0; i < m->counter.n; i++)
		CHECK(find(&m->track, m->counter.r[i].owner));
	unique(&m->sched);
	unique(&m->state);
	for (size_t i = 0; i < m->sched.n; i++)
		CHECK(m->sched.r[i].parent >= 0 && m->sched.r[i].parent < m->nthreads);
	no_overlap(&m->sched);
	no_overlap(&m->state);
	check_running(m);
	for (size_t i = 0; i < m->thread_upid.n; i++)
		CHECK(m->thread_upid.r[i].owner >= -1 && m->thread_upid.r[i].owner < m->nprocs);
	for (size_t i = 0; i < m->proc_parent.n; i++)
		CHECK(m->proc_parent.r[i].owner >= -1 && m->proc_parent.r[i].owner < m->nprocs);
}

/* A row of the model's table @table (enum mt_table) to the check of its kind; the rest unchecked. */
static int on_row(void *ctx, int table, const void *row)
{
	switch (table) {
	case MT_SCHED_SLICE:
		return on_sched(ctx, row);
	case MT_THREAD_STATE:
		return on_state(ctx, row);
	case MT_SLICE:
		return on_slice(ctx, row);
	case MT_TRACK:
		return on_track(ctx, row);
	case MT_COUNTER:
		return on_counter(ctx, row);
	case MT_THREAD:
		return on_thread(ctx, row);
	case MT_PROCESS:
		return on_process(ctx, row);
	default:
		return 0;
	}
}

/* Every event of @m to the model, as the writers feed it; false if it failed (no memory). */
static bool feed(struct derive *d, struct tdat_merge *m)
{
	const struct tdat_event *ev;
	const struct ttype *tt;
	int utid;

	while (tdat_merge_next(m, &ev) == 0) {
		if (!(tt = file_type(ev->file, ev)))
			continue;
		if ((utid = derive_thread(d, ev, tt)) < 0 || derive_put(d, ev, tt, utid))
			return false;
	}
	return !derive_finish(d);
}

void fuzz_model_check(const char *path, const struct tdat_open_opts *oo)
{
	struct mcheck c = { 0 };
	struct derive_ops ops = { .ctx = &c, .row = on_row };
	struct tdat_file *f = tdat_file_new();
	struct tdat_merge *m = tdat_merge_new();
	struct derive *d = NULL;

	if (f && m && !tdat_file_open(f, path, oo) && !tdat_merge_add(m, f) &&
	    (d = derive_new(m, &ops))) {
		if (feed(d, m))
			check_all(&c);
	}
	derive_free(d);
	tdat_merge_free(m);
	tdat_file_free(f);
	free(c.sched.r);
	free(c.state.r);
	free(c.slice.r);
	free(c.track.r);
	free(c.counter.r);
	free(c.thread_upid.r);
	free(c.proc_parent.r);
}
