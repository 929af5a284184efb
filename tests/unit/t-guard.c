/*
 * t-guard.c - unit tests of libfmt/guard/tep-guard.c: every event format of the
 * real captures (and of the running kernel, when tracefs is readable)
 * passes the format check, each shape that crashes libtraceevent 1.7 fails
 * it, and the filter check refuses its shapes but not ordinary filters.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "read/read.h"
#include "../tap.h"

#define COMMON "name: t\nID: 2\nformat:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n" \
	"\tfield:int r;\toffset:4;\tsize:4;\tsigned:1;\n" \
	"\tfield:char name[16];\toffset:8;\tsize:16;\tsigned:0;\n\n"

/* The common fields alone, for formats with fields of their own. */
#define HEAD "name: t\nID: 2\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"

static enum tep_guard guard(const char *buf)
{
	size_t keep;

	return tep_guard_format(buf, &keep);
}

static bool ok_fmt(const char *buf)
{
	return guard(buf) == TEP_GUARD_OK;
}

/* How much of @buf is kept: BAD, FIELDS (and the kept text ends before "print") or OK. */
static bool fields_only(const char *buf)
{
	size_t keep;

	return tep_guard_format(buf, &keep) == TEP_GUARD_FIELDS && !strncmp(buf + keep, "print fmt:", 10);
}

/* TEP_GUARD_UNSUPP, and the kept text ends before "print". */
static bool unsupported(const char *buf)
{
	size_t keep;

	return tep_guard_format(buf, &keep) == TEP_GUARD_UNSUPP && !strncmp(buf + keep, "print fmt:", 10);
}

/* The number of fields libtraceevent reads from the first @len bytes of @fmt, -1 if it prints it. */
static int failed_fields(const char *fmt, size_t len)
{
	struct tep_handle *t = tep_alloc();
	struct tep_event *ev = NULL;
	int n = -1;

	tep_parse_format(t, &ev, fmt, len, "sys");
	if (ev && (ev->flags & TEP_EVENT_FL_FAILED))
		n = ev->format.nr_fields;
	tep_free(t);
	return n;
}

/*
 * The formats of a 4.19 arm64 kernel's i2c, xhci-hcd and dwc3 systems
 * (testdata/scripts/juno-4.19-formats.txt, from a public capture): the five
 * with a GNU statement expression libtraceevent cannot print are not
 * supported, every other one passes, and none is damage.  Their print
 * formats as libtraceevent 1.7 gets them fail ("bad op token {"), and the
 * fields parse.
 */
static void check_kernel_formats(void)
{
	static const char *const unsupp[] = { "xhci_urb_giveback", "xhci_urb_enqueue", "xhci_urb_dequeue",
					      "dwc3_prepare_trb", "dwc3_complete_trb" };
	FILE *fp = fopen(tap_testdata("scripts/juno-4.19-formats.txt"), "r");
	static char text[1 << 16];
	size_t len = fp ? fread(text, 1, sizeof(text) - 1, fp) : 0;
	int n = 0, wrong = 0, nunsupp = 0;
	char *p, *next;

	if (fp)
		fclose(fp);
	text[len] = '\0';
	for (p = strstr(text, "=== system "); p; p = next) {
		char *fmt = strchr(p, '\n') + 1, name[64] = "";
		bool want = false;
		size_t keep;
		enum tep_guard g;

		if ((next = strstr(fmt, "=== system ")))
			*next = '\0';
		sscanf(fmt, "name: %63s", name);
		for (size_t i = 0; i < sizeof(unsupp) / sizeof(unsupp[0]); i++)
			want |= !strcmp(name, unsupp[i]);
		g = tep_guard_format(fmt, &keep);
		nunsupp += g == TEP_GUARD_UNSUPP;
		/* what libtraceevent makes of the whole format: a failed print format, the same fields */
		if (g == TEP_GUARD_UNSUPP && (failed_fields(fmt, strlen(fmt)) < 0 ||
					      failed_fields(fmt, strlen(fmt)) != failed_fields(fmt, keep)))
			g = TEP_GUARD_BAD;
		if (g != (want ? TEP_GUARD_UNSUPP : TEP_GUARD_OK) && wrong++ < 5)
			diag("%s: guard says %d", name, (int)g);
		if (next)
			*next = '=';
		n++;
	}
	is_int(n, 46, "the 4.19 arm64 formats are read");
	is_int(wrong, 0, "each passes, or is not supported for its statement expression (%d of them, which "
	       "libtraceevent fails to print whole, with the same fields)", nunsupp);
}

