/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz.h - what the fuzz targets in tests/fuzz/ share: the target entry
 * points, a reusable in-memory file (memfd) that the library opens by name
 * like any file, and where the real captures used as templates live.
 *
 * Each fuzz-*.c defines its target with FUZZ_TARGET(fuzz_xxx).  Built for
 * libFuzzer, that also defines LLVMFuzzerTestOneInput calling it; built
 * into replay (-DFUZZ_REPLAY), replay.c's main() calls every target by name
 * over files given as arguments, so `make check` runs the same bodies.
 */
#ifndef TDAT_FUZZ_H
#define TDAT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int fuzz_open(const uint8_t *data, size_t size);
int fuzz_pages(const uint8_t *data, size_t size);
int fuzz_writers(const uint8_t *data, size_t size);
int fuzz_filter(const uint8_t *data, size_t size);

struct tdat_open_opts;
/* model-check.c: the model's rows of the file at @path, checked; aborts on a broken invariant. */
void fuzz_model_check(const char *path, const struct tdat_open_opts *oo);

/* Writers of fuzz_writers, chosen by the input's first byte (replay runs each). */
#define FUZZ_NWRITERS 7

#ifdef FUZZ_REPLAY
#define FUZZ_TARGET(name) int name(const uint8_t *data, size_t size)
#else
#define FUZZ_TARGET(name)						\
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);	\
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)	\
	{								\
		return name(data, size);				\
	}								\
	int name(const uint8_t *data, size_t size)
#endif

#ifndef TDAT_TESTDATA
#define TDAT_TESTDATA "testdata"
#endif

/* A test-data file by name: $TDAT_TESTDATA/NAME, else the source tree's testdata/. */
static inline const char *fuzz_testdata(const char *name, char *buf, size_t len)
{
	const char *dir = getenv("TDAT_TESTDATA");

	snprintf(buf, len, "%s/%s", dir && *dir ? dir : TDAT_TESTDATA, name);
	return buf;
}

static inline void fuzz_die(const char *what)
{
	fprintf(stderr, "fuzz: %s\n", what);
	abort();
}

/*
 * An in-memory file holding @data, reused between runs: returns its name
 * (/proc/self/fd/N), which tdat_file_open() opens as a regular file.
 */
struct fuzz_mem {
	int fd;
	char path[64];
};

static inline int fuzz_mem_fill(struct fuzz_mem *m, uint64_t at, const void *data, size_t size)
{
	const char *p = data;

	if (!m->fd) {
		m->fd = memfd_create("tdat-fuzz", MFD_CLOEXEC);
		if (m->fd < 0)
			fuzz_die("memfd_create failed");
		snprintf(m->path, sizeof(m->path), "/proc/self/fd/%d", m->fd);
	}
	if (ftruncate(m->fd, (off_t)at))
		fuzz_die("ftruncate failed");
	while (size) {
		ssize_t w = pwrite(m->fd, p, size, (off_t)at);

		if (w <= 0)
			fuzz_die("pwrite to memfd failed");
		p += w;
		at += (uint64_t)w;
		size -= (size_t)w;
	}
	return 0;
}

/* The whole of a file into memory (templates and replay inputs); NULL if unreadable. */
static inline uint8_t *fuzz_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!fp)
		return NULL;
	do {
		if (n == cap) {
			uint8_t *p = realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!p) {
				free(buf);
				fclose(fp);
				return NULL;
			}
			buf = p;
		}
		r = fread(buf + n, 1, cap - n, fp);
		n += r;
	} while (r > 0);
	if (ferror(fp)) {
		free(buf);
		buf = NULL;
	}
	fclose(fp);
	*len = n;
	return buf;
}

#endif
