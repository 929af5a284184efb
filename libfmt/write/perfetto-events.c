/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfetto-events.c - one trace.dat event as a Perfetto FtraceEvent, for
 * perfetto.c.  The events Perfetto has a message for (the table pf_specs[]:
 * scheduling, process lifetime, print, power, irq, softirq and ipi, raw
 * syscalls, workqueue, timers and hrtimers, kmem and page allocation,
 * filemap, block, signals, oom, vmscan, i2c) are written as that message,
 * field by field from the kernel's format, with the field numbers of
 * Perfetto's protos (the .proto files of protos/perfetto/trace/ftrace/;
 * tests/perfetto/upstream-fields.txt lists them and t-pffields checks the
 * table against it).  A field name is the kernel's and Perfetto's alike.
 * A kernel field the message lacks is left out, and so is a message field
 * the kernel's format lacks; a field of an unexpected kind (a string where
 * a number is expected) or a format with none of the message's fields makes
 * the whole event generic.  Every other event becomes a
 * GenericFtraceEvent: its name and each field with a typed value (signed,
 * unsigned or string; arrays as "[a,b,...]" text).  Values are raw kernel
 * values: prev_state stays the kernel's integer, which trace processor
 * decodes for the kernel release of the SystemInfo packet.  A type's
 * sched_switch or sched_waking may go into compact_sched instead
 * (perfetto-compact.c); its fields are found here.
 */
#include <stdlib.h>
#include <string.h>

#include "perfetto.h"
#include "write/pbenc.h"
#include "write/csvfmt.h"

/* A field of a typed message: a number, a string, the bytes of an array. */
#define N(num, name) { num, #name, PF_NUM }
#define S(num, name) { num, #name, PF_STR }
#define B(num, name) { num, #name, PF_BYTES }

#define WAKE_FIELDS { { 1, "comm", PF_STR }, { 2, "pid", PF_NUM }, { 3, "prio", PF_NUM }, \
		      { 4, "success", PF_NUM }, { 5, "target_cpu", PF_NUM } }
#define POWER_FIELDS { { 1, "state", PF_NUM }, { 2, "cpu_id", PF_NUM } }
#define WORK_FIELDS { { 1, "work", PF_NUM }, { 2, "function", PF_NUM } }

