/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tep-guard.c - what libtraceevent 1.7 (and so trace-cmd) crashes on,
 * refused before it sees it: event formats a damaged file can hold, and
 * -F filter expressions.  Each shape here was found by fuzzing or mutation
 * testing; the input that found it is kept in tests/fuzz/corpus/ or
 * testdata/bad/.  Everything else libtraceevent reports itself.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "guard/guard.h"

#define IDENT_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

/* ---- event formats ---- */

static bool ident(const char *p, size_t n)
{
	return n && !(p[0] >= '0' && p[0] <= '9') && strspn(p, IDENT_CHARS) >= n;
}

/* Whether @p starts the word @w (not inside a longer identifier). */
static bool word_at(const char *buf, const char *p, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(p, w, n) && (p == buf || !strchr(IDENT_CHARS, p[-1])) &&
	       (!p[n] || !strchr(IDENT_CHARS, p[n]));
}

/*
 * Where libtraceevent stops reading fields: at the first words "print fmt"
 * (an event may be called "print").  Field names are collected only before
 * it, so text in the print format can never pass for a field.
 */
static const char *fields_end(const char *buf)
{
	for (const char *p = buf; (p = strstr(p, "print")); p++) {
		const char *q = p + 5 + strspn(p + 5, " \t\n\r\f\v");

		if (word_at(buf, p, "print") && word_at(buf, q, "fmt"))
			return p;
	}
	return buf + strlen(buf);
}

/*
 * Whether every '[' of a field declaration closes before its ';'.
 * libtraceevent reads an unclosed one on, to the next ']' anywhere, and
 * the fields it swallows are missing from the event it builds.
 */
static bool brackets_closed(const char *p, const char *semi)
{
	int depth = 0;

	for (; p < semi; p++) {
		depth += (*p == '[') - (*p == ']');
		if (depth < 0 || depth > 1)
			return false;
	}
	return depth == 0;
}

/*
 * One "field:TYPE NAME;\toffset:N;\tsize:N;..." line at @p, ending before
 * @end: its name an identifier, every value after a ':' a number.  Returns
 * the line's end, or NULL.
 */
static const char *field_line(const char *p, const char *end)
{
	const char *semi = strchr(p, ';'), *e = strchr(p, '\n'), *name;
	size_t n;

	if (!e || e > end || !semi || semi > e || !brackets_closed(p, semi))
		return NULL;
	/* "buf[32 + 2]" (i2c's smbus events): the name is before the brackets */
	for (name = semi; name > p && name[-1] == ']'; name--)
		while (name > p && name[-1] != '[')
			name--;
	while (name > p && name[-1] != ' ' && name[-1] != '*')
		name--;
	n = strcspn(name, "[;");
	if (!ident(name, n) || !strstr(semi, "offset:") || strstr(semi, "offset:") > e)
		return NULL;
	for (const char *q = semi; q < e; q++)
		if (*q == ':' && !(q[1] >= '0' && q[1] <= '9') && q[1] != '-')
			return NULL;
	return e;
}

/*
 * The fields libtraceevent itself reads from the first @keep bytes of @buf
 * (the part before the print format): the tokenizer can swallow lines that
 * look like fields, so the names are taken from its own parse, in a handle
 * of their own.  NULL if it cannot be made.
 */
static struct tep_event *parsed_fields(struct tep_handle *t, const char *buf, size_t keep)
{
	struct tep_event *ev = NULL;

	tep_parse_format(t, &ev, buf, keep, "guard");	/* fails at the missing print format */
	return ev;
}

/*
 * Every REC->NAME must name a field.  libtraceevent 1.7 dereferences the
 * field it looks up for the first REC->NAME after __print_flags or
 * __print_symbolic without checking it, and remembers that it saw those in
 * a global, so a missing field crashes even in a later event's format.
 */
