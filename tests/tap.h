/*
 * tap.h: a tiny Test Anything Protocol producer for tdat's C unit tests
 * (tests/unit/t-*.c), in the spirit of git's t/unit-tests/test-lib.h.
 * automake's tap-driver.sh reads what it prints.
 *
 *	int main(void)
 *	{
 *		plan(2);			(or call done_testing() at the end)
 *		ok(p != NULL, "open %s", path);
 *		is_int(tdat_reader_next(r, &ev), TDAT_OK, "first event");
 *		return exit_status();
 *	}
 *
 * Each check prints "ok N - description" or "not ok N - description"
 * followed by "#   Failed test at FILE:LINE" and what it got and wanted,
 * and returns 1 if it passed, 0 if not, so a test can stop early:
 * "if (!ok(...)) return exit_status();".
 */
#ifndef TDAT_TESTS_TAP_H
#define TDAT_TESTS_TAP_H

#include <stddef.h>

#define TAP_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Announce the number of tests up front ("1..N"). */
void plan(int n);
/* Print "1..N" at the end instead of a plan; returns exit_status(). */
int done_testing(void);
/* 0 if every test passed and the plan (if any) was met, else 1. */
int exit_status(void);
/* A "# ..." line of commentary; a newline is added. */
void diag(const char *fmt, ...) TAP_PRINTF(1, 2);
/* Count one test as skipped: "ok N # SKIP reason". */
void skip(const char *reason);
/* Skip the whole file ("1..0 # SKIP reason") and exit 0. Call before any test. */
void skip_all(const char *reason) __attribute__((noreturn));
/* Stop the whole run: "Bail out! ..." and exit 255. */
void bail_out(const char *fmt, ...) TAP_PRINTF(1, 2) __attribute__((noreturn));
/* $TOP_SRCDIR/testdata/@name (. without TOP_SRCDIR), in a buffer reused by the next call. */
const char *tap_testdata(const char *name);

#define ok(cond, ...) \
	tap_ok_(!!(cond), #cond, __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) \
	tap_is_int_((long long)(got), (long long)(want), __FILE__, __LINE__, __VA_ARGS__)
#define is_uint(got, want, ...) \
	tap_is_uint_((unsigned long long)(got), (unsigned long long)(want), \
		     __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) \
	tap_is_str_((got), (want), __FILE__, __LINE__, __VA_ARGS__)
#define is_mem(got, want, len, ...) \
	tap_is_mem_((got), (want), (len), __FILE__, __LINE__, __VA_ARGS__)

int tap_ok_(int pass, const char *expr, const char *file, int line,
	    const char *fmt, ...) TAP_PRINTF(5, 6);
int tap_is_int_(long long got, long long want, const char *file, int line,
		const char *fmt, ...) TAP_PRINTF(5, 6);
int tap_is_uint_(unsigned long long got, unsigned long long want,
		 const char *file, int line, const char *fmt, ...) TAP_PRINTF(5, 6);
int tap_is_str_(const char *got, const char *want, const char *file, int line,
		const char *fmt, ...) TAP_PRINTF(5, 6);
int tap_is_mem_(const void *got, const void *want, size_t len,
		const char *file, int line, const char *fmt, ...) TAP_PRINTF(6, 7);

#endif /* TDAT_TESTS_TAP_H */
