/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dat.c - the "dat" format: a trace.dat that trace-cmd report reads
 * as it reads the inputs, holding the events given to put().
 *
 * One input: its metadata (struct tdat_meta) is copied as the reader kept
 * it, its buffers keep their names, and events keep their raw timestamps
 * with the time options (OFFSET, DATE, TSC2NSEC, TIME_SHIFT) copied, unless
 * a user offset or --ts2secs was asked for: then events get their corrected
 * timestamps, the time options are dropped, and when those timestamps are
 * ns while the clock's name counts ticks (x86-tsc with --ts2secs), a
 * TSC2NSEC option of factor 1 says so, so that trace-cmd report prints
 * seconds and a reader takes ns.  Several inputs (tdat-merge): every buffer of
 * input NAME becomes the buffer "NAME" (top) or "NAME:INSTANCE", event
 * formats are the union of the inputs' (one event id must mean one event in
 * all of them), command lines are concatenated, and events are written with
 * their corrected timestamps, since the inputs' time options differ.
 *
 * Events are packed into pages by dat-stage.c; the file is written at
 * close by dat-write.c.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "read/read.h"
#include "write/dat-enc.h"
#include "write/options.h"
#include "write/writer-int.h"

#define STAGE_LIMIT	(8u << 20)	/* CPU data kept in memory before the temporary file */

struct dat {
	struct dat_out o;
	struct tdat_meta meta;	/* several inputs: the union, blobs borrowed */
	bool own_meta;
	char *cmdlines;		/* several inputs: concatenated */
	char **names;		/* buffer names made here */
	int nnames;
	int *first_buf;		/* per input: its first output buffer */
	int *first_name;	/* per input: its first buffer name in names */
	struct tdat_blob *origins;	/* several inputs: each one's section (origin.c) */
	int nfiles;
	bool ready;		/* open succeeded */
	int failed;		/* a put() failed: close writes nothing */
};

/* ---- checks ---- */

static int check_file(struct tdat_writer *w, struct tdat_file *f, bool v6, bool merged)
{
	for (int b = 0; b < f->nbuffers; b++) {
		const struct tdat_buffer_info *bi = &f->buffers[b].info;

		if (bi->latency) {
			tdat_msg(w->errmsg, "%s: buffer \"%s\" is a latency trace; -f dat writes "
				 "flyrecord buffers only", f->info.path, bi->name);
			return TDAT_EUNSUPP;
		}
		if (v6 && (merged || bi->page_size != f->info.page_size || (b == 0 && bi->name[0]))) {
			tdat_msg(w->errmsg, "%s: buffer \"%s\" cannot be written as trace.dat v6 "
				 "(%s); use v7", f->info.path, bi->name,
				 merged ? "several inputs" : "page size or missing top buffer");
			return TDAT_EUNSUPP;
		}
	}
	if (!f->meta.header_page.data) {
		tdat_msg(w->errmsg, "%s: no header_page to copy", f->info.path);
		return TDAT_EFORMAT;
	}
	return 0;
}

/* Inputs merged into one file must agree on how events are laid out. */
static int check_alike(struct tdat_writer *w, struct tdat_file *a, struct tdat_file *b)
{
	if (a->info.big_endian != b->info.big_endian || a->info.long_size != b->info.long_size) {
		tdat_msg(w->errmsg, "%s and %s differ in byte order or long size; they cannot "
			 "share one trace.dat", a->info.path, b->info.path);
		return TDAT_EUNSUPP;
	}
	if (!strcmp(a->info.name, b->info.name)) {
		tdat_msg(w->errmsg, "%s and %s are both named \"%s\"; give one another name "
			 "(--name FILE=NAME)", a->info.path, b->info.path, a->info.name);
		return TDAT_EINVAL;
	}
	return 0;
}

/* ---- the union of several inputs' metadata ---- */

/* The "name:" and "ID:" of an event format text; false if it has none. */
static bool format_id(const struct tdat_blob *fmt, char *name, size_t len, int *id)
{
	const char *p = strstr(fmt->data, "name:"), *q = strstr(fmt->data, "ID:");
	size_t n = 0;

	if (!p || !q)
		return false;
	for (p += 5; *p == ' '; p++)
		;
	while (p[n] && p[n] != '\n' && n + 1 < len)
		n++;
	memcpy(name, p, n);
	name[n] = '\0';
	*id = atoi(q + 3);
	return true;
}

