/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sections.c - every section and option of a trace.dat as the readers meet
 * them (dat-read.c's rd_section(), opts_read(), v6's fixed parts, the v7
 * strings at the end), known or not, with where it lies, its size, what it
 * holds and what was wrong with it: tdat_file_sections(), which tdat-info
 * lists.  Also the v7 sections trace-cmd 3.4 added that a written trace.dat
 * keeps (struct tdat_meta): the kernel's BTF (23) and the modules of a
 * persistent buffer's earlier boot (25), read whole, a damaged one named
 * and skipped.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

static const struct id_name {
	unsigned id;
	const char *name, *what;
} known[] = {
	{ OPT_DONE, "DONE", "end of the options; in v7 where the next options section is" },
	{ OPT_DATE, "DATE", "offset to wall-clock time (record --date)" },
	{ OPT_CPUSTAT, "CPUSTAT", "a buffer's ring-buffer statistics at the end of recording" },
	{ OPT_BUFFER, "BUFFER", "a buffer: name, clock, sub-buffer size, where its CPUs' data lie" },
	{ OPT_TRACECLOCK, "TRACECLOCK", "the trace clocks, the one in use in brackets" },
	{ OPT_UNAME, "UNAME", "uname of the traced machine" },
	{ 6, "HOOK", "an event hook (record -H)" },
	{ OPT_OFFSET, "OFFSET", "an offset added to every timestamp" },
	{ OPT_CPUCOUNT, "CPUCOUNT", "number of CPUs" },
	{ OPT_VERSION, "VERSION", "the trace-cmd that wrote the file" },
	{ OPT_PROCMAPS, "PROCMAPS", "memory maps of traced processes" },
	{ OPT_TRACEID, "TRACEID", "the trace's id (host and guest tracing)" },
	{ OPT_TIME_SHIFT, "TIME_SHIFT", "a guest's clock against its host's" },
	{ OPT_GUEST, "GUEST", "a guest: name, trace id, CPUs" },
	{ OPT_TSC2NSEC, "TSC2NSEC", "TSC to nanoseconds: multiplier, shift, offset" },
	{ OPT_STRINGS, "STRINGS", "the names of the sections" },
	{ OPT_HEADER_INFO, "HEADER_INFO", "header_page and header_event formats" },
	{ OPT_FTRACE_EVENTS, "FTRACE_EVENTS", "formats of ftrace's own events" },
	{ OPT_EVENT_FORMATS, "EVENT_FORMATS", "event formats, by system" },
	{ OPT_KALLSYMS, "KALLSYMS", "kernel symbols (/proc/kallsyms)" },
	{ OPT_PRINTK, "PRINTK", "printk formats (trace_printk's strings)" },
	{ OPT_CMDLINES, "CMDLINES", "saved command lines (pid to comm)" },
	{ OPT_BUFFER_TEXT, "BUFFER_TEXT", "a latency trace's buffer, as text" },
	{ OPT_BTF, "BTF_FILE", "the kernel's BTF (/sys/kernel/btf/vmlinux)" },
	{ OPT_LAST_BOOT_INFO, "LAST_BOOT_INFO", "a persistent buffer's last_boot_info: where the "
	  "kernel and its modules lay in the boot that recorded it" },
	{ OPT_MODULES, "MODULES_FILE", "modules loaded in that earlier boot (/proc/modules)" },
	{ OPT_TDAT_PIECE, "TDAT_PIECE", "tdat-split's mark: which piece of which split" },
};

static const struct id_name *id_name(unsigned id)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].id == id)
			return &known[i];
	return NULL;
}

/*
 * The entry of the section or option at @offset with id @id (*@fresh: just
 * made), or -1 without memory.
 */
static int add(struct tdat_file *f, int kind, unsigned id, uint64_t offset, uint64_t pos, bool *fresh)
{
	const struct id_name *k = id_name(id);
	struct tdat_section_info *s;
	unsigned *strid;

	*fresh = false;
	for (int i = 0; i < f->nsecs; i++)	/* a section read twice is listed once */
		if (kind == TDAT_SECTION && f->secs[i].kind == kind && f->secs[i].offset == offset)
			return i;
	*fresh = true;
	s = realloc(f->secs, sizeof(*s) * (size_t)(f->nsecs + 1));
	if (s)
		f->secs = s;
	strid = realloc(f->sec_strid, sizeof(*strid) * (size_t)(f->nsecs + 1));
	if (strid)
		f->sec_strid = strid;
	if (!s || !strid)
		return -1;
	s += f->nsecs;
	*s = (struct tdat_section_info){
		.kind = kind, .id = id, .offset = offset, .pos = pos, .label = "",
		.name = k ? k->name : "", .what = k ? k->what : "unknown",
	};
	if (kind == TDAT_SECTION && id == OPT_DONE) {
		s->name = "OPTIONS";	/* trace-cmd's "options" sections */
		s->what = "options";
	}
	else if (kind == TDAT_SECTION && id == OPT_BUFFER)
		s->what = "a buffer's CPU data (flyrecord)";
	f->sec_strid[f->nsecs] = ~0u;
	return f->nsecs++;
}

int sections_note(struct tdat_file *f, unsigned id, unsigned flags, unsigned strid, uint64_t offset,
		  uint64_t size)
{
	bool fresh;
	int i = add(f, TDAT_SECTION, id, offset, 0, &fresh);

	if (i >= 0 && fresh) {
		f->secs[i].compressed = flags & SEC_FL_COMPRESS;
		f->secs[i].size = f->secs[i].usize = size;
		f->sec_strid[i] = strid;
	}
	return i;
}

