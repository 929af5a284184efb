/*
 * t-cpustat.c - unit tests of the kernel's per-CPU ring-buffer statistics
 * (libfmt/read/cpustat.c): tdat_file_cpustat() on the real captures gives the
 * figures `trace-cmd report --stat` prints, per buffer, with timestamps on
 * the events' timeline; hostile CPUSTAT text is parsed within its bounds,
 * keeping only whole figures; per CPU over the buffers a writer wrote, the
 * lost events counted in the pages stand in for a missing overrun.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"
#include "../tap.h"

static struct tdat_file *open_ok(const char *name, const struct tdat_open_opts *oo)
{
	struct tdat_file *f = tdat_file_new();

	if (!f || tdat_file_open(f, tap_testdata(name), oo))
		bail_out("cannot open %s: %s", name, f ? tdat_file_errmsg(f) : "no memory");
	return f;
}

#define ALL_FIGURES 0xffu

static void two_buffers(void)
{
	struct tdat_file *f = open_ok("two-buffers.dat", NULL);
	const struct tdat_kernel_cpu_stats *s;
	int n;

	s = tdat_file_cpustat(f, &n);
	if (!is_int(n, 4, "two-buffers.dat: two CPUs of two buffers")) {
		tdat_file_free(f);
		return;
	}
	is_str(s[0].buffer_name, "", "the top buffer first");
	is_int(s[0].buffer, 0, "its index");
	is_int(s[0].cpu, 0, "CPU 0");
	is_uint(s[0].have, ALL_FIGURES, "every figure");
	is_uint(s[0].entries, 461, "entries: 461");
	is_uint(s[0].bytes, 21576, "bytes: 21576");
	is_uint(s[0].oldest_event_ts, 472531407000ull, "oldest event ts:   472.531407, in ns");
	is_uint(s[0].now_ts, 472823325000ull, "now ts:   472.823325, in ns");
	is_int(s[1].cpu, 1, "then CPU 1");
	is_uint(s[1].read_events, 136, "read events: 136");
	is_str(s[2].buffer_name, "foo", "then instance foo");
	is_int(s[2].buffer, 1, "the file's buffer 1");
	is_uint(s[2].entries, 1287, "its entries: 1287");
	is_uint(s[3].entries, 567, "its CPU 1 entries: 567");
	ok(tdat_file_cpustat(f, &n) == s && n == 4, "parsed once");
	tdat_file_free(f);
}

static void lost_and_clocks(void)
{
	struct tdat_open_opts raw = { .flags = TDAT_OPEN_RAW_TS, .ts_offset = 5 };
	struct tdat_file *f = open_ok("lost-events-nocount.dat", NULL);
	const struct tdat_kernel_cpu_stats *s;
	int n;

	s = tdat_file_cpustat(f, &n);
	ok(n == 2 && s[1].cpu == 1 && s[1].overrun == 80497, "nocount: CPU 1 overrun: 80497");
	tdat_file_free(f);

	f = open_ok("date.dat", NULL);
	s = tdat_file_cpustat(f, &n);
	ok(n == 2, "date.dat: two CPUs");
	is_uint(s[0].oldest_event_ts, 480916655000ull + (uint64_t)tdat_file_info(f)->ts_offset,
		"the DATE offset moves the kernel's times as it moves the events'");
	tdat_file_set_ts_offset(f, 1000);
	s = tdat_file_cpustat(f, &n);
	is_uint(s[0].oldest_event_ts, 480916655000ull + (uint64_t)tdat_file_info(f)->ts_offset,
		"and a user offset set later too");
	tdat_file_free(f);

	f = open_ok("date.dat", &raw);
	s = tdat_file_cpustat(f, &n);
	is_uint(s[0].now_ts, 480947195005ull, "--raw-ts: as the kernel printed, plus the user offset");
	tdat_file_free(f);

	f = open_ok("clock-x86-tsc.dat", NULL);
	s = tdat_file_cpustat(f, &n);
	is_uint(s[0].oldest_event_ts, 793920120864507ull, "x86-tsc: clock units as printed");
	tdat_file_free(f);

	f = open_ok("v7-zstd.dat", NULL);
	s = tdat_file_cpustat(f, &n);
	ok(n == 2 && s[0].buffer == 0 && s[1].buffer == 0, "v7-zstd.dat: two CPUs of the top buffer");
	tdat_file_free(f);
}

/* Parse @text on a closed handle; the entry count. */
static int parse(struct tdat_file *f, const char *text, size_t len)
{
	int n;

	is_int(cpustat_parse(f, text, len), 0, "parse %zu bytes", len);
	tdat_file_cpustat(f, &n);
	return n;
}

