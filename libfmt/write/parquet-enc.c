// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet-enc.c - a Parquet file of one table (parquet.h): columns,
 * buffered rows, row groups and the footer (FileMetaData: the schema with
 * INTEGER(bits, signed), STRING and LIST logical types and their converted types,
 * the row groups with sorting_columns, key-value metadata, column orders).
 *
 * The file is "PAR1", the row groups' column chunks (parquet-page.c), the
 * footer in the Thrift compact protocol (thrift.c), its length (4 bytes
 * little-endian) and "PAR1" again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "read/read.h"
#include "write/parquet.h"
#include "write/thrift.h"

/* ConvertedType values (parquet.thrift) */
#define CT_UTF8 0
#define CT_LIST 3
#define CT_UINT_8 11
#define CT_INT_8 15

int pq_ctx_init(struct pq_ctx *c, int level, char *err)
{
	memset(c, 0, sizeof(*c));
	c->level = level;
	c->err = err;
	c->page.fd = c->zpage.fd = c->head.fd = -1;
	if (!(c->zctx = ZSTD_createCCtx()) || sink_init(&c->page, -1) || sink_init(&c->zpage, -1) ||
	    sink_init(&c->head, -1))
		return TDAT_ENOMEM;
	return 0;
}

void pq_ctx_release(struct pq_ctx *c)
{
	pq_pool_stop(c);
	for (int i = 0; c->more && i < c->nmore; i++)
		pq_ctx_release(&c->more[i]);
	free(c->more);
	free(c->errs);
	ZSTD_freeCCtx(c->zctx);
	sink_release(&c->page);
	sink_release(&c->zpage);
	sink_release(&c->head);
	free(c->idx);
	free(c->lev);
	bufpool_free(c->bp);
	memset(c, 0, sizeof(*c));
}

int pq_table_init(struct pq_table *t, const struct pq_ctx *c, const char *name, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->sort_col = -1;
	t->rgs.fd = -1;
	t->pool = c->bp;
	t->ncols = t->nbufs = ncols;
	t->cols = calloc((size_t)(ncols ? ncols : 1), sizeof(*t->cols));
	if (!t->cols || sink_init(&t->rgs, -1))
		return TDAT_ENOMEM;
	pq_cols_empty(t, t->cols, ncols);
	return 0;
}

void pq_cols_empty(const struct pq_table *t, struct pq_col *cols, int n)
{
	struct tdat_sink empty = { .fd = -1, .pool = t->pool };

	for (int i = 0; i < n; i++)
		cols[i].vals = cols[i].defs = cols[i].lens = empty;
}

void pq_cols_release(struct pq_col *cols, int n)
{
	for (int i = 0; cols && i < n; i++) {
		pq_hint(&cols[i], &cols[i]);
		sink_release(&cols[i].vals);
		sink_release(&cols[i].defs);
		sink_release(&cols[i].lens);
		cols[i].nnull = cols[i].nrows = cols[i].nempty = 0;
	}
}

void pq_table_release(struct pq_table *t)
{
	for (int i = 0; t->cols && i < t->ncols; i++)
		free(t->cols[i].name);
	pq_cols_release(t->cols, t->nbufs);
	for (int i = 0; i < t->nkv; i++) {
		free(t->kv[i].key);
		free(t->kv[i].value);
	}
	free(t->kv);
	free(t->cols);
	sink_release(&t->rgs);
	free(t->rg_cut);
	memset(t, 0, sizeof(*t));
}

int pq_table_pack(const struct pq_ctx *c, struct pq_table *t, int npacked, pq_unpack_fn *unpack)
{
	struct pq_col *cols = realloc(t->cols, sizeof(*cols) * ((size_t)t->ncols + 1));

	if (!cols)
		return TDAT_ENOMEM;
	t->cols = cols;
	memset(&cols[t->ncols], 0, sizeof(*cols));
	pq_cols_empty(t, &cols[t->ncols], 1);
	t->nbufs = t->ncols + 1;
	t->npacked = npacked;
	t->unpack = unpack;
	t->eager = !c->nmore;
	return 0;
}

void pq_unpack(const struct pq_table *t, struct pq_col *cols)
{
	struct tdat_sink *rec;

	if (!t->unpack || !(rec = &cols[t->ncols].vals)->len)
		return;
	t->unpack(cols, rec->buf, rec->len);
	rec->len = 0;
}

