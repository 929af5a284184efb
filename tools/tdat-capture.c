/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat-capture - a thin recorder over tracefs that writes trace.dat (v7,
 * zstd by default): record in a private instance (removed at the end, on
 * Ctrl-C too), or start/stop/extract/reset a named one that survives
 * between calls; list what the kernel offers; stat an instance.  The
 * tracefs work is libfmt's (tdat_capture_*); this file parses options,
 * runs the command, handles signals and talks to the user.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define MAX_SETTINGS 256

enum {
	OPT_CPUS = 2000, OPT_SUBBUF, OPT_COMPRESSION, OPT_FILE_VERSION, OPT_TOP, OPT_DURATION,
	OPT_FILTER
};

struct opts {
	const char *cmd;
	const char *events[MAX_SETTINGS], *options[MAX_SETTINGS];
	const char *filters[MAX_SETTINGS];	/* --filter 'EVENTS:EXPR' */
	const char *fexprs[MAX_SETTINGS];	/* -f EXPR ... */
	int fevent[MAX_SETTINGS];		/* ... for events[fevent[i]], the -e before it */
	int pids[MAX_SETTINGS];			/* -P */
	int nevents, nfilters, nfexprs, noptions, npids;
	unsigned buffer_kb, subbuf_kb;
	const char *clock, *cpus, *cpumask;
	const char *output, *instance;
	bool top, quiet, settings;
	bool follow, children;	/* -F, -c */
	double duration;	/* seconds; 0: none */
	long sleep_us;		/* -s: the longest wait between reads; 0: 1 s */
	int prio;		/* -r: SCHED_FIFO priority of the recorder; 0: none */
	struct dat_layout_opts dat;	/* --file-version, --compression */
};

static int sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t got_signal;	/* the last SIGINT, SIGTERM or SIGHUP */
static volatile sig_atomic_t nsignals;		/* how many came */

static const char usage_text[] =
	"Usage: %s record [OPTIONS] [-B NAME] [-o FILE] [--duration SECONDS] [-F] [-- COMMAND [ARG]...]\n"
	"       %s start [OPTIONS] [-B NAME]\n"
	"       %s stop | reset [-B NAME]\n"
	"       %s extract [-B NAME | --top] [-o FILE]\n"
	"       %s list [-e GLOB]\n"
	"       %s stat [-B NAME | --top]\n"
	"Record kernel trace events from tracefs into a trace.dat (v7, zstd) that\n"
	"trace-cmd report, KernelShark and every tdat tool read.  The options are\n"
	"trace-cmd record's where it has the same letter; tdat-capture(1) says what differs.\n"
	"\n"
	"record traces in a private instance, removed at the end (also on Ctrl-C,\n"
	"SIGTERM, SIGHUP), until COMMAND exits (its exit status becomes ours), the\n"
	"duration ends, the pids of -P have exited or a signal comes.  COMMAND finds the\n"
	"instance's directory in $TDAT_CAPTURE_DIR (write lines to $TDAT_CAPTURE_DIR/trace_marker).\n"
	"start/stop/extract/reset work on a named instance that survives between calls.\n"
	"\n"
	"Options (record, start):\n"
	"  -e, --event SPEC        SYSTEM, SYSTEM:EVENT or EVENT, globs (repeatable)\n"
	"  -f, --event-filter EXPR kernel-side filter on the events of the -e before it,\n"
	"                          e.g. -e sched:sched_switch -f 'prev_pid > 1'; several: all hold\n"
	"      --filter 'EVENTS:EXPR'  the same, naming the events (repeatable; formerly -F)\n"
	"  -F, --follow            record: only COMMAND's events (set before it runs)\n"
	"  -P, --pid PID[,PID]...  only these processes' events (repeatable); without\n"
	"                          COMMAND, record ends when they have all exited\n"
	"  -c, --children          with -F or -P: their children's too (event-fork)\n"
	"  -b, --buffer-size KB    ring buffer size per CPU (buffer_size_kb)\n"
	"      --subbuf-size KB    sub-buffer (page) size (Linux 6.8 or later)\n"
	"  -C, --clock CLOCK       trace clock (see list).  The default, local, is a\n"
	"                          per-CPU clock: fast, but CPUs may drift apart, so events\n"
	"                          merged from several CPUs can come out of order.  global\n"
	"                          is one clock for all CPUs; mono is CLOCK_MONOTONIC, the\n"
	"                          clock of user-space timestamps (clock_gettime).  Use one\n"
	"                          of them when the order across CPUs matters.\n"
	"  -M, --cpumask HEX       trace only these CPUs, a hex mask (3: CPUs 0 and 1; -1: all)\n"
	"      --cpus LIST         the same as a list, e.g. 0,2-3\n"
	"  -O, --option [no]NAME   set or clear a tracefs option, e.g. stacktrace (repeatable)\n"
	"  -T, --stacktrace        a kernel stack trace with every event (-O stacktrace)\n"
	"Output (record, extract):\n"
	"  -o, --output FILE       the trace.dat (default trace.dat; - is stdout, not a terminal)\n"
	"      --compression zstd|zlib|none   (default zstd)\n"
	"      --file-version 6|7  trace.dat version (6 is uncompressed)\n"
	"      --duration SECONDS  record: stop after this long (e.g. 10, 2.5, 500ms)\n"
	"  -s USECS                record: read at least this often (default 1000000; a CPU's\n"
	"                          buffer 10%% full wakes the reader sooner)\n"
	"  -r PRIO                 record: read at real-time priority PRIO (SCHED_FIFO, 1-99)\n"
	"Other:\n"
	"  -B, --buffer NAME       the instance: record's new one (default tdat-capture-PID),\n"
	"                          the named one of the others (default tdat); before -e etc.\n"
	"      --top               the top buffer instead; what is changed is put back\n"
	"  -q, --quiet             no summary of events and bytes per CPU on stderr\n"
	"  -h, --help              this help;  -V, --version  the version\n"
	"\n"
	"Exit status: 0 success (record with COMMAND: COMMAND's status), 1 failure,\n"
	"2 usage error.\n";

