/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common.c - what every tdat tool shares: messages in the form
 * `prog: subject: reason`, exit codes (0 ok, 1 failure, 2 usage), option
 * values (times, sizes, layouts), inputs (opening, the default input,
 * clocks and pieces that do not fit together), damage reports, the
 * selection options and progress on stderr.  Outputs are outfile.c's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

const char *progname = "tdat";
bool inputs_damaged;
bool lenient;
bool verbose;
/*
 * At exit (also after --help and --version): what stdio still holds for
 * standard output is written and the stream closed, and a failure (a full
 * disk, /dev/full) ends the tool with status 1 and a message.  Output the
 * writers sent to the descriptor themselves was checked when they closed
 * it (out_commit()): the stream then finds it closed (EBADF), which is fine.
 */
static void close_stdout(void)
{
	bool failed = ferror(stdout) != 0;
	int err = 0;

	if (fflush(stdout))
		failed = true;
	err = errno;
	if (fclose(stdout) && errno != EBADF && !failed) {
		failed = true;
		err = errno;
	}
	if (!failed)
		return;
	check_pipe(err);
	outs_cleanup();
	fprintf(stderr, "%s: standard output: %s\n", progname, err ? strerror(err) : "write error");
	_exit(EXIT_FAIL);
}

void tool_init(char **argv)
{
	const char *s = strrchr(argv[0], '/');

	progname = s ? s + 1 : argv[0];
	argv[0] = (char *)progname;	/* getopt's messages: "tdat-convert: ...", not the path */
	outs_catch_signals();
	atexit(close_stdout);
}

static void vmsg(const char *fmt, va_list ap, int err)
{
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}

void warn_(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, err);
	va_end(ap);
}

void die_(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	outs_cleanup();
	exit(code);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", progname);
	outs_cleanup();
	exit(EXIT_USAGE);
}

void print_version(void)
{
	printf("%s (%s) %s\n", progname, PACKAGE_NAME, PACKAGE_VERSION);
	exit(EXIT_OK);
}

void dat_layout_option(struct dat_layout_opts *d, bool version, const char *arg)
{
	if (version && (!strcmp(arg, "6") || !strcmp(arg, "7")))
		d->version = arg;
	else if (!version && (!strcmp(arg, "zstd") || !strcmp(arg, "zlib") || !strcmp(arg, "none")))
		d->compression = arg;
	else
		usage_error("invalid --%s '%s'", version ? "file-version" : "compression", arg);
}

bool dat_layout_v6(const struct dat_layout_opts *d)
{
	return d->version && !strcmp(d->version, "6");
}

bool dat_layout_zlib(const struct dat_layout_opts *d)
{
	return d->compression && !strcmp(d->compression, "zlib");
}

void writer_option(struct tdat_writer *w, const char *key, const char *value)
{
	if (value && tdat_writer_set_option(w, key, value))
		usage_error("%s", tdat_writer_errmsg(w));
}

void dat_layout_set(struct tdat_writer *w, const struct dat_layout_opts *d)
{
	writer_option(w, "version", d->version);
	writer_option(w, "compression", d->compression);
}

void dat_sections_warning(struct tdat_file *in, const struct dat_layout_opts *d)
{
	const struct tdat_section_info *p;
	int k;

	if (!dat_layout_v6(d) && !(d->compression && !strcmp(d->compression, "none")))
		return;
	p = tdat_file_sections(in, &k);
	for (int j = 0; j < k; j++)
		if (p[j].kind == TDAT_SECTION && (p[j].id == 23 || p[j].id == 25) && !p[j].damage)
			warnx_("%s: its %s section is not written: %s", tdat_file_info(in)->path,
			       p[j].name, dat_layout_v6(d) ? "version 6 has no sections" :
			       "trace-cmd 3.4 reads it only compressed (else not the file at all)");
}

void dat_zlib_warning(const struct dat_layout_opts *d)
{
	if (dat_layout_zlib(d))
		warnx_("--compression zlib: trace-cmd builds without zlib (Debian's 3.1.6 lists only "
		       "zstd in 'trace-cmd list -c') cannot read the file; tdat reads it");
}

