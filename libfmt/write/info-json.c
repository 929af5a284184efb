/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * info-json.c - the JSON object of a file (tdat_file_info_json()): header
 * facts, buffers and per-CPU counts, lost events, the kernel's figures,
 * counts per event type, every section and option.  tdat-info --json prints
 * it, and the parquet writer puts one per input into the dataset's
 * _tdat/trace.json (dataset_info_write()), so the two cannot differ.
 *
 * The bytes are those json-c wrote with JSON_C_TO_STRING_PLAIN |
 * JSON_C_TO_STRING_NOSLASHESCAPE before the object moved here: no spaces,
 * '"', '\\' and control characters escaped (short forms, else \u00xx),
 * other bytes as they are.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/read.h"
#include "write/sink.h"
#include "write/writer-int.h"

#define JSON_EXACT ((uint64_t)1 << 53)	/* a double holds every integer up to this */
#define TDAT_INFO_DIR "_tdat"		/* a dataset's folder of what tdat says about it */

#define lit(sk, s) sink_write((sk), (s), sizeof(s) - 1)

/* ---- values ---- */

static void jstr(struct tdat_sink *sk, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	sink_putc(sk, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		const char *e = NULL;

		switch (*p) {
		case '"': e = "\\\""; break;
		case '\\': e = "\\\\"; break;
		case '\b': e = "\\b"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		case '\f': e = "\\f"; break;
		default:
			if (*p < ' ') {
				char u[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };

				sink_write(sk, u, sizeof(u));
			} else {
				sink_putc(sk, (char)*p);
			}
			continue;
		}
		sink_write(sk, e, strlen(e));
	}
	sink_putc(sk, '"');
}

/* "key": (a comma before it unless it is the object's first) */
static void jkey(struct tdat_sink *sk, bool *first, const char *k)
{
	if (!*first)
		sink_putc(sk, ',');
	*first = false;
	jstr(sk, k);
	sink_putc(sk, ':');
}

static void jnull(struct tdat_sink *sk)
{
	lit(sk, "null");
}

/*
 * A number as JSON readers keep it: a JSON number while a double holds it
 * exactly, else its decimal digits as a string (wall-clock timestamps).
 */
static void jnum(struct tdat_sink *sk, uint64_t v)
{
	sink_printf(sk, v <= JSON_EXACT ? "%" PRIu64 : "\"%" PRIu64 "\"", v);
}

static void jsnum(struct tdat_sink *sk, int64_t v)
{
	bool exact = v >= -(int64_t)JSON_EXACT && v <= (int64_t)JSON_EXACT;

	sink_printf(sk, exact ? "%" PRId64 : "\"%" PRId64 "\"", v);
}

static void jint(struct tdat_sink *sk, int v)
{
	sink_printf(sk, "%d", v);
}

static void jbool(struct tdat_sink *sk, bool v)
{
	if (v)
		lit(sk, "true");
	else
		lit(sk, "false");
}

/* Key @k with string @s, or null if @s is NULL. */
static void kstr(struct tdat_sink *sk, bool *first, const char *k, const char *s)
{
	jkey(sk, first, k);
	if (s)
		jstr(sk, s);
	else
		jnull(sk);
}

static void knum(struct tdat_sink *sk, bool *first, const char *k, uint64_t v)
{
	jkey(sk, first, k);
	jnum(sk, v);
}

/* Key @k with @v, or null without @have. */
static void knum_if(struct tdat_sink *sk, bool *first, const char *k, bool have, uint64_t v)
{
	jkey(sk, first, k);
	if (have)
		jnum(sk, v);
	else
		jnull(sk);
}

static void kint(struct tdat_sink *sk, bool *first, const char *k, int v)
{
	jkey(sk, first, k);
	jint(sk, v);
}

/* ---- the parts ---- */

