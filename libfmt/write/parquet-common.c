// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet-common.c - an event's common columns in the parquet writer
 * (parquet-common.h): the caller, the busiest thread, writes one record
 * (struct prow) an event into its type's file and one into events.parquet,
 * not 16 values into 16 column buffers; the thread that encodes a row group
 * unpacks its records into the columns (pq_table_pack()), each column's
 * room made at once, as the records say how much it needs.
 *
 * A record (48 bytes, 56 with events.parquet's type) points at strings
 * that live as long as the writer, so that a helper may read them while
 * the caller goes on: the comms, interned (the cells by pid only cache
 * where they are), the buffers' names, made once per input and buffer, and
 * its type's names (struct pqc_name).  Each is a pqc_text_dup(), its length
 * before it.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "read/fields.h"
#include "write/parquet-common.h"

/* A row's common columns: 48 bytes. */
struct prow {
	uint64_t ts;
	long long missed;
	const char *buf;	/* NULL: none (null) */
	const char *comm;
	int32_t cpu, input, pid;
};

/* events.parquet's: its type's names too. */
struct pevent {
	struct prow r;
	const struct pqc_name *n;
};
_Static_assert(sizeof(struct prow) == 48 && sizeof(struct pevent) == 56, "records grew");

#define NCOMMS 256		/* comm cells kept per input (direct-mapped by pid) */

struct pinput {
	char **bufname;		/* by buffer: its name as stored, made when first met */
	int nbufs;
	struct pcomm {
		int pid;
		const char *comm;	/* interned; NULL: an empty cell */
	} comms[NCOMMS];
};

struct pqc {
	struct pinput *in;
	int ninputs;
	/* the comms, each once (open addressing, at most half full) */
	char **strs;
	size_t nstrs, cap;	/* cap a power of 2, or 0 */
};

char *pqc_text_dup(const char *s)
{
	size_t n = strlen(s), room = 3 * n + 1 > PQ_STR_PAD ? 3 * n + 1 : PQ_STR_PAD;
	char *e = malloc(4 + room);	/* the length, then at least PQ_STR_PAD bytes */
	uint32_t len;

	if (!e)
		return NULL;
	memset(e + 4, 0, PQ_STR_PAD);	/* pq_put_kept() reads them */
	len = (uint32_t)pq_text_clean(e + 4, s, n);
	e[4 + len] = '\0';
	memcpy(e, &len, 4);
	return e + 4;
}

void pqc_text_free(char *s)
{
	if (s)
		free(s - 4);
}

struct pqc *pqc_new(int ninputs)
{
	struct pqc *c = calloc(1, sizeof(*c));

	if (c && !(c->in = calloc((size_t)(ninputs > 0 ? ninputs : 1), sizeof(*c->in)))) {
		free(c);
		return NULL;
	}
	if (c)
		c->ninputs = ninputs;
	return c;
}

void pqc_free(struct pqc *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->ninputs; i++) {
		for (int b = 0; b < c->in[i].nbufs; b++)
			pqc_text_free(c->in[i].bufname[b]);
		free(c->in[i].bufname);
	}
	for (size_t i = 0; i < c->cap; i++)
		pqc_text_free(c->strs[i]);
	free(c->strs);
	free(c->in);
	free(c);
}

/* ---- the comms ---- */

