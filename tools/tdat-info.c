/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-info - say what is in trace.dat files: header facts, buffers, per
 * CPU event counts, lost events and time spans, counts per event type, the
 * kernel's own count of each ring buffer at the end of recording, and every
 * section and option of the file.
 * Text for people, one JSON object per file (--json) for programs, or a
 * picture of all the inputs on one timeline (--svg), of a selection too.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

enum { OPT_SVG = 1200, OPT_JSON };

static __attribute__((noreturn)) void usage(FILE *fp, int code)
{
	fprintf(fp,
		"Usage: %s [--json | --svg FILE [SELECTION]] [-j N] [--raw-ts] [--ts2secs HZ]\n"
		"       [--lenient] [--verbose] [-i FILE]... [FILE...]\n"
		"Say what is in trace.dat files (\"-\" reads standard input; none: a pipe on\n"
		"standard input, or ./trace.dat when it is a terminal).\n\n"
		"  -i, --input FILE  a file, as trace-cmd's -i (repeatable)\n"
		"      --json     one JSON object per file, one per line\n"
		"  -j, --jobs N   threads, as in every tool (--svg: each CPU's next chunk\n"
		"                 decompressed ahead when N > 1); the same output for any N\n"
		"      --svg FILE a picture instead (\"-\": standard output): a lane per CPU of\n"
		"                 every buffer and input, events per time bucket, losses marked;\n"
		"                 the selection options below pick what it shows\n"
		"      --raw-ts   timestamps without corrections\n"
		"      --ts2secs HZ  the clock counts HZ ticks a second: times in seconds\n"
		"      --lenient  damaged file read in part: report it, but exit 0\n"
		"      --verbose  also note what is not damage (formats that cannot be printed)\n"
		"  -h, --help     show this help\n"
		"  -V, --version  show the version\n\n"
		SELECT_USAGE
		"\nExit status: 0 ok, 1 a file could not be read or is damaged (0 with --lenient),\n"
		"2 usage error, 130/143 interrupted (SIGINT/SIGTERM).\n",
		progname);
	exit(code);
}

/* Seconds as trace-cmd prints them when the clock counts ns, else raw units. */
static void put_ts(char *buf, size_t n, uint64_t ts, int in_ns)
{
	if (in_ns)
		snprintf(buf, n, "%" PRIu64 ".%09" PRIu64, ts / 1000000000, ts % 1000000000);
	else
		snprintf(buf, n, "%" PRIu64, ts);
}

/* A piece of a split: which, of how many, of what. */
static void text_piece(const struct tdat_piece *p)
{
	if (!p)
		return;
	printf("piece:         %u", p->seq);
	if (p->count)
		printf(" of %u", p->count);
	printf(" of a split of %s (split %016" PRIx64 "%s%s)\n", p->name, p->split,
	       *p->how ? ": " : "", p->how);
}

/* A merged trace.dat: the inputs it holds, each with its buffers. */
static void text_merged(const struct tdat_file *f)
{
	for (int i = 0; i < tdat_file_norigins(f); i++) {
		const struct tdat_origin *o = tdat_file_origin(f, i);

		printf("%-15s%s (buffer%s", i ? "" : "merged:", o->name, o->nbuffers == 1 ? "" : "s");
		for (int k = 0; k < o->nbuffers; k++)
			printf("%s %s", k ? "," : "", o->buffers[k]);
		printf(")\n");
	}
}