uint64_t parse_hz(const char *arg)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || !v || arg[0] < '0' || arg[0] > '9')
		usage_error("invalid --ts2secs '%s' (ticks a second, a whole number above 0)", arg);
	return v;
}

const char *report_style(const char *arg)
{
	const char *env = getenv("TDAT_REPORT_STYLE");
	const char *v = arg ? arg : env && *env ? env : "3.4";

	if (!strcmp(v, "3.4") || !strcmp(v, "3.1"))
		return v;
	if (arg)
		usage_error("invalid --report-style '%s' (3.4 or 3.1: as trace-cmd 3.4 or 3.1.6 "
			    "reports)", arg);
	usage_error("invalid TDAT_REPORT_STYLE '%s' in the environment (3.4 or 3.1: as trace-cmd "
		    "3.4 or 3.1.6 reports)", env);
}

int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > JOBS_DEFAULT_MAX ? JOBS_DEFAULT_MAX : (int)n;
}

int choose_jobs(const struct tdat_writer *w, const struct tdat_merge *m, int jobs)
{
	uint64_t bytes;
	int cpus = default_jobs();

	if (jobs)
		return jobs;
	jobs = tdat_writer_jobs(w, m, cpus, &bytes);
	if (verbose)
		warnx_("-j %d: about %.1f MiB of trace data, a thread more for each 48 MiB%s, at most "
		       "%d (the CPUs); -j N sets it", jobs, (double)bytes / (1 << 20),
		       jobs > tdat_merge_jobs(m, cpus, NULL) ? " and one for the format's own" : "",
		       cpus);
	return jobs;
}

int parse_jobs(const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > JOBS_MAX)
		usage_error("invalid -j '%s' (threads, 1 to %d)", arg, JOBS_MAX);
	return (int)v;
}

uint64_t jobs_window(void)
{
	const char *v = getenv("TDAT_JOBS_WINDOW");
	unsigned long long n;
	char *end;

	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || end == v || *end)
		usage_error("invalid TDAT_JOBS_WINDOW '%s' (bytes)", v);
	return n;
}

/* The unit at @s ("ns", "us", "ms", "s" or none) in ns; 0 if it is none of them. */
static int64_t unit_ns(const char *s)
{
	static const struct { const char *unit; int64_t mul; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }, { "", 1 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(s, units[i].unit))
			return units[i].mul;
	return 0;
}

bool parse_ns(const char *s, int64_t *out)
{
	const char *p = s + (*s == '-' || *s == '+');
	int64_t mul, v = 0, frac = 0, scale = 1;
	int digits = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++)
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *p - '0', &v))
			return false;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (scale > 100000000000000000LL)
				return false;	/* more decimals than any unit has */
			frac = frac * 10 + (*p - '0');
			scale *= 10;
		}
	if (!digits || !(mul = unit_ns(p)) || __builtin_mul_overflow(v, mul, &v))
		return false;
	/* the fraction must come out in whole nanoseconds: 1.5ms yes, 1.5ns no */
	if (frac && ((__int128)frac * mul) % scale)
		return false;
	if (__builtin_add_overflow(v, (int64_t)((__int128)frac * mul / scale), &v))
		return false;
	*out = *s == '-' ? -v : v;
	return true;
}

const char *default_input(void)
{
	struct stat st;

	if (isatty(STDIN_FILENO))
		return "trace.dat";
	if (!fstat(STDIN_FILENO, &st) && (S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode) ||
					  S_ISSOCK(st.st_mode)))
		return "-";
	usage_error("no input file (-i FILE, FILE, or a pipe on standard input)");
}

/*
 * The warnings of each input printed so far: a piece reads its metadata
 * when it is added to a merge (or counted), and may warn then.
 */
static struct printed {
	const struct tdat_file *f;
	int n;
} *printed;
static int nprinted;

static struct printed *printed_of(const struct tdat_file *f)
{
	struct printed *p;

