/*
 * t-open.c - unit tests of opening trace.dat files through tdat.h: header
 * facts of the real captures in testdata/, and clean refusals (with a
 * reason and an offset) of the damaged ones in testdata/bad/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "../tap.h"

static struct tdat_file *open_ok(const char *name)
{
	struct tdat_file *f = tdat_file_new();
	int ret = tdat_file_open(f, tap_testdata(name), NULL);

	if (!is_int(ret, 0, "open %s", name))
		diag("error: %s", tdat_file_errmsg(f));
	return f;
}

static void check_header(const char *name, int version, const char *comp, int nbuf)
{
	struct tdat_file *f = open_ok(name);
	const struct tdat_file_info *fi = tdat_file_info(f);

	is_int(fi->version, version, "%s: version", name);
	is_str(fi->compression, comp, "%s: compression", name);
	is_int(fi->nbuffers, nbuf, "%s: buffers", name);
	is_int(fi->cpus, 2, "%s: cpus", name);
	is_int(fi->long_size, 8, "%s: long size", name);
	is_uint(fi->page_size, 4096, "%s: page size", name);
	ok(!fi->big_endian, "%s: little endian", name);
	ok(strstr(fi->uname, "Linux") != NULL, "%s: uname", name);
	tdat_file_free(f);
}

static void check_buffers(void)
{
	struct tdat_file *f = open_ok("two-buffers.dat");
	const struct tdat_buffer_info *b0 = tdat_file_buffer(f, 0), *b1 = tdat_file_buffer(f, 1);

	is_str(b0->name, "", "top buffer first");
	is_str(b1->name, "foo", "then the instance");
	is_str(b1->clock, "local", "instance clock");
	is_int(b1->ncpus, 2, "instance cpus");
	ok(tdat_file_buffer(f, 2) == NULL, "no third buffer");
	tdat_file_free(f);
}

static void check_clock(const char *name, const char *clock, int in_usecs)
{
	struct tdat_file *f = open_ok(name);

	is_str(tdat_file_info(f)->clock, clock, "%s: clock", name);
	is_int(tdat_file_info(f)->in_usecs, in_usecs, "%s: nanosecond clock", name);
	tdat_file_free(f);
}

static void check_bad(const char *name, int want)
{
	struct tdat_file *f = tdat_file_new();
	int ret = tdat_file_open(f, tap_testdata(name), NULL);

	is_int(ret, want, "%s refused", name);
	ok(*tdat_file_errmsg(f) != '\0', "%s: reason given (%s)", name, tdat_file_errmsg(f));
	tdat_file_free(f);
}

/* A v7 kallsyms section whose sizes lie: the file opens, one warning says so. */
static void check_lost_kallsyms(const char *name)
{
	struct tdat_file *f = tdat_file_new();
	int ret = tdat_file_open(f, tap_testdata(name), NULL);
	const char *w = tdat_file_warning(f, 0);

	is_int(ret, 0, "%s opens", name);
	ok(tdat_file_nwarnings(f) == 1 && w && strstr(w, "kallsyms section damaged, read without it"),
	   "%s: one warning, naming the kallsyms section (%s)", name, w ? w : "none");
	tdat_file_free(f);
}

int main(void)
{
	check_header("v6.dat", 6, "none", 1);
	check_header("v7-none.dat", 7, "none", 1);
	check_header("v7-zstd.dat", 7, "zstd", 1);
	check_header("two-buffers.dat", 7, "zstd", 2);
	check_header("v6-two-buffers.dat", 6, "none", 2);
	check_buffers();
	check_clock("v7-zstd.dat", "local", 1);
	check_clock("clock-mono.dat", "mono", 1);
	check_clock("clock-counter.dat", "counter", 0);
	check_clock("clock-x86-tsc.dat", "x86-tsc", 0);
	ok(tdat_file_info(open_ok("date.dat"))->has_date, "date.dat has a DATE option");
	check_bad("bad/empty.dat", TDAT_EFORMAT);
	check_bad("bad/bad-magic.dat", TDAT_EFORMAT);
	check_bad("bad/not-a-trace.dat", TDAT_EFORMAT);
	check_bad("bad/bad-version.dat", TDAT_EVERSION);
	check_bad("bad/truncated-header.dat", TDAT_EFORMAT);
	check_bad("bad/truncated-header-v7.dat", TDAT_EFORMAT);
	check_bad("bad/lying-size.dat", TDAT_EFORMAT);
	check_lost_kallsyms("bad/lying-size-v7.dat");
	check_lost_kallsyms("bad/lying-csize-v7.dat");
	check_bad("bad/bad-cpu-count.dat", TDAT_EFORMAT);
	check_bad("nonexistent.dat", TDAT_EIO);
	check_bad("", TDAT_EINVAL);	/* the testdata directory itself */
	is_str(tdat_strerror(TDAT_EFORMAT), "damaged or not a trace.dat file", "strerror");
	is_str(tdat_strerror(12345), "unknown error", "strerror of an unknown code");
	tdat_file_free(NULL);
	return done_testing();
}