static void __attribute__((noreturn)) usage(FILE *f, int code)
{
	fprintf(f, usage_text, progname, progname, progname, progname, progname, progname);
	exit(code);
}

static void die_cap(struct tdat_capture *c, int ret)
{
	const char *msg = c ? tdat_capture_errmsg(c) : "";

	warnx_("%s", *msg ? msg : tdat_strerror(ret));
}

static unsigned parse_kb(const char *s, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (end == s || *end || !v || v > 0x7fffffffUL)
		usage_error("invalid %s '%s' (a size in KB)", what, s);
	return (unsigned)v;
}

/* A number in [@min, @max] for option -@opt. */
static long parse_num(const char *s, char opt, long min, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < min || v > max)
		usage_error("invalid -%c '%s' (a number from %ld to %ld)", opt, s, min, max);
	return v;
}

static double parse_duration(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	int64_t ns;

	if (end != s && !*end && v > 0 && isfinite(v))
		return v;
	if (parse_ns(s, &ns) && ns > 0)
		return (double)ns / 1e9;
	usage_error("invalid duration '%s' (seconds, or with a unit: 500ms)", s);
}

static int add(const char **arr, int *n, const char *v)
{
	if (*n == MAX_SETTINGS)
		usage_error("too many -e/-f/-O/-P/--filter options");
	arr[(*n)++] = v;
	return *n - 1;
}

