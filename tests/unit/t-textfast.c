/*
 * t-textfast.c - the text writer's compiled print formats (text-fast.c)
 * against libtraceevent's printer: every record of every capture in
 * testdata/ (and of the damaged ones it can open) that the text writer
 * would print through its print format is printed both ways, with the
 * plugins trace-cmd loads and the file's symbols, as 3.4's style (last
 * boot's symbols) and as 3.1's; the texts must be the same byte for byte.
 * Then print formats written to exercise every conversion, flag, width,
 * length and argument kind planned, on random records.  The fast path
 * must have printed records in both parts, or the test proves nothing.
 *
 * With file arguments, only those files (a big capture, by hand).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "read/read.h"
#include "guard/guard.h"
#include "write/text34.h"
#include "../tap.h"

#define PAGE		4096
#define EVENT_ID	7
#define RECORDS		400

struct tally {
	long records, fast, files;
	bool failed;
};

/* The fast text of @rec (plugin handler's part, then the rest) against tep_print_event()'s. */
static bool same(struct textfast *fast, struct tep_handle *tep, struct tep_record *rec,
		 struct tep_event *event, bool *took, char *why, size_t n)
{
	static struct trace_seq a, b;
	static bool init;
	const char *text;
	size_t len;

	if (!init) {
		trace_seq_init(&a);
		trace_seq_init(&b);
		init = true;
	}
	trace_seq_reset(&a);
	trace_seq_reset(&b);
	if (!(*took = textfast_print(fast, &a, rec, event, &text, &len)))
		return true;
	tep_print_event(tep, &b, rec, "%s", TEP_PRINT_INFO);
	if (a.len + len == b.len && !memcmp(a.buffer, b.buffer, a.len) &&
	    !memcmp(text, b.buffer + a.len, len))
		return true;
	snprintf(why, n, "fast \"%.*s%.*s\"\n# libtraceevent \"%.*s\"", (int)a.len, a.buffer,
		 (int)len, text, (int)b.len, b.buffer);
	return false;
}

/* Every record of @path, read as the text writer reads it (@style_3_1: without last boot's symbols). */
static void check_file(const char *path, bool style_3_1, struct tally *t)
{
	struct tdat_file *f = tdat_file_new();
	struct tdat_merge *m = NULL;
	struct textfast *fast = textfast_new();
	struct tep_guard_type *types = calloc(64, sizeof(*types));
	const struct tdat_event *ev;
	long n = 0, took = 0;
	char why[8192];

	if (!f || !fast || !types)
		bail_out("out of memory");
	if (tdat_file_open(f, path, NULL) || !(m = tdat_merge_new()) || tdat_merge_add(m, f))
		goto out;	/* a damaged file text does not open either */
	file_load_symbols(f);
	for (int i = 0; i < tdat_merge_nfiles(m); i++)
		file_last_boot(tdat_merge_file(m, i), !style_3_1);
	t->files++;
	while (!t->failed && tdat_merge_next(m, &ev) == 0) {
		struct tep_handle *tep = ev->file->tep;
		struct tep_record rec = { .ts = ev->ts, .cpu = ev->cpu, .data = (void *)ev->data,
					  .size = (int)ev->size };
		struct tep_event *event = tep_find_event_by_record(tep, &rec);
		bool fast_took;

		n++;
		if (!event || tep_guard_record(&types[(unsigned)event->id % 64], event, rec.data,
					       (unsigned)rec.size, false, why, sizeof(why)) ||
		    (!style_3_1 && text34_is_sched_switch(event)))
			continue;
		if (!same(fast, tep, &rec, event, &fast_took, why, sizeof(why))) {
			ok(0, "%s (style %s): record %ld (%s:%s, cpu %d, ts %llu) printed the same",
			   path, style_3_1 ? "3.1" : "3.4", n, event->system, event->name, ev->cpu,
			   (unsigned long long)ev->ts);
			diag("%s", why);
			t->failed = true;
		}
		took += fast_took;
	}
out:
	t->records += n;
	t->fast += took;
	if (n && getenv("TDAT_TEXTFAST_VERBOSE"))
		diag("%s (%s): %ld of %ld records by the plans", path, style_3_1 ? "3.1" : "3.4", took, n);
	free(types);
	textfast_free(fast);
	tdat_merge_free(m);
	tdat_file_free(f);
}

