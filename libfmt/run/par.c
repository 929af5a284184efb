// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * par.c - tdat_writer_run(): every event of the writer's merge that the
 * selection keeps, into the writer, on the caller's thread or (-j N) on N
 * workers, with the same output either way.
 *
 * With workers, the timeline is cut into time windows (read/merge-par.h:
 * all of read/ that par.c and par-work.c use, but the public tdat.h); each
 * worker decodes, selects and formats one window at a time (par-work.c), and the caller takes the windows' blocks in timeline order:
 * it writes their text, or puts their events through the format (whose
 * model of threads, slices and ids so stays on one thread).  Before the
 * first block of a window is taken, the places where its cursors begin
 * must be those where the window before it left them: then its events are
 * exactly those one thread reads next.  They are not when a CPU's times go
 * back across a cut; then (and when a worker fails) the workers stop and
 * the caller reads on alone from the place the last block it took ends at,
 * as if it had read everything before.  A stack trace the selection keeps
 * with the event before it, in an earlier window, comes marked: the
 * caller decides (par_read_take()).  Damage the workers meet is reported
 * by the caller's merge in the same order, so messages, exit status and
 * tdat_merge_stats() are those of one thread too.
 */
#include <stdlib.h>
#include <string.h>

#include "run/par.h"

#define TICK_EVENTS 65536	/* events between two progress calls, on one thread */

static int run_serial(struct tdat_writer *w, struct tdat_select *sel, struct tdat_run *run)
{
	const struct tdat_event *ev;
	int ret;

	while ((ret = tdat_merge_next(w->merge, &ev)) == 0) {
		if (sel && tdat_select_done(sel, ev))
			return TDAT_END;
		run->events++;
		if (!sel || tdat_select_match(sel, ev)) {
			run->kept++;
			if ((ret = writer_put_now(w, ev)))
				return ret;
		}
		if (run->tick && !(run->events % TICK_EVENTS))
			run->tick(run->arg, run->events);
	}
	return ret;
}

/*
 * How workers can take @w's events (@how: what reading in windows found of
 * its merge); false: they cannot.
 */
static enum par_mode par_mode_of(const struct tdat_writer *w)
{
	if (w->ops->parallel && (w->sink.fd >= 0 || w->ops->put_segs))
		return PM_PRINT;
	return w->ops->prepare ? PM_PREPARE : PM_COPY;
}

static bool par_mode(struct tdat_writer *w, struct tdat_select *sel, const struct par_how *how,
		     enum par_mode *mode)
{
	*mode = par_mode_of(w);
	/* the merge's count is made of the copies: every event, and the caller sees each */
	return !how->counting || (!sel && *mode != PM_PRINT);
}

static void par_free(struct par *p)
{
	struct block *b;

	if (!p)
		return;
	if (p->nwk)
		par_workers_stop(p);
	for (unsigned i = 0; p->ring && i < p->nring; i++) {
		struct win *win = &p->ring[i];

		while ((b = win->head)) {
			win->head = b->next;
			block_free(b, p);
		}
		free(win->cut.from);
		free(win->cut.to);
		free(win->start);
	}
	while ((b = p->spare)) {
		p->spare = b->next;
		block_free(b, p);
	}
	free(p->ring);
	names_free(p->learnt);
	par_read_free(p->pr);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->made);
	pthread_cond_destroy(&p->room);
	free(p);
}

/* The run of @w's merge, read in windows by @pr (@p's from now on, freed with it). */
static struct par *par_new(struct tdat_writer *w, struct tdat_select *sel, enum par_mode mode,
			   struct par_read *pr, int ncur)
{
	struct par *p = calloc(1, sizeof(*p));
	size_t n;

	if (!p) {
		par_read_free(pr);
		return NULL;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->made, NULL);
	pthread_cond_init(&p->room, NULL);
	p->w = w;
	p->m = w->merge;
	p->sel = sel;
	p->mode = mode;
	p->blk_events = mode == PM_COPY ? BLOCK_PUT_EVENTS : BLOCK_EVENTS;
	p->blk_bytes = mode == PM_COPY ? BLOCK_PUT_BYTES : BLOCK_BYTES;
	p->pr = pr;
	p->ncur = ncur;
	p->nring = (unsigned)w->jobs + 1;	/* the one taken, and one for each worker */
	n = (size_t)p->ncur + 1;
	if (!(p->ring = calloc(p->nring, sizeof(*p->ring))) ||
	    (mode == PM_PRINT && !(p->learnt = names_new()))) {
		par_free(p);
		return NULL;
	}
	for (unsigned i = 0; i < p->nring; i++) {
		struct win *win = &p->ring[i];

		if (!(win->cut.from = malloc(sizeof(struct cpos) * n)) ||
		    !(win->cut.to = malloc(sizeof(struct cpos) * n)) ||
		    !(win->start = malloc(sizeof(struct cpos) * n))) {
			par_free(p);
			return NULL;
		}
	}
	return p;
}

