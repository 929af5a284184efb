/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stats.c - what tdat-info reports about one file: per CPU (of every
 * buffer) the events, lost events, first and last timestamps, stored and
 * decompressed bytes and damaged bytes; counts per event type; the overall
 * span and the window in which every CPU has data.  Each CPU is read on its
 * own with a cursor (no merge needed), in bounded memory.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "read/read.h"

struct collect {
	struct tdat_stats *s;
	struct tdat_cpu_stats *cur;
	uint64_t *counts;	/* per common_type, up to the highest seen */
	unsigned ncounts;
};

int count_bump(uint64_t **counts, unsigned *n, unsigned id)
{
	if (id >= *n) {
		unsigned len = *n ? *n : 256;
		uint64_t *p;

		while (len <= id)
			len *= 2;
		if (!(p = realloc(*counts, len * sizeof(*p))))
			return TDAT_ENOMEM;
		memset(p + *n, 0, (len - *n) * sizeof(*p));
		*counts = p;
		*n = len;
	}
	(*counts)[id]++;
	return 0;
}

static void count_damage(void *owner, const struct cursor *c, uint64_t off, uint64_t bytes,
			 const char *reason)
{
	struct collect *k = owner;

	k->cur->damaged += bytes;
	damage_push(&k->s->damage, &k->s->ndamage, c, off, bytes, reason);
}

static int read_cpu(struct tdat_file *f, struct collect *k, int b, int i)
{
	struct tdat_cpu_stats *cs = k->cur;
	struct cursor c;
	int ret;

	if ((ret = cursor_init(&c, f, 0, b, i)))
		goto out;
	c.damage = count_damage;
	c.owner = k;
	while ((ret = cursor_peek(&c)) == 0) {
		if (!cs->events)
			cs->first_ts = c.ev.ts;
		cs->last_ts = c.ev.ts;
		cs->events++;
		if (c.ev.missed > 0)
			cs->lost += (uint64_t)c.ev.missed;
		else if (c.ev.missed < 0)
			cs->lost_pages++;
		if (c.ev.size >= 2)
			ret = count_bump(&k->counts, &k->ncounts, (unsigned)file_num(f, c.ev.data, 2));
		if (ret)
			goto out;
		cursor_advance(&c);
	}
	cs->usize = c.ubytes;
	ret = ret == TDAT_END ? 0 : ret;
out:
	cursor_release(&c);
	return ret;
}

static int cmp_count(const void *a, const void *b)
{
	const struct tdat_event_count *x = a, *y = b;
	int r;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	r = strcmp(x->system, y->system);
	return r ? r : strcmp(x->name, y->name);
}

int stats_event_counts(struct tdat_file *f, struct tdat_stats *s, const uint64_t *counts,
		       unsigned ncounts)
{
	int n = 0;

	for (unsigned id = 0; id < ncounts; id++)
		n += counts[id] != 0;
	s->events = calloc(n ? (size_t)n : 1, sizeof(*s->events));
	if (!s->events)
		return TDAT_ENOMEM;
	for (unsigned id = 0; id < ncounts; id++) {
		struct tdat_event_count *ec;
		struct tep_event *e;

		if (!counts[id])
			continue;
		e = tep_find_event(f->tep, (int)id);
		ec = &s->events[s->nevents++];
		ec->system = e ? e->system : "?";
		ec->name = e ? e->name : "(unknown type)";
		ec->count = counts[id];
	}
	qsort(s->events, (size_t)s->nevents, sizeof(*s->events), cmp_count);
	return 0;
}

void stats_totals(struct tdat_stats *s)
{
	bool any = false;

	for (int i = 0; i < s->ncpus; i++) {
		struct tdat_cpu_stats *c = &s->cpus[i];

		s->total += c->events;
		s->lost += c->lost;
		if (!c->events)
			continue;
		if (!any || c->first_ts < s->first_ts)
			s->first_ts = c->first_ts;
		if (!any || c->last_ts > s->last_ts)
			s->last_ts = c->last_ts;
		if (!any || c->first_ts > s->common_start)
			s->common_start = c->first_ts;
		if (!any || c->last_ts < s->common_end)
			s->common_end = c->last_ts;
		any = true;
	}
	if (s->common_start > s->common_end)
		s->common_start = s->common_end = 0;	/* no common window */
}

int tdat_stats_collect(struct tdat_file *f, struct tdat_stats **out)
{
	struct collect k = { 0 };
	int n = 0, ret;

	*out = NULL;
	if ((ret = file_meta_load(f, NULL)))
		return ret;
	ret = TDAT_ENOMEM;
	for (int b = 0; b < f->nbuffers; b++)
		n += f->buffers[b].info.latency ? 0 : f->buffers[b].info.ncpus;
	k.s = calloc(1, sizeof(*k.s));
	if (!k.s || !(k.s->cpus = calloc(n ? (size_t)n : 1, sizeof(*k.s->cpus))))
		goto fail;
	for (int b = 0; b < f->nbuffers; b++) {
		for (int i = 0; !f->buffers[b].info.latency && i < f->buffers[b].info.ncpus; i++) {
			k.cur = &k.s->cpus[k.s->ncpus++];
			k.cur->buffer = b;
			k.cur->cpu = f->buffers[b].cpus[i].cpu;
			k.cur->stored = f->buffers[b].cpus[i].size;
			if ((ret = read_cpu(f, &k, b, i)))
				goto fail;
		}
	}
	if ((ret = stats_event_counts(f, k.s, k.counts, k.ncounts)))
		goto fail;
	stats_totals(k.s);
	free(k.counts);
	*out = k.s;
	return 0;
fail:
	free(k.counts);
	tdat_stats_free(k.s);
	return ret;
}

void tdat_stats_free(struct tdat_stats *s)
{
	if (!s)
		return;
	free(s->cpus);
	free(s->events);
	free(s->damage);
	free(s);
}
