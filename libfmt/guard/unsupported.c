/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * unsupported.c - kernel event formats whose print format libtraceevent
 * cannot print (tep-guard.c's TEP_GUARD_UNSUPP: a GNU statement expression,
 * as 4.x kernels' xhci and dwc3 formats have).  They are not damage: the
 * file opens without a warning, each such format is noted
 * (tdat_file_note(), which tools show with --verbose), its events keep
 * their fields in every export, and the text writer, which prints them
 * with their fields only as trace-cmd does, counts them by event type
 * (tdat_writer_notice()).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"
#include "write/write.h"

/* A string in a grown array of strings, or nothing when out of memory. */
static void push_msg(char ***arr, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void push_msg(char ***arr, int *n, const char *fmt, ...)
{
	char **a = realloc(*arr, sizeof(*a) * (size_t)(*n + 1));
	va_list ap;

	if (!a)
		return;
	*arr = a;
	va_start(ap, fmt);
	if (vasprintf(&a[*n], fmt, ap) >= 0)
		(*n)++;
	va_end(ap);
}

void file_unsupported(struct tdat_file *f, const char *buf, const char *system)
{
	const char *name = buf + 6, *id = strstr(buf, "\nID: ");	/* tep_guard_format() checked both */
	int *ids = realloc(f->unsupp_ids, sizeof(*ids) * (size_t)(f->nunsupp + 1));

	if (ids) {
		f->unsupp_ids = ids;
		ids[f->nunsupp++] = atoi(id + 5);
	}
	push_msg(&f->notes, &f->nnotes, "event format %.64s:%.*s: its print format has a GNU statement "
		 "expression, which libtraceevent cannot print: its events are printed with their fields only, "
		 "as trace-cmd prints them", system, (int)strcspn(name, "\n") < 64 ? (int)strcspn(name, "\n") : 64,
		 name);
}

bool file_print_unsupported(const struct tdat_file *f, int id)
{
	f = f->meta_owner ? f->meta_owner : f;
	for (int i = 0; i < f->nunsupp; i++)
		if (f->unsupp_ids[i] == id)
			return true;
	return false;
}

void file_unsupported_free(struct tdat_file *f)
{
	for (int i = 0; i < f->nnotes; i++)
		free(f->notes[i]);
	free(f->notes);
	free(f->unsupp_ids);
}

int tdat_file_nnotes(const struct tdat_file *f)
{
	return f->nnotes;
}

const char *tdat_file_note(const struct tdat_file *f, int i)
{
	return i >= 0 && i < f->nnotes ? f->notes[i] : NULL;
}

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