/* Queue the window planned into the ring's next slot. */
static void queue(struct par *p)
{
	struct win *win = &p->ring[p->head % p->nring];

	pthread_mutex_lock(&p->mu);
	win->state = W_QUEUED;
	win->started = win->failed = false;
	win->bytes = 0;
	p->head++;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->mu);
}

/* Plan windows into the free slots of the ring; false when the plan is done. */
static bool fill(struct par *p, bool *planned)
{
	while (*planned && p->head - p->tail < p->nring) {
		if (!(*planned = par_read_next(p->pr, &p->ring[p->head % p->nring].cut) > 0))
			break;
		queue(p);
	}
	return *planned;
}

/* PM_PRINT: @b's text, but for the undecided stack traces dropped. */
static void write_text(struct tdat_sink *s, const struct block *b)
{
	const struct par_back *bk = b->back;
	size_t from = 0;

	for (size_t i = 0; i < bk->nund; i++) {
		if (bk->und[i].keep)
			continue;
		sink_write(s, b->out.buf + from, bk->und[i].at - from);
		from = bk->und[i].at + bk->und[i].len;
	}
	sink_write(s, b->out.buf + from, b->out.len - from);
}

/* PM_PREPARE, PM_COPY: put @b's events through the format (@u: the next undecided one). */
static int put_events(struct par *p, const struct block *b)
{
	struct tdat_writer *w = p->w;
	const struct par_back *bk = b->back;
	size_t u = 0;
	int ret = 0;

	for (size_t i = 0; i < b->nev && !ret; i++) {
		struct tdat_event ev = b->ev[i];

		if (u < bk->nund && bk->und[u].at == i && !bk->und[u++].keep)
			continue;
		ev.data = b->bytes + (uintptr_t)ev.data;
		w->pre = p->mode == PM_PREPARE && b->pre_len[i] != NO_PRE ? b->out.buf + b->pre_off[i]
									  : NULL;
		w->pre_len = w->pre ? b->pre_len[i] : 0;
		w->fit = b->fit[i];
		if (!(ret = writer_put_now(w, &ev)))
			ret = merge_tally(p->m, b->cur[i], &ev);
	}
	w->pre = NULL;
	w->fit = false;
	if (!ret && b->post_len)
		ret = w->ops->put_trailer(w, b->out.buf + b->post, b->post_len);
	return ret;
}

/*
 * Write, or put, what block @b holds; what its reading found is taken
 * first (the undecided stack traces dropped are no longer counted kept).
 */
static int take_block(struct par *p, struct block *b, struct tdat_run *run)
{
	struct tdat_writer *w = p->w;
	int ret = 0;

	b->kept -= par_read_take(p->pr, b->back);
	if (p->mode == PM_PRINT && b->segs.n)
		ret = w->ops->put_segs(w, b->out.buf, &b->segs);
	else if (p->mode == PM_PRINT && b->names.n)
		ret = names_write(p->learnt, p->m, &w->sink, b->out.buf, b->out.len, &b->names,
				  b->back->und, b->back->nund);
	else if (p->mode == PM_PRINT)
		write_text(&w->sink, b);
	else
		ret = put_events(p, b);
	if (!ret && w->sink.err) {
		tdat_msg(w->errmsg, "write error: %s", strerror(w->sink.err));
		ret = TDAT_EIO;
	}
	if (b->ndamaged)
		writer_damage_add(w, &b->first, b->ndamaged);
	run->events += b->events;
	run->kept += b->kept;
	if (run->tick)
		run->tick(run->arg, run->events);
	return ret;
}

/* The next block of window @win, or NULL when it has none left (or no one makes it). */
static struct block *next_block(struct par *p, struct win *win)
{
	struct block *b;

	pthread_mutex_lock(&p->mu);
	while (!win->head && win->state != W_DONE && p->alive)
		pthread_cond_wait(&p->made, &p->mu);
	if ((b = win->head)) {
		win->head = b->next;
		if (!win->head)
			win->tail = NULL;
		win->bytes -= b->size;
		p->bytes -= b->size;
		pthread_cond_broadcast(&p->room);
	}
	pthread_mutex_unlock(&p->mu);
	return b;
}

