// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * thrift.c - the Thrift compact protocol, write side only (thrift.h).
 *
 * A field header is one byte (delta << 4 | type) when the field id is 1 to
 * 15 above the previous one of the same struct, else the type byte and the
 * id as a zigzag varint.  Integers are zigzag varints; binary is a varint
 * length and the bytes; a bool field carries its value in the type (1 true,
 * 2 false); a list header is (n << 4 | type) for n < 15, else 0xf0 | type
 * and a varint n; a struct ends with a 0 byte.
 */
#include <errno.h>

#include "write/thrift.h"
#include "write/pbenc.h"

void th_varint(struct tdat_sink *s, uint64_t v)
{
	unsigned char *d = (unsigned char *)sink_reserve(s, PB_VARINT_MAX);

	if (d)
		sink_commit(s, pb_enc_varint(d, v));
}

void th_init(struct thrift *t, struct tdat_sink *s)
{
	t->s = s;
	t->depth = 0;
	t->last[0] = 0;
}

static void field(struct thrift *t, int id, enum th_type type)
{
	int delta = id - t->last[t->depth];

	if (delta > 0 && delta <= 15) {
		sink_putc(t->s, (char)(delta << 4 | type));
	} else {
		sink_putc(t->s, (char)type);
		th_varint(t->s, th_zigzag((int16_t)id));
	}
	t->last[t->depth] = (int16_t)id;
}

void th_i32(struct thrift *t, int id, int32_t v)
{
	field(t, id, TH_I32);
	th_varint(t->s, th_zigzag(v));
}

void th_i64(struct thrift *t, int id, int64_t v)
{
	field(t, id, TH_I64);
	th_varint(t->s, th_zigzag(v));
}

void th_i8(struct thrift *t, int id, int8_t v)
{
	/* a byte is written as is, not as a varint */
	field(t, id, TH_BYTE);
	sink_putc(t->s, (char)v);
}

void th_bool(struct thrift *t, int id, bool v)
{
	field(t, id, v ? TH_TRUE : TH_FALSE);
}

void th_elem_binary(struct thrift *t, const void *p, size_t n)
{
	th_varint(t->s, n);
	sink_write(t->s, p, n);
}

void th_binary(struct thrift *t, int id, const void *p, size_t n)
{
	field(t, id, TH_BINARY);
	th_elem_binary(t, p, n);
}

void th_elem_struct(struct thrift *t)
{
	if (t->depth + 1 < TH_DEPTH)
		t->last[++t->depth] = 0;
	else
		t->s->err = EOVERFLOW;
}

void th_struct(struct thrift *t, int id)
{
	field(t, id, TH_STRUCT);
	th_elem_struct(t);
}

void th_end(struct thrift *t)
{
	sink_putc(t->s, 0);
	if (t->depth)
		t->depth--;
}

void th_list(struct thrift *t, int id, enum th_type elem, size_t n)
{
	field(t, id, TH_LIST);
	if (n < 15) {
		sink_putc(t->s, (char)(n << 4 | elem));
	} else {
		sink_putc(t->s, (char)(0xf0 | elem));
		th_varint(t->s, n);
	}
}

void th_elem_i32(struct thrift *t, int32_t v)
{
	th_varint(t->s, th_zigzag(v));
}
