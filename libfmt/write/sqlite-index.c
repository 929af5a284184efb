// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sqlite-index.c - the indexes of the sqlite writer's tables, built without
 * SQLite.  SQLite's CREATE INDEX at close read each table back and sorted
 * it on one thread: on big-mixed.dat (2 M slices) 0.4 s of sqlite's 2.3 s
 * at -j 2, while the thread that stores the rows had nothing to do; the
 * close now takes 0.14 s, and the peak 8 MiB less (SQLite's sorter).
 *
 * As a row is placed in its table's b-tree (sqlite-file.c, on the thread
 * that stores the rows), each index of the table takes an entry: the row's
 * key columns, read back from its record, and its rowid.  The entries are
 * sorted a run of RUN at a time, and a full run is spilled, as SQLite's
 * sorter spills: memory is 192 KiB an index (at 32,768 entries, 768 KiB,
 * sqlite's peak on big-mixed.dat grew 2 MiB more from its first 10% to the
 * whole, as tables with a few thousand rows in the first filled their runs
 * later), and at close about READ_ALL entries read back from all runs.  The
 * spill is the inputs' kind of temporary file (spool_new(), spool_put():
 * under $TMPDIR, unlinked at once, never left to fill its file system).  At
 * close the runs are merged, and the records (keys, rowid) fill an index
 * b-tree from the bottom up: cells fill a page until one does not fit; that
 * one waits, and when another comes it goes up to the level above as the
 * divider between the full page and the next, which the newcomer begins (an
 * index b-tree holds each entry once, in a leaf or between two children).
 * At the end a level's waiting cell begins its last page, and the full page
 * before gives its last cell up as their divider, so no page is left empty.
 * Rows that SQLite inserts at close (sqlite-file.c's late rows) go into the
 * index through SQLite, which finds it in the schema.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/read.h"
#include "sqlite-index.h"

#define RUN 8192		/* entries sorted and spilled at a time (192 KiB) */
#define READ 1024		/* entries of a spilled run read back at a time, at most */
#define READ_MIN 64		/* and at least */
#define READ_ALL 65536	/* entries read back at a time from all runs together, about */
#define LEVELS 16		/* of an index b-tree: 1000 cells a page leave room to spare */
#define CELL 40			/* an interior cell at most: child, varint, a record of 3 integers */

static char *index_sql(const char *name, const char *table, const char *const *cols, int nk)
{
	size_t len = strlen(name) + strlen(table) + 32;
	char *s, *p;

	for (int i = 0; i < nk; i++)
		len += strlen(cols[i]) + 2;
	if (!(s = malloc(len)))
		return NULL;
	p = s + sprintf(s, "CREATE INDEX %s ON %s(", name, table);
	for (int i = 0; i < nk; i++)
		p += sprintf(p, "%s%s", i ? ", " : "", cols[i]);
	strcpy(p, ")");
	return s;
}

struct sqx *sqx_new(const char *name, const char *table, const char *table_sql,
		    const char *const *cols, int nk)
{
	struct sqx *x;

	if (nk < 1 || nk > SQX_KEYS || !(x = calloc(1, sizeof(*x))))
		return NULL;
	x->spill.fd = -1;
	x->nk = nk;
	for (int i = 0; i < nk; i++)
		if ((x->col[i] = sqp_column(table_sql, cols[i])) < 0) {
			free(x);
			return NULL;
		}
	x->name = strdup(name);
	x->sql = index_sql(name, table, cols, nk);
	if (!x->name || !x->sql) {
		sqx_free(x);
		return NULL;
	}
	return x;
}

/* Drop what the entries hold (SQLite builds the index, or it is written). */
static void entries_free(struct sqx *x)
{
	free(x->e);
	free(x->runs);
	if (x->spill.fd >= 0)
		close(x->spill.fd);
	x->e = NULL;
	x->runs = NULL;
	x->spill.fd = -1;
	x->n = x->cap = 0;
	x->nruns = 0;
}

void sqx_free(struct sqx *x)
{
	if (!x)
		return;
	entries_free(x);
	free(x->name);
	free(x->sql);
	free(x);
}

/* ---- the runs ---- */

static inline bool before(const struct sqx_ent *a, const struct sqx_ent *b)
{
	if (a->k[0] != b->k[0])
		return a->k[0] < b->k[0];
	if (a->k[1] != b->k[1])
		return a->k[1] < b->k[1];
	return a->rowid < b->rowid;
}

/* Sort @a[0..@n) with @tmp (@n / 2 entries); the rows come mostly in order already. */
static void sort(struct sqx_ent *a, struct sqx_ent *tmp, size_t n)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n <= 16) {
		for (size_t m = 1; m < n; m++) {
			struct sqx_ent e = a[m];
			size_t p = m;

			for (; p && before(&e, &a[p - 1]); p--)
				a[p] = a[p - 1];
			a[p] = e;
		}
		return;
	}
	sort(a, tmp, h);
	sort(a + h, tmp, n - h);
	if (!before(&a[h], &a[h - 1]))
		return;
	memcpy(tmp, a, sizeof(*a) * h);
	while (i < h && j < n)
		a[k++] = before(&a[j], &tmp[i]) ? a[j++] : tmp[i++];
	memcpy(a + k, tmp + i, sizeof(*a) * (h - i));
}

