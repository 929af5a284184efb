/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * procs.c - the process model the exports share: threads (utid) and
 * processes (upid) in Perfetto's sense, built from the events as they come
 * in timeline order.  trace.dat has no tid -> tgid map, so membership is
 * inferred: task_newtask's clone flags (CLONE_THREAD joins the creator's
 * process, anything else starts a process), sched_process_exec (the thread
 * leads its process), any event with "pid" and "tgid" fields; a tid seen
 * again after sched_process_free, or created again, is a new thread.
 * At the end, threads still without a process take the thread group a
 * recorder saved from the kernel's saved_tgids (PROCMAPS options).
 * Names are the last comm seen, else the file's saved cmdlines.  utid 0 and
 * upid 0 are the idle task (tid 0 of every CPU and input).
 * Memory grows with the number of threads, not with the trace's length.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "model/model.h"

#define CLONE_THREAD 0x00010000

/*
 * pm_utid()'s utids looked up lately, one by hash of (input, tid): a hit
 * needs no probe of the map.  Only the map's utid of an (input, tid) is not
 * freed (a thread for it is made only once the one before is freed), so a
 * thread of that input and tid that is not freed is the map's answer.
 */
#define UTID_RECENT 4096

struct procmodel {
	struct pm_thread *threads;
	int nthreads, tcap;
	struct pm_process *procs;
	int nprocs, pcap;
	uint64_t *keys;		/* (input << 32 | tid) + 1; 0 = empty */
	int *vals;		/* current utid of the key */
	size_t nkeys, kcap;
	struct idtab *kinds;	/* by input: each type's enum feed_kind + 1, found once */
	int nkinds;
	int recent[UTID_RECENT];	/* by (input, tid) hashed: a utid looked up lately */
};

/* What pm_feed() learns from a type's events (feed_kind_of()). */
enum feed_kind {
	FK_RAN,		/* only that the thread ran */
	FK_SWITCH, FK_NEWTASK, FK_FORK, FK_EXEC, FK_EXIT, FK_FREE, FK_PRINT, FK_RENAME,
	FK_FIELDS,	/* a pid and a tgid (the thread's process) or a comm (its name) */
};

/* ---- the (input, tid) -> utid map ---- */

static size_t slot(const struct procmodel *pm, uint64_t key)
{
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15ull) & (pm->kcap - 1);

	while (pm->keys[i] && pm->keys[i] != key)
		i = (i + 1) & (pm->kcap - 1);
	return i;
}

static int map_grow(struct procmodel *pm)
{
	size_t ocap = pm->kcap, cap = ocap ? ocap * 2 : 1024;
	uint64_t *ok = pm->keys;
	int *ov = pm->vals;

	pm->keys = calloc(cap, sizeof(*pm->keys));
	pm->vals = calloc(cap, sizeof(*pm->vals));
	if (!pm->keys || !pm->vals) {
		free(pm->keys);
		free(pm->vals);
		pm->keys = ok;
		pm->vals = ov;
		return TDAT_ENOMEM;
	}
	pm->kcap = cap;
	for (size_t i = 0; i < ocap; i++) {
		if (ok[i]) {
			size_t j = slot(pm, ok[i]);

			pm->keys[j] = ok[i];
			pm->vals[j] = ov[i];
		}
	}
	free(ok);
	free(ov);
	return 0;
}

static uint64_t key_of(int input, int64_t tid)
{
	return ((uint64_t)(uint32_t)input << 32 | (uint32_t)tid) + 1;
}

static int map_set(struct procmodel *pm, uint64_t key, int utid)
{
	size_t i;

	if ((pm->nkeys + 1) * 2 > pm->kcap && map_grow(pm))
		return TDAT_ENOMEM;
	i = slot(pm, key);
	if (!pm->keys[i])
		pm->nkeys++;
	pm->keys[i] = key;
	pm->vals[i] = utid;
	return 0;
}

/* ---- threads and processes ---- */

