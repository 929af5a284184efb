/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-split - cut a trace.dat into self-contained pieces: by time, by
 * event count, by size, per CPU or per buffer.  Each piece is a complete
 * trace.dat (every metadata section of the input, only its events) written
 * by libfmt's dat writer under a temporary name and renamed when complete;
 * if anything fails, or a signal ends the run, the pieces of this run are
 * removed again.  Each piece carries a mark (which split, which piece) by
 * which tdat-merge and tdat-convert read the pieces as the file cut.
 */
#include <ctype.h>
#include <dirent.h>
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
	int seq;		/* its place in the split, from 1 */
};

#define DEFAULT_MAX_PIECES 10000

struct split {
	enum mode mode;
	uint64_t limit;		/* ns, events or bytes */
	uint64_t max_pieces;	/* --max-pieces */
	const char *size_arg;	/* --size as given */
	const char *input;
	const char *prefix;
	struct dat_layout_opts dat;	/* --file-version, --compression */
	int progress;
	int jobs;		/* -j */
	struct tdat_open_opts open;
	struct tdat_select *sel;
	struct tdat_merge *m;
	struct piece *open_pieces;	/* per-CPU/buffer modes: one per key */
	int nopen;
	int ndone;		/* pieces committed (common.c removes them on failure) */
	int seq;		/* pieces started */
	uint64_t start;		/* --every: start of the current piece */
	struct tdat_piece mark;	/* what every piece is marked with */
	char *mode_how, *how;	/* the options that make the pieces what they are, as given */
	bool force;		/* --force: remove an earlier split's pieces at PREFIX */
};

static __attribute__((noreturn)) void usage(FILE *fp, int code)
{
	fprintf(fp,
		"Usage: %s (--every DURATION | --events N | --size BYTES | --per-cpu | --per-buffer)\n"
		"       [-o PREFIX] [--force] [-j N] [--max-pieces N] [--file-version 6|7]\n"
		"       [--compression zstd|zlib|none] [--ts2secs HZ] [--progress | --no-progress]\n"
		"       [--lenient] [--verbose] [SELECTION] [-i] FILE\n"
		"Split a trace.dat (\"-\" reads standard input; none: a pipe on standard input,\n"
		"or ./trace.dat) into complete trace.dat pieces PREFIX.0001.dat, PREFIX.0002.dat,\n"
		"... (PREFIX.cpuN.dat, PREFIX.BUFFER.dat).  The selection applies first; every\n"
		"piece holds all of the input's metadata, and tdat-merge of the pieces gives\n"
		"the file back.\n\n"
		"      --every DURATION  a piece per DURATION of trace time (10s, 1.5ms, ...)\n"
		"      --events N        a piece per N events\n"
		"      --size BYTES      pieces of about BYTES each (suffixes k, M, G)\n"
		"      --per-cpu         a piece per CPU\n"
		"      --per-buffer      a piece per buffer (the top buffer is \"top\")\n"
		"  -o, --output PREFIX   piece names start with PREFIX (default: the input's\n"
		"                        name without .dat)\n"
		"      --force           remove the pieces of an earlier split at PREFIX first\n"
		"                        (without it, their presence is an error)\n"
		"  -i, --input FILE      the input, as trace-cmd's -i\n"
		"  -j, --jobs N          threads (default: the CPUs, at most 8): compressed\n"
		"                        input is read ahead on a thread; the same pieces\n"
		"                        for any N\n"
		"      --max-pieces N    stop (and remove the pieces) rather than write more than\n"
		"                        N pieces (default 10000)\n"
		"      --file-version 6|7  trace.dat version of the pieces (default 7)\n"
		"      --compression zstd|zlib|none  v7 compression (default zstd)\n"
		"      --ts2secs HZ      the clock counts HZ ticks a second: pieces hold ns\n"
		"                        timestamps (trace-cmd report --ts2secs)\n"
		"      --progress        show progress on stderr (default: when stderr is a terminal)\n"
		"      --no-progress     never show progress\n"
		LENIENT_USAGE
		VERBOSE_USAGE
		"  -h, --help            show this help\n"
		"  -V, --version         show the version\n"
		SELECT_USAGE "\n"
		"Exit status: 0 ok, 1 failure or damaged input (no piece is left behind on\n"
		"failure; on damage the pieces hold what could be read; 0 with --lenient),\n"
		"2 usage error, 128+N killed by signal N (130 SIGINT, 143 SIGTERM; no piece\n"
		"is left behind).\n",
		progname);
	exit(code);
}

