/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * notes.c - what a file holds that is not damage but costs the output
 * something: kernel event formats whose print format libtraceevent cannot
 * print (tep-guard.c's TEP_GUARD_UNSUPP: a GNU statement expression, as 4.x
 * kernels' xhci and dwc3 formats have).  The file opens without a warning;
 * each such format is noted (tdat_file_note(), which tools show with
 * --verbose), and its events keep their fields in every export.  The text
 * writer counts those it prints with their fields only (write/notices.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

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

