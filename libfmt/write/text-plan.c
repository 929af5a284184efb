/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * text-plan.c - the plan of an event type's print format for the text
 * writer's fast printer (text-fast.c): libtraceevent 1.7's parsed print
 * format (event->print_fmt.format and its struct tep_print_arg list) cut
 * into literal texts and conversions the way its parse_args() cuts it,
 * each conversion's argument compiled into an expression as its
 * eval_num_arg() or print_str_arg() would evaluate it.  Whatever is not
 * reproduced exactly (a conversion, flag or length not listed in
 * text-fast.c, a helper function, a cast or operator libtraceevent warns
 * about, a pointer-sized field printed with %s, a "*" width) makes the
 * plan a dead one: the event type is printed by libtraceevent.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "write/text-fast.h"

static void *grow(void *p, int n, size_t each)
{
	return (n & (n - 1)) ? p : realloc(p, (size_t)(n ? 2 * n : 4) * each);
}

static int new_ex(struct tf_plan *p, unsigned char kind)
{
	struct tf_ex *e = grow(p->ex, p->nex, sizeof(*e));

	if (!e)
		return -1;
	p->ex = e;
	memset(&e[p->nex], 0, sizeof(*e));
	e[p->nex].kind = kind;
	return p->nex++;
}

static int new_str(struct tf_plan *p, unsigned char kind)
{
	struct tf_str *s = grow(p->str, p->nstr, sizeof(*s));

	if (!s)
		return -1;
	p->str = s;
	memset(&s[p->nstr], 0, sizeof(*s));
	s[p->nstr].kind = kind;
	return p->nstr++;
}

static struct tf_piece *new_piece(struct tf_plan *p, unsigned char kind)
{
	struct tf_piece *c = grow(p->pc, p->npc, sizeof(*c));

	if (!c)
		return NULL;
	p->pc = c;
	c += p->npc++;
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->ex = c->str = -1;
	return c;
}

/*
 * The mask of libtraceevent's eval_type_str() cast to @type (with @pointer,
 * of the "T *" element type of an array); false where it warns.
 */
static bool type_mask(const char *type, bool pointer, uint64_t *mask)
{
	static const struct { const char *name; uint64_t mask; } plain[] = {
		{ "u8", 0xff }, { "u16", 0xffff }, { "u32", 0xffffffff }, { "u64", UINT64_MAX },
		{ "s64", UINT64_MAX }, { "s8", 0xff }, { "s16", 0xffff }, { "s32", 0xffffffff },
	}, after_unsigned[] = {
		{ "char", 0xff }, { "short", 0xffff }, { "int", 0xffffffff },
	};
	size_t len = strlen(type);
	char ref[128];

	*mask = UINT64_MAX;
	if (len < 2)
		return false;
	if (pointer) {
		if (type[len - 1] != '*' || len - 2 >= sizeof(ref))
			return false;
		memcpy(ref, type, len - 2);	/* it chops off the " *" */
		ref[len - 2] = '\0';
		return type_mask(ref, false, mask);
	}
	if (type[len - 1] == '*' || !strncmp(type, "struct", 6))
		return true;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!strcmp(type, plain[i].name)) {
			*mask = plain[i].mask;
			return true;
		}
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	for (size_t i = 0; i < sizeof(after_unsigned) / sizeof(after_unsigned[0]); i++)
		if (!strcmp(type, after_unsigned[i].name))
			*mask = after_unsigned[i].mask;
	return true;
}

static struct tep_format_field *field_of(struct tep_event *event, struct tep_print_arg *a)
{
	return a->field.field ? a->field.field : tep_find_any_field(event, a->field.name);
}

