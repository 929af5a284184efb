/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfetto-compact.c - sched_switch and sched_waking in a bundle's
 * compact_sched (FtraceEventBundle.CompactSched), as Perfetto's recorder
 * writes them: one packed column per field, timestamps as deltas from the
 * bundle's previous event of the same kind, comms as indexes into the
 * bundle's intern_table.
 *
 * compact_sched leaves out what trace processor infers: a sched_switch's
 * prev_pid, prev_prio and prev_comm are those of the last sched_switch's
 * next task on the CPU, and a sched_waking's waker is that task.  So an
 * event goes there only when the inference gives back its own values:
 *
 *   sched_switch   a sched_switch was written before on the CPU and its
 *                  next_pid, next_prio and next_comm are this one's prev_*
 *                  (the first one of each CPU, one after lost events or
 *                  after a rename while running stays a full event; trace
 *                  processor would drop a first compact one), not the idle
 *                  task (trace processor would call it "swapper"), not a
 *                  task that exits (its last switch, which trace processor
 *                  takes, as a full event, for a new thread of that tid
 *                  when a ProcessTree names the tid again)
 *   sched_waking   the waker (the event's pid) is that running task, and
 *                  the wakee was named with its comm before (trace processor
 *                  names a thread from a full sched_waking, not a compact one)
 *
 * and only when its timestamp is after the previous event of the CPU's:
 * trace processor takes a bundle's compact events before its full ones, so
 * at equal timestamps their order would change.  A format with other
 * fields than compact_sched holds (an old kernel's sched_waking success)
 * is written in full too.
 */
#include <stdlib.h>
#include <string.h>

#include "perfetto.h"
#include "write/pbenc.h"

#define NSLOTS 8192
#define EXITING 0x30		/* EXIT_DEAD | EXIT_ZOMBIE in prev_state, every kernel */		/* > 2 * the most comms of a bundle (BUNDLE_EVENTS) */

void pb_raw_varint(struct tdat_sink *s, uint64_t v)
{
	unsigned char *d = (unsigned char *)sink_reserve(s, PB_VARINT_MAX);

	if (d)
		sink_commit(s, pb_enc_varint(d, v));
}

void pf_compact_init(struct pf_compact *c, struct pf_known *known)
{
	memset(c, 0, sizeof(*c));
	c->known = known;
	for (int i = 0; i <= PF_CS_MAX; i++)
		c->col[i].fd = -1;
	c->names.fd = -1;
	c->text.fd = -1;
}

static uint32_t hash(const unsigned char *p, unsigned len)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (unsigned i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static uint64_t known_key(uint64_t tid, const unsigned char *p, unsigned len)
{
	return (tid + 1) << 32 | hash(p, len);
}

/* A tid named with any comm: the top bit, which no (tid + 1) << 32 of a pid_t has. */
static uint64_t tid_key(uint64_t tid)
{
	return 1ull << 63 | (tid & 0xffffffffu);
}

/* Where @key is in @k, or the free slot it would take. */
static uint64_t *known_slot(const struct pf_known *k, uint64_t key)
{
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15u >> 20) & (k->cap - 1);

	while (k->keys[i] && k->keys[i] != key)
		i = (i + 1) & (k->cap - 1);
	return &k->keys[i];
}

static bool known_has(const struct pf_known *k, uint64_t key)
{
	return k->cap && *known_slot(k, key) == key;
}

static void known_add(struct pf_known *k, uint64_t key)
{
	if (2 * (k->n + 1) > k->cap) {
		struct pf_known g = { .cap = k->cap ? 2 * k->cap : 1024 };

		if (!(g.keys = calloc(g.cap, sizeof(*g.keys)))) {
			k->err = true;
			return;
		}
		for (size_t i = 0; i < k->cap; i++)
			if (k->keys[i])
				*known_slot(&g, k->keys[i]) = k->keys[i];
		free(k->keys);
		k->keys = g.keys;
		k->cap = g.cap;
	}
	if (!*known_slot(k, key)) {
		*known_slot(k, key) = key;
		k->n++;
	}
}

/* Note that trace processor names thread @pidf of @ev after field @commf. */
static void name_given(struct pf_compact *c, const struct tdat_event *ev,
		       const struct tfield *commf, const struct tfield *pidf)
{
	const unsigned char *p;
	uint64_t pid;
	unsigned len;

	if (c->known && commf && pidf && tfield_bytes(ev, commf, &p, &len) &&
	    tfield_num(ev, pidf, &pid)) {
		known_add(c->known, known_key(pid, p, len));
		known_add(c->known, tid_key(pid));
	}
}

void pf_known_tid_add(struct pf_known *k, uint64_t tid)
{
	known_add(k, tid_key(tid));
}

bool pf_known_tid(const struct pf_known *k, uint64_t tid)
{
	return known_has(k, tid_key(tid));
}

void pf_known_free(struct pf_known *k)
{
	free(k->keys);
	memset(k, 0, sizeof(*k));
}

/* The index of @p in the bundle's intern_table, added if new; -1 without memory. */
static int intern(struct pf_compact *c, const unsigned char *p, unsigned len)
{
	uint32_t h;

	if (!c->slots && !(c->slots = calloc(NSLOTS, sizeof(*c->slots))))
		return -1;
	for (h = hash(p, len) & (NSLOTS - 1); c->slots[h]; h = (h + 1) & (NSLOTS - 1)) {
		unsigned i = c->slots[h] - 1u;
		uint32_t end = i + 1 < c->nnames ? c->off[i + 1] : (uint32_t)c->text.len;

		if (end - c->off[i] == len && !memcmp(c->text.buf + c->off[i], p, len))
			return (int)i;
	}
	if (c->nnames + 1 >= NSLOTS / 2)
		return -1;
	if (c->nnames == c->cap) {
		unsigned cap = c->cap ? 2 * c->cap : 64;
		uint32_t *off = realloc(c->off, cap * sizeof(*off));

		if (!off)
			return -1;
		c->off = off;
		c->cap = cap;
	}
	c->off[c->nnames] = (uint32_t)c->text.len;
	sink_write(&c->text, p, len);
	pb_text(&c->names, PF_CS_INTERN, p, len);
	if (c->text.err || c->names.err)
		return -1;
	c->slots[h] = (uint16_t)(c->nnames + 1);
	return (int)c->nnames++;
}

static bool comm_of(const struct tdat_event *ev, const struct tfield *tf, const unsigned char **p,
		    unsigned *len)
{
	return tfield_bytes(ev, tf, p, len) && *len <= sizeof(((struct pf_compact *)0)->comm);
}

/* The task sched_switch @ev leaves running. */
static void set_running(struct pf_compact *c, const struct tdat_event *ev, const struct pf_type *pt)
{
	const unsigned char *p;
	uint64_t pid, prio;

	c->running = pt->cs == PF_CS_SWITCH && comm_of(ev, pt->cf[4], &p, &c->comm_len) &&
		     tfield_num(ev, pt->cf[5], &pid) && tfield_num(ev, pt->cf[6], &prio);
	if (!c->running)
		return;
	memcpy(c->comm, p, c->comm_len);
	c->pid = (int64_t)pid;
	c->prio = (int64_t)prio;
}

/* Whether @ev's prev_* are the running task's. */
static bool is_running(const struct pf_compact *c, const struct tdat_event *ev,
		       const struct pf_type *pt)
{
	const unsigned char *p;
	uint64_t pid, prio;
	unsigned len;

	return c->running && comm_of(ev, pt->cf[0], &p, &len) && tfield_num(ev, pt->cf[1], &pid) &&
	       tfield_num(ev, pt->cf[2], &prio) && (int64_t)pid == c->pid &&
	       (int64_t)prio == c->prio && len == c->comm_len && !memcmp(p, c->comm, len);
}

static bool put_switch(struct pf_compact *c, const struct tdat_event *ev, const struct pf_type *pt)
{
	const unsigned char *p;
	uint64_t state, pid, prio;
	unsigned len;
	int idx;

	/* trace processor names the idle task "swapper", not swapper/N: keep its own */
	if (!is_running(c, ev, pt) || !c->pid || !tfield_num(ev, pt->cf[3], &state) ||
	    (state & EXITING) ||
	    !tfield_num(ev, pt->cf[5], &pid) || !tfield_num(ev, pt->cf[6], &prio) ||
	    !comm_of(ev, pt->cf[4], &p, &len) || (idx = intern(c, p, len)) < 0)
		return false;
	pb_raw_varint(&c->col[PF_CS_SWITCH_TS], ev->ts - c->last_switch);
	pb_raw_varint(&c->col[PF_CS_SWITCH_PREV_STATE], state);
	pb_raw_varint(&c->col[PF_CS_SWITCH_NEXT_PID], pid);
	pb_raw_varint(&c->col[PF_CS_SWITCH_NEXT_PRIO], prio);
	pb_raw_varint(&c->col[PF_CS_SWITCH_NEXT_COMM], (uint64_t)idx);
	c->last_switch = ev->ts;
	set_running(c, ev, pt);
	name_given(c, ev, pt->cf[4], pt->cf[5]);
	return true;
}

static bool put_waking(struct pf_compact *c, const struct tdat_event *ev, const struct pf_type *pt,
		       uint32_t waker)
{
	const unsigned char *p;
	uint64_t pid, prio, cpu, flags;
	unsigned len;
	int idx;

	if (!c->running || (int64_t)waker != c->pid || !comm_of(ev, pt->cf[0], &p, &len) ||
	    !tfield_num(ev, pt->cf[1], &pid) || !tfield_num(ev, pt->cf[2], &prio) ||
	    !tfield_num(ev, pt->cf[3], &cpu) || !tfield_num(ev, &pt->tt->cflags, &flags) ||
	    !known_has(c->known, known_key(pid, p, len)) || (idx = intern(c, p, len)) < 0)
		return false;
	pb_raw_varint(&c->col[PF_CS_WAKING_TS], ev->ts - c->last_waking);
	pb_raw_varint(&c->col[PF_CS_WAKING_PID], pid);
	pb_raw_varint(&c->col[PF_CS_WAKING_TARGET_CPU], cpu);
	pb_raw_varint(&c->col[PF_CS_WAKING_PRIO], prio);
	pb_raw_varint(&c->col[PF_CS_WAKING_COMM], (uint64_t)idx);
	pb_raw_varint(&c->col[PF_CS_WAKING_FLAGS], flags);
	c->last_waking = ev->ts;
	return true;
}

bool pf_compact_put(struct pf_compact *c, const struct tdat_event *ev, const struct pf_type *pt,
		    uint32_t pid)
{
	bool after = !c->have_ts || ev->ts > c->last_ts, done = false;

	if (pt->cs == PF_CS_SWITCH && after)
		done = put_switch(c, ev, pt);
	else if (pt->cs == PF_CS_WAKING && after)
		done = put_waking(c, ev, pt, pid);
	if (done) {
		c->n++;
		c->bound = pf_compact_size(c);
		c->last_ts = ev->ts;
		c->have_ts = true;
	}
	return done;
}

void pf_compact_note(struct pf_compact *c, const struct tdat_event *ev, const struct pf_type *pt)
{
	if (pt->num == PF_EV_SCHED_SWITCH)
		set_running(c, ev, pt);	/* or not running: a format compact_sched lacks */
	if (pt->cs == PF_CS_SWITCH) {
		name_given(c, ev, pt->cf[0], pt->cf[1]);
		name_given(c, ev, pt->cf[4], pt->cf[5]);
	} else if (pt->cs == PF_CS_WAKING) {
		name_given(c, ev, pt->cf[0], pt->cf[1]);
	}
	if (!c->have_ts || ev->ts > c->last_ts)
		c->last_ts = ev->ts;
	c->have_ts = true;
}

static uint64_t body_size(const struct pf_compact *c)
{
	uint64_t n = c->names.len;

	for (int i = 0; i <= PF_CS_MAX; i++)
		if (c->col[i].len)
			n += 1 + pb_varint_size(c->col[i].len) + c->col[i].len;
	return n;
}

uint64_t pf_compact_size(const struct pf_compact *c)
{
	uint64_t n = body_size(c);

	return c->n ? 1 + pb_varint_size(n) + n : 0;
}

bool pf_compact_err(const struct pf_compact *c)
{
	bool err = c->names.err || c->text.err || (c->known && c->known->err);

	for (int i = 0; i <= PF_CS_MAX; i++)
		err |= c->col[i].err != 0;
	return err;
}

bool pf_compact_flush(struct pf_compact *c, struct tdat_sink *out)
{
	bool err = pf_compact_err(c);

	if (c->n) {
		pb_head(out, PF_BUNDLE_COMPACT, body_size(c));
		for (int i = 0; i <= PF_CS_MAX; i++) {
			if (i == PF_CS_INTERN)
				sink_write(out, c->names.buf, c->names.len);
			else if (c->col[i].len)
				pb_bytes(out, (unsigned)i, c->col[i].buf, c->col[i].len);
		}
	}
	for (int i = 0; i <= PF_CS_MAX; i++)
		c->col[i].len = 0;
	c->names.len = c->text.len = 0;
	if (c->slots && c->nnames)
		memset(c->slots, 0, NSLOTS * sizeof(*c->slots));
	c->nnames = 0;
	c->n = 0;
	c->bound = 0;
	c->last_switch = c->last_waking = 0;
	return !err;
}

void pf_compact_free(struct pf_compact *c)
{
	for (int i = 0; i <= PF_CS_MAX; i++)
		free(c->col[i].buf);
	free(c->names.buf);
	free(c->text.buf);
	free(c->off);
	free(c->slots);
}
