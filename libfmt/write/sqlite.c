/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite.c - the "sqlite" format: one SQLite database shaped like
 * Perfetto's trace processor tables (doc/tdat-sqlite.7 is the schema).
 *
 * Every event is one row of a typed table named after its event
 * (sched_switch, sys_enter, ...) holding the common columns and one column
 * per field; ftrace_event (and raw) and args are views over those tables,
 * so the cost is about one row per event.  As events stream by, the
 * model (model/derive.c) gives each event its utid and derives the rows of
 * sched_slice, thread_state, slice, counter and their tracks; close()
 * writes thread, process, stats and bounds, creates the views and indexes
 * and commits.
 *
 * The event tables and their views are sqlite-tables.c's; sqlite-model.c
 * stores the model's rows (sqlite.h is what they share).  Rows go through
 * sqlite-rows.c (batched; stored by a thread of their own from -j 2 on)
 * into the file's pages (sqlite-file.c, sqlite-pages.c), and their index
 * entries into the indexes' (sqlite-index.c), without SQLite; close() then
 * opens the file with SQLite, in one transaction with the journal and
 * syncing off (the file is a temporary one the tool renames on success),
 * for the rows that could not be appended and the views.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sqlite3.h>
#include <traceevent/event-parse.h>

#include "sqlite.h"

/* ---- one event ---- */

/* An array field as JSON text: [1,2,3]. */
static int put_array(struct sq_table *t, struct sq_val *v, const struct tdat_event *ev,
		     const struct tfield *f, const unsigned char *p, unsigned len)
{
	unsigned elem = f->elem;
	bool sign = (f->flags & TEP_FIELD_IS_SIGNED) != 0;
	char *d, *o;

	if (elem != 1 && elem != 2 && elem != 4 && elem != 8)
		elem = 1;
	if (!(d = row_arena(t, (size_t)len / elem * 22 + 2)))
		return TDAT_ENOMEM;
	o = d;
	*o++ = '[';
	for (unsigned i = 0; i + elem <= len; i += elem) {
		uint64_t x = field_raw(ev->file, p + i, elem);

		if (i)
			*o++ = ',';
		if (sign && elem < 8)
			x = (uint64_t)((int64_t)(x << (64 - 8 * elem)) >> (64 - 8 * elem));
		if (sign && (int64_t)x < 0) {
			*o++ = '-';
			x = (uint64_t)0 - x;
		}
		o += fmt_u64(o, x);
	}
	*o++ = ']';
	v->type = V_TEXT;
	v->u.off = t->cur->alen;
	v->len = (unsigned)(o - d);
	t->cur->alen += v->len;
	return 0;
}

static int put_field(struct sq_table *t, struct sq_val *v, const struct tdat_event *ev,
		     const struct tfield *f)
{
	const unsigned char *p;
	unsigned len;
	uint64_t x;

	if (f->kind != TK_STR && f->kind != TK_ARRAY) {
		if (tfield_num(ev, f, &x))
			v_int(v, (int64_t)x);
		return 0;
	}
	if (!tfield_bytes(ev, f, &p, &len))
		return 0;
	return f->kind == TK_STR ? v_text(t, v, p, len) : put_array(t, v, ev, f, p, len);
}

/* @f's symbol as the text output prints it (NULL if the field is outside the event). */
static int put_sym(struct sq_table *t, struct sq_val *v, const struct tdat_event *ev,
		   const struct ttype *tt, const struct tfield *f)
{
	const char *p;
	unsigned len;

	return tfield_sym(tt, ev, f, &p, &len) ? v_text(t, v, p, len) : 0;	/* kept: fields.c */
}

static void count(struct sq *q, struct sq_input *in, const struct tdat_event *ev)
{
	struct sq_cpu *c;

	if (!q->next_id || ev->ts < q->first_ts)
		q->first_ts = ev->ts;
	if (ev->ts > q->last_ts)
		q->last_ts = ev->ts;
	kseen_event(&in->seen, ev);
	if (ev->cpu < 0 || ev->cpu >= in->ncpus)
		return;
	c = &q->cpus[in->ucpu_base + ev->cpu];
	c->events++;
	if (ev->missed > 0)
		c->lost += ev->missed;
	else if (ev->missed < 0)
		c->lost_unknown++;
}

