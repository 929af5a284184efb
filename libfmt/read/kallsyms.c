// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kallsyms.c - a trace's kallsyms section into libtraceevent's function
 * map, as tep_parse_kallsyms() (libtraceevent 1.7) would put it, faster.
 *
 * That function reads each line with sscanf(), about 2,000 instructions a
 * line: for a machine's 150,000 symbols a tenth of a second in every run
 * that names a kernel symbol.  Here a line of the plain shape the kernel
 * writes, "ADDR T name" or "ADDR t name\t[module]" (1 to 16 hex digits,
 * single spaces, no other whitespace), is read by hand, with the same
 * result sscanf() gives it; at the first line of any other shape, the rest
 * of the text from that line goes to tep_parse_kallsyms() itself, which
 * then does what it always does, stopping at a line it cannot read.  Lines
 * are what strtok_r(.., "\n") makes: empty ones are skipped.
 *
 * kallsyms_load() also makes libtraceevent's sorted map of them at once,
 * with address space set aside for it: libtraceevent makes it at the first lookup
 * and does not check that its allocation worked, so that out of memory
 * every later lookup would search a NULL map of func_count entries.
 *
 * kallsyms_share() lets a worker's handle look functions up in another
 * handle's map instead of holding a copy (12 MiB for a common kernel).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <traceevent/event-parse.h>

#include "read/kallsyms.h"

/* sscanf()'s whitespace (isspace() of the C locale). */
static bool ws(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

struct ksym {
	uint64_t addr;
	char type;
	const char *func, *mod;	/* mod NULL: none */
	size_t func_len, mod_len;
};

/*
 * Line @p[0, @n) of the plain shape into @k; false for any other shape.
 * For such a line sscanf("%16llx %c %n%*s%n%*1[\t][%n%*s%n") reads the
 * address, the type, the name up to the end or the tab, and the module
 * between "\t[" and the line's last byte.
 */
static bool plain_line(const char *p, size_t n, struct ksym *k)
{
	size_t i = 0;
	int d;

	for (k->addr = 0; i < n && i < 16 && (d = hex_digit(p[i])) >= 0; i++)
		k->addr = k->addr << 4 | (uint64_t)d;
	if (!i || i + 3 > n || p[i] != ' ' || ws(p[i + 1]) || p[i + 2] != ' ')
		return false;
	k->type = p[i + 1];
	k->func = p + i + 3;
	for (i += 3; i < n && !ws(p[i]); i++)
		;
	k->func_len = (size_t)(p + i - k->func);
	k->mod = NULL;
	if (!k->func_len)
		return false;
	if (i == n)
		return true;
	if (i + 2 >= n || p[i] != '\t' || p[i + 1] != '[')
		return false;
	k->mod = p + i + 2;
	for (i += 2; i < n && !ws(p[i]); i++)
		;
	if (i != n)
		return false;
	k->mod_len = (size_t)(p + i - k->mod) - 1;	/* its last byte (the ']') cut */
	return true;
}

/*
 * tep_register_function() of @k, unless tep_parse_kallsyms() leaves it out;
 * -1 out of memory (then *@lost: it was not registered).
 */
static int add(struct tep_handle *tep, const struct ksym *k, char **buf, size_t *cap, bool *lost)
{
	size_t need = k->func_len + 1 + (k->mod ? k->mod_len + 1 : 0);
	char *f, *m = NULL;

	/* arm's bogus '$a' symbols, x86-64's per-CPU offsets */
	if (k->func[0] == '$' || k->type == 'A' || k->type == 'a')
		return 0;
	if (need > *cap) {
		char *b = realloc(*buf, need * 2);

		if (!b) {
			*lost = true;
			return -1;
		}
		*buf = b;
		*cap = need * 2;
	}
	f = *buf;
	memcpy(f, k->func, k->func_len);
	f[k->func_len] = '\0';
	if (k->mod) {
		m = f + k->func_len + 1;
		memcpy(m, k->mod, k->mod_len);
		m[k->mod_len] = '\0';
	}
	if (tep_register_function(tep, f, k->addr, m))	/* out of memory; ignored there */
		*lost = true;
	return 0;
}

/* kallsyms_parse(); *@lost if a function was not registered for want of memory. */
static int parse(struct tep_handle *tep, const char *text, bool *lost)
{
	const char *p = text;
	char *buf = NULL;
	size_t cap = 0;
	int ret = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		struct ksym k;

		if (!n) {
			p++;
			continue;
		}
		if (!plain_line(p, n, &k)) {
			ret = tep_parse_kallsyms(tep, p);
			break;
		}
		if (add(tep, &k, &buf, &cap, lost)) {
			ret = -1;
			break;
		}
		p += n;
	}
	free(buf);
	return ret;
}

int kallsyms_parse(struct tep_handle *tep, const char *text)
{
	bool lost = false;

	return parse(tep, text, &lost);
}