static void text_header(const struct tdat_file_info *fi)
{
	printf("file:          %s\n", fi->path);
	printf("size:          %" PRIu64 " bytes", fi->file_size);
	if (strcmp(fi->packing, "none"))
		printf(" (%s-compressed: %" PRIu64 " bytes)", fi->packing, fi->packed_size);
	printf("\n");
	printf("version:       %d, %s endian, long size %d, page size %u\n", fi->version,
	       fi->big_endian ? "big" : "little", fi->long_size, fi->page_size);
	printf("compression:   %s%s%s\n", fi->compression, *fi->compression_version ? " " : "",
	       fi->compression_version);
	printf("uname:         %s\n", fi->uname);
	printf("trace-cmd:     %s\n", fi->tracecmd_version);
	printf("clock:         %s%s\n", fi->clock, fi->in_usecs ? "" : " (not nanoseconds)");
	printf("cpus:          %d\n", fi->cpus);
	if (fi->has_tsc2nsec || fi->has_time_shift || fi->has_date || fi->has_offset || fi->ts_offset)
		printf("time:          %s%s%s%soffset %" PRId64 " ns\n",
		       fi->has_tsc2nsec ? "tsc2nsec, " : "", fi->has_time_shift ? "time shift (guest), " : "",
		       fi->has_date ? "date, " : "", fi->has_offset ? "offset option, " : "", fi->ts_offset);
}

static void text_cpus(struct tdat_file *f, const struct tdat_stats *s, int in_ns)
{
	char a[32], b[32];

	printf("%-12s %4s %10s %8s %12s %12s %20s %20s\n", "buffer", "cpu", "events", "lost",
	       "stored", "uncompressed", "first", "last");
	for (int i = 0; i < s->ncpus; i++) {
		const struct tdat_cpu_stats *c = &s->cpus[i];
		const char *name = tdat_file_buffer(f, c->buffer)->name;
		char lost[32];

		put_ts(a, sizeof(a), c->first_ts, in_ns);
		put_ts(b, sizeof(b), c->last_ts, in_ns);
		snprintf(lost, sizeof(lost), "%" PRIu64 "%s", c->lost, c->lost_pages ? "+" : "");
		printf("%-12s %4d %10" PRIu64 " %8s %12" PRIu64 " %12" PRIu64 " %20s %20s\n",
		       name[0] ? name : "(top)", c->cpu, c->events, lost, c->stored, c->usize,
		       c->events ? a : "-", c->events ? b : "-");
		if (c->damaged)
			printf("%-12s %4s   damaged: %" PRIu64 " bytes skipped\n", "", "", c->damaged);
	}
}

/* A figure of the kernel's, or "-" where the text has none. */
static const char *kfig(char *buf, size_t n, const struct tdat_kernel_cpu_stats *k, unsigned bit,
			uint64_t v)
{
	if (!(k->have & bit))
		return "-";
	snprintf(buf, n, "%" PRIu64, v);
	return buf;
}

static const char *kts(char *buf, size_t n, const struct tdat_kernel_cpu_stats *k, unsigned bit,
		       uint64_t v, int in_ns)
{
	if (!(k->have & bit))
		return "-";
	put_ts(buf, n, v, in_ns);
	return buf;
}

/* The CPUSTAT figures, one line per CPU of each buffer, beside the counts above. */
static void text_kernel(struct tdat_file *f, int in_ns)
{
	const struct tdat_kernel_cpu_stats *k;
	char b[6][32], o[32], w[32];
	int n;

	if (!(k = tdat_file_cpustat(f, &n)))
		return;
	printf("kernel's count at the end of recording (entries: left in the ring buffer, not "
	       "recorded):\n");
	printf("%-12s %4s %10s %10s %14s %10s %10s %10s %20s %20s\n", "buffer", "cpu", "entries",
	       "overrun", "commit_overrun", "bytes", "dropped", "read", "oldest event", "now");
	for (int i = 0; i < n; i++, k++) {
		printf("%-12s %4d %10s %10s %14s %10s %10s %10s %20s %20s\n",
		       k->buffer_name[0] ? k->buffer_name : "(top)", k->cpu,
		       kfig(b[0], 32, k, TDAT_KS_ENTRIES, k->entries),
		       kfig(b[1], 32, k, TDAT_KS_OVERRUN, k->overrun),
		       kfig(b[2], 32, k, TDAT_KS_COMMIT_OVERRUN, k->commit_overrun),
		       kfig(b[3], 32, k, TDAT_KS_BYTES, k->bytes),
		       kfig(b[4], 32, k, TDAT_KS_DROPPED, k->dropped_events),
		       kfig(b[5], 32, k, TDAT_KS_READ, k->read_events),
		       kts(o, sizeof(o), k, TDAT_KS_OLDEST_TS, k->oldest_event_ts, in_ns),
		       kts(w, sizeof(w), k, TDAT_KS_NOW_TS, k->now_ts, in_ns));
	}
}

