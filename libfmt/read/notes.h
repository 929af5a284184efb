/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* notes.h - what a file notes that is not damage (notes.c). */
#ifndef TDAT_READ_NOTES_H
#define TDAT_READ_NOTES_H

#include "read/types.h"

/*
 * notes.c: the format @buf of @system passed tep_guard_format() as
 * TEP_GUARD_UNSUPP: note it, and remember its id for the text writer.
 */
void file_unsupported(struct tdat_file *f, const char *buf, const char *system);
/* Whether event type @id of @f has such a print format. */
bool file_print_unsupported(const struct tdat_file *f, int id);
void file_unsupported_free(struct tdat_file *f);

#endif /* TDAT_READ_NOTES_H */
