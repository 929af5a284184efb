/*
 * t-numfmt.c - unit tests of fmt_u64() (libfmt/write/writer.c), the
 * decimal formatting that the CSV, JSON and SQLite writers put every
 * number through: each power of ten and its neighbours, every length from
 * 1 to 20 digits, UINT64_MAX, and a million pseudo-random values of every
 * magnitude give what printf's %llu gives.  So does fmt_hex64(), the hex
 * of CSV's and JSON's pointers (it writes 16 bytes, no more), against
 * %llx: every single bit, every run of ones from the bottom, 0, and a
 * million pseudo-random values.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "write/sink.h"
#include "../tap.h"

static unsigned wrong;

/* Compare one value with printf's (@hex: of fmt_hex64()); report the first few that differ. */
static void check_as(uint64_t v, bool hex)
{
	char want[32], got[32];
	size_t n;

	snprintf(want, sizeof(want), hex ? "%" PRIx64 : "%" PRIu64, v);
	memset(got, 'x', sizeof(got));
	n = hex ? fmt_hex64(got, v) : fmt_u64(got, v);
	if (n == strlen(want) && !memcmp(got, want, n) && got[hex ? 16 : n] == 'x')
		return;
	if (wrong++ < 5)
		diag("%" PRIu64 ": got '%.*s' (%zu digits)", v, (int)(n < 32 ? n : 32), got, n);
}

static void check(uint64_t v)
{
	check_as(v, false);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(void)
{
	uint64_t p = 1, s = 88172645463325252ULL;

	plan(4);
	for (int i = 0; i < 20; i++, p *= 10)
		for (int d = -2; d <= 2; d++)
			check(p + (uint64_t)(int64_t)d);	/* 1 - 2 wraps: UINT64_MAX - 1 */
	check(0);
	check(UINT64_MAX);
	check(UINT64_MAX - 1);
	check(18440000000000000000ULL);	/* 20 digits, the first group 1844 */
	ok(!wrong, "powers of ten and their neighbours, 0 and UINT64_MAX as printf prints them");
	wrong = 0;
	for (int i = 0; i < 1000000; i++) {
		uint64_t v = rnd(&s);

		check(v >> (v % 64));	/* every magnitude */
	}
	ok(!wrong, "a million pseudo-random values of every magnitude as printf prints them");
	wrong = 0;
	check_as(0, true);
	for (int i = 0; i < 64; i++) {
		check_as(1ULL << i, true);
		check_as(UINT64_MAX >> i, true);
	}
	check_as(0xffffffff81000000ULL, true);
	ok(!wrong, "hex: 0, every bit, every run of ones from the bottom as printf's %%llx");
	wrong = 0;
	for (int i = 0; i < 1000000; i++) {
		uint64_t v = rnd(&s);

		check_as(v >> (v % 64), true);
	}
	ok(!wrong, "hex: a million pseudo-random values of every magnitude as printf's %%llx");
	return exit_status();
}
