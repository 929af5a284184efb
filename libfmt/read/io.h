/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* io.h - an input read with pread, and a trace.dat compressed as a whole spooled into one (io.c, io-unpack.c). */
#ifndef TDAT_READ_IO_H
#define TDAT_READ_IO_H

#include "read/types.h"

/*
 * Open @path ("-": standard input).  A regular trace.dat is read in place;
 * a pipe or a device is copied once into an unlinked temporary file, and a
 * compressed one (by its magic) decompressed into it: reopening @path
 * decompresses it again.
 */
int src_open(struct tdat_src *s, const char *path, char *err);
void src_close(struct tdat_src *s);
/* An unlinked temporary file under $TMPDIR: its fd, or a negative error. */
int tmp_file(char *err);
/* Read exactly @len bytes at @off; TDAT_EFORMAT if the file ends first. */
int src_pread(struct tdat_src *s, void *buf, size_t len, uint64_t off, char *err);
/*
 * Close the descriptor of a file read in place (one of thousands of
 * pieces, not read now); the next read opens it again, after checking it
 * is the same file.  Others (standard input, a copy) stay open.
 */
void src_park(struct tdat_src *s);
/* Open a parked source again (0), or say why not. */
int src_ready(struct tdat_src *s, char *err);

/* Up to @n bytes of @in: their count, 0 at the end, -1 with errno. */
ssize_t src_in_read(struct src_in *in, void *buf, size_t n);

/* @o: a new unlinked temporary file under $TMPDIR (tmp_file()), empty; 0 or a negative error. */
int spool_new(struct spool_out *o, char *err);
/*
 * Append @n bytes to @o, unless its file system would be left with less
 * than 5% of its size (at most 1 GiB) free: then TDAT_EIO and a message
 * that says so (a copy never fills the disk).
 */
int spool_put(struct spool_out *o, const void *p, size_t n, char *err);

/* io-unpack.c: the compression @head (@n bytes) begins with; others' names in *@other. */
enum unpack_kind unpack_kind(const unsigned char *head, size_t n, const char **other);
const char *unpack_name(enum unpack_kind k);
/* Decompress @head (@nhead bytes already read), then the rest of @in, into @out. */
int unpack(enum unpack_kind kind, struct src_in *in, const unsigned char *head, size_t nhead,
	   struct spool_out *out, char *err);

#endif /* TDAT_READ_IO_H */