static int new_thread(struct procmodel *pm, int input, int64_t tid)
{
	struct pm_thread *t;

	if (array_room((void **)&pm->threads, pm->nthreads, &pm->tcap, sizeof(*t), 256))
		return TDAT_ENOMEM;
	t = &pm->threads[pm->nthreads];
	memset(t, 0, sizeof(*t));
	t->utid = pm->nthreads;
	t->tid = tid;
	t->input = input;
	t->upid = -1;
	t->parent_utid = -1;
	t->is_idle = tid == 0;
	if (map_set(pm, key_of(input, tid), t->utid))
		return TDAT_ENOMEM;
	return pm->nthreads++;
}

static int new_process(struct procmodel *pm, int input, int64_t pid)
{
	struct pm_process *p;

	if (array_room((void **)&pm->procs, pm->nprocs, &pm->pcap, sizeof(*p), 128))
		return TDAT_ENOMEM;
	p = &pm->procs[pm->nprocs];
	memset(p, 0, sizeof(*p));
	p->upid = pm->nprocs;
	p->pid = pid;
	p->input = input;
	p->parent_upid = -1;
	return pm->nprocs++;
}

struct procmodel *pm_new(void)
{
	struct procmodel *pm = calloc(1, sizeof(*pm));

	if (!pm)
		return NULL;
	/* utid 0 / upid 0: the idle task, shared by every CPU and input */
	if (new_thread(pm, 0, 0) < 0 || new_process(pm, 0, 0) < 0) {
		pm_free(pm);
		return NULL;
	}
	pm->threads[0].upid = 0;
	pm->threads[0].name = strdup("swapper");
	pm->procs[0].name = strdup("swapper");
	return pm;
}

void pm_free(struct procmodel *pm)
{
	if (!pm)
		return;
	for (int i = 0; i < pm->nthreads; i++)
		free(pm->threads[i].name);
	for (int i = 0; i < pm->nprocs; i++) {
		free(pm->procs[i].name);
		free(pm->procs[i].cmdline);
	}
	for (int i = 0; i < pm->nkinds; i++)
		idtab_release(&pm->kinds[i], NULL);
	free(pm->kinds);
	free(pm->threads);
	free(pm->procs);
	free(pm->keys);
	free(pm->vals);
	free(pm);
}

int pm_utid(struct procmodel *pm, int input, int64_t tid)
{
	int *r = &pm->recent[((uint32_t)tid ^ (uint32_t)input * 0x9e3779b9u) & (UTID_RECENT - 1)];
	const struct pm_thread *t = &pm->threads[*r];	/* 0, the idle task, when none yet */
	size_t i;
	int utid;

	if (tid == 0)
		return 0;
	if (t->tid == tid && t->input == input && !t->freed)
		return *r;
	if (pm->kcap) {
		i = slot(pm, key_of(input, tid));
		if (pm->keys[i] && !pm->threads[pm->vals[i]].freed)
			return *r = pm->vals[i];
	}
	if ((utid = new_thread(pm, input, tid)) >= 0)
		*r = utid;
	return utid;
}

int pm_nthreads(const struct procmodel *pm)
{
	return pm->nthreads;
}

const struct pm_thread *pm_thread(const struct procmodel *pm, int utid)
{
	return utid >= 0 && utid < pm->nthreads ? &pm->threads[utid] : NULL;
}

int pm_nprocs(const struct procmodel *pm)
{
	return pm->nprocs;
}

const struct pm_process *pm_process(const struct procmodel *pm, int upid)
{
	return upid >= 0 && upid < pm->nprocs ? &pm->procs[upid] : NULL;
}

/* ---- what events say ---- */

static void set_name(char **dst, const unsigned char *p, unsigned n)
{
	char *s;

	if (!n || (*dst && strlen(*dst) == n && !memcmp(*dst, p, n)))
		return;
	s = strndup((const char *)p, n);
	if (s) {
		free(*dst);
		*dst = s;
	}
}

static bool field_str(const struct tdat_event *ev, const struct ttype *t, const char *name,
		      const unsigned char **p, unsigned *n)
{
	const struct tfield *f = ttype_field(t, name);

	return f && f->kind == TK_STR && tfield_bytes(ev, f, p, n);
}

