// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sqlite-pages.c - a SQLite database file written page by page, without
 * SQLite: the file format of https://www.sqlite.org/fileformat2.html.
 *
 * A table's rows come in rowid order, so its b-tree is built from the
 * bottom up: cells fill a leaf until the next one does not fit, then the
 * leaf is written at the next free page and its number and largest rowid
 * go up to the interior level above it, which is written the same way,
 * f->entries children a page (few enough for page 1 too).  A level keeps
 * up to twice that many children before it writes the first half, so that
 * at the end the last page of every level can be split with the one before
 * it and no interior page is left with a single child.  At the end the top
 * page of a tree is its root, and the first page of the file is the root
 * of the schema's tree.  Every page is full but the last one or two of
 * each level; cells never move, and SQLite reads, indexes and appends to
 * the file as to one of its own.
 *
 * Rows bigger than a page keep their start in the leaf and the rest in a
 * chain of overflow pages, split where the format says.  Records use the
 * smallest serial type of each value, as SQLite's own.  A value goes into
 * a record as it is; whether SQLite would have changed it for its column
 * (sqlite-file.c) is told by the column's affinity, which a table's CREATE
 * TABLE statement declares (sqp_affinities(): SQLite's rules, so the
 * statement is the one place a column's type is written).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "read/types.h"
#include "sqlite-pages.h"

#define U (f->size)			/* usable bytes of a page: nothing reserved */
#define MAX_LOCAL (U - 35)		/* a table leaf cell's payload kept whole */
#define MIN_LOCAL ((U - 12) * 32 / 255 - 23)
#define LEAF_HDR SQP_LEAF_HDR
#define INTERIOR_HDR SQP_INTERIOR_HDR
#define INTERIOR_CELL 15		/* at most: pointer, child, 9-byte rowid */
#define ENTRIES (f->entries)

static inline unsigned vlen(uint64_t v)
{
	unsigned n = 1;

	if (v <= 0x7f)
		return 1;
	if (v > 0x00ffffffffffffffull)
		return 9;
	while (v > 0x7f) {
		v >>= 7;
		n++;
	}
	return n;
}

/* SQLite's varint: big-endian 7-bit groups, the ninth byte whole. */
static inline unsigned put_varint(unsigned char *p, uint64_t v)
{
	unsigned n;

	if (v <= 0x7f) {
		*p = (unsigned char)v;
		return 1;
	}
	if ((n = vlen(v)) == 9) {
		p[8] = (unsigned char)v;
		v >>= 8;
		for (int i = 7; i >= 0; i--, v >>= 7)
			p[i] = (unsigned char)((v & 0x7f) | 0x80);
		return 9;
	}
	for (int i = (int)n - 1; i >= 0; i--, v >>= 7)
		p[i] = (unsigned char)((v & 0x7f) | (i == (int)n - 1 ? 0 : 0x80));
	return n;
}

static unsigned get_varint(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < 9; i++) {
		if (p + i >= end)
			return 0;
		if (i == 8) {
			*v = (x << 8) | p[i];
			return 9;
		}
		x = (x << 7) | (p[i] & 0x7f);
		if (!(p[i] & 0x80)) {
			*v = x;
			return i + 1;
		}
	}
	return 0;
}

/* The low @n bytes of @v, big-endian, at @p. */
static inline void put_be(unsigned char *p, uint64_t v, unsigned n)
{
	uint64_t be;

	if (!n)
		return;
	be = __builtin_bswap64(v << (64 - 8 * n));
	memcpy(p, &be, n);
}

