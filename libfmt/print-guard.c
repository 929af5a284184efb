/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * print-guard.c - whether libtraceevent 1.7 may print one record.  Its
 * printer trusts the file: it reads a field where the format says it is,
 * however far past the record's end; __print_hex(), __print_hex_str() and
 * __print_array() read as many bytes as a length taken from the record
 * says; and two plugin helpers dereference an argument as a pointer.  A
 * damaged or hostile file turns each into a read outside the buffer
 * (SIGSEGV, or gigabytes of output).  tep_guard_record() checks a record
 * against its format before it is printed; the two helpers are replaced by
 * versions that read only the record being printed.
 */
#include <dlfcn.h>
#include <endian.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "internal.h"

#define MAX_DEPTH	32	/* of the argument tree walked */
#define CDB_MAX		32	/* bytes scsi_trace_parse_cdb() may read */

/* The record being printed, for the helpers below (set by tep_guard_record()). */
static _Thread_local const unsigned char *cur_data;
static _Thread_local size_t cur_size;
static _Thread_local int refused;	/* helper calls given a pointer outside it */

struct check {
	struct tep_event *event;
	const unsigned char *data;
	uint64_t size;
	char *why;
	size_t len;
	bool narrow;		/* casts keep as few bits as they may (a divisor) */
};

static bool unsafe(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool unsafe(struct check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, c->len, fmt, ap);
	va_end(ap);
	return false;
}

/* Where a dynamic field's data lies, as libtraceevent computes it. */
static void dynamic_extent(struct check *c, struct tep_format_field *f, uint64_t *off, uint64_t *len)
{
	unsigned long long v = tep_read_number(c->event->tep, c->data + f->offset, f->size);

	*off = v & 0xffff;
	*len = f->size == 2 ? (*off <= c->size ? c->size - *off : 0) : (v >> 16) & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		*off += (uint64_t)f->offset + (uint64_t)f->size;
}

/*
 * Every field inside the record, as plugin handlers and the raw field
 * printer read them unchecked.  A static array may hang over the end by
 * RECORD_SLACK bytes: kernel_stack's caller[8] holds fewer entries than
 * that when the stack is short.
 */
static bool fields_fit(struct check *c, struct tep_format_field *f)
{
	uint64_t off, len, room;

	for (; f; f = f->next) {
		room = c->size + ((f->flags & TEP_FIELD_IS_ARRAY) ? RECORD_SLACK : 0);
		if (f->offset < 0 || f->size < 0 || (uint64_t)f->offset > c->size ||
		    (uint64_t)f->offset + (uint64_t)f->size > room)
			return unsafe(c, "field %.64s at offset %d, %d bytes, is past the end of the "
				      "%llu-byte record", f->name, f->offset, f->size,
				      (unsigned long long)c->size);
		if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || !f->size || f->size > 8)
			continue;
		dynamic_extent(c, f, &off, &len);
		if (off + len > c->size)
			return unsafe(c, "the data of field %.64s, at offset %llu, %llu bytes, is past "
				      "the end of the %llu-byte record", f->name, (unsigned long long)off,
				      (unsigned long long)len, (unsigned long long)c->size);
	}
	return true;
}

/*
 * The bits a cast to @type keeps at most: 8 for a type this does not know
 * (libtraceevent may keep more, never fewer).
 */
static unsigned cast_bits(const char *type)
{
	static const char *const wide[] = { "long", "64", "size_t", "loff_t" };

	if (!type || strchr(type, '*'))
		return 64;
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		if (strstr(type, wide[i]))
			return 64;
	if (strstr(type, "int") || strstr(type, "32") || !strcmp(type, "unsigned"))
		return 32;
	if (strstr(type, "short") || strstr(type, "16"))
		return 16;
	return 8;
}

/*
 * The value of a length argument, as far as this can tell it: numbers,
 * fields and arithmetic.  Anything else is unknown (false).  With
 * c->narrow, casts truncate as narrowly as they may.
 */
static bool eval(struct check *c, struct tep_print_arg *a, int depth, uint64_t *v)
{
	struct tep_format_field *f;
	uint64_t l, r, off;
	char *end;

	if (!a || depth > MAX_DEPTH)
		return false;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		*v = strtoull(a->atom.atom, &end, 0);
		return end != a->atom.atom && !*end;
	case TEP_PRINT_FIELD:
		f = a->field.field ? a->field.field : tep_find_any_field(c->event, a->field.name);
		if (!f)
			return false;
		*v = tep_read_number(c->event->tep, c->data + f->offset, f->size);
		return true;
	case TEP_PRINT_TYPE:
		if (!eval(c, a->typecast.item, depth + 1, v))
			return false;
		if (c->narrow && cast_bits(a->typecast.type) < 64)
			*v &= (1ull << cast_bits(a->typecast.type)) - 1;
		return true;
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		if (!a->dynarray.field)
			return false;
		dynamic_extent(c, a->dynarray.field, &off, v);
		return true;
	case TEP_PRINT_OP:
		if (!a->op.op || !a->op.op[0] || a->op.op[1] ||
		    !eval(c, a->op.left, depth + 1, &l) || !eval(c, a->op.right, depth + 1, &r))
			return false;
		switch (a->op.op[0]) {
		case '+': *v = l + r; return true;
		case '-': *v = l - r; return true;
		case '*': *v = l * r; return true;
		case '&': *v = l & r; return true;
		case '|': *v = l | r; return true;
		case '/': return r && (*v = l / r, true);
		case '%': return r && (*v = l % r, true);
		}
		return false;
	default:
		return false;
	}
}

