/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite-tables.c - the event tables of the sqlite writer: one typed table
 * per event (named after it, system_event where two systems share a name
 * or a fixed table has it), with the common columns and one column per
 * field (and FIELD_sym after a field printed as a kernel symbol), columns
 * added when another input's format has more fields; and at close the
 * views over all of them (ftrace_event, raw, args) that Perfetto's queries
 * expect.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sqlite3.h>
#include <traceevent/event-parse.h>

#include "sqlite.h"

#define UNION_GROUP 200		/* terms per compound SELECT (the limit is 500) */

/* Common columns of every event table. */
static const char *const fixed_cols[] = { "id", "ts", "cpu", "utid", "common_flags",
					  "common_preempt_count", "buffer", "input" };
#define NFIXED 8

/* ---- event tables ---- */

/* Names the fixed tables and views own; an event of that name is system_event. */
static const char *const reserved[] = {
	"metadata", "cpu", "sched", "counter_track", "stats", "trace_bounds", "ftrace_event",
	"raw", "args", "sched_with_thread_process", "unknown_event",
};

/* A name of sqlite.c's (reserved[]), of the model's tables, an event table's, SQLite's. */
static bool name_taken(const struct sq *q, const char *name)
{
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (!strcasecmp(reserved[i], name))
			return true;
	for (int k = 0; k < MT_NTABLES; k++)
		if (!strcasecmp(mt_tables[k].name, name))
			return true;
	if (!strncasecmp(name, "sqlite_", 7))
		return true;
	for (const struct sq_table *t = q->tables; t; t = t->next)
		if (!strcasecmp(t->name, name))
			return true;
	return false;
}

/* Does an event called @name exist in another system than @sys in any input? */
static bool ambiguous(const struct sq *q, const char *sys, const char *name)
{
	for (int i = 0; i < q->ninputs; i++) {
		struct tep_handle *tep = tdat_merge_file(q->w->merge, i)->tep;
		int n = tep ? tep_get_events_count(tep) : 0;

		for (int k = 0; k < n; k++) {
			struct tep_event *e = tep_get_event(tep, k);

			if (e && !strcmp(e->name, name) && strcmp(e->system, sys))
				return true;
		}
	}
	return false;
}

/* The event's name; system_event if another system has one so named. */
static char *table_name(const struct sq *q, const char *sys, const char *ev)
{
	char *base, *name;
	int r;

	if (!*ev)
		r = asprintf(&base, "unknown_event");
	else if (ambiguous(q, sys, ev) || name_taken(q, ev))
		r = asprintf(&base, "%s_%s", sys, ev);
	else
		r = asprintf(&base, "%s", ev);
	if (r < 0)
		return NULL;
	name = strdup(base);
	for (int i = 2; *ev && name && name_taken(q, name); i++) {
		free(name);
		if (asprintf(&name, "%s_%d", base, i) < 0)
			name = NULL;
	}
	free(base);
	return name;
}

static const char *value_type(const struct tfield *f)
{
	switch (f->kind) {
	case TK_INT: return "int";
	case TK_UINT: return "uint";
	case TK_PTR: return "pointer";
	case TK_STR: return "string";
	default: return "json";
	}
}

static bool col_taken(const struct sq_table *t, const char *name)
{
	for (int i = 0; i < t->ncols; i++)
		if (!strcasecmp(t->cols[i], name))
			return true;
	return false;
}

