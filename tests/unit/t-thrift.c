/*
 * t-thrift.c - unit tests of the Thrift compact-protocol encoder
 * (libfmt/write/thrift.c) that writes the Parquet footer and page headers,
 * against bytes worked out by hand from the compact-protocol spec:
 *
 *   field header: (id - previous id) << 4 | type when the delta is 1..15,
 *                 else the type byte, then the id as a zigzag varint;
 *   types: true 1, false 2, byte 3, i16 4, i32 5, i64 6, binary 8,
 *          list 9, struct 12;
 *   i32/i64: zigzag (n << 1 ^ n >> 63) as a varint (7 bits a byte, low first);
 *   binary: varint length, bytes;  byte: one raw byte;
 *   bool field: the value is the type (1 true, 2 false), no payload;
 *   list: (n << 4 | elem type) for n < 15, else 0xf0 | type, varint n;
 *   struct: its fields, then a 0 byte; a nested struct counts its field
 *   ids from 0 again.
 *
 * And the levels a Parquet LIST column's DataPage v1 starts with
 * (libfmt/write/parquet-page.c), worked out from the Dremel levels of the
 * format's spec (README "Nested Encoding", LogicalTypes.md "Lists") for
 * "optional group (LIST) { repeated group list { required element } }":
 *
 *   repetition level 0 for a row's first entry, 1 for each further element;
 *   definition level 0 a null list, 1 an empty list, 2 an element;
 *   each as a 4-byte little-endian length, then the RLE/bit-packed hybrid
 *   (Encodings.md) of bit width 1 (repetition) or 2 (definition): a run of
 *   8 or more equal values is (count << 1) and the value in one byte,
 *   others (groups << 1 | 1) and groups of 8 values packed from the least
 *   significant bit, the last group padded with 0s.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "write/parquet.h"
#include "write/thrift.h"
#include "../tap.h"

static void encode(struct tdat_sink *s)
{
	struct thrift t;

	th_init(&t, s);
	th_i32(&t, 1, 1);
	th_list(&t, 2, TH_STRUCT, 1);
	th_elem_struct(&t);
	th_string(&t, 4, "ts");
	th_i32(&t, 1, 2);
	th_end(&t);
	th_i64(&t, 3, -1);
	th_i64(&t, 20, 300);
	th_bool(&t, 21, true);
	th_bool(&t, 22, false);
	th_list(&t, 23, TH_BINARY, 15);
	for (int i = 0; i < 15; i++)
		th_elem_binary(&t, "a", 1);
	th_struct(&t, 24);
	th_i8(&t, 1, 64);
	th_bool(&t, 2, true);
	th_end(&t);
	th_i32(&t, 25, -3);
	th_i32(&t, 26, INT32_MIN);
	th_list(&t, 27, TH_I32, 2);
	th_elem_i32(&t, 0);
	th_elem_i32(&t, 8);
	th_end(&t);
}

static void bytes(void)
{
	struct tdat_sink s = { .fd = -1 };
	unsigned char want[128], *p = want;
	static const unsigned char head[] = {
		0x15, 0x02,		/* 1: i32 1 (delta 1, type 5; zigzag 1 = 2) */
		0x19, 0x1c,		/* 2: list (delta 1, type 9) of 1 struct (1 << 4 | 12) */
		0x48, 0x02, 't', 's',	/*   4: binary "ts" (delta 4 from 0, type 8; length 2) */
		0x05, 0x02, 0x04,	/*   1: i32 2 (delta -3: type byte 5, id zigzag 1 = 2; 2 -> 4) */
		0x00,			/*   end of the element */
		0x16, 0x01,		/* 3: i64 -1 (delta 1, type 6; zigzag -1 = 1) */
		0x06, 0x28, 0xd8, 0x04,	/* 20: i64 300 (delta 17: type byte, id 20 -> 40 = 0x28;
					 * 300 -> 600 = 0x258: 0x58 | 0x80, 0x04) */
		0x11,			/* 21: true (delta 1, type 1) */
		0x12,			/* 22: false (delta 1, type 2) */
		0x19, 0xf8, 0x0f,	/* 23: list (delta 1, type 9) of 15 binary: 0xf0 | 8, varint 15 */
	};
	static const unsigned char tail[] = {
		0x1c,			/* 24: struct (delta 1, type 12) */
		0x13, 0x40,		/*   1: byte 64 (delta 1, type 3; one raw byte) */
		0x11,			/*   2: true (delta 1, type 1) */
		0x00,			/*   end of the struct */
		0x15, 0x05,		/* 25: i32 -3 (zigzag 5) */
		0x15, 0xff, 0xff, 0xff, 0xff, 0x0f,	/* 26: i32 -2^31 (zigzag 2^32 - 1) */
		0x19, 0x25, 0x00, 0x10,	/* 27: list of 2 i32 (2 << 4 | 5): 0, 8 (zigzag 16) */
		0x00,			/* end of the top struct */
	};

	memcpy(p, head, sizeof(head));
	p += sizeof(head);
	for (int i = 0; i < 15; i++) {	/* each element: varint length 1, 'a' */
		*p++ = 0x01;
		*p++ = 'a';
	}
	memcpy(p, tail, sizeof(tail));
	p += sizeof(tail);

	encode(&s);
	is_int(s.len, p - want, "length as worked out by hand");
	is_mem(s.buf, want, (size_t)(p - want), "bytes as the compact protocol gives them");
	free(s.buf);
}

