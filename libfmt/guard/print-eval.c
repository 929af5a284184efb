/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * print-eval.c - the value libtraceevent 1.7 gives a print argument for one
 * record, worked out the way its printer does (eval_num_arg()): the same
 * casts, the same bounds it checks and the same ones it does not.  What
 * the printer would crash on is said instead of a value: a division by 0
 * (SIGFPE), an array index that reads outside the record (its bound check
 * adds in int: an index of 2^31 passes it), and the length of a __rel_loc
 * array (it writes through a NULL pointer).  print-guard.c asks this for
 * divisors, indexes, lengths and printf widths.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "guard/guard.h"

#define MAX_DEPTH	32

/* A cast to @type, as libtraceevent's eval_type_str() does it (@pointer: of a "T *"). */
static uint64_t cast(uint64_t v, const char *type, bool pointer)
{
	static const struct { const char *name; uint64_t mask; } masks[] = {
		{ "u8", 0xff }, { "s8", 0xff }, { "char", 0xff },
		{ "u16", 0xffff }, { "s16", 0xffff }, { "short", 0xffff },
		{ "u32", 0xffffffff }, { "s32", 0xffffffff }, { "int", 0xffffffff },
	};
	size_t len = strlen(type);

	if (len < 2)
		return v;
	if (pointer) {
		if (type[len - 1] != '*')
			return v;
		len -= 2;	/* it drops " *" (two characters, whatever they are) */
	} else if (type[len - 1] == '*') {
		return v;
	}
	if (len >= 9 && !strncmp(type, "unsigned ", 9)) {
		type += 9;
		len -= 9;
	}
	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++)
		if (strlen(masks[i].name) == len && !strncmp(type, masks[i].name, len))
			return v & masks[i].mask;
	return v;
}

/*
 * Where a dynamic field's data lies, as libtraceevent's
 * dynamic_offset_field() finds it (offsets past the record read as 0).
 */
static void dynamic(const struct print_rec *r, struct tep_format_field *f, uint32_t *off, uint32_t *len)
{
	uint64_t v;
	uint32_t o, l;

	*off = *len = 0;
	if ((int64_t)f->offset + f->size > (int64_t)r->size)
		return;
	v = tep_read_number(r->event->tep, r->data + f->offset, f->size);
	o = (uint32_t)(v & 0xffff);
	l = f->size == 2 ? r->size - o : (uint32_t)((v >> 16) & 0xffff);
	*off = o > r->size ? 0 : o;
	*len = (uint64_t)o + l > r->size ? 0 : l;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		*off += (uint32_t)(f->offset + f->size);
}

static struct tep_format_field *field_of(const struct print_rec *r, struct tep_print_arg *a)
{
	return a->field.field ? a->field.field : tep_find_any_field(r->event, a->field.name);
}

static enum print_val value(const struct print_rec *r, struct tep_print_arg *a, int depth, uint64_t *v);

/* "base[index]": the element libtraceevent reads, checking its end with int arithmetic. */
static enum print_val element(const struct print_rec *r, struct tep_print_arg *a, int depth, uint64_t *v)
{
	struct tep_print_arg *base = a->op.left, *cast_to = NULL;
	struct tep_format_field *f;
	uint32_t off, len, size = (uint32_t)tep_get_long_size(r->event->tep);
	uint64_t index;
	enum print_val ret = value(r, a->op.right, depth + 1, &index);

	if (ret != PV_KNOWN)
		return ret;
	for (; base && base->type == TEP_PRINT_TYPE; base = base->typecast.item)
		if (!cast_to)
			cast_to = base;
	*v = 0;
	if (base && base->type == TEP_PRINT_DYNAMIC_ARRAY && base->dynarray.field) {
		dynamic(r, base->dynarray.field, &off, &len);
		off += (uint32_t)index;
		if (base->dynarray.field->elementsize)
			size = (uint32_t)base->dynarray.field->elementsize;
	} else if (base && base->type == TEP_PRINT_FIELD) {
		if (!(f = field_of(r, base)))
			return PV_KNOWN;
		size = (uint32_t)f->elementsize;
		off = (uint32_t)f->offset + (uint32_t)(index * (uint64_t)(uint32_t)f->elementsize);
	} else {
		return PV_UNKNOWN;	/* "[" on anything else: an unknown operator, 0 */
	}
	if ((int32_t)(off + size) > (int32_t)r->size)
		return PV_KNOWN;	/* it sees the element is past the end: 0 */
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return PV_KNOWN;	/* it reads nothing of other sizes: 0 */
	if ((uint64_t)off + size > r->size)
		return PV_OUTSIDE;
	*v = tep_read_number(r->event->tep, r->data + off, (int)size);
	if (cast_to)
		*v = cast(*v, cast_to->typecast.type, true);
	return PV_KNOWN;
}

