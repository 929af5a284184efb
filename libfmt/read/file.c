/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * file.c - the life of a struct tdat_file: made, opened (the sections are
 * read by dat-header.c), asked for its description, its latency text, its
 * kernel symbols and warnings, and freed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "read/kallsyms.h"
#include "read/read.h"

struct tdat_file *tdat_file_new(void)
{
	struct tdat_file *f = calloc(1, sizeof(*f));

	if (f) {
		f->src.fd = -1;
		f->origin_want = -1;
	}
	return f;
}

int tdat_file_set_name(struct tdat_file *f, const char *name)
{
	char *n = strdup(name);

	if (!n)
		return TDAT_ENOMEM;
	free(f->name);
	f->name = n;
	f->info.name = n;
	return 0;
}

/* The base name of the path without ".dat" (or ".dat.gz", .zst, .xz); "stdin" for "-". */
static int file_default_name(struct tdat_file *f)
{
	const char *b = strrchr(f->path, '/');
	size_t n;
	int ret;

	b = b ? b + 1 : f->path;
	if (!strcmp(f->path, "-") || !*b)
		b = "stdin";
	if ((ret = tdat_file_set_name(f, b)))
		return ret;
	n = strlen(f->name);
	for (const char *const *z = (const char *const[]){ ".gz", ".zst", ".xz", NULL }; *z; z++) {
		size_t e = strlen(*z);

		if (n > e + 4 && !strcmp(f->name + n - e, *z) &&
		    !strncmp(f->name + n - e - 4, ".dat", 4)) {
			n -= e;
			break;
		}
	}
	if (n > 4 && !strncmp(f->name + n - 4, ".dat", 4))
		f->name[n - 4] = '\0';
	return 0;
}

void tdat_file_set_ts_offset(struct tdat_file *f, int64_t ns)
{
	f->info.ts_offset += ns - f->user_offset;
	f->user_offset = ns;
}

int tdat_file_open(struct tdat_file *f, const char *path, const struct tdat_open_opts *opts)
{
	struct rd r = { .f = f };
	int ret;

	f->flags = opts ? opts->flags : 0;
	f->info.ts_offset = opts ? opts->ts_offset : 0;
	f->user_offset = f->info.ts_offset;
	f->info.in_usecs = 1;
	f->ts2secs_given = opts && opts->ts2secs_hz;
	f->ts2secs_hz = opts ? opts->ts2secs_hz : 0;
	if (f->ts2secs_given && !(f->flags & TDAT_OPEN_RAW_TS))
		f->ts2secs = 1e9 / (double)opts->ts2secs_hz;
	f->path = strdup(path);
	if (!f->path || (ret = file_default_name(f)))
		return TDAT_ENOMEM;
	f->info.path = f->path;
	if ((ret = src_open(&f->src, path, f->errmsg)))
		return ret;
	f->info.file_size = f->src.size;
	f->info.packing = unpack_name(f->src.packing);
	f->info.packed_size = f->src.packed_size;
	f->info.compression = "none";
	f->info.compression_version = "";
	f->codec = codec_find("none");
	ret = dat_read_sections(f, &r);
	if (!ret && f->meta_deferred)	/* one of maybe thousands of pieces: closed until read */
		file_park(f);
	if (!ret && f->is_piece && f->origin_want < 0)	/* named after the file it was cut from */
		ret = tdat_file_set_name(f, f->piece_name);
	rd_drop_mem(&r);
	if (ret == TDAT_ENOMEM && !f->errmsg[0])
		tdat_msg(f->errmsg, "out of memory");
	return ret;
}

/*
 * @f opened again through its descriptor, as view @origin (-1: the whole
 * file); a @clone (file_clone()) with @symbols reads @f's kallsyms text.
 */
static int file_reopen(struct tdat_file *f, int origin, bool symbols, bool clone,
		       struct tdat_file **out, char *err)
{
	struct tdat_open_opts o = { .flags = f->flags, .ts2secs_hz = f->ts2secs_hz };
	struct tdat_file *c = tdat_file_new();
	char fdpath[64];
	char *path;
	int ret;