static bool rec_refs_known(const char *buf, const char *stop, struct tep_event *ev)
{
	char name[128];

	for (const char *p = buf; (p = strstr(p, "REC")) && p < stop; p += 3) {
		const char *q = p + 3;
		size_t n;

		if (!word_at(buf, p, "REC"))
			continue;
		q += strspn(q, " \t\n\r\f\v");
		if (strncmp(q, "->", 2))
			continue;
		q += 2;
		q += strspn(q, " \t\n\r\f\v");
		n = strspn(q, IDENT_CHARS);
		if (!ident(q, n) || n >= sizeof(name))
			return false;
		memcpy(name, q, n);
		name[n] = '\0';
		if (!ev || !tep_find_any_field(ev, name))
			return false;
	}
	return true;
}

/* The length of the operator token libtraceevent's tokenizer reads at @p. */
static size_t op_token(const char *p)
{
	size_t n = 1;

	if (p[0] == '-' && p[1] == '>')
		return 2;
	if (strchr("-+|&<>", p[0]) && p[1] == p[0]) {
		n = 2;
		if (p[0] != '<' && p[0] != '>')
			return n;
	} else if (!strchr("-+|&<>!=", p[0])) {
		return 1;
	}
	return n + (p[n] == '=');
}

/* Whether @p (of @n bytes) is an operator libtraceevent gives a priority (or ':'). */
static bool known_op(const char *p, size_t n)
{
	static const char *const two[] = { "++", "--", ">>", "<<", ">=", "<=", "==", "!=", "&&", "||" };

	if (n == 1)
		return strchr("~!*/%+-<>&^|?:", p[0]) != NULL;
	for (size_t i = 0; n == 2 && i < sizeof(two) / sizeof(two[0]); i++)
		if (!memcmp(p, two[i], 2))
			return true;
	return false;
}

/* Whether a divisor that ends at @q stays whole: the argument ends, or an operator of lower priority follows. */
static bool divisor_ends(const char *q)
{
	q += strspn(q, " \t\n\r\f\v");
	return !*q || strchr(",)]:?+-<>=!&^|", *q);
}

/*
 * A divisor libtraceevent may fold at parse time, "a / b" with both
 * constants: it divides then, and a zero (or a name, which reads as 0)
 * raises SIGFPE.  Safe divisors: a field (REC->x), or a non-zero number or
 * sizeof(...) that stays whole: libtraceevent takes "a / 2 / 3" as
 * "a / (2 / 3)", a division by 0, and folds "a % 29 b % 29" into one too
 * (fuzz-open).  It also drops the parentheses of a group whose operator has
 * a lower priority, "8 / (0 | x)" becoming "(8 / 0) | x": a group is safe
 * only when what it starts with cannot fold, a field or a unary operator
 * (a random search of print formats).
 */
static bool divisor_safe(const char *q)
{
	unsigned long long v;
	char *end;

	q += strspn(q, " \t\n\r\f\v");
	/* "RECW" is a name (read as 0), not REC->W */
	if (!strncmp(q, "REC->", 5))
		return true;
	if (!strncmp(q, "sizeof", 6) && q[6 + strspn(q + 6, " \t")] == '(') {
		const char *close = strchr(q, ')');

		return close && divisor_ends(close + 1);
	}
	if (*q >= '0' && *q <= '9') {
		v = strtoull(q, &end, 0);
		q += strspn(q, IDENT_CHARS);	/* one item to libtraceevent: "29UL", "29fo" */
		return v != 0 && divisor_ends(q);
	}
	if (*q == '(') {
		q += strspn(q, "( \t\n\r\f\v");
		return !strncmp(q, "REC->", 5) || (*q && strchr("-+!~", *q));
	}
	return false;
}

/*
 * What libtraceevent 1.7.1 makes of "sizeof(" followed by @p.  For "int",
 * "unsigned int", "long long" and "REC->x" it frees the last name it read,
 * reads the ')' into another token and frees the first one again: a use
 * after free, then a double free (fixed upstream in 1.7.2).  "unsigned"
 * and "long" alone are read right; anything else ("u64") is an error that
 * ends the parse there.
 */
enum sizeof_kind { SIZEOF_OK, SIZEOF_ERROR, SIZEOF_FREED_TWICE };

static const char *next_item(const char *p, size_t *n)
{
	p += strspn(p, " \t\n\r\f\v");
	*n = strspn(p, IDENT_CHARS);
	return p;
}

static bool item_is(const char *p, size_t n, const char *w)
{
	return n == strlen(w) && !strncmp(p, w, n);
}

