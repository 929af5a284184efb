/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * svg.c - a picture of a timeline (tdat-info --svg), gathered in one pass:
 * the axis comes from the merge's span (narrowed to the selection's window)
 * before the first event, each event adds to its lane's bucket, and lost
 * events are counted where the merge reports them.  Memory is the lanes'
 * fixed buckets and a count per event type: it does not grow with the
 * trace.  svg-draw.c turns the counts into the document at close.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"
#include "write/svg.h"

struct tdat_svg *tdat_svg_new(void)
{
	return calloc(1, sizeof(struct tdat_svg));
}

/* The lane's name: "CPU n", "BUFFER CPU n", with the input's name first when several. */
static void lane_label(struct tdat_svg *g, struct svg_lane *l, const char *buffer)
{
	const char *input = tdat_file_info(tdat_merge_file(g->m, l->input))->name;
	int n = 0;

	if (g->ninputs > 1)
		n = snprintf(l->label, sizeof(l->label), "%.100s: ", input ? input : "?");
	snprintf(l->label + n, sizeof(l->label) - (size_t)n, "%.40s%sCPU %d", buffer,
		 *buffer ? " " : "", l->cpu);
}

/* Count the lanes and the (input, buffer) slots, and the widest CPU number. */
static void plan_lanes(struct tdat_svg *g, struct tdat_select *s, int *nslots)
{
	*nslots = 0;
	g->mapw = 1;
	for (int i = 0; i < g->ninputs; i++) {
		struct tdat_file *f = tdat_merge_file(g->m, i);

		g->slot[i] = *nslots;
		*nslots += tdat_file_info(f)->nbuffers;
		for (int b = 0; b < tdat_file_info(f)->nbuffers; b++) {
			const struct tdat_buffer_info *bi = tdat_file_buffer(f, b);

			for (int k = 0; !bi->latency && k < bi->ncpus; k++) {
				if (bi->cpus[k].cpu < 0 || bi->cpus[k].cpu >= 65536)
					continue;
				if (bi->cpus[k].cpu >= g->mapw)
					g->mapw = bi->cpus[k].cpu + 1;
				g->nlanes += !s || select_lane(s, f, b, bi->cpus[k].cpu);
			}
		}
	}
}

static int make_lanes(struct tdat_svg *g, struct tdat_select *s)
{
	int nslots, n = 0;

	if (!(g->slot = calloc((size_t)g->ninputs + 1, sizeof(*g->slot))))
		return TDAT_ENOMEM;
	plan_lanes(g, s, &nslots);
	g->map = malloc(((size_t)nslots * (size_t)g->mapw + 1) * sizeof(*g->map));
	g->lanes = calloc((size_t)g->nlanes + 1, sizeof(*g->lanes));
	g->types = calloc((size_t)g->ninputs + 1, sizeof(*g->types));
	if (!g->map || !g->lanes || !g->types)
		return TDAT_ENOMEM;
	for (size_t k = 0; k < (size_t)nslots * (size_t)g->mapw; k++)
		g->map[k] = NULL;
	for (int i = 0; i < g->ninputs; i++) {
		struct tdat_file *f = tdat_merge_file(g->m, i);

		for (int b = 0; b < tdat_file_info(f)->nbuffers; b++) {
			const struct tdat_buffer_info *bi = tdat_file_buffer(f, b);

			for (int k = 0; !bi->latency && k < bi->ncpus; k++) {
				int cpu = bi->cpus[k].cpu;

				if (cpu < 0 || cpu >= 65536 || (s && !select_lane(s, f, b, cpu)))
					continue;
				g->map[(g->slot[i] + b) * g->mapw + cpu] = &g->lanes[n];
				g->lanes[n].input = i;
				g->lanes[n].buffer = b;
				g->lanes[n].cpu = cpu;
				lane_label(g, &g->lanes[n++], bi->name);
			}
		}
	}
	return 0;
}

/*
 * The axis: the merge's span, narrowed to the window of @s; a window that
 * misses the span (--start after its end, --end before its start) is drawn
 * as it was asked for, empty, not as a point of the span.
 */
