/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * guard.h - what libtraceevent 1.7 must not be handed: formats it crashes on
 * (tep-guard.c), records its printer would read outside of (print-guard.c,
 * print-eval.c).  The reading layer asks before it parses or prints.
 */
#ifndef TDAT_GUARD_H
#define TDAT_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;

/*
 * Zeroed bytes after every buffer records are read from: kbuffer may peek
 * past the commit, and libtraceevent prints a static array field whole,
 * up to this far past a record that holds fewer entries (kernel_stack).
 */
#define RECORD_SLACK	64

/* ---- tep-guard.c: what libtraceevent 1.7 crashes on, refused first ---- */
enum tep_guard {
	TEP_GUARD_OK,		/* parse it */
	TEP_GUARD_UNSUPP,	/* the same, but a kernel shape libtraceevent cannot print, not damage */
	TEP_GUARD_FIELDS,	/* parse only its first *keep bytes: the print format is unsafe */
	TEP_GUARD_BAD,		/* do not parse it at all */
};
enum tep_guard tep_guard_format(const char *buf, size_t *keep);
/*
 * libtraceevent's format and filter parser keeps its place and what it saw
 * in globals: every call into it (and tep_guard_format(), which parses in a
 * handle of its own) holds this lock, as -j workers open their own handles.
 */
void tep_guard_lock(void);
void tep_guard_unlock(void);
const char *tep_guard_filter(const char *expr, size_t *at);

/* print-guard.c: what libtraceevent's printer would read outside a record */
struct tep_event;
struct tep_print_arg;
enum { TEP_RECORD_SAFE, TEP_RECORD_BAD_PRINT, TEP_RECORD_BAD_FIELDS };
#define GUARD_LENS	4		/* printf widths taken from arguments, checked per type */
#define PRINT_WIDTH_MAX	4096		/* the widest printf width or precision printed */
struct tep_guard_type {		/* what tep_guard_record() learnt of one event type */
	struct tep_event *event;
	uint64_t need;			/* a record this long holds every static field */
	bool slow;			/* and that is not enough to know */
	const char *flaw;		/* in every record: the print format's own */
	const char *raw_flaw;		/* the same, in a conversion the raw printer uses */
	int nlens;			/* widths and precisions from arguments ("%*d") */
	struct tep_guard_len {
		struct tep_print_arg *arg;
		bool bounded;		/* not a string's precision: at most PRINT_WIDTH_MAX */
		bool field;		/* of a plain field's conversion (the raw printer's) */
		bool pointer;		/* of a "%*p": only worked out, by the raw printer */
	} lens[GUARD_LENS];
};
/* @raw: for tep_print_fields() (trace-cmd report -R) rather than the print format */
int tep_guard_record(struct tep_guard_type *t, struct tep_event *event, const void *data, unsigned size,
		     bool raw, char *why, size_t len);
/* a TEP_RECORD_BAD_PRINT record's fields, raw, not through its print format's conversions */
struct trace_seq;
struct tep_record;
void tep_guard_print_fields(struct trace_seq *s, struct tep_record *rec, struct tep_event *event);
/*
 * Whether printing @event's fields raw from the record @data (@size bytes)
 * would change how the handle prints them afterwards: libtraceevent prints
 * a char array that is not printable text as ARRAY[..], and from then on
 * every record's, as a -j worker that did not print it cannot know.
 */
bool tep_guard_raw_sticky(struct tep_event *event, const void *data, unsigned size);
void tep_guard_plugins(struct tep_handle *tep);
int tep_guard_refused(void);	/* helper calls refused since the last call, then 0 */

/* print-eval.c: a print argument's value for one record, as libtraceevent works it out */
struct print_rec {
	struct tep_event *event;
	const unsigned char *data;
	unsigned size;
};
enum print_val {
	PV_KNOWN,
	PV_UNKNOWN,		/* a function's, a symbol's or an address */
	PV_DIV0,		/* what libtraceevent would crash on working it out */
	PV_OUTSIDE,		/* an array element outside the record */
	PV_NULL_WRITE,		/* a __rel_loc array's length */
};
enum print_val print_arg_value(const struct print_rec *r, struct tep_print_arg *a, uint64_t *v);


#endif /* TDAT_GUARD_H */
