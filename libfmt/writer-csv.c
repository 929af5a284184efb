/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * writer-csv.c - the "csv" format: RFC 4180, one header line, one row per
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

#include "internal.h"

/* What the CSV writer keeps per event type on top of the shared field table. */
struct csv_type {
	const struct ttype *tt;
	char *head;		/* ",system,event," as cells */
	size_t head_len;
	char **labels;		/* " name=" per field ("name=" for the first) */
	unsigned *label_lens;
};

struct comm_slot {
	int pid;
	char *cell;		/* NULL: empty slot */
	size_t len;
};

struct csv_input {
	struct csv_type **types;	/* TDAT_MAX_TYPES entries, filled lazily */
	char **buffer_cells;
	struct comm_slot *comms;	/* open addressing on pid */
	size_t ncomms, comm_cap;
};

struct csv {
	struct csv_input *in;
	int ninputs;
};

/* ---- text ---- */

static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0;
	return len;
}

/*
 * Write up to @n bytes of @s (ending at a NUL) escaped as described at the
 * top.  @in_fields: the text sits inside the always-quoted fields cell, so
 * a double quote becomes \"" (escaped, then doubled for CSV).
 */
static void put_escaped(struct tdat_sink *sk, const char *s, size_t n, bool in_fields)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	char *d = sink_reserve(sk, n * 4 + 8), *o = d;
	size_t i = 0, l;

	if (!d)
		return;
	while (i < n && p[i]) {
		unsigned ch = p[i];

		if (ch >= 0x20 && ch < 0x7f && ch != '\\' && ch != '"') {
			*o++ = (char)ch;
			i++;
		} else if (ch == '\\' || ch == '"') {
			*o++ = '\\';
			*o++ = (char)ch;
			if (ch == '"' && in_fields)
				*o++ = '"';
			i++;
		} else if (ch >= 0x80 && (l = utf8_len(p + i, n - i))) {
			memcpy(o, p + i, l);
			o += l;
			i += l;
		} else {
			*o++ = '\\';
			*o++ = 'x';
			*o++ = hex[ch >> 4];
			*o++ = hex[ch & 15];
			i++;
		}
	}
	sink_commit(sk, (size_t)(o - d));
}

/* A cell for @s built once: escaped, then quoted if it needs it. */
static char *make_cell(const char *s, size_t *len)
{
	struct tdat_sink esc, out;
	char *cell = NULL;

	if (sink_init(&esc, -1))
		return NULL;
	if (sink_init(&out, -1))
		goto out;
	put_escaped(&esc, s, strlen(s), false);
	if (memchr(esc.buf, ',', esc.len) || memchr(esc.buf, '"', esc.len)) {
		sink_putc(&out, '"');
		for (size_t i = 0; i < esc.len; i++) {
			if (esc.buf[i] == '"')
				sink_putc(&out, '"');
			sink_putc(&out, esc.buf[i]);
		}
		sink_putc(&out, '"');
	} else {
		sink_write(&out, esc.buf, esc.len);
	}
	cell = strndup(out.buf, out.len);
	*len = out.len;
	sink_release(&out);
out:
	sink_release(&esc);
	return cell;
}

/* ---- numbers ---- */

static inline void put_u64(struct tdat_sink *sk, uint64_t v)
{
	char *d = sink_reserve(sk, 24);

	if (d)
		sink_commit(sk, fmt_u64(d, v));
}

