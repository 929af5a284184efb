/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-pages.c - fuzz target for the per-CPU page decoder (dat-cpu.c): the
 * input becomes the stored data of CPU 0 of a real capture, whose header
 * (formats, page size, compression) is parsed once.  The first byte picks
 * the capture: v6 (plain pages), v7 zstd (chunks of compressed pages) or v7
 * without compression.  Every event is decoded, named and merged; damage is
 * reported, never fatal.  The data is read twice, plainly and with chunks
 * read ahead on a thread (tdat_merge_set_jobs()), and a third time in time
 * windows a unit long, one after the other as -j workers read them (going on
 * alone where a window does not begin where the one before ended, as
 * write/par.c does): the events and the damage must be the same, or the
 * target aborts.
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

#define FNV_BASIS 0xcbf29ce484222325ULL
#define MIX(h, v) ((h) = ((h) ^ (uint64_t)(v)) * 0x100000001b3ULL)

static void mix_event(uint64_t *h, const struct tdat_event *ev)
{
	const char *sys;

	tdat_event_name(ev, &sys);
	tdat_event_pid(ev);
	MIX(*h, ev->ts);
	MIX(*h, ev->cpu);
	MIX(*h, ev->missed);
	MIX(*h, ev->size);
	for (unsigned i = 0; i < ev->size; i++)
		MIX(*h, ((const unsigned char *)ev->data)[i]);
}

static void mix_damage(uint64_t *h, struct tdat_merge *m)
{
	const struct tdat_damage *d;
	int n;

	d = tdat_merge_damage(m, &n);
	for (int i = 0; i < n; i++) {
		MIX(*h, d[i].offset);
		MIX(*h, d[i].bytes);
		MIX(*h, d[i].reason[0]);
	}
}

/* Read @t's data through a merge (@jobs: read ahead): a hash of what came out. */
static uint64_t read_all(struct tmpl *t, int jobs)
{
	struct tdat_merge *m = tdat_merge_new();
	const struct tdat_event *ev;
	uint64_t h = FNV_BASIS;

	if (!m || tdat_merge_set_jobs(m, jobs) || tdat_merge_add(m, t->f)) {
		tdat_merge_free(m);
		return 0;
	}
	while (tdat_merge_next(m, &ev) == 0)
		mix_event(&h, ev);
	mix_damage(&h, m);
	tdat_merge_free(m);
	return h;
}

/* A window's damage, kept until the window is taken (write/par-work.c's blocks). */
static struct wdmg {
	int cursor;
	uint64_t off, bytes;
	const char *reason;
} wd[4096];
static int nwd;

static void on_window_damage(void *arg, int cursor, uint64_t off, uint64_t bytes,
			     const char *reason)
{
	(void)arg;
	if (nwd < (int)(sizeof(wd) / sizeof(wd[0])))
		wd[nwd++] = (struct wdmg){ cursor, off, bytes, reason };
}

/* One window read by @wm into @h; false when the caller must go on alone from @at. */
static bool read_window(struct tdat_merge *wm, struct tdat_merge *m, struct wcut *cut,
			struct cpos *at, struct cpos *start, int n, uint64_t *h)
{
	const struct tdat_event *ev;
	uint64_t hw = *h;
	int ret;

	nwd = 0;
	if (merge_window(wm, cut, start))
		return false;
	for (int i = 0; !cut->first && i < n; i++)
		if (!cpos_eq(&start[i], &at[i]))
			return false;
	while ((ret = tdat_merge_next(wm, &ev)) == 0)
		mix_event(&hw, ev);
	if (ret != TDAT_END)
		return false;	/* a failing window: the caller reads it again alone */
	for (int i = 0; i < nwd; i++)
		merge_damage_add(m, wd[i].cursor, wd[i].off, wd[i].bytes, wd[i].reason);
	merge_places(wm, at);
	*h = hw;
	return true;
}

/* @t's data read in windows of one unit, as tdat_writer_run()'s workers do. */
static uint64_t read_windows(struct tmpl *t)
{
	struct tdat_merge *m = tdat_merge_new(), *wm = tdat_merge_new();
	struct cpos *at = NULL, *start = NULL;
	struct wcut cut = { 0 };
	struct plan *plan = NULL;
	const struct tdat_event *ev;
	uint64_t h = FNV_BASIS;
	bool taken = false, alone = false;
	int n;

	if (!m || !wm || tdat_merge_add(m, t->f) || tdat_merge_add(wm, t->f))
		goto out;
	n = merge_ncursors(m);
	at = calloc((size_t)n + 1, sizeof(*at));
	start = calloc((size_t)n + 1, sizeof(*start));
	cut.from = calloc((size_t)n + 1, sizeof(*cut.from));
	cut.to = calloc((size_t)n + 1, sizeof(*cut.to));
	if (!at || !start || !cut.from || !cut.to || plan_new(m, 0, NULL, 1, &plan))
		goto out;
	merge_damage_hook(wm, on_window_damage, NULL);
	while (!alone && plan_next(plan, &cut)) {
		alone = !read_window(wm, m, &cut, at, start, n, &h);
		taken |= !alone;
	}
	if (alone && (!taken || !merge_resume(m, at, -1)))
		while (tdat_merge_next(m, &ev) == 0)
			mix_event(&h, ev);
	mix_damage(&h, m);
out:
	plan_free(plan);
	free(at);
	free(start);
	free(cut.from);
	free(cut.to);
	tdat_merge_free(wm);
	tdat_merge_free(m);
	return h;
}

FUZZ_TARGET(fuzz_pages)
{
	struct tmpl *t;
	uint64_t h;

	if (size < 1)
		return 0;
	t = &tm[data[0] % NTEMPLATES];
	if (!t->f)
		load(t, templates[data[0] % NTEMPLATES]);
	fuzz_mem_fill(&t->mem, t->size, data + 1, size - 1);
	t->f->src.size = t->size + size - 1;
	t->f->buffers[0].cpus[0].size = size - 1;
	h = read_all(t, 1);
	if (h != read_all(t, 2))
		abort();	/* reading ahead changed the events or the damage */
	if (h != read_windows(t))
		abort();	/* time windows changed the events or the damage */
	return 0;
}
