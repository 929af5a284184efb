/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dat-cpu.c - a cursor over the ring-buffer pages of one CPU of one buffer,
 * in the shape of libtraceevent's kbuffer: load a page, peek an event, move on.
 *
 * Memory stays bounded whatever the trace's length: uncompressed data is
 * read a window of pages at a time with pread(); compressed (v7) data is
 * decompressed one chunk at a time.  Each page's commit size and each
 * event's extent (and its length against its type's) are checked before
 * use; a damaged page or chunk is
 * reported through the owner's damage callback and skipped, and reading
 * resumes at the next page or chunk.  Timestamps are converted here
 * (TIME_SHIFT, TSC2NSEC, offsets) as trace-cmd does.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "read/read.h"

#define WINDOW_PAGES	32
#define SLACK		RECORD_SLACK
#define MISSING_EVENTS	(1ull << 31)
#define MISSING_STORED	(1ull << 30)
#define TSYNC_INTERPOLATE 1

/* ---- timestamps ---- */

static uint64_t mul_u64_u32_shr(uint64_t a, uint64_t mul, unsigned shift)
{
	uint32_t al = (uint32_t)a, ah = (uint32_t)(a >> 32);
	uint64_t ret = (al * mul) >> shift;

	if (ah)
		ret += (ah * mul) << (32 - shift);
	return ret;
}

static uint64_t tsync_apply(uint64_t ts, unsigned flags, const struct tsync_sample *min,
			    const struct tsync_sample *max)
{
	int64_t cor = min->offset;

	if (flags & TSYNC_INTERPOLATE) {
		int64_t delta = max->time - min->time;
		int64_t off = ((int64_t)ts - min->time) * (max->offset - min->offset);

		cor = delta ? min->offset + (off + delta / 2) / delta : min->offset;
	}
	if (min->scaling)
		ts = (ts * (uint64_t)min->scaling) >> (min->fraction & 63);
	return ts + (uint64_t)cor;
}

static uint64_t tsync_ts(const struct tdat_file *f, uint64_t ts, int cpu)
{
	const struct tsync_cpu *t;
	int lo, hi, mid;

	if (cpu < 0 || cpu >= f->tsync_ncpus || !f->tsync[cpu].count)
		return ts;
	t = &f->tsync[cpu];
	if (t->count == 1)
		return ts + (uint64_t)t->samples[0].offset;
	if (t->count == 2 || ts <= (uint64_t)t->samples[0].time)
		return tsync_apply(ts, f->tsync_flags, &t->samples[0], &t->samples[1]);
	if (ts >= (uint64_t)t->samples[t->count - 1].time)
		return tsync_apply(ts, f->tsync_flags, &t->samples[t->count - 2],
				   &t->samples[t->count - 1]);
	lo = 0;
	hi = t->count - 1;
	mid = (lo + hi) / 2;
	while (lo <= hi) {
		if (ts < (uint64_t)t->samples[mid].time)
			hi = mid - 1;
		else if (ts > (uint64_t)t->samples[mid].time)
			lo = mid + 1;
		else
			break;
		mid = (lo + hi) / 2;
	}
	if (mid + 1 >= t->count)
		mid = t->count - 2;
	return tsync_apply(ts, f->tsync_flags, &t->samples[mid], &t->samples[mid + 1]);
}

/* trace-cmd's "ts *= ts2secs" (a double), without its undefined overflow. */
static uint64_t ticks_to_ns(uint64_t ts, double ns_per_tick)
{
	double ns = (double)ts * ns_per_tick;

	return ns < 18446744073709551616.0 ? (uint64_t)ns : UINT64_MAX;
}

uint64_t ts_convert(uint64_t ts, double ts2secs, uint32_t mult, uint32_t shift)
{
	if (ts2secs)
		return ticks_to_ns(ts, ts2secs);
	return mult ? mul_u64_u32_shr(ts, mult, shift) : ts;
}

uint64_t file_ts(const struct tdat_file *f, uint64_t ts, int cpu)
{
	if (f->flags & TDAT_OPEN_RAW_TS)
		return ts + (uint64_t)f->info.ts_offset;
	if (f->tsync_enabled)
		ts = tsync_ts(f, ts, cpu);
	if (f->ts2secs)
		ts = ticks_to_ns(ts, f->ts2secs);
	else if (f->tsc_mult)
		ts = mul_u64_u32_shr(ts, f->tsc_mult, f->tsc_shift);
	return ts + (uint64_t)f->info.ts_offset;
}

