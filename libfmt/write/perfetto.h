/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfetto.h - what the parts of the Perfetto writer share:
 * perfetto-events.c encodes one event as an FtraceEvent (its table of
 * Perfetto's typed messages), perfetto-compact.c keeps a bundle's
 * sched_switch and sched_waking in compact_sched, perfetto.c gathers them
 * into per-CPU bundles and writes the packets.
 */
#ifndef TDAT_PERFETTO_H
#define TDAT_PERFETTO_H

#include "model/model.h"
#include "write/sink.h"

/*
 * Field numbers of the .proto files of Perfetto's protos/perfetto/trace/ftrace/ (t-pffields
 * checks each against tests/perfetto/upstream-fields.txt).
 */
#define PF_EV_TIMESTAMP		1
#define PF_EV_PID		2
#define PF_EV_SCHED_SWITCH	4
#define PF_EV_SCHED_WAKING	20
#define PF_EV_GENERIC		327
#define PF_BUNDLE_EVENT		2	/* FtraceEventBundle.event */
#define PF_BUNDLE_COMPACT	4	/* FtraceEventBundle.compact_sched */

/* GenericFtraceEvent and its Field (ftrace/generic.proto). */
#define PF_GEN_NAME	1
#define PF_GEN_FIELD	2
#define PF_FIELD_NAME	1
#define PF_FIELD_STR	3
#define PF_FIELD_INT	4
#define PF_FIELD_UINT	5

/* FtraceEventBundle.CompactSched (ftrace/ftrace_event_bundle.proto). */
enum {
	PF_CS_SWITCH_TS = 1, PF_CS_SWITCH_PREV_STATE = 2, PF_CS_SWITCH_NEXT_PID = 3,
	PF_CS_SWITCH_NEXT_PRIO = 4, PF_CS_INTERN = 5, PF_CS_SWITCH_NEXT_COMM = 6,
	PF_CS_WAKING_TS = 7, PF_CS_WAKING_PID = 8, PF_CS_WAKING_TARGET_CPU = 9,
	PF_CS_WAKING_PRIO = 10, PF_CS_WAKING_COMM = 11, PF_CS_WAKING_FLAGS = 12,
	PF_CS_MAX = 12,
};

#define PF_MAX_FIELDS 8

/* How a kernel field becomes a proto field. */
enum pf_how {
	PF_NUM,			/* a varint */
	PF_STR,			/* a string */
	PF_U64S,		/* an array of longs: the field repeated (sys_enter args) */
	PF_BYTES,		/* an array of bytes, as they are */
};

/* One field of a typed message: its number and name in Perfetto's proto (the kernel's name). */
struct pf_spec_field {
	unsigned num;
	const char *name;
	enum pf_how how;
};

/* A kernel event with a message of its own in Perfetto's FtraceEvent. */
struct pf_spec {
	const char *system, *name;	/* name: also the FtraceEvent field's */
	unsigned num;			/* its FtraceEvent field number */
	struct pf_spec_field f[PF_MAX_FIELDS];
};

extern const struct pf_spec pf_specs[];
extern const size_t pf_nspecs;

/* What of an event compact_sched can hold. */
enum pf_cs { PF_CS_NONE, PF_CS_SWITCH, PF_CS_WAKING };

struct pf_field {
	unsigned num;		/* proto field number */
	const struct tfield *tf;
	enum pf_how how;
};

/* One event type of one input, ready to encode. */
struct pf_type {
	const struct ttype *tt;
	unsigned num;		/* FtraceEvent field: the typed message, or PF_EV_GENERIC */
	enum pf_cs cs;		/* sched_switch or sched_waking of the format compact_sched has */
	const struct tfield *cf[7];	/* then its fields, in compact_sched's order */
	bool feed;		/* the process model needs every event of it */
	const struct tfield *names;	/* task_newtask, task_rename: the pid trace processor names */
	int nf;
	struct pf_field f[PF_MAX_FIELDS];
	/* generic events: encoded event_name, and each Field's encoded name */
	unsigned char *gname;
	size_t gname_len;
	unsigned char **keys;
	unsigned *key_lens;
};

/* The encoding of @tt (typed if Perfetto has a message for it); NULL without memory. */
struct pf_type *pf_compile(const struct ttype *tt);
void pf_type_free(void *pt);
/* Append @ev to the bundle body @b as FtraceEvent (bundle field 2) with @pid. */
void pf_encode(struct tdat_sink *b, const struct tdat_event *ev, const struct pf_type *pt,
	       uint32_t pid);

/*
 * The (tid, comm) pairs trace processor was given as a thread's name, by a
 * full sched_switch or sched_waking or a compact sched_switch's next task,
 * in one input (and the tids so named, whatever the comm, also by task_newtask
 * and task_rename): a compact sched_waking names no thread, so it is only used
 * for a task already named so.
 */
struct pf_known {
	uint64_t *keys;				/* open addressing; 0 free */
	size_t cap, n;
	bool err;
};

void pf_known_free(struct pf_known *k);
/* Note that trace processor gave thread @tid a name (any). */
void pf_known_tid_add(struct pf_known *k, uint64_t tid);
/* Whether trace processor was given a name of thread @tid by an event. */
bool pf_known_tid(const struct pf_known *k, uint64_t tid);

/*
 * The compact_sched of one CPU's bundle being filled, and what trace
 * processor will take as that CPU's running task: the last sched_switch
 * written (compact or not).
 */
struct pf_compact {
	struct tdat_sink col[PF_CS_MAX + 1];	/* packed varints by field number */
	struct tdat_sink names;			/* intern_table, encoded */
	struct tdat_sink text;			/* the interned comms back to back */
	uint32_t *off;				/* where each one starts in text */
	uint16_t *slots;			/* hash of comms: index + 1, 0 free */
	unsigned nnames, cap;
	uint64_t last_switch, last_waking;	/* timestamps, for the deltas */
	unsigned n;				/* events in it */
	uint64_t bound;				/* pf_compact_size(), kept as events go in */
	bool running;				/* a sched_switch was written */
	int64_t pid, prio;			/* its next_pid and next_prio */
	unsigned char comm[64];			/* and next_comm */
	unsigned comm_len;
	uint64_t last_ts;			/* of the last event written, any */
	bool have_ts;
	struct pf_known *known;			/* its input's, shared by its CPUs */
};

void pf_compact_init(struct pf_compact *c, struct pf_known *known);
/*
 * Put @ev into compact_sched if it can go there without trace processor
 * seeing anything else than from the full event: true if it went, false if
 * it is to be written in full (after which pf_compact_note() is called).
 */
bool pf_compact_put(struct pf_compact *c, const struct tdat_event *ev, const struct pf_type *pt,
		    uint32_t pid);
/* Note @ev, written in full: the running task after a sched_switch. */
void pf_compact_note(struct pf_compact *c, const struct tdat_event *ev, const struct pf_type *pt);
/* Bytes of the encoded compact_sched field (tag and length too); 0 if empty. */
uint64_t pf_compact_size(const struct pf_compact *c);
/* Write it and start the next bundle's; false without memory. */
bool pf_compact_flush(struct pf_compact *c, struct tdat_sink *out);
bool pf_compact_err(const struct pf_compact *c);
void pf_compact_free(struct pf_compact *c);

/* A varint with no tag, as a packed repeated field holds them. */
void pb_raw_varint(struct tdat_sink *s, uint64_t v);

/*
 * perfetto-zlib.c: "compression" zlib batches deflated (libdeflate at
 * @level, one zlib stream each) on @workers threads (1 or less: the
 * caller's, in pf_zring_oldest()) and taken back in order.
 */
struct pf_zring;
struct pf_zring *pf_zring_new(int workers, int level);
void pf_zring_free(struct pf_zring *z);
/* Every slot holds a batch not yet written: write the oldest before submitting. */
bool pf_zring_full(const struct pf_zring *z);
/* Some batch submitted is not yet written. */
bool pf_zring_pending(const struct pf_zring *z);
/* Have @batch's bytes deflated; @batch is left empty (another buffer, not copied). */
void pf_zring_submit(struct pf_zring *z, struct tdat_sink *batch);
/* The oldest batch's deflated bytes, once done (waiting for them); 0 or TDAT_ENOMEM. */
int pf_zring_oldest(struct pf_zring *z, const unsigned char **out, size_t *len);
/* Done with the oldest batch: its slot is free. */
void pf_zring_free_oldest(struct pf_zring *z);

#endif /* TDAT_PERFETTO_H */
