/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * io-unpack.c - a trace.dat kept compressed (.dat.gz, .dat.zst, .dat.xz, or
 * the same bytes from a pipe), recognised by its magic, not its name: io.c
 * streams it through zlib, libzstd or liblzma into its spool, the unlinked
 * temporary file that the parsers then read with pread() as any trace.dat.
 * Nothing is held in memory but one buffer each way; the spool refuses to
 * grow past what the temporary file system can spare (spool_put()).
 *
 * gzip: every member of a multi-member file (pigz, cat a.gz b.gz); zstd:
 * every frame, skippable ones (pzstd's) passed over; xz: every stream
 * (LZMA_CONCATENATED).  Errors say which format, what failed and at which
 * offset of the compressed input: a stream cut short, corrupt data.
 */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "read/read.h"

#define IN_SIZE ((size_t)256 << 10)
#define OUT_SIZE ((size_t)1 << 20)
#define XZ_MEMLIMIT ((uint64_t)1 << 30)	/* xz -9 needs 65 MiB, a 1.5 GiB dictionary more */


static const char *const names[] = {
	[UNPACK_NONE] = "none", [UNPACK_GZIP] = "gzip", [UNPACK_ZSTD] = "zstd", [UNPACK_XZ] = "xz",
};

const char *unpack_name(enum unpack_kind k)
{
	return names[k];
}

enum unpack_kind unpack_kind(const unsigned char *h, size_t n, const char **other)
{
	*other = NULL;
	if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return UNPACK_GZIP;
	if (n >= 4 && ((h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd) ||
		       ((h[0] & 0xf0) == 0x50 && h[1] == 0x2a && h[2] == 0x4d && h[3] == 0x18)))
		return UNPACK_ZSTD;
	if (n >= 6 && !memcmp(h, "\xfd" "7zXZ\0", 6))
		return UNPACK_XZ;
	if (n >= 3 && !memcmp(h, "BZh", 3))
		*other = "bzip2";
	else if (n >= 4 && !memcmp(h, "\x04\x22\x4d\x18", 4))
		*other = "lz4";
	else if (n >= 4 && !memcmp(h, "\x89LZO", 4))
		*other = "lzop";
	return UNPACK_NONE;
}

/* One decompression: the input (@head first, then @in), the output buffer, where it goes. */
struct unpack {
	enum unpack_kind kind;
	struct src_in *in;
	const unsigned char *head;
	size_t nhead;
	unsigned char *ibuf, *obuf;
	uint64_t consumed;	/* compressed bytes handed to the decoder */
	struct spool_out *out;
	char *err;
};

/* The next piece of compressed input into u->ibuf (the head first): its length, 0 at the end. */
static ssize_t next_in(struct unpack *u, const unsigned char **p)
{
	ssize_t r;

	if (u->nhead) {
		*p = u->head;
		r = (ssize_t)u->nhead;
		u->nhead = 0;
		return r;
	}
	*p = u->ibuf;
	r = src_in_read(u->in, u->ibuf, IN_SIZE);
	if (r < 0)
		tdat_msg(u->err, "%s-compressed input: read error at offset %llu: %s",
			 names[u->kind], (unsigned long long)u->consumed, strerror(errno));
	return r;
}

/* @n decompressed bytes to the spool; the first ones must be a trace.dat's magic. */
static int flush(struct unpack *u, size_t n)
{
	uint64_t at = u->out->size;

	for (size_t i = 0; i < n && at + i < sizeof(dat_magic); i++) {
		if (u->obuf[i] != dat_magic[at + i]) {
			tdat_msg(u->err, "%s-compressed, but what it holds is not a trace.dat "
				 "(bad magic at offset 0 of the decompressed data)", names[u->kind]);
			return TDAT_EFORMAT;
		}
	}
	return n ? spool_put(u->out, u->obuf, n, u->err) : 0;
}

static int corrupt(struct unpack *u, uint64_t at, const char *why)
{
	tdat_msg(u->err, "%s-compressed input: corrupt data (%s) near offset %llu of the "
		 "compressed input, after %llu bytes decompressed", names[u->kind], why,
		 (unsigned long long)at, (unsigned long long)u->out->size);
	return TDAT_EFORMAT;
}

static int truncated(struct unpack *u)
{
	tdat_msg(u->err, "%s-compressed input: truncated (the compressed stream ends at offset %llu "
		 "unfinished, after %llu bytes decompressed)", names[u->kind],
		 (unsigned long long)u->consumed, (unsigned long long)u->out->size);
	return TDAT_EFORMAT;
}

/*
 * Between gzip members: zero bytes (padding) are passed over; anything else
 * must be the next member, whose header inflate() checks.  *@more: it is.
 */
static int gz_between(struct unpack *u, z_stream *z, bool *more)
{
	while (z->avail_in && !*z->next_in) {
		z->next_in++;
		z->avail_in--;
	}
	*more = z->avail_in > 0;
	if (*more && inflateReset(z) != Z_OK)
		return corrupt(u, u->consumed - z->avail_in, "inflateReset failed");
	return 0;
}

static int gz_run(struct unpack *u, z_stream *z)
{
	bool ended = false, more;
	int zr, ret;

	for (;;) {
		if (!z->avail_in) {
			const unsigned char *p;
			ssize_t r = next_in(u, &p);

			if (r < 0)
				return TDAT_EIO;
			if (!r)
				return ended ? 0 : truncated(u);
			z->next_in = (unsigned char *)p;
			z->avail_in = (uInt)r;
			u->consumed += (uint64_t)r;
		}
		if (ended) {
			if ((ret = gz_between(u, z, &more)))
				return ret;
			if (!more)
				continue;
			ended = false;
		}
		z->next_out = u->obuf;
		z->avail_out = (uInt)OUT_SIZE;
		zr = inflate(z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			return corrupt(u, u->consumed - z->avail_in, z->msg ? z->msg : zError(zr));
		if ((ret = flush(u, OUT_SIZE - z->avail_out)))
			return ret;
		ended = zr == Z_STREAM_END;
	}
}

static int unpack_gzip(struct unpack *u)
{
	z_stream z = { 0 };
	int ret;

	if (inflateInit2(&z, 15 + 16) != Z_OK) {
		tdat_msg(u->err, "out of memory");
		return TDAT_ENOMEM;
	}
	ret = gz_run(u, &z);
	inflateEnd(&z);
	return ret;
}

static int unpack_zstd(struct unpack *u)
{
	ZSTD_DStream *d = ZSTD_createDStream();
	ZSTD_inBuffer zin = { 0 };
	size_t zr = 0;
	int ret = 0;

	if (!d) {
		tdat_msg(u->err, "out of memory");
		return TDAT_ENOMEM;
	}
	for (;;) {
		ZSTD_outBuffer zout = { u->obuf, OUT_SIZE, 0 };

		if (zin.pos == zin.size) {
			const unsigned char *p;
			ssize_t r = next_in(u, &p);

			if (r <= 0) {
				ret = r < 0 ? TDAT_EIO : zr ? truncated(u) : 0;
				break;
			}
			zin = (ZSTD_inBuffer){ p, (size_t)r, 0 };
			u->consumed += (uint64_t)r;
		}
		zr = ZSTD_decompressStream(d, &zout, &zin);
		if (ZSTD_isError(zr)) {
			ret = corrupt(u, u->consumed - (zin.size - zin.pos), ZSTD_getErrorName(zr));
			break;
		}
		if ((ret = flush(u, zout.pos)))
			break;
	}
	ZSTD_freeDStream(d);
	return ret;
}

static const char *xz_why(lzma_ret r)
{
	switch (r) {
	case LZMA_FORMAT_ERROR: return "not the xz format";
	case LZMA_OPTIONS_ERROR: return "unsupported options";
	case LZMA_DATA_ERROR: return "data error";
	case LZMA_BUF_ERROR: return "unexpected end";
	default: return "decoder error";
	}
}

static int xz_run(struct unpack *u, lzma_stream *s)
{
	lzma_action act = LZMA_RUN;
	lzma_ret lr;
	int ret;

	for (;;) {
		if (!s->avail_in && act == LZMA_RUN) {
			const unsigned char *p;
			ssize_t r = next_in(u, &p);

			if (r < 0)
				return TDAT_EIO;
			act = r ? LZMA_RUN : LZMA_FINISH;
			s->next_in = p;
			s->avail_in = (size_t)r;
			u->consumed += (uint64_t)r;
		}
		s->next_out = u->obuf;
		s->avail_out = OUT_SIZE;
		lr = lzma_code(s, act);
		if ((ret = flush(u, OUT_SIZE - s->avail_out)))
			return ret;
		if (lr == LZMA_STREAM_END)
			return 0;
		if (lr == LZMA_MEMLIMIT_ERROR) {
			tdat_msg(u->err, "xz-compressed input: needs %llu MiB of memory to decompress, "
				 "more than the %llu MiB allowed",
				 (unsigned long long)(lzma_memusage(s) >> 20),
				 (unsigned long long)(XZ_MEMLIMIT >> 20));
			return TDAT_EFORMAT;
		}
		if (lr == LZMA_BUF_ERROR && act == LZMA_FINISH)
			return truncated(u);
		if (lr != LZMA_OK && lr != LZMA_BUF_ERROR)
			return corrupt(u, u->consumed - s->avail_in, xz_why(lr));
	}
}

static int unpack_xz(struct unpack *u)
{
	lzma_stream s = LZMA_STREAM_INIT;
	int ret;

	if (lzma_stream_decoder(&s, XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK) {
		tdat_msg(u->err, "out of memory");
		return TDAT_ENOMEM;
	}
	ret = xz_run(u, &s);
	lzma_end(&s);
	return ret;
}

int unpack(enum unpack_kind kind, struct src_in *in, const unsigned char *head, size_t nhead,
	   struct spool_out *out, char *err)
{
	struct unpack u = { .kind = kind, .in = in, .head = head, .nhead = nhead, .out = out,
			    .err = err };
	int ret;

	u.ibuf = malloc(IN_SIZE);
	u.obuf = malloc(OUT_SIZE);
	if (!u.ibuf || !u.obuf) {
		tdat_msg(err, "out of memory");
		ret = TDAT_ENOMEM;
	} else {
		ret = kind == UNPACK_GZIP ? unpack_gzip(&u) : kind == UNPACK_ZSTD ? unpack_zstd(&u) :
		      unpack_xz(&u);
	}
	if (!ret && out->size < sizeof(dat_magic)) {
		tdat_msg(err, "%s-compressed, but %s", names[kind], out->size ?
			 "what it holds is too short for a trace.dat" : "empty (no trace.dat inside)");
		ret = TDAT_EFORMAT;
	}
	free(u.ibuf);
	free(u.obuf);
	return ret;
}