/* Where a part lies: a section's offset, an option's header (v7: its section + its place). */
static void part_place(char *buf, size_t n, const struct tdat_section_info *p)
{
	if (p->kind == TDAT_OPTION && p->pos)
		snprintf(buf, n, "%" PRIu64 "+%" PRIu64, p->offset, p->pos);
	else
		snprintf(buf, n, "%" PRIu64, p->offset);
}

/* Every section and option, known or not (tdat_file_sections()). */
static void text_sections(const struct tdat_file *f)
{
	static const char *const kinds[] = { "section", "option", "v6 part" };
	const struct tdat_section_info *p;
	char at[48], us[24];
	int n;

	if (!(p = tdat_file_sections(f, &n)))
		return;
	printf("sections and options:\n");
	printf("  %-8s %5s %-15s %14s %10s %12s  %s\n", "kind", "id", "name", "offset", "size",
	       "uncompressed", "what");
	for (int i = 0; i < n; i++, p++) {
		part_place(at, sizeof(at), p);
		snprintf(us, sizeof(us), "%" PRIu64, p->usize);
		printf("  %-8s %5u %-15s %14s %10" PRIu64 " %12s  %s", p->kind >= 0 && p->kind <= 2 ?
		       kinds[p->kind] : "?", p->id, *p->name ? p->name : "?", at, p->size,
		       p->compressed ? us : "-", p->what);
		if (*p->label)
			printf(" (\"%s\")", p->label);
		if (p->damage)
			printf("; DAMAGED, skipped: %s", p->damage);
		putchar('\n');
	}
}

static void text_report(struct tdat_file *f, const struct tdat_stats *s)
{
	const struct tdat_file_info *fi = tdat_file_info(f);
	char a[32], b[32];
	uint64_t lost_pages = 0;

	text_header(fi);
	text_piece(tdat_file_piece(f));
	text_merged(f);
	printf("buffers:       %d\n", fi->nbuffers);
	for (int i = 0; i < fi->nbuffers; i++) {
		const struct tdat_buffer_info *bi = tdat_file_buffer(f, i);

		printf("  %-12s %s, clock %s, sub-buffer %u bytes, %d cpus\n",
		       bi->name[0] ? bi->name : "(top)", bi->latency ? "latency text" : "events",
		       *bi->clock ? bi->clock : "?", bi->page_size, bi->ncpus);
	}
	text_cpus(f, s, fi->in_usecs);
	text_kernel(f, fi->in_usecs);
	for (int i = 0; i < s->ncpus; i++)
		lost_pages += s->cpus[i].lost_pages;
	printf("events:        %" PRIu64 "\n", s->total);
	printf("lost events:   %" PRIu64 "%s\n", s->lost,
	       lost_pages ? " (and pages that lost an unknown number: the + above)" : "");
	if (s->total) {
		put_ts(a, sizeof(a), s->first_ts, fi->in_usecs);
		put_ts(b, sizeof(b), s->last_ts, fi->in_usecs);
		printf("span:          %s .. %s\n", a, b);
		put_ts(a, sizeof(a), s->common_start, fi->in_usecs);
		put_ts(b, sizeof(b), s->common_end, fi->in_usecs);
		printf("all cpus:      %s .. %s\n", a, b);
	}
	printf("event counts:\n");
	for (int i = 0; i < s->nevents; i++)
		printf("  %10" PRIu64 "  %s:%s\n", s->events[i].count, s->events[i].system,
		       s->events[i].name);
	text_sections(f);
}

/* The splits of the pieces shown so far: warn of pieces of two splits of one file. */
struct seen_split {
	uint64_t source, split;
	char *path, *how;
};

