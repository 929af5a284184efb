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
 * zlib's puff.c does.  A block's symbols are walked through a second table
 * of the same codes that says only what a code is (a literal, a length,
 * the end) and how many bits it takes with its extra bits, which is all a
 * walk needs: a length's or a distance's value is never made (0.79 -> 0.58 s
 * on the 154 MB of big-mixed.dat's .json.gz).  An over-subscribed code, a
 * code that is not there, a symbol out of range or a read past the data
 * fails the walk.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "write/sink.h"

#define MAXBITS 15
#define FAST 11
#define W_LIT 0x20		/* walk table: a literal, */
#define W_LEN 0x40		/* a length (its extra bits counted), */
#define W_END 0x60		/* the end of the block; 0: a longer code, or none */
#define W_KIND 0x60
#define W_DIST 0x20		/* a distance (its extra bits counted) */
#define W_BITS 0x1f

struct huff {
	uint16_t fast[1 << FAST];	/* symbol << 4 | length; 0: a longer code, or none */
	uint16_t count[MAXBITS + 1];	/* codes of each length */
	uint16_t sym[320];		/* symbols in canonical order */
	uint8_t walk[1 << FAST];	/* W_* | bits with the extra bits (walk_entry()) */
};

struct bitin {
	const unsigned char *p;
	size_t n, byte;		/* the data; the next byte to take */
	uint64_t buf;		/* bits taken, not yet read */
	unsigned cnt;
};

struct dwalk {
	struct bitin in;
	struct huff lit, dist;
};

/* At least 56 bits in the buffer (zeros past the end). */
static inline void fill(struct bitin *w)
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

static inline uint32_t bits(struct bitin *w, unsigned k)
{
	uint32_t v;

	fill(w);
	v = (uint32_t)(w->buf & ((1u << k) - 1));
	w->buf >>= k;
	w->cnt -= k;
	return v;
}

/* Bits read so far. */
static inline size_t pos(const struct bitin *w)
{
	return w->byte * 8 - w->cnt;
}

static inline bool in_data(const struct bitin *w)
{
	return pos(w) <= w->n * 8;
}

static const uint8_t lext[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
				  2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const uint8_t dext[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
				  6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

enum code { C_LENS, C_LIT, C_DIST };	/* the code-length code, literal/length, distance */

/*
 * The walk table's entry for symbol @s of a code of @l bits: what it is and
 * the bits it takes with its extra bits; a symbol out of range is left to
 * the slow path, which fails.
 */
static uint8_t walk_entry(enum code kind, unsigned s, unsigned l)
{
	if (kind == C_DIST)
		return s < 30 ? (uint8_t)(W_DIST | (l + dext[s])) : 0;
	if (s < 256)
		return (uint8_t)(W_LIT | l);
	if (s == 256)
		return (uint8_t)(W_END | l);
	return s <= 285 ? (uint8_t)(W_LEN | (l + lext[s - 257])) : 0;
}

/*
 * Set up @h for the code of lengths @len (@nsym symbols), and its walk
 * table unless it is the code-length code; false if it is over-subscribed.
 */
static bool build(struct huff *h, const uint8_t *len, unsigned nsym, enum code kind)
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
	if (kind != C_LENS)
		memset(h->walk, 0, sizeof(h->walk));
	/* the short codes: canonical order is code order */
	for (unsigned l = 1, i = 0; l <= FAST; code = (code + h->count[l]) << 1, l++) {
		for (unsigned k = 0; k < h->count[l]; k++, i++) {
			unsigned c = code + k, r = 0;
			uint8_t we = kind == C_LENS ? 0 : walk_entry(kind, h->sym[i], l);

			for (unsigned b = 0; b < l; b++)	/* codes are read from their first bit */
				r |= ((c >> b) & 1) << (l - 1 - b);
			for (unsigned e = r; e < (1u << FAST); e += 1u << l) {
				h->fast[e] = (uint16_t)(h->sym[i] << 4 | l);
				h->walk[e] = we;
			}
		}
	}
	return true;
}

/* @k bits, at most those in the buffer (no fill). */
static inline void skip(struct bitin *w, unsigned k)
{
	w->buf >>= k;
	w->cnt -= k;
}

/* One symbol of code @h, read from the buffer (no fill: 15 bits must be in it); -1 if none. */
static inline int decode_buffered(struct bitin *w, const struct huff *h)
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
static inline int decode(struct bitin *w, const struct huff *h)
{
	fill(w);
	return decode_buffered(w, h);
}

/*
 * Walk a compressed block's symbols up to its end-of-block code.  Below 48
 * bits the buffer is filled: a length with its extra bits, a distance code
 * and its extra bits take 15 + 5 + 15 + 13 bits at most.  A read past the
 * data is seen at the next fill (the bits past it are zeros) or at the end.
 */
static bool codes(struct dwalk *w)
{
	const uint8_t *lt = w->lit.walk, *dt = w->dist.walk;
	const uint64_t mask = (1u << FAST) - 1;
	struct bitin r = w->in;	/* in registers: the tables' bytes could alias it */
	bool ok;

	for (;;) {
		unsigned e;
		int s, d;

		if (r.cnt < 48) {
			fill(&r);
			if (!in_data(&r)) {
				ok = false;
				break;
			}
		}
		e = lt[r.buf & mask];
		if ((e & W_KIND) == W_LIT) {
			skip(&r, e & W_BITS);
			continue;
		}
		if ((e & W_KIND) == W_LEN) {
			skip(&r, e & W_BITS);
		} else if (e) {
			skip(&r, e & W_BITS);
			ok = in_data(&r);
			break;
		} else {	/* a code longer than FAST bits, or none */
			s = decode_buffered(&r, &w->lit);
			if (s < 256) {
				if (s >= 0)
					continue;
				ok = false;
				break;
			}
			if (s == 256 || s > 285) {
				ok = s == 256 && in_data(&r);
				break;
			}
			skip(&r, lext[s - 257]);
		}
		if ((e = dt[r.buf & mask])) {
			skip(&r, e & W_BITS);
			continue;
		}
		if ((d = decode_buffered(&r, &w->dist)) < 0 || d > 29) {
			ok = false;
			break;
		}
		skip(&r, dext[d]);
	}
	w->in = r;
	return ok;
}

static bool fixed(struct dwalk *w)
{
	uint8_t len[288];

	memset(len, 8, 144);
	memset(len + 144, 9, 112);
	memset(len + 256, 7, 24);
	memset(len + 280, 8, 8);
	if (!build(&w->lit, len, 288, C_LIT))
		return false;
	memset(len, 5, 30);
	return build(&w->dist, len, 30, C_DIST) && codes(w);
}

static bool dynamic(struct dwalk *w)
{
	static const uint8_t order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
					   11, 4, 12, 3, 13, 2, 14, 1, 15 };
	unsigned nlen = bits(&w->in, 5) + 257, ndist = bits(&w->in, 5) + 1;
	unsigned ncode = bits(&w->in, 4) + 4;
	uint8_t len[320] = { 0 }, cl[19] = { 0 };
	unsigned i = 0;

	if (nlen > 286 || ndist > 30)
		return false;
	for (unsigned k = 0; k < ncode; k++)
		cl[order[k]] = (uint8_t)bits(&w->in, 3);
	if (!build(&w->lit, cl, 19, C_LENS))
		return false;
	while (i < nlen + ndist) {
		int s = decode(&w->in, &w->lit);
		unsigned rep, v = 0;

		if (s < 0 || !in_data(&w->in))
			return false;
		if (s < 16) {
			len[i++] = (uint8_t)s;
			continue;
		}
		if (s == 16) {
			if (!i)
				return false;
			v = len[i - 1];
			rep = 3 + bits(&w->in, 2);
		} else {
			rep = s == 17 ? 3 + bits(&w->in, 3) : 11 + bits(&w->in, 7);
		}
		if (i + rep > nlen + ndist)
			return false;
		while (rep--)
			len[i++] = (uint8_t)v;
	}
	if (!len[256] || !build(&w->lit, len, nlen, C_LIT) ||
	    !build(&w->dist, len + nlen, ndist, C_DIST))
		return false;
	return codes(w);
}

/* A stored block: skip to a byte, LEN, NLEN and LEN bytes. */
static bool stored(struct dwalk *w)
{
	unsigned len;

	bits(&w->in, w->in.cnt & 7);
	len = bits(&w->in, 16);
	if ((bits(&w->in, 16) ^ 0xffff) != len)
		return false;
	/* what the buffer holds are whole bytes now: take them back */
	w->in.byte -= w->in.cnt / 8;
	w->in.buf = 0;
	w->in.cnt = 0;
	w->in.byte += len;
	return in_data(&w->in);
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

	w->in.p = p;
	w->in.n = n;
	w->in.byte = 0;
	w->in.buf = 0;
	w->in.cnt = 0;
	while (!last) {
		size_t at = pos(&w->in);
		unsigned type;

		last = bits(&w->in, 1);
		type = bits(&w->in, 2);
		if (type == 3 || !(type == 0 ? stored(w) : type == 1 ? fixed(w) : dynamic(w)))
			return false;
		if (!in_data(&w->in))
			return false;
		*final_bit = at;
	}
	*end_bit = pos(&w->in);
	return true;
}