bool tf_num_size(int size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static int plan_num(struct tf_plan *p, struct tep_print_arg *a, int depth);

/* An operator, as eval_num_arg() evaluates it ("[", "?", or one it knows). */
static int plan_op(struct tf_plan *p, struct tep_print_arg *a, int depth)
{
	const char *op = a->op.op;
	int i, l, r;

	if (!op)
		return -1;
	if (!strcmp(op, "[")) {
		struct tep_print_arg *base = a->op.left, *cast = NULL;
		struct tep_format_field *f;
		uint64_t mask = UINT64_MAX;

		for (; base && base->type == TEP_PRINT_TYPE; base = base->typecast.item)
			if (!cast)
				cast = base;
		if (!base || base->type != TEP_PRINT_FIELD || !(f = field_of(p->event, base)) ||
		    !tf_num_size(f->elementsize) || (cast && !type_mask(cast->typecast.type, true, &mask)) ||
		    (r = plan_num(p, a->op.right, depth + 1)) < 0 || (i = new_ex(p, EX_INDEX)) < 0)
			return -1;
		p->ex[i].a = r;
		p->ex[i].off = f->offset;
		p->ex[i].size = f->elementsize;
		p->ex[i].v = mask;
		return i;
	}
	if (!strcmp(op, "?")) {
		struct tep_print_arg *br = a->op.right;
		int c, t, e;

		if (!br || br->type != TEP_PRINT_OP || !br->op.op || strcmp(br->op.op, ":") ||
		    (c = plan_num(p, a->op.left, depth + 1)) < 0 ||
		    (t = plan_num(p, br->op.left, depth + 1)) < 0 ||
		    (e = plan_num(p, br->op.right, depth + 1)) < 0 || (i = new_ex(p, EX_COND)) < 0)
			return -1;
		p->ex[i].a = c;
		p->ex[i].b = t;
		p->ex[i].c = e;
		return i;
	}
	switch (op[0]) {	/* those eval_num_arg() does not warn about */
	case '!': case '<': case '>':
		if (op[1] && op[1] != '=' && op[1] != op[0])
			return -1;
		if (op[0] == '!' && op[1] == '!')
			return -1;
		break;
	case '=':
		if (op[1] != '=')
			return -1;
		break;
	case '~': case '|': case '&': case '-': case '+': case '/': case '%': case '*':
		break;
	default:
		return -1;
	}
	if ((l = plan_num(p, a->op.left, depth + 1)) < 0 || (r = plan_num(p, a->op.right, depth + 1)) < 0 ||
	    (i = new_ex(p, EX_OP)) < 0)
		return -1;
	p->ex[i].op0 = op[0];
	p->ex[i].op1 = op[1];
	p->ex[i].a = l;
	p->ex[i].b = r;
	return i;
}

/* A number argument: its expression's index in p->ex, -1 if not planned. */
static int plan_num(struct tf_plan *p, struct tep_print_arg *a, int depth)
{
	struct tep_format_field *f;
	uint64_t mask;
	int i, item;

	if (depth > 32)
		return -1;
	if (!a) {
		return -1;
	} else if (a->type == TEP_PRINT_NULL) {
		return new_ex(p, EX_CONST);
	} else if (a->type == TEP_PRINT_ATOM) {
		uint64_t v = strtoull(a->atom.atom, NULL, 0);

		if (v || isdigit((unsigned char)a->atom.atom[0])) {
			if ((i = new_ex(p, EX_CONST)) >= 0)
				p->ex[i].v = v;
			return i;
		}
		if ((i = new_ex(p, EX_SYM)) >= 0)	/* test_for_symbol() turns it into a number */
			p->ex[i].atom = a;
		return i;
	} else if (a->type == TEP_PRINT_FIELD) {
		if (!(f = field_of(p->event, a)) || !tf_num_size(f->size) || (i = new_ex(p, EX_FIELD)) < 0)
			return -1;
		p->ex[i].off = f->offset;
		p->ex[i].size = f->size;
		return i;
	} else if (a->type == TEP_PRINT_TYPE) {
		if (!a->typecast.type || !type_mask(a->typecast.type, false, &mask) ||
		    (item = plan_num(p, a->typecast.item, depth + 1)) < 0)
			return -1;
		if (mask == UINT64_MAX)
			return item;
		if ((i = new_ex(p, EX_CAST)) >= 0) {
			p->ex[i].a = item;
			p->ex[i].v = mask;
		}
		return i;
	} else if (a->type == TEP_PRINT_OP) {
		return plan_op(p, a, depth);
	}
	return -1;
}

/* What eval_flag() reads a __print_flags() or __print_symbolic() value as. */
static long long flag_value(const char *flag)
{
	static const struct { const char *name; long long value; } names[] = {
		{ "HI_SOFTIRQ", 0 }, { "TIMER_SOFTIRQ", 1 }, { "NET_TX_SOFTIRQ", 2 },
		{ "NET_RX_SOFTIRQ", 3 }, { "BLOCK_SOFTIRQ", 4 }, { "IRQ_POLL_SOFTIRQ", 5 },
		{ "TASKLET_SOFTIRQ", 6 }, { "SCHED_SOFTIRQ", 7 }, { "HRTIMER_SOFTIRQ", 8 },
		{ "RCU_SOFTIRQ", 9 }, { "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 },
	};

	if (isdigit((unsigned char)flag[0]))
		return (long long)strtoull(flag, NULL, 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, flag))
			return names[i].value;
	return -1LL;
}

static bool plan_flags(struct tf_str *s, struct tep_print_flag_sym *list)
{
	struct tep_print_flag_sym *f;
	int n = 0;

	for (f = list; f; f = f->next)
		if (!f->value || !f->str)
			return false;
		else
			n++;
	if (!(s->flags = calloc((size_t)n + 1, sizeof(*s->flags))))
		return false;
	for (f = list; f; f = f->next, s->nflags++) {
		s->flags[s->nflags].value = flag_value(f->value);
		s->flags[s->nflags].str = f->str;
		s->flags[s->nflags].len = strlen(f->str);
	}
	return true;
}

/* A string argument: its index in p->str, -1 if not planned. */
static int plan_str(struct tf_plan *p, struct tep_print_arg *a, int depth)
{
	struct tep_format_field *f;
	int i, v;

	if (!a || depth > 32)
		return -1;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		if ((i = new_str(p, SN_ATOM)) >= 0)
			p->str[i].arg = a;
		return i;
	case TEP_PRINT_FIELD:
		/* a field as long as a pointer prints as one, or as a printk format */
		if (!(f = field_of(p->event, a)) ||
		    (!(f->flags & TEP_FIELD_IS_ARRAY) && f->size == tep_get_long_size(p->event->tep)) ||
		    (i = new_str(p, SN_ARRAY)) < 0)
			return -1;
		p->str[i].off = f->offset;
		p->str[i].size = f->size;
		return i;
	case TEP_PRINT_STRING:
		f = a->string.field ? a->string.field : tep_find_any_field(p->event, a->string.string);
		if (!f || (i = new_str(p, SN_DYN)) < 0)
			return -1;
		p->str[i].off = f->offset;
		p->str[i].size = f->size;
		p->str[i].rel = f->flags & TEP_FIELD_IS_RELATIVE;
		return i;
	case TEP_PRINT_FLAGS:
	case TEP_PRINT_SYMBOL:
		v = plan_num(p, a->type == TEP_PRINT_FLAGS ? a->flags.field : a->symbol.field, depth + 1);
		if (v < 0 || (i = new_str(p, a->type == TEP_PRINT_FLAGS ? SN_FLAGS : SN_SYMBOL)) < 0)
			return -1;
		p->str[i].ex = v;
		if (a->type == TEP_PRINT_FLAGS && a->flags.delim) {
			p->str[i].delim = a->flags.delim;
			p->str[i].dlen = strlen(a->flags.delim);
		}
		return plan_flags(&p->str[i], a->type == TEP_PRINT_FLAGS ? a->flags.flags :
				  a->symbol.symbols) ? i : -1;
	case TEP_PRINT_OP: {
		struct tep_print_arg *br = a->op.right;
		int c, t, e;

		if (!a->op.op || strcmp(a->op.op, "?") || !br || br->type != TEP_PRINT_OP || !br->op.op ||
		    strcmp(br->op.op, ":") || (c = plan_num(p, a->op.left, depth + 1)) < 0 ||
		    (t = plan_str(p, br->op.left, depth + 1)) < 0 ||
		    (e = plan_str(p, br->op.right, depth + 1)) < 0 || (i = new_str(p, SN_COND)) < 0)
			return -1;
		p->str[i].ex = c;
		p->str[i].a = t;
		p->str[i].b = e;
		return i;
	}
	default:
		return -1;
	}
}