static int make_axis(struct tdat_svg *g, struct tdat_select *s)
{
	uint64_t first = 0, last = 0, lo, hi;
	bool has_lo, has_hi;
	int64_t w;
	int ret = tdat_merge_span(g->m, &first, &last);

	if (ret < 0) {
		tdat_msg(g->errmsg, "%s", *tdat_merge_errmsg(g->m) ? tdat_merge_errmsg(g->m) :
			 tdat_strerror(ret));
		return ret;
	}
	has_lo = s && select_window_get(s, 0, &w);
	lo = has_lo ? (w > 0 ? (uint64_t)w : 0) : first;
	has_hi = s && select_window_get(s, 1, &w);
	hi = has_hi ? (w > 0 ? (uint64_t)w : 0) : last;
	if (lo <= last && hi >= first && lo <= hi) {	/* they overlap: the part of the span */
		first = lo > first ? lo : first;
		last = hi < last ? hi : last;
	} else {	/* --end alone runs from 0, --start alone is where it is */
		first = has_lo ? lo : 0;
		last = has_hi && hi > first ? hi : first;
	}
	g->start = first;
	g->end = last;
	g->scale = SVG_NB / ((double)(last - first) + 1.0);
	/* buckets per unit as a 64-bit fraction (rounded up: see bucket_ts()) when below 1 */
	if (last - first + 1 > SVG_NB)
		g->mul = (uint64_t)((((unsigned __int128)SVG_NB << 64) - 1) / (last - first + 1) + 1);
	return 0;
}

int tdat_svg_open(struct tdat_svg *g, int fd, struct tdat_merge *m, struct tdat_select *s)
{
	int ret;

	if (g->open || !m)
		return TDAT_EINVAL;
	g->m = m;
	g->ninputs = tdat_merge_nfiles(m);
	g->in_ns = g->ninputs && tdat_file_info(tdat_merge_file(m, 0))->in_usecs;
	if ((ret = sink_init(&g->out, fd)) || (ret = make_lanes(g, s)) || (ret = make_axis(g, s)))
		return ret;
	g->open = true;
	return 0;
}

/* The bucket of @ts, or -1 off the axis. */
static inline int bucket(const struct tdat_svg *g, uint64_t ts)
{
	int b;

	if (ts < g->start || ts > g->end)
		return -1;
	if (g->mul)
		b = (int)(((unsigned __int128)(ts - g->start) * g->mul) >> 64);
	else
		b = (int)((ts - g->start) * SVG_NB / (g->end - g->start + 1));
	return b < SVG_NB ? b : SVG_NB - 1;
}

/* @missed events lost before an event in bucket @b of lane @l (-1: an unknown number). */
static void count_loss(struct tdat_svg *g, struct svg_lane *l, int b, long long missed)
{
	if (missed > 0) {
		l->lostb[b] += (uint64_t)missed;
		l->lost += (uint64_t)missed;
		g->lost += (uint64_t)missed;
	} else {
		l->unknown[b]++;
		l->lost_pages++;
		g->lost_pages++;
	}
}

int tdat_svg_put(struct tdat_svg *g, const struct tdat_event *ev, bool kept)
{
	struct svg_types *t;
	struct svg_lane *l;
	unsigned id;
	int b;

	if (!g->open || ev->input < 0 || ev->input >= g->ninputs || ev->cpu < 0 ||
	    ev->cpu >= g->mapw)
		return 0;
	l = g->map[(g->slot[ev->input] + ev->buffer) * g->mapw + ev->cpu];
	if (!l || (b = bucket(g, ev->ts)) < 0)
		return 0;
	if (ev->missed)
		count_loss(g, l, b, ev->missed);
	if (!kept)
		return 0;
	if (!l->events++)
		l->first = ev->ts;
	l->last = ev->ts;
	l->count[b]++;
	g->total++;
	if (ev->size < 2)
		return 0;
	t = &g->types[ev->input];
	id = (unsigned)field_raw(ev->file, ev->data, 2);
	if (id < t->n)
		t->counts[id]++;
	else	/* without memory the bar chart misses it: no reason to stop */
		count_bump(&t->counts, &t->n, id);
	return 0;
}

int tdat_svg_close(struct tdat_svg *g)
{
	int ret;

	if (!g->open)
		return TDAT_EINVAL;
	g->open = false;
	svg_draw(g);
	ret = sink_finish(&g->out);
	if (ret)
		tdat_msg(g->errmsg, "%s", strerror(g->out.err));
	return ret;
}

const char *tdat_svg_errmsg(const struct tdat_svg *g)
{
	return g->errmsg;
}

int tdat_svg_errno(const struct tdat_svg *g)
{
	return g->out.err;
}

void tdat_svg_free(struct tdat_svg *g)
{
	if (!g)
		return;
	sink_release(&g->out);
	for (int i = 0; g->types && i < g->ninputs; i++)
		free(g->types[i].counts);
	free(g->types);
	free(g->lanes);
	free(g->map);
	free(g->slot);
	free(g);
}