/* Add column @want (field_WANT if taken) for args key @key (NULL: a fixed column). */
static int add_col(struct sq_table *t, const char *want, const char *key, const char *vtype)
{
	size_t n = (size_t)t->ncols + 1;
	char **c = realloc(t->cols, sizeof(*c) * n), **k;
	const char **v;
	char *name;

	if (!c)
		return TDAT_ENOMEM;
	t->cols = c;
	if (!(k = realloc(t->keys, sizeof(*k) * n)))
		return TDAT_ENOMEM;
	t->keys = k;
	if (!(v = realloc(t->vtypes, sizeof(*v) * n)))
		return TDAT_ENOMEM;
	t->vtypes = v;
	if (!col_taken(t, want))
		name = strdup(want);
	else if (asprintf(&name, "field_%s", want) < 0)
		name = NULL;
	for (int i = 2; name && col_taken(t, name); i++) {
		free(name);
		if (asprintf(&name, "field_%s_%d", want, i) < 0)
			name = NULL;
	}
	t->keys[t->ncols] = key ? strdup(key) : NULL;
	if (!name || (key && !t->keys[t->ncols])) {
		free(name);
		free(t->keys[t->ncols]);
		return TDAT_ENOMEM;
	}
	t->cols[t->ncols] = name;
	t->vtypes[t->ncols++] = vtype;
	return 0;
}

/* Is @t's column @c text (a string, or an array as JSON)? */
static bool text_col(const struct sq_table *t, int c)
{
	return !strcmp(t->vtypes[c], "string") || !strcmp(t->vtypes[c], "json");
}

/* @s (sqlite3_malloc()'s) as a string to free(). */
static char *strdup_sqlite(char *s)
{
	char *d = strdup(s);

	sqlite3_free(s);
	return d;
}

/*
 * @t's CREATE TABLE statement (@from 0), or, created, the same with the
 * columns from @from on added, untyped, as ALTER TABLE ADD COLUMN adds
 * them to SQLite's text.
 */
static int add_cols_sql(struct sq *q, struct sq_table *t, int from)
{
	sqlite3_str *s = sqlite3_str_new(NULL);
	char *sql;

	if (from == 0) {
		sqlite3_str_appendf(s, "CREATE TABLE \"%w\"(id INTEGER PRIMARY KEY, ts INTEGER, "
				    "cpu INTEGER, utid INTEGER, common_flags INTEGER, "
				    "common_preempt_count INTEGER, buffer TEXT, input INTEGER", t->name);
		for (int i = NFIXED; i < t->ncols; i++)
			sqlite3_str_appendf(s, ", \"%w\" %s", t->cols[i], text_col(t, i) ? "TEXT" : "INTEGER");
	} else {
		sqlite3_str_append(s, t->sql, (int)strlen(t->sql) - 1);	/* without its ")" */
		for (int i = from; i < t->ncols; i++)
			sqlite3_str_appendf(s, ", \"%w\"", t->cols[i]);
	}
	sqlite3_str_appendchar(s, 1, ')');
	if (!(sql = sqlite3_str_finish(s)) || !(sql = strdup_sqlite(sql)))
		return TDAT_ENOMEM;
	return sqdb_table_created(&q->d, t, sql);
}

static struct sq_table *event_table(struct sq *q, const struct ttype *tt)
{
	struct sq_table *t;

	for (t = q->tables; t; t = t->next)
		if (!strcmp(t->sys, tt->system) && !strcmp(t->ev, tt->name))
			return t;
	if (!(t = calloc(1, sizeof(*t))))
		return NULL;
	t->sys = strdup(tt->system);
	t->ev = strdup(tt->name);
	t->name = t->sys && t->ev ? table_name(q, tt->system, tt->name) : NULL;
	for (int i = 0; t->name && i < NFIXED; i++) {
		if (add_col(t, fixed_cols[i], NULL, NULL)) {
			free(t->name);
			t->name = NULL;
		}
	}
	if (!t->name) {
		table_free(t);
		return NULL;
	}
	t->ipk = true;
	t->next = q->tables;
	q->tables = t;
	q->ntables++;
	return t;
}

static int find_key(const struct sq_table *t, const char *key)
{
	for (int c = NFIXED; c < t->ncols; c++)
		if (!strcmp(t->keys[c], key))
			return c;
	return -1;
}

