// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet-model.c - the analysis tables of the parquet writer, from the
 * same models and by the same rules as the sqlite writer's tables of the
 * same names (sqlite-model.c, doc/tdat-sqlite.7), so that their rows are
 * equal (tests/cli/t-parquet-model.sh):
 *
 *   sched_slice.parquet, thread_state.parquet  the scheduling state
 *       machine's rows (model/sched.c), streamed into row groups as they
 *       close;
 *   thread.parquet, process.parquet  the process model (model/procs.c) at
 *       close.
 *
 * Every event goes to the process model (utids, names, forks) as in the
 * sqlite writer, and the scheduling events of the buffer each input takes
 * the role from to the state machine.  The models keep per-thread state
 * only; rows are written as a row group every PQM_GROUP_ROWS rows of a file.
 * A null is SQLite's NULL; a string is escaped as in the other files of the
 * dataset (parquet.c), so that thread.name joins with an event's comm.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "write/parquet-model.h"

#define PQM_GROUP_ROWS (1 << 18)

enum { M_SWITCH = 1, M_WAKE, M_WAKEUP, M_NEWTASK, M_BLOCKED, M_PRINT, M_FREQ, M_IDLE, NROLES };
enum { T_THREAD, T_PROCESS, T_SLICE, T_STATE, T_SLICES, T_TRACK, NTABLES };

/* An event type's role for the models, and the fields it reads. */
struct mtype {
	int role;
	const struct tfield *f[4];
};

struct minput {
	struct idtab types;	/* struct mtype by event type id */
	int role_buffer[NROLES];	/* the buffer a role comes from, -1 none yet */
	int ucpu_base, ncpus;
	struct sched_states states;
	bool waking;		/* sched_waking was recorded (its format is there) */
	int64_t last_state;	/* cache of the last prev_state decoded */
	const char *last_str;
};

struct mfile {
	char *fname;
	struct pq_table t;
	bool created;
};

struct pqm {
	struct tdat_writer *w;
	struct pq_ctx *ctx;
	int dirfd;
	struct procmodel *pm;
	struct sched_sm *sm;
	struct minput *in;
	int ninputs;
	struct mfile f[NTABLES];
	struct tdat_sink tmp;		/* a string being escaped */
	struct slices *sl;		/* the slice model, SL_PERFETTO */
	int64_t next_track;		/* track ids as the sqlite writer numbers them */
	int64_t *cpu_tracks[NSLK], *thread_tracks, *freq_tracks, *idle_tracks;
	int ncpu_tracks[NSLK], nthread_tracks, nfreq_tracks, nidle_tracks;
	struct mcounter {		/* a process counter's track is known */
		int input;
		int64_t pid;
		char *name;
	} *pc;
	int npc;
};

/* The columns of each table: a name, an integer width or 0 for a string. */
struct mcol {
	const char *name;
	unsigned bits;
};

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
	{ "track.parquet", 3, { { "id", 64 }, { "name", 0 }, { "type", 0 } } },
};

static const struct {
	const char *sys, *name;
	int role;
	const char *fields[4];
} roles[] = {
	{ "sched", "sched_switch", M_SWITCH, { "prev_pid", "prev_state", "next_pid", "next_prio" } },
	{ "sched", "sched_waking", M_WAKE, { "pid" } },
	{ "sched", "sched_wakeup", M_WAKEUP, { "pid" } },
	{ "sched", "sched_wakeup_new", M_WAKEUP, { "pid" } },
	{ "task", "task_newtask", M_NEWTASK, { "pid" } },
	{ "sched", "sched_blocked_reason", M_BLOCKED, { "pid", "io_wait", "caller" } },
	{ "ftrace", "print", M_PRINT, { "buf" } },
	{ "power", "cpu_frequency", M_FREQ, { "state", "cpu_id" } },
	{ "power", "cpu_idle", M_IDLE, { "state", "cpu_id" } },
};

static int64_t num(const struct tdat_event *ev, const struct tfield *f)
{
	uint64_t x = 0;

	tfield_num(ev, f, &x);
	return (int64_t)x;
}

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

		ret = c->bits ? pq_col_int(&f->t, i, c->name, c->bits, true) :
		      pq_col_str(&f->t, i, c->name);
		if (ret)
			return TDAT_ENOMEM;
	}
	f->t.sort_col = 0;
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

/* @n bytes of @s as the typed CSV escapes text (to a NUL), like every string of the dataset. */
static void put_text(struct pqm *m, struct pq_col *c, const char *s, size_t n)
{
	m->tmp.len = 0;
	csv_escape(&m->tmp, s, n, CSV_Q_RAW);
	pq_put_str(c, m->tmp.buf ? m->tmp.buf : "", m->tmp.len);
}

