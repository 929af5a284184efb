/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dat.h - the trace.dat parsers' shared pieces (dat-read.c, dat-options.c, dat-header.c, dat-salvage.c). */
#ifndef TDAT_READ_DAT_H
#define TDAT_READ_DAT_H

#include "read/types.h"

/* The first ten bytes of every trace.dat (dat-header.c checks them, write/dat-write.c writes them). */
extern const unsigned char dat_magic[10];

/* Append a blob (taking @data) to an array; TDAT_ENOMEM leaves @data to the caller. */
int meta_push(struct tdat_blob **arr, int *n, char *data, uint64_t len);
/* Keep option @id's payload if it is one a writer copies. */
int meta_keep_option(struct tdat_meta *m, unsigned id, const char *buf, uint64_t size);
void meta_release(struct tdat_meta *m);

/* Read an integer of @len bytes in the file's byte order. */
uint64_t file_num(const struct tdat_file *f, const void *p, int len);

/* The same for sizes 1, 2, 4, 8, fast on little-endian files. */
static inline uint64_t field_raw(const struct tdat_file *f, const unsigned char *p, unsigned size)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	if (f->info.big_endian)
		return file_num(f, p, (int)size);
	switch (size) {
	case 1: return p[0];
	case 2: memcpy(&v16, p, 2); return v16;
	case 4: memcpy(&v32, p, 4); return v32;
	default: memcpy(&v64, p, 8); return v64;
	}
}

uint64_t rd_left(const struct rd *r);
int rd_fail(struct rd *r, const char *what);
int rd_bytes(struct rd *r, void *dst, size_t n, const char *what);
int rd_num(struct rd *r, int len, uint64_t *v, const char *what);
int rd_blob(struct rd *r, uint64_t n, char **out, const char *what);
int rd_sized(struct rd *r, int lenbytes, char **out, uint64_t *n, const char *what);
int rd_str(struct rd *r, char **out, size_t max, const char *what);
int rd_expect(struct rd *r, const char *tag, size_t n);
void rd_drop_mem(struct rd *r);
/* Enter the v7 section at @off, checking its id; decompressed if it is compressed. */
int rd_section(struct rd *r, uint64_t off, unsigned want_id, unsigned *flags);

/* Read options until DONE; v7: @next is the offset of the next OPTIONS section. */
int opts_read(struct rd *r, struct opts_state *st, uint64_t *next);
/* Take the clock from trace_clock text ("... [local] ..."). */
void opts_set_clock(struct tdat_file *f, const char *text);
/* Whether trace-cmd takes trace clock @clock for one that counts ns (else ticks). */
bool clock_counts_ns(const char *clock);
int file_add_buffer(struct tdat_file *f, struct tdat_buffer **out);
/* dat-header.c: every section up to the data, and libtraceevent set up; 0 or an error. */
int dat_read_sections(struct tdat_file *f, struct rd *r);
/* One option of @size bytes (its id read): kept for writers and handled. */
int opts_one(struct rd *r, struct opts_state *st, unsigned id, uint64_t size);
/* dat-header.c: the body of metadata section @id (HEADER_INFO .. CMDLINES) at @r. */
int dat_section_body(struct rd *r, int id);
/*
 * dat-header.c: the metadata of a file that deferred it: @from's (a piece
 * of its split, tdat_merge_add()), or read now; 0 or an error (f->errmsg).
 */
int file_meta_load(struct tdat_file *f, struct tdat_file *from);
/* dat-salvage.c: a v7 file cut inside its data; see there. */
int v7_salvage(struct tdat_file *f, uint64_t from, const char *why);

#endif /* TDAT_READ_DAT_H */
