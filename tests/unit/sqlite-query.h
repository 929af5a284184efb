/*
 * sqlite-query.h - what the unit tests of the SQLite files tdat writes
 * (t-sqlpages.c, t-sqlindex.c) ask SQLite: one value of a query, checked.
 */
#ifndef TDAT_TEST_SQLITE_QUERY_H
#define TDAT_TEST_SQLITE_QUERY_H

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"

/* The first column of the first row of @sql as text ("NULL", "(no row)", or SQLite's error). */
static inline char *query1(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	char *out = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return strdup(sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		out = strdup(sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "NULL");
	sqlite3_finalize(st);
	return out ? out : strdup("(no row)");
}

static inline void is_query(sqlite3 *db, const char *sql, const char *want, const char *what)
{
	char *got = query1(db, sql);

	is_str(got, want, "%s", what);
	free(got);
}

#endif /* TDAT_TEST_SQLITE_QUERY_H */
