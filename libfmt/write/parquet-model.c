// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet-model.c - the analysis tables of the parquet writer: the rows the
 * model derives (model/derive.c), the same as the sqlite writer's tables
 * of the same names (sqlite-model.c, doc/tdat-sqlite.7), so that their rows
 * are equal (tests/cli/t-parquet-model.sh):
 *
 *   sched_slice, thread_state, slice, counter  streamed into row groups
 *       as they close;
 *   track, cpu_counter_track, process_counter_track, thread_track,
 *       cpu_track  a row as a track is first used;
 *   thread, process  at close;
 *
 * each as NAME.parquet in the dataset folder.  The model keeps per-thread
 * state only; rows are written as a row group every PQM_GROUP_ROWS rows of
 * a file.  A null is SQLite's NULL; a string is text as in the other
 * files of the dataset and in SQLite (pq_put_text()), so that thread.name
 * joins with an event's comm.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "write/parquet-model.h"

#define PQM_GROUP_ROWS (1 << 17)	/* about DuckDB's own row group (122,880 rows) */

enum { T_THREAD, T_PROCESS, T_SLICE, T_STATE, T_SLICES, T_TRACK, T_COUNTER, T_CPUTRACK,
       T_PCTRACK, T_THTRACK, T_CPUSLTRACK, NTABLES };

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
	struct mfile f[NTABLES];
	struct tdat_sink tmp;		/* a string being escaped */
};

/* The columns of each table: a name, an integer width, 0 for a string, -1 a double. */
struct mcol {
	const char *name;
	int bits;
};

#define TRACK_COLS { "id", 64 }, { "name", 0 }, { "type", 0 }

static const struct {
	const char *fname;
	int ncols;
	struct mcol cols[10];
} tables[NTABLES] = {
	{ "thread.parquet", 9, { { "utid", 32 }, { "tid", 64 }, { "name", 0 }, { "start_ts", 64 },
	  { "end_ts", 64 }, { "upid", 32 }, { "is_main_thread", 32 }, { "is_idle", 32 },
	  { "input", 32 } } },
	{ "process.parquet", 8, { { "upid", 32 }, { "pid", 64 }, { "name", 0 }, { "start_ts", 64 },
	  { "end_ts", 64 }, { "parent_upid", 32 }, { "cmdline", 0 }, { "input", 32 } } },
	{ "sched_slice.parquet", 8, { { "id", 64 }, { "ts", 64 }, { "dur", 64 }, { "cpu", 32 },
	  { "utid", 32 }, { "end_state", 0 }, { "priority", 32 }, { "ucpu", 32 } } },
	{ "thread_state.parquet", 10, { { "id", 64 }, { "ts", 64 }, { "dur", 64 }, { "cpu", 32 },
	  { "utid", 32 }, { "state", 0 }, { "io_wait", 32 }, { "blocked_function", 0 },
	  { "waker_utid", 32 }, { "ucpu", 32 } } },
	{ "slice.parquet", 9, { { "id", 64 }, { "ts", 64 }, { "dur", 64 }, { "track_id", 64 },
	  { "category", 0 }, { "name", 0 }, { "depth", 32 }, { "parent_id", 64 },
	  { "arg_set_id", 64 } } },
	{ "track.parquet", 3, { TRACK_COLS } },
	{ "counter.parquet", 4, { { "id", 64 }, { "ts", 64 }, { "track_id", 64 },
	  { "value", -1 } } },
	{ "cpu_counter_track.parquet", 5, { TRACK_COLS, { "cpu", 32 }, { "ucpu", 32 } } },
	{ "process_counter_track.parquet", 4, { TRACK_COLS, { "upid", 32 } } },
	{ "thread_track.parquet", 4, { TRACK_COLS, { "utid", 32 } } },
	{ "cpu_track.parquet", 5, { TRACK_COLS, { "cpu", 32 }, { "ucpu", 32 } } },
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
	ret = last ? pq_finish(m->ctx, &f->t, fd) : pq_flush(m->ctx, &f->t, fd);
	if (close(fd) && !ret) {
		tdat_msg(m->w->errmsg, "%s: %s", f->fname, strerror(errno));
		ret = TDAT_EIO;
	}
	if (ret == TDAT_EIO && !m->w->sink.err)
		m->w->sink.err = EIO;
	return ret;
}