static bool field_int(const struct tdat_event *ev, const struct ttype *t, const char *name, int64_t *v)
{
	const struct tfield *f = ttype_field(t, name);
	uint64_t u;

	if (!f || f->kind == TK_STR || f->kind == TK_ARRAY || !tfield_num(ev, f, &u))
		return false;
	*v = (int64_t)u;
	return true;
}

/* Thread @utid with comm field @comm_field (if any) of the event. */
static int named_thread(struct procmodel *pm, const struct tdat_event *ev, const struct ttype *t,
			const char *pid_field, const char *comm_field)
{
	const unsigned char *p;
	unsigned n;
	int64_t tid;
	int utid;

	if (!field_int(ev, t, pid_field, &tid))
		return -1;
	utid = pm_utid(pm, ev->input, tid);
	if (utid > 0 && comm_field && field_str(ev, t, comm_field, &p, &n))
		set_name(&pm->threads[utid].name, p, n);
	return utid;
}

/*
 * Put thread @utid in process @upid.  A process whose main thread began in
 * the trace (task_newtask, or sched_process_fork of a task that turns out to
 * lead its own process) began then too, as trace processor has it for
 * task_newtask: its start_ts is its main thread's.
 */
static void join(struct procmodel *pm, int utid, int upid)
{
	struct pm_thread *th = &pm->threads[utid];
	struct pm_process *pr;

	if (utid <= 0 || upid < 0)
		return;
	pr = &pm->procs[upid];
	th->upid = upid;
	th->is_main = th->tid == pr->pid;
	if (th->is_main && th->has_start && !pr->has_start) {
		pr->has_start = true;
		pr->start_ts = th->start_ts;
	}
}

/* The process whose pid is @pid in @input, the newest one. */
static int find_process(struct procmodel *pm, int input, int64_t pid)
{
	for (int i = pm->nprocs - 1; i > 0; i--)
		if (pm->procs[i].pid == pid && pm->procs[i].input == input && !pm->procs[i].has_end)
			return i;
	return -1;
}

static int process_of_leader(struct procmodel *pm, int input, int utid)
{
	struct pm_thread *th = &pm->threads[utid];
	int upid = th->upid > 0 && pm->procs[th->upid].pid == th->tid ? th->upid :
		   find_process(pm, input, th->tid);

	if (upid < 0) {
		if ((upid = new_process(pm, input, th->tid)) < 0)
			return upid;
		th = &pm->threads[utid];
		if (th->parent_utid > 0)
			pm->procs[upid].parent_upid = pm->threads[th->parent_utid].upid;
	}
	join(pm, utid, upid);
	return upid;
}

/* A new task: a fresh thread for the tid; a process too unless CLONE_THREAD. */
static int newtask(struct procmodel *pm, const struct tdat_event *ev, const struct ttype *t)
{
	int creator = pm_utid(pm, ev->input, tdat_event_pid(ev));
	int64_t tid, flags = 0;
	const unsigned char *p;
	unsigned n;
	int utid, upid;

	if (!field_int(ev, t, "pid", &tid) || tid <= 0 || creator < 0)
		return creator < 0 ? creator : 0;
	field_int(ev, t, "clone_flags", &flags);
	if ((utid = pm_utid(pm, ev->input, tid)) < 0)
		return utid;
	if (pm->threads[utid].has_start || pm->threads[utid].seen) {
		pm->threads[utid].freed = true;		/* the tid was reused */
		if ((utid = new_thread(pm, ev->input, tid)) < 0)
			return utid;
	}
	pm->threads[utid].has_start = true;
	pm->threads[utid].start_ts = ev->ts;
	if (field_str(ev, t, "comm", &p, &n))
		set_name(&pm->threads[utid].name, p, n);
	if (flags & CLONE_THREAD) {
		join(pm, utid, pm->threads[creator].upid);
		return 0;
	}
	if ((upid = new_process(pm, ev->input, tid)) < 0)
		return upid;
	pm->procs[upid].has_start = true;
	pm->procs[upid].start_ts = ev->ts;
	pm->procs[upid].parent_upid = pm->threads[creator].upid;
	join(pm, utid, upid);
	return 0;
}