void pq_col_room(struct pq_col *c, size_t n)
{
	struct tdat_sink *s = &c->vals;
	size_t cap = s->len ? 2 * s->cap : 0;

	if (s->len + n <= s->cap)
		return;
	if (cap < s->len + n)
		cap = s->len + n;
	sink_grow(s, cap);
}

static int col_init(struct pq_col *c, const char *name)
{
	/* the buffers start empty (memory sinks grow on the first write) */
	return (c->name = strdup(name)) ? 0 : TDAT_ENOMEM;
}

int pq_col_int(struct pq_table *t, int i, const char *name, unsigned bits, bool sign)
{
	struct pq_col *c = &t->cols[i];

	c->bits = bits <= 8 ? 8 : bits <= 16 ? 16 : bits <= 32 ? 32 : 64;
	c->ptype = c->bits == 64 ? PQ_INT64 : PQ_INT32;
	c->sign = sign;
	return col_init(c, name);
}

int pq_col_list(struct pq_table *t, int i, const char *name, unsigned bits, bool sign)
{
	t->cols[i].list = true;
	return pq_col_int(t, i, name, bits, sign);
}

int pq_col_str(struct pq_table *t, int i, const char *name)
{
	t->cols[i].ptype = PQ_BYTE_ARRAY;
	return col_init(&t->cols[i], name);
}

int pq_col_double(struct pq_table *t, int i, const char *name)
{
	t->cols[i].ptype = PQ_DOUBLE;
	t->cols[i].bits = 64;
	return col_init(&t->cols[i], name);
}

int pq_table_kv(struct pq_table *t, const char *key, const char *value)
{
	struct pq_kv *kv = realloc(t->kv, (size_t)(t->nkv + 1) * sizeof(*kv));

	if (!kv)
		return TDAT_ENOMEM;
	t->kv = kv;
	kv[t->nkv].key = strdup(key);
	kv[t->nkv].value = strdup(value ? value : "");
	if (!kv[t->nkv].key || !kv[t->nkv].value) {
		free(kv[t->nkv].key);
		free(kv[t->nkv].value);
		return TDAT_ENOMEM;
	}
	t->nkv++;
	return 0;
}

void pq_put_str(struct pq_col *c, const void *p, size_t n)
{
	uint32_t len = (uint32_t)n;

	sink_write(&c->vals, &len, 4);
	sink_write(&c->vals, p, n);
	pq_put_def(c);
}

size_t pq_text_clean(char *dst, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	const char *z = memchr(s, '\0', n);
	char *o = dst;
	size_t l, i = 0;
	uint64_t w;

	if (z)
		n = (size_t)(z - s);
	/* the ASCII start (most often all of it) in one copy */
	while (i + 8 <= n && (memcpy(&w, u + i, 8), !(w & 0x8080808080808080ull)))
		i += 8;
	while (i < n && u[i] < 0x80)
		i++;
	if (i)
		memcpy(o, s, i);
	o += i;
	for (; i < n; i += l ? l : 1) {
		l = u[i] < 0x80 ? 1 : utf8_len(u + i, n - i);
		if (l) {
			memcpy(o, u + i, l);
			o += l;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);	/* U+FFFD, as sqlite-rows.c's bind_text() */
			o += 3;
		}
	}
	return (size_t)(o - dst);
}

void pq_put_text(struct pq_col *c, const char *s, size_t n)
{
	char *d = sink_reserve(&c->vals, 4 + 3 * n);
	uint32_t len;

	if (!d)
		return;
	len = (uint32_t)pq_text_clean(d + 4, s, n);
	memcpy(d, &len, 4);
	sink_commit(&c->vals, 4 + len);
	pq_put_def(c);
}

void pq_put_list(struct pq_col *c, uint32_t n)
{
	sink_write(&c->lens, &n, 4);
	c->nempty += !n;
	c->nrows++;
}

void pq_put_null(struct pq_col *c)
{
	char *d;

	if (c->list) {
		c->nnull++;
		pq_put_list(c, PQ_NULL_LIST);
		return;
	}
	if (!c->nnull++ && c->nrows && (d = sink_reserve(&c->defs, c->nrows))) {
		memset(d, 1, c->nrows);	/* the rows before it all had values */
		sink_commit(&c->defs, c->nrows);
	}
	c->nrows++;
	sink_putc(&c->defs, 0);
}

