/*
 * t-merge.c - unit tests of the merge through tdat.h: events come out in
 * timestamp order, each exactly once, ties broken by input; counts agree
 * with the per-CPU statistics; lost events are part of the stream; the
 * statistics a counting merge gathers equal tdat_stats_collect()'s; a merge
 * that reads chunks ahead (tdat_merge_set_jobs()) gives the same events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "../tap.h"

static struct tdat_file *open_td(const char *name)
{
	struct tdat_file *f = tdat_file_new();

	if (tdat_file_open(f, tap_testdata(name), NULL))
		bail_out("cannot open %s: %s", tap_testdata(name), tdat_file_errmsg(f));
	return f;
}

/* Merge @name alone: ordered, count equal to the stats' total. */
static void check_file(const char *name)
{
	struct tdat_file *f = open_td(name);
	struct tdat_merge *m = tdat_merge_new();
	struct tdat_stats *s;
	const struct tdat_event *ev;
	uint64_t n = 0, last = 0, back = 0;
	int ret, nd;

	is_int(tdat_merge_add(m, f), 0, "%s: added", name);
	while ((ret = tdat_merge_next(m, &ev)) == 0) {
		back += ev->ts < last;
		last = ev->ts;
		n++;
	}
	is_int(ret, TDAT_END, "%s: merge ends cleanly", name);
	is_uint(back, 0, "%s: timestamps never go back", name);
	tdat_merge_damage(m, &nd);
	is_int(nd, 0, "%s: no damage", name);
	is_int(tdat_stats_collect(f, &s), 0, "%s: stats", name);
	is_uint(n, s->total, "%s: merge gives every event once (%llu)", name, (unsigned long long)n);
	ok(n > 0, "%s: has events", name);
	tdat_stats_free(s);
	tdat_merge_free(m);
	tdat_file_free(f);
}

/*
 * The same file twice: every event twice; among events with one timestamp,
 * all of input 0 come before those of input 1, as many of each.
 */
static void check_ties(void)
{
	struct tdat_file *a = open_td("v7-zstd.dat"), *b = open_td("v7-zstd.dat");
	struct tdat_merge *m = tdat_merge_new();
	const struct tdat_event *ev;
	uint64_t n = 0, bad = 0, group_ts = 0;
	long long in0 = 0, in1 = 0;

	tdat_merge_add(m, a);
	tdat_merge_add(m, b);
	is_int(tdat_merge_nfiles(m), 2, "two inputs");
	while (tdat_merge_next(m, &ev) == 0) {
		if (n == 0 || ev->ts != group_ts) {
			bad += in0 != in1;
			in0 = in1 = 0;
			group_ts = ev->ts;
		}
		if (ev->input == 0) {
			bad += in1 != 0;	/* input 0 after input 1 on a tie */
			in0++;
		} else {
			in1++;
		}
		n++;
	}
	bad += in0 != in1;
	is_uint(bad, 0, "ties: input 0 first, each event once per input");
	ok(n > 0 && n % 2 == 0, "an even number of events (%llu)", (unsigned long long)n);
	tdat_merge_free(m);
	tdat_file_free(a);
	tdat_file_free(b);
}

static void check_lost(void)
{
	struct tdat_file *f = open_td("lost-events.dat");
	struct tdat_merge *m = tdat_merge_new();
	const struct tdat_event *ev;
	long long lost = 0;
	struct tdat_stats *s;

	tdat_merge_add(m, f);
	while (tdat_merge_next(m, &ev) == 0)
		lost += ev->missed > 0 ? ev->missed : 0;
	ok(lost > 0, "lost events are in the stream (%lld)", lost);
	tdat_stats_collect(f, &s);
	is_uint(s->lost, lost, "stats count the same lost events");
	tdat_stats_free(s);
	tdat_merge_free(m);
	tdat_file_free(f);
}

static void check_offset(void)
{
	struct tdat_open_opts oo = { .ts_offset = 1000000000 };
	struct tdat_file *a = open_td("v6.dat"), *b = tdat_file_new();
	struct tdat_merge *ma = tdat_merge_new(), *mb = tdat_merge_new();
	const struct tdat_event *ea, *eb;

	is_int(tdat_file_open(b, tap_testdata("v6.dat"), &oo), 0, "open with an offset");
	tdat_merge_add(ma, a);
	tdat_merge_add(mb, b);
	tdat_merge_next(ma, &ea);
	tdat_merge_next(mb, &eb);
	is_uint(eb->ts - ea->ts, 1000000000, "--ts-offset moves every timestamp");
	is_str(tdat_event_name(ea, NULL), tdat_event_name(eb, NULL), "same first event");
	tdat_merge_free(ma);
	tdat_merge_free(mb);
	tdat_file_free(a);
	tdat_file_free(b);
}

