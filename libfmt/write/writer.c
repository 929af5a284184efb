/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * writer.c - the writer registry and the output sink.
 *
 * A format is one file defining a struct tdat_writer_ops plus one line in
 * the table below.  Writers write through a tdat_sink: a buffered fd writer
 * with a sticky error, so put() stays short and a failed write is reported
 * once, by close().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/read.h"
#include "write/sink.h"
#include "write/writer-int.h"

#define SINK_CAP (256 * 1024)	/* a file sink's buffer */
#define SINK_MEM_CAP 4096	/* a memory sink's first buffer: it grows */

static const struct tdat_writer_ops *const writers[] = {
	&tdat_writer_text_ops,
	&tdat_writer_csv_ops,
	&tdat_writer_json_ops,
	&tdat_writer_sqlite_ops,
	&tdat_writer_dat_ops,
	&tdat_writer_perfetto_ops,
	&tdat_writer_parquet_ops,
};

#define NWRITERS (sizeof(writers) / sizeof(writers[0]))

/* ---- sink ---- */

int sink_init(struct tdat_sink *s, int fd)
{
	s->fd = fd;
	s->len = 0;
	s->err = 0;
	s->gz = NULL;
	s->wb = NULL;
	s->pool = NULL;
	s->hint = 0;
	s->cap = fd >= 0 ? SINK_CAP : SINK_MEM_CAP;
	s->buf = malloc(s->cap);
	return s->buf ? 0 : TDAT_ENOMEM;
}

void sink_release(struct tdat_sink *s)
{
	behind_free(s);
	gz_free(s->gz);
	s->gz = NULL;
	if (s->pool)
		bufpool_put(s->pool, s->buf, s->cap);
	else
		free(s->buf);
	s->buf = NULL;
	s->cap = s->len = 0;
}

void sink_write_fd(struct tdat_sink *s, const void *buf, size_t n)
{
	const char *p = buf;

	if (s->wb)
		behind_wait(s);	/* the bytes before these first */
	while (n && !s->err) {
		ssize_t w = write(s->fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			s->err = w < 0 ? errno : EIO;
		} else {
			p += w;
			n -= (size_t)w;
		}
	}
}

int sink_flush(struct tdat_sink *s)
{
	if (s->fd < 0)
		return 0;
	if (s->gz)
		gz_put(s, s->buf, s->len);
	else if (s->wb)
		behind_put(s);
	else
		sink_write_fd(s, s->buf, s->len);
	s->len = 0;
	return s->err ? TDAT_EIO : 0;
}

int sink_gzip(struct tdat_sink *s, int workers, int level)
{
	sink_flush(s);
	s->gz = gz_new(s, workers, level);
	return s->gz ? 0 : TDAT_ENOMEM;
}

int sink_finish(struct tdat_sink *s)
{
	int ret;

	if (!s->gz) {
		sink_flush(s);
		if (s->wb)
			behind_wait(s);
		return s->err ? TDAT_EIO : 0;
	}
	sink_flush(s);
	ret = gz_finish(s);
	gz_free(s->gz);
	s->gz = NULL;
	return ret;
}

char *sink_reserve_slow(struct tdat_sink *s, size_t n)
{
	if (s->len + n > s->cap) {
		/* a memory sink (fd < 0) grows instead of flushing */
		if (s->fd >= 0)
			sink_flush(s);
		if (s->len + n > s->cap && sink_grow(s, (s->len + n) * 2))
			return NULL;
	}
	return s->buf + s->len;
}

int sink_grow(struct tdat_sink *s, size_t want)
{
	size_t cap;
	char *p;

	if (!s->buf && want < s->hint)
		want = s->hint;	/* its first buffer */
	cap = want;
	p = s->pool ? bufpool_grow(s->pool, s->buf, s->len, s->cap, want, &cap) :
	    realloc(s->buf, want);
	if (!p) {
		s->err = ENOMEM;
		return ENOMEM;
	}
	s->buf = p;
	s->cap = cap;
	return 0;
}

