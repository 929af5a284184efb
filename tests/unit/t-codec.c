/*
 * t-codec.c - unit tests of the decompression codecs (libfmt/read/codec.c):
 * zstd and zlib frames round-trip, and a damaged or short frame is refused
 * rather than half-used.  trace-cmd 3.1.6 here cannot write zlib files, so
 * this is where the zlib path is checked against real zlib output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "read/read.h"
#include "../tap.h"

#define N 40960

static unsigned char plain[N], packed[N * 2], out[N];

static size_t pack(const char *name)
{
	uLongf zl = sizeof(packed);

	if (!strcmp(name, "zstd"))
		return ZSTD_compress(packed, sizeof(packed), plain, N, 3);
	compress2(packed, &zl, plain, N, 6);
	return zl;
}

static void check(const char *name)
{
	const struct tdat_codec *c = codec_find(name);
	void *ctx;
	size_t n;
	int ret;

	if (!ok(c != NULL, "%s codec exists", name))
		return;
	ctx = c->ctx_new ? c->ctx_new() : NULL;
	n = pack(name);
	ok(n > 0 && n < N, "%s: compressed to %zu bytes", name, n);
	memset(out, 0, sizeof(out));
	is_int(c->decompress(ctx, packed, n, out, N), 0, "%s: decompresses", name);
	is_mem(out, plain, N, "%s: round trip", name);
	is_int(c->decompress(ctx, packed, n, out, N - 1), TDAT_EFORMAT, "%s: a wrong size is refused", name);
	is_int(c->decompress(ctx, packed, n / 2, out, N), TDAT_EFORMAT, "%s: a cut frame is refused", name);
	packed[n / 2] ^= 0x5a;
	packed[n / 3] ^= 0xa5;
	ret = c->decompress(ctx, packed, n, out, N);
	if (!strcmp(name, "zlib"))	/* zlib frames carry a checksum */
		is_int(ret, TDAT_EFORMAT, "%s: a damaged frame is refused", name);
	else				/* trace-cmd writes zstd frames without one */
		ok(ret == 0 || ret == TDAT_EFORMAT, "%s: a damaged frame gives an answer (%d)", name, ret);
	if (c->ctx_free)
		c->ctx_free(ctx);
}

int main(void)
{
	for (size_t i = 0; i < N; i++)	/* text-like data, compressible */
		plain[i] = (unsigned char)("sched_switch: prev_comm=sh ==> next "[i % 37] + (i / 4096));
	check("zstd");
	check("zlib");
	is_int(codec_find("none")->decompress(NULL, plain, N, out, N), 0, "none: copies");
	is_mem(out, plain, N, "none: same bytes");
	is_int(codec_find("none")->decompress(NULL, plain, N, out, N - 1), TDAT_EFORMAT,
	       "none: sizes must agree");
	ok(codec_find("lzma") == NULL, "unknown codecs are not found");
	return done_testing();
}
