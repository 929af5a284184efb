/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* origin.h - the inputs a merged trace.dat was made of (origin.c). */
#ifndef TDAT_READ_ORIGIN_H
#define TDAT_READ_ORIGIN_H

#include "read/types.h"

/* A time of the kernel's CPU figures of @f (CPUSTAT), in @f's timeline. */
uint64_t origin_stat_ts(const struct tdat_file *f, uint64_t raw, int cpu);
/* Whether a view of a merged file's input keeps event format @fmt (the input had it). */
bool origin_keeps_format(const struct tdat_file *f, const char *fmt);
/* Whether option @id describes one input (a view takes its input's), not the file. */
bool origin_option(unsigned id);
/* An OPT_TDAT_ORIGIN option: where an input's section is. */
int origin_note(struct tdat_file *f, const char *buf, uint64_t size);
/*
 * After the options: read every origin section; a view also takes its
 * input's options, and @own[i] says which metadata sections it took.
 */
int origins_read(struct tdat_file *f, struct rd *r, struct opts_state *st, bool *own);
/* After the buffers are read: a view keeps only its input's, named as there. */
int origin_restrict(struct tdat_file *f);
void origins_free(struct tdat_file *f);
/*
 * The origin section body of input @f in a merged file whose metadata is
 * @file; @names: the names its buffers get there (malloc'd into *@out).
 */
int origin_format(const struct tdat_file *f, const struct tdat_meta *file, const char *const *names,
		  bool big, char **out, size_t *len);

#endif /* TDAT_READ_ORIGIN_H */
