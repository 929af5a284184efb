// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sqlite-file.c - the sqlite writer's rows stored in the database file
 * page by page (sqlite-pages.c), not inserted through SQLite, and the file
 * opened with SQLite at close for what is left.
 *
 * The thread that inserted rows through SQLite spent about 4,070
 * instructions a row (its VDBE program, record making and b-tree
 * balancing; callgrind, the 5% cut of big-mixed.dat) and bounded the
 * whole writer; a row encoded here and appended to its table's b-tree
 * costs about 1,210.  An append needs rows in rowid order:
 *  - an event table's ids grow with the trace, and a table without an
 *    INTEGER PRIMARY KEY numbers its rows as they come;
 *  - the model's tables (dense) number their rows when a slice or state
 *    begins but hand them over when it ends.  Their rows wait, up to
 *    ORDER_SPAN ids or ORDER_BYTES, until the ids before them have come;
 *    past that the oldest missing id is given up on and the waiting rows
 *    go on.  A row whose id was given up on (a state or slice open that
 *    long) comes too late for the tree.
 * Rows that come too late, and values whose column's affinity SQLite
 * would convert (an integer for a TEXT column, ...), are kept (spilled to a
 * temporary file past LATE_MEM) and inserted by SQLite at close, where its
 * own rules apply; the indexes and views are made then too.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqlite-rows.h"

#define ORDER_SPAN (1 << 14)		/* ids a dense table's waiting rows span, at most */
#define ORDER_BYTES ((size_t)512 << 10)	/* bytes of them, at most */
#define LATE_MEM ((size_t)4 << 20)	/* late rows kept in memory before they spill */

struct pend {
	size_t len;
	unsigned char rec[];
};

struct sq_order {
	int64_t next;			/* the lowest id neither in the tree nor given up on */
	struct pend *ring[ORDER_SPAN];	/* the waiting rows, by id */
	size_t bytes;
	int n;
};

int sqdb_create(struct sqdb *d, const char *path)
{
	struct stat st;

	d->path = path;
	d->file.fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (d->file.fd < 0) {
		tdat_msg(d->errmsg, "cannot create: %s", strerror(errno));
		return TDAT_EIO;
	}
	if (fstat(d->file.fd, &st) || st.st_size) {
		tdat_msg(d->errmsg, "not an empty file: a database is written from its start");
		return TDAT_EINVAL;
	}
	return sqp_file_init(&d->file, d->file.fd, SQP_PAGE);
}

/* ---- rows in order ---- */

/* Room for @need elements of @size bytes at *@pp (*@cap of them now), doubling. */
static int grow(void *pp, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap * 2 > need ? *cap * 2 : need;
	void *p;

	if (need <= *cap)
		return 0;
	if (!(p = realloc(*(void **)pp, n * size)))
		return TDAT_ENOMEM;
	*(void **)pp = p;
	*cap = n;
	return 0;
}

static int late_add(struct sqdb *d, struct sq_table *t, int64_t rowid, const void *rec, size_t len)
{
	struct sq_late *l = &d->late;
	uint32_t n = (uint32_t)len;
	size_t need = sizeof(t) + sizeof(rowid) + sizeof(n) + len;

	if (grow(&l->buf, &l->cap, l->len + need, 1))
		return TDAT_ENOMEM;
	memcpy(l->buf + l->len, &t, sizeof(t));
	memcpy(l->buf + l->len + sizeof(t), &rowid, sizeof(rowid));
	memcpy(l->buf + l->len + sizeof(t) + sizeof(rowid), &n, sizeof(n));
	memcpy(l->buf + l->len + need - len, rec, len);
	l->len += need;
	l->rows++;
	if (l->len < LATE_MEM)
		return 0;
	/* a spill: its length, then its rows */
	if ((!l->spill && !(l->spill = tmpfile())) || fwrite(&l->len, sizeof(l->len), 1, l->spill) != 1 ||
	    fwrite(l->buf, 1, l->len, l->spill) != l->len) {
		tdat_msg(d->msg, "a temporary file for late rows: %s", strerror(errno));
		return TDAT_EIO;
	}
	l->len = 0;
	return 0;
}