static void note_split(struct seen_split **seen, int *n, const char *path, const struct tdat_piece *p)
{
	struct seen_split *s;

	if (!p || !p->source)
		return;
	for (int i = 0; i < *n; i++) {
		s = &(*seen)[i];
		if (s->source == p->source && s->split == p->split)
			return;
		if (s->source == p->source) {
			warnx_("%s and %s are pieces of two different splits of %s (%s and %s): "
			       "read together, their events would count twice", s->path, path, p->name,
			       *s->how ? s->how : "one split", *p->how ? p->how : "another");
			return;
		}
	}
	if (!(s = realloc(*seen, sizeof(*s) * (size_t)(*n + 1))))
		die_(EXIT_FAIL, "out of memory");
	*seen = s;
	s += (*n)++;
	*s = (struct seen_split){ .source = p->source, .split = p->split, .path = strdup(path),
				  .how = strdup(p->how) };
	if (!s->path || !s->how)
		die_(EXIT_FAIL, "out of memory");
}

/* tdat-info --json's line for @f; 0, or TDAT_ENOMEM. */
static int print_json(struct tdat_file *f, const struct tdat_stats *s)
{
	char *j = tdat_file_info_json(f, s);

	if (!j)
		return TDAT_ENOMEM;
	fputs(j, stdout);
	free(j);
	return 0;
}

static int info_one(const char *path, const struct tdat_open_opts *oo, bool json, bool sep,
		    struct seen_split **seen, int *nseen)
{
	struct tdat_file *f = open_input(path, oo);
	struct tdat_stats *s = NULL;
	int ret, damaged = 0;

	if (!f)
		return EXIT_FAIL;
	note_split(seen, nseen, path, tdat_file_piece(f));
	ret = tdat_stats_collect(f, &s);
	input_warnings(f);
	if (ret) {
		warnx_("%s: %s", path, *tdat_file_errmsg(f) ? tdat_file_errmsg(f) : tdat_strerror(ret));
		tdat_file_free(f);
		return EXIT_FAIL;
	}
	if (sep && !json)
		putchar('\n');
	if (!json)
		text_report(f, s);
	else if (print_json(f, s))
		die_(EXIT_FAIL, "out of memory");
	damaged = report_stats_damage(f, s) > 0;
	tdat_stats_free(s);
	damaged |= tdat_file_nwarnings(f) > 0;
	tdat_file_free(f);
	return damage_status(damaged);
}

/* Put every event of @m into @g, as @sel keeps them; 0 or a negative enum tdat_err. */
static int svg_events(struct tdat_merge *m, struct tdat_select *sel, struct tdat_svg *g)
{
	const struct tdat_event *ev;
	bool kept = false;
	int ret;

	while ((ret = tdat_merge_next(m, &ev)) == 0) {
		bool keep;

		if (sel && tdat_select_done(sel, ev))
			break;
		keep = !sel || tdat_select_match(sel, ev);
		kept |= keep;
		tdat_svg_put(g, ev, keep);
	}
	if (ret >= 0 && sel && !kept)
		warn_empty_selection(sel, m);
	if (ret < 0)
		warnx_("%s", *tdat_merge_errmsg(m) ? tdat_merge_errmsg(m) : tdat_strerror(ret));
	return ret < 0 ? ret : 0;
}

/* --svg: the picture of inputs @in on one timeline, written to @path. */
static int svg_run(const char *path, char **in, int n, const struct tdat_open_opts *oo,
		   struct tdat_select *sel, int jobs)
{
	struct tdat_file **f = calloc((size_t)n, sizeof(*f));
	struct tdat_merge *m = tdat_merge_new();
	struct tdat_svg *g = tdat_svg_new();
	struct tool_out out = { .fd = -1 };
	int ret = EXIT_FAIL, err = 0, bound;

