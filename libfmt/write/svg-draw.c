/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * svg-draw.c - the picture itself, from the counts svg.c gathered: a time
 * axis in the trace's units, one density strip per lane (runs of buckets of
 * one colour are one rectangle), loss marks, the span every lane covers,
 * a colour legend and the most frequent event types as bars.  Plain SVG
 * 1.1 with generic fonts: no script, nothing external.  Every mark has a
 * <title> with its exact numbers.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "read/read.h"
#include "write/svg.h"

/* Geometry, in px: the plot is one px per bucket. */
#define LEFT 190
#define WIDTH (LEFT + SVG_NB + 30)
#define AXIS_Y 70		/* the axis line; tick labels above it */
#define TICK_CHAR_W 7.0		/* a tick label's character at 11 px, at most (digits: 6.1 in DejaVu Sans) */
#define BAND_Y 76		/* the "every lane has events" band */
#define LANE_Y 92		/* the first lane */
#define LANE_H 18
#define LANE_STEP 24
#define NLEVELS 8
#define NBARS 10

static const char *const level_fill[NLEVELS] = {
	"#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b",
};
#define LOST_FILL "#e41a1c"
#define UNKNOWN_FILL "#ff7f00"
#define SPAN_FILL "#d9f0d3"

/* Text as XML character data: markup escaped, bytes that are not UTF-8 or controls as '?'. */
static void put_text(struct tdat_sink *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	while (n) {
		size_t len = utf8_len(p, n);

		if (*p == '&' || *p == '<' || *p == '>' || *p == '"') {
			sink_printf(o, "&%s;", *p == '&' ? "amp" : *p == '<' ? "lt" :
				    *p == '>' ? "gt" : "quot");
		} else if (!len || *p < 0x20 || *p == 0x7f) {
			sink_putc(o, '?');
			len = len ? len : 1;
		} else {
			sink_write(o, p, len);
		}
		p += len ? len : 1;
		n -= len ? len : 1;
	}
}

/* A time as the text formats print it: seconds with 9 decimals for ns, else clock units. */
static void put_time(struct tdat_svg *g, uint64_t ts)
{
	if (g->in_ns)
		sink_printf(&g->out, "%llu.%09llu", (unsigned long long)(ts / 1000000000),
			    (unsigned long long)(ts % 1000000000));
	else
		sink_printf(&g->out, "%llu", (unsigned long long)ts);
}

/* The first time of bucket @b (SVG_NB: one past the axis). */
static uint64_t bucket_ts(const struct tdat_svg *g, int b)
{
	unsigned __int128 span = g->end - g->start + 1;

	return g->start + (uint64_t)(span * (unsigned)b / SVG_NB);
}

/* "s" after the name of @n things, but one */
static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static uint64_t pow10u(int n)
{
	uint64_t p = 1;

	while (n-- > 0)
		p *= 10;
	return p;
}

static double ts_x(const struct tdat_svg *g, uint64_t ts)
{
	return LEFT + (double)(ts - g->start) * g->scale;
}

/* A tick label into @buf: seconds with as many decimals as the step needs; its length. */
static int tick_label(const struct tdat_svg *g, uint64_t ts, uint64_t step, char *buf, size_t n)
{
	int dec = 9;

	if (!g->in_ns)
		return snprintf(buf, n, "%llu", (unsigned long long)ts);
	for (uint64_t s = step; dec > 0 && s % 10 == 0; s /= 10)
		dec--;
	if (!dec)
		return snprintf(buf, n, "%llu", (unsigned long long)(ts / 1000000000));
	return snprintf(buf, n, "%llu.%0*llu", (unsigned long long)(ts / 1000000000), dec,
			(unsigned long long)(ts % 1000000000 / pow10u(9 - dec)));
}

static void draw_axis(struct tdat_svg *g, double bottom)
{
	uint64_t span = g->end - g->start + 1, step = 1, first;

	while (span / step > 10) {
		if (span / (step * 2) <= 10) {
			step *= 2;
			break;
		}
		if (span / (step * 5) <= 10) {
			step *= 5;
			break;
		}
		step *= 10;
	}
	sink_printf(&g->out, "<g id=\"axis\" font-size=\"11\" text-anchor=\"middle\">\n"
		    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>\n",
		    LEFT, AXIS_Y, LEFT + SVG_NB, AXIS_Y);
	first = (g->start + step - 1) / step * step;
	for (uint64_t t = first; t <= g->end && t >= first; t += step) {
		double x = ts_x(g, t), half;
		char label[48];
		const char *anchor = "";

		/*
		 * A label centred on its tick may not reach left of the axis, where
		 * "time (s)" ends, or past the picture: it begins (or ends) there.
		 */
		half = tick_label(g, t, step, label, sizeof(label)) * TICK_CHAR_W / 2;
		if (x - half < LEFT)
			anchor = " text-anchor=\"start\"";
		else if (x + half > WIDTH - 2)
			anchor = " text-anchor=\"end\"";
		sink_printf(&g->out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.0f\" "
			    "stroke=\"#ccc\" stroke-width=\"0.5\"/>\n<text x=\"%.1f\" y=\"%d\"%s>%s"
			    "</text>\n", x, AXIS_Y - 4, x, bottom, x, AXIS_Y - 7, anchor, label);
	}
	sink_printf(&g->out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n</g>\n",
		    LEFT - 8, AXIS_Y - 7, g->in_ns ? "time (s)" : "time (clock)");
}

