// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet-encodings.c - the encodings of a Parquet page's levels and
 * values that are not PLAIN (Encodings.md), for parquet-page.c:
 *
 * the RLE/bit-packed hybrid of levels and dictionary indices: a run of 8
 * or more equal values is an RLE run (varint count << 1, the value in
 * ceil(bw / 8) bytes little-endian); anything else goes in bit-packed runs
 * of groups of 8 values (varint groups << 1 | 1, the values packed from the
 * least significant bit), the last group padded with zeros;
 *
 * a LIST column's repetition and definition levels, made from its rows'
 * element counts;
 *
 * DELTA_BINARY_PACKED of a timestamp or row id column.
 */
#include <stdlib.h>
#include <string.h>

#include "write/parquet.h"
#include "write/thrift.h"

/* ---- the hybrid encoding ---- */

static size_t run_len(const uint32_t *v, size_t i, size_t n)
{
	size_t j = i + 1;

	while (j < n && v[j] == v[i])
		j++;
	return j - i;
}

/* Whether a run of at least 8 equal values starts at @i (all 8 compared at once). */
static inline bool run8(const uint32_t *v, size_t i, size_t n)
{
	uint64_t a, b, c, d;

	if (n - i < 8 || v[i] != v[i + 1])
		return false;
	memcpy(&a, v + i, 8);	/* v[i], v[i + 1]: equal, so any pair equal to it is too */
	memcpy(&b, v + i + 2, 8);
	memcpy(&c, v + i + 4, 8);
	memcpy(&d, v + i + 6, 8);
	return a == b && a == c && a == d;
}

/* Eight values of @bw bits (at most 16) packed into @bw bytes at @d. */
static inline void pack8(unsigned char *d, const uint32_t *p, unsigned bw)
{
	if (bw <= 8) {
		uint64_t w = 0;

		for (unsigned i = 0; i < 8; i++)
			w |= (uint64_t)p[i] << (i * bw);
		memcpy(d, &w, bw);	/* little-endian host */
	} else {
		unsigned __int128 w = 0;

		for (unsigned i = 0; i < 8; i++)
			w |= (unsigned __int128)p[i] << (i * bw);
		memcpy(d, &w, bw);
	}
}

/* @n values of @bw bits (at most 16: levels and dictionary indices) in bit-packed groups. */
static void bit_packed(struct tdat_sink *s, const uint32_t *v, size_t n, unsigned bw)
{
	size_t groups = (n + 7) / 8, nbytes = groups * bw, g;
	uint32_t last[8] = { 0 };
	unsigned char *d;

	th_varint(s, groups << 1 | 1);
	if (!(d = (unsigned char *)sink_reserve(s, nbytes)))
		return;
	for (g = 0; 8 * g + 8 <= n; g++)
		pack8(d + g * bw, v + 8 * g, bw);
	if (8 * g < n) {	/* the last group, padded with zeros */
		memcpy(last, v + 8 * g, (n - 8 * g) * sizeof(*v));
		pack8(d + g * bw, last, bw);
	}
	sink_commit(s, nbytes);
}

void pq_hybrid(struct tdat_sink *s, const uint32_t *v, size_t n, unsigned bw)
{
	size_t i = 0;

	while (i < n) {
		size_t r = run_len(v, i, n), j;

		if (r >= 8) {
			th_varint(s, r << 1);
			for (unsigned b = 0; b < bw; b += 8)
				sink_putc(s, (char)(v[i] >> b));
			i += r;
			continue;
		}
		/* groups of 8 up to the next run of 8 that starts a group, or the end */
		for (j = i + 8; j < n && !run8(v, j, n); j += 8)
			;
		if (j > n)
			j = n;
		bit_packed(s, v + i, j - i, bw);
		i = j;
	}
}

/* ---- a LIST column's levels ---- */

/* @lev as one section of a DataPage v1: its 4-byte length, the hybrid encoding. */
static void level_section(struct tdat_sink *s, const uint32_t *lev, size_t n, unsigned bw)
{
	size_t mark = s->len;
	uint32_t len;

	sink_write(s, "\0\0\0\0", 4);
	pq_hybrid(s, lev, n, bw);
	len = (uint32_t)(s->len - mark - 4);
	if (!s->err)
		memcpy(s->buf + mark, &len, 4);
}