/*
 * sched_process_fork: the child's thread starts here, unless task_newtask
 * (which comes first and also tells thread from process) already started it.
 */
static int fork_child(struct procmodel *pm, const struct tdat_event *ev, const struct ttype *t)
{
	const unsigned char *p;
	unsigned n;
	int64_t tid;
	int utid;

	if (!field_int(ev, t, "child_pid", &tid) || tid <= 0)
		return 0;
	if ((utid = pm_utid(pm, ev->input, tid)) < 0)
		return utid;
	if (!pm->threads[utid].has_start || pm->threads[utid].seen) {
		if (pm->threads[utid].has_start || pm->threads[utid].seen) {
			pm->threads[utid].freed = true;		/* the tid was reused */
			if ((utid = new_thread(pm, ev->input, tid)) < 0)
				return utid;
		}
		pm->threads[utid].has_start = true;
		pm->threads[utid].start_ts = ev->ts;
	}
	if (field_str(ev, t, "child_comm", &p, &n))
		set_name(&pm->threads[utid].name, p, n);
	if (field_int(ev, t, "parent_pid", &tid) && (n = (unsigned)pm_utid(pm, ev->input, tid)) > 0)
		pm->threads[utid].parent_utid = (int)n;
	return 0;
}

static int exec(struct procmodel *pm, const struct tdat_event *ev, const struct ttype *t)
{
	const unsigned char *p, *base;
	unsigned n;
	int utid = named_thread(pm, ev, t, "pid", NULL), upid;
	struct pm_process *pr;

	if (utid <= 0)
		return utid < 0 && utid != -1 ? utid : 0;
	if ((upid = process_of_leader(pm, ev->input, utid)) < 0)
		return upid;
	pr = &pm->procs[upid];
	if (field_str(ev, t, "filename", &p, &n)) {
		set_name(&pr->cmdline, p, n);
		base = memrchr(p, '/', n);
		base = base ? base + 1 : p;
		set_name(&pr->name, base, n - (unsigned)(base - p));
	}
	return 0;
}

static int known_utid(const struct procmodel *pm, int input, int64_t tid);

static void exit_thread(struct procmodel *pm, const struct tdat_event *ev, const struct ttype *t,
			bool free_it)
{
	struct pm_thread *th;
	const unsigned char *p;
	int64_t dead = 0, tid;
	unsigned n;
	int utid;

	/* the free of a task never seen makes no thread (as in trace processor) */
	if (free_it) {
		if (field_int(ev, t, "pid", &tid) && tid > 0 &&
		    (utid = known_utid(pm, ev->input, tid)) > 0 && !pm->threads[utid].freed) {
			if (field_str(ev, t, "comm", &p, &n))
				set_name(&pm->threads[utid].name, p, n);
			pm->threads[utid].freed = true;
		}
		return;
	}
	if ((utid = named_thread(pm, ev, t, "pid", "comm")) <= 0)
		return;
	th = &pm->threads[utid];
	th->has_end = true;
	th->end_ts = ev->ts;
	field_int(ev, t, "group_dead", &dead);
	if (th->upid > 0 && (dead || th->is_main)) {
		pm->procs[th->upid].has_end = true;
		pm->procs[th->upid].end_ts = ev->ts;
	}
}

/*
 * An atrace marker (trace_marker text "X|tgid|..."): B, E and I put the
 * writing thread in process tgid, C, S and F name process tgid, as trace
 * processor's systrace parser does.
 */
static int marker(struct procmodel *pm, const struct tdat_event *ev, const struct ttype *t)
{
	const unsigned char *p;
	struct atrace a;
	unsigned n, i = 2;
	int64_t tgid = 0;
	int leader, upid, utid;

	if (!field_str(ev, t, "buf", &p, &n) || n < 3 || !memchr("BEICSF", p[0], 6) || p[1] != '|')
		return 0;
	for (; i < n && i < 12 && p[i] >= '0' && p[i] <= '9'; i++)
		tgid = tgid * 10 + (p[i] - '0');
	if (i == 2 || tgid <= 0 || tgid > 0x7fffffff || (i < n && !memchr("|\n", p[i], 3)))
		return 0;
	if (p[0] == 'C' && !atrace_parse((const char *)p, n, &a))
		return 0;
	if ((p[0] == 'S' || p[0] == 'F') && (i >= n || p[i] != '|'))
		return 0;
	if ((leader = pm_utid(pm, ev->input, tgid)) < 0 ||
	    (upid = process_of_leader(pm, ev->input, leader)) < 0)
		return leader < 0 ? leader : upid;
	if (memchr("BEI", p[0], 3)) {
		if ((utid = pm_utid(pm, ev->input, tdat_event_pid(ev))) < 0)
			return utid;
		join(pm, utid, upid);
	}
	return 0;
}

