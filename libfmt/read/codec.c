/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * codec.c - decompression of v7 sections and per-CPU chunks.  One small ops
 * struct per algorithm in a static table, shaped like trace-cmd's
 * compression protos.  Every call checks that exactly the announced number
 * of bytes came out, so a damaged chunk is detected, never half-used.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "read/read.h"

static int none_decompress(void *ctx, const void *src, size_t slen, void *dst, size_t dlen)
{
	if (slen != dlen)
		return TDAT_EFORMAT;
	memcpy(dst, src, dlen);
	return 0;
}

static void *zstd_ctx_new(void)
{
	return ZSTD_createDCtx();
}

static void zstd_ctx_free(void *ctx)
{
	ZSTD_freeDCtx(ctx);
}

static int zstd_decompress(void *ctx, const void *src, size_t slen, void *dst, size_t dlen)
{
	size_t r = ZSTD_decompressDCtx(ctx, dst, dlen, src, slen);

	if (ZSTD_isError(r) || r != dlen)
		return TDAT_EFORMAT;
	return 0;
}

static int zlib_decompress(void *ctx, const void *src, size_t slen, void *dst, size_t dlen)
{
	uLongf out = dlen;
	uLong in = slen;

	if (uncompress2(dst, &out, src, &in) != Z_OK || out != dlen)
		return TDAT_EFORMAT;
	return 0;
}

static const struct tdat_codec codecs[] = {
	{ "none", none_decompress, NULL, NULL },
	{ "zstd", zstd_decompress, zstd_ctx_new, zstd_ctx_free },
	{ "zlib", zlib_decompress, NULL, NULL },
};

const struct tdat_codec *codec_find(const char *name)
{
	for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++)
		if (!strcmp(codecs[i].name, name))
			return &codecs[i];
	return NULL;
}
