/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * slices-hand.c - the slice model split across -j: a worker pairs the
 * begins and ends of a block of events on stacks of its own (local mode),
 * which hold only what began in the block.  Whatever its stacks cannot
 * decide goes to ops->bottom; what is still open when the block ends (or
 * before an event the worker leaves to the caller) is handed over, and the
 * caller pushes it on its own stacks (slices_adopt()).  So the caller's
 * stacks under the worker's are always the one-thread model's stacks.
 */
#include <stdlib.h>
#include <string.h>

#include "model/slices-int.h"

void slices_set_local(struct slices *s)
{
	s->local = true;
}

/* Hand @k's open slices to @fn, bottom first, and empty it. */
static int hand_stack(struct sl_stack *k, int (*fn)(void *, const struct sl_entry *), void *ctx)
{
	int ret = 0;

	for (int i = 0; i < k->n && !ret; i++) {
		const struct sl_open *o = &k->st[i];
		size_t end = i + 1 < k->n ? k->st[i + 1].off : k->arena.len;
		struct sl_entry e = { .track = k->track, .type = o->st, .ts = o->ts, .key = o->key,
				      .input = o->input, .buffer = o->buffer,
				      .bytes = k->arena.buf + o->off, .name_len = o->name_len,
				      .len = end - o->off, .user = o->user };

		ret = fn(ctx, &e);
	}
	k->n = 0;
	k->arena.len = 0;
	return ret;
}

int sl_note_open(struct slices *s, struct sl_stack *k)
{
	if (s->nopen == s->capopen) {
		int cap = s->capopen ? 2 * s->capopen : 64;
		struct sl_track *o = realloc(s->open, sizeof(*o) * (size_t)cap);

		if (!o)
			return TDAT_ENOMEM;
		s->open = o;
		s->capopen = cap;
	}
	s->open[s->nopen++] = k->track;
	k->listed = true;
	return 0;
}

int slices_hand_over(struct slices *s, const struct sl_track *t,
		     int (*fn)(void *ctx, const struct sl_entry *e), void *ctx)
{
	struct sl_stack *k;
	int ret = 0;

	if (t)
		return (k = sl_stack_of(s, t)) ? hand_stack(k, fn, ctx) : TDAT_ENOMEM;
	/* every track a slice was pushed on since the last time: the others are empty */
	for (int i = 0; i < s->nopen && !ret; i++) {
		if (!(k = sl_stack_of(s, &s->open[i])))
			return TDAT_ENOMEM;
		k->listed = false;
		ret = hand_stack(k, fn, ctx);
	}
	s->nopen = 0;
	return ret;
}

int slices_adopt(struct slices *s, const struct sl_entry *e)
{
	struct sl_stack *k = sl_stack_of(s, &e->track);
	struct sl_open *o = k ? sl_push_slot(k) : NULL;

	if (!o)
		return TDAT_ENOMEM;
	*o = (struct sl_open){ .ts = e->ts, .key = e->key, .id = s->next_id++, .dur = -1,
			       .st = e->type, .input = e->input, .buffer = e->buffer,
			       .off = k->arena.len, .name_len = e->name_len, .user = e->user };
	sl_keep(&k->arena, e->bytes, e->len);
	return k->arena.err ? TDAT_ENOMEM : 0;
}