static enum sizeof_kind sizeof_kind(const char *p)
{
	size_t n, n2;
	const char *t = next_item(p, &n), *u;

	if (item_is(t, n, "unsigned")) {
		u = next_item(t + n, &n2);
		if (!n2)
			return SIZEOF_OK;
		t = u;
		n = n2;
	}
	if (item_is(t, n, "int") || item_is(t, n, "REC"))
		return SIZEOF_FREED_TWICE;
	if (item_is(t, n, "long")) {
		u = next_item(t + n, &n2);
		return item_is(u, n2, "long") ? SIZEOF_FREED_TWICE : SIZEOF_OK;
	}
	return SIZEOF_ERROR;
}

/*
 * A sizeof() libtraceevent fails on, first in a ternary's false branch (@p
 * follows the ':'): it leaves an atom with no text there, and folds it
 * with the true branch's number before it sees the error, strtoull(NULL)
 * (fuzz-open: ": sizeof(C->next_comm").  Parentheses do not help.
 */
static bool false_branch_sizeof_fails(const char *p)
{
	p += strspn(p, "( \t\n\r\f\v");
	if (strncmp(p, "sizeof", 6) || strchr(IDENT_CHARS, p[6]))
		return false;
	p += 6;
	p += strspn(p, " \t\n\r\f\v");
	return *p == '(' && sizeof_kind(p + 1) != SIZEOF_OK;
}

/* Whether the ']' at @p closes "[]" (a declaration such as "x[] = {...}", which is safe). */
static bool empty_index(const char *start, const char *p)
{
	while (p > start && strchr(" \t\n\r\f\v", p[-1]))
		p--;
	return p > start && p[-1] == '[';
}

/* The end of the quoted string that starts at @p, NULL if it never ends. */
static const char *string_end(const char *p)
{
	const char *q = p + 1;

	while (*q && *q != *p)
		q += q[0] == '\\' && q[1] ? 2 : 1;
	return *q ? q : NULL;
}

/* Where the item at @p ends; REC->NAME is one item. */
static const char *item_end(const char *p)
{
	const char *q = p + strspn(p, IDENT_CHARS), *r = q + strspn(q, " \t\n\r\f\v");

	if (q - p == 3 && !strncmp(p, "REC", 3) && !strncmp(r, "->", 2)) {
		r += 2;
		r += strspn(r, " \t\n\r\f\v");
		q = r + strspn(r, IDENT_CHARS);
	}
	return q;
}

static bool is_op_char(char c)
{
	return c > 0x20 && c < 0x7f && !strchr(IDENT_CHARS "\"'(),", c);
}

/*
 * The print format's arguments, token by token, strings aside.  libtraceevent
 * 1.7 follows an operator it has no priority for ('#', '=', '->', '[', ...)
 * into a NULL argument after an array index (REC->args[0] # 1) and after an
 * operand of a ternary's false branch (a ? b : c # 1); it folds constant
 * divisions at parse time (divisor_safe()); it frees twice in some
 * sizeof() (sizeof_kind()), and folds a failed one after a ':'.
 */
