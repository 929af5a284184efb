/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * svg.h - what the picture's two halves share: the counts gathered in one
 * pass over the events (svg.c) and the drawing of them (svg-draw.c).
 */
#ifndef TDAT_SVG_H
#define TDAT_SVG_H

#include "read/types.h"
#include "write/sink.h"

#define SVG_NB 1000		/* buckets of the time axis */

/* One CPU of one buffer of one input: a lane of the picture. */
struct svg_lane {
	int input, buffer, cpu;
	char label[160];
	uint64_t events, lost, lost_pages;
	uint64_t first, last;		/* of its kept events, valid when events > 0 */
	uint64_t count[SVG_NB];		/* kept events per bucket */
	uint64_t lostb[SVG_NB];		/* events lost per bucket (a count) */
	uint32_t unknown[SVG_NB];	/* pages lost with no count per bucket */
};

/* Kept events per event type id of one input. */
struct svg_types {
	uint64_t *counts;
	unsigned n;
};

struct tdat_svg {
	struct tdat_sink out;
	struct tdat_merge *m;
	bool open, in_ns;
	uint64_t start, end;		/* the axis, inclusive */
	double scale;			/* buckets per time unit */
	uint64_t mul;			/* the same in 2^-64ths, 0 when it is 1 or more */
	struct svg_lane *lanes;
	int nlanes;
	struct svg_lane **map;		/* (input, buffer) slot * mapw + cpu: lane or NULL */
	int *slot;			/* per input: its first (input, buffer) slot */
	int mapw, ninputs;
	struct svg_types *types;	/* per input */
	uint64_t total, lost, lost_pages;
	char errmsg[TDAT_MSG_LEN];
};

/* svg-draw.c: the whole document into g->out. */
void svg_draw(struct tdat_svg *g);

#endif
