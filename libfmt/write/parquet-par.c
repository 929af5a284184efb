// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet-par.c - row groups' column chunks encoded and compressed on
 * helper threads (tdat_writer_set_jobs()) while the caller goes on filling
 * the next rows: the same files as one thread.
 *
 * When a table's row group is flushed with helpers (pq_launch()), its
 * column buffers move into a frozen copy of the table and the table goes on
 * with empty ones from the pool (pq_ctx.bp).  The row group joins a queue
 * of row groups in flight; the helpers (started with the first, kept until
 * pq_ctx_release()) each take the oldest row group's work left: a packed
 * table's records to unpack into its columns first (pq_table_pack(); then
 * the records' memory goes), then its columns, the largest first (the
 * caller waits less for the last), each built into pages in a memory sink
 * with a context of their own (zstd, scratch buffers), counting offsets
 * from the chunk's start.  A row group is drained (pq_drain()) when its
 * table is flushed on the caller's thread or ends, when the queue holds
 * more than PQ_FLIGHT bytes or PQ_FLIGHT_MAX row groups (the oldest, until
 * it has room), or, done, at the next flush: the caller unpacks or encodes
 * what no helper has taken yet, waits for the others, then writes its
 * chunks in column order into the table's file and places each
 * (pq_chunk_place(): offsets and ColumnChunk structs), then its RowGroup
 * struct, and gives the buffers back to the pool.  A table's row groups
 * are drained in their order, so each lands where one thread would have
 * put it; the flush decisions do not depend on the queue, so the files do
 * not depend on the thread count.  Without helpers (or for a row group of
 * no rows) the caller takes the one-thread path (pq_chunks()).
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

/*
 * A flush for parquet.c's budget launches about 9 MiB of row groups at
 * once: with room for one such burst the caller, the slowest thread, seldom
 * encodes what a helper would.  At 8 MiB it did 11-15% more work (perf),
 * and with the records unpacked on the helper the run took 1.15 of the
 * time; 16 MiB took the same time as 12 and 5 MiB more memory.
 */
#define PQ_FLIGHT ((size_t)12 << 20)	/* bytes of the row groups in flight, but one */
#define PQ_FLIGHT_MAX 32	/* row groups in flight */

struct chunks {
	struct pq_table *t;
	struct pq_cchunk *ch;
	struct pq_stats *st;
	struct tdat_sink *out;
	int *ret;
	int *order;		/* the columns, the largest first */
	int next;		/* the next of them to take (under the pool's lock) */
	int done;		/* columns encoded (under the pool's lock) */
};

/* Where a packed row group's records are (pq_table_pack()). */
enum { UNPACK_TODO, UNPACK_BUSY, UNPACK_DONE };

/* A row group in flight (see the top of the file). */
struct pq_pending {
	struct pq_table ft;	/* frozen: its own columns, the buffers moved into them */
	struct pq_table *live;
	int fd;			/* its own descriptor of the table's file (-1: none) */
	size_t bytes;		/* its buffers' bytes (ft.buffered) */
	int unpack;		/* UNPACK_*: its columns can be taken when DONE */
	bool failed;		/* a buffer ran out of memory: nothing is encoded */
	struct chunks cs;
	struct pq_pending *next;	/* in the queue */
};

/* The helpers and the queue of row groups in flight, oldest first. */
struct pq_pool {
	pthread_mutex_t mu;
	pthread_cond_t work;	/* a column to take, or stop */
	pthread_cond_t done;	/* a row group encoded */
	struct pq_pending *head, *tail;
	int n;
	size_t bytes;
	bool stop;
	pthread_t th[PQ_MAX_HELPERS];
	int nth;
};

int pq_chunks(struct pq_ctx *c, struct pq_table *t, struct tdat_sink *out, struct thrift *meta,
	      uint64_t *raw)
{
	int ret = 0;

	for (int i = 0; i < t->ncols && !ret; i++)
		ret = pq_chunk(c, t, i, out, meta, raw);
	return ret;
}

/* Encode column @i of @p with context @c (the pool's lock not held). */
static void encode(struct pq_pending *p, int i, struct pq_ctx *c)
{
	struct chunks *cs = &p->cs;

	cs->ch[i] = (struct pq_cchunk){ .c = c, .t = cs->t, .col = &cs->t->cols[i],
					.out = &cs->out[i] };
	cs->ret[i] = p->failed ? TDAT_ENOMEM : pq_chunk_encode(&cs->ch[i], &cs->st[i]);
}

/* A column encoded (the pool's lock held). */
static void column_done(struct pq_pool *pool, struct pq_pending *p)
{
	if (++p->cs.done == p->cs.t->ncols)
		pthread_cond_broadcast(&pool->done);
}

/* Whether @p has its records or a column left to take (the pool's lock held). */
static bool has_work(const struct pq_pending *p)
{
	return p->unpack == UNPACK_TODO ||
	       (p->unpack == UNPACK_DONE && p->cs.next < p->cs.t->ncols);
}

