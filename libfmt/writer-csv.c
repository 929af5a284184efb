/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * writer-csv.c - the "csv" format: RFC 4180, one header line, one row per
 * event:
 *
 *   ts,cpu,input,buffer,pid,comm,system,event,lost,fields
 *
 * ts is integer nanoseconds (or raw clock units), lost the events lost just
 * before this one (-1: an unknown number), fields the event's own fields as
 * space-separated name=value pairs; strings are in double quotes there.
 * Text is kept valid UTF-8: a backslash is written as \\, and control
 * characters and bytes that are not UTF-8 as \xNN.  Cells holding a comma,
 * quote or line break are quoted, with quotes doubled.
 *
 * Field values are formatted here from a per-type table of field
 * positions (not through libtraceevent's printf path): this is the fast
 * path of the toolkit.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "internal.h"

#define MAX_TYPES 65536	/* common_type is 16 bits */

struct csv_field {
	const char *name;
	unsigned offset, size, elem;
	unsigned long flags;
};

struct csv_type {
	struct tep_event *event;	/* NULL: unknown type */
	int nfields;
	struct csv_field fields[];
};

struct csv {
	struct csv_type **types;	/* per input: MAX_TYPES entries, lazily */
	int ninputs;
	struct tdat_sink cell;		/* the fields cell, built in memory */
	char *tmp;			/* escape buffer */
	size_t tmp_cap;
	struct tep_record rec;
};

/* ---- text escaping ---- */

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

static int tmp_room(struct csv *c, size_t n)
{
	char *p;

	if (n <= c->tmp_cap)
		return 0;
	p = realloc(c->tmp, n * 2);
	if (!p)
		return TDAT_ENOMEM;
	c->tmp = p;
	c->tmp_cap = n * 2;
	return 0;
}

/*
 * Escape @n bytes of @s (stopping at a NUL) into c->tmp; @quote_dq also
 * escapes double quotes as \" (strings inside the fields cell).
 * Return the escaped length, or (size_t)-1 without memory.
 */
static size_t escape(struct csv *c, const char *s, size_t n, bool quote_dq)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, i = 0, l;

	if (tmp_room(c, n * 4 + 1))
		return (size_t)-1;
	while (i < n && p[i]) {
		unsigned ch = p[i];

		if (ch == '\\' || (quote_dq && ch == '"')) {
			c->tmp[o++] = '\\';
			c->tmp[o++] = (char)ch;
			i++;
		} else if (ch >= 0x20 && ch != 0x7f && (l = utf8_len(p + i, n - i))) {
			memcpy(c->tmp + o, p + i, l);
			o += l;
			i += l;
		} else {
			c->tmp[o++] = '\\';
			c->tmp[o++] = 'x';
			c->tmp[o++] = hex[ch >> 4];
			c->tmp[o++] = hex[ch & 15];
			i++;
		}
	}
	return o;
}

/* Write one CSV cell, quoted when it holds a comma, quote or line break. */
static void cell(struct tdat_sink *sk, const char *s, size_t n)
{
	char *d;

	if (!memchr(s, '"', n) && !memchr(s, ',', n) && !memchr(s, '\n', n) && !memchr(s, '\r', n)) {
		sink_write(sk, s, n);
		return;
	}
	d = sink_reserve(sk, 2 * n + 2);
	if (!d)
		return;
	*d++ = '"';
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			*d++ = '"';
		*d++ = s[i];
	}
	*d++ = '"';
	sk->len = (size_t)(d - sk->buf);
}

/* ---- numbers ---- */