static uint64_t get_be(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

/* ---- records ---- */

static const unsigned int_bytes[10] = { 0, 1, 2, 3, 4, 6, 8, 8, 0, 0 };

static inline uint64_t int_type(int64_t i)
{
	uint64_t u = i < 0 ? ~(uint64_t)i : (uint64_t)i;

	if ((uint64_t)i <= 1)
		return 8 + (uint64_t)i;
	return u <= 0x7f ? 1 : u <= 0x7fff ? 2 : u <= 0x7fffff ? 3 : u <= 0x7fffffff ? 4 :
	       u <= 0x7fffffffffffull ? 5 : 6;
}

/* @v's serial type, its text @arena's for V_TEXT. */
static inline uint64_t serial_type(const struct sq_val *v)
{
	if (v->type == V_INT)
		return int_type(v->u.i);
	if (v->type >= V_TEXT)
		return 13 + 2 * (uint64_t)v->len;
	return v->type == V_REAL ? 7 : 0;
}

size_t sqr_room(const struct sq_val *v, int n)
{
	size_t room = 9;

	for (int i = 0; i < n; i++)
		room += 9 + (v[i].type == V_TEXT || v[i].type == V_STATIC ? v[i].len : 8);
	return room;
}

#define TYPES_MAX 64		/* columns whose serial types are kept on the stack */

/* The body of value @v of serial type @t at @o; past it. */
static inline unsigned char *put_body(unsigned char *o, const struct sq_val *v, uint64_t t,
				      const char *arena)
{
	uint64_t bits;

	if (t >= 13) {
		memcpy(o, v->type == V_TEXT ? arena + v->u.off : v->u.p, v->len);
		return o + v->len;
	}
	if (t == 7) {
		memcpy(&bits, &v->u.d, 8);
		put_be(o, bits, 8);
		return o + 8;
	}
	if (t == 0 || t >= 8)	/* NULL, 0 and 1: no body */
		return o;
	/* all 8 bytes stored (sqr_room() gives an integer 8), the first int_bytes[t] kept */
	bits = __builtin_bswap64((uint64_t)v->u.i << (64 - 8 * int_bytes[t]));
	memcpy(o, &bits, 8);
	return o + int_bytes[t];
}

/* sqr_encode() of more than TYPES_MAX values: each serial type worked out twice. */
static size_t sqr_encode_slow(unsigned char *out, const struct sq_val *v, int n, const char *arena,
			      bool rowid)
{
	const struct sq_val null = { .type = V_NULL };
	unsigned hs = 0, h;
	unsigned char *o;

	for (int i = 0; i < n; i++)
		hs += vlen(serial_type(i == 0 && rowid ? &null : &v[i]));
	for (h = hs + 1; vlen(h) + hs != h;)
		h = vlen(h) + hs;
	o = out + put_varint(out, h);
	for (int i = 0; i < n; i++)
		o += put_varint(o, serial_type(i == 0 && rowid ? &null : &v[i]));
	for (int i = rowid ? 1 : 0; i < n; i++)
		o = put_body(o, &v[i], serial_type(&v[i]), arena);
	return (size_t)(o - out);
}

size_t sqr_encode(unsigned char *out, const struct sq_val *v, int n, const char *arena, bool rowid)
{
	uint64_t ty[TYPES_MAX], t;
	unsigned hs = 0, h;
	unsigned char *o;
	int from = rowid && n > 0;

	if (n > TYPES_MAX)
		return sqr_encode_slow(out, v, n, arena, rowid);
	ty[0] = 0;
	hs = (unsigned)from;
	for (int i = from; i < n; i++) {
		ty[i] = t = serial_type(&v[i]);
		hs += t <= 0x7f ? 1 : vlen(t);
	}
	for (h = hs + 1; vlen(h) + hs != h;)
		h = vlen(h) + hs;
	o = out + put_varint(out, h);
	for (int i = 0; i < n; i++)
		o += put_varint(o, ty[i]);
	for (int i = from; i < n; i++)
		o = put_body(o, &v[i], ty[i], arena);
	return (size_t)(o - out);
}

bool sqr_decode(const unsigned char *rec, size_t len, int col, struct sq_val *v)
{
	const unsigned char *end = rec + len, *p = rec, *body;
	uint64_t h, t = 0, skip = 0, bits;
	unsigned k;

	*v = (struct sq_val){ .type = V_NULL };
	if (!(k = get_varint(p, end, &h)) || h > len)
		return false;
	body = rec + h;
	for (p += k; p < body; p += k) {
		if (!(k = get_varint(p, body, &t)))
			return false;
		if (col-- == 0)
			break;
		skip += t >= 13 ? (t - 13) / 2 : int_bytes[t < 10 ? t : 0];
	}
	if (col >= 0 || skip > (uint64_t)(end - body))
		return col >= 0;	/* past its last column: NULL */
	p = body + skip;
	if (t >= 13) {
		v->type = V_STATIC;
		v->u.p = (const char *)p;
		v->len = (unsigned)((t - 13) / 2);
		return (t - 13) / 2 <= (uint64_t)(end - p);
	}
	if (t == 0 || t >= 10 || int_bytes[t] > (size_t)(end - p))
		return t == 0;
	if (t == 7) {
		bits = get_be(p, 8);
		memcpy(&v->u.d, &bits, 8);
		v->type = V_REAL;
		return true;
	}
	v->type = V_INT;
	v->u.i = t >= 8 ? (int64_t)(t - 8) : (int64_t)get_be(p, int_bytes[t]);
	if (t < 8 && int_bytes[t] < 8 && (p[0] & 0x80))	/* sign-extend */
		v->u.i -= (int64_t)1 << (8 * int_bytes[t]);
	return true;
}

/* ---- column affinities ---- */

/* Does @s (@n bytes) hold @word, in any case? */
static bool has_word(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);

	for (size_t i = 0; i + w <= n; i++)
		if (!strncasecmp(s + i, word, w))
			return true;
	return false;
}

