/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cpustat.c - the kernel's own count of each ring buffer, per CPU, at the
 * end of recording.  trace-cmd keeps the text of per_cpu/cpuN/stats in the
 * CPUSTAT options, after a "CPU: N" line, the top buffer's CPUs first, then
 * each instance's after a "Buffer: NAME" line:
 *
 *	CPU: 1
 *	entries: 76
 *	overrun: 74808
 *	commit overrun: 0
 *	bytes: 3504
 *	oldest event ts:   716.772988	(seconds.microseconds; clock units
 *	now ts:   716.794931		 for clocks that do not count ns)
 *	dropped events: 0
 *	read events: 1113
 *
 * tdat_file_cpustat() gives it as numbers.  The writers that carry these
 * figures (Perfetto's FtraceStats, SQLite's stats) want them per CPU over
 * the buffers they wrote: struct kseen keeps which buffers those were and
 * the lost events counted in their pages, which stand in for a missing
 * overrun.
 *
 * The text comes from the file, so nothing in it is trusted: a line is
 * bounded by the text, a figure that is not all digits or does not fit in
 * 64 bits is left out, a CPU id of MAX_CPUS or more drops its section, and
 * the entries and buffer names are bounded (MAX_KSTATS, MAX_KNAMES).
 */
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

/* Far more than a machine has (CPUs times instances); bounds the work on hostile text. */
#define MAX_KSTATS 16384
#define MAX_KNAMES 256
#define NSLOTS (2 * MAX_KSTATS)	/* hash of (buffer, cpu) -> entry, half full at most */

/* The counters, by their name in the text; the timestamps are apart. */
static const struct {
	const char *key;
	unsigned bit;
	size_t off;
} counters[] = {
	{ "entries", TDAT_KS_ENTRIES, offsetof(struct tdat_kernel_cpu_stats, entries) },
	{ "overrun", TDAT_KS_OVERRUN, offsetof(struct tdat_kernel_cpu_stats, overrun) },
	{ "commit overrun", TDAT_KS_COMMIT_OVERRUN,
	  offsetof(struct tdat_kernel_cpu_stats, commit_overrun) },
	{ "bytes", TDAT_KS_BYTES, offsetof(struct tdat_kernel_cpu_stats, bytes) },
	{ "dropped events", TDAT_KS_DROPPED, offsetof(struct tdat_kernel_cpu_stats, dropped_events) },
	{ "read events", TDAT_KS_READ, offsetof(struct tdat_kernel_cpu_stats, read_events) },
};

#define NCOUNTERS (sizeof(counters) / sizeof(counters[0]))

static uint64_t *counter(struct tdat_kernel_cpu_stats *s, size_t i)
{
	return (uint64_t *)((char *)s + counters[i].off);
}

/* All of [p, end) as a decimal number that fits; false if not. */
static bool parse_u64(const char *p, const char *end, uint64_t *v)
{
	uint64_t n = 0;

	if (p == end)
		return false;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9' || n > (UINT64_MAX - 9) / 10)
			return false;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	*v = n;
	return true;
}

