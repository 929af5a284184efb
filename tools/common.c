/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common.c - what every tdat tool shares: messages in the form
 * `prog: subject: reason`, exit codes (0 ok, 1 failure, 2 usage), output
 * files written under a temporary name and renamed only on success (and
 * removed on SIGINT/SIGTERM), damage reports and progress on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include "common.h"

const char *progname = "tdat";
bool inputs_damaged;
bool lenient;
/* Temporary outputs not yet renamed, removed on SIGINT/SIGTERM/SIGHUP. */
#define MAX_TMP 256
static char *volatile tmp_paths[MAX_TMP];
static volatile sig_atomic_t tmp_dirs[MAX_TMP];

/* Remove a temporary output directory and the files in it. */
static void remove_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(path);
}

static bool tmp_add(char *path, bool dir)
{
	for (int i = 0; i < MAX_TMP; i++) {
		if (!tmp_paths[i]) {
			tmp_dirs[i] = dir;
			tmp_paths[i] = path;
			return true;
		}
	}
	return false;
}

/* Forget @path; remove it first if @remove. */
static void tmp_done(const char *path, bool remove)
{
	for (int i = 0; i < MAX_TMP; i++) {
		if (tmp_paths[i] != path)
			continue;
		if (remove && tmp_dirs[i])
			remove_dir(path);
		else if (remove)
			unlink(path);
		tmp_paths[i] = NULL;
	}
}

/* Remove every temporary output; true if there was one. */
static bool remove_all_tmp(void)
{
	bool had = false;

	for (int i = 0; i < MAX_TMP; i++) {
		if (tmp_paths[i]) {
			had = true;
			tmp_done(tmp_paths[i], true);
		}
	}
	return had;
}

static void say(const char *s)
{
	if (write(STDERR_FILENO, s, strlen(s)) < 0)
		return;
}

/*
 * SIGINT, SIGTERM, SIGHUP: remove the output being written, say so, and die
 * by the signal, so that the caller sees it (status 128+N in a shell).
 * SIGPIPE keeps its default: `tdat-convert ... | head` ends quietly.
 */
static void on_signal(int sig)
{
	bool had_tmp = remove_all_tmp();

	say(progname);
	say(sig == SIGINT ? ": interrupted" : sig == SIGTERM ? ": terminated" : ": hangup");
	say(had_tmp ? "; the unfinished output was removed\n" : "\n");
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Hold (or let through again) the signals that remove the output. */
static void block_signals(bool block)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

void tool_init(char **argv)
{
	const char *s = strrchr(argv[0], '/');

	progname = s ? s + 1 : argv[0];
	argv[0] = (char *)progname;	/* getopt's messages: "tdat-convert: ...", not the path */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
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
	exit(code);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", progname);
	exit(EXIT_USAGE);
}

void print_version(void)
{
	printf("%s (%s) %s\n", progname, PACKAGE_NAME, PACKAGE_VERSION);
	exit(EXIT_OK);
}

unsigned dat_layout_option(unsigned wflags, bool version, const char *arg)
{
	if (version && (!strcmp(arg, "6") || !strcmp(arg, "7")))
		return (wflags & ~TDAT_W_V6) | (arg[0] == '6' ? TDAT_W_V6 : 0);
	if (!version && (!strcmp(arg, "zstd") || !strcmp(arg, "zlib") || !strcmp(arg, "none")))
		return (wflags & ~(TDAT_W_ZLIB | TDAT_W_ZNONE)) |
		       (arg[1] == 'l' ? TDAT_W_ZLIB : arg[0] == 'n' ? TDAT_W_ZNONE : 0);
	usage_error("invalid --%s '%s'", version ? "file-version" : "compression", arg);
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

bool parse_ns(const char *s, int64_t *out)
{
	static const struct { const char *unit; int64_t mul; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }, { "", 1 },
	};
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s)
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (__builtin_mul_overflow((int64_t)v, units[i].mul, out))
			return false;
		return true;
	}
	return false;
}

/* An output directory must not exist, or be empty: say so before any work. */
static bool dir_usable(const char *path)
{
	struct stat st;
	struct dirent *e;
	bool empty = true;
	DIR *d;

	if (stat(path, &st))
		return true;
	if (!S_ISDIR(st.st_mode)) {
		warnx_("%s: exists and is not a directory", path);
		return false;
	}
	if (!(d = opendir(path))) {
		warn_("%s", path);
		return false;
	}
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	if (!empty)
		warnx_("%s: directory exists and is not empty", path);
	return empty;
}

/*
 * A device or a pipe (-o /dev/null, /dev/full, a FIFO) is written in place:
 * a temporary file renamed over it would replace the device node.
 */
/* The process's umask; umask() can only be read by setting it, so set it back. */
static mode_t current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

static int out_open_special(struct tool_out *o, int kind, bool binary)
{
	if (kind != TDAT_OUT_STREAM) {
		warnx_("%s: not a regular file", o->path);
		return -1;
	}
	o->fd = open(o->path, O_WRONLY | O_CLOEXEC);
	if (o->fd < 0) {
		warn_("%s", o->path);
		return -1;
	}
	if (binary && isatty(o->fd)) {
		warnx_("%s: refusing to write binary output to a terminal", o->path);
		close(o->fd);
		o->fd = -1;
		return -1;
	}
	return 0;
}