static bool print_args_safe(const char *start, const char *stop)
{
	int depth = 0, colon_depth = -1;	/* inside a ternary's false branch */
	bool check_next = false;		/* an operand there just ended */
	bool after_item = false;		/* and it was a name or a number */
	bool sizeof_error = false;		/* a sizeof() libtraceevent fails on came first */

	for (const char *p = start; p < stop; p++) {
		if (strchr(" \t\n\r\f\v", *p))
			continue;
		/* after an operand there, no operator it does not know; after a name, no name */
		if (check_next && is_op_char(*p) && *p != '/' && *p != '%' && !known_op(p, op_token(p)))
			return false;
		if (after_item && strchr(IDENT_CHARS, *p))
			return false;	/* "a ? b : char REC->c" */
		check_next = after_item = false;
		if (*p == '"' || *p == '\'') {
			if (!(p = string_end(p)))
				return true;	/* libtraceevent fails on the unterminated string */
			check_next = depth == colon_depth;
		} else if (strchr(IDENT_CHARS, *p)) {
			const char *q = item_end(p), *paren = q + strspn(q, " \t\n\r\f\v");

			if (!sizeof_error && q - p == 6 && !strncmp(p, "sizeof", 6) && *paren == '(') {
				enum sizeof_kind k = sizeof_kind(paren + 1);

				if (k == SIZEOF_FREED_TWICE)
					return false;
				sizeof_error = k == SIZEOF_ERROR;	/* libtraceevent reads no further */
			}
			p = q - 1;
			check_next = after_item = depth == colon_depth;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')') {
			if (--depth < colon_depth)
				colon_depth = -1;
			check_next = depth == colon_depth;
		} else if (*p == ',') {
			if (depth <= colon_depth)
				colon_depth = -1;
		} else if (*p == ':') {
			colon_depth = depth;
			if (!sizeof_error && false_branch_sizeof_fails(p + 1))
				return false;
		} else if ((*p == '/' || *p == '%') && !divisor_safe(p + 1)) {
			return false;
		} else if (*p == ']' && !empty_index(start, p)) {
			const char *q = p + 1 + strspn(p + 1, " \t\n\r\f\v");

			if (is_op_char(*q) && !known_op(q, op_token(q)))
				return false;
		}
	}
	return true;
}

/*
 * Where the print format's first GNU statement expression "({ ... })" starts
 * (outside strings), or its end.  Kernel formats use them (xhci's and
 * dwc3's switch statements in 4.x kernels); libtraceevent 1.7 reads the '{'
 * as an operator with nothing on its left and fails the print format there
 * ("bad op token"): it prints the events with their fields only, and reads
 * nothing of the format after it.
 */
static const char *statement_expr(const char *p)
{
	for (; *p; p++) {
		if (*p == '"' || *p == '\'') {
			const char *q = string_end(p);

			if (!q)
				return p + strlen(p);
			p = q;
		} else if (*p == '(' && p[1 + strspn(p + 1, " \t\n\r\f\v")] == '{') {
			return p;
		}
	}
	return p;
}

/* Whether libtraceevent reads the print format from @start to @stop safely. */
static bool print_safe(const char *buf, size_t keep, const char *start, const char *stop)
{
	struct tep_handle *t;
	bool known;

	if (!print_args_safe(start, stop))
		return false;
	if (!strstr(start, "REC") || strstr(start, "REC") >= stop)
		return true;
	t = tep_alloc();
	known = t && rec_refs_known(start, stop, parsed_fields(t, buf, keep));
	tep_free(t);
	return known;
}

/* Whether [p, end) is printable ASCII (tabs and newlines too): libtraceevent's
 * tokenizer gives no token (NULL) for other bytes. */
static bool printable(const char *p, const char *end)
{
	for (const unsigned char *u = (const unsigned char *)p; u < (const unsigned char *)end; u++)
		if ((*u < 0x20 && *u != '\t' && *u != '\n') || *u > 0x7e)
			return false;
	return true;
}