static void hostile(void)
{
	static const char junk[] =
		"overrun: 7\n"				/* before any CPU: nobody's */
		"CPU: 99999999999\noverrun: 1\n"	/* no such CPU: section dropped */
		"CPU: 65536\noverrun: 1\n"
		"CPU: -1\noverrun: 1\n"
		"CPU: 3\r\n"
		"overrun: -5\n"				/* not a number */
		"entries: 18446744073709551616\n"	/* does not fit */
		"bytes: 12abc\n"
		"commit overrun:    42   \n"		/* spaces are fine */
		"dropped events:\n"			/* empty */
		"read events : 9\n"
		"oldest event ts: 1.1234567890\n"	/* ten decimals */
		"now ts: 18446744073709.551615\n"	/* does not fit in ns */
		"overrunning: 4\n"
		"Buffer: b\n\n"
		"CPU: 3\noverrun: 2\noldest event ts: 7.5\n"
		"Buffer: \n"
		"CPU: 3\nentries: 1\n"			/* the top buffer again */
		"Buffer: b\nCPU: 3\nnow ts: 0.000001\n"	/* b's CPU 3 again: one entry */
		"CPU: 4\nentries: 5";			/* no newline at the end */
	struct tdat_file *f = tdat_file_new();
	const struct tdat_kernel_cpu_stats *s;
	char *cut;
	int n;

	if (!f)
		bail_out("no memory");
	is_int(parse(f, "", 0), 0, "empty text: nothing");
	is_int(parse(f, "CPU: 1\n", 3), 0, "cut inside a CPU line: nothing");
	is_int(parse(f, junk, strlen(junk)), 3, "hostile text: three entries");
	s = tdat_file_cpustat(f, &n);
	is_str(s[0].buffer_name, "", "top buffer's CPU 3");
	is_int(s[0].buffer, -1, "a buffer the handle does not have");
	is_uint(s[0].have, TDAT_KS_COMMIT_OVERRUN | TDAT_KS_READ | TDAT_KS_ENTRIES,
		"only the whole figures");
	is_uint(s[0].commit_overrun, 42, "commit overrun 42");
	is_uint(s[0].read_events, 9, "read events 9");
	is_uint(s[0].entries, 1, "entries from its second section");
	is_str(s[1].buffer_name, "b", "then buffer b");
	is_uint(s[1].have, TDAT_KS_OVERRUN | TDAT_KS_OLDEST_TS | TDAT_KS_NOW_TS, "its figures");
	is_uint(s[1].oldest_event_ts, 7500000000ull, "7.5 s");
	is_uint(s[1].now_ts, 1000, "0.000001 s");
	ok(s[2].cpu == 4 && s[2].entries == 5, "a last line without a newline");
	/* every cut of the text parses within its bounds (ASan watches the heap copy) */
	for (size_t len = 0; len <= strlen(junk); len++) {
		if (!(cut = malloc(len ? len : 1)))
			bail_out("no memory");
		memcpy(cut, junk, len);
		if (cpustat_parse(f, cut, len))
			break;
		tdat_file_cpustat(f, &n);
		free(cut);
		cut = NULL;
	}
	ok(!cut, "every prefix of the hostile text parses");
	free(cut);
	tdat_file_free(f);
}

/* Many sections: the entries and names are bounded, and looked up fast. */
static void many(void)
{
	size_t cap = 8u << 20, len = 0;
	char *t = malloc(cap);
	struct tdat_file *f = tdat_file_new();
	const struct tdat_kernel_cpu_stats *s;
	int n, names = 0;

	if (!t || !f)
		bail_out("no memory");
	for (int round = 0; round < 2; round++) {
		for (int b = 0; b < 300; b++) {
			len += (size_t)snprintf(t + len, cap - len, "Buffer: b%d\n", b);
			for (int c = 0; c < 100; c++)
				len += (size_t)snprintf(t + len, cap - len, "CPU: %d\noverrun: %d\n", c, round);
		}
	}
	for (int c = 0; c < 70000; c++)
		len += (size_t)snprintf(t + len, cap - len, "Buffer:\nCPU: %d\nentries: 1\n", c);
	is_int(cpustat_parse(f, t, len), 0, "%zu bytes of sections", len);
	s = tdat_file_cpustat(f, &n);
	is_int(n, 16384, "entries stop at 16384");
	for (int i = 0; i < n; i++)
		names += i && s[i].buffer_name != s[i - 1].buffer_name;
	is_int(names + 1, 164, "in the first buffers' sections");
	ok(s[0].overrun == 1 && s[n - 1].overrun == 1, "a repeated section updates its entry");
	tdat_file_free(f);
	free(t);
}

static void per_cpu(void)
{
	struct tdat_file *f = open_ok("two-buffers.dat", NULL);
	struct tdat_kernel_cpu_stats s;
	struct tdat_event ev = { .cpu = 1, .buffer = 1, .missed = 3 };
	struct kseen k;

	if (!is_int(kseen_init(&k, f), 0, "kseen_init"))
		bail_out("no memory");
	kseen_cpu(&k, f, 0, &s);
	is_uint(s.have, TDAT_KS_OVERRUN, "no buffer written: only an overrun of 0");
	kseen_event(&k, &ev);
	kseen_cpu(&k, f, 0, &s);
	is_uint(s.entries, 1287, "foo written: its CPU 0 figures");
	ev.buffer = 0;
	kseen_event(&k, &ev);
	kseen_cpu(&k, f, 0, &s);
	is_uint(s.entries, 461 + 1287, "both written: entries summed");
	is_uint(s.oldest_event_ts, 472531407000ull, "the earliest oldest event");
	is_uint(s.now_ts, 472823597000ull, "the latest now");
	kseen_cpu(&k, f, 1, &s);
	is_uint(s.overrun, 0, "the text's overrun (0), not the pages' 6");
	kseen_release(&k);

	/* no text: the pages' count */
	is_int(cpustat_parse(f, "CPU: 1\nentries: 2\n", 18), 0, "text without overrun");
	kseen_init(&k, f);
	ev.buffer = 1;
	kseen_event(&k, &ev);
	kseen_event(&k, &ev);
	kseen_cpu(&k, f, 1, &s);
	is_uint(s.overrun, 6, "lost events counted in the pages stand in");
	is_uint(s.have, TDAT_KS_OVERRUN, "and the top buffer's entries are not counted");
	kseen_release(&k);
	tdat_file_free(f);
}

int main(void)
{
	two_buffers();
	lost_and_clocks();
	hostile();
	many();
	per_cpu();
	return done_testing();
}