/* ---- page loading ---- */

static void damage(struct cursor *c, uint64_t off, uint64_t bytes, const char *reason)
{
	if (c->damage)
		c->damage(c->owner, c, off, bytes, reason);
}

static int grow(struct cursor *c, size_t need)
{
	unsigned char *p;

	if (need <= c->buf_cap)
		return 0;
	p = realloc(c->buf, need + SLACK);
	if (!p)
		return TDAT_ENOMEM;
	c->buf = p;
	c->buf_cap = need;
	return 0;
}

/* Largest chunk we accept: trace-cmd writes 10 pages; allow far more, but bounded. */
static size_t chunk_limit(const struct cursor *c)
{
	size_t lim = (size_t)c->b->info.page_size * 256;

	return lim < (64u << 20) ? (64u << 20) : lim;
}

/*
 * Ring-buffer pages compress 5-50 times; a chunk claiming more than 1024
 * times its compressed size (beyond one page) is a decompression bomb, and
 * its buffer would be allocated before decompression tells.
 */
bool chunk_fits(const struct cursor *c, uint64_t off, uint64_t end_off, uint64_t zsize,
		uint64_t usize)
{
	return zsize <= end_off - off - 8 && usize <= chunk_limit(c) && usize &&
	       usize <= zsize * 1024 + c->b->info.page_size;
}

/* Use the chunk at @off that the prefetch thread read and decompressed. */
static void take_ahead(struct cursor *c, uint64_t off)
{
	struct ahead *a = &c->ahead;
	unsigned char *b = c->buf;
	size_t cap = c->buf_cap;

	c->buf = a->buf;
	c->buf_cap = a->cap;
	a->buf = b;
	a->cap = cap;
	c->chunks_left--;
	c->next_off = off + 8 + a->zsize;
	c->consumed += 8 + a->zsize;
	c->ubytes += a->usize;
	c->buf_off = off;
	c->buf_len = a->usize;
	c->page_pos = 0;
	prefetch_post(c);
}

static int fill_compressed(struct cursor *c)
{
	struct tdat_file *f = c->f;
	unsigned char hdr[8], *z;

	uint64_t zsize, usize, off;
	int ret;

	while (c->chunks_left) {
		off = c->next_off;
		if (prefetch_take(c, off)) {
			take_ahead(c, off);
			return 0;
		}
		ret = c->end_off - off < 8 ? TDAT_EFORMAT : src_pread(&f->src, hdr, 8, off, f->errmsg);
		if (ret == TDAT_EIO)
			return ret;	/* a failing read is not damage: stop, as fill_plain() */
		if (ret) {
			damage(c, off, c->end_off - off, "truncated chunk header");
			break;
		}
		zsize = file_num(f, hdr, 4);
		usize = file_num(f, hdr + 4, 4);
		if (!chunk_fits(c, off, c->end_off, zsize, usize)) {
			damage(c, off, c->end_off - off, "chunk sizes do not fit the data");
			break;
		}
		c->chunks_left--;
		c->next_off = off + 8 + zsize;
		c->consumed += 8 + zsize;
		/*
		 * the size its header gives, whether it decompresses or not: what
		 * cursor_ubytes_before() counts, so -j N's count is -j 1's
		 */
		c->ubytes += usize;
		if (zsize > c->zbuf_cap) {
			z = realloc(c->zbuf, zsize);
			if (!z)
				return TDAT_ENOMEM;
			c->zbuf = z;
			c->zbuf_cap = zsize;
		}
		if (grow(c, usize))
			return TDAT_ENOMEM;
		ret = src_pread(&f->src, c->zbuf, zsize, off + 8, f->errmsg);
		if (ret == TDAT_EIO)
			return ret;
		if (!ret)
			ret = file_decompress(f, c->zbuf, zsize, c->buf, usize);
		if (ret == TDAT_ENOMEM)
			return ret;
		if (ret) {
			damage(c, off, 8 + zsize, "chunk does not decompress");
			continue;
		}
		memset(c->buf + usize, 0, SLACK);
		c->buf_off = off;
		c->buf_len = usize;
		c->page_pos = 0;
		prefetch_post(c);
		return 0;
	}
	c->consumed += c->end_off - c->next_off;
	c->next_off = c->end_off;
	c->done = true;
	return TDAT_END;
}