static size_t str_hash(const char *s)
{
	size_t h = 14695981039346656037ull;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The slot of @s in @strs (@cap of them): where it is, or the empty one it would go in. */
static char **slot_of(char **strs, size_t cap, const char *s)
{
	char **slot;

	for (size_t h = str_hash(s);; h++) {
		slot = &strs[h & (cap - 1)];
		if (!*slot || !strcmp(*slot, s))
			return slot;
	}
}

/* Room for one string more; false without memory. */
static bool strs_room(struct pqc *c)
{
	size_t cap = c->cap ? 2 * c->cap : 64;
	char **t;

	if (2 * (c->nstrs + 1) <= c->cap)
		return true;
	if (!(t = calloc(cap, sizeof(*t))))
		return false;
	for (size_t i = 0; i < c->cap; i++)
		if (c->strs[i])
			*slot_of(t, cap, c->strs[i]) = c->strs[i];
	free(c->strs);
	c->strs = t;
	c->cap = cap;
	return true;
}

/* @s as stored (pqc_text_dup()), kept once for the writer's life; NULL: no memory. */
static const char *intern(struct pqc *c, const char *s)
{
	char *e = pqc_text_dup(s), **slot;

	if (!e || !strs_room(c)) {
		pqc_text_free(e);
		return NULL;
	}
	slot = slot_of(c->strs, c->cap, e);
	if (*slot) {
		pqc_text_free(e);
		return *slot;
	}
	c->nstrs++;
	return *slot = e;
}

/* The comm of @pid in @in as stored, into @r. */
static bool comm_of(struct pqc *c, struct pinput *in, struct tep_handle *tep, struct prow *r)
{
	struct pcomm *pc = &in->comms[(unsigned)r->pid % NCOMMS];

	if (!pc->comm || pc->pid != r->pid) {
		bool known = tep_is_pid_registered(tep, r->pid);

		if (!(pc->comm = intern(c, known ? tep_data_comm_from_pid(tep, r->pid) : "")))
			return false;
		pc->pid = r->pid;
	}
	r->comm = pc->comm;
	return true;
}

/* ---- the buffers' names ---- */

/* Make room for @n buffers' names in @in; false: no memory. */
static bool buffers_room(struct pinput *in, int n)
{
	char **b = realloc(in->bufname, sizeof(*b) * (size_t)n);

	if (!b)
		return false;
	in->bufname = b;
	memset(b + in->nbufs, 0, sizeof(*b) * (size_t)(n - in->nbufs));
	in->nbufs = n;
	return true;
}

/* The name of @ev's buffer as stored (made once per buffer) in @r, or none. */
static bool buffer_of(struct pinput *in, const struct tdat_event *ev, struct prow *r)
{
	const struct tdat_file *f = ev->file;
	int b = ev->buffer;

	r->buf = NULL;
	if (b >= f->nbuffers)
		return true;
	if (b >= in->nbufs && !buffers_room(in, f->nbuffers))
		return false;
	if (!in->bufname[b] && !(in->bufname[b] = pqc_text_dup(f->buffers[b].info.name)))
		return false;
	r->buf = in->bufname[b];
	return true;
}

/* ---- records ---- */

int pqc_put(struct pqc *c, struct pq_table *t, struct pq_table *all, const struct tdat_event *ev,
	    const struct ttype *tt, const struct pqc_name *n)
{
	struct pinput *in = &c->in[ev->input];
	struct pevent e = { .r = { .ts = ev->ts, .missed = ev->missed, .cpu = ev->cpu,
				   .input = ev->input, .pid = -1 }, .n = n };
	uint64_t v;

	if (tfield_num(ev, &tt->pid, &v))
		e.r.pid = (int)(int64_t)v;
	if (!comm_of(c, in, ev->file->tep, &e.r) || !buffer_of(in, ev, &e.r))
		return TDAT_ENOMEM;
	pq_put_rec(t, &e.r, sizeof(e.r));
	pq_put_rec(all, &e, sizeof(e));
	return 0;
}

/* A record's common columns into @c. */
static void unpack_row(struct pq_col *c, const struct prow *r)
{
	pq_put_int(&c[0], r->ts);
	pq_put_int(&c[1], (uint64_t)(int64_t)r->cpu);
	pq_put_int(&c[2], (uint64_t)(int64_t)r->input);
	if (r->buf)
		pq_put_kept(&c[3], r->buf, pqc_text_len(r->buf));
	else
		pq_put_null(&c[3]);
	pq_put_int(&c[4], (uint64_t)(int64_t)r->pid);
	pq_put_kept(&c[5], r->comm, pqc_text_len(r->comm));
	pq_put_int(&c[6], (uint64_t)(int64_t)r->missed);
}

/* The text bytes records point at, summed by column. */
struct ptext {
	size_t nbuf, bufs, comms, sys, names;
};

/* Add a record's text to @s; of events.parquet's names too if @events. */
static inline void text_of(struct ptext *s, const struct pevent *e, bool events)
{
	s->nbuf += !!e->r.buf;
	s->bufs += e->r.buf ? pqc_text_len(e->r.buf) : 0;
	s->comms += pqc_text_len(e->r.comm);
	if (events) {
		s->sys += pqc_text_len(e->n->sys);
		s->names += pqc_text_len(e->n->name);
	}
}

/*
 * Room in @c for the @n rows whose text is @s, exactly (pq_col_room()); of
 * events.parquet's system and event too if @events.  (The records are read
 * by the callers, each with its constant size: a copy of a size known only
 * here was a "rep movsq" that took most of the unpacking's time.)
 */
static void room(struct pq_col *c, size_t n, const struct ptext *s, bool events)
{
	pq_col_room(&c[0], 8 * n);
	pq_col_room(&c[1], 4 * n);
	pq_col_room(&c[2], 4 * n);
	pq_col_room(&c[3], 4 * s->nbuf + s->bufs + PQ_STR_PAD);
	pq_col_room(&c[4], 4 * n);
	pq_col_room(&c[5], 4 * n + s->comms + PQ_STR_PAD);
	pq_col_room(&c[6], 8 * n);
	if (events) {
		pq_col_room(&c[PQC_NFIXED], 4 * n + s->sys + PQ_STR_PAD);
		pq_col_room(&c[PQC_NFIXED + 1], 4 * n + s->names + PQ_STR_PAD);
	}
}

void pqc_unpack_type(struct pq_col *cols, const char *rec, size_t len)
{
	struct ptext s = { 0 };
	struct pevent e;

	for (size_t o = 0; o + sizeof(e.r) <= len; o += sizeof(e.r)) {
		memcpy(&e.r, rec + o, sizeof(e.r));
		text_of(&s, &e, false);
	}
	room(cols, len / sizeof(e.r), &s, false);
	for (size_t o = 0; o + sizeof(e.r) <= len; o += sizeof(e.r)) {
		memcpy(&e.r, rec + o, sizeof(e.r));
		unpack_row(cols, &e.r);
	}
}

void pqc_unpack_events(struct pq_col *cols, const char *rec, size_t len)
{
	struct ptext s = { 0 };
	struct pevent e;

	for (size_t o = 0; o + sizeof(e) <= len; o += sizeof(e)) {
		memcpy(&e, rec + o, sizeof(e));
		text_of(&s, &e, true);
	}
	room(cols, len / sizeof(e), &s, true);
	for (size_t o = 0; o + sizeof(e) <= len; o += sizeof(e)) {
		memcpy(&e, rec + o, sizeof(e));
		unpack_row(cols, &e.r);
		pq_put_kept(&cols[PQC_NFIXED], e.n->sys, pqc_text_len(e.n->sys));
		pq_put_kept(&cols[PQC_NFIXED + 1], e.n->name, pqc_text_len(e.n->name));
	}
}
