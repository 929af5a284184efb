/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * text-34.c - what `trace-cmd report` 3.4 (with libtraceevent 1.9) prints
 * unlike 3.1.6 (libtraceevent 1.7, which tdat prints through): the text
 * writer's default style (text.c; the "style" option 3.1 keeps 3.1.6's).
 *
 * - The latency column after the CPU (trace-cmd 3.3's trace_show_data()
 *   prints TEP_PRINT_LATENCY in every report, not only with -l): irqs off
 *   `d` (or `X` where the arch cannot tell), need-resched `N`, `h`/`s`/`H`
 *   for hard/soft irq, then the preempt count's low and high nibble, `.`
 *   where 0.  With -R, the raw common_flags instead: `-0x%x` glued to the
 *   CPU.
 * - -R prints a field that the print format shows as a function (%ps,
 *   %pS, %pf, %pF) as `sym (0xADDR)`, or ` (0xADDR)` with no symbol
 *   (libtraceevent 1.8.4's print_function() in raw mode).  Which fields
 *   those are follows libtraceevent's walk of its parsed print format,
 *   done again here on the public print arguments.
 * - sched_switch's prev_state letters, with the sched_switch plugin, come
 *   from the __print_flags() of the kernel's own format (libtraceevent
 *   1.8's plugin), not from 1.7's fixed "SDTtZXxW": on current kernels
 *   128 is I (was W), 32 Z (was X), 16 X (was Z).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "tdat.h"
#include "guard/guard.h"
#include "write/text34.h"

struct raw_fn {			/* a field -R prints as a function */
	struct tep_format_field *field, *prev;	/* prev: the field before it, NULL if first */
	struct tep_print_arg *arg;	/* its conversion's argument */
	char conv;			/* 's', 'S', 'f' or 'F' */
	bool has_0x;			/* the format's text before it ends in "0x" */
};

struct raw_plan {		/* the fields of one event type -R prints as functions */
	struct tep_event *event;	/* NULL: not made yet */
	int n;
	struct raw_fn *fn;
};

#define TEXT34_PLANS 64

struct text34 {
	struct tep_handle *tep;		/* whose common fields lat[] are */
	struct tep_format_field *lat[4];	/* common_flags, _preempt_count, _lock_depth,
						 * _migrate_disable; NULL: absent */
	struct tep_format_field *state_field;	/* the prev_state states[] are the letters of */
	char states[33];
	struct raw_plan raw[TEXT34_PLANS];	/* by event id, modulo TEXT34_PLANS */
	struct trace_seq tmp, out;
};

/* ---- the latency column ---- */

enum { LAT_FLAGS, LAT_PC, LAT_LOCK_DEPTH, LAT_MIGRATE };

/* The common fields the column is made of, as libtraceevent finds them (its first event's). */
static void lat_layout(struct text34 *c, struct tep_handle *tep)
{
	static const char *const names[] = {
		"common_flags", "common_preempt_count", "common_lock_depth", "common_migrate_disable",
	};
	struct tep_event *first = tep_get_first_event(tep);

	c->tep = tep;
	for (int i = 0; i < 4; i++)
		c->lat[i] = first ? tep_find_common_field(first, names[i]) : NULL;
	/*
	 * libtraceevent reads common_migrate_disable through the lock depth's
	 * cached place, so a kernel with common_lock_depth prints its value
	 * twice.  (It also decides once per process, from the first record it
	 * prints, whether either exists; here each file's formats decide.)
	 */
	if (c->lat[LAT_LOCK_DEPTH])
		c->lat[LAT_MIGRATE] = c->lat[LAT_LOCK_DEPTH];
}

/* A common field's value as libtraceevent's __parse_common() gives it: -1 when absent. */
static int lat_value(const struct text34 *c, int which, const unsigned char *data, unsigned size)
{
	const struct tep_format_field *f = c->lat[which];

	/* outside the record (damage): as if the kernel had no such field */
	if (!f || f->size <= 0 || (unsigned)f->offset + (unsigned)f->size > size)
		return -1;
	return (int)tep_read_number(c->tep, data + f->offset, f->size);
}

size_t text34_latency(struct text34 *c, struct tep_handle *tep, const void *data, unsigned size,
		      bool raw, char *out)
{
	unsigned int pc;
	int flags, hard, soft, n = 0;

	if (c->tep != tep)
		lat_layout(c, tep);
	flags = lat_value(c, LAT_FLAGS, data, size);
	if (raw)
		return (size_t)sprintf(out, "-0x%x", (unsigned)flags);
	pc = (unsigned)lat_value(c, LAT_PC, data, size);
	hard = flags & TRACE_FLAG_HARDIRQ;
	soft = flags & TRACE_FLAG_SOFTIRQ;
	out[n++] = ' ';
	out[n++] = (flags & TRACE_FLAG_IRQS_OFF) ? 'd' : (flags & TRACE_FLAG_IRQS_NOSUPPORT) ? 'X' : '.';
	out[n++] = (flags & TRACE_FLAG_NEED_RESCHED) ? 'N' : '.';
	out[n++] = hard && soft ? 'H' : hard ? 'h' : soft ? 's' : '.';
	n += pc & 0xf ? sprintf(out + n, "%x", pc & 0xf) : sprintf(out + n, ".");
	n += pc & 0xf0 ? sprintf(out + n, "%x", pc >> 4) : sprintf(out + n, ".");
	for (int i = LAT_MIGRATE; i >= LAT_LOCK_DEPTH; i--) {	/* migrate_disable, then lock_depth */
		int v = lat_value(c, i, data, size);

		if (c->lat[i])
			n += v < 0 ? sprintf(out + n, ".") : sprintf(out + n, "%d", v);
	}
	return (size_t)n;
}

/* ---- sched_switch's prev_state, as libtraceevent 1.8's plugin prints it ---- */

/* The field a __print_flags() argument tests, when it is @state (found inside operators). */
static struct tep_print_arg_field *arg_field(struct tep_format_field *state, struct tep_print_arg *arg,
					     int depth)
{
	struct tep_print_arg_field *f;

	if (!arg || depth > 64)
		return NULL;
	if (arg->type == TEP_PRINT_FIELD)
		return &arg->field;
	if (arg->type != TEP_PRINT_OP)
		return NULL;
	f = arg_field(state, arg->op.left, depth + 1);
	if (f && f->field == state)
		return f;
	f = arg_field(state, arg->op.right, depth + 1);
	return f && f->field == state ? f : NULL;
}

/* The symbols of the first __print_flags() of @state among @arg and its operands. */
static struct tep_print_flag_sym *state_flags(struct tep_format_field *state, struct tep_print_arg *arg,
					      int depth)
{
	struct tep_print_flag_sym *sym;

	if (!arg || depth > 64)
		return NULL;
	if (arg->type == TEP_PRINT_FLAGS)
		return arg_field(state, arg->flags.field, 0) ? arg->flags.flags : NULL;
	if (arg->type != TEP_PRINT_OP)
		return NULL;
	sym = state_flags(state, arg->op.left, depth + 1);
	return sym ? sym : state_flags(state, arg->op.right, depth + 1);
}

/* c->states: the letter of each bit, from the format's flags, else the kernel's usual ones. */
static void state_letters(struct text34 *c, struct tep_format_field *state)
{
	struct tep_print_flag_sym *sym = NULL;

	c->state_field = state;
	for (struct tep_print_arg *a = state->event->print_fmt.args; a && !sym; a = a->next)
		sym = state_flags(state, a, 0);
	if (!sym) {
		strcpy(c->states, "SDTtXZPI");
		return;
	}
	memset(c->states, 0, sizeof(c->states));
	for (; sym; sym = sym->next) {
		unsigned long mask = strtoul(sym->value, NULL, 0);
		int bit = 0;

		if (!mask)	/* libtraceevent 1.8 would look for its lowest bit for ever */
			continue;
		while (!(mask & 1)) {
			mask >>= 1;
			bit++;
		}
		if (bit < (int)sizeof(c->states) - 1)
			c->states[bit] = sym->str[0];
	}
}

static void write_state(struct text34 *c, struct trace_seq *s, struct tep_format_field *f,
			struct tep_record *rec)
{
	unsigned long long val = 0;
	bool found = false;
	size_t len;

	if (!f)
		return;
	if (f != c->state_field)
		state_letters(c, f);
	tep_read_number_field(f, rec->data, &val);
	len = strlen(c->states);	/* a bit with no letter ends them */
	for (size_t i = 0; i < len; i++) {
		/* the plugin's int "1 << i": bit 31 tests bits 31 to 63 */
		if (!(val & (unsigned long long)(long long)(int)(1u << i)))
			continue;
		if (found)
			trace_seq_putc(s, '|');
		found = true;
		trace_seq_putc(s, c->states[i]);
	}
	if (!found)
		trace_seq_putc(s, 'R');
}

/* "comm:" of a comm field, which the plugin also gives the pid in the comm list. */
static void save_comm(struct trace_seq *s, struct tep_event *event, const char *name,
		      struct tep_record *rec, unsigned long long pid)
{
	struct tep_format_field *f = tep_find_any_field(event, name);
	unsigned int at = s->len;

	if (!f)
		return;
	trace_seq_printf(s, "%.*s", f->size, (const char *)rec->data + f->offset);
	trace_seq_terminate(s);
	tep_register_comm(event->tep, s->buffer + at, (int)pid);
	trace_seq_putc(s, ':');
}

/* The event's print format after a '!' (the plugin's handler returned non-zero). */
static void pretty_too(struct trace_seq *s, struct tep_record *rec, struct tep_event *event)
{
	int flags = event->flags;

	trace_seq_putc(s, '!');
	event->flags |= TEP_EVENT_FL_NOHANDLE;
	tep_print_event(event->tep, s, rec, "%s", TEP_PRINT_INFO);
	event->flags = flags;
}

void text34_sched_switch(struct text34 *c, struct trace_seq *s, struct tep_record *rec,
			 struct tep_event *event)
{
	unsigned long long val;

	if (tep_get_field_val(s, event, "prev_pid", rec, &val, 1)) {
		pretty_too(s, rec, event);
		return;
	}
	save_comm(s, event, "prev_comm", rec, val);
	trace_seq_printf(s, "%lld ", val);
	if (tep_get_field_val(s, event, "prev_prio", rec, &val, 1) == 0)
		trace_seq_printf(s, "[%d] ", (int)val);
	write_state(c, s, tep_find_any_field(event, "prev_state"), rec);
	trace_seq_puts(s, " ==> ");
	if (tep_get_field_val(s, event, "next_pid", rec, &val, 1)) {
		pretty_too(s, rec, event);
		return;
	}
	save_comm(s, event, "next_comm", rec, val);
	trace_seq_printf(s, "%lld", val);
	if (tep_get_field_val(s, event, "next_prio", rec, &val, 1) == 0)
		trace_seq_printf(s, " [%d]", (int)val);
}

bool text34_is_sched_switch(const struct tep_event *event)
{
	return event->handler && !(event->flags & TEP_EVENT_FL_NOHANDLE) &&
	       !strcmp(event->name, "sched_switch") && !strcmp(event->system, "sched");
}

/* ---- -R: a function pointer's address after its symbol ---- */

/* A piece of a print format, as libtraceevent's parse_args() cuts it (its print_cache). */
struct fmt_ent {
	struct tep_print_arg *arg;	/* NULL: text */
	bool ends_0x;			/* text ending in "0x" */
	char conv;			/* a pointer's letter after the 'p', else 0 */
};

/* How many letters after a "%p" belong to it (libtraceevent's parse_arg_format_pointer()). */
static int pointer_len(const char *f)
{
	int n;

	switch (f[0]) {
	case 'F': case 'S': case 'f': case 's':
		return 1;
	case 'M': case 'm':
		return f[1] == 'R' || f[1] == 'F' ? 2 : 1;
	case 'U':
		return strchr("LlBb", f[1]) && f[1] ? 2 : 1;
	case 'h':
		return strchr("CDN", f[1]) && f[1] ? 2 : 1;
	case 'I': case 'i':
		n = 2;
		if (f[1] == 'S')
			while (f[n] == 'p' || f[n] == 'f' || f[n] == 's')
				n++;
		if (f[1] == 'S' || f[1] == '4') {
			if (f[n] && strchr("hnlb", f[n]))
				n++;
			if (f[1] == '4')
				return n;
		}
		if (f[1] == 'S' || f[1] == '6')
			return f[n] == 'c' ? n + 1 : n;
		return 1;
	default:
		return 0;
	}
}

/* Text up to a lone '%' (parse_arg_string()): escapes and "%%" undone. */
static int fmt_text(const char *f, struct fmt_ent *e)
{
	char a = 0, b = 0;	/* the last two characters of the text */
	int ret = 0;

	for (; *f; f++, ret++) {
		char ch = *f;

		if (ch == '\\') {
			if (!*++f)
				break;	/* libtraceevent reads on past the end */
			ret++;
			ch = *f == 'n' ? '\n' : *f == 't' ? '\t' : *f == 'r' ? '\r' : *f;
		} else if (ch == '%') {
			if (f[1] != '%')
				break;
			f++;
			ret++;
		}
		a = b;
		b = ch;
	}
	*e = (struct fmt_ent){ .ends_0x = a == '0' && b == 'x' };
	return ret;
}

/*
 * One conversion at @f (parse_arg_format(), with libtraceevent 1.8's '+'
 * and %c): *@added when it made a piece, *@failed when the event's format
 * is one libtraceevent marks failed.
 */
static int fmt_conv(const char *f, struct tep_print_arg **arg, struct fmt_ent *e, bool *added,
		    bool *failed)
{
	bool len_arg = false;
	int ret = 1, ls = 0, n;

	*added = false;
	for (f++; *f; f++, ret++) {
		ls = *f == 'h' ? ls - 1 : *f == 'l' ? ls + 1 : *f == 'L' ? 2 : strchr("zZ", *f) ? 1 : ls;
		if (strchr("#hlLzZ.-+0123456789", *f))
			continue;
		if (*f == '*') {
			if (!*arg || len_arg)
				break;
			len_arg = true;
			*arg = (*arg)->next;
			continue;
		}
		*added = true;
		if (!strchr("pcduixXos", *f)) {	/* an unknown letter: text ">X<" */
			*e = (struct fmt_ent){ 0 };
			return ret + 1;
		}
		if (!*arg)
			break;
		*e = (struct fmt_ent){ .arg = *arg };
		if (*f == 'p') {
			n = pointer_len(f + 1);
			e->conv = n ? f[1] : 0;
			ret += n;
		}
		/* "bad format!" (a conversion over 31 characters), "bad count" */
		if (ret + 1 > (*f == 'p' || *f == 's' ? 31 : 30) ||
		    (!strchr("ps", *f) && (ls < -2 || ls > 2)))
			*failed = true;
		*arg = (*arg)->next;
		return ret + 1;
	}
	*added = false;
	*failed |= *f != '\0';
	return ret;
}

/* The pieces of @event's print format; NULL with *n 0 when it has none. */
static struct fmt_ent *fmt_parse(struct tep_event *event, int *n, bool *failed)
{
	const char *f = event->print_fmt.format;
	struct tep_print_arg *arg = event->print_fmt.args;
	struct fmt_ent *ents = NULL, e;
	int len = f ? (int)strlen(f) : 0, cap = 0, ret;
	bool added;

	*n = 0;
	while (f && *f) {
		if (*f == '%' && f[1] != '%') {
			ret = fmt_conv(f, &arg, &e, &added, failed);
		} else {
			ret = fmt_text(f, &e);
			added = true;
		}
		if (added) {
			if (*n == cap) {
				struct fmt_ent *g = realloc(ents, sizeof(*g) * (size_t)(cap = cap * 2 + 8));

				if (!g)
					break;
				ents = g;
			}
			ents[(*n)++] = e;
		}
		len -= ret;
		if (len <= 0 || ret <= 0)
			break;
		f += ret;
	}
	return ents;
}

/*
 * Which fields -R prints as functions: libtraceevent's print_selected_fields()
 * looks each field up among the pieces from where the last one was found
 * (round to the start), and prints it raw, not through a conversion, when
 * it is an array or a string, or when the last one found was the last
 * piece.  A field whose piece is a %ps/%pS/%pf/%pF joins the plan.
 */
/* The piece @f is found at from @cur on, round to the start; -1 if none. */
static int plan_find(const struct fmt_ent *ents, int n, int cur, struct tep_format_field *f,
		     bool *has_0x)
{
	int at = cur;

	*has_0x = false;
	do {
		struct tep_print_arg *a = ents[at].arg;

		if (!a) {
			*has_0x = ents[at].ends_0x;
		} else {
			while (a && a->type == TEP_PRINT_TYPE)
				a = a->typecast.item;
			if (a && a->type == TEP_PRINT_FIELD && a->field.field == f)
				return at;
			*has_0x = false;
		}
		at = at + 1 < n ? at + 1 : 0;
	} while (at != cur);
	return -1;
}

static int plan_walk(struct raw_plan *p, struct tep_event *event, const struct fmt_ent *ents, int n)
{
	struct tep_format_field *prev = NULL;
	int cur = 0, at;
	bool has_0x;

	for (struct tep_format_field *f = event->format.fields; f; prev = f, f = f->next) {
		if (cur < 0 || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING)) ||
		    (at = plan_find(ents, n, cur, f, &has_0x)) < 0)
			continue;
		cur = at + 1 < n ? at + 1 : -1;
		if (ents[at].conv && strchr("FfSs", ents[at].conv)) {
			struct raw_fn *fn = realloc(p->fn, sizeof(*fn) * (size_t)(p->n + 1));

			if (!fn)
				return TDAT_ENOMEM;
			p->fn = fn;
			fn[p->n++] = (struct raw_fn){ .field = f, .prev = prev, .arg = ents[at].arg,
						      .conv = ents[at].conv, .has_0x = has_0x };
		}
	}
	return 0;
}

