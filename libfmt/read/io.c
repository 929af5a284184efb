/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * io.c - the input source under every parser: a file read with pread().
 *
 * trace.dat needs random access (per-CPU data comes before the options that
 * locate it), so input that cannot be seeked (stdin, a pipe, a device) is
 * copied once, as it is, into an unlinked temporary file under $TMPDIR.
 * Before copying, the magic is checked, so /dev/zero or random text is
 * refused at once instead of being spooled forever.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/read.h"

static const unsigned char dat_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

int tmp_file(char *err)
{
	const char *dir = getenv("TMPDIR");
	char *name;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	if (asprintf(&name, "%s/tdat-spool-XXXXXX", dir) < 0) {
		tdat_msg(err, "out of memory");
		return TDAT_ENOMEM;
	}
	fd = mkstemp(name);
	if (fd >= 0)
		unlink(name);
	else
		tdat_msg(err, "cannot make a temporary file in %s: %s", dir, strerror(errno));
	free(name);
	return fd >= 0 ? fd : TDAT_EIO;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static ssize_t read_some(int fd, void *p, size_t n)
{
	ssize_t r;

	do
		r = read(fd, p, n);
	while (r < 0 && errno == EINTR);
	return r;
}

/* Copy a forward-only input into a temporary file; the magic is checked first. */
static int spool(struct tdat_src *s, int in, char *err)
{
	size_t bufsz = 1 << 20, have = 0;
	char *buf = malloc(bufsz);
	ssize_t r;
	int fd, ret = TDAT_EIO;

	if (!buf) {
		tdat_msg(err, "out of memory");
		return TDAT_ENOMEM;
	}
	while (have < sizeof(dat_magic) && (r = read_some(in, buf + have, sizeof(dat_magic) - have)) > 0)
		have += (size_t)r;
	if (have < sizeof(dat_magic) || memcmp(buf, dat_magic, sizeof(dat_magic))) {
		tdat_msg(err, have ? "not a trace.dat file (bad magic at offset 0)" :
			 "empty input (no trace.dat header)");
		free(buf);
		return TDAT_EFORMAT;
	}
	fd = tmp_file(err);
	if (fd < 0) {
		free(buf);
		return fd;
	}
	s->size = 0;
	for (r = (ssize_t)have; r > 0; r = read_some(in, buf, bufsz)) {
		if (write_all(fd, buf, (size_t)r)) {
			tdat_msg(err, "cannot copy input to a temporary file: %s", strerror(errno));
			goto out;
		}
		s->size += (uint64_t)r;
	}
	if (r < 0) {
		tdat_msg(err, "read error: %s", strerror(errno));
		goto out;
	}
	s->fd = fd;
	s->owned = true;
	ret = 0;
out:
	if (ret)
		close(fd);
	free(buf);
	return ret;
}

int src_open(struct tdat_src *s, const char *path, char *err)
{
	struct stat st;
	int fd, ret;
	bool is_stdin = !strcmp(path, "-");

	s->fd = -1;
	s->owned = false;
	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tdat_msg(err, "%s", strerror(errno));
		return TDAT_EIO;
	}
	if (fstat(fd, &st) < 0) {
		tdat_msg(err, "%s", strerror(errno));
		ret = TDAT_EIO;
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		tdat_msg(err, "is a directory");
		ret = TDAT_EINVAL;
		goto fail;
	}
	if (S_ISREG(st.st_mode)) {
		s->fd = fd;
		s->owned = !is_stdin;
		s->size = (uint64_t)st.st_size;
		return 0;
	}
	ret = spool(s, fd, err);
fail:
	if (!is_stdin)
		close(fd);
	return ret;
}

void src_close(struct tdat_src *s)
{
	if (s->owned && s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->owned = false;
}

int src_pread(struct tdat_src *s, void *buf, size_t len, uint64_t off, char *err)
{
	char *p = buf;

	if (off > s->size || len > s->size - off) {
		tdat_msg(err, "truncated: %zu bytes needed at offset %llu, file has %llu",
			 len, (unsigned long long)off, (unsigned long long)s->size);
		return TDAT_EFORMAT;
	}
	while (len) {
		ssize_t r = pread(s->fd, p, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			tdat_msg(err, "read error at offset %llu: %s",
				 (unsigned long long)off, strerror(errno));
			return TDAT_EIO;
		}
		if (r == 0) {
			tdat_msg(err, "truncated at offset %llu", (unsigned long long)off);
			return TDAT_EFORMAT;
		}
		p += r;
		off += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}
