/*
 * t-kallsyms.c - unit tests of kallsyms_parse() (libfmt/read/kallsyms.c)
 * with libtraceevent's tep_parse_kallsyms() as the oracle: for the kallsyms
 * of every capture in testdata/, for lines of every odd shape (tabs, two
 * spaces, 17 hex digits, "0x", a module without its ']', CR, '$' names,
 * absolute symbols, empty lines, a line that cannot be read in the middle)
 * and for thousands of copies with bytes changed at random, both give the
 * same function map (tep_print_funcs(): every address, name and module in
 * order) and the same result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "read/kallsyms.h"
#include "read/read.h"
#include "../tap.h"

/* tep_print_funcs() of @tep as a malloc'd string (it prints to stdout). */
static char *funcs_of(struct tep_handle *tep)
{
	FILE *tmp = tmpfile();
	int saved;
	long n;
	char *s;

	fflush(stdout);
	saved = dup(1);
	if (!tmp || saved < 0 || dup2(fileno(tmp), 1) < 0)
		bail_out("cannot redirect stdout");
	tep_print_funcs(tep);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	fseek(tmp, 0, SEEK_END);
	if ((n = ftell(tmp)) < 0)
		bail_out("cannot read back tep_print_funcs()");
	rewind(tmp);
	s = calloc(1, (size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, tmp) != (size_t)n)
		bail_out("cannot read back tep_print_funcs()");
	fclose(tmp);
	return s;
}

/* Both parsers on @text: true when they agree; @nfuncs the lines of the map. */
static bool same(const char *text, int *nfuncs, char **why)
{
	struct tep_handle *a = tep_alloc(), *b = tep_alloc();
	int ra, rb;
	char *fa, *fb;
	bool eq;

	tep_set_loglevel(TEP_LOG_NONE);
	ra = tep_parse_kallsyms(a, text);
	rb = kallsyms_parse(b, text);
	fa = funcs_of(a);
	fb = funcs_of(b);
	eq = ra == rb && !strcmp(fa, fb);
	*nfuncs = 0;
	for (const char *p = fb; (p = strchr(p, '\n')); p++)
		++*nfuncs;
	if (!eq && why && asprintf(why, "tep %d, ours %d; tep's map:\n%.300s\nours:\n%.300s",
				   ra, rb, fa, fb) < 0)
		*why = NULL;
	free(fa);
	free(fb);
	tep_free(a);
	tep_free(b);
	return eq;
}

static void check(const char *text, const char *what)
{
	char *why = NULL;
	int n;
	bool eq = same(text, &n, &why);

	if (!ok(eq, "%s: the same map as tep_parse_kallsyms() (%d functions)", what, n))
		diag("%s", why ? why : "?");
	free(why);
}

static const char *const odd[] = {
	"ffffffff81000000 T _stext\nffffffff81000010 t helper\t[mod]\n",
	"ffffffff81000000 T  two_spaces\n",
	"ffffffff81000000  T type_after_two\n",
	"ffffffff81000000\tT tab_before_type\n",
	"ffffffff81000000 T tab_after\t\n",
	"ffffffff81000000 T name\t[mod_without_bracket\n",
	"ffffffff81000000 T name\t[\n",
	"ffffffff81000000 T name\t[]\n",
	"ffffffff81000000 T name\t[m] extra\n",
	"ffffffff81000000 T name\t(mod)\n",
	"ffffffff81000000 T name \t[mod]\n",
	"1ffffffff81000000 T seventeen_digits\n",
	"0xffffffff81000000 T with_0x\n",
	"FFFFFFFF81000000 T upper_hex\n",
	"ffffffff81000000 T crlf\r\nffffffff81000020 T next\r\n",
	"0 A abs\n1 a abs2\nffffffff81000000 T $arm\nffffffff81000001 T keep\n",
	"\n\n\nffffffff81000000 T after_empty_lines\n\n\nffffffff81000004 T more\n",
	"ffffffff81000000 T good\nnot a line at all\nffffffff81000004 T after_bad\n",
	"ffffffff81000000 T good\nffffffff81000004 T\nffffffff81000008 T after\n",
	"ffffffff81000000 T good\nffffffff81000004\n",
	"ffffffff81000000 T good\n   ffffffff81000004 T leading_spaces\n",
	"ffffffff81000000 T good\n+ffffffff81000004 T plus\n",
	"ffffffff81000000 T good\n-1 T minus\n",
	"ffffffff81000000 T no_newline_at_end",
	"ffffffff81000000 T a\nffffffff81000000 T same_address\nffffffff81000000 t third\t[m]\n",
	"",
	"\n",
	"zz T nothex\n",
	"ffffffff81000000 \x80 high_type\nffffffff81000004 T n\xc3\xa9\n",
	"ffffffff81000000 T name\v\n",
	"ffffffff81000000 T name\t[mod]\t[again]\n",
};

/* @base with 1 to 3 bytes changed (never to NUL), by the generator state @x. */
static char *mutate(const char *base, uint32_t *x)
{
	static const char pick[] = " \t\n\r[]$Aa0xfF+-\v";
	size_t n = strlen(base);
	char *s = strdup(base);

	for (int k = 0, m = 1 + (int)(*x % 3); s && n && k < m; k++) {
		*x = *x * 1664525u + 1013904223u;
		size_t at = (*x >> 8) % n;

		*x = *x * 1664525u + 1013904223u;
		s[at] = (*x >> 24) % 4 ? pick[(*x >> 8) % (sizeof(pick) - 1)] : (char)(1 + (*x >> 16) % 255);
	}
	return s;
}

int main(void)
{
	static const char *const caps[] = {
		"v7-zstd.dat", "v6.dat", "arm64-events.dat", "old-kernel.dat", "tc34-zstd.dat",
		"two-buffers.dat", "lost-events.dat", "stack.dat",
	};
	char *base = NULL;
	uint32_t x = 12345;
	int bad = 0, checked = 0;

	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		struct tdat_file *f = tdat_file_new();

		if (tdat_file_open(f, tap_testdata(caps[i]), NULL)) {
			ok(0, "%s opens", caps[i]);
			tdat_file_free(f);
			continue;
		}
		if (f->meta.kallsyms.data) {
			check(f->meta.kallsyms.data, caps[i]);
			if (!base)	/* its first 120 lines, to change at random */
				base = strndup(f->meta.kallsyms.data,
					       strlen(f->meta.kallsyms.data) > 6000 ? 6000 :
					       strlen(f->meta.kallsyms.data));
		} else {
			diag("%s has no kallsyms", caps[i]);
		}
		tdat_file_free(f);
	}
	ok(base != NULL, "a capture has kallsyms to change");
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		char what[64];

		snprintf(what, sizeof(what), "odd line %zu", i);
		check(odd[i], what);
	}
	for (int i = 0; base && i < 3000; i++) {
		char *s = mutate(base, &x);
		int n;

		if (!s)
			bail_out("out of memory");
		checked++;
		if (!same(s, &n, NULL) && bad++ < 3) {
			char *why = NULL;

			same(s, &n, &why);
			diag("variant %d differs: %s", i, why ? why : "?");
			free(why);
		}
		free(s);
	}
	is_int(bad, 0, "%d copies with bytes changed at random: the same maps", checked);
	free(base);
	return done_testing();
}
