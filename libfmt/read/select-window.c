/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * select-window.c - the selection in time windows (-j): a copy of the
 * criteria for each worker's merge, whose matching (select_match3()) says
 * what it cannot know in a window (whether the event before a stack trace,
 * in an earlier window, was kept: the caller decides, select_decide()), and
 * what each window learnt added back in timeline order, so that the
 * caller's selection ends as if it had seen every event.
 */
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

static int copy_list(struct strlist *to, const struct strlist *from)
{
	if (!from->n)
		return 0;
	if (!(to->v = calloc((size_t)from->n, sizeof(*to->v))))
		return TDAT_ENOMEM;
	for (; to->n < from->n; to->n++)
		if (!(to->v[to->n] = strdup(from->v[to->n])))
			return TDAT_ENOMEM;
	return 0;
}

struct tdat_select *select_clone(const struct tdat_select *s)
{
	struct tdat_select *c = tdat_select_new();

	if (!c)
		return NULL;
	c->top = s->top;
	c->several = s->several;
	c->has_start = s->has_start;
	c->has_end = s->has_end;
	c->start = s->start;
	c->end = s->end;
	c->based = true;	/* relative times were resolved when @s was bound */
	if (copy_list(&c->events, &s->events) || copy_list(&c->filters, &s->filters) ||
	    copy_list(&c->nfilters, &s->nfilters) || copy_list(&c->comms, &s->comms) ||
	    copy_list(&c->buffers, &s->buffers) ||
	    (s->cpus && !(c->cpus = malloc(65536 / 8))) ||
	    (s->npids && !(c->pids = malloc(sizeof(*c->pids) * (size_t)s->npids)))) {
		tdat_select_free(c);
		return NULL;
	}
	if (s->cpus)
		memcpy(c->cpus, s->cpus, 65536 / 8);
	if (s->npids)
		memcpy(c->pids, s->pids, sizeof(*c->pids) * (size_t)s->npids);
	c->npids = s->npids;
	return c;
}

bool select_comms(const struct tdat_select *s)
{
	return s->comms.n > 0;
}

bool select_filters(const struct tdat_select *s)
{
	return s->filters.n || s->nfilters.n;
}

void select_window(struct tdat_select *s)
{
	memset(s->last_kept, SEL_UNKNOWN, (size_t)s->nslots);
}

int select_slot(const struct tdat_select *s, const struct tdat_event *ev)
{
	return s->slot_base && ev->cpu >= 0 && ev->cpu < 256 ?
	       s->slot_base[ev->input] + ev->buffer * 256 + ev->cpu : -1;
}

bool select_decide(struct tdat_select *s, int slot, bool neg)
{
	bool keep = s->last_kept[slot] == SEL_KEPT && !neg;

	s->last_kept[slot] = keep ? SEL_KEPT : SEL_DROPPED;
	s->kept |= keep;
	return keep;
}

int select_state_init(const struct tdat_select *s, struct sel_state *st)
{
	memset(st, 0, sizeof(*st));
	st->last = malloc((size_t)s->nslots + 1);
	return st->last ? 0 : TDAT_ENOMEM;
}

void select_state_release(struct sel_state *st)
{
	free(st->last);
	st->last = NULL;
}

void select_take(struct tdat_select *s, struct sel_state *st)
{
	st->seen = s->seen;
	memcpy(st->passed, s->passed, sizeof(st->passed));
	st->kept = s->kept != 0;
	memcpy(st->last, s->last_kept, (size_t)s->nslots);
	/* counted again from here; once one is kept, no more (tdat_select_match()) */
	s->seen = 0;
	memset(s->passed, 0, sizeof(s->passed));
}

void select_absorb(struct tdat_select *s, const struct sel_state *st)
{
	if (!s->kept) {
		s->seen += st->seen;
		for (int i = 0; i < TDAT_SEL_NCRITERIA; i++)
			s->passed[i] += st->passed[i];
	}
	s->kept |= st->kept;
	for (int i = 0; i < s->nslots; i++)
		if (st->last[i] != SEL_UNKNOWN)
			s->last_kept[i] = st->last[i];
}