void sink_write_slow(struct tdat_sink *s, const void *p, size_t n)
{
	char *d;

	if (!n)
		return;	/* an empty memory sink has no buffer to point into */
	/* more than the buffer holds, to a file: written from where it is */
	if (s->fd >= 0 && !s->gz && n >= s->cap && !sink_flush(s)) {
		sink_write_fd(s, p, n);
		return;
	}
	d = sink_reserve(s, n);

	if (d) {
		memcpy(d, p, n);
		s->len += n;
	}
}

void sink_printf(struct tdat_sink *s, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *d;

	/* a sink that has no buffer yet (an arena) only measures first */
	va_start(ap, fmt);
	n = vsnprintf(s->buf ? s->buf + s->len : NULL, s->buf ? s->cap - s->len : 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (s->buf && (size_t)n < s->cap - s->len) {
		s->len += (size_t)n;
		return;
	}
	d = sink_reserve(s, (size_t)n + 1);
	if (!d)
		return;
	va_start(ap, fmt);
	vsnprintf(d, (size_t)n + 1, fmt, ap);
	va_end(ap);
	s->len += (size_t)n;
}

size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* overlong forms, surrogates and code points past U+10FFFF */
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0;
	return len;
}

static const char pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Two digits of @v < 100 at @d. */
static inline void put2(char *d, uint32_t v)
{
	memcpy(d, pairs + 2 * v, 2);
}

/* Four digits of @v < 10000 at @d, leading zeros included. */
static inline void put4(char *d, uint32_t v)
{
	put2(d, v / 100);
	put2(d + 2, v % 100);
}

/* The digits of @v < 10000 at @d, no leading zero; their number. */
static inline unsigned put_upto4(char *d, uint32_t v)
{
	if (v < 100) {
		if (v < 10) {
			*d = (char)('0' + v);
			return 1;
		}
		put2(d, v);
		return 2;
	}
	if (v < 1000) {
		*d = (char)('0' + v / 100);
		put2(d + 1, v % 100);
		return 3;
	}
	put4(d, v);
	return 4;
}

/* The digits of @v < 10^8 at @d, no leading zero; their number. */
static inline unsigned put_upto8(char *d, uint32_t v)
{
	unsigned n;

	if (v < 10000)
		return put_upto4(d, v);
	n = put_upto4(d, v / 10000);
	put4(d + n, v % 10000);
	return n + 4;
}

/* Eight digits of @v < 10^8 at @d, leading zeros included. */
static inline void put8(char *d, uint32_t v)
{
	put4(d, v / 10000);
	put4(d + 4, v % 10000);
}

/*
 * Decimal digits of @v: split into 8-digit groups, and those into pairs
 * from a table, so that every division is a 32-bit one by a constant
 * (timestamps have 12 to 20 digits; 64-bit divisions by 100 dominated the
 * CSV writers' profile, and a loop of pairs after them).
 */
size_t fmt_u64(char *d, uint64_t v)
{
	uint32_t lo, mid;
	unsigned n;

	if (v < 100000000)
		return put_upto8(d, (uint32_t)v);
	lo = (uint32_t)(v % 100000000);
	v /= 100000000;
	if (v < 100000000) {
		n = put_upto8(d, (uint32_t)v);
		put8(d + n, lo);
		return n + 8;
	}
	mid = (uint32_t)(v % 100000000);
	n = put_upto4(d, (uint32_t)(v / 100000000));	/* at most 1844 */
	put8(d + n, mid);
	put8(d + n + 8, lo);
	return n + 16;
}

