/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * text-fast.c - the text writer's (text.c) print formats, compiled.
 * libtraceevent 1.7's pretty_print() walks an event's print format for
 * every record: a vsnprintf() per piece, strtoull() of every flag and
 * symbol value, a malloc'd helper trace_seq per string.  Here each event
 * type's format (event->print_fmt.format and its struct tep_print_arg
 * list) is turned once into a plan of literal texts and conversions, split
 * the way libtraceevent's parse_args() splits it (text-plan.c), cached by
 * event (text.c's text_put() asks here first), and a record is printed
 * from the plan with no printf: numbers as eval_num_arg() works them out
 * and printf would print them, strings as print_str_arg() gives them.
 *
 * Only what is reproduced exactly is planned: fields, constants, casts
 * and the operators eval_num_arg() knows; %d %i %u %x %X %o with the flags
 * - 0 #, a width, a precision and h hh l ll L z; %s of a char array,
 * __get_str(), a string constant, __print_flags(), __print_symbolic() and
 * "? :" between those; %p, and %pS %ps %pF %pf through the file's
 * symbols.  Anything else (another conversion, a "*" width, a helper
 * function, a pointer field printed with %s, ...) leaves the whole event
 * type to tep_print_event(); so does a record the plan cannot print as
 * libtraceevent would without a warning (a field past its end, a
 * division by 0, a symbol name not yet looked up).  tests/unit/t-textfast
 * compares both printers on every record of testdata/.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "write/text-fast.h"
#include "write/text34.h"

struct textfast {
	struct tf_plan **plans;	/* open addressing by event pointer */
	size_t nplans, cap;
	char *buf;		/* the text of the record being printed */
	size_t len, size;
	const unsigned char *data;
	int rsize;
};

/* ---- printing ---- */

static bool room(struct textfast *t, size_t n)
{
	char *b;
	size_t size = t->size ? t->size : 256;

	if (t->len + n <= t->size)
		return true;
	while (size < t->len + n)
		size *= 2;
	if (!(b = realloc(t->buf, size)))
		return false;
	t->buf = b;
	t->size = size;
	return true;
}

static void put(struct textfast *t, const char *s, size_t n)
{
	memcpy(t->buf + t->len, s, n);
	t->len += n;
}

static bool put_lit(struct textfast *t, const char *s, size_t n)
{
	if (!room(t, n))
		return false;
	put(t, s, n);
	return true;
}

static uint64_t read_num(const struct tf_plan *p, const unsigned char *d, int size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	if (p->swap)
		return tep_read_number(p->event->tep, d, size);
	switch (size) {
	case 1: memcpy(&u8, d, 1); return u8;
	case 2: memcpy(&u16, d, 2); return u16;
	case 4: memcpy(&u32, d, 4); return u32;
	default: memcpy(&u64, d, 8); return u64;
	}
}

static bool eval(struct textfast *t, struct tf_plan *p, int i, uint64_t *v);

static bool eval_op(struct textfast *t, struct tf_plan *p, const struct tf_ex *e, uint64_t *v)
{
	uint64_t l, r;

	if (!eval(t, p, e->a, &l) || !eval(t, p, e->b, &r))
		return false;
	switch (e->op0) {
	case '!': *v = e->op1 ? l != r : !r; break;
	case '~': *v = ~r; break;
	case '|': *v = e->op1 ? (l || r) : (l | r); break;
	case '&': *v = e->op1 ? (l && r) : (l & r); break;
	case '<': *v = !e->op1 ? l < r : e->op1 == '<' ? l << (r & 63) : l <= r; break;
	case '>': *v = !e->op1 ? l > r : e->op1 == '>' ? l >> (r & 63) : l >= r; break;
	case '=': *v = l == r; break;
	case '-': *v = l - r; break;
	case '+': *v = l + r; break;
	case '*': *v = l * r; break;
	default:
		if (!r)
			return false;	/* libtraceevent would crash: the guard's to say */
		*v = e->op0 == '/' ? l / r : l % r;
	}
	return true;
}

/* Expression @i's value for the record; false where libtraceevent would warn or look a symbol up. */
static bool eval(struct textfast *t, struct tf_plan *p, int i, uint64_t *v)
{
	struct tf_ex *e = &p->ex[i];
	uint64_t x;
	unsigned off;

	switch (e->kind) {
	case EX_CONST:
		*v = e->v;
		return true;
	case EX_FIELD:
		if (e->off < 0 || e->off + e->size > t->rsize)
			return false;
		*v = read_num(p, t->data + e->off, e->size);
		return true;
	case EX_SYM:
		x = strtoull(e->atom->atom.atom, NULL, 0);
		if (!x && !isdigit((unsigned char)e->atom->atom.atom[0]))
			return false;	/* not yet looked up: libtraceevent does that once */
		e->kind = EX_CONST;
		*v = e->v = x;
		return true;
	case EX_CAST:
		if (!eval(t, p, e->a, v))
			return false;
		*v &= e->v;
		return true;
	case EX_INDEX:
		if (!eval(t, p, e->a, &x))
			return false;
		off = (unsigned)((unsigned long long)e->off + x * (unsigned long long)e->size);
		if ((uint64_t)off + (unsigned)e->size > (uint64_t)t->rsize)
			return false;
		*v = read_num(p, t->data + off, e->size) & e->v;
		return true;
	case EX_COND:
		if (!eval(t, p, e->a, &x))
			return false;
		return eval(t, p, x ? e->b : e->c, v);
	default:
		return eval_op(t, p, e, v);
	}
}

/* @v as printf prints it for @sp (after libtraceevent's cast to the length's type). */
static bool put_num(struct textfast *t, const struct tf_spec *sp, uint64_t v)
{
	static const char lower[] = "0123456789abcdef", upper[] = "0123456789ABCDEF";
	const char *dig = sp->conv == 'X' ? upper : lower;
	unsigned base = sp->conv == 'o' ? 8 : (sp->conv == 'x' || sp->conv == 'X') ? 16 : 10;
	char b[24], *q = b + sizeof(b);
	const char *pre = "";
	int nd, zeros, total, pad;
	size_t np;

	if (sp->conv == 'd' || sp->conv == 'i') {
		int64_t s = sp->ls == -2 ? (signed char)v : sp->ls == -1 ? (short)v :
			    sp->ls == 0 ? (int)v : (int64_t)v;

		if (s < 0)
			pre = "-";
		v = s < 0 ? 0 - (uint64_t)s : (uint64_t)s;
	} else {
		v = sp->ls == -2 ? (uint8_t)v : sp->ls == -1 ? (uint16_t)v : sp->ls == 0 ? (uint32_t)v : v;
		if (sp->hash && base == 16 && v)
			pre = sp->conv == 'X' ? "0X" : "0x";
	}
	if (v || sp->prec != 0)
		do
			*--q = dig[v % base];
		while (v /= base);
	nd = (int)(b + sizeof(b) - q);
	zeros = sp->prec > nd ? sp->prec - nd : 0;
	if (sp->hash && base == 8 && !zeros && (!nd || *q != '0'))
		zeros = 1;
	np = strlen(pre);
	total = (int)np + zeros + nd;
	pad = sp->width > total ? sp->width - total : 0;
	if (!room(t, (size_t)(total + pad)))
		return false;
	if (pad && sp->zero && !sp->minus && sp->prec < 0) {
		zeros += pad;
		pad = 0;
	}
	if (pad && !sp->minus) {
		memset(t->buf + t->len, ' ', (size_t)pad);
		t->len += (size_t)pad;
	}
	put(t, pre, np);
	memset(t->buf + t->len, '0', (size_t)zeros);
	t->len += (size_t)zeros;
	put(t, q, (size_t)nd);
	if (pad && sp->minus) {
		memset(t->buf + t->len, ' ', (size_t)pad);
		t->len += (size_t)pad;
	}
	return true;
}

/* @s as printf's "%s" prints it for @sp's width and precision. */
static bool put_str(struct textfast *t, const struct tf_spec *sp, const char *s, size_t n)
{
	size_t pad;

	if (sp->prec >= 0 && n > (size_t)sp->prec)
		n = (size_t)sp->prec;
	pad = (size_t)sp->width > n ? (size_t)sp->width - n : 0;
	if (!room(t, n + pad))
		return false;
	if (pad && !sp->minus) {
		memset(t->buf + t->len, ' ', pad);
		t->len += pad;
	}
	put(t, s, n);
	if (pad && sp->minus) {
		memset(t->buf + t->len, ' ', pad);
		t->len += pad;
	}
	return true;
}

static bool put_hex(struct textfast *t, const char *pre, uint64_t v)
{
	char b[16], *q = b + sizeof(b);

	do
		*--q = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	if (!room(t, strlen(pre) + 16))
		return false;
	put(t, pre, strlen(pre));
	put(t, q, (size_t)(b + sizeof(b) - q));
	return true;
}

/* __print_flags() and __print_symbolic(), as print_str_arg() prints them. */
static bool put_flags(struct textfast *t, struct tf_plan *p, const struct tf_str *s,
		      const struct tf_spec *sp)
{
	uint64_t u;
	long long val;
	bool printed = false;

	if (!eval(t, p, s->ex, &u))
		return false;
	val = (long long)u;
	for (int i = 0; i < s->nflags; i++) {
		long long f = s->flags[i].value;

		if (s->kind == SN_SYMBOL) {
			if (val == f)
				return put_str(t, sp, s->flags[i].str, s->flags[i].len);
			continue;
		}
		if (!val && f < 0)
			return put_str(t, sp, s->flags[i].str, s->flags[i].len);
		if (f > 0 && (val & f) == f) {
			if (printed && s->delim && !put_lit(t, s->delim, s->dlen))
				return false;
			if (!put_str(t, sp, s->flags[i].str, s->flags[i].len))
				return false;
			printed = true;
			val &= ~f;
		}
	}
	if (s->kind == SN_SYMBOL)
		return put_hex(t, "0x", (uint64_t)val);
	if (val && printed && s->delim && !put_lit(t, s->delim, s->dlen))
		return false;
	return !val || put_hex(t, "0x", (uint64_t)val);
}

/* Where a __data_loc or __rel_loc field's data lies, as dynamic_offset_field() says. */
static void dynamic(struct textfast *t, const struct tf_plan *p, const struct tf_str *s,
		    unsigned *off, unsigned *len)
{
	unsigned size = (unsigned)t->rsize, o, l;
	uint64_t v;

	*off = *len = 0;
	if (s->off + s->size > t->rsize || !tf_num_size(s->size))
		return;
	v = read_num(p, t->data + s->off, s->size);
	o = (unsigned)(v & 0xffff);
	l = s->size == 2 ? size - o : (unsigned)((v >> 16) & 0xffff);
	*off = o > size ? 0 : o;
	*len = o + l > size ? 0 : l;
	if (s->rel)
		*off += (unsigned)(s->off + s->size);
}

static bool put_string(struct textfast *t, struct tf_plan *p, int i, const struct tf_spec *sp)
{
	const struct tf_str *s = &p->str[i];
	const char *a;
	unsigned off, len;
	uint64_t c;

	switch (s->kind) {
	case SN_ATOM:
		a = s->arg->atom.atom;
		return put_str(t, sp, a, strlen(a));
	case SN_ARRAY:
		len = s->size ? (unsigned)s->size : (unsigned)(t->rsize - s->off);
		if (s->off < 0 || s->off > t->rsize || (uint64_t)s->off + len > (uint64_t)t->rsize)
			return false;
		a = (const char *)t->data + s->off;
		return put_str(t, sp, a, strnlen(a, len));
	case SN_DYN:
		dynamic(t, p, s, &off, &len);
		if (!len)
			return true;	/* an empty string prints nothing, not even its width */
		if (off >= (unsigned)t->rsize)
			return false;
		a = (const char *)t->data + off;
		len = (unsigned)strnlen(a, (unsigned)t->rsize - off);
		if (off + len >= (unsigned)t->rsize)
			return false;	/* no NUL inside the record: left to libtraceevent */
		return put_str(t, sp, a, len);
	case SN_COND:
		if (!eval(t, p, s->ex, &c))
			return false;
		return put_string(t, p, c ? s->a : s->b, sp);
	default:
		return put_flags(t, p, s, sp);
	}
}

static bool put_func(struct textfast *t, struct tf_plan *p, struct tf_piece *c, uint64_t v)
{
	struct tep_handle *tep = p->event->tep;
	struct tf_sym *k = &c->syms[(v ^ (v >> 8) ^ (v >> 20)) % SYM_SLOTS];
	const char *name;
	size_t n0 = t->len, n;

	if (k->len && k->addr == v) {
		return put_lit(t, k->text, k->len);
	}
	if (!(name = tep_find_function(tep, v))) {
		if (!put_hex(t, "0x", v))
			return false;
	} else {
		if (!put_lit(t, name, strlen(name)))
			return false;
		if (c->plus && !put_hex(t, "+0x", v - tep_find_function_address(tep, v)))
			return false;
	}
	n = t->len - n0;
	if (n && n < SYM_TEXT) {
		k->addr = v;
		k->len = (unsigned char)n;
		memcpy(k->text, t->buf + n0, n);
	}
	return true;
}

static bool run(struct textfast *t, struct tf_plan *p)
{
	uint64_t v;

	for (int i = 0; i < p->npc; i++) {
		struct tf_piece *c = &p->pc[i];

		switch (c->kind) {
		case PC_LIT:
			if (!put_lit(t, c->lit, c->len))
				return false;
			break;
		case PC_NUM:
			if (!eval(t, p, c->ex, &v) || !put_num(t, &c->sp, v))
				return false;
			break;
		case PC_STR:
			if (!put_string(t, p, c->str, &c->sp))
				return false;
			break;
		case PC_PTR:	/* glibc's "%p" */
			if (!eval(t, p, c->ex, &v) || !(v ? put_hex(t, "0x", v) : put_lit(t, "(nil)", 5)))
				return false;
			break;
		default:
			if (!eval(t, p, c->ex, &v) || !put_func(t, p, c, v))
				return false;
		}
	}
	return true;
}

/* ---- the cache of plans ---- */

static size_t slot_of(const struct textfast *t, const struct tep_event *event)
{
	uintptr_t h = (uintptr_t)event;

	h ^= h >> 17;
	h *= UINT64_C(0x9E3779B97F4A7C15);
	return (size_t)(h >> 20) & (t->cap - 1);
}

static struct tf_plan *plan_of(struct textfast *t, struct tep_event *event)
{
	struct tf_plan *p;
	size_t i;

	if (t->cap) {
		for (i = slot_of(t, event); t->plans[i]; i = (i + 1) & (t->cap - 1))
			if (t->plans[i]->event == event)
				return t->plans[i];
	}
	if (2 * (t->nplans + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct tf_plan **old = t->plans, **n = calloc(cap, sizeof(*n));
		size_t ocap = t->cap;

		if (!n)
			return NULL;
		t->plans = n;
		t->cap = cap;
		for (size_t j = 0; j < ocap; j++)
			if (old[j]) {
				for (i = slot_of(t, old[j]->event); n[i]; i = (i + 1) & (cap - 1))
					;
				n[i] = old[j];
			}
		free(old);
	}
	if (!(p = tf_plan_new(event)))
		return NULL;
	for (i = slot_of(t, event); t->plans[i]; i = (i + 1) & (t->cap - 1))
		;
	t->plans[i] = p;
	t->nplans++;
	return p;
}

struct textfast *textfast_new(void)
{
	return calloc(1, sizeof(struct textfast));
}

void textfast_free(struct textfast *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->cap; i++)
		tf_plan_free(t->plans[i]);
	free(t->plans);
	free(t->buf);
	free(t);
}

/**
 * textfast_print() - a record's print-format text, as tep_print_event(TEP_PRINT_INFO) makes it
 * @t: the plans
 * @s: where an event's plugin handler prints (libtraceevent prints its text first)
 * @rec: the record, one tep_guard_record() let through for printing
 * @event: its type
 * @text: set to the rest of the text, after @s's (no NUL in it)
 * @len: its length
 *
 * Return: false when it was not printed (nothing was written to @s): print
 * it with tep_print_event().
 */
bool textfast_print(struct textfast *t, struct trace_seq *s, struct tep_record *rec,
		    struct tep_event *event, const char **text, size_t *len)
{
	struct tf_plan *p = plan_of(t, event);

	if (!p || p->dead || rec->size < 0)
		return false;
	t->len = 0;
	t->data = rec->data;
	t->rsize = rec->size;
	if (!run(t, p))
		return false;
	*text = t->buf ? t->buf : "";
	*len = t->len;
	if (event->handler && !(event->flags & TEP_EVENT_FL_NOHANDLE) &&
	    !event->handler(s, rec, event, event->context)) {
		/* it printed the whole text: so it will again, without the plan */
		p->dead = true;
		*len = 0;
	}
	return true;
}