/* The affinity of a column declared of type @s (@n bytes): SQLite's rules, in their order. */
static char type_affinity(const char *s, size_t n)
{
	if (has_word(s, n, "INT"))
		return 'I';
	if (has_word(s, n, "CHAR") || has_word(s, n, "CLOB") || has_word(s, n, "TEXT"))
		return 'T';
	if (!n || has_word(s, n, "BLOB"))
		return '-';
	if (has_word(s, n, "REAL") || has_word(s, n, "FLOA") || has_word(s, n, "DOUB"))
		return 'R';
	return 'N';
}

/* The end of the name or word at @p (a "quoted" one, its "" inside kept), or @p. */
static const char *word_end(const char *p)
{
	if (*p == '"') {
		for (p++; *p; p++)
			if (*p == '"' && *++p != '"')
				return p;
		return p;
	}
	while (*p == '_' || (*p >= '0' && *p <= '9') || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z'))
		p++;
	return p;
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return p;
}

/* Is the word at @p (to @e) one that ends a column's type (a constraint's first)? */
static bool constraint_word(const char *p, const char *e)
{
	static const char *const words[] = { "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE",
		"CHECK", "DEFAULT", "COLLATE", "REFERENCES", "GENERATED", "AS", "FOREIGN" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if ((size_t)(e - p) == strlen(words[i]) && !strncasecmp(p, words[i], (size_t)(e - p)))
			return true;
	return false;
}

/* The ',' or the list's ')' that ends the column definition @p is in, or NULL. */
static const char *def_end(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '"' || *p == '\'') {
			char q = *p;

			for (p++; *p && (*p != q || p[1] == q); p += *p == q ? 2 : 1)
				;
			if (!*p)
				return NULL;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')' && depth) {
			depth--;
		} else if (*p == ',' || *p == ')') {
			return p;
		}
	}
	return NULL;
}

/* The '(' of @sql's list of columns, past CREATE TABLE and the name (which may hold one); NULL if none. */
static const char *column_list(const char *sql)
{
	const char *p = skip_space(sql);

	for (int w = 0; w < 3; w++)	/* CREATE, TABLE, the name */
		p = skip_space(word_end(p));
	return *p == '(' ? p : NULL;
}

int sqp_affinities(const char *sql, char *aff, int max)
{
	const char *p = column_list(sql), *e, *type, *type_end;
	int n = 0;

	for (; p && *p != ')'; p = def_end(p)) {
		p = skip_space(p + 1);
		if ((e = word_end(p)) == p || constraint_word(p, e) || n == max)
			return -1;	/* no name, or a table's constraint */
		/* the type: the words before a constraint's, each perhaps with a (size) */
		for (p = type = type_end = skip_space(e); (e = word_end(p)) > p && !constraint_word(p, e);
		     type_end = p) {
			p = skip_space(e);
			if (*p == '(' && (e = strchr(p, ')')))
				p = skip_space(e + 1);
		}
		aff[n++] = type_affinity(type, (size_t)(type_end - type));
	}
	return p ? n : -1;
}

int sqp_column(const char *sql, const char *name)
{
	const char *p = column_list(sql), *e;
	size_t len = strlen(name);

	for (int n = 0; p && *p != ')'; p = def_end(p), n++) {
		p = skip_space(p + 1);
		e = word_end(p);
		if ((size_t)(e - p) == len && !strncasecmp(p, name, len))
			return n;
	}
	return -1;
}

/* ---- pages ---- */

