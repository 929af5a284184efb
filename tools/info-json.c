/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * info-json.c - the JSON object tdat-info --json prints for a file (header
 * facts, buffers and per-CPU counts, lost events, the kernel's figures,
 * counts per event type, every section and option), shared with tdat-convert -f parquet, which puts
 * it into the dataset's trace.json.
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

#define JSON_EXACT ((uint64_t)1 << 53)	/* a double holds every integer up to this */

static void jadd(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

/*
 * A number as JSON readers keep it: a JSON number while a double holds it
 * exactly, else its decimal digits as a string (wall-clock timestamps).
 */
static json_object *jnum(uint64_t v)
{
	char b[24];

	if (v <= JSON_EXACT)
		return json_object_new_uint64(v);
	snprintf(b, sizeof(b), "%" PRIu64, v);
	return json_object_new_string(b);
}

static json_object *jsnum(int64_t v)
{
	char b[24];

	if (v >= -(int64_t)JSON_EXACT && v <= (int64_t)JSON_EXACT)
		return json_object_new_int64(v);
	snprintf(b, sizeof(b), "%" PRId64, v);
	return json_object_new_string(b);
}

/* The kernel's figures of CPU @cpu of buffer @b, or NULL if the file has none. */
static json_object *json_kernel(struct tdat_file *f, int b, int cpu)
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
		json_object *o;

		if (k->buffer != b || k->cpu != cpu)
			continue;
		o = json_object_new_object();
		for (size_t j = 0; j < sizeof(figs) / sizeof(figs[0]); j++)
			if (k->have & figs[j].bit)
				jadd(o, figs[j].key, jnum(
					     *(const uint64_t *)((const char *)k + figs[j].off)));
		return o;
	}
	return NULL;
}

