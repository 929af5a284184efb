/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cursor.h - a cursor over one CPU of one buffer (dat-cpu.c). */
#ifndef TDAT_READ_CURSOR_H
#define TDAT_READ_CURSOR_H

#include "read/types.h"

/* Convert a raw ring-buffer timestamp of @cpu into the reported one. */
/* A timestamp of a clock that counts ticks in ns: as --ts2secs, or TSC2NSEC (mult 0: as it is). */
uint64_t ts_convert(uint64_t ts, double ts2secs, uint32_t mult, uint32_t shift);
uint64_t file_ts(const struct tdat_file *f, uint64_t raw, int cpu);

int cursor_init(struct cursor *c, struct tdat_file *f, int input, int buffer, int cpu_index);
/* Peek the next event: 0 with c->ev set, TDAT_END, or a negative error. */
int cursor_peek(struct cursor *c);
static inline void cursor_advance(struct cursor *c) { c->have = false; }
/* Before the first peek: skip the pages (or chunks) that end before @ts. */
int cursor_seek(struct cursor *c, uint64_t ts);
void cursor_release(struct cursor *c);

/* The place of @c's peeked event (or the end when it has none left). */
void cursor_pos(const struct cursor *c, struct cpos *p);
/* Back to the first event, keeping the buffers; damage already reported stays reported. */
void cursor_rewind(struct cursor *c);
/* The first (raw, then corrected) time of the unit at @off; false if it cannot be read. */
bool cursor_unit_ts(struct cursor *c, uint64_t off, uint64_t *ts);
/* Whether a chunk header at @off claiming @zsize/@usize bytes can be read. */
bool chunk_fits(const struct cursor *c, uint64_t off, uint64_t end_off, uint64_t zsize,
		uint64_t usize);

/*
 * The next whole page, for copying: its header and the extent of each of
 * its events are checked (a damaged page is reported and skipped), events
 * are not decoded.  0 with *@page and *@len set, TDAT_END, or an error.
 * Not mixed with cursor_peek().
 */
int cursor_next_page(struct cursor *c, const unsigned char **page, size_t *len);

#endif /* TDAT_READ_CURSOR_H */
