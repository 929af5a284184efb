/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite-model.c - the tables of the model in the sqlite writer, made from
 * their one description (model/tables.c): a CREATE TABLE statement per
 * table (the first column its INTEGER PRIMARY KEY), and each row the model
 * derives (model/derive.c) stored as it comes, column by column as the
 * description reads it.  The rules and ids are derive.c's, so these tables
 * equal the ones trace processor builds from our .pftrace
 * (doc/tdat-sqlite.7, tests/cli/t-tp-model.sh) and the parquet writer's.
 */
#include <stdio.h>

#include "sqlite.h"

static const char *const sql_type[] = {
	[MT_I32] = "INTEGER", [MT_I64] = "INTEGER", [MT_REAL] = "REAL", [MT_TEXT] = "TEXT",
};

/* "CREATE TABLE name(col TYPE, ...)" of table @k in @buf (@len bytes); false if cut. */
static bool create_sql(int k, char *buf, size_t len)
{
	const struct mt_desc *t = &mt_tables[k];
	size_t o = (size_t)snprintf(buf, len, "CREATE TABLE %s(", t->name);

	for (int i = 0; i < t->ncols && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s %s%s", i ? ", " : "", t->cols[i].name,
				      sql_type[t->cols[i].type], i ? "" : " PRIMARY KEY");
	if (o < len)
		o += (size_t)snprintf(buf + o, len - o, ")");
	return o < len;
}

int sq_model_create(struct sq *q)
{
	char sql[1024];

	for (int k = 0; k < MT_NTABLES; k++) {
		if (!create_sql(k, sql, sizeof(sql)))
			return TDAT_EINVAL;
		if (!(q->mt[k] = sqdb_fixed_table(&q->d, mt_tables[k].name, mt_tables[k].ncols, sql)))
			return TDAT_ENOMEM;
		/* an INTEGER PRIMARY KEY is the rowid; the model numbers rows 0, 1, ... as they begin */
		q->mt[k]->ipk = mt_tables[k].cols[0].type == MT_I32 || mt_tables[k].cols[0].type == MT_I64;
		q->mt[k]->dense = q->mt[k]->ipk;
	}
	return 0;
}

/* Column @c of @row into @v (left NULL when it is). */
static int put_col(struct sq_table *t, struct sq_val *v, const struct mt_col *c, const void *row)
{
	const char *p;
	size_t n;

	switch (c->type) {
	case MT_REAL:
		if (mt_real(c, row, &v->u.d))
			v->type = V_REAL;
		return 0;
	case MT_TEXT:
		if (!mt_text(c, row, &p, &n))
			return 0;
		if (c->src == MS_STRN)		/* valid during the call only */
			return v_text(t, v, p, n) ? TDAT_ENOMEM : 0;
		v->type = V_STATIC;
		v->u.p = p;
		v->len = (unsigned)n;
		return 0;
	default:
		if (mt_int(c, row, &v->u.i))
			v->type = V_INT;
		return 0;
	}
}

static int on_row(void *ctx, int k, const void *row)
{
	struct sq *q = ctx;
	struct sq_table *t = q->mt[k];
	struct sq_val *v = row_begin(t);
	const struct mt_desc *d = &mt_tables[k];
	int ret;

	for (int i = 0; i < d->ncols; i++)
		if ((ret = put_col(t, &v[i], &d->cols[i], row)))
			return ret;
	return row_end(&q->d, t);
}

const struct derive_ops sq_model_ops = { .row = on_row };