/*
 * @expr passes the filter check, and libtraceevent compiles it against
 * two-buffers.dat: a filter the check lets through must not crash the
 * library (the sanitizer build of `make check` would end this test).
 */
static void filter_passes(const char *expr, const char *what)
{
	struct tdat_file *f = tdat_file_new();
	struct tdat_merge *m = tdat_merge_new();
	struct tdat_select *s = tdat_select_new();
	const char *why = tep_guard_filter(expr, NULL);

	if (ok(!why, "%s: %s", what, expr) &&
	    ok(f && m && s && !tdat_file_open(f, tap_testdata("two-buffers.dat"), NULL) && !tdat_merge_add(m, f) &&
	       !tdat_select_filter(s, expr, false), "%s: inputs ready", what))
		ok(!tdat_select_bind(s, m), "%s: libtraceevent compiles it (%s)", what,
		   tdat_select_errmsg(s));
	else if (why)
		diag("refused: %s", why);
	tdat_select_free(s);
	tdat_merge_free(m);
	tdat_file_free(f);
}

/* Every format @f holds passes; returns how many were checked. */
static int check_file_formats(const char *name)
{
	struct tdat_file *f = tdat_file_new();
	int n = 0, bad = 0;

	if (!ok(f && !tdat_file_open(f, tap_testdata(name), NULL), "open %s", name)) {
		tdat_file_free(f);
		return 0;
	}
	for (int i = 0; i < f->meta.nftrace; i++, n++)
		bad += guard(f->meta.ftrace[i].data) != TEP_GUARD_OK;
	for (int s = 0; s < f->meta.nsystems; s++)
		for (int i = 0; i < f->meta.systems[s].nfmts; i++, n++)
			bad += guard(f->meta.systems[s].fmts[i].data) != TEP_GUARD_OK;
	is_int(bad, 0, "%s: all %d formats pass", name, n);
	tdat_file_free(f);
	return n;
}

static unsigned char zeros[1 << 16];

/*
 * Give each 4-byte __data_loc/__rel_loc field of a record of zeros 8 bytes
 * of data after its @size fixed bytes, as the kernel fills them (a mask or
 * a string is never 0 bytes long); the new size.
 */
static unsigned dynamic_data(struct tep_format_field *f, unsigned size)
{
	for (; f; f = f->next) {
		uint32_t loc;

		if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size != 4 || f->offset < 0 ||
		    size + 8 > 0xffff || (unsigned)f->offset + 4 > sizeof(zeros))
			continue;
		loc = size - ((f->flags & TEP_FIELD_IS_RELATIVE) ? (unsigned)(f->offset + 4) : 0);
		loc |= 8u << 16;
		memcpy(zeros + f->offset, &loc, sizeof(loc));
		size += 8;
	}
	return size;
}

/*
 * Whether print-guard.c lets libtraceevent print a record of zeros of the
 * event in @buf (as long as its fields): a kernel format must not be
 * refused for its own shape (a width, an index, a division by a number).
 */
static bool zeros_print(const char *buf, size_t len, const char *system)
{
	unsigned char *rec = zeros;
	struct tep_handle *tep = tep_alloc();
	struct tep_guard_type t = { .event = NULL };
	struct tep_event **events;
	unsigned size = 0;
	char why[256];
	bool ok = true;

	tep_set_long_size(tep, 8);
	tep_parse_event(tep, buf, len, system);
	memset(zeros, 0, sizeof(zeros));
	if ((events = tep_list_events(tep, TEP_EVENT_SORT_ID)) && events[0]) {
		for (struct tep_format_field *f = events[0]->format.fields; f; f = f->next)
			if (f->offset >= 0 && f->size >= 0 && (unsigned)(f->offset + f->size) > size)
				size = (unsigned)(f->offset + f->size);
		size = dynamic_data(events[0]->format.fields, size);
		if (size <= sizeof(zeros) - RECORD_SLACK &&
		    tep_guard_record(&t, events[0], rec, size, false, why, sizeof(why)) != TEP_RECORD_SAFE) {
			diag("%s:%s refused: %s", system, events[0]->name, why);
			ok = false;
		}
	}
	tep_free(tep);
	return ok;
}

/*
 * What print-guard.c says of a record of COMMON's event with print format
 * @print, field r = @r, @size bytes long, printed through its print format
 * or (@raw) as trace-cmd report -R prints it.
 */
