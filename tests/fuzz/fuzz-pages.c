/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-pages.c - fuzz target for the per-CPU page decoder (dat-cpu.c): the
 * input becomes the stored data of CPU 0 of a real capture, whose header
 * (formats, page size, compression) is parsed once.  The first byte picks
 * the capture: v6 (plain pages), v7 zstd (chunks of compressed pages) or v7
 * without compression.  Every event is decoded, named and merged; damage is
 * reported, never fatal.
 */
#include <string.h>

#include "read/read.h"
#include "fuzz.h"

static const char *const templates[] = { "v6.dat", "clock-mono.dat", "v7-none.dat" };
#define NTEMPLATES (sizeof(templates) / sizeof(templates[0]))

static struct tmpl {
	struct fuzz_mem mem;
	struct tdat_file *f;
	uint64_t size;		/* of the capture; the input is stored after it */
} tm[NTEMPLATES];

static void load(struct tmpl *t, const char *name)
{
	char path[512];
	size_t len;
	uint8_t *buf = fuzz_slurp(fuzz_testdata(name, path, sizeof(path)), &len);
	struct tdat_open_opts oo = { .flags = TDAT_OPEN_NO_PLUGINS };

	if (!buf)
		fuzz_die("cannot read a template capture (set TDAT_TESTDATA)");
	fuzz_mem_fill(&t->mem, 0, buf, len);
	free(buf);
	t->size = len;
	t->f = tdat_file_new();
	if (!t->f || tdat_file_open(t->f, t->mem.path, &oo) || t->f->nbuffers < 1 ||
	    t->f->buffers[0].info.ncpus < 1)
		fuzz_die("template capture does not open");
	/* only CPU 0 of the top buffer has data: the input */
	for (int b = 0; b < t->f->nbuffers; b++)
		for (int c = 0; c < t->f->buffers[b].info.ncpus; c++)
			t->f->buffers[b].cpus[c].size = 0;
	t->f->buffers[0].cpus[0].offset = len;
}

FUZZ_TARGET(fuzz_pages)
{
	struct tmpl *t;
	struct tdat_merge *m;
	const struct tdat_event *ev;
	const char *sys;
	int n;

	if (size < 1)
		return 0;
	t = &tm[data[0] % NTEMPLATES];
	if (!t->f)
		load(t, templates[data[0] % NTEMPLATES]);
	fuzz_mem_fill(&t->mem, t->size, data + 1, size - 1);
	t->f->src.size = t->size + size - 1;
	t->f->buffers[0].cpus[0].size = size - 1;
	m = tdat_merge_new();
	if (!m || tdat_merge_add(m, t->f)) {
		tdat_merge_free(m);
		return 0;
	}
	while (tdat_merge_next(m, &ev) == 0) {
		tdat_event_name(ev, &sys);
		tdat_event_pid(ev);
	}
	tdat_merge_damage(m, &n);
	tdat_merge_free(m);
	return 0;
}