static void put_str(struct pqm *m, struct pq_col *c, const char *s)
{
	if (s)
		put_text(m, c, s, strlen(s));
	else
		pq_put_null(c);
}

/* ---- the state machine's rows ---- */

static int on_slice(void *ctx, const struct sched_slice_row *r)
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

static int on_state(void *ctx, const struct sched_state_row *r)
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

/* ---- events ---- */

static struct mtype *map_type(struct minput *in, const struct ttype *tt)
{
	struct mtype *ty = calloc(1, sizeof(*ty));

	if (!ty)
		return NULL;
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		if (strcmp(roles[i].sys, tt->system) || strcmp(roles[i].name, tt->name))
			continue;
		for (int k = 0; k < 4 && roles[i].fields[k]; k++)
			if (!(ty->f[k] = ttype_field(tt, roles[i].fields[k])))
				return ty;		/* a format we do not know: no role */
		ty->role = roles[i].role;
		if (ty->role == M_SWITCH)
			sched_states_init(&in->states, tt->event);
		break;
	}
	return ty;
}

/* The prev_state letters of a switch, interned (one-value cache per input). */
static const char *prev_state(struct pqm *m, struct minput *in, int64_t v)
{
	char buf[128];

	if (in->last_str && in->last_state == v)
		return in->last_str;
	sched_state_str(&in->states, v, buf, sizeof(buf));
	in->last_state = v;
	return in->last_str = sched_intern(m->sm, buf);
}

static int on_switch(struct pqm *m, struct minput *in, const struct mtype *ty,
		     const struct tdat_event *ev)
{
	struct sched_switch_in s = { .ts = ev->ts, .cpu = ev->cpu, .ucpu = in->ucpu_base + ev->cpu };

	s.prev_utid = pm_utid(m->pm, ev->input, num(ev, ty->f[0]));
	s.next_utid = pm_utid(m->pm, ev->input, num(ev, ty->f[2]));
	s.next_prio = (int)num(ev, ty->f[3]);
	s.prev_state = prev_state(m, in, num(ev, ty->f[1]));
	if (s.prev_utid < 0 || s.next_utid < 0 || !s.prev_state)
		return TDAT_ENOMEM;
	return sched_switch(m->sm, &s);
}

/* As sq_on_sched() (sqlite-model.c) does for the sqlite writer. */
static int on_sched(struct pqm *m, struct minput *in, const struct mtype *ty,
		    const struct tdat_event *ev, int utid)
{
	char fn[256];
	int who;

	if (ty->role == M_SWITCH)
		return on_switch(m, in, ty, ev);
	if ((who = pm_utid(m->pm, ev->input, num(ev, ty->f[0]))) < 0)
		return TDAT_ENOMEM;
	if (ty->role == M_WAKE || (ty->role == M_WAKEUP && !in->waking))
		return sched_wake(m->sm, ev->ts, who, utid);
	if (ty->role == M_NEWTASK)
		return sched_new_task(m->sm, ev->ts, who, utid);
	if (ty->role == M_WAKEUP)
		return 0;
	snprintf(fn, sizeof(fn), "%s",
		 function_name(ev->file, (uint64_t)num(ev, ty->f[2])) ?: "");
	sched_blocked(m->sm, who, (int)num(ev, ty->f[1]), *fn ? fn : NULL);
	return 0;
}

/* ---- tracks, as the sqlite writer numbers them (sqlite.c, sqlite-slices.c) ---- */

static int64_t new_track(struct pqm *m, const char *name, const char *type)
{
	struct pq_col *c = m->f[T_TRACK].t.cols;

	put_int(&c[0], m->next_track);
	put_str(m, &c[1], name);
	put_str(m, &c[2], type);
	return row_end(m, T_TRACK) ? -1 : m->next_track++;
}

/* The first cpu_frequency or cpu_idle event of a CPU makes its counter track. */
static int on_cpu_counter(struct pqm *m, struct minput *in, const struct mtype *ty,
			  const struct tdat_event *ev)
{
	int64_t cpu = num(ev, ty->f[1]), *track;

	if (cpu < 0 || cpu >= in->ncpus)
		return 0;
	track = ty->role == M_FREQ ? id_slot(&m->freq_tracks, &m->nfreq_tracks, in->ucpu_base + (int)cpu) :
		id_slot(&m->idle_tracks, &m->nidle_tracks, in->ucpu_base + (int)cpu);
	if (!track)
		return TDAT_ENOMEM;
	if (*track < 0 && (*track = ty->role == M_FREQ ? new_track(m, "cpufreq", "cpu_frequency") :
				    new_track(m, "cpuidle", "cpu_idle")) < 0)
		return TDAT_EIO;
	return 0;
}