/* -P PID[,PID]...: processes that exist now. */
static void add_pids(struct opts *o, const char *list)
{
	const char *p = list;
	char *end;

	while (*p) {
		long pid = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : 0;

		if (pid <= 0 || pid > INT32_MAX || (*end && *end != ','))
			usage_error("invalid -P '%s' (pids, e.g. 1234,5678)", list);
		if (kill((pid_t)pid, 0) && errno == ESRCH)
			usage_error("-P: no process %ld", pid);
		if (o->npids == MAX_SETTINGS)
			usage_error("too many -P pids");
		o->pids[o->npids++] = (int)pid;
		p = *end ? end + 1 : end;
	}
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "event-filter", required_argument, NULL, 'f' },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "follow", no_argument, NULL, 'F' },
		{ "pid", required_argument, NULL, 'P' },
		{ "children", no_argument, NULL, 'c' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "subbuf-size", required_argument, NULL, OPT_SUBBUF },
		{ "clock", required_argument, NULL, 'C' },
		{ "cpumask", required_argument, NULL, 'M' },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ "option", required_argument, NULL, 'O' },
		{ "stacktrace", no_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "compression", required_argument, NULL, OPT_COMPRESSION },
		{ "file-version", required_argument, NULL, OPT_FILE_VERSION },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "buffer", required_argument, NULL, 'B' },
		{ "top", no_argument, NULL, OPT_TOP },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	bool compressed = false;
	int c;

	while ((c = getopt_long(argc, argv, "+e:f:FP:cb:C:M:O:To:s:r:dB:qhV", longopts, NULL)) != -1) {
		bool setting = strchr("fFPcbCMOT", c) || c == OPT_SUBBUF || c == OPT_CPUS || c == OPT_FILTER;

		/* trace-cmd applies what comes before -B to the top buffer: we record one buffer */
		if (c == 'B' && (o->settings || o->nevents))
			usage_error("-B NAME comes before the options of its buffer (-e, -f, -b ...): "
				    "in trace-cmd record, those before -B are the top buffer's");
		o->settings |= setting;
		switch (c) {
		case 'e': add(o->events, &o->nevents, optarg); break;
		case 'f':
			if (!o->nevents)
				usage_error("-f '%s' filters the events of the -e before it: there is none",
					    optarg);
			o->fevent[add(o->fexprs, &o->nfexprs, optarg)] = o->nevents - 1;
			break;
		case OPT_FILTER: add(o->filters, &o->nfilters, optarg); break;
		case 'F': o->follow = true; break;
		case 'P': add_pids(o, optarg); break;
		case 'c': o->children = true; break;
		case 'O': add(o->options, &o->noptions, optarg); break;
		case 'T': add(o->options, &o->noptions, "stacktrace"); break;
		case 'b': o->buffer_kb = parse_kb(optarg, "buffer size"); break;
		case OPT_SUBBUF: o->subbuf_kb = parse_kb(optarg, "sub-buffer size"); break;
		case 'C': o->clock = optarg; break;
		case 'M': o->cpumask = optarg; break;
		case OPT_CPUS: o->cpus = optarg; break;
		case 'o': o->output = optarg; break;
		case OPT_COMPRESSION:
			dat_layout_option(&o->dat, false, optarg);
			compressed = strcmp(optarg, "none");
			break;
		case OPT_FILE_VERSION: dat_layout_option(&o->dat, true, optarg); break;
		case OPT_DURATION: o->duration = parse_duration(optarg); break;
		case 's': o->sleep_us = parse_num(optarg, 's', 1, 60000000); break;
		case 'r': o->prio = (int)parse_num(optarg, 'r', 1, 99); break;
		case 'd':
			usage_error("-d is trace-cmd record's 'disable the function tracer', which "
				    "tdat-capture does not run; the duration is --duration SECONDS");
		case 'B':
			if (o->instance)
				usage_error("one -B: tdat-capture works on one buffer");
			o->instance = optarg;
			break;
		case OPT_TOP: o->top = true; break;
		case 'q': o->quiet = true; break;
		case 'h': usage(stdout, EXIT_OK);
		case 'V': print_version();
		default: fprintf(stderr, "Try '%s --help' for more information.\n", progname);
			 exit(EXIT_USAGE);
		}
	}
	if (dat_layout_v6(&o->dat) && compressed)
		usage_error("trace.dat version 6 is not compressed (--compression none)");
	dat_zlib_warning(&o->dat);
	if (o->top && o->instance)
		usage_error("-B and --top name two different buffers");
	if (o->cpus && o->cpumask)
		usage_error("-M and --cpus both say which CPUs: one of them");
	if (o->children && !o->follow && !o->npids)
		usage_error("-c follows the children of -F's command or of -P's pids: neither is given");
}

/* A -F command that reads like the old -F 'EVENTS:EXPR' filter. */
static bool looks_like_filter(const char *s)
{
	const char *colon = strchr(s, ':');

	return colon && colon > s && strpbrk(colon, " =<>!~&|");
}

/* ---- signals ---- */

static void on_signal(int sig)
{
	int e = errno;

	if (sig != SIGCHLD) {
		got_signal = sig;
		nsignals++;
	}
	if (sig_pipe[1] >= 0 && write(sig_pipe[1], "", 1) < 0)
		errno = e;
	errno = e;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK))
		die_(EXIT_FAIL, "pipe: %s", strerror(errno));
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a signal ends the wait at once */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	/* a reader that goes away must not kill us before the instance is removed */
	signal(SIGPIPE, SIG_IGN);
}

/* ---- the subcommands ---- */

