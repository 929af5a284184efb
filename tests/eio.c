/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * eio.c - test-only fault injection (tests/cli/t-outsafe.sh): an LD_PRELOAD
 * object whose read/pread and write/pwrite fail with EIO on chosen files, so
 * that the tools can be seen meeting a failing disk.  Never linked into the
 * tools.
 *
 *   TDAT_EIO_READ=SUFFIX:START[-END]  a read from a file whose path ends
 *                                 with SUFFIX fails (the whole call) when it
 *                                 would touch a byte from START on, or only
 *                                 from START to END-1: a bad spot in the
 *                                 middle of a file
 *   TDAT_EIO_READ_SKIP=N          the first N of those reads still succeed:
 *                                 a spot that goes bad after it was read
 *   TDAT_EIO_WRITE=NAME:BYTES     writes to the file NAME fail once BYTES
 *                                 bytes in all were written to it (the write
 *                                 that crosses the limit is cut short)
 *   TDAT_SIG_AFTER_RENAME=SIG:N   the process raises signal SIG right after
 *                                 its Nth successful rename(): a Ctrl-C that
 *                                 comes when N outputs are complete
 *
 * The tools write NAME.tmp-XXXXXX and rename it, SQLite may add
 * NAME.tmp-XXXXXX-journal, and a directory output holds NAME.tmp-XXXXXX/FILE:
 * so a write path matches when it ends with NAME, or has NAME followed by
 * ".tmp-" or "/".  The path of an fd is read from /proc/self/fd/N on every
 * call: slow, simple, and right after a rename.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static unsigned long long written;	/* bytes written to matching files */
static unsigned long long bad_reads;	/* reads that touched the bad spot */

/*
 * Split "NAME:NUMBER[-NUMBER2]" from @var (@num2 stays as it is without the
 * second number); false when unset or malformed.
 */
static bool config(const char *var, char *name, size_t size, unsigned long long *num,
		   unsigned long long *num2)
{
	const char *v = getenv(var), *colon = v ? strrchr(v, ':') : NULL;
	char *end;

	if (!colon || colon == v || (size_t)(colon - v) >= size)
		return false;
	memcpy(name, v, (size_t)(colon - v));
	name[colon - v] = '\0';
	*num = strtoull(colon + 1, &end, 10);
	if (end == colon + 1)
		return false;
	if (*end == '-' && num2)
		*num2 = strtoull(end + 1, &end, 10);
	return !*end;
}

static bool fd_path(int fd, char *path, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, size - 1);
	if (n < 0)
		return false;
	path[n] = '\0';
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* NAME itself, its temporary file (and journal), or a file in directory NAME. */
static bool write_match(const char *path, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strstr(path, name); p; p = strstr(p + 1, name))
		if (!p[n] || p[n] == '/' || !strncmp(p + n, ".tmp-", 5))
			return true;
	return false;
}

/* Should a read of @n bytes at @off from @fd fail? */
static bool read_fails(int fd, off_t off, size_t n)
{
	char suffix[PATH_MAX], path[PATH_MAX];
	unsigned long long start, end = ULLONG_MAX;

	if (!n || off < 0 || !config("TDAT_EIO_READ", suffix, sizeof(suffix), &start, &end) ||
	    !fd_path(fd, path, sizeof(path)) || !ends_with(path, suffix))
		return false;
	if ((unsigned long long)off + n <= start || (unsigned long long)off >= end)
		return false;
	return ++bad_reads > strtoull(getenv("TDAT_EIO_READ_SKIP") ? getenv("TDAT_EIO_READ_SKIP") : "0",
				      NULL, 10);
}

/* How many of @n bytes may go to @fd: all, fewer, or -1 for EIO. */
static ssize_t write_allowed(int fd, size_t n)
{
	char name[PATH_MAX], path[PATH_MAX];
	unsigned long long limit, left;

	if (!n || !config("TDAT_EIO_WRITE", name, sizeof(name), &limit, NULL) ||
	    !fd_path(fd, path, sizeof(path)) || !write_match(path, name))
		return (ssize_t)n;
	left = limit > written ? limit - written : 0;
	if (!left)
		return -1;
	if (n > left)
		n = (size_t)left;
	written += n;
	return (ssize_t)n;
}

#define NEXT(fn) \
	static __typeof__(fn) *next; \
	if (!next) \
		next = (__typeof__(fn) *)dlsym(RTLD_NEXT, #fn)

#define EIO_FAIL() \
	do { \
		errno = EIO; \
		return -1; \
	} while (0)

ssize_t read(int fd, void *buf, size_t n)
{
	NEXT(read);
	if (read_fails(fd, lseek(fd, 0, SEEK_CUR), n))
		EIO_FAIL();
	return next(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	NEXT(pread);
	if (read_fails(fd, off, n))
		EIO_FAIL();
	return next(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	NEXT(pread64);
	if (read_fails(fd, (off_t)off, n))
		EIO_FAIL();
	return next(fd, buf, n, off);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	ssize_t ok = write_allowed(fd, n);

	NEXT(write);
	if (ok < 0)
		EIO_FAIL();
	return next(fd, buf, (size_t)ok);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	ssize_t ok = write_allowed(fd, n);

	NEXT(pwrite);
	if (ok < 0)
		EIO_FAIL();
	return next(fd, buf, (size_t)ok, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	ssize_t ok = write_allowed(fd, n);

	NEXT(pwrite64);
	if (ok < 0)
		EIO_FAIL();
	return next(fd, buf, (size_t)ok, off);
}

int rename(const char *from, const char *to)
{
	static unsigned long long renamed;
	char sig[16];
	unsigned long long n;
	int ret;

	NEXT(rename);
	ret = next(from, to);
	if (!ret && config("TDAT_SIG_AFTER_RENAME", sig, sizeof(sig), &n, NULL) && ++renamed == n)
		raise(atoi(sig));
	return ret;
}