/* @event's plan, made on its first record. */
static struct raw_plan *raw_plan(struct text34 *c, struct tep_event *event)
{
	struct raw_plan *p = &c->raw[(unsigned)event->id % TEXT34_PLANS];
	struct fmt_ent *ents;
	bool failed = false;
	int n;

	if (p->event == event)
		return p;
	free(p->fn);
	*p = (struct raw_plan){ .event = event };
	ents = fmt_parse(event, &n, &failed);
	if (n && !failed && !(event->flags & TEP_EVENT_FL_FAILED) && plan_walk(p, event, ents, n)) {
		free(p->fn);
		*p = (struct raw_plan){ 0 };	/* no memory: printed as 3.1.6 does */
	}
	free(ents);
	return p;
}

/* What libtraceevent 1.7 (@old) and 1.8 in raw mode (@new) print for the function at @v. */
static void fn_texts(struct tep_handle *tep, char conv, uint64_t v, char *old, char *new, size_t len)
{
	const char *sym = tep_find_function(tep, v);
	char off[24] = "";

	if (!sym) {
		snprintf(old, len, "0x%" PRIx64, v);
		snprintf(new, len, " (0x%" PRIx64 ")", v);
		return;
	}
	if (conv == 'F' || conv == 'S')
		snprintf(off, sizeof(off), "+0x%llx", (unsigned long long)v - tep_find_function_address(tep, v));
	snprintf(old, len, "%s%s", sym, off);
	snprintf(new, len, "%s%s (0x%" PRIx64 ")", sym, off, v);
}

