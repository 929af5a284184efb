/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common.h - the only code the tdat tools share (common.c, outfile.c):
 * program name, messages (`prog: subject: reason`), exit codes, number
 * parsing, inputs, safe output files (temporary name, renamed on success,
 * removed on failure or signal), selection options and progress on stderr.
 */
#ifndef TDAT_TOOLS_COMMON_H
#define TDAT_TOOLS_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "tdat.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

extern const char *progname;
/* An input opened with warnings (damaged formats): the tool must fail. */
extern bool inputs_damaged;

void tool_init(char **argv);
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));	/* adds strerror(errno) */
void die_(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
/* One line naming the problem, then "Try 'prog --help'", exit 2. */
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void print_version(void) __attribute__((noreturn));

/*
 * --file-version and --compression as given (the last of each; NULL: not
 * given): the dat format's "version" and "compression" options.
 */
struct dat_layout_opts {
	const char *version, *compression;
};
/* --file-version (@version) or --compression @arg into @d; a bad one exits 2. */
void dat_layout_option(struct dat_layout_opts *d, bool version, const char *arg);
/* Whether @d asks for version 6, for zlib. */
bool dat_layout_v6(const struct dat_layout_opts *d);
bool dat_layout_zlib(const struct dat_layout_opts *d);
/* @d as the options of @w (tdat_writer_set_option()); one refused exits 2. */
void dat_layout_set(struct tdat_writer *w, const struct dat_layout_opts *d);
/* Option @key=@value of @w (tdat_writer_set_option()), @value NULL: nothing; refused exits 2. */
void writer_option(struct tdat_writer *w, const char *key, const char *value);
/* The warning that trace-cmd may not read a trace.dat of --compression zlib. */
void dat_zlib_warning(const struct dat_layout_opts *d);
/*
 * A trace.dat of @d written from @in drops its BTF and MODULES_FILE
 * sections when it is version 6 or not compressed: say so.
 */
void dat_sections_warning(struct tdat_file *in, const struct dat_layout_opts *d);

#define JOBS_MAX 256		/* -j: threads at most */
#define JOBS_DEFAULT_MAX 8	/* -j's default: the online CPUs, at most this */

/* -j's default: the number of online CPUs, at most JOBS_DEFAULT_MAX. */
int default_jobs(void);
/*
 * The threads of a run of @w over @m's inputs (all added): @jobs if -j
 * gave it, else as many as the trace's size is worth (tdat_writer_jobs():
 * the workers' and the format's own), at most default_jobs(); --verbose
 * says which and why.
 */
int choose_jobs(const struct tdat_writer *w, const struct tdat_merge *m, int jobs);
/* -j N: threads, 1 to JOBS_MAX; a bad one exits 2. */
int parse_jobs(const char *arg);
/* $TDAT_JOBS_WINDOW: the bytes of a -j time window (tdat_writer_set_window()), 0: unset. */
uint64_t jobs_window(void);

/* --ts2secs HZ: a whole number of ticks a second, above 0; a bad one exits 2. */
uint64_t parse_hz(const char *arg);

/*
 * The text style, the text format's "style" option: --report-style @arg,
 * or when @arg is NULL $TDAT_REPORT_STYLE, else "3.4".  Anything but
 * "3.4" and "3.1" exits 2.
 */
const char *report_style(const char *arg);
#define REPORT_STYLE_USAGE \
	"      --report-style 3.4|3.1  text: as trace-cmd 3.4 reports (the default: an\n" \
	"                        irq-flags column, ...) or as 3.1.6 does; the environment's\n" \
	"                        TDAT_REPORT_STYLE when not given\n"

/*
 * A signed decimal with an optional unit (ns, us, ms, s), exactly in ns:
 * "250us", "1.5ms", "-2s"; a bare number is ns.  False if malformed, out of
 * range or finer than a nanosecond.
 */
bool parse_ns(const char *s, int64_t *out);

/*
 * Output: stdout for NULL or "-", else a temporary file (or directory, for
 * enum tdat_output_kind TDAT_OUT_DIR) renamed to @path on commit.
 */
struct tool_out {
	const char *path;	/* final name, NULL for stdout */
	char *tmp;		/* temporary name while writing: what the writer gets */
	int fd;			/* -1 for a directory */
	bool dir;
	bool replace;		/* a directory tdat wrote is there: replaced on commit */
};

/*
 * In every directory output (-f parquet, --split-by-event), the mark of a
 * folder tdat wrote (out_mark()): such a folder is replaced by the next run
 * into it, any other is refused.  Readers of datasets (pyarrow, Spark) skip
 * names beginning with '_', and the globs of DuckDB and polars for the
 * files of DIR do not go into its folders.
 */
#define OUT_MARK_DIR "_tdat"
#define OUT_MARK OUT_MARK_DIR "/tdat.json"
/* Write the mark into the directory @dir being written, for @format; 0 or -1 (said). */
int out_mark(const char *dir, const char *format);

/*
 * outfile.c: a directory @path may be absent, empty or one tdat wrote (its
 * OUT_MARK); its trailing slashes are dropped.
 */
int out_open(struct tool_out *o, const char *path, int kind, bool binary);
int out_commit(struct tool_out *o);	/* fsync-free close + rename; 0 or -1 (message printed) */
void out_abort(struct tool_out *o);	/* remove the temporary file */
/*
 * Before anything is written: exit 2 when output @out (@what: "-o", "piece")
 * is one of @inputs (the same path, a symlink or a hard link), naming both.
 */
void refuse_input_as_output(const char *what, const char *out, char **inputs, int n);
/* Exit 2 when one input file is named twice (also through another path). */
void refuse_duplicate_inputs(char **inputs, int n);
/*
 * The index of the input among @inputs that @file names: the same path, or
 * the same file through another path, a symlink or a hard link; -1 if none.
 */
int input_named(char **inputs, int n, const char *file);
/*
 * From now on every output committed is remembered: outs_remove() (and
 * any exit through die_(), usage_error() or a signal) removes them all.
 */
void outs_track(void);
/* Remove the committed outputs of a tracked run; returns how many. */
int outs_remove(void);
/* SIGINT, SIGTERM, SIGHUP remove the outputs, say so, and end the tool by the signal. */
void outs_catch_signals(void);
/* Remove the temporary and the tracked outputs (before exiting on an error). */
void outs_cleanup(void);

/*
 * The input when none is named: standard input ("-") when it is a pipe or a
 * file, "trace.dat" when it is a terminal (as trace-cmd report); else a
 * usage error.
 */
const char *default_input(void);

/* Open every input, or print why not and return NULL. */
struct tdat_file *open_input(const char *path, const struct tdat_open_opts *opts);
/*
 * tdat_merge_add() of an input, saying why not; and the input's warnings
 * not printed yet (a piece reads its metadata then).
 */
int merge_input(struct tdat_merge *m, struct tdat_file *f);
/* The warnings of input @f not printed yet (after tdat_stats_collect(), say). */
void input_warnings(struct tdat_file *f);

/*
 * Warn when the pieces of a split among inputs @in have gaps (piece 3 of
 * 1..5 missing), or are pieces of two splits of one file (tdat-info: a merge
 * refuses those).
 */
void warn_missing_pieces(struct tdat_file **in, int n);

/* Warn when the buffers of inputs @in use different trace clocks. */
void warn_mixed_clocks(struct tdat_file **in, int n);

/* Report damage met by a merge; non-zero if there was any, or an input was damaged. */
int report_damage(struct tdat_merge *m);
/* The same for what tdat_stats_collect() met in @f; returns the number of regions. */
int report_stats_damage(struct tdat_file *f, const struct tdat_stats *s);

/*
 * --lenient (every tool): damage in an input that was read is still reported
 * on stderr, but the exit status stays 0.  An input that cannot be opened
 * at all, and output errors, still fail.
 */
extern bool lenient;
enum { OPT_LENIENT = 1100 };
#define LENIENT_LONGOPT { "lenient", no_argument, NULL, OPT_LENIENT }
#define LENIENT_USAGE \
	"      --lenient         damaged input read in part: report it, but exit 0\n"
/*
 * --verbose (tools that read events): notes on what is not damage, such as
 * kernel event formats whose print format libtraceevent cannot print.
 */
extern bool verbose;
enum { OPT_VERBOSE = 1101 };
#define VERBOSE_LONGOPT { "verbose", no_argument, NULL, OPT_VERBOSE }
#define VERBOSE_USAGE \
	"      --verbose         also note what is not damage (formats that cannot be printed)\n"
/*
 * A write failed with @err: if the reader of a pipe went away (EPIPE, SIGPIPE
 * ignored by our parent), end quietly as SIGPIPE would (git's check_pipe).
 */
void check_pipe(int err);

/* The exit status for a run that met damage (@damaged) and nothing worse. */
int damage_status(bool damaged);

/* ---- selection options, the same in every tool ---- */

enum { OPT_SEL_CPU = 1000, OPT_SEL_PID, OPT_SEL_COMM, OPT_SEL_TOP, OPT_SEL_START, OPT_SEL_END };

#define SELECT_SHORTOPTS "e:F:vB:"
#define SELECT_LONGOPTS							\
	{ "event", required_argument, NULL, 'e' },			\
	{ "filter", required_argument, NULL, 'F' },			\
	{ "invert", no_argument, NULL, 'v' },				\
	{ "buffer", required_argument, NULL, 'B' },			\
	{ "top", no_argument, NULL, OPT_SEL_TOP },			\
	{ "cpu", required_argument, NULL, OPT_SEL_CPU },		\
	{ "pid", required_argument, NULL, OPT_SEL_PID },		\
	{ "comm", required_argument, NULL, OPT_SEL_COMM },		\
	{ "start", required_argument, NULL, OPT_SEL_START },		\
	{ "end", required_argument, NULL, OPT_SEL_END }

#define SELECT_USAGE							\
	"Selection (all must hold):\n"					\
	"  -e, --event SYS:EVENT   event types, globs (repeatable; SYS or EVENT alone too)\n" \
	"  -F, --filter 'EVENTS:EXPR'  trace-cmd report -F filter (repeatable)\n" \
	"  -v, --invert            -F filters after this drop what they match\n" \
	"  -B, --buffer NAME       only this buffer (repeatable); --top for the top one\n" \
	"      --cpu LIST          only these CPUs, e.g. 0,2-3\n"	\
	"      --pid LIST          only these pids\n"			\
	"      --comm GLOB         only tasks whose name matches (repeatable)\n" \
	"      --start T, --end T  time window: seconds as printed (468.873643),\n" \
	"                          or with a unit (ns, us, ms, s); +T from the first event\n"

/* The option select_option() takes for @c, as a user writes it ("-e", "--cpu"), or NULL. */
const char *select_option_name(int c);
/*
 * Handle selection option @c with @arg into *@s (created on first use).
 * Return: true if @c was one; a bad value is a usage error (exit 2).
 */
bool select_option(struct tdat_select **s, int c, const char *arg);

/* After a run in which selection @s kept no event of @m: a warning saying why. */
void warn_empty_selection(struct tdat_select *s, struct tdat_merge *m);

/* A time as --start/--end take it: "12.5", "12.500000123", "3ms", "+2s". */
bool parse_time(const char *s, int64_t *ns, bool *relative);

/* Progress on stderr: mode 0 off, 1 on, -1 auto (stderr is a terminal). */
void progress_start(int mode);
void progress_tick(struct tdat_merge *m, uint64_t events);
void progress_end(void);

#endif