/* The 8 nibbles of @x as the lowercase hex digits of 8 bytes, the top one last. */
static inline uint64_t hex8(uint32_t x)
{
	uint64_t v = x, ten;

	v = ((v & 0xffff0000ull) << 16) | (v & 0xffffull);
	v = ((v & 0x0000ff000000ff00ull) << 8) | (v & 0x000000ff000000ffull);
	v = ((v & 0x00f000f000f000f0ull) << 4) | (v & 0x000f000f000f000full);
	ten = ((v + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;	/* nibbles over 9 */
	return v + 0x3030303030303030ull + ten * ('a' - '0' - 10);
}

/*
 * Hex digits of @v (lowercase, no leading zeros, "0" for 0) at @d, which
 * has room for 16 (all 16 are written); returns the count.  The digits are
 * made all at once, in two words, as the nibbles spread into bytes, from @v
 * shifted so that its first digit is the top nibble (kernel addresses have
 * 16 digits, and a loop of one digit a turn was a tenth of CSV's work on them).
 */
size_t fmt_hex64(char *d, uint64_t v)
{
	unsigned n = v ? (67 - (unsigned)__builtin_clzll(v)) / 4 : 1;
	uint64_t top = v << (4 * (16 - n));
	uint64_t hi = hex8((uint32_t)(top >> 32)), lo = hex8((uint32_t)top);

	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {	/* the top digit first */
		hi = __builtin_bswap64(hi);
		lo = __builtin_bswap64(lo);
	}
	memcpy(d, &hi, 8);
	memcpy(d + 8, &lo, 8);
	return n;
}

/* ---- writers ---- */

struct tdat_writer *tdat_writer_new(const char *format)
{
	struct tdat_writer *w;

	for (size_t i = 0; i < NWRITERS; i++) {
		if (strcmp(writers[i]->name, format))
			continue;
		w = calloc(1, sizeof(*w));
		if (w)
			w->ops = writers[i];
		return w;
	}
	return NULL;
}

const char *tdat_format_names(void)
{
	static char names[256];

	if (!names[0])
		for (size_t i = 0; i < NWRITERS; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? " " : "", writers[i]->name);
	return names;
}

int tdat_format_output(const char *format)
{
	for (size_t i = 0; i < NWRITERS; i++)
		if (!strcmp(writers[i]->name, format))
			return writers[i]->output;
	return -1;
}

static bool ends_with(const char *s, size_t len, const char *tail)
{
	size_t b = strlen(tail);

	return len > b && !strncmp(s + len - b, tail, b);
}

const char *tdat_format_from_path(const char *path)
{
	size_t len = strlen(path);

	if (ends_with(path, len, ".gz"))
		len -= 3;
	for (size_t i = 0; i < NWRITERS; i++) {
		const char *p = writers[i]->exts;

		while (*p) {
			size_t n = strcspn(p, " ");
			char ext[32];

			if (n < sizeof(ext)) {
				memcpy(ext, p, n);
				ext[n] = '\0';
				if (ends_with(path, len, ext))
					return writers[i]->name;
			}
			p += n + (p[n] == ' ');
		}
	}
	return NULL;
}

/* Open @w on @fd or @path; @worker: a -j worker's, into memory (run/par.c). */
static int writer_open(struct tdat_writer *w, int fd, const char *path, struct tdat_merge *m,
		       unsigned flags, bool worker)
{
	int ret;

	w->merge = m;
	w->flags = flags;
	w->path = path;
	w->worker = worker;
	if (tdat_writer_output(w) != TDAT_OUT_STREAM && !path && !worker) {
		tdat_msg(w->errmsg, "the %s format needs an output %s (-o)", w->ops->name,
			 tdat_writer_output(w) == TDAT_OUT_DIR ? "directory" : "file");
		return TDAT_EINVAL;
	}
	for (int i = 0; w->ops->symbols && merge_member(m, i); i++)
		(worker ? file_load_symbols : file_share_symbols)(merge_member(m, i));
	if ((ret = sink_init(&w->sink, fd)) ||
	    ((flags & TDAT_W_GZIP) && fd >= 0 &&
	     (ret = sink_gzip(&w->sink, w->jobs, w->opt.gzip_level))) ||
	    (w->jobs > 1 && !worker && (ret = sink_behind(&w->sink)))) {
		tdat_msg(w->errmsg, "out of memory");
		return ret;
	}
	if (w->ops->open && (ret = w->ops->open(w)))
		return ret;
	return 0;
}

int tdat_writer_open(struct tdat_writer *w, int fd, const char *path, struct tdat_merge *m,
		     unsigned flags)
{
	return writer_open(w, fd, path, m, flags, false);
}

int writer_open_worker(struct tdat_writer *w, struct tdat_merge *m, unsigned flags)
{
	return writer_open(w, -1, NULL, m, flags, true);
}

void tdat_writer_set_jobs(struct tdat_writer *w, int jobs)
{
	w->jobs = jobs;
}

static void damage_warning(struct tdat_writer *w)
{
	const struct writer_damage *d = &w->damage;

	tdat_msg(w->warning, "%s: %llu %s (the first, %s)", d->path, (unsigned long long)w->ndamaged,
		 w->ndamaged == 1 ? d->one : d->many, d->first);
}

void writer_damaged(struct tdat_writer *w, const struct tdat_event *ev, const char *system,
		    const char *name, const char *why, const char *one, const char *many)
{
	if (!w->ndamaged++) {
		w->damage.path = ev->file->info.path;
		snprintf(w->damage.first, sizeof(w->damage.first), "%.64s:%.64s at %llu.%09llu: %s",
			 system, name, (unsigned long long)(ev->ts / 1000000000),
			 (unsigned long long)(ev->ts % 1000000000), why);
	}
	w->damage.one = one;
	w->damage.many = many;
	damage_warning(w);
}

void writer_damage_add(struct tdat_writer *w, const struct writer_damage *d, uint64_t n)
{
	if (!w->ndamaged)
		w->damage = *d;
	w->damage.one = d->one;
	w->damage.many = d->many;
	w->ndamaged += n;
	damage_warning(w);
}

/* An event whose format puts fields outside it: written without them, counted. */
static void check_fields(struct tdat_writer *w, const struct tdat_event *ev)
{
	const struct ttype *t = file_type(ev->file, ev);
	char why[256];

	if (t && t->event && !ttype_fits(t, ev, why, sizeof(why)))
		writer_damaged(w, ev, t->system, t->name, why,
			       "event has fields outside its record, written without them",
			       "events have fields outside their record, written without them");
}

bool writer_fields_fit(const struct tdat_writer_ops *ops, const struct tdat_event *ev)
{
	const struct ttype *t;
	char why[256];

	if (!ops->fields)
		return true;
	t = file_type(ev->file, ev);
	return t && (!t->event || ttype_fits(t, ev, why, sizeof(why)));
}

int tdat_writer_put(struct tdat_writer *w, const struct tdat_event *ev)
{
	return writer_put_now(w, ev);
}

int writer_put_now(struct tdat_writer *w, const struct tdat_event *ev)
{
	int ret;

	if (w->ops->fields && !w->fit)
		check_fields(w, ev);
	ret = w->ops->put(w, ev);

	if (!ret && w->sink.err) {
		tdat_msg(w->errmsg, "write error: %s", strerror(w->sink.err));
		return TDAT_EIO;
	}
	return ret;
}

int tdat_writer_close(struct tdat_writer *w)
{
	int ret = 0;

	if (w->ops->close)
		ret = w->ops->close(w);
	if (ret && !*w->errmsg)	/* a format that failed without saying why */
		tdat_msg(w->errmsg, "%s", tdat_strerror(ret));
	if (sink_finish(&w->sink) && !ret) {
		tdat_msg(w->errmsg, "write error: %s", strerror(w->sink.err));
		ret = TDAT_EIO;
	}
	return ret;
}

int tdat_writer_copy(struct tdat_writer *w)
{
	int ret = w->ops->copy ? w->ops->copy(w) : TDAT_EUNSUPP;

	if (!ret && w->sink.err) {
		tdat_msg(w->errmsg, "write error: %s", strerror(w->sink.err));
		return TDAT_EIO;
	}
	return ret;
}

uint64_t tdat_writer_size(struct tdat_writer *w)
{
	return w->ops->size ? w->ops->size(w) : 0;
}

const char *tdat_writer_errmsg(const struct tdat_writer *w)
{
	return w->errmsg;
}

const char *tdat_writer_warning(const struct tdat_writer *w)
{
	return w->warning;
}

int tdat_writer_errno(const struct tdat_writer *w)
{
	return w->sink.err;
}

int tdat_writer_set_piece(struct tdat_writer *w, const struct tdat_piece *p)
{
	char *text;
	size_t len;
	int ret;

	if (w->ops != &tdat_writer_dat_ops)
		return TDAT_EUNSUPP;
	if ((ret = piece_format(p, &text, &len)))
		return ret;
	free(w->piece);
	w->piece = text;
	w->piece_len = len;
	return 0;
}

void tdat_writer_free(struct tdat_writer *w)
{
	if (!w)
		return;
	free(w->piece);
	if (w->ops->free)
		w->ops->free(w);
	sink_release(&w->sink);
	free(w->segs.v);
	free(w->names.v);
	free(w->notices);
	free(w);
}