/* A binary or unary operator's value (unary ones have a TEP_PRINT_NULL left, 0). */
static enum print_val operation(const struct print_rec *r, struct tep_print_arg *a, int depth, uint64_t *v)
{
	const char *op = a->op.op;
	uint64_t l, x;
	enum print_val ret;

	if (!op)
		return PV_UNKNOWN;
	if (!strcmp(op, "["))
		return element(r, a, depth, v);
	if (!strcmp(op, "?")) {
		struct tep_print_arg *branches = a->op.right;

		if (!branches || branches->type != TEP_PRINT_OP || !branches->op.op || strcmp(branches->op.op, ":"))
			return PV_UNKNOWN;
		if ((ret = value(r, a->op.left, depth + 1, &l)) != PV_KNOWN)
			return ret;
		return value(r, l ? branches->op.left : branches->op.right, depth + 1, v);
	}
	if ((ret = value(r, a->op.left, depth + 1, &l)) != PV_KNOWN ||
	    (ret = value(r, a->op.right, depth + 1, &x)) != PV_KNOWN)
		return ret;
	*v = 0;		/* an operator it does not know is 0 */
	switch (op[0]) {
	case '!': *v = !op[1] ? !x : op[1] == '=' ? l != x : 0; break;
	case '~': *v = ~x; break;
	case '|': *v = op[1] ? (l || x) : (l | x); break;
	case '&': *v = op[1] ? (l && x) : (l & x); break;
	/* x86 shifts by the count's low 6 bits */
	case '<': *v = !op[1] ? l < x : op[1] == '<' ? l << (x & 63) : op[1] == '=' ? l <= x : 0; break;
	case '>': *v = !op[1] ? l > x : op[1] == '>' ? l >> (x & 63) : op[1] == '=' ? l >= x : 0; break;
	case '=': *v = op[1] == '=' ? l == x : 0; break;
	case '-': *v = l - x; break;
	case '+': *v = l + x; break;
	case '*': *v = l * x; break;
	case '/':
	case '%':
		if (!x)
			return PV_DIV0;
		*v = op[0] == '/' ? l / x : l % x;
		break;
	}
	return PV_KNOWN;
}

static enum print_val value(const struct print_rec *r, struct tep_print_arg *a, int depth, uint64_t *v)
{
	struct tep_format_field *f;
	uint32_t off, len;
	enum print_val ret;

	*v = 0;
	if (!a || depth > MAX_DEPTH)
		return PV_UNKNOWN;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		*v = strtoull(a->atom.atom, NULL, 0);
		/* a name reads as a kernel symbol's address */
		return *v || isdigit((unsigned char)a->atom.atom[0]) ? PV_KNOWN : PV_UNKNOWN;
	case TEP_PRINT_FIELD:
		if ((f = field_of(r, a)) && (int64_t)f->offset + f->size <= (int64_t)r->size)
			*v = tep_read_number(r->event->tep, r->data + f->offset, f->size);
		return PV_KNOWN;
	case TEP_PRINT_TYPE:
		if ((ret = value(r, a->typecast.item, depth + 1, v)) == PV_KNOWN)
			*v = cast(*v, a->typecast.type, false);
		return ret;
	case TEP_PRINT_OP:
		return operation(r, a, depth, v);
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		if (!a->dynarray.field)
			return PV_UNKNOWN;
		/* with no offset asked for, it adds a __rel_loc field's to a NULL pointer */
		if ((a->dynarray.field->flags & TEP_FIELD_IS_RELATIVE) &&
		    (int64_t)a->dynarray.field->offset + a->dynarray.field->size <= (int64_t)r->size)
			return PV_NULL_WRITE;
		dynamic(r, a->dynarray.field, &off, &len);
		*v = len;
		return PV_KNOWN;
	case TEP_PRINT_FUNC:
	case TEP_PRINT_DYNAMIC_ARRAY:	/* an address */
		return PV_UNKNOWN;
	default:	/* strings, flags, symbols, arrays, NULL: 0 */
		return PV_KNOWN;
	}
}

/**
 * print_arg_value() - a print argument's value for one record, as libtraceevent prints it
 * @r: the record and its event type; its fields lie inside it (checked first)
 * @a: the argument
 * @v: set to its value when PV_KNOWN is returned
 *
 * Return: PV_KNOWN; PV_UNKNOWN when it depends on something other than
 * the record (a function, a symbol, an address); or the way libtraceevent
 * would crash working it out.
 */
enum print_val print_arg_value(const struct print_rec *r, struct tep_print_arg *a, uint64_t *v)
{
	return value(r, a, 0, v);
}