static void put_i64(struct tdat_sink *sk, int64_t v)
{
	if (v < 0) {
		sink_putc(sk, '-');
		put_u64(sk, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(sk, (uint64_t)v);
	}
}

static void put_hex(struct tdat_sink *sk, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char b[20], *p = b + sizeof(b);

	do
		*--p = hex[v & 15];
	while (v >>= 4);
	*--p = 'x';
	*--p = '0';
	sink_write(sk, p, (size_t)(b + sizeof(b) - p));
}

/* ---- per-type tables ---- */

static void free_type(struct csv_type *t)
{
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
	sys = make_cell(tt->system, &ls);
	name = make_cell(tt->name, &ln);
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
	struct csv_type **tab = c->in[ev->input].types;
	const struct ttype *tt = file_type(ev->file, ev);

	if (!tt)
		return NULL;
	if (!tab[tt->id])
		tab[tt->id] = compile(tt);
	return tab[tt->id];
}

/* ---- the fields cell ---- */

static void put_number(struct tdat_sink *sk, enum tkind kind, uint64_t v)
{
	if (kind == TK_PTR)
		put_hex(sk, v);
	else if (kind == TK_INT)
		put_i64(sk, (int64_t)v);
	else
		put_u64(sk, v);
}

static void put_array(struct tdat_sink *sk, const struct tdat_file *f, const unsigned char *p,
		      unsigned len, const struct tfield *tf)
{
	unsigned elem = tf->elem;
	enum tkind kind = (tf->flags & TEP_FIELD_IS_SIGNED) ? TK_INT : TK_UINT;

	if (elem != 1 && elem != 2 && elem != 4 && elem != 8)
		elem = 1;
	sink_putc(sk, '[');
	for (unsigned i = 0; i + elem <= len; i += elem) {
		uint64_t v = field_raw(f, p + i, elem);

		if (i)
			sink_putc(sk, ',');
		if (kind == TK_INT && elem < 8)
			v = (uint64_t)((int64_t)(v << (64 - 8 * elem)) >> (64 - 8 * elem));
		put_number(sk, kind, v);
	}
	sink_putc(sk, ']');
}

/* One field's value; false if the field lies outside the event. */
static bool put_field(struct tdat_sink *sk, const struct tdat_event *ev, const struct tfield *f)
{
	const unsigned char *p;
	unsigned len;
	uint64_t v;

	if (f->kind != TK_STR && f->kind != TK_ARRAY) {
		if (!tfield_num(ev, f, &v))
			return false;
		put_number(sk, f->kind, v);
		return true;
	}
	if (!tfield_bytes(ev, f, &p, &len))
		return false;
	if (f->kind == TK_STR) {
		sink_write(sk, "\"\"", 2);
		put_escaped(sk, (const char *)p, len, true);
		sink_write(sk, "\"\"", 2);
	} else {
		put_array(sk, ev->file, p, len, f);
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

/* ---- cached cells ---- */

static const char *comm_cell(struct csv_input *in, const struct tdat_event *ev, int pid, size_t *len)
{
	struct tep_handle *tep = ev->file->tep;
	struct comm_slot *s;
	size_t i;

	if (in->ncomms * 2 >= in->comm_cap) {
		size_t cap = in->comm_cap ? in->comm_cap * 2 : 1024;
		struct comm_slot *n = calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (i = 0; i < in->comm_cap; i++) {
			size_t j = (size_t)in->comms[i].pid & (cap - 1);

			if (!in->comms[i].cell)
				continue;
			while (n[j].cell)
				j = (j + 1) & (cap - 1);
			n[j] = in->comms[i];
		}
		free(in->comms);
		in->comms = n;
		in->comm_cap = cap;
	}
	i = (size_t)(unsigned)pid & (in->comm_cap - 1);
	for (s = &in->comms[i]; s->cell; s = &in->comms[i = (i + 1) & (in->comm_cap - 1)])
		if (s->pid == pid)
			goto found;
	s->cell = make_cell(tep_is_pid_registered(tep, pid) ? tep_data_comm_from_pid(tep, pid) : "",
			    &s->len);
	if (!s->cell)
		return NULL;
	s->pid = pid;
	in->ncomms++;
found:
	*len = s->len;
	return s->cell;
}

static int csv_put(struct tdat_writer *w, const struct tdat_event *ev)
{
	struct csv *c = w->priv;
	struct csv_input *in = &c->in[ev->input];
	struct tdat_sink *sk = &w->sink;
	const struct csv_type *t = type_of(c, ev);
	const char *cell;
	size_t len;
	uint64_t v;
	int pid = -1;

	if (!t)
		return TDAT_ENOMEM;
	if (tfield_num(ev, &t->tt->pid, &v))
		pid = (int)(int64_t)v;
	put_u64(sk, ev->ts);
	sink_putc(sk, ',');
	put_i64(sk, ev->cpu);
	sink_putc(sk, ',');
	put_i64(sk, ev->input);
	sink_putc(sk, ',');
	cell = in->buffer_cells[ev->buffer];
	sink_write(sk, cell, strlen(cell));
	sink_putc(sk, ',');
	put_i64(sk, pid);
	sink_putc(sk, ',');
	if (!(cell = comm_cell(in, ev, pid, &len)))
		return TDAT_ENOMEM;
	sink_write(sk, cell, len);
	sink_write(sk, t->head, t->head_len);
	put_i64(sk, ev->missed);
	sink_putc(sk, ',');
	put_fields(sk, ev, t);
	sink_putc(sk, '\n');
	return 0;
}

static int csv_open(struct tdat_writer *w)
{
	struct csv *c = calloc(1, sizeof(*c));
	size_t len;

	if (!c)
		return TDAT_ENOMEM;
	w->priv = c;
	if (w->flags & TDAT_W_SPLIT) {
		tdat_msg(w->errmsg, "--split-by-event is not supported yet");
		return TDAT_EUNSUPP;
	}
	c->ninputs = tdat_merge_nfiles(w->merge);
	c->in = calloc((size_t)(c->ninputs ? c->ninputs : 1), sizeof(*c->in));
	if (!c->in)
		return TDAT_ENOMEM;
	for (int i = 0; i < c->ninputs; i++) {
		struct tdat_file *f = tdat_merge_file(w->merge, i);
		struct csv_input *in = &c->in[i];

		in->types = calloc(TDAT_MAX_TYPES, sizeof(*in->types));
		in->buffer_cells = calloc((size_t)(f->nbuffers ? f->nbuffers : 1), sizeof(char *));
		if (!in->types || !in->buffer_cells)
			return TDAT_ENOMEM;
		for (int b = 0; b < f->nbuffers; b++)
			if (!(in->buffer_cells[b] = make_cell(f->buffers[b].info.name, &len)))
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

		for (size_t k = 0; in->types && k < TDAT_MAX_TYPES; k++)
			free_type(in->types[k]);
		for (int b = 0; in->buffer_cells && b < f->nbuffers; b++)
			free(in->buffer_cells[b]);
		for (size_t k = 0; k < in->comm_cap; k++)
			free(in->comms[k].cell);
		free(in->types);
		free(in->buffer_cells);
		free(in->comms);
	}
	free(c->in);
	free(c);
	w->priv = NULL;
}

const struct tdat_writer_ops tdat_writer_csv_ops = {
	.name = "csv",
	.exts = ".csv",
	.open = csv_open,
	.put = csv_put,
	.free = csv_free,
};
