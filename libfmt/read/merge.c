/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * merge.c - one timeline out of every CPU of every buffer of every input:
 * a binary min-heap of per-CPU cursors keyed on (timestamp, input, buffer,
 * cpu slot).  Taking an event re-sifts the top once, so each event costs
 * O(log cursors), not a scan of all CPUs.  Ties break exactly as trace-cmd
 * report does (lower input, then buffer, then CPU first).
 *
 * The pieces of one tdat-split are one input: their cursors share its
 * number, and on a tie the earlier piece of a CPU comes first.
 */
#include <stdlib.h>
#include <string.h>

#include "read/merge-int.h"

#define MAX_DAMAGE 1024	/* entries kept; later ones are only counted */

const char damage_no_format[] = "events of a type the file has no format for, written undecoded";


struct tdat_merge *tdat_merge_new(void)
{
	struct tdat_merge *m = calloc(1, sizeof(*m));

	if (m)
		m->last = -1;
	return m;
}

void damage_push(struct tdat_damage **list, int *n, const struct cursor *c, uint64_t off,
		 uint64_t bytes, const char *reason)
{
	struct tdat_damage *d;

	/* records with no format are summed per CPU: a file may hold millions */
	for (int i = 0; reason == damage_no_format && i < *n; i++) {
		d = &(*list)[i];
		if (d->reason == reason && d->input == c->input && d->buffer == c->buffer &&
		    d->cpu == c->ci->cpu) {
			d->bytes += bytes;
			return;
		}
	}
	if (*n >= MAX_DAMAGE) {
		(*list)[MAX_DAMAGE - 1].bytes += bytes;
		return;
	}
	d = realloc(*list, sizeof(*d) * (size_t)(*n + 1));
	if (!d)
		return;
	*list = d;
	d += (*n)++;
	d->input = c->input;
	d->path = c->f->info.path;
	d->buffer = c->buffer;
	d->cpu = c->ci->cpu;
	d->offset = off;
	d->bytes = bytes;
	d->reason = reason;
}

/* With counting, the per-cursor tally (made on first use); false without memory. */
static bool tally_ready(struct tdat_merge *m)
{
	if (m->counting && !m->tally)
		m->tally = calloc(m->ncursors ? (size_t)m->ncursors : 1, sizeof(*m->tally));
	return !m->counting || m->tally;
}

static void on_damage(void *owner, const struct cursor *c, uint64_t off, uint64_t bytes,
		      const char *reason)
{
	struct tdat_merge *m = owner;

	if (m->quiet)
		return;
	if (m->hook) {
		m->hook(m->hook_arg, (int)(c - m->cursors), off, bytes, reason);
		return;
	}
	/* a -j caller's first damage comes before its first event (merge_damage_add()) */
	if (tally_ready(m) && m->tally)
		m->tally[c - m->cursors].cs.damaged += bytes;
	damage_push(&m->damage, &m->ndamage, c, off, bytes, reason);
}

static int merge_add_one(struct tdat_merge *m, struct tdat_file *f)
{
	struct tdat_file **files;
	struct member *mb;
	struct cursor *cur;
	int n = 0, ret, input;

	if (m->started)
		return TDAT_EINVAL;
	/* a piece's metadata: its split's first piece's, or its own read now */
	if ((ret = file_meta_load(f, splits_first(&m->splits, f)))) {
		tdat_msg(m->errmsg, "%s: %s", f->info.path, *f->errmsg ? f->errmsg : tdat_strerror(ret));
		return ret;
	}
	if ((ret = splits_join(&m->splits, f, m->nfiles, &input, m->errmsg)))
		return ret;
	for (int b = 0; b < f->nbuffers; b++)
		if (!f->buffers[b].info.latency)
			n += f->buffers[b].info.ncpus;
	files = realloc(m->files, sizeof(*files) * (size_t)(m->nfiles + 1));
	if (!files)
		return TDAT_ENOMEM;
	m->files = files;
	cur = realloc(m->cursors, sizeof(*cur) * (size_t)(m->ncursors + n));
	if (!cur)
		return TDAT_ENOMEM;
	m->cursors = cur;
	if (!(files = realloc(m->all, sizeof(*files) * (size_t)(m->nall + 1))))
		return TDAT_ENOMEM;
	m->all = files;
	if (!(mb = realloc(m->members, sizeof(*mb) * (size_t)(m->nall + 1))))
		return TDAT_ENOMEM;
	m->members = mb;
	mb[m->nall] = (struct member){ .cur0 = m->ncursors, .ncur = n, .next = -1 };
	for (int b = 0; b < f->nbuffers; b++) {
		if (f->buffers[b].info.latency)
			continue;
		for (int c = 0; c < f->buffers[b].info.ncpus; c++) {
			cur = &m->cursors[m->ncursors];
			if ((ret = cursor_init(cur, f, input < 0 ? m->nfiles : input, b, c))) {
				cursor_release(cur);
				return ret;
			}
			cur->piece = f->is_piece ? f->piece.seq : 0;
			cur->member = m->nall;
			cur->damage = on_damage;
			cur->owner = m;
			m->ncursors++;
		}
	}
	m->all[m->nall++] = f;
	if (f->is_piece)	/* one of maybe thousands: open again when it is read */
		file_park(f);
	if (input < 0)
		m->files[m->nfiles++] = f;
	return 0;
}

