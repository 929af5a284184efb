/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * csv.c - the "csv" format: RFC 4180, one header line, one row per
 * event:
 *
 *   ts,cpu,input,buffer,pid,comm,system,event,lost,fields
 *
 * ts is integer nanoseconds (or raw clock units), lost the events lost just
 * before this one (-1: an unknown number), fields the event's own fields as
 * space-separated name=value pairs; strings are in double quotes there,
 * numbers are decimal (pointers 0x hex), arrays [a,b,...].  Text is kept
 * valid UTF-8: a backslash is written as \\, a double quote inside a
 * string as \", and control characters and bytes that are not UTF-8 as
 * \xNN.  Cells holding a comma, quote or line break are quoted, with quotes
 * doubled; the fields cell is always quoted.
 *
 * This is the toolkit's fast path: field values are formatted from a
 * per-type table of field positions straight into the output buffer, and
 * the cells that repeat (buffer, comm, system and event names) are built
 * once and cached.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "read/read.h"
#include "write/sink.h"
#include "write/csvfmt.h"
#include "write/options.h"
#include "write/writer-int.h"

/* What the CSV writer keeps per event type on top of the shared field table. */
struct csv_type {
	const struct ttype *tt;
	char *head;		/* ",system,event," as cells */
	size_t head_len;
	char **labels;		/* " name=" per field ("name=" for the first) */
	unsigned *label_lens;
};

struct csv_input {
	struct idtab types;		/* struct csv_type by event type id */
	char **buffer_cells;
	struct csv_comms comms;
};

struct csv {
	struct csv_input *in;
	int ninputs;
};

/* ---- per-type tables ---- */

static void free_type(void *p)
{
	struct csv_type *t = p;

	if (!t)
		return;
	for (int i = 0; t->labels && i < t->tt->nfields; i++)
		free(t->labels[i]);
	free(t->labels);
	free(t->label_lens);
	free(t->head);
	free(t);
}

static struct csv_type *compile(const struct ttype *tt)
{
	struct csv_type *t = calloc(1, sizeof(*t));
	char *sys = NULL, *name = NULL;
	size_t ls, ln;

	if (!t)
		return NULL;
	t->tt = tt;
	t->labels = calloc((size_t)tt->nfields + 1, sizeof(*t->labels));
	t->label_lens = calloc((size_t)tt->nfields + 1, sizeof(*t->label_lens));
	sys = csv_cell(tt->system, CSV_Q_BACKSLASH, &ls);
	name = csv_cell(tt->name, CSV_Q_BACKSLASH, &ln);
	if (!t->labels || !t->label_lens || !sys || !name || asprintf(&t->head, ",%s,%s,", sys, name) < 0)
		goto fail;
	t->head_len = ls + ln + 3;
	for (int i = 0; i < tt->nfields; i++) {
		if (asprintf(&t->labels[i], "%s%s=", i ? " " : "", tt->fields[i].name) < 0)
			goto fail;
		t->label_lens[i] = (unsigned)strlen(t->labels[i]);
	}
	free(sys);
	free(name);
	return t;
fail:
	free(sys);
	free(name);
	free_type(t);
	return NULL;
}

static struct csv_type *type_of(struct csv *c, const struct tdat_event *ev)
{
	const struct ttype *tt = file_type(ev->file, ev);
	void **slot = tt ? idtab_slot(&c->in[ev->input].types, tt->id) : NULL;

	if (!slot)
		return NULL;
	if (!*slot)
		*slot = compile(tt);
	return *slot;
}

/* ---- the fields cell ---- */

/* One field's value; false if the field lies outside the event. */
static bool put_field(struct tdat_sink *sk, const struct tdat_event *ev, const struct tfield *f)
{
	const unsigned char *p;
	unsigned len;
	uint64_t v;

	if (f->kind != TK_STR && f->kind != TK_ARRAY) {
		if (!tfield_num(ev, f, &v))
			return false;
		csv_put_number(sk, f->kind, v);
		return true;
	}
	if (!tfield_bytes(ev, f, &p, &len))
		return false;
	if (f->kind == TK_STR) {
		sink_write(sk, "\"\"", 2);
		csv_escape(sk, (const char *)p, len, CSV_Q_FIELDS);
		sink_write(sk, "\"\"", 2);
	} else {
		csv_put_array(sk, ev->file, p, len, f);
	}
	return true;
}

static void put_fields(struct tdat_sink *sk, const struct tdat_event *ev, const struct csv_type *t)
{
	sink_putc(sk, '"');
	for (int i = 0; i < t->tt->nfields; i++) {
		sink_write(sk, t->labels[i], t->label_lens[i]);
		if (!put_field(sk, ev, &t->tt->fields[i]))
			sink_putc(sk, '?');
	}
	sink_putc(sk, '"');
}

