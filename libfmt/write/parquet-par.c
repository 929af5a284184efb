// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet-par.c - a row group's column chunks encoded and compressed on
 * several threads (tdat_writer_set_jobs()), written in column order: the
 * same file as one thread.
 *
 * Each thread takes the next column, builds its pages into a memory sink
 * with a context of its own (zstd, scratch buffers), counting offsets from
 * the chunk's start; then the caller writes the chunks one after another
 * and places each (pq_chunk_place(): its offsets and ColumnChunk struct).
 * The columns' buffers are only read meanwhile.  Small row groups, or a
 * single context, take the one-thread path (pq_chunk()).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "write/parquet.h"
#include "write/thrift.h"

#define PAR_MIN_ROWS 8192	/* fewer rows: not worth a thread */

struct chunks {
	struct pq_table *t;
	struct pq_cchunk *ch;
	struct pq_stats *st;
	struct tdat_sink *out;
	int *ret;
	pthread_mutex_t mu;
	int next;		/* the next column to take */
};

struct helper {
	struct chunks *cs;
	struct pq_ctx *c;
	pthread_t th;
};

/* Encode columns with context @c until none is left. */
static void take_columns(struct chunks *cs, struct pq_ctx *c)
{
	for (;;) {
		int i;

		pthread_mutex_lock(&cs->mu);
		i = cs->next < cs->t->ncols ? cs->next++ : -1;
		pthread_mutex_unlock(&cs->mu);
		if (i < 0)
			return;
		cs->ch[i] = (struct pq_cchunk){ .c = c, .t = cs->t, .col = &cs->t->cols[i],
						.out = &cs->out[i] };
		cs->ret[i] = pq_chunk_encode(&cs->ch[i], &cs->st[i]);
	}
}

static void *helper_run(void *arg)
{
	struct helper *h = arg;

	take_columns(h->cs, h->c);
	return NULL;
}

/* Encode every column on the threads, then write and place them in order. */
static int par_chunks(struct pq_ctx *c, struct chunks *cs, struct tdat_sink *out,
		      struct thrift *meta, uint64_t *raw)
{
	struct helper h[PQ_MAX_HELPERS];
	int nh = 0, ret = 0, n = cs->t->ncols;

	for (int k = 0; k < c->nmore && k < PQ_MAX_HELPERS; k++) {
		h[nh] = (struct helper){ .cs = cs, .c = &c->more[k] };
		if (!pthread_create(&h[nh].th, NULL, helper_run, &h[nh]))
			nh++;
	}
	take_columns(cs, c);
	for (int k = 0; k < nh; k++)
		pthread_join(h[k].th, NULL);
	for (int i = 0; i < n; i++) {
		if (!ret && (ret = cs->ret[i]) && cs->ch[i].c != c)
			memcpy(c->err, cs->ch[i].c->err, TDAT_MSG_LEN);	/* a helper's message */
		if (!ret) {
			sink_write(out, cs->out[i].buf, cs->out[i].len);
			pq_chunk_place(&cs->ch[i], &cs->st[i], meta, raw);
		}
		free(cs->ch[i].dict);
	}
	return ret;
}

int pq_chunks(struct pq_ctx *c, struct pq_table *t, struct tdat_sink *out, struct thrift *meta,
	      uint64_t *raw)
{
	struct chunks cs = { .t = t };
	int ret = 0, n = t->ncols;

	if (!c->nmore || n < 2 || t->rows < PAR_MIN_ROWS) {
		for (int i = 0; i < n && !ret; i++)
			ret = pq_chunk(c, t, i, out, meta, raw);
		return ret;
	}
	cs.ch = calloc((size_t)n, sizeof(*cs.ch));
	cs.st = calloc((size_t)n, sizeof(*cs.st));
	cs.out = calloc((size_t)n, sizeof(*cs.out));
	cs.ret = calloc((size_t)n, sizeof(*cs.ret));
	for (int i = 0; cs.out && i < n && !ret; i++)
		ret = sink_init(&cs.out[i], -1);
	if (!cs.ch || !cs.st || !cs.out || !cs.ret || ret) {
		ret = TDAT_ENOMEM;
		goto out;
	}
	pthread_mutex_init(&cs.mu, NULL);
	ret = par_chunks(c, &cs, out, meta, raw);
	pthread_mutex_destroy(&cs.mu);
out:
	for (int i = 0; cs.out && i < n; i++)
		sink_release(&cs.out[i]);
	free(cs.ch);
	free(cs.st);
	free(cs.out);
	free(cs.ret);
	return ret;
}

int pq_ctx_helpers(struct pq_ctx *c, int jobs)
{
	int n = jobs - 1 < PQ_MAX_HELPERS ? jobs - 1 : PQ_MAX_HELPERS;

	if (n < 1)
		return 0;
	if (!(c->more = calloc((size_t)n, sizeof(*c->more))) ||
	    !(c->errs = calloc((size_t)n, TDAT_MSG_LEN)))
		return TDAT_ENOMEM;
	for (; c->nmore < n; c->nmore++)
		if (pq_ctx_init(&c->more[c->nmore], c->level, c->errs + (size_t)c->nmore * TDAT_MSG_LEN))
			return TDAT_ENOMEM;
	return 0;
}