static int put(struct sq *q, const struct tdat_event *ev)
{
	struct sq_input *in = &q->in[ev->input];
	const struct ttype *tt = file_type(ev->file, ev);
	const struct sq_type *ty;
	struct sq_table *t;
	struct sq_val *v;
	uint64_t flags;
	void **slot;
	int utid, ret;

	if (!tt || (utid = derive_thread(q->dv, ev, tt)) < 0)
		return TDAT_ENOMEM;
	if (!(slot = idtab_slot(&in->types, tt->id)))
		return TDAT_ENOMEM;
	if (!(ty = *slot) && !(ty = *slot = sq_map_type(q, tt, &ret)))
		return ret;
	t = ty->t;
	v = row_begin(t);
	count(q, in, ev);
	v_int(&v[0], q->next_id++);
	v_int(&v[1], (int64_t)ev->ts);
	v_int(&v[2], ev->cpu);
	v_int(&v[3], utid);
	if (tt->cflags.size) {
		flags = 0;
		tfield_num(ev, &tt->cflags, &flags);
		v_int(&v[4], (int64_t)flags);
	}
	if (tt->preempt.size) {
		flags = 0;
		tfield_num(ev, &tt->preempt, &flags);
		v_int(&v[5], (int64_t)flags);
	}
	v_static(&v[6], tdat_file_buffer(ev->file, ev->buffer)->name);
	v_int(&v[7], ev->input);
	for (int i = 0, k = 0; i < tt->nfields; i++) {
		const struct tfield *f = &tt->fields[i];

		if ((ret = put_field(t, &v[ty->colmap[k++]], ev, f)) ||
		    (f->sym && (ret = put_sym(t, &v[ty->colmap[k++]], ev, tt, f))))
			return ret;
	}
	if ((ret = row_end(&q->d, t)))
		return ret;
	return derive_put(q->dv, ev, tt, utid);
}

static int sqlite_put(struct tdat_writer *w, const struct tdat_event *ev)
{
	struct sq *q = w->priv;

	if (!q->err && (q->err = put(q, ev)) && !*w->errmsg)
		tdat_msg(w->errmsg, "%s", tdat_strerror(q->err));
	return q->err;
}

/* ---- the fixed tables ---- */

/* The tables that are not the model's: the first FX_STATS, then the model's, then the others. */
static const struct {
	const char *name;
	int ncols;
	const char *sql;
} fixed[NFX] = {
	{ "metadata", 5, "CREATE TABLE metadata(name TEXT NOT NULL, key_type TEXT NOT NULL,"
	  " int_value INTEGER, str_value TEXT, input INTEGER)" },
	{ "cpu", 4, "CREATE TABLE cpu(id INTEGER PRIMARY KEY, ucpu INTEGER, cpu INTEGER, input INTEGER)" },
	{ "stats", 7, "CREATE TABLE stats(id INTEGER PRIMARY KEY, name TEXT, idx INTEGER,"
	  " severity TEXT, source TEXT, value INTEGER, description TEXT)" },
	{ "trace_bounds", 2, "CREATE TABLE trace_bounds(start_ts INTEGER, end_ts INTEGER)" },
};

/*
 * The indexes, on integer columns, are written with the file as the rows
 * are stored (sqlite-index.c).  One whose key is not an integer in some
 * row is built by SQLite at close instead, sorting the whole table with a
 * small page cache (the sort spills to temporary files beyond it, rather
 * than into memory as temp_store=MEMORY would) on this thread: SQLite's
 * sorting threads (PRAGMA threads) cost more CPU than they save and 8 MiB
 * of memory each (big-mixed.dat's four indexes, sqlite3 alone: 1.0 s of
 * CPU and 42 MiB with threads=2 and 8 MiB, 0.6 s and 19 MiB so).
 */
#define SORT_PRAGMAS "PRAGMA cache_size=-2048; PRAGMA threads=0;"

static const struct {
	enum mt_table table;
	const char *name;
	const char *cols[SQX_KEYS];
} indexes[] = {
	{ MT_SCHED_SLICE, "sched_slice_cpu_ts", { "cpu", "ts" } },
	{ MT_SCHED_SLICE, "sched_slice_utid", { "utid", "ts" } },
	{ MT_THREAD_STATE, "thread_state_utid", { "utid", "ts" } },
	{ MT_COUNTER, "counter_track_ts", { "track_id", "ts" } },
	{ MT_SLICE, "slice_track_ts", { "track_id", "ts" } },
	{ MT_THREAD, "thread_tid", { "tid" } },
	{ MT_PROCESS, "process_pid", { "pid" } },
};

