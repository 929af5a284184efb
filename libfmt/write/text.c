/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * text.c - the "text" format: byte for byte what `trace-cmd report` 3.4
 * prints, or with the "style" option 3.1 what 3.1.6 prints.  A `cpus=N` line per
 * input, then one line per event built from libtraceevent's printers (with
 * the plugins trace-cmd loads), the buffer/file name prefixes trace-cmd
 * uses when there are instances or several inputs, and its lost-event
 * lines.  A file whose top buffer is a latency trace is printed as its
 * text, as trace-cmd does.  With the "raw" option, each event's fields raw, as
 * `trace-cmd report -R`.  Times print as trace-cmd's clock flag says
 * (struct tdat_file.report_usecs).  What 3.4 prints unlike 3.1.6 (whose
 * libtraceevent, 1.7, prints here) is text-34.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "read/read.h"
#include "write/sink.h"
#include "write/text34.h"
#include "write/worker.h"
#include "write/options.h"
#include "write/writer-int.h"

struct text {
	struct trace_seq seq;
	int width;		/* of the name prefix */
	bool prefix;		/* print name prefixes */
	bool multi;
	bool latency_only;	/* a latency file was printed; events are not */
	struct text34 *v34;	/* NULL: 3.1.6's style */
	struct textfast *fast;	/* print formats compiled (text-fast.c) */
	struct tep_handle **known;	/* a -j worker: per input, the names its saved cmdlines give */
	int nknown;
	struct tep_record rec;
	struct tep_guard_type types[64];	/* by event id, modulo 64 */
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
 * What trace-cmd reads: the file as stored, a merged trace.dat as one file
 * (its inputs are views of it, origin.c), and a buffer as named there.
 */
static const struct tdat_file *stored(const struct tdat_file *f)
{
	return f->view_of ? f->view_of : f;
}

static const char *stored_buffer(const struct tdat_file *f, int b)
{
	return f->view_of ? f->view_of->buffers[f->file_buffer[b]].info.name : f->buffers[b].info.name;
}

/* The files as stored among the merge's inputs, in order, each once; their count. */
static int stored_files(struct tdat_merge *m, const struct tdat_file **out)
{
	int n = 0;

	for (int i = 0; i < tdat_merge_nfiles(m); i++) {
		const struct tdat_file *f = stored(tdat_merge_file(m, i));

		if (!n || out[n - 1] != f)
			out[n++] = f;
	}
	return n;
}

/*
 * The cpus= lines.  trace-cmd computes the prefix width while it walks the
 * inputs, so the width of input i counts every input's name but only the
 * instance names of the inputs before it; mimic that.
 */
static int text_files(struct tdat_writer *w, struct text *t, const struct tdat_file **in, int n)
{
	int names = 0, inst = 0;

	t->multi = n > 1;
	for (int i = 0; t->multi && i < n; i++)
		names = max_int(names, (int)strlen(base_name(in[i]->info.path)));
	for (int i = 0; i < n; i++) {
		const struct tdat_file *f = in[i];

		if (t->multi)
			sink_printf(&w->sink, "%*s: ", max_int(names, inst), base_name(f->info.path));
		sink_printf(&w->sink, "cpus=%d\n", f->info.cpus);
		if (f->nbuffers && f->buffers[0].info.latency && !f->buffers[0].info.name[0]) {
			t->latency_only = true;
			if (t->multi) {
				tdat_msg(w->errmsg, "%s: a latency trace cannot be merged with other inputs",
					 f->info.path);
				return TDAT_EUNSUPP;
			}
			return print_latency(w, (struct tdat_file *)f);
		}
		inst = max_int(inst, instance_width(f));
	}
	t->width = max_int(names, inst);
	t->prefix = t->multi || (n && instance_count(in[n - 1]) > 0);
	return 0;
}

/* A -j worker's text: per input, the names of its saved cmdlines alone. */
static int known_names(struct tdat_writer *w, struct text *t)
{
	t->nknown = tdat_merge_nfiles(w->merge);
	if (!(t->known = calloc((size_t)t->nknown + 1, sizeof(*t->known))))
		return TDAT_ENOMEM;
	for (int i = 0; i < t->nknown; i++) {
		const struct tdat_file *f = meta_of(tdat_merge_file(w->merge, i));

		if (!(t->known[i] = tep_alloc()))
			return TDAT_ENOMEM;
		if (f->meta.cmdlines.data)
			tep_parse_saved_cmdlines(t->known[i], f->meta.cmdlines.data);
	}
	return 0;
}

static int text_open(struct tdat_writer *w)
{
	struct tdat_merge *m = w->merge;
	int n = tdat_merge_nfiles(m), ret;
	const struct tdat_file **in = calloc((size_t)n + 1, sizeof(*in));
	struct text *t = calloc(1, sizeof(*t));

	if (t)
		w->priv = t;
	if (!t || !in) {
		free(in);
		return TDAT_ENOMEM;
	}
	trace_seq_init(&t->seq);
	if (!(t->fast = textfast_new())) {
		free(in);
		return TDAT_ENOMEM;
	}
	if (!w->opt.style_3_1 && !(t->v34 = text34_new())) {
		free(in);
		return TDAT_ENOMEM;
	}
	ret = text_files(w, t, in, stored_files(m, in));
	free(in);
	if (!ret && w->worker)
		ret = known_names(w, t);
	for (int i = 0; !ret && !t->latency_only && i < n; i++) {
		struct tdat_file *f = tdat_merge_file(m, i);

		if (w->opt.nsec)
			tep_set_flag(f->tep, TEP_NSEC_OUTPUT);
		/* 3.1.6 knows nothing of a persistent buffer's earlier boot */
		file_last_boot(f, !w->opt.style_3_1);
	}
	return ret;
}

/* Digits of @v, right-aligned to @width with @pad (at least @width long). */
static size_t put_u64(char *dst, uint64_t v, int width, char pad)
{
	char b[24], *p = b + sizeof(b);
	size_t n;

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	while (b + sizeof(b) - p < width)
		*--p = pad;
	n = (size_t)(b + sizeof(b) - p);
	memcpy(dst, p, n);
	return n;
}

/*
 * The line head, "%16s-%-5d [%03d]", 3.4's latency column and the time,
 * formatted here rather than through tep_print_event (three format parses
 * and vsnprintf calls per event), with exactly libtraceevent's result:
 * sec.usec rounded ("%5llu.%06llu", after adding 500 ns), sec.nsec for
 * -t, or "%12llu" for clocks that do not count nanoseconds.
 */
static void print_head(struct tdat_writer *w, const struct tdat_event *ev, int pid, const char *comm)
{
	struct text *tx = w->priv;
	size_t n = comm ? strlen(comm) : 0;
	char *d = sink_reserve(&w->sink, n + 160), *p = d;
	uint64_t t = ev->ts;

	if (!d)
		return;
	if (comm && n < 16) {	/* NULL: left out, for the caller to put in (run/par-names.c) */
		memset(p, ' ', 16 - n);
		p += 16 - n;
	}
	if (n) {
		memcpy(p, comm, n);
		p += n;
	}
	*p++ = '-';
	if (pid < 0) {
		p += (size_t)sprintf(p, "%-5d", pid);
	} else {
		char *s = p;

		p += put_u64(p, (uint64_t)pid, 0, ' ');
		while (p - s < 5)
			*p++ = ' ';
	}
	*p++ = ' ';
	*p++ = '[';
	p += ev->cpu < 0 ? (size_t)sprintf(p, "%03d", ev->cpu) : put_u64(p, (uint64_t)ev->cpu, 3, '0');
	*p++ = ']';
	if (tx->v34)
		p += text34_latency(tx->v34, ev->file->tep, ev->data, (unsigned)ev->size,
				    w->opt.raw, p);
	if (!ev->file->report_usecs) {
		p += put_u64(p, t, 12, ' ');
	} else if (w->opt.nsec) {
		*p++ = ' ';
		p += put_u64(p, t / 1000000000, 5, ' ');
		*p++ = '.';
		p += put_u64(p, t % 1000000000, 9, '0');
	} else {
		t = (t + 500) / 1000;
		*p++ = ' ';
		p += put_u64(p, t / 1000000, 5, ' ');
		*p++ = '.';
		p += put_u64(p, t % 1000000, 6, '0');
	}
	*p++ = ':';
	sink_commit(&w->sink, (size_t)(p - d));
}

static void print_prefix(struct tdat_writer *w, struct text *t, const struct tdat_event *ev)
{
	const char *name = stored_buffer(ev->file, ev->buffer);

	if (!name[0] && t->multi)
		name = stored(ev->file)->info.path;
	if (name[0])
		sink_printf(&w->sink, "%*s: ", t->width, base_name(name));
	else
		sink_printf(&w->sink, "%*s  ", t->width, "");
}

/* A record printed without its print format, counted for tdat_writer_warning(). */
static void count_unsafe(struct tdat_writer *w, const struct tdat_event *ev,
			 struct tep_event *event, const char *why)
{
	writer_damaged(w, ev, event->system, event->name, why,
		       "event not printed as its print format says, which would read outside the record, divide by 0 or print without bound",
		       "events not printed as their print format says, which would read outside the record, divide by 0 or print without bound");
}

/*
 * A record libtraceevent would read outside of (print-guard.c): its fields
 * if they lie inside it, else only why.
 */
static void unsafe_record(struct tdat_writer *w, struct text *t, const struct tdat_event *ev,
			  struct tep_event *event, int safe, const char *why)
{
	struct trace_seq *s = &t->seq;