/* Is the row being ended, whose sort column holds @v, in order after the one before? */
static void sort_next(struct pq_table *t, int64_t v)
{
	if (t->total_rows + t->rows && v < t->sort_last)
		t->unsorted = true;
	t->sort_last = v;
}

/* Is the row just put in order by @t's sort column? (Not if its value is null.) */
static void sort_check(struct pq_table *t)
{
	const struct pq_col *c = &t->cols[t->sort_col];
	const unsigned char *last = (const unsigned char *)c->vals.buf + c->vals.len;
	int64_t v;

	if (c->nnull && !c->defs.buf[c->defs.len - 1]) {
		t->unsorted = true;
		return;
	}
	if (c->ptype == PQ_INT64) {
		memcpy(&v, last - 8, 8);
	} else {
		int32_t w;

		memcpy(&w, last - 4, 4);
		v = c->sign ? w : (int64_t)(uint32_t)w;
	}
	sort_next(t, v);
}

/* The row is counted; the bytes it added (a packed column's as its record's). */
static size_t row_count(struct pq_table *t)
{
	size_t now = t->rec_done, added;

	for (int i = t->npacked; i < t->nbufs; i++)
		now += t->cols[i].vals.len + t->cols[i].defs.len + t->cols[i].lens.len;
	added = now - t->buffered;
	t->rows++;
	t->buffered = now;
	return added;
}

/*
 * The bytes a row added are counted here, from the columns' buffers, not by
 * each put into a count they all share: the adds into one place made a chain
 * of some 20 dependent stores an event (big-mixed.dat at -j 1: 0.96 of the
 * time, paired, the same files).
 */
size_t pq_row_end(struct pq_table *t)
{
	if (t->sort_col >= 0 && !t->unsorted)
		sort_check(t);	/* (once out of order, the rest need no check) */
	return row_count(t);
}

size_t pq_row_end_key(struct pq_table *t, int64_t key)
{
	size_t added;

	if (t->sort_col >= 0 && !t->unsorted)
		sort_next(t, key);
	added = row_count(t);
	if (t->eager && t->cols[t->ncols].vals.len >= PQ_REC_BATCH) {
		t->rec_done += t->cols[t->ncols].vals.len;
		pq_unpack(t, t->cols);
	}
	return added;
}

void pq_keep(struct pq_table *t, struct pq_col *cols)
{
	if (cols != t->cols || !t->rows_bound) {
		pq_cols_release(cols, t->nbufs);
		return;
	}
	for (int i = 0; i < t->nbufs; i++) {
		cols[i].vals.len = cols[i].defs.len = cols[i].lens.len = 0;
		cols[i].nnull = cols[i].nrows = cols[i].nempty = 0;
	}
}

int pq_write_out(struct pq_ctx *c, struct pq_table *t, struct tdat_sink *out)
{
	sink_flush(out);
	if (out->err) {
		tdat_msg(c->err, "%s: %s", t->name, strerror(out->err));
		return TDAT_EIO;
	}
	return 0;
}

/*
 * The RowGroup struct of the chunks just written (their ColumnChunks in
 * @meta), without sorting_columns: while the file's rows are sorted so
 * far, where they would go is kept, and the footer puts them in if all
 * rows are (pq_finish()).  One copy of the structs, which grow with the
 * file, not one with and one without.
 */
void pq_row_group(struct pq_table *t, const struct tdat_sink *meta, uint64_t start, uint64_t raw,
		  uint64_t rows)
{
	struct tdat_sink *s = &t->rgs;
	struct thrift r;
	size_t *cut;

	th_init(&r, s);
	th_elem_struct(&r);
	th_list(&r, 1, TH_STRUCT, (size_t)t->ncols);
	sink_write(s, meta->buf, meta->len);
	th_i64(&r, 2, (int64_t)raw);
	th_i64(&r, 3, (int64_t)rows);
	if (!pq_sorted(t)) {	/* for good: the footer has no sorting_columns */
		free(t->rg_cut);
		t->rg_cut = NULL;
	} else if ((cut = realloc(t->rg_cut, sizeof(*cut) * ((size_t)t->nrgs + 1)))) {
		t->rg_cut = cut;
		cut[t->nrgs] = s->len;
	} else if (!s->err) {
		s->err = ENOMEM;
	}
	th_i64(&r, 5, (int64_t)start);	/* one byte of header: field 5 after 3 */
	th_i64(&r, 6, (int64_t)(t->off - start));
	th_end(&r);
	t->nrgs++;
}