static char *u64_str(char *end, uint64_t v)
{
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

static void put_u64(struct tdat_sink *sk, uint64_t v)
{
	char b[24], *p = u64_str(b + sizeof(b), v);

	sink_write(sk, p, (size_t)(b + sizeof(b) - p));
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

/* ---- per-type field tables ---- */

static struct csv_type *compile(struct tep_event *e)
{
	struct tep_format_field *fl;
	struct csv_type *t;
	int n = 0;

	for (fl = e ? e->format.fields : NULL; fl; fl = fl->next)
		n++;
	t = calloc(1, sizeof(*t) + sizeof(t->fields[0]) * (size_t)n);
	if (!t)
		return NULL;
	t->event = e;
	for (fl = e ? e->format.fields : NULL; fl; fl = fl->next) {
		struct csv_field *cf = &t->fields[t->nfields++];

		cf->name = fl->name;
		cf->offset = (unsigned)fl->offset;
		cf->size = (unsigned)fl->size;
		cf->elem = fl->elementsize > 0 ? (unsigned)fl->elementsize : 1;
		cf->flags = fl->flags;
	}
	return t;
}

static struct csv_type *type_of(struct tdat_writer *w, const struct tdat_event *ev)
{
	struct csv *c = w->priv;
	struct csv_type **tab;
	unsigned id;

	if (ev->size < 2)
		return NULL;
	id = (unsigned)file_num(ev->file, ev->data, 2);
	tab = &c->types[(size_t)ev->input * MAX_TYPES];
	if (!tab[id])
		tab[id] = compile(tep_find_event(ev->file->tep, (int)id));
	return tab[id];
}

#define CELL(w) (&((struct csv *)(w)->priv)->cell)

static void put_string(struct tdat_writer *w, const char *s, size_t n)
{
	size_t len = escape(w->priv, s, n, true);

	sink_putc(CELL(w), '"');
	if (len != (size_t)-1)
		sink_write(CELL(w), ((struct csv *)w->priv)->tmp, len);
	sink_putc(CELL(w), '"');
}

static void put_number(struct tdat_writer *w, const struct tdat_event *ev, const unsigned char *p,
		       unsigned size, unsigned long flags)
{
	uint64_t v = file_num(ev->file, p, (int)size);

	if (flags & TEP_FIELD_IS_POINTER)
		put_hex(CELL(w), v);
	else if ((flags & TEP_FIELD_IS_SIGNED) && size < 8)
		put_i64(CELL(w), (int64_t)(v << (64 - 8 * size)) >> (64 - 8 * size));
	else if (flags & TEP_FIELD_IS_SIGNED)
		put_i64(CELL(w), (int64_t)v);
	else
		put_u64(CELL(w), v);
}

static void put_array(struct tdat_writer *w, const struct tdat_event *ev, const unsigned char *p,
		      unsigned len, unsigned elem, unsigned long flags)
{
	if (elem != 1 && elem != 2 && elem != 4 && elem != 8)
		elem = 1;
	sink_putc(CELL(w), '[');
	for (unsigned i = 0; i + elem <= len; i += elem) {
		if (i)
			sink_putc(CELL(w), ',');
		put_number(w, ev, p + i, elem, flags & ~(unsigned long)TEP_FIELD_IS_POINTER);
	}
	sink_putc(CELL(w), ']');
}

/* One field's value; returns false if the field lies outside the event. */
static bool put_field(struct tdat_writer *w, const struct tdat_event *ev, const struct csv_field *f)
{
	const unsigned char *d = ev->data;
	unsigned off = f->offset, len = f->size;

	if (off + len > ev->size)
		return false;
	if (!len && (f->flags & TEP_FIELD_IS_ARRAY))
		len = ev->size - off;	/* a flexible array: the rest of the event */
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t v = (uint32_t)file_num(ev->file, d + off, 4);

		off = (v & 0xffff) + ((f->flags & TEP_FIELD_IS_RELATIVE) ? f->offset + f->size : 0);
		len = v >> 16;
		if (off + len > ev->size)
			return false;
	}
	if (f->flags & TEP_FIELD_IS_STRING)
		put_string(w, (const char *)d + off, len);
	else if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))
		put_array(w, ev, d + off, len, f->elem, f->flags);
	else if (len == 1 || len == 2 || len == 4 || len == 8)
		put_number(w, ev, d + off, len, f->flags);
	else
		put_array(w, ev, d + off, len, 1, 0);
	return true;
}

/* The fields cell: built in memory, then written as one (maybe quoted) cell. */
static void put_fields(struct tdat_writer *w, const struct tdat_event *ev, const struct csv_type *t)
{
	struct tdat_sink *sk = CELL(w);
	bool first = true;

	sk->len = 0;
	for (int i = 0; t && i < t->nfields; i++) {
		const struct csv_field *f = &t->fields[i];

		if (!strncmp(f->name, "common_", 7))
			continue;
		if (!first)
			sink_putc(sk, ' ');
		first = false;
		sink_write(sk, f->name, strlen(f->name));
		sink_putc(sk, '=');
		if (!put_field(w, ev, f))
			sink_write(sk, "?", 1);
	}
	cell(&w->sink, sk->buf, sk->len);
}

static void put_text(struct tdat_writer *w, const char *s)
{
	size_t n = escape(w->priv, s, strlen(s), false);

	if (n != (size_t)-1)
		cell(&w->sink, ((struct csv *)w->priv)->tmp, n);
}

static int csv_put(struct tdat_writer *w, const struct tdat_event *ev)
{
	struct tdat_sink *sk = &w->sink;
	const struct csv_type *t = type_of(w, ev);
	struct tep_event *e = t ? t->event : NULL;
	int pid = tdat_event_pid(ev);
	const char *comm = pid >= 0 && tep_is_pid_registered(ev->file->tep, pid) ?
			   tep_data_comm_from_pid(ev->file->tep, pid) : "";
	const char *buffer = ev->file->buffers[ev->buffer].info.name;

	put_u64(sk, ev->ts);
	sink_putc(sk, ',');
	put_i64(sk, ev->cpu);
	sink_putc(sk, ',');
	put_i64(sk, ev->input);
	sink_putc(sk, ',');
	put_text(w, buffer);
	sink_putc(sk, ',');
	put_i64(sk, pid);
	sink_putc(sk, ',');
	put_text(w, comm);
	sink_putc(sk, ',');
	put_text(w, e ? e->system : "");
	sink_putc(sk, ',');
	put_text(w, e ? e->name : "");
	sink_putc(sk, ',');
	put_i64(sk, ev->missed);
	sink_putc(sk, ',');
	put_fields(w, ev, t);
	sink_putc(sk, '\n');
	return 0;
}

static int csv_open(struct tdat_writer *w)
{
	struct csv *c = calloc(1, sizeof(*c));

	if (!c)
		return TDAT_ENOMEM;
	w->priv = c;
	if (sink_init(&c->cell, -1))
		return TDAT_ENOMEM;
	c->ninputs = tdat_merge_nfiles(w->merge);
	c->types = calloc((size_t)(c->ninputs ? c->ninputs : 1) * MAX_TYPES, sizeof(*c->types));
	if (!c->types)
		return TDAT_ENOMEM;
	sink_printf(&w->sink, "ts,cpu,input,buffer,pid,comm,system,event,lost,fields\n");
	return 0;
}

static void csv_free(struct tdat_writer *w)
{
	struct csv *c = w->priv;

	if (!c)
		return;
	for (size_t i = 0; c->types && i < (size_t)c->ninputs * MAX_TYPES; i++)
		free(c->types[i]);
	free(c->types);
	free(c->tmp);
	sink_release(&c->cell);
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