static json_object *json_cpus(struct tdat_file *f, const struct tdat_stats *s, int b)
{
	const struct tdat_buffer_info *bi = tdat_file_buffer(f, b);
	json_object *arr = json_object_new_array();

	for (int i = 0; i < s->ncpus; i++) {
		const struct tdat_cpu_stats *c = &s->cpus[i];
		json_object *o;

		if (c->buffer != b)
			continue;
		o = json_object_new_object();
		jadd(o, "cpu", json_object_new_int(c->cpu));
		for (int k = 0; k < bi->ncpus; k++)
			if (bi->cpus[k].cpu == c->cpu)
				jadd(o, "offset", jnum(bi->cpus[k].offset));
		jadd(o, "events", jnum(c->events));
		jadd(o, "lost", jnum(c->lost));
		jadd(o, "lost_unknown_pages", jnum(c->lost_pages));
		jadd(o, "stored_bytes", jnum(c->stored));
		jadd(o, "uncompressed_bytes", jnum(c->usize));
		jadd(o, "damaged_bytes", jnum(c->damaged));
		jadd(o, "first_ts", c->events ? jnum(c->first_ts) : NULL);
		jadd(o, "last_ts", c->events ? jnum(c->last_ts) : NULL);
		jadd(o, "kernel", json_kernel(f, b, c->cpu));
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *json_buffers(struct tdat_file *f, const struct tdat_stats *s)
{
	const struct tdat_file_info *fi = tdat_file_info(f);
	json_object *arr = json_object_new_array();

	for (int i = 0; i < fi->nbuffers; i++) {
		const struct tdat_buffer_info *bi = tdat_file_buffer(f, i);
		json_object *o = json_object_new_object();

		jadd(o, "name", json_object_new_string(bi->name));
		jadd(o, "clock", json_object_new_string(bi->clock));
		jadd(o, "page_size", json_object_new_int((int)bi->page_size));
		jadd(o, "latency", json_object_new_boolean(bi->latency));
		jadd(o, "cpus", json_cpus(f, s, i));
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *json_counts(const struct tdat_stats *s)
{
	json_object *arr = json_object_new_array();

	for (int i = 0; i < s->nevents; i++) {
		json_object *o = json_object_new_object();

		jadd(o, "system", json_object_new_string(s->events[i].system));
		jadd(o, "name", json_object_new_string(s->events[i].name));
		jadd(o, "count", jnum(s->events[i].count));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* The piece mark as an object (the split id as 16 hex digits: JSON numbers lose bits). */
static json_object *json_piece(const struct tdat_piece *p)
{
	json_object *o;
	char id[24];

	if (!p)
		return NULL;
	o = json_object_new_object();
	snprintf(id, sizeof(id), "%016" PRIx64, p->split);
	jadd(o, "split", json_object_new_string(id));
	jadd(o, "seq", json_object_new_int((int)p->seq));
	jadd(o, "count", p->count ? json_object_new_int((int)p->count) : NULL);
	jadd(o, "name", json_object_new_string(p->name));
	if (p->source) {
		snprintf(id, sizeof(id), "%016" PRIx64, p->source);
		jadd(o, "source", json_object_new_string(id));
	}
	jadd(o, "how", *p->how ? json_object_new_string(p->how) : NULL);
	return o;
}

/* A merged trace.dat's inputs: name and buffers of each; NULL for another file. */
static json_object *json_merged(const struct tdat_file *f)
{
	json_object *arr;

	if (!tdat_file_norigins(f))
		return NULL;
	arr = json_object_new_array();
	for (int i = 0; i < tdat_file_norigins(f); i++) {
		const struct tdat_origin *o = tdat_file_origin(f, i);
		json_object *e = json_object_new_object(), *b = json_object_new_array();

		for (int k = 0; k < o->nbuffers; k++)
			json_object_array_add(b, json_object_new_string(o->buffers[k]));
		jadd(e, "name", json_object_new_string(o->name));
		jadd(e, "buffers", b);
		json_object_array_add(arr, e);
	}
	return arr;
}

/* Every section and option of the file, in file order (tdat_file_sections()). */
static json_object *json_sections(const struct tdat_file *f)
{
	static const char *const kinds[] = { "section", "option", "v6 part" };
	const struct tdat_section_info *p = NULL;
	json_object *arr = json_object_new_array();
	int n = 0;

	p = tdat_file_sections(f, &n);
	for (int i = 0; i < n; i++, p++) {
		json_object *o = json_object_new_object();

		jadd(o, "kind", json_object_new_string(p->kind >= 0 && p->kind <= 2 ? kinds[p->kind] : "?"));
		jadd(o, "id", json_object_new_int((int)p->id));
		jadd(o, "name", *p->name ? json_object_new_string(p->name) : NULL);
		jadd(o, "what", json_object_new_string(p->what));
		jadd(o, "label", *p->label ? json_object_new_string(p->label) : NULL);
		jadd(o, "offset", jnum(p->offset));
		if (p->kind == TDAT_OPTION && f && tdat_file_info(f)->version >= 7)
			jadd(o, "pos", jnum(p->pos));
		jadd(o, "size", jnum(p->size));
		if (p->compressed)
			jadd(o, "uncompressed_size", jnum(p->usize));
		jadd(o, "compressed", json_object_new_boolean(p->compressed));
		jadd(o, "damage", p->damage ? json_object_new_string(p->damage) : NULL);
		json_object_array_add(arr, o);
	}
	return arr;
}

void info_json_print(struct tdat_file *f, const struct tdat_stats *s, FILE *fp)
{
	const struct tdat_file_info *fi = tdat_file_info(f);
	json_object *o = json_object_new_object();

	jadd(o, "file", json_object_new_string(fi->path));
	jadd(o, "size", jnum(fi->file_size));
	if (strcmp(fi->packing, "none")) {	/* a .dat.gz, .dat.zst, .dat.xz */
		jadd(o, "packing", json_object_new_string(fi->packing));
		jadd(o, "packed_size", jnum(fi->packed_size));
	}
	jadd(o, "version", json_object_new_int(fi->version));
	jadd(o, "endian", json_object_new_string(fi->big_endian ? "big" : "little"));
	jadd(o, "long_size", json_object_new_int(fi->long_size));
	jadd(o, "page_size", json_object_new_int((int)fi->page_size));
	jadd(o, "compression", json_object_new_string(fi->compression));
	jadd(o, "compression_version", json_object_new_string(fi->compression_version));
	jadd(o, "uname", json_object_new_string(fi->uname));
	jadd(o, "tracecmd_version", json_object_new_string(fi->tracecmd_version));
	jadd(o, "clock", json_object_new_string(fi->clock));
	jadd(o, "ts_unit", json_object_new_string(fi->in_usecs ? "ns" : "clock"));
	jadd(o, "ts_offset", jsnum(fi->ts_offset));
	jadd(o, "cpus", json_object_new_int(fi->cpus));
	jadd(o, "buffers", json_buffers(f, s));
	jadd(o, "events", jnum(s->total));
	jadd(o, "lost", jnum(s->lost));
	jadd(o, "first_ts", s->total ? jnum(s->first_ts) : NULL);
	jadd(o, "last_ts", s->total ? jnum(s->last_ts) : NULL);
	jadd(o, "all_cpus_start", s->total ? jnum(s->common_start) : NULL);
	jadd(o, "all_cpus_end", s->total ? jnum(s->common_end) : NULL);
	jadd(o, "event_counts", json_counts(s));
	jadd(o, "cpustat", json_object_new_string(fi->cpustat));
	jadd(o, "piece", json_piece(tdat_file_piece(f)));
	jadd(o, "merged", json_merged(f));
	jadd(o, "sections", json_sections(f));
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
	      fp);
	fputc('\n', fp);
	json_object_put(o);
}

