// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * par-work.c - a -j worker of tdat_writer_run(): it takes the oldest
 * queued time window, decodes it with a merge of its own over handles of
 * its own on the same files (file_clone(): libtraceevent's handles are not
 * shared between threads), selects with a copy of the selection, and makes
 * blocks of it for the caller (par.c) to take in order: text printed by a
 * writer of its own (PM_PRINT), or copies of the kept events with what the
 * format prepared of them (PM_PREPARE) or not (PM_COPY).  Each block
 * carries the merge's places after it, the damage met while making it and
 * what the selection learnt, so the caller can go on alone from any block.
 * The worker's reading (its merge, selection and what they hand back) is
 * read/merge-par.c's (struct par_reader).
 * A window holds at most QUEUE_AHEAD bytes of blocks the caller has not
 * taken, PM_COPY's windows QUEUE_PUT all together (no_room()): memory stays
 * bounded whatever the window's size.
 */
#include <stdlib.h>
#include <string.h>

#include "guard/guard.h"
#include "run/par.h"

struct worker {
	struct par *p;
	pthread_t th;
	struct par_reader *rd;		/* its merge over clones of the caller's files, its selection */
	int hit;			/* the file of the event copied last */
	struct tdat_writer *w;		/* PM_PRINT, PM_PREPARE */
	struct block *b;		/* being made */
	struct win *win;
};

void block_free(struct block *b, struct par *p)
{
	(void)p;
	if (!b)
		return;
	free(b->ev);
	free(b->cur);
	free(b->fit);
	free(b->bytes);
	sink_release(&b->out);
	free(b->segs.v);
	free(b->names.v);
	free(b->pre_off);
	free(b->pre_len);
	par_back_free(b->back);
	free(b);
}

static struct block *block_new(struct par *p)
{
	struct block *b = calloc(1, sizeof(*b));
	size_t n = p->blk_events;

	if (!b || sink_init(&b->out, -1) ||
	    (p->mode != PM_PRINT && (!(b->ev = malloc(sizeof(*b->ev) * n)) ||
				     !(b->cur = malloc(sizeof(*b->cur) * n)) ||
				     !(b->fit = malloc(sizeof(*b->fit) * n)))) ||
	    (p->mode == PM_PREPARE && (!(b->pre_off = malloc(sizeof(size_t) * n)) ||
				       !(b->pre_len = malloc(sizeof(size_t) * n))))) {
		block_free(b, p);
		return NULL;
	}
	return b;
}

/*
 * Whether window @win must wait before it makes one more block (lock held).
 * PM_COPY: the windows after the one the caller takes share the bound with
 * it (a worker that runs on to the next window does not double what waits);
 * the window taken only has its own, so that its worker never waits for
 * blocks the caller cannot take yet.
 */
static bool no_room(const struct par *p, const struct win *win, size_t ahead)
{
	if (win->bytes >= ahead)
		return true;
	return p->mode == PM_COPY && win != &p->ring[p->tail % p->nring] && p->bytes >= ahead;
}

/* A block to fill, once window @win has room for one more; NULL: stop, or no memory. */
static struct block *block_get(struct worker *k)
{
	struct par *p = k->p;
	size_t ahead = p->mode != PM_COPY ? QUEUE_AHEAD : QUEUE_PUT;
	struct block *b;

	pthread_mutex_lock(&p->mu);
	while (!p->stop && no_room(p, k->win, ahead))
		pthread_cond_wait(&p->room, &p->mu);
	b = p->stop ? NULL : p->spare;
	if (b)
		p->spare = b->next;
	pthread_mutex_unlock(&p->mu);
	if (!b && !p->stop)
		b = block_new(p);
	if (b) {
		b->next = NULL;
		b->nev = b->blen = b->segs.n = b->names.n = b->out.len = 0;
		b->ndamaged = b->events = b->kept = 0;
		b->post = b->post_len = 0;
	}
	return b;
}

/* The index of the clone @f among the worker's files. */
static int file_index(struct worker *k, const struct tdat_file *f)
{
	const struct par_reader *rd = k->rd;

	if (rd->files[k->hit] != f)
		for (k->hit = 0; k->hit < rd->nfiles - 1 && rd->files[k->hit] != f; k->hit++)
			;
	return k->hit;
}

/* Copy @ev (kept) into block @b, with what the format prepares of it. */
static int put_copy(struct worker *k, struct block *b, const struct tdat_event *ev)
{
	size_t need = (size_t)ev->size + RECORD_SLACK, start = k->w ? k->w->sink.len : 0;
	struct tdat_event *e;
	int r;

	if (b->blen + need > b->bcap) {
		size_t least = k->p->blk_bytes;
		size_t cap = b->blen + need > least ? b->blen + need : least;
		char *q = realloc(b->bytes, cap);

		if (!q)
			return TDAT_ENOMEM;
		b->bytes = q;
		b->bcap = cap;
	}
	e = &b->ev[b->nev];
	*e = *ev;
	/* a printer may read an array RECORD_SLACK bytes past the record, as the page allows */
	memcpy(b->bytes + b->blen, ev->data, need);
	e->data = (const void *)(uintptr_t)b->blen;
	e->file = k->rd->orig[file_index(k, ev->file)];
	b->cur[b->nev] = k->rd->last;
	b->fit[b->nev] = writer_fields_fit(k->p->w->ops, ev);
	b->blen += need;
	if (k->p->mode == PM_PREPARE) {
		if ((r = k->w->ops->prepare(k->w, ev)) < 0 || k->w->sink.err)
			return r < 0 ? r : TDAT_ENOMEM;
		b->pre_off[b->nev] = start;
		b->pre_len[b->nev] = r ? NO_PRE : k->w->sink.len - start;
	}
	b->nev++;
	return 0;
}