enum { OPT_EVERY = 256, OPT_EVENTS, OPT_SIZE, OPT_PER_CPU, OPT_PER_BUFFER, OPT_FILE_VERSION,
       OPT_COMPRESSION, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_MAX_PIECES, OPT_TS2SECS, OPT_FORCE };

static const struct option longopts[] = {
	{ "every", required_argument, NULL, OPT_EVERY },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "per-cpu", no_argument, NULL, OPT_PER_CPU },
	{ "per-buffer", no_argument, NULL, OPT_PER_BUFFER },
	{ "output", required_argument, NULL, 'o' },
	{ "input", required_argument, NULL, 'i' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "max-pieces", required_argument, NULL, OPT_MAX_PIECES },
	{ "file-version", required_argument, NULL, OPT_FILE_VERSION },
	{ "compression", required_argument, NULL, OPT_COMPRESSION },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "ts2secs", required_argument, NULL, OPT_TS2SECS },
	{ "force", no_argument, NULL, OPT_FORCE },
	LENIENT_LONGOPT,
	VERBOSE_LONGOPT,
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

/* Append " @opt @arg" (@arg NULL: none) to the options string *@acc. */
static void how_add(char **acc, const char *opt, const char *arg)
{
	char *s;

	if (asprintf(&s, "%s%s%s%s%s", *acc ? *acc : "", *acc ? " " : "", opt, arg ? " " : "",
		     arg ? arg : "") < 0)
		die_(EXIT_FAIL, "out of memory");
	free(*acc);
	*acc = s;
}

static void set_mode(struct split *sp, enum mode m, const char *opt, const char *arg)
{
	int64_t ns;

	if (sp->mode != M_NONE && sp->mode != m)
		usage_error("give one of --every, --events, --size, --per-cpu, --per-buffer");
	sp->mode = m;
	free(sp->mode_how);
	sp->mode_how = NULL;
	how_add(&sp->mode_how, m == M_CPU ? "--per-cpu" : m == M_BUFFER ? "--per-buffer" :
		m == M_EVERY ? "--every" : m == M_EVENTS ? "--events" : "--size", arg);
	if (m == M_EVERY) {
		/* a bare number would be nanoseconds: a unit must say what is meant */
		if (!parse_ns(arg, &ns) || ns <= 0 || isdigit((unsigned char)arg[strlen(arg) - 1]))
			usage_error("invalid --every '%s' (a duration with its unit: 10s, 1.5ms, ...)", arg);
		sp->limit = (uint64_t)ns;
	} else if (m == M_EVENTS || m == M_SIZE) {
		sp->limit = parse_count(opt, arg, m == M_SIZE);
		sp->size_arg = arg;
	}
}

