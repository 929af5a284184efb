/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * window.c - the timeline cut into time windows, for -j workers that each
 * decode one (run/par.c), and a cursor's places in its stream.
 *
 * The plan: every CPU's stream is sampled every few units (pages of plain
 * data, chunks of compressed data: a sample is the unit's first timestamp,
 * a page header read or one chunk decompressed), and the samples of all
 * CPUs are walked in time order; a window ends at the sample that makes it
 * hold about the bytes asked for.  So a window's cut is one time T for
 * every CPU, and each CPU's stream has a bracket of units (the samples on
 * either side of T) in which its first event at T or later lies; a worker
 * finds it with a binary search of that bracket and a short scan.  Events
 * at the same time never straddle a cut: they all begin the next window.
 *
 * A place (struct cpos) is the unit an event is in and its offset there:
 * the same however the cursor got to it, so a window's first places can be
 * compared with where the window before it stopped (run/par.c does: only when
 * they are the same is the window's output that of one thread).
 */
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

/* ---- one cursor ---- */

/* Read the chunk header at @off: its stored size; false if it does not fit. */
static bool chunk_header(struct cursor *c, uint64_t off, uint64_t *zsize, uint64_t *usize)
{
	unsigned char hdr[8];
	char err[TDAT_MSG_LEN];

	if (off > c->end_off || c->end_off - off < 8 || src_pread(&c->f->src, hdr, 8, off, err))
		return false;
	*zsize = file_num(c->f, hdr, 4);
	*usize = file_num(c->f, hdr + 4, 4);
	return chunk_fits(c, off, c->end_off, *zsize, *usize);
}

/* The unit @n units after @p (CPOS_END past the last). */
static struct cpos unit_after(struct cursor *c, struct cpos p, uint64_t n)
{
	uint64_t ps = c->b->info.page_size, zs, us;

	if (p.unit == CPOS_END)
		return p;
	p.inner = 0;
	if (!c->b->compressed) {
		if ((c->end_off - p.unit) / ps <= n)
			return (struct cpos){ .unit = CPOS_END };
		p.unit += n * ps;
		return p;
	}
	while (n--) {
		if (p.left <= 1 || !chunk_header(c, p.unit, &zs, &us))
			return (struct cpos){ .unit = CPOS_END };
		p.unit += 8 + zs;
		p.left--;
	}
	return p;
}

/* The units from @lo up to @hi: their places into *@v (malloc'd); how many, or -1. */
static long units_between(struct cursor *c, const struct cpos *lo, const struct cpos *hi,
			  struct cpos **v)
{
	struct cpos p = *lo, *q;
	size_t n = 0, cap = 0;

	*v = NULL;
	while (p.unit != CPOS_END && p.unit != hi->unit) {
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			if (!(q = realloc(*v, sizeof(*q) * cap)))
				return -1;
			*v = q;
		}
		(*v)[n++] = p;
		p = unit_after(c, p, 1);
	}
	return (long)n;
}

/* Place @c to read the unit at @p first. */
static void start_at(struct cursor *c, const struct cpos *p)
{
	c->next_off = p->unit;
	if (c->b->compressed)
		c->chunks_left = p->left;
	c->consumed = p->unit - c->ci->offset;
}

int cursor_seek_at(struct cursor *c, uint64_t ts, const struct cpos *lo, const struct cpos *hi)
{
	struct cpos *v;
	long n, a = 0, b;
	uint64_t t;
	int ret;

	cursor_rewind(c);
	if (lo->unit == CPOS_END) {
		c->done = true;
		return 0;
	}
	if ((n = units_between(c, lo, hi, &v)) < 0) {
		free(v);
		return TDAT_ENOMEM;
	}
	/* the last unit that begins before @ts; @lo is taken to */
	for (b = n; b - a > 1;) {
		long mid = a + (b - a) / 2;

		if (cursor_unit_ts(c, v[mid].unit, &t) && t < ts)
			a = mid;
		else
			b = mid;
	}
	start_at(c, n ? &v[a] : lo);
	free(v);
	while ((ret = cursor_peek(c)) == 0 && c->ev.ts < ts)
		cursor_advance(c);
	return ret == TDAT_END ? 0 : ret;
}

uint64_t cursor_ubytes_before(struct cursor *c, uint64_t off)
{
	struct cpos p = { .unit = c->data_off, .left = c->nchunks };
	uint64_t n = 0, zs, us, end = c->end_off < c->f->src.size ? c->end_off : c->f->src.size;

	if (!c->b->compressed)
		return (off < end ? off : end) > c->data_off ? (off < end ? off : end) - c->data_off : 0;
	while (p.left && p.unit < off && chunk_header(c, p.unit, &zs, &us)) {
		n += us;
		p.unit += 8 + zs;
		p.left--;
	}
	return n;
}

void cursor_place(struct cursor *c, const struct cpos *p)
{
	cursor_rewind(c);
	start_at(c, p);
}

int cursor_goto(struct cursor *c, const struct cpos *p)
{
	struct cpos q;
	int ret;

	cursor_rewind(c);
	c->ubytes = cursor_ubytes_before(c, p->unit);
	if (p->unit == CPOS_END) {
		start_at(c, &(struct cpos){ .unit = c->end_off });
		c->chunks_left = 0;
		c->done = true;
		return 0;
	}
	start_at(c, p);
	while ((ret = cursor_peek(c)) == 0) {
		cursor_pos(c, &q);
		if (q.unit == p->unit && q.inner == p->inner)
			return 0;
		if (q.unit != p->unit || q.inner > p->inner)
			break;
		cursor_advance(c);
	}
	return ret < 0 && ret != TDAT_END ? ret : TDAT_EFORMAT;
}

/* ---- the plan ---- */