int sqp_file_init(struct sqp_file *f, int fd, unsigned size)
{
	*f = (struct sqp_file){ .fd = fd, .npages = 1, .size = size };
	if (size < 512 || size > 65536 || (size & (size - 1)))
		return TDAT_EINVAL;
	f->entries = (int)((size - SQP_HEADER - INTERIOR_HDR) / INTERIOR_CELL + 1);
	f->page = malloc(U);
	f->cells = malloc((size_t)ENTRIES * (INTERIOR_CELL - 2));
	f->off = malloc(sizeof(*f->off) * (U / 2));
	return f->page && f->cells && f->off ? 0 : TDAT_ENOMEM;
}

void sqp_file_release(struct sqp_file *f)
{
	free(f->page);
	free(f->cells);
	free(f->off);
	f->page = f->cells = NULL;
	f->off = NULL;
}

/* @len bytes at @p written at @off of the file: 0 or TDAT_EIO (f->err says why). */
static int write_at(struct sqp_file *f, const unsigned char *p, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(f->fd, p + done, len - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			f->err = n < 0 ? errno : ENOSPC;
			return TDAT_EIO;
		}
		done += (size_t)n;
	}
	return 0;
}

static int write_page(struct sqp_file *f, uint32_t pg, const unsigned char *p)
{
	return write_at(f, p, U, (off_t)(pg - 1) * U);
}

/* Lay out a page of @n cells (@cells, @clen bytes, each at @coff) on f->page; its page number is @pg. */
static int lay_out(struct sqp_file *f, uint32_t pg, int type, uint32_t right, const unsigned char *cells,
		   size_t clen, const uint16_t *coff, int n)
{
	unsigned char *p = f->page;
	bool leaf = type == SQP_TABLE_LEAF || type == SQP_INDEX_LEAF;
	unsigned hdr = pg == 1 ? SQP_HEADER : 0, hlen = leaf ? LEAF_HDR : INTERIOR_HDR;
	size_t start = U - clen, ptrs = hdr + hlen + 2 * (size_t)n;

	if (ptrs > start)
		return TDAT_EINVAL;
	memset(p, 0, hdr);
	p[hdr] = (unsigned char)type;
	put_be(p + hdr + 1, 0, 2);			/* no freeblock */
	put_be(p + hdr + 3, (uint64_t)n, 2);
	put_be(p + hdr + 5, start, 2);
	p[hdr + 7] = 0;					/* no fragments */
	if (!leaf)
		put_be(p + hdr + 8, right, 4);
	for (int i = 0; i < n; i++)
		put_be(p + hdr + hlen + 2 * (size_t)i, start + coff[i], 2);
	memset(p + ptrs, 0, start - ptrs);
	if (clen)			/* an empty table's leaf has no cells at all */
		memcpy(p + start, cells, clen);
	return write_page(f, pg, p);
}

/* An interior page at @pg: its children e[0..@n), the last the right-most. */
static int write_interior(struct sqp_file *f, uint32_t pg, const struct sqp_entry *e, int n)
{
	unsigned char *cells = f->cells;
	uint16_t *coff = f->off;
	size_t len = 0;

	for (int i = 0; i < n - 1; i++) {
		coff[i] = (uint16_t)len;
		put_be(cells + len, e[i].child, 4);
		len += 4 + put_varint(cells + len + 4, (uint64_t)e[i].key);
	}
	return lay_out(f, pg, SQP_TABLE_INTERIOR, e[n - 1].child, cells, len, coff, n - 1);
}

int sqp_page(struct sqp_file *f, int type, uint32_t right, const unsigned char *cells, size_t clen,
	     const uint16_t *coff, int n, uint32_t *pg)
{
	*pg = ++f->npages;
	return lay_out(f, *pg, type, right, cells, clen, coff, n);
}

unsigned sqp_varint(unsigned char *p, uint64_t v)
{
	return put_varint(p, v);
}

static int add_entry(struct sqp_file *f, struct sqp_tree *t, int l, uint32_t child, int64_t key);

/* Write e[0..@n) of level @l at a new page, and enter it in the level above. */
static int push_interior(struct sqp_file *f, struct sqp_tree *t, int l, const struct sqp_entry *e, int n)
{
	uint32_t pg = ++f->npages;
	int ret = write_interior(f, pg, e, n);

	return ret ? ret : add_entry(f, t, l + 1, pg, e[n - 1].key);
}

