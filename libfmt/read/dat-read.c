/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dat-read.c - the reader under the trace.dat parsers: numbers, strings and
 * size-prefixed blobs read either from the file (pread) or from a v7 section
 * decompressed whole in memory.  Every size is checked against what is left
 * before anything is allocated, and every failure names the offset.
 */
#include <stdlib.h>
#include <string.h>

#include "read/read.h"


uint64_t rd_left(const struct rd *r)
{
	if (r->mem)
		return r->mlen - r->mpos;
	return r->off <= r->f->src.size ? r->f->src.size - r->off : 0;
}

int rd_fail(struct rd *r, const char *what)
{
	if (r->mem)
		tdat_msg(r->f->errmsg, "%s (in section at offset %llu, byte %zu)", what,
			 (unsigned long long)r->sec_off, r->mpos);
	else
		tdat_msg(r->f->errmsg, "%s (offset %llu)", what, (unsigned long long)r->off);
	return TDAT_EFORMAT;
}

/* @n bytes at r->off (known to be in the file), through the read-ahead window. */
static int rd_file(struct rd *r, void *dst, size_t n)
{
	if (n > sizeof(r->win))
		return src_pread(&r->f->src, dst, n, r->off, r->f->errmsg);
	if (r->win_len < n || r->off < r->win_off || r->off - r->win_off > r->win_len - n) {
		size_t len = rd_left(r) < sizeof(r->win) ? (size_t)rd_left(r) : sizeof(r->win);

		r->win_len = 0;
		if (src_pread(&r->f->src, r->win, len, r->off, r->f->errmsg))
			return TDAT_EIO;
		r->win_off = r->off;
		r->win_len = len;
	}
	memcpy(dst, r->win + (r->off - r->win_off), n);
	return 0;
}

int rd_bytes(struct rd *r, void *dst, size_t n, const char *what)
{
	char msg[128];

	if (n > rd_left(r)) {
		snprintf(msg, sizeof(msg), "truncated %s: %zu bytes needed, %llu left", what, n,
			 (unsigned long long)rd_left(r));
		return rd_fail(r, msg);
	}
	if (r->mem) {
		memcpy(dst, r->mem + r->mpos, n);
		r->mpos += n;
		return 0;
	}
	if (rd_file(r, dst, n))
		return TDAT_EFORMAT;
	r->off += n;
	return 0;
}

int rd_num(struct rd *r, int len, uint64_t *v, const char *what)
{
	unsigned char b[8];
	int ret = rd_bytes(r, b, (size_t)len, what);

	if (!ret)
		*v = file_num(r->f, b, len);
	return ret;
}

/* A size-prefixed blob, NUL-terminated, no bigger than what is left. */
int rd_blob(struct rd *r, uint64_t n, char **out, const char *what)
{
	char msg[160];

	if (n > rd_left(r)) {
		snprintf(msg, sizeof(msg), "%s size %llu is larger than the %llu bytes left", what,
			 (unsigned long long)n, (unsigned long long)rd_left(r));
		return rd_fail(r, msg);
	}
	*out = malloc(n + 1);
	if (!*out) {
		tdat_msg(r->f->errmsg, "out of memory reading %s", what);
		return TDAT_ENOMEM;
	}
	if (rd_bytes(r, *out, n, what)) {
		free(*out);
		*out = NULL;
		return TDAT_EFORMAT;
	}
	(*out)[n] = '\0';
	return 0;
}

int rd_sized(struct rd *r, int lenbytes, char **out, uint64_t *n, const char *what)
{
	int ret = rd_num(r, lenbytes, n, what);

	return ret ? ret : rd_blob(r, *n, out, what);
}

/* A NUL-terminated string of at most @max bytes. */
int rd_str(struct rd *r, char **out, size_t max, const char *what)
{
	char buf[4096];
	size_t i;

	if (max >= sizeof(buf))
		max = sizeof(buf) - 1;
	for (i = 0; i <= max; i++) {
		if (rd_bytes(r, buf + i, 1, what))
			return TDAT_EFORMAT;
		if (!buf[i])
			break;
	}
	if (i > max)
		return rd_fail(r, "string not terminated");
	*out = strdup(buf);
	if (!*out)
		return TDAT_ENOMEM;
	return 0;
}

