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

#define MAX_TYPES 65536	/* common_type is 16 bits */

struct csv_field {
	char *label;		/* "name=" */
	unsigned label_len;
	unsigned offset, size, elem;
	unsigned long flags;
};

struct csv_type {
	int pid_off, pid_size;	/* common_pid; size 0 if absent */
	char *head;		/* ",system,event," as cells */
	size_t head_len;
	int nfields;
	struct csv_field fields[];
};

struct comm_slot {
	int pid;
	char *cell;		/* NULL: empty slot */
	size_t len;
};

struct csv_input {
	struct csv_type **types;	/* MAX_TYPES entries, filled lazily */
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

static inline uint64_t rd(const struct tdat_file *f, const unsigned char *p, unsigned size)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	if (f->info.big_endian)
		return file_num(f, p, (int)size);
	switch (size) {
	case 1: return p[0];
	case 2: memcpy(&v16, p, 2); return v16;
	case 4: memcpy(&v32, p, 4); return v32;
	default: memcpy(&v64, p, 8); return v64;
	}
}

/* ---- per-type tables ---- */

static void free_type(struct csv_type *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nfields; i++)
		free(t->fields[i].label);
	free(t->head);
	free(t);
}

static struct csv_type *compile(struct tep_event *e)
{
	struct tep_format_field *fl;
	struct csv_type *t;
	char *sys, *name;
	size_t ls, ln;
	int n = 0;

	for (fl = e ? e->format.fields : NULL; fl; fl = fl->next)
		n++;
	t = calloc(1, sizeof(*t) + sizeof(t->fields[0]) * (size_t)n);
	if (!t)
		return NULL;
	sys = make_cell(e ? e->system : "", &ls);
	name = make_cell(e ? e->name : "", &ln);
	if (sys && name && asprintf(&t->head, ",%s,%s,", sys, name) > 0)
		t->head_len = ls + ln + 3;
	free(sys);
	free(name);
	for (fl = e ? e->format.common_fields : NULL; fl; fl = fl->next) {
		if (!strcmp(fl->name, "common_pid") && (fl->size == 4 || fl->size == 2)) {
			t->pid_off = fl->offset;
			t->pid_size = fl->size;
		}
	}
	for (fl = e ? e->format.fields : NULL; fl; fl = fl->next) {
		struct csv_field *cf = &t->fields[t->nfields];

		if (!strncmp(fl->name, "common_", 7))
			continue;
		if (asprintf(&cf->label, "%s%s=", t->nfields ? " " : "", fl->name) < 0)
			break;
		cf->label_len = (unsigned)strlen(cf->label);
		cf->offset = (unsigned)fl->offset;
		cf->size = (unsigned)fl->size;
		cf->elem = fl->elementsize > 0 ? (unsigned)fl->elementsize : 1;
		cf->flags = fl->flags;
		t->nfields++;
	}
	if (!t->head) {
		free_type(t);
		return NULL;
	}
	return t;
}

static struct csv_type *type_of(struct csv *c, const struct tdat_event *ev)
{
	struct csv_type **tab = c->in[ev->input].types;
	unsigned id;

	if (ev->size < 2)
		return NULL;
	id = (unsigned)rd(ev->file, ev->data, 2);
	if (!tab[id])
		tab[id] = compile(tep_find_event(ev->file->tep, (int)id));
	return tab[id];
}

/* ---- the fields cell ---- */

static void put_number(struct tdat_sink *sk, const struct tdat_file *f, const unsigned char *p,
		       unsigned size, unsigned long flags)
{
	uint64_t v = rd(f, p, size);

	if (flags & TEP_FIELD_IS_POINTER)
		put_hex(sk, v);
	else if ((flags & TEP_FIELD_IS_SIGNED) && size < 8)
		put_i64(sk, (int64_t)(v << (64 - 8 * size)) >> (64 - 8 * size));
	else if (flags & TEP_FIELD_IS_SIGNED)
		put_i64(sk, (int64_t)v);
	else
		put_u64(sk, v);
}

static void put_array(struct tdat_sink *sk, const struct tdat_file *f, const unsigned char *p,
		      unsigned len, unsigned elem, unsigned long flags)
{
	if (elem != 1 && elem != 2 && elem != 4 && elem != 8)
		elem = 1;
	sink_putc(sk, '[');
	for (unsigned i = 0; i + elem <= len; i += elem) {
		if (i)
			sink_putc(sk, ',');
		put_number(sk, f, p + i, elem, flags & ~(unsigned long)TEP_FIELD_IS_POINTER);
	}
	sink_putc(sk, ']');
}

/* One field's value; false if the field lies outside the event. */
static bool put_field(struct tdat_sink *sk, const struct tdat_event *ev, const struct csv_field *f)
{
	const unsigned char *d = ev->data;
	unsigned off = f->offset, len = f->size;

	if (off + len > ev->size)
		return false;
	if (!len && (f->flags & TEP_FIELD_IS_ARRAY))
		len = ev->size - off;	/* a flexible array: the rest of the event */
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t v = (uint32_t)rd(ev->file, d + off, 4);

		off = (v & 0xffff) + ((f->flags & TEP_FIELD_IS_RELATIVE) ? f->offset + f->size : 0);
		len = v >> 16;
		if (off + len > ev->size)
			return false;
	}
	if (f->flags & TEP_FIELD_IS_STRING) {
		sink_write(sk, "\"\"", 2);
		put_escaped(sk, (const char *)d + off, len, true);
		sink_write(sk, "\"\"", 2);
	} else if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		put_array(sk, ev->file, d + off, len, f->elem, f->flags);
	} else if (len == 1 || len == 2 || len == 4 || len == 8) {
		put_number(sk, ev->file, d + off, len, f->flags);
	} else {
		put_array(sk, ev->file, d + off, len, 1, 0);
	}
	return true;
}

static void put_fields(struct tdat_sink *sk, const struct tdat_event *ev, const struct csv_type *t)
{
	sink_putc(sk, '"');
	for (int i = 0; t && i < t->nfields; i++) {
		const struct csv_field *f = &t->fields[i];

		sink_write(sk, f->label, f->label_len);
		if (!put_field(sk, ev, f))
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
	int pid = -1;

	if (!t)
		return TDAT_ENOMEM;
	if (t->pid_size && (unsigned)(t->pid_off + t->pid_size) <= ev->size)
		pid = (int)(int32_t)rd(ev->file, (const unsigned char *)ev->data + t->pid_off,
				       (unsigned)t->pid_size);
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
	c->ninputs = tdat_merge_nfiles(w->merge);
	c->in = calloc((size_t)(c->ninputs ? c->ninputs : 1), sizeof(*c->in));
	if (!c->in)
		return TDAT_ENOMEM;
	for (int i = 0; i < c->ninputs; i++) {
		struct tdat_file *f = tdat_merge_file(w->merge, i);
		struct csv_input *in = &c->in[i];

		in->types = calloc(MAX_TYPES, sizeof(*in->types));
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

		for (size_t k = 0; in->types && k < MAX_TYPES; k++)
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
