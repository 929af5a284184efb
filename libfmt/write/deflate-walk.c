// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * deflate-walk.c - where the final block of a raw deflate stream (RFC 1951)
 * begins and where the stream ends, found by walking its blocks: a
 * block's Huffman codes are decoded to find its end, but nothing is
 * inflated (no output, no window), so it costs a fraction of inflate().
 * gzip.c clears that block's BFINAL bit to join libdeflate's outputs into
 * one stream, as zlib's gzjoin does.
 *
 * A code is decoded through a table of its codes of up to FAST bits (a
 * symbol and its length), longer ones bit by bit in canonical order, as
 * zlib's puff.c does.  An over-subscribed code, a code that is not there,
 * a symbol out of range or a read past the data fails the walk.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "write/sink.h"

#define MAXBITS 15
#define FAST 10

struct huff {
	uint16_t fast[1 << FAST];	/* symbol << 4 | length; 0: a longer code, or none */
	uint16_t count[MAXBITS + 1];	/* codes of each length */
	uint16_t sym[320];		/* symbols in canonical order */
};

struct dwalk {
	const unsigned char *p;
	size_t n, byte;		/* the data; the next byte to take */
	uint64_t buf;		/* bits taken, not yet read */
	unsigned cnt;
	struct huff lit, dist;
};

/* At least 56 bits in the buffer (zeros past the end). */
static inline void fill(struct dwalk *w)
{
	if (w->cnt <= 56 && w->byte + 8 <= w->n) {
		uint64_t v;

		memcpy(&v, w->p + w->byte, 8);
		w->buf |= le64toh(v) << w->cnt;
		w->byte += (63 - w->cnt) >> 3;
		w->cnt |= 56;
		return;
	}
	while (w->cnt <= 56) {
		w->buf |= (uint64_t)(w->byte < w->n ? w->p[w->byte] : 0) << w->cnt;
		w->byte++;
		w->cnt += 8;
	}
}

static inline uint32_t bits(struct dwalk *w, unsigned k)
{
	uint32_t v;

	fill(w);
	v = (uint32_t)(w->buf & ((1u << k) - 1));
	w->buf >>= k;
	w->cnt -= k;
	return v;
}

/* Bits read so far. */
static inline size_t pos(const struct dwalk *w)
{
	return w->byte * 8 - w->cnt;
}

static inline bool in_data(const struct dwalk *w)
{
	return pos(w) <= w->n * 8;
}

/* Set up @h for the code of lengths @len (@nsym symbols); false if it is over-subscribed. */
static bool build(struct huff *h, const uint8_t *len, unsigned nsym)
{
	uint16_t offs[MAXBITS + 2];
	unsigned code = 0;
	int left = 1;

	memset(h->count, 0, sizeof(h->count));
	for (unsigned s = 0; s < nsym; s++)
		h->count[len[s]]++;
	for (unsigned l = 1; l <= MAXBITS; l++) {
		left = left * 2 - (int)h->count[l];
		if (left < 0)
			return false;
	}
	offs[1] = 0;
	for (unsigned l = 1; l <= MAXBITS; l++)
		offs[l + 1] = (uint16_t)(offs[l] + h->count[l]);
	for (unsigned s = 0; s < nsym; s++)
		if (len[s])
			h->sym[offs[len[s]]++] = (uint16_t)s;
	memset(h->fast, 0, sizeof(h->fast));
	/* the short codes: canonical order is code order */
	for (unsigned l = 1, i = 0; l <= FAST; code = (code + h->count[l]) << 1, l++) {
		for (unsigned k = 0; k < h->count[l]; k++, i++) {
			unsigned c = code + k, r = 0;

			for (unsigned b = 0; b < l; b++)	/* codes are read from their first bit */
				r |= ((c >> b) & 1) << (l - 1 - b);
			for (unsigned e = r; e < (1u << FAST); e += 1u << l)
				h->fast[e] = (uint16_t)(h->sym[i] << 4 | l);
		}
	}
	return true;
}

/* @k bits, at most those in the buffer (no fill). */
static inline void skip(struct dwalk *w, unsigned k)
{
	w->buf >>= k;
	w->cnt -= k;
}

/* One symbol of code @h, read from the buffer (no fill: 15 bits must be in it); -1 if none. */
static inline int decode_buffered(struct dwalk *w, const struct huff *h)
{
	unsigned e, code = 0, first = 0, index = 0;

	if ((e = h->fast[w->buf & ((1u << FAST) - 1)])) {
		skip(w, e & 15);
		return (int)(e >> 4);
	}
	for (unsigned l = 1; l <= MAXBITS; l++) {
		unsigned count = h->count[l];

		code |= (unsigned)(w->buf & 1);
		skip(w, 1);
		if (code - first < count)
			return h->sym[index + (code - first)];
		index += count;
		first = (first + count) << 1;
		code <<= 1;
	}
	return -1;
}

