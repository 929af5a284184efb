/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * text-fast.h - the plans of the text writer's compiled print formats:
 * made by text-plan.c from libtraceevent's parsed print format, printed
 * by text-fast.c.  Private to those two files.
 */
#ifndef TDAT_WRITE_TEXT_FAST_H
#define TDAT_WRITE_TEXT_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_event;
struct tep_print_arg;

#define WIDTH_MAX	256	/* widths and precisions planned; wider ones are left to libtraceevent */
#define SYM_SLOTS	256	/* symbol texts kept per %pS conversion, direct-mapped by address */
#define SYM_TEXT	62

enum ex_kind { EX_CONST, EX_FIELD, EX_SYM, EX_CAST, EX_INDEX, EX_OP, EX_COND };

struct tf_ex {			/* a number, as eval_num_arg() works it out */
	unsigned char kind;
	char op0, op1;		/* EX_OP: the operator's first two characters */
	int a, b, c;		/* operands (EX_COND: condition, then, else), indexes in plan->ex */
	int off, size;		/* EX_FIELD: where it lies; EX_INDEX: the array's offset, element size */
	uint64_t v;		/* EX_CONST: the value; EX_CAST, EX_INDEX: the cast's mask */
	struct tep_print_arg *atom;	/* EX_SYM: a name libtraceevent looks up on first use */
};

enum str_kind { SN_ATOM, SN_ARRAY, SN_DYN, SN_FLAGS, SN_SYMBOL, SN_COND };

struct tf_flag {
	long long value;	/* as eval_flag() reads it */
	const char *str;
	size_t len;
};

struct tf_str {			/* a string, as print_str_arg() gives it */
	unsigned char kind;
	bool rel;		/* SN_DYN: a __rel_loc field */
	int ex;			/* SN_FLAGS, SN_SYMBOL: the value; SN_COND: the condition */
	int a, b;		/* SN_COND: the strings, indexes in plan->str */
	int off, size;		/* SN_ARRAY, SN_DYN: the field */
	struct tep_print_arg *arg;	/* SN_ATOM */
	const char *delim;	/* SN_FLAGS */
	size_t dlen;
	struct tf_flag *flags;
	int nflags;
};

struct tf_spec {		/* a printf conversion */
	char conv;
	signed char ls;		/* libtraceevent's length: -2 hh, -1 h, 0, 1 l z, 2 ll */
	bool minus, zero, hash;
	int width, prec;	/* prec -1: none */
};

struct tf_sym {
	uint64_t addr;
	unsigned char len;	/* 0: an empty slot */
	char text[SYM_TEXT];
};

enum piece_kind { PC_LIT, PC_NUM, PC_STR, PC_PTR, PC_FUNC };

struct tf_piece {
	unsigned char kind;
	bool plus;		/* PC_FUNC: %pS or %pF, with "+0x<offset>" */
	struct tf_spec sp;	/* PC_NUM, PC_STR (width and precision) */
	int ex, str;
	char *lit;
	size_t len;
	struct tf_sym *syms;	/* PC_FUNC */
};

struct tf_plan {
	struct tep_event *event;
	bool dead;		/* left to tep_print_event() */
	bool swap;		/* the file's byte order is not ours */
	struct tf_piece *pc;
	int npc;
	struct tf_ex *ex;
	int nex;
	struct tf_str *str;
	int nstr;
};

/* @event's plan; a dead one if its format is not one planned; NULL without memory. */
struct tf_plan *tf_plan_new(struct tep_event *event);
void tf_plan_free(struct tf_plan *p);
bool tf_num_size(int size);

#endif /* TDAT_WRITE_TEXT_FAST_H */