const struct pf_spec pf_specs[] = {
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
	{ "sched", "sched_process_wait", 242, { S(1, comm), N(2, pid), N(3, prio) } },
	{ "sched", "sched_process_hang", 241, { S(1, comm), N(2, pid) } },
	{ "sched", "sched_migrate_task", 491, { S(1, comm), N(2, pid), N(3, prio), N(4, orig_cpu),
		N(5, dest_cpu), N(6, running), N(7, load) } },
	{ "sched", "sched_pi_setprio", 353, { S(1, comm), N(2, newprio), N(3, oldprio),
		N(4, pid) } },
	{ "power", "cpu_frequency_limits", 12, { N(1, min_freq), N(2, max_freq), N(3, cpu_id) } },
	{ "power", "suspend_resume", 113, { S(1, action), N(2, val), N(3, start) } },
	{ "power", "clock_set_rate", 16, { S(1, name), N(2, state), N(3, cpu_id) } },
	{ "power", "clock_enable", 14, { S(1, name), N(2, state), N(3, cpu_id) } },
	{ "power", "clock_disable", 15, { S(1, name), N(2, state), N(3, cpu_id) } },
	{ "irq", "softirq_raise", 26, { N(1, vec) } },
	{ "workqueue", "workqueue_queue_work", 59, { N(1, work), N(2, function), N(4, req_cpu),
		N(5, cpu), S(6, workqueue) } },
	{ "workqueue", "workqueue_activate_work", 56, { N(1, work), N(2, function) } },
	{ "timer", "hrtimer_start", 551, { N(1, hrtimer), N(2, function), N(3, expires),
		N(4, softexpires), N(5, mode) } },
	{ "timer", "hrtimer_cancel", 552, { N(1, hrtimer) } },
	{ "timer", "hrtimer_expire_entry", 553, { N(1, hrtimer), N(2, now), N(3, function) } },
	{ "timer", "hrtimer_expire_exit", 554, { N(1, hrtimer) } },
	{ "timer", "timer_start", 555, { N(1, timer), N(2, function), N(3, expires), N(4, now),
		N(5, deferrable), N(6, flags), N(7, bucket_expiry) } },
	{ "timer", "timer_cancel", 556, { N(1, timer) } },
	{ "timer", "timer_expire_entry", 557, { N(1, timer), N(2, now), N(3, function),
		N(4, baseclk) } },
	{ "timer", "timer_expire_exit", 558, { N(1, timer) } },
	{ "irq_vectors", "local_timer_entry", 559, { N(1, vector) } },
	{ "irq_vectors", "local_timer_exit", 560, { N(1, vector) } },
	{ "ipi", "ipi_raise", 23, { N(1, target_cpus), S(2, reason) } },
	{ "ipi", "ipi_entry", 21, { S(1, reason) } },
	{ "ipi", "ipi_exit", 22, { S(1, reason) } },
	{ "signal", "signal_generate", 325, { N(1, code), S(2, comm), N(3, group), N(4, pid),
		N(5, result), N(6, sig) } },
	{ "signal", "signal_deliver", 324, { N(1, code), N(2, sa_flags), N(3, sig) } },
	{ "kmem", "kmalloc", 299, { N(1, bytes_alloc), N(2, bytes_req), N(3, call_site),
		N(4, gfp_flags), N(5, ptr) } },
	{ "kmem", "kmalloc_node", 300, { N(1, bytes_alloc), N(2, bytes_req), N(3, call_site),
		N(4, gfp_flags), N(5, node), N(6, ptr) } },
	{ "kmem", "kfree", 298, { N(1, call_site), N(2, ptr) } },
	{ "kmem", "kmem_cache_alloc", 301, { N(1, bytes_alloc), N(2, bytes_req), N(3, call_site),
		N(4, gfp_flags), N(5, ptr) } },
	{ "kmem", "kmem_cache_alloc_node", 302, { N(1, bytes_alloc), N(2, bytes_req),
		N(3, call_site), N(4, gfp_flags), N(5, node), N(6, ptr) } },
	{ "kmem", "kmem_cache_free", 303, { N(1, call_site), N(2, ptr) } },
	{ "kmem", "mm_page_alloc", 307, { N(1, gfp_flags), N(2, migratetype), N(3, order),
		N(4, page), N(5, pfn) } },
	{ "kmem", "mm_page_alloc_zone_locked", 309, { N(1, migratetype), N(2, order), N(3, page),
		N(4, pfn) } },
	{ "kmem", "mm_page_alloc_extfrag", 308, { N(1, alloc_migratetype), N(2, alloc_order),
		N(3, fallback_migratetype), N(4, fallback_order), N(5, page),
		N(6, change_ownership), N(7, pfn) } },
	{ "kmem", "mm_page_free", 310, { N(1, order), N(2, page), N(3, pfn) } },
	{ "kmem", "mm_page_free_batched", 311, { N(1, cold), N(2, page), N(3, pfn) } },
	{ "kmem", "mm_page_pcpu_drain", 312, { N(1, migratetype), N(2, order), N(3, page),
		N(4, pfn) } },
	{ "kmem", "rss_stat", 313, { N(1, member), N(2, size), N(3, curr), N(4, mm_id) } },
	{ "filemap", "mm_filemap_add_to_page_cache", 97, { N(1, pfn), N(2, i_ino), N(3, index),
		N(4, s_dev), N(5, page) } },
	{ "filemap", "mm_filemap_delete_from_page_cache", 98, { N(1, pfn), N(2, i_ino),
		N(3, index), N(4, s_dev), N(5, page) } },
	{ "block", "block_rq_issue", 45, { N(1, dev), N(2, sector), N(3, nr_sector), N(4, bytes),
		S(5, rwbs), S(6, comm), S(7, cmd) } },
	{ "block", "block_rq_insert", 126, { N(1, dev), N(2, sector), N(3, nr_sector), N(4, bytes),
		S(5, rwbs), S(6, comm), S(7, cmd) } },
	{ "block", "block_rq_complete", 125, { N(1, dev), N(2, sector), N(3, nr_sector),
		N(4, errors), S(5, rwbs), S(6, cmd), N(7, error) } },
	{ "block", "block_rq_requeue", 129, { N(1, dev), N(2, sector), N(3, nr_sector),
		N(4, errors), S(5, rwbs), S(6, cmd) } },
	{ "block", "block_rq_remap", 128, { N(1, dev), N(2, sector), N(3, nr_sector),
		N(4, old_dev), N(5, old_sector), N(6, nr_bios), S(7, rwbs) } },
	{ "block", "block_rq_abort", 124, { N(1, dev), N(2, sector), N(3, nr_sector), N(4, errors),
		S(5, rwbs), S(6, cmd) } },
	{ "block", "block_bio_queue", 119, { N(1, dev), N(2, sector), N(3, nr_sector), S(4, rwbs),
		S(5, comm) } },
	{ "block", "block_bio_complete", 117, { N(1, dev), N(2, sector), N(3, nr_sector),
		N(4, error), S(5, rwbs) } },
	{ "block", "block_bio_backmerge", 115, { N(1, dev), N(2, sector), N(3, nr_sector),
		S(4, rwbs), S(5, comm) } },
	{ "block", "block_bio_frontmerge", 118, { N(1, dev), N(2, sector), N(3, nr_sector),
		S(4, rwbs), S(5, comm) } },
	{ "block", "block_bio_remap", 120, { N(1, dev), N(2, sector), N(3, nr_sector),
		N(4, old_dev), N(5, old_sector), S(6, rwbs) } },
	{ "block", "block_bio_bounce", 116, { N(1, dev), N(2, sector), N(3, nr_sector), S(4, rwbs),
		S(5, comm) } },
	{ "block", "block_getrq", 122, { N(1, dev), N(2, sector), N(3, nr_sector), S(4, rwbs),
		S(5, comm) } },
	{ "block", "block_sleeprq", 130, { N(1, dev), N(2, sector), N(3, nr_sector), S(4, rwbs),
		S(5, comm) } },
	{ "block", "block_plug", 123, { S(1, comm) } },
	{ "block", "block_unplug", 133, { N(1, nr_rq), S(2, comm) } },
	{ "block", "block_split", 131, { N(1, dev), N(2, sector), N(3, new_sector), S(4, rwbs),
		S(5, comm) } },
	{ "block", "block_dirty_buffer", 121, { N(1, dev), N(2, sector), N(3, size) } },
	{ "block", "block_touch_buffer", 132, { N(1, dev), N(2, sector), N(3, size) } },
	{ "vmscan", "mm_vmscan_direct_reclaim_begin", 46, { N(1, order), N(2, may_writepage),
		N(3, gfp_flags) } },
	{ "vmscan", "mm_vmscan_direct_reclaim_end", 47, { N(1, nr_reclaimed) } },
	{ "vmscan", "mm_vmscan_kswapd_wake", 48, { N(1, nid), N(2, order), N(3, zid) } },
	{ "vmscan", "mm_vmscan_kswapd_sleep", 49, { N(1, nid) } },
	{ "oom", "oom_score_adj_update", 326, { S(1, comm), N(2, oom_score_adj), N(3, pid) } },
	{ "oom", "mark_victim", 334, { N(1, pid) } },
	{ "i2c", "i2c_read", 27, { N(1, adapter_nr), N(2, msg_nr), N(3, addr), N(4, flags),
		N(5, len) } },
	{ "i2c", "i2c_write", 28, { N(1, adapter_nr), N(2, msg_nr), N(3, addr), N(4, flags),
		N(5, len), B(7, buf) } },
	{ "i2c", "i2c_result", 29, { N(1, adapter_nr), N(2, nr_msgs), N(3, ret) } },
	{ "i2c", "i2c_reply", 30, { N(1, adapter_nr), N(2, msg_nr), N(3, addr), N(4, flags),
		N(5, len), B(7, buf) } },
	{ "i2c", "smbus_read", 31, { N(1, adapter_nr), N(2, flags), N(3, addr), N(4, command),
		N(5, protocol) } },
	{ "i2c", "smbus_write", 32, { N(1, adapter_nr), N(2, addr), N(3, flags), N(4, command),
		N(5, len), N(6, protocol) } },
	{ "i2c", "smbus_result", 33, { N(1, adapter_nr), N(2, addr), N(3, flags), N(4, read_write),
		N(5, command), N(6, res), N(7, protocol) } },
	{ "i2c", "smbus_reply", 34, { N(1, adapter_nr), N(2, addr), N(3, flags), N(4, command),
		N(5, len), N(6, protocol) } },
	{ "dwc3", "dwc3_ctrl_req", 563, { N(1, bRequestType), N(2, bRequest), N(3, wValue),
		N(4, wIndex), N(5, wLength), S(6, str) } },
};
const size_t pf_nspecs = sizeof(pf_specs) / sizeof(pf_specs[0]);