	if (!f || !m || !g || tdat_merge_set_jobs(m, jobs))
		die_(EXIT_FAIL, "out of memory");
	refuse_duplicate_inputs(in, n);
	refuse_input_as_output("--svg", path, in, n);
	for (int i = 0; i < n; i++) {
		if (!(f[i] = open_input(in[i], oo)))
			goto out;
		if ((err = merge_input(m, f[i]))) {
			ret = err == TDAT_EINVAL ? EXIT_USAGE : EXIT_FAIL;
			goto out;
		}
	}
	warn_mixed_clocks(f, n);
	warn_missing_pieces(f, n);
	if (sel && (bound = tdat_select_bind(sel, m))) {
		warnx_("%s", tdat_select_errmsg(sel));
		ret = bound == TDAT_EINVAL ? EXIT_USAGE : EXIT_FAIL;
		goto out;
	}
	if (out_open(&out, path, TDAT_OUT_STREAM, false))
		goto out;
	if ((err = tdat_svg_open(g, out.fd, m, sel)))
		warnx_("%s", *tdat_svg_errmsg(g) ? tdat_svg_errmsg(g) : tdat_strerror(err));
	if (!err)
		err = svg_events(m, sel, g);
	if (!err && tdat_svg_close(g)) {
		check_pipe(tdat_svg_errno(g));
		warnx_("%s: %s", out.path ? out.path : "standard output", tdat_svg_errmsg(g));
		err = TDAT_EIO;
	}
	if (err)
		out_abort(&out);
	else if (!out_commit(&out))
		ret = damage_status(report_damage(m));
out:
	tdat_svg_free(g);
	tdat_select_free(sel);	/* its filters belong to the files' event formats */
	tdat_merge_free(m);
	for (int i = 0; i < n; i++)
		tdat_file_free(f[i]);
	free(f);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "jobs", required_argument, NULL, 'j' },
		{ "svg", required_argument, NULL, OPT_SVG },
		SELECT_LONGOPTS,
		{ "input", required_argument, NULL, 'i' },
		{ "raw-ts", no_argument, NULL, 'r' },
		{ "ts2secs", required_argument, NULL, 'H' },
		LENIENT_LONGOPT,
		VERBOSE_LONGOPT,
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct tdat_open_opts oo = { 0 };
	struct tdat_select *sel = NULL;
	const char *svg = NULL;
	bool json = false;
	struct seen_split *seen = NULL;
	int c, ret = EXIT_OK, n = 0, nseen = 0, jobs = default_jobs();
	char **in = calloc((size_t)argc + 1, sizeof(*in));

	tool_init(argv);
	if (!in)
		die_(EXIT_FAIL, "out of memory");
	while ((c = getopt_long(argc, argv, "i:j:hV" SELECT_SHORTOPTS, longopts, NULL)) != -1) {
		if (select_option(&sel, c, optarg))
			continue;
		switch (c) {
		case 'i': in[n++] = optarg; break;
		case OPT_JSON: json = true; break;
		case 'j': jobs = parse_jobs(optarg); break;
		case OPT_SVG: svg = optarg; break;
		case 'r': oo.flags |= TDAT_OPEN_RAW_TS; break;
		case 'H': oo.ts2secs_hz = parse_hz(optarg); break;
		case OPT_LENIENT: lenient = true; break;
		case OPT_VERBOSE: verbose = true; break;
		case 'h': usage(stdout, EXIT_OK);
		case 'V': print_version();
		default: fprintf(stderr, "Try '%s --help' for more information.\n", progname);
			 exit(EXIT_USAGE);
		}
	}
	while (optind < argc)
		in[n++] = argv[optind++];
	if (!n)
		in[n++] = (char *)default_input();
	if (svg && json)
		usage_error("--svg and --json: one output at a time");
	if (sel && !svg)
		usage_error("the selection options pick what --svg draws; without it, use tdat-convert");
	if (svg) {
		ret = svg_run(svg, in, n, &oo, sel, jobs);
		free(in);
		return ret;
	}
	for (int i = 0; i < n; i++)
		if (info_one(in[i], &oo, json, i > 0, &seen, &nseen) != EXIT_OK)
			ret = EXIT_FAIL;
	for (int i = 0; i < nseen; i++) {
		free(seen[i].path);
		free(seen[i].how);
	}
	free(seen);
	free(in);
	return ret;	/* a write error on standard output: close_stdout() at exit */
}
