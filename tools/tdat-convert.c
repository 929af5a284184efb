/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-convert - convert trace.dat files into text (as `trace-cmd report`
 * prints them), CSV, JSON, SQLite or a new trace.dat.  Several inputs are
 * merged on one timeline.  A thin main() over libfmt: open inputs, merge,
 * write, report damage.
 *
 * Built a second time as tdat-filter and a third as tdat-merge (TOOL_MERGE):
 * the same tool whose output is, unless -f says otherwise, a trace.dat of
 * the selected events, so that it can sit in the middle of a pipeline.
 * With several inputs, a trace.dat output keeps each input's buffers apart
 * under the input's name (--name).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#if defined(TOOL_MERGE)
#define DEFAULT_FORMAT "dat"
#define SUMMARY "Merge trace.dat files (\"-\" reads standard input) into one: the selected\n" \
	"events of all inputs, each input's buffers named after it, as a trace.dat\n" \
	"unless -f or -o's extension says otherwise."
#elif defined(DEFAULT_FORMAT)
#define SUMMARY "Filter trace.dat files (\"-\" reads standard input): the selected events,\n" \
	"as a trace.dat unless -f or -o's extension says otherwise."
#else
#define DEFAULT_FORMAT "text"
#define SUMMARY "Convert trace.dat files (\"-\" reads standard input): the selected events,\n" \
	"as text unless -f or -o's extension says otherwise."
#endif

struct opts {
	const char *format;
	const char *out;
	bool nsec, raw, split;	/* -t, -R, --split-by-event: text's and csv's options */
	bool gzip;		/* -o NAME.gz: TDAT_W_GZIP */
	struct dat_layout_opts dat;	/* --file-version, --compression */
	const char *level_key;	/* --compression-level's option: "compression-level" or "gzip-level" */
	int progress;
	struct tdat_open_opts open;
	char **offsets;		/* FILE=NS entries of --ts-offset */
	int noffsets;
	char **names;		/* FILE=NAME entries of --name */
	int nnames;
	bool align;		/* --align: every input starts at 0 */
	struct tdat_select *sel;	/* NULL: every event */
	bool dat_opts;		/* --file-version or --compression given */
	bool version_opt;	/* --file-version given */
	bool zstd_opt;		/* --compression zstd given (the last one) */
	const char *level;	/* --compression-level N */
	char **inputs;		/* -i FILE, then the arguments */
	int ninputs;
	int jobs;		/* -j: threads; 0 until choose_jobs() */
	const char *style;	/* --report-style, NULL: $TDAT_REPORT_STYLE or 3.4 */
};