/*
 * The args keys of @tt's columns: each field's name, and NAME_sym after a
 * field with a sym (its symbol, as the text output prints it); NULL-terminated.
 */
static char **type_keys(const struct ttype *tt)
{
	char **keys = calloc((size_t)(tt->nfields + tt->nsyms) + 1, sizeof(*keys));
	int k = 0;

	for (int i = 0; keys && i < tt->nfields; i++) {
		if (!(keys[k++] = strdup(tt->fields[i].name)) ||
		    (tt->fields[i].sym && asprintf(&keys[k++], "%s_sym", tt->fields[i].name) < 0)) {
			keys[k - 1] = NULL;
			goto fail;
		}
	}
	return keys;
fail:
	for (int i = 0; keys[i]; i++)
		free(keys[i]);
	free(keys);
	return NULL;
}

/* Map @tt's fields (and symbols) to @t's columns, adding the columns it lacks. */
static int map_fields(struct sq *q, struct sq_table *t, const struct ttype *tt, char **keys,
		      int *colmap)
{
	bool exists = t->sql != NULL, missing = false;
	int from = t->ncols, ret;

	for (int k = 0; keys[k]; k++)
		missing |= find_key(t, keys[k]) < 0;
	if (exists && !missing)
		goto map;
	/* the worker must be idle, and rows of the old shape in, before the schema changes */
	if ((exists && (ret = sqdb_submit(&q->d, t))) || (ret = sqdb_drain(&q->d)))
		return ret;
	for (int i = 0, k = 0; i < tt->nfields; i++, k++) {
		if (find_key(t, keys[k]) < 0 &&
		    (ret = add_col(t, keys[k], keys[k], value_type(&tt->fields[i]))))
			return ret;
		if (tt->fields[i].sym && find_key(t, keys[++k]) < 0 &&
		    (ret = add_col(t, keys[k], keys[k], "string")))
			return ret;
	}
	if ((ret = add_cols_sql(q, t, exists ? from : 0)))
		return ret;
map:
	for (int k = 0; keys[k]; k++)
		colmap[k] = find_key(t, keys[k]);
	return 0;
}

void sq_free_type(void *p)
{
	struct sq_type *ty = p;

	free(ty->colmap);
	free(ty);
}

struct sq_type *sq_map_type(struct sq *q, const struct ttype *tt, int *err)
{
	struct sq_type *ty = calloc(1, sizeof(*ty));
	char **keys = type_keys(tt);
	size_t ncols = (size_t)(tt->nfields + tt->nsyms);

	*err = TDAT_ENOMEM;
	if (!ty || !keys || !(ty->colmap = calloc(ncols + 1, sizeof(int))) ||
	    !(ty->t = event_table(q, tt)) || (*err = map_fields(q, ty->t, tt, keys, ty->colmap))) {
		if (ty)
			free(ty->colmap);
		free(ty);
		ty = NULL;
	}
	for (int k = 0; keys && keys[k]; k++)
		free(keys[k]);
	free(keys);
	return ty;
}

/* ---- the views over the event tables ---- */

/* ucpu of an event row: cpu plus its input's base. */
static void ucpu_expr(const struct sq *q, sqlite3_str *s)
{
	if (q->ninputs < 2) {
		sqlite3_str_appendall(s, "cpu");
		return;
	}
	sqlite3_str_appendall(s, "cpu + CASE input");
	for (int i = 1; i < q->ninputs; i++)
		sqlite3_str_appendf(s, " WHEN %d THEN %d", i, q->in[i].ucpu_base);
	sqlite3_str_appendall(s, " ELSE 0 END");
}

/* Tables oldest first (the list is newest first). */
static struct sq_table **table_list(const struct sq *q)
{
	struct sq_table **v = calloc((size_t)q->ntables + 1, sizeof(*v));
	int i = q->ntables;

	for (struct sq_table *t = q->tables; v && t; t = t->next)
		v[--i] = t;
	return v;
}

