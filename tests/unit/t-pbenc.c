/*
 * t-pbenc.c - unit tests of the protobuf wire encoder (libfmt/write/pbenc.c)
 * against bytes worked out by hand from the protobuf encoding rules:
 * varint sizes at every 7-bit boundary, negative int32/int64, tags of
 * large field numbers, doubles, strings, and nested messages whose
 * back-patched length needs one, two or three bytes (the body moves to
 * make room).
 */
#include <stdlib.h>
#include <string.h>

#include "write/sink.h"
#include "write/pbenc.h"
#include "../tap.h"

static void varint_sizes(void)
{
	unsigned char b[PB_VARINT_MAX];

	is_int(pb_varint_size(0), 1, "0 takes one byte");
	for (int bits = 1; bits <= 64; bits++) {
		uint64_t v = bits == 64 ? ~0ull : (1ull << bits) - 1;
		unsigned want = (unsigned)(bits + 6) / 7;

		if (pb_varint_size(v) != want || pb_enc_varint(b, v) != want ||
		    (b[want - 1] & 0x80)) {
			ok(0, "a %d-bit value takes %u bytes", bits, want);
			return;
		}
	}
	ok(1, "varints of 1 to 64 bits take (bits + 6) / 7 bytes, the last without 0x80");
}

static void fields(void)
{
	struct tdat_sink s = { .fd = -1 };
	static const unsigned char want[] = {
		0x08, 0x96, 0x01,				/* 1: 150 */
		0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,	/* 2: -1 */
		0xd0, 0x14, 0x00,				/* 330: 0 (tag 330 << 3 = 0xa50) */
		0x12, 0x02, 'h', 'i',				/* 2: "hi" */
		0x1a, 0x00,					/* 3: "" */
	};

	pb_varint(&s, 1, 150);
	pb_varint(&s, 2, (uint64_t)(int64_t)-1);
	pb_varint(&s, 330, 0);
	pb_bytes(&s, 2, "hi", 2);
	pb_bytes(&s, 3, "", 0);
	is_int(s.len, sizeof(want), "fields: length");
	is_mem(s.buf, want, sizeof(want), "fields: bytes as the spec gives them");
	free(s.buf);
}

/* A nested message of @n body bytes: tag, varint length, body, then a field after it. */
static void nested(size_t n)
{
	struct tdat_sink s = { .fd = -1 };
	unsigned char *want = malloc(n + 16), *p = want;
	size_t mark, outer;

	outer = pb_begin(&s, 4);
	mark = pb_begin(&s, 2);
	for (size_t i = 0; i < n; i++)
		sink_putc(&s, (char)(i * 7));
	pb_end(&s, mark);
	pb_end(&s, outer);
	pb_varint(&s, 1, 5);

	*p++ = 0x22;
	p += pb_enc_varint(p, n + 1 + pb_varint_size(n));
	*p++ = 0x12;
	p += pb_enc_varint(p, n);
	for (size_t i = 0; i < n; i++)
		*p++ = (unsigned char)(i * 7);
	*p++ = 0x08;
	*p++ = 0x05;
	is_int(s.len, p - want, "nested %zu bytes: length", n);
	is_mem(s.buf, want, (size_t)(p - want), "nested %zu bytes: back-patched lengths", n);
	free(want);
	free(s.buf);
}

static void head(void)
{
	struct tdat_sink s = { .fd = -1 };
	static const unsigned char want[] = { 0x0a, 0x80, 0x01 };

	pb_head(&s, 1, 128);
	is_mem(s.buf, want, sizeof(want), "a known length is written up front");
	free(s.buf);
}

static void dbl(void)
{
	struct tdat_sink s = { .fd = -1 };
	/* 6: 1.5 (0x3ff8000000000000), little-endian after the key 6 << 3 | 1 */
	static const unsigned char want[] = { 0x31, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f };

	pb_double(&s, 6, 1.5);
	is_int(s.len, sizeof(want), "double: key and 8 bytes");
	is_mem(s.buf, want, sizeof(want), "double: IEEE 754 bits, little-endian");
	free(s.buf);
}

/* A string field holds UTF-8: valid text as it is, each byte starting no valid sequence U+FFFD. */
static void text(void)
{
	struct tdat_sink s = { .fd = -1 };
	static const char valid[] = "h\xc3\xa9llo \xe2\x9c\x93";
	static const unsigned char want[] = { 0x12, 15, 'a', 0xef, 0xbf, 0xbd, 0xef, 0xbf, 0xbd,
					      ' ', 0xef, 0xbf, 0xbd, 0xef, 0xbf, 0xbd, 'z' };

	pb_text(&s, 2, valid, strlen(valid));
	is_int(s.len, 2 + strlen(valid), "valid UTF-8: key, length and the bytes");
	is_mem(s.buf + 2, valid, strlen(valid), "valid UTF-8 as it is");
	s.len = 0;
	/* 0xff, a lone continuation byte, a cut 3-byte sequence (two bytes) */
	pb_text(&s, 2, "a\xff\x80 \xe2\x82z", 7);
	is_int(s.len, sizeof(want), "invalid bytes: the length counts U+FFFD");
	is_mem(s.buf, want, sizeof(want), "invalid bytes: one U+FFFD each");
	free(s.buf);
}

int main(void)
{
	text();
	dbl();
	varint_sizes();
	fields();
	nested(0);
	nested(5);
	nested(127);
	nested(128);
	nested(300);
	nested(20000);
	head();
	return done_testing();
}
