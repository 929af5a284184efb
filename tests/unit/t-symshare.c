/*
 * t-symshare.c - unit tests of kallsyms_shareable() and kallsyms_share()
 * (libfmt/read/kallsyms.c), with libtraceevent's own map as the oracle: a
 * handle that looks its functions up in another's must name every address
 * of every capture's kallsyms (each function's start, the bytes around it,
 * none, the ends) as a handle that loaded the same kallsyms itself, and
 * print records through print formats (%pS, %ps, __print_symbolic) the
 * same byte for byte.  A print format whose argument is a function's name
 * must not be shared (libtraceevent reads that name as the function's
 * address, which only a handle holding the functions can do): the test
 * shows such a format prints differently through a resolver, and that
 * kallsyms_shareable() refuses it, and accepts names that are not
 * functions (strings, enum names).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "read/kallsyms.h"
#include "read/read.h"
#include "../tap.h"

#define EVENT_ID 7

static const char head[] =
	"name: sym\nID: 7\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int state;\toffset:16;\tsize:4;\tsigned:0;\n\n";

/* A handle with the event "sym" of print format @fmt, or NULL if it does not parse. */
static struct tep_handle *with_event(const char *fmt)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev;
	char buf[4096];
	int n = snprintf(buf, sizeof(buf), "%sprint fmt: %s\n", head, fmt);

	if (!tep)
		bail_out("out of memory");
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_event(tep, buf, (unsigned long)n, "test") ||
	    !(ev = tep_find_event(tep, EVENT_ID)) || (ev->flags & TEP_EVENT_FL_FAILED)) {
		tep_free(tep);
		return NULL;
	}
	return tep;
}

/* The text @tep prints for the record of "sym" with @ip and @state (a static buffer). */
static const char *printed(struct tep_handle *tep, unsigned long long ip, unsigned state)
{
	static struct trace_seq s;
	static bool init;
	unsigned char data[24] = { EVENT_ID };
	struct tep_record rec = { .data = data, .size = sizeof(data) };

	if (!init) {
		trace_seq_init(&s);
		init = true;
	}
	trace_seq_reset(&s);
	memcpy(data + 8, &ip, 8);
	memcpy(data + 16, &state, 4);
	tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	return s.buffer;
}

/* The address and name of @text's first plain line of type T (a kernel function). */
static unsigned long long first_function(const char *text, char *name, size_t size)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long long a;
		char t, nm[128];

		if (sscanf(p, "%llx %c %127s", &a, &t, nm) == 3 && t == 'T' && !strchr(nm, '$')) {
			snprintf(name, size, "%s", nm);
			return a;
		}
	}
	return 0;
}

/* A resolver as kallsyms_share() sets, by hand: @from's function and its start. */
static char *resolve(void *from, unsigned long long *addrp, char **modp)
{
	unsigned long long start = 0;
	const char *name = NULL;

	(void)modp;
	if (!tep_find_function_info(from, *addrp, &name, &start, NULL))
		return NULL;
	*addrp = start;
	return (char *)name;
}

static struct tep_handle *loaded(const char *text)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep || kallsyms_load(tep, text) == -2)
		bail_out("out of memory");
	return tep;
}

static bool same_name(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

/* Every address of interest of @text, named by @own and by @shared: how many differ. */
static long lookups(struct tep_handle *own, struct tep_handle *shared, const char *text, long *n)
{
	unsigned long long last = 0;
	long bad = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long long a, at[5];

		if (sscanf(p, "%llx", &a) != 1)
			continue;
		at[0] = a - 1, at[1] = a, at[2] = a + 1, at[3] = a + 0x37, at[4] = last + (a - last) / 2;
		last = a;
		for (int i = 0; i < 5; i++, (*n)++) {
			const char *x = tep_find_function(own, at[i]), *y = tep_find_function(shared, at[i]);

			if (!same_name(x, y) ||
			    tep_find_function_address(own, at[i]) != tep_find_function_address(shared, at[i]))
				if (bad++ < 3)
					diag("%#llx: %s at %#llx against %s at %#llx", at[i], x ? x : "(none)",
					     tep_find_function_address(own, at[i]), y ? y : "(none)",
					     tep_find_function_address(shared, at[i]));
		}
	}
	for (unsigned long long e = 0; e < 3; e++, (*n)++) {
		unsigned long long v = e == 0 ? 0 : e == 1 ? ~0ULL : last + 0x100000;

		if (!same_name(tep_find_function(own, v), tep_find_function(shared, v)))
			bad++;
	}
	return bad;
}

