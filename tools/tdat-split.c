/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-split - cut a trace.dat into self-contained pieces: by time, by
 * event count, by size, per CPU or per buffer.  Each piece is a complete
 * trace.dat (every metadata section of the input, only its events) written
 * by libfmt's dat writer under a temporary name and renamed when complete;
 * if anything fails, the pieces of this run are removed again.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

enum mode { M_NONE, M_EVERY, M_EVENTS, M_SIZE, M_CPU, M_BUFFER };

struct piece {			/* an output being written */
	struct tdat_writer *w;
	struct tool_out out;
	uint64_t events;
	int key;		/* CPU or buffer index in per-CPU/buffer modes */
};

struct split {
	enum mode mode;
	uint64_t limit;		/* ns, events or bytes */
	const char *prefix;
	unsigned wflags;
	int progress;
	struct tdat_open_opts open;
	struct tdat_select *sel;
	struct tdat_merge *m;
	struct piece *open_pieces;	/* per-CPU/buffer modes: one per key */
	int nopen;
	char **done;		/* committed pieces, removed if the run fails */
	int ndone;
	int seq;		/* pieces started */
	uint64_t start;		/* --every: start of the current piece */
};

static __attribute__((noreturn)) void usage(FILE *fp, int code)
{
	fprintf(fp,
		"Usage: %s (--every DURATION | --events N | --size BYTES | --per-cpu | --per-buffer)\n"
		"       [-o PREFIX] [--file-version 6|7] [--compression zstd|zlib|none]\n"
		"       [--ts2secs HZ] [--progress | --no-progress] [SELECTION] FILE\n"
		"Split a trace.dat (\"-\" reads standard input) into complete trace.dat pieces\n"
		"PREFIX.0001.dat, PREFIX.0002.dat, ... (PREFIX.cpuN.dat, PREFIX.BUFFER.dat).\n"
		"The selection applies first; every piece holds all of the input's metadata.\n\n"
		"      --every DURATION  a piece per DURATION of trace time (10s, 500ms, ...)\n"
		"      --events N        a piece per N events\n"
		"      --size BYTES      pieces of about BYTES each (suffixes k, M, G)\n"
		"      --per-cpu         a piece per CPU\n"
		"      --per-buffer      a piece per buffer (the top buffer is \"top\")\n"
		"  -o, --output PREFIX   piece names start with PREFIX (default: the input's\n"
		"                        name without .dat)\n"
		"      --file-version 6|7  trace.dat version of the pieces (default 7)\n"
		"      --compression zstd|zlib|none  v7 compression (default zstd)\n"
		"      --ts2secs HZ      the clock counts HZ ticks a second: pieces hold ns\n"
		"                        timestamps (trace-cmd report --ts2secs)\n"
		"      --progress        show progress on stderr (default: when stderr is a terminal)\n"
		"      --no-progress     never show progress\n"
		LENIENT_USAGE
		"  -h, --help            show this help\n"
		"  -V, --version         show the version\n"
		SELECT_USAGE "\n"
		"Exit status: 0 ok, 1 failure or damaged input (no piece is left behind on\n"
		"failure; on damage the pieces hold what could be read; 0 with --lenient),\n"
		"2 usage error.\n",
		progname);
	exit(code);
}

enum { OPT_EVERY = 256, OPT_EVENTS, OPT_SIZE, OPT_PER_CPU, OPT_PER_BUFFER, OPT_FILE_VERSION,
       OPT_COMPRESSION, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_TS2SECS };

static const struct option longopts[] = {
	{ "every", required_argument, NULL, OPT_EVERY },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "per-cpu", no_argument, NULL, OPT_PER_CPU },
	{ "per-buffer", no_argument, NULL, OPT_PER_BUFFER },
	{ "output", required_argument, NULL, 'o' },
	{ "file-version", required_argument, NULL, OPT_FILE_VERSION },
	{ "compression", required_argument, NULL, OPT_COMPRESSION },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "ts2secs", required_argument, NULL, OPT_TS2SECS },
	LENIENT_LONGOPT,
	SELECT_LONGOPTS,
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* A positive count with an optional k/M/G (powers of 1024 for sizes). */
static uint64_t parse_count(const char *opt, const char *s, bool units)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (units && *end && !end[1] && strchr("kKmMgG", *end))
		shift = (*end == 'k' || *end == 'K') ? 10 : (*end == 'm' || *end == 'M') ? 20 : 30;
	else if (*end || end == s)
		v = 0;
	if (!v || !isdigit((unsigned char)*s))
		usage_error("invalid --%s '%s'", opt, s);
	if (errno == ERANGE || v > (UINT64_MAX >> shift))
		usage_error("--%s '%s' is too large", opt, s);
	return (uint64_t)v << shift;
}