	*out = NULL;
	if (!c)
		return TDAT_ENOMEM;
	c->no_syms = !symbols;
	c->clone = clone;
	c->syms_text = clone && symbols ? meta_of(f)->meta.kallsyms.data : NULL;
	c->syms_tep = c->syms_text && meta_of(f)->syms_shared ? meta_of(f)->tep : NULL;
	c->origin_want = origin;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", f->src.fd);
	ret = tdat_file_open(c, fdpath, &o);
	if (!ret && origin < 0)
		ret = tdat_file_set_name(c, f->name);
	if (ret || !(path = strdup(f->path))) {
		if (err && ret && ret != TDAT_ENOMEM)
			tdat_msg(err, "%s", c->errmsg);
		tdat_file_free(c);
		return ret ? ret : TDAT_ENOMEM;
	}
	free(c->path);
	c->path = path;
	c->info.path = path;
	c->view_of = f->view_of;
	tdat_file_set_ts_offset(c, f->user_offset);
	*out = c;
	return 0;
}

int file_clone(struct tdat_file *f, bool symbols, struct tdat_file **out)
{
	return file_reopen(f, f->origin_want, symbols, true, out, NULL);
}

int file_view(struct tdat_file *f, int origin, struct tdat_file **out, char *err)
{
	int ret = file_reopen(f, origin, true, false, out, err);

	if (!ret)
		(*out)->view_of = f;
	return ret;
}

const struct tdat_file_info *tdat_file_info(const struct tdat_file *f)
{
	return &f->info;
}

const struct tdat_buffer_info *tdat_file_buffer(const struct tdat_file *f, int i)
{
	return i >= 0 && i < f->nbuffers ? &f->buffers[i].info : NULL;
}

/* Decompress the chunks of a compressed latency section into one text. */
static int latency_chunks(struct tdat_file *f, struct tdat_buffer *b, char **out, size_t *len)
{
	struct rd r = { .f = f, .off = b->lat_offset };
	uint64_t count, zs, us, total = 0;
	char *z, *text = NULL, *p;
	int ret;

	if ((ret = rd_num(&r, 4, &count, "chunk count")))
		return ret;
	for (uint64_t i = 0; i < count; i++) {
		if ((ret = rd_num(&r, 4, &zs, "chunk header")) || (ret = rd_num(&r, 4, &us, "chunk header")))
			goto fail;
		if (us > (f->src.size + 4096) * 1024 || total + us > ((uint64_t)1 << 32)) {
			ret = rd_fail(&r, "latency chunk size does not fit the file");
			goto fail;
		}
		if ((ret = rd_blob(&r, zs, &z, "latency chunk")))
			goto fail;
		p = realloc(text, total + us + 1);
		if (!p) {
			free(z);
			ret = TDAT_ENOMEM;
			goto fail;
		}
		text = p;
		ret = file_decompress(f, z, zs, text + total, us);
		free(z);
		if (ret) {
			ret = rd_fail(&r, "latency chunk does not decompress");
			goto fail;
		}
		total += us;
	}
	*out = text ? text : strdup("");
	*len = total;
	return *out ? 0 : TDAT_ENOMEM;
fail:
	free(text);
	return ret;
}

const char *tdat_file_latency_text(struct tdat_file *f, int i, size_t *len)
{
	struct tdat_buffer *b;
	struct rd r = { .f = f };

	if (i < 0 || i >= f->nbuffers || !f->buffers[i].info.latency)
		return NULL;
	b = &f->buffers[i];
	if (!b->lat_text) {
		r.off = b->lat_offset;
		if (b->compressed ? latency_chunks(f, b, &b->lat_text, &b->lat_len) :
		    rd_blob(&r, b->lat_size, &b->lat_text, "latency text"))
			return NULL;
		if (!b->compressed)
			b->lat_len = b->lat_size;
	}
	*len = b->lat_len;
	return b->lat_text;
}

const char *file_kallsyms(const struct tdat_file *f)
{
	return f->meta.kallsyms.data ? f->meta.kallsyms.data : f->syms_text;
}

/*
 * Parsing kallsyms (5 MB, 120k symbols on a common kernel) costs more than
 * 100 ms, and only the writers that print function names need it.  A
 * worker's clone of a file whose map is shared looks names up there
 * (kallsyms_share()).
 */
void file_load_symbols(struct tdat_file *f)
{
	int ret;

	f = meta_of(f);
	if (!f->syms_pending)
		return;
	f->syms_pending = false;
	if (!file_kallsyms(f) || (f->syms_tep && !kallsyms_share(f->tep, f->syms_tep)))
		ret = 0;
	else if ((ret = kallsyms_load(f->tep, file_kallsyms(f))) == -2)
		file_warn(f, "out of memory reading kallsyms: "
			  "kernel addresses may be shown as numbers");
	f->syms_loaded = file_kallsyms(f) && ret != -2;
	last_boot_setup(f);
	/*
	 * A worker's clone writes no trace.dat and reads no origin again: a
	 * text of its own (a view's input's) has served.
	 */
	if (f->clone) {
		free(f->meta.kallsyms.data);
		f->meta.kallsyms.data = NULL;
		f->meta.kallsyms.len = 0;
	}
}