static struct tdat_msys *find_system(struct tdat_meta *m, const char *name)
{
	for (int s = 0; s < m->nsystems; s++)
		if (!strcmp(m->systems[s].name, name))
			return &m->systems[s];
	return NULL;
}

/* Add @fmt of @sys to the union; the union's systems own only their arrays. */
static int union_add(struct tdat_meta *u, const char *sys, const struct tdat_blob *fmt)
{
	struct tdat_msys *s = find_system(u, sys);
	struct tdat_blob *b;

	if (!s) {
		s = realloc(u->systems, sizeof(*s) * (size_t)(u->nsystems + 1));
		if (!s)
			return TDAT_ENOMEM;
		u->systems = s;
		s += u->nsystems++;
		memset(s, 0, sizeof(*s));
		s->name = (char *)sys;
	}
	b = realloc(s->fmts, sizeof(*b) * (size_t)(s->nfmts + 1));
	if (!b)
		return TDAT_ENOMEM;
	s->fmts = b;
	s->fmts[s->nfmts++] = *fmt;
	return 0;
}

/* Whether the union's format of event @id of @sys is @fmt, byte for byte. */
static bool same_format(const struct tdat_meta *u, const char *sys, int id,
			const struct tdat_blob *fmt)
{
	const struct tdat_msys *s = find_system((struct tdat_meta *)u, sys);
	char name[256];
	int fid;

	for (int i = 0; s && i < s->nfmts; i++)
		if (format_id(&s->fmts[i], name, sizeof(name), &fid) && fid == id)
			return s->fmts[i].len == fmt->len &&
			       !memcmp(s->fmts[i].data, fmt->data, fmt->len);
	return false;
}

/* Each event format of @f: already in the union with the same id (and the
 * same text: the merged file keeps one), or added. */
static int union_file(struct tdat_writer *w, struct dat *d, struct tep_handle *first,
		      struct tdat_file *f)
{
	char name[256];
	int id, ret;

	for (int s = 0; s < f->meta.nsystems; s++) {
		const struct tdat_msys *sys = &f->meta.systems[s];

		for (int i = 0; i < sys->nfmts; i++) {
			struct tep_event *e;

			if (!format_id(&sys->fmts[i], name, sizeof(name), &id))
				continue;
			e = tep_find_event(first, id);
			if (e && (strcmp(e->name, name) || strcmp(e->system, sys->name))) {
				tdat_msg(w->errmsg, "%s: event id %d is %s:%s there but %s:%s in the "
					 "first input; traces of kernels whose event ids differ cannot "
					 "be merged into one trace.dat", f->info.path, id, sys->name,
					 name, e->system, e->name);
				return TDAT_EUNSUPP;
			}
			if (e && !same_format(&d->meta, sys->name, id, &sys->fmts[i])) {
				tdat_msg(w->errmsg, "%s: event %s:%s (id %d) has another format there "
					 "than in the first input; one trace.dat holds one format per "
					 "event, so give the files to tdat-convert together instead",
					 f->info.path, sys->name, name, id);
				return TDAT_EUNSUPP;
			}
			if (!e && (ret = union_add(&d->meta, sys->name, &sys->fmts[i])))
				return ret;
		}
	}
	return 0;
}

/* Everything borrowed from the first input, but its own arrays and cmdlines. */
static int union_meta(struct tdat_writer *w, struct dat *d, struct tdat_merge *m)
{
	struct tdat_file *f0 = tdat_merge_file(m, 0);
	size_t len = 0;
	int ret;

	d->meta = f0->meta;
	d->meta.systems = NULL;
	d->meta.nsystems = 0;
	d->own_meta = true;
	for (int s = 0; s < f0->meta.nsystems; s++)
		for (int i = 0; i < f0->meta.systems[s].nfmts; i++)
			if ((ret = union_add(&d->meta, f0->meta.systems[s].name,
					     &f0->meta.systems[s].fmts[i])))
				return ret;
	for (int i = 1; i < d->nfiles; i++)
		if ((ret = union_file(w, d, f0->tep, tdat_merge_file(m, i))))
			return ret;
	for (int i = 0; i < d->nfiles; i++)
		len += tdat_merge_file(m, i)->meta.cmdlines.len + 1;
	if (!(d->cmdlines = malloc(len + 1)))
		return TDAT_ENOMEM;
	len = 0;
	for (int i = 0; i < d->nfiles; i++) {
		const struct tdat_blob *c = &tdat_merge_file(m, i)->meta.cmdlines;

		if (!c->data)
			continue;
		memcpy(d->cmdlines + len, c->data, c->len);
		len += c->len;
		if (len && d->cmdlines[len - 1] != '\n')
			d->cmdlines[len++] = '\n';
	}
	d->cmdlines[len] = '\0';
	d->meta.cmdlines.data = d->cmdlines;
	d->meta.cmdlines.len = len;
	return 0;
}

