/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * select.c - which events a tool keeps, shared by every tool: event names
 * (SYSTEM:EVENT globs), libtraceevent filter expressions in the grammar of
 * `trace-cmd report -F` (positive, and negative with -v), CPUs, pids, comm
 * globs, buffers and a time window.  Filter strings are compiled against
 * each input's own event formats when the selection is bound to a merge.
 * As trace-cmd does, a kernel_stack/user_stack event is kept when the event
 * it belongs to (the one before it on its CPU) was kept.
 */
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "read/read.h"

#define MAX_LIST 4096

static int add(struct strlist *l, const char *s)
{
	char **v = realloc(l->v, sizeof(*v) * (size_t)(l->n + 1));

	if (!v)
		return TDAT_ENOMEM;
	l->v = v;
	if (!(v[l->n] = strdup(s)))
		return TDAT_ENOMEM;
	l->n++;
	return 0;
}

static void drop(struct strlist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

struct tdat_select *tdat_select_new(void)
{
	return calloc(1, sizeof(struct tdat_select));
}

void tdat_select_free(struct tdat_select *s)
{
	if (!s)
		return;
	drop(&s->events);
	drop(&s->filters);
	drop(&s->nfilters);
	drop(&s->comms);
	drop(&s->buffers);
	for (int i = 0; i < s->ninputs; i++) {
		if (s->pos && s->pos[i])
			tep_filter_free(s->pos[i]);
		if (s->neg && s->neg[i])
			tep_filter_free(s->neg[i]);
	}
	free(s->pos);
	free(s->neg);
	free(s->cpus);
	free(s->pids);
	free(s->last_kept);
	free(s->slot_base);
	free(s->names);
	free(s);
}

const char *tdat_select_errmsg(const struct tdat_select *s)
{
	return s->errmsg;
}

int tdat_select_event(struct tdat_select *s, const char *glob)
{
	return add(&s->events, glob);
}

int tdat_select_filter(struct tdat_select *s, const char *expr, bool negative)
{
	return add(negative ? &s->nfilters : &s->filters, expr);
}

int tdat_select_comm(struct tdat_select *s, const char *glob)
{
	return add(&s->comms, glob);
}

int tdat_select_buffer(struct tdat_select *s, const char *name)
{
	if (!name || !*name) {
		s->top = true;
		return 0;
	}
	return add(&s->buffers, name);
}

/* "0,3-5": each number or range within [0, max); calls @set for each. */
static int parse_list(struct tdat_select *s, const char *list, int64_t max,
		      int (*set)(struct tdat_select *, int64_t))
{
	const char *p = list;

	while (*p) {
		char *end;
		long long a = strtoll(p, &end, 10), b = a;
		int ret;

		if (end == p || a < 0)
			goto bad;
		p = end;
		if (*p == '-') {
			b = strtoll(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				goto bad;
			p = end;
		}
		if (b >= max || b - a >= MAX_LIST)
			goto bad;
		for (long long v = a; v <= b; v++)
			if ((ret = set(s, v)))
				return ret;
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	return 0;
bad:
	tdat_msg(s->errmsg, "invalid list '%s' (want numbers and ranges like 0,3-5)", list);
	return TDAT_EINVAL;
}

static int set_cpu(struct tdat_select *s, int64_t cpu)
{
	if (!s->cpus && !(s->cpus = calloc(65536 / 8, 1)))
		return TDAT_ENOMEM;
	s->cpus[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
	return 0;
}

static int set_pid(struct tdat_select *s, int64_t pid)
{
	int64_t *p = realloc(s->pids, sizeof(*p) * (size_t)(s->npids + 1));

	if (!p)
		return TDAT_ENOMEM;
	s->pids = p;
	p[s->npids++] = pid;
	return 0;
}

int tdat_select_cpus(struct tdat_select *s, const char *list)
{
	return parse_list(s, list, 65536, set_cpu);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

int tdat_select_pids(struct tdat_select *s, const char *list)
{
	int ret = parse_list(s, list, (int64_t)1 << 32, set_pid);

	if (!ret)
		qsort(s->pids, (size_t)s->npids, sizeof(*s->pids), cmp_i64);
	return ret;
}

int tdat_select_window(struct tdat_select *s, int which, int64_t ns, bool relative)
{
	if (which == 0) {
		s->has_start = true;
		s->start = ns;
		s->start_rel = relative;
	} else {
		s->has_end = true;
		s->end = ns;
		s->end_rel = relative;
	}
	return 0;
}

/* ---- binding to the inputs ---- */

static int compile(struct tdat_select *s, struct tep_handle *tep, struct strlist *l,
		   struct tep_event_filter **out)
{
	char buf[256];

	if (!l->n)
		return 0;
	if (!(*out = tep_filter_alloc(tep)))
		return TDAT_ENOMEM;
	for (int i = 0; i < l->n; i++) {
		size_t at;
		const char *flaw = tep_guard_filter(l->v[i], &at);
		enum tep_errno err;

		if (flaw) {
			if (l->v[i][at])
				tdat_msg(s->errmsg, "filter '%s': %s, at \"%.24s%s\"", l->v[i], flaw,
					 l->v[i] + at, strlen(l->v[i] + at) > 24 ? "..." : "");
			else
				tdat_msg(s->errmsg, "filter '%s': %s, at its end", l->v[i], flaw);
			return TDAT_EINVAL;
		}
		tep_guard_lock();
		err = tep_filter_add_filter_str(*out, l->v[i]);
		tep_guard_unlock();
		if (err < 0) {
			tep_filter_strerror(*out, err, buf, sizeof(buf));
			tdat_msg(s->errmsg, "filter '%s': %s", l->v[i], buf);
			return TDAT_EINVAL;
		}
	}
	return 0;
}

/*
 * Resolve relative times against the first event, and let the merge skip
 * the pages before the window instead of decoding them.
 */
static int seek_start(struct tdat_select *s, struct tdat_merge *m)
{
	uint64_t first;
	int ret;

	if (!s->has_start && !s->end_rel)
		return 0;
	if (s->start_rel || s->end_rel) {
		ret = tdat_merge_first_ts(m, &first);
		if (ret == TDAT_END)
			return 0;
		if (ret)
			return ret;
		if (s->start_rel)
			s->start += (int64_t)first;
		if (s->end_rel)
			s->end += (int64_t)first;
	}
	s->based = true;
	return s->has_start && s->start > 0 ? tdat_merge_seek(m, (uint64_t)s->start) : 0;
}

/* seek_start(), its failure (not the selection's: the input's, or memory) said in s->errmsg */
static int seek_start_or_say(struct tdat_select *s, struct tdat_merge *m)
{
	int ret = seek_start(s, m);

	if (ret)
		tdat_msg(s->errmsg, "%s", *tdat_merge_errmsg(m) ? tdat_merge_errmsg(m) : tdat_strerror(ret));
	return ret;
}

/* ---- names ---- */

/* Whether an event glob ("SYS:EVENT", or one glob for either) fits an event. */
bool select_glob_fits(const char *g, const char *system, const char *name)
{
	char full[512];

	if (!strchr(g, ':'))
		return !fnmatch(g, name, 0) || !fnmatch(g, system, 0);
	snprintf(full, sizeof(full), "%s:%s", system, name);
	return !fnmatch(g, full, 0);
}

/*
 * Whether -B @sel names buffer @b of @f: by its own name, or with several
 * inputs as a merged trace.dat names it, INPUT (the top buffer) or
 * INPUT:INSTANCE.
 */
bool select_buffer_named(const struct tdat_select *s, const struct tdat_file *f, int b, const char *sel)
{
	const char *name = f->buffers[b].info.name, *in = f->info.name;
	size_t n = strlen(in);

	if (name[0] && !strcmp(sel, name))
		return true;
	if (!s->several || strncmp(sel, in, n))
		return false;
	return name[0] ? sel[n] == ':' && !strcmp(sel + n + 1, name) : !sel[n];
}

int select_bind_filters(struct tdat_select *s, struct tdat_merge *m)
{
	int n = tdat_merge_nfiles(m), ret;

	s->ninputs = n;
	s->pos = calloc((size_t)n + 1, sizeof(*s->pos));
	s->neg = calloc((size_t)n + 1, sizeof(*s->neg));
	s->slot_base = calloc((size_t)n + 1, sizeof(*s->slot_base));
	if (!s->pos || !s->neg || !s->slot_base)
		return TDAT_ENOMEM;
	for (int i = 0; i < n; i++) {
		struct tdat_file *f = tdat_merge_file(m, i);

		s->slot_base[i] = s->nslots;
		s->nslots += f->nbuffers * 256;
		if ((ret = compile(s, f->tep, &s->filters, &s->pos[i])) ||
		    (ret = compile(s, f->tep, &s->nfilters, &s->neg[i])))
			return ret;
	}
	s->last_kept = calloc((size_t)s->nslots + 1, sizeof(*s->last_kept));
	if (!s->last_kept)
		return TDAT_ENOMEM;
	if (s->events.n && !(s->names = calloc((size_t)n << 16, 1)))
		return TDAT_ENOMEM;
	return 0;
}

int tdat_select_bind(struct tdat_select *s, struct tdat_merge *m)
{
	int ret;

	s->several = tdat_merge_nfiles(m) > 1;
	if ((ret = select_bind_filters(s, m)))
		return ret;
	if ((ret = select_check_events(s, m)) || (ret = select_check_buffers(s, m)) || (ret = select_check_cpus(s, m)))
		return ret;
	if ((ret = select_check_window(s)) || (ret = seek_start_or_say(s, m)))
		return ret;
	return select_check_window(s);
}

/* ---- matching ---- */

static bool glob_match(const struct tdat_select *s, const struct ttype *t)
{
	for (int i = 0; i < s->events.n; i++)
		if (select_glob_fits(s->events.v[i], t->system, t->name))
			return true;
	return false;
}

/* -e globs, matched once per input and event type. */
static bool name_match(const struct tdat_select *s, const struct ttype *t, int input)
{
	unsigned char *c;

	if (!s->events.n)
		return true;
	if (!s->names || t->id > 0xffff)
		return glob_match(s, t);
	c = &s->names[((size_t)input << 16) + t->id];
	if (!*c)
		*c = glob_match(s, t) ? 1 : 2;
	return *c == 1;
}

static bool filter_match(const struct tdat_select *s, struct tep_event_filter *f,
			 const struct tdat_event *ev)
{
	struct tep_record rec = { .ts = ev->ts, .cpu = ev->cpu, .data = (void *)ev->data,
				  .size = (int)ev->size };
	int r = tep_filter_match(f, &rec);

	return r == TEP_ERRNO__FILTER_MATCH || r == TEP_ERRNO__NO_FILTER;
}

static bool task_match(const struct tdat_select *s, const struct tdat_event *ev)
{
	int pid;

	if (!s->npids && !s->comms.n)
		return true;
	pid = tdat_event_pid(ev);
	if (s->npids && !bsearch(&(int64_t){ pid }, s->pids, (size_t)s->npids, sizeof(*s->pids), cmp_i64))
		return false;
	for (int i = 0; i < s->comms.n; i++)
		if (!fnmatch(s->comms.v[i], tdat_event_comm(ev, pid), 0))
			return true;
	return !s->comms.n;
}

static bool buffer_match(const struct tdat_select *s, const struct tdat_event *ev)
{
	if (!s->top && !s->buffers.n)
		return true;
	return select_lane_buffer(s, ev->file, ev->buffer);
}

static bool time_match(struct tdat_select *s, const struct tdat_event *ev)
{
	if (!s->based) {
		/* relative times count from the first event of the whole timeline */
		s->based = true;
		if (s->start_rel)
			s->start += (int64_t)ev->ts;
		if (s->end_rel)
			s->end += (int64_t)ev->ts;
	}
	return (!s->has_start || (int64_t)ev->ts >= s->start) && (!s->has_end || (int64_t)ev->ts <= s->end);
}

bool select_is_stack(const struct ttype *t)
{
	return !strcmp(t->system, "ftrace") &&
	       (!strcmp(t->name, "kernel_stack") || !strcmp(t->name, "user_stack"));
}

bool tdat_select_done(const struct tdat_select *s, const struct tdat_event *ev)
{
	return s->based && s->has_end && (int64_t)ev->ts > s->end;
}

static bool cpu_match(const struct tdat_select *s, const struct tdat_event *ev)
{
	return !s->cpus || (ev->cpu >= 0 && ev->cpu < 65536 &&
			    (s->cpus[ev->cpu / 8] & (1u << (ev->cpu % 8))));
}

/* Whether --top or -B keeps buffer @b of @f (one of them was given). */
bool select_lane_buffer(const struct tdat_select *s, const struct tdat_file *f, int b)
{
	if (s->top && !f->buffers[b].info.name[0])
		return true;
	for (int i = 0; i < s->buffers.n; i++)
		if (select_buffer_named(s, f, b, s->buffers.v[i]))
			return true;
	return false;
}

bool select_lane(const struct tdat_select *s, const struct tdat_file *f, int b, int cpu)
{
	bool buf = (!s->top && !s->buffers.n) || select_lane_buffer(s, f, b);

	return buf && (!s->cpus ||
		       (cpu >= 0 && cpu < 65536 && (s->cpus[cpu / 8] & (1u << (cpu % 8)))));
}

bool select_window_get(const struct tdat_select *s, int which, int64_t *ns)
{
	*ns = which ? s->end : s->start;
	return which ? s->has_end : s->has_start;
}

/*
 * Until the first event is kept, every test is also applied to every event
 * on its own and counted, so that an empty result can be explained: which
 * test no event passed (tdat_select_why_empty()).
 */
static void count_tests(struct tdat_select *s, const struct tdat_event *ev)
{
	const struct ttype *t = file_type(ev->file, ev);
	bool ok[TDAT_SEL_NCRITERIA];

	ok[TDAT_SEL_WINDOW] = time_match(s, ev);
	ok[TDAT_SEL_BUFFER] = buffer_match(s, ev);
	ok[TDAT_SEL_CPU] = cpu_match(s, ev);
	ok[TDAT_SEL_EVENT] = t && name_match(s, t, ev->input);
	ok[TDAT_SEL_TASK] = task_match(s, ev);
	ok[TDAT_SEL_FILTER] = !s->pos || !s->pos[ev->input] || filter_match(s, s->pos[ev->input], ev);
	if (ok[TDAT_SEL_FILTER] && s->neg && s->neg[ev->input])
		ok[TDAT_SEL_FILTER] = !filter_match(s, s->neg[ev->input], ev);
	s->seen++;
	for (int i = 0; i < TDAT_SEL_NCRITERIA; i++)
		s->passed[i] += ok[i];
}

/*
 * 1 keep @ev, 0 not, or -1 (in a time window only): it is a stack trace
 * whose fate is that of the event before it on its CPU, which is in an
 * earlier window; then its slot stays unknown and s->undecided_neg says
 * whether the negative filter would drop it.
 */
static int match(struct tdat_select *s, const struct tdat_event *ev)
{
	const struct ttype *t;
	unsigned char *last = NULL;
	bool keep, stack;

	if (!time_match(s, ev) || !buffer_match(s, ev) || !cpu_match(s, ev))
		return 0;
	if (!(t = file_type(ev->file, ev)))
		return 0;
	if (s->slot_base && ev->cpu >= 0 && ev->cpu < 256)
		last = &s->last_kept[s->slot_base[ev->input] + ev->buffer * 256 + ev->cpu];
	keep = name_match(s, t, ev->input) && task_match(s, ev) &&
	       (!s->pos || !s->pos[ev->input] || filter_match(s, s->pos[ev->input], ev));
	/* as trace-cmd: a stack trace goes with the event before it on its CPU */
	stack = !keep && last && select_is_stack(t);
	if (stack)
		keep = *last == SEL_KEPT;
	if ((keep || (stack && *last == SEL_UNKNOWN)) && s->neg && s->neg[ev->input]) {
		s->undecided_neg = filter_match(s, s->neg[ev->input], ev);
		keep = keep && !s->undecided_neg;
	} else {
		s->undecided_neg = false;
	}
	if (stack && *last == SEL_UNKNOWN)
		return -1;
	if (last)
		*last = keep ? SEL_KEPT : SEL_DROPPED;
	return keep;
}

int select_match3(struct tdat_select *s, const struct tdat_event *ev)
{
	int keep;

	if (!s->kept)
		count_tests(s, ev);
	keep = match(s, ev);
	s->kept |= keep > 0;
	return keep;
}

bool tdat_select_match(struct tdat_select *s, const struct tdat_event *ev)
{
	return select_match3(s, ev) > 0;
}

int tdat_select_why_empty(struct tdat_select *s, struct tdat_merge *m,
			  struct tdat_select_empty *out)
{
	bool window = s->has_start || s->has_end;
	int ret;

	memset(out, 0, sizeof(*out));
	out->criterion = -1;
	out->seen = s->seen;
	ret = tdat_merge_span(m, &out->first, &out->last);
	if (ret == TDAT_END) {
		out->no_events = true;
		return 0;
	}
	if (ret)
		return ret;
	if (!s->based) {	/* no event was looked at: relative times count from the span's start */
		s->based = true;
		s->start += s->start_rel ? (int64_t)out->first : 0;
		s->end += s->end_rel ? (int64_t)out->first : 0;
	}
	out->has_start = s->has_start;
	out->has_end = s->has_end;
	out->start = s->start;
	out->end = s->end;
	/* events a window skipped were never looked at: they all failed it */
	if (window && (!s->seen || !s->passed[TDAT_SEL_WINDOW])) {
		out->criterion = TDAT_SEL_WINDOW;
		return 0;
	}
	for (int i = 0; i < TDAT_SEL_NCRITERIA && s->seen; i++)
		if (!s->passed[i]) {
			out->criterion = i;
			break;
		}
	return 0;
}
