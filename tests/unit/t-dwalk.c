/*
 * t-dwalk.c - unit tests of deflate_walk() (libfmt/write/deflate-walk.c),
 * with zlib as the oracle: for libdeflate's output of text, noise and
 * zeros of many lengths at every level (stored, fixed and dynamic blocks),
 * the final block begins where zlib's inflate(Z_BLOCK) finds it, and the
 * walk ends in the stream's last byte, where zlib's inflate ends (the bit
 * it ends at, which zlib does not tell, t-gzip checks: the joined streams
 * inflate to what was written); streams cut short or with bits flipped are
 * walked without a crash or a read past their end (ASan in CI), and a
 * stream cut before its end is refused.
 */
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "write/sink.h"
#include "../tap.h"

static unsigned char *make(int kind, size_t n, uint32_t x)
{
	unsigned char *p = malloc(n ? n : 1);

	for (size_t i = 0; p && i < n; i++) {
		x = x * 1664525u + 1013904223u;
		p[i] = kind == 1 ? (unsigned char)(x >> 24) : kind == 2 ? 0 :
		       (unsigned char)"{\"ts\":1234,\"pid\":\"sched\"}\n"[(i + (x >> 29)) % 27];
	}
	return p;
}

/* zlib's view: the bit the final block begins at, and the stream's end in bits. */
static bool zlib_walk(const unsigned char *z, size_t n, size_t *final, size_t *end)
{
	static unsigned char junk[65536];
	z_stream s = { 0 };
	bool ok = false;

	if (inflateInit2(&s, -15) != Z_OK)
		return false;
	s.next_in = (unsigned char *)z;
	s.avail_in = (uInt)n;
	*final = 0;
	for (;;) {
		int r;
		size_t at;

		s.next_out = junk;
		s.avail_out = sizeof(junk);
		r = inflate(&s, Z_BLOCK);
		if (r == Z_STREAM_END) {
			*end = (n - s.avail_in) * 8 - (size_t)(s.data_type & 7);
			ok = true;
			break;
		}
		if (r != Z_OK)
			break;
		/* at a block boundary (bit 128), bit 64: the block just begun is the last */
		at = (n - s.avail_in) * 8 - (size_t)(s.data_type & 7);
		if ((s.data_type & 128) && !(s.data_type & 64) && s.avail_in)
			*final = at;
	}
	inflateEnd(&s);
	return ok;
}

int main(void)
{
	struct dwalk *w = dwalk_new();
	unsigned char *out = malloc(1 << 21);
	int agree = 0, cases = 0, bad = 0, refused = 0;
	uint32_t seed = 12345;

	for (int kind = 0; kind < 3; kind++) {
		for (int level = 0; level <= 12; level++) {
			struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);

			for (size_t n = 0; n < 900000; n = n * 3 + 1 + (seed % 977)) {
				unsigned char *p = make(kind, n, seed = seed * 69069u + 1);
				size_t zn = libdeflate_deflate_compress(c, p, n, out, 1 << 21);
				size_t f1 = 1, e1 = 2, f2 = 3, e2 = 4;

				cases++;
				if (zn && deflate_walk(w, out, zn, &f1, &e1) && zlib_walk(out, zn, &f2, &e2) &&
				    f1 == f2 && (e1 + 7) / 8 == zn && (e2 + 7) / 8 == zn &&
				    (out[f1 / 8] >> (f1 % 8) & 1))
					agree++;
				else
					diag("kind %d level %d, %zu bytes: walk %zu..%zu, zlib %zu..%zu",
					     kind, level, n, f1, e1, f2, e2);
				/* cut short: refused; bits flipped: walked or refused, no more */
				if (zn > 4) {
					refused += !deflate_walk(w, out, zn - 3, &f1, &e1);
					for (int k = 0; k < 8; k++) {
						unsigned char *q = malloc(zn);
						size_t at = (seed = seed * 69069u + 1) % zn;

						memcpy(q, out, zn);
						q[at] ^= (unsigned char)(1u << (seed >> 29));
						deflate_walk(w, q, zn, &f1, &e1);
						bad++;
						free(q);
					}
				}
				free(p);
			}
			libdeflate_free_compressor(c);
		}
	}
	ok(cases > 100 && agree == cases,
	   "libdeflate's streams at levels 0 to 12: the final block (BFINAL set) begins where "
	   "zlib's inflate finds it, the walk ends in the last byte, as inflate (%d of %d)", agree, cases);
	ok(refused > 0, "streams cut short are refused (%d)", refused);
	ok(bad > 0, "%d damaged streams walked without a crash", bad);
	dwalk_free(w);
	free(out);
	return done_testing();
}
