/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dat-options.c - the options of a trace.dat (a v6 options block, or the
 * chained v7 OPTIONS sections): buffers and their CPU tables, clock, uname,
 * version, CPU count, CPU stats, time corrections (DATE, OFFSET, TSC2NSEC,
 * TIME_SHIFT) and, in v7, where the other sections are (the BTF and
 * MODULES_FILE of trace-cmd 3.4 too).  Unknown options are skipped by their
 * size; sections.c lists every one.  The options a trace.dat writer copies are
 * also kept as they were read (struct tdat_meta).
 */
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

bool clock_counts_ns(const char *clock)
{
	static const char *const ns[] = { "local", "global", "uptime", "perf", "tsc2nsec", "tai" };

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		if (!strcmp(clock, ns[i]))
			return true;
	return !strncmp(clock, "mono", 4);
}

void opts_set_clock(struct tdat_file *f, const char *text)
{
	const char *p = strchr(text, '[');
	const char *e = p ? strchr(p, ']') : NULL;
	char *clock;

	if (!p || !e)
		return;
	clock = strndup(p + 1, (size_t)(e - p - 1));
	if (!clock)
		return;
	free(f->clock);
	f->clock = clock;
	f->info.clock = clock;
	if (f->flags & TDAT_OPEN_RAW_TS)
		f->info.in_usecs = 0;
	if (f->tsc_mult)
		return;
	if (!clock_counts_ns(clock))
		f->info.in_usecs = 0;
}

int file_add_buffer(struct tdat_file *f, struct tdat_buffer **out)
{
	struct tdat_buffer *b = realloc(f->buffers, sizeof(*b) * (size_t)(f->nbuffers + 1));

	if (!b)
		return TDAT_ENOMEM;
	f->buffers = b;
	b += f->nbuffers++;
	memset(b, 0, sizeof(*b));
	*out = b;
	return 0;
}

int meta_push(struct tdat_blob **arr, int *n, char *data, uint64_t len)
{
	struct tdat_blob *a = realloc(*arr, sizeof(*a) * (size_t)(*n + 1));

	if (!a)
		return TDAT_ENOMEM;
	a[*n].data = data;
	a[*n].len = len;
	*arr = a;
	(*n)++;
	return 0;
}

/* Options copied into a written file as they are; the rest it rebuilds. */
static bool kept_option(unsigned id)
{
	switch (id) {
	case OPT_DATE: case OPT_CPUSTAT: case OPT_TRACECLOCK: case OPT_UNAME: case 6: /* HOOK */
	case OPT_OFFSET: case OPT_VERSION: case OPT_PROCMAPS: case OPT_TRACEID:
	case OPT_TIME_SHIFT: case OPT_GUEST: case OPT_TSC2NSEC: case OPT_LAST_BOOT_INFO:
		return true;
	default:
		return false;
	}
}

int meta_keep_option(struct tdat_meta *m, unsigned id, const char *buf, uint64_t size)
{
	struct tdat_mopt *o;
	char *copy;

	if (!kept_option(id))
		return 0;
	copy = malloc(size + 1);
	o = realloc(m->opts, sizeof(*o) * (size_t)(m->nopts + 1));
	if (o)
		m->opts = o;
	if (!copy || !o) {
		free(copy);
		return TDAT_ENOMEM;
	}
	memcpy(copy, buf, size);
	copy[size] = '\0';
	o += m->nopts++;
	o->id = id;
	o->b.data = copy;
	o->b.len = size;
	return 0;
}

void meta_release(struct tdat_meta *m)
{
	free(m->header_page.data);
	free(m->header_event.data);
	for (int i = 0; i < m->nftrace; i++)
		free(m->ftrace[i].data);
	free(m->ftrace);
	for (int s = 0; s < m->nsystems; s++) {
		for (int i = 0; i < m->systems[s].nfmts; i++)
			free(m->systems[s].fmts[i].data);
		free(m->systems[s].fmts);
		free(m->systems[s].name);
	}
	free(m->systems);
	free(m->kallsyms.data);
	free(m->printk.data);
	free(m->cmdlines.data);
	free(m->btf.data);
	free(m->modules.data);
	for (int i = 0; i < m->nopts; i++)
		free(m->opts[i].b.data);
	free(m->opts);
	memset(m, 0, sizeof(*m));
}

static int opt_num(struct tdat_file *f, const char *buf, uint64_t size, uint64_t *pos, int len, uint64_t *v)
{
	if (*pos + (uint64_t)len > size)
		return TDAT_EFORMAT;
	*v = file_num(f, buf + *pos, len);
	*pos += (uint64_t)len;
	return 0;
}

static int opt_str(const char *buf, uint64_t size, uint64_t *pos, char **out)
{
	const char *s = buf + *pos;
	const char *end = *pos < size ? memchr(s, '\0', size - *pos) : NULL;

	if (!end)
		return TDAT_EFORMAT;
	*out = strdup(s);
	if (!*out)
		return TDAT_ENOMEM;
	*pos += (uint64_t)(end - s) + 1;
	return 0;
}

