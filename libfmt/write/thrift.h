/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * thrift.h - a Thrift compact-protocol encoder, just what a Parquet footer
 * and page headers need: structs of i32/i64/bool/binary fields, lists of
 * i32, binary or structs, nested structs (parquet.c, parquet-enc.c).
 *
 * Usage: th_init(); fields with th_i32(t, id, v) ...; a nested struct with
 * th_struct(t, id) ... th_end(t); a list with th_list(t, id, type, n) and
 * then n elements (th_elem_* or th_elem_struct() ... th_end()); th_end()
 * of the outermost struct writes its stop byte too.
 */
#ifndef TDAT_THRIFT_H
#define TDAT_THRIFT_H

#include "write/sink.h"

/* Compact-protocol type codes (in field headers and list headers). */
enum th_type {
	TH_TRUE = 1, TH_FALSE = 2, TH_BYTE = 3, TH_I16 = 4, TH_I32 = 5, TH_I64 = 6,
	TH_DOUBLE = 7, TH_BINARY = 8, TH_LIST = 9, TH_SET = 10, TH_MAP = 11, TH_STRUCT = 12,
};

#define TH_DEPTH 16

struct thrift {
	struct tdat_sink *s;
	int16_t last[TH_DEPTH];	/* last field id of each open struct */
	int depth;
};

/* Start encoding the fields of a top-level struct into @s. */
void th_init(struct thrift *t, struct tdat_sink *s);
void th_i32(struct thrift *t, int id, int32_t v);
void th_i64(struct thrift *t, int id, int64_t v);
void th_i8(struct thrift *t, int id, int8_t v);
void th_bool(struct thrift *t, int id, bool v);
void th_binary(struct thrift *t, int id, const void *p, size_t n);
static inline void th_string(struct thrift *t, int id, const char *str)
{
	th_binary(t, id, str, strlen(str));
}
/* A struct field: its fields follow, then th_end(). */
void th_struct(struct thrift *t, int id);
/* A list field of @n elements of type @elem. */
void th_list(struct thrift *t, int id, enum th_type elem, size_t n);
void th_elem_i32(struct thrift *t, int32_t v);
void th_elem_binary(struct thrift *t, const void *p, size_t n);
/* A struct element of a list: its fields, then th_end(). */
void th_elem_struct(struct thrift *t);
/* End the innermost struct (its stop byte). */
void th_end(struct thrift *t);

/* Zigzag varints as the compact protocol writes i16/i32/i64. */
void th_varint(struct tdat_sink *s, uint64_t v);
static inline uint64_t th_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

#endif /* TDAT_THRIFT_H */
