/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * typed.c - what the writers of one typed file per event type share (csv
 * --split-by-event in csvdir.c, parquet in parquet.c): a type's file name,
 * its field list (types whose lists agree share a file), its column names,
 * and the one rule that finds the file of a type among those made
 * (typed_find()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"
#include "write/sink.h"
#include "write/typed.h"

/* The columns every typed file has before the event's fields. */
static const char *const typed_fixed[] = { "ts", "cpu", "input", "buffer", "pid", "comm", "lost" };

/* "SYSTEM.EVENT" with anything but [A-Za-z0-9_.-] turned into '_'. */
char *typed_file_base(const struct ttype *tt)
{
	int max = TYPED_NAME_MAX / 2, r;
	char *b, *p;

	if (tt->event)
		r = asprintf(&b, "%.*s.%.*s", max, tt->system, max, tt->name);
	else
		r = asprintf(&b, "unknown.%u", tt->id);
	if (r < 0)
		return NULL;
	for (p = b; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *p))
			*p = '_';
	return b;
}

/* The fields' names, kinds and syms: types whose lists agree share a file. */
char *typed_signature(const struct ttype *tt)
{
	struct tdat_sink s;
	char *sig;

	if (sink_init(&s, -1))
		return NULL;
	for (int i = 0; i < tt->nfields; i++)
		sink_printf(&s, "%s:%d:%d,", tt->fields[i].name, (int)tt->fields[i].kind,
			    (int)tt->fields[i].sym);
	sig = s.err ? NULL : strndup(s.buf, s.len);
	sink_release(&s);
	return sig;
}

/* @col is a fixed column's name or one of the first @upto of @cols. */
static bool col_taken(int upto, const char *col, const char *const *cols)
{
	for (size_t i = 0; i < sizeof(typed_fixed) / sizeof(typed_fixed[0]); i++)
		if (!strcmp(typed_fixed[i], col))
			return true;
	for (int i = 0; i < upto; i++)
		if (!strcmp(cols[i], col))
			return true;
	return false;
}

/* @want, or field_WANT (then field_WANT_, ...) if a fixed column or one of @cols has it. */
static char *col_name(int upto, const char *want, char **cols)
{
	char *c, *more;

	if (!col_taken(upto, want, (const char *const *)cols))
		return strdup(want);
	if (asprintf(&c, "field_%s", want) < 0)
		return NULL;
	while (c && col_taken(upto, c, (const char *const *)cols)) {
		if (asprintf(&more, "%s_", c) < 0)
			more = NULL;
		free(c);
		c = more;
	}
	return c;
}

void typed_columns_free(char **cols)
{
	for (int i = 0; cols && cols[i]; i++)
		free(cols[i]);
	free(cols);
}

/* The column names: each field's, and NAME_sym after one with a sym. */
char **typed_columns(const struct ttype *tt)
{
	char **cols = calloc((size_t)(tt->nfields + tt->nsyms) + 1, sizeof(*cols)), *want;
	int k = 0;

	for (int i = 0; cols && i < tt->nfields; i++) {
		if (!(cols[k] = col_name(k, tt->fields[i].name, cols)))
			goto fail;
		k++;
		if (!tt->fields[i].sym)
			continue;
		if (asprintf(&want, "%s_sym", cols[k - 1]) < 0)
			goto fail;
		cols[k] = col_name(k, want, cols);
		free(want);
		if (!cols[k++])
			goto fail;
	}
	return cols;
fail:
	typed_columns_free(cols);
	return NULL;
}

/* SYSTEM.EVENT, else SYSTEM.EVENT.2, .3, ...: the first name no file has. */
char *typed_unique_base(const struct ttype *tt, bool (*taken)(const void *ctx, const char *base),
			const void *ctx)
{
	char *base = typed_file_base(tt), *b = NULL;

	if (!base || !taken(ctx, base))
		return base;
	for (unsigned n = 2;; n++) {
		if (asprintf(&b, "%s.%u", base, n) < 0) {
			b = NULL;
			break;
		}
		if (!taken(ctx, b))
			break;
		free(b);
	}
	free(base);
	return b;
}

/* The type's name as files are matched on it (its id if it has no format). */
char *typed_type_name(const struct ttype *tt)
{
	char *n;

	if (tt->event)
		return strdup(tt->name);
	return asprintf(&n, "%u", tt->id) < 0 ? NULL : n;
}

void typed_key_free(struct typed_key *k)
{
	free(k->system);
	free(k->name);
	free(k->sig);
}

void *typed_find(void *const *files, int first, int n, const struct ttype *tt, char **sig)
{
	char *name = typed_type_name(tt);
	void *found = NULL;

	*sig = name ? typed_signature(tt) : NULL;
	for (int i = first; *sig && i < n; i++) {
		const struct typed_key *k = files[i];

		if (!strcmp(k->system, tt->system) && !strcmp(k->name, name) && !strcmp(k->sig, *sig)) {
			found = files[i];
			free(*sig);
			*sig = NULL;
			break;
		}
	}
	free(name);
	return found;
}