static __attribute__((noreturn)) void usage(FILE *fp, int code)
{
	fprintf(fp,
		"Usage: %s [-NRt] [-j N] [-f FORMAT] [-o OUT] [--split-by-event] [--raw-ts] [--ts2secs HZ]\n"
		"       [--report-style 3.4|3.1] [--file-version 6|7] [--compression zstd|zlib|none]\n"
		"       [--compression-level N]\n"
		"       [--ts-offset [FILE=]NS] [--align] [--name FILE=NAME] [--lenient]\n"
		"       [--progress | --no-progress] [--verbose] [SELECTION] [-i FILE]... [FILE...]\n"
		SUMMARY "\n"
		"Events of all CPUs, buffers and files are merged by timestamp; the pieces of\n"
		"one tdat-split merge back into the file they came from.  With no FILE:\n"
		"standard input when it is a pipe or a file, ./trace.dat when it is a terminal.\n\n"
		"  -f, --format FORMAT   text (as trace-cmd report), csv, json, sqlite, perfetto,\n"
		"                        parquet, dat; default from -o's extension (.txt, .csv,\n"
		"                        ...; .gz gzips), else %s\n"
		"  -o, --output OUT      output file (default: standard output)\n"
		"  -i, --input FILE      an input (repeatable), as trace-cmd report -i\n"
		"  -j, --jobs N          threads (default: 1, and 1 more for each 48 MiB of trace data\n"
		"                        and from 4 MiB for sqlite's inserting thread, up to the\n"
		"                        CPUs, at most 8; --verbose says): N workers each\n"
		"                        decode, select and format a time window of the input\n"
		"                        (text and csv printed, json's fields formatted, the other\n"
		"                        formats' events decoded), written in order; parquet's\n"
		"                        column chunks encoded and a gzipped output (-o NAME.gz)\n"
		"                        deflated on N too; the same bytes for any N\n"
		"      --split-by-event  csv: one typed file per event type in the directory -o\n"
		"      --file-version 6|7  dat: trace.dat version (default 7)\n"
		"      --compression zstd|zlib|none  dat: v7 compression (default zstd);\n"
		"                                    perfetto: zlib deflates the packets\n"
		"      --compression-level N  parquet: zstd level, 1 (fastest) to 22 (default 3);\n"
		"                        -o NAME.gz: deflate level, 1 to 12 (default 6)\n"
		"  -t, --nsec            text: full nanosecond timestamps (trace-cmd report -t)\n"
		"  -R, --raw             text: every field as name=value, not as the event's print\n"
		"                        format says (trace-cmd report -R)\n"
		REPORT_STYLE_USAGE
		"      --raw-ts          no timestamp corrections (OFFSET, DATE, TSC2NSEC, TIME_SHIFT)\n"
		"      --ts2secs HZ      the clock counts HZ ticks a second: timestamps become ns\n"
		"                        (trace-cmd report --ts2secs), in every format\n"
		"      --ts-offset [FILE=]NS  add NS (units ns, us, ms, s) to every timestamp of\n"
		"                        FILE, or of all inputs\n"
		"      --align           shift each input so that its first event is at 0\n"
		"                        (before --ts-offset)\n"
		"      --name FILE=NAME  dat, several inputs: FILE's buffers become NAME and\n"
		"                        NAME:INSTANCE (default: FILE's base name without .dat)\n"
		"  -N, --no-plugins      do not load libtraceevent print plugins\n"
		"      --progress        show progress on stderr (default: when stderr is a terminal)\n"
		"      --no-progress     never show progress\n"
		LENIENT_USAGE
		VERBOSE_USAGE
		"  -h, --help            show this help\n"
		"  -V, --version         show the version\n"
		SELECT_USAGE "\n"
		"Exit status: 0 ok, 1 failure or damaged input (what could be read is written;\n"
		"0 with --lenient), 2 usage error.\n", progname, DEFAULT_FORMAT);
	exit(code);
}

enum { OPT_RAW_TS = 256, OPT_TS_OFFSET, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_SPLIT,
       OPT_FILE_VERSION, OPT_COMPRESSION, OPT_ALIGN, OPT_NAME, OPT_TS2SECS, OPT_LEVEL, OPT_STYLE };

static const struct option longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "input", required_argument, NULL, 'i' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "nsec", no_argument, NULL, 't' },
	{ "raw", no_argument, NULL, 'R' },
	{ "raw-ts", no_argument, NULL, OPT_RAW_TS },
	{ "report-style", required_argument, NULL, OPT_STYLE },
	{ "ts2secs", required_argument, NULL, OPT_TS2SECS },
	{ "ts-offset", required_argument, NULL, OPT_TS_OFFSET },
	{ "align", no_argument, NULL, OPT_ALIGN },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "no-plugins", no_argument, NULL, 'N' },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "split-by-event", no_argument, NULL, OPT_SPLIT },
	{ "file-version", required_argument, NULL, OPT_FILE_VERSION },
	{ "compression", required_argument, NULL, OPT_COMPRESSION },
	{ "compression-level", required_argument, NULL, OPT_LEVEL },
	SELECT_LONGOPTS,
	LENIENT_LONGOPT,
	VERBOSE_LONGOPT,
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void push_arg(char ***list, int *n, char *arg)
{
	*list = realloc(*list, sizeof(char *) * (size_t)(*n + 1));
	if (!*list)
		die_(EXIT_FAIL, "out of memory");
	(*list)[(*n)++] = arg;
}