static void capture(const char *cap)
{
	struct tdat_file *f = tdat_file_new();
	struct tep_handle *own, *from, *shared;
	long n = 0, bad;

	if (tdat_file_open(f, tap_testdata(cap), NULL) || !f->meta.kallsyms.data) {
		ok(0, "%s opens, with kallsyms", cap);
		tdat_file_free(f);
		return;
	}
	own = loaded(f->meta.kallsyms.data);
	from = loaded(f->meta.kallsyms.data);
	if (!(shared = tep_alloc()))
		bail_out("out of memory");
	is_int(kallsyms_shareable(shared, f->meta.kallsyms.data) ? kallsyms_share(shared, from) : 1, 0,
	       "%s: shared", cap);
	bad = lookups(own, shared, f->meta.kallsyms.data, &n);
	is_int(bad, 0, "%s: %ld addresses named and placed as by its own map", cap, n);
	tep_free(shared);
	tep_free(from);
	tep_free(own);
	tdat_file_free(f);
}

/*
 * Print format @fmt through a handle sharing @text's functions and one
 * holding them: 1 if kallsyms_shareable() says no, else kallsyms_share()'s
 * result, as @want; where it shares, the same text.
 */
static void format(const char *text, const char *fmt, int want, unsigned long long ip,
		   const char *what)
{
	struct tep_handle *from = loaded(text), *own = with_event(fmt), *shared = with_event(fmt);
	int got;

	if (!own || !shared)
		bail_out("the format of %s does not parse", what);
	kallsyms_load(own, text);
	got = kallsyms_shareable(shared, text) ? kallsyms_share(shared, from) : 1;
	is_int(got, want, "%s: %s", what, want ? "not shared" : "shared");
	if (!got) {
		char *a = strdup(printed(own, ip, 1));

		is_str(printed(shared, ip, 1), a, "%s: printed the same", what);
		free(a);
	}
	tep_free(shared);
	tep_free(own);
	tep_free(from);
}

int main(void)
{
	static const char *const caps[] = {
		"v7-zstd.dat", "v6.dat", "arm64-events.dat", "old-kernel.dat", "tc34-zstd.dat",
		"stack.dat",
	};
	struct tdat_file *f = tdat_file_new();
	const char *text;
	char name[128], fmt[512];
	unsigned long long fn;

	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		capture(caps[i]);

	if (tdat_file_open(f, tap_testdata("v7-zstd.dat"), NULL) || !(text = f->meta.kallsyms.data))
		bail_out("v7-zstd.dat has no kallsyms");
	if (!(fn = first_function(text, name, sizeof(name))))
		bail_out("v7-zstd.dat names no function");

	format(text, "\"ip=%pS %ps\", REC->ip, REC->ip", 0, fn + 0x10, "%pS and %ps");
	format(text, "\"%s ip=%pS\", REC->state ? \"R\" : \"S\", REC->ip", 0, fn, "a string \"R\"");
	format(text, "\"%s\", __print_symbolic(REC->state, { 1, \"one\" }, { 2, \"two\" })", 0, fn,
	       "__print_symbolic");
	format(text, "\"%d\", REC->state == NOT_A_FUNCTION_NAME", 0, fn, "an enum's name");
	snprintf(fmt, sizeof(fmt), "\"%%d %%lx\", REC->ip == %s, (unsigned long)%s", name, name);
	format(text, fmt, 1, fn, "a function's name");

	/*
	 * What sharing that last one would do, the resolver set by hand: its
	 * name read as 0, not the function's address.
	 */
	{
		struct tep_handle *from = loaded(text), *own = with_event(fmt), *forced = with_event(fmt);
		char *a;

		kallsyms_load(own, text);
		if (tep_set_function_resolver(forced, resolve, from))
			bail_out("out of memory");
		a = strdup(printed(own, fn, 1));
		ok(strcmp(printed(forced, fn, 1), a) != 0,
		   "a handle without the functions prints a function's name differently (\"%s\")", a);
		free(a);
		tep_free(forced);
		tep_free(own);
		tep_free(from);
	}

	/* More names than it keeps, and a line of another shape: not shared. */
	{
		char many[2048] = "\"";
		size_t n = 1;

		for (int i = 0; i < 40; i++)
			n += (size_t)snprintf(many + n, sizeof(many) - n, "%%d ");
		n += (size_t)snprintf(many + n, sizeof(many) - n, "\"");
		for (int i = 0; i < 40; i++)
			n += (size_t)snprintf(many + n, sizeof(many) - n, ", NAME_%d", i);
		format(text, many, 1, fn, "40 names");
		format("ffffffff81000000  T  two_spaces\n", "\"%d\", REC->state == X", 1, fn,
		       "kallsyms of another shape");
		format("ffffffff81000000 T plain\n", "\"%d\", REC->state == X", 0, fn,
		       "plain kallsyms without the name");
	}
	tdat_file_free(f);
	return done_testing();
}
