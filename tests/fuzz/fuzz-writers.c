/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-writers.c - fuzz target for the whole pipeline: the input's first
 * byte picks a writer (text, csv, json, sqlite, dat) and its flags, or the
 * statistics of tdat-info; the rest is a trace.dat, opened from memory,
 * merged and written to /dev/null (sqlite: a temporary file, removed).
 * What a tool does with a damaged file, without the tool.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat.h"
#include "fuzz.h"

static const char *const formats[FUZZ_NWRITERS] = {
	"text", "csv", "json", "sqlite", "dat", NULL /* tdat_stats_collect */
};

static int null_fd = -1;
static char db_path[64];

static void setup(void)
{
	const char *dir = getenv("TMPDIR");

	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null_fd < 0)
		fuzz_die("cannot open /dev/null");
	snprintf(db_path, sizeof(db_path), "%.30s/tdat-fuzz-%ld.db", dir && *dir ? dir : "/tmp",
		 (long)getpid());
}

static void write_all(struct tdat_merge *m, const char *format, unsigned flags)
{
	struct tdat_writer *w = tdat_writer_new(format);
	const struct tdat_event *ev;
	bool db = tdat_format_output(format, flags) == TDAT_OUT_FILE;
	int ret;

	if (!w)
		return;
	if (db)
		unlink(db_path);
	ret = tdat_writer_open(w, db ? -1 : null_fd, db ? db_path : NULL, m, flags);
	while (!ret && (ret = tdat_merge_next(m, &ev)) == 0)
		ret = tdat_writer_put(w, ev);
	tdat_writer_close(w);
	tdat_writer_free(w);
	if (db)
		unlink(db_path);
}

FUZZ_TARGET(fuzz_writers)
{
	static struct fuzz_mem mem;
	struct tdat_open_opts oo = { .flags = TDAT_OPEN_NO_PLUGINS };
	struct tdat_file *f;
	struct tdat_merge *m;
	unsigned sel, flags = 0;

	if (size < 1)
		return 0;
	if (null_fd < 0)
		setup();
	sel = data[0] % FUZZ_NWRITERS;
	/* the high bits choose flags that change what is written */
	if (data[0] & 0x40)
		flags |= TDAT_W_NSEC;
	if (sel == 4 && (data[0] & 0x80))
		flags |= (data[0] & 0x40) ? TDAT_W_V6 : TDAT_W_ZNONE;
	fuzz_mem_fill(&mem, 0, data + 1, size - 1);
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
			write_all(m, formats[sel], flags);
		tdat_merge_free(m);
	}
	tdat_file_free(f);
	return 0;
}
