/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * writer-text.c - the "text" format: byte for byte what `trace-cmd report`
 * (3.1.6) prints.  A `cpus=N` line per input, then one line per event built
 * from libtraceevent's printers (with the plugins trace-cmd loads), the
 * buffer/file name prefixes trace-cmd uses when there are instances or
 * several inputs, and its lost-event lines.  A file whose top buffer is a
 * latency trace is printed as its text, as trace-cmd does.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "internal.h"

struct text {
	struct trace_seq seq;
	int width;		/* of the name prefix */
	bool prefix;		/* print name prefixes */
	bool multi;
	bool latency_only;	/* a latency file was printed; events are not */
	struct tep_record rec;
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static int instance_count(const struct tdat_file *f)
{
	int n = 0;

	for (int b = 0; b < f->nbuffers; b++)
		n += f->buffers[b].info.name[0] != '\0';
	return n;
}

static int instance_width(const struct tdat_file *f)
{
	int w = 0;

	for (int b = 0; b < f->nbuffers; b++)
		if (f->buffers[b].info.name[0])
			w = max_int(w, (int)strlen(base_name(f->buffers[b].info.name)));
	return w;
}

static int print_latency(struct tdat_writer *w, struct tdat_file *f)
{
	size_t len;
	const char *text = tdat_file_latency_text(f, 0, &len);

	if (!text) {
		tdat_msg(w->errmsg, "%s", f->errmsg);
		return TDAT_EFORMAT;
	}
	sink_write(&w->sink, text, len);
	sink_putc(&w->sink, '\n');
	return 0;
}

/*
 * The cpus= lines.  trace-cmd computes the prefix width while it walks the
 * inputs, so the width of input i counts every input's name but only the
 * instance names of the inputs before it; mimic that.
 */
static int text_open(struct tdat_writer *w)
{
	struct tdat_merge *m = w->merge;
	int n = tdat_merge_nfiles(m), names = 0, inst = 0;
	struct text *t = calloc(1, sizeof(*t));

	if (!t)
		return TDAT_ENOMEM;
	w->priv = t;
	trace_seq_init(&t->seq);
	t->multi = n > 1;
	for (int i = 0; t->multi && i < n; i++)
		names = max_int(names, (int)strlen(base_name(tdat_merge_file(m, i)->info.path)));
	for (int i = 0; i < n; i++) {
		struct tdat_file *f = tdat_merge_file(m, i);

		if (t->multi)
			sink_printf(&w->sink, "%*s: ", max_int(names, inst), base_name(f->info.path));
		sink_printf(&w->sink, "cpus=%d\n", f->info.cpus);
		if (f->nbuffers && f->buffers[0].info.latency && !f->buffers[0].info.name[0]) {
			t->latency_only = true;
			return print_latency(w, f);
		}
		if (w->flags & TDAT_W_NSEC)
			tep_set_flag(f->tep, TEP_NSEC_OUTPUT);
		inst = max_int(inst, instance_width(f));
	}
	t->width = max_int(names, inst);
	t->prefix = t->multi || (n && instance_count(tdat_merge_file(m, n - 1)) > 0);
	return 0;
}

static const char *time_fmt(const struct tdat_writer *w, const struct tdat_file *f)
{
	if (!f->info.in_usecs)
		return "%12d:";
	return (w->flags & TDAT_W_NSEC) ? " %9.1d:" : " %6.1000d:";
}

static void print_prefix(struct tdat_writer *w, struct text *t, const struct tdat_event *ev)
{
	const char *name = ev->file->buffers[ev->buffer].info.name;

	if (!name[0] && t->multi)
		name = ev->file->info.path;
	if (name[0])
		sink_printf(&w->sink, "%*s: ", t->width, base_name(name));
	else
		sink_printf(&w->sink, "%*s  ", t->width, "");
}

static int text_put(struct tdat_writer *w, const struct tdat_event *ev)
{
	static const char spaces[] = "                    ";
	struct text *t = w->priv;
	struct tep_handle *tep = ev->file->tep;
	struct trace_seq *s = &t->seq;
	struct tep_record *rec = &t->rec;
	struct tep_event *event;
	const char *name;
	size_t len;

	if (t->latency_only)
		return 0;
	rec->ts = ev->ts;
	rec->cpu = ev->cpu;
	rec->data = (void *)ev->data;
	rec->size = (int)ev->size;
	rec->missed_events = ev->shown_missed;
	if (t->prefix)
		print_prefix(w, t, ev);
	trace_seq_reset(s);
	if (ev->shown_missed > 0)
		trace_seq_printf(s, "CPU:%d [%lld EVENTS DROPPED]\n", ev->cpu, ev->shown_missed);
	else if (ev->shown_missed < 0)
		trace_seq_printf(s, "CPU:%d [EVENTS DROPPED]\n", ev->cpu);
	event = tep_find_event_by_record(tep, rec);
	tep_print_event(tep, s, rec, "%16s-%-5d [%03d]", TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU);
	tep_print_event(tep, s, rec, time_fmt(w, ev->file), TEP_PRINT_TIME);
	name = event ? event->name : "(NULL)";
	trace_seq_printf(s, " %s: ", name);
	len = strlen(name);
	if (len < 20)
		trace_seq_printf(s, "%.*s", (int)(20 - len), spaces);
	tep_print_event(tep, s, rec, "%s", TEP_PRINT_INFO);
	if (s->len && s->buffer[s->len - 1] == '\n')
		s->len--;
	/* trace-cmd prints the line with "%.*s": it ends at a NUL byte */
	sink_write(&w->sink, s->buffer, strnlen(s->buffer, s->len));
	sink_putc(&w->sink, '\n');
	return 0;
}

static void text_free(struct tdat_writer *w)
{
	struct text *t = w->priv;

	if (!t)
		return;
	trace_seq_destroy(&t->seq);
	free(t);
	w->priv = NULL;
}

const struct tdat_writer_ops tdat_writer_text_ops = {
	.name = "text",
	.exts = ".txt",
	.open = text_open,
	.put = text_put,
	.free = text_free,
};