int out_open(struct tool_out *o, const char *path, int kind, bool binary)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!path || !strcmp(path, "-")) {
		if (kind != TDAT_OUT_STREAM)
			usage_error("this format needs an output %s: -o %s",
				    kind == TDAT_OUT_DIR ? "directory" : "file",
				    kind == TDAT_OUT_DIR ? "DIR" : "FILE");
		if (binary && isatty(STDOUT_FILENO)) {
			warnx_("refusing to write binary output to a terminal (use -o FILE)");
			return -1;
		}
		o->fd = STDOUT_FILENO;
		return 0;
	}
	o->path = path;
	o->dir = kind == TDAT_OUT_DIR;
	if (o->dir && !dir_usable(path))
		return -1;
	if (!o->dir && !stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return out_open_special(o, kind, binary);
	if (asprintf(&o->tmp, "%s.tmp-XXXXXX", path) < 0)
		die_(EXIT_FAIL, "out of memory");
	/* a signal between creating the file and noting its name would leave it behind */
	block_signals(true);
	if (o->dir ? !mkdtemp(o->tmp) : (o->fd = mkostemp(o->tmp, O_CLOEXEC)) < 0) {
		block_signals(false);
		warn_("%s", path);
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	if (!tmp_add(o->tmp, o->dir)) {
		block_signals(false);
		warnx_("%s: too many outputs open at once (at most %d)", path, MAX_TMP);
		out_abort(o);
		return -1;
	}
	block_signals(false);
	if (o->dir)
		chmod(o->tmp, 0777 & ~current_umask());
	else
		fchmod(o->fd, 0666 & ~current_umask());
	return 0;
}

int out_commit(struct tool_out *o)
{
	int ret = 0;

	if (!o->tmp) {
		/* stdout: a failed close catches ENOSPC on redirected output */
		if (o->fd >= 0 && close(o->fd) && errno != EINTR) {
			warn_("%s", o->path ? o->path : "standard output");
			return -1;
		}
		return 0;
	}
	block_signals(true);	/* renamed and forgotten at once */
	if (o->fd >= 0 && close(o->fd)) {
		warn_("%s", o->path);
		ret = -1;
	} else if (rename(o->tmp, o->path)) {
		if (o->dir && (errno == ENOTEMPTY || errno == EEXIST))
			warnx_("%s: directory exists and is not empty", o->path);
		else
			warn_("%s", o->path);
		ret = -1;
	}
	tmp_done(o->tmp, ret != 0);
	block_signals(false);
	free(o->tmp);
	o->tmp = NULL;
	return ret;
}

void out_abort(struct tool_out *o)
{
	if (!o->tmp)
		return;
	if (o->fd >= 0)
		close(o->fd);
	tmp_done(o->tmp, true);
	if (o->dir)
		remove_dir(o->tmp);	/* when it was never registered */
	else
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
}

bool out_is_input(const char *out, char **inputs, int n)
{
	struct stat so, si;

	if (!out || !strcmp(out, "-") || stat(out, &so))
		return false;
	for (int i = 0; i < n; i++)
		if (strcmp(inputs[i], "-") && !stat(inputs[i], &si) &&
		    si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			return true;
	return false;
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
	for (int i = 0; i < tdat_file_nwarnings(f); i++) {
		warnx_("%s: %s", strcmp(path, "-") ? path : "(stdin)", tdat_file_warning(f, i));
		inputs_damaged = true;
	}
	return f;
}

/* One damaged region of @f: what, where, and how much was skipped. */
static uint64_t warn_region(struct tdat_file *f, const struct tdat_damage *d)
{
	const struct tdat_buffer_info *b = tdat_file_buffer(f, d->buffer);

	warnx_("%s: %s (offset %llu, cpu %d%s%s%s): %llu bytes skipped",
	       tdat_file_info(f)->path, d->reason, (unsigned long long)d->offset,
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

void check_pipe(int err)
{
	if (err != EPIPE)
		return;
	remove_all_tmp();
	signal(SIGPIPE, SIG_DFL);
	raise(SIGPIPE);
	exit(128 + SIGPIPE);
}

int damage_status(bool damaged)
{
	return damaged && !lenient ? EXIT_FAIL : EXIT_OK;
}

/* ---- selection ---- */

bool parse_time(const char *s, int64_t *ns, bool *relative)
{
	const char *p = s, *dot;
	int64_t v = 0;
	int digits = 0;

	*relative = *p == '+';
	if (*relative)
		p++;
	if (strpbrk(p, "nums"))
		return parse_ns(p, ns) && *ns >= 0;
	/* seconds with up to 9 decimals, exactly */
	dot = strchr(p, '.');
	for (; *p && p != dot; p++) {
		if (*p < '0' || *p > '9' || __builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, *p - '0', &v))
			return false;
		digits++;
	}
	if (!digits || __builtin_mul_overflow(v, 1000000000, &v))
		return false;
	if (dot) {
		int64_t scale = 100000000;

		for (p = dot + 1; *p; p++, scale /= 10) {
			if (*p < '0' || *p > '9' || (!scale && *p != '0'))
				return false;
			v += (*p - '0') * scale;
		}
	}
	*ns = v;
	return true;
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
	uint64_t done, total;
	double t, pct, rate, left;

	progress_events = events;
	if (!progress_on || (events & 0xffff))
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