/*
 * A merged trace.dat is the inputs it was merged from: a view of each
 * (origin.c) is added in its place, an input of its own.
 */
static int add_views(struct tdat_merge *m, struct tdat_file *f)
{
	for (int k = 0; k < tdat_file_norigins(f); k++) {
		struct tdat_file **v = realloc(m->views, sizeof(*v) * (size_t)(m->nviews + 1));
		char why[TDAT_MSG_LEN] = "";
		int ret;

		if (!v)
			return TDAT_ENOMEM;
		m->views = v;
		if ((ret = file_view(f, k, &v[m->nviews], why))) {
			tdat_msg(m->errmsg, "%s: merged input %d (%s): %s", f->info.path, k,
				 tdat_file_origin(f, k)->name, why[0] ? why : tdat_strerror(ret));
			return ret;
		}
		if ((ret = merge_add_one(m, v[m->nviews++])))
			return ret;
	}
	return 0;
}

int tdat_merge_add(struct tdat_merge *m, struct tdat_file *f)
{
	if (m->started)
		return TDAT_EINVAL;
	return tdat_file_norigins(f) ? add_views(m, f) : merge_add_one(m, f);
}

static inline bool before(const struct tdat_merge *m, int a, int b)
{
	uint64_t ta = m->cursors[a].ev.ts, tb = m->cursors[b].ev.ts;

	return ta < tb || (ta == tb && m->cursors[a].rank < m->cursors[b].rank);
}

/*
 * Tie-break rank, as trace-cmd report orders its handles: the top buffers
 * of all inputs first (in input order), then each input's instances; in
 * one input, by buffer, then CPU, then (pieces of a split) piece.
 */
static int rank_cmp(const void *x, const void *y, void *arg)
{
	const struct cursor *cs = arg, *a = &cs[*(const int *)x], *b = &cs[*(const int *)y];
	int pa = a->b->info.name[0] != '\0', pb = b->b->info.name[0] != '\0';
	int ca = (int)(a->ci - a->b->cpus), cb = (int)(b->ci - b->b->cpus);

	if (pa != pb)
		return pa - pb;
	if (a->input != b->input)
		return a->input - b->input;
	if (a->buffer != b->buffer)
		return a->buffer - b->buffer;
	if (ca != cb)
		return ca - cb;
	return a->piece < b->piece ? -1 : a->piece > b->piece;
}

/* Rank the cursors; @order (ncursors entries) gets their indexes in rank order. */
static void rank_cursors(struct tdat_merge *m, int *order)
{
	for (int i = 0; i < m->ncursors; i++)
		order[i] = i;
	qsort_r(order, (size_t)m->ncursors, sizeof(*order), rank_cmp, m->cursors);
	for (int r = 0; r < m->ncursors; r++)
		m->cursors[order[r]].rank = r;
}

static void sift_down(struct tdat_merge *m, int i)
{
	int *h = m->heap, n = m->nheap;

	for (;;) {
		int l = 2 * i + 1, r = l + 1, s = i, t;

		if (l < n && before(m, h[l], h[s]))
			s = l;
		if (r < n && before(m, h[r], h[s]))
			s = r;
		if (s == i)
			return;
		t = h[i];
		h[i] = h[s];
		h[s] = t;
		i = s;
	}
}

