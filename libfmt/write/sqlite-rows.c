/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite-rows.c - batched rows for the sqlite writer.  Rows are collected
 * per table in chunks that a worker thread inserts, BATCH rows per
 * execution of a multi-row prepared INSERT: decoding and SQLite run side by
 * side.  Parameters that did not change since the last execution are not
 * bound again.  The calling thread touches the connection only after
 * sqdb_drain().
 *
 * One connection, one inserting thread, on purpose (measured on a 12 M-event
 * capture, big-mixed.dat, -j 1): the inserter takes 5.0 s of CPU, the
 * caller 4.1 s (0.5 s of it the indexes at close), so the inserter bounds
 * the time and two cores are over 80% busy.  A second database file
 * filled by a second inserting thread would have to be copied into the
 * output at close, serially: INSERT INTO main.t SELECT * FROM aux.t, even
 * with SQLite's transfer optimization (RowData/Insert, no MakeRecord),
 * costs 2,350 instructions a row (a NotExists seek and an Insert seek
 * each), 58% of the 4,050 that inserting it here costs; at best (a seventh
 * of the rows moved) that saves about 5% on two cores.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/sink.h"
#include "sqlite-rows.h"

/*
 * Rows per INSERT statement: the inserting thread's instructions
 * (callgrind) are fewest at 16; 8 and 32 cost 2% more, 64 7%, 256 31%,
 * and one row per statement 38%.
 */
#define BATCH 16
#define CHUNK_ROWS 512		/* rows per hand-over to the worker */
#define QUEUE_MAX 16		/* chunks in flight */
#define MAX_VARS 32000		/* under SQLite's default 32766 parameters */

/*
 * "@what: sqlite's message" into @buf, with the system's reason when a file
 * operation failed ("disk I/O error" alone does not tell EIO from others).
 * sqlite3_system_errno() is often 0 by then; the file keeps its last errno.
 */
static void db_reason(struct sqdb *d, const char *what, char *buf, size_t size)
{
	int code = sqlite3_errcode(d->db) & 0xff, e = sqlite3_system_errno(d->db);

	if (!e && code == SQLITE_IOERR)
		sqlite3_file_control(d->db, "main", SQLITE_FCNTL_LAST_ERRNO, &e);
	if (e && (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN))
		snprintf(buf, size, "%s: %s: %s", what, sqlite3_errmsg(d->db), strerror(e));
	else
		snprintf(buf, size, "%s: %s", what, sqlite3_errmsg(d->db));
}

int sqdb_fail(struct sqdb *d, const char *what)
{
	int code = sqlite3_errcode(d->db);

	db_reason(d, what, d->errmsg, TDAT_MSG_LEN);
	return code == SQLITE_NOMEM ? TDAT_ENOMEM : TDAT_EIO;
}

