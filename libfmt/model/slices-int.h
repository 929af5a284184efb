/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * slices-int.h - the slice model's own state, shared by slices.c (pairing)
 * and slices-hand.c (a -j worker's local stacks handed to the caller).
 */
#ifndef TDAT_MODEL_SLICES_INT_H
#define TDAT_MODEL_SLICES_INT_H

#include "model/model.h"

struct sl_open {
	uint64_t ts, key;
	int64_t id, dur;	/* dur -1: open (SL_PERFETTO keeps finished ones above open ones) */
	const struct sl_type *st;
	int input, buffer;
	size_t off, name_len;	/* in the stack's arena: the name, then the writer's data */
	void *user;
};

struct sl_stack {
	struct sl_track track;
	struct sl_open *st;
	int n, cap;
	struct sl_buf arena;
	bool in_write;		/* SL_PERFETTO: a sys_write is open on this thread */
	bool listed;		/* local mode: in slices->open */
};

/* Per-CPU stacks of one input, one array per kind. */
struct sl_cpus {
	struct sl_stack *c[NSLK];
	int n[NSLK];
};

struct slices {
	enum sl_mode mode;
	struct sl_ops ops;
	struct idtab *types;	/* per input: struct sl_type, or &none */
	int ninputs;
	struct sl_stack *th;	/* by utid */
	int nth;
	struct sl_cpus *cpus;	/* by input */
	int ncpus;
	struct sl_buf name;	/* SL_PERFETTO: a new slice's name while the stack settles */
	int64_t next_id;
	bool local;		/* a -j worker's stacks, of one block (slices_set_local()) */
	struct sl_track *open;	/* local mode: the tracks that may have open slices */
	int nopen, capopen;
};

/* The stack of track @t (made on first use); NULL without memory. */
struct sl_stack *sl_stack_of(struct slices *s, const struct sl_track *t);

/* A new slot on top of @k's stack (grown as needed); NULL without memory. */
struct sl_open *sl_push_slot(struct sl_stack *k);
/* Local mode: @k has a slice open now (slices-hand.c); 0, or no memory. */
int sl_note_open(struct slices *s, struct sl_stack *k);

#endif /* TDAT_MODEL_SLICES_INT_H */