void file_share_symbols(struct tdat_file *f)
{
	file_load_symbols(f);
	f = meta_of(f);
	f->syms_shared = f->syms_loaded && !f->clone && !f->syms_tep && !last_boot_moves(f) &&
			 kallsyms_shareable(f->tep, file_kallsyms(f));
}

const char *function_name(struct tdat_file *f, uint64_t addr)
{
	file_load_symbols(f);
	return tep_find_function(f->tep, addr);
}

void file_warn(struct tdat_file *f, const char *fmt, ...)
{
	char **w = realloc(f->warnings, sizeof(*w) * (size_t)(f->nwarnings + 1));
	va_list ap;

	if (!w)
		return;
	f->warnings = w;
	va_start(ap, fmt);
	if (vasprintf(&w[f->nwarnings], fmt, ap) >= 0)
		f->nwarnings++;
	va_end(ap);
}

int tdat_file_nwarnings(const struct tdat_file *f)
{
	return f->nwarnings;
}

const char *tdat_file_warning(const struct tdat_file *f, int i)
{
	return i >= 0 && i < f->nwarnings ? f->warnings[i] : NULL;
}

const char *tdat_file_errmsg(const struct tdat_file *f)
{
	return f->errmsg;
}

int file_decompress(struct tdat_file *f, const void *src, size_t slen, void *dst, size_t dlen)
{
	if (f->codec->ctx_new && !f->codec_ctx && !(f->codec_ctx = f->codec->ctx_new()))
		return TDAT_ENOMEM;
	return f->codec->decompress(f->codec_ctx, src, slen, dst, dlen);
}

void file_park(struct tdat_file *f)
{
	if (f->codec && f->codec->ctx_free && f->codec_ctx)
		f->codec->ctx_free(f->codec_ctx);
	f->codec_ctx = NULL;
	src_park(&f->src);
}

int file_cpu_count(struct tdat_file *f)
{
	int n = tdat_file_info(f)->cpus;

	for (int b = 0; b < f->nbuffers; b++)
		for (int c = 0; c < f->buffers[b].info.ncpus; c++)
			if (f->buffers[b].info.cpus[c].cpu >= n && f->buffers[b].info.cpus[c].cpu < MAX_CPUS)
				n = f->buffers[b].info.cpus[c].cpu + 1;
	return n;
}

/* What only a file that owns its metadata frees (a piece that borrows shares it). */
static void free_meta(struct tdat_file *f)
{
	if (f->meta_owner) {
		f->unsupp_ids = NULL;
		return;
	}
	meta_release(&f->meta);
	file_types_free(f);
	last_boot_free(f);
	if (f->tep) {
		if (f->plugins)
			tep_unload_plugins(f->plugins, f->tep);
		tep_free(f->tep);
	}
}

static void file_release(struct tdat_file *f)
{
	for (int i = 0; i < f->nbuffers; i++) {
		free((char *)f->buffers[i].info.name);
		free((char *)f->buffers[i].info.clock);
		free(f->buffers[i].cpus);
		free(f->buffers[i].lat_text);
	}
	free(f->buffers);
	free_meta(f);
	for (int i = 0; i < f->tsync_ncpus; i++)
		free(f->tsync[i].samples);
	free(f->tsync);
	if (f->codec && f->codec->ctx_free && f->codec_ctx)
		f->codec->ctx_free(f->codec_ctx);
	src_close(&f->src);
	free(f->path);
	free(f->name);
	free(f->piece_name);
	free(f->piece_how);
	origins_free(f);
	free(f->uname);
	free(f->version);
	free(f->clock);
	free(f->cpustat);
	cpustat_free(f);
	free(f->zname);
	free(f->zver);
	free(f->strings);
	for (int i = 0; i < f->nwarnings; i++)
		free(f->warnings[i]);
	free(f->warnings);
	sections_free(f);
	file_unsupported_free(f);
	free(f);
}

/*
 * A file whose metadata other pieces borrow stays (as a zombie) until the
 * last of them is freed.
 */
void tdat_file_free(struct tdat_file *f)
{
	struct tdat_file *o;

	if (!f)
		return;
	if (f->nborrowers) {
		f->zombie = true;
		return;
	}
	o = f->meta_owner;
	file_release(f);
	if (o && !--o->nborrowers && o->zombie)
		file_release(o);
}
