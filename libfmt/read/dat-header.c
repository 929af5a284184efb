/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dat-header.c - opens a trace.dat: the common start, the v6 fixed-order
 * sections or the v7 chain of (possibly compressed) sections and options,
 * and the buffer tables that locate each CPU's data.  Formats, kallsyms,
 * printk formats and cmdlines are handed to libtraceevent.
 *
 * Every size read from the file is checked against what the file (or the
 * decompressed section) can hold before anything is allocated, and every
 * failure names the offset.  A damaged v7 section that only names things
 * (kallsyms, printk, cmdlines, ftrace's formats) is a warning, not a
 * failure.  Event data itself is read by dat-cpu.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "read/read.h"

const unsigned char dat_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/* ---- what the sections hold ---- */

static int read_header_info(struct rd *r)
{
	struct tdat_meta *m = &r->f->meta;
	int ret;

	if ((ret = rd_expect(r, "header_page", 12)) ||
	    (ret = rd_sized(r, 8, &m->header_page.data, &m->header_page.len, "header_page")))
		return ret;
	tep_guard_lock();
	tep_parse_header_page(r->f->tep, m->header_page.data, (unsigned long)m->header_page.len,
			      r->f->info.long_size);
	tep_guard_unlock();
	if ((ret = rd_expect(r, "header_event", 13)) ||
	    (ret = rd_sized(r, 8, &m->header_event.data, &m->header_event.len, "header_event")))
		return ret;
	return 0;
}

/* Format files of @system, kept in @arr for a writer. */
static int read_formats(struct rd *r, const char *system, struct tdat_blob **arr, int *nfmts)
{
	uint64_t count, n;
	enum tep_guard g;
	char *buf;
	int ret;

	if ((ret = rd_num(r, 4, &count, "event format count")))
		return ret;
	if (count > rd_left(r) / 8)
		return rd_fail(r, "event format count larger than the file");
	for (uint64_t i = 0; i < count; i++) {
		unsigned long long at;
		size_t keep;

		if ((ret = rd_sized(r, 8, &buf, &n, "event format")))
			return ret;
		if (!origin_keeps_format(r->f, buf)) {	/* another input's, in a merged file */
			free(buf);
			continue;
		}
		at = (unsigned long long)(r->mem ? r->sec_off : r->off - n);
		tep_guard_lock();
		g = tep_guard_format(buf, &keep);
		if (g == TEP_GUARD_FIELDS)	/* the print format is unsafe: drop it */
			buf[keep] = '\0';
		if (g != TEP_GUARD_BAD)
			tep_parse_event(r->f->tep, buf, (unsigned long)(g == TEP_GUARD_OK ? n : keep), system);
		tep_guard_unlock();
		switch (g) {
		case TEP_GUARD_OK:
			break;
		case TEP_GUARD_UNSUPP:
			/* the kernel's own format, kept whole for writers: libtraceevent got its fields */
			file_unsupported(r->f, buf, system);
			break;
		case TEP_GUARD_FIELDS:
			n = keep;
			r->f->meta_changed = true;
			file_warn(r->f, "damaged print format in event format %llu of system \"%.64s\" (at offset "
				  "%llu): its events are shown with their fields only", (unsigned long long)i,
				  system, at);
			break;
		default:
			r->f->meta_changed = true;
			file_warn(r->f, "damaged event format %llu of system \"%.64s\" skipped (at offset %llu): "
				  "its events cannot be decoded", (unsigned long long)i, system, at);
			free(buf);	/* not passed on to a writer either: it would crash trace-cmd */
			continue;
		}
		if (meta_push(arr, nfmts, buf, n)) {
			free(buf);
			return TDAT_ENOMEM;
		}
	}
	return 0;
}

static int add_system(struct tdat_meta *m, char *name, struct tdat_msys **out)
{
	struct tdat_msys *s = realloc(m->systems, sizeof(*s) * (size_t)(m->nsystems + 1));

	if (!s)
		return TDAT_ENOMEM;
	m->systems = s;
	s += m->nsystems++;
	memset(s, 0, sizeof(*s));
	s->name = name;
	*out = s;
	return 0;
}

static int read_event_systems(struct rd *r)
{
	struct tdat_msys *s;
	uint64_t count;
	char *sys;
	int ret;

	if ((ret = rd_num(r, 4, &count, "event system count")))
		return ret;
	if (count > rd_left(r) / 5)
		return rd_fail(r, "event system count larger than the file");
	for (uint64_t i = 0; i < count; i++) {
		if ((ret = rd_str(r, &sys, 1024, "event system name")))
			return ret;
		if ((ret = add_system(&r->f->meta, sys, &s))) {
			free(sys);
			return ret;
		}
		if ((ret = read_formats(r, sys, &s->fmts, &s->nfmts)))
			return ret;
	}
	return 0;
}

/*
 * Whether a printk format (@p to @end) takes a printf width or precision
 * from the record ("%*d") or pads to more than PRINT_WIDTH_MAX: for a
 * binary printk libtraceevent reads that width from the event and pads to
 * it (gigabytes), or prints the wrong argument when it is negative.  The
 * kernel's own formats do neither.
 */
static bool printk_wide(const char *p, const char *end)
{
	while (p < end && (p = memchr(p, '%', (size_t)(end - p)))) {
		uint64_t num = 0;

		for (p++; p < end && *p && strchr("-+ #0123456789.*lhLzZ", *p); p++) {
			if (*p == '*')
				return true;
			num = *p >= '0' && *p <= '9' ? num * 10 + (uint64_t)(*p - '0') : 0;
			if (num > PRINT_WIDTH_MAX)
				return true;
		}
		if (p < end && *p == '%')
			p++;	/* "%%" */
	}
	return false;
}

/*
 * Keep only the printk format lines that libtraceevent 1.7 parses without
 * reading outside them ("ADDR : FMT" with a format of 3 or more bytes):
 * tep_parse_printk_formats() and tep_register_print_string() assume that.
 * Formats printk_wide() finds are left out too; returns how many.
 */
static int printk_filter(char *buf)
{
	char *in = buf, *out = buf;
	int wide = 0;

	while (*in) {
		size_t len = strcspn(in, "\n");
		char *end = in + len, *p = in, *fmt;
		bool last = !*end;	/* no newline: the copy below must not add one */

		while (p < end && *p == ':')
			p++;
		p += strcspn(p, ":\n");
		fmt = p < end ? p + 2 : NULL;	/* the byte after ':' is skipped */
		if (fmt && fmt <= end) {
			if (fmt < end && *fmt == '"')
				fmt++;
			if (end - fmt >= 3 && printk_wide(fmt, end)) {
				wide++;
			} else if (end - fmt >= 3) {
				memmove(out, in, len);
				out += len;
				if (!last)
					*out++ = '\n';
			}
		}
		in = last ? end : end + 1;
	}
	*out = '\0';
	return wide;
}

static int read_text_section(struct rd *r, int lenbytes, int id)
{
	struct tdat_meta *m = &r->f->meta;
	struct tdat_blob *keep = id == OPT_KALLSYMS ? &m->kallsyms : id == OPT_PRINTK ? &m->printk :
				 &m->cmdlines;
	char *copy;
	int ret;

	free(keep->data);
	keep->data = NULL;
	ret = rd_sized(r, lenbytes, &keep->data, &keep->len, id == OPT_KALLSYMS ? "kallsyms" :
		       id == OPT_PRINTK ? "printk formats" : "saved cmdlines");
	if (ret)
		return ret;
	if (id == OPT_KALLSYMS && (r->f->no_syms || r->f->syms_text)) {
		/* a clone: none, or its file's text (file_clone()), not a copy a worker */
		free(keep->data);
		keep->data = NULL;
		keep->len = 0;
		r->f->syms_pending = r->f->syms_text != NULL;
	} else if (id == OPT_KALLSYMS) {
		r->f->syms_pending = true;	/* parsed when a writer needs names */
	} else if (id == OPT_PRINTK) {
		/* the filter edits in place; the kept text stays as it was */
		copy = strdup(keep->data);
		if (!copy)
			return TDAT_ENOMEM;
		if ((ret = printk_filter(copy)))
			file_warn(r->f, "%d printk format%s taking a printf width from the record, or wider than %d, "
				  "left out: binary printk events that use %s print as NO FORMAT FOUND", ret,
				  ret == 1 ? "" : "s", PRINT_WIDTH_MAX, ret == 1 ? "it" : "them");
		tep_parse_printk_formats(r->f->tep, copy);
		free(copy);
		ret = 0;
	} else {
		tep_parse_saved_cmdlines(r->f->tep, keep->data);
	}
	return 0;
}

int dat_section_body(struct rd *r, int id)
{
	switch (id) {
	case OPT_HEADER_INFO:
		return read_header_info(r);
	case OPT_FTRACE_EVENTS:
		return read_formats(r, "ftrace", &r->f->meta.ftrace, &r->f->meta.nftrace);
	case OPT_EVENT_FORMATS:
		return read_event_systems(r);
	case OPT_KALLSYMS:
	case OPT_PRINTK:
		return read_text_section(r, 4, id);
	default:
		return read_text_section(r, 8, id);
	}
}

static int setup_tep(struct tdat_file *f)
{
	f->tep = tep_alloc();
	if (!f->tep)
		return TDAT_ENOMEM;
	if (!(f->flags & TDAT_OPEN_NO_PLUGINS))
		f->plugins = tep_load_plugins(f->tep);
	if (f->plugins)
		tep_guard_plugins(f->tep);	/* before any format refers to their helpers */
	tep_set_file_bigendian(f->tep, f->info.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(f->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(f->tep, f->info.long_size);
	tep_set_page_size(f->tep, (int)f->info.page_size);
	return 0;
}

/* ---- v6 ---- */

static int v6_cpu_table(struct tdat_file *f, struct rd *r, struct tdat_buffer *b)
{
	int n = f->info.cpus;
	int ret;

	b->cpus = calloc(n ? (size_t)n : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return TDAT_ENOMEM;
	b->info.ncpus = n;
	b->info.cpus = b->cpus;
	b->info.page_size = f->info.page_size;
	for (int i = 0; i < n; i++) {
		b->cpus[i].cpu = i;
		if ((ret = rd_num(r, 8, &b->cpus[i].offset, "CPU data offset")) ||
		    (ret = rd_num(r, 8, &b->cpus[i].size, "CPU data size")))
			return ret;
		b->cpus[i].usize = b->cpus[i].size;
	}
	return 0;
}

static int v6_instance(struct tdat_file *f, struct tdat_buffer *b)
{
	struct rd r = { .f = f, .off = b->lat_offset };
	char tag[10];
	int ret;

	if ((ret = rd_bytes(&r, tag, 10, "buffer instance")))
		return ret;
	if (memcmp(tag, "flyrecord", 10)) {
		r.off -= 10;
		return rd_fail(&r, "buffer instance does not start with \"flyrecord\"");
	}
	return v6_cpu_table(f, &r, b);
}

static int v6_data_start(struct tdat_file *f, struct rd *r, struct opts_state *st)
{
	struct tdat_buffer *top;
	char tag[10], *clock;
	uint64_t n, next;
	int ret;

	if ((ret = rd_bytes(r, tag, 10, "options or data tag")))
		return ret;
	if (!memcmp(tag, "options  ", 10)) {
		if ((ret = opts_read(r, st, &next)) || (ret = rd_bytes(r, tag, 10, "data tag")))
			return ret;
	}
	/* the top buffer comes first; instances from BUFFER options follow it */
	if ((ret = file_add_buffer(f, &top)))
		return ret;
	memmove(f->buffers + 1, f->buffers, sizeof(*top) * (size_t)(f->nbuffers - 1));
	top = f->buffers;
	memset(top, 0, sizeof(*top));
	top->info.name = strdup("");
	if (!memcmp(tag, "latency  ", 10)) {
		top->info.latency = 1;
		top->lat_offset = r->off;
		top->lat_size = rd_left(r);
	} else if (!memcmp(tag, "flyrecord", 10)) {
		if ((ret = v6_cpu_table(f, r, top)))
			return ret;
		if (st->has_clock_opt) {
			int usecs = f->info.in_usecs;

			if ((ret = rd_sized(r, 8, &clock, &n, "trace_clock")))
				return ret;
			opts_set_clock(f, clock);
			free(clock);
			/* trace-cmd report --ts2secs does not read this copy of the clock */
			if (f->ts2secs_given)
				f->info.in_usecs = usecs;
		}
	} else {
		r->off -= 10;
		return rd_fail(r, "neither \"flyrecord\" nor \"latency\" data");
	}
	top->info.clock = strdup(f->clock ? f->clock : "");
	for (int i = 1; i < f->nbuffers; i++)
		if (!f->buffers[i].info.latency && (ret = v6_instance(f, &f->buffers[i])))
			return ret;
	return 0;
}

/* v6 part @i (0: header info .. 5: command lines) at r->off, listed by sections.c. */
static int v6_part(struct tdat_file *f, struct rd *r, int i)
{
	static const char *const what[NSECTIONS] = {
		"header_page and header_event formats", "formats of ftrace's own events",
		"event formats, by system", "kernel symbols (/proc/kallsyms)",
		"printk formats (trace_printk's strings)", "saved command lines (pid to comm)",
	};
	uint64_t start = r->off;
	int ret;

	switch (i) {
	case 0: ret = read_header_info(r); break;
	case 1: ret = read_formats(r, "ftrace", &f->meta.ftrace, &f->meta.nftrace); break;
	case 2: ret = read_event_systems(r); break;
	case 5: ret = read_text_section(r, 8, OPT_CMDLINES); break;
	default: ret = read_text_section(r, 4, OPT_HEADER_INFO + i); break;
	}
	sections_v6(f, OPT_HEADER_INFO + (unsigned)i, what[i], start, r->off);
	return ret;
}

static int open_v6(struct tdat_file *f, struct rd *r)
{
	struct opts_state st = { 0 };
	uint64_t cpus;
	int ret;

	for (int i = 0; i < NSECTIONS; i++)
		if ((ret = v6_part(f, r, i)))
			return ret;
	if ((ret = rd_num(r, 4, &cpus, "CPU count")))
		return ret;
	if (cpus > MAX_CPUS || cpus > rd_left(r) / 16) {
		r->off -= 4;
		return rd_fail(r, "CPU count larger than the file can hold");
	}
	f->info.cpus = (int)cpus;
	return v6_data_start(f, r, &st);
}

/* ---- v7 ---- */

static int v7_buffer_sections(struct tdat_file *f, struct rd *r)
{
	unsigned flags;
	uint64_t count;
	int ret;

	for (int i = 0; i < f->nbuffers; i++) {
		struct tdat_buffer *b = &f->buffers[i];

		if ((ret = rd_section(r, b->lat_offset, b->info.latency ? OPT_BUFFER_TEXT : OPT_BUFFER, &flags)))
			return ret;
		b->compressed = flags & SEC_FL_COMPRESS;
		if (b->info.latency) {
			b->lat_offset = r->off;
			b->lat_size = r->sec_size;
			continue;
		}
		for (int c = 0; c < b->info.ncpus; c++) {
			struct tdat_cpu_info *ci = &b->cpus[c];

			if (ci->offset > f->src.size || ci->size > f->src.size - ci->offset) {
				r->off = ci->offset;
				return rd_fail(r, "CPU data extends past the end of the file");
			}
			if (!b->compressed) {
				ci->usize = ci->size;
				continue;
			}
			r->off = ci->offset;
			if (ci->size && !rd_num(r, 4, &count, "chunk count"))
				ci->nchunks = (unsigned)count;
		}
	}
	return 0;
}

/* trace-cmd lists the top buffer ("") first, then instances in file order. */
static void top_first(struct tdat_file *f)
{
	for (int i = 1; i < f->nbuffers; i++) {
		if (!f->buffers[i].info.name[0]) {
			struct tdat_buffer top = f->buffers[i];

			memmove(f->buffers + 1, f->buffers, sizeof(top) * (size_t)i);
			f->buffers[0] = top;
			if (f->file_buffer) {	/* a view: where each buffer is in the file */
				int fb = f->file_buffer[i];

				memmove(f->file_buffer + 1, f->file_buffer, sizeof(fb) * (size_t)i);
				f->file_buffer[0] = fb;
			}
			return;
		}
	}
}

/*
 * Whether the options section at @off (the DONE option of the one before
 * points there) lies past the end of the file or runs past it: the file was
 * cut after the data that section was to describe.
 */
static bool section_cut(struct tdat_file *f, uint64_t off, char *why, size_t len)
{
	unsigned char b[8];
	uint64_t size;

	if (off <= f->src.size && f->src.size - off >= 16 &&
	    !src_pread(&f->src, b, 8, off + 8, f->errmsg) &&
	    (size = file_num(f, b, 8)) <= f->src.size - off - 16)
		return false;
	snprintf(why, len, "truncated: the file ends at offset %llu, before the options section "
		 "at offset %llu is complete", (unsigned long long)f->src.size, (unsigned long long)off);
	return true;
}

static const char *const section_names[NSECTIONS] = { "header info", "ftrace formats", "event formats",
						      "kallsyms", "printk formats", "cmdlines" };

/*
 * A damaged ftrace formats, kallsyms, printk or cmdlines section (@i): every
 * event is still read, only names (or ftrace's own events) are missing.  The
 * file opens with a warning saying so, and a trace.dat written from it has
 * the section empty.
 */
static void section_lost(struct tdat_file *f, struct rd *r, int i)
{
	static const char *const without[NSECTIONS] = {
		[1] = "ftrace's own events (markers, stacks) are shown undecoded",
		[3] = "functions are shown as addresses",
		[4] = "kernel printk formats are shown as addresses",
		[5] = "tasks are named only where an event names them",
	};

	rd_drop_mem(r);
	sections_damage(f, r->sec_off, f->errmsg);
	file_warn(f, "%s section damaged, read without it (%s): %s", section_names[i], without[i],
		  f->errmsg);
	f->errmsg[0] = '\0';
	f->meta.raw_off[i] = 0;
	f->meta.raw_len[i] = 0;
}

/* The six metadata sections (a view of a merged file's input takes those in @own from it). */
static int v7_sections(struct tdat_file *f, struct rd *r, const struct opts_state *st, const bool *own)
{
	unsigned flags;
	char msg[80];
	int ret;

	for (int i = 0; i < NSECTIONS; i++) {
		if (own[i])
			continue;
		if (!st->sections[i]) {
			if (i == 0 || i == 2) {
				r->off = 0;
				snprintf(msg, sizeof(msg), "no %s section", section_names[i]);
				return rd_fail(r, msg);
			}
			continue;
		}
		f->meta_changed = false;
		if ((ret = rd_section(r, st->sections[i], OPT_HEADER_INFO + (unsigned)i, &flags)) ||
		    (ret = dat_section_body(r, OPT_HEADER_INFO + i))) {
			if (ret != TDAT_EFORMAT || i == 0 || i == 2)
				return ret;
			section_lost(f, r, i);
			continue;
		}
		/* stored bytes are copied as they are only if they were kept whole */
		if ((flags & SEC_FL_COMPRESS) && !f->meta_changed) {
			f->meta.raw_off[i] = st->sections[i] + 16;
			f->meta.raw_len[i] = r->sec_zlen;	/* not the section size, which may lie */
		}
	}
	rd_drop_mem(r);
	return 0;
}

/* The chained options sections; @last_end: where the last one read ends, @why: a cut. */
static int v7_options(struct tdat_file *f, struct rd *r, struct opts_state *st, uint64_t *last_end,
		      char *why, size_t len)
{
	uint64_t off, next;
	unsigned flags;
	int ret, n = 0;

	if ((ret = rd_num(r, 8, &off, "options offset")))
		return ret;
	f->sec_first = r->off;	/* the sections begin here */
	for (; off; off = next) {
		if (++n > MAX_OPTION_SECTIONS)
			return rd_fail(r, "options sections form a loop");
		if (n > 1 && section_cut(f, off, why, len))
			break;	/* cut inside the data: v7_salvage() below */
		if ((ret = rd_section(r, off, OPT_DONE, &flags)) || (ret = opts_read(r, st, &next)))
			return ret;
		*last_end = off + 16 + r->sec_size;
	}
	rd_drop_mem(r);
	return 0;
}

static int open_v7(struct tdat_file *f, struct rd *r)
{
	struct opts_state st = { 0 };
	uint64_t last_end = 0;
	bool own[NSECTIONS] = { false };
	char why[160] = "";
	int ret;

	if ((ret = rd_str(r, &f->zname, 64, "compression name")) ||
	    (ret = rd_str(r, &f->zver, 64, "compression version")))
		return ret;
	f->info.compression = f->zname;
	f->info.compression_version = f->zver;
	f->codec = codec_find(f->zname);
	if (!f->codec) {
		tdat_msg(f->errmsg, "unknown compression \"%.40s\"", f->zname);
		return TDAT_EUNSUPP;
	}
	if ((ret = v7_options(f, r, &st, &last_end, why, sizeof(why))))
		return ret;
	if (piece_defers(f) && !why[0]) {	/* read when added to a merge */
		f->meta_deferred = true;
		memcpy(f->sec_offs, st.sections, sizeof(f->sec_offs));
		f->sec_btf = st.btf_off;
		f->sec_modules = st.modules_off;
	} else if ((ret = setup_tep(f)) || (ret = origins_read(f, r, &st, own)) ||
		   (ret = v7_sections(f, r, &st, own)) || (ret = sections_extra(f, r, &st))) {
		return ret;
	}
	top_first(f);
	if ((ret = v7_buffer_sections(f, r)) || (ret = origin_restrict(f)))
		return ret;
	top_first(f);
	if (!why[0]) {
		if (!f->meta_deferred)	/* else when its own metadata is read */
			sections_tail(f, r, f->sec_first);
		return 0;
	}
	if ((ret = v7_salvage(f, last_end, why)))
		return ret;
	top_first(f);
	return 0;
}

/* ---- entry points ---- */

static int read_start(struct tdat_file *f, struct rd *r)
{
	unsigned char b[10];
	char *ver;
	uint64_t v;
	int ret;

	if (f->src.size == 0) {
		tdat_msg(f->errmsg, "empty file (no trace.dat header)");
		return TDAT_EFORMAT;
	}
	if (f->src.size < sizeof(dat_magic) || src_pread(&f->src, b, sizeof(dat_magic), 0, f->errmsg) ||
	    memcmp(b, dat_magic, sizeof(dat_magic))) {
		tdat_msg(f->errmsg, "not a trace.dat file (bad magic at offset 0)");
		return TDAT_EFORMAT;
	}
	r->off = sizeof(dat_magic);
	if ((ret = rd_str(r, &ver, 15, "version")))
		return ret;
	f->info.version = atoi(ver);
	if (strcmp(ver, "6") && strcmp(ver, "7")) {
		tdat_msg(f->errmsg, "unsupported trace.dat version \"%.15s\" (offset 10)", ver);
		free(ver);
		return TDAT_EVERSION;
	}
	free(ver);
	if ((ret = rd_bytes(r, b, 2, "endianness and long size")))
		return ret;
	if (b[0] > 1 || (b[1] != 4 && b[1] != 8)) {
		r->off -= 2;
		return rd_fail(r, "bad endianness or long size byte");
	}
	f->info.big_endian = b[0];
	f->info.long_size = b[1];
	f->meta.user_long = b[1];
	if ((ret = rd_num(r, 4, &v, "page size")))
		return ret;
	if (v < 64 || v > (1u << 26) || (v & (v - 1))) {
		r->off -= 4;
		return rd_fail(r, "page size is not a power of two between 64 and 64 MiB");
	}
	f->info.page_size = (unsigned)v;
	return 0;
}


/* What libtraceevent says of the file, once it has the metadata. */
static void finish_tep(struct tdat_file *f)
{
	int hp = tep_get_header_page_size(f->tep);

	/* The kernel's long size (from header_page) is what the pages use. */
	if (hp == 4 || hp == 8)
		f->info.long_size = hp;
	tep_set_cpus(f->tep, f->info.cpus);
}

static void finish_info(struct tdat_file *f)
{
	if (!f->meta_deferred)
		finish_tep(f);
	f->info.uname = f->uname ? f->uname : "";
	f->info.tracecmd_version = f->version ? f->version : "";
	if (!f->clock && f->nbuffers && f->buffers[0].info.clock)
		f->info.clock = f->buffers[0].info.clock;
	else
		f->info.clock = f->clock ? f->clock : "";
	f->info.cpustat = f->cpustat ? f->cpustat : "";
	f->info.nbuffers = f->nbuffers;
	f->report_usecs = f->info.in_usecs;
	if (f->ts2secs)
		f->info.in_usecs = 1;
}

/*
 * libtraceevent finds every record's type and pid where the first format
 * (by id) says the common fields are, and reads them unchecked: they must
 * lie in the 8-byte header every record starts with.
 */
static int check_common(struct tdat_file *f)
{
	static const char *const names[] = { "common_type", "common_pid" };
	struct tep_event *e = tep_get_event(f->tep, 0);
	struct tep_format_field *c;

	for (size_t i = 0; e && i < sizeof(names) / sizeof(names[0]); i++) {
		c = tep_find_common_field(e, names[i]);
		if (c && (c->offset < 0 || c->size <= 0 || c->size > 8 || c->offset + c->size > 8)) {
			tdat_msg(f->errmsg, "damaged event format %s:%s: %s at offset %d, %d bytes, is "
				 "outside the 8-byte header of every record", e->system, e->name,
				 names[i], c->offset, c->size);
			return TDAT_EFORMAT;
		}
	}
	return 0;
}

int dat_read_sections(struct tdat_file *f, struct rd *r)
{
	int ret;

	if ((ret = read_start(f, r)))
		return ret;
	/* v7: the options first, then (unless a piece borrows them) the sections */
	if (f->info.version < 7)
		ret = (ret = setup_tep(f)) ? ret : open_v6(f, r);
	else
		ret = open_v7(f, r);
	sections_sort(f);
	if (!ret && !f->meta_deferred)
		ret = check_common(f);
	if (!ret)
		finish_info(f);
	return ret;
}

int file_meta_load(struct tdat_file *f, struct tdat_file *from)
{
	struct opts_state st = { 0 };
	bool own[NSECTIONS] = { false };
	struct rd r = { .f = f };
	int ret;

	if (!f->meta_deferred)
		return 0;
	if (piece_borrow(f, from)) {
		f->meta_deferred = false;
		return 0;
	}
	memcpy(st.sections, f->sec_offs, sizeof(st.sections));
	st.btf_off = f->sec_btf;
	st.modules_off = f->sec_modules;
	f->meta_deferred = false;
	ret = setup_tep(f);
	if (!ret)
		ret = v7_sections(f, &r, &st, own);
	if (!ret)
		ret = sections_extra(f, &r, &st);
	rd_drop_mem(&r);
	if (!ret) {
		sections_tail(f, &r, f->sec_first);
		rd_drop_mem(&r);
		sections_sort(f);
	}
	if (!ret)
		ret = check_common(f);
	if (!ret)
		finish_tep(f);
	if (ret == TDAT_ENOMEM && !f->errmsg[0])
		tdat_msg(f->errmsg, "out of memory");
	return ret;
}