void sections_usize(struct tdat_file *f, int i, uint64_t usize)
{
	if (i >= 0 && i < f->nsecs)
		f->secs[i].usize = usize;
}

void sections_option(struct tdat_file *f, unsigned id, uint64_t offset, uint64_t pos, uint64_t size)
{
	bool fresh;
	int i = add(f, TDAT_OPTION, id, offset, pos, &fresh);

	if (i >= 0)
		f->secs[i].size = f->secs[i].usize = size;
}

void sections_v6(struct tdat_file *f, unsigned id, const char *what, uint64_t start, uint64_t end)
{
	bool fresh;
	int i = add(f, TDAT_V6_PART, id, start, 0, &fresh);

	if (i >= 0) {
		f->secs[i].size = f->secs[i].usize = end - start;
		f->secs[i].what = what;
	}
}

/* Say why the section at @offset was skipped (a copy of @why is kept). */
void sections_damage(struct tdat_file *f, uint64_t offset, const char *why)
{
	for (int i = f->nsecs - 1; i >= 0; i--) {
		if (f->secs[i].kind != TDAT_SECTION || f->secs[i].offset != offset)
			continue;
		if (!f->secs[i].damage)
			f->secs[i].damage = strdup(why);
		return;
	}
}

static int by_place(const void *a, const void *b)
{
	const struct tdat_section_info *x = a, *y = b;
	int xo = x->kind == TDAT_OPTION, yo = y->kind == TDAT_OPTION;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (xo != yo)
		return xo - yo;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

void sections_sort(struct tdat_file *f)
{
	if (f->nsecs > 1)
		qsort(f->secs, (size_t)f->nsecs, sizeof(*f->secs), by_place);
	free(f->sec_strid);	/* the labels are set by now */
	f->sec_strid = NULL;
}

const struct tdat_section_info *tdat_file_sections(const struct tdat_file *f, int *n)
{
	*n = f->nsecs;
	return f->secs;
}

void sections_free(struct tdat_file *f)
{
	for (int i = 0; i < f->nsecs; i++)
		free((char *)f->secs[i].damage);
	free(f->secs);
	free(f->sec_strid);
	f->secs = NULL;
	f->sec_strid = NULL;
	f->nsecs = 0;
}

/* ---- the sections trace-cmd 3.4 added ---- */

/*
 * The section of @id at @off into @blob, whole; a damaged one is named and
 * skipped (a warning on the file), as the other optional sections are.
 */
static int read_whole(struct tdat_file *f, struct rd *r, unsigned id, uint64_t off, struct tdat_blob *blob)
{
	const struct id_name *k = id_name(id);
	unsigned flags;
	char *data;
	int ret;

	if ((ret = rd_section(r, off, id, &flags)) ||
	    (ret = rd_blob(r, r->mem ? r->mlen : r->sec_size, &data, k->name))) {
		if (ret != TDAT_EFORMAT)
			return ret;
		rd_drop_mem(r);
		sections_damage(f, off, f->errmsg);
		file_warn(f, "%s section damaged, skipped: %s", k->name, f->errmsg);
		f->errmsg[0] = '\0';
		return 0;
	}
	blob->len = r->mem ? r->mlen : r->sec_size;
	blob->data = data;
	rd_drop_mem(r);
	return 0;
}

int sections_extra(struct tdat_file *f, struct rd *r, const struct opts_state *st)
{
	int ret;

	if (st->btf_off && (ret = read_whole(f, r, OPT_BTF, st->btf_off, &f->meta.btf)))
		return ret;
	if (st->modules_off && (ret = read_whole(f, r, OPT_MODULES, st->modules_off, &f->meta.modules)))
		return ret;
	return 0;
}

/* ---- every section of a v7 file, one after the other ---- */

/* Append the strings section being read (r) to f->strings: trace-cmd reads every one. */
static void add_strings(struct tdat_file *f, struct rd *r)
{
	size_t n = r->mem ? r->mlen : r->sec_size;
	char *data, *all;

	if (rd_blob(r, n, &data, "strings"))
		return;
	all = realloc(f->strings, f->strings_len + n + 1);
	if (all) {
		memcpy(all + f->strings_len, data, n);
		all[f->strings_len + n] = '\0';
		f->strings = all;
		f->strings_len += n;
	}
	free(data);
}

/*
 * Sections follow one another from the end of the file header (@off) to
 * the end of the file, a buffer's CPU data inside its section: walk them,
 * listing those no option points to (the strings, ...), until the end or
 * something that is not a section.  Then each section's label.
 */
void sections_tail(struct tdat_file *f, struct rd *r, uint64_t off)
{
	unsigned char h[16];
	unsigned flags;

	free(f->strings);
	f->strings = NULL;
	f->strings_len = 0;
	for (int n = 0; n < 4096 && off + 16 <= f->src.size; n++) {
		uint64_t id, size;

		if (src_pread(&f->src, h, sizeof(h), off, f->errmsg))
			break;
		id = file_num(f, h, 2);
		size = file_num(f, h + 8, 8);
		if (size > f->src.size - off - 16)
			break;	/* not a section: what follows is not ours to judge */
		if (id == OPT_STRINGS && !rd_section(r, off, OPT_STRINGS, &flags))
			add_strings(f, r);
		else if (id != OPT_STRINGS)
			sections_note(f, (unsigned)id, (unsigned)file_num(f, h + 2, 2),
				      (unsigned)file_num(f, h + 4, 4), off, size);
		rd_drop_mem(r);
		off += 16 + size;
	}
	f->errmsg[0] = '\0';
	for (int i = 0; i < f->nsecs && f->strings; i++) {
		unsigned id = f->sec_strid[i];

		if (id < f->strings_len)
			f->secs[i].label = f->strings + id;
	}
}