static void zigzag(void)
{
	is_int(th_zigzag(0), 0, "zigzag 0 = 0");
	is_int(th_zigzag(-1), 1, "zigzag -1 = 1");
	is_int(th_zigzag(1), 2, "zigzag 1 = 2");
	ok(th_zigzag(INT64_MIN) == UINT64_MAX, "zigzag -2^63 = 2^64 - 1");
	ok(th_zigzag(INT64_MAX) == UINT64_MAX - 1, "zigzag 2^63 - 1 = 2^64 - 2");
}

static void levels_are(struct pq_ctx *c, const uint32_t *lens, size_t n, size_t nl,
		       const unsigned char *want, size_t len, const char *what)
{
	struct tdat_sink s = { .fd = -1 };

	is_int(pq_list_levels(c, &s, lens, n), nl, "%s: %zu levels", what, nl);
	is_int(s.len, len, "%s: %zu bytes", what, len);
	if (s.len == len)
		is_mem(s.buf, want, len, "%s: bytes as worked out by hand", what);
	else
		ok(0, "%s: bytes as worked out by hand", what);
	free(s.buf);
}

static void levels(void)
{
	struct pq_ctx c;
	/* [1, 2, 3], null, [], [7] */
	static const uint32_t l1[] = { 3, PQ_NULL_LIST, 0, 1 };
	static const unsigned char w1[] = {
		0x02, 0, 0, 0,		/* repetition: 2 bytes */
		0x03, 0x06,		/*   1 group: 0 1 1 0 0 0 (+ 0 0) = 0b00000110 */
		0x03, 0, 0, 0,		/* definition: 3 bytes */
		0x03, 0x2a, 0x09,	/*   1 group: 2 2 2 0 | 1 2 (+ 0 0) = 0b00101010, 0b00001001 */
	};
	/* three rows of 6 (as raw_syscalls:sys_enter's args) */
	static const uint32_t l2[] = { 6, 6, 6 };
	static const unsigned char w2[] = {
		0x04, 0, 0, 0,		/* repetition: 0 1 1 1 1 1 0 1 | 1 1 1 1 0 1 1 1 | 1 1 (+ 0 x 6) */
		0x07, 0xbe, 0xef, 0x03,	/*   3 groups */
		0x02, 0, 0, 0,		/* definition: */
		0x24, 0x02,		/*   a run of 18 (36) 2s */
	};
	/* one row of 20 */
	static const uint32_t l3[] = { 20 };
	static const unsigned char w3[] = {
		0x04, 0, 0, 0,		/* repetition: */
		0x03, 0xfe,		/*   1 group: 0 1 1 1 1 1 1 1 */
		0x18, 0x01,		/*   a run of 12 (24) 1s */
		0x02, 0, 0, 0,		/* definition: */
		0x28, 0x02,		/*   a run of 20 (40) 2s */
	};

	if (pq_ctx_init(&c, 3, NULL))
		bail_out("pq_ctx_init: out of memory");
	levels_are(&c, l1, 4, 6, w1, sizeof(w1), "a list, a null, an empty list, a list of one");
	levels_are(&c, l2, 3, 18, w2, sizeof(w2), "three lists of 6");
	levels_are(&c, l3, 1, 20, w3, sizeof(w3), "a list of 20");
	pq_ctx_release(&c);
}

int main(void)
{
	plan(16);
	bytes();
	zigzag();
	levels();
	return exit_status();
}
