/*
 * t-pages.c - unit tests of the trace.dat writer's page encoder
 * (libfmt/write/dat-pages.c): events with small, 27-bit-overflowing and huge time
 * deltas, short and long payloads, are packed into pages and decoded back
 * with libtraceevent's kbuffer, which must give the same timestamps,
 * payloads and lost-event counts; both byte orders and long sizes.  Then
 * the staging of dat-stage.c: a stream staged in memory and one staged in
 * the temporary file (a zero memory limit) copy out the same bytes, for
 * zstd, zlib and none, and the compressed chunks decompress to the pages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/kbuffer.h>

#include "read/read.h"
#include "write/sink.h"
#include "write/dat-enc.h"
#include "../tap.h"

#define NEV 400
#define PAGE 4096

struct ev {
	uint64_t ts;
	unsigned size;
	unsigned char data[600];
	long long missed;
	bool hide;
};

static struct ev evs[NEV];

static void make_events(void)
{
	uint64_t ts = 1000;

	for (int i = 0; i < NEV; i++) {
		struct ev *e = &evs[i];

		/* deltas: 0, small, just below and above 2^27, above 2^32, huge */
		static const uint64_t steps[] = { 0, 7, (1u << 27) - 1, 1u << 27, 5ull << 32,
						  123456789012ull, 3 };
		ts += steps[i % 7];
		e->ts = ts;
		e->size = (unsigned)((i * 52) % 560 + 4) & ~3u;
		for (unsigned b = 0; b < e->size; b++)
			e->data[b] = (unsigned char)(i * 31 + b);
		e->missed = i == 100 ? 12345 : i == 200 ? -1 : i == 300 ? 77 : 0;
		e->hide = i == 300;
	}
}