static void recycle(struct par *p, struct block *b)
{
	pthread_mutex_lock(&p->mu);
	b->next = p->spare;
	p->spare = b;
	pthread_mutex_unlock(&p->mu);
}

/*
 * Take window @win's blocks (it must begin where the blocks taken so far
 * end).  0 when the window is done, 1 when the caller must read on alone,
 * or an error.
 */
static int take_window(struct par *p, struct win *win, struct tdat_run *run)
{
	struct block *b;
	bool ok;
	int ret;

	pthread_mutex_lock(&p->mu);
	while (!win->started && win->state != W_DONE && p->alive)
		pthread_cond_wait(&p->made, &p->mu);
	ok = win->started;
	pthread_mutex_unlock(&p->mu);
	if (!ok || !par_read_follows(p->pr, win->start))
		return 1;
	while ((b = next_block(p, win))) {
		ret = take_block(p, b, run);
		recycle(p, b);
		if (ret)
			return ret;
	}
	pthread_mutex_lock(&p->mu);
	ok = win->state == W_DONE && !win->failed;
	win->state = W_FREE;
	pthread_mutex_unlock(&p->mu);
	return ok ? 0 : 1;
}

/*
 * Workers: one a job when they print or prepare (the caller only writes,
 * or puts what they formatted); when the caller puts copies of the events
 * through a format, which keeps a core busy (and the format's own threads
 * more), as many fewer.  0: -j gives no thread to decoding.
 *
 * Preparing only from PREPARE_JOBS: the caller still puts every event
 * through the model, and a prepared event is copied and its fields handed
 * over once more, so that on two cores the workers and the caller cost
 * more than one thread doing it all (json of big-mixed.dat at -j 2: 3.6 s
 * of CPU, 2.6 s, 68 MiB, against 2.2 s, 2.2 s, 27 MiB at -j 1).
 */
static int nworkers(const struct tdat_writer *w, enum par_mode mode)
{
	if (mode == PM_PREPARE)
		return w->jobs >= PREPARE_JOBS ? w->jobs : 0;
	return mode == PM_PRINT ? w->jobs : w->jobs - 1 - w->ops->threads;
}

/* TDAT_EUNSUPP: one window holds it all, read it on one thread. */
static int par_run(struct tdat_writer *w, struct tdat_select *sel, struct tdat_run *run)
{
	struct par *p;
	struct par_read *pr;
	struct par_how how;
	int ret;
	bool planned = true;
	enum par_mode mode;

	/* a format whose own threads take the cores -j gives: not even a plan */
	if (w->jobs < 2 || nworkers(w, par_mode_of(w)) < 1)
		return TDAT_EUNSUPP;
	if ((ret = par_read_new(w->merge, sel, w->ops->names, w->window, &how, &pr)))
		return ret;
	if (!par_mode(w, sel, &how, &mode)) {
		par_read_free(pr);
		return TDAT_EUNSUPP;
	}
	if (!(p = par_new(w, sel, mode, pr, how.ncur)))
		return TDAT_ENOMEM;
	if ((ret = par_read_next(pr, &p->ring[0].cut)) <= 0 || p->ring[0].cut.last) {
		ret = ret < 0 ? ret : TDAT_EUNSUPP;
		goto out;
	}
	queue(p);
	if ((ret = par_workers_start(p, nworkers(w, mode))))
		goto out;
	while ((fill(p, &planned) || p->tail < p->head)) {
		ret = take_window(p, &p->ring[p->tail % p->nring], run);
		if (ret)
			break;
		pthread_mutex_lock(&p->mu);
		p->tail++;
		pthread_cond_broadcast(&p->room);	/* the next window's worker has its own room now */
		pthread_mutex_unlock(&p->mu);
		run->windows++;
	}
	par_workers_stop(p);
	if (ret == 0)
		ret = par_read_end(pr, true) ? TDAT_ENOMEM : TDAT_END;
	else if (ret == 1 && !(ret = par_read_end(pr, false))) {
		run->alone = run->events + 1;
		names_seed(p->learnt, p->m);
		ret = run_serial(w, sel, run);
	}
out:
	par_free(p);
	return ret;
}

int tdat_writer_run(struct tdat_writer *w, struct tdat_select *sel, struct tdat_run *run)
{
	int ret = par_run(w, sel, run);

	if (ret == TDAT_EUNSUPP)
		ret = run_serial(w, sel, run);
	if (run->tick)
		run->tick(run->arg, run->events);	/* the count at the end */
	return ret;
}

void tdat_writer_set_window(struct tdat_writer *w, uint64_t bytes)
{
	w->window = bytes;
}
