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

/* Where @f's tep_data_pid() reads common_pid: its tep's first event's common field. */
static void pid_place(struct tdat_file *f)
{
	struct tep_event *e = tep_get_event(f->tep, 0);
	struct tep_format_field *fld = e ? tep_find_common_field(e, "common_pid") : NULL;

	f->pid_tep = f->tep;
	f->pid_off = fld ? fld->offset : 0;
	f->pid_size = fld ? fld->size : 0;
}

/*
 * The value tep_data_pid() gives, read here (it costs a call through the
 * handle and one through its byte-order reader, a hundred instructions an
 * event, and every model format asks it of every event); where the field
 * is not a plain 1, 2, 4 or 8 bytes inside the record, libtraceevent's own.
 */
int tdat_event_pid(const struct tdat_event *ev)
{
	struct tdat_file *f = ev->file;
	unsigned n;

	if (ev->size < 8)
		return -1;
	if (f->pid_tep != f->tep)
		pid_place(f);
	n = (unsigned)f->pid_size;
	if ((n == 1 || n == 2 || n == 4 || n == 8) && f->pid_off >= 0 &&
	    (uint64_t)f->pid_off + n <= ev->size)
		return (int)field_raw(f, (const unsigned char *)ev->data + f->pid_off, n);
	return tep_data_pid(f->tep,
			    &(struct tep_record){ .data = (void *)ev->data, .size = (int)ev->size });
}

const char *tdat_event_comm(const struct tdat_event *ev, int pid)
{
	return tep_data_comm_from_pid(ev->file->tep, pid);
}
