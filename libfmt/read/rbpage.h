/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rbpage.h - the events of one ring-buffer page (sub-buffer) read in the
 * order and with the arithmetic of libtraceevent's kbuffer (1.7), inline:
 * every event goes through here, and kbuffer's calls through function
 * pointers for each word were about a tenth of a CSV export's time.
 *
 * The page's header is its timestamp and a long word of flags and commit
 * size; each item is a 32-bit word of type_len (5 bits) and time delta
 * (27 bits), in the file's byte order, then: a data record (type_len 1-28:
 * that many words; 0: a word of length first), padding (29), a time
 * extend (30) or an absolute time stamp (31).  The values of every field
 * (the event's offset, size and time, the page's index, the lost-events
 * count) are computed as kbuffer computes them, in the same widths, so that
 * a damaged page reads the same as it did through kbuffer; dat-cpu.c has
 * already walked the page (walk_events()) and cut it to its whole events.
 * Pages of the format before Linux 2.6.31 still go through kbuffer.
 */
#ifndef TDAT_READ_RBPAGE_H
#define TDAT_READ_RBPAGE_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define RB_PADDING 29
#define RB_TIME_EXTEND 30
#define RB_TIME_STAMP 31
#define RB_TS_SHIFT 27
#define RB_TS_MSB (0xf8ULL << 56)
#define RB_COMMIT_MASK ((1u << 27) - 1)
#define RB_MISSING_EVENTS (1ull << 31)
#define RB_MISSING_STORED (1ull << 30)

struct rbpage {
	const unsigned char *data;	/* the page's items: after its header */
	uint64_t ts;			/* the current event's time (raw) */
	long long lost;			/* lost events before the page; -1: some, not stored */
	unsigned index;			/* the current event's data, from data */
	unsigned curr;			/* its header, from data */
	unsigned next;			/* the next item's header */
	unsigned size;			/* the page's commit size */
	bool big, long8;		/* the file's byte order and long size */
};

static inline uint32_t rb_rd4(const struct rbpage *p, const unsigned char *q)
{
	uint32_t v;

	memcpy(&v, q, 4);
	return p->big ? be32toh(v) : le32toh(v);
}

static inline uint64_t rb_rd8(const struct rbpage *p, const unsigned char *q)
{
	uint64_t v;

	memcpy(&v, q, 8);
	return p->big ? be64toh(v) : le64toh(v);
}

/* Decode the item at p->curr: p->ts, p->index, p->next; its type_len. */
static inline unsigned rb_update(struct rbpage *p)
{
	const unsigned char *q = p->data + p->curr;
	uint32_t w = rb_rd4(p, q);
	unsigned type_len = p->big ? w >> 27 : w & 31, length;
	uint64_t delta = p->big ? w & ((1u << 27) - 1) : w >> 5, msb = 0;

	q += 4;
	switch (type_len) {
	case RB_PADDING:
		length = rb_rd4(p, q);
		break;
	case RB_TIME_STAMP:
		msb = p->ts & RB_TS_MSB;
		/* fall through */
	case RB_TIME_EXTEND:
		delta = (((uint64_t)rb_rd4(p, q) << RB_TS_SHIFT) + delta) | msb;
		q += 4;
		length = 0;
		break;
	case 0:
		length = (rb_rd4(p, q) - 4 + 3) & ~3u;	/* kbuffer's int arithmetic, wrapped */
		q += 4;
		break;
	default:
		length = type_len * 4;
		break;
	}
	p->ts = type_len == RB_TIME_STAMP ? delta : p->ts + delta;
	p->index = (unsigned)(q - p->data);
	p->next = p->index + length;
	return type_len;
}

/* Move to the next data record; false at the end of the page. */
static inline bool rbpage_next(struct rbpage *p)
{
	do {
		p->curr = p->next;
		if (p->next >= p->size)
			return false;
	} while (rb_update(p) >= RB_PADDING);
	return true;
}

/* Take @page (its header and items) and move to its first data record. */
static inline void rbpage_load(struct rbpage *p, const unsigned char *page)
{
	uint64_t flags = p->long8 ? rb_rd8(p, page + 8) : rb_rd4(p, page + 8);

	p->ts = rb_rd8(p, page);
	p->data = page + (p->long8 ? 16 : 12);
	p->size = (unsigned)flags & RB_COMMIT_MASK;
	if (!(flags & RB_MISSING_EVENTS))
		p->lost = 0;
	else if (!(flags & RB_MISSING_STORED))
		p->lost = -1;
	else	/* after the commit size, as kbuffer reads it */
		p->lost = (long long)(p->long8 ? rb_rd8(p, p->data + p->size) :
					rb_rd4(p, p->data + p->size));
	p->index = p->next = 0;
	rbpage_next(p);
}

/* The current data record and its time, or NULL past the last one. */
static inline const unsigned char *rbpage_read(const struct rbpage *p, uint64_t *ts)
{
	if (p->curr >= p->size)
		return NULL;
	*ts = p->ts;
	return p->data + p->index;
}

/* The lost events shown before the current record: only the page's first item has them. */
static inline long long rbpage_missed(const struct rbpage *p)
{
	return p->curr ? 0 : (int)p->lost;	/* kbuffer returns an int */
}

#endif /* TDAT_READ_RBPAGE_H */