/*
 * The option --compression-level @arg sets: -f parquet's "compression-level",
 * zstd's 1 to 22; a gzipped output's "gzip-level", deflate's 1 to 12.  A bad
 * one exits 2.
 */
static const char *level_option(const char *arg, const char *format, bool gz)
{
	int max = gz ? TDAT_GZIP_LEVEL_MAX : TDAT_ZSTD_LEVEL_MAX;
	char *end;
	long v;

	if (strcmp(format, "parquet") && !gz)
		usage_error("--compression-level needs -f parquet or a gzipped output (-o NAME.gz)");
	v = strtol(arg, &end, 10);
	if (end == arg || *end || v < 1 || v > max)
		usage_error("invalid --compression-level '%s' (%s: 1 to %d)", arg,
			    gz ? "gzip" : "zstd", max);
	return gz ? "gzip-level" : "compression-level";
}

/*
 * The format -o's name implies (.gz looked through), NULL for a name with
 * no extension (the default format); an extension of no format is a usage
 * error, so that "-o t.DB" does not quietly write text.
 */
static const char *format_of_output(const char *out)
{
	const char *base = strrchr(out, '/') ? strrchr(out, '/') + 1 : out, *f;
	size_t len = strlen(base), dot;

	if ((f = tdat_format_from_path(out)))
		return f;
	if (len > 3 && !strcmp(base + len - 3, ".gz"))
		len -= 3;
	for (dot = len; dot > 1 && base[dot - 1] != '.'; dot--)
		;
	if (dot <= 1)	/* no extension (or only a hidden file's dot) */
		return NULL;
	if (!strncmp(base + dot, "parquet", len - dot) && len - dot == 7)
		usage_error("-o %s: Parquet output is a folder (a dataset of files, one per table): "
			    "-f parquet -o %.*s", out, (int)(base - out) + (int)dot - 1, out);
	usage_error("-o %s: '.%.*s' is the extension of no format; name the format with -f (%s)",
		    out, (int)(len - dot), base + dot, tdat_format_names());
}

/*
 * The value of the last FILE=VALUE entry of @list whose FILE is input @i
 * (by identity: the same file through any path), else NULL.
 */
static const char *value_for(const struct opts *o, char **list, int n, int i)
{
	const char *v = NULL;

	for (int k = 0; k < n; k++) {
		const char *eq = strrchr(list[k], '=');
		char *file;

		if (!eq)
			continue;
		if (!(file = strndup(list[k], (size_t)(eq - list[k]))))
			die_(EXIT_FAIL, "out of memory");
		if (input_named(o->inputs, o->ninputs, file) == i)
			v = eq + 1;
		free(file);
	}
	return v;
}

/* Every FILE of FILE=VALUE entries (@opt: --ts-offset, --name) must be an input. */
static void check_files(const struct opts *o, char **list, int n, const char *opt)
{
	for (int k = 0; k < n; k++) {
		const char *eq = strrchr(list[k], '=');
		char *file;

		if (!eq)
			continue;
		if (!(file = strndup(list[k], (size_t)(eq - list[k]))))
			die_(EXIT_FAIL, "out of memory");
		if (input_named(o->inputs, o->ninputs, file) < 0)
			usage_error("%s %s: %s is not one of the inputs", opt, list[k],
				    *file ? file : "(empty)");
		free(file);
	}
}

/* The --ts-offset for input @i: the last FILE=NS naming it, else the last bare NS. */
static int64_t offset_for(const struct opts *o, int i)
{
	const char *named = value_for(o, o->offsets, o->noffsets, i);
	int64_t v = 0, all = 0;

	for (int k = 0; k < o->noffsets; k++) {
		const char *eq = strrchr(o->offsets[k], '=');

		if (!parse_ns(eq ? eq + 1 : o->offsets[k], &v))
			usage_error("invalid --ts-offset '%s'", o->offsets[k]);
		if (!eq)
			all = v;
	}
	if (named)
		parse_ns(named, &v);
	return named ? v : all;
}

