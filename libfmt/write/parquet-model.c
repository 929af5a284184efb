// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet-model.c - the analysis tables of the parquet writer: the rows the
 * model derives (model/derive.c), the same as the sqlite writer's tables
 * of the same names (sqlite-model.c, doc/tdat-sqlite.7), both made from
 * the tables' one description (model/tables.c: a column's type gives its
 * Parquet type, INTEGER of its width, DOUBLE or a string), so that their
 * rows are equal (tests/cli/t-parquet-model.sh):
 *
 *   sched_slice, thread_state, slice, counter  streamed into row groups
 *       as they close;
 *   track, cpu_counter_track, process_counter_track, thread_track,
 *       cpu_track  a row as a track is first used;
 *   thread, process  at close;
 *
 * each as NAME.parquet in the dataset folder.  The model keeps per-thread
 * state only; rows are written as a row group every PQM_GROUP_ROWS rows of
 * a file, or sooner when the tables together hold PQM_BUDGET bytes.  A null
 * is SQLite's NULL; a string is text as in the other files of the dataset
 * and in SQLite (pq_put_text()), so that thread.name joins with an event's
 * comm.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "write/parquet-model.h"

#define PQM_GROUP_ROWS (1 << 17)	/* about DuckDB's own row group (122,880 rows) */
#define PQM_BUDGET ((size_t)8 << 20)	/* bytes of rows all tables hold, at most */
#define PQM_LOW (PQM_BUDGET / 4)	/* what a flush for the budget leaves */

struct mfile {
	char *fname;
	struct pq_table t;
	bool created;
};

struct pqm {
	struct tdat_writer *w;
	struct pq_ctx *ctx;
	int dirfd;
	struct derive *dv;
	struct mfile f[MT_NTABLES];
	size_t buffered;		/* bytes of rows all tables hold (pq_row_end()) */
	struct tdat_sink tmp;		/* a string being escaped */
};

/* ---- files ---- */

static int mfile_flush(struct pqm *m, struct mfile *f, bool last)
{
	int flags = O_WRONLY | O_CLOEXEC | (f->created ? O_APPEND : O_CREAT | O_EXCL);
	int fd = openat(m->dirfd, f->fname, flags, 0666), ret;

	if (fd < 0) {
		m->w->sink.err = errno;
		tdat_msg(m->w->errmsg, "%s: %s", f->fname, strerror(errno));
		return TDAT_EIO;
	}
	f->created = true;
	m->buffered -= f->t.buffered;
	ret = last ? pq_finish(m->ctx, &f->t, fd) : pq_flush(m->ctx, &f->t, fd);
	if (close(fd) && !ret) {
		tdat_msg(m->w->errmsg, "%s: %s", f->fname, strerror(errno));
		ret = TDAT_EIO;
	}
	if (ret == TDAT_EIO && !m->w->sink.err)
		m->w->sink.err = EIO;
	return ret;
}

/* Table @k's file and schema, from its description (model/tables.c); buffers from @ctx's pool. */
static int mfile_init(struct mfile *f, const struct pq_ctx *ctx, int k)
{
	const struct mt_desc *d = &mt_tables[k];
	int ret;

	if (asprintf(&f->fname, "%s.parquet", d->name) < 0) {
		f->fname = NULL;
		return TDAT_ENOMEM;
	}
	if (pq_table_init(&f->t, ctx, f->fname, d->ncols))
		return TDAT_ENOMEM;
	for (int i = 0; i < d->ncols; i++) {
		const struct mt_col *c = &d->cols[i];

		ret = c->type == MT_I32 || c->type == MT_I64 ?
		      pq_col_int(&f->t, i, c->name, c->type == MT_I32 ? 32 : 64, true) :
		      c->type == MT_REAL ? pq_col_double(&f->t, i, c->name) :
		      pq_col_str(&f->t, i, c->name);
		if (ret)
			return TDAT_ENOMEM;
		/* row ids count up by one, times nearly so: a few bits a row */
		f->t.cols[i].delta = c->type == MT_I64 &&
				     (!strcmp(c->name, "id") || !strcmp(c->name, "ts"));
	}
	f->t.sort_col = 0;
	f->t.rows_bound = true;
	return 0;
}