static int record_guard(const char *print, int32_t r, unsigned size, bool raw)
{
	static unsigned char rec[64 + RECORD_SLACK];
	struct tep_handle *tep = tep_alloc();
	struct tep_guard_type t = { .event = NULL };
	struct tep_event *ev;
	char buf[1024], why[256];
	int ret = -1;

	snprintf(buf, sizeof(buf), COMMON "print fmt: %s\n", print);
	memset(rec, 0, sizeof(rec));
	rec[0] = 2;
	memcpy(rec + 4, &r, sizeof(r));
	tep_set_long_size(tep, 8);
	if (!tep_parse_event(tep, buf, strlen(buf), "sys") && (ev = tep_find_event(tep, 2)))
		ret = tep_guard_record(&t, ev, rec, size, raw, why, sizeof(why));
	tep_free(tep);
	return ret;
}

/*
 * trace-cmd report -R prints every field (tep_print_fields()): a field
 * through its print format's conversion when that conversion's argument is
 * the field as it is, else plainly.  So only those conversions' widths, and
 * the fields themselves, need checking.
 */
static void check_raw_guard(void)
{
	static const char arr[] = "\"%s\", __print_array(REC->name, REC->r, 4)";
	static const char wide[] = "\"%*d\", REC->r, REC->r";
	static const char ph[] = "\"%*ph\", REC->name[REC->r], REC->r";	/* t-printfmt, seed 7 */

	is_int(record_guard(arr, 1000, 24, false), TEP_RECORD_BAD_PRINT,
	       "an array of a length past the record is refused for its print format");
	is_int(record_guard(arr, 1000, 24, true), TEP_RECORD_SAFE,
	       "but prints raw (-R reads only the fields)");
	is_int(record_guard(arr, 2, 24, true), TEP_RECORD_SAFE, "as one that fits does");
	is_int(record_guard(wide, 100000, 24, true), TEP_RECORD_BAD_PRINT,
	       "a width of 100000 from the record for a field's own conversion is refused raw too");
	is_int(record_guard(wide, 10, 24, true), TEP_RECORD_SAFE, "a width of 10 is not");
	is_int(record_guard(ph, 0x7ffffffa, 24, true), TEP_RECORD_BAD_PRINT,
	       "the width of a field's \"%%*p\", an index past the record, is refused raw");
	is_int(record_guard(ph, 2, 24, true), TEP_RECORD_SAFE, "an index inside it is not");
	is_int(record_guard("\"%*s\", REC->r, \"x\"", 100000, 24, true), TEP_RECORD_SAFE,
	       "a width for something other than a field is not used raw");
	is_int(record_guard("\"%5000d\", REC->r", 1, 24, true), TEP_RECORD_BAD_PRINT,
	       "a literal width above 4096 for a field is refused raw");
	is_int(record_guard("\"%5000s %d\", \"x\", REC->r", 1, 24, true), TEP_RECORD_SAFE,
	       "but not for a string constant");
	is_int(record_guard("\"%5000s %d\", \"x\", REC->r", 1, 24, false), TEP_RECORD_BAD_PRINT,
	       "which the print format prints");
	is_int(record_guard(arr, 2, 6, true), TEP_RECORD_BAD_FIELDS,
	       "a field past the end of the record is not read raw either");
}

/*
 * __get_cpumask() of a mask 0 bytes long: libtraceevent 1.7 mallocs about
 * 3 GB for its text (its worst-case bound wraps); found by t-printfmt under
 * ASan, where the allocation takes seconds.
 */
static int cpumask_guard(const char *arg, uint32_t loc)
{
	static unsigned char rec[64 + RECORD_SLACK];
	struct tep_handle *tep = tep_alloc();
	struct tep_guard_type t = { .event = NULL };
	struct tep_event *ev;
	char buf[1024], why[256];
	int ret = -1;

	snprintf(buf, sizeof(buf), HEAD "\tfield:__data_loc cpumask_t[] mask;\toffset:4;\tsize:4;\tsigned:0;\n"
		 "\nprint fmt: \"%%s\", __get_cpumask(%s)\n", arg);
	memset(rec, 0, sizeof(rec));
	rec[0] = 2;
	rec[8] = 0x0f;	/* CPUs 0-3 */
	memcpy(rec + 4, &loc, sizeof(loc));
	tep_set_long_size(tep, 8);
	if (!tep_parse_event(tep, buf, strlen(buf), "sys") && (ev = tep_find_event(tep, 2)))
		ret = tep_guard_record(&t, ev, rec, 16, false, why, sizeof(why));
	tep_free(tep);
	return ret;
}

