/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-writers.c - fuzz target for the whole pipeline: the input's first
 * byte picks a writer (text, csv, json, sqlite, dat, perfetto) and its
 * options (text: with libtraceevent's plugins, as the tools print), or the
 * statistics of tdat-info; the rest is a trace.dat, opened
 * from memory, merged and written to /dev/null (sqlite: a temporary file;
 * csv split by event: a temporary directory; both removed).  json with the
 * high bit, and text with the selector's bit 4 past the writers: written
 * at -j 1 and -j 3 into memory, and compared.  sqlite:
 * then the analysis model's rows are checked against its invariants
 * (model-check.c).  What a tool does with a damaged file, without the tool.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "tdat.h"
#include "fuzz.h"

static const char *const formats[FUZZ_NWRITERS] = {
	"text", "csv", "json", "sqlite", "dat", NULL /* tdat_stats_collect */, "perfetto"
};

static int null_fd = -1;
static char db_path[64], dir_path[64];

static void setup(void)
{
	const char *dir = getenv("TMPDIR");

	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null_fd < 0)
		fuzz_die("cannot open /dev/null");
	snprintf(db_path, sizeof(db_path), "%.30s/tdat-fuzz-%ld.db", dir && *dir ? dir : "/tmp",
		 (long)getpid());
	snprintf(dir_path, sizeof(dir_path), "%.30s/tdat-fuzz-%ld.d", dir && *dir ? dir : "/tmp",
		 (long)getpid());
}

/* The split CSV directory, emptied (and made if missing). */
static void empty_dir(bool remove)
{
	DIR *d = opendir(dir_path);
	struct dirent *e;
	char p[512];

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && snprintf(p, sizeof(p), "%s/%s", dir_path, e->d_name) < (int)sizeof(p))
			unlink(p);
	if (d)
		closedir(d);
	if (remove)
		rmdir(dir_path);
	else if (!d && mkdir(dir_path, 0700))
		fuzz_die("cannot make the csv directory");
}

/* The events of @m as @format with the options @opts (key, value, ..., NULL). */
static void write_all(struct tdat_merge *m, const char *format, const char *const *opts)
{
	struct tdat_writer *w = tdat_writer_new(format);
	const struct tdat_event *ev;
	bool db, dir;
	int ret, kind;

	if (!w)
		return;
	for (; *opts; opts += 2)	/* one the format does not have is refused: none */
		tdat_writer_set_option(w, opts[0], opts[1]);
	kind = tdat_writer_output(w);
	db = kind == TDAT_OUT_FILE;
	dir = kind == TDAT_OUT_DIR;
	if (db)
		unlink(db_path);
	if (dir)
		empty_dir(false);
	ret = tdat_writer_open(w, db || dir ? -1 : null_fd, db ? db_path : dir ? dir_path : NULL, m, 0);
	while (!ret && (ret = tdat_merge_next(m, &ev)) == 0)
		ret = tdat_writer_put(w, ev);
	tdat_writer_close(w);
	tdat_writer_free(w);
	if (db)
		unlink(db_path);
	if (dir)
		empty_dir(true);
}

/*
 * With @late, a selection from the middle of @m's span (--start): the
 * merge seeks there, and the first window starts where the seek left it.
 * NULL when there is none to make (no events), or it cannot be bound.
 */
static struct tdat_select *late_start(struct tdat_merge *m, bool late)
{
	struct tdat_select *s;
	uint64_t first, last;

	if (!late || tdat_merge_span(m, &first, &last) || !(s = tdat_select_new()))
		return NULL;
	tdat_select_window(s, 0, (int64_t)(first / 2 + last / 2), false);
	if (tdat_select_bind(s, m)) {
		tdat_select_free(s);
		return NULL;
	}
	return s;
}

/*
 * @format (with the options @opts) of @path's events, on @jobs threads
 * (windows of a page or chunk), into memfd @fd; from the middle of its span
 * on with @late.
 */
static int jobs_out(const char *path, const struct tdat_open_opts *oo, const char *format,
		    const char *const *opts, int jobs, int fd, bool late)
{
	struct tdat_file *f = tdat_file_new();
	struct tdat_merge *m = tdat_merge_new();
	struct tdat_writer *w = tdat_writer_new(format);
	struct tdat_select *s = NULL;
	struct tdat_run r = { 0 };
	int ret = -1;

	if (f && m && w && !tdat_file_open(f, path, oo) && !tdat_merge_add(m, f)) {
		for (; *opts; opts += 2)
			tdat_writer_set_option(w, opts[0], opts[1]);
		tdat_writer_set_jobs(w, jobs);
		tdat_writer_set_window(w, 1);
		if (!(ret = tdat_writer_open(w, fd, NULL, m, 0))) {
			s = late_start(m, late);
			ret = tdat_writer_run(w, s, &r);
		}
		if (tdat_writer_close(w) && ret >= 0)
			ret = -1;
	}
	tdat_writer_free(w);
	tdat_select_free(s);
	tdat_merge_free(m);
	tdat_file_free(f);
	return ret;
}