/* The -f filters of event @i, "(A)&&(B)" as trace-cmd joins them; NULL if none. */
static char *event_filter(const struct opts *o, int i)
{
	size_t n = 1, len = 0;
	char *s;

	for (int k = 0; k < o->nfexprs; k++)
		n += o->fevent[k] == i ? strlen(o->fexprs[k]) + 4 : 0;
	if (n == 1)
		return NULL;
	if (!(s = malloc(n)))
		die_(EXIT_FAIL, "out of memory");
	for (int k = 0; k < o->nfexprs; k++)
		if (o->fevent[k] == i)
			len += (size_t)sprintf(s + len, "%s(%s)", len ? "&&" : "", o->fexprs[k]);
	return s;
}

static int enable_events(struct tdat_capture *c, const struct opts *o)
{
	int ret = 0;

	for (int i = 0; i < o->nevents && !ret; i++) {
		char *f = event_filter(o, i);

		if (!(ret = tdat_capture_enable(c, o->events[i])) && f)
			ret = tdat_capture_event_filter(c, o->events[i], f);
		free(f);
	}
	for (int i = 0; i < o->nfilters && !ret; i++)
		ret = tdat_capture_filter(c, o->filters[i]);
	return ret;
}

/* Start reading, the file written as --file-version and --compression say. */
static int read_begin(struct tdat_capture *c, const struct dat_layout_opts *d)
{
	int ret = 0;

	if (d->version)
		ret = tdat_capture_set_dat_option(c, "version", d->version);
	if (!ret && d->compression)
		ret = tdat_capture_set_dat_option(c, "compression", d->compression);
	return ret ? ret : tdat_capture_read_begin(c);
}

/* Settings of record and start; @child: record's command (-F), or -1. */
static int configure(struct tdat_capture *c, const struct opts *o, pid_t child)
{
	int ret = 0;

	if (o->buffer_kb && (ret = tdat_capture_set_buffer_kb(c, o->buffer_kb)))
		return ret;
	if (o->subbuf_kb && (ret = tdat_capture_set_subbuf_kb(c, o->subbuf_kb)))
		return ret;
	if (o->clock && (ret = tdat_capture_set_clock(c, o->clock)))
		return ret;
	if (o->cpus && (ret = tdat_capture_set_cpus(c, o->cpus)))
		return ret;
	if (o->cpumask && (ret = tdat_capture_set_cpumask(c, o->cpumask)))
		return ret;
	for (int i = 0; i < o->noptions && !ret; i++)
		ret = tdat_capture_set_option(c, o->options[i]);
	if (!ret)
		ret = enable_events(c, o);
	if (!ret && o->follow)
		ret = tdat_capture_follow_pid(c, (int)child, o->children);
	for (int i = 0; i < o->npids && !ret; i++)
		ret = tdat_capture_follow_pid(c, o->pids[i], o->children);
	/* which thread belongs to which process, when the kernel keeps it */
	if (!ret && o->cmd[0] == 'r')
		tdat_capture_set_option(c, "record-tgid");
	return ret;
}

/*
 * Fork COMMAND, held before its exec until release() hands it the
 * instance's directory: its pid can be followed (-F) before it runs, and a
 * child forked now is in no pid list of the recorder's (event-fork would
 * put it in set_event_notrace_pid with us).  *@go: the write end to release.
 */
