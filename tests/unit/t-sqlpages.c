/*
 * t-sqlpages.c - unit tests of the SQLite file written page by page
 * (libfmt/write/sqlite-pages.c), with SQLite itself as the judge: each
 * file is opened with the system's libsqlite3, must pass PRAGMA
 * integrity_check (every page used once, keys in order, cell sizes and
 * overflow chains as the format says, every level of a tree at the same
 * depth), and every value written must read back the same; then SQLite
 * must be able to add rows and an index to it.
 *
 * Page sizes 512, 4096 and 65536: at 512 bytes a table of 60,000 rows is
 * four levels deep and 200 tables' schema rows no longer fit on page 1,
 * so every path of the builder runs (a level's last two pages split, a
 * root on page 1 that is an interior page, a lone leaf too big for page 1
 * split in two).  Payloads around every overflow threshold of the format
 * (X = U - 35, M = (U - 12) * 32 / 255 - 23, K = M + (P - M) % (U - 4)).
 * And the column affinities read from CREATE TABLE statements, against
 * what SQLite stores in those columns.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "write/sqlite-pages.h"
#include "../tap.h"
#include "sqlite-query.h"

#define NTAB 200

struct table {
	char name[32];
	char *sql;
	struct sqp_tree tree;
	uint32_t root;
};


/* Row @i of the "many" table: four values of every kind and width. */
static void many_row(int64_t i, struct sq_val v[4], char *text)
{
	static const int64_t ints[] = { 0, 1, -1, 127, -128, 128, 32767, -32768, 32768, 8388607,
					-8388608, 8388608, 2147483647, -2147483647 - 1, 2147483648ll,
					140737488355327ll, -140737488355328ll, 140737488355328ll,
					INT64_MAX, INT64_MIN };
	int n = (int)(sizeof(ints) / sizeof(ints[0]));

	v[0] = (struct sq_val){ .type = V_INT, .u.i = ints[i % n] };
	v[1] = (struct sq_val){ .type = i % 7 ? V_REAL : V_NULL, .u.d = (double)i / 8 - 1000.5 };
	snprintf(text, 64, "row %" PRId64 " %.*s", i, (int)(i % 23), "abcdefghijklmnopqrstuvwxyz");
	v[2] = (struct sq_val){ .type = V_STATIC, .u.p = text, .len = (unsigned)strlen(text) };
	v[3] = (struct sq_val){ .type = V_INT, .u.i = i * 1000003 };
}

static int add(struct sqp_file *f, struct table *t, int64_t rowid, const struct sq_val *v, int n)
{
	unsigned char *rec = malloc(sqr_room(v, n));
	int ret = rec ? sqp_tree_add(f, &t->tree, rowid, rec, sqr_encode(rec, v, n, NULL, false)) : -1;

	free(rec);
	return ret;
}

/* The payload sizes to try around the thresholds of pages of @u bytes. */
static int big_sizes(unsigned u, size_t *sz)
{
	size_t x = u - 35, m = (u - 12) * 32 / 255 - 23;
	int n = 0;

	for (int d = -2; d <= 2; d++) {
		sz[n++] = x + (size_t)d;
		sz[n++] = m + (u - 4) + (size_t)d;		/* K = M: K <= X */
		sz[n++] = m + (x - m) + (size_t)d + 1;		/* K just over X */
		sz[n++] = 3 * u + (size_t)d;
	}
	sz[n++] = 200000;
	return n;
}

static char *big_text(size_t len, int64_t seed)
{
	char *p = malloc(len + 1);

	for (size_t i = 0; p && i < len; i++)
		p[i] = (char)('a' + (i * 7 + (size_t)seed) % 26);
	if (p)
		p[len] = 0;
	return p;
}

/* The record of a "big" row of text @len bytes long (the header makes the payload a little more). */
static int add_big(struct sqp_file *f, struct table *t, int64_t rowid, size_t len)
{
	char *s = big_text(len, rowid);
	struct sq_val v = { .type = V_STATIC, .u.p = s, .len = (unsigned)len };
	int ret = s ? add(f, t, rowid, &v, 1) : -1;

	free(s);
	return ret;
}