/*
 * @format at -j 1 and -j 3 (json: its slices paired by the workers,
 * json-slices.c; text: printed by the workers, whose handles share the
 * caller's kernel functions, kallsyms.c), with @late from the middle of
 * the span: the same bytes and the same outcome, or abort.
 */
static void compare_jobs(const char *path, const struct tdat_open_opts *oo, const char *format,
			 const char *const *opts, bool late)
{
	static int fd[2] = { -1, -1 };
	static char *buf[2];
	off_t len[2];
	int ret[2];

	for (int i = 0; i < 2; i++) {
		if (fd[i] < 0 && (fd[i] = memfd_create("tdat-fuzz-jobs", MFD_CLOEXEC)) < 0)
			fuzz_die("memfd_create failed");
		if (ftruncate(fd[i], 0) || lseek(fd[i], 0, SEEK_SET))
			fuzz_die("cannot empty the memfd");
		ret[i] = jobs_out(path, oo, format, opts, i ? 3 : 1, fd[i], late);
		len[i] = lseek(fd[i], 0, SEEK_CUR);
	}
	if (ret[0] != ret[1] || len[0] != len[1])
		abort();	/* -j 3 wrote another output than -j 1 */
	for (int i = 0; i < 2; i++) {
		free(buf[i]);
		if (!(buf[i] = malloc((size_t)len[i] + 1)) || pread(fd[i], buf[i], (size_t)len[i], 0) != len[i])
			fuzz_die("cannot read the memfd back");
	}
	if (memcmp(buf[0], buf[1], (size_t)len[0]))
		abort();
}

FUZZ_TARGET(fuzz_writers)
{
	static struct fuzz_mem mem;
	struct tdat_open_opts oo = { .flags = TDAT_OPEN_NO_PLUGINS };
	struct tdat_file *f;
	struct tdat_merge *m;
	const char *opts[12] = { NULL };
	unsigned sel, n = 0;

	if (size < 1)
		return 0;
	if (null_fd < 0)
		setup();
	sel = (data[0] & 0x3f) % FUZZ_NWRITERS;	/* the low bits pick, the high bits are flags */
	/* the high bits choose flags that change what is written */
	if (data[0] & 0x40)
		opts[n++] = "nsec", opts[n++] = "1";
	if (sel == 4 && (data[0] & 0x80))
		opts[n++] = (data[0] & 0x40) ? "version" : "compression",
		opts[n++] = (data[0] & 0x40) ? "6" : "none";
	if (sel == 1 && (data[0] & 0x80))
		opts[n++] = "split", opts[n++] = "1";	/* one typed file per event type */
	if (sel == 0 && (data[0] & 0x80))
		oo.flags &= ~TDAT_OPEN_NO_PLUGINS;	/* text through the plugins, as tools print */
	/* text: the selector's values past the writers choose -R and 3.1.6's style */
	if (sel == 0 && ((data[0] & 0x3f) / FUZZ_NWRITERS) & 1)
		opts[n++] = "raw", opts[n++] = "1";
	if (sel == 0 && ((data[0] & 0x3f) / FUZZ_NWRITERS) & 2)
		opts[n++] = "style", opts[n++] = "3.1";
	fuzz_mem_fill(&mem, 0, data + 1, size - 1);
	if (sel == 2 && (data[0] & 0x80)) {
		static const char *const none[] = { NULL };	/* 0x40 there: from the middle */

		compare_jobs(mem.path, &oo, "json", none, data[0] & 0x40);	/* json: -j 3 as -j 1 */
		return 0;
	}
	if (sel == 0 && ((data[0] & 0x3f) / FUZZ_NWRITERS) & 4) {
		compare_jobs(mem.path, &oo, "text", opts, false);	/* text: -j 3 as -j 1 */
		return 0;
	}
	f = tdat_file_new();
	if (!f || tdat_file_open(f, mem.path, &oo)) {
		tdat_file_free(f);
		return 0;
	}
	if (!formats[sel]) {
		struct tdat_stats *s = NULL;

		tdat_stats_collect(f, &s);
		tdat_stats_free(s);
	} else if ((m = tdat_merge_new())) {
		if (!tdat_merge_add(m, f))
			write_all(m, formats[sel], opts);
		tdat_merge_free(m);
	}
	tdat_file_free(f);
	if (sel == 3)
		fuzz_model_check(mem.path, &oo);	/* the rows sqlite stored keep the model's rules */
	return 0;
}
