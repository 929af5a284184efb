/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * origin.c - the inputs a merged trace.dat holds, so that a file tdat-merge
 * wrote reads as the inputs it was merged from, each its own machine.
 *
 * tdat-merge writes, for every input, a v7 section of our own id
 * (OPT_TDAT_ORIGIN, located by an option of that id holding its offset,
 * as the other sections are; trace-cmd skips both) whose body is
 *
 *	tdat-origin 1
 *	name=<the input's name>
 *	buffer=<its buffer's name in this file>\t<the buffer's own name>
 *	...				(one line per buffer of the input)
 *	events=<the ids of the event formats the input had, comma-separated>
 *	stat_time=<ns a tick (C99 %a), TSC2NSEC multiplier, shift, offset in ns>
 *				(how the input corrected the times of its CPU figures)
 *	<empty line>
 *	options, as in a v7 options section: id (2 bytes), size (4), payload,
 *	up to a DONE option (id 0, size 0)
 *
 * The options are the input's own: UNAME, VERSION, CPUSTAT, PROCMAPS,
 * TRACECLOCK, CPUCOUNT ..., and as option ids KALLSYMS, PRINTK and CMDLINES
 * section bodies where the input's differ from the file's.
 *
 * merge.c makes one view of the file per input (tdat_file_open() with
 * f->origin_want set): the file read again, but with that input's name,
 * options and names, and only its buffers under their own names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

#define ORIGIN_MAGIC	"tdat-origin 1\n"
#define ORIGIN_TEXT_MAX	(1u << 20)	/* a longer text part is damage */

/* Options that describe one input, not the file: a view takes the input's. */
bool origin_option(unsigned id)
{
	switch (id) {
	case OPT_CPUSTAT: case OPT_TRACECLOCK: case OPT_UNAME: case 6: /* HOOK */
	case OPT_CPUCOUNT: case OPT_VERSION: case OPT_PROCMAPS: case OPT_TRACEID: case OPT_GUEST:
		return true;
	default:
		return false;
	}
}

int origin_note(struct tdat_file *f, const char *buf, uint64_t size)
{
	uint64_t *o;

	if (size < 8)
		return TDAT_EFORMAT;
	if (f->norigin_offs >= MAX_ORIGINS)
		return TDAT_EFORMAT;
	o = realloc(f->origin_offs, sizeof(*o) * (size_t)(f->norigin_offs + 1));
	if (!o)
		return TDAT_ENOMEM;
	f->origin_offs = o;
	o[f->norigin_offs++] = file_num(f, buf, 8);
	return 0;
}