/* The window in which every lane that has events has them: shaded. */
static void draw_common(struct tdat_svg *g, double bottom)
{
	uint64_t from = 0, to = 0;
	bool any = false;

	for (int i = 0; i < g->nlanes; i++) {
		const struct svg_lane *l = &g->lanes[i];

		if (!l->events)
			continue;
		if (!any || l->first > from)
			from = l->first;
		if (!any || l->last < to)
			to = l->last;
		any = true;
	}
	if (!any || from > to)
		return;
	sink_printf(&g->out, "<g id=\"common\"><title>every lane has events from ");
	put_time(g, from);
	sink_printf(&g->out, " to ");
	put_time(g, to);
	sink_printf(&g->out, "</title>\n<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.0f\" "
		    "fill=\"%s\"/>\n<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"8\" "
		    "fill=\"#74c476\"/>\n</g>\n<text x=\"%d\" y=\"%d\" font-size=\"11\" "
		    "text-anchor=\"end\">all lanes have events</text>\n",
		    ts_x(g, from), BAND_Y, ts_x(g, to) - ts_x(g, from) + 1, bottom - BAND_Y,
		    SPAN_FILL, ts_x(g, from), BAND_Y, ts_x(g, to) - ts_x(g, from) + 1,
		    LEFT - 8, BAND_Y + 8);
}

/* log2 of @v in 1/16ths, monotonic (the bits after the top one, linearly). */
static unsigned log2x16(uint64_t v)
{
	unsigned top = 63 - (unsigned)__builtin_clzll(v);
	unsigned frac = top >= 4 ? (unsigned)(v >> (top - 4)) & 15 : (unsigned)(v << (4 - top)) & 15;

	return top * 16 + frac;
}

/* Colour level of @count out of a largest bucket of @max: logarithmic. */
static int level_of(uint64_t count, uint64_t max)
{
	if (max <= 1)
		return NLEVELS - 1;
	return (int)((uint64_t)log2x16(count) * NLEVELS / (log2x16(max) + 1));
}

