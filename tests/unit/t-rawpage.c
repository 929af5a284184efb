/*
 * t-rawpage.c - unit tests of dstream_put_page() (libfmt/write/dat-stage.c), the
 * way tdat-capture stages ring-buffer pages as trace_pipe_raw gives them:
 * pages (made by the page encoder, both byte orders) are staged as they are,
 * their events counted (small, long, after time extends, after lost ones),
 * a short read is padded with zeros, an empty page is dropped, a page that
 * events put one by one were packing goes out first, and impossible pages
 * are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "write/sink.h"
#include "write/dat-enc.h"
#include "../tap.h"

#define PAGE 4096

/* A page of @n events of growing sizes (small, then long), deltas past 27 bits too. */
static unsigned make_page(unsigned char *out, bool big, int n, long long missed, uint64_t ts,
			  size_t *used)
{
	static unsigned char data[300];
	struct page_enc p;
	unsigned got = 0;

	penc_init(&p, PAGE, 8, big);
	for (int i = 0; i < n; i++) {
		unsigned size = 8 + (unsigned)(i * 20) % 200;	/* up to 208: type_len 0 too */

		memset(data, i, sizeof(data));
		if (penc_add(&p, ts, data, size, i ? 0 : missed, false))
			break;
		ts += i % 3 ? 100 : (1u << 28);		/* every third needs a time extend */
		got++;
	}
	penc_finish(&p);
	memcpy(out, p.page, PAGE);
	if (used)	/* header, data and the lost count: what a short read must hold */
		*used = p.hdr + p.len + (p.missed > 0 ? 8 : 0);
	penc_release(&p);
	return got;
}

/* Stage @pages (of @lens bytes) uncompressed; the bytes that come out. */
static int stage(const unsigned char *const *pages, const size_t *lens, int n, bool big,
		 struct tdat_sink *out, uint64_t *events, int *first_err)
{
	struct stage st;
	struct dstream ds;
	char err[TDAT_MSG_LEN];
	int ret = 0;

	stage_init(&st, "none", 1 << 20, err);
	dstream_init(&ds, 0, 0, PAGE, 8, big);
	sink_init(out, -1);
	*first_err = 0;
	for (int i = 0; i < n; i++)
		if ((ret = dstream_put_page(&st, &ds, pages[i], lens[i])) && !*first_err)
			*first_err = ret;
	ret = dstream_flush(&st, &ds);
	if (!ret)
		ret = dstream_copy(&st, &ds, out);
	*events = ds.events;
	dstream_release(&ds);
	stage_release(&st);
	return ret;
}

static void byte_order(bool big)
{
	static unsigned char a[PAGE], b[PAGE], empty[PAGE], want[3 * PAGE];
	const unsigned char *pages[3] = { a, empty, b };
	size_t lens[3] = { PAGE, PAGE, 0 };
	const char *bo = big ? "big-endian" : "little-endian";
	unsigned na = make_page(a, big, 60, 0, 1000, NULL), nb;
	struct tdat_sink out;
	uint64_t events;
	int err;

	/* 10 events, 5 lost before them; read short: only the bytes in use */
	nb = make_page(b, big, 10, 5, 1ull << 40, &lens[2]);
	make_page(empty, big, 0, 0, 0, NULL);
	ok(na > 20 && nb == 10 && lens[2] < PAGE, "%s: pages of %u and %u events (%zu bytes)", bo, na,
	   nb, lens[2]);
	is_int(stage(pages, lens, 3, big, &out, &events, &err), 0, "%s: staged", bo);
	is_int(err, 0, "%s: every page taken", bo);
	is_uint(events, na + nb, "%s: the events of every page counted", bo);
	memcpy(want, a, PAGE);
	memcpy(want + PAGE, b, PAGE);
	is_uint(out.len, 2 * PAGE, "%s: two pages out, the empty one dropped", bo);
	ok(out.len == 2 * PAGE && !memcmp(out.buf, want, 2 * PAGE),
	   "%s: the pages as they came, the short one padded", bo);
	sink_release(&out);
}

static void refusals(void)
{
	static unsigned char a[PAGE], bad[PAGE];
	const unsigned char *pages[2] = { a, bad };
	size_t lens[2] = { PAGE + 1, PAGE };
	struct tdat_sink out;
	uint64_t events;
	int err;

	make_page(a, false, 5, 0, 1, NULL);
	memcpy(bad, a, PAGE);
	enc_num(bad + 8, PAGE, 8, false);	/* more data than a page holds */
	stage(pages, lens, 2, false, &out, &events, &err);
	is_int(err, TDAT_EFORMAT, "a read longer than a page is refused");
	sink_release(&out);
	pages[0] = bad;
	lens[0] = PAGE;
	stage(pages, lens, 1, false, &out, &events, &err);
	is_int(err, TDAT_EFORMAT, "a page whose commit exceeds it is refused");
	sink_release(&out);
	lens[0] = 10;
	pages[0] = a;
	stage(pages, lens, 1, false, &out, &events, &err);
	is_int(err, TDAT_EFORMAT, "a read shorter than the page header is refused");
	sink_release(&out);
}

/* Events put one by one, then a raw page: the encoded page comes first. */
static void mixed(void)
{
	static unsigned char raw[PAGE], data[16];
	struct stage st;
	struct dstream ds;
	struct tdat_sink out;
	struct tdat_event ev = { .data = data, .size = sizeof(data) };
	char err[TDAT_MSG_LEN];
	unsigned n = make_page(raw, false, 7, 0, 5000, NULL);

	stage_init(&st, "none", 1 << 20, err);
	dstream_init(&ds, 0, 0, PAGE, 8, false);
	sink_init(&out, -1);
	ev.raw_ts = 10;
	dstream_put(&st, &ds, &ev, 10);
	dstream_put(&st, &ds, &ev, 20);
	is_int(dstream_put_page(&st, &ds, raw, PAGE), 0, "a raw page after two events");
	dstream_flush(&st, &ds);
	dstream_copy(&st, &ds, &out);
	is_uint(ds.events, 2 + n, "all events counted");
	ok(out.len == 2 * PAGE && !memcmp(out.buf + PAGE, raw, PAGE),
	   "the encoded page first, then the raw one as it came");
	sink_release(&out);
	dstream_release(&ds);
	stage_release(&st);
}

int main(void)
{
	byte_order(false);
	byte_order(true);
	refusals();
	mixed();
	return done_testing();
}
