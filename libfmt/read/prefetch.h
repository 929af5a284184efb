/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* prefetch.h - v7 chunks decompressed ahead on a thread (prefetch.c). */
#ifndef TDAT_READ_PREFETCH_H
#define TDAT_READ_PREFETCH_H

#include "read/types.h"

struct prefetch *prefetch_new(void);
/* After @c took a chunk: read its next one ahead (if it has a prefetch). */
void prefetch_post(struct cursor *c);
/*
 * End @c's job: true if the chunk at @off is ready in c->ahead.buf (usize
 * bytes, zsize stored), false if @c must read it itself.
 */
bool prefetch_take(struct cursor *c, uint64_t off);
/* Stop the thread; the cursors' jobs must be taken first. */
void prefetch_free(struct prefetch *p);

#endif /* TDAT_READ_PREFETCH_H */