static int tree_add(struct sqdb *d, struct sq_table *t, int64_t rowid, const void *rec, size_t len)
{
	int ret = sqp_tree_add(&d->file, &t->tree, rowid, rec, len);

	if (ret == TDAT_EIO)
		tdat_msg(d->msg, "write: %s", strerror(d->file.err));
	for (struct sqx *x = t->ix; x && !ret; x = x->next)
		ret = sqx_row(x, rowid, rec, len);
	return ret;
}

/* Rows waiting at o->next and after it go to the tree. */
static int order_drain(struct sqdb *d, struct sq_table *t, struct sq_order *o)
{
	struct pend *p;
	int ret = 0;

	while (!ret && (p = o->ring[o->next & (ORDER_SPAN - 1)])) {
		ret = tree_add(d, t, o->next, p->rec, p->len);
		o->ring[o->next & (ORDER_SPAN - 1)] = NULL;
		o->bytes -= p->len;
		o->n--;
		o->next++;
		free(p);
	}
	return ret;
}

/* Give up on the ids below @to: the rows waiting there go to the tree. */
static int order_skip(struct sqdb *d, struct sq_table *t, struct sq_order *o, int64_t to)
{
	int ret = 0;

	while (!ret && o->next < to) {
		if (!o->n) {
			o->next = to;
			break;
		}
		if (o->ring[o->next & (ORDER_SPAN - 1)])
			ret = order_drain(d, t, o);
		else
			o->next++;
	}
	return ret ? ret : order_drain(d, t, o);
}

static int order_put(struct sqdb *d, struct sq_table *t, int64_t id, const void *rec, size_t len)
{
	struct sq_order *o = t->order;
	struct pend *p, **slot;
	int ret = 0;

	if (id < (o ? o->next : 0))
		return late_add(d, t, id, rec, len);
	if (!o && id == 0) {
		ret = tree_add(d, t, id, rec, len);
		return ret ? ret : (t->order = calloc(1, sizeof(*o))) ? (t->order->next = 1, 0) : TDAT_ENOMEM;
	}
	if (!o && !(o = t->order = calloc(1, sizeof(*o))))
		return TDAT_ENOMEM;
	if (id == o->next) {
		ret = tree_add(d, t, id, rec, len);
		o->next++;
		return ret ? ret : order_drain(d, t, o);
	}
	if (id - o->next >= ORDER_SPAN && (ret = order_skip(d, t, o, id - ORDER_SPAN + 1)))
		return ret;
	slot = &o->ring[id & (ORDER_SPAN - 1)];
	if (*slot || id < o->next)	/* the same id twice: SQLite will say so */
		return late_add(d, t, id, rec, len);
	if (!(p = malloc(sizeof(*p) + len)))
		return TDAT_ENOMEM;
	p->len = len;
	memcpy(p->rec, rec, len);
	*slot = p;
	o->bytes += len;
	o->n++;
	while (!ret && o->bytes > ORDER_BYTES)
		ret = order_skip(d, t, o, o->next + 1);
	return ret;
}

static int place(struct sqdb *d, struct sq_table *t, int64_t rowid, const void *rec, size_t len)
{
	if (t->dense)
		return order_put(d, t, rowid, rec, len);
	if (t->tree.any && rowid <= t->tree.last)
		return late_add(d, t, rowid, rec, len);
	return tree_add(d, t, rowid, rec, len);
}

/* ---- records ---- */

/*
 * Might SQLite change @v for a column of affinity @aff (text into an
 * INTEGER, REAL or NUMERIC column, a number into a TEXT one, a real into
 * an INTEGER or NUMERIC one, an integer into a REAL one)?
 */