	for (int i = nprinted; i-- > 0;)
		if (printed[i].f == f)
			return &printed[i];
	if (!(p = realloc(printed, sizeof(*p) * (size_t)(nprinted + 1))))
		die_(EXIT_FAIL, "out of memory");
	printed = p;
	printed[nprinted] = (struct printed){ .f = f };
	return &printed[nprinted++];
}

void input_warnings(struct tdat_file *f)
{
	const char *path = tdat_file_info(f)->path;
	struct printed *p = printed_of(f);

	for (; p->n < tdat_file_nwarnings(f); p->n++) {
		warnx_("%s: %s", strcmp(path, "-") ? path : "(stdin)", tdat_file_warning(f, p->n));
		inputs_damaged = true;
	}
}

int merge_input(struct tdat_merge *m, struct tdat_file *f)
{
	int ret = tdat_merge_add(m, f);

	if (ret)
		warnx_("%s", *tdat_merge_errmsg(m) ? tdat_merge_errmsg(m) : tdat_strerror(ret));
	input_warnings(f);
	return ret;
}

struct tdat_file *open_input(const char *path, const struct tdat_open_opts *opts)
{
	struct tdat_file *f = tdat_file_new();
	int ret;

	if (!f)
		die_(EXIT_FAIL, "out of memory");
	ret = tdat_file_open(f, path, opts);
	if (ret) {
		const char *msg = tdat_file_errmsg(f);

		warnx_("%s: %s", strcmp(path, "-") ? path : "(stdin)", *msg ? msg : tdat_strerror(ret));
		tdat_file_free(f);
		return NULL;
	}
	input_warnings(f);
	for (int i = 0; verbose && i < tdat_file_nnotes(f); i++)
		warnx_("%s: note: %s", strcmp(path, "-") ? path : "(stdin)", tdat_file_note(f, i));
	return f;
}

/* The clock of buffer @b of @f ("" when unknown). */
static const char *buffer_clock(struct tdat_file *f, int b)
{
	const char *c = tdat_file_buffer(f, b)->clock;

	return *c ? c : tdat_file_info(f)->clock;
}

void warn_mixed_clocks(struct tdat_file **in, int n)
{
	const char *first = NULL, *fpath = NULL, *fbuf = NULL;

	for (int i = 0; i < n; i++)
		for (int b = 0; b < tdat_file_info(in[i])->nbuffers; b++) {
			const char *c = buffer_clock(in[i], b), *name = tdat_file_buffer(in[i], b)->name;

			if (!*c || tdat_file_buffer(in[i], b)->latency)
				continue;
			if (!first) {
				first = c;
				fpath = tdat_file_info(in[i])->path;
				fbuf = name;
			} else if (strcmp(c, first)) {
				warnx_("%s%s%s uses the %s clock, %s%s%s the %s clock: their timestamps "
				       "are not comparable, and the merged order means little", fpath,
				       *fbuf ? " buffer " : "", fbuf, first, tdat_file_info(in[i])->path,
				       *name ? " buffer " : "", name, c);
				return;
			}
		}
}