static void union_release(struct dat *d)
{
	if (!d->own_meta)
		return;
	for (int s = 0; s < d->meta.nsystems; s++)
		free(d->meta.systems[s].fmts);
	free(d->meta.systems);
	free(d->cmdlines);
}

/* ---- buffers ---- */

/* Several inputs: "NAME" for an input's top buffer, "NAME:INSTANCE" for the others. */
static const char *buffer_name(struct dat *d, struct tdat_file *f, int b, bool merged)
{
	const char *inst = f->buffers[b].info.name, *name = f->info.name;
	char **n, *s;

	if (!merged)
		return inst;
	n = realloc(d->names, sizeof(*n) * (size_t)(d->nnames + 1));
	if (!n)
		return NULL;
	d->names = n;
	s = malloc(strlen(name) + strlen(inst) + 2);
	if (!s)
		return NULL;
	strcpy(s, name);
	if (*inst) {
		strcat(s, ":");
		strcat(s, inst);
	}
	return d->names[d->nnames++] = s;
}

static int add_buffers(struct dat *d, struct tdat_file *f, bool merged)
{
	for (int b = 0; b < f->nbuffers; b++) {
		const struct tdat_buffer_info *bi = &f->buffers[b].info;
		const char *name = buffer_name(d, f, b, merged);
		const char *clock = *bi->clock ? bi->clock : f->info.clock;
		int *ids = calloc((size_t)bi->ncpus + 1, sizeof(*ids)), ret;

		if (!name || !ids) {
			free(ids);
			return TDAT_ENOMEM;
		}
		for (int i = 0; i < bi->ncpus; i++)
			ids[i] = bi->cpus[i].cpu;
		ret = dat_out_add_buffer(&d->o, name, clock, bi->page_size, ids, bi->ncpus,
					 f->info.long_size);
		free(ids);
		if (ret)
			return ret;
	}
	return 0;
}

/* Several inputs: each one's record of its name, buffers and own metadata (origin.c). */
static int add_origins(struct tdat_writer *w, struct dat *d, struct tdat_merge *m)
{
	if (!(d->origins = calloc((size_t)d->nfiles, sizeof(*d->origins))))
		return TDAT_ENOMEM;
	for (int i = 0; i < d->nfiles; i++) {
		struct tdat_file *f = tdat_merge_file(m, i);
		const char *const *names = (const char *const *)d->names + d->first_name[i];
		size_t len;
		int ret = origin_format(f, &d->meta, names, d->o.big, &d->origins[i].data, &len);

		if (ret == TDAT_EINVAL)
			tdat_msg(w->errmsg, "%s: a name with a tab or a newline (\"%s\", or one of its "
				 "buffers') cannot be kept in a merged trace.dat", f->info.path, f->info.name);
		if (ret)
			return ret;
		d->origins[i].len = len;
	}
	d->o.origins = d->origins;
	d->o.norigins = d->nfiles;
	return 0;
}

/* ---- the writer ops ---- */

static int dat_setup(struct tdat_writer *w, struct dat *d, struct tdat_merge *m)
{
	struct tdat_file *f0 = tdat_merge_file(m, 0);
	bool merged = d->nfiles > 1, ns = true;
	int ret;

	for (int i = 0; i < d->nfiles; i++) {
		struct tdat_file *f = tdat_merge_file(m, i);

		if ((ret = check_file(w, f, d->o.v6, merged)) || (i && (ret = check_alike(w, f0, f))))
			return ret;
		d->o.corrected_ts |= f->user_offset != 0 || f->ts2secs;
		ns &= f->info.in_usecs != 0;
	}
	if (merged && (ret = union_meta(w, d, m)))
		return ret;
	d->o.meta = merged ? &d->meta : &f0->meta;
	d->o.big = f0->info.big_endian;
	d->o.page_size = f0->info.page_size;
	d->o.clock = f0->info.clock;
	d->o.corrected_ts |= merged;
	/* the clock option is the first input's: does trace-cmd take it for ticks? */
	d->o.ns_ticks = d->o.corrected_ts && ns && *f0->info.clock &&
			!clock_counts_ns(f0->info.clock);
	if (!merged) {		/* its compressed sections can be copied as they are */
		d->o.raw_src = &f0->src;
		d->o.raw_path = f0->info.path;
		d->o.raw_zname = f0->info.compression;
	}
	for (int i = 0; i < d->nfiles; i++) {
		struct tdat_file *f = tdat_merge_file(m, i);

		d->o.cpus = f->info.cpus > d->o.cpus ? f->info.cpus : d->o.cpus;
		d->first_buf[i] = d->o.nbufs;
		d->first_name[i] = d->nnames;
		if ((ret = add_buffers(d, f, merged)))
			return ret;
	}
	return merged ? add_origins(w, d, m) : 0;
}