	count_unsafe(w, ev, event, why);
	trace_seq_printf(s, "[UNSAFE TO PRINT: %s]", why);
	if (safe == TEP_RECORD_BAD_PRINT)
		tep_guard_print_fields(s, &t->rec, event);
}

/*
 * The name a line's head gives @pid.  A -j worker has not printed what came
 * before its window, so where the name is not one of the file's saved
 * cmdlines (one libtraceevent learnt from an earlier event, or none), it
 * leaves it out and notes the place: the caller puts it in (run/par-names.c).
 */
static const char *head_comm(struct tdat_writer *w, struct text *t, const struct tdat_event *ev,
			     int pid)
{
	struct tep_handle *known;

	if (!t->known || pid <= 0 || ev->input < 0 || ev->input >= t->nknown)
		return tep_data_comm_from_pid(ev->file->tep, pid);	/* 0 <idle>, -1 <...> */
	known = t->known[ev->input];
	if (tep_is_pid_registered(known, pid))
		return tep_data_comm_from_pid(known, pid);
	if (names_add(&w->names, NAME_PUT, ev->input, pid, w->sink.len, "", 0))
		w->sink.err = ENOMEM;
	return NULL;
}

/* A name plugin_sched_switch registers from field @comm of @rec, for the pid in field @pid. */
static bool learn_one(struct tdat_writer *w, const struct tdat_event *ev, struct tep_event *event,
		      struct tep_record *rec, const char *pid, const char *comm, size_t at)
{
	struct tep_format_field *f;
	unsigned long long val;