static int schema_add(struct sqp_file *f, struct sqp_tree *st, int64_t id, const struct table *t)
{
	struct sq_val v[5] = {
		{ .type = V_STATIC, .u.p = "table", .len = 5 },
		{ .type = V_STATIC, .u.p = t->name, .len = (unsigned)strlen(t->name) },
		{ .type = V_STATIC, .u.p = t->name, .len = (unsigned)strlen(t->name) },
		{ .type = V_INT, .u.i = t->root },
		{ .type = V_STATIC, .u.p = t->sql, .len = (unsigned)strlen(t->sql) },
	};
	unsigned char *rec = malloc(sqr_room(v, 5));
	int ret = rec ? sqp_tree_add(f, st, id, rec, sqr_encode(rec, v, 5, NULL, false)) : -1;

	free(rec);
	return ret;
}

/* Every "many" row as written: @rows rows, rowid 3 * i - 5. */
static void check_many(sqlite3 *db, int rows, unsigned size)
{
	sqlite3_stmt *st;
	int n = 0, bad = 0;
	char text[64];

	sqlite3_prepare_v2(db, "SELECT rowid, a, b, c, d FROM many ORDER BY rowid", -1, &st, NULL);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct sq_val v[4];

		many_row(n, v, text);
		if (sqlite3_column_int64(st, 0) != 3 * n - 5 || sqlite3_column_int64(st, 1) != v[0].u.i ||
		    (v[1].type == V_NULL ? sqlite3_column_type(st, 2) != SQLITE_NULL :
		     sqlite3_column_double(st, 2) != v[1].u.d) ||
		    strcmp((const char *)sqlite3_column_text(st, 3), text) ||
		    sqlite3_column_int64(st, 4) != v[3].u.i) {
			if (!bad++)
				diag("row %d differs", n);
		}
		n++;
	}
	sqlite3_finalize(st);
	is_int(n, rows, "page %u: every row of many is read back", size);
	is_int(bad, 0, "page %u: with the values written", size);
}

static void check_big(sqlite3 *db, const size_t *sz, int nsz, unsigned size)
{
	sqlite3_stmt *st;
	int n = 0, bad = 0;

	sqlite3_prepare_v2(db, "SELECT rowid, t FROM big ORDER BY rowid", -1, &st, NULL);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char *want = big_text(sz[n], n + 1);

		if (sqlite3_column_int64(st, 0) != n + 1 || (size_t)sqlite3_column_bytes(st, 1) != sz[n] ||
		    memcmp(sqlite3_column_text(st, 1), want, sz[n])) {
			if (!bad++)
				diag("big row %d (%zu bytes) differs", n + 1, sz[n]);
		}
		free(want);
		n++;
	}
	sqlite3_finalize(st);
	is_int(n, nsz, "page %u: every big row is read back", size);
	is_int(bad, 0, "page %u: rows around the overflow thresholds read back whole", size);
}

static int write_tables(struct sqp_file *f, struct table *tab, int ntab, int rows, const size_t *sz, int nsz)
{
	char text[64];
	int ret = 0;

	for (int i = 0; ntab > 1 && i < rows && !ret; i++) {
		struct sq_val v[4];

		many_row(i, v, text);
		ret = add(f, &tab[1], 3 * (int64_t)i - 5, v, 4);
	}
	for (int i = 0; ntab > 2 && i < nsz && !ret; i++)
		ret = add_big(f, &tab[2], i + 1, sz[i]);
	for (int k = 3; k < ntab && !ret; k++) {
		struct sq_val v = { .type = V_INT, .u.i = k };

		ret = add(f, &tab[k], 1, &v, 1);
	}
	return ret;
}

/* The type of page 1's b-tree page: 13 a leaf, 5 an interior page. */
static int page1_type(const char *path)
{
	unsigned char b[101] = { 0 };
	int fd = open(path, O_RDONLY);

	if (fd < 0 || pread(fd, b, sizeof(b), 0) != (ssize_t)sizeof(b))
		b[100] = 0;
	if (fd >= 0)
		close(fd);
	return b[100];
}

/*
 * A file of @ntab tables (empty, many, big, then tables of one row) with
 * pages of @size bytes, their statements padded with @pad; page 1 of type @p1.
 */