static void parse_args(struct opts *o, int argc, char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, "f:o:i:j:NtRhV" SELECT_SHORTOPTS, longopts, NULL)) != -1) {
		if (select_option(&o->sel, c, optarg))
			continue;
		switch (c) {
		case 'f': o->format = optarg; break;
		case 'o': o->out = optarg; break;
		case 't': o->nsec = true; break;
		case 'R': o->raw = true; break;
		case OPT_TS2SECS: o->open.ts2secs_hz = parse_hz(optarg); break;
		case OPT_RAW_TS: o->open.flags |= TDAT_OPEN_RAW_TS; break;
		case OPT_STYLE: o->style = optarg; report_style(optarg); break;
		case 'N': o->open.flags |= TDAT_OPEN_NO_PLUGINS; break;
		case 'i': push_arg(&o->inputs, &o->ninputs, optarg); break;
		case 'j': o->jobs = parse_jobs(optarg); break;
		case OPT_PROGRESS: o->progress = 1; break;
		case OPT_NO_PROGRESS: o->progress = 0; break;
		case OPT_SPLIT: o->split = true; break;
		case OPT_LENIENT: lenient = true; break;
		case OPT_VERBOSE: verbose = true; break;
		case OPT_FILE_VERSION: case OPT_COMPRESSION:
			dat_layout_option(&o->dat, c == OPT_FILE_VERSION, optarg);
			o->dat_opts = true;
			o->version_opt |= c == OPT_FILE_VERSION;
			if (c == OPT_COMPRESSION)
				o->zstd_opt = !strcmp(optarg, "zstd");
			break;
		case OPT_LEVEL: o->level = optarg; break;
		case OPT_TS_OFFSET: push_arg(&o->offsets, &o->noffsets, optarg); break;
		case OPT_ALIGN: o->align = true; break;
		case OPT_NAME:
			if (!strchr(optarg, '=') || !strrchr(optarg, '=')[1])
				usage_error("invalid --name '%s' (FILE=NAME)", optarg);
			push_arg(&o->names, &o->nnames, optarg);
			break;
		case 'h': usage(stdout, EXIT_OK);
		case 'V': print_version();
		default: fprintf(stderr, "Try '%s --help' for more information.\n", progname);
			 exit(EXIT_USAGE);
		}
	}
	if (!o->format)
		o->format = o->out && !o->split ? format_of_output(o->out) : NULL;
	if (!o->format)
		o->format = o->split ? "csv" : DEFAULT_FORMAT;
	if (tdat_format_output(o->format) < 0)
		usage_error("unknown format '%s' (one of: %s)", o->format, tdat_format_names());
	if (o->split && strcmp(o->format, "csv"))
		usage_error("--split-by-event needs -f csv");
	/* an option that would change nothing in the output asked for is refused, never ignored */
	if (o->raw && strcmp(o->format, "text"))
		usage_error("-R (--raw) needs -f text");
	if (o->nsec && strcmp(o->format, "text"))
		usage_error("-t (--nsec) needs -f text (the other formats keep every nanosecond)");
	if (o->style && strcmp(o->format, "text"))
		usage_error("--report-style needs -f text");
	if (!strcmp(o->format, "text"))
		o->style = report_style(o->style);
	if (o->dat_opts && !strcmp(o->format, "perfetto")) {
		if (o->version_opt)
			usage_error("--file-version needs -f dat");
		if (o->zstd_opt)
			usage_error("-f perfetto: --compression zlib or none (Perfetto's readers "
				    "inflate zlib packets only)");
	} else if (o->dat_opts && strcmp(o->format, "dat")) {
		usage_error("--file-version and --compression need -f dat "
			    "(--compression zlib or none: -f perfetto too)");
	}
	if (!strcmp(o->format, "dat"))
		dat_zlib_warning(&o->dat);
	if (dat_layout_v6(&o->dat) && dat_layout_zlib(&o->dat))
		usage_error("trace.dat version 6 is not compressed");
	if (o->out && !o->split && strlen(o->out) > 3 && !strcmp(o->out + strlen(o->out) - 3, ".gz"))
		o->gzip = true;
	if (o->gzip && tdat_format_output(o->format) != TDAT_OUT_STREAM)
		usage_error("-o %s: %s output is a database or a directory; it cannot be gzipped",
			    o->out, o->format);
	if (o->level)
		o->level_key = level_option(o->level, o->format, o->gzip);
	for (int i = optind; i < argc; i++)
		push_arg(&o->inputs, &o->ninputs, argv[i]);
	if (!o->ninputs)
		push_arg(&o->inputs, &o->ninputs, (char *)default_input());
	if (o->nnames && o->ninputs < 2)
		usage_error("--name %s: with one input there is nothing to tell apart "
			    "(--name names each input's buffers among several)", o->names[0]);
	refuse_duplicate_inputs(o->inputs, o->ninputs);
	refuse_input_as_output("-o", o->out, o->inputs, o->ninputs);
	check_files(o, o->offsets, o->noffsets, "--ts-offset");
	check_files(o, o->names, o->nnames, "--name");
}

