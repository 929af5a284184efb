/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite-rows.c - batched rows for the sqlite writer.  The caller fills
 * rows per table in chunks (values, texts made valid UTF-8 in the chunk's
 * arena) and, from -j 2 on, hands them to a worker thread that stores them
 * in the database file (sqlite-file.c): decoding and storing run side by
 * side.  At -j 1 the caller stores each chunk itself, in the same chunks,
 * so the file is the same.  The tables' columns and statements change only
 * while the worker is idle (sqdb_drain()).
 *
 * The worker used to insert them through SQLite (multi-row prepared
 * INSERTs, 16 rows a statement) and bounded the writer: on big-mixed.dat
 * (12 M events, -j 1) it took 5.0 s of CPU against the caller's 4.1 s.
 * Storing the rows now takes it 1.5 s, and the caller bounds the writer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/sink.h"
#include "sqlite-rows.h"

#define CHUNK_ROWS 512		/* rows per hand-over to the worker */
#define FIRST_ROWS 16		/* rows of a table's first chunk: most of a small trace's are few */
#define QUEUE_MAX 16		/* chunks in flight */
#define WAKE_AT 4		/* chunks queued before the worker is woken: fewer wake-ups */

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
	c->ncols = t->ncols;
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

/* Rows of @t (its current columns) can be filled. */
static int table_ready(struct sq_table *t)
{
	if (t->chunk_rows < FIRST_ROWS)
		t->chunk_rows = FIRST_ROWS;
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
unsigned sq_utf8_valid(const unsigned char *u, unsigned len)
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
size_t sq_utf8_clean(char *o, const unsigned char *u, unsigned k, unsigned len)
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

/* Store @c's rows; a failure is the worker's first, sticky. */
static void store(struct sqdb *d, struct chunk *c)
{
	int ret = sqdb_store(d, c);

	if (ret && !d->wk.err) {
		snprintf(d->wk.msg, sizeof(d->wk.msg), "%s", *d->msg ? d->msg : tdat_strerror(ret));
		d->wk.err = ret;
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
			store(d, c);
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
	if (!wk->running) {	/* the same chunks as the worker's, for the same file */
		store(d, c);
		if (t->chunk_rows < CHUNK_ROWS)
			t->chunk_rows *= 2;
		return chunk_for(c, t) ? TDAT_ENOMEM : worker_err(d);
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
	if (++wk->queued >= WAKE_AT)
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
	pthread_cond_signal(&wk->work);	/* it may be waiting for WAKE_AT chunks */
	while (wk->head || wk->busy)
		pthread_cond_wait(&wk->done, &wk->lock);
	pthread_mutex_unlock(&wk->lock);
	return worker_err(d);
}

void sqdb_start(struct sqdb *d, bool thread)
{
	struct worker *wk = &d->wk;

	pthread_mutex_init(&wk->lock, NULL);
	pthread_cond_init(&wk->work, NULL);
	pthread_cond_init(&wk->done, NULL);
	/* without a thread, rows are inserted by the caller */
	wk->running = thread && thread_start(&wk->thread, TDAT_THREAD_SQLITE, worker_main, d) == 0;
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
 * The rowid of a row of a table with an INTEGER PRIMARY KEY: its id, or,
 * as SQLite makes one for NULL, the largest so far + 1 (or 1).
 */
static void next_rowid(struct sq_table *t, struct sq_val *id)
{
	if (id->type != V_INT)
		v_int(id, t->any ? t->max_id + 1 : 1);
	if (!t->any || id->u.i > t->max_id)
		t->max_id = id->u.i;
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
	unsigned k = sq_utf8_valid(p, (unsigned)n);
	char *d = row_arena(t, k < n ? n * 3 : n);

	if (!d)
		return TDAT_ENOMEM;
	if (k < n)
		n = sq_utf8_clean(d, p, k, (unsigned)n);
	else
		memcpy(d, p, n);
	v->type = V_TEXT;
	v->u.off = t->cur->alen;
	v->len = (unsigned)n;
	t->cur->alen += n;
	return 0;
}

void table_free(struct sq_table *t)
{
	if (!t)
		return;
	sqlite3_finalize(t->late);
	sqp_tree_release(&t->tree);
	while (t->ix) {
		struct sqx *x = t->ix;

		t->ix = x->next;
		sqx_free(x);
	}
	free(t->order);
	free(t->aff);
	free(t->sql);
	for (int i = 0; i < t->ncols; i++) {
		free(t->cols[i]);
		free(t->keys ? t->keys[i] : NULL);
	}
	free(t->cols);
	free(t->keys);
	free(t->vtypes);
	chunk_free(t->cur);
	free(t->name);
	free(t->sys);
	free(t->ev);
	free(t);
}

int sqdb_index(struct sq_table *t, const char *name, const char *const *cols, int nk)
{
	struct sqx *x = sqx_new(name, t->name, t->sql, cols, nk), **p = &t->ix;

	if (!x)
		return TDAT_ENOMEM;
	while (*p)
		p = &(*p)->next;
	*p = x;
	return 0;
}

int sqdb_sqlite_indexes(struct sqdb *d)
{
	int ret = 0;

	for (int i = 0; i < d->ntables && !ret; i++)
		for (struct sqx *x = d->tables[i]->ix; x && !ret; x = x->next)
			if (x->by_sqlite)
				ret = sqdb_exec(d, x->sql);
	return ret;
}

/* A fixed table: created by @sql, rows of @ncols values. */
struct sq_table *sqdb_fixed_table(struct sqdb *d, const char *name, int ncols, const char *sql)
{
	struct sq_table *t = calloc(1, sizeof(*t));
	char *s = strdup(sql);

	if (!t || !s || !(t->name = strdup(name))) {
		free(t);
		free(s);
		return NULL;
	}
	t->ncols = ncols;
	t->cols = calloc((size_t)ncols, sizeof(*t->cols));
	if (!t->cols || sqdb_table_created(d, t, s)) {
		table_free(t);
		return NULL;
	}
	return t;
}

/*
 * @t is created by @sql (taken), or, created before, now by @sql with
 * columns added; its columns' affinities are those @sql declares.
 */
int sqdb_table_created(struct sqdb *d, struct sq_table *t, char *sql)
{
	bool fresh = !t->sql;
	char *aff = realloc(t->aff, (size_t)t->ncols + 1);

	if (aff)
		t->aff = aff;
	if (!aff || sqp_affinities(sql, aff, t->ncols) != t->ncols) {
		free(sql);
		return aff ? TDAT_EINVAL : TDAT_ENOMEM;
	}
	aff[t->ncols] = 0;
	free(t->sql);
	t->sql = sql;
	if (fresh) {
		struct sq_table **tl = realloc(d->tables, sizeof(*tl) * (size_t)(d->ntables + 1));

		if (!tl)
			return TDAT_ENOMEM;
		d->tables = tl;
		d->tables[d->ntables++] = t;
		sqp_tree_init(&t->tree);
	}
	return table_ready(t);
}
