/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * notices.c - a writer's counts of events it printed with their fields
 * only, their print format not supported (read/notes.c says which formats:
 * a GNU statement expression libtraceevent cannot print; trace-cmd prints
 * them the same way), given to the caller as messages
 * (tdat_writer_notice()).  Not damage: the exit status does not change.
 */
#include <stdio.h>
#include <stdlib.h>

#include "read/read.h"
#include "write/writer-int.h"

void writer_unsupported(struct tdat_writer *w, const struct tdat_event *ev, const char *system,
			const char *name)
{
	struct writer_notice *n = w->notices;
	int i;

	for (i = 0; i < w->nnotices; i++)
		if (n[i].file == ev->file && n[i].system == system && n[i].name == name)
			break;
	if (i == w->nnotices) {
		if (!(n = realloc(w->notices, sizeof(*n) * (size_t)(i + 1))))
			return;
		w->notices = n;
		n[i] = (struct writer_notice){ .file = ev->file, .system = system, .name = name };
		w->nnotices++;
	}
	n[i].count++;
}

int tdat_writer_nnotices(const struct tdat_writer *w)
{
	return w->nnotices;
}

const char *tdat_writer_notice(struct tdat_writer *w, int i)
{
	const struct writer_notice *n;

	if (i < 0 || i >= w->nnotices)
		return NULL;
	n = &w->notices[i];
	tdat_msg(w->notice, "%s: %llu %.64s:%.64s event%s printed with %s fields only: the print format is "
		 "not supported (a GNU statement expression, which libtraceevent cannot parse; trace-cmd prints "
		 "the same)", n->file->info.path, (unsigned long long)n->count, n->system, n->name,
		 n->count == 1 ? "" : "s", n->count == 1 ? "its" : "their");
	return w->notice;
}