static int mfile_init(struct mfile *f, int k)
{
	int ret;

	if (!(f->fname = strdup(tables[k].fname)) ||
	    pq_table_init(&f->t, f->fname, tables[k].ncols))
		return TDAT_ENOMEM;
	for (int i = 0; i < tables[k].ncols; i++) {
		const struct mcol *c = &tables[k].cols[i];

		ret = c->bits > 0 ? pq_col_int(&f->t, i, c->name, (unsigned)c->bits, true) :
		      c->bits ? pq_col_double(&f->t, i, c->name) : pq_col_str(&f->t, i, c->name);
		if (ret)
			return TDAT_ENOMEM;
		/* row ids count up by one, times nearly so: a few bits a row */
		f->t.cols[i].delta = c->bits == 64 && (!strcmp(c->name, "id") || !strcmp(c->name, "ts"));
	}
	f->t.sort_col = 0;
	f->t.rows_bound = true;
	return 0;
}

/* The row of table @k is complete: write a row group if it is full. */
static int row_end(struct pqm *m, int k)
{
	struct mfile *f = &m->f[k];

	pq_row_end(&f->t);
	return f->t.rows >= PQM_GROUP_ROWS ? mfile_flush(m, f, false) : 0;
}

static void put_int(struct pq_col *c, int64_t v)
{
	pq_put_int(c, (uint64_t)v);
}

/* A value, or null if negative (an unknown id). */
static void put_id(struct pq_col *c, int64_t v)
{
	if (v >= 0)
		pq_put_int(c, (uint64_t)v);
	else
		pq_put_null(c);
}

/* @n bytes of @s as text (to a NUL), like every string of the dataset (pq_put_text()). */
static void put_text(struct pqm *m, struct pq_col *c, const char *s, size_t n)
{
	(void)m;
	pq_put_text(c, s, n);
}

static void put_str(struct pqm *m, struct pq_col *c, const char *s)
{
	if (s)
		put_text(m, c, s, strlen(s));
	else
		pq_put_null(c);
}

/* ---- the model's rows ---- */

static int on_sched_slice(void *ctx, const struct sched_slice_row *r)
{
	struct pqm *m = ctx;
	struct pq_col *c = m->f[T_SLICE].t.cols;

	put_int(&c[0], r->id);
	put_int(&c[1], (int64_t)r->ts);
	put_int(&c[2], r->dur);
	put_int(&c[3], r->cpu);
	put_int(&c[4], r->utid);
	put_str(m, &c[5], r->end_state);
	put_int(&c[6], r->priority);
	put_int(&c[7], r->ucpu);
	return row_end(m, T_SLICE);
}

static int on_thread_state(void *ctx, const struct sched_state_row *r)
{
	struct pqm *m = ctx;
	struct pq_col *c = m->f[T_STATE].t.cols;

	put_int(&c[0], r->id);
	put_int(&c[1], (int64_t)r->ts);
	put_int(&c[2], r->dur);
	put_id(&c[3], r->cpu);
	put_int(&c[4], r->utid);
	put_str(m, &c[5], r->state);
	put_id(&c[6], r->io_wait);
	put_str(m, &c[7], r->blocked_function);
	put_id(&c[8], r->waker_utid);
	put_id(&c[9], r->ucpu);
	return row_end(m, T_STATE);
}

static int on_slice(void *ctx, const struct dv_slice *s)
{
	struct pqm *m = ctx;
	struct pq_col *c = m->f[T_SLICES].t.cols;

	put_int(&c[0], s->id);
	put_int(&c[1], (int64_t)s->ts);
	put_int(&c[2], s->dur);
	put_int(&c[3], s->track_id);
	put_str(m, &c[4], s->category);
	put_text(m, &c[5], s->name, s->name_len);
	put_int(&c[6], s->depth);
	put_id(&c[7], s->parent_id);
	pq_put_null(&c[8]);
	return row_end(m, T_SLICES);
}

