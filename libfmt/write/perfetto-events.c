/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfetto-events.c - one trace.dat event as a Perfetto FtraceEvent, for
 * perfetto.c.  The events Perfetto has a message for (scheduling,
 * process lifetime, print, cpufreq/cpuidle, irq and softirq, raw syscalls,
 * workqueue execution) are written as that message, field by field from the
 * kernel's format, with the field numbers of Perfetto's protos
 * (the .proto files of protos/perfetto/trace/ftrace/; tests/perfetto/tdat-perfetto.proto
 * repeats the ones used here).  A kernel field the format lacks is left
 * out; a field of an unexpected kind (a string where a number is expected)
 * makes the whole event generic.  Every other event becomes a
 * GenericFtraceEvent: its name and each field with a typed value (signed,
 * unsigned or string; arrays as "[a,b,...]" text).  Values are raw kernel
 * values: prev_state stays the kernel's integer, which trace processor
 * decodes for the kernel release of the SystemInfo packet.
 */
#include <stdlib.h>
#include <string.h>

#include "perfetto.h"

/* GenericFtraceEvent and its Field (ftrace/generic.proto). */
#define PF_GEN_NAME	1
#define PF_GEN_FIELD	2
#define PF_FIELD_NAME	1
#define PF_FIELD_STR	3
#define PF_FIELD_INT	4
#define PF_FIELD_UINT	5

struct pf_spec_field {
	unsigned num;
	const char *name;
	enum pf_how how;
};

struct pf_spec {
	const char *system, *name;
	unsigned num;		/* FtraceEvent oneof field */
	struct pf_spec_field f[PF_MAX_FIELDS];
};

#define WAKE_FIELDS { { 1, "comm", PF_STR }, { 2, "pid", PF_NUM }, { 3, "prio", PF_NUM }, \
		      { 4, "success", PF_NUM }, { 5, "target_cpu", PF_NUM } }
#define POWER_FIELDS { { 1, "state", PF_NUM }, { 2, "cpu_id", PF_NUM } }
#define WORK_FIELDS { { 1, "work", PF_NUM }, { 2, "function", PF_NUM } }

static const struct pf_spec specs[] = {
	{ "sched", "sched_switch", 4, { { 1, "prev_comm", PF_STR }, { 2, "prev_pid", PF_NUM },
		{ 3, "prev_prio", PF_NUM }, { 4, "prev_state", PF_NUM }, { 5, "next_comm", PF_STR },
		{ 6, "next_pid", PF_NUM }, { 7, "next_prio", PF_NUM } } },
	{ "sched", "sched_wakeup", 17, WAKE_FIELDS },
	{ "sched", "sched_waking", 20, WAKE_FIELDS },
	{ "sched", "sched_wakeup_new", 114, WAKE_FIELDS },
	{ "sched", "sched_blocked_reason", 18, { { 1, "pid", PF_NUM }, { 2, "caller", PF_NUM },
		{ 3, "io_wait", PF_NUM } } },
	{ "sched", "sched_process_fork", 239, { { 1, "parent_comm", PF_STR },
		{ 2, "parent_pid", PF_NUM }, { 3, "child_comm", PF_STR }, { 4, "child_pid", PF_NUM } } },
	{ "sched", "sched_process_exit", 238, { { 1, "comm", PF_STR }, { 2, "pid", PF_NUM },
		{ 3, "tgid", PF_NUM }, { 4, "prio", PF_NUM } } },
	{ "sched", "sched_process_free", 240, { { 1, "comm", PF_STR }, { 2, "pid", PF_NUM },
		{ 3, "prio", PF_NUM } } },
	{ "sched", "sched_process_exec", 237, { { 1, "filename", PF_STR }, { 2, "pid", PF_NUM },
		{ 3, "old_pid", PF_NUM } } },
	{ "task", "task_newtask", 235, { { 1, "pid", PF_NUM }, { 2, "comm", PF_STR },
		{ 3, "clone_flags", PF_NUM }, { 4, "oom_score_adj", PF_NUM } } },
	{ "task", "task_rename", 236, { { 1, "pid", PF_NUM }, { 2, "oldcomm", PF_STR },
		{ 3, "newcomm", PF_STR }, { 4, "oom_score_adj", PF_NUM } } },
	{ "ftrace", "print", 3, { { 1, "ip", PF_NUM }, { 2, "buf", PF_STR } } },
	{ "power", "cpu_frequency", 11, POWER_FIELDS },
	{ "power", "cpu_idle", 13, POWER_FIELDS },
	{ "irq", "irq_handler_entry", 36, { { 1, "irq", PF_NUM }, { 2, "name", PF_STR } } },
	{ "irq", "irq_handler_exit", 37, { { 1, "irq", PF_NUM }, { 2, "ret", PF_NUM } } },
	{ "irq", "softirq_entry", 24, { { 1, "vec", PF_NUM } } },
	{ "irq", "softirq_exit", 25, { { 1, "vec", PF_NUM } } },
	{ "raw_syscalls", "sys_enter", 329, { { 1, "id", PF_NUM }, { 2, "args", PF_U64S } } },
	{ "raw_syscalls", "sys_exit", 330, { { 1, "id", PF_NUM }, { 2, "ret", PF_NUM } } },
	{ "workqueue", "workqueue_execute_start", 58, WORK_FIELDS },
	{ "workqueue", "workqueue_execute_end", 57, WORK_FIELDS },
};