int sqdb_exec(struct sqdb *d, const char *sql)
{
	return sqlite3_exec(d->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : sqdb_fail(d, "sqlite");
}

static sqlite3_stmt *prepare_insert(struct sqdb *d, struct sq_table *t, int rows)
{
	sqlite3_str *s = sqlite3_str_new(d->db);
	sqlite3_stmt *st = NULL;
	char *sql;

	sqlite3_str_appendf(s, "INSERT INTO \"%w\" VALUES", t->name);
	for (int r = 0; r < rows; r++) {
		sqlite3_str_appendall(s, r ? ",(" : "(");
		for (int c = 0; c < t->ncols; c++)
			sqlite3_str_appendall(s, c ? ",?" : "?");
		sqlite3_str_appendchar(s, 1, ')');
	}
	sql = sqlite3_str_finish(s);
	if (!sql || sqlite3_prepare_v3(d->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL))
		st = NULL;
	sqlite3_free(sql);
	return st;
}

/* Make @c hold rows of @t. */
static int chunk_for(struct chunk *c, struct sq_table *t)
{
	size_t need = (size_t)t->chunk_rows * (size_t)t->ncols;
	struct sq_val *v;

	if (c->vcap < need) {
		if (!(v = realloc(c->vals, sizeof(*v) * need)))
			return TDAT_ENOMEM;
		c->vals = v;
		c->vcap = need;
	}
	c->t = t;
	c->cap = t->chunk_rows;
	c->nrows = 0;
	c->alen = 0;
	return 0;
}

static void chunk_free(struct chunk *c)
{
	if (c) {
		free(c->vals);
		free(c->arena);
		free(c);
	}
}

int sqdb_table_prepare(struct sqdb *d, struct sq_table *t)
{
	sqlite3_finalize(t->one);
	sqlite3_finalize(t->many);
	t->batch = MAX_VARS / t->ncols < BATCH ? MAX_VARS / t->ncols : BATCH;
	t->many = NULL;
	free(t->bound_many);
	t->bound_many = NULL;
	if (!(t->one = prepare_insert(d, t, 1)))
		return sqdb_fail(d, t->name);
	free(t->bound_one);
	/* all parameters start NULL: type V_NULL */
	if (!(t->bound_one = calloc((size_t)t->ncols, sizeof(*t->bound_one))))
		return TDAT_ENOMEM;
	if (t->chunk_rows < t->batch)
		t->chunk_rows = t->batch;
	if (!t->cur && !(t->cur = calloc(1, sizeof(*t->cur))))
		return TDAT_ENOMEM;
	return chunk_for(t->cur, t);
}

/*
 * Text is stored as valid UTF-8 (kernel strings are bytes): a sequence that
 * is not UTF-8 becomes U+FFFD, as in the JSON export, so every SQLite client
 * can read every row.
 */

/* How many of @len bytes at @u are valid UTF-8 before the first that is not. */
static unsigned utf8_valid(const unsigned char *u, unsigned len)
{
	unsigned k = 0;
	uint64_t w;
	size_t l;

	while (k < len) {
		/* ASCII eight bytes at a time: most kernel strings are */
		for (; len - k >= 8; k += 8) {
			memcpy(&w, u + k, 8);
			if (w & UINT64_C(0x8080808080808080))
				break;
		}
		if (k >= len)
			break;
		l = u[k] < 0x80 ? 1 : utf8_len(u + k, len - k);
		if (!l)
			break;
		k += (unsigned)l;
	}
	return k;
}

/* @len bytes at @u, @k of them valid, as valid UTF-8 at @o (room for 3 * @len); its length. */
static size_t utf8_clean(char *o, const unsigned char *u, unsigned k, unsigned len)
{
	char *d = o;
	size_t l;

	memcpy(d, u, k);
	d += k;
	while (k < len) {
		l = utf8_len(u + k, len - k);
		if (l) {
			memcpy(d, u + k, l);
			d += l;
			k += (unsigned)l;
		} else {
			memcpy(d, "\xef\xbf\xbd", 3);
			d += 3;
			k++;
		}
	}
	return (size_t)(d - o);
}

/* A V_STATIC text (V_TEXT was made valid by v_text()). */
static void bind_text(sqlite3_stmt *st, int i, const char *p, unsigned len)
{
	unsigned k = utf8_valid((const unsigned char *)p, len);
	char *clean;

	if (k >= len || !(clean = malloc((size_t)len * 3 + 1))) {
		sqlite3_bind_text(st, i, p, (int)len, SQLITE_STATIC);
		return;
	}
	sqlite3_bind_text(st, i, clean, (int)utf8_clean(clean, (const unsigned char *)p, k, len),
			  SQLITE_TRANSIENT);
	free(clean);
}

static void bind(sqlite3_stmt *st, int i, const struct chunk *c, const struct sq_val *v)
{
	switch (v->type) {
	case V_INT: sqlite3_bind_int64(st, i, v->u.i); break;
	case V_REAL: sqlite3_bind_double(st, i, v->u.d); break;
	case V_TEXT: sqlite3_bind_text(st, i, c->arena + v->u.off, (int)v->len, SQLITE_STATIC); break;
	case V_STATIC: bind_text(st, i, v->u.p, v->len); break;
	default: sqlite3_bind_null(st, i); break;
	}
}

/* Is @a what @b bound (type, length and value alike)?  Text of an arena is compared apart. */
static inline bool same(const struct sq_val *a, const struct sq_val *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/*
 * Is text @v the one bound at @b, in @c's arena?  Only when @b was bound
 * from @c itself (@keep): an arena of an earlier chunk may be gone.
 */
static inline bool same_text(const struct chunk *c, bool keep, const struct sq_val *v,
			     const struct sq_val *b)
{
	return keep && b->type == V_TEXT && b->len == v->len &&
	       !memcmp(c->arena + b->u.off, c->arena + v->u.off, v->len);
}

/*
 * Insert @n values from @v with @st; 0 or the SQLite error.  Parameters
 * keep their values across executions, so what did not change (buffer,
 * input, often cpu, flags, a symbol or a name) is not bound again; *@gen
 * is the chunk its text was last bound from.
 */
static int insert(sqlite3_stmt *st, struct sq_val *bound, unsigned *gen, const struct chunk *c,
		  const struct sq_val *v, int n)
{
	bool keep = *gen == c->gen;
	int rc;

	for (int i = 0; i < n; i++) {
		if (v[i].type == V_TEXT ? same_text(c, keep, &v[i], &bound[i]) : same(&v[i], &bound[i]))
			continue;
		bind(st, i + 1, c, &v[i]);
		bound[i] = v[i];
	}
	*gen = c->gen;
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : rc;
}

/*
 * The multi-row INSERT of @t, prepared the first time a chunk holds a whole
 * batch: most tables of a small trace never do, and preparing a statement
 * of a few thousand parameters costs more than inserting their rows.
 */
static int prepare_many(struct sqdb *d, struct sq_table *t)
{
	if (t->many)
		return SQLITE_OK;
	if (!t->bound_many && !(t->bound_many = calloc((size_t)(t->ncols * t->batch), sizeof(*t->bound_many))))
		return SQLITE_NOMEM;
	if (!(t->many = prepare_insert(d, t, t->batch)))
		return sqlite3_errcode(d->db) == SQLITE_OK ? SQLITE_ERROR : sqlite3_errcode(d->db);
	return SQLITE_OK;
}

/* The worker's job: every row of @c, BATCH rows per statement. */
static void insert_chunk(struct sqdb *d, struct chunk *c)
{
	struct sq_table *t = c->t;
	int n = t->ncols, r = 0, rc = 0;

	c->gen = ++d->wk.gen;	/* its arena is not the one of any earlier chunk */
	if (c->nrows >= t->batch)
		rc = prepare_many(d, t);
	for (; !rc && c->nrows - r >= t->batch; r += t->batch)
		rc = insert(t->many, t->bound_many, &t->gen_many, c, &c->vals[r * n], t->batch * n);
	for (; !rc && r < c->nrows; r++)
		rc = insert(t->one, t->bound_one, &t->gen_one, c, &c->vals[r * n], n);
	if (rc && !d->wk.err) {
		db_reason(d, t->name, d->wk.msg, sizeof(d->wk.msg));
		d->wk.err = rc == SQLITE_NOMEM ? TDAT_ENOMEM : TDAT_EIO;
	}
}

static void *worker_main(void *arg)
{
	struct sqdb *d = arg;
	struct worker *wk = &d->wk;
	struct chunk *c;

	pthread_mutex_lock(&wk->lock);
	for (;;) {
		while (!wk->head && !wk->quit)
			pthread_cond_wait(&wk->work, &wk->lock);
		if (!(c = wk->head))
			break;
		if (!(wk->head = c->next))
			wk->tail = NULL;
		wk->busy = true;
		pthread_mutex_unlock(&wk->lock);
		if (!wk->err)
			insert_chunk(d, c);
		pthread_mutex_lock(&wk->lock);
		c->next = wk->free;
		wk->free = c;
		wk->queued--;
		wk->busy = false;
		pthread_cond_broadcast(&wk->done);
	}
	pthread_mutex_unlock(&wk->lock);
	return NULL;
}

static int worker_err(struct sqdb *d)
{
	if (d->wk.err)
		tdat_msg(d->errmsg, "%s", d->wk.msg);
	return d->wk.err;
}

/* Hand @t's rows to the worker (or insert them here if there is none). */
int sqdb_submit(struct sqdb *d, struct sq_table *t)
{
	struct worker *wk = &d->wk;
	struct chunk *c = t->cur, *fresh = NULL;
	int err;

	if (!c || !c->nrows)
		return 0;
	if (!wk->running) {
		insert_chunk(d, c);
		c->nrows = 0;
		c->alen = 0;
		return worker_err(d);
	}
	pthread_mutex_lock(&wk->lock);
	while (wk->queued >= QUEUE_MAX)
		pthread_cond_wait(&wk->done, &wk->lock);
	c->next = NULL;
	if (wk->tail)
		wk->tail->next = c;
	else
		wk->head = c;
	wk->tail = c;
	wk->queued++;
	pthread_cond_signal(&wk->work);
	if ((fresh = wk->free))
		wk->free = fresh->next;
	err = wk->err;
	pthread_mutex_unlock(&wk->lock);
	t->cur = fresh ? fresh : calloc(1, sizeof(*fresh));
	if (t->chunk_rows < CHUNK_ROWS)
		t->chunk_rows *= 2;
	if (!t->cur || chunk_for(t->cur, t))
		return TDAT_ENOMEM;
	return err ? worker_err(d) : 0;
}

/* Wait until the worker has inserted everything handed to it. */
int sqdb_drain(struct sqdb *d)
{
	struct worker *wk = &d->wk;

	if (!wk->running)
		return worker_err(d);
	pthread_mutex_lock(&wk->lock);
	while (wk->head || wk->busy)
		pthread_cond_wait(&wk->done, &wk->lock);
	pthread_mutex_unlock(&wk->lock);
	return worker_err(d);
}

void sqdb_start(struct sqdb *d)
{
	struct worker *wk = &d->wk;

	pthread_mutex_init(&wk->lock, NULL);
	pthread_cond_init(&wk->work, NULL);
	pthread_cond_init(&wk->done, NULL);
	/* without a thread, rows are inserted by the caller */
	wk->running = thread_start(&wk->thread, TDAT_THREAD_SQLITE, worker_main, d) == 0;
}

void sqdb_stop(struct sqdb *d)
{
	struct worker *wk = &d->wk;
	struct chunk *c;

	if (wk->running) {
		pthread_mutex_lock(&wk->lock);
		wk->quit = true;
		pthread_cond_signal(&wk->work);
		pthread_mutex_unlock(&wk->lock);
		pthread_join(wk->thread, NULL);
		wk->running = false;
	}
	while ((c = wk->free)) {
		wk->free = c->next;
		chunk_free(c);
	}
}

/* The values of a new row (all NULL); commit it with row_end(). */
struct sq_val *row_begin(struct sq_table *t)
{
	struct sq_val *v = &t->cur->vals[t->cur->nrows * t->ncols];

	memset(v, 0, sizeof(*v) * (size_t)t->ncols);
	return v;
}

/*
 * An id one more than the largest of its table goes in as NULL: SQLite then
 * makes the same rowid (its largest plus one) from the end of the table,
 * rather than searching the table for it (a binary search on every level),
 * as it does for an id it is given.  Most of the model's rows and runs of
 * events of one type come so.
 */
static void next_rowid(struct sq_table *t, struct sq_val *id)
{
	if (id->type == V_INT) {
		int64_t i = id->u.i;

		if (t->any && i == t->max_id + 1)
			id->type = V_NULL;
		if (!t->any || i > t->max_id)
			t->max_id = i;
	} else if (id->type == V_NULL) {	/* SQLite's rowid: the largest + 1, or 1 */
		t->max_id = t->any ? t->max_id + 1 : 1;
	}
	t->any = true;
}

int row_end(struct sqdb *d, struct sq_table *t)
{
	if (t->ipk)
		next_rowid(t, &t->cur->vals[t->cur->nrows * t->ncols]);
	return ++t->cur->nrows == t->cur->cap ? sqdb_submit(d, t) : 0;
}

/* Room for @n more bytes in the arena of @t's rows. */
char *row_arena(struct sq_table *t, size_t n)
{
	struct chunk *c = t->cur;

	if (c->alen + n > c->acap || !c->arena) {	/* an empty first value needs an arena too */
		size_t cap = (c->alen + n) * 2 + 64;
		char *p = realloc(c->arena, cap);

		if (!p)
			return NULL;
		c->arena = p;
		c->acap = cap;
	}
	return c->arena + c->alen;
}

/* Copied here, made valid UTF-8 (by the caller's thread, not the inserting one). */
int v_text(struct sq_table *t, struct sq_val *v, const void *p, size_t n)
{
	unsigned k = utf8_valid(p, (unsigned)n);
	char *d = row_arena(t, k < n ? n * 3 : n);

	if (!d)
		return TDAT_ENOMEM;
	if (k < n)
		n = utf8_clean(d, p, k, (unsigned)n);
	else
		memcpy(d, p, n);
	v->type = V_TEXT;
	v->u.off = t->cur->alen;
	v->len = (unsigned)n;
	t->cur->alen += n;
	return 0;
}

void table_finalize(struct sq_table *t)
{
	sqlite3_finalize(t->one);
	sqlite3_finalize(t->many);
	t->one = t->many = NULL;
}

void table_free(struct sq_table *t)
{
	if (!t)
		return;
	table_finalize(t);
	for (int i = 0; i < t->ncols; i++) {
		free(t->cols[i]);
		free(t->keys ? t->keys[i] : NULL);
	}
	free(t->cols);
	free(t->keys);
	free(t->vtypes);
	free(t->bound_one);
	free(t->bound_many);
	chunk_free(t->cur);
	free(t->name);
	free(t->sys);
	free(t->ev);
	free(t);
}

/* A fixed table: created by the schema, rows of @ncols values. */
struct sq_table *sqdb_fixed_table(struct sqdb *d, const char *name, int ncols)
{
	struct sq_table *t = calloc(1, sizeof(*t));

	if (!t || !(t->name = strdup(name))) {
		free(t);
		return NULL;
	}
	t->ncols = ncols;
	t->cols = calloc((size_t)ncols, sizeof(*t->cols));
	if (!t->cols || sqdb_table_prepare(d, t)) {
		table_free(t);
		return NULL;
	}
	return t;
}
