// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet-page.c - one column chunk of a Parquet row group (parquet.h):
 * the dictionary page if the strings or integers have few distinct values
 * (an integer column: at most a quarter of its values), the data
 * pages (DataPage v1: definition levels, then PLAIN values or dictionary
 * indices, zstd-compressed together; a LIST column's repetition levels
 * before them), and the ColumnChunk struct of the footer with the chunk's
 * statistics.  Levels, indices and timestamps are encoded by
 * parquet-encodings.c.
 */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "read/read.h"
#include "write/parquet.h"
#include "write/thrift.h"

#define PAGE_ROWS 65536		/* rows a data page holds at most */
#define PAGE_BYTES (1 << 20)	/* and about this many value bytes */
#define DICT_MAX 32768		/* distinct strings a dictionary holds at most */
#define DICT_BYTES (1 << 20)	/* and bytes */
#define INT_DICT_PROBE 4096	/* integers looked at before a dictionary may give up */
#define STAT_MAX 256		/* longer string bounds are left out of the statistics */

/* ---- values ---- */

static uint32_t str_len(const unsigned char *p)
{
	uint32_t n;

	memcpy(&n, p, 4);
	return n;
}

/* Whether the @n bytes at @a and @b are the same: short ones in two loads each, never past them. */
static inline bool same_bytes(const unsigned char *a, const unsigned char *b, uint32_t n)
{
	uint64_t x, y, u, w;
	uint32_t x4, y4, u4, w4;

	if (n > 16)
		return !memcmp(a, b, n);
	if (n >= 8) {	/* the first 8 and the last 8, overlapping */
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		memcpy(&u, a + n - 8, 8);
		memcpy(&w, b + n - 8, 8);
		return x == y && u == w;
	}
	if (n >= 4) {
		memcpy(&x4, a, 4);
		memcpy(&y4, b, 4);
		memcpy(&u4, a + n - 4, 4);
		memcpy(&w4, b + n - 4, 4);
		return x4 == y4 && u4 == w4;
	}
	for (uint32_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* A string's hash, 8 bytes at a time (only its slot depends on it, not the output). */
static uint32_t hash(const unsigned char *p, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, x;
	uint32_t i = 0;

	for (; i + 8 < n; i += 8) {
		memcpy(&x, p + i, 8);
		h = (h ^ x) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	if (n >= 8) {		/* the last 8 bytes (overlapping those before) */
		memcpy(&x, p + n - 8, 8);
	} else if (n >= 4) {	/* two 4-byte loads, overlapping */
		uint32_t lo, hi;

		memcpy(&lo, p, 4);
		memcpy(&hi, p + n - 4, 4);
		x = (uint64_t)hi << 32 | lo;
	} else {
		for (x = 0; i < n; i++)
			x = x << 8 | p[i];
	}
	h = (h ^ x) * 0xc4ceb9fe1a85ec53ull;
	return (uint32_t)(h ^ h >> 32);
}

/* Room in c->idx for @nv dictionary indices (c->idx NULL if there is none). */
static void idx_room(struct pq_ctx *c, size_t nv)
{
	if (nv > c->idx_cap) {
		free(c->idx);
		c->idx = malloc(nv * sizeof(*c->idx));
		c->idx_cap = c->idx ? nv : 0;
	}
}

/*
 * A dictionary's open-addressing table: slots hold a value's index + 1 (0:
 * empty), at most half of them full.  It starts at SLOTS_MIN and grows by
 * 4 (the values put again), so a chunk of few distinct values clears a
 * small table, not one sized for the most it could hold.
 */
#define SLOTS_MIN 1024

struct slots {
	uint32_t *v;
	size_t cap;		/* a power of 2 */
	unsigned shift;		/* 64 - log2(cap): a 64-bit hash's top bits index it */
};

static bool slots_init(struct slots *t, size_t cap)
{
	t->cap = cap;
	t->shift = 64 - (unsigned)__builtin_ctzll(cap);
	return (t->v = calloc(cap, sizeof(*t->v))) != NULL;
}

/* The empty slot where a value of hash @h goes in @t. */
static size_t slots_free(const struct slots *t, uint64_t h)
{
	size_t i = (size_t)(h >> t->shift);

	while (t->v[i])
		i = (i + 1) & (t->cap - 1);
	return i;
}

static uint64_t str_hash(const unsigned char *base, uint32_t off)
{
	return hash(base + off + 4, str_len(base + off)) * 0x9e3779b97f4a7c15ull;
}

static uint64_t int_hash(uint64_t v)
{
	return v * 0x9e3779b97f4a7c15ull;
}

/*
 * Room in @t for one more of the @nd values so far (their offsets in @dict
 * for strings, else their values in @dv): false without memory.
 */
static bool slots_room(struct slots *t, size_t nd, const unsigned char *base, const uint32_t *dict,
		       const uint64_t *dv)
{
	struct slots n;

	if (2 * (nd + 1) <= t->cap)
		return true;
	if (!slots_init(&n, 4 * t->cap))
		return false;
	for (size_t k = 0; k < nd; k++)
		n.v[slots_free(&n, dv ? int_hash(dv[k]) : str_hash(base, dict[k]))] = (uint32_t)k + 1;
	free(t->v);
	*t = n;
	return true;
}

/*
 * Dictionary indices of the @nv strings of @col into c->idx; the distinct
 * values' offsets in @dict (in index order).  Returns their count, 0 if
 * there are too many (then the chunk is PLAIN).
 */
static size_t make_dict(struct pq_ctx *c, const struct pq_col *col, size_t nv, uint32_t **dict)
{
	const unsigned char *base = (const unsigned char *)col->vals.buf;
	size_t most = nv < DICT_MAX ? nv : DICT_MAX, nd = 0, bytes = 0, off = 0;
	struct slots t = { 0 };
	uint32_t *idx, cur = 0;	/* c->idx, and its last entry: neither read back */

	*dict = malloc(most * sizeof(**dict));
	idx_room(c, nv);
	if (!*dict || !(idx = c->idx) || !slots_init(&t, SLOTS_MIN))
		goto fail;
	for (size_t k = 0, prev = 0; k < nv; k++) {
		uint32_t n = str_len(base + off), *d = *dict;
		uint64_t h;
		size_t i;

		/* a run of one value (a task's events, a column of one buffer) */
		if (k && str_len(base + prev) == n && same_bytes(base + prev + 4, base + off + 4, n)) {
			idx[k] = cur;
			prev = off;
			off += 4 + n;
			continue;
		}
		h = hash(base + off + 4, n) * 0x9e3779b97f4a7c15ull;	/* str_hash(), inline */
		for (i = (size_t)(h >> t.shift);
		     t.v[i] && (str_len(base + d[t.v[i] - 1]) != n ||
				!same_bytes(base + d[t.v[i] - 1] + 4, base + off + 4, n));
		     i = (i + 1) & (t.cap - 1))
			;
		if (!t.v[i]) {
			bytes += 4 + n;
			if (nd == DICT_MAX || bytes > DICT_BYTES || !slots_room(&t, nd, base, d, NULL))
				goto fail;
			d[nd++] = (uint32_t)off;
			t.v[slots_free(&t, h)] = (uint32_t)nd;
			cur = (uint32_t)nd - 1;
		} else {
			cur = t.v[i] - 1;
		}
		idx[k] = cur;
		prev = off;
		off += 4 + n;
	}
	free(t.v);
	return nd;
fail:
	free(t.v);
	free(*dict);
	*dict = NULL;
	return 0;
}

/*
 * Dictionary indices of the @nv integers (@w bytes each) of @col into
 * c->idx, the offset of each distinct value's first occurrence in @dict.
 * Their count, or 0 when a dictionary does not pay: more than a quarter
 * of the values distinct (checked from the first INT_DICT_PROBE on, so a
 * column of addresses gives up early), or DICT_MAX of them.
 */
static size_t make_int_dict(struct pq_ctx *c, const struct pq_col *col, size_t nv, unsigned w,
			    uint32_t **dict)
{
	const unsigned char *base = (const unsigned char *)col->vals.buf;
	size_t most = nv / 4 < DICT_MAX ? nv / 4 + 1 : DICT_MAX, nd = 0;
	struct slots t = { 0 };
	uint64_t *dv, last = 0;
	uint32_t *idx, cur = 0;	/* c->idx, and its last entry: neither read back */

	dv = malloc(most * sizeof(*dv));	/* the distinct values, in index order */
	*dict = malloc(most * sizeof(**dict));
	idx_room(c, nv);
	if (!dv || !*dict || !(idx = c->idx) || !slots_init(&t, SLOTS_MIN))
		goto fail;
	for (size_t k = 0; k < nv; k++) {
		uint64_t v;
		uint32_t v32;
		size_t i;

		if (w == 8) {
			memcpy(&v, base + 8 * k, 8);
		} else {
			memcpy(&v32, base + 4 * k, 4);
			v = v32;
		}
		if (k && v == last) {	/* a run of one value */
			idx[k] = cur;
			continue;
		}
		last = v;
		for (i = (size_t)(int_hash(v) >> t.shift); t.v[i] && dv[t.v[i] - 1] != v;
		     i = (i + 1) & (t.cap - 1))
			;
		if (!t.v[i]) {
			if (nd == most || (k >= INT_DICT_PROBE && 4 * nd > k) ||
			    !slots_room(&t, nd, NULL, NULL, dv))
				goto fail;
			dv[nd] = v;
			(*dict)[nd++] = (uint32_t)(k * w);
			t.v[slots_free(&t, int_hash(v))] = (uint32_t)nd;
			cur = (uint32_t)nd - 1;
		} else {
			cur = t.v[i] - 1;
		}
		idx[k] = cur;
	}
	free(t.v);
	free(dv);
	return nd;
fail:
	free(t.v);
	free(dv);
	free(*dict);
	*dict = NULL;
	return 0;
}

/* ---- statistics ---- */

static int str_cmp(const unsigned char *base, size_t a, size_t b)
{
	uint32_t na = str_len(base + a), nb = str_len(base + b);
	int r = memcmp(base + a + 4, base + b + 4, na < nb ? na : nb);

	return r ? r : (na > nb) - (na < nb);
}

/* Bounds of @nv integers of type T at @p, as uint64_t (sign-extended if signed). */
#define INT_BOUNDS(T, p, nv, st)					\
	do {								\
		T lo_, hi_, v_;						\
									\
		memcpy(&lo_, (p), sizeof(T));				\
		hi_ = lo_;						\
		for (size_t k_ = 1; k_ < (nv); k_++) {			\
			memcpy(&v_, (p) + k_ * sizeof(T), sizeof(T));	\
			lo_ = v_ < lo_ ? v_ : lo_;			\
			hi_ = v_ > hi_ ? v_ : hi_;			\
		}							\
		(st)->min = (uint64_t)lo_;				\
		(st)->max = (uint64_t)hi_;				\
	} while (0)

/*
 * Bounds of @nv doubles at @p: NaN left out (none if all are) and counted, a zero
 * minimum as -0.0 and a zero maximum as +0.0 (parquet.thrift's rules).
 */
static void double_stats(const unsigned char *p, size_t nv, struct pq_stats *st)
{
	double lo = 0, hi = 0, v;

	st->any = false;
	for (size_t k = 0; k < nv; k++) {
		memcpy(&v, p + 8 * k, 8);
		if (v != v) {
			st->nans++;
			continue;
		}
		lo = !st->any || v < lo ? v : lo;
		hi = !st->any || v > hi ? v : hi;
		st->any = true;
	}
	lo = lo == 0 ? -0.0 : lo;
	hi = hi == 0 ? 0.0 : hi;
	memcpy(&st->min, &lo, 8);
	memcpy(&st->max, &hi, 8);
}

static void col_stats(const struct pq_col *col, size_t nv, struct pq_stats *st)
{
	const unsigned char *base = (const unsigned char *)col->vals.buf;
	size_t off = 0;

	st->any = nv > 0;
	if (!nv)
		return;
	if (col->ptype == PQ_INT64 && col->sign)
		INT_BOUNDS(int64_t, base, nv, st);
	else if (col->ptype == PQ_INT64)
		INT_BOUNDS(uint64_t, base, nv, st);
	else if (col->ptype == PQ_INT32 && col->sign)
		INT_BOUNDS(int32_t, base, nv, st);
	else if (col->ptype == PQ_INT32)
		INT_BOUNDS(uint32_t, base, nv, st);
	else if (col->ptype == PQ_DOUBLE)
		double_stats(base, nv, st);
	for (size_t k = 0; col->ptype == PQ_BYTE_ARRAY && k < nv; k++) {
		if (!k || str_cmp(base, off, st->smin) < 0)
			st->smin = off;
		if (!k || str_cmp(base, off, st->smax) > 0)
			st->smax = off;
		off += 4 + str_len(base + off);
	}
}

static void dict_stats(const struct pq_col *col, const uint32_t *dict, size_t nd, struct pq_stats *st)
{
	const unsigned char *base = (const unsigned char *)col->vals.buf;

	st->any = nd > 0;
	st->smin = st->smax = dict[0];
	for (size_t k = 1; k < nd; k++) {
		if (str_cmp(base, dict[k], st->smin) < 0)
			st->smin = dict[k];
		if (str_cmp(base, dict[k], st->smax) > 0)
			st->smax = dict[k];
	}
}

static void put_stats(struct thrift *m, const struct pq_col *col, const struct pq_stats *st)
{
	const unsigned char *base = (const unsigned char *)col->vals.buf;
	unsigned w = col->ptype == PQ_INT32 ? 4 : 8;

	th_struct(m, 12);
	th_i64(m, 3, (int64_t)st->nulls);
	if (st->any && col->ptype != PQ_BYTE_ARRAY) {
		uint32_t lo = (uint32_t)st->min, hi = (uint32_t)st->max;

		/* PLAIN: little-endian, 4 or 8 bytes */
		th_binary(m, 5, w == 8 ? (const void *)&st->max : (const void *)&hi, w);
		th_binary(m, 6, w == 8 ? (const void *)&st->min : (const void *)&lo, w);
	} else if (st->any && str_len(base + st->smax) <= STAT_MAX &&
		   str_len(base + st->smin) <= STAT_MAX) {
		th_binary(m, 5, base + st->smax + 4, str_len(base + st->smax));
		th_binary(m, 6, base + st->smin + 4, str_len(base + st->smin));
	}
	if (col->ptype == PQ_DOUBLE)	/* parquet-format 2.13: absent means "maybe NaN" */
		th_i64(m, 9, (int64_t)st->nans);
	th_end(m);
}

/* ---- pages ---- */


/* Compress c->page and write it after its header (@nvalues, @enc; type @type). */
static int write_page(struct pq_cchunk *ch, enum pq_page type, size_t nvalues, enum pq_enc enc)
{
	struct pq_ctx *c = ch->c;
	size_t bound = ZSTD_compressBound(c->page.len), zlen;
	struct thrift h;
	char *d;

	c->zpage.len = 0;
	if (!(d = sink_reserve(&c->zpage, bound)))
		return TDAT_ENOMEM;
	zlen = ZSTD_compressCCtx(c->zctx, d, bound, c->page.buf, c->page.len, c->level);
	if (ZSTD_isError(zlen)) {
		tdat_msg(c->err, "zstd: %s", ZSTD_getErrorName(zlen));
		return TDAT_EIO;
	}
	c->head.len = 0;
	th_init(&h, &c->head);
	th_i32(&h, 1, type);
	th_i32(&h, 2, (int32_t)c->page.len);
	th_i32(&h, 3, (int32_t)zlen);
	th_struct(&h, type == PQ_DICT_PAGE ? 7 : 5);
	th_i32(&h, 1, (int32_t)nvalues);
	th_i32(&h, 2, enc);
	if (type == PQ_DATA_PAGE) {
		th_i32(&h, 3, PQ_RLE);	/* definition levels */
		th_i32(&h, 4, PQ_RLE);	/* repetition levels (none) */
	}
	th_end(&h);
	th_end(&h);
	if (c->head.err || c->page.err)
		return TDAT_ENOMEM;
	sink_write(ch->out, c->head.buf, c->head.len);
	sink_write(ch->out, d, zlen);
	ch->raw += c->head.len + c->page.len;
	ch->stored += c->head.len + zlen;
	ch->off += c->head.len + zlen;
	return 0;
}

static int dict_page(struct pq_cchunk *ch)
{
	const unsigned char *base = (const unsigned char *)ch->col->vals.buf;

	unsigned w = ch->col->ptype == PQ_INT32 ? 4 : 8;

	ch->c->page.len = 0;
	for (size_t k = 0; k < ch->ndict; k++)	/* PLAIN: a string with its length, an integer */
		sink_write(&ch->c->page, base + ch->dict[k],
			   ch->col->ptype == PQ_BYTE_ARRAY ? 4 + str_len(base + ch->dict[k]) : w);
	ch->dict_off = ch->off;
	while ((1u << ch->bw) < ch->ndict)
		ch->bw++;
	if (!ch->bw)
		ch->bw = 1;
	return write_page(ch, PQ_DICT_PAGE, ch->ndict, PQ_PLAIN);
}

/* Rows [@a, @b) holding @nv values from index @k, @bytes of them from offset @voff. */
static int data_page(struct pq_cchunk *ch, size_t a, size_t b, size_t k, size_t nv, size_t voff,
		     size_t bytes)
{
	struct pq_ctx *c = ch->c;
	const unsigned char *defs = (const unsigned char *)ch->col->defs.buf;
	size_t mark;
	uint32_t n;

	c->page.len = 0;
	sink_write(&c->page, "\0\0\0\0", 4);
	mark = c->page.len;
	if (ch->col->nnull) {
		if (!pq_lev_room(c, b - a))
			return TDAT_ENOMEM;
		for (size_t r = a; r < b; r++)
			c->lev[r - a] = defs[r];
		pq_hybrid(&c->page, c->lev, b - a, 1);
	} else {
		th_varint(&c->page, (uint64_t)(b - a) << 1);	/* one RLE run of 1s */
		sink_putc(&c->page, 1);
	}
	if (c->page.err)
		return TDAT_ENOMEM;
	n = (uint32_t)(c->page.len - mark);
	memcpy(c->page.buf, &n, 4);
	if (ch->dict) {
		sink_putc(&c->page, (char)ch->bw);
		pq_hybrid(&c->page, c->idx + k, nv, ch->bw);
	} else if (ch->col->delta) {
		pq_delta(&c->page, (const unsigned char *)ch->col->vals.buf + voff, nv);
	} else {
		if (bytes)	/* a column of nulls only has no values (nor buffer) */
			sink_write(&c->page, ch->col->vals.buf + voff, bytes);
	}
	if (!ch->data_set) {
		ch->data_off = ch->off;
		ch->data_set = true;
	}
	return write_page(ch, PQ_DATA_PAGE, b - a,
			  ch->dict ? PQ_RLE_DICT : ch->col->delta ? PQ_DELTA : PQ_PLAIN);
}

/* Rows [@a, @b) of a LIST column, @nv elements from index @k. */
static int list_page(struct pq_cchunk *ch, size_t a, size_t b, size_t k, size_t nv)
{
	struct pq_ctx *c = ch->c;
	const uint32_t *lens = (const uint32_t *)ch->col->lens.buf;
	unsigned w = ch->col->ptype == PQ_INT64 ? 8 : 4;
	size_t nl;

	c->page.len = 0;
	if (!(nl = pq_list_levels(c, &c->page, lens + a, b - a)))
		return TDAT_ENOMEM;
	if (nv)
		sink_write(&c->page, ch->col->vals.buf + k * w, nv * w);
	if (!ch->data_set) {
		ch->data_off = ch->off;
		ch->data_set = true;
	}
	ch->levels += nl;
	return write_page(ch, PQ_DATA_PAGE, nl, PQ_PLAIN);
}

/* A LIST column's pages: whole rows, up to about PAGE_ROWS levels or PAGE_BYTES of values. */
static int list_pages(struct pq_cchunk *ch, size_t rows)
{
	const uint32_t *lens = (const uint32_t *)ch->col->lens.buf;
	unsigned w = ch->col->ptype == PQ_INT64 ? 8 : 4;
	size_t a = 0, k = 0;
	int ret;

	while (a < rows) {
		size_t b = a, nv = 0, nl = 0;

		while (b < rows && nl < PAGE_ROWS && nv * w < PAGE_BYTES) {
			uint32_t n = lens[b] == PQ_NULL_LIST ? 0 : lens[b];

			nv += n;
			nl += n ? n : 1;
			b++;
		}
		if ((ret = list_page(ch, a, b, k, nv)))
			return ret;
		a = b;
		k += nv;
	}
	return 0;
}

static int data_pages(struct pq_cchunk *ch, size_t rows)
{
	const struct pq_col *col = ch->col;
	const unsigned char *defs = (const unsigned char *)col->defs.buf;
	const unsigned char *base = (const unsigned char *)col->vals.buf;
	unsigned w = col->ptype == PQ_INT32 ? 4 : 8;
	size_t a = 0, k = 0, voff = 0;
	int ret;

	while (a < rows) {
		size_t b = a, nv = 0, bytes = 0;

		if (ch->dict || col->ptype != PQ_BYTE_ARRAY) {
			/*
			 * Fixed width (PAGE_ROWS of them fit in PAGE_BYTES), or
			 * dictionary indices (whatever the strings' bytes): a
			 * page is PAGE_ROWS rows, its values those defined.
			 */
			b = a + (PAGE_ROWS < PAGE_BYTES / w ? PAGE_ROWS : PAGE_BYTES / w);
			b = b < rows ? b : rows;
			nv = b - a;
			if (col->nnull)
				for (size_t i = a; i < b; i++)
					nv -= !defs[i];
			bytes = ch->dict ? 0 : nv * w;	/* a dictionary page reads no value bytes */
		}
		while (b < rows && b - a < PAGE_ROWS && bytes < PAGE_BYTES) {
			if (!col->nnull || defs[b]) {
				bytes += col->ptype == PQ_BYTE_ARRAY ?
					 4 + str_len(base + voff + bytes) : w;
				nv++;
			}
			b++;
		}
		if ((ret = data_page(ch, a, b, k, nv, voff, bytes)))
			return ret;
		a = b;
		k += nv;
		voff += bytes;
	}
	return 0;
}

/* The ColumnChunk struct (a list element). */
static void chunk_meta(struct pq_cchunk *ch, struct thrift *m, size_t rows, const struct pq_stats *st)
{
	const struct pq_col *col = ch->col;

	th_elem_struct(m);
	th_i64(m, 2, 0);	/* file_offset: 0, no ColumnMetaData outside the footer */
	th_struct(m, 3);
	th_i32(m, 1, col->ptype);
	th_list(m, 2, TH_I32, ch->dict ? 3 : 2);
	th_elem_i32(m, col->delta ? PQ_DELTA : PQ_PLAIN);
	th_elem_i32(m, PQ_RLE);
	if (ch->dict)
		th_elem_i32(m, PQ_RLE_DICT);
	th_list(m, 3, TH_BINARY, col->list ? 3 : 1);
	th_elem_binary(m, col->name, strlen(col->name));
	if (col->list) {
		th_elem_binary(m, "list", 4);
		th_elem_binary(m, "element", 7);
	}
	th_i32(m, 4, PQ_ZSTD);
	th_i64(m, 5, (int64_t)(col->list ? ch->levels : rows));
	th_i64(m, 6, (int64_t)ch->raw);
	th_i64(m, 7, (int64_t)ch->stored);
	th_i64(m, 9, (int64_t)ch->data_off);
	if (ch->dict)
		th_i64(m, 11, (int64_t)ch->dict_off);
	put_stats(m, col, st);
	th_end(m);
	th_end(m);
}

int pq_chunk_encode(struct pq_cchunk *ch, struct pq_stats *st)
{
	const struct pq_table *t = ch->t;
	size_t nv = (size_t)(t->rows - ch->col->nnull);
	int ret;

	*st = (struct pq_stats){ .nulls = ch->col->nnull };
	if (ch->col->list) {	/* the elements; empty lists have no value either */
		nv = ch->col->vals.len / (ch->col->ptype == PQ_INT64 ? 8 : 4);
		st->nulls += ch->col->nempty;
	}
	if (ch->col->ptype == PQ_BYTE_ARRAY && nv)
		ch->ndict = make_dict(ch->c, ch->col, nv, &ch->dict);
	else if ((ch->col->ptype == PQ_INT32 || ch->col->ptype == PQ_INT64) && !ch->col->list &&
		 !ch->col->delta && nv)
		ch->ndict = make_int_dict(ch->c, ch->col, nv, ch->col->ptype == PQ_INT32 ? 4 : 8,
					  &ch->dict);
	if (ch->dict && ch->col->ptype == PQ_BYTE_ARRAY)
		dict_stats(ch->col, ch->dict, ch->ndict, st);	/* the distinct values suffice */
	else
		col_stats(ch->col, nv, st);
	if (ch->dict && (ret = dict_page(ch)))
		return ret;
	return ch->col->list ? list_pages(ch, (size_t)t->rows) : data_pages(ch, (size_t)t->rows);
}

void pq_chunk_place(struct pq_cchunk *ch, const struct pq_stats *st, struct thrift *meta,
		    uint64_t *raw_size)
{
	ch->dict_off += ch->t->off;
	ch->data_off += ch->t->off;
	ch->t->off += ch->off;
	chunk_meta(ch, meta, (size_t)ch->t->rows, st);
	*raw_size += ch->raw;
}

int pq_chunk(struct pq_ctx *c, struct pq_table *t, int i, struct tdat_sink *out,
	     struct thrift *meta, uint64_t *raw_size)
{
	struct pq_cchunk ch = { .c = c, .t = t, .col = &t->cols[i], .out = out };
	struct pq_stats st;
	int ret = pq_chunk_encode(&ch, &st);

	if (!ret)
		pq_chunk_place(&ch, &st, meta, raw_size);
	free(ch.dict);
	return ret;
}