/* The smallest count of level @lv (levels grow with the count). */
static uint64_t level_min(int lv, uint64_t max)
{
	uint64_t lo = 1, hi = max;

	if (max <= 1)
		return 1;
	if (level_of(max, max) < lv)
		return max + 1;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (level_of(mid, max) >= lv)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* A run of buckets [@from, @to) of one level: one rectangle. */
static void draw_run(struct tdat_svg *g, const struct svg_lane *l, double y, int from, int to,
		     int lv)
{
	uint64_t n = 0;

	for (int b = from; b < to; b++)
		n += l->count[b];
	sink_printf(&g->out, "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"%s\">"
		    "<title>%llu event%s from ", LEFT + from, y, to - from, LANE_H, level_fill[lv],
		    (unsigned long long)n, plural(n));
	put_time(g, bucket_ts(g, from));
	sink_printf(&g->out, " to ");
	put_time(g, bucket_ts(g, to) - (bucket_ts(g, to) > bucket_ts(g, from)));
	sink_printf(&g->out, "</title></rect>\n");
}

/* Losses of one bucket: a mark across the lane. */
static void draw_loss(struct tdat_svg *g, const struct svg_lane *l, double y, int b)
{
	sink_printf(&g->out, "<rect class=\"lost\" x=\"%d\" y=\"%.0f\" width=\"3\" height=\"%d\" "
		    "fill=\"%s\"><title>", LEFT + b - 1, y - 3, LANE_H + 6,
		    l->lostb[b] ? LOST_FILL : UNKNOWN_FILL);
	put_text(&g->out, l->label);
	if (l->lostb[b])
		sink_printf(&g->out, ": %llu event%s lost", (unsigned long long)l->lostb[b],
			    plural(l->lostb[b]));
	if (l->unknown[b])
		sink_printf(&g->out, "%s %u page%s lost events (number unknown)",
			    l->lostb[b] ? "; " : ":", l->unknown[b], plural(l->unknown[b]));
	sink_printf(&g->out, " between ");
	put_time(g, bucket_ts(g, b));
	sink_printf(&g->out, " and ");
	put_time(g, bucket_ts(g, b + 1) - (bucket_ts(g, b + 1) > bucket_ts(g, b)));
	sink_printf(&g->out, "</title></rect>\n");
}

static void draw_lane(struct tdat_svg *g, int i, uint64_t max)
{
	const struct svg_lane *l = &g->lanes[i];
	double y = LANE_Y + i * LANE_STEP;

	sink_printf(&g->out, "<g id=\"lane-%d-%d-%d\">\n<text x=\"%d\" y=\"%.0f\" font-size=\"12\" "
		    "text-anchor=\"end\">", l->input, l->buffer, l->cpu, LEFT - 8, y + 13);
	put_text(&g->out, l->label);
	sink_printf(&g->out, "<title>");
	put_text(&g->out, l->label);
	sink_printf(&g->out, ": %llu event%s, %llu lost, %llu page%s lost an unknown number</title>"
		    "</text>\n<rect class=\"lane\" x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" "
		    "fill=\"#ffffff\" fill-opacity=\"0.6\" stroke=\"#bbb\" stroke-width=\"0.5\"/>\n",
		    (unsigned long long)l->events, plural(l->events), (unsigned long long)l->lost,
		    (unsigned long long)l->lost_pages, plural(l->lost_pages), LEFT, y, SVG_NB, LANE_H);
	for (int b = 0; b < SVG_NB;) {
		int lv, e = b + 1;

		if (!l->count[b]) {
			b++;
			continue;
		}
		lv = level_of(l->count[b], max);
		while (e < SVG_NB && l->count[e] && level_of(l->count[e], max) == lv)
			e++;
		draw_run(g, l, y, b, e, lv);
		b = e;
	}
	for (int b = 0; b < SVG_NB; b++)
		if (l->lostb[b] || l->unknown[b])
			draw_loss(g, l, y, b);
	sink_printf(&g->out, "</g>\n");
}

static void draw_legend(struct tdat_svg *g, double y, uint64_t max)
{
	uint64_t unit = (g->end - g->start + 1) / SVG_NB;

	sink_printf(&g->out, "<g id=\"legend\" font-size=\"11\">\n<text x=\"%d\" y=\"%.0f\" "
		    "text-anchor=\"end\">events per bucket</text>\n", LEFT - 8, y + 11);
	for (int lv = 0; lv < NLEVELS && max; lv++) {
		uint64_t lo = level_min(lv, max);
		uint64_t hi = lv + 1 < NLEVELS ? level_min(lv + 1, max) - 1 : max;

		if (lo > hi)
			continue;
		sink_printf(&g->out, "<rect x=\"%d\" y=\"%.0f\" width=\"14\" height=\"14\" fill=\"%s\">"
			    "<title>", LEFT + lv * 70, y, level_fill[lv]);
		if (lo < hi)
			sink_printf(&g->out, "%llu to ", (unsigned long long)lo);
		sink_printf(&g->out, "%llu event%s per bucket</title></rect>\n"
			    "<text x=\"%d\" y=\"%.0f\">%llu</text>\n", (unsigned long long)hi,
			    plural(hi), LEFT + lv * 70 + 18, y + 11, (unsigned long long)lo);
	}
	sink_printf(&g->out, "<rect x=\"%d\" y=\"%.0f\" width=\"3\" height=\"14\" fill=\"%s\"/>"
		    "<text x=\"%d\" y=\"%.0f\">events lost</text>\n"
		    "<rect x=\"%d\" y=\"%.0f\" width=\"3\" height=\"14\" fill=\"%s\"/>"
		    "<text x=\"%d\" y=\"%.0f\">lost, number unknown</text>\n"
		    "<text x=\"%d\" y=\"%.0f\">bucket: ", LEFT + 600, y, LOST_FILL, LEFT + 608, y + 11,
		    LEFT + 700, y, UNKNOWN_FILL, LEFT + 708, y + 11, LEFT, y + 32);
	if (g->in_ns)
		sink_printf(&g->out, "%llu.%09llu s", (unsigned long long)(unit / 1000000000),
			    (unsigned long long)(unit % 1000000000));
	else
		sink_printf(&g->out, "%llu clock units", (unsigned long long)unit);
	sink_printf(&g->out, " (about)</text>\n</g>\n");
}

struct type_count {
	const char *system, *name;
	uint64_t count;
};

static int cmp_name(const void *a, const void *b)
{
	const struct type_count *x = a, *y = b;
	int r = strcmp(x->system, y->system);

	return r ? r : strcmp(x->name, y->name);
}

static int cmp_count(const void *a, const void *b)
{
	const struct type_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return cmp_name(a, b);
}

/* Every input's counts by system and name, most frequent first; @n set to how many. */
static struct type_count *type_counts(struct tdat_svg *g, int *n)
{
	struct type_count *t;
	size_t cap = 1;
	int k = 0;

	for (int i = 0; i < g->ninputs; i++)
		cap += g->types[i].n;
	if (!(t = calloc(cap, sizeof(*t))))
		return NULL;
	for (int i = 0; i < g->ninputs; i++) {
		struct tdat_file *f = tdat_merge_file(g->m, i);

		for (unsigned id = 0; id < g->types[i].n; id++) {
			struct tep_event *e;

			if (!g->types[i].counts[id])
				continue;
			e = tep_find_event(f->tep, (int)id);
			t[k].system = e ? e->system : "?";
			t[k].name = e ? e->name : "(unknown type)";
			t[k++].count = g->types[i].counts[id];
		}
	}
	qsort(t, (size_t)k, sizeof(*t), cmp_name);
	*n = 0;
	for (int i = 0; i < k; i++) {
		if (*n && !cmp_name(&t[*n - 1], &t[i]))
			t[*n - 1].count += t[i].count;
		else
			t[(*n)++] = t[i];
	}
	qsort(t, (size_t)*n, sizeof(*t), cmp_count);
	return t;
}

static void draw_bars(struct tdat_svg *g, double y)
{
	int n = 0;
	struct type_count *t = type_counts(g, &n);

	sink_printf(&g->out, "<g id=\"types\" font-size=\"11\">\n<text x=\"%d\" y=\"%.0f\" "
		    "text-anchor=\"end\" font-weight=\"bold\">event types</text>\n", LEFT - 8, y);
	for (int i = 0; t && i < n && i < NBARS; i++) {
		double w = t[0].count ? 600.0 * (double)t[i].count / (double)t[0].count : 0;
		double r = y + 8 + i * 16;

		sink_printf(&g->out, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">", LEFT - 8, r + 10);
		put_text(&g->out, t[i].system);
		sink_putc(&g->out, ':');
		put_text(&g->out, t[i].name);
		sink_printf(&g->out, "</text>\n<rect x=\"%d\" y=\"%.0f\" width=\"%.1f\" height=\"12\" "
			    "fill=\"#756bb1\"><title>", LEFT, r, w < 1 ? 1 : w);
		put_text(&g->out, t[i].system);
		sink_putc(&g->out, ':');
		put_text(&g->out, t[i].name);
		sink_printf(&g->out, ": %llu event%s (%.1f%%)</title></rect>\n<text x=\"%.1f\" "
			    "y=\"%.0f\">%llu</text>\n", (unsigned long long)t[i].count, plural(t[i].count),
			    100.0 * (double)t[i].count / (double)(g->total ? g->total : 1),
			    LEFT + (w < 1 ? 1 : w) + 4, r + 10, (unsigned long long)t[i].count);
	}
	if (n > NBARS)
		sink_printf(&g->out, "<text x=\"%d\" y=\"%.0f\">and %d more type%s</text>\n", LEFT,
			    y + 8 + NBARS * 16 + 10, n - NBARS, plural((uint64_t)(n - NBARS)));
	sink_printf(&g->out, "</g>\n");
	free(t);
}

static void draw_title(struct tdat_svg *g)
{
	sink_printf(&g->out, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">");
	for (int i = 0; i < g->ninputs; i++) {
		if (i)
			sink_printf(&g->out, ", ");
		put_text(&g->out, tdat_file_info(tdat_merge_file(g->m, i))->path);
	}
	sink_printf(&g->out, "</text>\n<text x=\"10\" y=\"40\" font-size=\"12\">%llu event%s, "
		    "%llu lost", (unsigned long long)g->total, plural(g->total), (unsigned long long)g->lost);
	if (g->lost_pages)
		sink_printf(&g->out, " (and %llu page%s that lost an unknown number)",
			    (unsigned long long)g->lost_pages, plural(g->lost_pages));
	sink_printf(&g->out, ", from ");
	put_time(g, g->start);
	sink_printf(&g->out, " to ");
	put_time(g, g->end);
	sink_printf(&g->out, "</text>\n");
}

void svg_draw(struct tdat_svg *g)
{
	double bottom = LANE_Y + g->nlanes * LANE_STEP - (LANE_STEP - LANE_H);
	double legend = bottom + 18, bars = legend + 58;
	uint64_t max = 0;
	int height;

	for (int i = 0; i < g->nlanes; i++)
		for (int b = 0; b < SVG_NB; b++)
			max = g->lanes[i].count[b] > max ? g->lanes[i].count[b] : max;
	height = (int)bars + 8 + (NBARS + 1) * 16 + 10;
	sink_printf(&g->out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		    "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		    "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
		    WIDTH, height, WIDTH, height);
	draw_title(g);
	draw_common(g, bottom);
	draw_axis(g, bottom);
	for (int i = 0; i < g->nlanes; i++)
		draw_lane(g, i, max);
	draw_legend(g, legend, max);
	draw_bars(g, bars);
	sink_printf(&g->out, "</svg>\n");
}
