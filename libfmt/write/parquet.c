// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * parquet.c - "parquet": a dataset folder (w->path, a temporary name the
 * tool renames when complete) of Parquet files (parquet-enc.c), each table
 * a file that a glob picks out alone (of the .parquet files of DIR itself,
 * only events.parquet):
 *
 *   events.parquet        every event: the common columns, system, event;
 *   event/SYSTEM.EVENT.parquet  one per event type present (named, split
 *                         and matched as the typed CSV's files, csvdir.c),
 *                         with the columns ts, cpu, input, buffer, pid,
 *                         comm, lost and then every field of the format, a
 *                         field the format prints as a kernel symbol
 *                         followed by FIELD_sym (a stack's not yet);
 *   analysis/TABLE.parquet  the model's tables (parquet-model.c).
 *   _tdat/trace.json      tdat_file_info_json() of each input (info-json.c).
 *
 * Types: ts and lost INT64 (signed), cpu, input and pid INT32, buffer and
 * comm STRING; a number field an INTEGER of its width and signedness (a
 * pointer unsigned), a string or char array STRING, any other array a LIST
 * of INTEGERs of its element's width and signedness (the elements the typed
 * CSV prints "[a,b,...]"; of a stack, the entries the record holds), a
 * cpumask (a "cpumask_t" field) a LIST of the INT32 numbers of the CPUs
 * it has set, in increasing order, FIELD_sym a STRING (tfield_sym(), as
 * the typed CSV).  Strings are the text as it is, up to a NUL, each byte
 * that is not UTF-8 as U+FFFD (pq_put_text(): the sqlite and JSON writers'
 * rule), so that they equal sqlite's.  A field outside
 * a damaged event is null.
 *
 * The common columns of a row (and events.parquet's system and event) are
 * stored as one record that the thread encoding the row group puts into
 * the columns (parquet-common.c).
 *
 * Rows are buffered per file and written as a row group when a file holds
 * PQ_GROUP_ROWS rows, or, when the row groups being built together pass
 * PQ_BUDGET bytes of data, the largest are written until they hold PQ_LOW:
 * memory stays bounded whatever the input (the buffers waiting for reuse
 * count apart, PQ_POOL).  A file is opened only to append a row group and
 * closed again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "write/parquet-common.h"
#include "write/parquet-model.h"

#define PQ_GROUP_ROWS (1 << 20)
#define PQ_BUDGET ((size_t)12 << 20)
#define PQ_LOW (PQ_BUDGET / 4)	/* what a flush for the budget leaves */
#define PQ_LEVEL 3		/* zstd's level unless "compression-level" says */
#define NFIXED PQC_NFIXED	/* ts cpu input buffer pid comm lost */

struct pfile {
	struct typed_key key;	/* the type's (first: typed_find()); "" for events.parquet */
	char *fname;		/* BASE.parquet */
	struct pqc_name names;	/* system and event as events.parquet has them */
	bool *cpumask;		/* by field: a cpumask, written as CPU numbers */
	struct pq_table t;
	bool created;
};

struct pqw {
	int dirfd;		/* the dataset's folder: events.parquet */
	int typefd;		/* its event/ folder: a file per event type */
	int modelfd;		/* its analysis/ folder (parquet-model.c) */
	struct pq_ctx ctx;
	struct idtab *types;	/* by input: struct pfile by event type id */
	int ninputs;
	struct pfile **files;	/* files[0]: events.parquet */
	int nfiles, files_cap;
	size_t buffered;	/* bytes of data all tables' row groups hold */
	struct tdat_sink tmp;	/* scratch (unused by strings now; its err is checked) */
	struct pqm *model;	/* thread, process, sched_slice, ... (parquet-model.c) */
	struct pqc *common;	/* the comms and buffers' names the rows point at */
};

static int nomem(struct tdat_writer *w)
{
	tdat_msg(w->errmsg, "out of memory");
	return TDAT_ENOMEM;
}

/* ---- files ---- */

static int pfile_flush(struct tdat_writer *w, struct pqw *d, struct pfile *f, bool last)
{
	int flags = O_WRONLY | O_CLOEXEC | (f->created ? O_APPEND : O_CREAT | O_EXCL);
	int fd = openat(f == d->files[0] ? d->dirfd : d->typefd, f->fname, flags, 0666), ret;

	if (fd < 0) {
		w->sink.err = errno;
		tdat_msg(w->errmsg, "%s: %s", f->fname, strerror(errno));
		return TDAT_EIO;
	}
	f->created = true;
	d->buffered -= f->t.buffered;
	ret = last ? pq_finish(&d->ctx, &f->t, fd) : pq_flush(&d->ctx, &f->t, fd);
	if (close(fd) && !ret) {
		tdat_msg(w->errmsg, "%s: %s", f->fname, strerror(errno));
		ret = TDAT_EIO;
	}
	if (ret == TDAT_EIO && !w->sink.err)
		w->sink.err = EIO;
	return ret;
}

static void pfile_free(struct pfile *f)
{
	if (!f)
		return;
	pq_table_release(&f->t);
	free(f->fname);
	typed_key_free(&f->key);
	pqc_text_free(f->names.sys);
	pqc_text_free(f->names.name);
	free(f->cpumask);
	free(f);
}

static const char *const fixed[NFIXED] = { "ts", "cpu", "input", "buffer", "pid", "comm", "lost" };

/* The common columns (0 .. NFIXED - 1). */
static int fixed_cols(struct pq_table *t)
{
	int r = pq_col_int(t, 0, fixed[0], 64, true);

	r = r ? r : pq_col_int(t, 1, fixed[1], 32, true);
	r = r ? r : pq_col_int(t, 2, fixed[2], 32, true);
	r = r ? r : pq_col_str(t, 3, fixed[3]);
	r = r ? r : pq_col_int(t, 4, fixed[4], 32, true);
	r = r ? r : pq_col_str(t, 5, fixed[5]);
	r = r ? r : pq_col_int(t, 6, fixed[6], 64, true);
	t->sort_col = 0;
	t->cols[0].delta = true;
	return r;
}

/* Whether @f of @tt is a cpumask ("__data_loc cpumask_t[] NAME" or without the brackets). */
static bool is_cpumask(const struct ttype *tt, const struct tfield *f)
{
	const struct tep_format_field *fl = tt->event && f->kind == TK_ARRAY && !f->msg ?
					    tep_find_field(tt->event, f->name) : NULL;

	return fl && fl->type && strstr(fl->type, "cpumask_t");
}

/* An array's elements: 1, 2, 4 or 8 bytes (1 for any other size, as csv_put_array()). */
static unsigned elem_size(const struct tfield *f)
{
	return f->elem == 2 || f->elem == 4 || f->elem == 8 ? f->elem : 1;
}

static int field_col(struct pq_table *t, int i, const char *name, const struct tfield *f,
		     bool cpumask)
{
	if (cpumask)
		return pq_col_list(t, i, name, 32, true);
	if (f->kind == TK_ARRAY)
		return pq_col_list(t, i, name, elem_size(f) * 8, f->flags & TEP_FIELD_IS_SIGNED);
	if (f->kind == TK_STR)
		return pq_col_str(t, i, name);
	return pq_col_int(t, i, name, f->size * 8, f->kind == TK_INT);
}

/* A FIELD_sym column after @f (a stack's symbols: not yet). */
static bool has_sym_col(const struct tfield *f)
{
	return f->sym != TSYM_NONE;	/* a stack's: its symbols joined by ';', as the typed CSV */
}

static int sym_cols(const struct ttype *tt)
{
	int n = 0;

	for (int i = 0; i < tt->nfields; i++)
		n += has_sym_col(&tt->fields[i]);
	return n;
}

/* The text of the format of @tt in @f ("" if not kept). */
static const char *format_text(const struct tdat_file *f, const struct ttype *tt)
{
	const struct tdat_meta *m = &f->meta;
	char id[32];

	snprintf(id, sizeof(id), "\nID: %u\n", tt->id);
	for (int i = 0; i < m->nftrace; i++)
		if (strstr(m->ftrace[i].data, id))
			return m->ftrace[i].data;
	for (int s = 0; s < m->nsystems; s++)
		for (int i = 0; i < m->systems[s].nfmts; i++)
			if (strstr(m->systems[s].fmts[i].data, id))
				return m->systems[s].fmts[i].data;
	return "";
}

/* Key-value metadata: the inputs, the clock and the event's format. */
static int file_kv(struct tdat_writer *w, struct pq_table *t, const struct tdat_file *f,
		   const struct ttype *tt)
{
	struct tdat_sink s;
	int ret;

	if (sink_init(&s, -1))
		return TDAT_ENOMEM;
	for (int i = 0; i < tdat_merge_nfiles(w->merge); i++)
		sink_printf(&s, "%s%s", i ? "\n" : "", tdat_merge_file(w->merge, i)->info.path);
	sink_putc(&s, '\0');
	ret = s.err ? TDAT_ENOMEM : pq_table_kv(t, "tdat.source", s.buf);
	ret = ret ? ret : pq_table_kv(t, "tdat.clock", f->info.clock);
	if (!ret && tt)
		ret = pq_table_kv(t, "tdat.format", format_text(f, tt));
	sink_release(&s);
	return ret;
}

static bool fname_taken(const void *ctx, const char *base)
{
	const struct pqw *d = ctx;
	size_t n = strlen(base);

	for (int i = 0; i < d->nfiles; i++)
		if (!strncmp(d->files[i]->fname, base, n) && !strcmp(d->files[i]->fname + n, ".parquet"))
			return true;
	return !strcmp(base, "events");
}

static struct pfile *pfile_new(struct tdat_writer *w, struct pqw *d, const struct tdat_file *file,
			       const struct ttype *tt, char *sig)
{
	struct pfile *f = calloc(1, sizeof(*f));
	char *base = typed_unique_base(tt, fname_taken, d), **cols = NULL;

	if (!f || !base)
		goto fail;
	f->key.sig = sig;
	sig = NULL;
	if (asprintf(&f->fname, "%s.parquet", base) < 0)
		f->fname = NULL;
	f->key.system = strdup(tt->system);
	f->key.name = typed_type_name(tt);
	f->names.sys = f->key.system ? pqc_text_dup(f->key.system) : NULL;
	f->names.name = f->key.name ? pqc_text_dup(f->key.name) : NULL;
	cols = typed_columns(tt);
	f->cpumask = calloc((size_t)tt->nfields + 1, sizeof(*f->cpumask));
	if (!f->fname || !f->key.system || !f->key.name || !f->names.sys || !f->names.name ||
	    !cols || !f->cpumask ||
	    pq_table_init(&f->t, &d->ctx, f->fname, NFIXED + tt->nfields + sym_cols(tt)) ||
	    fixed_cols(&f->t) || pq_table_pack(&d->ctx, &f->t, NFIXED, pqc_unpack_type) ||
	    file_kv(w, &f->t, file, tt))
		goto fail;
	for (int i = 0, k = 0, c = NFIXED; i < tt->nfields; i++) {
		f->cpumask[i] = is_cpumask(tt, &tt->fields[i]);
		if (field_col(&f->t, c++, cols[k++], &tt->fields[i], f->cpumask[i]))
			goto fail;
		if (has_sym_col(&tt->fields[i]) && pq_col_str(&f->t, c++, cols[k]))
			goto fail;
		k += tt->fields[i].sym != TSYM_NONE;
	}
	goto out;
fail:
	pfile_free(f);
	f = NULL;
out:
	typed_columns_free(cols);
	free(base);
	free(sig);
	return f;
}

/* The file of @tt: one with the same system, name and fields, else a new one (0 is events.parquet). */
static struct pfile *find_file(struct tdat_writer *w, struct pqw *d, const struct tdat_file *file,
			       const struct ttype *tt)
{
	char *sig;
	struct pfile *f = typed_find((void *const *)d->files, 1, d->nfiles, tt, &sig);

	if (f || !sig)
		return f;
	if (array_room((void **)&d->files, d->nfiles, &d->files_cap, sizeof(*d->files), 64)) {
		free(sig);
		return NULL;
	}
	if ((f = pfile_new(w, d, file, tt, sig)))
		d->files[d->nfiles++] = f;
	return f;
}

/* ---- rows ---- */

/* @n bytes of @s as text (stopping at a NUL; pq_put_text()). */
static void put_text(struct pqw *d, struct pq_col *c, const char *s, size_t n)
{
	(void)d;
	pq_put_text(c, s, n);
}

/* An array's elements as a list (sign-extended if signed). */
static void put_array(struct pq_col *c, const struct tdat_file *file, const unsigned char *p,
		      unsigned len, const struct tfield *f)
{
	unsigned elem = elem_size(f), sh = 64 - 8 * elem;
	bool sign = (f->flags & TEP_FIELD_IS_SIGNED) && elem < 8;

	for (unsigned i = 0; i + elem <= len; i += elem) {
		uint64_t v = field_raw(file, p + i, elem);

		pq_put_elem(c, sign ? (uint64_t)((int64_t)(v << sh) >> sh) : v);
	}
	pq_put_list(c, len / elem);
}

/*
 * A cpumask's CPUs: the kernel's bitmap is an array of longs (in the file's
 * byte order), CPU n bit n % bits of word n / bits; bytes past the last
 * whole long are read one at a time.
 */
static void put_cpumask(struct pq_col *c, const struct tdat_file *file, const unsigned char *p,
			unsigned len)
{
	unsigned lsize = file->info.long_size == 4 ? 4 : 8, n = 0;

	for (unsigned i = 0; i < len;) {
		unsigned w = i + lsize <= len ? lsize : 1;
		uint64_t v = field_raw(file, p + i, w);

		for (; v; v &= v - 1, n++)
			pq_put_elem(c, (uint64_t)(i * 8 + (unsigned)__builtin_ctzll(v)));
		i += w;
	}
	pq_put_list(c, n);
}

static void put_field(struct pqw *d, struct pq_col *c, const struct tdat_event *ev,
		      const struct tfield *f, bool cpumask)
{
	const unsigned char *p;
	unsigned len;
	uint64_t v;

	if (f->kind != TK_STR && f->kind != TK_ARRAY) {
		if (tfield_num(ev, f, &v))
			pq_put_int(c, v);
		else
			pq_put_null(c);
	} else if (!tfield_bytes(ev, f, &p, &len)) {
		pq_put_null(c);
	} else if (f->kind == TK_STR) {
		put_text(d, c, (const char *)p, len);
	} else if (cpumask) {
		put_cpumask(c, ev->file, p, len);
	} else {
		put_array(c, ev->file, p, len, f);
	}
}

/* @f's symbol, the typed CSV's FIELD_sym as text (kept by address: read/fields.c). */
static void put_sym(struct pqw *d, struct pq_col *c, const struct tdat_event *ev,
		    const struct ttype *tt, const struct tfield *f)
{
	const char *p;
	unsigned len;

	if (tfield_sym(tt, ev, f, &p, &len))
		put_text(d, c, p, len);
	else
		pq_put_null(c);
}

/* The row of the event at @ts is complete in @f: count what it holds. */
static void row_end(struct pqw *d, struct pfile *f, uint64_t ts)
{
	d->buffered += pq_row_end_key(&f->t, (int64_t)ts);
}

/* The file whose row group holds the most bytes. */
static struct pfile *largest(struct pqw *d)
{
	struct pfile *big = d->files[0];

	for (int i = 1; i < d->nfiles; i++)
		if (d->files[i]->t.buffered > big->t.buffered)
			big = d->files[i];
	return big;
}

/*
 * Write a row group of @f if it is full; and when all hold more than
 * PQ_BUDGET, the largest ones until they hold at most PQ_LOW.  Writing only
 * the largest, to just under the budget, would write again at the next
 * row: row groups of a few thousand rows, thousands of them, each with its
 * pages, statistics and footer entry.
 */
static int maybe_flush(struct tdat_writer *w, struct pqw *d, struct pfile *f)
{
	int ret = 0;

	if (f->t.rows >= PQ_GROUP_ROWS && (ret = pfile_flush(w, d, f, false)))
		return ret;
	if (d->buffered <= PQ_BUDGET)
		return 0;
	while (!ret && d->buffered > PQ_LOW)
		ret = pfile_flush(w, d, largest(d), false);
	return ret;
}

static int parquet_put(struct tdat_writer *w, const struct tdat_event *ev)
{
	struct pqw *d = w->priv;
	const struct ttype *tt = file_type(ev->file, ev);
	struct pfile *f, *all = d->files[0];
	void **slot;
	int ret;

	if (!tt || !(slot = idtab_slot(&d->types[ev->input], tt->id)))
		return nomem(w);
	if (!(f = *slot) && !(f = *slot = find_file(w, d, ev->file, tt)))
		return nomem(w);
	if (pqc_put(d->common, &f->t, &all->t, ev, tt, &f->names))
		return nomem(w);
	for (int i = 0, c = NFIXED; i < tt->nfields; i++) {
		put_field(d, &f->t.cols[c++], ev, &tt->fields[i], f->cpumask[i]);
		if (has_sym_col(&tt->fields[i]))
			put_sym(d, &f->t.cols[c++], ev, tt, &tt->fields[i]);
	}
	if (d->tmp.err)
		return nomem(w);
	row_end(d, f, ev->ts);
	row_end(d, all, ev->ts);
	if ((ret = maybe_flush(w, d, f)) || (ret = maybe_flush(w, d, all)))
		return ret;
	if ((ret = pqm_put(d->model, ev, tt)) && !*w->errmsg)
		tdat_msg(w->errmsg, "%s", tdat_strerror(ret));
	return ret;
}

/* ---- open, close, free ---- */

static int parquet_close(struct tdat_writer *w)
{
	struct pqw *d = w->priv;
	int ret = 0;

	/* every last row group on its way first (to the helpers with -j), then the footers */
	for (int i = 0; i < d->nfiles && !ret; i++)
		if (d->files[i]->t.rows)
			ret = pfile_flush(w, d, d->files[i], false);
	for (int i = 0; i < d->nfiles && !ret; i++)
		ret = pfile_flush(w, d, d->files[i], true);
	if (!ret && (ret = pqm_close(d->model)) && !*w->errmsg)
		tdat_msg(w->errmsg, "%s", tdat_strerror(ret));
	return ret ? ret : dataset_info_write(w, d->dirfd);	/* _tdat/trace.json */
}

static void parquet_free(struct tdat_writer *w)
{
	struct pqw *d = w->priv;

	if (!d)
		return;
	pq_pool_stop(&d->ctx);	/* no helper reads a record's strings any more */
	for (int i = 0; i < d->nfiles; i++)
		pfile_free(d->files[i]);
	for (int i = 0; d->types && i < d->ninputs; i++)
		idtab_release(&d->types[i], NULL);
	pqc_free(d->common);
	pqm_free(d->model);
	if (d->dirfd >= 0)
		close(d->dirfd);
	if (d->typefd >= 0)
		close(d->typefd);
	if (d->modelfd >= 0)
		close(d->modelfd);
	pq_ctx_release(&d->ctx);
	sink_release(&d->tmp);
	free(d->files);
	free(d->types);
	free(d);
	w->priv = NULL;
}

/* events.parquet: the common columns, system, event. */
static int events_file(struct tdat_writer *w, struct pqw *d)
{
	struct pfile *f = calloc(1, sizeof(*f));

	if (!f || array_room((void **)&d->files, 0, &d->files_cap, sizeof(*d->files), 64)) {
		free(f);
		return TDAT_ENOMEM;
	}
	d->files[d->nfiles++] = f;
	if (!(f->fname = strdup("events.parquet")) || !(f->key.system = strdup("")) ||
	    !(f->key.name = strdup("")) || !(f->key.sig = strdup("")) ||
	    pq_table_init(&f->t, &d->ctx, f->fname, NFIXED + 2) || fixed_cols(&f->t) ||
	    pq_col_str(&f->t, NFIXED, "system") || pq_col_str(&f->t, NFIXED + 1, "event") ||
	    pq_table_pack(&d->ctx, &f->t, NFIXED + 2, pqc_unpack_events))
		return TDAT_ENOMEM;
	return tdat_merge_nfiles(w->merge) ?
	       file_kv(w, &f->t, tdat_merge_file(w->merge, 0), NULL) : 0;
}

/* The folder @name made in the folder @dirfd, opened; -1 with errno. */
static int subdir(int dirfd, const char *name)
{
	if (mkdirat(dirfd, name, 0777) && errno != EEXIST)
		return -1;
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int parquet_open(struct tdat_writer *w)
{
	struct pqw *d = calloc(1, sizeof(*d));

	if (!d)
		return nomem(w);
	w->priv = d;
	d->dirfd = d->typefd = d->modelfd = -1;
	d->tmp.fd = -1;
	if (pq_ctx_init(&d->ctx, w->opt.level ? w->opt.level : PQ_LEVEL,
			w->errmsg) || !(d->ctx.bp = bufpool_new(PQ_POOL)) ||
	    pq_ctx_helpers(&d->ctx, w->jobs) || sink_init(&d->tmp, -1))
		return nomem(w);
	if (w->flags & TDAT_W_GZIP) {
		tdat_msg(w->errmsg, "gzip is not supported with parquet");
		return TDAT_EUNSUPP;
	}
	d->dirfd = open(w->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->dirfd < 0 || (d->typefd = subdir(d->dirfd, "event")) < 0 ||
	    (d->modelfd = subdir(d->dirfd, "analysis")) < 0) {
		w->sink.err = errno;
		tdat_msg(w->errmsg, "%s%s", d->dirfd < 0 ? "" : d->typefd < 0 ? "event: " :
			 "analysis: ", strerror(errno));
		return TDAT_EIO;
	}
	tdat_merge_count(w->merge);	/* _tdat/trace.json without reading again */
	d->ninputs = tdat_merge_nfiles(w->merge);
	d->types = calloc((size_t)(d->ninputs ? d->ninputs : 1), sizeof(*d->types));
	if (!d->types || !(d->common = pqc_new(d->ninputs)) || events_file(w, d) ||
	    !(d->model = pqm_new(w, &d->ctx, d->modelfd)))
		return nomem(w);
	return 0;
}

static const struct writer_option parquet_options[] = {
	WOPT_INT("compression-level", 1, TDAT_ZSTD_LEVEL_MAX, level),
	{ NULL, WO_BOOL, NULL, 0, 0, 0 },
};

const struct tdat_writer_ops tdat_writer_parquet_ops = {
	.name = "parquet",
	.options = parquet_options,
	.exts = "",
	.output = TDAT_OUT_DIR,
	.fields = true,
	.threads = 1,		/* parquet-par.c's helpers encode the row groups from -j 2 on */
	.open = parquet_open,
	.put = parquet_put,
	.close = parquet_close,
	.free = parquet_free,
};
