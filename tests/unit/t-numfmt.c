/*
 * t-numfmt.c - unit tests of fmt_u64() (libfmt/write/writer.c), the
 * decimal formatting that the CSV, JSON and SQLite writers put every
 * number through: each power of ten and its neighbours, every length from
 * 1 to 20 digits, UINT64_MAX, and a million pseudo-random values of every
 * magnitude give what printf's %llu gives.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "write/sink.h"
#include "../tap.h"

static unsigned wrong;

/* Compare one value with printf's; report the first few that differ. */
static void check(uint64_t v)
{
	char want[32], got[32];
	size_t n;

	snprintf(want, sizeof(want), "%" PRIu64, v);
	memset(got, 'x', sizeof(got));
	n = fmt_u64(got, v);
	if (n == strlen(want) && !memcmp(got, want, n) && got[n] == 'x')
		return;
	if (wrong++ < 5)
		diag("%" PRIu64 ": got '%.*s' (%zu digits)", v, (int)(n < 32 ? n : 32), got, n);
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

	plan(2);
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
	return exit_status();
}