static int digits(const char **f)
{
	int n = 0;

	while (isdigit((unsigned char)**f)) {
		n = n * 10 + (**f - '0');
		if (n > WIDTH_MAX)
			return -1;
		(*f)++;
	}
	return n;
}

/*
 * A conversion at @f (after its '%'), as libtraceevent's parse_arg_format()
 * reads it and printf prints it: false for one not planned.  Sets *end past
 * what it takes.
 */
static bool conversion(const char *f, struct tf_spec *sp, const char **end)
{
	memset(sp, 0, sizeof(*sp));
	sp->prec = -1;
	for (;; f++) {
		if (*f == '-')
			sp->minus = true;
		else if (*f == '0')
			sp->zero = true;
		else if (*f == '#')
			sp->hash = true;
		else
			break;
	}
	if ((sp->width = digits(&f)) < 0)
		return false;
	if (*f == '.') {
		f++;
		if ((sp->prec = digits(&f)) < 0)
			return false;
	}
	if (f[0] == 'h' && f[1] == 'h') {
		sp->ls = -2;
		f += 2;
	} else if (f[0] == 'l' && f[1] == 'l') {
		sp->ls = 2;
		f += 2;
	} else if (*f == 'h' || *f == 'l' || *f == 'z') {
		sp->ls = *f++ == 'h' ? -1 : 1;
	} else if (*f == 'L') {		/* glibc reads it as ll */
		sp->ls = 2;
		f++;
	}
	sp->conv = *f;
	*end = f + 1;
	switch (sp->conv) {
	case 'd': case 'i': case 'u':
		return !sp->hash;
	case 'x': case 'X': case 'o':
		return true;
	case 's':
		return !sp->hash && !sp->zero && !sp->ls;
	default:
		return false;
	}
}