/* A counting merge of @a (and @b, if not NULL): its stats of @a equal tdat_stats_collect()'s. */
static void check_counted(const char *a, const char *b)
{
	struct tdat_file *f = open_td(a), *g = b ? open_td(b) : NULL;
	struct tdat_merge *m = tdat_merge_new();
	struct tdat_stats *want = NULL, *got = NULL;
	const struct tdat_event *ev;
	int ret, same = 1;

	tdat_merge_add(m, f);
	if (g)
		tdat_merge_add(m, g);
	is_int(tdat_merge_count(m), 0, "%s: counting", a);
	is_int(tdat_merge_stats(m, f, &got), TDAT_EINVAL, "%s: no stats before the end", a);
	while ((ret = tdat_merge_next(m, &ev)) == 0)
		;
	is_int(tdat_merge_count(m), TDAT_EINVAL, "%s: too late to count once started", a);
	is_int(tdat_merge_stats(m, f, &got), 0, "%s: counted stats", a);
	is_int(tdat_stats_collect(f, &want), 0, "%s: collected stats", a);
	if (!got || !want)
		bail_out("%s: no stats", a);
	is_int(got->ncpus, want->ncpus, "%s: as many CPUs", a);
	for (int i = 0; i < got->ncpus && i < want->ncpus; i++)
		same &= !memcmp(&got->cpus[i], &want->cpus[i], sizeof(got->cpus[i]));
	ok(same, "%s: every CPU's figures equal (events, lost, times, bytes, damage)", a);
	is_int(got->nevents, want->nevents, "%s: as many event types", a);
	for (int i = 0; i < got->nevents && i < want->nevents; i++)
		same &= got->events[i].count == want->events[i].count &&
			!strcmp(got->events[i].name, want->events[i].name) &&
			!strcmp(got->events[i].system, want->events[i].system);
	ok(same, "%s: the same counts per type, in the same order", a);
	ok(got->total == want->total && got->lost == want->lost && got->first_ts == want->first_ts &&
	   got->last_ts == want->last_ts && got->common_start == want->common_start &&
	   got->common_end == want->common_end, "%s: the same totals and spans", a);
	tdat_stats_free(got);
	tdat_stats_free(want);
	tdat_merge_free(m);
	tdat_file_free(f);
	tdat_file_free(g);
}

/* A merge that did not count, or was sought, has no stats. */
static void check_uncounted(void)
{
	struct tdat_file *f = open_td("v7-zstd.dat");
	struct tdat_merge *m = tdat_merge_new();
	struct tdat_stats *s = NULL;
	const struct tdat_event *ev;

	tdat_merge_add(m, f);
	while (tdat_merge_next(m, &ev) == 0)
		;
	is_int(tdat_merge_stats(m, f, &s), TDAT_EINVAL, "not counting: no stats");
	tdat_merge_free(m);
	m = tdat_merge_new();
	tdat_merge_add(m, f);
	tdat_merge_count(m);
	tdat_merge_seek(m, 1);
	while (tdat_merge_next(m, &ev) == 0)
		;
	is_int(tdat_merge_stats(m, f, &s), TDAT_EINVAL, "sought: no stats");
	ok(!s, "and none set");
	tdat_merge_free(m);
	tdat_file_free(f);
}

/*
 * @name read ahead on a thread and read plainly: the same events, field for
 * field and byte for byte, in the same order; and no jobs once started.
 */
static void check_ahead(const char *name)
{
	struct tdat_file *f = open_td(name), *g = open_td(name);
	struct tdat_merge *a = tdat_merge_new(), *b = tdat_merge_new();
	const struct tdat_event *x, *y;
	uint64_t n = 0, diff = 0;
	int ra, rb;

	is_int(tdat_merge_set_jobs(a, 2), 0, "%s: read ahead", name);
	tdat_merge_add(a, f);
	tdat_merge_add(b, g);
	for (;;) {
		ra = tdat_merge_next(a, &x);
		rb = tdat_merge_next(b, &y);
		if (ra || rb)
			break;
		n++;
		diff += x->ts != y->ts || x->cpu != y->cpu || x->size != y->size ||
			x->missed != y->missed || memcmp(x->data, y->data, x->size);
	}
	ok(ra == TDAT_END && rb == TDAT_END, "%s: both end (%d, %d)", name, ra, rb);
	is_uint(diff, 0, "%s: the same %llu events read ahead", name, (unsigned long long)n);
	is_int(tdat_merge_set_jobs(a, 2), TDAT_EINVAL, "%s: no jobs once started", name);
	tdat_merge_free(a);
	tdat_merge_free(b);
	tdat_file_free(f);
	tdat_file_free(g);
}

int main(void)
{
	static const char *files[] = { "v6.dat", "v7-none.dat", "v7-zstd.dat", "two-buffers.dat",
				       "v6-two-buffers.dat", "markers.dat", "clock-counter.dat",
				       "extract.dat", "stack.dat", "chunks.dat" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		check_file(files[i]);
	check_ties();
	check_lost();
	check_offset();
	check_counted("lost-events.dat", NULL);
	check_counted("lost-events-nocount.dat", NULL);
	check_counted("two-buffers.dat", "v6.dat");
	check_counted("v6.dat", "two-buffers.dat");
	check_counted("chunks.dat", NULL);
	check_counted("bad/truncated-v6-data.dat", NULL);
	check_counted("bad/format-crash.dat", NULL);
	check_uncounted();
	check_ahead("chunks.dat");
	check_ahead("v7-zstd.dat");
	check_ahead("two-buffers.dat");
	return done_testing();
}