/* The kernel's figures of CPU @cpu of buffer @b, or null if the file has none. */
static void json_kernel(struct tdat_sink *sk, struct tdat_file *f, int b, int cpu)
{
	static const struct {
		unsigned bit;
		const char *key;
		size_t off;
	} figs[] = {
#define KF(bit, field) { bit, #field, offsetof(struct tdat_kernel_cpu_stats, field) }
		KF(TDAT_KS_ENTRIES, entries), KF(TDAT_KS_OVERRUN, overrun),
		KF(TDAT_KS_COMMIT_OVERRUN, commit_overrun), KF(TDAT_KS_BYTES, bytes),
		KF(TDAT_KS_OLDEST_TS, oldest_event_ts), KF(TDAT_KS_NOW_TS, now_ts),
		KF(TDAT_KS_DROPPED, dropped_events), KF(TDAT_KS_READ, read_events),
#undef KF
	};
	const struct tdat_kernel_cpu_stats *k;
	int n;

	k = tdat_file_cpustat(f, &n);
	for (int i = 0; i < n; i++, k++) {
		bool first = true;

		if (k->buffer != b || k->cpu != cpu)
			continue;
		sink_putc(sk, '{');
		for (size_t j = 0; j < sizeof(figs) / sizeof(figs[0]); j++)
			if (k->have & figs[j].bit)
				knum(sk, &first, figs[j].key,
				     *(const uint64_t *)((const char *)k + figs[j].off));
		sink_putc(sk, '}');
		return;
	}
	jnull(sk);
}

static void json_cpu(struct tdat_sink *sk, struct tdat_file *f, const struct tdat_cpu_stats *c,
		     const struct tdat_buffer_info *bi, int b)
{
	bool first = true;
	int at = -1;

	sink_putc(sk, '{');
	kint(sk, &first, "cpu", c->cpu);
	for (int k = 0; k < bi->ncpus; k++)	/* the last one, as json-c kept it */
		if (bi->cpus[k].cpu == c->cpu)
			at = k;
	if (at >= 0)
		knum(sk, &first, "offset", bi->cpus[at].offset);
	knum(sk, &first, "events", c->events);
	knum(sk, &first, "lost", c->lost);
	knum(sk, &first, "lost_unknown_pages", c->lost_pages);
	knum(sk, &first, "stored_bytes", c->stored);
	knum(sk, &first, "uncompressed_bytes", c->usize);
	knum(sk, &first, "damaged_bytes", c->damaged);
	knum_if(sk, &first, "first_ts", c->events, c->first_ts);
	knum_if(sk, &first, "last_ts", c->events, c->last_ts);
	jkey(sk, &first, "kernel");
	json_kernel(sk, f, b, c->cpu);
	sink_putc(sk, '}');
}

static void json_cpus(struct tdat_sink *sk, struct tdat_file *f, const struct tdat_stats *s, int b)
{
	const struct tdat_buffer_info *bi = tdat_file_buffer(f, b);
	bool first = true;

	sink_putc(sk, '[');
	for (int i = 0; i < s->ncpus; i++) {
		if (s->cpus[i].buffer != b)
			continue;
		if (!first)
			sink_putc(sk, ',');
		first = false;
		json_cpu(sk, f, &s->cpus[i], bi, b);
	}
	sink_putc(sk, ']');
}

static void json_buffers(struct tdat_sink *sk, struct tdat_file *f, const struct tdat_stats *s)
{
	const struct tdat_file_info *fi = tdat_file_info(f);

	sink_putc(sk, '[');
	for (int i = 0; i < fi->nbuffers; i++) {
		const struct tdat_buffer_info *bi = tdat_file_buffer(f, i);
		bool first = true;

		if (i)
			sink_putc(sk, ',');
		sink_putc(sk, '{');
		kstr(sk, &first, "name", bi->name);
		kstr(sk, &first, "clock", bi->clock);
		kint(sk, &first, "page_size", (int)bi->page_size);
		jkey(sk, &first, "latency");
		jbool(sk, bi->latency);
		jkey(sk, &first, "cpus");
		json_cpus(sk, f, s, i);
		sink_putc(sk, '}');
	}
	sink_putc(sk, ']');
}

static void json_counts(struct tdat_sink *sk, const struct tdat_stats *s)
{
	sink_putc(sk, '[');
	for (int i = 0; i < s->nevents; i++) {
		bool first = true;

		if (i)
			sink_putc(sk, ',');
		sink_putc(sk, '{');
		kstr(sk, &first, "system", s->events[i].system);
		kstr(sk, &first, "name", s->events[i].name);
		knum(sk, &first, "count", s->events[i].count);
		sink_putc(sk, '}');
	}
	sink_putc(sk, ']');
}