static int fill_plain(struct cursor *c)
{
	size_t ps = c->b->info.page_size;
	uint64_t n = c->end_off - c->next_off;
	int ret;

	if (!n) {
		c->done = true;
		return TDAT_END;
	}
	if (n > ps * WINDOW_PAGES)
		n = ps * WINDOW_PAGES;
	/* a truncated file: read what is there, the rest is reported below */
	if (c->next_off < c->f->src.size && n > c->f->src.size - c->next_off)
		n = c->f->src.size - c->next_off;
	if ((ret = grow(c, ps * WINDOW_PAGES)))
		return ret;
	ret = src_pread(&c->f->src, c->buf, n, c->next_off, c->f->errmsg);
	if (ret == TDAT_EIO)
		return ret;
	if (ret) {
		damage(c, c->next_off, c->end_off - c->next_off, "CPU data truncated");
		c->done = true;
		return TDAT_END;
	}
	memset(c->buf + n, 0, SLACK);
	c->buf_off = c->next_off;
	c->buf_len = n;
	c->page_pos = 0;
	c->next_off += n;
	c->consumed += n;
	c->ubytes += n;
	return 0;
}

/* Whether any of page[from, to) is not zero. */
static bool tail_not_zero(const unsigned char *page, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (page[i])
			return true;
	return false;
}

