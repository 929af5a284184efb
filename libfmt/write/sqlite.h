/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite.h - what the files of the sqlite writer share: the writer's state
 * (struct sq), its inputs and event types.  sqlite.c streams events and
 * opens and closes the database, sqlite-tables.c makes the event tables
 * and the views over them, sqlite-model.c fills the tables of the model
 * (sched_slice, thread_state, thread, process), sqlite-rows.c batches rows.
 * Private to the write layer.
 */
#ifndef TDAT_SQLITE_H
#define TDAT_SQLITE_H

#include "sqlite-rows.h"
#include "sqlite-slices.h"

enum role {
	R_NONE, R_SWITCH, R_WAKE, R_WAKEUP, R_NEWTASK, R_BLOCKED, R_FREQ, R_IDLE, R_PRINT, NROLES
};

/* An event type of one input, mapped to its table. */
struct sq_type {
	struct sq_table *t;
	int *colmap;			/* field i (and its symbol after it) -> column */
	enum role role;
	const struct tfield *f[4];	/* fields the role reads */
};

struct sq_pcounter {
	int input;
	int64_t pid, track;
	char *name;
};

struct sq_input {
	struct idtab types;		/* struct sq_type by event type id */
	int role_buffer[NROLES];	/* the buffer a derived table takes the role from */
	int ucpu_base, ncpus;
	struct kseen seen;		/* buffers written: the kernel's figures of those */
	struct sched_states states;
	bool waking;			/* sched_waking was recorded (its format is there) */
	int64_t last_state;		/* cache of the last prev_state decoded */
	const char *last_str;
};

/* The fixed tables (schema[] below) and their column counts. */
enum { FX_META, FX_CPU, FX_THREAD, FX_PROCESS, FX_SCHED, FX_STATE, FX_TRACK, FX_CPUTRACK,
       FX_PCTRACK, FX_THTRACK, FX_COUNTER, FX_SLICE, FX_STATS, FX_BOUNDS, FX_CPUSLTRACK, NFX };

struct sq_cpu {
	int64_t events, lost, lost_unknown;
	int64_t freq_track, idle_track;
	bool present;			/* counted in the header or a buffer of its input */
};

struct sq {
	struct sqdb d;		/* the connection and its worker */
	struct tdat_writer *w;
	struct procmodel *pm;
	struct sched_sm *sm;
	struct sq_input *in;
	int ninputs;
	struct sq_table *tables;	/* event tables, newest first */
	int ntables;
	struct sq_table *fx[NFX];	/* the fixed tables */
	struct sq_cpu *cpus;
	int ncpus;
	struct sqs *ss;		/* the slice table (sqlite-slices.c) */
	struct sq_pcounter *pc;
	int npc;
	int64_t next_id, next_track, next_counter, next_stat;
	uint64_t first_ts, last_ts;
	int err;		/* a failure of open or put: close only reports it */
};

static inline int64_t num(const struct tdat_event *ev, const struct tfield *f)
{
	uint64_t x = 0;

	tfield_num(ev, f, &x);
	return (int64_t)x;
}

/* sqlite-tables.c */
/* The table of event type @tt of input @in (made on first use), or NULL with *err set. */
struct sq_type *sq_map_type(struct sq *q, struct sq_input *in, const struct ttype *tt, int *err);
void sq_free_type(void *type);
/* ftrace_event, raw and args: views over every event table. */
int sq_event_views(struct sq *q);

/* sqlite-model.c */
/* sched_switch, wake-ups, task_newtask, sched_blocked_reason of @ev to the state machine. */
int sq_on_sched(struct sq *q, struct sq_input *in, const struct sq_type *ty,
		const struct tdat_event *ev, int utid);
/* The state machine's rows (struct sched_ops callbacks, @ctx the struct sq). */
int sq_on_slice(void *ctx, const struct sched_slice_row *r);
int sq_on_state(void *ctx, const struct sched_state_row *r);
/* At close: the thread and process tables from the process model. */
int sq_threads(struct sq *q);

#endif /* TDAT_SQLITE_H */
