/*
 * t-sqlindex.c - unit tests of the indexes the sqlite writer builds without
 * SQLite (libfmt/write/sqlite-index.c), with SQLite itself as the judge:
 * a table written page by page with an index on two integer columns and
 * one on a single column, then opened with the system's libsqlite3, which
 * must find PRAGMA integrity_check ok (each row once in each index, every
 * entry in order, every page used once, each level at the same depth) and
 * read the same rows through the index as without it.
 *
 * Pages of 512 bytes hold about 30 entries, so 100,000 rows make an index
 * four levels deep and spill three sorted runs; the row counts around a
 * page's and a level's fill make the last page of a level wait, give up
 * its last cell, or stand alone.  Keys repeat, go back and are negative
 * and wide (every integer serial type).  A NULL key leaves the index to
 * SQLite.  Then SQLite must be able to add rows through the index.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "write/sqlite-index.h"
#include "../tap.h"
#include "sqlite-query.h"

#define TABLE_SQL "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, note TEXT, b INTEGER)"

/* Row @i's keys: repeating, going back, negative, of every width; @i % 4 == 3 of b wide. */
static void keys(int64_t i, int64_t *a, int64_t *b)
{
	static const int64_t wide[] = { 0, 1, -1, 127, -129, 40000, -8388609, 2147483648ll,
					-140737488355329ll, INT64_MAX, INT64_MIN };

	*a = (i * 7919) % 97 - 40;
	*b = i % 4 == 3 ? wide[(i / 4) % 11] : 1000000 - i;
}

static int add_row(struct sqp_file *f, struct sqp_tree *t, struct sqx **ix, int nix, int64_t id,
		   bool null_a)
{
	struct sq_val v[4];
	unsigned char rec[256];
	size_t len;
	int64_t a, b;
	int ret;

	keys(id, &a, &b);
	v[0] = (struct sq_val){ .type = V_INT, .u.i = id };
	v[1] = (struct sq_val){ .type = null_a ? V_NULL : V_INT, .u.i = a };
	v[2] = (struct sq_val){ .type = V_STATIC, .u.p = "n", .len = 1 };
	v[3] = (struct sq_val){ .type = V_INT, .u.i = b };
	len = sqr_encode(rec, v, 4, NULL, true);
	if ((ret = sqp_tree_add(f, t, id, rec, len)))
		return ret;
	for (int k = 0; k < nix && !ret; k++)
		ret = sqx_row(ix[k], id, rec, len);
	return ret;
}

static int schema_row(struct sqp_file *f, struct sqp_tree *st, int64_t id, const char *type,
		      const char *name, uint32_t root, const char *sql)
{
	struct sq_val v[5] = {
		{ .type = V_STATIC, .u.p = type, .len = (unsigned)strlen(type) },
		{ .type = V_STATIC, .u.p = name, .len = (unsigned)strlen(name) },
		{ .type = V_STATIC, .u.p = "t", .len = 1 },
		{ .type = V_INT, .u.i = root },
		{ .type = V_STATIC, .u.p = sql, .len = (unsigned)strlen(sql) },
	};
	unsigned char rec[512];

	return sqp_tree_add(f, st, id, rec, sqr_encode(rec, v, 5, NULL, false));
}

/* The same rows in the same order read through index @ix (INDEXED BY) as sorted without one. */
static void same_order(sqlite3 *db, const char *ix, const char *cols, const char *what)
{
	char a[512], b[512], *x, *y;

	snprintf(a, sizeof(a), "SELECT count(*) || ':' || sum(h) FROM (SELECT (row_number() OVER ()) *"
		 " (id %% 1000003) + a * 7 + b %% 1000 AS h FROM (SELECT * FROM t INDEXED BY %s"
		 " ORDER BY %s, id))", ix, cols);
	snprintf(b, sizeof(b), "SELECT count(*) || ':' || sum(h) FROM (SELECT (row_number() OVER ()) *"
		 " (id %% 1000003) + a * 7 + b %% 1000 AS h FROM (SELECT * FROM t NOT INDEXED"
		 " ORDER BY %s, id))", cols);
	x = query1(db, a);
	y = query1(db, b);
	is_str(x, y, "%s", what);
	free(x);
	free(y);
}

