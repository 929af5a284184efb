/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfetto.h - what the two halves of the Perfetto writer share:
 * perfetto-events.c encodes one event as an FtraceEvent, perfetto.c
 * gathers them into per-CPU bundles and writes the packets.
 */
#ifndef TDAT_PERFETTO_H
#define TDAT_PERFETTO_H

#include "model/model.h"
#include "write/write.h"

/* Field numbers of Perfetto's protos/perfetto/trace/ftrace/ftrace_event.proto. */
#define PF_EV_TIMESTAMP		1
#define PF_EV_PID		2
#define PF_EV_COMMON_FLAGS	5
#define PF_EV_GENERIC		327
#define PF_BUNDLE_EVENT		2	/* FtraceEventBundle.event */

#define PF_MAX_FIELDS 8

/* How a kernel field becomes a proto field. */
enum pf_how {
	PF_NUM,			/* a varint */
	PF_STR,			/* a string */
	PF_U64S,		/* an array of longs: the field repeated (sys_enter args) */
};

struct pf_field {
	unsigned num;		/* proto field number */
	const struct tfield *tf;
	enum pf_how how;
};

/* One event type of one input, ready to encode. */
struct pf_type {
	const struct ttype *tt;
	unsigned num;		/* FtraceEvent field: the typed message, or PF_EV_GENERIC */
	bool flags;		/* write common_flags (sched_waking: irq context) */
	bool feed;		/* the process model needs every event of it */
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

#endif /* TDAT_PERFETTO_H */
