/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * par-names.c - the names of tasks in a text printed by -j workers, as one
 * thread would print them.
 *
 * trace-cmd report names a task by the file's saved cmdlines, or else by
 * the first name libtraceevent learnt for its pid from a sched_switch or
 * sched_wakeup it printed before (plugin_sched_switch registers them; a
 * registration never replaces a name).  A worker printing a time window
 * has not printed what came before it, so it cannot know the second kind:
 * where a line's head needs one, the worker leaves the name out and notes
 * the place (NAME_PUT), and it notes every name its printing would have
 * registered (NAME_LEARN).  The caller, taking the blocks in timeline
 * order, learns those names in that order and puts each left-out name in,
 * padded as libtraceevent's "%16s" pads it; "<...>" where none was learnt.
 * When the caller reads on alone, its own libtraceevent handles first learn
 * the names learnt so far (names_seed()).  So the text is the same bytes for
 * any number of workers.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "run/par.h"

/* One learnt name; the table is by (input, pid), the list in learning order. */
struct learnt {
	int input, pid;
	char comm[NAME_MAX_COMM];
};

struct par_learnt {
	struct learnt *v;	/* in the order learnt */
	size_t n, cap;
	size_t *slots;		/* open addressing: index + 1 into v, 0 empty */
	size_t nslots;
};

static size_t slot_of(const struct par_learnt *l, int input, int pid)
{
	size_t h = ((size_t)(unsigned)pid * 0x9e3779b97f4a7c15ULL) ^ (size_t)(unsigned)input;

	return h & (l->nslots - 1);
}

static const struct learnt *find(const struct par_learnt *l, int input, int pid)
{
	if (!l->nslots)
		return NULL;
	for (size_t s = slot_of(l, input, pid);; s = (s + 1) & (l->nslots - 1)) {
		const struct learnt *e;

		if (!l->slots[s])
			return NULL;
		e = &l->v[l->slots[s] - 1];
		if (e->input == input && e->pid == pid)
			return e;
	}
}

/* Room for one more name: the list grown, the table kept under half full. */
static int grow(struct par_learnt *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct learnt *v = realloc(l->v, sizeof(*v) * cap);

		if (!v)
			return TDAT_ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	if (2 * (l->n + 1) > l->nslots) {
		size_t n = l->nslots ? 2 * l->nslots : 512;
		size_t *s = calloc(n, sizeof(*s));

		if (!s)
			return TDAT_ENOMEM;
		free(l->slots);
		l->slots = s;
		l->nslots = n;
		for (size_t i = 0; i < l->n; i++) {
			size_t k = slot_of(l, l->v[i].input, l->v[i].pid);

			while (s[k])
				k = (k + 1) & (n - 1);
			s[k] = i + 1;
		}
	}
	return 0;
}

struct par_learnt *names_new(void)
{
	return calloc(1, sizeof(struct par_learnt));
}

void names_free(struct par_learnt *l)
{
	if (!l)
		return;
	free(l->v);
	free(l->slots);
	free(l);
}

/* Learn @comm for @pid of @input, unless the file or an earlier event named it. */
static int learn(struct par_learnt *l, struct tdat_merge *m, const struct par_name *o)
{
	struct tdat_file *f = tdat_merge_file(m, o->input);
	size_t k;
	int ret;

	if (!f || tep_is_pid_registered(f->tep, o->pid) || find(l, o->input, o->pid))
		return 0;
	if ((ret = grow(l)))
		return ret;
	l->v[l->n] = (struct learnt){ .input = o->input, .pid = o->pid };
	memcpy(l->v[l->n].comm, o->comm, sizeof(o->comm));
	for (k = slot_of(l, o->input, o->pid); l->slots[k]; k = (k + 1) & (l->nslots - 1))
		;
	l->slots[k] = ++l->n;
	return 0;
}

/* The name a head leaves out, right-aligned in 16 columns as libtraceevent's "%16s". */
static void put_name(struct tdat_sink *s, const struct par_learnt *l, const struct par_name *o)
{
	const struct learnt *e = find(l, o->input, o->pid);
	const char *comm = e ? e->comm : "<...>";
	size_t n = strlen(comm);

	for (size_t i = n; i < 16; i++)
		sink_putc(s, ' ');
	sink_write(s, comm, n);
}

/*
 * Whether text offset @at lies in a dropped (undecided, not kept) stack trace
 * of @und (sorted by place); *@u moves on with the offsets asked.
 */
static bool dropped(const struct par_und *und, size_t nund, size_t *u, size_t at)
{
	while (*u < nund && und[*u].at + und[*u].len <= at)
		(*u)++;
	return *u < nund && !und[*u].keep && und[*u].at <= at;
}

/* The text from @from to @to of @text, but the dropped stack traces among @und. */
static void put_text(struct tdat_sink *s, const char *text, size_t from, size_t to,
		     const struct par_und *und, size_t nund)
{
	for (size_t i = 0; i < nund && from < to; i++) {
		const struct par_und *d = &und[i];

		if (d->keep || d->at + d->len <= from || d->at >= to)
			continue;
		if (d->at > from)
			sink_write(s, text + from, d->at - from);
		from = d->at + d->len;
	}
	if (from < to)
		sink_write(s, text + from, to - from);
}

int names_write(struct par_learnt *l, struct tdat_merge *m, struct tdat_sink *s, const char *text,
		size_t len, const struct par_names *names, const struct par_und *und, size_t nund)
{
	size_t from = 0, u = 0;
	int ret;

	for (size_t i = 0; i < names->n; i++) {
		const struct par_name *o = &names->v[i];

		if (dropped(und, nund, &u, o->at))
			continue;
		if (o->kind == NAME_LEARN) {
			if ((ret = learn(l, m, o)))
				return ret;
			continue;
		}
		put_text(s, text, from, o->at, und, nund);
		put_name(s, l, o);
		from = o->at;
	}
	put_text(s, text, from, len, und, nund);
	return 0;
}

void names_seed(const struct par_learnt *l, struct tdat_merge *m)
{
	for (size_t i = 0; l && i < l->n; i++) {
		struct tdat_file *f = tdat_merge_file(m, l->v[i].input);

		if (f)
			tep_register_comm(f->tep, l->v[i].comm, l->v[i].pid);
	}
}

