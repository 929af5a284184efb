/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dat-pages.c - the page encoder of the trace.dat writer: packs events into
 * ring-buffer pages (sub-buffers) exactly as libtraceevent's kbuffer decodes
 * them, the inverse of dat-cpu.c.
 *
 * A page is a u64 timestamp (the first event's raw timestamp), a commit word
 * of the kernel's long size (data length, plus MISSING_EVENTS when events
 * were lost before the page and MISSING_STORED when their count follows the
 * data), then 32-bit event headers: 5 bits type_len, 27 bits time delta.
 * type_len 1..28 holds type_len * 4 bytes of data, 0 a length word (data
 * length + 4) then the data, 30 a time extend whose next word holds the
 * delta's bits above 27.  Payloads are copied as they are.
 */
#include <stdlib.h>
#include <string.h>

#include "write/dat-enc.h"

#define TS_BITS		27
#define TS_MASK		((1u << TS_BITS) - 1)
#define TYPE_EXTEND	30
#define MAX_SMALL	(28 * 4)	/* largest payload type_len can give */
#define MAX_DELTA	((uint64_t)1 << 59)	/* 27 + 32 bits */
#define MISSING_EVENTS	(1ull << 31)
#define MISSING_STORED	(1ull << 30)

void enc_num(unsigned char *d, uint64_t v, unsigned len, bool big)
{
	for (unsigned i = 0; i < len; i++) {
		unsigned shift = 8 * (big ? len - 1 - i : i);

		d[i] = (unsigned char)(v >> shift);
	}
}

static void put_num(const struct page_enc *p, unsigned char *d, uint64_t v, unsigned len)
{
	enc_num(d, v, len, p->big);
}

/* An event header word: type_len and delta where kbuffer looks for them. */
static void put_header(struct page_enc *p, unsigned type_len, uint32_t delta)
{
	uint32_t w = p->big ? (uint32_t)type_len << TS_BITS | delta : delta << 5 | type_len;

	put_num(p, p->page + p->hdr + p->len, w, 4);
	p->len += 4;
}

int penc_init(struct page_enc *p, unsigned page_size, int long_size, bool big_endian)
{
	memset(p, 0, sizeof(*p));
	p->page_size = page_size;
	p->long_size = (unsigned)long_size;
	p->hdr = 8 + (unsigned)long_size;
	p->big = big_endian;
	if (page_size < p->hdr + 16)
		return TDAT_EINVAL;
	p->page = calloc(1, page_size);
	return p->page ? 0 : TDAT_ENOMEM;
}

void penc_release(struct page_enc *p)
{
	free(p->page);
	p->page = NULL;
}

void penc_reset(struct page_enc *p)
{
	memset(p->page, 0, p->page_size);
	p->len = 0;
	p->nevents = 0;
	p->missed = 0;
}

/* Bytes an event takes: header (+ length word) + data rounded up to 4. */
static size_t event_bytes(unsigned size)
{
	size_t data = ((size_t)size + 3) & ~(size_t)3;

	return data + (size && size <= MAX_SMALL && !(size & 3) ? 4 : 8);
}

/* Open a page for its first event: lost events and their count. */
static void start_page(struct page_enc *p, uint64_t raw_ts, long long missed, bool hide_missed)
{
	p->first_ts = raw_ts;
	p->last_ts = raw_ts;
	p->missed = missed;
	p->cap = p->page_size - p->hdr - (missed > 0 ? p->long_size : 0);
	/*
	 * kbuffer reports lost events only when the page's first item is an
	 * event; a zero time extend in front hides them, as in the input.
	 */
	if (missed && hide_missed) {
		put_header(p, TYPE_EXTEND, 0);
		put_num(p, p->page + p->hdr + p->len, 0, 4);
		p->len += 4;
	}
}

int penc_add(struct page_enc *p, uint64_t raw_ts, const void *data, unsigned size,
	     long long missed, bool hide_missed)
{
	uint64_t delta = 0;
	size_t need = event_bytes(size);
	unsigned char *d;

	if (!p->nevents) {
		size_t room = p->page_size - p->hdr - (missed && hide_missed ? 8 : 0);

		if (need > room)
			return TDAT_ELIMIT;
		/* as the kernel: no room after the event, no count stored */
		if (missed > 0 && need + p->long_size > room)
			missed = -1;
		start_page(p, raw_ts, missed, hide_missed);
	} else {
		/* lost events and time going back both start a new page */
		if (missed || raw_ts < p->last_ts || raw_ts - p->last_ts >= MAX_DELTA)
			return 1;
		delta = raw_ts - p->last_ts;
		if (p->len + need + (delta > TS_MASK ? 8 : 0) > p->cap)
			return 1;
	}
	if (delta > TS_MASK) {
		put_header(p, TYPE_EXTEND, (uint32_t)(delta & TS_MASK));
		put_num(p, p->page + p->hdr + p->len, delta >> TS_BITS, 4);
		p->len += 4;
		delta = 0;
	}
	if (size && size <= MAX_SMALL && !(size & 3)) {
		put_header(p, size / 4, (uint32_t)delta);
	} else {
		put_header(p, 0, (uint32_t)delta);
		put_num(p, p->page + p->hdr + p->len, (uint64_t)((size + 3) & ~3u) + 4, 4);
		p->len += 4;
	}
	d = p->page + p->hdr + p->len;
	memcpy(d, data, size);
	p->len += ((size_t)size + 3) & ~(size_t)3;
	p->last_ts = raw_ts;
	p->nevents++;
	return 0;
}

void penc_finish(struct page_enc *p)
{
	uint64_t commit = p->len;

	if (p->missed)
		commit |= MISSING_EVENTS;
	if (p->missed > 0) {
		commit |= MISSING_STORED;
		put_num(p, p->page + p->hdr + p->len, (uint64_t)p->missed, p->long_size);
	}
	put_num(p, p->page, p->first_ts, 8);
	put_num(p, p->page + 8, commit, p->long_size);
}