/* Whether block @b is full. */
static bool block_full(const struct worker *k, const struct block *b)
{
	if (b->events >= BLOCK_READ)
		return true;
	if (k->p->mode == PM_PRINT)
		return k->w->sink.len >= k->p->blk_bytes || b->kept >= k->p->blk_events;
	return b->nev == k->p->blk_events || b->blen >= k->p->blk_bytes ||
	       (k->w && k->w->sink.len >= k->p->blk_bytes);
}

/* What the format's ops->prepare_end() puts after block @b's last event: 0, or an error. */
static int block_end(struct worker *k, struct block *b)
{
	struct tdat_writer *w = k->w;
	int r;

	if (k->p->mode != PM_PREPARE || !w->ops->prepare_end)
		return 0;
	b->post = w->sink.len;
	if ((r = w->ops->prepare_end(w)) < 0 || w->sink.err)
		return r < 0 ? r : TDAT_ENOMEM;
	b->post_len = w->sink.len - b->post;
	return 0;
}

/*
 * Block @b ends here (@last: the cursor of the event handed out last, or
 * -1 before the event just handed out).  0 or TDAT_ENOMEM.
 */
static int block_seal(struct worker *k, struct block *b, int last)
{
	struct tdat_writer *w = k->w;
	struct par_reader *rd = k->rd;
	struct tdat_sink swap;
	struct par_segs segs;
	struct par_names names;

	if (par_reader_seal(rd, &b->back, last))
		return TDAT_ENOMEM;
	if (!w)
		return 0;
	b->ndamaged = w->ndamaged;
	if (w->ndamaged) {
		b->first = w->damage;
		/* the caller's file's path: the clones go before the warning is printed */
		for (int i = 0; i < rd->nfiles; i++)
			if (b->first.path == rd->files[i]->info.path)
				b->first.path = rd->orig[i]->info.path;
	}
	w->ndamaged = 0;
	/* the block takes the text; the writer keeps the block's old buffer */
	swap = b->out;
	b->out = w->sink;
	w->sink = swap;
	w->sink.len = 0;
	w->sink.err = 0;
	segs = b->segs;
	b->segs = w->segs;
	w->segs = segs;
	w->segs.n = 0;
	names = b->names;
	b->names = w->names;
	w->names = names;
	w->names.n = 0;
	return 0;
}

/* Hand block @b to the caller; false when told to stop. */
static bool block_push(struct worker *k, struct block *b)
{
	struct par *p = k->p;
	struct win *win = k->win;
	bool go;

	pthread_mutex_lock(&p->mu);
	if (win->tail)
		win->tail->next = b;
	else
		win->head = b;
	win->tail = b;
	b->size = b->out.len + b->blen + b->nev * sizeof(*b->ev);
	win->bytes += b->size;
	p->bytes += b->size;
	go = !p->stop;
	/* the caller waits only for the oldest window's blocks */
	if (win == &p->ring[p->tail % p->nring])
		pthread_cond_broadcast(&p->made);
	pthread_mutex_unlock(&p->mu);
	return go;
}

/* Put @ev (kept) into block @b. */
static int put_kept(struct worker *k, struct block *b, const struct tdat_event *ev)
{
	b->kept++;
	if (k->p->mode == PM_PRINT)
		return writer_put_now(k->w, ev);
	return put_copy(k, b, ev);
}

/*
 * A stack trace whose fate the caller decides (@u: its entry in what the
 * block hands back): put, and its place noted.  TDAT_EUNSUPP when the
 * worker cannot (the caller then reads on alone from the end of the block
 * before): a typed csv's text goes to many files, and damage the writer
 * counts for it could not be taken back.
 */
static int put_undecided(struct worker *k, struct block *b, const struct tdat_event *ev,
			 struct par_und *u)
{
	struct tdat_writer *w = k->w;
	bool print = k->p->mode == PM_PRINT;
	size_t start = w ? w->sink.len : 0, at = print ? start : b->nev;
	uint64_t damaged = w ? w->ndamaged : 0;
	int ret;

	if (w && w->ops->put_segs)
		return TDAT_EUNSUPP;
	if ((ret = put_kept(k, b, ev)))
		return ret;
	if (w && w->ndamaged != damaged)
		return TDAT_EUNSUPP;
	u->at = at;
	u->len = print ? w->sink.len - start : 1;
	return 0;
}

