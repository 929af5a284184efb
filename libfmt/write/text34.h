/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * text34.h - text-34.c's interface to the text writer (text.c): what
 * trace-cmd 3.4 prints unlike 3.1.6.
 */
#ifndef TDAT_WRITE_TEXT34_H
#define TDAT_WRITE_TEXT34_H

#include <stdbool.h>
#include <stddef.h>

struct tep_handle;

/* ---- text-34.c: what trace-cmd 3.4 prints unlike 3.1.6 (text.c's default style) ---- */

struct text34;			/* what it learnt of the events it printed */
struct trace_seq;
struct tep_record;
struct tep_event;
struct text34 *text34_new(void);
void text34_free(struct text34 *c);
/*
 * The latency column of a record (" d..2."), or with @raw its common_flags
 * ("-0x1"), into @out (at least 64 bytes); returns its length.
 */
size_t text34_latency(struct text34 *c, struct tep_handle *tep, const void *data, unsigned size,
		      bool raw, char *out);
/* An event the sched_switch plugin prints: text34_sched_switch() prints it instead. */
bool text34_is_sched_switch(const struct tep_event *event);
void text34_sched_switch(struct text34 *c, struct trace_seq *s, struct tep_record *rec,
			 struct tep_event *event);
/* @s holds @rec's raw fields as libtraceevent 1.7 printed them: give functions their address. */
void text34_raw_pointers(struct text34 *c, struct trace_seq *s, struct tep_record *rec,
			 struct tep_event *event);

/* ---- text-fast.c: print formats compiled once per event type (both styles) ---- */

struct textfast;		/* the plans of the event types met */
struct textfast *textfast_new(void);
void textfast_free(struct textfast *t);
/*
 * @rec's text as tep_print_event(TEP_PRINT_INFO) prints it: a plugin
 * handler's part in @s, the rest in *@text (no NUL in it; the plans' buffer,
 * until the next call).  False: nothing printed, print it with libtraceevent.
 */
bool textfast_print(struct textfast *t, struct trace_seq *s, struct tep_record *rec,
		    struct tep_event *event, const char **text, size_t *len);

#endif /* TDAT_WRITE_TEXT34_H */
