/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dat-write.c - the trace.dat container: given metadata (struct tdat_meta),
 * a list of buffers and their per-CPU streams of pages (dat-stage.c),
 * write a complete trace.dat in one sequential pass that a pipe can take.
 * Its users fill struct dat_out: dat.c from the files it re-encodes,
 * the capture code from tracefs.
 *
 * Offsets in a trace.dat point forward and backward, so everything is
 * laid out first and then written in order:
 *
 *   v7: header, metadata sections (and, compressed, the kernel's BTF and a
 *       persistent buffer's modules where the input had them), one flyrecord section
 *       per buffer (CPU data page-aligned), one options section (section
 *       offsets, copied options, CPUCOUNT, BUFFER options), the strings
 *       section.
 *   v6: header, metadata in fixed order, CPU count, options (instances as
 *       BUFFER options), the flyrecord table (+ clock) of each buffer,
 *       then the page-aligned CPU data.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "read/read.h"
#include "write/sink.h"
#include "write/dat-enc.h"
#include "write/options.h"

#define SEC_HDR		16
/* the six metadata sections, then trace-cmd 3.4's BTF and MODULES_FILE (v7 only) */
#define NOUT		(NSECTIONS + 2)

/* A growable byte buffer with a sticky failure. */
struct mbuf {
	unsigned char *p;
	size_t len, cap;
	bool fail;
};

/* What one dat_out_write() needs besides the description. */
struct dw {
	struct dat_out *spec;
	struct tdat_sink *out;
	uint64_t pos;		/* bytes written so far */
	struct mbuf strings;	/* v7 section descriptions */
	struct mbuf sec[NOUT];	/* metadata contents, then as stored */
	uint64_t sec_off[NOUT];
	unsigned sec_str[NOUT];
	bool sec_z;		/* metadata sections are compressed */
	struct mbuf *osec;	/* a merged file's inputs (origin.c), as stored */
	uint64_t *ooff;
	unsigned ostr;
};

/* ---- byte buffers ---- */

static void mb_put(struct mbuf *b, const void *p, size_t n)
{
	unsigned char *q;

	if (b->fail)
		return;
	if (b->len + n > b->cap) {
		size_t cap = (b->len + n) * 2 + 256;

		q = realloc(b->p, cap);
		if (!q) {
			b->fail = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void mb_num(struct dw *d, struct mbuf *b, uint64_t v, unsigned len)
{
	unsigned char n[8];

	enc_num(n, v, len, d->spec->big);
	mb_put(b, n, len);
}

static void mb_str(struct mbuf *b, const char *s)
{
	mb_put(b, s, strlen(s) + 1);
}

static void mb_sized(struct dw *d, struct mbuf *b, const struct tdat_blob *blob, unsigned lenbytes)
{
	mb_num(d, b, blob->data ? blob->len : 0, lenbytes);
	if (blob->data)
		mb_put(b, blob->data, blob->len);
}

static void mb_free(struct mbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* A section description in the strings table; its id is its offset. */
static unsigned add_string(struct dw *d, const char *s)
{
	unsigned id = (unsigned)d->strings.len;

	mb_str(&d->strings, s);
	return id;
}

/* ---- the output ---- */

static void out(struct dw *d, const void *p, size_t n)
{
	const unsigned char *c = p;

	d->pos += n;
	while (n) {
		size_t k = n < 65536 ? n : 65536;

		sink_write(d->out, c, k);
		c += k;
		n -= k;
	}
}

static void out_num(struct dw *d, uint64_t v, unsigned len)
{
	unsigned char n[8];

	enc_num(n, v, len, d->spec->big);
	out(d, n, len);
}

static void out_pad(struct dw *d, uint64_t to)
{
	static const unsigned char zero[4096];

	while (d->pos < to)
		out(d, zero, to - d->pos < sizeof(zero) ? (size_t)(to - d->pos) : sizeof(zero));
}

static uint64_t align_up(uint64_t v, unsigned a)
{
	return (v + a - 1) & ~((uint64_t)a - 1);
}

static void out_section_header(struct dw *d, unsigned id, unsigned flags, unsigned str, uint64_t size)
{
	out_num(d, id, 2);
	out_num(d, flags, 2);
	out_num(d, str, 4);
	out_num(d, size, 8);
}

/* ---- metadata, as the reader kept it ---- */

static void build_formats(struct dw *d, struct mbuf *b, const struct tdat_blob *fmts, int n)
{
	mb_num(d, b, (uint64_t)n, 4);
	for (int i = 0; i < n; i++)
		mb_sized(d, b, &fmts[i], 8);
}

/* Section @i can be copied as the source stored it (same compression). */
static bool raw_section(const struct dw *d, int i)
{
	const struct dat_out *o = d->spec;

	return i < NSECTIONS && d->sec_z && o->raw_src && o->meta->raw_len[i] &&
	       !strcmp(o->raw_zname, o->zname);
}

/* The id of output section @i. */
static unsigned sec_id(int i)
{
	return i < NSECTIONS ? OPT_HEADER_INFO + (unsigned)i : i == NSECTIONS ? OPT_BTF : OPT_MODULES;
}

/* The contents of the six metadata sections (v6 writes them in this order). */
static void build_meta(struct dw *d)
{
	const struct tdat_meta *m = d->spec->meta;
	struct mbuf *s = d->sec;

	if (!raw_section(d, 0)) {
		mb_put(&s[0], "header_page", 12);
		mb_sized(d, &s[0], &m->header_page, 8);
		mb_put(&s[0], "header_event", 13);
		mb_sized(d, &s[0], &m->header_event, 8);
	}
	if (!raw_section(d, 1))
		build_formats(d, &s[1], m->ftrace, m->nftrace);
	if (!raw_section(d, 2)) {
		mb_num(d, &s[2], (uint64_t)m->nsystems, 4);
		for (int i = 0; i < m->nsystems; i++) {
			mb_str(&s[2], m->systems[i].name);
			build_formats(d, &s[2], m->systems[i].fmts, m->systems[i].nfmts);
		}
	}
	if (!raw_section(d, 3))
		mb_sized(d, &s[3], &m->kallsyms, 4);
	if (!raw_section(d, 4))
		mb_sized(d, &s[4], &m->printk, 4);
	if (!raw_section(d, 5))
		mb_sized(d, &s[5], &m->cmdlines, 8);
	if (m->btf.data)	/* whole, as the kernel gave it */
		mb_put(&s[NSECTIONS], m->btf.data, m->btf.len);
	if (m->modules.data)
		mb_put(&s[NSECTIONS + 1], m->modules.data, m->modules.len);
}

/* Section @i's stored bytes from the source, in place of what build_meta() made. */
static int copy_raw(struct dw *d, int i)
{
	const struct dat_out *o = d->spec;
	uint64_t len = o->meta->raw_len[i];
	struct mbuf *b = &d->sec[i];
	unsigned char *p = realloc(b->p, len ? len : 1);
	char why[TDAT_MSG_LEN];
	int ret;

	if (!p)
		return TDAT_ENOMEM;
	b->p = p;
	b->cap = len;
	b->len = len;
	ret = src_pread(o->raw_src, p, len, o->meta->raw_off[i], o->st.err);
	if (ret) {	/* the message is about the output: say which input failed */
		snprintf(why, sizeof(why), "%s", o->st.err);
		tdat_msg(o->st.err, "copying metadata from %s: %s", o->raw_path, why);
	}
	return ret;
}

/* v7: compress each metadata section whole, as trace-cmd does. */
static int compress_meta(struct dw *d)
{
	static const char *desc[NOUT] = { "headers", "ftrace events", "events format",
					  "kallsyms", "printk", "command lines", "BTF", "modules" };
	size_t zlen;
	int ret;

	for (int i = 0; i < NOUT; i++) {
		struct mbuf z = { 0 };

		d->sec_str[i] = add_string(d, desc[i]);
		if (!d->sec_z)
			continue;
		if (raw_section(d, i)) {
			ret = copy_raw(d, i);
			if (ret)
				return ret;
			continue;
		}
		if ((ret = stage_compress(&d->spec->st, d->sec[i].p, d->sec[i].len, d->spec->big, &zlen)))
			return ret;
		mb_put(&z, d->spec->st.zbuf, zlen + 8);
		if (z.fail)
			return TDAT_ENOMEM;
		mb_free(&d->sec[i]);
		d->sec[i] = z;
	}
	return 0;
}

/* Each input's section of a merged file (struct dat_out.origins), stored as the metadata is. */
static int build_origins(struct dw *d)
{
	struct dat_out *o = d->spec;
	size_t zlen;
	int ret;

	if (!o->norigins)
		return 0;
	d->osec = calloc((size_t)o->norigins, sizeof(*d->osec));
	d->ooff = calloc((size_t)o->norigins, sizeof(*d->ooff));
	if (!d->osec || !d->ooff)
		return TDAT_ENOMEM;
	d->ostr = add_string(d, "merged input");
	for (int k = 0; k < o->norigins; k++) {
		const struct tdat_blob *b = &o->origins[k];

		if (!d->sec_z) {
			mb_put(&d->osec[k], b->data, b->len);
		} else {
			if ((ret = stage_compress(&o->st, b->data, b->len, o->big, &zlen)))
				return ret;
			mb_put(&d->osec[k], o->st.zbuf, zlen + 8);
		}
		if (d->osec[k].fail)
			return TDAT_ENOMEM;
	}
	return 0;
}

static void free_origins(struct dw *d)
{
	for (int k = 0; d->osec && k < d->spec->norigins; k++)
		mb_free(&d->osec[k]);
	free(d->osec);
	free(d->ooff);
}

/* A section is written when the input had it (the first three always). */
static bool have_section(const struct dw *d, int i)
{
	const struct tdat_meta *m = d->spec->meta;

	/* trace-cmd 3.4 reads BTF and MODULES_FILE only compressed (else not the file at all) */
	return i < 3 || (i == 3 && m->kallsyms.data) || (i == 4 && m->printk.data) ||
	       (i == 5 && m->cmdlines.data) || (i == NSECTIONS && m->btf.data && d->sec_z) ||
	       (i == NSECTIONS + 1 && m->modules.data && d->sec_z);
}

/* ---- v7 ---- */

static int write_strings(struct dw *d, unsigned str_id);

static const struct dat_obuf *buf_of(const struct dw *d, int b)
{
	return &d->spec->bufs[b];
}

/* The clock a BUFFER option names: the buffer's, else the file's (also when there is no buffer @b). */
static const char *buf_clock(const struct dw *d, int b)
{
	const char *c = b < d->spec->nbufs ? buf_of(d, b)->clock : NULL;

	if (!c || !*c)
		c = d->spec->clock;
	return c && *c ? c : "local";
}

static void opt_head(struct dw *d, struct mbuf *o, unsigned id, uint64_t size)
{
	mb_num(d, o, id, 2);
	mb_num(d, o, size, 4);
}

static void build_buffer_option(struct dw *d, struct mbuf *o, int b, const uint64_t *boff,
				const uint64_t *soff)
{
	const struct dat_obuf *bf = buf_of(d, b);
	const char *name = bf->name, *clock = buf_clock(d, b);
	int n = bf->ncpus;

	opt_head(d, o, OPT_BUFFER, 8 + strlen(name) + 1 + strlen(clock) + 1 + 8 + 20 * (uint64_t)n);
	mb_num(d, o, boff[b], 8);
	mb_str(o, name);
	mb_str(o, clock);
	mb_num(d, o, bf->page_size, 4);
	mb_num(d, o, (uint64_t)n, 4);
	for (int i = 0; i < n; i++) {
		const struct dstream *s = &d->spec->streams[d->spec->bufs[b].first + i];

		mb_num(d, o, (uint64_t)s->cpu, 4);
		mb_num(d, o, soff[d->spec->bufs[b].first + i], 8);
		mb_num(d, o, dstream_size(&d->spec->st, s), 8);
	}
}

/* Options that change how timestamps are read (dat-cpu.c file_ts()). */
static bool time_option(unsigned id)
{
	return id == OPT_OFFSET || id == OPT_DATE || id == OPT_TSC2NSEC || id == OPT_TIME_SHIFT;
}

/*
 * Options copied from the input, as they were (but not the time options
 * when timestamps are written corrected); but an empty TRACECLOCK (old
 * v6 files keep the clock after the flyrecord table) names the clock in v7.
 * Corrected ns timestamps under a clock that counts ticks get a TSC2NSEC
 * of factor 1 (struct dat_out.ns_ticks).
 */
static void build_kept_options(struct dw *d, struct mbuf *o)
{
	const struct tdat_meta *m = d->spec->meta;
	char clock[300];

	for (int i = 0; i < m->nopts; i++) {
		if (d->spec->corrected_ts && time_option(m->opts[i].id))
			continue;
		if (!d->spec->v6 && m->opts[i].id == OPT_TRACECLOCK && !m->opts[i].b.len) {
			snprintf(clock, sizeof(clock), "[%s]", buf_clock(d, 0));
			opt_head(d, o, OPT_TRACECLOCK, strlen(clock) + 1);
			mb_str(o, clock);
			continue;
		}
		opt_head(d, o, m->opts[i].id, m->opts[i].b.len);
		mb_put(o, m->opts[i].b.data, m->opts[i].b.len);
	}
	if (d->spec->ns_ticks) {	/* multiplier 1, shift 0, offset 0 */
		opt_head(d, o, OPT_TSC2NSEC, 16);
		mb_num(d, o, 1, 4);
		mb_num(d, o, 0, 4);
		mb_num(d, o, 0, 8);
	}
	if (d->spec->extra_opt) {
		opt_head(d, o, OPT_TDAT_PIECE, d->spec->extra_len);
		mb_put(o, d->spec->extra_opt, d->spec->extra_len);
	}
}

static int file_cpus(const struct dw *d)
{
	int n = d->spec->cpus;

	for (int k = 0; k < d->spec->nstreams; k++)
		if (d->spec->streams[k].cpu >= n)
			n = d->spec->streams[k].cpu + 1;
	return n;
}

static void build_options_v7(struct dw *d, struct mbuf *o, const uint64_t *boff, const uint64_t *soff)
{
	for (int i = 0; i < NOUT; i++) {
		if (!have_section(d, i))
			continue;
		opt_head(d, o, sec_id(i), 8);
		mb_num(d, o, d->sec_off[i], 8);
	}
	for (int k = 0; k < d->spec->norigins; k++) {
		opt_head(d, o, OPT_TDAT_ORIGIN, 8);
		mb_num(d, o, d->ooff[k], 8);
	}
	build_kept_options(d, o);
	opt_head(d, o, OPT_CPUCOUNT, 4);
	mb_num(d, o, (uint64_t)file_cpus(d), 4);
	for (int b = 0; b < d->spec->nbufs; b++)
		build_buffer_option(d, o, b, boff, soff);
	opt_head(d, o, OPT_DONE, 8);
	mb_num(d, o, 0, 8);	/* no further options section */
}

/* Where everything goes: metadata sections, buffer sections, CPU data. */
static uint64_t layout_v7(struct dw *d, uint64_t pos, uint64_t *boff, uint64_t *soff)
{
	for (int i = 0; i < NOUT; i++) {
		if (!have_section(d, i))
			continue;
		d->sec_off[i] = pos;
		pos += SEC_HDR + d->sec[i].len;
	}
	for (int k = 0; k < d->spec->norigins; k++) {
		d->ooff[k] = pos;
		pos += SEC_HDR + d->osec[k].len;
	}
	for (int b = 0; b < d->spec->nbufs; b++) {
		boff[b] = pos;
		pos += SEC_HDR;
		for (int i = 0; i < buf_of(d, b)->ncpus; i++) {
			int k = d->spec->bufs[b].first + i;

			pos = align_up(pos, buf_of(d, b)->page_size);
			soff[k] = pos;
			pos += dstream_size(&d->spec->st, &d->spec->streams[k]);
		}
	}
	return pos;
}

static void out_start(struct dw *d, const char *version)
{
	unsigned char b[2] = { d->spec->big, (unsigned char)d->spec->meta->user_long };

	out(d, dat_magic, sizeof(dat_magic));
	out(d, version, 2);
	out(d, b, 2);
	out_num(d, d->spec->page_size, 4);
}

static int out_buffers(struct dw *d, const uint64_t *boff, const uint64_t *soff, const uint64_t *bend)
{
	unsigned flags = d->spec->st.zkind ? SEC_FL_COMPRESS : 0;
	char desc[300];
	int ret;

	for (int b = 0; b < d->spec->nbufs; b++) {
		if (!d->spec->v6) {
			snprintf(desc, sizeof(desc), "buffer flyrecord %s", buf_of(d, b)->name);
			out_section_header(d, OPT_BUFFER, flags, add_string(d, desc),
					   bend[b] - boff[b] - SEC_HDR);
		}
		for (int i = 0; i < buf_of(d, b)->ncpus; i++) {
			int k = d->spec->bufs[b].first + i;

			out_pad(d, soff[k]);
			d->pos += dstream_size(&d->spec->st, &d->spec->streams[k]);
			if ((ret = dstream_copy(&d->spec->st, &d->spec->streams[k], d->out)))
				return ret;
		}
	}
	return 0;
}

static int write_v7(struct dw *d)
{
	int nb = d->spec->nbufs;
	uint64_t *boff = calloc((size_t)nb + 1, sizeof(*boff) * 2), *bend = boff + nb + 1;
	uint64_t *soff = calloc((size_t)d->spec->nstreams + 1, sizeof(*soff));
	uint64_t pos = 10 + 2 + 2 + 4 + strlen(d->spec->zname) + 1 + strlen(d->spec->zver) + 1 + 8, opts;
	struct mbuf o = { 0 };
	unsigned opt_str, str_str;
	int ret = TDAT_ENOMEM;

	if (!boff || !soff || (ret = compress_meta(d)) || (ret = build_origins(d)))
		goto out;
	opt_str = add_string(d, "options");
	opts = layout_v7(d, pos, boff, soff);
	for (int b = 0; b < nb; b++)	/* a buffer ends where the next begins */
		bend[b] = b + 1 < nb ? boff[b + 1] : opts;
	build_options_v7(d, &o, boff, soff);
	str_str = add_string(d, "strings");
	ret = TDAT_ENOMEM;
	if (o.fail || d->strings.fail)
		goto out;
	out_start(d, "7");
	out(d, d->spec->zname, strlen(d->spec->zname) + 1);
	out(d, d->spec->zver, strlen(d->spec->zver) + 1);
	out_num(d, opts, 8);
	for (int i = 0; i < NOUT; i++) {
		if (!have_section(d, i))
			continue;
		out_section_header(d, sec_id(i), d->sec_z ? SEC_FL_COMPRESS : 0,
				   d->sec_str[i], d->sec[i].len);
		out(d, d->sec[i].p, d->sec[i].len);
	}
	for (int k = 0; k < d->spec->norigins; k++) {
		out_section_header(d, OPT_TDAT_ORIGIN, d->sec_z ? SEC_FL_COMPRESS : 0, d->ostr,
				   d->osec[k].len);
		out(d, d->osec[k].p, d->osec[k].len);
	}
	if ((ret = out_buffers(d, boff, soff, bend)))
		goto out;
	out_section_header(d, OPT_DONE, 0, opt_str, o.len);
	out(d, o.p, o.len);
	ret = write_strings(d, str_str);
out:
	mb_free(&o);
	free(boff);
	free(soff);
	return ret;
}

static int write_strings(struct dw *d, unsigned str_id)
{
	size_t zlen;
	int ret;

	if (d->strings.fail)
		return TDAT_ENOMEM;
	if (!d->spec->st.zkind) {
		out_section_header(d, OPT_STRINGS, 0, str_id, d->strings.len);
		out(d, d->strings.p, d->strings.len);
		return 0;
	}
	if ((ret = stage_compress(&d->spec->st, d->strings.p, d->strings.len, d->spec->big, &zlen)))
		return ret;
	out_section_header(d, OPT_STRINGS, SEC_FL_COMPRESS, str_id, zlen + 8);
	out(d, d->spec->st.zbuf, zlen + 8);
	return 0;
}

/* ---- v6 ---- */

static int stream_of(const struct dw *d, int b, int cpu)
{
	return dat_out_stream(d->spec, b, cpu);
}

static const struct tdat_mopt *kept(const struct dw *d, unsigned id)
{
	for (int i = 0; i < d->spec->meta->nopts; i++)
		if (d->spec->meta->opts[i].id == id && !(d->spec->corrected_ts && time_option(id)))
			return &d->spec->meta->opts[i];
	return NULL;
}

/* v6: copied options, then each instance as a BUFFER option (offset of its table, name). */
static void build_options_v6(struct dw *d, struct mbuf *o, const uint64_t *toff)
{
	build_kept_options(d, o);
	for (int b = 1; b < d->spec->nbufs; b++) {
		const char *name = buf_of(d, b)->name;

		opt_head(d, o, OPT_BUFFER, 8 + strlen(name) + 1);
		mb_num(d, o, toff[b], 8);
		mb_str(o, name);
	}
	mb_num(d, o, OPT_DONE, 2);
}

/* A buffer's "flyrecord" table: (offset, size) per CPU id, then the clock. */
static void out_table_v6(struct dw *d, int b, int cpus, const uint64_t *soff, const char *clock)
{
	out(d, "flyrecord", 10);
	for (int c = 0; c < cpus; c++) {
		int k = stream_of(d, b, c);

		out_num(d, k < 0 ? 0 : soff[k], 8);
		out_num(d, k < 0 ? 0 : dstream_size(&d->spec->st, &d->spec->streams[k]), 8);
	}
	if (clock) {
		out_num(d, strlen(clock), 8);
		out(d, clock, strlen(clock));
	}
}

static void layout_v6(struct dw *d, uint64_t pos, uint64_t *soff)
{
	for (int b = 0; b < d->spec->nbufs; b++) {
		for (int i = 0; i < buf_of(d, b)->ncpus; i++) {
			int k = d->spec->bufs[b].first + i;

			pos = align_up(pos, d->spec->page_size);
			soff[k] = pos;
			pos += dstream_size(&d->spec->st, &d->spec->streams[k]);
		}
	}
}

static int write_v6(struct dw *d)
{
	int nb = d->spec->nbufs, cpus = file_cpus(d);
	int tables = nb > 0 ? nb : 1;	/* the top buffer's, even with no data left */
	uint64_t *toff = calloc((size_t)tables, sizeof(*toff));
	uint64_t *soff = calloc((size_t)d->spec->nstreams + 1, sizeof(*soff));
	uint64_t pos = 10 + 2 + 2 + 4 + 4 + 10, table;
	char clock[300] = "";
	struct mbuf o = { 0 };
	int ret = TDAT_ENOMEM;

	if (!toff || !soff)
		goto out;
	/* the clock after each table is read only when the TRACECLOCK option is there */
	if (kept(d, OPT_TRACECLOCK))
		snprintf(clock, sizeof(clock), "[%s]", buf_clock(d, 0));
	for (int i = 0; i < NSECTIONS; i++)
		pos += d->sec[i].len;
	build_options_v6(d, &o, toff);		/* once for its size */
	table = 10 + 16 * (uint64_t)cpus + (*clock ? 8 + strlen(clock) : 0);
	for (int b = 0; b < tables; b++)
		toff[b] = pos + o.len + table * (uint64_t)b;
	o.len = 0;
	build_options_v6(d, &o, toff);
	if (o.fail)
		goto out;
	layout_v6(d, pos + o.len + table * (uint64_t)tables, soff);	/* after the last table */
	out_start(d, "6");
	for (int i = 0; i < NSECTIONS; i++)
		out(d, d->sec[i].p, d->sec[i].len);
	out_num(d, (uint64_t)cpus, 4);
	out(d, "options  ", 10);
	out(d, o.p, o.len);
	for (int b = 0; b < tables; b++)
		out_table_v6(d, b, cpus, soff, *clock ? clock : NULL);
	ret = out_buffers(d, NULL, soff, NULL);
out:
	mb_free(&o);
	free(toff);
	free(soff);
	return ret;
}

/* ---- the description ---- */

const struct writer_option dat_options[] = {
	WOPT_WORD("version", "7 6", dat.v6),
	WOPT_WORD("compression", "zstd zlib none", dat.z),
	{ NULL, WO_BOOL, NULL, 0, 0, 0 },
};

int dat_out_init(struct dat_out *o, const struct dat_layout *l, size_t stage_limit, char *err)
{
	memset(o, 0, sizeof(*o));
	if (l->v6 && l->z == DAT_ZLIB) {
		tdat_msg(err, "trace.dat v6 is not compressed");
		return TDAT_EINVAL;
	}
	o->v6 = l->v6;
	o->zname = "zstd";
	o->zver = ZSTD_versionString();
	if (l->z == DAT_ZLIB) {
		o->zname = "zlib";
		o->zver = zlibVersion();
	}
	if (l->z == DAT_ZNONE || l->v6) {
		o->zname = "none";
		o->zver = "";
	}
	return stage_init(&o->st, o->zname, stage_limit, err);
}

int dat_out_add_buffer(struct dat_out *o, const char *name, const char *clock, unsigned page_size,
		       const int *cpus, int ncpus, int long_size)
{
	struct dat_obuf *b = realloc(o->bufs, sizeof(*b) * (size_t)(o->nbufs + 1));
	struct dstream *s;
	int ret;

	if (!b)
		return TDAT_ENOMEM;
	o->bufs = b;
	s = realloc(o->streams, sizeof(*s) * (size_t)(o->nstreams + ncpus + 1));
	if (!s)
		return TDAT_ENOMEM;
	o->streams = s;
	b += o->nbufs;
	b->name = name;
	b->clock = clock;
	b->page_size = page_size;
	b->ncpus = 0;
	b->first = o->nstreams;
	o->nbufs++;
	for (int i = 0; i < ncpus; i++) {
		ret = dstream_init(&o->streams[o->nstreams], o->nbufs - 1, cpus[i], page_size,
				   long_size, o->big);
		if (ret)
			return ret;
		o->nstreams++;
		b->ncpus++;
	}
	return 0;
}

int dat_out_stream(const struct dat_out *o, int b, int cpu)
{
	int n, k;

	if (b < 0 || b >= o->nbufs)
		return -1;
	n = o->bufs[b].ncpus;
	k = o->bufs[b].first;
	if (cpu >= 0 && cpu < n && o->streams[k + cpu].cpu == cpu)
		return k + cpu;
	for (int i = 0; i < n; i++)
		if (o->streams[k + i].cpu == cpu)
			return k + i;
	return -1;
}

int dat_out_write(struct dat_out *o, struct tdat_sink *out)
{
	struct dw d = { .spec = o, .out = out };
	int ret;

	for (int k = 0; k < o->nstreams; k++)
		if ((ret = dstream_flush(&o->st, &o->streams[k])))
			return ret;
	d.sec_z = o->st.zkind != 0;
	build_meta(&d);
	ret = TDAT_ENOMEM;
	for (int i = 0; i < NOUT; i++)
		if (d.sec[i].fail)
			goto out;
	ret = o->v6 ? write_v6(&d) : write_v7(&d);
out:
	for (int i = 0; i < NOUT; i++)
		mb_free(&d.sec[i]);
	free_origins(&d);
	mb_free(&d.strings);
	return ret;
}

/* Bytes of the metadata sections as they will be stored (computed once). */
static uint64_t meta_size(struct dat_out *o)
{
	struct dw d = { .spec = o };
	uint64_t n = 4096;	/* header, options, strings: about a page */

	if (o->meta_size)
		return o->meta_size;
	d.sec_z = o->st.zkind != 0;
	build_meta(&d);
	if (!d.sec_z || !compress_meta(&d))
		for (int i = 0; i < NOUT; i++)
			n += SEC_HDR + d.sec[i].len;
	for (int k = 0; k < o->norigins; k++)
		n += SEC_HDR + o->origins[k].len;
	for (int i = 0; i < NOUT; i++)
		mb_free(&d.sec[i]);
	mb_free(&d.strings);
	return o->meta_size = n;
}

uint64_t dat_out_estimate(struct dat_out *o)
{
	uint64_t n = meta_size(o);

	for (int k = 0; k < o->nstreams; k++) {
		const struct dstream *s = &o->streams[k];
		uint64_t pending = s->chunk_len + (s->pe.nevents ? s->pe.page_size : 0);

		n += dstream_size(&o->st, s) + (o->st.zkind ? pending / 4 : pending);
		n += s->stored || pending ? o->bufs[s->buffer].page_size / 2 : 0;	/* alignment */
	}
	return n;
}

void dat_out_release(struct dat_out *o)
{
	if (!o->zname)		/* never initialized */
		return;
	for (int k = 0; k < o->nstreams; k++)
		dstream_release(&o->streams[k]);
	free(o->streams);
	free(o->bufs);
	stage_release(&o->st);
	memset(o, 0, sizeof(*o));
}
