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
 * versions that read only the record being printed; a record refused for
 * its print format has its fields printed raw (tep_guard_print_fields()).
 */
#include <dlfcn.h>
#include <endian.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "guard/guard.h"

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

/* Why libtraceevent cannot be let work out @v (print_arg_value()), for a message about @what. */
static bool value_unsafe(struct check *c, enum print_val v, const char *what)
{
	switch (v) {
	case PV_DIV0:
		return unsafe(c, "a division by 0");
	case PV_OUTSIDE:
		return unsafe(c, "an array index past the end of the %llu-byte record", (unsigned long long)c->size);
	case PV_NULL_WRITE:
		return unsafe(c, "the length of a __rel_loc array (libtraceevent writes through NULL)");
	default:
		return unsafe(c, "%s that cannot be worked out", what);
	}
}

/* @a's value for this record, or false (and why) when it cannot be let be worked out. */
static bool eval(struct check *c, struct tep_print_arg *a, const char *what, uint64_t *v)
{
	struct print_rec r = { .event = c->event, .data = c->data, .size = (unsigned)c->size };
	enum print_val pv = print_arg_value(&r, a, v);

	return pv == PV_KNOWN || value_unsafe(c, pv, what);
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
		       struct tep_print_arg *count, struct tep_print_arg *el_size)
{
	uint64_t start, n, el = 1, bytes;

	if (!array_start(c, field, &start))
		return unsafe(c, "%s of something other than a field", what);
	if (!eval(c, count, "a length", &n) || (el_size && !eval(c, el_size, "an element size", &el)))
		return false;
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

static bool is_op(struct tep_print_arg *a, const char *op)
{
	return a->type == TEP_PRINT_OP && a->op.op && !strcmp(a->op.op, op);
}

static bool is_division(struct tep_print_arg *a)
{
	return is_op(a, "/") || is_op(a, "%");
}

/* The divisor of "/" or "%" @a, worked out for this record, must not be 0. */
static bool divisor_safe(struct check *c, struct tep_print_arg *a)
{
	uint64_t v;

	if (const_divisor(a->op.right))
		return true;
	if (!eval(c, a->op.right, "a divisor", &v))
		return false;
	return v || unsafe(c, "a division by 0");
}

/* The length of a __rel_loc array: libtraceevent adds its offset through a NULL pointer. */
static bool rel_len(struct tep_print_arg *a)
{
	return a->type == TEP_PRINT_DYNAMIC_ARRAY_LEN && a->dynarray.field &&
	       (a->dynarray.field->flags & TEP_FIELD_IS_RELATIVE);
}

/*
 * __get_cpumask(): libtraceevent sizes its text by a bound that wraps for
 * a mask of 0 bytes (a 3 GB malloc), and dereferences the field before
 * checking it was found.
 */
static bool cpumask_safe(struct check *c, struct tep_print_arg *a)
{
	struct tep_format_field *f = a->bitmask.field ? a->bitmask.field :
				     a->bitmask.bitmask ? tep_find_any_field(c->event, a->bitmask.bitmask) :
				     NULL;
	uint64_t off, len;

	if (!f)
		return unsafe(c, "__get_cpumask() of a field the event does not have");
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || !f->size || f->size > 8)
		return unsafe(c, "__get_cpumask() of %.64s, which is not a dynamic array", f->name);
	dynamic_extent(c, f, &off, &len);
	return len || unsafe(c, "__get_cpumask() of %.64s, which is empty in this record", f->name);
}

