/*
 * t-gzip.c - unit tests of the gzip sink (libfmt/write/gzip.c): streams of
 * many lengths (0 bytes, around a block's GZ_BLOCK bytes, several blocks), of text,
 * of incompressible bytes (stored blocks) and of zeros, at deflate levels
 * 1, 6 and 12, inflate with zlib as ONE gzip member to exactly the bytes
 * written, with the right CRC and length (zlib checks the trailer), nothing
 * after it; and the file is the same for 1, 2 and 3 workers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "write/sink.h"
#include "../tap.h"

enum kind { TEXT, NOISE, ZEROS };

static unsigned char *make(enum kind k, size_t n, unsigned seed)
{
	unsigned char *p = malloc(n ? n : 1);
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; p && i < n; i++) {
		x = x * 1664525u + 1013904223u;
		if (k == NOISE)
			p[i] = (unsigned char)(x >> 24);
		else if (k == ZEROS)
			p[i] = 0;
		else	/* lines of JSON-like text with varying numbers */
			p[i] = (unsigned char)"{\"ts\":1234,\"pid\":\"sched\"}\n"[(i + (x >> 29)) % 27];
	}
	return p;
}

/* Write @n bytes of @p through a gzip sink (@workers, @level) into memory. */
static unsigned char *gzip_of(const unsigned char *p, size_t n, int workers, int level,
			      size_t *outlen)
{
	FILE *tmp = tmpfile();
	struct tdat_sink s;
	unsigned char *out = NULL;
	long len;

	if (!tmp || sink_init(&s, fileno(tmp)) || sink_gzip(&s, workers, level))
		bail_out("cannot set up a gzip sink");
	/* in uneven pieces, as writers flush */
	for (size_t off = 0, step = 1; off < n; off += step, step = step * 3 % 200003 + 1)
		sink_write(&s, p + off, step < n - off ? step : n - off);
	if (sink_finish(&s))
		bail_out("sink_finish failed");
	sink_release(&s);
	len = lseek(fileno(tmp), 0, SEEK_END);
	out = malloc((size_t)len + 1);
	if (!out || pread(fileno(tmp), out, (size_t)len, 0) != len)
		bail_out("cannot read the gzip file back");
	fclose(tmp);
	*outlen = (size_t)len;
	return out;
}

/* Inflate @z as one gzip member: whether it ends exactly at its end and equals @p. */
static bool one_member(const unsigned char *z, size_t zlen, const unsigned char *p, size_t n)
{
	unsigned char *back = malloc(n + 1);
	z_stream st = { 0 };
	int ret;
	bool same;

	if (!back || inflateInit2(&st, 31) != Z_OK)
		bail_out("inflateInit2");
	st.next_in = (unsigned char *)z;
	st.avail_in = (uInt)zlen;
	st.next_out = back;
	st.avail_out = (uInt)n + 1;
	ret = inflate(&st, Z_FINISH);
	same = ret == Z_STREAM_END && st.avail_in == 0 && st.total_out == n && !memcmp(back, p, n);
	inflateEnd(&st);
	free(back);
	return same;
}

static void check(enum kind k, size_t n, int level)
{
	static const char *names[] = { "text", "noise", "zeros" };
	unsigned char *p = make(k, n, (unsigned)n);
	unsigned char *z[3];
	size_t zl[3];
	int workers[3] = { 1, 2, 3 };

	for (int i = 0; i < 3; i++)
		z[i] = gzip_of(p, n, workers[i], level, &zl[i]);
	ok(one_member(z[0], zl[0], p, n), "%s, %zu bytes, level %d: one member, the same bytes back",
	   names[k], n, level);
	ok(zl[0] == zl[1] && zl[0] == zl[2] && !memcmp(z[0], z[1], zl[0]) &&
	   !memcmp(z[0], z[2], zl[0]), "and the same file for 1, 2 and 3 workers (%zu bytes)", zl[0]);
	for (int i = 0; i < 3; i++)
		free(z[i]);
	free(p);
}

int main(void)
{
	static const size_t lens[] = { 0, 1, 1000, GZ_BLOCK - 1, GZ_BLOCK, GZ_BLOCK + 1,
				       3 * GZ_BLOCK + 12345 };
	static const int levels[] = { 1, 6, 12 };

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		for (size_t l = 0; l < 3; l++)
			check(TEXT, lens[i], levels[l]);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i += 2) {
		check(NOISE, lens[i], 6);
		check(ZEROS, lens[i], 6);
	}
	/* many block ends: each ends its last byte at a different bit */
	for (unsigned n = 1; n <= 24; n++)
		check(TEXT, n * (GZ_BLOCK / 8) + n * 37, 1 + (int)(n % 12));
	return done_testing();
}
