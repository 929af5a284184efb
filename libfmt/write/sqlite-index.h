/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite-index.h - the indexes of the sqlite writer's tables, written page
 * by page without SQLite (sqlite-index.c).  Private to the sqlite writer.
 */
#ifndef TDAT_SQLITE_INDEX_H
#define TDAT_SQLITE_INDEX_H

#include <stdbool.h>

#include "read/types.h"
#include "sqlite-pages.h"

#define SQX_KEYS 2		/* key columns an index has at most */

/* An entry: the row's keys, then its rowid (the order of the index's records). */
struct sqx_ent {
	int64_t k[SQX_KEYS];	/* a missing second key is 0 */
	int64_t rowid;
};

/* An index on integer columns of one table, filled as its rows are placed. */
struct sqx {
	char *name;		/* the index's */
	char *sql;		/* its CREATE INDEX statement, as sqlite_schema keeps it */
	int nk;			/* its key columns */
	int col[SQX_KEYS];	/* their positions in the table's records */
	struct sqx_ent *e;	/* the run being filled */
	size_t n, cap;
	struct spool_out spill;	/* the sorted runs before it, one after the other (fd -1: none) */
	size_t *runs;		/* the entries of each */
	int nruns;
	bool by_sqlite;		/* a key was not an integer (or its run could not be
				 * spilled): SQLite builds this one at close instead */
	struct sqx *next;	/* the table's next index */
};

/*
 * Index @name of table @table (created by @table_sql) on its columns
 * @cols[0..@nk); NULL without memory, or if a column is not in the table.
 */
struct sqx *sqx_new(const char *name, const char *table, const char *table_sql,
		    const char *const *cols, int nk);
void sqx_free(struct sqx *x);
/*
 * Row @rowid of the table, its record @rec (@len bytes), was placed in the
 * table's b-tree: its entry.  An index that cannot take it (a key that is
 * not an integer, a run that cannot be spilled) is left to SQLite
 * (x->by_sqlite); 0 or TDAT_ENOMEM.
 */
int sqx_row(struct sqx *x, int64_t rowid, const unsigned char *rec, size_t len);
/*
 * Write the index's b-tree to @f, its entries in order; *@root is its root
 * page.  0, TDAT_ENOMEM, or TDAT_EIO (f->err, or errno for the spill, says why).
 */
int sqx_finish(struct sqp_file *f, struct sqx *x, uint32_t *root);

#endif /* TDAT_SQLITE_INDEX_H */