#undef N
#undef S
#undef B

/* ---- compiling a type ---- */

static bool kind_fits(const struct tfield *tf, enum pf_how how)
{
	switch (how) {
	case PF_STR:
		return tf->kind == TK_STR;
	case PF_U64S:
		return tf->kind == TK_ARRAY && (tf->elem == 4 || tf->elem == 8);
	case PF_BYTES:
		return tf->kind == TK_ARRAY && tf->elem == 1;
	default:
		return tf->kind != TK_STR && tf->kind != TK_ARRAY;
	}
}

/* compact_sched's fields of each kind, in the order of struct pf_type's cf[]. */
static const char *const cs_fields[][7] = {
	[PF_CS_SWITCH] = { "prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm",
			   "next_pid", "next_prio" },
	[PF_CS_WAKING] = { "comm", "pid", "prio", "target_cpu" },
};

/*
 * Whether compact_sched can hold every field of @pt's events: a sched_switch
 * or sched_waking (with common_flags) that has its fields and no other.
 */
static void compactable(struct pf_type *pt)
{
	enum pf_cs cs = pt->num == PF_EV_SCHED_SWITCH ? PF_CS_SWITCH :
			pt->num == PF_EV_SCHED_WAKING ? PF_CS_WAKING : PF_CS_NONE;
	bool str;
	int n = 0;

	if (cs == PF_CS_NONE || (cs == PF_CS_WAKING && !pt->tt->cflags.size))
		return;
	for (; n < 7 && cs_fields[cs][n]; n++) {
		pt->cf[n] = ttype_field(pt->tt, cs_fields[cs][n]);
		str = n == 0 || (cs == PF_CS_SWITCH && n == 4);	/* the comms */
		if (!pt->cf[n] || !kind_fits(pt->cf[n], str ? PF_STR : PF_NUM))
			return;
	}
	if (n == pt->tt->nfields)
		pt->cs = cs;
}

/*
 * The typed message of @tt: true if Perfetto has one, the fields fit, and
 * one at least is there (or the event has none).
 */
static bool typed(struct pf_type *pt)
{
	const struct ttype *tt = pt->tt;

	for (size_t i = 0; i < pf_nspecs; i++) {
		const struct pf_spec *sp = &pf_specs[i];

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
		if (!pt->nf && tt->nfields)
			return false;
		pt->num = sp->num;
		compactable(pt);
		/* trace processor names the thread of these from the event */
		if (!strcmp(tt->system, "task"))
			pt->names = ttype_field(tt, "pid");
		return true;
	}
	return false;
}

/* Tag, length and bytes of a string field, built once. */
static unsigned char *encoded(unsigned num, const char *s, size_t *len)
{
	struct tdat_sink b = { .fd = -1 };

	pb_text(&b, num, s, strlen(s));
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
			pb_text(b, f->num, p, len);
		break;
	case PF_BYTES:
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
			pb_text(b, PF_FIELD_STR, p, len);
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

	/* no common_flags: trace processor would take it for an event of its own */
	pb_varint(b, PF_EV_TIMESTAMP, ev->ts);
	pb_varint(b, PF_EV_PID, pid);
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
