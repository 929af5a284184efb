// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * par.c - a writer's events printed on several threads, written in order:
 * the same bytes as one thread.
 *
 * For formats whose text for an event depends on that event and the file
 * only (ops->parallel: text, csv, typed csv), tdat_writer_put() copies each event into
 * a batch; workers print whole batches with writers of their own, over
 * handles of their own on the same files (file_clone(): libtraceevent's
 * handles are not shared between threads), into memory; the caller writes
 * the batches' text in the order they were filled (typed csv: each piece
 * of it to its type's file, ops->put_segs).  Decoding and merging
 * the inputs stays on the caller's thread; printing, most of the time of
 * these formats, runs on the workers.
 *
 * A format whose output for an event depends on the events before it
 * (json: slices, ids, text lines) gives ops->prepare instead: the workers
 * only format what of each event depends on it and its file (its fields),
 * and the caller puts the batch's events in order through the format's
 * put(), each with its prepared bytes in w->pre.
 *
 * The first PAR_EVENTS events are printed on the caller's thread, so a
 * small input pays for no worker; the workers start with the first batch,
 * and each opens its handles on its own thread.  A worker that cannot
 * leaves its batches to the caller.  A ring of 3 x workers batches
 * (jobring.c, as gzip.c's blocks) bounds the memory; when it is full the
 * caller waits for the oldest.  Damage a
 * worker's writer counts (writer_damaged()) is summed in order into the
 * caller's writer, so its warning names the same first event.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guard/guard.h"
#include "write/write.h"

#define PAR_EVENTS 4096		/* events a batch */
#define PAR_BYTES (1 << 20)	/* record bytes a batch, about */
#define NO_PRE SIZE_MAX		/* an event ops->prepare made nothing of */

struct batch {
	struct tdat_event *ev;	/* ->data is an offset into bytes until printed */
	size_t nev;
	char *bytes;
	size_t blen, bcap;
	struct tdat_sink out;	/* the printed text */
	struct par_segs segs;	/* its destinations (ops->put_segs), or none: one stream */
	size_t *pre_off, *pre_len;	/* ops->prepare: each event's bytes in out (len
					 * NO_PRE: none) */
	int ret;
	char errmsg[TDAT_MSG_LEN];
	uint64_t ndamaged;	/* of these events */
	struct writer_damage first;
};

struct worker {
	struct par *p;
	bool ok;			/* its handles and writer are ready */
	pthread_t th;
	struct tdat_file **files;	/* clones, by input */
	int nfiles;
	struct tdat_merge *m;		/* of the clones, for the writer's open */
	struct tdat_writer *w;
};

struct par {
	struct tdat_writer *w;		/* the caller's */
	struct jobring jr;		/* of the batches (jobring.c) */
	bool jr_init;
	struct worker *wk;
	int nwk;			/* threads started */
	int want;			/* threads to start with the first batch */
	uint64_t direct;		/* events printed on the caller's thread first */
	struct batch *ring;
	int ret;			/* the first failure */
};

/* Print batch @b with worker @k's writer into b->out. */
static void print_batch(struct worker *k, struct batch *b)
{
	struct tdat_writer *w = k->w;
	struct tdat_sink swap;
	struct par_segs segs;

	w->ndamaged = 0;
	b->ret = 0;
	for (size_t i = 0; i < b->nev && !b->ret; i++) {
		struct tdat_event ev = b->ev[i];
		size_t start = w->sink.len;
		int r;

		ev.data = b->bytes + (uintptr_t)ev.data;
		ev.file = k->files[ev.input];
		if (!w->ops->prepare) {
			if ((b->ret = tdat_writer_put(w, &ev)))
				memcpy(b->errmsg, w->errmsg, sizeof(b->errmsg));
			continue;
		}
		if ((r = w->ops->prepare(w, &ev)) < 0 || w->sink.err) {
			b->ret = r < 0 ? r : TDAT_ENOMEM;
			tdat_msg(b->errmsg, "out of memory");
		}
		b->pre_off[i] = start;
		b->pre_len[i] = r ? NO_PRE : w->sink.len - start;
	}
	b->ndamaged = w->ndamaged;
	if (w->ndamaged)
		b->first = w->damage;
	/* the batch takes the text; the writer keeps the batch's old buffer */
	swap = b->out;
	b->out = w->sink;
	w->sink = swap;
	w->sink.len = 0;
	w->sink.err = 0;
	segs = b->segs;
	b->segs = w->segs;
	w->segs = segs;
	w->segs.n = 0;
}

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

static int worker_init(struct par *p, struct worker *k);

static void *work(void *arg)
{
	struct worker *k = arg;
	struct par *p = k->p;
	int i;

	if (!(k->ok = !worker_init(p, k))) {
		jobring_workers(&p->jr, -1);	/* its batches go to the caller */
		return NULL;
	}
	while ((i = jobring_take(&p->jr)) >= 0) {
		print_batch(k, &p->ring[i]);
		jobring_done(&p->jr, i);
	}
	return NULL;
}

/* Print batch @b on the caller's thread, straight into its writer's sink. */
static void print_here(struct par *p, struct batch *b)
{
	for (size_t i = 0; i < b->nev && !b->ret; i++) {
		struct tdat_event ev = b->ev[i];

		ev.data = b->bytes + (uintptr_t)ev.data;
		ev.file = merge_member(p->w->merge, ev.input);
		if ((b->ret = writer_put_now(p->w, &ev)))
			memcpy(b->errmsg, p->w->errmsg, sizeof(b->errmsg));
	}
	b->ndamaged = 0;	/* counted in the caller's writer already */
}

/* ops->prepare: put batch @b's events in order, each with what a worker prepared. */
static void put_prepared(struct par *p, struct batch *b)
{
	struct tdat_writer *w = p->w;

	for (size_t i = 0; i < b->nev && !b->ret; i++) {
		struct tdat_event ev = b->ev[i];

		ev.data = b->bytes + (uintptr_t)ev.data;
		ev.file = merge_member(w->merge, ev.input);
		w->pre = b->pre_len[i] == NO_PRE ? NULL : b->out.buf + b->pre_off[i];
		w->pre_len = b->pre_len[i] == NO_PRE ? 0 : b->pre_len[i];
		if ((b->ret = writer_put_now(w, &ev)))
			memcpy(b->errmsg, w->errmsg, sizeof(b->errmsg));
	}
	w->pre = NULL;
	b->out.len = 0;
}

/* Write the oldest batch once printed (or put it, prepared), add its damage, free it. */
static int write_oldest(struct par *p)
{
	struct batch *b = &p->ring[p->jr.tail % p->jr.n];
	struct tdat_writer *w = p->w;

	if (!jobring_wait_oldest(&p->jr))	/* no worker is left: print it here */
		print_here(p, b);
	else if (w->ops->prepare && !b->ret)
		put_prepared(p, b);
	if (b->ret && !p->ret) {
		p->ret = b->ret;
		memcpy(w->errmsg, b->errmsg, sizeof(w->errmsg));
	}
	if (b->segs.n) {
		int ret = w->ops->put_segs(w, b->out.buf, &b->segs);

		if (ret && !p->ret)
			p->ret = ret;	/* its message is in w->errmsg */
		b->segs.n = 0;
	} else {
		sink_write(&w->sink, b->out.buf, b->out.len);
	}
	if (b->ndamaged)
		writer_damage_add(w, &b->first, b->ndamaged);
	b->out.len = 0;
	b->nev = b->blen = 0;
	jobring_free_oldest(&p->jr);
	return p->ret;
}

static void start_workers(struct par *p);

static void submit(struct par *p)
{
	if (!p->nwk)
		start_workers(p);
	jobring_submit(&p->jr);
}

/* The batch being filled, with room for @size more record bytes; NULL without memory. */
static struct batch *room(struct par *p, size_t size)
{
	struct batch *b = &p->ring[p->jr.head % p->jr.n];

	if (b->nev == PAR_EVENTS || (b->nev && b->blen + size > PAR_BYTES)) {
		submit(p);
		if (p->jr.head - p->jr.tail == p->jr.n && write_oldest(p))
			return NULL;
		b = &p->ring[p->jr.head % p->jr.n];
	}
	if (!b->ev && !(b->ev = malloc(sizeof(*b->ev) * PAR_EVENTS)))
		return NULL;
	if (p->w->ops->prepare && !b->pre_off &&
	    (!(b->pre_off = malloc(sizeof(size_t) * PAR_EVENTS)) ||
	     !(b->pre_len = malloc(sizeof(size_t) * PAR_EVENTS))))
		return NULL;
	if (b->blen + size > b->bcap) {
		size_t cap = b->blen + size > PAR_BYTES ? b->blen + size : PAR_BYTES;
		char *q = realloc(b->bytes, cap);

		if (!q)
			return NULL;
		b->bytes = q;
		b->bcap = cap;
	}
	return b;
}

int par_put(struct par *p, const struct tdat_event *ev)
{
	struct batch *b;
	struct tdat_event *e;

	if (p->ret)
		return p->ret;
	if (p->direct < PAR_EVENTS) {
		p->direct++;
		return writer_put_now(p->w, ev);
	}
	/* a printer may read an array RECORD_SLACK bytes past the record, as
	 * the decoder's page buffer allows: copy those bytes too */
	if (!(b = room(p, (size_t)ev->size + RECORD_SLACK))) {
		if (!p->ret) {
			tdat_msg(p->w->errmsg, "out of memory");
			p->ret = TDAT_ENOMEM;
		}
		return p->ret;
	}
	e = &b->ev[b->nev++];
	*e = *ev;
	memcpy(b->bytes + b->blen, ev->data, (size_t)ev->size + RECORD_SLACK);
	e->data = (const void *)(uintptr_t)b->blen;
	e->file = NULL;
	b->blen += (size_t)ev->size + RECORD_SLACK;
	return 0;
}

int par_finish(struct par *p)
{
	if (p->ring[p->jr.head % p->jr.n].nev)
		submit(p);
	while (p->jr.tail < p->jr.head)
		write_oldest(p);
	return p->ret;
}

static void worker_release(struct worker *k)
{
	tdat_writer_free(k->w);
	tdat_merge_free(k->m);
	for (int i = 0; i < k->nfiles; i++)
		tdat_file_free(k->files[i]);
	free(k->files);
}

/* Worker @k's clones of the inputs, and its writer over them (its header dropped). */
static int worker_init(struct par *p, struct worker *k)
{
	struct tdat_writer *w = p->w;
	int n = tdat_merge_nfiles(w->merge), ret;

	k->p = p;
	if (!(k->files = calloc((size_t)n, sizeof(*k->files))) || !(k->m = tdat_merge_new()))
		return TDAT_ENOMEM;
	for (k->nfiles = 0; k->nfiles < n; k->nfiles++) {
		if ((ret = file_clone(merge_member(w->merge, k->nfiles), &k->files[k->nfiles])))
			return ret;
		if ((ret = tdat_merge_add(k->m, k->files[k->nfiles])))
			return ret;
	}
	if (!(k->w = tdat_writer_new(w->ops->name)))
		return TDAT_ENOMEM;
	if ((ret = writer_open_worker(k->w, k->m, w->flags & ~TDAT_W_GZIP)))
		return ret;
	k->w->sink.len = 0;
	return 0;
}

void par_free(struct par *p)
{
	if (!p)
		return;
	if (p->jr_init)
		jobring_stop(&p->jr);
	for (int i = 0; i < p->nwk; i++)
		pthread_join(p->wk[i].th, NULL);
	for (int i = 0; p->wk && i < p->nwk; i++)
		worker_release(&p->wk[i]);
	for (unsigned i = 0; p->ring && i < p->jr.n; i++) {
		free(p->ring[i].ev);
		free(p->ring[i].bytes);
		free(p->ring[i].segs.v);
		free(p->ring[i].pre_off);
		free(p->ring[i].pre_len);
		sink_release(&p->ring[i].out);
	}
	if (p->jr_init)
		jobring_release(&p->jr);
	free(p->ring);
	free(p->wk);
	free(p);
}

/* The workers, when the first batch is full; none started: the caller prints every batch. */
static void start_workers(struct par *p)
{
	for (int i = 0; i < p->want; i++) {
		struct worker *k = &p->wk[p->nwk];

		k->p = p;
		jobring_workers(&p->jr, 1);
		if (thread_start(&k->th, work, k)) {
			jobring_workers(&p->jr, -1);
			break;
		}
		p->nwk++;
	}
	p->want = 0;
}

/* Whether @w's events can be printed by workers: a format that allows it, clonable inputs. */
static bool par_fits(struct tdat_writer *w)
{
	if (w->jobs < 2 || !(w->ops->parallel || w->ops->prepare) ||
	    (w->ops->parallel && w->sink.fd < 0 && !w->ops->put_segs))
		return false;
	/* notices name libtraceevent's strings of one handle: keep those files on one thread */
	for (int i = 0; i < tdat_merge_nfiles(w->merge); i++)
		if (tdat_file_nnotes(merge_member(w->merge, i)))
			return false;
	return true;
}

int par_new(struct tdat_writer *w, struct par **out)
{
	struct par *p;
	int ret = 0;

	*out = NULL;
	if (!par_fits(w))
		return 0;
	if (!(p = calloc(1, sizeof(*p))))
		return TDAT_ENOMEM;
	p->w = w;
	p->jr_init = !jobring_init(&p->jr, 3 * (unsigned)w->jobs);
	p->ring = p->jr_init ? calloc(p->jr.n, sizeof(*p->ring)) : NULL;
	p->wk = calloc((size_t)w->jobs, sizeof(*p->wk));
	for (unsigned i = 0; p->ring && i < p->jr.n && !ret; i++)
		ret = sink_init(&p->ring[i].out, -1);
	if (!p->ring || !p->wk || ret) {
		par_free(p);
		return TDAT_ENOMEM;
	}
	p->want = w->jobs;	/* the caller puts every event */
	*out = p;
	return 0;
}