/* A row of track, and one of the table of its kind. */
static int on_track(void *ctx, const struct dv_track *t)
{
	static const int sub[] = {
		[DVT_CPU_COUNTER] = T_CPUTRACK, [DVT_PROCESS_COUNTER] = T_PCTRACK,
		[DVT_THREAD] = T_THTRACK, [DVT_CPU] = T_CPUSLTRACK,
	};
	struct pqm *m = ctx;
	int k = sub[t->kind], ret;

	for (int i = 0; i < 2; i++) {
		struct pq_col *c = m->f[i ? k : T_TRACK].t.cols;

		put_int(&c[0], t->id);
		put_str(m, &c[1], t->name);
		put_str(m, &c[2], t->type);
		if (i && (t->kind == DVT_CPU_COUNTER || t->kind == DVT_CPU)) {
			put_id(&c[3], t->cpu);
			put_id(&c[4], t->ucpu);
		} else if (i) {
			put_id(&c[3], t->kind == DVT_THREAD ? t->utid : t->upid);
		}
		if ((ret = row_end(m, i ? k : T_TRACK)))
			return ret;
	}
	return 0;
}

static int on_counter(void *ctx, const struct dv_counter *r)
{
	struct pqm *m = ctx;
	struct pq_col *c = m->f[T_COUNTER].t.cols;

	put_int(&c[0], r->id);
	put_int(&c[1], (int64_t)r->ts);
	put_int(&c[2], r->track_id);
	pq_put_double(&c[3], r->value);
	return row_end(m, T_COUNTER);
}

static int on_thread(void *ctx, const struct pm_thread *t)
{
	struct pqm *m = ctx;
	struct pq_col *c = m->f[T_THREAD].t.cols;

	put_int(&c[0], t->utid);
	put_int(&c[1], t->tid);
	put_str(m, &c[2], t->name);
	t->has_start ? put_int(&c[3], (int64_t)t->start_ts) : pq_put_null(&c[3]);
	t->has_end ? put_int(&c[4], (int64_t)t->end_ts) : pq_put_null(&c[4]);
	put_id(&c[5], t->upid);
	t->upid >= 0 ? put_int(&c[6], t->is_main) : pq_put_null(&c[6]);
	put_int(&c[7], t->is_idle);
	put_int(&c[8], t->input);
	return row_end(m, T_THREAD);
}

static int on_process(void *ctx, const struct pm_process *p)
{
	struct pqm *m = ctx;
	struct pq_col *c = m->f[T_PROCESS].t.cols;

	put_int(&c[0], p->upid);
	put_int(&c[1], p->pid);
	put_str(m, &c[2], p->name);
	p->has_start ? put_int(&c[3], (int64_t)p->start_ts) : pq_put_null(&c[3]);
	p->has_end ? put_int(&c[4], (int64_t)p->end_ts) : pq_put_null(&c[4]);
	put_id(&c[5], p->parent_upid);
	put_str(m, &c[6], p->cmdline);
	put_int(&c[7], p->input);
	return row_end(m, T_PROCESS);
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
	for (int k = 0; k < NTABLES && !ret; k++)
		ret = mfile_flush(m, &m->f[k], true);
	return ret;
}

struct pqm *pqm_new(struct tdat_writer *w, struct pq_ctx *ctx, int dirfd)
{
	struct derive_ops ops = {
		.sched_slice = on_sched_slice, .thread_state = on_thread_state, .slice = on_slice,
		.track = on_track, .counter = on_counter, .thread = on_thread,
		.process = on_process,
	};
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
	for (int k = 0; k < NTABLES; k++)
		if (mfile_init(&m->f[k], k))
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
	for (int k = 0; k < NTABLES; k++) {
		pq_table_release(&m->f[k].t);
		free(m->f[k].fname);
	}
	sink_release(&m->tmp);
	free(m);
}