static bool arg_safe(struct check *c, struct tep_print_arg *a, int depth)
{
	if (depth > MAX_DEPTH)
		return unsafe(c, "print arguments nested deeper than %d", MAX_DEPTH);
	switch (a->type) {
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
		return array_fits(c, a->type == TEP_PRINT_HEX ? "__print_hex" : "__print_hex_str",
				  a->hex.field, a->hex.size, NULL);
	case TEP_PRINT_INT_ARRAY:
		return array_fits(c, "__print_array", a->int_array.field, a->int_array.count,
				  a->int_array.el_size);
	case TEP_PRINT_DYNAMIC_ARRAY_LEN: {
		uint64_t v;

		return !rel_len(a) || eval(c, a, "a length", &v);
	}
	case TEP_PRINT_OP: {
		uint64_t v;

		return (!is_division(a) || divisor_safe(c, a)) &&
		       (!is_op(a, "[") || eval(c, a, "an array index", &v)) &&
		       (!a->op.left || arg_safe(c, a->op.left, depth + 1)) &&
		       (!a->op.right || arg_safe(c, a->op.right, depth + 1));
	}
	case TEP_PRINT_CPUMASK:
		return cpumask_safe(c, a);
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

/*
 * Whether libtraceevent's own bound check of "base[index]" @a is right
 * whatever the record holds: a constant index whose element ends below
 * 2^31 (it adds in int).  Kernel formats index only with small numbers.
 */
static bool index_fixed(struct tep_event *event, struct tep_print_arg *a)
{
	struct tep_print_arg *base = a->op.left, *index = a->op.right;
	struct tep_format_field *f;
	uint64_t v, end;

	if (!index || index->type != TEP_PRINT_ATOM)
		return false;
	v = strtoull(index->atom.atom, NULL, 0);
	if (!v && !(index->atom.atom[0] >= '0' && index->atom.atom[0] <= '9'))
		return false;	/* a name: a kernel symbol's address */
	while (base && base->type == TEP_PRINT_TYPE)
		base = base->typecast.item;
	if (!base || v > 0xffff)
		return false;
	if (base->type == TEP_PRINT_DYNAMIC_ARRAY && base->dynarray.field)
		f = base->dynarray.field, end = 0xffffull + (uint64_t)(uint32_t)f->offset + (uint32_t)f->size + v;
	else if (base->type == TEP_PRINT_FIELD && (f = base->field.field ? base->field.field :
						  tep_find_any_field(event, base->field.name)))
		end = (uint64_t)(uint32_t)f->offset + v * (uint32_t)f->elementsize;
	else
		return base->type != TEP_PRINT_FIELD;	/* an unknown operator, or a missing field: 0 */
	return end + 8 + (uint32_t)f->elementsize < INT32_MAX;
}

/* Whether the print arguments hold anything checked per record. */
static bool args_risky(struct tep_event *event, struct tep_print_arg *a, int depth)
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
		case TEP_PRINT_DYNAMIC_ARRAY_LEN:
			if (rel_len(a))
				return true;
			break;
		case TEP_PRINT_OP:
			if ((is_division(a) && !const_divisor(a->op.right)) ||
			    (is_op(a, "[") && !index_fixed(event, a)) ||
			    args_risky(event, a->op.left, depth + 1) || args_risky(event, a->op.right, depth + 1))
				return true;
			break;
		case TEP_PRINT_TYPE:
		case TEP_PRINT_FLAGS:
		case TEP_PRINT_SYMBOL:
			if (args_risky(event, a->type == TEP_PRINT_TYPE ? a->typecast.item :
				       a->type == TEP_PRINT_FLAGS ? a->flags.field : a->symbol.field, depth + 1))
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

/* ---- printf widths ---- */

/* The characters after "%p" libtraceevent 1.7 takes into the conversion (parse_arg_format_pointer()). */
static int pointer_suffix(const char *f)
{
	int n = 0, i = 2;

	switch (f[0]) {
	case 'F': case 'S': case 'f': case 's':
		return 1;
	case 'M': case 'm':
		return 1 + (f[1] == 'R' || f[1] == 'F');
	case 'U':
		return 1 + (f[1] && strchr("LlBb", f[1]) != NULL);
	case 'h':
		return 1 + (f[1] && strchr("CDN", f[1]) != NULL);
	case 'I': case 'i':
		if (f[1] == 'S') {
			while (f[i] && strchr("pfs", f[i]))
				n++, i++;
		}
		if (f[1] == 'S' || f[1] == '4') {
			if (f[i] && strchr("hnlb", f[i]))
				n++, i++;
			if (f[1] == '4')
				return n + 2;
		}
		if (f[1] == 'S' || f[1] == '6')
			n += 1 + (f[i] == 'c');
		return n + 1;
	default:
		return 0;
	}
}

/*
 * Whether a conversion's argument is a field as it is: the conversions
 * libtraceevent's raw printer (tep_print_fields()) takes from the print
 * cache for that field's value; it prints every other field plainly.
 */
static bool plain_field(struct tep_print_arg *a)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	return a && a->type == TEP_PRINT_FIELD;
}

/*
 * What one conversion's width or precision needs (@precision: ".*"), for
 * the value @val.  Pointers print with their own formats, but the raw
 * printer still works out the width of a plain field's "%*p".
 */
static void add_len(struct tep_guard_type *t, struct tep_print_arg *arg, char conv, bool precision,
		    struct tep_print_arg *val)
{
	bool field = plain_field(val);

	if ((conv == 'p' && !field) || t->nlens < 0)
		return;
	if (t->nlens == GUARD_LENS) {
		t->nlens = -1;
		return;
	}
	t->lens[t->nlens].arg = arg;
	t->lens[t->nlens].field = field;
	t->lens[t->nlens].pointer = conv == 'p';
	t->lens[t->nlens++].bounded = conv != 's' || !precision;
}

/*
 * One conversion at @f ('%'), as libtraceevent's parse_arg_format() reads
 * it: a '*' takes the next argument as the width or precision, "dsuixXo"
 * and 'p' take one, any other letter none.  Returns the characters it
 * takes; a literal width above PRINT_WIDTH_MAX sets t->flaw (and
 * t->raw_flaw when the raw printer uses the conversion too).
 */
static size_t conversion(struct tep_guard_type *t, const char *f, struct tep_print_arg **arg)
{
	static const char wide_msg[] = "a printf width or precision above 4096 in the print format";
	struct tep_print_arg *len_arg = NULL;
	bool precision = false, wide = false;
	uint64_t num = 0;
	size_t ret = 1;

	for (f++; *f; f++, ret++) {
		if (*f >= '0' && *f <= '9') {
			num = num > PRINT_WIDTH_MAX ? num : num * 10 + (uint64_t)(*f - '0');
			if (num > PRINT_WIDTH_MAX)
				t->flaw = wide_msg, wide = true;
			continue;
		}
		num = 0;
		if (strchr("#hlLzZ.-", *f))
			continue;
		if (*f == '*') {
			if (!*arg || len_arg)
				return ret;	/* libtraceevent fails the format */
			len_arg = *arg;
			precision = f[-1] == '.';
			*arg = (*arg)->next;
			continue;
		}
		if (*f == 'p' || strchr("duixXos", *f)) {
			if (!*arg)
				return ret;
			if (*f == 'p')
				ret += (size_t)pointer_suffix(f + 1);
			if (len_arg)
				add_len(t, len_arg, *f, precision, *arg);
			if (wide && plain_field(*arg))
				t->raw_flaw = wide_msg;
			*arg = (*arg)->next;
		}
		return ret + 1;
	}
	return ret;
}

/* Literal text at @f up to the next conversion, as libtraceevent's parse_arg_string() steps over it. */
static size_t literal(const char *f)
{
	size_t ret = 0;

	for (; *f; f++, ret++) {
		if (*f == '\\' && f[1]) {
			f++;
			ret++;
		} else if (*f == '%') {
			if (f[1] != '%')
				break;
			f++;
			ret++;
		}
	}
	return ret ? ret : 1;
}

/* The print format's widths and precisions that its arguments give, paired as libtraceevent pairs them. */
static void learn_lens(struct tep_guard_type *t, struct tep_event *event)
{
	const char *f = event->print_fmt.format;
	struct tep_print_arg *arg = event->print_fmt.args;
	size_t left = f ? strlen(f) : 0, ret;

	t->nlens = 0;
	t->flaw = NULL;
	t->raw_flaw = NULL;
	if (!f || (event->flags & TEP_EVENT_FL_FAILED))
		return;		/* printed with its fields only */
	while (left) {
		ret = f[0] == '%' && f[1] != '%' ? conversion(t, f, &arg) : literal(f);
		if (ret >= left)
			break;
		left -= ret;
		f += ret;
	}
}

/* Each width and precision an argument gives: known, not negative (libtraceevent would then print the
 * wrong argument), and at most PRINT_WIDTH_MAX unless it bounds a string; @raw: only those of the
 * conversions the raw printer uses. */
static bool lens_safe(struct check *c, const struct tep_guard_type *t, bool raw)
{
	uint64_t v;

	if (t->nlens < 0)
		return unsafe(c, "more than %d printf widths taken from arguments", GUARD_LENS);
	for (int i = 0; i < t->nlens; i++) {
		if (raw ? !t->lens[i].field : t->lens[i].pointer)
			continue;	/* not used, or checked as an argument (args_safe()) */
		if (raw && !arg_safe(c, t->lens[i].arg, 0))
			return false;
		if (!eval(c, t->lens[i].arg, "a printf width", &v))
			return false;
		if (t->lens[i].pointer)
			continue;	/* a length, not a printf width */
		if ((int)v < 0 || (t->lens[i].bounded && (int)v > PRINT_WIDTH_MAX))
			return unsafe(c, "a printf width or precision of %d", (int)v);
	}
	return true;
}

/* The record size every static field fits in, and whether that settles it. */
static void learn(struct tep_guard_type *t, struct tep_event *event)
{
	struct tep_format_field *lists[2] = { event->format.common_fields, event->format.fields };
	int64_t end;

	t->event = event;
	t->need = 0;
	learn_lens(t, event);
	t->slow = t->nlens != 0 || args_risky(event, event->print_fmt.args, 0);
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

/*
 * With @raw (trace-cmd report -R: tep_print_fields()), libtraceevent reads
 * every field, and evaluates only the conversions of the print format whose
 * argument is a field as it is (for their widths), so only those are checked
 * beyond the fields: no other argument, plugin or helper is run.
 */
int tep_guard_record(struct tep_guard_type *t, struct tep_event *event, const void *data, unsigned size,
		     bool raw, char *why, size_t len)
{
	struct check c = { .event = event, .data = data, .size = size, .why = why, .len = len };
	const char *flaw;

	cur_data = NULL;
	cur_size = 0;
	if (t->event != event)
		learn(t, event);
	if (t->slow || size < t->need) {
		if (!fields_fit(&c, event->format.common_fields) || !fields_fit(&c, event->format.fields))
			return TEP_RECORD_BAD_FIELDS;
		if ((!raw && !args_safe(&c, event->print_fmt.args, 0)) || !lens_safe(&c, t, raw))
			return TEP_RECORD_BAD_PRINT;
	}
	flaw = raw ? t->raw_flaw : t->flaw;
	if (flaw) {
		unsafe(&c, "%s", flaw);
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

/*
 * libtraceevent prints a field through the conversion its print format
 * gives it (from the print cache): the very conversion found unsafe, with
 * its width and the argument that width is worked out from (a width of
 * gigabytes, a division by 0).  With the cache hidden, every field is
 * printed raw, which reads only the field (inside the record: a
 * TEP_RECORD_BAD_PRINT record's fields were checked).
 */
void tep_guard_print_fields(struct trace_seq *s, struct tep_record *rec, struct tep_event *event)
{
	struct tep_print_parse *cache = event->print_fmt.print_cache;

	event->print_fmt.print_cache = NULL;
	tep_record_print_fields(s, rec, event);
	event->print_fmt.print_cache = cache;
}

/* Printable as libtraceevent 1.7's is_printable_array() sees it, in the C locale. */
static bool printable_text(const unsigned char *p, unsigned len)
{
	for (unsigned i = 0; i < len && p[i]; i++)
		if (!(p[i] >= 0x20 && p[i] < 0x7f) && !(p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r')))
			return false;
	return true;
}

/*
 * Where libtraceevent 1.7's print_field_raw() reads array @f of a record
 * (dynamic_offset_field()); false where it is not inside the record.
 */
static bool array_extent(struct tep_event *event, struct tep_format_field *f,
			 const unsigned char *data, unsigned size, unsigned *off, unsigned *len)
{
	unsigned long long v;
	unsigned o, l;

	*off = (unsigned)f->offset;
	*len = (unsigned)f->size;
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
		return (uint64_t)*off + *len <= size;
	if ((uint64_t)(unsigned)f->offset + (unsigned)f->size > size || (f->size != 2 && f->size != 4))
		return false;
	v = tep_read_number(event->tep, data + f->offset, f->size);
	o = (unsigned)(v & 0xffff);
	l = f->size == 2 ? size - o : (unsigned)((v >> 16) & 0xffff);	/* may wrap, as there */
	*off = o > size ? 0 : o;
	*len = o + l > size ? 0 : l;	/* unsigned, as there: a wrapped length stays */
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		*off += (unsigned)(f->offset + f->size);
	return (uint64_t)*off + *len <= size;
}

bool tep_guard_raw_sticky(struct tep_event *event, const void *data, unsigned size)
{
	const unsigned char *d = data;

	for (struct tep_format_field *f = event->format.fields; f; f = f->next) {
		unsigned off, len;

		if ((f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING)) !=
		    (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING))
			continue;
		if (!array_extent(event, f, d, size, &off, &len) || !printable_text(d + off, len))
			return true;	/* outside the record: as if it were */
	}
	return false;
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