/* The id of event format @fmt (its "ID: N" line); false if it has none. */
static bool format_id(const char *fmt, unsigned *id)
{
	const char *p = !strncmp(fmt, "ID: ", 4) ? fmt : strstr(fmt, "\nID: ");
	char *end;
	unsigned long v;

	if (!p)
		return false;
	p += *p == '\n' ? 5 : 4;
	v = strtoul(p, &end, 10);
	if (end == p || v > 0xffffffffUL)
		return false;
	*id = (unsigned)v;
	return true;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* ---- reading ---- */

/* "events=1,2,...": the formats the input had (a merged file holds the union of all). */
static int origin_ids(struct origin *o, const char *p, const char *end)
{
	while (p < end) {
		char *e;
		unsigned long v = strtoul(p, &e, 10);
		unsigned *ids;

		if (e == p || v > 0xffffffffUL || (e < end && *e != ','))
			return TDAT_EFORMAT;
		if (!(ids = realloc(o->ids, sizeof(*ids) * (size_t)(o->nids + 1))))
			return TDAT_ENOMEM;
		o->ids = ids;
		ids[o->nids++] = (unsigned)v;
		p = e + (e < end);
	}
	qsort(o->ids, (size_t)o->nids, sizeof(*o->ids), cmp_unsigned);
	o->has_ids = true;
	return 0;
}

/* The effective correction of @f's CPU figure times (a view: its input's, and its own offset). */
static struct stat_time stat_time_of(const struct tdat_file *f)
{
	const struct origin *o = f->origin_want >= 0 && f->origin_want < f->norigins ?
				 &f->origins[f->origin_want] : NULL;
	struct stat_time t = { .ts2secs = f->ts2secs, .mult = f->tsc_mult, .shift = f->tsc_shift,
			       .offset = f->info.ts_offset };

	if (f->flags & TDAT_OPEN_RAW_TS) {
		t = (struct stat_time){ .offset = f->info.ts_offset };
	} else if (o && o->has_stat_time) {
		t = o->stat_time;
		t.offset += f->user_offset;
	}
	return t;
}

uint64_t origin_stat_ts(const struct tdat_file *f, uint64_t raw, int cpu)
{
	struct stat_time t;

	if (f->origin_want < 0)
		return file_ts(f, raw, cpu);
	t = stat_time_of(f);
	return ts_convert(raw, t.ts2secs, t.mult, t.shift) + (uint64_t)t.offset;
}

static int origin_stat_time(struct origin *o, const char *p)
{
	unsigned mult, shift;
	long long off;
	double t;

	if (sscanf(p, "%la,%u,%u,%lld", &t, &mult, &shift, &off) != 4 || t < 0 || shift > 32)
		return TDAT_EFORMAT;
	o->stat_time = (struct stat_time){ .ts2secs = t, .mult = mult, .shift = shift, .offset = off };
	o->has_stat_time = true;
	return 0;
}

bool origin_keeps_format(const struct tdat_file *f, const char *fmt)
{
	const struct origin *o;
	unsigned id;

	if (f->origin_want < 0 || f->origin_want >= f->norigins)
		return true;
	o = &f->origins[f->origin_want];
	if (!o->has_ids || !format_id(fmt, &id))
		return true;
	return bsearch(&id, o->ids, (size_t)o->nids, sizeof(id), cmp_unsigned) != NULL;
}

static int origin_add_buffer(struct origin *o, const char *line, size_t n)
{
	const char *tab = memchr(line, '\t', n);
	char **in, **own;

	if (!tab || tab == line)
		return TDAT_EFORMAT;
	in = realloc(o->in_file, sizeof(*in) * (size_t)(o->info.nbuffers + 1));
	if (in)
		o->in_file = in;
	own = realloc(o->own, sizeof(*own) * (size_t)(o->info.nbuffers + 1));
	if (own)
		o->own = own;
	if (!in || !own)
		return TDAT_ENOMEM;
	in[o->info.nbuffers] = strndup(line, (size_t)(tab - line));
	own[o->info.nbuffers] = strndup(tab + 1, (size_t)(line + n - tab - 1));
	if (!in[o->info.nbuffers] || !own[o->info.nbuffers]) {
		free(in[o->info.nbuffers]);
		free(own[o->info.nbuffers]);
		return TDAT_ENOMEM;
	}
	o->info.nbuffers++;
	o->info.buffers = (const char *const *)o->in_file;
	return 0;
}

/* The text part: magic, name=, buffer= lines, up to the empty line. */
static int origin_text(struct rd *r, struct origin *o)
{
	char *text = NULL, *p, *nl;
	size_t len = 0;
	int ret = TDAT_EFORMAT;

	for (;;) {	/* read up to and with the "\n\n" that ends it */
		char c;

		if (len >= ORIGIN_TEXT_MAX || rd_bytes(r, &c, 1, "origin text"))
			goto out;
		if (!(p = realloc(text, len + 2)))
			return free(text), TDAT_ENOMEM;
		text = p;
		text[len++] = c;
		text[len] = '\0';
		if (len >= 2 && text[len - 2] == '\n' && c == '\n')
			break;
	}
	if (strncmp(text, ORIGIN_MAGIC, strlen(ORIGIN_MAGIC)))
		goto out;
	for (p = text + strlen(ORIGIN_MAGIC); *p != '\n'; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!strncmp(p, "name=", 5) && !o->info.name && nl > p + 5) {
			if (!(o->name = strndup(p + 5, (size_t)(nl - p - 5))))
				return free(text), TDAT_ENOMEM;
			o->info.name = o->name;
		} else if (!strncmp(p, "buffer=", 7) && (ret = origin_add_buffer(o, p + 7,
									  (size_t)(nl - p - 7)))) {
			goto out;
		} else if (!strncmp(p, "events=", 7) && !o->has_ids &&
			   (ret = origin_ids(o, p + 7, nl))) {
			goto out;
		} else if (!strncmp(p, "stat_time=", 10) && (ret = origin_stat_time(o, p + 10))) {
			goto out;
		}
	}
	ret = o->info.name && o->info.nbuffers ? 0 : TDAT_EFORMAT;
out:
	free(text);
	return ret;
}