struct walk {
	struct cursor *c;	/* the caller's: its file and CPU (never moved) */
	struct cpos start;	/* the unit it reads first, when planned */
	uint64_t step;		/* units a sample stands for */
	uint64_t bytes;		/* decompressed bytes a sample stands for */
	struct cpos lo, next;	/* the last sample passed (or the first unit), the next */
	uint64_t next_ts;
};

struct plan {
	struct walk *w;
	int n;
	int *heap;		/* walks with a next sample, by its time */
	int nheap;
	uint64_t t;		/* where the next window starts */
	uint64_t end;		/* the last window's bound, with has_end */
	bool has_end, first, done;
	bool at_seek;		/* no cursor had read when planned: starts are where the seek left them */
	uint64_t window;	/* decompressed bytes a window holds, about */
};

static bool earlier(const struct plan *p, int a, int b)
{
	return p->w[a].next_ts < p->w[b].next_ts ||
	       (p->w[a].next_ts == p->w[b].next_ts && a < b);
}

static void sift(struct plan *p, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, s = i, t;

		if (l < p->nheap && earlier(p, p->heap[l], p->heap[s]))
			s = l;
		if (r < p->nheap && earlier(p, p->heap[r], p->heap[s]))
			s = r;
		if (s == i)
			return;
		t = p->heap[i];
		p->heap[i] = p->heap[s];
		p->heap[s] = t;
		i = s;
	}
}

/* Move walk @w's next sample @n units on and read its time; false: none left. */
static bool sample(struct walk *w, uint64_t n)
{
	w->next = unit_after(w->c, w->next, n);
	return w->next.unit != CPOS_END && cursor_unit_ts(w->c, w->next.unit, &w->next_ts);
}

/* The bytes a unit of @c holds, decompressed. */
static uint64_t unit_bytes(struct cursor *c)
{
	uint64_t zs, us;

	if (c->b->compressed && c->nchunks && chunk_header(c, c->data_off, &zs, &us))
		return us;
	return c->b->info.page_size;
}

/*
 * Where the walk of @c begins: the unit the caller's cursor reads first,
 * which after tdat_merge_seek() is the last that begins before the start,
 * so a window late in a big file is not sampled from the stream's first
 * unit on (a chunk decompressed a sample); else the stream's first unit.
 * *@fresh: the cursor had not read, the unit is the seek's.
 */
static struct cpos walk_start(struct cursor *c, bool *fresh)
{
	struct cpos p = { .unit = c->data_off, .left = c->nchunks };

	*fresh = !c->have && !c->loaded && !c->done;
	if (c->have) {
		cursor_pos(c, &p);
		p.inner = 0;
	} else if (*fresh) {
		p.unit = c->next_off;
		p.left = c->chunks_left;
	}
	return p;
}

int plan_new(struct tdat_merge *m, uint64_t from, const uint64_t *last, uint64_t window,
	     struct plan **out)
{
	int n = merge_ncursors(m);
	struct plan *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p || !(p->w = calloc((size_t)n + 1, sizeof(*p->w))) ||
	    !(p->heap = calloc((size_t)n + 1, sizeof(*p->heap)))) {
		plan_free(p);
		return TDAT_ENOMEM;
	}
	p->n = n;
	p->t = from;
	p->first = true;
	p->window = window ? window : 1;
	p->has_end = last && *last < UINT64_MAX;
	p->end = p->has_end ? *last + 1 : 0;
	p->at_seek = true;
	for (int i = 0; i < n; i++) {
		struct walk *w = &p->w[i];
		uint64_t ub;
		bool fresh;

		w->c = merge_cursor(m, i);
		ub = unit_bytes(w->c);
		w->step = p->window / 8 / ub ? p->window / 8 / ub : 1;
		w->bytes = w->step * ub;
		w->lo = w->next = w->start = walk_start(w->c, &fresh);
		p->at_seek &= fresh;
		if (!w->c->ci->size || (w->c->b->compressed && !w->c->nchunks))
			w->lo = w->next = (struct cpos){ .unit = CPOS_END };
		/* samples before the first window's start only move its bracket */
		while (sample(w, w->step) && w->next_ts <= from)
			w->lo = w->next;
		if (w->next.unit != CPOS_END)
			p->heap[p->nheap++] = i;
	}
	for (int i = p->nheap / 2 - 1; i >= 0; i--)
		sift(p, i);
	*out = p;
	return 0;
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	free(p->w);
	free(p->heap);
	free(p);
}

int plan_ncursors(const struct plan *p)
{
	return p->n;
}

bool plan_next(struct plan *p, struct wcut *cut)
{
	uint64_t acc = 0;

	if (p->done)
		return false;
	cut->first = p->first;
	cut->at_seek = p->first && p->at_seek;
	cut->lo = p->t;
	cut->last = true;
	p->first = false;
	/* each CPU's first event at lo lies between its last sample before it and the next */
	for (int i = 0; i < p->n; i++) {
		cut->from[i] = cut->at_seek ? p->w[i].start : p->w[i].lo;
		cut->to[i] = p->w[i].next;
	}
	while (p->nheap) {
		struct walk *w = &p->w[p->heap[0]];

		if (p->has_end && w->next_ts >= p->end)
			break;
		if (acc >= p->window && w->next_ts > cut->lo) {
			cut->last = false;
			cut->hi = w->next_ts;
			break;
		}
		acc += w->bytes;
		w->lo = w->next;
		if (!sample(w, w->step))
			p->heap[0] = p->heap[--p->nheap];
		sift(p, 0);
	}
	if (cut->last) {
		p->done = true;
		cut->hi = p->end;
		cut->bounded = p->has_end;
	} else {
		cut->bounded = true;
	}
	p->t = cut->hi;
	return true;
}
