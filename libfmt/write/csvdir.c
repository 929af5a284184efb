/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * csvdir.c - "csv" with the "split" option (tdat-convert --split-by-event):
 * one typed CSV file per event type in the directory w->path, named
 * SYSTEM.EVENT.csv, with the columns
 *
 *   ts,cpu,input,buffer,pid,comm,lost,FIELD...
 *
 * one per field of the event's format (not the common_* ones), and after
 * a field the format prints as a kernel symbol (%ps, %pS, ...; a stack's
 * callers) FIELD_sym, the symbol as the text output prints it
 * ("alloc_bprm+0x45", "tick_nohz_handler", 0x and hex where none; a stack's
 * names joined by ';', bare hex where none).  Numbers are
 * decimal (pointers 0x hex), arrays "[a,b,...]", strings escaped as in the
 * generic CSV (UTF-8 kept, \\, \xNN) except that a double quote is only
 * doubled inside its quoted cell; a field outside a damaged event is an
 * empty cell.  A field named like a fixed column is called field_NAME.
 *
 * File names keep [A-Za-z0-9_.-] and turn anything else into '_'.  The same
 * type (system and name) of several inputs goes to one file when the
 * field lists (names, kinds, symbols) agree; a differing one goes to
 * SYSTEM.EVENT.2.csv, then .3, ...  Events whose type has no format go to
 * unknown.ID.csv.
 *
 * With -j, workers print batches of rows into memory (a writer opened with
 * no path: each row after the one before, cut by type, run/par.c's segments),
 * and csvdir_put_segs() appends each piece to its type's file, in order:
 * the same files, the same names (given in the order types first appear).
 *
 * csv_open() hands over to csvdir_open(), which installs these ops.  Each
 * event type of each input is resolved once to its file; at most
 * CSVDIR_MAX_OPEN files (fewer if the descriptor limit is lower) are open
 * at a time, each with its own buffered sink; the least recently used one
 * is flushed and closed when another is needed, and reopened in append mode
 * later.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/read.h"
#include "write/sink.h"
#include "write/csvfmt.h"
#include "write/worker.h"
#include "write/writer-int.h"
#include "write/typed.h"

#define CSVDIR_MAX_OPEN 64

static const char fixed_cols[] = "ts,cpu,input,buffer,pid,comm,lost";

/* One output file. */
struct dfile {
	struct typed_key key;	/* the type's system and name, exactly, and its field list (first: typed_find()) */
	char *base;		/* file name without ".csv" */
	char *header;		/* the header line */
	struct tdat_sink sink;	/* buf and fd only while open */
	bool open, created;
	uint64_t used;		/* LRU clock */
};

/* What one input keeps: its types' files and the cells that repeat. */
struct dinput {
	struct idtab types;	/* struct dfile by event type id (d->files owns them) */
	char **buffer_cells;
	size_t *buffer_lens;
	int nbuffers;
	struct csv_comms comms;
};

struct csvdir {
	int dirfd;
	struct dinput *in;
	int ninputs;
	struct dfile **files;
	int nfiles, files_cap;
	int nopen, max_open;
	uint64_t tick;
	bool mem;		/* a -j worker's: rows into w->sink, cut into w->segs */
};

/* ---- files ---- */

static int fail_io(struct tdat_writer *w, const struct dfile *f, int err)
{
	/* the first failure is the one reported */
	if (!w->sink.err) {
		w->sink.err = err;
		tdat_msg(w->errmsg, "%s.csv: %s", f->base, strerror(err));
	}
	return TDAT_EIO;
}

/* Flush and close @f; its buffer goes to @spare (for the next file to open). */
static int dfile_close(struct tdat_writer *w, struct csvdir *d, struct dfile *f,
		       struct tdat_sink *spare)
{
	int err;

	sink_flush(&f->sink);
	err = f->sink.err;
	if (close(f->sink.fd) && !err)
		err = errno;
	*spare = f->sink;
	spare->fd = -1;
	spare->len = 0;
	spare->err = 0;
	f->sink = (struct tdat_sink){ .fd = -1 };
	f->open = false;
	d->nopen--;
	return err ? fail_io(w, f, err) : 0;
}

/* Close the least recently used file; the first buffer freed goes to @spare. */
static int evict(struct tdat_writer *w, struct csvdir *d, struct tdat_sink *spare)
{
	struct dfile *old = NULL;
	struct tdat_sink s;
	int ret;

	for (int i = 0; i < d->nfiles; i++)
		if (d->files[i]->open && (!old || d->files[i]->used < old->used))
			old = d->files[i];
	ret = dfile_close(w, d, old, &s);
	if (spare->buf)
		sink_release(&s);
	else
		*spare = s;
	return ret;
}

/* Open @f (created with its header the first time, appended to later). */
static int dfile_open(struct tdat_writer *w, struct csvdir *d, struct dfile *f)
{
	int flags = O_WRONLY | O_CLOEXEC | (f->created ? O_APPEND : O_CREAT | O_EXCL);
	struct tdat_sink spare = { .fd = -1 };
	char name[TYPED_NAME_MAX + 32];
	int ret = 0, fd;

	if (d->nopen >= d->max_open && (ret = evict(w, d, &spare)))
		goto out;
	snprintf(name, sizeof(name), "%s.csv", f->base);
	while ((fd = openat(d->dirfd, name, flags, 0666)) < 0 && errno == EMFILE && d->nopen) {
		/* fewer descriptors than CSVDIR_MAX_OPEN (ulimit -n): keep fewer open */
		d->max_open = d->nopen;
		if ((ret = evict(w, d, &spare)))
			goto out;
	}
	if (fd < 0) {
		ret = fail_io(w, f, errno);
		goto out;
	}
	if (!spare.buf && sink_init(&spare, fd)) {	/* a file sink's buffer */
		close(fd);
		tdat_msg(w->errmsg, "out of memory");
		ret = TDAT_ENOMEM;
		goto out;
	}
	f->sink = spare;
	f->sink.fd = fd;
	spare.buf = NULL;
	f->open = true;
	d->nopen++;
	if (!f->created)
		sink_write(&f->sink, f->header, strlen(f->header));
	f->created = true;
out:
	sink_release(&spare);
	return ret;
}

/* ---- one file per type: names, columns ---- */

static char *header_line(const struct ttype *tt)
{
	char **cols = typed_columns(tt);
	struct tdat_sink s;
	char *line = NULL;

	if (!cols || sink_init(&s, -1))
		goto out;
	sink_write(&s, fixed_cols, strlen(fixed_cols));
	for (int i = 0; cols[i]; i++) {
		sink_putc(&s, ',');
		csv_text_cell(&s, cols[i], strlen(cols[i]));
	}
	sink_putc(&s, '\n');
	if (!s.err)
		line = strndup(s.buf, s.len);
	sink_release(&s);
out:
	typed_columns_free(cols);
	return line;
}

static void dfile_free(struct dfile *f)
{
	if (!f)
		return;
	if (f->open)
		close(f->sink.fd);
	sink_release(&f->sink);
	free(f->base);
	typed_key_free(&f->key);
	free(f->header);
	free(f);
}

static bool base_taken(const void *ctx, const char *base)
{
	const struct csvdir *d = ctx;

	for (int i = 0; i < d->nfiles; i++)
		if (!strcmp(d->files[i]->base, base))
			return true;
	return false;
}


/* A new file for @tt; takes @sig. */
static struct dfile *dfile_new(struct csvdir *d, const struct ttype *tt, char *sig)
{
	struct dfile *f = calloc(1, sizeof(*f));

	if (!f) {
		free(sig);
		return NULL;
	}
	f->key.sig = sig;
	f->sink.fd = -1;
	f->base = typed_unique_base(tt, base_taken, d);
	f->key.system = strdup(tt->system);
	f->key.name = typed_type_name(tt);
	f->header = header_line(tt);
	if (!f->base || !f->key.system || !f->key.name || !f->header) {
		dfile_free(f);
		return NULL;
	}
	return f;
}

/* The file of @tt: one with the same system, name and fields, else a new one. */
static struct dfile *find_file(struct csvdir *d, const struct ttype *tt)
{
	char *sig;
	struct dfile *f = typed_find((void *const *)d->files, 0, d->nfiles, tt, &sig);

	if (f || !sig)
		return f;
	if (array_room((void **)&d->files, d->nfiles, &d->files_cap, sizeof(*d->files), 64)) {
		free(sig);
		return NULL;
	}
	if ((f = dfile_new(d, tt, sig)))
		d->files[d->nfiles++] = f;
	return f;
}

/* ---- rows ---- */

/* One field's cell; empty if the field lies outside the event. */
static void put_value(struct tdat_sink *sk, const struct tdat_event *ev, const struct tfield *f)
{
	const unsigned char *p;
	unsigned len;
	uint64_t v;

	if (f->kind != TK_STR && f->kind != TK_ARRAY) {
		if (tfield_num(ev, f, &v))
			csv_put_number(sk, f->kind, v);
	} else if (!tfield_bytes(ev, f, &p, &len)) {
		return;
	} else if (f->kind == TK_STR) {
		csv_text_cell(sk, (const char *)p, len);
	} else {
		sink_putc(sk, '"');
		csv_put_array(sk, ev->file, p, len, f);
		sink_putc(sk, '"');
	}
}

/* The symbol cell of @f; empty if the field lies outside the event. */
static void put_sym(struct tdat_sink *sk, const struct tdat_event *ev, const struct ttype *tt,
		    const struct tfield *f)
{
	const char *p;
	unsigned len;

	if (tfield_sym(tt, ev, f, &p, &len))
		csv_text_cell(sk, p, len);
}

static int put_row(struct tdat_sink *sk, struct dinput *in, const struct tdat_event *ev,
		   const struct ttype *tt)
{
	const char *cell;
	size_t len;
	uint64_t v;
	int pid = -1;

	if (tfield_num(ev, &tt->pid, &v))
		pid = (int)(int64_t)v;
	if (!(cell = csv_comm_cell(&in->comms, ev->file->tep, pid, CSV_Q_RAW, &len)))
		return TDAT_ENOMEM;
	csv_put_u64(sk, ev->ts);
	sink_putc(sk, ',');
	csv_put_i64(sk, ev->cpu);
	sink_putc(sk, ',');
	csv_put_i64(sk, ev->input);
	sink_putc(sk, ',');
	if (ev->buffer < in->nbuffers)
		sink_write(sk, in->buffer_cells[ev->buffer], in->buffer_lens[ev->buffer]);
	sink_putc(sk, ',');
	csv_put_i64(sk, pid);
	sink_putc(sk, ',');
	sink_write(sk, cell, len);
	sink_putc(sk, ',');
	csv_put_i64(sk, ev->missed);
	for (int i = 0; i < tt->nfields; i++) {
		sink_putc(sk, ',');
		put_value(sk, ev, &tt->fields[i]);
		if (tt->fields[i].sym) {
			sink_putc(sk, ',');
			put_sym(sk, ev, tt, &tt->fields[i]);
		}
	}
	sink_putc(sk, '\n');
	return 0;
}

static int nomem(struct tdat_writer *w)
{
	tdat_msg(w->errmsg, "out of memory");
	return TDAT_ENOMEM;
}

/* The open file of type @id of input @input, in *@f; 0 or an error. */
static int file_of(struct tdat_writer *w, struct csvdir *d, int input, unsigned id,
		   struct dfile **f)
{
	const struct ttype *tt;
	void **slot;
	int ret;

	if (!(slot = idtab_slot(&d->in[input].types, id)))
		return nomem(w);
	if (!(*f = *slot) &&
	    (!(tt = file_type_id(tdat_merge_file(w->merge, input), id)) ||
	     !(*f = *slot = find_file(d, tt))))
		return nomem(w);
	if (!(*f)->open && (ret = dfile_open(w, d, *f)))
		return ret;
	(*f)->used = ++d->tick;
	return 0;
}

static int csvdir_put(struct tdat_writer *w, const struct tdat_event *ev)
{
	struct csvdir *d = w->priv;
	struct dinput *in = &d->in[ev->input];
	const struct ttype *tt = file_type(ev->file, ev);
	size_t len = w->sink.len;
	struct dfile *f;
	int ret;

	if (!tt)
		return nomem(w);
	if (d->mem) {
		if (put_row(&w->sink, in, ev, tt) ||
		    par_seg_add(&w->segs, ev->input, tt->id, w->sink.len - len))
			return nomem(w);
		return 0;
	}
	if ((ret = file_of(w, d, ev->input, tt->id, &f)))
		return ret;
	if (put_row(&f->sink, in, ev, tt))
		return nomem(w);
	return f->sink.err ? fail_io(w, f, f->sink.err) : 0;
}

/* A worker's batch: each piece of @text to its type's file, in order. */
static int csvdir_put_segs(struct tdat_writer *w, const char *text, const struct par_segs *s)
{
	struct csvdir *d = w->priv;
	struct dfile *f;
	int ret;

	for (size_t i = 0; i < s->n; i++) {
		if ((ret = file_of(w, d, s->v[i].input, s->v[i].id, &f)))
			return ret;
		sink_write(&f->sink, text, s->v[i].len);
		text += s->v[i].len;
		if (f->sink.err)
			return fail_io(w, f, f->sink.err);
	}
	return 0;
}

/* ---- open, close, free ---- */

static int csvdir_close(struct tdat_writer *w)
{
	struct csvdir *d = w->priv;
	int ret = 0, r;

	for (int i = 0; d && i < d->nfiles; i++) {
		struct tdat_sink spare;

		if (!d->files[i]->open)
			continue;
		r = dfile_close(w, d, d->files[i], &spare);
		sink_release(&spare);
		ret = ret ? ret : r;
	}
	return ret;
}

static void csvdir_free(struct tdat_writer *w)
{
	struct csvdir *d = w->priv;

	if (!d)
		return;
	for (int i = 0; i < d->nfiles; i++)
		dfile_free(d->files[i]);
	for (int i = 0; d->in && i < d->ninputs; i++) {
		struct dinput *in = &d->in[i];

		for (int b = 0; in->buffer_cells && b < in->nbuffers; b++)
			free(in->buffer_cells[b]);
		free(in->buffer_cells);
		free(in->buffer_lens);
		idtab_release(&in->types, NULL);
		csv_comms_release(&in->comms);
	}
	if (d->dirfd >= 0)
		close(d->dirfd);
	free(d->files);
	free(d->in);
	free(d);
	w->priv = NULL;
}

static const struct tdat_writer_ops csvdir_ops = {
	.name = "csv",
	.exts = ".csv",
	.parallel = true,
	.put_segs = csvdir_put_segs,
	.put = csvdir_put,
	.close = csvdir_close,
	.free = csvdir_free,
};

static int input_init(struct dinput *in, struct tdat_file *f)
{
	size_t n = (size_t)(f->nbuffers ? f->nbuffers : 1);

	in->buffer_cells = calloc(n, sizeof(*in->buffer_cells));
	in->buffer_lens = calloc(n, sizeof(*in->buffer_lens));
	if (!in->buffer_cells || !in->buffer_lens)
		return TDAT_ENOMEM;
	in->nbuffers = f->nbuffers;	/* cells not made yet are NULL */
	for (int b = 0; b < f->nbuffers; b++) {
		in->buffer_cells[b] = csv_cell(f->buffers[b].info.name, CSV_Q_RAW, &in->buffer_lens[b]);
		if (!in->buffer_cells[b])
			return TDAT_ENOMEM;
	}
	return 0;
}

int csvdir_open(struct tdat_writer *w)
{
	struct csvdir *d = calloc(1, sizeof(*d));

	if (!d)
		return nomem(w);
	w->priv = d;
	w->ops = &csvdir_ops;
	d->dirfd = -1;
	d->max_open = CSVDIR_MAX_OPEN;
	if (w->flags & TDAT_W_GZIP) {
		tdat_msg(w->errmsg, "gzip is not supported with one file per event type");
		return TDAT_EUNSUPP;
	}
	d->mem = !w->path;	/* a -j worker's (run/par.c) */
	d->dirfd = d->mem ? -1 : open(w->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->dirfd < 0 && !d->mem) {
		w->sink.err = errno;
		tdat_msg(w->errmsg, "%s", strerror(errno));
		return TDAT_EIO;
	}
	d->ninputs = tdat_merge_nfiles(w->merge);
	d->in = calloc((size_t)(d->ninputs ? d->ninputs : 1), sizeof(*d->in));
	if (!d->in)
		return nomem(w);
	for (int i = 0; i < d->ninputs; i++)
		if (input_init(&d->in[i], tdat_merge_file(w->merge, i)))
			return nomem(w);
	return 0;
}
