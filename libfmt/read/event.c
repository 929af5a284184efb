/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * event.c - what a tool may ask of one event: its type's name and system,
 * its pid and the command name of a pid, through the event formats the
 * file carried (libtraceevent).
 */
#include <traceevent/event-parse.h>

#include "read/read.h"

const char *tdat_event_name(const struct tdat_event *ev, const char **system)
{
	struct tep_handle *tep = ev->file->tep;
	struct tep_event *e;
	int type;

	if (ev->size < 2) {
		if (system)
			*system = "";
		return NULL;
	}
	type = tep_data_type(tep, &(struct tep_record){ .data = (void *)ev->data, .size = (int)ev->size });
	e = tep_find_event(tep, type);
	if (system)
		*system = e ? e->system : "";
	return e ? e->name : NULL;
}

int tdat_event_pid(const struct tdat_event *ev)
{
	if (ev->size < 8)
		return -1;
	return tep_data_pid(ev->file->tep,
			    &(struct tep_record){ .data = (void *)ev->data, .size = (int)ev->size });
}

const char *tdat_event_comm(const struct tdat_event *ev, int pid)
{
	return tep_data_comm_from_pid(ev->file->tep, pid);
}
