/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.c - run the fuzz targets without libFuzzer: every file named on
 * the command line goes through every target (or the one -t names), so
 * `make check` replays testdata/, testdata/bad/ and the fuzz corpus through
 * the same code the fuzzers ran (zstd's regression_driver.c).
 *
 * A real capture (one that starts with the trace.dat magic) is also run
 * through every writer and every page-decoder template, by putting each
 * selector byte in front of it; fuzzer inputs carry their own.
 *
 * Usage: replay [-t open|pages|writers|filter] FILE...
 * Prints one line per file and target; exits 0 unless a file is
 * unreadable.  A crash is the sanitizers' (or the kernel's) to report.
 */
#include <string.h>

#include "fuzz.h"

/*
 * writers' flag bits: csv split by event, dat v7 uncompressed, dat v6, text -t,
 * json -j 3 = -j 1, and so from the middle of the span (--start)
 */
static const uint8_t writer_flags[] = { 0x81, 0x84, 0xc4, 0x40, 0x82, 0xc2 };

static const struct {
	const char *name;
	int (*fn)(const uint8_t *data, size_t size);
	int selectors;		/* variants run for a real capture: 0..selectors-1 */
	const uint8_t *more;	/* and these */
	int nmore;
} targets[] = {
	{ "open", fuzz_open, 0, NULL, 0 },
	{ "pages", fuzz_pages, 3, NULL, 0 },
	{ "writers", fuzz_writers, FUZZ_NWRITERS, writer_flags, sizeof(writer_flags) },
	{ "filter", fuzz_filter, 0, NULL, 0 },
};

static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

static void run(int t, const uint8_t *data, size_t len)
{
	uint8_t *buf;

	targets[t].fn(data, len);
	if (!targets[t].selectors || len < sizeof(magic) || memcmp(data, magic, sizeof(magic)))
		return;
	if (!(buf = malloc(len + 1)))
		fuzz_die("out of memory");
	memcpy(buf + 1, data, len);
	for (int k = 0; k < targets[t].selectors + targets[t].nmore; k++) {
		buf[0] = k < targets[t].selectors ? (uint8_t)k : targets[t].more[k - targets[t].selectors];
		targets[t].fn(buf, len + 1);
	}
	free(buf);
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	int i = 1, ret = 0;

	if (argc > 2 && !strcmp(argv[1], "-t")) {
		only = argv[2];
		i = 3;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: replay [-t open|pages|writers|filter] FILE...\n");
		return 2;
	}
	if (only) {
		size_t t;

		for (t = 0; t < sizeof(targets) / sizeof(targets[0]); t++)
			if (!strcmp(only, targets[t].name))
				break;
		if (t == sizeof(targets) / sizeof(targets[0])) {
			fprintf(stderr, "replay: unknown target '%s'\n", only);
			return 2;
		}
	}
	for (; i < argc; i++) {
		size_t len;
		uint8_t *data = fuzz_slurp(argv[i], &len);

		if (!data) {
			perror(argv[i]);
			ret = 1;
			continue;
		}
		for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
			if (only && strcmp(only, targets[t].name))
				continue;
			run((int)t, data, len);
			printf("%s: %s: done\n", argv[i], targets[t].name);
			fflush(stdout);
		}
		free(data);
	}
	return ret;
}