static pid_t spawn(char **argv, int *go)
{
	char dir[4096];
	size_t n = 0;
	ssize_t r;
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		die_(EXIT_FAIL, "pipe: %s", strerror(errno));
	if ((pid = fork()) < 0)
		die_(EXIT_FAIL, "fork: %s", strerror(errno));
	if (pid) {
		close(p[0]);
		*go = p[1];
		return pid;
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	close(p[1]);
	/* until the end of file (a full buffer reads 0 too) */
	while ((r = read(p[0], dir + n, sizeof(dir) - 1 - n)) > 0 || (r < 0 && errno == EINTR))
		n += r > 0 ? (size_t)r : 0;
	if (!n)
		_exit(127);	/* the capture did not begin: the command does not run */
	dir[n] = '\0';
	setenv("TDAT_CAPTURE_DIR", dir, 1);
	execvp(argv[0], argv);
	fprintf(stderr, "%s: %s: %s\n", progname, argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/* Let the command run (tracing is on): it gets the directory and execs. */
static void release(int *go, const char *dir)
{
	if (*go < 0)
		return;
	if (write(*go, dir, strlen(dir)) < 0)
		warn_("the command: cannot start it");
	close(*go);
	*go = -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Has process @pid ended (gone, or a zombie not yet reaped)? */
static bool ended(int pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return kill(pid, 0) && errno == ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	return n <= 0 || (p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

static bool pids_ended(const struct opts *o)
{
	for (int i = 0; i < o->npids; i++)
		if (!ended(o->pids[i]))
			return false;
	return true;
}

/*
 * Read until the command ends, the time is up, the pids of -P have ended
 * (without a command) or a signal comes; *status: the command's.
 */
static int capture_loop(struct tdat_capture *c, const struct opts *o, pid_t child, const char *name,
			int *status)
{
	double end = o->duration > 0 ? now() + o->duration : 0, grace = 0;
	sig_atomic_t seen = nsignals;
	bool cmd = child > 0, watch = !cmd && o->npids;
	char drain[64];
	int ret = 0, wst;

	while (!ret) {
		int timeout = o->sleep_us ? (int)((o->sleep_us + 999) / 1000) : 1000, sig = 0;

		if (watch && timeout > 200)
			timeout = 200;

		if (nsignals != seen) {
			seen = nsignals;
			sig = got_signal;
		}
		if (child > 0 && waitpid(child, &wst, WNOHANG) == child) {
			*status = WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + WTERMSIG(wst);
			child = -1;
		}
		if ((cmd && child < 0) || (watch && pids_ended(o)))
			break;
		if (sig) {
			/* the command gets the signal too, and a moment to end */
			if (child < 0 || grace)
				break;
			kill(child, sig);
			grace = now() + 2;
		}
		if (grace && now() >= grace)
			break;
		if (end) {
			double left = end - now();

			if (left <= 0)
				break;
			if (left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		if (grace)
			timeout = 100;
		ret = tdat_capture_read(c, timeout, sig_pipe[0]);
		while (read(sig_pipe[0], drain, sizeof(drain)) > 0)
			;
	}
	if (child > 0 && !o->quiet)
		warnx_("%s is still running (pid %d); the capture ends without it", name, (int)child);
	return ret;
}

static void summary(struct tdat_capture *c, const struct opts *o, const char *out)
{
	uint64_t events = 0, lost = 0, bytes = 0, stored = 0;
	struct tdat_capture_cpu s;

	if (o->quiet)
		return;
	for (int i = 0; i < tdat_capture_ncpus(c); i++) {
		if (tdat_capture_cpu_stats(c, i, &s))
			continue;
		fprintf(stderr, "%s: cpu%d: %llu events, %llu bytes read, %llu stored, %llu lost\n",
			progname, s.cpu, (unsigned long long)s.events, (unsigned long long)s.read_bytes,
			(unsigned long long)s.stored, (unsigned long long)(s.overrun + s.dropped));
		events += s.events;
		lost += s.overrun + s.dropped;
		bytes += s.read_bytes;
		stored += s.stored;
	}
	fprintf(stderr, "%s: %llu events (%llu lost), %llu bytes read, %llu stored in %s\n", progname,
		(unsigned long long)events, (unsigned long long)lost, (unsigned long long)bytes,
		(unsigned long long)stored, out && strcmp(out, "-") ? out : "(stdout)");
}

/* record and extract: read into a trace.dat. */
static int capture(const struct opts *o, char **cmd, bool record)
{
	struct tdat_capture *c = tdat_capture_new();
	const char *path = o->output ? o->output : "trace.dat", *inst = o->instance;
	unsigned flags = record ? TDAT_CAP_CREATE | TDAT_CAP_EXCL | TDAT_CAP_REMOVE | TDAT_CAP_MOUNT : 0;
	char name[64];
	struct tool_out out;
	int ret, status = 0, rc, go = -1;
	pid_t child = -1;
	bool ran = false;

	if (!c)
		die_(EXIT_FAIL, "out of memory");
	snprintf(name, sizeof(name), "tdat-capture-%d", (int)getpid());
	if (out_open(&out, path, TDAT_OUT_STREAM, true)) {
		tdat_capture_free(c);
		return EXIT_FAIL;
	}
	catch_signals();
	if (record && *cmd)
		child = spawn(cmd, &go);
	/* after the fork: the command does not inherit it (as trace-cmd, a warning if refused) */
	if (o->prio && sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ .sched_priority = o->prio }))
		warn_("-r %d: cannot run at real-time priority", o->prio);
	ret = tdat_capture_open(c, o->top ? NULL : inst ? inst : record ? name : "tdat", flags);
	if (!ret && record)
		ret = configure(c, o, child);
	/* not our own reads (raw_syscalls would see them), as trace-cmd does */
	if (!ret && record)
		tdat_capture_exclude_pid(c, (int)getpid());
	/* woken early: a busy CPU has 90% of its buffer left while we read */
	if (!ret && record)
		tdat_capture_set_buffer_percent(c, 10);
	if (!ret)
		ret = read_begin(c, &o->dat);
	if (!ret && record && !got_signal) {
		ran = true;
		if (!(ret = tdat_capture_start(c))) {
			release(&go, tdat_capture_dir(c));
			ret = capture_loop(c, o, child, *cmd, &status);
		}
		rc = tdat_capture_stop(c);
		ret = ret ? ret : rc;
	}
	if (go >= 0) {
		/* never released: it ends without running */
		close(go);
		waitpid(child, NULL, 0);
		ran = false;
	}
	if (!ret)
		ret = tdat_capture_read(c, 0, -1);	/* what is left in the buffers */
	if (!ret)
		ret = tdat_capture_write(c, out.fd);
	if (ret)
		die_cap(c, ret);
	else
		summary(c, o, path);
	if ((rc = tdat_capture_close(c))) {
		die_cap(c, rc);
		ret = ret ? ret : rc;
	}
	tdat_capture_free(c);
	if (ret) {
		out_abort(&out);
		return EXIT_FAIL;
	}
	if (out_commit(&out))
		return EXIT_FAIL;
	/* a command that never ran: the signal that prevented it */
	if (*cmd && !ran && got_signal)
		return 128 + got_signal;
	return *cmd ? status : EXIT_OK;
}

static int control(const struct opts *o)
{
	struct tdat_capture *c;
	const char *name = o->instance ? o->instance : "tdat";
	bool start = !strcmp(o->cmd, "start"), reset = !strcmp(o->cmd, "reset");
	int ret, rc;

	if (o->top)
		usage_error("%s works on a named instance only (-B NAME), not on the top buffer", o->cmd);
	if (!(c = tdat_capture_new()))
		die_(EXIT_FAIL, "out of memory");
	ret = tdat_capture_open(c, name, start ? TDAT_CAP_CREATE | TDAT_CAP_MOUNT : reset ? TDAT_CAP_REMOVE : 0);
	if (!ret && start && !(ret = tdat_capture_reset(c)) && !(ret = configure(c, o, -1)))
		ret = tdat_capture_start(c);
	if (!ret && !strcmp(o->cmd, "stop"))
		ret = tdat_capture_stop(c);
	if (!ret && reset)
		ret = tdat_capture_reset(c);
	if (ret)
		die_cap(c, ret);
	if ((rc = tdat_capture_close(c)))
		die_cap(c, rc);
	tdat_capture_free(c);
	return ret || rc ? EXIT_FAIL : EXIT_OK;
}

static void print_list(struct tdat_capture *c, int what, const char *glob, const char *title)
{
	int n;
	const char *const *l = tdat_capture_list(c, what, glob, &n);

	if (!l) {
		die_cap(c, TDAT_EIO);
		exit(EXIT_FAIL);
	}
	if (title)
		printf("%s:", title);
	for (int i = 0; i < n; i++)
		printf(title ? " %s" : "%s\n", l[i]);
	if (title)
		putchar('\n');
}

static int list(const struct opts *o)
{
	struct tdat_capture *c;
	int ret;

	if (o->nevents > 1)
		usage_error("list takes one -e GLOB");
	if (!(c = tdat_capture_new()))
		die_(EXIT_FAIL, "out of memory");
	if ((ret = tdat_capture_open(c, NULL, TDAT_CAP_MOUNT))) {
		die_cap(c, ret);
		tdat_capture_free(c);
		return EXIT_FAIL;
	}
	print_list(c, TDAT_CAP_EVENTS, o->nevents ? o->events[0] : NULL, NULL);
	if (!o->nevents) {
		print_list(c, TDAT_CAP_CLOCKS, NULL, "clocks");
		print_list(c, TDAT_CAP_OPTIONS, NULL, "options");
	}
	tdat_capture_free(c);
	return EXIT_OK;
}

static int stat_cmd(const struct opts *o)
{
	static const char *const files[] = { "tracing_on", "trace_clock", "buffer_size_kb",
					     "buffer_subbuf_size_kb", "tracing_cpumask", "buffer_percent" };
	struct tdat_capture *c = tdat_capture_new();
	struct tdat_capture_cpu s;
	const char *pids;
	int ret;

	if (!c)
		die_(EXIT_FAIL, "out of memory");
	ret = tdat_capture_open(c, o->top ? NULL : o->instance ? o->instance : "tdat", 0);
	if (ret) {
		die_cap(c, ret);
		tdat_capture_free(c);
		return EXIT_FAIL;
	}
	printf("instance: %s\n", tdat_capture_dir(c));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *v = tdat_capture_file(c, files[i]);

		if (v)
			printf("%s: %s\n", files[i], v);
	}
	print_list(c, TDAT_CAP_ENABLED, NULL, "events");
	pids = tdat_capture_file(c, "set_event_pid");
	if (pids && *pids) {
		/* the pids followed (start -P), one a line in the file */
		printf("pids:");
		for (const char *p = pids; *p; p += strcspn(p, "\n"), p += *p == '\n')
			printf(" %.*s", (int)strcspn(p, "\n"), p);
		putchar('\n');
	}
	for (int i = 0; i < tdat_capture_ncpus(c); i++)
		if (!tdat_capture_cpu_stats(c, i, &s))
			printf("cpu%d: %llu events in the buffer, %llu bytes, %llu read, %llu overrun, "
			       "%llu dropped\n", i, (unsigned long long)s.entries,
			       (unsigned long long)s.buffer_bytes, (unsigned long long)s.kernel_read,
			       (unsigned long long)s.overrun, (unsigned long long)s.dropped);
	tdat_capture_free(c);
	return EXIT_OK;
}

/* What each subcommand takes. */
static void check(const struct opts *o, int argc, char **argv)
{
	bool record = !strcmp(o->cmd, "record"), start = !strcmp(o->cmd, "start");

	if (argc && !record)
		usage_error("%s takes no arguments ('%s')", o->cmd, argv[0]);
	if ((o->settings || o->nevents) && !record && !start && !(!strcmp(o->cmd, "list") && !o->settings))
		usage_error("-e, -f, -F, -P, -c, -b, -C, -M, -O, -T, --cpus, --filter and --subbuf-size "
			    "are for record and start");
	if (o->follow && !argc)
		usage_error("-F follows the command after --: there is none");
	if (o->follow && looks_like_filter(argv[0]))
		usage_error("-F follows the command after it, as trace-cmd record -F, and '%s' reads like "
			    "a filter: -e EVENT -f EXPR, or --filter 'EVENTS:EXPR'", argv[0]);
	if ((o->output || dat_layout_v6(&o->dat) ||
	     (o->dat.compression && strcmp(o->dat.compression, "zstd"))) && !record &&
	    strcmp(o->cmd, "extract"))
		usage_error("-o, --compression and --file-version are for record and extract");
	if (o->duration > 0 && !record)
		usage_error("--duration is for record");
	if ((o->sleep_us || o->prio) && !record)
		usage_error("-s and -r are for record");
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	static const char *const cmds[] = { "record", "start", "stop", "extract", "reset", "list", "stat" };
	char prefix[64];
	bool known = false;

	tool_init(argv);
	if (argc < 2)
		usage_error("a subcommand is needed: record, start, stop, extract, reset, list or stat");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		usage(stdout, EXIT_OK);
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))
		print_version();
	o.cmd = argv[1];
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		known |= !strcmp(o.cmd, cmds[i]);
	if (!known)
		usage_error("unknown subcommand '%s'", o.cmd);
	/* getopt's messages: "tdat-capture: record: invalid option", as every other one */
	snprintf(prefix, sizeof(prefix), "%s: %s", progname, o.cmd);
	argv[1] = prefix;
	parse(argc - 1, argv + 1, &o);
	argc -= optind + 1;
	argv += optind + 1;
	check(&o, argc, argv);
	if (!strcmp(o.cmd, "record") || !strcmp(o.cmd, "extract"))
		return capture(&o, argv, !strcmp(o.cmd, "record"));
	if (!strcmp(o.cmd, "list"))
		return list(&o);
	if (!strcmp(o.cmd, "stat"))
		return stat_cmd(&o);
	return control(&o);
}
