// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * merge-par.c - reading for a parallel run (-j, run/par.c): the caller's
 * merge cut into time windows (window.c), a worker's merge and selection
 * over clones of the caller's files (file_clone(), select_clone()), and
 * what a worker found (places, damage, what its selection learnt or could
 * not decide) handed back to the caller's merge and selection in timeline
 * order, so that they end as if they had read every event themselves.
 */
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

#define WINDOW_BYTES (2u << 20)	/* decompressed trace bytes a window holds, about, */
#define CPU_BYTES (128u << 10)	/* and at least this much a CPU (each one is seeked to it) */

struct par_read {
	struct tdat_merge *m;
	struct tdat_select *sel;
	int ncur;
	uint64_t window;	/* 0: the default */
	struct plan *plan;	/* made at the first window */
	struct cpos *at;	/* where what was taken ends, */
	int last;		/* its cursor handed out last, */
	bool taken;		/* if anything was */
};

/* Whether @m's files can be read in windows with @sel; TDAT_EUNSUPP if not. */
static int check(struct tdat_merge *m, struct tdat_select *sel, bool names)
{
	struct tdat_file *f;
	int64_t end;

	if (sel && select_window_get(sel, 1, &end) && end < 0)
		return TDAT_EUNSUPP;
	/* --comm matches names the text learns as it prints, in order (run/par-names.c) */
	if (names && sel && select_comms(sel))
		return TDAT_EUNSUPP;
	/* pieces read one after the other (chain.c): on the caller's thread, which reads ahead */
	if (merge_chained(m))
		return TDAT_EUNSUPP;
	/* notices name libtraceevent's strings of one handle: keep those files on one thread */
	for (int i = 0; (f = merge_member(m, i)); i++)
		if (tdat_file_nnotes(f))
			return TDAT_EUNSUPP;
	return 0;
}

int par_read_new(struct tdat_merge *m, struct tdat_select *sel, bool names, uint64_t window,
		 struct par_how *how, struct par_read **out)
{
	struct par_read *pr;
	int ret;

	*out = NULL;
	if ((ret = check(m, sel, names)))
		return ret;
	if (!(pr = calloc(1, sizeof(*pr))))
		return TDAT_ENOMEM;
	pr->m = m;
	pr->sel = sel;
	pr->ncur = merge_ncursors(m);
	pr->window = window;
	pr->last = -1;
	if (!(pr->at = calloc((size_t)pr->ncur + 1, sizeof(*pr->at)))) {
		free(pr);
		return TDAT_ENOMEM;
	}
	how->ncur = pr->ncur;
	how->counting = merge_counting(m);
	*out = pr;
	return 0;
}

void par_read_free(struct par_read *pr)
{
	if (!pr)
		return;
	plan_free(pr->plan);
	free(pr->at);
	free(pr);
}

/* The windows' time span: from the selection's start (the merge was seeked there), to its end. */
static int plan(struct par_read *pr)
{
	int64_t start = 0, end = 0;
	bool has_start = pr->sel && select_window_get(pr->sel, 0, &start) && start > 0;
	bool has_end = pr->sel && select_window_get(pr->sel, 1, &end);
	uint64_t last = (uint64_t)end;
	uint64_t window = (uint64_t)pr->ncur * CPU_BYTES;

	if (window < WINDOW_BYTES)
		window = WINDOW_BYTES;
	return plan_new(pr->m, has_start ? (uint64_t)start : 0, has_end ? &last : NULL,
			pr->window ? pr->window : window, &pr->plan);
}

int par_read_next(struct par_read *pr, struct wcut *cut)
{
	int ret;

	if (!pr->plan && (ret = plan(pr)))
		return ret;
	return plan_next(pr->plan, cut);
}

bool par_read_follows(const struct par_read *pr, const struct cpos *start)
{
	for (int i = 0; pr->taken && i < pr->ncur; i++)
		if (!cpos_eq(&start[i], &pr->at[i]))
			return false;
	return true;
}

size_t par_read_take(struct par_read *pr, struct par_back *bk)
{
	size_t dropped = 0;

	if (pr->sel) {
		for (size_t i = 0; i < bk->nund; i++) {
			struct par_und *u = &bk->und[i];

			u->keep = select_decide(pr->sel, u->slot, u->neg);
			dropped += !u->keep;
		}
		select_absorb(pr->sel, &bk->sel);
	}
	for (size_t i = 0; i < bk->ndmg; i++)
		merge_damage_add(pr->m, bk->dmg[i].cursor, bk->dmg[i].off, bk->dmg[i].bytes,
				 bk->dmg[i].reason);
	merge_progress_at(pr->m, bk->at);
	memcpy(pr->at, bk->at, sizeof(*pr->at) * (size_t)pr->ncur);
	pr->last = bk->last;
	pr->taken = true;
	return dropped;
}

int par_read_end(struct par_read *pr, bool all)
{
	if (all)
		return merge_windows_done(pr->m);
	return pr->taken ? merge_resume(pr->m, pr->at, pr->last) : 0;
}

static struct par_back *back_new(const struct par_read *pr)
{
	struct par_back *bk = calloc(1, sizeof(*bk));

