/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * csvfmt.h - the cells the CSV writers share (csvfmt.c): escaped and
 * quoted text, numbers, arrays, and the comm cells of an input.
 */
#ifndef TDAT_WRITE_CSVFMT_H
#define TDAT_WRITE_CSVFMT_H

#include <stddef.h>
#include <stdint.h>

#include "read/types.h"
#include "write/sink.h"

/* ---- csvfmt.c: cells shared by the CSV writers ---- */

/* What a double quote inside text becomes (csv_escape()). */
enum csv_quote {
	CSV_Q_RAW,		/* kept: the caller quotes the cell and doubles it */
	CSV_Q_BACKSLASH,	/* \" */
	CSV_Q_FIELDS,		/* \"" : inside the always-quoted fields cell */
	CSV_Q_DOUBLE,		/* "" : inside a quoted cell */
};

/* Up to @n bytes of @s (ending at a NUL), UTF-8 kept, \\, \xNN for the rest. */
void csv_escape(struct tdat_sink *sk, const char *s, size_t n, enum csv_quote q);
/* Text as one cell: escaped, quoted (quotes doubled) if it holds a comma or quote. */
void csv_text_cell(struct tdat_sink *sk, const char *s, size_t n);
/* A cell for @s, built once (escaped with @q, then quoted if needed); NULL without memory. */
char *csv_cell(const char *s, enum csv_quote q, size_t *len);
void csv_put_hex(struct tdat_sink *sk, uint64_t v);
/* A number of @kind: decimal, TK_INT signed, TK_PTR 0x hex. */
void csv_put_number(struct tdat_sink *sk, enum tkind kind, uint64_t v);
/* An array field's elements as [a,b,...] (valid CSV text and valid JSON). */
void csv_put_array(struct tdat_sink *sk, const struct tdat_file *f, const unsigned char *p,
		   unsigned len, const struct tfield *tf);
/* The same, each element written by @put (JSON's exact numbers: json.c). */
void csv_put_array_with(struct tdat_sink *sk, const struct tdat_file *f, const unsigned char *p,
			unsigned len, const struct tfield *tf,
			void (*put)(struct tdat_sink *, enum tkind, uint64_t));

static inline void csv_put_u64(struct tdat_sink *sk, uint64_t v)
{
	char *d;

	/* cpu, input, lost and many fields are one digit: skip the call */
	if (v < 10) {
		sink_putc(sk, (char)('0' + v));
		return;
	}
	d = sink_reserve(sk, 24);
	if (d)
		sink_commit(sk, fmt_u64(d, v));
}

static inline void csv_put_i64(struct tdat_sink *sk, int64_t v)
{
	if (v < 0) {
		sink_putc(sk, '-');
		csv_put_u64(sk, (uint64_t)0 - (uint64_t)v);
	} else {
		csv_put_u64(sk, (uint64_t)v);
	}
}

/* comm cells of one input, built once per pid (open addressing on pid). */
struct csv_comm {
	int pid;
	char *cell;		/* NULL: empty slot */
	size_t len;
};

struct csv_comms {
	struct csv_comm *slots;
	size_t n, cap;
};

/* The comm cell of @pid (escaped with @q); NULL without memory. */
const char *csv_comm_cell(struct csv_comms *c, struct tep_handle *tep, int pid,
			  enum csv_quote q, size_t *len);
void csv_comms_release(struct csv_comms *c);

#endif /* TDAT_WRITE_CSVFMT_H */