/* One event of the window (@keep: the selection's verdict), put into the block. 0 or an error. */
static int take_event(struct worker *k, struct block *b, const struct tdat_event *ev, int keep,
		      struct par_und *u)
{
	b->events++;
	if (!keep)
		return 0;
	if (keep > 0)
		return put_kept(k, b, ev);
	return put_undecided(k, b, ev, u);
}

/* Window @win, from its start, into blocks; false when the worker cannot go on. */
static bool run_window(struct worker *k, struct win *win)
{
	const struct tdat_event *ev;
	struct par_und *u;
	struct block *b;
	int ret, keep;

	k->win = win;
	if (!(b = k->b = block_get(k)))
		return false;
	ret = par_reader_window(k->rd, &win->cut, win->start);
	pthread_mutex_lock(&k->p->mu);
	win->started = !ret;
	pthread_cond_broadcast(&k->p->made);
	pthread_mutex_unlock(&k->p->mu);
	if (ret)
		return false;
	while ((ret = par_reader_next(k->rd, &ev, &keep, &u)) == 0) {
		if ((ret = take_event(k, b, ev, keep, u)))
			break;
		if (!block_full(k, b))
			continue;
		if ((ret = block_end(k, b)) || (ret = block_seal(k, b, k->rd->last)))
			break;
		k->b = NULL;
		if (!block_push(k, b) || !(b = k->b = block_get(k)))
			return false;
	}
	if (ret == TDAT_END && (block_end(k, b) || block_seal(k, b, -1)))
		ret = TDAT_ENOMEM;
	if (ret != TDAT_END) {
		block_free(b, k->p);	/* the caller reads on alone and meets the failure itself */
		k->b = NULL;
		return false;
	}
	k->b = NULL;
	return block_push(k, b);
}

/* The oldest queued window, now the worker's; NULL: stop. */
static struct win *take_window(struct par *p)
{
	struct win *win = NULL;

	pthread_mutex_lock(&p->mu);
	while (!p->stop && !win) {
		for (uint64_t i = p->tail; i < p->head && !win; i++)
			if (p->ring[i % p->nring].state == W_QUEUED)
				win = &p->ring[i % p->nring];
		if (!win)
			pthread_cond_wait(&p->work, &p->mu);
	}
	if (win)
		win->state = W_BUSY;
	pthread_mutex_unlock(&p->mu);
	return win;
}

static void window_end(struct par *p, struct win *win, bool ok)
{
	pthread_mutex_lock(&p->mu);
	win->failed = !ok;
	win->state = W_DONE;
	pthread_cond_broadcast(&p->made);
	pthread_mutex_unlock(&p->mu);
}

/* The worker's reader (clones of every file of the merge, its merge and selection) and writer. */
static int worker_init(struct worker *k)
{
	struct par *p = k->p;
	int ret;

	/* function names: printed by the worker's writer (FIELD_sym too) */
	if ((ret = par_reader_new(p->pr, p->mode != PM_COPY, &k->rd)))
		return ret;
	if (p->mode == PM_COPY)
		return 0;
	if (!(k->w = tdat_writer_new(p->w->ops->name)))
		return TDAT_ENOMEM;
	k->w->workers = p->w->jobs;	/* PM_PRINT and PM_PREPARE: a worker a job */
	k->w->opt = p->w->opt;		/* the format's options (tdat_writer_set_option()) */
	if ((ret = writer_open_worker(k->w, k->rd->m, p->w->flags & ~TDAT_W_GZIP)))
		return ret;
	k->w->sink.len = 0;	/* no header */
	return 0;
}

static void worker_release(struct worker *k)
{
	tdat_writer_free(k->w);
	par_reader_free(k->rd);
	block_free(k->b, k->p);
}

static void *work(void *arg)
{
	struct worker *k = arg;
	struct par *p = k->p;
	struct win *win;
	bool ok = !worker_init(k);

	while (ok && (win = take_window(p)))
		window_end(p, win, ok = run_window(k, win));
	pthread_mutex_lock(&p->mu);
	p->alive--;	/* the caller may wait for a window no one is left to take */
	pthread_cond_broadcast(&p->made);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int par_workers_start(struct par *p, int n)
{
	if (!(p->wk = calloc((size_t)n, sizeof(*p->wk))))
		return TDAT_ENOMEM;
	for (int i = 0; i < n; i++) {
		struct worker *k = &p->wk[p->nwk];

		k->p = p;
		pthread_mutex_lock(&p->mu);
		p->alive++;
		pthread_mutex_unlock(&p->mu);
		if (thread_start(&k->th, TDAT_THREAD_WINDOW, work, k)) {
			pthread_mutex_lock(&p->mu);
			p->alive--;
			pthread_mutex_unlock(&p->mu);
			break;
		}
		p->nwk++;
	}
	return 0;
}

void par_workers_stop(struct par *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nwk; i++)
		pthread_join(p->wk[i].th, NULL);
	for (int i = 0; i < p->nwk; i++)
		worker_release(&p->wk[i]);
	free(p->wk);
	p->wk = NULL;
	p->nwk = 0;
}