static void one_file(const char *path, unsigned size, int ntab, int rows, const char *pad, int p1)
{
	struct table *tab = calloc((size_t)ntab, sizeof(*tab));
	struct sqp_file f;
	struct sqp_tree st;
	size_t sz[32];
	int nsz = big_sizes(size, sz), fd, ret;
	uint32_t root = 1;
	sqlite3 *db;
	char sql[4096];

	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ok(fd >= 0 && !sqp_file_init(&f, fd, size), "page %u: the file is started", size);
	for (int k = 0; k < ntab; k++) {
		snprintf(tab[k].name, sizeof(tab[k].name), k == 0 ? "empty" : k == 1 ? "many" : k == 2 ? "big" : "t%d", k);
		snprintf(sql, sizeof(sql), k == 1 ? "CREATE TABLE %s(a INTEGER, b REAL, c TEXT, d%s)" :
			 k == 2 ? "CREATE TABLE %s(t TEXT%s)" : "CREATE TABLE %s(x%s)", tab[k].name, pad);
		tab[k].sql = strdup(sql);
		sqp_tree_init(&tab[k].tree);
	}
	ret = write_tables(&f, tab, ntab, rows, sz, nsz);
	sqp_tree_init(&st);
	for (int k = 0; k < ntab && !ret; k++) {
		if (!(ret = sqp_tree_finish(&f, &tab[k].tree, &tab[k].root)))
			ret = schema_add(&f, &st, k + 1, &tab[k]);
	}
	if (!ret)
		ret = sqp_tree_finish(&f, &st, &root);
	if (!ret)
		ret = sqp_file_header(&f, (uint32_t)sqlite3_libversion_number());
	is_int(ret, 0, "page %u, %d tables: written", size, ntab);
	is_int(root, 1, "page %u: the schema's root is page 1", size);
	close(fd);
	sqp_file_release(&f);
	sqp_tree_release(&st);

	is_int(page1_type(path), p1, "page %u, %d tables: page 1 is %s", size, ntab,
	       p1 == 5 ? "an interior page" : "a leaf");
	ok(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK, "page %u: SQLite opens it", size);
	is_query(db, "PRAGMA integrity_check", "ok", "PRAGMA integrity_check says ok");
	snprintf(sql, sizeof(sql), "%u", size);
	is_query(db, "PRAGMA page_size", sql, "its page size is the one written");
	snprintf(sql, sizeof(sql), "%d", ntab);
	is_query(db, "SELECT count(*) FROM sqlite_schema", sql, "every table is in the schema");
	is_query(db, "SELECT count(*) FROM empty", "0", "the empty table is empty");
	check_many(db, rows, size);
	if (ntab > 2)
		check_big(db, sz, nsz, size);
	if (ntab > 3)
		is_query(db, "SELECT x FROM t3", "3", "a table of one row holds it");
	is_int(sqlite3_exec(db, "INSERT INTO many(a) VALUES(42); INSERT INTO empty(x) VALUES(1);"
			    "CREATE INDEX many_a ON many(a); CREATE TABLE later(y)", NULL, NULL, NULL),
	       SQLITE_OK, "page %u: SQLite adds rows, an index and a table to it", size);
	is_query(db, "PRAGMA integrity_check", "ok", "and integrity_check still says ok");
	is_query(db, "SELECT count(*) FROM many WHERE a = 42", "1", "the row it added is found by its index");
	sqlite3_close(db);
	for (int k = 0; k < ntab; k++) {
		sqp_tree_release(&tab[k].tree);
		free(tab[k].sql);
	}
	free(tab);
	unlink(path);
}

static void records(void)
{
	static const int64_t ints[] = { 0, 1, 2, -1, 127, 128, -128, -129, 32767, 32768, -32768, -32769,
					8388607, 8388608, -8388608, -8388609, 2147483647, 2147483648ll,
					-2147483648ll, -2147483649ll, 140737488355327ll, 140737488355328ll,
					-140737488355328ll, -140737488355329ll, INT64_MAX, INT64_MIN };
	int n = (int)(sizeof(ints) / sizeof(ints[0])), bad = 0;
	struct sq_val v[32], got;
	unsigned char rec[1024];
	size_t len;

	for (int i = 0; i < n; i++)
		v[i] = (struct sq_val){ .type = V_INT, .u.i = ints[i] };
	len = sqr_encode(rec, v, n, NULL, false);
	for (int i = 0; i < n; i++)
		bad += !sqr_decode(rec, len, i, &got) || got.type != V_INT || got.u.i != ints[i];
	is_int(bad, 0, "every integer width decodes to what was encoded");
	ok(sqr_decode(rec, len, n + 3, &got) && got.type == V_NULL, "a column past the last is NULL");
	ok(!sqr_decode(rec, 3, n - 1, &got), "a record cut short is refused");
}

/* What SQLite stores of the text '12', the integer 13 and the real 1.5 in a column of affinity @a. */
static const char *stored(char a)
{
	switch (a) {
	case 'I':
	case 'N':
		return "integer integer real";
	case 'T':
		return "text text text";
	case 'R':
		return "real real real";
	default:
		return "text integer real";
	}
}