/* Where the data of __print_hex() or __print_array() starts. */
static bool array_start(struct check *c, struct tep_print_arg *a, uint64_t *start)
{
	struct tep_format_field *f;
	uint64_t len;

	if (a && a->type == TEP_PRINT_DYNAMIC_ARRAY && a->dynarray.field) {
		dynamic_extent(c, a->dynarray.field, start, &len);
		return true;
	}
	if (!a || a->type != TEP_PRINT_FIELD)
		return false;
	f = a->field.field ? a->field.field : tep_find_any_field(c->event, a->field.name);
	if (!f)
		return false;
	*start = (uint64_t)f->offset;
	return true;
}

/* libtraceevent reads @count elements of @el bytes (1 for a size it does not know). */
static bool array_fits(struct check *c, const char *what, struct tep_print_arg *field,
		       struct tep_print_arg *count, struct tep_print_arg *el_size, int depth)
{
	uint64_t start, n, el = 1, bytes;

	if (!array_start(c, field, &start) || !eval(c, count, depth, &n) ||
	    (el_size && !eval(c, el_size, depth, &el)))
		return unsafe(c, "%s with a length that cannot be bounded", what);
	n = (unsigned int)n;	/* as libtraceevent holds it */
	el = (int)el == 2 || (int)el == 4 || (int)el == 8 ? (unsigned)(int)el : 1;
	if (__builtin_mul_overflow(n, el, &bytes) || start + bytes < start || start + bytes > c->size)
		return unsafe(c, "%s of %llu elements of %llu bytes from offset %llu, past the end "
			      "of the %llu-byte record", what, (unsigned long long)n,
			      (unsigned long long)el, (unsigned long long)start,
			      (unsigned long long)c->size);
	return true;
}

static bool args_safe(struct check *c, struct tep_print_arg *a, int depth);

/* A number libtraceevent divides by (it does not check for 0: SIGFPE). */
static bool const_divisor(struct tep_print_arg *a)
{
	return a && a->type == TEP_PRINT_ATOM && strtoull(a->atom.atom, NULL, 0) != 0;
}

static bool is_division(struct tep_print_arg *a)
{
	return a->op.op && (!strcmp(a->op.op, "/") || !strcmp(a->op.op, "%"));
}

/* The divisor of "/" or "%" @a, worked out for this record, must not be 0. */
static bool divisor_safe(struct check *c, struct tep_print_arg *a, int depth)
{
	uint64_t v;
	bool known;

	if (const_divisor(a->op.right))
		return true;
	c->narrow = true;
	known = eval(c, a->op.right, depth, &v);
	c->narrow = false;
	if (!known)
		return unsafe(c, "a division by a value that cannot be worked out");
	return v || unsafe(c, "a division by 0");
}

static bool arg_safe(struct check *c, struct tep_print_arg *a, int depth)
{
	if (depth > MAX_DEPTH)
		return unsafe(c, "print arguments nested deeper than %d", MAX_DEPTH);
	switch (a->type) {
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
		return array_fits(c, a->type == TEP_PRINT_HEX ? "__print_hex" : "__print_hex_str",
				  a->hex.field, a->hex.size, NULL, depth + 1);
	case TEP_PRINT_INT_ARRAY:
		return array_fits(c, "__print_array", a->int_array.field, a->int_array.count,
				  a->int_array.el_size, depth + 1);
	case TEP_PRINT_OP:
		return (!is_division(a) || divisor_safe(c, a, depth + 1)) &&
		       (!a->op.left || arg_safe(c, a->op.left, depth + 1)) &&
		       (!a->op.right || arg_safe(c, a->op.right, depth + 1));
	case TEP_PRINT_TYPE:
		return !a->typecast.item || arg_safe(c, a->typecast.item, depth + 1);
	case TEP_PRINT_FLAGS:
		return !a->flags.field || arg_safe(c, a->flags.field, depth + 1);
	case TEP_PRINT_SYMBOL:
		return !a->symbol.field || arg_safe(c, a->symbol.field, depth + 1);
	case TEP_PRINT_FUNC:
		return args_safe(c, a->func.args, depth + 1);
	default:
		return true;
	}
}

static bool args_safe(struct check *c, struct tep_print_arg *a, int depth)
{
	for (; a; a = a->next)
		if (!arg_safe(c, a, depth))
			return false;
	return true;
}