static void parse_args(struct split *sp, int argc, char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, "o:i:j:hV" SELECT_SHORTOPTS, longopts, NULL)) != -1) {
		if (select_option(&sp->sel, c, optarg)) {
			how_add(&sp->how, select_option_name(c), c == 'v' || c == OPT_SEL_TOP ? NULL : optarg);
			continue;
		}
		switch (c) {
		case OPT_EVERY: set_mode(sp, M_EVERY, "every", optarg); break;
		case OPT_EVENTS: set_mode(sp, M_EVENTS, "events", optarg); break;
		case OPT_SIZE: set_mode(sp, M_SIZE, "size", optarg); break;
		case OPT_PER_CPU: set_mode(sp, M_CPU, "per-cpu", NULL); break;
		case OPT_PER_BUFFER: set_mode(sp, M_BUFFER, "per-buffer", NULL); break;
		case 'o': sp->prefix = optarg; break;
		case 'i':
			if (sp->input)
				usage_error("one input file only");
			sp->input = optarg;
			break;
		case 'j': sp->jobs = parse_jobs(optarg); break;
		case OPT_MAX_PIECES: sp->max_pieces = parse_count("max-pieces", optarg, false); break;
		case OPT_FILE_VERSION: case OPT_COMPRESSION:
			dat_layout_option(&sp->dat, c == OPT_FILE_VERSION, optarg);
			how_add(&sp->how, c == OPT_FILE_VERSION ? "--file-version" : "--compression", optarg);
			break;
		case OPT_PROGRESS: sp->progress = 1; break;
		case OPT_NO_PROGRESS: sp->progress = 0; break;
		case OPT_TS2SECS:
			sp->open.ts2secs_hz = parse_hz(optarg);
			how_add(&sp->how, "--ts2secs", optarg);
			break;
		case OPT_FORCE: sp->force = true; break;
		case OPT_LENIENT: lenient = true; break;
		case OPT_VERBOSE: verbose = true; break;
		case 'h': usage(stdout, EXIT_OK);
		case 'V': print_version();
		default: fprintf(stderr, "Try '%s --help' for more information.\n", progname);
			 exit(EXIT_USAGE);
		}
	}
	if (sp->mode == M_NONE)
		usage_error("say how to split: --every, --events, --size, --per-cpu or --per-buffer");
	if (sp->how)		/* the cut first, then the other options in their order */
		how_add(&sp->mode_how, sp->how, NULL);
	free(sp->how);
	sp->how = sp->mode_how;
	sp->mode_how = NULL;
	if (dat_layout_v6(&sp->dat) && dat_layout_zlib(&sp->dat))
		usage_error("trace.dat version 6 is not compressed");
	dat_zlib_warning(&sp->dat);
	if (optind + !sp->input < argc)
		usage_error("one input file only");
	if (!sp->input)
		sp->input = optind < argc ? argv[optind] : default_input();
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

/* Whether @name is PREFIX-BASE.NNNN.dat (four digits or more), a sequential piece's name. */
static bool seq_name(const char *name, const char *base)
{
	size_t n = strlen(base), d = 0;

	if (strncmp(name, base, n) || name[n] != '.')
		return false;
	for (name += n + 1; isdigit((unsigned char)name[d]); d++)
		;
	return d >= 4 && !strcmp(name + d, ".dat");
}

