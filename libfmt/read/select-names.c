/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * select-names.c - what a selection names must be there when it is bound
 * to the inputs (tdat_select_bind() in select.c): event globs that fit no
 * event ("did you mean 'sched:*'?"), buffers no input has (the names there
 * are listed), CPUs no input has (its CPUs as ranges), and a time window
 * that ends before it starts.  Each is a usage error (TDAT_EINVAL) with
 * the message in the selection's errmsg, before anything is written.
 */
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "read/read.h"

/* Levenshtein distance of two short names (longer ones count as far apart). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[65];

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0], up;

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = a[i - 1] == b[j - 1] ? diag :
				 1 + (diag < up ? (diag < row[j - 1] ? diag : row[j - 1]) :
					      (up < row[j - 1] ? up : row[j - 1]));
			diag = up;
		}
	}
	return row[lb];
}

/* Keep @cand in *@best when it is nearer @want than what is there (and near at all). */
static void nearer(const char *want, const char *cand, const char **best, size_t *dist)
{
	size_t d = edit_distance(want, cand), len = strlen(want);

	if (d < *dist && d <= (len / 3 > 2 ? len / 3 : 2) && d < len) {
		*best = cand;
		*dist = d;
	}
}

/* Every event format of every input: @fn(arg, event) until it returns true. */
static bool each_event(struct tdat_merge *m, bool (*fn)(void *, struct tep_event *), void *arg)
{
	for (int i = 0; i < tdat_merge_nfiles(m); i++) {
		struct tep_handle *tep = tdat_merge_file(m, i)->tep;

		for (int k = 0; tep && k < tep_get_events_count(tep); k++)
			if (fn(arg, tep_get_event(tep, k)))
				return true;
	}
	return false;
}

struct glob_hunt {
	const char *glob, *sys, *ev;	/* sys and ev: the parts around ':' (NULL: none) */
	bool sys_hit;			/* some system matches sys */
	const char *best;		/* the nearest name to what does not match */
	size_t dist;
};

static bool glob_hits(void *arg, struct tep_event *e)
{
	const struct glob_hunt *h = arg;

	return select_glob_fits(h->glob, e->system, e->name);
}

static bool glob_near(void *arg, struct tep_event *e)
{
	struct glob_hunt *h = arg;

	if (h->sys && !fnmatch(h->sys, e->system, 0)) {
		h->sys_hit = true;
		nearer(h->ev, e->name, &h->best, &h->dist);
	} else if (h->sys) {
		nearer(h->sys, e->system, &h->best, &h->dist);
	} else {
		nearer(h->glob, e->name, &h->best, &h->dist);
		nearer(h->glob, e->system, &h->best, &h->dist);
	}
	return false;
}

/* Whether @list ("a, b, c") holds @name as one of its items. */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strstr(list, name); p; p = strstr(p + 1, name))
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ','))
			return true;
	return false;
}

static bool list_system(void *arg, struct tep_event *e)
{
	char *list = arg;
	size_t len = strlen(list);

	if (len > 160 || listed(list, e->system))
		return len > 160;
	snprintf(list + len, 200 - len, "%s%s", len ? ", " : "", e->system);
	return false;
}

/* An event glob that matches no format of any input: name the nearest one. */
static int glob_missing(struct tdat_select *s, struct tdat_merge *m, const char *g)
{
	struct glob_hunt h = { .glob = g, .dist = SIZE_MAX };
	char sys[128], list[200] = "";
	const char *colon = strchr(g, ':');

	if (colon && (size_t)(colon - g) < sizeof(sys)) {
		memcpy(sys, g, (size_t)(colon - g));
		sys[colon - g] = '\0';
		h.sys = sys;
		h.ev = colon + 1;
	}
	each_event(m, glob_near, &h);
	if (h.best && h.sys && h.sys_hit)
		tdat_msg(s->errmsg, "event '%s' matches no event format of the input; did you mean "
			 "'%s:%s'?", g, sys, h.best);
	else if (h.best && h.sys)
		tdat_msg(s->errmsg, "event '%s' matches no event format of the input; did you mean "
			 "'%s:%s'?", g, h.best, h.ev);
	else if (h.best)
		tdat_msg(s->errmsg, "event '%s' matches no event format of the input; did you mean "
			 "'%s'?", g, h.best);
	else {
		each_event(m, list_system, list);
		tdat_msg(s->errmsg, "event '%s' matches no event format of the input (its systems: "
			 "%s)", g, *list ? list : "none");
	}
	return TDAT_EINVAL;
}

int select_check_events(struct tdat_select *s, struct tdat_merge *m)
{
	for (int i = 0; i < s->events.n; i++) {
		struct glob_hunt h = { .glob = s->events.v[i] };

		if (!each_event(m, glob_hits, &h))
			return glob_missing(s, m, s->events.v[i]);
	}
	return 0;
}