/* Decode every page with kbuffer and compare with the events. */
static void check(int long_size, bool big)
{
	struct page_enc p;
	unsigned char *pages = calloc(NEV, PAGE), *d;
	int npages = 0, got = 0, bad = 0, i;
	unsigned long long ts;
	struct kbuffer *kb;

	ok(!penc_init(&p, PAGE, long_size, big), "encoder for long size %d, %s", long_size,
	   big ? "big endian" : "little endian");
	for (i = 0; i < NEV; i++) {
		int r = penc_add(&p, evs[i].ts, evs[i].data, evs[i].size, evs[i].missed, evs[i].hide);

		if (r == 1) {
			penc_finish(&p);
			memcpy(pages + (size_t)npages++ * PAGE, p.page, PAGE);
			penc_reset(&p);
			r = penc_add(&p, evs[i].ts, evs[i].data, evs[i].size, evs[i].missed, evs[i].hide);
		}
		if (r)
			break;
	}
	is_int(i, NEV, "every event was taken");
	penc_finish(&p);
	memcpy(pages + (size_t)npages++ * PAGE, p.page, PAGE);
	kb = kbuffer_alloc(long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			   big ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	for (int pg = 0; pg < npages; pg++) {
		kbuffer_load_subbuffer(kb, pages + (size_t)pg * PAGE);
		while ((d = kbuffer_read_event(kb, &ts)) && got < NEV) {
			struct ev *e = &evs[got];
			long long want_missed = e->hide ? 0 : e->missed;

			if (ts != e->ts || (unsigned)kbuffer_event_size(kb) != e->size ||
			    memcmp(d, e->data, e->size) || kbuffer_missed_events(kb) != want_missed) {
				if (!bad++)
					diag("event %d: ts %llu want %llu, size %d want %u, missed %d",
					     got, ts, (unsigned long long)e->ts, kbuffer_event_size(kb),
					     e->size, kbuffer_missed_events(kb));
			}
			got++;
			kbuffer_next_event(kb, NULL);
		}
	}
	is_int(got, NEV, "kbuffer reads every event back (%d pages)", npages);
	is_int(bad, 0, "timestamps, sizes, payloads and lost counts agree");
	kbuffer_free(kb);
	penc_release(&p);
	free(pages);
}

/* Stage every event in one stream with a memory limit; the copied-out bytes. */
static struct tdat_sink stage_all(const char *z, size_t limit, uint32_t *nchunks, bool *tmp_used)
{
	static char err[TDAT_MSG_LEN];
	struct tdat_sink out;
	struct dstream ds;
	struct stage st;
	int ret = 0;

	stage_init(&st, z, limit, err);
	dstream_init(&ds, 0, 0, PAGE, 8, false);
	sink_init(&out, -1);
	for (int i = 0; i < NEV && !ret; i++) {
		struct tdat_event ev = { .raw_ts = evs[i].ts, .data = evs[i].data, .size = evs[i].size,
					 .missed = evs[i].missed,
					 .shown_missed = evs[i].hide ? 0 : evs[i].missed };

		ret = dstream_put(&st, &ds, &ev, ev.raw_ts);
	}
	if (!ret)
		ret = dstream_flush(&st, &ds);
	if (!ret)
		ret = dstream_copy(&st, &ds, &out);
	if (ret)
		diag("staging %s failed: %s", z, err);
	is_uint(out.len, dstream_size(&st, &ds), "%s: the size announced is the size written", z);
	*nchunks = ds.nchunks;
	*tmp_used = st.fd >= 0;
	dstream_release(&ds);
	stage_release(&st);
	return out;
}

static void check_stage(const char *z)
{
	uint32_t n1, n2;
	bool t1, t2;
	struct tdat_sink mem = stage_all(z, 1 << 30, &n1, &t1), file = stage_all(z, 0, &n2, &t2);

	ok(!t1 && t2, "%s: staged in memory, then in the temporary file", z);
	ok(mem.len == file.len && !memcmp(mem.buf, file.buf, mem.len),
	   "%s: both copy out the same %zu bytes", z, mem.len);
	if (strcmp(z, "none")) {
		const struct tdat_codec *c = codec_find(z);
		void *ctx = c->ctx_new ? c->ctx_new() : NULL;
		unsigned char *page = malloc(PAGE * 10), *p = (unsigned char *)mem.buf;
		uint32_t count, zs, us, good = 0;

		memcpy(&count, p, 4);
		p += 4;
		for (uint32_t i = 0; i < count; i++, p += 8 + zs) {
			memcpy(&zs, p, 4);
			memcpy(&us, p + 4, 4);
			good += us % PAGE == 0 && us <= PAGE * 10 && !c->decompress(ctx, p + 8, zs, page, us);
		}
		is_uint(count, n1, "%s: the chunk count comes first", z);
		is_uint(good, count, "%s: every chunk is an independent frame of whole pages", z);
		if (c->ctx_free)
			c->ctx_free(ctx);
		free(page);
	}
	sink_release(&mem);
	sink_release(&file);
}

int main(void)
{
	struct page_enc p;
	static unsigned char big[PAGE];

	make_events();
	check(8, false);
	check(4, false);
	check(8, true);
	ok(!penc_init(&p, PAGE, 8, false), "encoder");
	is_int(penc_add(&p, 1, big, PAGE - 16 - 8, 0, false), 0, "an event filling a page fits");
	is_int(penc_add(&p, 2, big, 4, 0, false), 1, "the next one needs a new page");
	penc_reset(&p);
	is_int(penc_add(&p, 1, big, PAGE, 0, false), TDAT_ELIMIT, "an event larger than a page is refused");
	is_int(penc_add(&p, 1, big, PAGE - 16 - 8, 9, false), 0, "a page-filling event after lost ones");
	is_int(p.missed, -1, "leaves no room for the count: it is not stored, as the kernel does");
	penc_reset(&p);
	is_int(penc_add(&p, 5, big, 8, 0, false), 0, "a small event after the refusal");
	is_int(penc_add(&p, 4, big, 8, 0, false), 1, "time going back starts a new page");
	penc_release(&p);
	check_stage("zstd");
	check_stage("zlib");
	check_stage("none");
	return done_testing();
}