static const char views[] =
	"CREATE VIEW raw AS SELECT * FROM ftrace_event;\n"
	"CREATE VIEW sched AS SELECT id, ts, dur, cpu, utid, end_state, priority, ucpu,"
	" ts + dur AS ts_end FROM sched_slice;\n"
	"CREATE VIEW counter_track AS SELECT id, name, type FROM cpu_counter_track"
	" UNION ALL SELECT id, name, type FROM process_counter_track;\n"
	"CREATE VIEW sched_with_thread_process AS SELECT s.id AS id, s.ts AS ts, s.dur AS dur,"
	" s.utid AS utid, t.name AS thread_name, t.upid AS upid, p.name AS process_name,"
	" s.cpu AS cpu, s.end_state AS end_state, s.priority AS priority FROM sched_slice s"
	" LEFT JOIN thread t ON t.utid = s.utid LEFT JOIN process p ON p.upid = t.upid;\n";

/* A metadata row of input @in. */
static int meta(struct sq *q, int in, const char *name, int64_t i, const char *s)
{
	struct sq_val *v = row_begin(q->fx[FX_META]);

	v_int(&v[4], in);
	v_static(&v[0], name);
	v_static(&v[1], q->ninputs > 1 ? "multi" : "single");
	if (!s)
		v_int(&v[2], i);
	else if (v_text(q->fx[FX_META], &v[3], s, strlen(s)))
		return TDAT_ENOMEM;
	return row_end(&q->d, q->fx[FX_META]);
}

/* Header facts of each input (Perfetto's keys where it has one). */
static int metadata(struct sq *q)
{
	static const char *const uname_keys[] = { "system_name", "system_nodename",
						  "system_release", "system_machine" };
	int ret = 0;

	for (int i = 0; i < q->ninputs && !ret; i++) {
		const struct tdat_file_info *fi = tdat_file_info(tdat_merge_file(q->w->merge, i));
		const char *p = fi->uname;

		for (int k = 0; k < 4 && *p && !ret; k++) {
			size_t n = strcspn(p, " ");
			char *word = strndup(p, n);

			ret = word ? meta(q, i, uname_keys[k], 0, word) : TDAT_ENOMEM;
			free(word);
			p += n + (p[n] == ' ');
		}
		if (ret || (ret = meta(q, i, "trace_name", 0, fi->name)) ||
		    (ret = meta(q, i, "trace_type", 0, "trace.dat")) ||
		    (ret = meta(q, i, "trace_size_bytes", (int64_t)fi->file_size, NULL)) ||
		    (ret = meta(q, i, "trace_file_version", fi->version, NULL)) ||
		    (ret = meta(q, i, "trace_clock", 0, fi->clock)) ||
		    (ret = meta(q, i, "trace_cpu_count", fi->cpus, NULL)) ||
		    (ret = meta(q, i, "trace_page_size", fi->page_size, NULL)) ||
		    (ret = meta(q, i, "trace_compression", 0, fi->compression)) ||
		    (*fi->tracecmd_version && (ret = meta(q, i, "tracecmd_version", 0, fi->tracecmd_version))) ||
		    (fi->ts_offset && (ret = meta(q, i, "trace_ts_offset", fi->ts_offset, NULL))))
			return ret;
		if (*fi->compression_version && strcmp(fi->compression, "none"))
			ret = meta(q, i, "trace_compression_version", 0, fi->compression_version);
	}
	return ret;
}

/* Which of input @i's CPU numbers exist: the header's count, and those its buffers list. */
static void mark_present(struct sq *q, int i)
{
	struct tdat_file *f = tdat_merge_file(q->w->merge, i);
	struct sq_cpu *cp = &q->cpus[q->in[i].ucpu_base];

	for (int c = 0; c < tdat_file_info(f)->cpus && c < q->in[i].ncpus; c++)
		cp[c].present = true;
	for (int b = 0; b < f->nbuffers; b++)
		for (int c = 0; c < f->buffers[b].info.ncpus; c++)
			if (f->buffers[b].info.cpus[c].cpu >= 0 && f->buffers[b].info.cpus[c].cpu < q->in[i].ncpus)
				cp[f->buffers[b].info.cpus[c].cpu].present = true;
}

/*
 * ucpu: the CPU numbers of input 0, then those of input 1, ...; a cpu row
 * for each that exists (a damaged file may list CPU 60000 alone).
 */
