/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite-rows.h - batched rows for the sqlite writer (sqlite-rows.c): a
 * table's rows are filled in chunks that a worker thread stores in the
 * database file's pages (sqlite-file.c) while the caller decodes the next
 * events.  Private to libfmt.
 */
#ifndef TDAT_SQLITE_ROWS_H
#define TDAT_SQLITE_ROWS_H

#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sqlite3.h>

#include "model/model.h"
#include "sqlite-index.h"
#include "sqlite-pages.h"

/* Rows of one table on their way to SQLite. */
struct chunk {
	struct sq_table *t;
	int ncols;			/* t's columns when it was filled */
	int nrows, cap;
	size_t vcap;			/* values of room */
	struct sq_val *vals;		/* nrows * t->ncols */
	char *arena;			/* the V_TEXT bytes */
	size_t alen, acap;
	struct chunk *next;
};

/*
 * The thread that feeds SQLite: chunks queue up FIFO; while it works the
 * other thread touches the database only after sqdb_drain().
 */
struct worker {
	pthread_t thread;
	bool running, quit, busy;
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	struct chunk *head, *tail, *free;
	int queued;
	int err;			/* first failure, sticky */
	char msg[TDAT_MSG_LEN];
};

/* A table's columns, its b-tree in the file and the rows being filled. */
struct sq_table {
	char *name;
	int ncols;
	char **cols;			/* column names */
	char *aff;			/* each column's affinity, as its CREATE TABLE declares it
					 * (sqp_affinities()): 'I', 'T', 'R', 'N', '-' */
	char **keys;			/* event tables: args key of each column, NULL if fixed */
	const char **vtypes;		/* its args value_type */
	char *sql;			/* its CREATE TABLE statement, NULL until created */
	struct chunk *cur;		/* rows being filled */
	bool ipk;			/* column 0 is the INTEGER PRIMARY KEY (the rowid) */
	bool dense;			/* its ids are 0, 1, 2, ... but come in any order (the model's) */
	bool any;			/* it has a row: its largest rowid is max_id */
	int64_t max_id;
	int chunk_rows;			/* rows of the next chunk: grows to CHUNK_ROWS */
	/* the worker's (sqlite-file.c) */
	struct sqp_tree tree;		/* its b-tree */
	struct sq_order *order;		/* dense: rows waiting for the ids before them */
	struct sqx *ix;			/* its indexes (sqdb_index()), each taking its rows */
	int64_t nrows;			/* without an INTEGER PRIMARY KEY: the rowid of the last row */
	sqlite3_stmt *late;		/* at close: inserts its rows that came too late for the tree */
	/* event tables (the writer's; freed by table_free()) */
	char *sys, *ev;
	struct sq_table *next;
};

/* Rows SQLite inserts at close: [table, rowid, length, record] one after the other. */
struct sq_late {
	unsigned char *buf;
	size_t len, cap;
	FILE *spill;			/* what did not fit in LATE_MEM, in order */
	uint64_t rows;
};

/*
 * The database: written by sqlite-file.c page by page while rows stream
 * (no connection), then opened with SQLite at close for the late rows,
 * the views and the indexes.
 */
struct sqdb {
	sqlite3 *db;			/* NULL until sqdb_reopen() */
	const char *path;
	char *errmsg;			/* TDAT_MSG_LEN bytes: the writer's */
	char msg[TDAT_MSG_LEN];		/* why storing a row failed (on the worker's thread) */
	struct worker wk;
	struct sqp_file file;
	struct sq_table **tables;	/* every table, in the order created */
	int ntables;
	unsigned char *rec;		/* the worker's record being encoded */
	size_t reccap;
	struct sq_val *rv;		/* a row's values, its texts made valid UTF-8 */
	size_t rvcap;
	char *txt;			/* its texts made valid UTF-8 */
	size_t txtcap;
	struct sq_late late;
};

/* "@what: sqlite's message (and the system's reason)" in d->errmsg; a TDAT_E code. */
int sqdb_fail(struct sqdb *d, const char *what);
/* Run @sql (no rows) once the file is reopened. */
int sqdb_exec(struct sqdb *d, const char *sql);
/* Create the file @path (empty); 0 or a TDAT_E code with d->errmsg set. */
int sqdb_create(struct sqdb *d, const char *path);
/*
 * @t is created by @sql (a CREATE TABLE statement, taken), or, if it exists,
 * given the columns from its old count on (ALTER TABLE ADD COLUMN: @sql is
 * the old statement with them added, untyped).  Its columns' affinities
 * are those @sql declares (sqp_affinities()).  The worker must be idle
 * (sqdb_drain()).
 */
int sqdb_table_created(struct sqdb *d, struct sq_table *t, char *sql);
/* A table of @ncols columns created by @sql; NULL when out of memory. */
struct sq_table *sqdb_fixed_table(struct sqdb *d, const char *name, int ncols, const char *sql);
/*
 * Index @name of @t (created, no row yet) on its integer columns
 * @cols[0..@nk), written with the file (sqlite-index.c); 0 or TDAT_ENOMEM.
 */
int sqdb_index(struct sq_table *t, const char *name, const char *const *cols, int nk);
/* Once reopened: SQLite creates the indexes that could not be written with the file. */
int sqdb_sqlite_indexes(struct sqdb *d);
/* Start the worker if @thread (without one, rows are stored on the calling thread). */
void sqdb_start(struct sqdb *d, bool thread);
/* Hand @t's filled rows to the worker. */
int sqdb_submit(struct sqdb *d, struct sq_table *t);
/* Wait until the worker has stored everything handed to it; its first failure. */
int sqdb_drain(struct sqdb *d);
/* Stop the worker and free its spare chunks. */
void sqdb_stop(struct sqdb *d);
/*
 * sqlite-file.c: after sqdb_drain(), write the trees' last pages, the
 * schema and the header, then open the file with SQLite and insert the
 * late rows, in a transaction left open for the views and indexes.
 */
int sqdb_reopen(struct sqdb *d);
/* The worker's: store the rows of @c (sqlite-file.c). */
int sqdb_store(struct sqdb *d, struct chunk *c);
void sqdb_release(struct sqdb *d);

/* The values of a new row of @t (all NULL); commit it with row_end(). */
struct sq_val *row_begin(struct sq_table *t);
int row_end(struct sqdb *d, struct sq_table *t);
/* How many of @len bytes at @u are valid UTF-8 before the first that is not. */
unsigned sq_utf8_valid(const unsigned char *u, unsigned len);
/* @len bytes at @u, @k of them valid, as valid UTF-8 at @o (room for 3 * @len); its length. */
size_t sq_utf8_clean(char *o, const unsigned char *u, unsigned k, unsigned len);
/* Room for @n more text bytes of @t's current rows (v->u.off is an offset in it). */
char *row_arena(struct sq_table *t, size_t n);
/* A text value: @n bytes at @p, copied. */
int v_text(struct sq_table *t, struct sq_val *v, const void *p, size_t n);
void table_free(struct sq_table *t);

static inline void v_int(struct sq_val *v, int64_t i)
{
	v->type = V_INT;
	v->u.i = i;
}

/* An int, or NULL when negative (unknown). */
static inline void v_id(struct sq_val *v, int64_t i)
{
	if (i >= 0)
		v_int(v, i);
}

static inline void v_static(struct sq_val *v, const char *s)
{
	if (!s)
		return;
	v->type = V_STATIC;
	v->u.p = s;
	v->len = (unsigned)strlen(s);
}

#endif