/* Every existing file a sequential split could write: none may be the input. */
static void check_seq_names(struct split *sp, char **in)
{
	const char *slash = strrchr(sp->prefix, '/'), *base = slash ? slash + 1 : sp->prefix;
	char *dir = slash ? strndup(sp->prefix, (size_t)(slash - sp->prefix) + 1) : strdup("./");
	struct dirent *e;
	DIR *d;

	if (!dir)
		die_(EXIT_FAIL, "out of memory");
	if ((d = opendir(dir))) {
		while ((e = readdir(d))) {
			char *path;

			if (!seq_name(e->d_name, base))
				continue;
			if (asprintf(&path, "%s%s", slash ? dir : "", e->d_name) < 0)
				die_(EXIT_FAIL, "out of memory");
			refuse_input_as_output("piece", path, in, 1);
			free(path);
		}
		closedir(d);
	}
	free(dir);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether @name is BASE.SOMETHING.dat: a name a split at prefix BASE may have written. */
static bool piece_like(const char *name, const char *base)
{
	size_t n = strlen(base), len = strlen(name);

	return !strncmp(name, base, n) && name[n] == '.' && len > n + 5 &&
	       !strcmp(name + len - 4, ".dat");
}

/* The piece mark of @path, if it is a trace.dat that carries one (of another split than ours). */
static bool earlier_piece(struct split *sp, const char *path, char **how)
{
	struct tdat_file *f = tdat_file_new();
	const struct tdat_piece *p;
	bool earlier = false;

	if (!f)
		die_(EXIT_FAIL, "out of memory");
	if (!tdat_file_open(f, path, NULL) && (p = tdat_file_piece(f)) && p->split != sp->mark.split) {
		earlier = true;
		if (!*how && asprintf(how, "%s%s of %s", *p->how ? "tdat-split " : "a split",
				      p->how, p->name) < 0)
			die_(EXIT_FAIL, "out of memory");
	}
	tdat_file_free(f);
	return earlier;
}

/*
 * The pieces of an earlier split at this prefix would be read with this
 * one's (PREFIX.*.dat): refuse, or with --force remove them (a file without
 * a piece mark is never touched).
 */
static void check_earlier(struct split *sp)
{
	const char *slash = strrchr(sp->prefix, '/'), *base = slash ? slash + 1 : sp->prefix;
	char *dir = slash ? strndup(sp->prefix, (size_t)(slash - sp->prefix) + 1) : strdup("./");
	char **found = NULL, *how = NULL, *path;
	struct dirent *e;
	int n = 0;
	DIR *d;

	if (!dir)
		die_(EXIT_FAIL, "out of memory");
	for (d = opendir(dir); d && (e = readdir(d));) {
		if (!piece_like(e->d_name, base))
			continue;
		if (asprintf(&path, "%s%s", slash ? dir : "", e->d_name) < 0 ||
		    !(found = realloc(found, sizeof(*found) * (size_t)(n + 1))))
			die_(EXIT_FAIL, "out of memory");
		if (earlier_piece(sp, path, &how))
			found[n++] = path;
		else
			free(path);
	}
	if (d)
		closedir(d);
	if (n > 1)
		qsort(found, (size_t)n, sizeof(*found), cmp_names);
	if (n && !sp->force)
		usage_error("%s%s%s (%d file%s) hold%s pieces of an earlier split at this prefix (%s), "
			    "which would be read with this split's: remove them, choose another -o, "
			    "or give --force to remove them first", found[0], n > 1 ? " ... " : "",
			    n > 1 ? found[n - 1] : "", n, n == 1 ? "" : "s", n == 1 ? "s" : "", how);
	for (int i = 0; i < n; i++)
		if (unlink(found[i]))
			die_(EXIT_FAIL, "%s: %s", found[i], strerror(errno));
	if (n)
		warnx_("--force: removed %d piece%s of an earlier split at %s (%s)", n,
		       n == 1 ? "" : "s", sp->prefix, how);
	for (int i = 0; i < n; i++)
		free(found[i]);
	free(found);
	free(how);
	free(dir);
}

/* Before anything is written: no piece this run could write may be the input. */
static void check_names(struct split *sp)
{
	struct tdat_file *f = tdat_merge_file(sp->m, 0);
	char *in[1] = { (char *)sp->input };

	if (!strcmp(sp->input, "-"))
		return;
	if (sp->mode != M_CPU && sp->mode != M_BUFFER) {
		check_seq_names(sp, in);
		return;
	}
	for (int b = 0; b < tdat_file_info(f)->nbuffers; b++) {
		const struct tdat_buffer_info *bi = tdat_file_buffer(f, b);

		for (int c = 0; c < (sp->mode == M_CPU ? bi->ncpus : 1); c++) {
			char *name = piece_name(sp, sp->mode == M_CPU ? bi->cpus[c].cpu : b);

			refuse_input_as_output("piece", name, in, 1);
			free(name);
		}
	}
}

/* Per-CPU and per-buffer splits know their piece count before they start. */
static void check_count(struct split *sp)
{
	struct tdat_file *f = tdat_merge_file(sp->m, 0);
	int cpus[256], ncpus = 0, keys = 0;

	for (int b = 0; b < tdat_file_info(f)->nbuffers; b++) {
		const struct tdat_buffer_info *bi = tdat_file_buffer(f, b);

		keys += sp->mode == M_BUFFER && !bi->latency;
		for (int c = 0; sp->mode == M_CPU && c < bi->ncpus; c++) {
			int k = 0;

			while (k < ncpus && cpus[k] != bi->cpus[c].cpu)
				k++;
			keys += k == ncpus;	/* a CPU not seen yet (or past 256 CPUs) */
			if (k == ncpus && ncpus < 256)
				cpus[ncpus++] = bi->cpus[c].cpu;
		}
	}
	if ((uint64_t)keys > sp->max_pieces)
		usage_error("the split would write %d pieces, past --max-pieces %llu", keys,
			    (unsigned long long)sp->max_pieces);
}

/*
 * --size must hold what every piece repeats (the input's metadata: event
 * formats, kallsyms, ...) and a page of events, and each CPU's data starts
 * on a page of its own; else every event would make a piece of its own.
 */
static void check_size(struct split *sp)
{
	struct tdat_writer *w = tdat_writer_new("dat");
	struct tdat_file *f = tdat_merge_file(sp->m, 0);
	unsigned page = tdat_file_info(f)->page_size;
	uint64_t meta;

	for (int b = 0; b < tdat_file_info(f)->nbuffers; b++)
		page += tdat_file_buffer(f, b)->ncpus * tdat_file_buffer(f, b)->page_size;
	if (!w)
		die_(EXIT_FAIL, "out of memory");
	dat_layout_set(w, &sp->dat);
	meta = tdat_writer_open(w, -1, NULL, sp->m, 0) ? 0 : tdat_writer_size(w);
	tdat_writer_free(w);
	if (meta && sp->limit < meta + page)
		usage_error("--size %s is too small for this input: every piece repeats its "
			    "metadata (%llu bytes) and needs room for a page of events and a page "
			    "per CPU (%u bytes); the smallest size that works is --size %lluk",
			    sp->size_arg, (unsigned long long)meta, page,
			    (unsigned long long)((meta + page + 1023) / 1024));
}

/* One more piece would pass --max-pieces: say so (the run then removes what it wrote). */
static bool room_for_piece(struct split *sp)
{
	if ((uint64_t)sp->seq < sp->max_pieces)
		return true;
	warnx_("the split would write more pieces than --max-pieces %llu; it stopped, and the "
	       "%d written are removed: cut bigger pieces or raise --max-pieces",
	       (unsigned long long)sp->max_pieces,
	       sp->mode == M_CPU || sp->mode == M_BUFFER ? sp->nopen : sp->ndone);
	return false;
}

static int piece_start(struct split *sp, struct piece *p, int key)
{
	char *name;
	int ret;

	memset(p, 0, sizeof(*p));
	p->key = key;
	p->seq = ++sp->seq;
	name = piece_name(sp, key);
	if (!(p->w = tdat_writer_new("dat")))
		die_(EXIT_FAIL, "out of memory");
	ret = out_open(&p->out, name, TDAT_OUT_STREAM, true);
	p->out.path = name;	/* owned by the piece: piece_end() frees it */
	if (ret)
		return -1;
	dat_layout_set(p->w, &sp->dat);
	if (tdat_writer_open(p->w, p->out.fd, NULL, sp->m, 0)) {
		warnx_("%s: %s", name, tdat_writer_errmsg(p->w));
		return -1;
	}
	return 0;
}

/*
 * Close a piece, marked as piece p->seq of @count (0: not known yet);
 * a committed one is remembered (and removed if the run fails later), a
 * failed one removed.
 */
static int piece_end(struct split *sp, struct piece *p, bool ok, int count)
{
	char *name = (char *)p->out.path;
	struct tdat_piece mark = sp->mark;

	if (!p->w)
		return 0;
	mark.seq = (unsigned)p->seq;
	mark.count = (unsigned)count;
	if (ok && tdat_writer_set_piece(p->w, &mark))
		die_(EXIT_FAIL, "%s: cannot mark the piece", name);
	if (ok && tdat_writer_close(p->w)) {
		warnx_("%s: %s", name, tdat_writer_errmsg(p->w));
		ok = false;
	}
	tdat_writer_free(p->w);
	p->w = NULL;
	if (ok && !out_commit(&p->out)) {
		sp->ndone++;
		free(name);
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
		if (piece_end(sp, p, true, 0) || !room_for_piece(sp))
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
	if (!room_for_piece(sp))
		return NULL;
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

/* 64-bit FNV-1a of @n bytes, going on from @h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return (h ^ 0xff) * 0x100000001b3ULL;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
	return fnv(h, s, strlen(s));
}

/*
 * What identifies the input's contents, whatever its path or how it came
 * (a file, a pipe): its header facts, every CPU's data (where and how much)
 * and the span of its events.
 */
static uint64_t source_digest(struct tdat_file *f, struct tdat_merge *m)
{
	const struct tdat_file_info *fi = tdat_file_info(f);
	uint64_t h = 0xcbf29ce484222325ULL, first = 0, last = 0;
	uint64_t n[] = { fi->file_size, (uint64_t)fi->version, (uint64_t)fi->big_endian,
			 (uint64_t)fi->long_size, fi->page_size, (uint64_t)fi->cpus,
			 (uint64_t)fi->nbuffers };

	tdat_merge_span(m, &first, &last);
	h = fnv(h, n, sizeof(n));
	h = fnv(h, &first, sizeof(first));
	h = fnv(h, &last, sizeof(last));
	h = fnv_str(fnv_str(fnv_str(h, fi->compression), fi->uname), fi->tracecmd_version);
	h = fnv_str(fnv_str(h, fi->clock), fi->cpustat);
	for (int b = 0; b < fi->nbuffers; b++) {
		const struct tdat_buffer_info *bi = tdat_file_buffer(f, b);

		h = fnv_str(fnv_str(h, bi->name), bi->clock);
		h = fnv(h, &bi->page_size, sizeof(bi->page_size));
		for (int c = 0; c < bi->ncpus; c++) {
			uint64_t cpu[] = { (uint64_t)bi->cpus[c].cpu, bi->cpus[c].offset, bi->cpus[c].size };

			h = fnv(h, cpu, sizeof(cpu));
		}
	}
	return h;
}

/*
 * What marks this split's pieces: the input's contents and the options that
 * cut it, so that one command on one file gives the same pieces, byte for
 * byte, wherever they are written and whatever -j, and another cut of it
 * another split.
 */
static void set_mark(struct split *sp, struct tdat_file *in)
{
	sp->mark.source = source_digest(in, sp->m);
	sp->mark.split = fnv_str(fnv(0xcbf29ce484222325ULL, &sp->mark.source, 8), sp->how);
	sp->mark.how = sp->how;
	sp->mark.name = tdat_file_info(in)->name;
}

/* Split; on failure remove every piece, finished or not. */
static int run(struct split *sp)
{
	int ret, bound;

	check_names(sp);
	check_earlier(sp);
	if (sp->mode == M_CPU || sp->mode == M_BUFFER) {
		check_count(sp);
	} else {
		if (!(sp->open_pieces = calloc(1, sizeof(*sp->open_pieces))))
			die_(EXIT_FAIL, "out of memory");
		sp->nopen = 1;
	}
	if (sp->mode == M_SIZE)
		check_size(sp);
	if (sp->sel && (bound = tdat_select_bind(sp->sel, sp->m))) {
		warnx_("%s", tdat_select_errmsg(sp->sel));
		return bound == TDAT_EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}
	outs_track();
	ret = split_events(sp);
	for (int i = 0; i < sp->nopen; i++)
		ret |= piece_end(sp, &sp->open_pieces[i], ret == 0,
				 sp->mode == M_CPU || sp->mode == M_BUFFER ? sp->nopen : sp->seq);
	if (ret) {
		outs_remove();
		return EXIT_FAIL;
	}
	if (!sp->ndone && sp->sel)
		warn_empty_selection(sp->sel, sp->m);
	if (!sp->ndone)
		warnx_("no event%s: no piece written", sp->sel ? " selected" : " in the input");
	return damage_status(report_damage(sp->m));
}

int main(int argc, char **argv)
{
	struct split sp = { .progress = -1, .max_pieces = DEFAULT_MAX_PIECES,
			    .jobs = default_jobs() };
	struct tdat_file *in = NULL;
	int ret = EXIT_FAIL;

	tool_init(argv);
	parse_args(&sp, argc, argv);
	if (!(sp.m = tdat_merge_new()) || tdat_merge_set_jobs(sp.m, sp.jobs))
		die_(EXIT_FAIL, "out of memory");
	in = open_input(sp.input, &sp.open);
	if (in && !sp.prefix)
		sp.prefix = tdat_file_info(in)->name;	/* base name without .dat */
	if (in && merge_input(sp.m, in)) {
		ret = EXIT_FAIL;
	} else if (in) {
		dat_sections_warning(in, &sp.dat);
		set_mark(&sp, in);
		ret = run(&sp);
	}
	tdat_select_free(sp.sel);
	tdat_merge_free(sp.m);
	tdat_file_free(in);
	free(sp.open_pieces);
	free(sp.how);
	return ret;
}
