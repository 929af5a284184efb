/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * options.c - the writers' options (tdat_writer_set_option()): each format
 * lists its own in a table (ops->options: key, kind, the values it takes,
 * where the value goes in struct writer_opts), and every format takes the
 * common ones below.  A key the format does not list, or a value its
 * option does not take, is refused with a message naming what it takes,
 * as libarchive's archive_write_set_format_option() refuses them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "write/options.h"
#include "write/writer-int.h"

/* What every format takes. */
static const struct writer_option common_options[] = {
	WOPT_INT("gzip-level", 1, TDAT_GZIP_LEVEL_MAX, gzip_level),
	{ NULL, WO_BOOL, NULL, 0, 0, 0 },
};

const struct writer_option *writer_option_find(const struct writer_option *t, const char *key)
{
	for (; t && t->key; t++)
		if (!strcmp(t->key, key))
			return t;
	return NULL;
}

/* The index of @v among the space-separated @words, or -1. */
static int word_index(const char *words, const char *v)
{
	size_t n = strlen(v);
	int i = 0;

	for (const char *p = words; *p; i++) {
		size_t len = strcspn(p, " ");

		if (len == n && !strncmp(p, v, n))
			return i;
		p += len + (p[len] == ' ');
	}
	return -1;
}

/* What option @o takes, for a message. */
static void takes(const struct writer_option *o, char *buf, size_t size)
{
	if (o->kind == WO_BOOL)
		snprintf(buf, size, "1 or 0");
	else if (o->kind == WO_INT)
		snprintf(buf, size, "%d to %d", o->lo, o->hi);
	else
		snprintf(buf, size, "one of: %s", o->words);
}

int writer_option_parse(const struct writer_option *o, const char *value, struct writer_opts *opts,
			char *err)
{
	int *to = (int *)((char *)opts + o->off), v = -1;
	char what[128], *end;
	long n;

	if (o->kind == WO_BOOL) {
		v = !value || !strcmp(value, "0") ? 0 : !strcmp(value, "1") ? 1 : -1;
	} else if (o->kind == WO_WORD && value) {
		v = word_index(o->words, value);
	} else if (o->kind == WO_INT && value) {
		errno = 0;
		n = strtol(value, &end, 10);
		if (!errno && end != value && !*end && n >= o->lo && n <= o->hi)
			v = (int)n;
	}
	if (v < 0) {
		takes(o, what, sizeof(what));
		tdat_msg(err, "option %s: invalid value '%s' (%s)", o->key, value ? value : "(none)",
			 what);
		return TDAT_EINVAL;
	}
	*to = v;
	return 0;
}

/* The keys of @t, comma separated, after @buf's. */
static void keys(const struct writer_option *t, char *buf, size_t size)
{
	for (; t && t->key; t++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", *buf ? ", " : "", t->key);
}

int tdat_writer_set_option(struct tdat_writer *w, const char *key, const char *value)
{
	const struct writer_option *o;
	char known[256] = "";
	int ret;

	if (w->merge) {
		tdat_msg(w->errmsg, "option %s: the writer is open already", key);
		return TDAT_EINVAL;
	}
	o = writer_option_find(w->ops->options, key);
	if (!o)
		o = writer_option_find(common_options, key);
	if (!o) {
		keys(w->ops->options, known, sizeof(known));
		keys(common_options, known, sizeof(known));
		tdat_msg(w->errmsg, "the %s format has no option '%s' (it has: %s)", w->ops->name, key,
			 known);
		return TDAT_EINVAL;
	}
	if ((ret = writer_option_parse(o, value, &w->opt, w->errmsg)))
		return ret;
	return 0;
}

int tdat_writer_output(const struct tdat_writer *w)
{
	return w->opt.split ? TDAT_OUT_DIR : w->ops->output;	/* csv's "split" */
}
