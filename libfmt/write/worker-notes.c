/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * worker-notes.c - what a writer notes, as it prints a block for the -j
 * driver (run/par.c), beside the text: where each stretch of the text goes
 * (par_seg_add(): csv --split-by-event's files) and the task names it left
 * out or would have learnt (names_add(): the text's, see run/par-names.c).
 * The driver reads the notes; the writer knows nothing of windows.
 */
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "write/worker.h"

int par_seg_add(struct par_segs *s, int input, unsigned id, size_t len)
{
	struct par_seg *g = s->n ? &s->v[s->n - 1] : NULL;

	if (g && g->input == input && g->id == id) {
		g->len += len;
		return 0;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;

		if (!(g = realloc(s->v, cap * sizeof(*g))))
			return TDAT_ENOMEM;
		s->v = g;
		s->cap = cap;
	}
	s->v[s->n++] = (struct par_seg){ .input = input, .id = id, .len = len };
	return 0;
}

int names_add(struct par_names *n, int kind, int input, int pid, size_t at, const char *comm,
	      size_t len)
{
	struct par_name *o;

	if (n->n == n->cap) {
		size_t cap = n->cap ? 2 * n->cap : 64;

		if (!(o = realloc(n->v, sizeof(*o) * cap)))
			return TDAT_ENOMEM;
		n->v = o;
		n->cap = cap;
	}
	o = &n->v[n->n++];
	*o = (struct par_name){ .kind = (unsigned char)kind, .input = input, .pid = pid, .at = at };
	if (len >= sizeof(o->comm))
		len = sizeof(o->comm) - 1;
	memcpy(o->comm, comm, len);
	return 0;
}