/* BUFFER (v6: offset + name; v7: + clock, page size, per-CPU table) and BUFFER_TEXT. */
static int opt_buffer(struct tdat_file *f, int id, const char *buf, uint64_t size)
{
	struct tdat_buffer *b;
	uint64_t pos = 0, off, v, ncpus;
	char *name = NULL, *clock = NULL;
	int ret;

	if ((ret = opt_num(f, buf, size, &pos, 8, &off)) || (ret = opt_str(buf, size, &pos, &name)))
		return ret ? ret : TDAT_EFORMAT;
	if (f->info.version >= 7 && (ret = opt_str(buf, size, &pos, &clock)))
		goto fail;
	if ((ret = file_add_buffer(f, &b)))
		goto fail;
	b->info.name = name;
	b->info.clock = clock ? clock : strdup("");
	b->info.page_size = f->info.page_size;
	b->lat_offset = off;
	if (id == OPT_BUFFER_TEXT) {
		b->info.latency = 1;
		return 0;
	}
	if (f->info.version < 7)
		return 0;	/* the v6 table lives at @off; read later */
	if ((ret = opt_num(f, buf, size, &pos, 4, &v)) || (ret = opt_num(f, buf, size, &pos, 4, &ncpus)))
		return TDAT_EFORMAT;
	/* as the file header's: a page size of 0 would never advance the decoder */
	if (v < 64 || v > (1u << 26) || (v & (v - 1)))
		return TDAT_EFORMAT;
	b->info.page_size = (unsigned)v;
	if (ncpus > (size - pos) / 20)
		return TDAT_EFORMAT;
	b->cpus = calloc(ncpus ? ncpus : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return TDAT_ENOMEM;
	b->info.ncpus = (int)ncpus;
	b->info.cpus = b->cpus;
	for (uint64_t i = 0, n = 0; i < ncpus; i++) {
		struct tdat_cpu_info *c = &b->cpus[n];

		opt_num(f, buf, size, &pos, 4, &v);
		c->cpu = (int)v;
		opt_num(f, buf, size, &pos, 8, &c->offset);
		opt_num(f, buf, size, &pos, 8, &c->size);
		/* a CPU number sizes every per-CPU table of the writers: 67109120 took 4 GB */
		if (v >= MAX_CPUS) {
			file_warn(f, "damaged CPU number %llu in the table of buffer \"%.64s\": that CPU's "
				  "data (%llu bytes at offset %llu) skipped", (unsigned long long)v,
				  b->info.name, (unsigned long long)c->size, (unsigned long long)c->offset);
			b->info.ncpus--;
			continue;
		}
		n++;
	}
	return 0;
fail:
	free(name);
	free(clock);
	return ret;
}

static int opt_time_shift(struct tdat_file *f, const char *buf, uint64_t size)
{
	uint64_t pos = 8, v, n;

	if (opt_num(f, buf, size, &pos, 4, &v))
		return TDAT_EFORMAT;
	f->tsync_flags = (unsigned)v;
	if (opt_num(f, buf, size, &pos, 4, &n) || n > size / 4)
		return TDAT_EFORMAT;
	f->tsync = calloc(n ? n : 1, sizeof(*f->tsync));
	if (!f->tsync)
		return TDAT_ENOMEM;
	f->tsync_ncpus = (int)n;
	for (uint64_t c = 0; c < n; c++) {
		struct tsync_cpu *t = &f->tsync[c];

		if (opt_num(f, buf, size, &pos, 4, &v) || v > (size - pos) / 24)
			return TDAT_EFORMAT;
		t->count = (int)v;
		t->samples = calloc(v ? v : 1, sizeof(*t->samples));
		if (!t->samples)
			return TDAT_ENOMEM;
		for (int i = 0; i < t->count; i++)
			opt_num(f, buf, size, &pos, 8, (uint64_t *)&t->samples[i].time);
		for (int i = 0; i < t->count; i++)
			opt_num(f, buf, size, &pos, 8, (uint64_t *)&t->samples[i].offset);
		for (int i = 0; i < t->count; i++)
			opt_num(f, buf, size, &pos, 8, (uint64_t *)&t->samples[i].scaling);
	}
	for (uint64_t c = 0; c < n && pos < size; c++)
		for (int i = 0; i < f->tsync[c].count; i++)
			opt_num(f, buf, size, &pos, 8, (uint64_t *)&f->tsync[c].samples[i].fraction);
	f->tsync_enabled = n > 0;
	f->info.has_time_shift = 1;
	return 0;
}

static int append_text(char **dst, const char *src, uint64_t n)
{
	size_t old = *dst ? strlen(*dst) : 0;
	char *p = realloc(*dst, old + n + 2);

	if (!p)
		return TDAT_ENOMEM;
	memcpy(p + old, src, n);
	p[old + n] = '\0';
	/* CPUSTAT texts end in a NUL; keep one newline between them */
	old = strlen(p);
	if (old && p[old - 1] != '\n')
		strcpy(p + old, "\n");
	*dst = p;
	return 0;
}

static int handle_option(struct tdat_file *f, struct opts_state *st, unsigned id, char *buf, uint64_t size)
{
	uint64_t pos = 0, v;

	switch (id) {
	case OPT_DATE:
		f->info.has_date = 1;
		if (!(f->flags & (TDAT_OPEN_NO_DATE | TDAT_OPEN_RAW_TS)))
			f->info.ts_offset += strtoll(buf, NULL, 0) * 1000;
		return 0;
	case OPT_OFFSET:
		f->info.has_offset = 1;
		if (!(f->flags & TDAT_OPEN_RAW_TS))
			f->info.ts_offset += strtoll(buf, NULL, 0);
		return 0;
	case OPT_CPUSTAT:
		return append_text(&f->cpustat, buf, strnlen(buf, size));
	case OPT_BUFFER:
	case OPT_BUFFER_TEXT:
		return opt_buffer(f, (int)id, buf, size);
	case OPT_TRACECLOCK:
		st->has_clock_opt = true;
		if (size)
			opts_set_clock(f, buf);
		return 0;
	case OPT_UNAME:
		free(f->uname);
		f->uname = strndup(buf, size);
		return f->uname ? 0 : TDAT_ENOMEM;
	case OPT_VERSION:
		free(f->version);
		f->version = strndup(buf, size);
		return f->version ? 0 : TDAT_ENOMEM;
	case OPT_CPUCOUNT:
		if (size < 4)
			return 0;
		v = file_num(f, buf, 4);
		if (v > MAX_CPUS)
			return TDAT_EFORMAT;
		f->info.cpus = (int)v;
		return 0;
	case OPT_TIME_SHIFT:
		if (size < 16 || (f->flags & TDAT_OPEN_RAW_TS))
			return 0;
		return opt_time_shift(f, buf, size);
	case OPT_TSC2NSEC:
		if (size < 16)
			return 0;
		f->info.has_tsc2nsec = 1;
		if (f->flags & TDAT_OPEN_RAW_TS)
			return 0;
		opt_num(f, buf, size, &pos, 4, &v);
		f->tsc_mult = (uint32_t)v;
		opt_num(f, buf, size, &pos, 4, &v);
		/* the kernel's shifts are under 32; a larger one overflows the conversion */
		if (!f->tsc_mult || v > 32)
			return TDAT_EFORMAT;
		f->tsc_shift = (uint32_t)v;
		f->info.in_usecs = 1;
		return 0;
	case OPT_TDAT_PIECE:
		return piece_read(f, buf, size);
	case OPT_TDAT_ORIGIN:
		return origin_note(f, buf, size);
	case OPT_HEADER_INFO ... OPT_CMDLINES:
		if (size >= 8)
			st->sections[id - OPT_HEADER_INFO] = file_num(f, buf, 8);
		return 0;
	case OPT_BTF:
	case OPT_MODULES:
		if (size >= 8 && f->info.version >= 7)
			*(id == OPT_BTF ? &st->btf_off : &st->modules_off) = file_num(f, buf, 8);
		return 0;
	default:
		return 0;	/* unknown or unused options are skipped by size */
	}
}

/*
 * Read a list of options until DONE.  v6: id 0 ends the list.  v7: DONE
 * carries the offset of the next options section (0 = last); returned in
 * @next.
 */
int opts_one(struct rd *r, struct opts_state *st, unsigned id, uint64_t size)
{
	char *buf, msg[64];
	int ret;

	if ((ret = rd_blob(r, size, &buf, "option")))
		return ret;
	ret = meta_keep_option(&r->f->meta, id, buf, size);
	if (!ret)
		ret = handle_option(r->f, st, id, buf, size);
	free(buf);
	if (!ret || ret == TDAT_ENOMEM)
		return ret;
	snprintf(msg, sizeof(msg), "damaged option %u", id);
	return rd_fail(r, msg);
}

int opts_read(struct rd *r, struct opts_state *st, uint64_t *next)
{
	uint64_t id, size;
	char *buf;
	int ret;

	*next = 0;
	for (;;) {
		uint64_t at = r->mem ? r->mpos : r->off;

		if ((ret = rd_num(r, 2, &id, "option id")))
			return ret;
		if (r->f->info.version < 7 && id == OPT_DONE)
			return 0;
		if ((ret = rd_num(r, 4, &size, "option size")))
			return ret;
		sections_option(r->f, (unsigned)id, r->mem ? r->sec_off : at, r->mem ? at : 0, size);
		if (id == OPT_DONE) {
			if ((ret = rd_blob(r, size, &buf, "option")))
				return ret;
			if (size >= 8)
				*next = file_num(r->f, buf, 8);
			free(buf);
			return 0;
		}
		if (r->f->origin_want >= 0 && origin_option((unsigned)id)) {
			/* a view of one input of a merged file: the input's own come later */
			if ((ret = rd_blob(r, size, &buf, "option")))
				return ret;
			free(buf);
			continue;
		}
		if ((ret = opts_one(r, st, (unsigned)id, size)))
			return ret;
	}
}