static void origin_release(struct origin *o)
{
	for (int i = 0; i < o->info.nbuffers; i++) {
		free(o->in_file[i]);
		free(o->own[i]);
	}
	free(o->in_file);
	free(o->own);
	free(o->name);
	free(o->ids);
}

void origins_free(struct tdat_file *f)
{
	for (int i = 0; i < f->norigins; i++)
		origin_release(&f->origins[i]);
	free(f->origins);
	free(f->origin_offs);
	free(f->file_buffer);
	f->file_buffer = NULL;
	f->origins = NULL;
	f->origin_offs = NULL;
	f->norigins = f->norigin_offs = 0;
}

/* Forget what the file's options said of its first input (a view takes its own). */
static void origin_reset(struct tdat_file *f)
{
	free(f->uname);
	free(f->version);
	free(f->cpustat);
	f->uname = f->version = f->cpustat = NULL;
	for (int i = 0; i < f->meta.nopts; i++)
		free(f->meta.opts[i].b.data);
	f->meta.nopts = 0;
}

/*
 * The options of the input a view reads: each per-input option handled as
 * if the file held it, and a KALLSYMS, PRINTK or CMDLINES section body taken
 * in place of the file's section (@own[i] set for metadata section i).
 */
static int origin_options(struct rd *r, struct opts_state *st, bool *own)
{
	uint64_t id, size;
	int ret;

	origin_reset(r->f);
	for (;;) {
		if ((ret = rd_num(r, 2, &id, "origin option id")) ||
		    (ret = rd_num(r, 4, &size, "origin option size")))
			return ret;
		if (id == OPT_DONE)
			return 0;
		if (id == OPT_KALLSYMS || id == OPT_PRINTK || id == OPT_CMDLINES) {
			uint64_t end = r->mpos + size;

			if (size > rd_left(r))
				return rd_fail(r, "origin section body larger than its section");
			if ((ret = dat_section_body(r, (int)id)))
				return ret;
			r->mpos = end;
			own[id - OPT_HEADER_INFO] = true;
			continue;
		}
		if ((ret = opts_one(r, st, (unsigned)id, size)))
			return ret;
	}
}

/*
 * Read origin section @k (rd_section() has entered it) into f->origins[k];
 * a view of input @k also takes its options.
 */
static int origin_read(struct rd *r, struct opts_state *st, int k, bool *own)
{
	struct origin *o = &r->f->origins[k];
	int ret;

	memset(o, 0, sizeof(*o));
	if ((ret = origin_text(r, o)))
		return ret == TDAT_EFORMAT ? rd_fail(r, "damaged merged-input record") : ret;
	r->f->norigins = k + 1;
	if (k != r->f->origin_want)
		return 0;
	return origin_options(r, st, own);
}

