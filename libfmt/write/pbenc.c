/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pbenc.c - a small protocol buffers wire encoder writing into a tdat_sink,
 * enough for the Perfetto writer (perfetto.c): varint and double
 * fields, length-delimited bytes and strings (valid UTF-8: pb_text()), and
 * nested messages.
 *
 * A nested message whose length is not known in advance is opened with
 * pb_begin(), which writes the tag and one byte for the length, and closed
 * with pb_end(), which back-patches the length; a message of 128 bytes or
 * more (rare for a single event) moves its body to make room for the longer
 * varint.  This only works in a memory sink (fd -1), where nothing is
 * flushed between the two calls.  When the length is known, pb_head()
 * writes tag and length directly, so a large message (a bundle of events)
 * can be streamed to a file sink in pieces.
 */
#include <string.h>

#include "write/sink.h"
#include "write/pbenc.h"

void pb_head(struct tdat_sink *s, unsigned field, uint64_t len)
{
	pb_key_varint(s, (uint64_t)field << 3 | PB_WT_LEN, len);
}

void pb_bytes(struct tdat_sink *s, unsigned field, const void *p, size_t n)
{
	pb_head(s, field, n);
	sink_write(s, p, n);
}

/* The length of @p[0..n) with each byte that starts no valid UTF-8 sequence as U+FFFD. */
static size_t text_len(const unsigned char *p, size_t n, bool *valid)
{
	size_t out = 0, l;

	*valid = true;
	for (size_t i = 0; i < n; i += l ? l : 1) {
		l = p[i] < 0x80 ? 1 : utf8_len(p + i, n - i);
		out += l ? l : 3;
		*valid &= l != 0;
	}
	return out;
}

void pb_text(struct tdat_sink *s, unsigned field, const void *p, size_t n)
{
	const unsigned char *u = p;
	bool valid;
	size_t l;

	pb_head(s, field, text_len(u, n, &valid));
	if (valid) {
		sink_write(s, p, n);
		return;
	}
	for (size_t i = 0; i < n; i += l ? l : 1) {
		l = u[i] < 0x80 ? 1 : utf8_len(u + i, n - i);
		if (l)
			sink_write(s, u + i, l);
		else
			sink_write(s, "\xef\xbf\xbd", 3);
	}
}

void pb_double(struct tdat_sink *s, unsigned field, double v)
{
	unsigned char *d = (unsigned char *)sink_reserve(s, PB_VARINT_MAX + 8);
	uint64_t bits;
	unsigned n;

	if (!d)
		return;
	memcpy(&bits, &v, sizeof(bits));
	n = pb_enc_varint(d, (uint64_t)field << 3 | PB_WT_I64);
	for (int i = 0; i < 8; i++)
		d[n++] = (unsigned char)(bits >> (8 * i));	/* little-endian on the wire */
	sink_commit(s, n);
}

size_t pb_begin(struct tdat_sink *s, unsigned field)
{
	unsigned char *d = (unsigned char *)sink_reserve(s, PB_VARINT_MAX + 1);
	unsigned n;

	if (!d)
		return s->len;
	n = pb_enc_varint(d, (uint64_t)field << 3 | PB_WT_LEN);
	d[n] = 0;		/* the length, patched by pb_end() */
	sink_commit(s, n + 1);
	return s->len - 1;
}

void pb_end(struct tdat_sink *s, size_t mark)
{
	size_t len, extra;
	unsigned char *d;

	if (s->err || mark >= s->len)
		return;
	len = s->len - mark - 1;
	if (len < 0x80) {
		s->buf[mark] = (char)len;
		return;
	}
	extra = pb_varint_size(len) - 1;
	if (!sink_reserve(s, extra))
		return;
	d = (unsigned char *)s->buf + mark;
	memmove(d + 1 + extra, d + 1, len);
	pb_enc_varint(d, len);
	sink_commit(s, extra);
}