static inline bool converts(const struct sq_val *v, char aff)
{
	switch (v->type) {
	case V_INT: return aff == 'T' || aff == 'R';
	case V_REAL: return aff == 'T' || aff == 'I' || aff == 'N';
	case V_TEXT:
	case V_STATIC: return aff == 'I' || aff == 'R' || aff == 'N';
	}
	return false;
}

/* Is @v one SQLite would not store as it is: a NaN (NULL), a V_STATIC text not UTF-8? */
static inline bool odd(const struct sq_val *v)
{
	return v->type == V_REAL ? isnan(v->u.d) :
	       v->type == V_STATIC && sq_utf8_valid((const unsigned char *)v->u.p, v->len) < v->len;
}

/*
 * @v[0..@n) as SQLite binds them, in d->rv: a NaN NULL, a V_STATIC text
 * not UTF-8 made so in d->txt (v_text() did the V_TEXT ones).
 */
static int fix(struct sqdb *d, const struct sq_val *v, int n, size_t *room)
{
	size_t need = 0, at = 0;
	int ret;

	for (int i = 0; i < n; i++)
		need += v[i].type == V_STATIC ? (size_t)v[i].len * 3 : 0;
	if ((ret = grow(&d->rv, &d->rvcap, (size_t)n, sizeof(*d->rv))) ||
	    (ret = grow(&d->txt, &d->txtcap, need + 1, 1)))
		return ret;
	for (int i = 0; i < n; i++) {
		struct sq_val *r = &d->rv[i];
		unsigned k;

		*r = v[i];
		if (r->type == V_REAL && isnan(r->u.d))	/* SQLite binds a NaN as NULL */
			r->type = V_NULL;
		if (r->type != V_STATIC || (k = sq_utf8_valid((const unsigned char *)r->u.p, r->len)) >= r->len)
			continue;
		r->len = (unsigned)sq_utf8_clean(d->txt + at, (const unsigned char *)r->u.p, k, r->len);
		r->u.p = d->txt + at;
		at += r->len;
	}
	*room += 2 * need;
	return 0;
}

/* The record of row @v of @c in d->rec: its length in *@len, whether it is late in *@late. */
static int encode(struct sqdb *d, const struct chunk *c, const struct sq_val *v, size_t *len, bool *late)
{
	const struct sq_table *t = c->t;
	int n = c->ncols, ret;
	size_t room = 9;
	bool fixing = false;

	*late = false;
	for (int i = t->ipk ? 1 : 0; i < n; i++) {
		*late |= converts(&v[i], t->aff[i]);
		fixing |= odd(&v[i]);
		room += 9 + (v[i].type == V_TEXT || v[i].type == V_STATIC ? v[i].len : 8);
	}
	if (fixing) {
		if ((ret = fix(d, v, n, &room)))
			return ret;
		v = d->rv;
	}
	if ((ret = grow(&d->rec, &d->reccap, room, 1)))
		return ret;
	*len = sqr_encode(d->rec, v, n, c->arena, t->ipk);
	return 0;
}

int sqdb_store(struct sqdb *d, struct chunk *c)
{
	struct sq_table *t = c->t;
	int ret = 0;

	for (int r = 0; r < c->nrows && !ret; r++) {
		const struct sq_val *v = &c->vals[(size_t)r * (size_t)c->ncols];
		int64_t rowid = t->ipk ? v[0].u.i : ++t->nrows;
		size_t len;
		bool late;

		if (!(ret = encode(d, c, v, &len, &late)))
			ret = late ? late_add(d, t, rowid, d->rec, len) : place(d, t, rowid, d->rec, len);
	}
	return ret;
}

/* ---- close: the last pages, the schema, then SQLite ---- */

static int flush_orders(struct sqdb *d)
{
	int ret = 0;

	for (int i = 0; i < d->ntables && !ret; i++) {
		struct sq_order *o = d->tables[i]->order;

		if (o && o->n)
			ret = order_skip(d, d->tables[i], o, INT64_MAX);
	}
	return ret;
}