static void one_file(const char *path, unsigned size, int rows, int null_at)
{
	static const char *const ab[] = { "a", "b" }, *const bb[] = { "b" };
	struct sqx *ix[2] = { sqx_new("t_ab", "t", TABLE_SQL, ab, 2), sqx_new("t_b", "t", TABLE_SQL, bb, 1) };
	struct sqp_file f;
	struct sqp_tree t, st;
	uint32_t root = 0, r1 = 0, schema = 1;
	int fd, ret = 0, n = 2;
	sqlite3 *db;
	char want[64];

	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ok(fd >= 0 && !sqp_file_init(&f, fd, size) && ix[0] && ix[1],
	   "page %u, %d rows: the file and two indexes are started", size, rows);
	sqp_tree_init(&t);
	sqp_tree_init(&st);
	for (int64_t i = 1; i <= rows && !ret; i++)
		ret = add_row(&f, &t, ix, 2, i, i == null_at);
	is_int(ix[0]->by_sqlite, null_at > 0 && null_at <= rows,
	       "page %u, %d rows: the index on (a, b) is left to SQLite iff a key is NULL", size, rows);
	if (!ret)
		ret = sqp_tree_finish(&f, &t, &root);
	if (!ret)
		ret = schema_row(&f, &st, 1, "table", "t", root, TABLE_SQL);
	for (int k = 0; k < 2 && !ret; k++) {
		if (ix[k]->by_sqlite)
			continue;
		r1 = 0;
		if (!(ret = sqx_finish(&f, ix[k], &r1)))
			ret = schema_row(&f, &st, ++n, "index", ix[k]->name, r1, ix[k]->sql);
	}
	if (!ret)
		ret = sqp_tree_finish(&f, &st, &schema);
	if (!ret)
		ret = sqp_file_header(&f, (uint32_t)sqlite3_libversion_number());
	is_int(ret, 0, "page %u, %d rows: written", size, rows);
	close(fd);
	sqp_file_release(&f);
	sqp_tree_release(&t);
	sqp_tree_release(&st);

	ok(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK, "SQLite opens it");
	if (ix[0]->by_sqlite)
		is_int(sqlite3_exec(db, ix[0]->sql, NULL, NULL, NULL), SQLITE_OK, "SQLite builds the one left to it");
	is_query(db, "PRAGMA integrity_check", "ok", "PRAGMA integrity_check says ok");
	snprintf(want, sizeof(want), "%d", rows);
	is_query(db, "SELECT count(*) FROM (SELECT a FROM t INDEXED BY t_ab ORDER BY a, b)", want,
		 "every row is in the index on (a, b)");
	same_order(db, "t_ab", "a, b", "the rows through the index on (a, b) are those sorted by a, b, id");
	same_order(db, "t_b", "b", "the rows through the index on b are those sorted by b, id");
	is_int(sqlite3_exec(db, "INSERT INTO t(a, b) VALUES(-40, 5), (3, -7), (NULL, 0)", NULL, NULL, NULL),
	       SQLITE_OK, "SQLite adds rows through the indexes");
	is_query(db, "PRAGMA integrity_check", "ok", "and integrity_check still says ok");
	is_query(db, "SELECT count(*) FROM t INDEXED BY t_b WHERE b = -7", "1", "the row it added is found by its index");
	sqlite3_close(db);
	sqx_free(ix[0]);
	sqx_free(ix[1]);
	unlink(path);
}

int main(void)
{
	static const char *const nope[] = { "nope" };
	char path[64];

	snprintf(path, sizeof(path), "/tmp/t-sqlindex.%d.db", (int)getpid());
	ok(!sqx_new("x", "t", TABLE_SQL, nope, 1), "an index on a column the table has not: none");
	for (int n = 0; n <= 70; n++)	/* a leaf's fill, and one level's */
		one_file(path, 512, n, 0);
	one_file(path, 512, 1000, 0);
	one_file(path, 512, 100000, 0);	/* four levels, three runs spilled */
	one_file(path, 512, 70000, 0);
	one_file(path, 4096, 100000, 0);
	one_file(path, 65536, 100000, 0);
	one_file(path, 512, 1000, 500);	/* a NULL key */
	one_file(path, 512, 40000, 39999);	/* after a spill */
	return done_testing();
}