static int add_entry(struct sqp_file *f, struct sqp_tree *t, int l, uint32_t child, int64_t key)
{
	struct sqp_level *lv;
	int ret;

	if (l == t->nlv) {
		lv = realloc(t->lv, sizeof(*lv) * (size_t)(l + 1));
		if (!lv)
			return TDAT_ENOMEM;
		t->lv = lv;
		t->lv[t->nlv++] = (struct sqp_level){ 0 };
	}
	lv = &t->lv[l];
	if (lv->n == lv->cap) {
		int cap = lv->cap ? lv->cap * 2 : 16;
		struct sqp_entry *e = realloc(lv->e, sizeof(*e) * (size_t)(cap < 2 * ENTRIES ? cap : 2 * ENTRIES));

		if (!e)
			return TDAT_ENOMEM;
		lv->e = e;
		lv->cap = cap < 2 * ENTRIES ? cap : 2 * ENTRIES;
	}
	lv->e[lv->n++] = (struct sqp_entry){ child, key };
	if (lv->n < 2 * ENTRIES)
		return 0;
	if ((ret = push_interior(f, t, l, lv->e, ENTRIES)))
		return ret;
	lv = &t->lv[l];		/* push_interior() may have moved the levels */
	memmove(lv->e, lv->e + ENTRIES, sizeof(*lv->e) * ENTRIES);
	lv->n = ENTRIES;
	return 0;
}

static int write_leaf(struct sqp_file *f, struct sqp_tree *t, uint32_t pg, int from, int to)
{
	size_t a = from < to ? t->coff[from] : 0, b = to < t->ncells ? t->coff[to] : t->clen;
	uint16_t *off = f->off;

	for (int i = from; i < to; i++)
		off[i - from] = (uint16_t)(t->coff[i] - a);
	/* an empty table's leaf: no cells, maybe not even their buffer */
	return lay_out(f, pg, SQP_TABLE_LEAF, 0, from < to ? t->cells + a : NULL, b - a, off, to - from);
}

/* The rowid of @t's cell @i. */
static int64_t cell_rowid(const struct sqp_tree *t, int i)
{
	const unsigned char *p = t->cells + t->coff[i], *end = t->cells + t->clen;
	uint64_t v = 0;
	unsigned k = get_varint(p, end, &v);

	get_varint(p + k, end, &v);
	return (int64_t)v;
}

/* Write the cells [@from, @to) as a leaf at a new page, and enter it above. */
static int push_leaf(struct sqp_file *f, struct sqp_tree *t, int from, int to)
{
	uint32_t pg = ++f->npages;
	int ret = write_leaf(f, t, pg, from, to);

	return ret ? ret : add_entry(f, t, 0, pg, cell_rowid(t, to - 1));
}

/* The part of a payload of @p bytes kept in its cell, the rest overflowing. */
static size_t local_size(const struct sqp_file *f, size_t p)
{
	size_t k;

	if (p <= MAX_LOCAL)
		return p;
	k = MIN_LOCAL + (p - MIN_LOCAL) % (U - 4);
	return k <= MAX_LOCAL ? k : MIN_LOCAL;
}

/* Write @len bytes at @p to overflow pages; the first one's number. */
static int write_overflow(struct sqp_file *f, const unsigned char *p, size_t len, uint32_t *first)
{
	int ret = 0;

	*first = f->npages + 1;
	while (len && !ret) {
		size_t n = len < U - 4 ? len : U - 4;
		uint32_t pg = ++f->npages;

		put_be(f->page, len > n ? pg + 1 : 0, 4);
		memcpy(f->page + 4, p, n);
		memset(f->page + 4 + n, 0, U - 4 - n);
		ret = write_page(f, pg, f->page);
		p += n;
		len -= n;
	}
	return ret;
}

static int leaf_room(struct sqp_tree *t, size_t need)
{
	if (t->clen + need > t->ccap) {
		size_t cap = t->ccap ? t->ccap * 2 : 256;
		unsigned char *c;

		while (cap < t->clen + need)
			cap *= 2;
		if (!(c = realloc(t->cells, cap)))
			return TDAT_ENOMEM;
		t->cells = c;
		t->ccap = cap;
	}
	if (t->ncells == t->coffcap) {
		int cap = t->coffcap ? t->coffcap * 2 : 16;
		uint16_t *o = realloc(t->coff, sizeof(*o) * (size_t)cap);

		if (!o)
			return TDAT_ENOMEM;
		t->coff = o;
		t->coffcap = cap;
	}
	return 0;
}