/* An atrace counter: its track and its process, the first time (sqlite.c's process_counter). */
static int on_print(struct pqm *m, const struct mtype *ty, const struct tdat_event *ev)
{
	const unsigned char *p;
	struct mcounter *pc;
	struct atrace a;
	unsigned len;

	if (!tfield_bytes(ev, ty->f[0], &p, &len) || !atrace_parse((const char *)p, len, &a) ||
	    a.kind != 'C')
		return 0;
	for (int i = 0; i < m->npc; i++)
		if (m->pc[i].input == ev->input && m->pc[i].pid == a.pid &&
		    strlen(m->pc[i].name) == a.name_len && !memcmp(m->pc[i].name, a.name, a.name_len))
			return 0;
	if (!(pc = realloc(m->pc, sizeof(*pc) * (size_t)(m->npc + 1))))
		return TDAT_ENOMEM;
	m->pc = pc;
	pc = &m->pc[m->npc];
	if (!(pc->name = strndup(a.name, a.name_len)))
		return TDAT_ENOMEM;
	m->npc++;
	pc->input = ev->input;
	pc->pid = a.pid;
	if (pm_utid(m->pm, ev->input, a.pid) < 0)
		return TDAT_ENOMEM;
	return new_track(m, pc->name, "process_counter") < 0 ? TDAT_EIO : 0;
}

static int64_t track_of(struct pqm *m, const struct sl_track *t)
{
	int ucpu = (t->input < m->ninputs ? m->in[t->input].ucpu_base : 0) + t->cpu;
	int64_t *id;
	char name[64];

	if (t->kind == SLK_THREAD) {
		if (!(id = id_slot(&m->thread_tracks, &m->nthread_tracks, t->utid)))
			return -1;
		if (*id < 0)
			*id = new_track(m, NULL, "thread_execution");
		return *id;
	}
	if (!(id = id_slot(&m->cpu_tracks[t->kind], &m->ncpu_tracks[t->kind], ucpu)))
		return -1;
	if (*id >= 0)
		return *id;
	snprintf(name, sizeof(name), "%s Cpu %d", t->kind == SLK_IRQ ? "Irq" :
		 t->kind == SLK_SOFTIRQ ? "SoftIrq" : "Hrtimer", ucpu);
	return *id = new_track(m, name, t->kind == SLK_IRQ ? "cpu_irq" :
			       t->kind == SLK_SOFTIRQ ? "cpu_softirq" : "cpu_hrtimer");
}

/* A slice closed (sqlite-slices.c's on_slice). */
static int on_closed(void *ctx, const struct sl_slice *sl)
{
	struct pqm *m = ctx;
	int64_t track = track_of(m, sl->track);
	struct pq_col *c = m->f[T_SLICES].t.cols;

	if (track < 0)
		return TDAT_EIO;
	put_int(&c[0], sl->id);
	put_int(&c[1], (int64_t)sl->ts);
	put_int(&c[2], sl->dur);
	put_int(&c[3], track);
	put_str(m, &c[4], sl->type->rule->category);
	put_text(m, &c[5], sl->name, sl->name_len);
	put_int(&c[6], sl->depth);
	put_id(&c[7], sl->parent_id);
	pq_put_null(&c[8]);
	return row_end(m, T_SLICES);
}

static int derive(struct pqm *m, struct minput *in, const struct mtype *ty,
		  const struct tdat_event *ev, int utid)
{
	int r = ty->role;

	if (r == M_PRINT)
		return on_print(m, ty, ev);
	if (r == M_WAKE || r == M_WAKEUP || r == M_NEWTASK || r == M_BLOCKED)
		r = M_SWITCH;
	if (in->role_buffer[r] < 0)
		in->role_buffer[r] = ev->buffer;
	if (in->role_buffer[r] != ev->buffer)
		return 0;
	if (r == M_FREQ || r == M_IDLE)
		return on_cpu_counter(m, in, ty, ev);
	return on_sched(m, in, ty, ev, utid);
}

int pqm_put(struct pqm *m, const struct tdat_event *ev, const struct ttype *tt)
{
	struct minput *in = &m->in[ev->input];
	const struct sl_type *st;
	struct mtype *ty;
	void **ts;
	int utid, ret;

	if ((ret = pm_feed(m->pm, ev, tt)) < 0 ||
	    (utid = pm_utid(m->pm, ev->input, num(ev, &tt->pid))) < 0 ||
	    !(ts = idtab_slot(&in->types, tt->id)))
		return TDAT_ENOMEM;
	if (!(ty = *ts) && !(ty = *ts = map_type(in, tt)))
		return TDAT_ENOMEM;
	if (ty->role && (ret = derive(m, in, ty, ev, utid)))
		return ret;
	if (!(st = slices_type(m->sl, ev, tt)))
		return 0;
	ret = slices_put(m->sl, st, ev, utid);
	return ret ? ret : m->tmp.err ? TDAT_ENOMEM : 0;
}

/* ---- close ---- */