/*
 * The time of the first event of input @i, or of the whole file it is a
 * piece of (its split's pieces among @in); TDAT_END if there is none.
 */
static int first_event(struct tdat_file **in, int n, int i, uint64_t *first)
{
	const struct tdat_piece *p = tdat_file_piece(in[i]), *q;
	struct tdat_merge *one = tdat_merge_new();
	int ret;

	if (!one)
		die_(EXIT_FAIL, "out of memory");
	ret = tdat_merge_add(one, in[i]);
	for (int j = 0; j < n && !ret && p; j++)
		if (j != i && (q = tdat_file_piece(in[j])) && q->split == p->split &&
		    !strcmp(q->name, p->name))
			ret = tdat_merge_add(one, in[j]);
	if (!ret)
		ret = tdat_merge_first_ts(one, first);
	if (ret < 0)
		warnx_("%s: %s", tdat_file_info(in[i])->path,
		       *tdat_merge_errmsg(one) ? tdat_merge_errmsg(one) : tdat_strerror(ret));
	tdat_merge_free(one);
	return ret;
}

/*
 * --align: move each input's first event to 0 (then its --ts-offset is
 * added); the pieces of one split move together, as the file they were cut
 * from.  All first times are found before any input is moved.
 */
static int align_inputs(const struct opts *o, struct tdat_file **in, int n)
{
	uint64_t *first = calloc((size_t)n, sizeof(*first));
	int *has = calloc((size_t)n, sizeof(*has)), ret = 0;

	if (!first || !has)
		die_(EXIT_FAIL, "out of memory");
	for (int i = 0; i < n && !ret; i++) {
		ret = first_event(in, n, i, &first[i]);
		has[i] = ret == 0;
		ret = ret == TDAT_END ? 0 : ret;
	}
	for (int i = 0; i < n && !ret; i++) {
		int64_t user = offset_for(o, i);

		if (has[i])
			tdat_file_set_ts_offset(in[i], user - (int64_t)(first[i] - (uint64_t)user));
	}
	free(first);
	free(has);
	return ret ? -1 : 0;
}

/* Latency (text) buffers have no events: only -f text prints them. */
static void warn_latency(const struct opts *o, struct tdat_file **in, int n)
{
	for (int i = 0; i < n && strcmp(o->format, "text"); i++) {
		for (int b = 0; b < tdat_file_info(in[i])->nbuffers; b++) {
			const struct tdat_buffer_info *bi = tdat_file_buffer(in[i], b);

			if (bi->latency)
				warnx_("%s: buffer \"%s\" is a latency trace (text); only -f text prints it",
				       tdat_file_info(in[i])->path, bi->name);
		}
	}
}