static int sort_run(struct sqx *x)
{
	struct sqx_ent *tmp = malloc(sizeof(*tmp) * (x->n / 2 + 1));

	if (!tmp)
		return TDAT_ENOMEM;
	sort(x->e, tmp, x->n);
	free(tmp);
	return 0;
}

/* Sort the full run and write it to the spill file. */
static int spill(struct sqx *x)
{
	size_t *runs = realloc(x->runs, sizeof(*runs) * ((size_t)x->nruns + 1));
	char why[TDAT_MSG_LEN];	/* the index is left to SQLite if it cannot be spilled */
	int ret;

	if (!runs)
		return TDAT_ENOMEM;
	x->runs = runs;
	if ((ret = sort_run(x)))
		return ret;
	if ((x->spill.fd < 0 && spool_new(&x->spill, why)) ||
	    spool_put(&x->spill, x->e, sizeof(*x->e) * x->n, why))
		return TDAT_EIO;
	x->runs[x->nruns++] = x->n;
	x->n = 0;
	return 0;
}

int sqx_row(struct sqx *x, int64_t rowid, const unsigned char *rec, size_t len)
{
	struct sqx_ent *e;
	struct sq_val v;

	if (x->by_sqlite)
		return 0;
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 256;

		if (x->cap == RUN) {
			if (spill(x) == TDAT_ENOMEM)
				return TDAT_ENOMEM;
			if (x->n) {	/* the spill failed: SQLite builds it */
				x->by_sqlite = true;
				entries_free(x);
				return 0;
			}
		} else if (!(e = realloc(x->e, sizeof(*e) * cap))) {
			return TDAT_ENOMEM;
		} else {
			x->e = e;
			x->cap = cap;
		}
	}
	e = &x->e[x->n];
	e->k[1] = 0;
	for (int i = 0; i < x->nk; i++) {
		if (!sqr_decode(rec, len, x->col[i], &v) || v.type != V_INT) {
			x->by_sqlite = true;	/* NULL, text, a real: SQLite's order is its own */
			entries_free(x);
			return 0;
		}
		e->k[i] = v.u.i;
	}
	e->rowid = rowid;
	x->n++;
	return 0;
}

/* ---- merging the runs ---- */

/* A run being read: spilled (its next entries in buf) or the last one, in memory. */
struct rcur {
	const struct sqx_ent *at, *end;	/* what is in hand */
	struct sqx_ent *buf;		/* spilled: room for want entries */
	size_t want;
	off_t off;			/* spilled: the next entries in the file */
	size_t left;			/* spilled: entries in the file after those */
};