static int dat_open(struct tdat_writer *w)
{
	struct tdat_merge *m = w->merge;
	struct dat *d = calloc(1, sizeof(*d));
	int ret;

	if (!d)
		return TDAT_ENOMEM;
	w->priv = d;
	d->nfiles = tdat_merge_nfiles(m);
	if (d->nfiles < 1) {
		tdat_msg(w->errmsg, "no input");
		return TDAT_EINVAL;
	}
	if (!(d->first_buf = calloc((size_t)d->nfiles, sizeof(*d->first_buf))) ||
	    !(d->first_name = calloc((size_t)d->nfiles, sizeof(*d->first_name))))
		return TDAT_ENOMEM;
	if ((ret = dat_out_init(&d->o, &w->opt.dat, STAGE_LIMIT, w->errmsg)) ||
	    (ret = dat_setup(w, d, m)))
		return ret;
	d->ready = true;
	return 0;
}

static int dat_put(struct tdat_writer *w, const struct tdat_event *ev)
{
	struct dat *d = w->priv;
	int k = -1;

	if (ev->input >= 0 && ev->input < d->nfiles && ev->buffer >= 0 &&
	    ev->buffer < ev->file->nbuffers)
		k = dat_out_stream(&d->o, d->first_buf[ev->input] + ev->buffer, ev->cpu);
	if (k < 0) {
		tdat_msg(w->errmsg, "an event of an unknown buffer or CPU (%d, %d)", ev->buffer, ev->cpu);
		return d->failed = TDAT_EINVAL;
	}
	return d->failed = dstream_put(&d->o.st, &d->o.streams[k], ev,
				       d->o.corrected_ts ? ev->ts : ev->raw_ts);
}

static int dat_close(struct tdat_writer *w)
{
	struct dat *d = w->priv;

	if (!d || !d->ready || d->failed)
		return d && d->failed ? d->failed : 0;
	d->o.extra_opt = w->piece;
	d->o.extra_len = w->piece_len;
	return dat_out_write(&d->o, &w->sink);
}

static int copy_page(void *arg, const struct cursor *c, const unsigned char *page, size_t len)
{
	struct dat *d = arg;
	int k = dat_out_stream(&d->o, d->first_buf[c->input] + c->buffer, c->ci->cpu);

	return k < 0 ? TDAT_EINVAL : dstream_put_page(&d->o.st, &d->o.streams[k], page, len);
}

/* One input, raw timestamps: its pages go into the new file as they are. */
static int dat_copy(struct tdat_writer *w)
{
	struct dat *d = w->priv;

	if (!d || !d->ready || d->nfiles != 1 || d->o.corrected_ts)
		return TDAT_EUNSUPP;
	return d->failed = merge_copy_pages(w->merge, copy_page, d);
}

static uint64_t dat_size(struct tdat_writer *w)
{
	struct dat *d = w->priv;

	return d && d->ready ? dat_out_estimate(&d->o) : 0;
}

static void dat_free(struct tdat_writer *w)
{
	struct dat *d = w->priv;

	if (!d)
		return;
	dat_out_release(&d->o);
	union_release(d);
	for (int i = 0; i < d->nnames; i++)
		free(d->names[i]);
	free(d->names);
	free(d->first_buf);
	free(d->first_name);
	for (int i = 0; d->origins && i < d->nfiles; i++)
		free(d->origins[i].data);
	free(d->origins);
	free(d);
	w->priv = NULL;
}

const struct tdat_writer_ops tdat_writer_dat_ops = {
	.options = dat_options,
	.name = "dat",
	.exts = ".dat",
	.output = TDAT_OUT_STREAM,
	.open = dat_open,
	.put = dat_put,
	.close = dat_close,
	.free = dat_free,
	.size = dat_size,
	.copy = dat_copy,
};