/* Load the next page (rbpage.h); TDAT_END when this CPU has no more. */
/* A 32-bit word of the file's byte order (inline: this runs for every event). */
static inline uint32_t word32(bool big, const unsigned char *p)
{
	return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3] :
		     (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/*
 * A record (@len bytes at @data) longer than its type makes, a damaged
 * length, swallowed what came after its fields, events perhaps: it is read,
 * and counted as damage.  So is a record of a type with no format: a real
 * capture has a format for every type it holds, so its type id or a length
 * before it is damaged (it is still read, as an unknown event).
 */
static void check_length(struct cursor *c, const unsigned char *data, size_t len)
{
	struct tdat_event ev;
	const struct ttype *t;
	unsigned extra, id;
	uint64_t sure;

	if (len < 2)
		return;
	/*
	 * Most records are of a type met just before, and shorter than it can
	 * be: the id is read here (as file_num() would) to keep that path inline.
	 */
	id = c->f->info.big_endian ? (unsigned)data[0] << 8 | data[1] : (unsigned)data[1] << 8 | data[0];
	if (id == c->lens[id % 16].id && len <= c->lens[id % 16].ok)
		return;
	ev = (struct tdat_event){ .file = c->f, .data = data, .size = (unsigned)len };
	if (id == c->lens[id % 16].id && c->lens[id % 16].t) {
		t = c->lens[id % 16].t;	/* longer than its fixed fields: strings, say */
	} else {
		if (!(t = file_type(c->f, &ev)))
			return;
		if (!t->event) {
			c->nofmt += len;	/* one report for the page: events_extent() */
			return;
		}
		sure = ttype_sure_len(t);
		c->lens[id % 16].id = id;
		c->lens[id % 16].ok = sure < UINT_MAX ? (unsigned)sure : UINT_MAX;
		c->lens[id % 16].t = t;
	}
	if (ttype_overlong(t, &ev, &extra))
		damage(c, c->buf_off + c->page_pos, extra,
		       "event longer than its format allows, perhaps hiding other events");
}

/*
 * How many of a page's @len data bytes hold whole events, walking the event
 * headers as kbuffer does (without decoding): @len when every event lies
 * inside them, else where the first one that does not starts.  kbuffer
 * itself would follow such a length anywhere, backwards too (forever).
 * Each data record is checked against its type's length on the way.
 */
static size_t walk_events(struct cursor *c, const unsigned char *d, size_t len)
{
	bool big = c->f->info.big_endian;
	size_t pos = 0, size;

	while (pos + 4 <= len) {
		uint32_t w = word32(big, d + pos);
		unsigned type_len = big ? w >> 27 : w & 0x1f;

		/*
		 * As kbuffer reads them: a data or padding length in the next
		 * word, which must lie inside the event.  A padding's length
		 * counts from that word, so one under 4 is damage (no kernel
		 * writes it): kbuffer would read the word from past a cut,
		 * where the lost-events count goes.
		 */
		if (type_len == 0 || type_len == 29) {
			if (pos + 8 > len)
				return pos;
			size = word32(big, d + pos + 4);
			if (size < 4)
				return pos;
			size = 4 + (type_len ? size : (size + 3) & ~(size_t)3);
		} else {
			size = type_len <= 28 ? 4 + 4 * (size_t)type_len : 8;
		}
		if (size > len - pos)
			return pos;
		if (type_len == 0 && size < 10)
			c->nofmt += size;	/* no room for a type: file_type() calls it 0 */
		else if (type_len == 0)
			check_length(c, d + pos + 8, size - 8);
		else if (type_len && type_len <= 28)
			check_length(c, d + pos + 4, size - 4);
		pos += size;
	}
	return pos;	/* kbuffer would read a header from 1-3 bytes left over too */
}

/* walk_events(), and the page's records with no format reported as one region. */
static size_t events_extent(struct cursor *c, const unsigned char *d, size_t len)
{
	size_t good = walk_events(c, d, len);

	if (c->nofmt) {
		damage(c, c->buf_off + c->page_pos, c->nofmt, damage_no_format);
		c->nofmt = 0;
	}
	return good;
}

/* Store @v in the file's byte order, @len bytes. */
static void put_word(const struct cursor *c, unsigned char *p, uint64_t v, int len)
{
	for (int i = 0; i < len; i++)
		p[c->f->info.big_endian ? len - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/*
 * A copy of @page cut to its first @good data bytes (the whole events), the
 * lost-events count stored after the data moved along, so that kbuffer reads
 * what is left and nothing past it.  NULL if out of memory.
 */
static const unsigned char *cut_page(struct cursor *c, const unsigned char *page, uint64_t flags,
				     size_t good, size_t avail)
{
	int ls = c->f->info.long_size;
	size_t hdr = 8 + (size_t)ls, commit = flags & COMMIT_MASK;

	/* with the slack a page has: a printer (and a -j worker's copy) reads past a record */
	if (!c->cut && !(c->cut = calloc(1, c->b->info.page_size + SLACK)))
		return NULL;
	memcpy(c->cut, page, hdr + good);
	memset(c->cut + hdr + good, 0, avail - hdr - good);
	put_word(c, c->cut + 8, (flags & ~(uint64_t)COMMIT_MASK) | good, ls);
	if ((flags & MISSING_STORED) && hdr + commit + (size_t)ls <= avail)
		memcpy(c->cut + hdr + good, page + hdr + commit, (size_t)ls);
	return c->cut;
}

/* Whether the page loaded, @avail bytes of it, is cut short by the end of the file. */
static bool page_cut(const struct cursor *c, size_t avail)
{
	return !c->b->compressed && avail < c->b->info.page_size &&
	       c->buf_off + c->page_pos + avail >= c->f->src.size;
}

static int next_page(struct cursor *c)
{
	size_t ps = c->b->info.page_size, hdr = 8 + (size_t)c->f->info.long_size;
	uint64_t flags, commit;
	const unsigned char *page;
	size_t avail, good;
	int ret;

	for (;;) {
		if (c->loaded)
			c->page_pos += ps;
		c->loaded = false;
		if (c->page_pos >= c->buf_len) {
			ret = c->b->compressed ? fill_compressed(c) : fill_plain(c);
			if (ret)
				return ret;
		}
		page = c->buf + c->page_pos;
		avail = c->buf_len - c->page_pos;
		if (avail > ps)
			avail = ps;
		c->loaded = true;	/* so that the next loop moves on */
		if (avail < hdr) {
			damage(c, c->buf_off + c->page_pos, avail, "partial page");
			continue;
		}
		flags = file_num(c->f, page + 8, c->f->info.long_size);
		commit = flags & COMMIT_MASK;
		if (commit > avail - hdr) {
			damage(c, c->buf_off + c->page_pos, avail, page_cut(c, avail) ?
			       "page cut by the end of the file" : "page commit size larger than the page");
			continue;
		}
		if (tail_not_zero(page, hdr + commit + ((flags & MISSING_STORED) ? hdr - 8 : 0), avail)) {
			/*
			 * The kernel zeroes a page after its commit size (ring_buffer_read_page),
			 * so data there means a damaged commit word: the events it no longer
			 * covers are lost.  Those it covers are still read.
			 */
			damage(c, c->buf_off + c->page_pos, avail - hdr - commit,
			       "page holds data past its commit size");
		}
		c->page_missed = !(flags & MISSING_EVENTS) ? 0 :
			(flags & MISSING_STORED) && commit + hdr + (size_t)c->f->info.long_size <= avail ?
			(long long)file_num(c->f, page + hdr + commit, c->f->info.long_size) : -1;
		good = events_extent(c, page + hdr, commit);
		if (good < commit) {
			damage(c, c->buf_off + c->page_pos, commit - good, "event length runs past the page");
			if (!(page = cut_page(c, page, flags, good, avail)))
				return TDAT_ENOMEM;
		}
		c->page_start = true;
		c->page_len = avail;
		c->page = page;
		if (c->old)
			kbuffer_load_subbuffer(c->old, (void *)page);
		else
			rbpage_load(&c->pg, page);
		return 0;
	}
}

/*
 * The loaded page's next record, through rbpage.h, or kbuffer for a format
 * before Linux 2.6.31: *@index and *@size are the page's place and commit
 * size, as kbuffer_curr_index() and kbuffer_subbuffer_size() give them.
 */
static inline const unsigned char *page_read(struct cursor *c, uint64_t *ts, unsigned *index,
					     unsigned *size)
{
	unsigned long long t;
	const unsigned char *data;

	if (!c->old) {
		*index = c->pg.curr;
		*size = c->pg.size;
		return rbpage_read(&c->pg, ts);
	}
	data = kbuffer_read_event(c->old, &t);
	*ts = t;
	*index = (unsigned)kbuffer_curr_index(c->old);
	*size = (unsigned)kbuffer_subbuffer_size(c->old);
	return data;
}

/* Take the record page_read() gave: c->ev's size and lost events; move past it. */
static inline void page_take(struct cursor *c)
{
	if (!c->old) {
		c->ev.size = c->pg.next - c->pg.index;
		c->ev.shown_missed = rbpage_missed(&c->pg);
		rbpage_next(&c->pg);
		return;
	}
	c->ev.size = (unsigned)kbuffer_event_size(c->old);
	c->ev.shown_missed = kbuffer_missed_events(c->old);
	kbuffer_next_event(c->old, NULL);
}

int cursor_peek(struct cursor *c)
{
	uint64_t ts;
	const unsigned char *data, *page;
	size_t hdr = 8 + (size_t)c->f->info.long_size;
	unsigned index, size;
	int ret;

	if (c->have)
		return 0;
	for (;;) {
		if (c->done)
			return TDAT_END;
		if (!c->loaded && (ret = next_page(c)))
			return ret;
		data = page_read(c, &ts, &index, &size);
		if (!data) {
			/*
			 * A page read to its end stops exactly at its commit size; a damaged
			 * length (of padding, say) jumps past it, and the events after it
			 * would be lost without a word.
			 */
			if (index > size)
				damage(c, c->buf_off + c->page_pos, c->b->info.page_size,
				       "event length runs past the page");
			if ((ret = next_page(c)))
				return ret;
			continue;
		}
		page = c->page;
		page_take(c);
		if (data < page + hdr || (size_t)(data - page) + c->ev.size > hdr + size) {
			damage(c, c->buf_off + c->page_pos, c->b->info.page_size,
			       "event length runs past the page");
			if ((ret = next_page(c)))
				return ret;
			continue;
		}
		c->ev.data = data;
		c->ev.raw_ts = ts;
		c->ev.ts = file_ts(c->f, ts, c->ci->cpu);
		c->ev.missed = c->page_start ? c->page_missed : 0;
		c->page_start = false;
		c->have = true;
		return 0;
	}
}

int cursor_next_page(struct cursor *c, const unsigned char **page, size_t *len)
{
	int ret;

	if (c->done)
		return TDAT_END;
	if ((ret = next_page(c)))
		return ret;
	*page = c->page;	/* cut to its whole events if it was damaged */
	*len = c->page_len;
	return 0;
}

int cursor_init(struct cursor *c, struct tdat_file *f, int input, int buffer, int cpu_index)
{
	unsigned char cnt[4];

	memset(c, 0, sizeof(*c));
	c->f = f;
	c->b = &f->buffers[buffer];
	c->ci = &c->b->cpus[cpu_index];
	c->input = input;
	c->buffer = buffer;
	c->next_off = c->data_off = c->ci->offset;
	c->end_off = c->ci->offset + c->ci->size;
	c->ev.cpu = c->ci->cpu;
	c->ev.input = input;
	c->ev.buffer = buffer;
	c->ev.file = f;
	c->pg.big = f->info.big_endian;
	c->pg.long8 = f->info.long_size == 8;
	if (tep_is_old_format(f->tep)) {
		c->old = kbuffer_alloc(c->pg.long8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				       c->pg.big ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
		if (!c->old)
			return TDAT_ENOMEM;
		kbuffer_set_old_format(c->old);
	}
	if (!c->ci->size) {
		c->done = true;
		return 0;
	}
	if (c->b->compressed) {
		if (c->end_off - c->next_off < 4 || src_pread(&f->src, cnt, 4, c->next_off, f->errmsg)) {
			c->done = true;
			c->data_off = c->end_off;	/* none, after cursor_rewind() too */
			return 0;
		}
		/* a salvaged CPU (dat-salvage.c) knows its whole chunks better than the file */
		c->chunks_left = c->ci->nchunks ? c->ci->nchunks : (uint32_t)file_num(f, cnt, 4);
		/*
		 * trace-cmd (at least up to 3.1.6) records the size of compressed
		 * CPU data without its 4-byte chunk count (kernel bugzilla 217367):
		 * allow those 4 bytes, never past the end of the file.
		 */
		c->end_off = c->ci->offset + c->ci->size + 4 <= f->src.size ?
			     c->ci->offset + c->ci->size + 4 : f->src.size;
		c->next_off += 4;
		c->consumed = 4;
	}
	c->data_off = c->next_off;
	c->nchunks = c->chunks_left;
	return 0;
}

void cursor_rewind(struct cursor *c)
{
	prefetch_take(c, UINT64_MAX);
	c->next_off = c->data_off;
	c->chunks_left = c->nchunks;
	c->consumed = c->data_off - c->ci->offset;
	c->ubytes = 0;
	c->buf_len = c->page_pos = 0;
	c->buf_off = 0;
	c->loaded = c->have = c->done = false;
	c->page_start = false;
	c->page_missed = 0;
	c->nofmt = 0;
}

void cursor_pos(const struct cursor *c, struct cpos *p)
{
	size_t in_page;

	*p = (struct cpos){ .unit = CPOS_END };
	if (!c->have)
		return;
	in_page = (size_t)((const unsigned char *)c->ev.data - c->page);
	if (c->b->compressed) {
		p->unit = c->buf_off;
		p->left = c->chunks_left + 1;
		p->inner = (uint32_t)(c->page_pos + in_page);
	} else {
		p->unit = c->buf_off + c->page_pos;
		p->inner = (uint32_t)in_page;
	}
}

/* ---- seeking for time windows ---- */

/* The reported time of the page at @off (plain data); false if unreadable. */
static bool plain_page_ts(struct cursor *c, uint64_t off, uint64_t *ts)
{
	unsigned char b[8];

	if (src_pread(&c->f->src, b, 8, off, c->f->errmsg))
		return false;
	*ts = file_ts(c->f, file_num(c->f, b, 8), c->ci->cpu);
	return true;
}

/* The time of the first page of the chunk at @off, decompressed aside (no damage reported). */
static bool chunk_ts(struct cursor *c, uint64_t off, uint64_t *ts)
{
	struct cursor probe = *c;
	bool ok;

	probe.next_off = off;
	probe.chunks_left = 1;
	probe.damage = NULL;
	/* buffers of its own, kept for the next probe */
	probe.buf = c->pbuf;
	probe.buf_cap = c->pbuf_cap;
	probe.zbuf = c->pzbuf;
	probe.zbuf_cap = c->pzbuf_cap;
	probe.ahead = (struct ahead){ 0 };
	ok = !fill_compressed(&probe) && probe.buf_len >= 8;
	if (ok)
		*ts = file_ts(c->f, file_num(c->f, probe.buf, 8), c->ci->cpu);
	c->pbuf = probe.buf;
	c->pbuf_cap = probe.buf_cap;
	c->pzbuf = probe.zbuf;
	c->pzbuf_cap = probe.zbuf_cap;
	return ok;
}

bool cursor_unit_ts(struct cursor *c, uint64_t off, uint64_t *ts)
{
	return c->b->compressed ? chunk_ts(c, off, ts) : plain_page_ts(c, off, ts);
}

/*
 * Plain data: start at the last page that begins before @ts (strictly: the
 * page before one that begins at @ts may end with events at @ts).
 */
static void seek_plain(struct cursor *c, uint64_t ts)
{
	uint64_t ps = c->b->info.page_size, lo = 0, hi = (c->end_off - c->ci->offset) / ps, t;

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (plain_page_ts(c, c->ci->offset + mid * ps, &t) && t < ts)
			lo = mid;
		else
			hi = mid;
	}
	c->consumed += lo * ps;
	c->next_off = c->ci->offset + lo * ps;
}

/*
 * Compressed data: walk the chunk headers (8 bytes each, no decompression),
 * then binary-search the chunks by the timestamp of their first page, which
 * costs one decompression per step.
 */
/*
 * The file offsets of the chunks left, as far as their headers can be read;
 * the headers are read through a window of the file, not one call each.
 */
static uint32_t chunk_offsets(struct cursor *c, uint64_t *offs, uint32_t max)
{
	enum { WIN = 64 * 1024 };
	unsigned char *win = malloc(WIN);
	uint64_t off = c->next_off, base = 0, have = 0;
	uint32_t n = 0;

	while (win && n < max && off <= c->end_off && c->end_off - off >= 8) {
		if (off < base || off + 8 > base + have) {
			base = off;
			have = c->end_off - off < WIN ? c->end_off - off : WIN;
			if (src_pread(&c->f->src, win, (size_t)have, base, c->f->errmsg))
				break;
		}
		offs[n++] = off;
		off += 8 + file_num(c->f, win + (off - base), 4);
	}
	free(win);
	return n;
}

static int seek_chunks(struct cursor *c, uint64_t ts)
{
	/*
	 * The file's count of chunks, but no more than the headers the data
	 * has room for: a damaged count of 4 billion is not 32 GB of offsets.
	 */
	uint64_t room = c->end_off > c->next_off ? (c->end_off - c->next_off) / 8 : 0;
	uint32_t max = room < c->chunks_left ? (uint32_t)room : c->chunks_left;
	uint64_t *offs, t;
	uint32_t n, lo = 0, hi;

	offs = malloc(sizeof(*offs) * ((size_t)max + 1));
	if (!offs)
		return TDAT_ENOMEM;
	n = chunk_offsets(c, offs, max);
	hi = n;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (chunk_ts(c, offs[mid], &t) && t < ts)
			lo = mid;
		else
			hi = mid;
	}
	if (n) {
		c->consumed += offs[lo] - c->next_off;
		c->next_off = offs[lo];
		c->chunks_left -= lo;
	}
	free(offs);
	return 0;
}

int cursor_seek(struct cursor *c, uint64_t ts)
{
	if (c->done || c->have || c->loaded)
		return 0;	/* only before reading */
	prefetch_take(c, UINT64_MAX);
	if (c->b->compressed)
		return seek_chunks(c, ts);
	seek_plain(c, ts);
	return 0;
}

void cursor_release(struct cursor *c)
{
	prefetch_take(c, UINT64_MAX);
	free(c->ahead.buf);
	free(c->ahead.zbuf);
	c->ahead.buf = c->ahead.zbuf = NULL;
	kbuffer_free(c->old);
	free(c->buf);
	free(c->zbuf);
	free(c->cut);
	free(c->pbuf);
	free(c->pzbuf);
	c->pbuf = c->pzbuf = NULL;
	c->pbuf_cap = c->pzbuf_cap = 0;
	c->cut = NULL;
	c->zbuf = NULL;
	c->old = NULL;
	c->buf = NULL;
}
