/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * typed.h - what the writers of one file per event type share (typed.c):
 * csv's "split" directory and parquet.
 */
#ifndef TDAT_WRITE_TYPED_H
#define TDAT_WRITE_TYPED_H

#include <stdbool.h>

struct ttype;

/*
 * typed.c: what the writers of one typed file per event type share (csv
 * --split-by-event, parquet).  The file name "SYSTEM.EVENT" with anything
 * but [A-Za-z0-9_.-] turned into '_' (unknown.ID without a format), at most
 * TYPED_NAME_MAX bytes; the first of it, .2, .3 ... that @taken says no file
 * has yet; the field list ("name:kind,...": types whose lists agree share a
 * file); the column names, NULL-terminated: each field's (its name,
 * field_NAME if a fixed column has it) and after a field with a sym its
 * COLUMN_sym (free with typed_columns_free()); the type's name as files are
 * matched on it.
 */
#define TYPED_NAME_MAX 200	/* of SYSTEM.EVENT, below NAME_MAX with ".N.csv" */
char *typed_file_base(const struct ttype *tt);
char *typed_unique_base(const struct ttype *tt, bool (*taken)(const void *ctx, const char *base),
			const void *ctx);
char *typed_signature(const struct ttype *tt);
char **typed_columns(const struct ttype *tt);
void typed_columns_free(char **cols);
char *typed_type_name(const struct ttype *tt);

/* What a typed file is the file of: a type's system, name (typed_type_name()) and field list. */
struct typed_key {
	char *system, *name, *sig;
};
void typed_key_free(struct typed_key *k);
/*
 * typed_find(): among @files[@first..@n), each beginning with its struct
 * typed_key, the file of @tt; else NULL, with the signature a new file of
 * @tt is to have in @*sig (the caller's; NULL too when out of memory).
 */
void *typed_find(void *const *files, int first, int n, const struct ttype *tt, char **sig);

#endif /* TDAT_WRITE_TYPED_H */