static void set_mode(struct split *sp, enum mode m, const char *opt, const char *arg)
{
	int64_t ns;

	if (sp->mode != M_NONE && sp->mode != m)
		usage_error("give one of --every, --events, --size, --per-cpu, --per-buffer");
	sp->mode = m;
	if (m == M_EVERY) {
		/* a bare number would be nanoseconds: a unit must say what is meant */
		if (!parse_ns(arg, &ns) || ns <= 0 || isdigit((unsigned char)arg[strlen(arg) - 1]))
			usage_error("invalid --every '%s' (a duration with its unit: 10s, 500ms, ...)", arg);
		sp->limit = (uint64_t)ns;
	} else if (m == M_EVENTS || m == M_SIZE) {
		sp->limit = parse_count(opt, arg, m == M_SIZE);
	}
}

static void parse_args(struct split *sp, int argc, char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, "o:hV" SELECT_SHORTOPTS, longopts, NULL)) != -1) {
		if (select_option(&sp->sel, c, optarg))
			continue;
		switch (c) {
		case OPT_EVERY: set_mode(sp, M_EVERY, "every", optarg); break;
		case OPT_EVENTS: set_mode(sp, M_EVENTS, "events", optarg); break;
		case OPT_SIZE: set_mode(sp, M_SIZE, "size", optarg); break;
		case OPT_PER_CPU: set_mode(sp, M_CPU, "per-cpu", NULL); break;
		case OPT_PER_BUFFER: set_mode(sp, M_BUFFER, "per-buffer", NULL); break;
		case 'o': sp->prefix = optarg; break;
		case OPT_FILE_VERSION: case OPT_COMPRESSION:
			sp->wflags = dat_layout_option(sp->wflags, c == OPT_FILE_VERSION, optarg);
			break;
		case OPT_PROGRESS: sp->progress = 1; break;
		case OPT_NO_PROGRESS: sp->progress = 0; break;
		case OPT_TS2SECS: sp->open.ts2secs_hz = parse_hz(optarg); break;
		case OPT_LENIENT: lenient = true; break;
		case 'h': usage(stdout, EXIT_OK);
		case 'V': print_version();
		default: fprintf(stderr, "Try '%s --help' for more information.\n", progname);
			 exit(EXIT_USAGE);
		}
	}
	if (sp->mode == M_NONE)
		usage_error("say how to split: --every, --events, --size, --per-cpu or --per-buffer");
	if ((sp->wflags & TDAT_W_V6) && (sp->wflags & TDAT_W_ZLIB))
		usage_error("trace.dat version 6 is not compressed");
	if (optind + 1 != argc)
		usage_error(optind == argc ? "no input file" : "one input file only");
	if (sp->prefix && (!*sp->prefix || !strcmp(sp->prefix, "-")))
		usage_error("-o takes a file name prefix");
}

/* The name of the next piece, or of the piece of a CPU or buffer. */
static char *piece_name(struct split *sp, int key)
{
	char *name = NULL;
	int r;

	if (sp->mode == M_CPU) {
		r = asprintf(&name, "%s.cpu%d.dat", sp->prefix, key);
	} else if (sp->mode == M_BUFFER) {
		const char *b = tdat_file_buffer(tdat_merge_file(sp->m, 0), key)->name;

		r = asprintf(&name, "%s.%s.dat", sp->prefix, *b ? b : "top");
	} else {
		r = asprintf(&name, "%s.%04d.dat", sp->prefix, sp->seq);
	}
	if (r < 0)
		die_(EXIT_FAIL, "out of memory");
	return name;
}

static int piece_start(struct split *sp, struct piece *p, int key)
{
	char *name;
	int ret;

	memset(p, 0, sizeof(*p));
	p->key = key;
	sp->seq++;
	name = piece_name(sp, key);
	if (!(p->w = tdat_writer_new("dat")))
		die_(EXIT_FAIL, "out of memory");
	ret = out_open(&p->out, name, TDAT_OUT_STREAM, true);
	p->out.path = name;	/* owned by the piece: piece_end() frees it */
	if (ret)
		return -1;
	if (tdat_writer_open(p->w, p->out.fd, NULL, sp->m, sp->wflags)) {
		warnx_("%s: %s", name, tdat_writer_errmsg(p->w));
		return -1;
	}
	return 0;
}

/* Close a piece; a committed one is remembered, a failed one removed. */
static int piece_end(struct split *sp, struct piece *p, bool ok)
{
	char *name = (char *)p->out.path;

	if (!p->w)
		return 0;
	if (ok && tdat_writer_close(p->w)) {
		warnx_("%s: %s", name, tdat_writer_errmsg(p->w));
		ok = false;
	}
	tdat_writer_free(p->w);
	p->w = NULL;
	if (ok && !out_commit(&p->out)) {
		sp->done = realloc(sp->done, sizeof(char *) * (size_t)(sp->ndone + 1));
		if (!sp->done)
			die_(EXIT_FAIL, "out of memory");
		sp->done[sp->ndone++] = name;
		return 0;
	}
	if (p->out.tmp)
		out_abort(&p->out);
	free(name);
	return -1;
}