static void walk(const char *dir, struct tally *t)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort);
	char path[4096];
	struct stat st;

	for (int i = 0; i < n; i++) {
		const char *name = list[i]->d_name;
		size_t len = strlen(name);

		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (name[0] != '.' && !stat(path, &st)) {
			if (S_ISDIR(st.st_mode)) {
				walk(path, t);
			} else if (len > 4 && !strcmp(name + len - 4, ".dat")) {
				check_file(path, false, t);
				check_file(path, true, t);
			}
		}
		free(list[i]);
	}
	free(list);
}

/* ---- formats written for it ---- */

static const char *const formats[] = {
	"\"%d %i %u %x %X %o|%5d|%-5d|%05d|%.3d|%-08.3d|%.0d|%5.0u\", REC->a, REC->a, REC->a, REC->a, "
		"REC->a, REC->a, REC->a, REC->a, REC->a, REC->a, REC->a, REC->a, REC->b",
	"\"%#x %#X %#o %#.0o %#08x %#-8x| %#5o %#.5x\", REC->b, REC->b, REC->b, REC->h, REC->b, REC->b, "
		"REC->h, REC->b",
	"\"%hhd %hhu %hd %hu %hx %hhx %ld %lu %llx %llX %lld %zu %zd %lo %08lx %-20lld|%Lu %Ld %5Lx\", "
		"REC->a, REC->a, REC->a, REC->a, REC->a, REC->a, REC->c, REC->c, REC->c, REC->c, REC->c, "
		"REC->c, REC->c, REC->c, REC->c, REC->c, REC->c, REC->c, REC->c",
	"\"%s|%-10s|%10s|%.2s|%8.3s|%-8.3s|%s|%-6s|%.0s|%s\", REC->arr, REC->arr, REC->arr, REC->arr, "
		"REC->arr, REC->arr, __get_str(s), __get_str(s), __get_str(s), \"lit\"",
	"\"f=%s g=%-12s y=%s z=%8s\", __print_flags(REC->b, \"|\", { 1, \"A\" }, { 2, \"B\" }, "
		"{ 0x10, \"C\" }), __print_flags(REC->h, \"\", { 0, \"NONE\" }, { 4, \"D\" }, "
		"{ 12, \"EF\" }), __print_symbolic(REC->a, { 0, \"zero\" }, { 1, \"one\" }, { -1, \"neg\" }, "
		"{ 0xff, \"ff\" }), __print_symbolic(REC->h & 3, { 1, \"x\" }, { 2, \"y\" })",
	"\"%s %s %d\", REC->a ? \"yes\" : \"no\", (REC->b > 5) ? __print_symbolic(REC->h, { 0, \"z\" }) : "
		"__get_str(s), REC->a > 0 ? REC->b : REC->h",
	"\"%d %u %d %u %x %d %lld\", (u8)REC->a, (s16)REC->b, (unsigned char)REC->a, (int)REC->c, "
		"(unsigned short)REC->c, (u32)REC->c, (unsigned long long)REC->a",
	"\"%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %lu\", REC->a + REC->b, REC->a - REC->b, "
		"REC->a * 3, REC->b / 3, REC->b % 7, REC->a & 0xf0, REC->a | 1, REC->a % 2, REC->a << 3, "
		"REC->b >> 2, REC->a == REC->b, REC->a != 0, REC->a < REC->b, REC->a >= 5, !REC->a, ~REC->a, "
		"REC->a && REC->b || REC->h",
	"\"%lx %lx %lx\", REC->w[0], REC->w[1], ((unsigned long *)REC->w)[1]",
	"\"%p %p %pS %ps %pF %pf %pK\", (void *)REC->c, (void *)REC->h, (void *)REC->c, REC->c, REC->c, "
		"REC->c, REC->c",
	"\"100%% \\t\\\\done\\n%d\\n\", REC->a",
	"\"%d,%d sector=%llu size=%zu\", ((unsigned int) ((REC->b) >> 20)), "
		"((unsigned int) ((REC->b) & ((1U << 20) - 1))), (unsigned long long)REC->c, REC->c",
};

static void put32(unsigned char *d, uint32_t v)
{
	memcpy(d, &v, 4);
}

static unsigned long long rng = 0x9E3779B97F4A7C15ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (unsigned)(rng % n) : 0;
}