int origins_read(struct tdat_file *f, struct rd *r, struct opts_state *st, bool *own)
{
	unsigned flags;
	int ret;

	if (!f->norigin_offs) {
		if (f->origin_want >= 0) {
			tdat_msg(f->errmsg, "no merged input %d in the file", f->origin_want);
			return TDAT_EFORMAT;
		}
		return 0;
	}
	if (!(f->origins = calloc((size_t)f->norigin_offs, sizeof(*f->origins))))
		return TDAT_ENOMEM;
	for (int k = 0; k < f->norigin_offs; k++) {
		ret = rd_section(r, f->origin_offs[k], OPT_TDAT_ORIGIN, &flags);
		if (!ret)
			ret = origin_read(r, st, k, own);
		rd_drop_mem(r);
		if (ret == TDAT_EFORMAT && f->origin_want < 0) {
			file_warn(f, "the record of the inputs merged into the file is damaged, so "
				  "their buffers are read as one input's: %s", f->errmsg);
			f->errmsg[0] = '\0';
			origins_free(f);
			return 0;
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- a view: only its input's buffers, under their own names ---- */

static int origin_buffer(const struct origin *o, const char *name)
{
	for (int i = 0; i < o->info.nbuffers; i++)
		if (!strcmp(o->in_file[i], name))
			return i;
	return -1;
}

static void buffer_release(struct tdat_buffer *b)
{
	free((char *)b->info.name);
	free((char *)b->info.clock);
	free(b->cpus);
	free(b->lat_text);
}

int origin_restrict(struct tdat_file *f)
{
	const struct origin *o;
	int n = 0;

	if (f->origin_want < 0)
		return 0;
	if (f->origin_want >= f->norigins) {
		tdat_msg(f->errmsg, "no merged input %d in the file", f->origin_want);
		return TDAT_EFORMAT;
	}
	o = &f->origins[f->origin_want];
	if (!(f->file_buffer = calloc((size_t)f->nbuffers + 1, sizeof(*f->file_buffer))))
		return TDAT_ENOMEM;
	for (int b = 0; b < f->nbuffers; b++) {
		int i = origin_buffer(o, f->buffers[b].info.name);
		char *own;

		if (i < 0) {
			buffer_release(&f->buffers[b]);
			continue;
		}
		if (!(own = strdup(o->own[i])))
			return TDAT_ENOMEM;
		free((char *)f->buffers[b].info.name);
		f->buffers[b].info.name = own;
		f->file_buffer[n] = b;
		f->buffers[n++] = f->buffers[b];
	}
	f->nbuffers = n;
	return tdat_file_set_name(f, o->info.name);
}

int tdat_file_norigins(const struct tdat_file *f)
{
	return f->origin_want < 0 ? f->norigins : 0;
}

const struct tdat_origin *tdat_file_origin(const struct tdat_file *f, int i)
{
	return i >= 0 && i < tdat_file_norigins(f) ? &f->origins[i].info : NULL;
}

/* ---- writing ---- */

static void put_num(char *p, uint64_t v, int len, bool big)
{
	for (int i = 0; i < len; i++)
		p[big ? len - 1 - i : i] = (char)(v >> (8 * i));
}

/* Append @n bytes to the growing body; false without memory. */
static bool body_put(char **body, size_t *len, const void *p, size_t n)
{
	char *b = realloc(*body, *len + n + 1);

	if (!b)
		return false;
	memcpy(b + *len, p, n);
	*len += n;
	*body = b;
	return true;
}

/* An option: id, size, and a payload of @n bytes, the first @lenbytes of it @data's length. */
static bool body_opt(char **body, size_t *len, unsigned id, const struct tdat_blob *data,
		     int lenbytes, bool big)
{
	char head[6], num[8];

	put_num(head, id, 2, big);
	put_num(head + 2, data->len + (uint64_t)lenbytes, 4, big);
	put_num(num, data->len, lenbytes, big);
	return body_put(body, len, head, 6) && body_put(body, len, num, (size_t)lenbytes) &&
	       body_put(body, len, data->data, (size_t)data->len);
}

static bool same_blob(const struct tdat_blob *a, const struct tdat_blob *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

/* The input's own options, and its name sections where they are not the file's (@file). */
static bool body_options(char **body, size_t *len, const struct tdat_file *f,
			 const struct tdat_meta *file, bool big)
{
	char cpus[4];
	struct tdat_blob c = { cpus, 0 };
	bool ok = true;

	for (int i = 0; ok && i < f->meta.nopts; i++)
		if (origin_option(f->meta.opts[i].id))
			ok = body_opt(body, len, f->meta.opts[i].id, &f->meta.opts[i].b, 0, big);
	put_num(cpus, (uint64_t)f->info.cpus, 4, big);
	c.len = 4;
	ok = ok && body_opt(body, len, OPT_CPUCOUNT, &c, 0, big);
	if (ok && f->meta.kallsyms.data && !same_blob(&f->meta.kallsyms, &file->kallsyms))
		ok = body_opt(body, len, OPT_KALLSYMS, &f->meta.kallsyms, 4, big);
	if (ok && f->meta.printk.data && !same_blob(&f->meta.printk, &file->printk))
		ok = body_opt(body, len, OPT_PRINTK, &f->meta.printk, 4, big);
	if (ok && f->meta.cmdlines.data)
		ok = body_opt(body, len, OPT_CMDLINES, &f->meta.cmdlines, 8, big);
	return ok && body_put(body, len, "\0\0\0\0\0\0", 6);	/* DONE, size 0 */
}

/* The "events=" line: the ids of @f's event formats. */
static bool body_ids(char **body, size_t *len, const struct tdat_file *f)
{
	const struct tdat_meta *m = &f->meta;
	bool ok = body_put(body, len, "events=", 7), first = true;
	char num[16];
	unsigned id;

	for (int s = -1; ok && s < m->nsystems; s++) {
		const struct tdat_blob *fmts = s < 0 ? m->ftrace : m->systems[s].fmts;
		int n = s < 0 ? m->nftrace : m->systems[s].nfmts;

		for (int i = 0; ok && i < n; i++) {
			if (!format_id(fmts[i].data, &id))
				continue;
			snprintf(num, sizeof(num), "%s%u", first ? "" : ",", id);
			ok = body_put(body, len, num, strlen(num));
			first = false;
		}
	}
	return ok && body_put(body, len, "\n", 1);
}

int origin_format(const struct tdat_file *f, const struct tdat_meta *file, const char *const *names,
		  bool big, char **out, size_t *len)
{
	struct stat_time st;
	char *line = NULL;
	bool ok;
	int n;

	*out = NULL;
	*len = 0;
	if (strpbrk(f->info.name, "\t\n"))
		return TDAT_EINVAL;
	for (int b = 0; b < f->nbuffers; b++)
		if (strpbrk(names[b], "\t\n") || strpbrk(f->buffers[b].info.name, "\t\n"))
			return TDAT_EINVAL;
	st = stat_time_of(f);
	n = asprintf(&line, ORIGIN_MAGIC "name=%s\nstat_time=%a,%u,%u,%lld\n", f->info.name,
		     st.ts2secs, st.mult, st.shift, (long long)st.offset);
	ok = n > 0 && body_put(out, len, line, (size_t)n);
	free(line);
	for (int b = 0; ok && b < f->nbuffers; b++) {
		if (f->buffers[b].info.latency)
			continue;
		n = asprintf(&line, "buffer=%s\t%s\n", names[b], f->buffers[b].info.name);
		ok = n > 0 && body_put(out, len, line, (size_t)n);
		free(line);
	}
	ok = ok && body_ids(out, len, f) && body_put(out, len, "\n", 1) &&
	     body_options(out, len, f, file, big);
	if (!ok) {
		free(*out);
		*out = NULL;
		return TDAT_ENOMEM;
	}
	return 0;
}