static void check_cpumask_guard(void)
{
	is_int(cpumask_guard("mask", 8u << 16 | 8), TEP_RECORD_SAFE, "a cpumask of 8 bytes prints");
	is_int(cpumask_guard("mask", 0u << 16 | 8), TEP_RECORD_BAD_PRINT,
	       "a cpumask of 0 bytes is refused for its print format (libtraceevent would malloc 3 GB)");
	is_int(cpumask_guard("nomask", 8u << 16 | 8), TEP_RECORD_BAD_PRINT,
	       "a cpumask of a field the event lacks is refused (libtraceevent dereferences NULL)");
}

/* The running kernel's formats, when tracefs is there to read. */
static void check_live_formats(void)
{
	const char *top = "/sys/kernel/tracing/events";
	DIR *d = opendir(top), *sd;
	struct dirent *e, *se;
	static char buf[1 << 16];
	int n = 0, bad = 0, unprintable = 0;

	if (!d) {
		skip("no readable tracefs");
		return;
	}
	while ((e = readdir(d))) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", top, e->d_name);
		if (e->d_name[0] == '.' || !(sd = opendir(path)))
			continue;
		while ((se = readdir(sd))) {
			char fpath[8192];
			FILE *fp;
			size_t len;

			snprintf(fpath, sizeof(fpath), "%s/%s/format", path, se->d_name);
			if (se->d_name[0] == '.' || !(fp = fopen(fpath, "r")))
				continue;
			len = fread(buf, 1, sizeof(buf) - 1, fp);
			fclose(fp);
			buf[len] = 0;
			n++;
			if (guard(buf) != TEP_GUARD_OK && bad++ < 5)
				diag("refused: %s", fpath);
			else if (!zeros_print(buf, len, e->d_name))
				unprintable++;
		}
		closedir(sd);
	}
	closedir(d);
	is_int(bad, 0, "all %d formats of the running kernel pass", n);
	is_int(unprintable, 0, "and a record of zeros of each prints (no print check refuses a kernel format)");
}

/*
 * Print formats after the common fields: whether each passes the format
 * check.  Found by t-printfmt's random search and fuzz-open: libtraceevent
 * drops a group's parentheses when its operator has a lower priority
 * ("8 / (0 | x)" becomes "(8 / 0) | x": SIGFPE at parse time); 1.7.1's
 * process_sizeof() frees the last name twice (fixed upstream in 1.7.2); a
 * failed sizeof() first in a ternary's false branch is folded as an atom
 * with no text (strtoull(NULL)).
 */
static const struct {
	const char *print;
	bool passes;
	const char *what;
} print_shapes[] = {
	{ "\"%d\", 8 / (0 | REC->r)", false, "a group divisor that starts with a number is refused, whatever follows" },
	{ "\"%d\", 8 / (\"s\" ? REC->r : 1)", false, "so is one that starts with a string" },
	{ "\"%d\", 8 / ((sizeof(long) - 8) | REC->r)", false, "or with a nested group" },
	{ "\"%d %d\", 8 / (REC->r | 0), 8 / (-1 | REC->r)", true,
	  "a group divisor that starts with a field or a unary operator passes" },
	{ "\"%d\", 8 % sizeof(long) % 8", false, "sizeof() as divisor before another modulo is refused, as a number is" },
	{ "\"%d\", REC->r | sizeof(int)", false, "sizeof(int) is refused (a double free)" },
	{ "\"%d\", sizeof(unsigned int)", false, "so is sizeof(unsigned int)" },
	{ "\"%d\", sizeof( long  long )", false, "and sizeof(long long)" },
	{ "\"%d\", sizeof(REC->r)", false, "and sizeof(REC->field)" },
	{ "\"%d %d\", sizeof(long), sizeof(unsigned)", true, "sizeof(long) and sizeof(unsigned) pass (read right)" },
	{ "\"%d %d\", sizeof(u64), sizeof(unsigned int)", true,
	  "a sizeof() after one libtraceevent fails on passes: it reads no further (dma_map_sg's format)" },
	{ "\"%d\", REC->r ? 1 : sizeof(u64)", false,
	  "a sizeof() it fails on, first in a ternary's false branch, is refused (strtoull(NULL); fuzz-open)" },
	{ "\"%d\", REC->r ? 1 : ( sizeof(C->x)", false, "parentheses do not help" },
	{ "\"%d %d\", REC->r ? 1 : sizeof(long), REC->r ? 1 : -1", true, "sizeof(long) there passes" },
};

static void check_print_shapes(void)
{
	char buf[1024];

	for (size_t i = 0; i < sizeof(print_shapes) / sizeof(print_shapes[0]); i++) {
		snprintf(buf, sizeof(buf), COMMON "print fmt: %s\n", print_shapes[i].print);
		ok(ok_fmt(buf) == print_shapes[i].passes, "%s", print_shapes[i].what);
	}
}