bool pq_lev_room(struct pq_ctx *c, size_t n)
{
	if (n <= c->lev_cap)
		return true;
	free(c->lev);
	c->lev_cap = n;
	if (!(c->lev = malloc(n * sizeof(*c->lev))))
		c->lev_cap = 0;
	return c->lev;
}

size_t pq_list_levels(struct pq_ctx *c, struct tdat_sink *s, const uint32_t *lens, size_t n)
{
	size_t nl = 0, k = 0;

	for (size_t r = 0; r < n; r++)
		nl += lens[r] == PQ_NULL_LIST || !lens[r] ? 1 : lens[r];
	if (!pq_lev_room(c, nl))
		return 0;
	for (size_t r = 0; r < n; r++) {	/* repetition: 0 starts a row */
		c->lev[k++] = 0;
		for (uint32_t e = 1; lens[r] != PQ_NULL_LIST && e < lens[r]; e++)
			c->lev[k++] = 1;
	}
	level_section(s, c->lev, nl, 1);
	for (size_t r = k = 0; r < n; r++) {	/* definition: 0 null, 1 empty, 2 an element */
		if (lens[r] == PQ_NULL_LIST || !lens[r])
			c->lev[k++] = lens[r] ? 0 : 1;
		for (uint32_t e = 0; lens[r] != PQ_NULL_LIST && e < lens[r]; e++)
			c->lev[k++] = 2;
	}
	level_section(s, c->lev, nl, 2);
	return nl;
}

/*
 * DELTA_BINARY_PACKED (Encodings.md): varints block size (128), miniblocks
 * a block (4), value count, zigzag first value; then per block of 128
 * deltas (wrapping 64-bit differences): the zigzag minimum delta, one bit
 * width byte per miniblock, and each miniblock of 32 (delta - minimum)
 * bit-packed from the least significant bit, the last one padded; the
 * miniblocks a short last block does not need are left out (width 0).
 */
#define DELTA_BLOCK 128
#define DELTA_MINI 4
#define DELTA_PER (DELTA_BLOCK / DELTA_MINI)

static void pack64(struct tdat_sink *s, const uint64_t *v, unsigned w)
{
	size_t nbytes = (size_t)DELTA_PER * w / 8;
	unsigned char *d = (unsigned char *)sink_reserve(s, nbytes);
	unsigned __int128 acc = 0;
	unsigned have = 0;
	size_t o = 0;

	if (!d)
		return;
	for (int i = 0; i < DELTA_PER; i++) {
		acc |= (unsigned __int128)v[i] << have;
		have += w;
		while (have >= 8) {
			d[o++] = (unsigned char)acc;
			acc >>= 8;
			have -= 8;
		}
	}
	sink_commit(s, nbytes);
}

static void delta_block(struct tdat_sink *s, uint64_t *d, size_t m)
{
	unsigned char widths[DELTA_MINI] = { 0 };
	int64_t min = (int64_t)d[0];
	size_t nmini = (m + DELTA_PER - 1) / DELTA_PER;

	for (size_t k = 1; k < m; k++)
		if ((int64_t)d[k] < min)
			min = (int64_t)d[k];
	th_varint(s, th_zigzag(min));
	for (size_t k = 0; k < DELTA_BLOCK; k++)
		d[k] = k < m ? d[k] - (uint64_t)min : 0;
	for (size_t j = 0; j < nmini; j++) {
		uint64_t any = 0;

		for (size_t k = j * DELTA_PER; k < (j + 1) * DELTA_PER; k++)
			any |= d[k];
		widths[j] = (unsigned char)(any ? 64 - __builtin_clzll(any) : 0);
	}
	sink_write(s, widths, DELTA_MINI);
	for (size_t j = 0; j < nmini; j++)
		pack64(s, d + j * DELTA_PER, widths[j]);
}

void pq_delta(struct tdat_sink *s, const unsigned char *vals, size_t n)
{
	uint64_t d[DELTA_BLOCK], prev = 0, x;

	th_varint(s, DELTA_BLOCK);
	th_varint(s, DELTA_MINI);
	th_varint(s, n);
	if (n)
		memcpy(&prev, vals, 8);
	th_varint(s, th_zigzag((int64_t)prev));
	for (size_t i = 1; i < n; i += DELTA_BLOCK) {
		size_t m = n - i < DELTA_BLOCK ? n - i : DELTA_BLOCK;

		for (size_t k = 0; k < m; k++) {
			memcpy(&x, vals + 8 * (i + k), 8);
			d[k] = x - prev;
			prev = x;
		}
		delta_block(s, d, m);
	}
}