/* Sequential modes: is it time for a new piece before @ev? */
static bool cut_before(struct split *sp, struct piece *p, const struct tdat_event *ev)
{
	if (!p->w)
		return true;
	switch (sp->mode) {
	case M_EVERY: return ev->ts >= sp->start + sp->limit;
	case M_EVENTS: return p->events >= sp->limit;
	case M_SIZE: return p->events && tdat_writer_size(p->w) >= sp->limit;
	default: return false;
	}
}

/* The piece @ev goes to, started when needed; NULL on failure. */
static struct piece *piece_for(struct split *sp, const struct tdat_event *ev)
{
	struct piece *p = sp->open_pieces;
	int key = sp->mode == M_CPU ? ev->cpu : ev->buffer;

	if (sp->mode != M_CPU && sp->mode != M_BUFFER) {
		if (!cut_before(sp, p, ev))
			return p;
		if (piece_end(sp, p, true))
			return NULL;
		if (sp->mode == M_EVERY && !sp->seq)
			sp->start = ev->ts;
		else if (sp->mode == M_EVERY)	/* empty stretches make no piece */
			sp->start += (ev->ts - sp->start) / sp->limit * sp->limit;
		return piece_start(sp, p, 0) ? NULL : p;
	}
	for (int i = 0; i < sp->nopen; i++)
		if (sp->open_pieces[i].key == key)
			return &sp->open_pieces[i];
	p = realloc(sp->open_pieces, sizeof(*p) * (size_t)(sp->nopen + 1));
	if (!p)
		die_(EXIT_FAIL, "out of memory");
	sp->open_pieces = p;
	p += sp->nopen++;
	return piece_start(sp, p, key) ? NULL : p;
}

static int split_events(struct split *sp)
{
	const struct tdat_event *ev;
	uint64_t count = 0;
	int ret;

	progress_start(sp->progress);
	while ((ret = tdat_merge_next(sp->m, &ev)) == 0) {
		struct piece *p;

		if (sp->sel && tdat_select_done(sp->sel, ev)) {
			ret = TDAT_END;
			break;
		}
		progress_tick(sp->m, ++count);
		if (sp->sel && !tdat_select_match(sp->sel, ev))
			continue;
		if (!(p = piece_for(sp, ev)))
			return -1;
		if ((ret = tdat_writer_put(p->w, ev))) {
			warnx_("%s: %s", p->out.path, tdat_writer_errmsg(p->w));
			return -1;
		}
		p->events++;
	}
	progress_end();
	if (ret != TDAT_END) {
		warnx_("%s", *tdat_merge_errmsg(sp->m) ? tdat_merge_errmsg(sp->m) : tdat_strerror(ret));
		return -1;
	}
	return 0;
}

/* Split; on failure remove every piece, finished or not. */
static int run(struct split *sp)
{
	int ret;

	if (sp->mode != M_CPU && sp->mode != M_BUFFER) {
		sp->open_pieces = calloc(1, sizeof(*sp->open_pieces));
		if (!sp->open_pieces)
			die_(EXIT_FAIL, "out of memory");
		sp->nopen = 1;
	}
	if (sp->sel && tdat_select_bind(sp->sel, sp->m)) {
		warnx_("%s", tdat_select_errmsg(sp->sel));
		return EXIT_USAGE;
	}
	ret = split_events(sp);
	for (int i = 0; i < sp->nopen; i++)
		ret |= piece_end(sp, &sp->open_pieces[i], ret == 0);
	if (ret) {
		for (int i = 0; i < sp->ndone; i++)
			unlink(sp->done[i]);
		return EXIT_FAIL;
	}
	if (!sp->ndone)
		warnx_("no events selected: no piece written");
	return damage_status(report_damage(sp->m));
}

int main(int argc, char **argv)
{
	struct split sp = { .progress = -1 };
	struct tdat_file *in = NULL;
	int ret = EXIT_FAIL;

	tool_init(argv);
	parse_args(&sp, argc, argv);
	if (!(sp.m = tdat_merge_new()))
		die_(EXIT_FAIL, "out of memory");
	in = open_input(argv[optind], &sp.open);
	if (in && !sp.prefix)
		sp.prefix = tdat_file_info(in)->name;	/* base name without .dat */
	if (in && !tdat_merge_add(sp.m, in))
		ret = run(&sp);
	tdat_select_free(sp.sel);
	tdat_merge_free(sp.m);
	tdat_file_free(in);
	for (int i = 0; i < sp.ndone; i++)
		free(sp.done[i]);
	free(sp.done);
	free(sp.open_pieces);
	return ret;
}