int main(void)
{
	static const char *const files[] = { "v6.dat", "v7-zstd.dat", "stack.dat", "markers.dat",
					     "two-buffers.dat", "atrace.dat" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		check_file_formats(files[i]);
	check_live_formats();

	ok(ok_fmt(COMMON "print fmt: \"%d %s\", REC->r, REC->name\n"), "fields referenced");
	ok(ok_fmt(COMMON "print fmt: \"%s\", __print_flags(REC->r, \"|\", {1, \"a\"})\n"),
	   "__print_flags of a field");
	ok(ok_fmt(COMMON "print fmt: \"%d\", REC->common_type\n"), "a common field");
	ok(ok_fmt(COMMON "print fmt: \"%d\", (REC)->r\n"), "(REC)->field");
	ok(!ok_fmt(COMMON "print fmt: \"%s\", __print_flags(REC->p, \"|\", {1, \"a\"})\n"),
	   "__print_flags of a missing field is refused (NULL pointer in libtraceevent)");
	ok(!ok_fmt(COMMON "print fmt: \"%s\", __print_symbolic(REC -> p, {1, \"a\"})\n"),
	   "__print_symbolic of a missing field, with spaces, is refused");
	ok(!ok_fmt(COMMON "print fmt: \"\",o,__print_flags(REC->p"),
	   "the fuzz finding's shape (print fmt cut short) is refused");
	ok(!ok_fmt(COMMON "print fmt: \"%d\", REC->p\n"), "any missing field is refused");
	ok(fields_only(COMMON "print fmt: \"%d\", REC->p\n"),
	   "a damaged print format costs only the print format: the fields are kept");
	ok(fields_only(COMMON "print fmt: \"%d\", REC->r ? 2 : x # 1\n"), "so does an unknown operator there");
	ok(fields_only(COMMON "print fmt: \"\xc3\"\n"), "and a byte past ASCII there");
	ok(guard(COMMON "\tfield:int 2x;\toffset:4;\tsize:4;\n\nprint fmt: \"\"\n") == TEP_GUARD_BAD,
	   "a damaged field line costs the whole format");
	ok(!ok_fmt(COMMON "print fmt: \"%d\", REC->p,\n\tfield:int p;\toffset:4;\tsize:4;\n"),
	   "a field line after \"print\" does not count");
	ok(!ok_fmt(COMMON "print fmt: \"%d\", REC->\n"), "REC-> with no name is refused");
	ok(ok_fmt(COMMON "print fmt: \"%d %d [%d]=\", REC->name[0] + 1, REC->name[1], REC->r\n"),
	   "array indexes followed by known operators and ']' in a string pass");
	ok(ok_fmt(COMMON "print fmt: \"%d\", REC->name[0] >>= 1 ? 1 : REC->name[1]&&1\n") == false,
	   "'>>=' after an index is refused");
	ok(!ok_fmt(COMMON "print fmt: \"%d %d\", REC->name[2]# REC->r\n"),
	   "an unknown operator after an index is refused (NULL pointer in libtraceevent; fuzz-open)");
	ok(!ok_fmt(COMMON "print fmt: \"%d\", REC->name[1] = 2\n"), "'=' after an index is refused");
	ok(!ok_fmt(COMMON "print fmt: \"%d\", REC->name[1]->x\n"), "'->' after an index is refused");
	ok(ok_fmt(COMMON "print fmt: \"%d\", REC->name[1] ? 1 : 2\n"), "'?' and ':' after an index pass");
	ok(ok_fmt(COMMON "print fmt: \"%d %d %d %d\", REC->r / 250, REC->r % sizeof(u32), "
			    "REC->r / 1000L, 8 / (REC->r + 1)\n"), "divisions by a number, sizeof or a field group pass");
	ok(!ok_fmt(COMMON "print fmt: \"\",E%l"),
	   "a constant division by a name (0) is refused (SIGFPE in libtraceevent; fuzz-open)");
	ok(!ok_fmt(COMMON "print fmt: \"%d\", 5 / 0\n"), "a division by 0 is refused");
	ok(!ok_fmt(COMMON "print fmt: \"\",L%29%29"),
	   "a divisor number before another '%' is refused (\"L % (29 % 29)\" to libtraceevent: SIGFPE; fuzz-open)");
	ok(!ok_fmt(COMMON "print fmt: \"\",L%29 L%29"),
	   "and before a name (libtraceevent folds it with what follows: SIGFPE; fuzz-open)");
	ok(!ok_fmt(COMMON "print fmt: \"%d\", REC->r / 2 / 3\n"), "so is \"/ 2 / 3\" (a division by 2 / 3, 0)");
	ok(!ok_fmt(COMMON "print fmt: \"%d\", REC->r / 3 * 0\n"), "and \"/ 3 * 0\"");
	ok(ok_fmt(COMMON "print fmt: \"%d.%03d %d %d %d\", REC->r / 1000, REC->r % 1000, REC->r / 8 + 1, "
			    "(REC->r / 8), REC->r % 2 ? 1 : 0\n"),
	   "a divisor number before ',', ')', '?' or '+' passes");
	ok(!ok_fmt(COMMON "print fmt: \"%p\", (void *)/RECW>r\n"),
	   "a division by a name that starts with REC (SIGFPE in libtraceevent; fuzz-writers)");
	ok(!ok_fmt(COMMON "print fmt: \"%d\", 8 / sizeofx\n"), "a division by a name that starts with sizeof");
	ok(ok_fmt(COMMON "print fmt: \"%s %d\", REC->r ? \" a\" : \"\", REC->r ? 1 : REC->r + 2\n"),
	   "ternaries whose false branch ends with ',', the end or a known operator pass");
	ok(!ok_fmt(COMMON "print fmt: \"%d\", REC->r ? 2 : x # 1\n"),
	   "an unknown operator after a ternary's false branch is refused (NULL pointer; fuzz-open)");
	ok(!ok_fmt(COMMON "print fmt: \"%d\", REC->r ? 2 : x[1]\n"), "so is '[' there");
	ok(!ok_fmt(COMMON "print fmt: \"%d\", REC->r ? 2 : (x) = 1\n"), "and '=' after a group there");
	ok(!ok_fmt(COMMON "print fmt: \"%d\", REC->r ? 2 : char REC->r\n"), "and two items in a row there (fuzz-open)");
	ok(!ok_fmt(COMMON "print fmt: \"%d\", 5 % (1 - 1)\n"), "a constant group as divisor is refused");
	check_print_shapes();
	check_raw_guard();
	check_cpumask_guard();
	ok(ok_fmt(COMMON "print fmt: \"%s\", ({ static const char *s[] = { \"a\" }; s[REC->r], 1 })\n"),
	   "'=' after an empty '[]' (a declaration, as kvmmmu formats have) passes");
	check_kernel_formats();
	ok(ok_fmt(HEAD "\tfield:__u8 len;\toffset:4;\tsize:1;\tsigned:0;\n"
		       "\tfield:__u8 buf[32 + 2];\toffset:5;\tsize:34;\tsigned:0;\n\n"
		       "print fmt: \"%*phD\", REC->len, REC->buf\n"),
	   "an array whose length is an expression with spaces passes (i2c's smbus formats)");
	ok(guard(HEAD "\tfield:u8 2x[2 + 2];\toffset:4;\tsize:4;\n\nprint fmt: \"\"\n") == TEP_GUARD_BAD,
	   "the name before them must still be an identifier");
	ok(guard(HEAD "\tfield:u8 [2 + 2];\toffset:4;\tsize:4;\n\nprint fmt: \"\"\n") == TEP_GUARD_BAD,
	   "brackets with no name before them are refused");
	ok(unsupported(COMMON "print fmt: \"%d %s\", REC->r, ({ char *s; switch (REC->r) { case 3: s = \"a\"; break; "
				"default: s = \"b\"; } s; })\n"),
	   "a statement expression libtraceevent cannot read (xhci's switch) is not supported, not damage");
	ok(unsupported(COMMON "print fmt: \"%s\", (  {x = REC->missing # 1; })\n"),
	   "what follows its '(' '{' does not matter: libtraceevent reads no further");
	ok(fields_only(COMMON "print fmt: \"%d %s\", REC->p, ({ char *s; s = \"a\"; s; })\n"),
	   "a damaged print format before the statement expression is still damage");
	ok(fields_only(COMMON "print fmt: \"%d ({\", REC->r ? 2 : x # 1\n"),
	   "\"({\" in a string is no statement expression");
	ok(fields_only(COMMON "print fmt: \"%d\", REC->r ? 2 : x # ({ 1; })\n"),
	   "nor is one after the damage");
	ok(!ok_fmt("name: t\nID: x2\nformat:\n"), "a non-numeric ID is refused");
	ok(!ok_fmt(COMMON "\tfield:char c[16_;\toffset:4;\tsize:4;\n\tfield:int d;\toffset:8;\tsize:4;\n\n"
			     "print fmt: \"%d\", REC->d\n"),
	   "an unclosed '[' is refused (libtraceevent swallows the next fields; fuzz-open)");
	ok(guard(COMMON "\tfield:char c['6];\toffset:4;\tsize:4;\n\tfield:int d;\toffset:8;\tsize:4;\n\n"
		       "print fmt: \"%d\", REC->d\n") == TEP_GUARD_BAD,
	   "a quote among the fields is refused (a string token swallows the next fields; fuzz-writers)");
	ok(ok_fmt("name: t\nID: 2\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n\n"
			    "\tfield:__data_loc char[] s;\toffset:4;\tsize:4;\n\tfield:u8 a[2];\toffset:8;\tsize:2;\n\n"
			    "print fmt: \"%s %d\", __get_str(s), REC->a[0]\n"), "'char[] name' and 'a[2]' pass");
	ok(!ok_fmt(COMMON "\tfield:char c[\x17 x];\toffset:4;\tsize:4;\n\nprint fmt: \"\"\n"),
	   "a control byte is refused (a NULL token in libtraceevent; fuzz-open)");
	ok(!ok_fmt(COMMON "print fmt: \"\xc3\xa9\"\n"), "a byte past ASCII is refused");
	ok(!ok_fmt("ID: 2\nname: t\n"), "no name first is refused");
	ok(!ok_fmt(COMMON "\tfield:int 2x;\toffset:4;\tsize:4;\n\nprint fmt: \"\"\n"),
	   "a field name that is not an identifier is refused");
	ok(!ok_fmt(COMMON "\tfield:int x;\toffset:four;\tsize:4;\n\nprint fmt: \"\"\n"),
	   "an offset that is not a number is refused");

	ok(tep_guard_filter("sched_switch:prev_pid==0 && next_pid", NULL) != NULL, "a value with no comparison");
	ok(tep_guard_filter("sched_switch:prev_pid== ==0", NULL) != NULL, "two operators in a row");
	ok(tep_guard_filter("sched_switch:prev_comm==\"a", NULL) != NULL, "an unterminated string");
	ok(tep_guard_filter("sched_switch:prev_pid==0,next_pid==1", NULL) != NULL, "a ',' after the ':'");
	ok(tep_guard_filter("sched_switch:prev_comm==\"a\tb\"", NULL) != NULL, "a tab");
	ok(tep_guard_filter("sched_switch:prev_pid==0 || next_pid==prev_pid", NULL) != NULL,
	   "a comparison with a name (a use after free in libtraceevent; fuzz-filter)");
	ok(tep_guard_filter("sched_switch:prev_pid==0 && next_comm != x", NULL) != NULL, "the same with !=");
	filter_passes("sched_switch:prev_pid==0x1f || (next_pid > -1)", "hex and negative numbers pass");
	filter_passes("sched_switch:next_pid > -1 || prev_pid==0", "a negative number in the first clause passes");
	ok(tep_guard_filter("sched_switch:prev_pid==0x1f || next_pid > -1", NULL) != NULL,
	   "a negative number in a clause after || (a double free in libtraceevent)");
	ok(tep_guard_filter("sched_switch:prev_pid==0 || prev_prio-next_prio==0", NULL) != NULL,
	   "arithmetic in a clause after || (a double free in libtraceevent; fuzz-filter)");
	ok(tep_guard_filter("sched_switch:prev_pid==1 && prev_prio/2>0", NULL) != NULL, "the same after &&");
	ok(tep_guard_filter("sched_switch:(prev_pid==0 || next_pid-1==0)", NULL) != NULL, "the same inside a group");
	ok(tep_guard_filter("sched_switch:prev_pid==0 || (prev_prio-next_prio==0)", NULL) != NULL,
	   "arithmetic even in parentheses (libtraceevent cannot compile it either)");
	filter_passes("sched_switch:prev_pid==0 || next_comm ~ \"k*\"", "a match after || passes");
	ok(tep_guard_filter("irq:(d==0 ||!Q!!sh)", NULL) != NULL, "'!' after a value (a double free in libtraceevent; fuzz-filter)");
	filter_passes("sched_switch:prev_pid==0 || !next_pid == 1", "'!' as a prefix passes");
	ok(tep_guard_filter(".*:c==0 ||e==!0", NULL) != NULL,
	   "'!' after a comparison operator (a double free in libtraceevent; fuzz-filter)");
	ok(tep_guard_filter("sched_switch:prev_pid + !next_pid == 1", NULL) != NULL, "'!' after arithmetic");
	ok(tep_guard_filter("sched_switch:prev_pid==1 && !!(next_pid==1) || (prev_pid==2)", NULL) != NULL,
	   "'!!' (a double free in libtraceevent)");
	filter_passes("sched_switch:!(prev_pid==0) && !(next_pid==1) || (!next_pid==2)",
	   "'!' at the start of a condition, after && and '(', passes");
	ok(tep_guard_filter(".....:v==0||i!=1........", NULL) != NULL, "a '.' in a value after || (a double free in libtraceevent; fuzz-filter)");
	ok(tep_guard_filter("sched_switch:prev_pid==0||(next_pid!=1.5)", NULL) != NULL,
	   "the same in parentheses (libtraceevent cannot compile it either)");
	ok(tep_guard_filter("sched_switch:(prev_pid!=5)$000", NULL) != NULL,
	   "'$' after a group (a use after free in libtraceevent; fuzz-filter)");
	ok(tep_guard_filter("sched_switch:(prev_pid==1)(next_pid==2)", NULL) != NULL, "'(' after a group");
	ok(tep_guard_filter("sched_switch:prev_pid==1 @", NULL) != NULL, "a character with no meaning");
	ok(tep_guard_filter("sched:prev_pid%099", NULL) != NULL, "a modulo by 099 (octal, read as 0: SIGFPE at match; fuzz-filter)");
	ok(tep_guard_filter("sched_switch:prev_pid / next_pid == 1", NULL) != NULL, "a division by a field");
	ok(tep_guard_filter("sched_switch:prev_pid % 4 == 1 && (next_pid / 0x10 > 2)", NULL) != NULL,
	   "divisions (libtraceevent cannot compile them either)");
	filter_passes("sched_switch:((prev_pid==1) && (next_pid==2)) || prev_comm==\"a$b\"",
	   "nested groups, and any character inside a string, pass");
	filter_passes("sched_switch:prev_pid==0 && (next_pid>1 || next_comm~\"k*\")",
	   "an ordinary filter passes");
	filter_passes("sched_switch,sched_wakeup", "event names only pass");
	/* the grammar: found by fresh-corpus fuzz-filter runs before it */
	ok(tep_guard_filter("sched_switch:(prev_pid==0 || pid==", NULL) != NULL,
	   "two strings in a row (a double free in libtraceevent; fuzz-filter)");
	ok(tep_guard_filter("sched_switch:prev_pid==1 && !nREext_pid=pid==2)", NULL) != NULL,
	   "a single '=' (a double free in libtraceevent; fuzz-filter)");
	ok(tep_guard_filter("sched_switch:(prev_state & 2) == 2", NULL) != NULL,
	   "a comparison after a group (trace-cmd report -F frees twice on it)");
	ok(tep_guard_filter("sched_switch:prev_pid==0 || prev_state & 2", NULL) != NULL, "a bit test after ||");
	ok(tep_guard_filter("sched_switch:prev_pid==0d", NULL) != NULL, "a number with a letter after it");
	ok(tep_guard_filter(".*:COMM==\"\\\\\"", NULL) != NULL,
	   "a string ending in an escaped backslash (a NULL pointer in libtraceevent; fuzz-filter)");
	ok(tep_guard_filter(".*:COMM==\"a\\\"b\"", NULL) != NULL, "any backslash in a string");
	ok(tep_guard_filter("sched_switch:prev_pid==(1)", NULL) != NULL, "a group as a value");
	ok(tep_guard_filter("sched_switch:prev_pid<\"a\"", NULL) != NULL, "a string after <");
	ok(tep_guard_filter("sched_switch:prev_comm=~1", NULL) != NULL, "a number after =~");
	ok(tep_guard_filter("sched_switch:(prev_pid==1))", NULL) != NULL, "a ')' with no '('");
	ok(tep_guard_filter("sched_switch:", NULL) != NULL, "nothing after the ':'");
	ok(tep_guard_filter("sched_switch:((((((((((((((((((prev_pid==1))))))))))))))))))", NULL) != NULL,
	   "groups nested 18 deep");
	filter_passes("sched_switch:((((((((((((((((prev_pid==1))))))))))))))))", "groups nested 16 deep pass");
	filter_passes("sched_switch:prev_state & 2", "a bit test passes");
	filter_passes("sched_switch:prev_pid==0 || (prev_state & 2)", "a bit test in a group after || passes");
	filter_passes("sched_switch:prev_comm == '' || !(next_comm != \"sh\")", "an empty string, and '!' before a group, pass");
	filter_passes("sched_switch:prev_pid >= 0XfF && next_pid<=10 && COMM ~ \"s*\"",
		      "hex, <=, >= and COMM pass");
	return done_testing();
}