static int cpus(struct sq *q)
{
	int total = 0;

	for (int i = 0; i < q->ninputs; i++)
		total += q->in[i].ncpus = derive_cpus(q->dv, i, &q->in[i].ucpu_base);
	if (!(q->cpus = calloc((size_t)total + 1, sizeof(*q->cpus))))
		return TDAT_ENOMEM;
	q->ncpus = total;
	for (int i = 0; i < q->ninputs; i++) {
		mark_present(q, i);
		for (int c = 0; c < q->in[i].ncpus; c++) {
			int u = q->in[i].ucpu_base + c;
			struct sq_val *v;

			if (!q->cpus[u].present)
				continue;
			v = row_begin(q->fx[FX_CPU]);
			v_int(&v[0], u);
			v_int(&v[1], u);
			v_int(&v[2], c);
			v_int(&v[3], i);
			if (row_end(&q->d, q->fx[FX_CPU]))
				return TDAT_EIO;
		}
	}
	return 0;
}

static int open_db(struct sq *q, struct tdat_writer *w)
{
	struct derive_ops ops = sq_model_ops;
	int ret;

	if (w->flags & TDAT_W_GZIP) {
		tdat_msg(w->errmsg, "a database cannot be gzipped");
		return TDAT_EINVAL;
	}
	if ((ret = sqdb_create(&q->d, w->path)))
		return ret;
	ops.ctx = q;
	q->ninputs = tdat_merge_nfiles(w->merge);
	q->in = calloc((size_t)q->ninputs + 1, sizeof(*q->in));
	q->dv = derive_new(w->merge, &ops);
	if (!q->in || !q->dv)
		return TDAT_ENOMEM;
	for (int i = 0; i < q->ninputs; i++)
		if (kseen_init(&q->in[i].seen, tdat_merge_file(w->merge, i)))
			return TDAT_ENOMEM;
	for (int i = 0; i < NFX; i++) {
		if (i == FX_STATS && (ret = sq_model_create(q)))
			return ret;
		if (!(q->fx[i] = sqdb_fixed_table(&q->d, fixed[i].name, fixed[i].ncols, fixed[i].sql)))
			return TDAT_ENOMEM;
	}
	for (size_t i = 0; i < sizeof(indexes) / sizeof(indexes[0]); i++)
		if ((ret = sqdb_index(q->mt[indexes[i].table], indexes[i].name, indexes[i].cols,
				      indexes[i].cols[1] ? 2 : 1)))
			return ret;
	q->fx[FX_CPU]->ipk = q->fx[FX_STATS]->ipk = true;
	if ((ret = metadata(q)) || (ret = cpus(q)))
		return ret;
	sqdb_start(&q->d, w->jobs > 1);
	return 0;
}

static int sqlite_open(struct tdat_writer *w)
{
	struct sq *q = calloc(1, sizeof(*q));

	if (!q)
		return TDAT_ENOMEM;
	w->priv = q;
	q->w = w;
	q->d.errmsg = w->errmsg;
	q->d.file.fd = -1;
	q->err = open_db(q, w);
	if (q->err && !*w->errmsg)
		tdat_msg(w->errmsg, "%s", tdat_strerror(q->err));
	return q->err;
}

/* ---- close ---- */

static int stat_row(struct sq *q, const char *name, int idx, const char *severity, int64_t value,
		    const char *desc)
{
	struct sq_val *v = row_begin(q->fx[FX_STATS]);

	v_int(&v[0], q->next_stat++);
	v_static(&v[1], name);
	v_int(&v[2], idx);
	v_static(&v[3], severity);
	v_static(&v[4], "trace");
	v_int(&v[5], value);
	v_static(&v[6], desc);
	return row_end(&q->d, q->fx[FX_STATS]);
}

/* The kernel's figures at the end for every CPU of input @i written, as trace processor names them. */
static int kernel_stats(struct sq *q, int i)
{
	struct tdat_file *f = tdat_merge_file(q->w->merge, i);
	const struct sq_input *in = &q->in[i];
	struct tdat_kernel_cpu_stats k;
	int ret = 0;

	for (int c = 0; c < in->ncpus && !ret; c++) {
		if (!q->cpus[in->ucpu_base + c].events)
			continue;
		kseen_cpu(&in->seen, f, c, &k);
		for (int j = 0; j < KSTAT_NFIELDS && !ret; j++)
			if (k.have & kstat_fields[j].bit)
				ret = stat_row(q, kstat_fields[j].tp_name, in->ucpu_base + c, "info",
					       (int64_t)kstat_value(&k, kstat_fields[j].bit),
					       kstat_fields[j].desc);
	}
	return ret;
}