static bool num_field(const struct tfield *f)
{
	return f && f->kind != TK_STR && f->kind != TK_ARRAY;
}

static bool str_field(const struct tfield *f)
{
	return f && f->kind == TK_STR;
}


/* The feed kind of type @t, by its name and fields. */
static enum feed_kind feed_kind_of(const struct ttype *t)
{
	static const struct { const char *name; enum feed_kind kind; } names[] = {
		{ "sched_switch", FK_SWITCH }, { "task_newtask", FK_NEWTASK },
		{ "sched_process_fork", FK_FORK }, { "sched_process_exec", FK_EXEC },
		{ "sched_process_exit", FK_EXIT }, { "sched_process_free", FK_FREE },
		{ "task_rename", FK_RENAME },
	};
	const struct tfield *pid = ttype_field(t, "pid");

	if (!t->event)
		return FK_RAN;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(t->name, names[i].name))
			return names[i].kind;
	if (!strcmp(t->name, "print") && !strcmp(t->system, "ftrace"))
		return FK_PRINT;
	if (num_field(pid) && (num_field(ttype_field(t, "tgid")) || str_field(ttype_field(t, "comm"))))
		return FK_FIELDS;
	return FK_RAN;
}

/* Would pm_feed() learn anything from this type beyond "the thread ran"? */
bool pm_wants(const struct ttype *tt)
{
	return feed_kind_of(tt) != FK_RAN;
}

/* Would pm_feed() give some (input, tid) a new utid for this type's events (a reused tid)? */
bool pm_remaps(const struct ttype *tt)
{
	enum feed_kind k = feed_kind_of(tt);

	return k == FK_NEWTASK || k == FK_FORK || k == FK_FREE;
}

/* The feed kind of @ev's type @t, found once per input and type; negative: no memory. */
static int feed_kind(struct procmodel *pm, const struct tdat_event *ev, const struct ttype *t)
{
	void **slot;

	if (ev->input >= pm->nkinds) {
		int n = ev->input + 1;
		struct idtab *k = realloc(pm->kinds, sizeof(*k) * (size_t)n);

		if (!k)
			return TDAT_ENOMEM;
		memset(k + pm->nkinds, 0, sizeof(*k) * (size_t)(n - pm->nkinds));
		pm->kinds = k;
		pm->nkinds = n;
	}
	if (!(slot = idtab_slot(&pm->kinds[ev->input], t->id)))
		return TDAT_ENOMEM;
	if (!*slot)
		*slot = (void *)(uintptr_t)(feed_kind_of(t) + 1);
	return (int)(uintptr_t)*slot - 1;
}

/* A pid and a tgid: the thread joins its group leader's process; else a pid and a comm: its name. */
static int by_fields(struct procmodel *pm, const struct tdat_event *ev, const struct ttype *t)
{
	const unsigned char *p;
	unsigned n;
	int64_t pid, tgid;

	if (field_int(ev, t, "pid", &pid) && field_int(ev, t, "tgid", &tgid) && pid > 0 && tgid > 0) {
		int leader = pm_utid(pm, ev->input, tgid), utid, upid;

		if ((utid = pm_utid(pm, ev->input, pid)) < 0 || leader < 0)
			return TDAT_ENOMEM;
		if ((upid = process_of_leader(pm, ev->input, leader)) < 0)
			return upid;
		join(pm, utid, upid);
	} else if (field_str(ev, t, "comm", &p, &n) && field_int(ev, t, "pid", &pid)) {
		named_thread(pm, ev, t, "pid", "comm");
	}
	return 0;
}

