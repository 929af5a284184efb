/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * csvfmt.c - the cell formatting the CSV writers share: text escaped so it
 * stays valid UTF-8 (a backslash as \\, control characters and bytes that
 * are not UTF-8 as \xNN; what a double quote becomes is the caller's
 * choice), RFC 4180 quoting, numbers, pointers and arrays of a typed field,
 * and a per-pid cache of comm cells.  csv.c (one file) and
 * csvdir.c (one file per event type) write through these.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "read/read.h"
#include "write/csvfmt.h"

/* ---- text ---- */

static char *put_quote(char *o, enum csv_quote q)
{
	switch (q) {
	case CSV_Q_FIELDS:
		*o++ = '\\';
		*o++ = '"';
		*o++ = '"';
		break;
	case CSV_Q_BACKSLASH:
		*o++ = '\\';
		/* fall through */
	case CSV_Q_RAW:
		*o++ = '"';
		break;
	case CSV_Q_DOUBLE:
		*o++ = '"';
		*o++ = '"';
		break;
	}
	return o;
}

void csv_escape(struct tdat_sink *sk, const char *s, size_t n, enum csv_quote q)
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
		} else if (ch == '\\') {
			*o++ = '\\';
			*o++ = '\\';
			i++;
		} else if (ch == '"') {
			o = put_quote(o, q);
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

void csv_text_cell(struct tdat_sink *sk, const char *s, size_t n)
{
	const char *end = memchr(s, '\0', n);
	bool quote = false;

	if (end)
		n = (size_t)(end - s);
	/* control characters are escaped, so only these two need quoting */
	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"';
	if (!quote) {
		csv_escape(sk, s, n, CSV_Q_RAW);
		return;
	}
	sink_putc(sk, '"');
	csv_escape(sk, s, n, CSV_Q_DOUBLE);
	sink_putc(sk, '"');
}

char *csv_cell(const char *s, enum csv_quote q, size_t *len)
{
	struct tdat_sink esc, out;
	char *cell = NULL;

	if (sink_init(&esc, -1))
		return NULL;
	if (sink_init(&out, -1))
		goto out;
	csv_escape(&esc, s, strlen(s), q);
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
	if (!esc.err && !out.err)
		cell = strndup(out.buf, out.len);
	*len = out.len;
	sink_release(&out);
out:
	sink_release(&esc);
	return cell;
}

/* ---- numbers ---- */

void csv_put_hex(struct tdat_sink *sk, uint64_t v)
{
	char *d = sink_reserve(sk, 18);

	if (!d)
		return;
	d[0] = '0';
	d[1] = 'x';
	sink_commit(sk, 2 + fmt_hex64(d + 2, v));
}

void csv_put_number(struct tdat_sink *sk, enum tkind kind, uint64_t v)
{
	if (kind == TK_PTR)
		csv_put_hex(sk, v);
	else if (kind == TK_INT)
		csv_put_i64(sk, (int64_t)v);
	else
		csv_put_u64(sk, v);
}

void csv_put_array_with(struct tdat_sink *sk, const struct tdat_file *f, const unsigned char *p,
			unsigned len, const struct tfield *tf,
			void (*put)(struct tdat_sink *, enum tkind, uint64_t))
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
		put(sk, kind, v);
	}
	sink_putc(sk, ']');
}

void csv_put_array(struct tdat_sink *sk, const struct tdat_file *f, const unsigned char *p,
		   unsigned len, const struct tfield *tf)
{
	csv_put_array_with(sk, f, p, len, tf, csv_put_number);
}

/* ---- comm cells, built once per pid ---- */

static int comms_grow(struct csv_comms *c)
{
	size_t cap = c->cap ? c->cap * 2 : 1024;
	struct csv_comm *n = calloc(cap, sizeof(*n));

	if (!n)
		return TDAT_ENOMEM;
	for (size_t i = 0; i < c->cap; i++) {
		size_t j = (size_t)(unsigned)c->slots[i].pid & (cap - 1);

		if (!c->slots[i].cell)
			continue;
		while (n[j].cell)
			j = (j + 1) & (cap - 1);
		n[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = n;
	c->cap = cap;
	return 0;
}

const char *csv_comm_cell(struct csv_comms *c, struct tep_handle *tep, int pid,
			  enum csv_quote q, size_t *len)
{
	struct csv_comm *s;
	size_t i;

	if (c->n * 2 >= c->cap && comms_grow(c))
		return NULL;
	i = (size_t)(unsigned)pid & (c->cap - 1);
	for (s = &c->slots[i]; s->cell; s = &c->slots[i = (i + 1) & (c->cap - 1)])
		if (s->pid == pid)
			goto found;
	s->cell = csv_cell(tep_is_pid_registered(tep, pid) ? tep_data_comm_from_pid(tep, pid) : "",
			   q, &s->len);
	if (!s->cell)
		return NULL;
	s->pid = pid;
	c->n++;
found:
	*len = s->len;
	return s->cell;
}

void csv_comms_release(struct csv_comms *c)
{
	for (size_t i = 0; i < c->cap; i++)
		free(c->slots[i].cell);
	free(c->slots);
	c->slots = NULL;
	c->n = c->cap = 0;
}