/* CPU time of this thread (@thread) or of the whole process, in seconds. */
static double cpu_s(bool thread)
{
	struct timespec t;

	if (clock_gettime(thread ? CLOCK_THREAD_CPUTIME_ID : CLOCK_PROCESS_CPUTIME_ID, &t))
		return 0;
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* --verbose: how the -j workers shared the timeline. */
static void note_windows(const struct opts *o, const struct tdat_run *r)
{
	warnx_("-j %d: %llu time window%s read by the workers", o->jobs,
	       (unsigned long long)r->windows, r->windows == 1 ? "" : "s");
	if (r->alone)
		warnx_("-j %d: from event %llu on, read on one thread (times that go back across "
		       "a cut, or a worker that could not go on)", o->jobs,
		       (unsigned long long)r->alone);
}

/*
 * --verbose, once the writer is freed (its threads ended), if the run had
 * threads besides this one: the CPU the run and the close took on this
 * thread (which puts the windows in order: what more workers cannot share)
 * against all of it, @cpu the two before the run, and what the library's
 * threads of each kind took (the sqlite format's one inserting thread
 * cannot be shared either).
 */
static void note_cpu(const struct opts *o, const struct tdat_run *r, const double cpu[2])
{
	double mine = cpu_s(true) - cpu[0], all = cpu_s(false) - cpu[1];
	struct tdat_thread_cpu c[TDAT_THREAD_KINDS];
	bool threads = r->windows > 0;

	for (int k = 0; k < TDAT_THREAD_KINDS; k++) {
		tdat_thread_cpu(k, &c[k]);
		threads |= c[k].threads > 0;
	}
	if (!threads)		/* all of it on this thread */
		return;
	warnx_("-j %d: CPU: %.2f s on %s, %.2f s in all", o->jobs, mine,
	       r->windows ? "the thread that puts the windows in order" : "the caller's thread", all);
	for (int k = 0; k < TDAT_THREAD_KINDS; k++)
		if (c[k].threads)
			warnx_("-j %d: CPU: %.2f s on %u %s thread%s, the busiest %.2f s", o->jobs,
			       c[k].seconds, c[k].threads, tdat_thread_name(k),
			       c[k].threads == 1 ? "" : "s", c[k].max);
}

static void tick(void *m, uint64_t events)
{
	progress_tick(m, events);
}

/*
 * The options of @o as @w's format's (tdat_writer_set_option()): parse_args()
 * let only those of the format through; a NULL value sets nothing.
 */
static void set_options(const struct opts *o, struct tdat_writer *w)
{
	writer_option(w, "nsec", o->nsec ? "1" : NULL);
	writer_option(w, "raw", o->raw ? "1" : NULL);
	writer_option(w, "style", o->style);
	writer_option(w, "split", o->split ? "1" : NULL);
	dat_layout_set(w, &o->dat);
	writer_option(w, o->level_key, o->level);
}

static int run(struct opts *o, int n, struct tdat_merge *m, struct tdat_file **in)
{
	struct tdat_writer *w = tdat_writer_new(o->format);
	struct tdat_run r = { .tick = tick, .arg = m };
	struct tool_out out;
	int ret, bound, unprinted, kind;
	double cpu[2];

	if (!w)
		die_(EXIT_FAIL, "out of memory");
	set_options(o, w);
	kind = tdat_writer_output(w);
	o->jobs = choose_jobs(w, m, o->jobs);
	if (tdat_merge_set_jobs(m, o->jobs))
		die_(EXIT_FAIL, "out of memory");
	tdat_writer_set_jobs(w, o->jobs);
	tdat_writer_set_window(w, jobs_window());
	if (out_open(&out, o->out, kind, o->gzip || !strcmp(o->format, "dat") ||
		     !strcmp(o->format, "perfetto"))) {
		tdat_writer_free(w);
		return EXIT_FAIL;
	}
	warn_latency(o, in, n);
	ret = tdat_writer_open(w, out.fd, kind == TDAT_OUT_STREAM ? NULL : out.tmp, m,
			       o->gzip ? TDAT_W_GZIP : 0);
	if (!ret && o->sel && (bound = tdat_select_bind(o->sel, m))) {
		warnx_("%s", tdat_select_errmsg(o->sel));
		tdat_writer_free(w);
		out_abort(&out);
		return bound == TDAT_EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}
	progress_start(o->progress);
	if (!ret && !o->sel) {	/* whole pages where the format can: then done */
		ret = tdat_writer_copy(w);
		ret = ret == TDAT_EUNSUPP ? 0 : ret ? ret : TDAT_END;
	}
	cpu[0] = cpu_s(true);
	cpu[1] = cpu_s(false);
	if (!ret)
		ret = tdat_writer_run(w, o->sel, &r);
	if (verbose && (r.windows || r.alone))
		note_windows(o, &r);
	progress_end();
	if (ret == TDAT_END && o->sel && !r.kept)
		warn_empty_selection(o->sel, m);
	if (ret < 0 && !*tdat_writer_errmsg(w))
		warnx_("%s", *tdat_merge_errmsg(m) ? tdat_merge_errmsg(m) : tdat_strerror(ret));
	if (tdat_writer_close(w) && ret >= 0)
		ret = TDAT_EIO;
	check_pipe(tdat_writer_errno(w));
	if (*tdat_writer_errmsg(w))
		warnx_("%s: %s", o->out ? o->out : "standard output", tdat_writer_errmsg(w));
	if (*tdat_writer_warning(w))
		warnx_("%s", tdat_writer_warning(w));
	unprinted = *tdat_writer_warning(w) != '\0';
	for (int i = 0; i < tdat_writer_nnotices(w); i++)
		warnx_("%s", tdat_writer_notice(w, i));	/* not damage: the exit status stays */
	tdat_writer_free(w);
	for (int i = 0; i < n; i++)	/* met while read again (a dataset's statistics) */
		input_warnings(in[i]);
	if (verbose)
		note_cpu(o, &r, cpu);
	if (ret >= 0 && kind == TDAT_OUT_DIR && out_mark(out.tmp, o->format))
		ret = TDAT_EIO;
	if (ret < 0) {
		out_abort(&out);
		return EXIT_FAIL;
	}
	if (out_commit(&out))
		return EXIT_FAIL;
	return damage_status(report_damage(m) + unprinted);
}

int main(int argc, char **argv)
{
	struct opts o = { .progress = -1 };
	struct tdat_file **in;
	struct tdat_merge *m;
	int n, ret = EXIT_FAIL;

	tool_init(argv);
	parse_args(&o, argc, argv);
	argv = o.inputs;
	n = o.ninputs;
	in = calloc((size_t)n, sizeof(*in));
	m = tdat_merge_new();
	if (!in || !m)
		die_(EXIT_FAIL, "out of memory");
	/*
	 * Each input is added as soon as it is open (a piece of a split then
	 * shares the first piece's metadata at once: thousands cost little),
	 * unless --align needs them all open first.
	 */
	for (int i = 0; i < n; i++) {
		struct tdat_open_opts oo = o.open;
		const char *name = value_for(&o, o.names, o.nnames, i);
		int err;

		oo.ts_offset = offset_for(&o, i);
		if (!(in[i] = open_input(argv[i], &oo)))
			goto out;
		if (name && tdat_file_set_name(in[i], name))
			die_(EXIT_FAIL, "out of memory");
		if (!o.align && (err = merge_input(m, in[i]))) {
			ret = err == TDAT_EINVAL ? EXIT_USAGE : EXIT_FAIL;
			goto out;
		}
	}
	if (o.align && align_inputs(&o, in, n))
		goto out;
	for (int i = 0; o.align && i < n; i++) {
		int err = merge_input(m, in[i]);

		if (err) {
			ret = err == TDAT_EINVAL ? EXIT_USAGE : EXIT_FAIL;
			goto out;
		}
	}
	warn_mixed_clocks(in, n);
	warn_missing_pieces(in, n);
	if (!strcmp(o.format, "dat"))	/* the BTF of the first input is the one written */
		dat_sections_warning(in[0], &o.dat);
	ret = run(&o, n, m, in);
out:
	tdat_select_free(o.sel);	/* its filters belong to the files' event formats */
	tdat_merge_free(m);
	for (int i = 0; i < n; i++)
		tdat_file_free(in[i]);
	free(in);
	free(o.offsets);
	free(o.names);
	free(o.inputs);
	return ret;
}