/* "SECONDS.FRACTION" as ns, or a bare integer (clock units) as it is. */
static bool parse_ts(const char *p, const char *end, uint64_t *v)
{
	const char *dot = memchr(p, '.', (size_t)(end - p));
	uint64_t s, frac = 0, scale = 1000000000;

	if (!dot)
		return parse_u64(p, end, v);
	if (!parse_u64(p, dot, &s) || s > UINT64_MAX / 1000000000 || end - dot - 1 > 9 ||
	    (dot + 1 < end && !parse_u64(dot + 1, end, &frac)))
		return false;
	for (const char *q = dot + 1; q < end; q++)
		scale /= 10;
	if (frac * scale > UINT64_MAX - s * 1000000000)
		return false;
	*v = s * 1000000000 + frac * scale;
	return true;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

static const char *trim_end(const char *p, const char *end)
{
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	return end;
}

/* Does the line [p, end) start with @key and a colon?  Then the value after it. */
static bool keyed(const char *p, const char *end, const char *key, const char **val)
{
	size_t n = strlen(key);

	if ((size_t)(end - p) <= n || memcmp(p, key, n))
		return false;
	p = skip_space(p + n, end);
	if (p == end || *p != ':')
		return false;
	*val = skip_space(p + 1, end);
	return true;
}

struct parse {
	struct tdat_file *f;
	const char *name;	/* the buffer the text is in: "" or one of f->knames;
				 * NULL: one too many, its sections are skipped */
	int nidx;		/* 0 for "", i + 1 for f->knames[i] */
	int cur;		/* the entry lines go to, -1: none */
	int cap, rcap, ncap;	/* of f->kstats, f->kraw, f->knames */
	int *slots;		/* NSLOTS: entry + 1, 0 free */
};

static int buffer_index(const struct tdat_file *f, const char *name)
{
	for (int b = 0; b < f->nbuffers; b++)
		if (f->buffers[b].info.name && !strcmp(f->buffers[b].info.name, name))
			return b;
	return -1;
}

static int set_buffer(struct parse *ps, const char *p, const char *end)
{
	struct tdat_file *f = ps->f;
	char *name;

	ps->cur = -1;
	ps->name = "";		/* names are interned: entries compare them as pointers */
	ps->nidx = 0;
	if (p == end)
		return 0;
	for (int i = 0; i < f->nknames; i++) {
		if (strlen(f->knames[i]) == (size_t)(end - p) && !memcmp(f->knames[i], p, (size_t)(end - p))) {
			ps->name = f->knames[i];
			ps->nidx = i + 1;
			return 0;
		}
	}
	ps->name = NULL;
	if (f->nknames >= MAX_KNAMES)
		return 0;
	if (array_room((void **)&f->knames, f->nknames, &ps->ncap, sizeof(*f->knames), 4) ||
	    !(name = strndup(p, (size_t)(end - p))))
		return TDAT_ENOMEM;
	ps->name = f->knames[f->nknames++] = name;
	ps->nidx = f->nknames;
	return 0;
}

/* "CPU: N": the entry of (buffer, N), made if new. */
static int set_cpu(struct parse *ps, const char *p, const char *end)
{
	struct tdat_file *f = ps->f;
	struct tdat_kernel_cpu_stats *s;
	uint64_t cpu;
	uint32_t h;

	ps->cur = -1;
	if (!ps->name || !parse_u64(p, end, &cpu) || cpu >= MAX_CPUS)
		return 0;
	if (!ps->slots && !(ps->slots = calloc(NSLOTS, sizeof(*ps->slots))))
		return TDAT_ENOMEM;
	/* MAX_CPUS is 2^16: buffer and CPU make one key */
	h = (((uint32_t)ps->nidx << 16 | (uint32_t)cpu) * 2654435761u) % NSLOTS;
	for (; ps->slots[h]; h = (h + 1) % NSLOTS) {
		s = &f->kstats[ps->slots[h] - 1];
		if (s->cpu == (int)cpu && s->buffer_name == ps->name) {
			ps->cur = ps->slots[h] - 1;
			return 0;
		}
	}
	if (f->nkstats >= MAX_KSTATS)
		return 0;
	if (array_room((void **)&f->kstats, f->nkstats, &ps->cap, sizeof(*f->kstats), 8) ||
	    array_room((void **)&f->kraw, f->nkstats, &ps->rcap, sizeof(*f->kraw), 8))
		return TDAT_ENOMEM;
	s = &f->kstats[f->nkstats];
	memset(s, 0, sizeof(*s));
	s->buffer_name = ps->name;
	s->buffer = buffer_index(f, ps->name);
	s->cpu = (int)cpu;
	f->kraw[f->nkstats][0] = f->kraw[f->nkstats][1] = 0;
	ps->cur = f->nkstats++;
	ps->slots[h] = f->nkstats;
	return 0;
}

/* A figure line of the current entry; anything else is ignored. */
static void figure(struct parse *ps, const char *p, const char *end)
{
	struct tdat_kernel_cpu_stats *s = &ps->f->kstats[ps->cur];
	uint64_t *raw = ps->f->kraw[ps->cur], v;
	const char *val;

	for (size_t i = 0; i < NCOUNTERS; i++) {
		if (keyed(p, end, counters[i].key, &val)) {
			if (parse_u64(val, end, &v)) {
				*counter(s, i) = v;
				s->have |= counters[i].bit;
			}
			return;
		}
	}
	if (keyed(p, end, "oldest event ts", &val) && parse_ts(val, end, &v)) {
		raw[0] = v;
		s->have |= TDAT_KS_OLDEST_TS;
	} else if (keyed(p, end, "now ts", &val) && parse_ts(val, end, &v)) {
		raw[1] = v;
		s->have |= TDAT_KS_NOW_TS;
	}
}

static int parse_line(struct parse *ps, const char *p, const char *end)
{
	const char *val;

	p = skip_space(p, end);
	end = trim_end(p, end);
	if (keyed(p, end, "Buffer", &val))
		return set_buffer(ps, val, end);
	if (keyed(p, end, "CPU", &val))
		return set_cpu(ps, val, end);
	if (ps->cur >= 0)
		figure(ps, p, end);
	return 0;
}

void cpustat_free(struct tdat_file *f)
{
	for (int i = 0; i < f->nknames; i++)
		free(f->knames[i]);
	free(f->knames);
	free(f->kstats);
	free(f->kraw);
	f->knames = NULL;
	f->kstats = NULL;
	f->kraw = NULL;
	f->nknames = f->nkstats = 0;
}

int cpustat_parse(struct tdat_file *f, const char *text, size_t len)
{
	struct parse ps = { .f = f, .name = "", .cur = -1 };
	const char *end = text + len;
	int ret = 0;

	cpustat_free(f);
	f->kparsed = true;
	for (const char *p = text; p < end && !ret;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		ret = parse_line(&ps, p, eol);
		p = nl ? nl + 1 : end;
	}
	free(ps.slots);
	if (ret)
		cpustat_free(f);
	return ret;
}

const struct tdat_kernel_cpu_stats *tdat_file_cpustat(struct tdat_file *f, int *n)
{
	const char *t = f->info.cpustat;

	*n = 0;
	if (!f->kparsed && cpustat_parse(f, t ? t : "", t ? strlen(t) : 0))
		return NULL;
	for (int i = 0; i < f->nkstats; i++) {
		struct tdat_kernel_cpu_stats *s = &f->kstats[i];

		/* corrected now: the user offset may have changed since */
		s->oldest_event_ts = s->have & TDAT_KS_OLDEST_TS ? origin_stat_ts(f, f->kraw[i][0], s->cpu) : 0;
		s->now_ts = s->have & TDAT_KS_NOW_TS ? origin_stat_ts(f, f->kraw[i][1], s->cpu) : 0;
	}
	*n = f->nkstats;
	return f->nkstats ? f->kstats : NULL;
}

/* ---- per CPU over the buffers a writer wrote ---- */

const struct kstat_field kstat_fields[KSTAT_NFIELDS] = {
	{ TDAT_KS_ENTRIES, "ftrace_cpu_entries_end",
	  "events left in the kernel's ring buffers at the end, not recorded" },
	{ TDAT_KS_OVERRUN, "ftrace_cpu_overrun_end",
	  "events the kernel overwrote before they were read (lost; counted in the pages where the file has no figure)" },
	{ TDAT_KS_COMMIT_OVERRUN, "ftrace_cpu_commit_overrun_end",
	  "events lost to a ring buffer wrapping while a commit was under way" },
	{ TDAT_KS_BYTES, "ftrace_cpu_bytes_end", "bytes of the entries left in the ring buffers" },
	{ TDAT_KS_OLDEST_TS, "ftrace_cpu_oldest_event_ts_end",
	  "time of the oldest event left in the ring buffers (to the microsecond)" },
	{ TDAT_KS_NOW_TS, "ftrace_cpu_now_ts_end",
	  "the ring buffers' clock when the kernel gave these figures (to the microsecond)" },
	{ TDAT_KS_DROPPED, "ftrace_cpu_dropped_events_end",
	  "events the kernel refused because the ring buffer was full (no overwrite)" },
	{ TDAT_KS_READ, "ftrace_cpu_read_events_end", "events read from the ring buffers" },
};

uint64_t kstat_value(const struct tdat_kernel_cpu_stats *k, unsigned bit)
{
	switch (bit) {
	case TDAT_KS_OLDEST_TS: return k->oldest_event_ts;
	case TDAT_KS_NOW_TS: return k->now_ts;
	}
	for (size_t i = 0; i < NCOUNTERS; i++)
		if (counters[i].bit == bit)
			return *counter((struct tdat_kernel_cpu_stats *)k, i);
	return 0;
}

int kseen_init(struct kseen *k, const struct tdat_file *f)
{
	int n = 0;

	k->f = f;
	k->used = calloc((size_t)f->nbuffers + 1, sizeof(*k->used));
	k->base = calloc((size_t)f->nbuffers + 1, sizeof(*k->base));
	for (int b = 0; k->base && b < f->nbuffers; b++) {
		k->base[b] = n;
		n += f->buffers[b].info.ncpus;
	}
	k->lost = calloc((size_t)n + 1, sizeof(*k->lost));
	return k->used && k->base && k->lost ? 0 : TDAT_ENOMEM;
}

/* The lost count of @cpu in buffer @b, NULL if the buffer has no such CPU. */
static uint64_t *lost_of(const struct kseen *k, int b, int cpu)
{
	const struct tdat_buffer_info *bi = &k->f->buffers[b].info;

	for (int i = 0; i < bi->ncpus; i++)
		if (bi->cpus[i].cpu == cpu)
			return &k->lost[k->base[b] + i];
	return NULL;
}

void kseen_event(struct kseen *k, const struct tdat_event *ev)
{
	uint64_t *lost;

	if (ev->buffer < 0 || ev->buffer >= k->f->nbuffers)
		return;
	k->used[ev->buffer] = true;
	if (ev->missed > 0 && (lost = lost_of(k, ev->buffer, ev->cpu)))
		*lost += (uint64_t)ev->missed;
}

void kseen_release(struct kseen *k)
{
	free(k->used);
	free(k->base);
	free(k->lost);
	k->used = NULL;
	k->base = NULL;
	k->lost = NULL;
}

/* Add one buffer's figures of a CPU to @out. */
static void add_stats(struct tdat_kernel_cpu_stats *out, const struct tdat_kernel_cpu_stats *s)
{
	for (size_t i = 0; i < NCOUNTERS; i++) {
		if (s->have & counters[i].bit) {
			uint64_t *o = counter(out, i), v = *counter((struct tdat_kernel_cpu_stats *)s, i);

			*o = v > UINT64_MAX - *o ? UINT64_MAX : *o + v;
		}
	}
	if ((s->have & TDAT_KS_OLDEST_TS) &&
	    (!(out->have & TDAT_KS_OLDEST_TS) || s->oldest_event_ts < out->oldest_event_ts))
		out->oldest_event_ts = s->oldest_event_ts;
	if ((s->have & TDAT_KS_NOW_TS) && (!(out->have & TDAT_KS_NOW_TS) || s->now_ts > out->now_ts))
		out->now_ts = s->now_ts;
	out->have |= s->have;
}

void kseen_cpu(const struct kseen *k, struct tdat_file *f, int cpu,
	       struct tdat_kernel_cpu_stats *out)
{
	const struct tdat_kernel_cpu_stats *ks;
	int n;

	memset(out, 0, sizeof(*out));
	out->buffer_name = "";
	out->buffer = -1;
	out->cpu = cpu;
	ks = tdat_file_cpustat(f, &n);
	for (int b = 0; b < k->f->nbuffers; b++) {
		const uint64_t *lost;
		bool overrun = false;

		if (!k->used[b])
			continue;
		for (int i = 0; i < n; i++) {
			if (ks[i].buffer != b || ks[i].cpu != cpu)
				continue;
			add_stats(out, &ks[i]);
			overrun |= (ks[i].have & TDAT_KS_OVERRUN) != 0;
		}
		if (!overrun && (lost = lost_of(k, b, cpu)))
			out->overrun += *lost;
	}
	out->have |= TDAT_KS_OVERRUN;
}