/*
 * The RowGroup structs with sorting_columns (@t's sort column, ascending)
 * as their field 4: each one's bytes up to field 5, the list, then field 5
 * (its header byte now a delta of 1 from field 4, not 2 from field 3) and
 * the rest.
 */
static void sorted_rgs(struct tdat_sink *s, const struct pq_table *t)
{
	struct tdat_sink in;
	struct thrift r;
	size_t from = 0;

	if (sink_init(&in, -1)) {
		s->err = ENOMEM;
		return;
	}
	th_init(&r, &in);
	r.last[0] = 3;		/* as after the RowGroup's field 3 */
	th_list(&r, 4, TH_STRUCT, 1);
	th_elem_struct(&r);
	th_i32(&r, 1, t->sort_col);
	th_bool(&r, 2, false);
	th_bool(&r, 3, false);
	th_end(&r);
	sink_putc(&in, (char)(1 << 4 | TH_I64));
	for (int i = 0; i < t->nrgs; i++) {
		size_t cut = t->rg_cut[i];

		sink_write(s, t->rgs.buf + from, cut - from);
		sink_write(s, in.buf, in.len);
		from = cut + 1;
	}
	sink_write(s, t->rgs.buf + from, t->rgs.len - from);
	if (in.err)
		s->err = in.err;
	sink_release(&in);
}

bool pq_cols_failed(const struct pq_table *t)
{
	for (int i = 0; i < t->nbufs; i++)
		if (t->cols[i].vals.err || t->cols[i].defs.err || t->cols[i].lens.err)
			return true;
	return false;
}

int pq_flush(struct pq_ctx *c, struct pq_table *t, int fd)
{
	struct tdat_sink out, meta = { .fd = -1 };
	struct thrift m;
	uint64_t start, raw = 0;
	int ret = 0;

	if (!pq_async_fits(c, t))
		pq_unpack(t, t->cols);	/* else on a helper */
	if (pq_cols_failed(t)) {	/* a lost value would shift the rows after it */
		tdat_msg(c->err, "out of memory");
		return TDAT_ENOMEM;
	}
	if (!t->rows && t->off)
		return 0;
	if (sink_init(&out, fd) || sink_init(&meta, -1)) {
		ret = TDAT_ENOMEM;
		goto out;
	}
	if (!t->off) {
		sink_write(&out, "PAR1", 4);
		t->off = 4;
	}
	if (!t->rows)
		goto out;
	if (pq_async_fits(c, t)) {	/* encoded on the helpers while the caller goes on */
		if (!(ret = pq_write_out(c, t, &out)))
			ret = pq_launch(c, t, fd);
		sink_release(&out);
		sink_release(&meta);
		if (ret == TDAT_ENOMEM)
			tdat_msg(c->err, "out of memory");
		return ret;
	}
	if ((ret = pq_drain(c, t)))	/* its row groups in flight first */
		goto out;
	start = t->off;
	th_init(&m, &meta);
	ret = pq_chunks(c, t, &out, &m, &raw);
	if (!ret && meta.err)
		ret = TDAT_ENOMEM;
	if (ret)
		goto out;
	pq_row_group(t, &meta, start, raw, t->rows);
	t->total_rows += t->rows;
	t->rows = 0;
	t->buffered = t->rec_done = 0;
	pq_keep(t, t->cols);
out:
	if (!ret)
		ret = pq_write_out(c, t, &out);
	if (ret == TDAT_ENOMEM)
		tdat_msg(c->err, "out of memory");
	sink_release(&out);
	sink_release(&meta);
	return ret;
}

/* ---- the footer ---- */

static void logical_type(struct thrift *f, const struct pq_col *col)
{
	if (col->ptype == PQ_BYTE_ARRAY) {
		th_i32(f, 6, CT_UTF8);
		th_struct(f, 10);
		th_struct(f, 1);	/* STRING */
		th_end(f);
		th_end(f);
		return;
	}
	if (col->ptype == PQ_DOUBLE)	/* the physical type says it all */
		return;
	/* INT_8, INT_16, ... and UINT_8, ... count up by width */
	th_i32(f, 6, (col->sign ? CT_INT_8 : CT_UINT_8) + (int)__builtin_ctz(col->bits / 8));
	th_struct(f, 10);
	th_struct(f, 10);	/* INTEGER */
	th_i8(f, 1, (int8_t)col->bits);
	th_bool(f, 2, col->sign);
	th_end(f);
	th_end(f);
}