/* Whether the print arguments hold anything checked per record. */
static bool args_risky(struct tep_print_arg *a, int depth)
{
	for (; a; a = a->next) {
		if (depth > MAX_DEPTH)
			return true;
		switch (a->type) {
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
		case TEP_PRINT_INT_ARRAY:
		case TEP_PRINT_FUNC:
			return true;
		case TEP_PRINT_OP:
			if ((is_division(a) && !const_divisor(a->op.right)) ||
			    args_risky(a->op.left, depth + 1) || args_risky(a->op.right, depth + 1))
				return true;
			break;
		case TEP_PRINT_TYPE:
		case TEP_PRINT_FLAGS:
		case TEP_PRINT_SYMBOL:
			if (args_risky(a->type == TEP_PRINT_TYPE ? a->typecast.item :
				       a->type == TEP_PRINT_FLAGS ? a->flags.field : a->symbol.field, depth + 1))
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

/* The record size every static field fits in, and whether that settles it. */
static void learn(struct tep_guard_type *t, struct tep_event *event)
{
	struct tep_format_field *lists[2] = { event->format.common_fields, event->format.fields };
	int64_t end;

	t->event = event;
	t->need = 0;
	t->slow = args_risky(event->print_fmt.args, 0);
	for (int i = 0; i < 2; i++) {
		for (struct tep_format_field *f = lists[i]; f; f = f->next) {
			if (f->offset < 0 || f->size < 0 || (f->flags & TEP_FIELD_IS_DYNAMIC))
				t->slow = true;
			end = (int64_t)f->offset + f->size - ((f->flags & TEP_FIELD_IS_ARRAY) ? RECORD_SLACK : 0);
			if (end < f->offset)
				end = f->offset;
			if (end > 0 && (uint64_t)end > t->need)
				t->need = (uint64_t)end;
		}
	}
}

int tep_guard_record(struct tep_guard_type *t, struct tep_event *event, const void *data, unsigned size,
		     char *why, size_t len)
{
	struct check c = { .event = event, .data = data, .size = size, .why = why, .len = len };

	cur_data = NULL;
	cur_size = 0;
	if (t->event != event)
		learn(t, event);
	if (t->slow || size < t->need) {
		if (!fields_fit(&c, event->format.common_fields) || !fields_fit(&c, event->format.fields))
			return TEP_RECORD_BAD_FIELDS;
		if (!args_safe(&c, event->print_fmt.args, 0))
			return TEP_RECORD_BAD_PRINT;
	}
	cur_data = data;
	cur_size = size;
	return TEP_RECORD_SAFE;
}

/* How many bytes from @p lie inside the record being printed (0: not in it). */
static size_t inside(unsigned long long p)
{
	uintptr_t start = (uintptr_t)cur_data;

	if (!cur_data || p < start || p >= start + cur_size)
		return 0;
	return start + cur_size - (uintptr_t)p;
}

/* cfg80211's helper: a little-endian u16 at a pointer, here only inside the record. */
static unsigned long long le16_to_cpup(struct trace_seq *s, unsigned long long *args)
{
	uint16_t v;

	(void)s;
	if (inside(args[0]) < sizeof(v)) {
		refused++;
		return 0;
	}
	memcpy(&v, (const void *)(uintptr_t)args[0], sizeof(v));
	return le16toh(v);
}

typedef unsigned long long (*print_func)(struct trace_seq *, unsigned long long *);

/*
 * scsi's helper decodes a command block (reading up to 32 bytes of it,
 * whatever its length says): it is given a copy of what the record holds,
 * padded with zeros.
 */
static unsigned long long parse_cdb(struct trace_seq *s, unsigned long long *args)
{
	static _Thread_local print_func real;
	unsigned char cdb[CDB_MAX] = { 0 };
	unsigned long long copy[3] = { args[0], (uintptr_t)cdb, args[2] };
	size_t n = inside(args[1]);

	if (!real)
		real = (print_func)dlsym(RTLD_DEFAULT, "process_scsi_trace_parse_cdb");
	if (!n)
		refused++;
	if (!real || !n)
		return 0;
	memcpy(cdb, (const void *)(uintptr_t)args[1], n < sizeof(cdb) ? n : sizeof(cdb));
	return real(s, copy);
}

int tep_guard_refused(void)
{
	int n = refused;

	refused = 0;
	return n;
}

void tep_guard_plugins(struct tep_handle *tep)
{
	tep_register_print_function(tep, le16_to_cpup, TEP_FUNC_ARG_INT, "__le16_to_cpup",
				    TEP_FUNC_ARG_PTR, TEP_FUNC_ARG_VOID);
	if (dlsym(RTLD_DEFAULT, "process_scsi_trace_parse_cdb"))
		tep_register_print_function(tep, parse_cdb, TEP_FUNC_ARG_STRING, "scsi_trace_parse_cdb",
					    TEP_FUNC_ARG_PTR, TEP_FUNC_ARG_PTR, TEP_FUNC_ARG_INT,
					    TEP_FUNC_ARG_VOID);
}