/* The oldest row group with work left, or NULL (the pool's lock held). */
static struct pq_pending *with_work(struct pq_pool *pool)
{
	struct pq_pending *p = pool->head;

	while (p && !has_work(p))
		p = p->next;
	return p;
}

static void order_columns(struct chunks *cs);

/*
 * Put @p's records into its columns, then order them for the taking
 * (the pool's lock held on entry and on return, not between).
 */
static void unpack_rows(struct pq_pool *pool, struct pq_pending *p)
{
	p->unpack = UNPACK_BUSY;
	pthread_mutex_unlock(&pool->mu);
	pq_unpack(&p->ft, p->ft.cols);
	p->failed = pq_cols_failed(&p->ft);
	if (p->ft.unpack)	/* the records' memory goes now, not with the chunks' */
		sink_release(&p->ft.cols[p->ft.ncols].vals);
	order_columns(&p->cs);
	pthread_mutex_lock(&pool->mu);
	p->unpack = UNPACK_DONE;
	pthread_cond_broadcast(&pool->work);
	pthread_cond_broadcast(&pool->done);
}

struct helper_arg {
	struct pq_pool *pool;
	struct pq_ctx *c;
};

static void *helper_run(void *arg)
{
	struct pq_pool *pool = ((struct helper_arg *)arg)->pool;
	struct pq_ctx *c = ((struct helper_arg *)arg)->c;
	struct pq_pending *p;

	free(arg);
	pthread_mutex_lock(&pool->mu);
	while (!pool->stop) {
		int i;

		if (!(p = with_work(pool))) {
			pthread_cond_wait(&pool->work, &pool->mu);
			continue;
		}
		if (p->unpack == UNPACK_TODO) {
			unpack_rows(pool, p);
			continue;
		}
		i = p->cs.order[p->cs.next++];
		pthread_mutex_unlock(&pool->mu);
		encode(p, i, c);
		pthread_mutex_lock(&pool->mu);
		column_done(pool, p);
	}
	pthread_mutex_unlock(&pool->mu);
	return NULL;
}

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