/* Where field @fn's value starts in @event's raw fields: after those before it, printed again. */
static size_t fn_at(struct text34 *c, const struct raw_fn *fn, struct tep_record *rec,
		    struct tep_event *event)
{
	struct tep_format_field *next;

	trace_seq_reset(&c->tmp);
	if (fn->prev) {
		next = fn->prev->next;
		fn->prev->next = NULL;
		tep_print_fields(&c->tmp, rec->data, rec->size, event);
		fn->prev->next = next;
	}
	return c->tmp.len + strlen(fn->field->name) + 2 + (fn->has_0x ? 2 : 0);
}

void text34_raw_pointers(struct text34 *c, struct trace_seq *s, struct tep_record *rec,
			 struct tep_event *event)
{
	struct raw_plan *p = raw_plan(c, event);
	struct print_rec pr = { event, rec->data, (unsigned)rec->size };
	char old[256], new[256 + 24];
	unsigned int done = 0;
	uint64_t v;

	if (!p->n)
		return;
	trace_seq_reset(&c->out);
	for (int i = 0; i < p->n; i++) {
		size_t at = fn_at(c, &p->fn[i], rec, event), n;

		if (print_arg_value(&pr, p->fn[i].arg, &v) != PV_KNOWN)
			continue;
		fn_texts(event->tep, p->fn[i].conv, v, old, new, sizeof(old));
		n = strlen(old);
		if (at < done || at + n > s->len || memcmp(s->buffer + at, old, n))
			continue;	/* not where it must be: leave it as 1.7 printed it */
		trace_seq_printf(&c->out, "%.*s%s", (int)(at - done), s->buffer + done, new);
		done = (unsigned)(at + n);
	}
	trace_seq_printf(&c->out, "%.*s", (int)(s->len - done), s->buffer + done);
	trace_seq_reset(s);
	trace_seq_printf(s, "%.*s", (int)c->out.len, c->out.buffer);
}

struct text34 *text34_new(void)
{
	struct text34 *c = calloc(1, sizeof(*c));

	if (c) {
		trace_seq_init(&c->tmp);
		trace_seq_init(&c->out);
	}
	return c;
}

void text34_free(struct text34 *c)
{
	if (!c)
		return;
	for (int i = 0; i < TEXT34_PLANS; i++)
		free(c->raw[i].fn);
	trace_seq_destroy(&c->tmp);
	trace_seq_destroy(&c->out);
	free(c);
}