/* sqlite_schema's row of @t (rowid @id), its root page @root. */
static int schema_row(struct sqdb *d, struct sqp_tree *st, int64_t id, const struct sq_table *t,
		      const struct sqx *x, uint32_t root)
{
	const char *name = x ? x->name : t->name, *sql = x ? x->sql : t->sql;
	struct sq_val v[5] = {
		{ .type = V_STATIC, .u.p = x ? "index" : "table", .len = 5 },
		{ .type = V_STATIC, .u.p = name, .len = (unsigned)strlen(name) },
		{ .type = V_STATIC, .u.p = t->name, .len = (unsigned)strlen(t->name) },
		{ .type = V_INT, .u.i = root },
		{ .type = V_STATIC, .u.p = sql, .len = (unsigned)strlen(sql) },
	};
	int ret = grow(&d->rec, &d->reccap, sqr_room(v, 5), 1);

	if (ret)
		return ret;
	ret = sqp_tree_add(&d->file, st, id, d->rec, sqr_encode(d->rec, v, 5, NULL, false));
	if (ret == TDAT_EIO)
		tdat_msg(d->errmsg, "write: %s", strerror(d->file.err));
	return ret;
}

/* The indexes SQLite need not build: their trees, and their rows of the schema from @id on. */
static int finish_indexes(struct sqdb *d, struct sqp_tree *st, int64_t id)
{
	uint32_t root;
	int ret = 0;

	for (int i = 0; i < d->ntables && !ret; i++) {
		for (struct sqx *x = d->tables[i]->ix; x && !ret; x = x->next) {
			if (x->by_sqlite)
				continue;
			errno = 0;
			if (!(ret = sqx_finish(&d->file, x, &root)))
				ret = schema_row(d, st, id++, d->tables[i], x, root);
			else if (ret == TDAT_EIO && !d->file.err)
				tdat_msg(d->errmsg, "a temporary file for index %s: %s", x->name,
					 strerror(errno ? errno : EIO));
		}
	}
	return ret;
}

/* Every tree's last pages, the schema's tree on page 1, and the header. */
static int finish_file(struct sqdb *d)
{
	struct sqp_tree st;
	uint32_t root;
	int ret = flush_orders(d);

	sqp_tree_init(&st);
	for (int i = 0; i < d->ntables && !ret; i++) {
		root = 0;
		if (!(ret = sqp_tree_finish(&d->file, &d->tables[i]->tree, &root)))
			ret = schema_row(d, &st, i + 1, d->tables[i], NULL, root);
		sqp_tree_release(&d->tables[i]->tree);
	}
	if (!ret)
		ret = finish_indexes(d, &st, d->ntables + 1);
	root = 1;
	if (!ret)
		ret = sqp_tree_finish(&d->file, &st, &root);
	sqp_tree_release(&st);
	if (!ret)
		ret = sqp_file_header(&d->file, (uint32_t)sqlite3_libversion_number());
	if (ret == TDAT_EIO && d->file.err)	/* else an index's temporary file said */
		tdat_msg(d->errmsg, "write: %s", strerror(d->file.err));
	if (close(d->file.fd) && !ret) {
		tdat_msg(d->errmsg, "write: %s", strerror(errno));
		ret = TDAT_EIO;
	}
	d->file.fd = -1;
	return ret;
}