/* A random record of @size bytes at the end of @page, with RECORD_SLACK zeros after it. */
static unsigned char *make_record(unsigned char *page, unsigned size)
{
	static const uint32_t ints[] = { 0, 1, 2, 5, 7, 0xff, 0x100, 0x7fffffff, 0x80000000, 0xffffffff, 12, 0x13 };
	unsigned char *d = page + PAGE - size - RECORD_SLACK;

	for (unsigned i = 0; i < size; i++)
		d[i] = rnd(3) ? (unsigned char)rnd(256) : (unsigned char)('a' + rnd(26));
	memset(d + size, 0, RECORD_SLACK);
	d[0] = EVENT_ID;
	d[1] = 0;
	if (rnd(2))
		put32(d + 8, ints[rnd(sizeof(ints) / sizeof(ints[0]))]);
	if (rnd(2))
		put32(d + 12, ints[rnd(sizeof(ints) / sizeof(ints[0]))]);
	if (rnd(3))
		d[16 + rnd(8)] = 0;	/* mostly a string that ends inside the array */
	if (rnd(4)) {		/* mostly a __data_loc string inside the record, ending in a NUL */
		unsigned off = 58 + rnd(size - 58), len = 1 + rnd(size - off);

		put32(d + 24, off | (len << 16));
		d[off + len - 1] = 0;
	}
	if (rnd(2))
		memset(d + 28, 0, rnd(2) ? 8 : 4);
	return d;
}

static void check_format(const char *pf, unsigned char *page, struct tally *t)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_guard_type gt = { .event = NULL };
	struct textfast *fast = textfast_new();
	struct tep_event *event;
	char buf[4096], why[8192];
	long took = 0, refused = 0;
	int len;

	if (!tep || !fast)
		bail_out("out of memory");
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, PAGE);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	len = snprintf(buf, sizeof(buf), "name: t\nID: %d\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:unsigned int b;\toffset:12;\tsize:4;\tsigned:0;\n"
		"\tfield:char arr[8];\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:__data_loc char[] s;\toffset:24;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned long c;\toffset:28;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned short h;\toffset:36;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned long w[2];\toffset:38;\tsize:16;\tsigned:0;\n"
		"\nprint fmt: %s\n", EVENT_ID, pf);
	if (tep_parse_event(tep, buf, (size_t)len, "sys") || !(event = tep_find_event(tep, EVENT_ID)))
		bail_out("cannot parse the format %s", pf);
	for (int i = 0; i < RECORDS && !t->failed; i++) {
		unsigned size = 58 + rnd(40);
		struct tep_record rec = { .size = (int)size };
		bool fast_took;

		rec.data = make_record(page, size);
		t->records++;
		if (tep_guard_record(&gt, event, rec.data, size, false, why, sizeof(why))) {
			refused++;
			continue;
		}
		if (!same(fast, tep, &rec, event, &fast_took, why, sizeof(why))) {
			ok(0, "format %s, record %d printed the same", pf, i);
			diag("%s", why);
			t->failed = true;
		}
		took += fast_took;
	}
	ok(took > 0, "format %.60s...: %ld of %d records by its plan (%ld refused by the guard)", pf,
	   took, RECORDS, refused);
	t->fast += took;
	textfast_free(fast);
	tep_free(tep);
}

int main(int argc, char **argv)
{
	struct tally files = { 0 }, fmts = { 0 };
	static unsigned char page[PAGE];

	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			check_file(argv[i], false, &files);
			check_file(argv[i], true, &files);
		}
	} else {
		walk(tap_testdata(""), &files);
	}
	ok(!files.failed, "%ld records of %ld files: each printed the same both ways", files.records,
	   files.files);
	ok(files.fast > 0, "%ld of them by the plans", files.fast);
	diag("%ld of %ld records (%.1f%%) by the plans", files.fast, files.records,
	     files.records ? 100.0 * (double)files.fast / (double)files.records : 0.0);
	if (argc > 1)
		return done_testing();
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]) && !fmts.failed; i++)
		check_format(formats[i], page, &fmts);
	ok(!fmts.failed, "%ld random records of %zu formats: each printed the same", fmts.records,
	   sizeof(formats) / sizeof(formats[0]));
	return done_testing();
}
