// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet-par.c - a row group's column chunks encoded and compressed on
 * helper threads (tdat_writer_set_jobs()) while the caller goes on filling
 * the next rows: the same files as one thread.
 *
 * When a table's row group is flushed with helpers (pq_launch()), its
 * column buffers move into a frozen copy of the table and the table goes on
 * with the emptied ones of its row group before (its spare, pq_keep()) or
 * with none; the helpers each take the next column, the largest first
 * (the caller waits less for the last in pq_drain()), and build its
 * pages into a memory sink with a context of their own (zstd, scratch
 * buffers), counting offsets from the chunk's start.  The next flush of any
 * table, or the table's end, first drains that row group (pq_drain()): the
 * caller encodes the columns no helper has taken yet, then writes its
 * chunks in column order into the table's file and places each
 * (pq_chunk_place(): offsets and ColumnChunk structs), then its
 * RowGroup struct, and keeps the emptied buffers as the table's spare while
 * the allowance lasts.  One row group is in flight at a time, which bounds the
 * memory; the flush decisions do not depend on it, so the files do not
 * depend on the thread count.  Small row groups, or no helper, take the
 * one-thread path (pq_chunks()).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/read.h"
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
	int *order;		/* the columns, the largest first */
	int next;		/* the next of them to take */
};

int pq_chunks(struct pq_ctx *c, struct pq_table *t, struct tdat_sink *out, struct thrift *meta,
	      uint64_t *raw)
{
	int ret = 0;

	for (int i = 0; i < t->ncols && !ret; i++)
		ret = pq_chunk(c, t, i, out, meta, raw);
	return ret;
}

/* Encode columns of cs->t with context @c until none is left. */
static void take_columns(struct chunks *cs, struct pq_ctx *c)
{
	for (;;) {
		int i;

		pthread_mutex_lock(&cs->mu);
		i = cs->next < cs->t->ncols ? cs->order[cs->next++] : -1;
		pthread_mutex_unlock(&cs->mu);
		if (i < 0)
			return;
		cs->ch[i] = (struct pq_cchunk){ .c = c, .t = cs->t, .col = &cs->t->cols[i],
						.out = &cs->out[i] };
		cs->ret[i] = pq_chunk_encode(&cs->ch[i], &cs->st[i]);
	}
}

struct helper {
	struct chunks *cs;
	struct pq_ctx *c;
	pthread_t th;
};

static void *helper_run(void *arg)
{
	struct helper *h = arg;

	take_columns(h->cs, h->c);
	return NULL;
}

/* A row group in flight (see the top of the file). */
struct pq_pending {
	struct pq_table ft;	/* frozen: its own columns, the buffers moved into them */
	struct pq_table *live;
	int fd;			/* its own descriptor of the table's file (-1: none) */
	struct chunks cs;
	struct helper h[PQ_MAX_HELPERS];
	int nh;
};

static void chunks_free(struct chunks *cs, int n)
{
	for (int i = 0; cs->out && i < n; i++)
		sink_release(&cs->out[i]);
	for (int i = 0; cs->ch && i < n; i++)
		free(cs->ch[i].dict);
	free(cs->ch);
	free(cs->st);
	free(cs->out);
	free(cs->ret);
	free(cs->order);
}

static size_t col_bytes(const struct pq_col *c)
{
	return c->vals.len + c->defs.len + c->lens.len;
}

/*
 * The order to take the columns in: the largest first, so that those the
 * caller may wait for in pq_drain(), the last, are short.
 */
static void order_columns(struct chunks *cs)
{
	const struct pq_col *col = cs->t->cols;

	for (int i = 0; i < cs->t->ncols; i++) {
		int j = i;

		for (; j > 0 && col_bytes(&col[cs->order[j - 1]]) < col_bytes(&col[i]); j--)
			cs->order[j] = cs->order[j - 1];
		cs->order[j] = i;
	}
}

static int chunks_init(struct chunks *cs, struct pq_table *t)
{
	int n = t->ncols, ret = 0;

	cs->t = t;
	cs->ch = calloc((size_t)n, sizeof(*cs->ch));
	cs->st = calloc((size_t)n, sizeof(*cs->st));
	cs->out = calloc((size_t)n, sizeof(*cs->out));
	cs->ret = calloc((size_t)n, sizeof(*cs->ret));
	cs->order = calloc((size_t)n, sizeof(*cs->order));
	for (int i = 0; cs->out && i < n && !ret; i++)
		ret = sink_init(&cs->out[i], -1);
	if (!cs->ch || !cs->st || !cs->out || !cs->ret || !cs->order || ret)
		return TDAT_ENOMEM;
	order_columns(cs);
	return 0;
}