/* Free what @p holds (its chunks and frozen buffers); no helper works on it. */
static void pending_free(struct pq_pending *p)
{
	chunks_free(&p->cs, p->ft.ncols);
	pq_cols_release(p->ft.cols, p->ft.nbufs);
	free(p->ft.cols);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

/*
 * Move @t's row group into @p->ft; @t goes on with empty buffers (from the
 * pool, the first of each the size of the one it had: pq_hint()).
 */
static int freeze(struct pq_pending *p, struct pq_table *t)
{
	struct pq_col *cols = calloc((size_t)t->nbufs + 1, sizeof(*cols));

	p->ft = *t;
	if (!cols) {
		p->ft.ncols = 0;
		p->ft.cols = NULL;
		return TDAT_ENOMEM;
	}
	pq_cols_empty(t, cols, t->nbufs);
	for (int i = 0; i < t->nbufs; i++) {
		struct pq_col full = t->cols[i];

		t->cols[i].vals = cols[i].vals;
		t->cols[i].defs = cols[i].defs;
		t->cols[i].lens = cols[i].lens;
		pq_hint(&t->cols[i], &full);
		t->cols[i].nnull = t->cols[i].nrows = t->cols[i].nempty = 0;
		cols[i] = full;
	}
	p->ft.cols = cols;
	p->bytes = t->buffered;
	t->total_rows += t->rows;
	t->rows = 0;
	t->buffered = t->rec_done = 0;
	return 0;
}

bool pq_async_fits(const struct pq_ctx *c, const struct pq_table *t)
{
	return c->nmore && t->rows;
}

/* The pool of @c, its helpers started; NULL if none could start. */
static struct pq_pool *pool_of(struct pq_ctx *c)
{
	struct pq_pool *pool = c->pool;

	if (pool)
		return pool;
	if (!(pool = calloc(1, sizeof(*pool))))
		return NULL;
	pthread_mutex_init(&pool->mu, NULL);
	pthread_cond_init(&pool->work, NULL);
	pthread_cond_init(&pool->done, NULL);
	for (int k = 0; k < c->nmore && k < PQ_MAX_HELPERS; k++) {
		struct helper_arg *a = malloc(sizeof(*a));

		if (!a)
			break;
		*a = (struct helper_arg){ .pool = pool, .c = &c->more[k] };
		if (thread_start(&pool->th[pool->nth], TDAT_THREAD_PARQUET, helper_run, a)) {
			free(a);
			break;
		}
		pool->nth++;
	}
	c->pool = pool;
	return pool;
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
	if (p->failed) {
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

/*
 * Finish @p: encode the columns no helper has taken (here, not idle), wait
 * for the others, take it out of the queue; write it (the pool's lock held
 * on entry, not on return).
 */
static int finish(struct pq_ctx *c, struct pq_pool *pool, struct pq_pending *p)
{
	struct pq_pending **pp = &pool->head, *prev = NULL;
	int ret;

	while (p->unpack == UNPACK_BUSY)
		pthread_cond_wait(&pool->done, &pool->mu);
	if (p->unpack == UNPACK_TODO)
		unpack_rows(pool, p);
	while (p->cs.next < p->cs.t->ncols) {
		int i = p->cs.order[p->cs.next++];

		pthread_mutex_unlock(&pool->mu);
		encode(p, i, c);
		pthread_mutex_lock(&pool->mu);
		column_done(pool, p);
	}
	while (p->cs.done < p->cs.t->ncols)
		pthread_cond_wait(&pool->done, &pool->mu);
	for (; *pp != p; pp = &(*pp)->next)
		prev = *pp;
	*pp = p->next;
	if (pool->tail == p)
		pool->tail = prev;
	pool->n--;
	pool->bytes -= p->bytes;
	pthread_mutex_unlock(&pool->mu);
	ret = write_pending(c, p);
	pending_free(p);	/* its buffers back to the pool */
	return ret;
}

/* The next row group to drain: @arg's (a table's) oldest, any table's if NULL (lock held). */
static struct pq_pending *oldest_of(const struct pq_pool *pool, const void *arg)
{
	struct pq_pending *p = pool->head;

	while (p && arg && p->live != arg)
		p = p->next;
	return p;
}

/*
 * The oldest row group if it is encoded already, or while the queue has no
 * room for *@arg (a size_t) bytes more; else NULL (lock held).
 */
static struct pq_pending *in_the_way(const struct pq_pool *pool, const void *arg)
{
	struct pq_pending *p = pool->head;

	return p && (p->cs.done == p->cs.t->ncols || pool->n >= PQ_FLIGHT_MAX ||
		     pool->bytes + *(const size_t *)arg > PQ_FLIGHT) ? p : NULL;
}

/* Finish the row groups @pick names, one after the other, until it names none. */
static int drain_while(struct pq_ctx *c,
		       struct pq_pending *(*pick)(const struct pq_pool *, const void *),
		       const void *arg)
{
	struct pq_pool *pool = c->pool;
	struct pq_pending *p;
	int ret = 0;

	if (!pool)
		return 0;
	pthread_mutex_lock(&pool->mu);
	while (!ret && (p = pick(pool, arg))) {
		ret = finish(c, pool, p);	/* unlocks */
		pthread_mutex_lock(&pool->mu);
	}
	pthread_mutex_unlock(&pool->mu);
	return ret;
}

int pq_drain(struct pq_ctx *c, const struct pq_table *t)
{
	return drain_while(c, oldest_of, t);
}

/*
 * Drain the oldest row groups that are encoded already, and, while the
 * queue has no room for @bytes more, the oldest ones.
 */
static int make_room(struct pq_ctx *c, size_t bytes)
{
	return drain_while(c, in_the_way, &bytes);
}

int pq_launch(struct pq_ctx *c, struct pq_table *t, int fd)
{
	struct pq_pending *p;
	struct pq_pool *pool;
	int ret;

	if ((ret = make_room(c, t->buffered)))
		return ret;
	if (!(pool = pool_of(c)) || !(p = calloc(1, sizeof(*p))))
		return TDAT_ENOMEM;
	p->fd = -1;
	if ((ret = freeze(p, t)) || (ret = chunks_init(&p->cs, &p->ft))) {
		pending_free(p);
		return ret;
	}
	p->live = t;
	p->unpack = t->unpack ? UNPACK_TODO : UNPACK_DONE;
	/* the caller closes its descriptor when this returns */
	if ((p->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		tdat_msg(c->err, "%s: %s", t->name, strerror(errno));
		pending_free(p);	/* the row group is lost: the writer fails */
		return TDAT_EIO;
	}
	pthread_mutex_lock(&pool->mu);
	if (pool->tail)
		pool->tail->next = p;
	else
		pool->head = p;
	pool->tail = p;
	pool->n++;
	pool->bytes += p->bytes;
	pthread_cond_broadcast(&pool->work);
	pthread_mutex_unlock(&pool->mu);
	if (!pool->nth)
		return pq_drain(c, t);	/* no thread: here, now */
	return 0;
}

void pq_pool_stop(struct pq_ctx *c)
{
	struct pq_pool *pool = c->pool;

	if (!pool)
		return;
	pthread_mutex_lock(&pool->mu);
	pool->stop = true;
	pthread_cond_broadcast(&pool->work);
	pthread_mutex_unlock(&pool->mu);
	for (int k = 0; k < pool->nth; k++)
		pthread_join(pool->th[k], NULL);
	while (pool->head) {
		struct pq_pending *p = pool->head;

		pool->head = p->next;
		pending_free(p);
	}
	pthread_mutex_destroy(&pool->mu);
	pthread_cond_destroy(&pool->work);
	pthread_cond_destroy(&pool->done);
	free(pool);
	c->pool = NULL;
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
