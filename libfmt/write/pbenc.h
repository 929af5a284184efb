/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pbenc.h - protobuf wire encoding into a sink (pbenc.c and the inline
 * varint writers below), for the perfetto writer.
 */
#ifndef TDAT_WRITE_PBENC_H
#define TDAT_WRITE_PBENC_H

#include <stddef.h>
#include <stdint.h>

#include "write/sink.h"

/* ---- pbenc.c: protobuf wire encoding into a sink ---- */

enum pb_wire { PB_WT_VARINT = 0, PB_WT_I64 = 1, PB_WT_LEN = 2, PB_WT_I32 = 5 };

#define PB_VARINT_MAX 10

static inline unsigned pb_varint_size(uint64_t v)
{
	/* 7 bits a byte: (bits + 6) / 7, with 0 taking one byte */
	return ((unsigned)(64 - __builtin_clzll(v | 1)) * 9 + 64) / 64;
}

/* @v as a varint at @d (room for PB_VARINT_MAX); returns the bytes written. */
static inline unsigned pb_enc_varint(unsigned char *d, uint64_t v)
{
	unsigned n = 0;

	while (v >= 0x80) {
		d[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	d[n++] = (unsigned char)v;
	return n;
}

/* A key (field << 3 | wire type), then @v as a varint. */
static inline void pb_key_varint(struct tdat_sink *s, uint64_t key, uint64_t v)
{
	unsigned char *d = (unsigned char *)sink_reserve(s, 2 * PB_VARINT_MAX);
	unsigned n;

	if (!d)
		return;
	n = pb_enc_varint(d, key);
	n += pb_enc_varint(d + n, v);
	sink_commit(s, n);
}

/* A varint field (int32/int64 negatives as their 64-bit two's complement). */
static inline void pb_varint(struct tdat_sink *s, unsigned field, uint64_t v)
{
	pb_key_varint(s, (uint64_t)field << 3 | PB_WT_VARINT, v);
}

/* Tag and length of a length-delimited field whose @len bytes follow. */
void pb_head(struct tdat_sink *s, unsigned field, uint64_t len);
void pb_bytes(struct tdat_sink *s, unsigned field, const void *p, size_t n);
/*
 * A string field: protobuf strings are UTF-8, so each byte of @p that does
 * not start a valid UTF-8 sequence is written as U+FFFD, the rule of the
 * sqlite and json formats (text that is valid goes as it is).
 */
void pb_text(struct tdat_sink *s, unsigned field, const void *p, size_t n);
/* A double field (fixed 64 bits). */
void pb_double(struct tdat_sink *s, unsigned field, double v);
/* Open a nested message in a memory sink; returns the mark for pb_end(). */
size_t pb_begin(struct tdat_sink *s, unsigned field);
/* Close it: back-patch its length. */
void pb_end(struct tdat_sink *s, size_t mark);

#endif /* TDAT_WRITE_PBENC_H */
