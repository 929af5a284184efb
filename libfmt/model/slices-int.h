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

/*
 * The pairing machinery slices.c shares with a writer's own pairing
 * (ops->pairing: write/json-pair.c, SL_JSON).
 */
/* Hand stack entry @i of @k over with @dur (-1: open at the end); @end NULL: unfinished. */
int sl_report(struct slices *s, struct sl_stack *k, int i, int64_t dur, uint64_t end_ts,
	      const struct tdat_event *end);
/* Drop the top of @k's stack, its bytes too. */
void sl_pop(struct sl_stack *k);
/* Push a slice begun by @ev with @key; its name is already at the end of k->arena, from @off. */
int sl_push(struct slices *s, struct sl_stack *k, const struct sl_type *st,
	    const struct tdat_event *ev, uint64_t key, size_t off);
/* The key of @ev, an event of @st (SLN_EVENT: the sys_enter_ type's id). */
uint64_t sl_key_of(const struct sl_type *st, const struct tdat_event *ev);
void sl_keep_str(struct sl_buf *b, const char *s);
/* @prefix, then @v in hex or decimal (@sgn: as a signed number); no printf per slice. */
void sl_keep_num(struct sl_buf *b, const char *prefix, uint64_t v, bool hex, bool sgn);
/* The kernel function at field @f of @ev, or its address in hex ("0x" before 0 in SL_JSON only). */
void sl_keep_sym(struct sl_buf *b, const struct tdat_event *ev, const struct tfield *f,
		 enum sl_mode mode);

/* The stack of track @t (made on first use); NULL without memory. */
struct sl_stack *sl_stack_of(struct slices *s, const struct sl_track *t);

/* A new slot on top of @k's stack (grown as needed); NULL without memory. */
struct sl_open *sl_push_slot(struct sl_stack *k);
/* Local mode: @k has a slice open now (slices-hand.c); 0, or no memory. */
int sl_note_open(struct slices *s, struct sl_stack *k);

#endif /* TDAT_MODEL_SLICES_INT_H */