static void sift_up(struct tdat_merge *m, int i)
{
	int *h = m->heap;

	while (i > 0) {
		int p = (i - 1) / 2, t;

		if (!before(m, h[i], h[p]))
			return;
		t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

void merge_heap_push(struct tdat_merge *m, int i)
{
	m->heap[m->nheap] = i;
	sift_up(m, m->nheap++);
}

/*
 * Keep why @ret stopped the merge: when cursor @c failed, name its input
 * and, for a read error, the file's detail (the offset and errno text).
 */
int merge_fail(struct tdat_merge *m, const struct cursor *c, int ret)
{
	if (ret == TDAT_ENOMEM)
		tdat_msg(m->errmsg, "out of memory");
	else if (c && ret == TDAT_EIO && *c->f->errmsg)
		tdat_msg(m->errmsg, "%s: %s", c->f->info.path, c->f->errmsg);
	else if (c)
		tdat_msg(m->errmsg, "%s: %s", c->f->info.path, tdat_strerror(ret));
	else
		tdat_msg(m->errmsg, "%s", tdat_strerror(ret));
	return ret;
}

static int start(struct tdat_merge *m)
{
	int ret;

	m->started = true;
	m->heap = malloc(sizeof(*m->heap) * (size_t)(m->ncursors ? m->ncursors : 1));
	if (!m->heap)
		return merge_fail(m, NULL, TDAT_ENOMEM);
	if (!tally_ready(m))
		return merge_fail(m, NULL, TDAT_ENOMEM);
	rank_cursors(m, m->heap);
	if ((ret = chains_setup(m)))
		return merge_fail(m, NULL, ret);
	for (int i = 0; i < m->ncursors; i++)
		m->cursors[i].ahead.pf = m->pf;
	for (int i = 0; i < m->ncursors; i++) {
		struct member *mb = &m->members[m->cursors[i].member];

		if (mb->held)	/* a piece of a chain, read when the one before it ends */
			continue;
		ret = cursor_peek(&m->cursors[i]);
		if (ret < 0)
			return merge_fail(m, &m->cursors[i], ret);
		if (ret == 0) {
			m->heap[m->nheap++] = i;
			mb->live++;
		}
	}
	for (int i = m->nheap / 2 - 1; i >= 0; i--)
		sift_down(m, i);
	for (int k = 0; k < m->nall; k++)	/* a first piece with no event at all */
		if (m->members[k].chain && !m->members[k].held && !m->members[k].over &&
		    !m->members[k].live && m->members[k].ncur &&
		    (ret = chain_cursor_end(m, m->members[k].cur0)))
			return ret;
	return 0;
}

/* Count event @ev of cursor @i, as tdat_stats_collect() counts it. */
static int tally_event(struct tdat_merge *m, int i, const struct tdat_event *ev)
{
	struct tally *t = &m->tally[i];

	if (!t->cs.events)
		t->cs.first_ts = ev->ts;
	t->cs.last_ts = ev->ts;
	t->cs.events++;
	if (ev->missed > 0)
		t->cs.lost += (uint64_t)ev->missed;
	else if (ev->missed < 0)
		t->cs.lost_pages++;
	if (ev->size < 2)
		return 0;
	if (count_bump(&t->counts, &t->ncounts, (unsigned)file_num(m->cursors[i].f, ev->data, 2)))
		return merge_fail(m, NULL, TDAT_ENOMEM);
	return 0;
}

int tdat_merge_next(struct tdat_merge *m, const struct tdat_event **ev)
{
	int ret;

	if (!m->started && (ret = start(m)))
		return ret;
	if (m->last >= 0) {
		struct cursor *c = &m->cursors[m->last];

		cursor_advance(c);
		ret = cursor_peek(c);
		if (ret < 0)
			return merge_fail(m, c, ret);
		if (ret == TDAT_END || (m->bounded && c->ev.ts >= m->hi))
			m->heap[0] = m->heap[--m->nheap];
		if (m->nheap)
			sift_down(m, 0);
		if (ret == TDAT_END && m->chained && (ret = chain_cursor_end(m, m->last)))
			return ret;
		m->last = -1;
	}
	if (!m->nheap) {
		m->ended = true;
		return TDAT_END;
	}
	m->last = m->heap[0];
	*ev = &m->cursors[m->last].ev;
	return m->tally ? tally_event(m, m->last, *ev) : 0;
}

int tdat_merge_seek(struct tdat_merge *m, uint64_t ts)
{
	bool *done;
	int ret;

	if (m->started)
		return TDAT_EINVAL;
	m->seeked = true;
	if (!(done = calloc((size_t)m->ncursors + 1, sizeof(*done))))
		return TDAT_ENOMEM;
	ret = chains_seek(m, ts, done);	/* a chain: only the piece that holds @ts */
	for (int i = 0; i < m->ncursors && !ret; i++)
		if (!done[i])
			ret = cursor_seek(&m->cursors[i], ts);
	free(done);
	return ret;
}

/*
 * The first (or, with @last, the last) event time of cursor @c's CPU, read
 * through a second cursor so that @c itself is not moved.  TDAT_END: none.
 */
int merge_probe(const struct cursor *c, bool last, uint64_t *ts)
{
	struct cursor probe;
	int ret, n = 0;

	if (cursor_init(&probe, c->f, c->input, c->buffer, (int)(c->ci - c->b->cpus))) {
		cursor_release(&probe);
		return TDAT_ENOMEM;
	}
	if (last && (ret = cursor_seek(&probe, UINT64_MAX)))
		goto out;
	/* from the last page on, the latest of its events (a damaged page may go back) */
	while ((ret = cursor_peek(&probe)) == 0) {
		if (!n++ || probe.ev.ts > *ts)
			*ts = probe.ev.ts;
		if (!last)
			break;
		cursor_advance(&probe);
	}
	if (ret == TDAT_END && n)
		ret = 0;
out:
	cursor_release(&probe);
	return ret;
}

/* First and, unless @last is NULL, last event time over every cursor. */
static int span(struct tdat_merge *m, uint64_t *first, uint64_t *last)
{
	bool any = false, lany = false;
	uint64_t t;
	int ret;

	if ((ret = chains_setup(m)))
		return ret;
	for (int i = 0; i < m->ncursors; i++) {
		bool f = chain_spans(m, i, false), l = last && chain_spans(m, i, true);

		if (!f && !l)
			continue;
		ret = merge_probe(&m->cursors[i], false, &t);
		chain_park(m, i);
		if (ret == TDAT_END)
			continue;
		if (ret)
			return ret;
		if (f && (!any || t < *first))
			*first = t;
		if (l && (!lany || t > *last))
			*last = t;
		any |= f;
		lany |= l;
		if (l && (ret = merge_probe(&m->cursors[i], true, &t)) < 0)
			return ret;
		chain_park(m, i);
		if (l && !ret && t > *last)
			*last = t;
	}
	return any ? 0 : TDAT_END;
}

int tdat_merge_first_ts(struct tdat_merge *m, uint64_t *ts)
{
	if (m->started)
		return TDAT_EINVAL;
	return span(m, ts, NULL);
}

int tdat_merge_span(struct tdat_merge *m, uint64_t *first, uint64_t *last)
{
	return span(m, first, last);
}

int tdat_merge_nfiles(const struct tdat_merge *m)
{
	return m->nfiles;
}

struct tdat_file *tdat_merge_file(const struct tdat_merge *m, int i)
{
	return i >= 0 && i < m->nfiles ? m->files[i] : NULL;
}

struct tdat_file *merge_member(const struct tdat_merge *m, int i)
{
	return i >= 0 && i < m->nall ? m->all[i] : NULL;
}

void tdat_merge_progress(const struct tdat_merge *m, uint64_t *done, uint64_t *total)
{
	*done = *total = 0;
	for (int i = 0; i < m->ncursors; i++) {
		*done += m->cursors[i].consumed;
		*total += m->cursors[i].ci->size;
	}
	if (m->windowed)
		*done = m->win_done;
}

int merge_copy_pages(struct tdat_merge *m,
		     int (*fn)(void *arg, const struct cursor *c, const unsigned char *page, size_t len),
		     void *arg)
{
	const unsigned char *page;
	size_t len;
	int ret = 0, *order;

	if (m->started)
		return TDAT_EINVAL;
	if ((ret = chains_setup(m)))
		return merge_fail(m, NULL, ret);
	m->started = true;
	/* in rank order: the pages of one CPU of a split's pieces come piece after piece */
	if (!(order = malloc(sizeof(*order) * (size_t)(m->ncursors + 1))))
		return merge_fail(m, NULL, TDAT_ENOMEM);
	rank_cursors(m, order);
	for (int i = 0; i < m->ncursors && !ret; i++) {
		struct cursor *c = &m->cursors[order[i]];
		bool fn_failed = false;	/* then the detail is @fn's own */

		while ((ret = cursor_next_page(c, &page, &len)) == 0)
			if ((fn_failed = (ret = fn(arg, c, page, len)) != 0))
				break;
		if (m->members[c->member].chain) {	/* done with it: one open file at a time */
			cursor_release(c);
			file_park(c->f);
		}
		if (ret == TDAT_END)
			ret = 0;
		else if (ret < 0 && !fn_failed)
			merge_fail(m, c, ret);
	}
	free(order);
	return ret;
}

int tdat_merge_count(struct tdat_merge *m)
{
	if (m->started)
		return TDAT_EINVAL;
	m->counting = true;
	return 0;
}

/* Add cursor tally @t into @s (its next CPU) and @counts. */
static int tally_add(struct tdat_stats *s, const struct cursor *c, const struct tally *t,
		     uint64_t **counts, unsigned *ncounts)
{
	struct tdat_cpu_stats *cs = &s->cpus[s->ncpus++];

	*cs = t->cs;
	cs->buffer = c->f->file_buffer ? c->f->file_buffer[c->buffer] : c->buffer;
	cs->cpu = c->ci->cpu;
	cs->stored = c->ci->size;
	cs->usize = c->ubytes;
	for (unsigned id = t->ncounts; id-- > 0;) {
		if (!t->counts[id])
			continue;
		if (count_bump(counts, ncounts, id))
			return TDAT_ENOMEM;
		(*counts)[id] += t->counts[id] - 1;
	}
	return 0;
}

int tdat_merge_stats(struct tdat_merge *m, struct tdat_file *f, struct tdat_stats **out)
{
	struct tdat_stats *s;
	uint64_t *counts = NULL;
	unsigned ncounts = 0;
	int ret = TDAT_ENOMEM;

	*out = NULL;
	if (!m->tally || !m->ended || m->seeked)
		return TDAT_EINVAL;
	if (!(s = calloc(1, sizeof(*s))) ||
	    !(s->cpus = calloc(m->ncursors ? (size_t)m->ncursors : 1, sizeof(*s->cpus))))
		goto fail;
	for (int i = 0; i < m->ncursors; i++)	/* added buffer by buffer, CPU by CPU */
		if ((m->cursors[i].f == f || m->cursors[i].f->view_of == f) &&
		    (ret = tally_add(s, &m->cursors[i], &m->tally[i], &counts, &ncounts)))
			goto fail;
	if ((ret = stats_event_counts(f, s, counts, ncounts)))
		goto fail;
	stats_totals(s);
	free(counts);
	*out = s;
	return 0;
fail:
	free(counts);
	tdat_stats_free(s);
	return ret;
}

const struct tdat_damage *tdat_merge_damage(const struct tdat_merge *m, int *n)
{
	*n = m->ndamage;
	return m->damage;
}

int tdat_merge_set_jobs(struct tdat_merge *m, int jobs)
{
	if (m->started)
		return TDAT_EINVAL;
	if (jobs > 1 && !m->pf && !(m->pf = prefetch_new()))
		return TDAT_ENOMEM;
	return 0;
}

const char *tdat_merge_errmsg(const struct tdat_merge *m)
{
	return m->errmsg;
}

void tdat_merge_free(struct tdat_merge *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->ncursors; i++)
		cursor_release(&m->cursors[i]);
	prefetch_free(m->pf);
	free(m->cursors);
	free(m->heap);
	free(m->members);
	free(m->files);
	splits_free(&m->splits);
	free(m->all);
	for (int i = 0; i < m->nviews; i++)
		tdat_file_free(m->views[i]);
	free(m->views);
	free(m->damage);
	for (int i = 0; m->tally && i < m->ncursors; i++)
		free(m->tally[i].counts);
	free(m->tally);
	free(m);
}

/* ---- time windows: a merge of one window, and going on from another's place ---- */

int merge_ncursors(const struct tdat_merge *m)
{
	return m->ncursors;
}

struct cursor *merge_cursor(struct tdat_merge *m, int i)
{
	return &m->cursors[i];
}

void merge_damage_hook(struct tdat_merge *m, damage_fn *fn, void *arg)
{
	m->hook = fn;
	m->hook_arg = arg;
}

/* Rank the cursors once; the heap's room. */
static int window_setup(struct tdat_merge *m)
{
	if (!m->heap && !(m->heap = malloc(sizeof(*m->heap) * (size_t)(m->ncursors + 1))))
		return merge_fail(m, NULL, TDAT_ENOMEM);
	if (!m->started)
		rank_cursors(m, m->heap);
	m->started = true;
	return 0;
}

/* Cursor @c at window @w's first event, found by seeking (its damage is not reported). */
static int window_seek(struct tdat_merge *m, struct cursor *c, const struct wcut *w, int i)
{
	int ret = 0;

	if (!w->first)
		return cursor_seek_at(c, w->lo, &w->from[i], &w->to[i]);
	/*
	 * the first window starts as one thread does: at tdat_merge_seek()'s
	 * page, which the plan took from the caller's cursor when it could
	 * (a seek of a v7 CPU walks all its chunk headers)
	 */
	cursor_rewind(c);
	m->quiet = false;
	if (w->at_seek)
		cursor_place(c, &w->from[i]);
	else
		ret = w->lo ? cursor_seek(c, w->lo) : 0;
	return ret ? ret : cursor_peek(c);
}

int merge_window(struct tdat_merge *m, const struct wcut *w, struct cpos *start)
{
	int ret;

	if ((ret = window_setup(m)))
		return ret;
	m->nheap = 0;
	m->last = -1;
	m->ended = false;
	m->bounded = w->bounded;
	m->hi = w->hi;
	for (int i = 0; i < m->ncursors; i++) {
		struct cursor *c = &m->cursors[i];

		m->quiet = true;
		ret = window_seek(m, c, w, i);
		m->quiet = false;
		if (ret < 0 && ret != TDAT_END)
			return merge_fail(m, c, ret);
		cursor_pos(c, &start[i]);
		if (c->have && (!m->bounded || c->ev.ts < m->hi))
			m->heap[m->nheap++] = i;
	}
	for (int i = m->nheap / 2 - 1; i >= 0; i--)
		sift_down(m, i);
	return 0;
}

int merge_places(const struct tdat_merge *m, struct cpos *at)
{
	for (int i = 0; i < m->ncursors; i++)
		cursor_pos(&m->cursors[i], &at[i]);
	return m->last;
}

int merge_resume(struct tdat_merge *m, const struct cpos *at, int last)
{
	int ret;

	if (m->started)
		return TDAT_EINVAL;
	m->windowed = false;
	/*
	 * the units the places are in were read by the workers, whose blocks
	 * reported their damage: going back to them reports it no more
	 */
	m->quiet = true;
	for (int i = 0; i < m->ncursors; i++)
		if ((ret = cursor_goto(&m->cursors[i], &at[i]))) {
			m->quiet = false;
			return merge_fail(m, &m->cursors[i], ret);
		}
	m->quiet = false;
	if ((ret = start(m)))
		return ret;
	if (last < 0)
		return 0;
	/* the event handed out last is the first again: it moves on at the next call */
	if (!m->nheap || m->heap[0] != last)
		return merge_fail(m, &m->cursors[last], TDAT_EFORMAT);
	m->last = last;
	return 0;
}

void merge_damage_add(struct tdat_merge *m, int i, uint64_t off, uint64_t bytes,
		      const char *reason)
{
	on_damage(m, &m->cursors[i], off, bytes, reason);
}

int merge_tally(struct tdat_merge *m, int i, const struct tdat_event *ev)
{
	if (!m->counting)
		return 0;
	if (!tally_ready(m))
		return merge_fail(m, NULL, TDAT_ENOMEM);
	return tally_event(m, i, ev);
}

bool merge_counting(const struct tdat_merge *m)
{
	return m->counting;
}

void merge_progress_at(struct tdat_merge *m, const struct cpos *at)
{
	m->windowed = true;
	m->win_done = 0;
	for (int i = 0; i < m->ncursors; i++) {
		const struct cursor *c = &m->cursors[i];

		m->win_done += at[i].unit == CPOS_END ? c->end_off - c->ci->offset :
			       at[i].unit - c->ci->offset;
	}
}

int merge_windows_done(struct tdat_merge *m)
{
	m->started = m->ended = true;
	for (int i = 0; i < m->ncursors; i++) {
		struct cursor *c = &m->cursors[i];

		c->consumed = c->end_off - c->ci->offset;
		if (m->counting)
			c->ubytes = cursor_ubytes_before(c, CPOS_END);
	}
	if (!tally_ready(m))
		return merge_fail(m, NULL, TDAT_ENOMEM);
	return 0;
}

bool merge_chained(struct tdat_merge *m)
{
	return !chains_setup(m) && m->chained;
}

int merge_last(const struct tdat_merge *m)
{
	return m->last;
}