/* The piece mark as an object (the split id as 16 hex digits: JSON numbers lose bits). */
static void json_piece(struct tdat_sink *sk, const struct tdat_piece *p)
{
	bool first = true;
	char id[24];

	if (!p) {
		jnull(sk);
		return;
	}
	sink_putc(sk, '{');
	snprintf(id, sizeof(id), "%016" PRIx64, p->split);
	kstr(sk, &first, "split", id);
	kint(sk, &first, "seq", (int)p->seq);
	jkey(sk, &first, "count");
	if (p->count)
		jint(sk, (int)p->count);
	else
		jnull(sk);
	kstr(sk, &first, "name", p->name);
	if (p->source) {
		snprintf(id, sizeof(id), "%016" PRIx64, p->source);
		kstr(sk, &first, "source", id);
	}
	kstr(sk, &first, "how", *p->how ? p->how : NULL);
	sink_putc(sk, '}');
}

/* A merged trace.dat's inputs: name and buffers of each; null for another file. */
static void json_merged(struct tdat_sink *sk, const struct tdat_file *f)
{
	if (!tdat_file_norigins(f)) {
		jnull(sk);
		return;
	}
	sink_putc(sk, '[');
	for (int i = 0; i < tdat_file_norigins(f); i++) {
		const struct tdat_origin *o = tdat_file_origin(f, i);
		bool first = true;

		if (i)
			sink_putc(sk, ',');
		sink_putc(sk, '{');
		kstr(sk, &first, "name", o->name);
		jkey(sk, &first, "buffers");
		sink_putc(sk, '[');
		for (int k = 0; k < o->nbuffers; k++) {
			if (k)
				sink_putc(sk, ',');
			jstr(sk, o->buffers[k]);
		}
		lit(sk, "]}");
	}
	sink_putc(sk, ']');
}

static void json_section(struct tdat_sink *sk, const struct tdat_file *f,
			 const struct tdat_section_info *p)
{
	static const char *const kinds[] = { "section", "option", "v6 part" };
	bool first = true;

	sink_putc(sk, '{');
	kstr(sk, &first, "kind", p->kind >= 0 && p->kind <= 2 ? kinds[p->kind] : "?");
	kint(sk, &first, "id", (int)p->id);
	kstr(sk, &first, "name", *p->name ? p->name : NULL);
	kstr(sk, &first, "what", p->what);
	kstr(sk, &first, "label", *p->label ? p->label : NULL);
	knum(sk, &first, "offset", p->offset);
	if (p->kind == TDAT_OPTION && f && tdat_file_info(f)->version >= 7)
		knum(sk, &first, "pos", p->pos);
	knum(sk, &first, "size", p->size);
	if (p->compressed)
		knum(sk, &first, "uncompressed_size", p->usize);
	jkey(sk, &first, "compressed");
	jbool(sk, p->compressed);
	kstr(sk, &first, "damage", p->damage);
	sink_putc(sk, '}');
}

/* Every section and option of the file, in file order (tdat_file_sections()). */
static void json_sections(struct tdat_sink *sk, const struct tdat_file *f)
{
	const struct tdat_section_info *p;
	int n = 0;

	p = tdat_file_sections(f, &n);
	sink_putc(sk, '[');
	for (int i = 0; i < n; i++, p++) {
		if (i)
			sink_putc(sk, ',');
		json_section(sk, f, p);
	}
	sink_putc(sk, ']');
}

/* The header facts: file, size, ... ts_offset, cpus. */
static void json_header(struct tdat_sink *sk, bool *first, const struct tdat_file_info *fi)
{
	kstr(sk, first, "file", fi->path);
	knum(sk, first, "size", fi->file_size);
	if (strcmp(fi->packing, "none")) {	/* a .dat.gz, .dat.zst, .dat.xz */
		kstr(sk, first, "packing", fi->packing);
		knum(sk, first, "packed_size", fi->packed_size);
	}
	kint(sk, first, "version", fi->version);
	kstr(sk, first, "endian", fi->big_endian ? "big" : "little");
	kint(sk, first, "long_size", fi->long_size);
	kint(sk, first, "page_size", (int)fi->page_size);
	kstr(sk, first, "compression", fi->compression);
	kstr(sk, first, "compression_version", fi->compression_version);
	kstr(sk, first, "uname", fi->uname);
	kstr(sk, first, "tracecmd_version", fi->tracecmd_version);
	kstr(sk, first, "clock", fi->clock);
	kstr(sk, first, "ts_unit", fi->in_usecs ? "ns" : "clock");
	jkey(sk, first, "ts_offset");
	jsnum(sk, fi->ts_offset);
	kint(sk, first, "cpus", fi->cpus);
}