/* A SchemaElement with no type (a group) of @nchildren; its end is the caller's. */
static void group(struct thrift *f, enum pq_rep rep, const char *name, int nchildren)
{
	th_elem_struct(f);
	th_i32(f, 3, rep);
	th_string(f, 4, name);
	th_i32(f, 5, nchildren);
}

/* A LIST column's groups: "optional group NAME (LIST) { repeated group list {". */
static void list_groups(struct thrift *f, const struct pq_col *col)
{
	group(f, PQ_OPTIONAL, col->name, 1);
	th_i32(f, 6, CT_LIST);
	th_struct(f, 10);
	th_struct(f, 3);	/* LIST */
	th_end(f);
	th_end(f);
	th_end(f);
	group(f, PQ_REPEATED, "list", 1);
	th_end(f);
}

static void schema(struct thrift *f, const struct pq_table *t)
{
	size_t n = 1;

	for (int i = 0; i < t->ncols; i++)
		n += t->cols[i].list ? 3 : 1;
	th_list(f, 2, TH_STRUCT, n);
	th_elem_struct(f);
	th_string(f, 4, "schema");
	th_i32(f, 5, t->ncols);
	th_end(f);
	for (int i = 0; i < t->ncols; i++) {
		const struct pq_col *col = &t->cols[i];

		if (col->list)
			list_groups(f, col);
		th_elem_struct(f);
		th_i32(f, 1, col->ptype);
		th_i32(f, 3, col->list ? PQ_REQUIRED : PQ_OPTIONAL);
		th_string(f, 4, col->list ? "element" : col->name);
		logical_type(f, col);
		th_end(f);
	}
}

static void footer(struct tdat_sink *s, const struct pq_table *t)
{
	struct thrift f;

	th_init(&f, s);
	th_i32(&f, 1, 2);
	schema(&f, t);
	th_i64(&f, 3, (int64_t)t->total_rows);
	th_list(&f, 4, TH_STRUCT, (size_t)t->nrgs);
	if (pq_sorted(t) && t->nrgs)	/* every row of the file is in order */
		sorted_rgs(s, t);
	else
		sink_write(s, t->rgs.buf, t->rgs.len);
	if (t->rgs.err)		/* a RowGroup struct did not fit */
		s->err = t->rgs.err;
	if (t->nkv) {
		th_list(&f, 5, TH_STRUCT, (size_t)t->nkv);
		for (int i = 0; i < t->nkv; i++) {
			th_elem_struct(&f);
			th_string(&f, 1, t->kv[i].key);
			th_string(&f, 2, t->kv[i].value);
			th_end(&f);
		}
	}
	th_string(&f, 6, "tdat " PACKAGE_VERSION);
	th_list(&f, 7, TH_STRUCT, (size_t)t->ncols);
	for (int i = 0; i < t->ncols; i++) {
		th_elem_struct(&f);
		th_struct(&f, 1);	/* TYPE_ORDER */
		th_end(&f);
		th_end(&f);
	}
	th_end(&f);
}

int pq_finish(struct pq_ctx *c, struct pq_table *t, int fd)
{
	struct tdat_sink out, f = { .fd = -1 };
	uint32_t len;
	int ret = pq_flush(c, t, fd);

	if (!ret)
		ret = pq_drain(c, t);	/* this table's last row groups */
	pq_cols_release(t->cols, t->nbufs);	/* the table is done: its memory goes */
	if (ret)
		return ret;
	if (sink_init(&out, fd) || sink_init(&f, -1)) {
		sink_release(&out);
		tdat_msg(c->err, "out of memory");
		return TDAT_ENOMEM;
	}
	footer(&f, t);
	len = (uint32_t)f.len;
	sink_write(&out, f.buf, f.len);
	sink_write(&out, &len, 4);
	sink_write(&out, "PAR1", 4);
	if (f.err)
		out.err = f.err;
	ret = pq_write_out(c, t, &out);
	sink_release(&out);
	sink_release(&f);
	return ret;
}
