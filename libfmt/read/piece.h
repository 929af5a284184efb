/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* piece.h - the pieces of a split and the metadata they share (piece.c). */
#ifndef TDAT_READ_PIECE_H
#define TDAT_READ_PIECE_H

#include "read/types.h"

/* piece.c: the mark of a tdat-split piece */
int piece_read(struct tdat_file *f, const char *buf, uint64_t size);
/* The option's payload for @p (malloc'd, NUL included in *@len). */
int piece_format(const struct tdat_piece *p, char **out, size_t *len);
/* Whether two pieces can be read as one file: the same metadata and buffers. */
bool piece_alike(const struct tdat_file *a, const struct tdat_file *b);
/*
 * The input piece @f joins (-1: none yet, it begins a split that is input
 * @new_input); TDAT_EINVAL with @err for a second copy of a piece, a piece
 * whose metadata differs from its split's, or pieces of two splits of one file.
 */
int splits_join(struct splits *s, struct tdat_file *f, int new_input, int *input, char *err);
void splits_free(struct splits *s);
/* Whether @f, its options read, may defer its metadata (a v7 piece, not of a merged file). */
bool piece_defers(const struct tdat_file *f);
/*
 * @f (metadata deferred) takes the metadata of @from, a piece of its split
 * that has its own, instead of reading its own sections; true if it did.
 */
bool piece_borrow(struct tdat_file *f, struct tdat_file *from);
/* The first piece of @f's split among those @s has, or NULL. */
struct tdat_file *splits_first(const struct splits *s, const struct tdat_file *f);
/* The file holding @f's metadata: its owner for a piece that borrows, else @f. */
static inline struct tdat_file *meta_of(struct tdat_file *f)
{
	return f->meta_owner ? f->meta_owner : f;
}

#endif /* TDAT_READ_PIECE_H */