/* Insert a late row of @t: @rowid, record @rec of @len bytes. */
static int insert_late(struct sqdb *d, struct sq_table *t, int64_t rowid, const unsigned char *rec,
		       size_t len)
{
	struct sq_val v;

	if (!t->late) {
		sqlite3_str *s = sqlite3_str_new(d->db);
		char *sql;

		sqlite3_str_appendf(s, "INSERT INTO \"%w\" VALUES(", t->name);
		for (int c = 0; c < t->ncols; c++)
			sqlite3_str_appendall(s, c ? ",?" : "?");
		sqlite3_str_appendchar(s, 1, ')');
		sql = sqlite3_str_finish(s);
		if (!sql || sqlite3_prepare_v2(d->db, sql, -1, &t->late, NULL)) {
			sqlite3_free(sql);
			return sqdb_fail(d, t->name);
		}
		sqlite3_free(sql);
	}
	for (int c = 0; c < t->ncols; c++) {
		if (!sqr_decode(rec, len, c, &v))
			return TDAT_EINVAL;
		if (c == 0 && t->ipk)
			sqlite3_bind_int64(t->late, 1, rowid);
		else if (v.type == V_INT)
			sqlite3_bind_int64(t->late, c + 1, v.u.i);
		else if (v.type == V_REAL)
			sqlite3_bind_double(t->late, c + 1, v.u.d);
		else if (v.type == V_STATIC)
			sqlite3_bind_text(t->late, c + 1, v.u.p, (int)v.len, SQLITE_STATIC);
		else
			sqlite3_bind_null(t->late, c + 1);
	}
	if (sqlite3_step(t->late) != SQLITE_DONE) {
		sqlite3_reset(t->late);
		return sqdb_fail(d, t->name);
	}
	sqlite3_reset(t->late);
	return 0;
}

/* The late rows in @buf (@len bytes). */
static int insert_lates(struct sqdb *d, const unsigned char *buf, size_t len)
{
	size_t at = 0;
	int ret = 0;

	while (!ret && at < len) {
		struct sq_table *t;
		int64_t rowid;
		uint32_t n;

		memcpy(&t, buf + at, sizeof(t));
		memcpy(&rowid, buf + at + sizeof(t), sizeof(rowid));
		memcpy(&n, buf + at + sizeof(t) + sizeof(rowid), sizeof(n));
		at += sizeof(t) + sizeof(rowid) + sizeof(n);
		ret = insert_late(d, t, rowid, buf + at, n);
		at += n;
	}
	return ret;
}

/* The spilled late rows, a spill at a time, then those in memory. */
static int late_rows(struct sqdb *d)
{
	struct sq_late *l = &d->late;
	size_t n;
	int ret = 0;

	if (l->spill && (fflush(l->spill) || fseek(l->spill, 0, SEEK_SET))) {
		tdat_msg(d->errmsg, "a temporary file for late rows: %s", strerror(errno));
		return TDAT_EIO;
	}
	while (!ret && l->spill && fread(&n, sizeof(n), 1, l->spill) == 1) {
		unsigned char *b = malloc(n ? n : 1);

		if (!b)
			return TDAT_ENOMEM;
		if (fread(b, 1, n, l->spill) != n) {
			tdat_msg(d->errmsg, "a temporary file for late rows: cannot read it back");
			ret = TDAT_EIO;
		} else {
			ret = insert_lates(d, b, n);
		}
		free(b);
	}
	return ret ? ret : insert_lates(d, l->buf, l->len);
}

int sqdb_reopen(struct sqdb *d)
{
	int ret;

	if ((ret = finish_file(d))) {
		if (*d->msg)	/* from a row stored here (tree_add(), late_add()) */
			tdat_msg(d->errmsg, "%s", d->msg);
		return ret;
	}
	/* NOMUTEX: one thread uses the connection */
	if (sqlite3_open_v2(d->path, &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL))
		return d->db ? sqdb_fail(d, "cannot open") : TDAT_ENOMEM;
	if ((ret = sqdb_exec(d, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
			     " PRAGMA locking_mode=EXCLUSIVE; BEGIN;")))
		return ret;
	return late_rows(d);
}

void sqdb_release(struct sqdb *d)
{
	for (int i = 0; i < d->ntables; i++) {
		struct sq_order *o = d->tables[i]->order;

		for (int k = 0; o && o->n && k < ORDER_SPAN; k++)
			free(o->ring[k]);
	}
	if (d->file.fd >= 0)
		close(d->file.fd);
	d->file.fd = -1;
	sqp_file_release(&d->file);
	free(d->tables);
	free(d->rec);
	free(d->rv);
	free(d->txt);
	free(d->late.buf);
	if (d->late.spill)
		fclose(d->late.spill);
	d->tables = NULL;
}