/* Wait for @p's helpers; free what it holds (its chunks and frozen buffers). */
static void pending_free(struct pq_pending *p)
{
	for (int k = 0; k < p->nh; k++)
		pthread_join(p->h[k].th, NULL);
	pthread_mutex_destroy(&p->cs.mu);
	chunks_free(&p->cs, p->ft.ncols);
	pq_cols_release(p->ft.cols, p->ft.ncols);
	free(p->ft.cols);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

/*
 * Move @t's row group into @p->ft; @t goes on with the emptied buffers of
 * its spare (pq_keep()), whose column array the frozen copy takes over, or
 * with none.
 */
static int freeze(struct pq_pending *p, struct pq_table *t)
{
	struct pq_col *cols = t->spare;

	p->ft = *t;
	p->ft.spare = NULL;
	if (!cols && !(cols = calloc((size_t)(t->ncols ? t->ncols : 1), sizeof(*cols)))) {
		p->ft.ncols = 0;
		p->ft.cols = NULL;
		return TDAT_ENOMEM;
	}
	for (int i = 0; !t->spare && i < t->ncols; i++)
		cols[i].vals.fd = cols[i].defs.fd = cols[i].lens.fd = -1;	/* memory sinks */
	t->spare = NULL;
	for (int i = 0; i < t->ncols; i++) {
		struct pq_col full = t->cols[i];

		t->cols[i].vals = cols[i].vals;
		t->cols[i].defs = cols[i].defs;
		t->cols[i].lens = cols[i].lens;
		t->cols[i].nnull = t->cols[i].nrows = t->cols[i].nempty = 0;
		cols[i] = full;
	}
	p->ft.cols = cols;
	t->total_rows += t->rows;
	t->rows = 0;
	t->buffered = 0;
	return 0;
}

bool pq_async_fits(const struct pq_ctx *c, const struct pq_table *t)
{
	return c->nmore && t->ncols >= 2 && t->rows >= PAR_MIN_ROWS;
}

int pq_launch(struct pq_ctx *c, struct pq_table *t, int fd)
{
	struct pq_pending *p = calloc(1, sizeof(*p));
	int ret;

	if (!p)
		return TDAT_ENOMEM;
	p->fd = -1;
	pthread_mutex_init(&p->cs.mu, NULL);
	if ((ret = freeze(p, t)) || (ret = chunks_init(&p->cs, &p->ft))) {
		pending_free(p);
		return ret;
	}
	p->live = t;
	/* the caller closes its descriptor when this returns */
	if ((p->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		tdat_msg(c->err, "%s: %s", t->name, strerror(errno));
		pending_free(p);	/* the row group is lost: the writer fails */
		return TDAT_EIO;
	}
	for (int k = 0; k < c->nmore && k < PQ_MAX_HELPERS; k++) {
		p->h[p->nh] = (struct helper){ .cs = &p->cs, .c = &c->more[k] };
		if (!thread_start(&p->h[p->nh].th, TDAT_THREAD_PARQUET, helper_run, &p->h[p->nh]))
			p->nh++;
	}
	if (!p->nh)
		take_columns(&p->cs, c);	/* no thread: here, now */
	c->pend = p;
	return 0;
}

/* Write the chunks of @p in column order and place them; the RowGroup struct. */
static int write_pending(struct pq_ctx *c, struct pq_pending *p)
{
	struct tdat_sink out, meta = { .fd = -1 };
	struct thrift m;
	uint64_t start, raw = 0;
	int ret = 0;

	if (sink_init(&out, p->fd) || sink_init(&meta, -1)) {
		ret = TDAT_ENOMEM;
		goto out;
	}
	th_init(&m, &meta);
	start = p->ft.off = p->live->off;
	for (int i = 0; i < p->ft.ncols && !ret; i++) {
		if ((ret = p->cs.ret[i])) {
			if (p->cs.ch[i].c != c)
				memcpy(c->err, p->cs.ch[i].c->err, TDAT_MSG_LEN);	/* a helper's */
			break;
		}
		sink_write(&out, p->cs.out[i].buf, p->cs.out[i].len);
		pq_chunk_place(&p->cs.ch[i], &p->cs.st[i], &m, &raw);
	}
	if (!ret && meta.err)
		ret = TDAT_ENOMEM;
	if (!ret) {
		p->live->off = p->ft.off;
		pq_row_group(p->live, &meta, start, raw, p->ft.rows);
		ret = pq_write_out(c, p->live, &out);
	}
	if (close(p->fd) && !ret) {
		tdat_msg(c->err, "%s: %s", p->live->name, strerror(errno));
		ret = TDAT_EIO;
	}
	p->fd = -1;
out:
	if (ret == TDAT_ENOMEM)
		tdat_msg(c->err, "out of memory");
	sink_release(&out);
	sink_release(&meta);
	return ret;
}

int pq_drain(struct pq_ctx *c)
{
	struct pq_pending *p = c->pend;
	int ret;

	if (!p)
		return 0;
	c->pend = NULL;
	take_columns(&p->cs, c);	/* the columns no helper has started: here, not idle */
	for (int k = 0; k < p->nh; k++)
		pthread_join(p->h[k].th, NULL);
	p->nh = 0;
	ret = write_pending(c, p);
	if (pq_keep(c, p->live, p->ft.cols))
		p->ft.cols = NULL;	/* the table's spare now */
	pending_free(p);
	return ret;
}

void pq_pending_drop(struct pq_ctx *c)
{
	if (c->pend)
		pending_free(c->pend);
	c->pend = NULL;
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