/* ---- compiling a type ---- */

static bool kind_fits(const struct tfield *tf, enum pf_how how)
{
	switch (how) {
	case PF_STR:
		return tf->kind == TK_STR;
	case PF_U64S:
		return tf->kind == TK_ARRAY && (tf->elem == 4 || tf->elem == 8);
	default:
		return tf->kind != TK_STR && tf->kind != TK_ARRAY;
	}
}

/* The typed message of @tt: true if Perfetto has one and the fields fit. */
static bool typed(struct pf_type *pt)
{
	const struct ttype *tt = pt->tt;

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		const struct pf_spec *sp = &specs[i];

		if (strcmp(sp->name, tt->name) || strcmp(sp->system, tt->system))
			continue;
		for (int k = 0; k < PF_MAX_FIELDS && sp->f[k].name; k++) {
			const struct tfield *tf = ttype_field(tt, sp->f[k].name);

			if (!tf)
				continue;
			if (!kind_fits(tf, sp->f[k].how))
				return false;
			pt->f[pt->nf++] = (struct pf_field){ sp->f[k].num, tf, sp->f[k].how };
		}
		pt->num = sp->num;
		pt->flags = !strcmp(tt->name, "sched_waking");
		return true;
	}
	return false;
}

/* Tag, length and bytes of a string field, built once. */
static unsigned char *encoded(unsigned num, const char *s, size_t *len)
{
	struct tdat_sink b = { .fd = -1 };

	pb_bytes(&b, num, s, strlen(s));
	if (b.err) {
		free(b.buf);
		return NULL;
	}
	*len = b.len;
	return (unsigned char *)b.buf;
}

static int generic(struct pf_type *pt)
{
	const struct ttype *tt = pt->tt;
	size_t len;

	pt->nf = 0;
	pt->num = PF_EV_GENERIC;
	pt->gname = encoded(PF_GEN_NAME, tt->event ? tt->name : "unknown", &pt->gname_len);
	pt->keys = calloc((size_t)tt->nfields + 1, sizeof(*pt->keys));
	pt->key_lens = calloc((size_t)tt->nfields + 1, sizeof(*pt->key_lens));
	if (!pt->gname || !pt->keys || !pt->key_lens)
		return TDAT_ENOMEM;
	for (int i = 0; i < tt->nfields; i++) {
		if (!(pt->keys[i] = encoded(PF_FIELD_NAME, tt->fields[i].name, &len)))
			return TDAT_ENOMEM;
		pt->key_lens[i] = (unsigned)len;
	}
	return 0;
}

