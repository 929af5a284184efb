/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * options.h - the per-format writer options (tdat_writer_set_option(),
 * options.c): their values, a format's table of the ones it takes, and
 * the dat writer's table, which tdat_capture_set_dat_option() uses too.
 */
#ifndef TDAT_WRITE_OPTIONS_H
#define TDAT_WRITE_OPTIONS_H

#include <stddef.h>

#include "write/dat-enc.h"

/*
 * The per-format options (tdat_writer_set_option()), zeroed by default: a
 * format's table (ops->options) says which it takes, their values and
 * where each goes.  An int each: an on/off one 0 or 1, one of words the
 * index of the word, a number the number.
 */
struct writer_opts {
	int nsec, raw, style_3_1;	/* text: "nsec", "raw", "style" (3.4, 3.1) */
	int split;			/* csv: "split" (tdat_writer_output() a directory) */
	struct dat_layout dat;		/* dat: "version", "compression" */
	int zlib;			/* perfetto: "compression" (none, zlib) */
	int level;			/* parquet: "compression-level" (zstd), 0: its default */
	int gzip_level;			/* any: "gzip-level" of TDAT_W_GZIP, 0: the default */
};

enum wopt_kind { WO_BOOL, WO_WORD, WO_INT };

/* An option of a format's table (ops->options, ended by a NULL key). */
struct writer_option {
	const char *key;
	enum wopt_kind kind;
	const char *words;	/* WO_WORD: the values, space separated, the default first */
	int lo, hi;		/* WO_INT: the range */
	size_t off;		/* the int in struct writer_opts it sets */
};

#define WOPT_BOOL(k, field) { k, WO_BOOL, NULL, 0, 1, offsetof(struct writer_opts, field) }
#define WOPT_WORD(k, w, field) { k, WO_WORD, w, 0, 0, offsetof(struct writer_opts, field) }
#define WOPT_INT(k, lo, hi, field) { k, WO_INT, NULL, lo, hi, offsetof(struct writer_opts, field) }

/* @value of option @o (from a table like ops->options) into @opts; 0 or TDAT_EINVAL (@err says). */
int writer_option_parse(const struct writer_option *o, const char *value, struct writer_opts *opts,
			char *err);
/* The option @key of the NULL-key-ended table @t, or NULL. */
const struct writer_option *writer_option_find(const struct writer_option *t, const char *key);

/* dat-write.c: the dat writer's options (and tdat_capture_set_dat_option()'s). */
extern const struct writer_option dat_options[];

#endif /* TDAT_WRITE_OPTIONS_H */