int rd_expect(struct rd *r, const char *tag, size_t n)
{
	char buf[16];
	char msg[64];

	if (rd_bytes(r, buf, n, tag))
		return TDAT_EFORMAT;
	if (memcmp(buf, tag, n)) {
		snprintf(msg, sizeof(msg), "expected \"%s\"", tag);
		r->off -= r->mem ? 0 : n;
		return rd_fail(r, msg);
	}
	return 0;
}

uint64_t file_num(const struct tdat_file *f, const void *p, int len)
{
	const unsigned char *b = p;
	uint64_t v = 0;

	if (f->info.big_endian)
		for (int i = 0; i < len; i++)
			v = v << 8 | b[i];
	else
		for (int i = len - 1; i >= 0; i--)
			v = v << 8 | b[i];
	return v;
}


void rd_drop_mem(struct rd *r)
{
	free(r->mem);
	r->mem = NULL;
	r->mlen = r->mpos = 0;
}

/*
 * Enter the section at @off: check its id, and if compressed, decompress
 * it whole (sections other than CPU data are small; the announced size is
 * bounded by the file size times a generous ratio).
 */
static int section_read(struct rd *r, uint64_t off, unsigned want_id, unsigned *flags, int *entry);

/* ... and list it (sections.c), with why it could not be read. */
int rd_section(struct rd *r, uint64_t off, unsigned want_id, unsigned *flags)
{
	int entry = -1, ret = section_read(r, off, want_id, flags, &entry);

	if (entry >= 0 && ret == TDAT_EFORMAT)
		sections_damage(r->f, off, r->f->errmsg);
	else if (entry >= 0 && !ret && r->mem)
		sections_usize(r->f, entry, r->mlen);
	return ret;
}

static int section_read(struct rd *r, uint64_t off, unsigned want_id, unsigned *flags, int *entry)
{
	uint64_t id, fl, sid, size, csize, usize;
	unsigned char *cbuf;
	int ret;

	rd_drop_mem(r);
	r->off = off;
	r->sec_off = off;
	if ((ret = rd_num(r, 2, &id, "section header")) || (ret = rd_num(r, 2, &fl, "section header")) ||
	    (ret = rd_num(r, 4, &sid, "section header")) || (ret = rd_num(r, 8, &size, "section header")))
		return ret;
	*entry = sections_note(r->f, (unsigned)id, (unsigned)fl, (unsigned)sid, off, size);
	if (id != want_id) {
		char msg[80];

		r->off = off;
		snprintf(msg, sizeof(msg), "section id %u where %u was expected", (unsigned)id, want_id);
		return rd_fail(r, msg);
	}
	if (size > rd_left(r)) {
		r->off = off;
		return rd_fail(r, "section size larger than the file");
	}
	*flags = (unsigned)fl;
	r->sec_size = size;
	if (!(fl & SEC_FL_COMPRESS) || want_id == OPT_BUFFER || want_id == OPT_BUFFER_TEXT)
		return 0;
	if ((ret = rd_num(r, 4, &csize, "compressed section")) || (ret = rd_num(r, 4, &usize, "compressed section")))
		return ret;
	if (csize > rd_left(r) || usize > (r->f->src.size + 4096) * 1024) {
		r->off = off;
		return rd_fail(r, "compressed section sizes do not fit the file");
	}
	r->sec_zlen = 8 + csize;
	if ((ret = rd_blob(r, csize, (char **)&cbuf, "compressed section")))
		return ret;
	r->mem = malloc(usize + 1);
	if (!r->mem) {
		free(cbuf);
		return TDAT_ENOMEM;
	}
	ret = file_decompress(r->f, cbuf, csize, r->mem, usize);
	free(cbuf);
	if (ret) {
		rd_drop_mem(r);
		r->off = off;
		return rd_fail(r, "section does not decompress");
	}
	r->mlen = usize;
	r->mpos = 0;
	return 0;
}
