/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-filter.c - fuzz target for the selection and filter-expression
 * parser (select.c, libtraceevent's filter grammar): the input is a list of
 * lines, each a -F filter ("!" first: a negative one, as after -v) or, with
 * "e:" first, an -e event glob; they are bound against the event formats of
 * a real two-buffer capture and run over its first events.
 */
#include <string.h>

#include "tdat.h"
#include "fuzz.h"

#define MAX_EVENTS 400

static struct fuzz_mem mem;
static struct tdat_file *f;

static void load(void)
{
	char path[512];
	size_t len;
	uint8_t *buf = fuzz_slurp(fuzz_testdata("two-buffers.dat", path, sizeof(path)), &len);
	struct tdat_open_opts oo = { .flags = TDAT_OPEN_NO_PLUGINS };

	if (!buf)
		fuzz_die("cannot read testdata/two-buffers.dat (set TDAT_TESTDATA)");
	fuzz_mem_fill(&mem, 0, buf, len);
	free(buf);
	f = tdat_file_new();
	if (!f || tdat_file_open(f, mem.path, &oo))
		fuzz_die("two-buffers.dat does not open");
}

FUZZ_TARGET(fuzz_filter)
{
	struct tdat_select *s;
	struct tdat_merge *m;
	const struct tdat_event *ev;
	char *text, *line, *save = NULL;
	int n = 0;

	if (!f)
		load();
	if (!(text = malloc(size + 1)))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	s = tdat_select_new();
	m = tdat_merge_new();
	if (!s || !m || tdat_merge_add(m, f))
		goto out;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "e:", 2))
			tdat_select_event(s, line + 2);
		else if (line[0] == '!')
			tdat_select_filter(s, line + 1, true);
		else
			tdat_select_filter(s, line, false);
	}
	if (tdat_select_bind(s, m))
		goto out;
	while (n++ < MAX_EVENTS && tdat_merge_next(m, &ev) == 0 && !tdat_select_done(s, ev))
		tdat_select_match(s, ev);
out:
	tdat_select_free(s);
	tdat_merge_free(m);
	free(text);
	return 0;
}