	if (tep_get_field_val(NULL, event, pid, rec, &val, 0))
		return false;	/* the handler stops there */
	if ((f = tep_find_any_field(event, comm)) && f->offset + f->size <= (unsigned)rec->size &&
	    names_add(&w->names, NAME_LEARN, ev->input, (int)val, at,
		      (const char *)rec->data + f->offset, strnlen((const char *)rec->data + f->offset,
								   (size_t)f->size)))
		w->sink.err = ENOMEM;
	return true;
}

/*
 * A -j worker: the names printing @event through plugin_sched_switch's
 * handler (or 3.4's sched_switch, which does as it does) registered, in
 * their order, for the caller to learn (run/par-names.c).
 */
static void learn_names(struct tdat_writer *w, struct text *t, const struct tdat_event *ev,
			struct tep_event *event, size_t at)
{
	if (!t->known || !event || !event->handler || (event->flags & TEP_EVENT_FL_NOHANDLE) ||
	    strcmp(event->system, "sched"))
		return;
	if (!strcmp(event->name, "sched_switch")) {
		if (learn_one(w, ev, event, &t->rec, "prev_pid", "prev_comm", at))
			learn_one(w, ev, event, &t->rec, "next_pid", "next_comm", at);
	} else if (!strcmp(event->name, "sched_wakeup") || !strcmp(event->name, "sched_wakeup_new")) {
		learn_one(w, ev, event, &t->rec, "pid", "comm", at);
	}
}

/*
 * The line's text: @s's, then @more's (text-fast.c's, with no NUL), without
 * the newline it may end with.  trace-cmd prints it with "%.*s": it ends at
 * a NUL byte.
 */
static void put_line(struct tdat_writer *w, struct trace_seq *s, const char *more, size_t n)
{
	size_t k;

	if (n && more[n - 1] == '\n')
		n--;
	else if (!n && s->len && s->buffer[s->len - 1] == '\n')
		s->len--;
	k = strnlen(s->buffer, s->len);
	sink_write(&w->sink, s->buffer, k);
	if (k == s->len && n)
		sink_write(&w->sink, more, n);
	sink_putc(&w->sink, '\n');
}

/*
 * Whether a -j worker cannot print the record: its fields printed raw
 * (-R, a print format libtraceevent failed or that is unsafe for it) would
 * change how its handle prints later records (tep_guard_raw_sticky()),
 * which one thread's handle, having printed the windows before, may have
 * done already.  The caller then reads on alone from the block before.
 */
static bool worker_cannot(const struct tdat_writer *w, struct tep_event *event,
			  const struct tep_record *rec, int safe, bool raw)
{
	if (!w->worker || !event || safe == TEP_RECORD_BAD_FIELDS)
		return false;
	if (!raw && safe != TEP_RECORD_BAD_PRINT &&
	    !(event->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_PRINTRAW)))
		return false;
	return tep_guard_raw_sticky(event, rec->data, (unsigned)rec->size);
}