/* @v in decimal at @d, a '-' first if negative; the bytes written (at most 21). */
static size_t put_i64(char *d, int64_t v)
{
	if (v >= 0 && v < 10) {
		*d = (char)('0' + v);
		return 1;
	}
	if (v >= 0)
		return fmt_u64(d, (uint64_t)v);
	*d = '-';
	return 1 + fmt_u64(d + 1, (uint64_t)0 - (uint64_t)v);
}

static inline char *put_cell(char *d, const char *cell, size_t len, char sep)
{
	memcpy(d, cell, len);
	d[len] = sep;
	return d + len + 1;
}

/* ts,cpu,input,buffer,pid,comm,system,event,lost, in one reservation of the sink */
static int put_head(struct csv_input *in, struct tdat_sink *sk, const struct tdat_event *ev,
		    const struct csv_type *t, int pid)
{
	const char *buf = in->buffer_cells[ev->buffer], *comm;
	size_t blen = strlen(buf), clen;
	char *d, *o;

	if (!(comm = csv_comm_cell(&in->comms, ev->file->tep, pid, CSV_Q_BACKSLASH, &clen)))
		return TDAT_ENOMEM;
	if (!(o = d = sink_reserve(sk, 5 * 22 + blen + clen + t->head_len)))
		return 0;	/* the sink's error is sticky */
	o += fmt_u64(o, ev->ts);
	*o++ = ',';
	o += put_i64(o, ev->cpu);
	*o++ = ',';
	o += put_i64(o, ev->input);
	*o++ = ',';
	o = put_cell(o, buf, blen, ',');
	o += put_i64(o, pid);
	*o++ = ',';
	memcpy(o, comm, clen);
	o += clen;
	memcpy(o, t->head, t->head_len);
	o += t->head_len;
	o += put_i64(o, ev->missed);
	*o++ = ',';
	sink_commit(sk, (size_t)(o - d));
	return 0;
}

static int csv_put(struct tdat_writer *w, const struct tdat_event *ev)
{
	struct csv *c = w->priv;
	struct tdat_sink *sk = &w->sink;
	const struct csv_type *t = type_of(c, ev);
	uint64_t v;
	int pid = -1, ret;

	if (!t)
		return TDAT_ENOMEM;
	if (tfield_num(ev, &t->tt->pid, &v))
		pid = (int)(int64_t)v;
	if ((ret = put_head(&c->in[ev->input], sk, ev, t, pid)))
		return ret;
	put_fields(sk, ev, t);
	sink_putc(sk, '\n');
	return 0;
}

static int csv_open(struct tdat_writer *w)
{
	struct csv *c;
	size_t len;

	if (w->opt.split)
		return csvdir_open(w);
	c = calloc(1, sizeof(*c));
	if (!c)
		return TDAT_ENOMEM;
	w->priv = c;
	c->ninputs = tdat_merge_nfiles(w->merge);
	c->in = calloc((size_t)(c->ninputs ? c->ninputs : 1), sizeof(*c->in));
	if (!c->in)
		return TDAT_ENOMEM;
	for (int i = 0; i < c->ninputs; i++) {
		struct tdat_file *f = tdat_merge_file(w->merge, i);
		struct csv_input *in = &c->in[i];

		in->buffer_cells = calloc((size_t)(f->nbuffers ? f->nbuffers : 1), sizeof(char *));
		if (!in->buffer_cells)
			return TDAT_ENOMEM;
		for (int b = 0; b < f->nbuffers; b++)
			if (!(in->buffer_cells[b] = csv_cell(f->buffers[b].info.name, CSV_Q_BACKSLASH, &len)))
				return TDAT_ENOMEM;
	}
	sink_printf(&w->sink, "ts,cpu,input,buffer,pid,comm,system,event,lost,fields\n");
	return 0;
}

static void csv_free(struct tdat_writer *w)
{
	struct csv *c = w->priv;

	if (!c)
		return;
	for (int i = 0; c->in && i < c->ninputs; i++) {
		struct csv_input *in = &c->in[i];
		struct tdat_file *f = tdat_merge_file(w->merge, i);

		idtab_release(&in->types, free_type);
		for (int b = 0; in->buffer_cells && b < f->nbuffers; b++)
			free(in->buffer_cells[b]);
		free(in->buffer_cells);
		csv_comms_release(&in->comms);
	}
	free(c->in);
	free(c);
	w->priv = NULL;
}

static const struct writer_option csv_options[] = {
	WOPT_BOOL("split", split),	/* one typed file per event type (csvdir.c) */
	{ NULL, WO_BOOL, NULL, 0, 0, 0 },
};

const struct tdat_writer_ops tdat_writer_csv_ops = {
	.options = csv_options,
	.name = "csv",
	.parallel = true,
	.exts = ".csv",
	.fields = true,
	.open = csv_open,
	.put = csv_put,
	.free = csv_free,
};