/* What SQLite's columns of table t, made by @sql, hold of those three values, a line a column. */
static char *sqlite_stored(const char *sql, int ncols)
{
	static const char *const names[] = { "", "integer", "real", "text", "blob", "null" };
	char *out = calloc((size_t)ncols, 32), ins[512] = "INSERT INTO t VALUES";
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	size_t o;

	for (int r = 0; r < 3; r++)
		for (int c = 0; c < ncols; c++)
			snprintf(ins + strlen(ins), sizeof(ins) - strlen(ins), "%s%s%s", c ? "," : r ? "),(" : "(",
				 r == 0 ? "'12'" : r == 1 ? "13" : "1.5", r == 2 && c == ncols - 1 ? ")" : "");
	if (!out || sqlite3_open(":memory:", &db) != SQLITE_OK || sqlite3_exec(db, sql, NULL, NULL, NULL) ||
	    sqlite3_exec(db, ins, NULL, NULL, NULL) ||
	    sqlite3_prepare_v2(db, "SELECT * FROM t ORDER BY rowid", -1, &st, NULL) != SQLITE_OK) {
		snprintf(out ? out : "", out ? 32 : 0, "%s", db ? sqlite3_errmsg(db) : "no memory");
	} else {
		while (sqlite3_step(st) == SQLITE_ROW)
			for (int c = 0; c < ncols; c++) {
				o = strlen(out + 32 * c);
				snprintf(out + 32 * c + o, 32 - o, "%s%s", o ? " " : "",
					 names[sqlite3_column_type(st, c)]);
			}
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

/*
 * sqp_affinities() of @sql is @want, and SQLite stores values in those
 * columns as it says (asked of a table t without an INTEGER PRIMARY KEY,
 * which is the rowid).
 */
static void affinity(const char *sql, const char *want)
{
	char aff[16] = "", *got;
	int n = sqp_affinities(sql, aff, 15), bad = 0;

	is_str(n < 0 ? "(refused)" : aff, want, "affinities of %s", sql);
	if (n <= 0 || strstr(sql, "PRIMARY KEY") || strncmp(sql, "CREATE TABLE t(", 15) ||
	    !(got = sqlite_stored(sql, n)))
		return;
	for (int c = 0; c < n; c++)
		bad += strcmp(got + 32 * c, stored(aff[c])) != 0;
	is_int(bad, 0, "and SQLite stores '12', 13 and 1.5 in its columns as they say (its first: %s)", got);
	free(got);
}

static void affinities(void)
{
	affinity("CREATE TABLE t(a TEXT NOT NULL, b INTEGER, c REAL, d, e BLOB)", "TIR--");
	affinity("CREATE TABLE t(\"check\" INTEGER, \"a\"\"b,c\" TEXT, \"x\")", "IT-");
	affinity("CREATE TABLE t(a VARCHAR(10), b DOUBLE PRECISION, c FLOATING POINT, d NUMERIC,"
		 " e DECIMAL(10, 2), f BIGINT UNSIGNED, g CHARINT)", "TRINNII");
	affinity("CREATE TABLE t(a DEFAULT 'x,y', b TEXT CHECK(b <> ')'), c INT COLLATE nocase,"
		 " d CONSTRAINT k NOT NULL)", "-TI-");
	affinity("CREATE TABLE t(id INTEGER PRIMARY KEY, ts INTEGER, buffer TEXT)", "IIT");
	affinity("CREATE TABLE \"a(b\"\"c\"(x INTEGER, y TEXT)", "IT");	/* a name with ( and " */
	affinity("CREATE TABLE t(a INTEGER, b TEXT, PRIMARY KEY(a, b))", "(refused)");
	affinity("CREATE TABLE t(a INTEGER, b TEXT", "(refused)");
}

int main(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/tmp/t-sqlpages.%d.db", (int)getpid());
	records();
	affinities();
	one_file(path, 512, NTAB, 60000, "", 5);
	one_file(path, 4096, NTAB, 60000, "", 5);
	one_file(path, 65536, 5, 60000, "", 13);
	/* two tables whose schema rows fill more than page 1 holds, less than a page */
	one_file(path, 512, 2, 10, ", a_rather_long_column_name_to_fill_the_page_one INTEGER,"
		 " another_rather_long_column_name_for_the_same INTEGER, and_a_third_one_too INTEGER,"
		 " with_a_fourth INTEGER, and_a_fifth_column INTEGER", 5);
	return done_testing();
}