	if (!bk || !(bk->at = malloc(sizeof(*bk->at) * ((size_t)pr->ncur + 1))) ||
	    (pr->sel && select_state_init(pr->sel, &bk->sel))) {
		par_back_free(bk);
		return NULL;
	}
	return bk;
}

void par_back_free(struct par_back *bk)
{
	if (!bk)
		return;
	free(bk->at);
	free(bk->und);
	free(bk->dmg);
	select_state_release(&bk->sel);
	free(bk);
}

/* The worker's merge's damage, into the back being made. */
static void on_damage(void *arg, int cursor, uint64_t off, uint64_t bytes, const char *reason)
{
	struct par_back *bk = ((struct par_reader *)arg)->back;
	struct par_dmg *d;

	if (bk->ndmg == bk->dcap) {
		size_t cap = bk->dcap ? 2 * bk->dcap : 16;

		if (!(d = realloc(bk->dmg, sizeof(*d) * cap)))
			return;	/* the caller's merge would have lost it too */
		bk->dmg = d;
		bk->dcap = cap;
	}
	bk->dmg[bk->ndmg++] = (struct par_dmg){ cursor, off, bytes, reason };
}

/* @rd's clones of every file of the caller's merge, its merge and selection. */
static int reader_init(struct par_reader *rd, bool symbols)
{
	const struct par_read *pr = rd->pr;
	int ret;

	/* function names: printed by the worker's writer (FIELD_sym too), or named in a filter */
	symbols = symbols || (pr->sel && select_filters(pr->sel));
	for (rd->nfiles = 0; merge_member(pr->m, rd->nfiles); rd->nfiles++)
		;
	if (!(rd->files = calloc((size_t)rd->nfiles + 1, sizeof(*rd->files))) ||
	    !(rd->orig = calloc((size_t)rd->nfiles + 1, sizeof(*rd->orig))) ||
	    !(rd->back = back_new(pr)) || !(rd->m = tdat_merge_new()))
		return TDAT_ENOMEM;
	for (int i = 0; i < rd->nfiles; i++) {
		rd->orig[i] = merge_member(pr->m, i);
		if ((ret = file_clone(rd->orig[i], symbols, &rd->files[i])) ||
		    (ret = tdat_merge_add(rd->m, rd->files[i])))
			return ret;
	}
	if (merge_ncursors(rd->m) != pr->ncur)
		return TDAT_EINVAL;
	merge_damage_hook(rd->m, on_damage, rd);
	if (pr->sel && (!(rd->sel = select_clone(pr->sel)) || select_bind_filters(rd->sel, rd->m)))
		return TDAT_ENOMEM;
	return 0;
}

int par_reader_new(const struct par_read *pr, bool symbols, struct par_reader **out)
{
	struct par_reader *rd = calloc(1, sizeof(*rd));
	int ret;

	*out = NULL;
	if (!rd)
		return TDAT_ENOMEM;
	rd->pr = pr;
	rd->last = -1;
	if ((ret = reader_init(rd, symbols))) {
		par_reader_free(rd);
		return ret;
	}
	*out = rd;
	return 0;
}

void par_reader_free(struct par_reader *rd)
{
	if (!rd)
		return;
	tdat_select_free(rd->sel);
	tdat_merge_free(rd->m);
	for (int i = 0; rd->files && i < rd->nfiles; i++)
		tdat_file_free(rd->files[i]);
	free(rd->files);
	free(rd->orig);
	par_back_free(rd->back);
	free(rd);
}

int par_reader_window(struct par_reader *rd, const struct wcut *cut, struct cpos *start)
{
	int ret;

	rd->back->ndmg = rd->back->nund = 0;
	if ((ret = merge_window(rd->m, cut, start)))
		return ret;
	if (rd->sel)
		select_window(rd->sel);
	return 0;
}

/* Note the undecided event @ev in the back being made. */
static struct par_und *undecided(struct par_reader *rd, const struct tdat_event *ev)
{
	struct par_back *bk = rd->back;

	if (bk->nund == bk->ucap) {
		size_t cap = 2 * bk->ucap + 8;
		struct par_und *u = realloc(bk->und, sizeof(*u) * cap);

		if (!u)
			return NULL;
		bk->und = u;
		bk->ucap = cap;
	}
	bk->und[bk->nund] = (struct par_und){ .slot = select_slot(rd->sel, ev),
					      .neg = rd->sel->undecided_neg };
	return &bk->und[bk->nund++];
}

int par_reader_next(struct par_reader *rd, const struct tdat_event **ev, int *keep,
		    struct par_und **und)
{
	int ret;

	*und = NULL;
	if ((ret = tdat_merge_next(rd->m, ev)))
		return ret;
	rd->last = merge_last(rd->m);
	*keep = rd->sel ? select_match3(rd->sel, *ev) : 1;
	if (*keep < 0 && !(*und = undecided(rd, *ev)))
		return TDAT_ENOMEM;
	return 0;
}

int par_reader_seal(struct par_reader *rd, struct par_back **bk, int last)
{
	struct par_back *full = rd->back, *next = *bk;

	if (!next && !(next = back_new(rd->pr)))
		return TDAT_ENOMEM;
	merge_places(rd->m, full->at);
	full->last = last;
	if (rd->sel)
		select_take(rd->sel, &full->sel);
	next->ndmg = next->nund = 0;
	rd->back = next;
	*bk = full;
	return 0;
}
