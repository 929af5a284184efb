/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * parquet-model.h - the analysis tables of the parquet writer
 * (parquet-model.c): the rows of the model (model/derive.c), the sqlite
 * writer's tables of the same names (thread, process, sched_slice,
 * thread_state, slice, counter and the tracks), as Parquet files of the
 * dataset folder.  parquet.c feeds it every event and closes it.
 * Private to the write layer.
 */
#ifndef TDAT_PARQUET_MODEL_H
#define TDAT_PARQUET_MODEL_H

#include "model/model.h"
#include "write/parquet.h"
#include "write/writer-int.h"

struct pqm;

/* The model of @w's inputs, its files written into @dirfd with @ctx; NULL if out of memory. */
struct pqm *pqm_new(struct tdat_writer *w, struct pq_ctx *ctx, int dirfd);
/* Event @ev (of type @tt) to the model. */
int pqm_put(struct pqm *m, const struct tdat_event *ev, const struct ttype *tt);
/* The rows still open, the thread and process tables, and every file's footer. */
int pqm_close(struct pqm *m);
void pqm_free(struct pqm *m);

#endif /* TDAT_PARQUET_MODEL_H */
