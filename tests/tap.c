/*
 * tap.c: the TAP producer behind tests/tap.h. Results go to stdout, flushed
 * after every line so a crashing test still shows how far it got; automake's
 * tap-driver.sh turns them into PASS/FAIL/SKIP lines and test-suite.log.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static int planned = -1;	/* -1: no plan yet */
static int count;
static int failed;

void plan(int n)
{
	planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

int exit_status(void)
{
	if (planned >= 0 && count != planned) {
		printf("# planned %d tests but ran %d\n", planned, count);
		return 1;
	}
	return failed ? 1 : 0;
}

int done_testing(void)
{
	if (planned < 0) {
		planned = count;
		printf("1..%d\n", count);
	}
	if (failed)
		printf("# failed %d of %d tests\n", failed, count);
	fflush(stdout);
	return exit_status();
}

static void vdiag(const char *fmt, va_list ap)
{
	fputs("# ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
}

void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

void skip(const char *reason)
{
	printf("ok %d # SKIP %s\n", ++count, reason);
	fflush(stdout);
}

void skip_all(const char *reason)
{
	printf("1..0 # SKIP %s\n", reason);
	exit(0);
}

void bail_out(const char *fmt, ...)
{
	va_list ap;

	fputs("Bail out! ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(255);
}

const char *tap_testdata(const char *name)
{
	static char path[4096];
	const char *top = getenv("TOP_SRCDIR");

	snprintf(path, sizeof(path), "%s/testdata/%s", top ? top : ".", name);
	return path;
}

/* Format a check's description from its trailing printf arguments. */
#define DESC(buf, fmt) do {					\
	va_list ap_;						\
	va_start(ap_, fmt);					\
	vsnprintf(buf, sizeof(buf), fmt, ap_);			\
	va_end(ap_);						\
} while (0)

/*
 * Print the result line. A '#' in the description is escaped, as a bare one
 * would start a TAP directive. Returns pass so the checks can return it.
 */
static int report(int pass, const char *file, int line, const char *desc)
{
	const char *p;

	printf("%sok %d", pass ? "" : "not ", ++count);
	if (*desc)
		fputs(" - ", stdout);
	for (p = desc; *p; p++) {
		if (*p == '#' || *p == '\\')
			putchar('\\');
		putchar(*p == '\n' ? ' ' : *p);
	}
	putchar('\n');
	if (!pass) {
		failed++;
		printf("#   Failed test at %s:%d\n", file, line);
	}
	return pass;
}

int tap_ok_(int pass, const char *expr, const char *file, int line, const char *fmt, ...)
{
	char desc[256];

	DESC(desc, fmt);
	if (!report(pass, file, line, desc))
		printf("#     condition: %s\n", expr);
	fflush(stdout);
	return pass;
}

int tap_is_int_(long long got, long long want, const char *file, int line,
		const char *fmt, ...)
{
	char desc[256];
	int pass = got == want;

	DESC(desc, fmt);
	if (!report(pass, file, line, desc))
		printf("#          got: %lld\n#     expected: %lld\n", got, want);
	fflush(stdout);
	return pass;
}

int tap_is_uint_(unsigned long long got, unsigned long long want, const char *file,
		 int line, const char *fmt, ...)
{
	char desc[256];
	int pass = got == want;

	DESC(desc, fmt);
	if (!report(pass, file, line, desc))
		printf("#          got: %llu (0x%llx)\n#     expected: %llu (0x%llx)\n",
		       got, got, want, want);
	fflush(stdout);
	return pass;
}

int tap_is_str_(const char *got, const char *want, const char *file, int line,
		const char *fmt, ...)
{
	char desc[256];
	int pass = (got && want) ? !strcmp(got, want) : got == want;

	DESC(desc, fmt);
	if (!report(pass, file, line, desc)) {
		printf(got ? "#          got: \"%s\"\n" : "#          got: %s\n",
		       got ? got : "NULL");
		printf(want ? "#     expected: \"%s\"\n" : "#     expected: %s\n",
		       want ? want : "NULL");
	}
	fflush(stdout);
	return pass;
}

/* Show up to 16 bytes of buf from off as hex. */
static void hexdump(const char *label, const unsigned char *buf, size_t off, size_t len)
{
	size_t i;

	printf("#     %8s:", label);
	for (i = off; i < len && i < off + 16; i++)
		printf(" %02x", buf[i]);
	putchar('\n');
}

int tap_is_mem_(const void *got, const void *want, size_t len, const char *file,
		int line, const char *fmt, ...)
{
	const unsigned char *g = got, *w = want;
	char desc[256];
	size_t i = 0;
	int pass;

	if (g && w)
		while (i < len && g[i] == w[i])
			i++;
	pass = (g && w) ? i == len : g == w;
	DESC(desc, fmt);
	if (!report(pass, file, line, desc)) {
		if (g && w) {
			printf("#     first difference at offset %zu of %zu\n", i, len);
			hexdump("got", g, i, len);
			hexdump("expected", w, i, len);
		} else {
			printf("#     got %s, expected %s\n", g ? "memory" : "NULL",
			       w ? "memory" : "NULL");
		}
	}
	fflush(stdout);
	return pass;
}
