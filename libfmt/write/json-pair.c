// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * json-pair.c - how the Chrome JSON writer pairs begins and ends into
 * slices (the model's SL_JSON, ops->pairing), with the slice model's rules,
 * stacks and machinery (model/slices.c): irq, softirq and timer handlers
 * on one track per CPU; an end closes the innermost open slice of its
 * rule, key and buffer, closing (unfinished) what is open above it; a
 * second begin of a rule that does not nest closes the first; an end
 * without a begin goes to ops->stray; at the end everything is cut at
 * end_ts.  Syscalls are named as in every format (syscall_slice_name()).
 */
#include <string.h>

#include "model/slices-int.h"
#include "write/json.h"

/* softirq vectors: the kernel's names */
static const char *const vec_json[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					"IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };

#define NVEC (sizeof(vec_json) / sizeof(vec_json[0]))

/* Close [@from, top] at @ts as unfinished, innermost first. */
static int close_from(struct slices *s, struct sl_stack *k, int from, uint64_t ts)
{
	int ret = 0;

	while (k->n > from && !ret) {
		const struct sl_open *o = &k->st[k->n - 1];

		ret = sl_report(s, k, k->n - 1, (int64_t)(ts > o->ts ? ts - o->ts : 0), ts, NULL);
		sl_pop(k);
	}
	return ret;
}

/* The name of a slice begun by @ev. */
static void json_name(struct sl_buf *b, const struct sl_type *st, const struct tdat_event *ev,
		      uint64_t key)
{
	const unsigned char *p;
	unsigned n;
	char sys[64];

	switch (st->rule->how) {
	case SLN_EVENT:
		sl_keep_str(b, st->evname);
		return;
	case SLN_IRQ:
		if (st->namef->kind == TK_STR && tfield_bytes(ev, st->namef, &p, &n) && n) {
			sl_keep(b, p, strnlen((const char *)p, n));
			return;
		}
		break;
	case SLN_VEC:
		if (key < NVEC) {
			sl_keep_str(b, "softirq ");
			sl_keep_str(b, vec_json[key]);
			return;
		}
		break;
	case SLN_SYM:
	case SLN_HEX:
		sl_keep_sym(b, ev, st->namef, SL_JSON);
		return;
	case SLN_NUM:	/* a syscall: named as in every format (syscalls.c) */
		syscall_slice_name(st->machine, (int64_t)key, sys, sizeof(sys));
		sl_keep_str(b, sys);
		return;
	default:
		break;
	}
	sl_keep_str(b, file_type(ev->file, ev)->name);
	sl_keep_num(b, " ", key, false, true);
}

/* The innermost open slice of @rule begun in @buffer, with @key unless @any_key; -1 if none. */
static int find_open(const struct sl_stack *k, const struct sl_rule *rule, int buffer,
		     uint64_t key, bool any_key)
{
	for (int i = k->n - 1; i >= 0; i--)
		if (k->st[i].st->rule == rule && k->st[i].buffer == buffer &&
		    (any_key || k->st[i].key == key))
			return i;
	return -1;
}

/*
 * @check: only what a begin does to the slices open before it (the caller
 * of a -j worker in local mode, whose stack the worker could not see).
 */
static int pair_put(struct slices *s, struct sl_stack *k, const struct sl_type *st,
		    const struct tdat_event *ev, bool check)
{
	uint64_t key = sl_key_of(st, ev);
	bool any = st->begin && !(st->rule->flags & SLR_NESTS);
	int i = find_open(k, st->rule, ev->buffer, key, any), ret;
	size_t off;

	if (i < 0 && s->local) {
		if (!st->begin)
			return s->ops.bottom(s->ops.ctx, &k->track, ev, SLB_END);
		if ((ret = s->ops.bottom(s->ops.ctx, &k->track, ev, SLB_BEGIN)))
			return ret;
	}
	if (!st->begin) {
		if (i < 0)
			return s->ops.stray ? s->ops.stray(s->ops.ctx, &k->track, ev) : 0;
		if ((ret = close_from(s, k, i + 1, ev->ts)))
			return ret;
		ret = sl_report(s, k, i, (int64_t)(ev->ts > k->st[i].ts ? ev->ts - k->st[i].ts : 0),
				ev->ts, ev);
		sl_pop(k);
		return ret;
	}
	/* a second begin of the same: its end was lost */
	if (i >= 0 && (ret = close_from(s, k, i, ev->ts)))
		return ret;
	if (check)
		return 0;
	off = k->arena.len;
	json_name(&k->arena, st, ev, key);
	return sl_push(s, k, st, ev, key, off);
}

/* Everything still open on @k: cut at @end_ts. */
static int pair_finish(struct slices *s, struct sl_stack *k, uint64_t end_ts)
{
	return close_from(s, k, 0, end_ts);
}

const struct sl_pairing json_pairing = { .put = pair_put, .finish = pair_finish };