int sqp_tree_add(struct sqp_file *f, struct sqp_tree *t, int64_t rowid, const void *rec, size_t len)
{
	size_t local = local_size(f, len), need = vlen(len) + vlen((uint64_t)rowid) + local +
					      (local < len ? 4 : 0);
	unsigned char *c;
	uint32_t over;
	int ret;

	if (t->any && rowid <= t->last)
		return TDAT_EINVAL;
	if (t->ncells && LEAF_HDR + 2 * (size_t)(t->ncells + 1) + t->clen + need > U) {
		if ((ret = push_leaf(f, t, 0, t->ncells)))
			return ret;
		t->ncells = 0;
		t->clen = 0;
	}
	if ((ret = leaf_room(t, need)))
		return ret;
	c = t->cells + t->clen;
	c += put_varint(c, len);
	c += put_varint(c, (uint64_t)rowid);
	memcpy(c, rec, local);
	if (local < len) {
		if ((ret = write_overflow(f, (const unsigned char *)rec + local, len - local, &over)))
			return ret;
		put_be(c + local, over, 4);
	}
	t->coff[t->ncells++] = (uint16_t)t->clen;
	t->clen += need;
	t->any = true;
	t->last = rowid;
	return 0;
}

void sqp_tree_init(struct sqp_tree *t)
{
	*t = (struct sqp_tree){ 0 };
}

void sqp_tree_release(struct sqp_tree *t)
{
	free(t->cells);
	free(t->coff);
	for (int i = 0; i < t->nlv; i++)
		free(t->lv[i].e);
	free(t->lv);
	sqp_tree_init(t);
}

/* The page a root goes to: page 1 if asked, else the next. */
static uint32_t root_page(struct sqp_file *f, uint32_t want)
{
	return want == 1 ? 1 : ++f->npages;
}

/* Every level's last pages, from the leaves up; the top one is the root. */
static int finish_levels(struct sqp_file *f, struct sqp_tree *t, uint32_t *root)
{
	int ret = 0;

	for (int l = 0; l < t->nlv && !ret; l++) {
		struct sqp_entry *e = t->lv[l].e;
		int n = t->lv[l].n;

		if (l == t->nlv - 1 && n <= ENTRIES) {
			if (n < 2)
				return TDAT_EINVAL;	/* cannot be: a level gets two at the end */
			*root = root_page(f, *root);
			return write_interior(f, *root, e, n);
		}
		if (n <= ENTRIES)
			ret = push_interior(f, t, l, e, n);
		else if (!(ret = push_interior(f, t, l, e, n / 2)))
			ret = push_interior(f, t, l, t->lv[l].e + n / 2, n - n / 2);
	}
	return ret ? ret : TDAT_EINVAL;
}

int sqp_tree_finish(struct sqp_file *f, struct sqp_tree *t, uint32_t *root)
{
	size_t bytes = LEAF_HDR + 2 * (size_t)t->ncells + t->clen;
	int ret, half = t->ncells / 2;

	if (!t->nlv && bytes <= (*root == 1 ? U - SQP_HEADER : U)) {
		*root = root_page(f, *root);
		return write_leaf(f, t, *root, 0, t->ncells);
	}
	if (!t->nlv) {	/* one leaf too big for page 1: two, under it */
		if (half < 1)
			return TDAT_EINVAL;
		ret = push_leaf(f, t, 0, half);
		ret = ret ? ret : push_leaf(f, t, half, t->ncells);
	} else {
		ret = push_leaf(f, t, 0, t->ncells);
	}
	return ret ? ret : finish_levels(f, t, root);
}

int sqp_file_header(struct sqp_file *f, uint32_t libversion)
{
	unsigned char h[SQP_HEADER] = "SQLite format 3";

	put_be(h + 16, U == 65536 ? 1 : U, 2);
	h[18] = h[19] = 1;		/* rollback journal, not WAL */
	h[21] = 64;			/* the payload fractions the format requires */
	h[22] = 32;
	h[23] = 32;
	put_be(h + 24, 1, 4);		/* change counter */
	put_be(h + 28, f->npages, 4);
	put_be(h + 40, 1, 4);		/* schema cookie */
	put_be(h + 44, 4, 4);		/* schema format 4 */
	put_be(h + 56, 1, 4);		/* UTF-8 */
	put_be(h + 92, 1, 4);		/* the page count is valid for change 1 */
	put_be(h + 96, libversion, 4);
	return write_at(f, h, sizeof(h), 0);
}