/* The table whose row group holds the most bytes. */
static struct mfile *largest(struct pqm *m)
{
	struct mfile *big = &m->f[0];

	for (int k = 1; k < MT_NTABLES; k++)
		if (m->f[k].t.buffered > big->t.buffered)
			big = &m->f[k];
	return big;
}

/*
 * The row of table @k is complete: write a row group if it is full, and
 * when all tables hold more than PQM_BUDGET, the largest until they hold
 * PQM_LOW.  A table that fills slowly would otherwise keep its rows until
 * PQM_GROUP_ROWS, and memory would grow with the trace's length.
 */
static int row_end(struct pqm *m, int k)
{
	struct mfile *f = &m->f[k];
	int ret = 0;

	m->buffered += pq_row_end(&f->t);
	if (f->t.rows >= PQM_GROUP_ROWS && (ret = mfile_flush(m, f, false)))
		return ret;
	if (m->buffered <= PQM_BUDGET)
		return 0;
	while (!ret && m->buffered > PQM_LOW)
		ret = mfile_flush(m, largest(m), false);
	return ret;
}

/* ---- the model's rows ---- */

/* Column @c of @row appended to @pc (a string as text to a NUL, pq_put_text()). */
static void put_col(struct pq_col *pc, const struct mt_col *c, const void *row)
{
	const char *p;
	int64_t i;
	double x;
	size_t n;

	if (c->type == MT_TEXT && mt_text(c, row, &p, &n))
		pq_put_text(pc, p, n);
	else if (c->type == MT_REAL && mt_real(c, row, &x))
		pq_put_double(pc, x);
	else if ((c->type == MT_I32 || c->type == MT_I64) && mt_int(c, row, &i))
		pq_put_int(pc, (uint64_t)i);
	else
		pq_put_null(pc);
}

static int on_row(void *ctx, int k, const void *row)
{
	struct pqm *m = ctx;
	const struct mt_desc *d = &mt_tables[k];

	for (int i = 0; i < d->ncols; i++)
		put_col(&m->f[k].t.cols[i], &d->cols[i], row);
	return row_end(m, k);
}

/* ---- the interface ---- */

int pqm_put(struct pqm *m, const struct tdat_event *ev, const struct ttype *tt)
{
	int utid = derive_thread(m->dv, ev, tt), ret;

	if (utid < 0)
		return TDAT_ENOMEM;
	ret = derive_put(m->dv, ev, tt, utid);
	return ret ? ret : m->tmp.err ? TDAT_ENOMEM : 0;
}

int pqm_close(struct pqm *m)
{
	int ret = derive_finish(m->dv);

	if (!ret && m->tmp.err)
		ret = TDAT_ENOMEM;
	for (int k = 0; k < MT_NTABLES && !ret; k++)	/* as parquet_close() */
		if (m->f[k].t.rows)
			ret = mfile_flush(m, &m->f[k], false);
	for (int k = 0; k < MT_NTABLES && !ret; k++)
		ret = mfile_flush(m, &m->f[k], true);
	return ret;
}

struct pqm *pqm_new(struct tdat_writer *w, struct pq_ctx *ctx, int dirfd)
{
	struct derive_ops ops = { .row = on_row };
	struct pqm *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->w = w;
	m->ctx = ctx;
	m->dirfd = dirfd;
	m->tmp.fd = -1;
	ops.ctx = m;
	if (sink_init(&m->tmp, -1) || !(m->dv = derive_new(w->merge, &ops)))
		goto fail;
	for (int k = 0; k < MT_NTABLES; k++)
		if (mfile_init(&m->f[k], ctx, k))
			goto fail;
	return m;
fail:
	pqm_free(m);
	return NULL;
}

void pqm_free(struct pqm *m)
{
	if (!m)
		return;
	derive_free(m->dv);
	for (int k = 0; k < MT_NTABLES; k++) {
		pq_table_release(&m->f[k].t);
		free(m->f[k].fname);
	}
	sink_release(&m->tmp);
	free(m);
}