static int text_put(struct tdat_writer *w, const struct tdat_event *ev)
{
	static const char spaces[] = "                    ";
	struct text *t = w->priv;
	struct tep_handle *tep = ev->file->tep;
	struct trace_seq *s = &t->seq;
	struct tep_record *rec = &t->rec;
	struct tep_event *event;
	const char *name, *fast = NULL;
	char why[256];
	size_t len, at, flen = 0;
	int pid, safe;
	bool raw = w->opt.raw;

	if (t->latency_only)
		return 0;
	rec->ts = ev->ts;
	rec->cpu = ev->cpu;
	rec->data = (void *)ev->data;
	rec->size = (int)ev->size;
	rec->missed_events = ev->shown_missed;
	at = w->sink.len;
	if (t->prefix)
		print_prefix(w, t, ev);
	trace_seq_reset(s);
	if (ev->shown_missed > 0)
		trace_seq_printf(s, "CPU:%d [%lld EVENTS DROPPED]\n", ev->cpu, ev->shown_missed);
	else if (ev->shown_missed < 0)
		trace_seq_printf(s, "CPU:%d [EVENTS DROPPED]\n", ev->cpu);
	event = tep_find_event_by_record(tep, rec);
	safe = event ? tep_guard_record(&t->types[(unsigned)event->id % 64], event, rec->data,
					(unsigned)rec->size, raw, why, sizeof(why)) : 0;
	if (worker_cannot(w, event, rec, safe, raw))
		return TDAT_EUNSUPP;
	pid = safe != TEP_RECORD_BAD_FIELDS ? tdat_event_pid(ev) : -1;
	if (s->len) {
		sink_write(&w->sink, s->buffer, strnlen(s->buffer, s->len));
		trace_seq_reset(s);
	}
	print_head(w, ev, pid, head_comm(w, t, ev, pid));
	name = event ? event->name : "(NULL)";
	len = strlen(name);
	sink_putc(&w->sink, ' ');
	sink_write(&w->sink, name, len);
	sink_write(&w->sink, ": ", 2);
	if (len < 20)
		sink_write(&w->sink, spaces, 20 - len);
	if (safe) {
		unsafe_record(w, t, ev, event, safe, why);
	} else {
		if (t->v34 && !raw && event && text34_is_sched_switch(event))
			text34_sched_switch(t->v34, s, rec, event);
		else if (!raw && event && textfast_print(t->fast, s, rec, event, &fast, &flen))
			;
		else
			tep_print_event(tep, s, rec, "%s", raw ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
		if (!raw)
			learn_names(w, t, ev, event, at);
		if (t->v34 && raw && event)
			text34_raw_pointers(t->v34, s, rec, event);
		if (tep_guard_refused())
			count_unsafe(w, ev, event, "a plugin helper was given a pointer outside "
				     "the record (printed as 0)");
		if (event && (event->flags & TEP_EVENT_FL_FAILED) && file_print_unsupported(ev->file, event->id))
			writer_unsupported(w, ev, event->system, event->name);
	}
	put_line(w, s, fast, flen);
	return 0;
}

static void text_free(struct tdat_writer *w)
{
	struct text *t = w->priv;

	if (!t)
		return;
	trace_seq_destroy(&t->seq);
	text34_free(t->v34);
	textfast_free(t->fast);
	for (int i = 0; t->known && i < t->nknown; i++)
		if (t->known[i])
			tep_free(t->known[i]);
	free(t->known);
	free(t);
	w->priv = NULL;
}

static const struct writer_option text_options[] = {
	WOPT_BOOL("nsec", nsec),		/* trace-cmd report -t */
	WOPT_BOOL("raw", raw),			/* trace-cmd report -R */
	WOPT_WORD("style", "3.4 3.1", style_3_1),	/* as trace-cmd 3.4 or 3.1.6 prints */
	{ NULL, WO_BOOL, NULL, 0, 0, 0 },
};

const struct tdat_writer_ops tdat_writer_text_ops = {
	.options = text_options,
	.name = "text",
	.parallel = true,
	.names = true,
	.symbols = true,
	.exts = ".txt",
	.open = text_open,
	.put = text_put,
	.free = text_free,
};