/* One symbol of code @h; -1 if none has the code read. */
static inline int decode(struct dwalk *w, const struct huff *h)
{
	fill(w);
	return decode_buffered(w, h);
}

static const uint8_t lext[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
				  2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const uint8_t dext[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
				  6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

/*
 * Walk a compressed block's symbols up to its end-of-block code.  One fill
 * is enough for a symbol and, for a length, its extra bits, distance code
 * and extra bits: 15 + 5 + 15 + 13 bits at most, of the 56 a fill leaves.
 */
static bool codes(struct dwalk *w)
{
	for (;;) {
		int s, d;

		fill(w);
		s = decode_buffered(w, &w->lit);
		if (s < 256) {
			if (s < 0 || !in_data(w))
				return false;
			continue;
		}
		if (s == 256)
			return in_data(w);
		if (s > 285)
			return false;
		skip(w, lext[s - 257]);
		if ((d = decode_buffered(w, &w->dist)) < 0 || d > 29)
			return false;
		skip(w, dext[d]);
		if (!in_data(w))
			return false;
	}
}

static bool fixed(struct dwalk *w)
{
	uint8_t len[288];

	memset(len, 8, 144);
	memset(len + 144, 9, 112);
	memset(len + 256, 7, 24);
	memset(len + 280, 8, 8);
	if (!build(&w->lit, len, 288))
		return false;
	memset(len, 5, 30);
	return build(&w->dist, len, 30) && codes(w);
}

static bool dynamic(struct dwalk *w)
{
	static const uint8_t order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
					   11, 4, 12, 3, 13, 2, 14, 1, 15 };
	unsigned nlen = bits(w, 5) + 257, ndist = bits(w, 5) + 1, ncode = bits(w, 4) + 4;
	uint8_t len[320] = { 0 }, cl[19] = { 0 };
	unsigned i = 0;

	if (nlen > 286 || ndist > 30)
		return false;
	for (unsigned k = 0; k < ncode; k++)
		cl[order[k]] = (uint8_t)bits(w, 3);
	if (!build(&w->lit, cl, 19))
		return false;
	while (i < nlen + ndist) {
		int s = decode(w, &w->lit);
		unsigned rep, v = 0;

		if (s < 0 || !in_data(w))
			return false;
		if (s < 16) {
			len[i++] = (uint8_t)s;
			continue;
		}
		if (s == 16) {
			if (!i)
				return false;
			v = len[i - 1];
			rep = 3 + bits(w, 2);
		} else {
			rep = s == 17 ? 3 + bits(w, 3) : 11 + bits(w, 7);
		}
		if (i + rep > nlen + ndist)
			return false;
		while (rep--)
			len[i++] = (uint8_t)v;
	}
	if (!len[256] || !build(&w->lit, len, nlen) || !build(&w->dist, len + nlen, ndist))
		return false;
	return codes(w);
}

/* A stored block: skip to a byte, LEN, NLEN and LEN bytes. */
static bool stored(struct dwalk *w)
{
	unsigned len;

	bits(w, w->cnt & 7);
	len = bits(w, 16);
	if ((bits(w, 16) ^ 0xffff) != len)
		return false;
	/* what the buffer holds are whole bytes now: take them back */
	w->byte -= w->cnt / 8;
	w->buf = 0;
	w->cnt = 0;
	w->byte += len;
	return in_data(w);
}

struct dwalk *dwalk_new(void)
{
	return malloc(sizeof(struct dwalk));
}

void dwalk_free(struct dwalk *w)
{
	free(w);
}

bool deflate_walk(struct dwalk *w, const unsigned char *p, size_t n, size_t *final_bit,
		  size_t *end_bit)
{
	bool last = false;

	w->p = p;
	w->n = n;
	w->byte = 0;
	w->buf = 0;
	w->cnt = 0;
	while (!last) {
		size_t at = pos(w);
		unsigned type;

		last = bits(w, 1);
		type = bits(w, 2);
		if (type == 3 || !(type == 0 ? stored(w) : type == 1 ? fixed(w) : dynamic(w)))
			return false;
		if (!in_data(w))
			return false;
		*final_bit = at;
	}
	*end_bit = pos(w);
	return true;
}