static int refill(struct rcur *c, int fd)
{
	size_t n = c->left < c->want ? c->left : c->want, want = n * sizeof(*c->buf), got = 0;

	while (got < want) {
		ssize_t r = pread(fd, (char *)c->buf + got, want - got, c->off + (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			errno = r < 0 ? errno : EIO;
			return TDAT_EIO;
		}
		got += (size_t)r;
	}
	c->off += (off_t)want;
	c->left -= n;
	c->at = c->buf;
	c->end = c->buf + n;
	return 0;
}

/* The heap of cursors by their next entry: restore it from @i down. */
static void sift(struct rcur **h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i;

		if (l < n && before(h[l]->at, h[m]->at))
			m = l;
		if (l + 1 < n && before(h[l + 1]->at, h[m]->at))
			m = l + 1;
		if (m == i)
			return;
		struct rcur *t = h[i];

		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* ---- the b-tree ---- */

/* One level of the index b-tree being built: its last page. */
struct level {
	unsigned char *cells;	/* its cells, packed: [child,] varint length, record */
	uint16_t *coff;
	size_t clen;
	int n;
	unsigned char wait[CELL];	/* a cell that did not fit: it goes up or begins the next page */
	size_t wlen;
	bool waiting;
};

struct build {
	struct sqp_file *f;
	struct level lv[LEVELS];
	int nlv;
};

static void cell_add(struct level *v, const unsigned char *c, size_t len)
{
	v->coff[v->n++] = (uint16_t)v->clen;
	memcpy(v->cells + v->clen, c, len);
	v->clen += len;
}

/* Write level @l's page (@right its right-most child); its page number. */
static int page_out(struct build *b, int l, uint32_t right, uint32_t *pg)
{
	struct level *v = &b->lv[l];
	int ret = sqp_page(b->f, l ? SQP_INDEX_INTERIOR : SQP_INDEX_LEAF, right, v->cells, v->clen,
			   v->coff, v->n, pg);

	v->n = 0;
	v->clen = 0;
	return ret;
}

static uint32_t child_of(const unsigned char *c)
{
	return (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
}

static void put_child(unsigned char *c, uint32_t pg)
{
	c[0] = (unsigned char)(pg >> 24);
	c[1] = (unsigned char)(pg >> 16);
	c[2] = (unsigned char)(pg >> 8);
	c[3] = (unsigned char)pg;
}

/*
 * Cell @c (@len bytes: of a leaf, a key; above, a child and then its key)
 * into level @l.  A cell that follows a full page and a waiting one: the
 * page is written, the waiting key goes up with it as its left child, and
 * the cell begins the next page.  (Above the leaves a waiting cell's child
 * is the full page's right-most.)
 */
static int put(struct build *b, int l, const unsigned char *c, size_t len)
{
	struct level *v = &b->lv[l];
	unsigned char up[CELL];
	uint32_t pg;
	int ret;

	if (l == b->nlv) {
		if (l == LEVELS)
			return TDAT_EINVAL;
		v->cells = malloc(b->f->size);
		v->coff = malloc(sizeof(*v->coff) * (b->f->size / 2));
		b->nlv++;
		if (!v->cells || !v->coff)
			return TDAT_ENOMEM;
	}
	if (!v->waiting && (l ? SQP_INTERIOR_HDR : SQP_LEAF_HDR) + 2 * ((size_t)v->n + 1) + v->clen +
			   len <= b->f->size) {
		cell_add(v, c, len);
		return 0;
	}
	if (!v->waiting) {
		memcpy(v->wait, c, len);
		v->wlen = len;
		v->waiting = true;
		return 0;
	}
	if ((ret = page_out(b, l, l ? child_of(v->wait) : 0, &pg)))
		return ret;
	put_child(up, pg);
	memcpy(up + 4, v->wait + (l ? 4 : 0), v->wlen - (l ? 4 : 0));
	v->waiting = false;
	if ((ret = put(b, l + 1, up, 4 + v->wlen - (l ? 4 : 0))))
		return ret;
	cell_add(&b->lv[l], c, len);
	return 0;
}

/*
 * The last page of level @l and those above; @last is the last page of the
 * level below (its right-most child), none for the leaves.  The top one is
 * the root.
 */
static int end(struct build *b, int l, uint32_t last, uint32_t *root)
{
	struct level *v = &b->lv[l];
	unsigned char up[CELL];
	const unsigned char *x;
	size_t xlen;
	uint32_t pg;
	int ret;

	if (v->waiting) {	/* the full page's last cell goes up: the waiting one begins the next */
		x = v->cells + v->coff[v->n - 1];
		xlen = v->clen - v->coff[v->n - 1];
		v->n--;
		v->clen -= xlen;
		memcpy(up + 4, x + (l ? 4 : 0), xlen - (l ? 4 : 0));
		if ((ret = page_out(b, l, l ? child_of(x) : 0, &pg)))
			return ret;
		put_child(up, pg);
		if ((ret = put(b, l + 1, up, 4 + xlen - (l ? 4 : 0))))
			return ret;
		v = &b->lv[l];
		cell_add(v, v->wait, v->wlen);
		v->waiting = false;
	}
	if ((ret = page_out(b, l, last, &pg)))
		return ret;
	if (l + 1 == b->nlv) {
		*root = pg;
		return 0;
	}
	return end(b, l + 1, pg, root);
}

/* The leaf cell of @e: its record's length, then the record (keys, rowid). */
static size_t leaf_cell(const struct sqx *x, const struct sqx_ent *e, unsigned char *c)
{
	struct sq_val v[SQX_KEYS + 1];
	unsigned char rec[CELL];
	size_t len;
	unsigned k;

	for (int i = 0; i < x->nk; i++)
		v[i] = (struct sq_val){ .type = V_INT, .u.i = e->k[i] };
	v[x->nk] = (struct sq_val){ .type = V_INT, .u.i = e->rowid };
	len = sqr_encode(rec, v, x->nk + 1, NULL, false);
	k = sqp_varint(c, len);
	memcpy(c + k, rec, len);
	return k + len;
}

/* Every entry in order into @b: the runs merged. */
static int merge(struct sqx *x, struct build *b)
{
	int nc = x->nruns + 1, n = 0, fd = x->spill.fd, ret = 0;
	/* a long trace's many runs read less each: memory grows by READ_MIN entries a run */
	size_t each = x->nruns ? READ_ALL / (size_t)x->nruns : READ;
	struct rcur *cs = calloc((size_t)nc, sizeof(*cs));
	struct rcur **h = calloc((size_t)nc, sizeof(*h));
	unsigned char c[CELL];
	off_t off = 0;

	if (!cs || !h) {
		ret = TDAT_ENOMEM;
		goto out;
	}
	for (int i = 0; i < x->nruns && !ret; i++) {
		cs[i].off = off;
		cs[i].left = x->runs[i];
		cs[i].want = each < READ_MIN ? READ_MIN : each > READ ? READ : each;
		off += (off_t)(x->runs[i] * sizeof(struct sqx_ent));
		if (!(cs[i].buf = malloc(sizeof(*cs[i].buf) * cs[i].want)))
			ret = TDAT_ENOMEM;
		else if (!(ret = refill(&cs[i], fd)) && cs[i].at < cs[i].end)
			h[n++] = &cs[i];
	}
	if (x->n) {	/* the run not spilled (no entries: x->e may be NULL) */
		cs[x->nruns].at = x->e;
		cs[x->nruns].end = x->e + x->n;
		h[n++] = &cs[x->nruns];
	}
	for (int i = n / 2 - 1; i >= 0; i--)
		sift(h, n, i);
	while (n && !ret) {
		struct rcur *top = h[0];

		ret = put(b, 0, c, leaf_cell(x, top->at++, c));
		if (top->at == top->end && (!top->buf || !top->left))
			h[0] = h[--n];
		else if (top->at == top->end && (ret = refill(top, fd)))
			break;
		sift(h, n, 0);
	}
out:
	for (int i = 0; cs && i < nc; i++)
		free(cs[i].buf);
	free(cs);
	free(h);
	return ret;
}

int sqx_finish(struct sqp_file *f, struct sqx *x, uint32_t *root)
{
	struct build b = { .f = f };
	int ret;

	if (!(ret = sort_run(x)) && !(ret = merge(x, &b))) {
		if (b.nlv)
			ret = end(&b, 0, 0, root);
		else	/* no rows: an empty leaf */
			ret = sqp_page(f, SQP_INDEX_LEAF, 0, NULL, 0, NULL, 0, root);
	}
	for (int l = 0; l < b.nlv; l++) {
		free(b.lv[l].cells);
		free(b.lv[l].coff);
	}
	entries_free(x);
	return ret;
}