static int stats(struct sq *q)
{
	const struct tdat_damage *d;
	int ret = 0, nd;

	for (int u = 0; u < q->ncpus && !ret; u++) {
		const struct sq_cpu *c = &q->cpus[u];

		if (!c->present && !c->events)
			continue;
		if ((ret = stat_row(q, "cpu_events", u, "info", c->events,
				    "events read on this ucpu (all buffers)")) ||
		    (ret = stat_row(q, "cpu_events_lost", u, "data_loss", c->lost,
				    "events the kernel counted as lost on this ucpu")))
			return ret;
		ret = stat_row(q, "cpu_lost_unknown", u, "data_loss", c->lost_unknown,
			       "times events were lost on this ucpu without a count");
	}
	for (int i = 0; i < q->ninputs && !ret; i++)
		ret = kernel_stats(q, i);
	d = tdat_merge_damage(q->w->merge, &nd);
	for (int i = 0; i < nd && !ret; i++) {
		const struct sq_input *in = &q->in[d[i].input];

		ret = stat_row(q, "damaged_bytes", in->ucpu_base + d[i].cpu, "error",
			       (int64_t)d[i].bytes, d[i].reason);
	}
	return ret;
}

static int flush_all(struct sq *q)
{
	int ret = 0;

	for (struct sq_table *t = q->tables; t && !ret; t = t->next)
		ret = sqdb_submit(&q->d, t);
	for (int i = 0; i < NFX && !ret; i++)
		ret = sqdb_submit(&q->d, q->fx[i]);
	for (int i = 0; i < MT_NTABLES && !ret; i++)
		ret = sqdb_submit(&q->d, q->mt[i]);
	return ret ? ret : sqdb_drain(&q->d);
}

static int sqlite_close(struct tdat_writer *w)
{
	struct sq *q = w->priv;
	struct sq_val *v;
	int ret;

	if (!q || q->err)
		return q ? q->err : TDAT_EINVAL;
	if ((ret = derive_finish(q->dv)) || (ret = stats(q)))
		return ret;
	v = row_begin(q->fx[FX_BOUNDS]);
	if (q->next_id) {
		v_int(&v[0], (int64_t)q->first_ts);
		v_int(&v[1], (int64_t)q->last_ts);
	}
	if ((ret = row_end(&q->d, q->fx[FX_BOUNDS])) || (ret = flush_all(q)) ||
	    (ret = sqdb_reopen(&q->d)) || (ret = sq_event_views(q)) || (ret = sqdb_exec(&q->d, SORT_PRAGMAS)) ||
	    (ret = sqdb_exec(&q->d, views)) || (ret = sqdb_sqlite_indexes(&q->d)) ||
	    (ret = sqdb_exec(&q->d, "COMMIT")))
		return ret;
	sqdb_stop(&q->d);
	for (int i = 0; i < q->d.ntables; i++) {
		sqlite3_finalize(q->d.tables[i]->late);
		q->d.tables[i]->late = NULL;
	}
	return sqlite3_close(q->d.db) == SQLITE_OK ? (q->d.db = NULL, 0) : sqdb_fail(&q->d, "close");
}

static void sqlite_free(struct tdat_writer *w)
{
	struct sq *q = w->priv;

	if (!q)
		return;
	sqdb_stop(&q->d);		/* before the tables it stores go */
	sqdb_release(&q->d);
	for (int i = 0; q->in && i < q->ninputs; i++) {
		idtab_release(&q->in[i].types, sq_free_type);
		kseen_release(&q->in[i].seen);
	}
	while (q->tables) {
		struct sq_table *t = q->tables;

		q->tables = t->next;
		table_free(t);
	}
	for (int i = 0; i < NFX; i++)
		table_free(q->fx[i]);
	for (int i = 0; i < MT_NTABLES; i++)
		table_free(q->mt[i]);
	sqlite3_close(q->d.db);	/* after the statements; rolls back if not committed */
	derive_free(q->dv);	/* after the rows: they point to its strings */
	free(q->cpus);
	free(q->in);
	free(q);
	w->priv = NULL;
}

const struct tdat_writer_ops tdat_writer_sqlite_ops = {
	.name = "sqlite",
	.threads = 1,		/* sqlite-rows.c's storing thread, from -j 2 on */
	.exts = ".db .sqlite .sqlite3",
	.fields = true,
	.output = TDAT_OUT_FILE,
	.open = sqlite_open,
	.put = sqlite_put,
	.close = sqlite_close,
	.free = sqlite_free,
};
