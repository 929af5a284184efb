/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * chain.c - the pieces of a split read one after the other.
 *
 * A split cut in time (tdat-split --every, --events, --size: its mark says
 * how) cuts the timeline it read in order, so every event of piece N comes
 * before every event of piece N+1 in the merged order of the file cut.
 * The merge reads such pieces as a chain: only the first piece present is
 * in the heap; when the last cursor of a piece ends, its buffers are freed,
 * its file closed (file_park()), and the next piece's cursors join the heap.
 * Ten thousand pieces then hold one file open and one piece's buffers, and
 * the order is the one of the file they were cut from.  Pieces cut per CPU
 * or per buffer, or by an older tdat-split that did not say how, overlap in
 * time and are read all at once, as other inputs are.
 */
#include <stdlib.h>
#include <string.h>

#include "read/merge-int.h"

/* Whether a split cut this way cuts the timeline into consecutive stretches. */
static bool cut_in_time(const char *how)
{
	return !strncmp(how, "--every ", 8) || !strncmp(how, "--events ", 9) ||
	       !strncmp(how, "--size ", 7);
}

static int member_of(const struct tdat_merge *m, const struct tdat_file *f)
{
	for (int k = 0; k < m->nall; k++)
		if (m->all[k] == f)
			return k;
	return -1;
}

/* Link the pieces of split @e present in @m, in their order; hold all but the first. */
static void chain_split(struct tdat_merge *m, const struct split_ent *e)
{
	int prev = -1;

	for (unsigned seq = 0; seq < e->nseats; seq++) {
		int k;

		if (!e->seats[seq] || (k = member_of(m, e->seats[seq])) < 0)
			continue;
		m->members[k].chain = true;
		if (prev >= 0) {
			m->members[prev].next = k;
			m->members[k].held = true;
			m->chained = true;
		}
		prev = k;
	}
}

int chains_setup(struct tdat_merge *m)
{
	if (m->chains_made)
		return 0;
	m->chains_made = true;
	for (int i = 0; i < m->splits.n; i++) {
		const struct split_ent *e = &m->splits.v[i];

		if (cut_in_time(e->first->piece.how))
			chain_split(m, e);
	}
	return 0;
}

/* A piece at its end: its buffers freed, its file closed until needed again. */
static void member_sleep(struct tdat_merge *m, int k)
{
	struct member *mb = &m->members[k];

	mb->over = true;
	for (int i = mb->cur0; i < mb->cur0 + mb->ncur; i++)
		cursor_release(&m->cursors[i]);
	file_park(m->all[k]);
}

/* The next piece of a chain joins the heap (and, if it has no event, the one after it). */
static int member_wake(struct tdat_merge *m, int k)
{
	while (k >= 0) {
		struct member *mb = &m->members[k];

		mb->held = false;
		mb->live = 0;
		for (int i = mb->cur0; i < mb->cur0 + mb->ncur; i++) {
			int ret = cursor_peek(&m->cursors[i]);

			if (ret < 0)
				return merge_fail(m, &m->cursors[i], ret);
			if (ret == 0) {
				merge_heap_push(m, i);
				mb->live++;
			}
		}
		if (mb->live)
			return 0;
		member_sleep(m, k);
		k = mb->next;
	}
	return 0;
}

int chain_cursor_end(struct tdat_merge *m, int i)
{
	int k = m->cursors[i].member;
	struct member *mb = &m->members[k];

	if (!mb->chain || mb->over || --mb->live > 0)
		return 0;
	member_sleep(m, k);
	return member_wake(m, mb->next);
}

/* The first event time of piece @k (over its CPUs); TDAT_END if it has none. */
static int member_first(struct tdat_merge *m, int k, uint64_t *ts)
{
	const struct member *mb = &m->members[k];
	bool any = false;

	for (int i = mb->cur0; i < mb->cur0 + mb->ncur; i++) {
		uint64_t t;
		int ret = merge_probe(&m->cursors[i], false, &t);

		if (ret == TDAT_END)
			continue;
		if (ret)
			return ret;
		if (!any || t < *ts)
			*ts = t;
		any = true;
	}
	file_park(m->all[k]);
	return any ? 0 : TDAT_END;
}

/*
 * A chain starting at piece @k, sought to @ts: the last piece whose first
 * event is before @ts holds it (the pieces before end before it); that one
 * is the chain's first to read, and its cursors are sought.
 */
static int chain_seek(struct tdat_merge *m, int k, uint64_t ts, bool *done)
{
	int at = k, ret;

	for (int j = m->members[k].next; j >= 0; j = m->members[j].next) {
		uint64_t first = 0;

		ret = member_first(m, j, &first);
		if (ret < 0 && ret != TDAT_END)
			return ret;
		if (ret == TDAT_END || first >= ts)
			break;
		at = j;
	}
	for (int j = k; j != at; j = m->members[j].next) {
		const struct member *mb = &m->members[j];

		m->members[j].held = m->members[j].dead = true;	/* it ends before @ts */
		for (int i = mb->cur0; i < mb->cur0 + mb->ncur; i++)
			done[i] = true;
	}
	m->members[at].held = false;
	for (int i = m->members[at].cur0; i < m->members[at].cur0 + m->members[at].ncur; i++)
		if ((ret = cursor_seek(&m->cursors[i], ts)))
			return ret;
	for (int i = m->members[at].cur0; i < m->members[at].cur0 + m->members[at].ncur; i++)
		done[i] = true;	/* sought already */
	return 0;
}

int chains_seek(struct tdat_merge *m, uint64_t ts, bool *done)
{
	bool *head = calloc((size_t)m->nall + 1, sizeof(*head));
	int ret;

	if (!head)
		return TDAT_ENOMEM;
	ret = chains_setup(m);
	for (int k = 0; k < m->nall; k++)	/* the first piece of each chain, before any moves */
		head[k] = m->members[k].chain && !m->members[k].held && !m->members[k].dead;
	for (int k = 0; k < m->nall && !ret; k++)
		if (head[k])
			ret = chain_seek(m, k, ts, done);
	free(head);
	return ret;
}

bool chain_spans(const struct tdat_merge *m, int i, bool last)
{
	const struct member *mb = &m->members[m->cursors[i].member];

	if (!mb->chain)
		return true;
	return !mb->dead && (last ? mb->next < 0 : !mb->held);
}

void chain_park(struct tdat_merge *m, int i)
{
	int k = m->cursors[i].member;

	if (m->members[k].chain && (!m->started || m->members[k].held))
		file_park(m->all[k]);
}
