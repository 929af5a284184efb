/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * io.c - the input source under every parser: a file read with pread().
 *
 * trace.dat needs random access (per-CPU data comes before the options that
 * locate it), so input that cannot be seeked (stdin, a pipe, a device) is
 * copied once, as it is, into an unlinked temporary file under $TMPDIR, and
 * a trace.dat compressed as a whole (gzip, zstd, xz: by its magic, from a
 * file or a pipe) is decompressed into one (io-unpack.c).  Before copying,
 * the magic is checked, so /dev/zero or random text is refused at once
 * instead of being spooled forever; a copy stops, with a message, before
 * it would fill the file system it is on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "read/read.h"


static const char *tmp_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

int tmp_file(char *err)
{
	const char *dir = tmp_dir();
	char *name;
	int fd;

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

ssize_t src_in_read(struct src_in *in, void *buf, size_t n)
{
	ssize_t r;

	do
		r = in->seekable ? pread(in->fd, buf, n, (off_t)in->off) : read(in->fd, buf, n);
	while (r < 0 && errno == EINTR);
	if (r > 0)
		in->off += (uint64_t)r;
	return r;
}

int spool_new(struct spool_out *o, char *err)
{
	*o = (struct spool_out){ .limit = UINT64_MAX, .dir = tmp_dir() };
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	o->limit = (uint64_t)64 << 20;	/* a decompression bomb costs a fuzzer its disk */
#endif
	o->fd = tmp_file(err);
	return o->fd < 0 ? o->fd : 0;
}

/* Whether @n more bytes leave the file system of @o its reserve: 5% of its size, at most 1 GiB. */
static bool room_for(struct spool_out *o, size_t n, uint64_t *avail, uint64_t *reserve)
{
	struct statvfs v;

	if (fstatvfs(o->fd, &v))
		return true;	/* unknown: the write says */
	*avail = (uint64_t)v.f_bavail * v.f_frsize;
	*reserve = (uint64_t)v.f_blocks * v.f_frsize / 20;
	if (*reserve > ((uint64_t)1 << 30))
		*reserve = (uint64_t)1 << 30;
	return *avail >= *reserve && *avail - *reserve >= n;
}

int spool_put(struct spool_out *o, const void *p, size_t n, char *err)
{
	uint64_t avail, reserve;

	if (n > o->limit - o->size) {
		tdat_msg(err, "the temporary copy in %s would pass %llu bytes", o->dir,
			 (unsigned long long)o->limit);
		return TDAT_EIO;
	}
	if (!room_for(o, n, &avail, &reserve)) {
		tdat_msg(err, "the temporary copy in %s would fill its file system (%llu MiB copied, "
			 "%llu MiB free, %llu MiB kept free): set TMPDIR to a folder with more room",
			 o->dir, (unsigned long long)(o->size >> 20),
			 (unsigned long long)(avail >> 20), (unsigned long long)(reserve >> 20));
		return TDAT_EIO;
	}
	if (write_all(o->fd, p, n)) {
		tdat_msg(err, "cannot write the temporary copy in %s: %s", o->dir, strerror(errno));
		return TDAT_EIO;
	}
	o->size += n;
	return 0;
}

/* Copy what is left of a forward-only input after its @nhead first bytes @head. */
static int spool_copy(struct src_in *in, const unsigned char *head, size_t nhead,
		      struct spool_out *o, char *err)
{
	size_t bufsz = 1 << 20;
	char *buf = malloc(bufsz);
	ssize_t r;
	int ret;

	if (!buf) {
		tdat_msg(err, "out of memory");
		return TDAT_ENOMEM;
	}
	ret = spool_put(o, head, nhead, err);
	while (!ret && (r = src_in_read(in, buf, bufsz)) > 0)
		ret = spool_put(o, buf, (size_t)r, err);
	if (!ret && r < 0) {
		tdat_msg(err, "read error: %s", strerror(errno));
		ret = TDAT_EIO;
	}
	free(buf);
	return ret;
}

/* The first bytes of @in, as many as the magics need (fewer at its end). */
static ssize_t read_head(struct src_in *in, unsigned char *head, size_t n)
{
	size_t have = 0;
	ssize_t r = 0;

	while (have < n && (r = src_in_read(in, head + have, n - have)) > 0)
		have += (size_t)r;
	return r < 0 ? r : (ssize_t)have;
}

/*
 * Copy (or decompress) @in into an unlinked temporary file that becomes
 * @s's; the magic of a trace.dat, or of a compression, is checked first.
 */
static int spool(struct tdat_src *s, struct src_in *in, char *err)
{
	unsigned char head[sizeof(dat_magic)];
	struct spool_out o;
	enum unpack_kind kind;
	const char *other;
	ssize_t have = read_head(in, head, sizeof(head));
	int ret;

	if (have < 0) {
		tdat_msg(err, "read error: %s", strerror(errno));
		return TDAT_EIO;
	}
	kind = unpack_kind(head, (size_t)have, &other);
	if (other) {
		tdat_msg(err, "%s-compressed: tdat reads a trace.dat compressed with gzip, zstd or "
			 "xz (decompress it first)", other);
		return TDAT_EFORMAT;
	}
	if (kind == UNPACK_NONE && !in->seekable &&
	    ((size_t)have < sizeof(dat_magic) || memcmp(head, dat_magic, sizeof(dat_magic)))) {
		tdat_msg(err, have ? "not a trace.dat file (bad magic at offset 0)" :
			 "empty input (no trace.dat header)");
		return TDAT_EFORMAT;
	}
	if ((ret = spool_new(&o, err)))
		return ret;
	ret = kind == UNPACK_NONE ? spool_copy(in, head, (size_t)have, &o, err) :
	      unpack(kind, in, head, (size_t)have, &o, err);
	if (ret) {
		close(o.fd);
		return ret;
	}
	s->fd = o.fd;
	s->owned = true;
	s->size = o.size;
	s->packing = kind;
	s->packed_size = in->off;
	return 0;
}

/* A regular file: read in place, unless it is compressed as a whole. */
static int src_regular(struct tdat_src *s, int fd, bool is_stdin, const struct stat *st,
		       const char *path, char *err)
{
	struct src_in in = { .fd = fd, .seekable = true };
	unsigned char head[6];
	const char *other;
	ssize_t have = read_head(&in, head, sizeof(head));

	if (have < 0) {
		tdat_msg(err, "read error: %s", strerror(errno));
		return TDAT_EIO;
	}
	if (unpack_kind(head, (size_t)have, &other) != UNPACK_NONE || other) {
		in.off = 0;
		return spool(s, &in, err);
	}
	s->fd = fd;
	s->owned = !is_stdin;
	s->size = (uint64_t)st->st_size;
	s->dev = (uint64_t)st->st_dev;
	s->ino = (uint64_t)st->st_ino;
	if (!is_stdin && !(s->path = strdup(path))) {
		tdat_msg(err, "out of memory");
		return TDAT_ENOMEM;
	}
	return 1;	/* fd kept */
}

int src_open(struct tdat_src *s, const char *path, char *err)
{
	struct stat st;
	int fd, ret;
	bool is_stdin = !strcmp(path, "-");

	s->fd = -1;
	s->owned = false;
	s->path = NULL;
	s->packing = UNPACK_NONE;
	s->packed_size = 0;
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
		ret = src_regular(s, fd, is_stdin, &st, path, err);
		if (ret == 1)
			return 0;
	} else {
		struct src_in in = { .fd = fd };

		ret = spool(s, &in, err);
	}
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
	free(s->path);
	s->path = NULL;
}

void src_park(struct tdat_src *s)
{
	if (s->path && s->owned && s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
}

int src_ready(struct tdat_src *s, char *err)
{
	struct stat st;
	int fd;

	if (s->fd >= 0)
		return 0;
	if (!s->path) {
		tdat_msg(err, "read error: the file is closed");
		return TDAT_EIO;
	}
	if ((fd = open(s->path, O_RDONLY | O_CLOEXEC)) < 0) {
		tdat_msg(err, "cannot open it again: %s", strerror(errno));
		return TDAT_EIO;
	}
	if (fstat(fd, &st) || (uint64_t)st.st_dev != s->dev || (uint64_t)st.st_ino != s->ino ||
	    (uint64_t)st.st_size != s->size) {
		close(fd);
		tdat_msg(err, "the file was replaced or changed while it was being read");
		return TDAT_EIO;
	}
	s->fd = fd;
	return 0;
}

int src_pread(struct tdat_src *s, void *buf, size_t len, uint64_t off, char *err)
{
	char *p = buf;
	int ret;

	if (s->fd < 0 && (ret = src_ready(s, err)))
		return ret;
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