static int threads(struct pqm *m)
{
	const struct pm_thread *t;
	struct pq_col *c = m->f[T_THREAD].t.cols;
	int ret;

	for (int i = 0; (t = pm_thread(m->pm, i)); i++) {
		put_int(&c[0], t->utid);
		put_int(&c[1], t->tid);
		put_str(m, &c[2], t->name);
		t->has_start ? put_int(&c[3], (int64_t)t->start_ts) : pq_put_null(&c[3]);
		t->has_end ? put_int(&c[4], (int64_t)t->end_ts) : pq_put_null(&c[4]);
		put_id(&c[5], t->upid);
		t->upid >= 0 ? put_int(&c[6], t->is_main) : pq_put_null(&c[6]);
		put_int(&c[7], t->is_idle);
		put_int(&c[8], t->input);
		if ((ret = row_end(m, T_THREAD)))
			return ret;
	}
	return 0;
}

static int processes(struct pqm *m)
{
	const struct pm_process *p;
	struct pq_col *c = m->f[T_PROCESS].t.cols;
	int ret;

	for (int i = 0; (p = pm_process(m->pm, i)); i++) {
		put_int(&c[0], p->upid);
		put_int(&c[1], p->pid);
		/* the idle process has no name in trace processor (its thread is swapper) */
		put_str(m, &c[2], p->upid ? p->name : NULL);
		p->has_start ? put_int(&c[3], (int64_t)p->start_ts) : pq_put_null(&c[3]);
		p->has_end ? put_int(&c[4], (int64_t)p->end_ts) : pq_put_null(&c[4]);
		put_id(&c[5], p->parent_upid);
		put_str(m, &c[6], p->cmdline);
		put_int(&c[7], p->input);
		if ((ret = row_end(m, T_PROCESS)))
			return ret;
	}
	return 0;
}

int pqm_close(struct pqm *m)
{
	int ret;

	if ((ret = sched_finish(m->sm)) || (ret = slices_finish(m->sl, 0)))
		return ret;
	pm_finish(m->pm, m->w->merge);
	if ((ret = threads(m)) || (ret = processes(m)))
		return ret;
	for (int k = 0; k < NTABLES && !ret; k++)
		ret = mfile_flush(m, &m->f[k], true);
	return ret;
}

/* ---- open, free ---- */

static int pqm_open(struct pqm *m)
{
	struct sched_ops ops = { .ctx = m, .slice = on_slice, .state = on_state };
	struct sl_ops sops = { .ctx = m, .slice = on_closed };
	int base = 0, n;

	m->ninputs = tdat_merge_nfiles(m->w->merge);
	m->in = calloc((size_t)m->ninputs + 1, sizeof(*m->in));
	m->pm = pm_new();
	m->sm = sched_new(&ops);
	m->sl = slices_new(SL_PERFETTO, &sops);
	if (!m->in || !m->pm || !m->sm || !m->sl)
		return TDAT_ENOMEM;
	for (int i = 0; i < m->ninputs; i++) {
		struct tdat_file *f = tdat_merge_file(m->w->merge, i);

		for (int r = 0; r < NROLES; r++)
			m->in[i].role_buffer[r] = -1;
		m->in[i].ucpu_base = base;
		m->in[i].ncpus = n = file_cpu_count(f);
		base += n;
		sched_states_init(&m->in[i].states, NULL);
		/* trace-cmd saves the formats of the events it records */
		m->in[i].waking = f->tep && tep_find_event_by_name(f->tep, "sched", "sched_waking");
	}
	for (int k = 0; k < NTABLES; k++)
		if (mfile_init(&m->f[k], k))
			return TDAT_ENOMEM;
	return 0;
}

struct pqm *pqm_new(struct tdat_writer *w, struct pq_ctx *ctx, int dirfd)
{
	struct pqm *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->w = w;
	m->ctx = ctx;
	m->dirfd = dirfd;
	m->tmp.fd = -1;
	if (sink_init(&m->tmp, -1) || pqm_open(m)) {
		pqm_free(m);
		return NULL;
	}
	return m;
}

void pqm_free(struct pqm *m)
{
	if (!m)
		return;
	for (int i = 0; m->in && i < m->ninputs; i++)
		idtab_release(&m->in[i].types, free);
	for (int k = 0; k < NTABLES; k++) {
		pq_table_release(&m->f[k].t);
		free(m->f[k].fname);
	}
	pm_free(m->pm);
	sched_free(m->sm);
	slices_free(m->sl);
	for (int k = 0; k < NSLK; k++)
		free(m->cpu_tracks[k]);
	free(m->thread_tracks);
	free(m->freq_tracks);
	free(m->idle_tracks);
	for (int i = 0; i < m->npc; i++)
		free(m->pc[i].name);
	free(m->pc);
	sink_release(&m->tmp);
	free(m->in);
	free(m);
}