/*
 * Append one term of a compound SELECT: the terms are grouped in
 * subqueries of UNION_GROUP, as SQLite allows 500 terms in one compound.
 */
static void term(sqlite3_str *s, int *n)
{
	if (*n && *n % UNION_GROUP == 0)
		sqlite3_str_appendall(s, ") UNION ALL SELECT * FROM (");
	else if (*n)
		sqlite3_str_appendall(s, " UNION ALL ");
	(*n)++;
}

static void ftrace_event_view(struct sq *q, sqlite3_str *s, struct sq_table **tl)
{
	int n = 0;

	sqlite3_str_appendall(s, "CREATE VIEW ftrace_event AS SELECT * FROM (");
	for (int i = 0; i < q->ntables; i++) {
		term(s, &n);
		sqlite3_str_appendf(s, "SELECT id, ts, %Q AS name, cpu, utid, id AS arg_set_id, "
				    "common_flags, ", tl[i]->ev);
		ucpu_expr(q, s);
		sqlite3_str_appendf(s, " AS ucpu, buffer, input, %Q AS system FROM \"%w\"",
				    tl[i]->sys, tl[i]->name);
	}
	if (!n)
		sqlite3_str_appendall(s, "SELECT NULL AS id, NULL AS ts, NULL AS name, NULL AS cpu, "
				      "NULL AS utid, NULL AS arg_set_id, NULL AS common_flags, "
				      "NULL AS ucpu, NULL AS buffer, NULL AS input, NULL AS system LIMIT 0");
	sqlite3_str_appendall(s, ");\n");
}

static void args_view(struct sq *q, sqlite3_str *s, struct sq_table **tl)
{
	int n = 0;

	sqlite3_str_appendall(s, "CREATE VIEW args AS SELECT * FROM (");
	for (int i = 0; i < q->ntables; i++) {
		struct sq_table *t = tl[i];

		for (int c = NFIXED; c < t->ncols; c++) {
			bool text = text_col(t, c);

			term(s, &n);
			sqlite3_str_appendf(s, "SELECT id AS arg_set_id, %Q AS flat_key, %Q AS key, ",
					    t->keys[c], t->keys[c]);
			if (text)
				sqlite3_str_appendf(s, "NULL AS int_value, \"%w\" AS string_value, ",
						    t->cols[c]);
			else
				sqlite3_str_appendf(s, "\"%w\" AS int_value, NULL AS string_value, ",
						    t->cols[c]);
			sqlite3_str_appendf(s, "NULL AS real_value, %Q AS value_type, ", t->vtypes[c]);
			if (!strcmp(t->vtypes[c], "pointer"))
				sqlite3_str_appendf(s, "printf('0x%%x', \"%w\")", t->cols[c]);
			else
				sqlite3_str_appendf(s, "CAST(\"%w\" AS TEXT)", t->cols[c]);
			sqlite3_str_appendf(s, " AS display_value FROM \"%w\"", t->name);
		}
	}
	if (!n)
		sqlite3_str_appendall(s, "SELECT NULL AS arg_set_id, NULL AS flat_key, NULL AS key, "
				      "NULL AS int_value, NULL AS string_value, NULL AS real_value, "
				      "NULL AS value_type, NULL AS display_value LIMIT 0");
	sqlite3_str_appendall(s, ");\n");
}

int sq_event_views(struct sq *q)
{
	struct sq_table **tl = table_list(q);
	sqlite3_str *s = sqlite3_str_new(q->d.db);
	char *sql;
	int ret;

	if (!tl) {
		sqlite3_free(sqlite3_str_finish(s));
		return TDAT_ENOMEM;
	}
	ftrace_event_view(q, s, tl);
	args_view(q, s, tl);
	free(tl);
	if (!(sql = sqlite3_str_finish(s)))
		return TDAT_ENOMEM;
	ret = sqdb_exec(&q->d, sql);
	sqlite3_free(sql);
	return ret;
}