/* The buffer names of the inputs, as "top, foo" (several inputs: "a, a:foo, b"). */
static void buffer_names(const struct tdat_select *s, struct tdat_merge *m, char *list, size_t len)
{
	*list = '\0';
	for (int i = 0; i < tdat_merge_nfiles(m); i++) {
		struct tdat_file *f = tdat_merge_file(m, i);

		for (int b = 0; b < f->nbuffers; b++) {
			const char *name = *f->buffers[b].info.name ? f->buffers[b].info.name : "top";
			size_t used = strlen(list);

			if (s->several)
				snprintf(list + used, len - used, "%s%s%s%s", used ? ", " : "",
					 f->info.name, *f->buffers[b].info.name ? ":" : "",
					 f->buffers[b].info.name);
			else
				snprintf(list + used, len - used, "%s%s", used ? ", " : "", name);
		}
	}
}

static bool has_buffer(const struct tdat_select *s, struct tdat_merge *m, const char *name,
		       const char **best, size_t *dist)
{
	for (int i = 0; i < tdat_merge_nfiles(m); i++) {
		struct tdat_file *f = tdat_merge_file(m, i);

		for (int b = 0; b < f->nbuffers; b++) {
			if (!name[0] ? !f->buffers[b].info.name[0] : select_buffer_named(s, f, b, name))
				return true;
			if (name[0] && f->buffers[b].info.name[0])
				nearer(name, f->buffers[b].info.name, best, dist);
		}
	}
	return false;
}

int select_check_buffers(struct tdat_select *s, struct tdat_merge *m)
{
	char list[256];

	for (int i = -1; i < s->buffers.n; i++) {
		const char *name = i < 0 ? "" : s->buffers.v[i], *best = NULL;
		size_t dist = SIZE_MAX;

		if ((i < 0 && !s->top) || has_buffer(s, m, name, &best, &dist))
			continue;
		buffer_names(s, m, list, sizeof(list));
		if (best)
			tdat_msg(s->errmsg, "no input has a buffer \"%s\"; did you mean \"%s\"? (buffers: %s)",
				 name, best, list);
		else
			tdat_msg(s->errmsg, "no input has %s%s%s (buffers: %s)", *name ? "a buffer \"" :
				 "a top buffer", name, *name ? "\"" : "", list);
		return TDAT_EINVAL;
	}
	return 0;
}

/* Set in @have the CPU ids of every buffer of every input. */
static void input_cpus(struct tdat_merge *m, unsigned char *have)
{
	for (int i = 0; i < tdat_merge_nfiles(m); i++) {
		struct tdat_file *f = tdat_merge_file(m, i);

		for (int b = 0; b < f->nbuffers; b++)
			for (int c = 0; c < f->buffers[b].info.ncpus; c++) {
				int cpu = f->buffers[b].info.cpus[c].cpu;

				if (cpu >= 0 && cpu < 65536)
					have[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
			}
	}
}

/* "0-3, 8": the CPUs set in @bits, into @out. */
static void cpu_ranges(const unsigned char *bits, char *out, size_t len)
{
	*out = '\0';
	for (int c = 0; c < 65536; c++) {
		int e = c;
		size_t used = strlen(out);

		if (!(bits[c / 8] & (1u << (c % 8))))
			continue;
		while (e + 1 < 65536 && (bits[(e + 1) / 8] & (1u << ((e + 1) % 8))))
			e++;
		if (used + 24 >= len)
			break;
		snprintf(out + used, len - used, e > c ? "%s%d-%d" : "%s%d", used ? ", " : "", c, e);
		c = e;
	}
}

int select_check_cpus(struct tdat_select *s, struct tdat_merge *m)
{
	unsigned char *have;
	char list[200];
	int missing = -1;

	if (!s->cpus)
		return 0;
	if (!(have = calloc(65536 / 8, 1)))
		return TDAT_ENOMEM;
	input_cpus(m, have);
	for (int c = 0; c < 65536 && missing < 0; c++)
		if ((s->cpus[c / 8] & (1u << (c % 8))) && !(have[c / 8] & (1u << (c % 8))))
			missing = c;
	if (missing >= 0) {
		cpu_ranges(have, list, sizeof(list));
		tdat_msg(s->errmsg, "no input has CPU %d (CPUs: %s)", missing, *list ? list : "none");
	}
	free(have);
	return missing >= 0 ? TDAT_EINVAL : 0;
}

/* A window that ends before it starts, once relative times are known. */
int select_check_window(struct tdat_select *s)
{
	bool known = s->based || (!s->start_rel && !s->end_rel);

	if (!s->has_start || !s->has_end || !known || s->end >= s->start)
		return 0;
	tdat_msg(s->errmsg, "the time window ends (%lld.%09lld) before it starts (%lld.%09lld)",
		 (long long)(s->end / 1000000000), (long long)(s->end % 1000000000),
		 (long long)(s->start / 1000000000), (long long)(s->start % 1000000000));
	return TDAT_EINVAL;
}

