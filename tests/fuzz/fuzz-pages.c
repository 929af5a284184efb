/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-pages.c - fuzz target for the per-CPU page decoder (dat-cpu.c): the
 * input becomes the stored data of CPU 0 of a real capture, whose header
 * (formats, page size, compression) is parsed once.  The first byte picks
 * the capture: v6 (plain pages), v7 zstd (chunks of compressed pages) or v7
 * without compression.  Every event is decoded, named and merged; damage is
 * reported, never fatal.  The data is read twice, plainly and with chunks
 * read ahead on a thread (tdat_merge_set_jobs()): the events and the damage
 * must be the same, or the target aborts.
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

/* Read @t's data through a merge (@jobs: read ahead): a hash of what came out. */
static uint64_t read_all(struct tmpl *t, int jobs)
{
	struct tdat_merge *m = tdat_merge_new();
	const struct tdat_damage *d;
	const struct tdat_event *ev;
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *sys;
	int n;

#define MIX(v) (h = (h ^ (uint64_t)(v)) * 0x100000001b3ULL)
	if (!m || tdat_merge_set_jobs(m, jobs) || tdat_merge_add(m, t->f)) {
		tdat_merge_free(m);
		return 0;
	}
	while (tdat_merge_next(m, &ev) == 0) {
		tdat_event_name(ev, &sys);
		tdat_event_pid(ev);
		MIX(ev->ts);
		MIX(ev->cpu);
		MIX(ev->missed);
		MIX(ev->size);
		for (unsigned i = 0; i < ev->size; i++)
			MIX(((const unsigned char *)ev->data)[i]);
	}
	d = tdat_merge_damage(m, &n);
	for (int i = 0; i < n; i++) {
		MIX(d[i].offset);
		MIX(d[i].bytes);
		MIX(d[i].reason[0]);
	}
#undef MIX
	tdat_merge_free(m);
	return h;
}

FUZZ_TARGET(fuzz_pages)
{
	struct tmpl *t;

	if (size < 1)
		return 0;
	t = &tm[data[0] % NTEMPLATES];
	if (!t->f)
		load(t, templates[data[0] % NTEMPLATES]);
	fuzz_mem_fill(&t->mem, t->size, data + 1, size - 1);
	t->f->src.size = t->size + size - 1;
	t->f->buffers[0].cpus[0].size = size - 1;
	if (read_all(t, 1) != read_all(t, 2))
		abort();	/* reading ahead changed the events or the damage */
	return 0;
}