/* Literal text up to the next conversion, unescaped as parse_arg_string() does. */
static bool plan_literal(struct tf_plan *p, const char **fp)
{
	const char *f = *fp;
	struct tf_piece *c = new_piece(p, PC_LIT);
	size_t n = 0;

	if (!c || !(c->lit = malloc(strlen(f) + 1)))
		return false;
	for (; *f; f++) {
		char ch = *f;

		if (ch == '\\') {
			ch = *++f;
			if (!ch)
				return false;	/* it reads past the end */
			ch = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch == 'r' ? '\r' : ch;
		} else if (ch == '%') {
			if (f[1] != '%')
				break;
			f++;
		}
		c->lit[n++] = ch;
	}
	c->len = n;
	*fp = f;
	return true;
}

static bool plan_conversion(struct tf_plan *p, const char **fp, struct tep_print_arg **arg)
{
	const char *f = *fp + 1, *end;
	struct tf_piece *c;
	struct tf_spec sp;

	if (!*arg)
		return false;
	if (*f == 'p') {
		switch (f[1]) {
		case 'F': case 'S': case 'f': case 's':
			if (tep_get_long_size(p->event->tep) != 8 || !(c = new_piece(p, PC_FUNC)) ||
			    !(c->syms = calloc(SYM_SLOTS, sizeof(*c->syms))))
				return false;
			c->plus = f[1] == 'F' || f[1] == 'S';
			end = f + 2;
			break;
		case 'M': case 'm': case 'I': case 'i': case 'U': case 'h':
			return false;
		default:
			if (!(c = new_piece(p, PC_PTR)))
				return false;
			end = f + 1;
		}
		c->ex = plan_num(p, *arg, 0);
	} else {
		if (!conversion(f, &sp, &end) || !(c = new_piece(p, sp.conv == 's' ? PC_STR : PC_NUM)))
			return false;
		c->sp = sp;
		if (sp.conv == 's')
			c->str = plan_str(p, *arg, 0);
		else
			c->ex = plan_num(p, *arg, 0);
	}
	if ((int)(end - *fp) > 29 || (c->ex < 0 && c->str < 0))
		return false;
	*arg = (*arg)->next;
	*fp = end;
	return true;
}

void tf_plan_free(struct tf_plan *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->npc; i++) {
		free(p->pc[i].lit);
		free(p->pc[i].syms);
	}
	for (int i = 0; i < p->nstr; i++)
		free(p->str[i].flags);
	free(p->pc);
	free(p->ex);
	free(p->str);
	free(p);
}

/* @event's plan; a dead one if its format is not one planned; NULL without memory. */
struct tf_plan *tf_plan_new(struct tep_event *event)
{
	struct tf_plan *p = calloc(1, sizeof(*p));
	struct tep_print_arg *arg;
	const char *f;
	bool ok;

	if (!p)
		return NULL;
	p->event = event;
	p->swap = tep_is_file_bigendian(event->tep) != tep_is_local_bigendian(event->tep);
	f = event->print_fmt.format;
	arg = event->print_fmt.args;
	ok = f && sizeof(long) == 8 &&
	     !(event->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_PRINTRAW | TEP_EVENT_FL_ISBPRINT));
	while (ok && *f)
		ok = (*f == '%' && f[1] != '%') ? plan_conversion(p, &f, &arg) : plan_literal(p, &f);
	if (!ok) {
		tf_plan_free(p);
		if ((p = calloc(1, sizeof(*p)))) {
			p->event = event;
			p->dead = true;
		}
	}
	return p;
}