/* "name: NAME\nID: N\n" first. */
static bool header_ok(const char *buf)
{
	const char *p;

	if (strncmp(buf, "name: ", 6) || !(p = strstr(buf, "\nID: ")))
		return false;
	for (p += 5; *p != '\n'; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static pthread_mutex_t parse_mu = PTHREAD_MUTEX_INITIALIZER;

void tep_guard_lock(void)
{
	pthread_mutex_lock(&parse_mu);
}

void tep_guard_unlock(void)
{
	pthread_mutex_unlock(&parse_mu);
}

/**
 * tep_guard_format() - how much of an event format is safe to hand to libtraceevent
 * @buf: the format's text, NUL-terminated
 * @keep: set to the length of its part before the print format
 *
 * A format the kernel wrote is printable ASCII, with a name, a numeric ID,
 * field lines whose names are identifiers and whose offsets and sizes are
 * numbers; its print format refers to its own fields (REC->NAME), follows
 * an array index or a ternary's false branch only with operators
 * libtraceevent knows, and divides only by what cannot be 0.  A damaged file
 * (a compressed section with flipped bits decompresses into anything) can
 * hold formats that crash libtraceevent's parser.
 *
 * A kernel's print format can hold what the check refuses, and what
 * libtraceevent cannot print either: a GNU statement expression (4.x xhci and
 * dwc3 formats switch on a field inside one).  libtraceevent fails the print
 * format at its '{', so what matters is only the text before it.
 *
 * Return: TEP_GUARD_OK; TEP_GUARD_UNSUPP when the print format is sound up
 * to a statement expression and fails the check after it (a kernel format
 * libtraceevent cannot print: parse the first @keep bytes, its events print
 * with their fields only, as trace-cmd prints them); TEP_GUARD_FIELDS when
 * the print format fails otherwise (damage: parse the first @keep bytes:
 * the event keeps its fields, libtraceevent prints it as it does any format
 * it cannot read); TEP_GUARD_BAD when the rest fails too.
 */
enum tep_guard tep_guard_format(const char *buf, size_t *keep)
{
	const char *p, *stmt, *end = fields_end(buf);

	*keep = (size_t)(end - buf);
	if (!printable(buf, end) || !header_ok(buf))
		return TEP_GUARD_BAD;
	/* a quote starts a string token that runs on over the next fields */
	for (p = buf; p < end; p++)
		if (*p == '"' || *p == '\'')
			return TEP_GUARD_BAD;
	for (p = buf; (p = strstr(p, "field:")) && p < end; )
		if (!(p = field_line(p, end)))
			return TEP_GUARD_BAD;
	if (!printable(end, end + strlen(end)))
		return TEP_GUARD_FIELDS;
	if (print_safe(buf, *keep, end, end + strlen(end)))
		return TEP_GUARD_OK;
	stmt = statement_expr(end);
	return *stmt && print_safe(buf, *keep, end, stmt) ? TEP_GUARD_UNSUPP : TEP_GUARD_FIELDS;
}

/* ---- filter expressions ---- */

/*
 * libtraceevent 1.7 crashes (double frees, use after free, NULL pointers,
 * SIGFPE) on many malformed filters, and fuzz-filter kept finding new ones
 * while the check listed the shapes to refuse.  The check is now a grammar
 * of what is accepted, the shapes known to compile safely:
 *
 *	cond   := clause { ('&&' | '||') clause }
 *	clause := ['!'] ( '(' cond ')' | cmp )
 *	cmp    := NAME ('==' | '!=' | '<' | '<=' | '>' | '>=') NUMBER
 *	        | NAME ('==' | '!=' | '=~' | '!~' | '~') STRING	(no backslash in it)
 *	        | NAME '&' NUMBER			(a bit test)
 *
 * NUMBER is decimal or 0x hex; a '-' before it and the bit test only in the
 * first clause of a cond (after && or || libtraceevent frees twice: put
 * that comparison in parentheses).  Anything else libtraceevent would
 * either refuse or mishandle: arithmetic, comparing two fields, a '.'.
 */
#define FILTER_DEPTH 16		/* groups in groups */

struct fscan {
	const char *p;
	int depth;
	const char *why;	/* the first failure */
};

static bool fail(struct fscan *s, const char *why)
{
	if (!s->why)
		s->why = why;
	return false;
}

static void skip_spaces(struct fscan *s)
{
	while (*s->p == ' ')
		s->p++;
}

static bool name_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* NUMBER at s->p: decimal or 0x hex, ending where a name or a '.' could not go on. */
static bool number(struct fscan *s)
{
	const char *p = s->p;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && hex_digit(p[2]))
		for (p += 2; hex_digit(*p); p++)
			;
	else if (*p >= '0' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return fail(s, "a number or a quoted string expected after a comparison "
			       "(fields compare with constants, not with other fields)");
	if (name_char(*p) || *p == '.')
		return fail(s, "a number is decimal or 0x hex, with no '.' or letters after it");
	s->p = p;
	return true;
}

/* The comparison operator at s->p (longest first), NULL if none. */
static const char *comparison(struct fscan *s)
{
	static const char *const ops[] = { "==", "!=", "<=", ">=", "=~", "!~", "<", ">", "~" };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(s->p, ops[i], strlen(ops[i]))) {
			s->p += strlen(ops[i]);
			return ops[i];
		}
	return NULL;
}

static bool cmp(struct fscan *s, bool first)
{
	const char *op;

	skip_spaces(s);
	if (!name_char(*s->p) || (*s->p >= '0' && *s->p <= '9'))
		return fail(s, "a field name expected (a condition is FIELD OP VALUE)");
	while (name_char(*s->p))
		s->p++;
	skip_spaces(s);
	if (s->p[0] == '&' && s->p[1] != '&') {
		if (!first)
			return fail(s, "a bit test (FIELD & MASK) after && or || "
				       "(put it in parentheses)");
		s->p++;
		skip_spaces(s);
		return number(s);
	}
	if (!(op = comparison(s)))
		return fail(s, "a comparison expected after a field name "
			       "(==, !=, <, <=, >, >=, =~, !~ or ~; no arithmetic)");
	skip_spaces(s);
	if (*s->p == '"' || *s->p == '\'') {
		const char *end = strchr(s->p + 1, *s->p);

		if (!end)
			return fail(s, "unterminated string");
		/* COMM == "\\" (a string ending in an escaped backslash): a NULL pointer */
		if (memchr(s->p + 1, '\\', (size_t)(end - s->p - 1)))
			return fail(s, "a backslash in a string (libtraceevent 1.7 crashes on some escapes)");
		if (op[0] == '<' || op[0] == '>')
			return fail(s, "a string after <, <=, > or >=");
		s->p = end + 1;
		return true;
	}
	if (op[1] == '~' || op[0] == '~')
		return fail(s, "=~, !~ and ~ take a quoted string");
	if (*s->p == '-') {
		if (!first)
			return fail(s, "a negative number after && or || "
				       "(put that comparison in parentheses)");
		s->p++;
	}
	return number(s);
}

static bool cond(struct fscan *s);

static bool clause(struct fscan *s, bool first)
{
	skip_spaces(s);
	if (*s->p == '!') {
		s->p++;
		skip_spaces(s);
		if (*s->p == '!')
			return fail(s, "'!' twice");
	}
	if (*s->p != '(')
		return cmp(s, first);
	if (++s->depth > FILTER_DEPTH)
		return fail(s, "parentheses nested too deep");
	s->p++;
	if (!cond(s))
		return false;
	skip_spaces(s);
	if (*s->p != ')')
		return fail(s, "a ')' expected");
	s->p++;
	s->depth--;
	return true;
}

static bool cond(struct fscan *s)
{
	if (!clause(s, true))
		return false;
	for (;;) {
		skip_spaces(s);
		if (strncmp(s->p, "&&", 2) && strncmp(s->p, "||", 2))
			return true;
		s->p += 2;
		if (!clause(s, false))
			return false;
	}
}

/* Why @expr is not in the grammar (s->p: where), or NULL. */
static const char *filter_flaw(const char *expr, struct fscan *s)
{
	const unsigned char *c;

	for (c = (const unsigned char *)expr; *c; c++)
		if (*c < 0x20 || *c > 0x7e) {	/* a tab too: a NULL pointer in a string */
			s->p = (const char *)c;
			return "a byte that is not printable ASCII";
		}
	if (!(s->p = strchr(expr, ':')))
		return NULL;	/* event names only */
	/* libtraceevent takes any ',' for the end of an event name: malloc(-N) */
	if (strchr(s->p, ',')) {
		s->p = strchr(s->p, ',');
		return "a ',' after the ':' (libtraceevent cannot read one there, even quoted)";
	}
	s->p++;
	if (!cond(s))
		return s->why;
	skip_spaces(s);
	if (*s->p == ')')
		return "a ')' with no '('";
	return *s->p ? "&&, || or the end expected after a condition" : NULL;
}

/**
 * tep_guard_filter() - why a -F filter is not safe to hand to libtraceevent
 * @expr: the filter, "EVENTS" or "EVENTS:CONDITION"
 * @at: if not NULL, set to the offset in @expr where it goes wrong
 *
 * Return: NULL if @expr is in the grammar above, else a short reason for
 * the user.
 */
const char *tep_guard_filter(const char *expr, size_t *at)
{
	struct fscan s = { 0 };
	const char *why = filter_flaw(expr, &s);

	if (at)
		*at = why && s.p ? (size_t)(s.p - expr) : 0;
	return why;
}
