/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite-rows.h - batched rows for the sqlite writer (sqlite-rows.c): a
 * table's rows are filled in chunks that a worker thread inserts with
 * multi-row prepared INSERTs while the caller decodes the next events.
 * Private to libfmt.
 */
#ifndef TDAT_SQLITE_ROWS_H
#define TDAT_SQLITE_ROWS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sqlite3.h>

#include "model/model.h"

enum { V_NULL, V_INT, V_REAL, V_TEXT, V_STATIC };

struct sq_val {
	int type;
	unsigned len;
	union {
		int64_t i;
		double d;
		size_t off;		/* V_TEXT: offset in the table's arena */
		const char *p;		/* V_STATIC: lives until close */
	} u;
};

/* Rows of one table on their way to SQLite. */
struct chunk {
	struct sq_table *t;
	int nrows, cap;
	size_t vcap;			/* values of room */
	struct sq_val *vals;		/* nrows * t->ncols */
	char *arena;			/* the V_TEXT bytes */
	size_t alen, acap;
	unsigned gen;			/* which hand-over (the worker's count) it holds */
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
	unsigned gen;			/* chunks inserted (struct chunk's gen) */
	char msg[TDAT_MSG_LEN];
};

/* A table's columns, its statements and the rows being filled. */
struct sq_table {
	char *name;
	int ncols, batch;
	char **cols;			/* column names */
	char **keys;			/* event tables: args key of each column, NULL if fixed */
	const char **vtypes;		/* its args value_type */
	sqlite3_stmt *one, *many;	/* used by the worker only; many once needed */
	struct sq_val *bound_one, *bound_many;	/* what their parameters hold */
	unsigned gen_one, gen_many;	/* the chunk their text was bound from */
	struct chunk *cur;		/* rows being filled */
	bool ipk;			/* column 0 is the INTEGER PRIMARY KEY (the rowid) */
	bool any;			/* it has a row: its largest rowid is max_id */
	int64_t max_id;
	int chunk_rows;			/* rows of the next chunk: grows to CHUNK_ROWS */
	/* event tables (the writer's; freed by table_free()) */
	char *sys, *ev;
	struct sq_table *next;
};

/* A connection, where its failures are described, and its worker. */
struct sqdb {
	sqlite3 *db;
	char *errmsg;			/* TDAT_MSG_LEN bytes: the writer's */
	struct worker wk;
};

/* "@what: sqlite's message (and the system's reason)" in d->errmsg; a TDAT_E code. */
int sqdb_fail(struct sqdb *d, const char *what);
/* Run @sql (no rows) on the calling thread: only before sqdb_start() or after sqdb_drain(). */
int sqdb_exec(struct sqdb *d, const char *sql);
/* (Re)prepare @t's INSERT statements, for its current columns. */
int sqdb_table_prepare(struct sqdb *d, struct sq_table *t);
/* A table of @ncols columns that the schema created as @name; NULL when out of memory. */
struct sq_table *sqdb_fixed_table(struct sqdb *d, const char *name, int ncols);
/* Start the worker (without one, rows are inserted on the calling thread). */
void sqdb_start(struct sqdb *d);
/* Hand @t's filled rows to the worker. */
int sqdb_submit(struct sqdb *d, struct sq_table *t);
/* Wait until the worker has inserted everything handed to it; its first failure. */
int sqdb_drain(struct sqdb *d);
/* Stop the worker and free its spare chunks. */
void sqdb_stop(struct sqdb *d);

/* The values of a new row of @t (all NULL); commit it with row_end(). */
struct sq_val *row_begin(struct sq_table *t);
int row_end(struct sqdb *d, struct sq_table *t);
/* Room for @n more text bytes of @t's current rows (v->u.off is an offset in it). */
char *row_arena(struct sq_table *t, size_t n);
/* A text value: @n bytes at @p, copied. */
int v_text(struct sq_table *t, struct sq_val *v, const void *p, size_t n);
void table_finalize(struct sq_table *t);
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