/* Lines of @text: at least the functions it registers. */
static size_t lines(const char *text)
{
	size_t n = 1;

	for (const char *p = text; (p = strchr(p, '\n')); p++)
		n++;
	return n;
}

/* libtraceevent's entry of its function map: an address, the name, the module. */
#define FUNC_MAP_ENTRY (sizeof(unsigned long long) + 2 * sizeof(char *))

/*
 * The memory is set aside as a mapping of its own, not with malloc(): a
 * block that large would be mapped by malloc too, and its free() would
 * raise malloc's threshold for mapping blocks (glibc's is dynamic), so that
 * every later buffer under it came from the heap, which grows and does not
 * shrink.  The margin is for the heap's own growth when the map comes
 * from it.
 */
int kallsyms_load(struct tep_handle *tep, const char *text)
{
	size_t size = (lines(text) + 1) * FUNC_MAP_ENTRY + ((size_t)256 << 10);
	void *room = mmap(NULL, size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	bool lost = false;
	int ret;

	if (room == MAP_FAILED)
		return -2;	/* nothing registered */
	ret = parse(tep, text, &lost);
	munmap(room, size);	/* for the map, made now from the functions registered */
	tep_find_function(tep, 0);
	return lost ? -2 : ret;
}

#define MAX_ATOMS 32

/* Atoms that libtraceevent may look up among its functions by name, each once. */
struct atoms {
	const char *name[MAX_ATOMS];
	int n;
	bool over;	/* more than MAX_ATOMS */
};

/* An atom test_for_symbol() would look up: one that does not begin with a digit and reads as 0. */
static void atom(struct atoms *at, const char *name)
{
	if (!name || isdigit((unsigned char)name[0]) || strtoull(name, NULL, 0))
		return;
	for (int i = 0; i < at->n; i++)
		if (!strcmp(at->name[i], name))
			return;
	if (at->n == MAX_ATOMS)
		at->over = true;
	else
		at->name[at->n++] = name;
}

static void gather(const struct tep_print_arg *a, struct atoms *at, int depth);

/* The arguments @a holds, whatever its kind. */
static void gather_in(const struct tep_print_arg *a, struct atoms *at, int depth)
{
	switch (a->type) {
	case TEP_PRINT_ATOM:
		atom(at, a->atom.atom);
		break;
	case TEP_PRINT_FLAGS:
		gather(a->flags.field, at, depth);
		break;
	case TEP_PRINT_SYMBOL:
		gather(a->symbol.field, at, depth);
		break;
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
		gather(a->hex.field, at, depth);
		gather(a->hex.size, at, depth);
		break;
	case TEP_PRINT_INT_ARRAY:
		gather(a->int_array.field, at, depth);
		gather(a->int_array.count, at, depth);
		gather(a->int_array.el_size, at, depth);
		break;
	case TEP_PRINT_TYPE:
		gather(a->typecast.item, at, depth);
		break;
	case TEP_PRINT_OP:
		gather(a->op.left, at, depth);
		gather(a->op.right, at, depth);
		break;
	case TEP_PRINT_FUNC:
		gather(a->func.args, at, depth);
		break;
	case TEP_PRINT_DYNAMIC_ARRAY:
		gather(a->dynarray.index, at, depth);
		break;
	default:
		break;
	}
}

/* Every argument of @a's list, into @at. */
static void gather(const struct tep_print_arg *a, struct atoms *at, int depth)
{
	for (; a && !at->over; a = a->next) {
		if (depth > 64)
			at->over = true;
		else
			gather_in(a, at, depth + 1);
	}
}

/*
 * Whether a line of @text may register a function named as one of @at:
 * a plain line's name is compared; at a line of another shape, whose rest
 * tep_parse_kallsyms() would read, true.
 */
static bool named(const char *text, const struct atoms *at)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		struct ksym k;

		if (n && !plain_line(p, n, &k))
			return true;
		for (int i = 0; n && i < at->n; i++)
			if (!strncmp(at->name[i], k.func, k.func_len) && !at->name[i][k.func_len])
				return true;
		p += n + (nl != NULL);
	}
	return false;
}

/* The resolver: @from's function at *@addrp and its start, as its own map finds them. */
static char *lookup(void *from, unsigned long long *addrp, char **modp)
{
	unsigned long long start = 0;
	const char *name = NULL;

	(void)modp;	/* libtraceevent 1.7 prints no module */
	if (!tep_find_function_info(from, *addrp, &name, &start, NULL))
		return NULL;
	*addrp = start;
	return (char *)name;
}

bool kallsyms_shareable(struct tep_handle *tep, const char *text)
{
	struct atoms at = { .n = 0 };

	for (int i = 0; i < tep_get_events_count(tep); i++) {
		struct tep_event *ev = tep_get_event(tep, i);

		if (ev)
			gather(ev->print_fmt.args, &at, 0);
	}
	return !at.over && !(at.n && named(text, &at));
}

int kallsyms_share(struct tep_handle *tep, struct tep_handle *from)
{
	return tep_set_function_resolver(tep, lookup, from) ? -1 : 0;
}
