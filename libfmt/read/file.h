/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* file.h - the parsed file's own functions (file.c). */
#ifndef TDAT_READ_FILE_H
#define TDAT_READ_FILE_H

#include "read/types.h"

/* Decompress with @f's codec, its context made on first use; TDAT_ENOMEM without one. */
int file_decompress(struct tdat_file *f, const void *src, size_t slen, void *dst, size_t dlen);
/* A file not read now (a piece done or not begun): its descriptor and codec context let go. */
void file_park(struct tdat_file *f);
/* The CPU numbers of @f: up to its header's count or the highest a buffer lists (< MAX_CPUS). */
int file_cpu_count(struct tdat_file *f);

/* @f's kallsyms text (a clone's: its file's, file_clone()), or NULL. */
const char *file_kallsyms(const struct tdat_file *f);
/* Hand kallsyms to libtraceevent now (writers that print function names). */
void file_load_symbols(struct tdat_file *f);
/*
 * file_load_symbols() before any worker starts, the map then kept as it is:
 * the workers' clones of @f look names up in it, from their threads.
 */
void file_share_symbols(struct tdat_file *f);
/* The kernel function at @addr (kallsyms loaded on first use), or NULL. */
const char *function_name(struct tdat_file *f, uint64_t addr);

/* Record damage found while opening that does not stop the file from opening. */
void file_warn(struct tdat_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * file.c: a second handle on the file @f reads (the same open file, so a
 * copy of standard input too), opened with @f's options, offset and name:
 * its events are the same, for another thread to decode and print;
 * without @symbols, it has no kallsyms (function names are not printed on
 * it); with them, it reads @f's text (@f must outlive it), not a copy.
 */
int file_clone(struct tdat_file *f, bool symbols, struct tdat_file **out);
/* The view of input @origin of merged file @f (tdat_file_norigins()); why not in @err. */
int file_view(struct tdat_file *f, int origin, struct tdat_file **out, char *err);

#endif /* TDAT_READ_FILE_H */
