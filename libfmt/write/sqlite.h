/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite.h - what the files of the sqlite writer share: the writer's state
 * (struct sq), its inputs and event types.  sqlite.c streams events and
 * opens and closes the database, sqlite-tables.c makes the event tables
 * and the views over them, sqlite-model.c makes the model's tables from
 * their description (model/tables.c) and stores the rows model/derive.c
 * hands it, sqlite-rows.c batches rows.  Private to the write layer.
 */
#ifndef TDAT_SQLITE_H
#define TDAT_SQLITE_H

#include "model/model.h"
#include "sqlite-rows.h"
#include "write/writer-int.h"

/* An event type of one input, mapped to its table. */
struct sq_type {
	struct sq_table *t;
	int *colmap;			/* field i (and its symbol after it) -> column */
};

struct sq_input {
	struct idtab types;		/* struct sq_type by event type id */
	int ucpu_base, ncpus;		/* from derive_cpus() */
	struct kseen seen;		/* buffers written: the kernel's figures of those */
};

/* The fixed tables that are not the model's (sqlite.c's schema). */
enum { FX_META, FX_CPU, FX_STATS, FX_BOUNDS, NFX };

struct sq_cpu {
	int64_t events, lost, lost_unknown;
	bool present;			/* counted in the header or a buffer of its input */
};

struct sq {
	struct sqdb d;		/* the connection and its worker */
	struct tdat_writer *w;
	struct derive *dv;	/* the model's rows (sqlite-model.c stores them) */
	struct sq_input *in;
	int ninputs;
	struct sq_table *tables;	/* event tables, newest first */
	int ntables;
	struct sq_table *fx[NFX];	/* the fixed tables */
	struct sq_table *mt[MT_NTABLES];	/* the model's (sqlite-model.c) */
	struct sq_cpu *cpus;
	int ncpus;
	int64_t next_id, next_stat;
	uint64_t first_ts, last_ts;
	int err;		/* a failure of open or put: close only reports it */
};

/* sqlite-tables.c */
/* The table of event type @tt (made on first use), or NULL with *err set. */
struct sq_type *sq_map_type(struct sq *q, const struct ttype *tt, int *err);
void sq_free_type(void *type);
/* ftrace_event, raw and args: views over every event table. */
int sq_event_views(struct sq *q);

/* sqlite-model.c: the model's tables, from their description (model/tables.c) */
int sq_model_create(struct sq *q);
/* ... and its rows to them (@ctx the struct sq). */
extern const struct derive_ops sq_model_ops;

#endif /* TDAT_SQLITE_H */