/* Whether @f is a piece of the split piece @p belongs to. */
static bool same_split(struct tdat_file *f, const struct tdat_piece *p)
{
	const struct tdat_piece *q = tdat_file_piece(f);

	return q && q->split == p->split && !strcmp(q->name, p->name);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* The pieces of @p's split among @in[@from..@n): gaps in their numbers, said once. */
static void warn_gaps(struct tdat_file **in, int from, int n, const struct tdat_piece *p)
{
	unsigned *seq = malloc(sizeof(*seq) * (size_t)n), count = 0, last, have = 0, first = 0;
	int k = 0;

	if (!seq)
		die_(EXIT_FAIL, "out of memory");
	for (int j = from; j < n; j++) {
		if (!same_split(in[j], p))
			continue;
		seq[k++] = tdat_file_piece(in[j])->seq;
		count = tdat_file_piece(in[j])->count ? tdat_file_piece(in[j])->count : count;
	}
	qsort(seq, (size_t)k, sizeof(*seq), cmp_uint);
	last = count ? count : seq[k - 1];
	for (int j = 0; j < k; j++) {
		if (j && seq[j] == seq[j - 1])
			continue;
		if (!first && seq[j] != have + 1)
			first = have + 1;
		have++;
	}
	if (!first && have < last)
		first = have + 1;
	if (have < last)
		warnx_("%s: %u of the %s%u pieces of its split of %s (the first: piece %u) %s not "
		       "among the inputs: their events are missing", tdat_file_info(in[from])->path,
		       last - have, count ? "" : "first ", last, p->name, first,
		       last - have == 1 ? "is" : "are");
	free(seq);
}

/* @in[@i], the first piece of its split, and an earlier split of the same file among @in. */
static void warn_two_splits(struct tdat_file **in, int i, const struct tdat_piece *p)
{
	for (int j = 0; p->source && j < i; j++) {
		const struct tdat_piece *q = tdat_file_piece(in[j]);

		if (q && q->source == p->source && q->split != p->split) {
			warnx_("%s and %s are pieces of two different splits of %s (%s and %s): "
			       "read together, their events would count twice",
			       tdat_file_info(in[j])->path, tdat_file_info(in[i])->path, p->name,
			       *q->how ? q->how : "one split", *p->how ? p->how : "another");
			return;
		}
	}
}

void warn_missing_pieces(struct tdat_file **in, int n)
{
	for (int i = 0; i < n; i++) {
		const struct tdat_piece *p = tdat_file_piece(in[i]);
		bool seen_before = false;

		for (int j = 0; p && j < i; j++)
			seen_before |= same_split(in[j], p);
		if (p && !seen_before) {
			warn_two_splits(in, i, p);
			warn_gaps(in, i, n, p);
		}
	}
}

/* One damaged region of @f: what, where, and how much was skipped. */
static uint64_t warn_region(struct tdat_file *f, const struct tdat_damage *d)
{
	const struct tdat_buffer_info *b = tdat_file_buffer(f, d->buffer);

	warnx_("%s: %s (offset %llu, cpu %d%s%s%s): %llu bytes skipped",
	       d->path ? d->path : tdat_file_info(f)->path, d->reason, (unsigned long long)d->offset,
	       d->cpu, b->name[0] ? ", buffer \"" : "", b->name, b->name[0] ? "\"" : "",
	       (unsigned long long)d->bytes);
	return d->bytes;
}

static void warn_total(int n, uint64_t bytes)
{
	if (n)
		warnx_("damaged input: %d region%s, %llu bytes skipped; the events around them were recovered",
		       n, n == 1 ? "" : "s", (unsigned long long)bytes);
}

int report_damage(struct tdat_merge *m)
{
	int n;
	const struct tdat_damage *d = tdat_merge_damage(m, &n);
	uint64_t bytes = 0;

	for (int i = 0; i < n; i++)
		bytes += warn_region(tdat_merge_file(m, d[i].input), &d[i]);
	warn_total(n, bytes);
	return n + inputs_damaged;
}

int report_stats_damage(struct tdat_file *f, const struct tdat_stats *s)
{
	uint64_t bytes = 0;

	for (int i = 0; i < s->ndamage; i++)
		bytes += warn_region(f, &s->damage[i]);
	warn_total(s->ndamage, bytes);
	return s->ndamage;
}

int damage_status(bool damaged)
{
	return damaged && !lenient ? EXIT_FAIL : EXIT_OK;
}

/* ---- selection ---- */

bool parse_time(const char *s, int64_t *ns, bool *relative)
{
	const char *p = s + (*s == '+');
	char buf[64];

	*relative = *s == '+';
	if (*p == '-' || *p == '+')
		return false;
	if (strpbrk(p, "nums"))
		return parse_ns(p, ns);
	/* a bare number is seconds, as trace-cmd prints them (468.873643) */
	if (snprintf(buf, sizeof(buf), "%ss", p) >= (int)sizeof(buf))
		return false;
	return parse_ns(buf, ns);
}

/* The selection options that take a list or glob, by name (an empty one is a mistake). */
static const char *list_option(int c)
{
	switch (c) {
	case 'e': return "--event";
	case OPT_SEL_CPU: return "--cpu";
	case OPT_SEL_PID: return "--pid";
	case OPT_SEL_COMM: return "--comm";
	}
	return NULL;
}

/* The --start and --end arguments as given, for messages. */
static const char *window_arg[2];

const char *select_option_name(int c)
{
	switch (c) {
	case 'e': return "-e";
	case 'F': return "-F";
	case 'v': return "-v";
	case 'B': return "-B";
	case OPT_SEL_TOP: return "--top";
	case OPT_SEL_CPU: return "--cpu";
	case OPT_SEL_PID: return "--pid";
	case OPT_SEL_COMM: return "--comm";
	case OPT_SEL_START: return "--start";
	case OPT_SEL_END: return "--end";
	}
	return NULL;
}

bool select_option(struct tdat_select **s, int c, const char *arg)
{
	static bool negative;
	bool ours = c == 'e' || c == 'F' || c == 'v' || c == 'B' ||
		    (c >= OPT_SEL_CPU && c <= OPT_SEL_END);
	int64_t ns;
	bool rel;
	int ret = 0;

	if (!ours)
		return false;
	/* an unset shell variable: neither everything nor nothing is what was meant */
	if (arg && !*arg && list_option(c))
		usage_error("%s needs a value, not an empty string", list_option(c));
	if (!*s && !(*s = tdat_select_new()))
		die_(EXIT_FAIL, "out of memory");
	switch (c) {
	case 'e': ret = tdat_select_event(*s, arg); break;
	case 'F': ret = tdat_select_filter(*s, arg, negative); break;
	case 'v': negative = true; break;
	case 'B': ret = tdat_select_buffer(*s, arg); break;
	case OPT_SEL_TOP: ret = tdat_select_buffer(*s, ""); break;
	case OPT_SEL_CPU: ret = tdat_select_cpus(*s, arg); break;
	case OPT_SEL_PID: ret = tdat_select_pids(*s, arg); break;
	case OPT_SEL_COMM: ret = tdat_select_comm(*s, arg); break;
	case OPT_SEL_START:
	case OPT_SEL_END:
		if (!parse_time(arg, &ns, &rel))
			usage_error("invalid time '%s' (e.g. 468.873643, 250ms, +2s)", arg);
		ret = tdat_select_window(*s, c == OPT_SEL_END, ns, rel);
		window_arg[c == OPT_SEL_END] = arg;
		break;
	}
	if (ret == TDAT_EINVAL && (c == OPT_SEL_CPU || c == OPT_SEL_PID))
		usage_error("%s: %s", list_option(c), tdat_select_errmsg(*s));
	if (ret == TDAT_EINVAL)
		usage_error("%s", tdat_select_errmsg(*s));
	if (ret)
		die_(EXIT_FAIL, "out of memory");
	return true;
}

/*
 * A time as the text output prints it: seconds with 6 decimals for ns
 * clocks (with @exact, up to 9 where the ns matter), else clock units.
 */
static const char *show_ts(char *buf, size_t len, int64_t ts, bool in_ns, bool exact)
{
	uint64_t a = ts < 0 ? (uint64_t)0 - (uint64_t)ts : (uint64_t)ts;
	int digits = 6;

	if (!in_ns) {
		snprintf(buf, len, "%lld", (long long)ts);
		return buf;
	}
	while (exact && digits < 9 && a % 1000 % (digits == 6 ? 1000 : digits == 7 ? 100 : 10))
		digits++;
	snprintf(buf, len, "%s%llu.%09llu", ts < 0 ? "-" : "", (unsigned long long)(a / 1000000000),
		 (unsigned long long)(a % 1000000000));
	buf[strlen(buf) - (size_t)(9 - digits)] = '\0';
	return buf;
}

/* The window missed the trace: before or after it, or between its events. */
static void warn_window(const struct tdat_select_empty *e, bool in_ns)
{
	char a[40], b[40], c[40];

	show_ts(b, sizeof(b), (int64_t)e->first, in_ns, false);
	show_ts(c, sizeof(c), (int64_t)e->last, in_ns, false);
	if (e->has_end && e->end < (int64_t)e->first)
		warnx_("no event selected: the window ends at %s, before the trace starts (it spans "
		       "%s .. %s)%s%s%s", show_ts(a, sizeof(a), e->end, in_ns, true), b, c,
		       window_arg[1] && *window_arg[1] != '+' ? "; --end +" : "",
		       window_arg[1] && *window_arg[1] != '+' ? window_arg[1] : "",
		       window_arg[1] && *window_arg[1] != '+' ? " counts from its first event" : "");
	else if (e->has_start && e->start > (int64_t)e->last)
		warnx_("no event selected: the window starts at %s, after the trace ends (it spans "
		       "%s .. %s)", show_ts(a, sizeof(a), e->start, in_ns, true), b, c);
	else
		warnx_("no event selected: no event lies in the time window (the trace spans %s .. %s)",
		       b, c);
}

void warn_empty_selection(struct tdat_select *s, struct tdat_merge *m)
{
	static const char *const why[TDAT_SEL_NCRITERIA] = {
		[TDAT_SEL_BUFFER] = "the buffers selected (-B, --top) hold no event",
		[TDAT_SEL_CPU] = "the CPUs selected (--cpu) have no event",
		[TDAT_SEL_EVENT] = "no event of the types selected (-e) occurs in the trace",
		[TDAT_SEL_TASK] = "the tasks selected (--pid, --comm) have no event in the trace",
		[TDAT_SEL_FILTER] = "no event matches the filters (-F)",
	};
	struct tdat_select_empty e;

	if (tdat_select_why_empty(s, m, &e)) {
		warnx_("no event selected");
		return;
	}
	if (e.no_events)
		warnx_("no event selected: the input holds no event");
	else if (e.criterion == TDAT_SEL_WINDOW)
		warn_window(&e, tdat_file_info(tdat_merge_file(m, 0))->in_usecs);
	else if (e.criterion >= 0)
		warnx_("no event selected: %s", why[e.criterion]);
	else
		warnx_("no event selected: each part of the selection keeps some event, but no event "
		       "passes all of them");
}

/* ---- progress ---- */

static int progress_on, progress_forced;
static double progress_t0, progress_last;
static uint64_t progress_events;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_start(int mode)
{
	progress_on = mode < 0 ? isatty(STDERR_FILENO) : mode;
	progress_forced = mode > 0;
	progress_t0 = progress_last = now();
}

void progress_tick(struct tdat_merge *m, uint64_t events)
{
	uint64_t done, total, prev = progress_events;
	double t, pct, rate, left;

	progress_events = events;
	/* every 65536 events, however many come at a time */
	if (!progress_on || (events >> 16) == (prev >> 16))
		return;
	t = now();
	/* auto mode stays quiet for short runs */
	if (t - progress_last < 0.5 || t - progress_t0 < 1.0)
		return;
	progress_last = t;
	tdat_merge_progress(m, &done, &total);
	pct = total ? 100.0 * (double)done / (double)total : 100.0;
	rate = (double)events / (t - progress_t0);
	left = pct > 0 ? (t - progress_t0) * (100.0 - pct) / pct : 0;
	fprintf(stderr, "\r%s: %5.1f%%  %.0f events/s  %.0f s left ", progname, pct, rate, left);
}

/* Clear the progress line on a terminal; with --progress, end with a summary. */
void progress_end(void)
{
	double t = now() - progress_t0;

	if (progress_on && progress_last > progress_t0 && isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	else if (progress_on && progress_last > progress_t0)
		fputc('\n', stderr);
	if (progress_forced)
		fprintf(stderr, "%s: 100.0%%  %llu events in %.2f s (%.0f events/s)\n", progname,
			(unsigned long long)progress_events, t, t > 0 ? (double)progress_events / t : 0.0);
}