int pm_feed(struct procmodel *pm, const struct tdat_event *ev, const struct ttype *t)
{
	const unsigned char *p;
	unsigned n;
	int utid = pm_utid(pm, ev->input, tdat_event_pid(ev));
	int kind = utid < 0 ? utid : feed_kind(pm, ev, t);

	if (kind < 0)
		return kind;
	pm->threads[utid].seen = true;
	switch ((enum feed_kind)kind) {
	case FK_RAN:
		return 0;
	case FK_SWITCH:
		named_thread(pm, ev, t, "prev_pid", "prev_comm");
		named_thread(pm, ev, t, "next_pid", "next_comm");
		return 0;
	case FK_NEWTASK:
		return newtask(pm, ev, t);
	case FK_FORK:
		return fork_child(pm, ev, t);
	case FK_EXEC:
		return exec(pm, ev, t);
	case FK_EXIT:
	case FK_FREE:
		exit_thread(pm, ev, t, kind == FK_FREE);
		return 0;
	case FK_PRINT:
		return marker(pm, ev, t);
	case FK_RENAME:
		if ((utid = named_thread(pm, ev, t, "pid", NULL)) > 0 && field_str(ev, t, "newcomm", &p, &n))
			set_name(&pm->threads[utid].name, p, n);
		return 0;
	case FK_FIELDS:
		return by_fields(pm, ev, t);
	}
	return 0;
}

/* The utid of (@input, @tid) if that thread is known, else -1. */
static int known_utid(const struct procmodel *pm, int input, int64_t tid)
{
	size_t i;

	if (!pm->kcap)
		return -1;
	i = slot(pm, key_of(input, tid));
	return pm->keys[i] ? pm->vals[i] : -1;
}

/*
 * Threads no event placed in a process, placed by the thread groups a
 * recorder saved (tdat-capture: one PROCMAPS option per tgid, "TGID N COMM"
 * in hex, then a map "0 0 tid:TID" per thread).
 */
static void tgids_from_file(struct procmodel *pm, struct tdat_file *f, int input)
{
	for (int i = 0; i < f->meta.nopts; i++) {
		const char *p = f->meta.opts[i].b.data;
		char comm[64];
		unsigned tgid, n;
		int tid, upid = -1, utid;

		if (f->meta.opts[i].id != OPT_PROCMAPS ||
		    sscanf(p, "%x %x %63s", &tgid, &n, comm) != 3 || !tgid || tgid > 0x7fffffff)
			continue;
		while ((p = strchr(p, '\n')) && *++p) {
			if (sscanf(p, "0 0 tid:%d", &tid) != 1 || tid <= 0 ||
			    (utid = known_utid(pm, input, tid)) <= 0 || pm->threads[utid].upid >= 0)
				continue;
			if (upid < 0 && (upid = find_process(pm, input, tgid)) < 0 &&
			    (upid = new_process(pm, input, tgid)) < 0)
				return;
			join(pm, utid, upid);
			if (!pm->procs[upid].name && strcmp(comm, "<...>"))
				pm->procs[upid].name = strdup(comm);
		}
	}
}

void pm_finish(struct procmodel *pm, struct tdat_merge *m)
{
	for (int i = 0; i < tdat_merge_nfiles(m); i++)
		tgids_from_file(pm, tdat_merge_file(m, i), i);
	for (int i = 1; i < pm->nthreads; i++) {
		struct pm_thread *th = &pm->threads[i];
		struct tdat_file *f = tdat_merge_file(m, th->input);

		if (!th->name && f && th->tid <= 0x7fffffff && tep_is_pid_registered(f->tep, (int)th->tid))
			th->name = strdup(tep_data_comm_from_pid(f->tep, (int)th->tid));
	}
	/* a process not named by exec takes its main thread's name */
	for (int i = 1; i < pm->nthreads; i++) {
		struct pm_thread *th = &pm->threads[i];

		if (th->is_main && th->upid > 0 && th->name && !pm->procs[th->upid].name)
			pm->procs[th->upid].name = strdup(th->name);
	}
}