struct pf_type *pf_compile(const struct ttype *tt)
{
	struct pf_type *pt = calloc(1, sizeof(*pt));

	if (!pt)
		return NULL;
	pt->tt = tt;
	pt->feed = tt->event && pm_wants(tt);
	if ((!tt->event || !typed(pt)) && generic(pt)) {
		pf_type_free(pt);
		return NULL;
	}
	return pt;
}

void pf_type_free(void *p)
{
	struct pf_type *pt = p;

	if (!pt)
		return;
	for (int i = 0; pt->keys && i < pt->tt->nfields; i++)
		free(pt->keys[i]);
	free(pt->keys);
	free(pt->key_lens);
	free(pt->gname);
	free(pt);
}

/* ---- encoding ---- */

static void put_field(struct tdat_sink *b, const struct tdat_event *ev, const struct pf_field *f)
{
	const unsigned char *p;
	unsigned len;
	uint64_t v;

	switch (f->how) {
	case PF_NUM:
		if (tfield_num(ev, f->tf, &v))
			pb_varint(b, f->num, v);
		break;
	case PF_STR:
		if (tfield_bytes(ev, f->tf, &p, &len))
			pb_bytes(b, f->num, p, len);
		break;
	case PF_U64S:
		if (!tfield_bytes(ev, f->tf, &p, &len))
			break;
		for (unsigned i = 0; i + f->tf->elem <= len; i += f->tf->elem)
			pb_varint(b, f->num, field_raw(ev->file, p + i, f->tf->elem));
		break;
	}
}

/* One GenericFtraceEvent.Field: its name, then the value of its kind. */
static void put_generic_field(struct tdat_sink *b, const struct tdat_event *ev,
			      const struct pf_type *pt, int i)
{
	const struct tfield *tf = &pt->tt->fields[i];
	size_t mark = pb_begin(b, PF_GEN_FIELD), at;
	const unsigned char *p;
	unsigned len;
	uint64_t v;

	sink_write(b, pt->keys[i], pt->key_lens[i]);
	if (tf->kind == TK_STR) {
		if (tfield_bytes(ev, tf, &p, &len))
			pb_bytes(b, PF_FIELD_STR, p, len);
	} else if (tf->kind == TK_ARRAY) {
		if (tfield_bytes(ev, tf, &p, &len)) {
			at = pb_begin(b, PF_FIELD_STR);
			csv_put_array(b, ev->file, p, len, tf);	/* [a,b,...] */
			pb_end(b, at);
		}
	} else if (tfield_num(ev, tf, &v)) {
		pb_varint(b, tf->kind == TK_INT ? PF_FIELD_INT : PF_FIELD_UINT, v);
	}
	pb_end(b, mark);
}

void pf_encode(struct tdat_sink *b, const struct tdat_event *ev, const struct pf_type *pt,
	       uint32_t pid)
{
	size_t outer = pb_begin(b, PF_BUNDLE_EVENT), inner;
	uint64_t v;

	pb_varint(b, PF_EV_TIMESTAMP, ev->ts);
	pb_varint(b, PF_EV_PID, pid);
	if (pt->flags && tfield_num(ev, &pt->tt->cflags, &v))
		pb_varint(b, PF_EV_COMMON_FLAGS, v);
	inner = pb_begin(b, pt->num);
	if (pt->num == PF_EV_GENERIC) {
		sink_write(b, pt->gname, pt->gname_len);
		for (int i = 0; i < pt->tt->nfields; i++)
			put_generic_field(b, ev, pt, i);
	} else {
		for (int i = 0; i < pt->nf; i++)
			put_field(b, ev, &pt->f[i]);
	}
	pb_end(b, inner);
	pb_end(b, outer);
}