static void info_json(struct tdat_sink *sk, struct tdat_file *f, const struct tdat_stats *s)
{
	const struct tdat_file_info *fi = tdat_file_info(f);
	bool first = true;

	sink_putc(sk, '{');
	json_header(sk, &first, fi);
	jkey(sk, &first, "buffers");
	json_buffers(sk, f, s);
	knum(sk, &first, "events", s->total);
	knum(sk, &first, "lost", s->lost);
	knum_if(sk, &first, "first_ts", s->total, s->first_ts);
	knum_if(sk, &first, "last_ts", s->total, s->last_ts);
	knum_if(sk, &first, "all_cpus_start", s->total, s->common_start);
	knum_if(sk, &first, "all_cpus_end", s->total, s->common_end);
	jkey(sk, &first, "event_counts");
	json_counts(sk, s);
	kstr(sk, &first, "cpustat", fi->cpustat);
	jkey(sk, &first, "piece");
	json_piece(sk, tdat_file_piece(f));
	jkey(sk, &first, "merged");
	json_merged(sk, f);
	jkey(sk, &first, "sections");
	json_sections(sk, f);
	lit(sk, "}\n");
}

char *tdat_file_info_json(struct tdat_file *f, const struct tdat_stats *s)
{
	struct tdat_sink sk;

	if (sink_init(&sk, -1))
		return NULL;
	info_json(&sk, f, s);
	sink_putc(&sk, '\0');
	if (sk.err) {
		sink_release(&sk);
		return NULL;
	}
	return sk.buf;	/* the caller's: the memory sink's buffer */
}

/* ---- a dataset's _tdat/trace.json ---- */

/*
 * The files the caller added to @m, in order: a merged file's views (one
 * input each in the merge) stand for it once.
 */
static struct tdat_file *added_file(struct tdat_merge *m, int *i)
{
	struct tdat_file *f = merge_member(m, (*i)++), *o;

	if (!f || !f->view_of)
		return f;
	o = f->view_of;
	while (merge_member(m, *i) && merge_member(m, *i)->view_of == o)
		(*i)++;
	return o;
}

/* The statistics of @f: what @m counted, else (it did not see them all) read again. */
static int file_stats(struct tdat_writer *w, struct tdat_file *f, struct tdat_stats **s)
{
	int ret = tdat_merge_stats(w->merge, f, s);

	if (ret == TDAT_EINVAL)
		ret = tdat_stats_collect(f, s);
	if (ret)
		tdat_msg(w->errmsg, "%s: %s", f->info.path, *f->errmsg ? f->errmsg : tdat_strerror(ret));
	return ret;
}

int dataset_info_write(struct tdat_writer *w, int dirfd)
{
	struct tdat_sink sk;
	struct tdat_file *f;
	int fd, ret = 0;

	if ((mkdirat(dirfd, TDAT_INFO_DIR, 0777) && errno != EEXIST) ||
	    (fd = openat(dirfd, TDAT_INFO_DIR "/trace.json",
			 O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
		w->sink.err = errno;
		tdat_msg(w->errmsg, TDAT_INFO_DIR "/trace.json: %s", strerror(errno));
		return TDAT_EIO;
	}
	if (sink_init(&sk, fd)) {
		close(fd);
		return TDAT_ENOMEM;
	}
	for (int i = 0; !ret && (f = added_file(w->merge, &i));) {
		struct tdat_stats *s = NULL;

		if (!(ret = file_stats(w, f, &s)))
			info_json(&sk, f, s);
		tdat_stats_free(s);
	}
	if ((sink_finish(&sk) | close(fd)) && !ret) {
		w->sink.err = sk.err ? sk.err : errno;
		tdat_msg(w->errmsg, TDAT_INFO_DIR "/trace.json: %s", strerror(w->sink.err));
		ret = TDAT_EIO;
	}
	sink_release(&sk);
	return ret;
}
