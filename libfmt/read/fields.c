/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fields.c - typed access to event fields for every export.  For each event
 * type of a file, a table of its own fields (offset, size, kind) is built
 * once from the format libtraceevent parsed, and values are then read
 * straight from the event payload with bounds checks: numbers sign-extended
 * or not as the format says, strings up to their NUL, dynamic (__data_loc,
 * __rel_loc) and flexible arrays resolved.  A last field of size 0 holds the
 * rest of the record, and ftrace:bprint gets its formatted message as one
 * more string field.  Fields the print format prints as kernel symbols
 * (%ps, %pS, ...; a stack's callers) are marked, and their symbols made as
 * the text output prints them.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "read/read.h"

/*
 * The symbol text of a type's fields (tfield_sym), and the texts of the
 * addresses it made last, direct-mapped by address: a search of the
 * symbols and a printf cost more than the rest of a row, and call sites
 * repeat.  A type is one file's, read on one thread (a -j worker's
 * files are its own), like its buffer.
 */
#define SYM_KEPT 512		/* texts kept per type, made on the first */
#define SYM_KEPT_TEXT 54	/* with the NUL: longer ones are made each time */
struct tsymtext {
	char *buf;
	size_t len, cap;
	struct sym_kept {
		uint64_t addr;
		unsigned char how;	/* enum tsym; TSYM_NONE: an empty slot */
		unsigned char len;
		char text[SYM_KEPT_TEXT];
	} *kept;
};

/* What formats ftrace:bprint's message, per type of a file. */
struct tmsg {
	struct tep_event *event;
	const struct tfield *ip;
	struct tep_guard_type guard;
	struct trace_seq seq;
	struct tep_record rec;
};

static enum tkind kind_of(unsigned long flags, int size)
{
	if (flags & TEP_FIELD_IS_STRING)
		return TK_STR;
	if (flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))
		return TK_ARRAY;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return TK_ARRAY;
	if (flags & TEP_FIELD_IS_POINTER)
		return TK_PTR;
	return (flags & TEP_FIELD_IS_SIGNED) ? TK_INT : TK_UINT;
}

/*
 * @tail: @fl is the last field and has size 0.  Kernels before the format
 * files spelt flexible arrays "[]" (4.x: "field:char buf; offset:16;
 * size:0;" for ftrace:print, "field:u32 buf; offset:24; size:0;" for
 * bprint, "unsigned long caller; ... size:0;" for kernel_stack) declare the
 * data that runs to the end of the record so, and libtraceevent prints it
 * so: such a field is read as its newer spelling, "char buf[]", a string
 * when its elements are characters (libtraceevent's rule).  A flexible array
 * of longs has elements of the file's long size, other flexible arrays bytes.
 */
static void set_field(struct tfield *tf, const struct tep_format_field *fl, bool tail)
{
	unsigned long flags = fl->flags;

	if (tail) {
		flags |= TEP_FIELD_IS_ARRAY;
		if (strstr(fl->type, "char") || strstr(fl->type, "u8") || strstr(fl->type, "s8"))
			flags |= TEP_FIELD_IS_STRING;
	}
	tf->name = fl->name;
	tf->offset = (unsigned)fl->offset;
	tf->size = (unsigned)fl->size;
	tf->elem = fl->elementsize > 0 ? (unsigned)fl->elementsize : 1;
	tf->flags = flags;
	tf->kind = kind_of(flags, fl->size);
	if (tf->kind != TK_ARRAY || (flags & TEP_FIELD_IS_DYNAMIC))
		return;
	if (!tf->size && (flags & TEP_FIELD_IS_ARRAY) && (flags & TEP_FIELD_IS_LONG) && fl->event &&
	    fl->event->tep)
		tf->elem = (unsigned)tep_get_long_size(fl->event->tep);
	else if (tf->size == 0 || !(flags & TEP_FIELD_IS_ARRAY))
		tf->elem = 1;
}

/* The last field of @e if it has size 0 and is not yet an array or dynamic; else NULL. */
static const struct tep_format_field *size0_tail(const struct tep_event *e)
{
	const struct tep_format_field *fl, *last = NULL;

	for (fl = e ? e->format.fields : NULL; fl; fl = fl->next)
		if (!last || fl->offset >= last->offset)
			last = fl;
	if (!last || last->size || (last->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
		return NULL;
	for (fl = e->format.fields; fl; fl = fl->next)
		if (fl != last && fl->offset + fl->size > last->offset)
			return NULL;
	return last;
}

/*
 * Where a fixed field must end for its value to be shown: a static array
 * may hang RECORD_SLACK bytes over (kernel_stack's caller[8] holds fewer
 * entries when the stack is short: those it holds are shown), as long as
 * it starts inside.
 */
static uint64_t field_end(const struct tfield *f)
{
	uint64_t end = (uint64_t)f->offset + f->size;

	if ((f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC))
		end = end > (uint64_t)f->offset + RECORD_SLACK ? end - RECORD_SLACK : f->offset;
	return end;
}

/*
 * The record size every fixed field of @t fits in, where they end; where
 * the dynamic ones lie, and whether the fields bound the record's length.
 */
static void learn_extent(struct ttype *t)
{
	const struct tfield *common[3] = { &t->pid, &t->cflags, &t->preempt };

	t->bounded = t->event && strcmp(t->system, "ftrace");
	for (int i = 0; i < 3 + t->nfields; i++) {
		const struct tfield *f = i < 3 ? common[i] : &t->fields[i - 3];

		if (!f->name)
			continue;
		if (field_end(f) > t->need)
			t->need = field_end(f);
		if ((uint64_t)f->offset + f->size > t->fixed_end)
			t->fixed_end = (uint64_t)f->offset + f->size;
		if ((f->flags & TEP_FIELD_IS_DYNAMIC) && i >= 3) {
			t->dyn_lo = t->dyn_hi ? t->dyn_lo : i - 3;
			t->dyn_hi = i - 3 + 1;
		}
		if (f->stack || ((f->flags & TEP_FIELD_IS_ARRAY) && !f->size))
			t->bounded = false;
	}
}

/*
 * The kernel writes as many return addresses into a kernel_stack event as
 * the stack has, whatever its format says (caller[8]), and trace-cmd prints
 * them all: the callers are read the same way.
 */
static void mark_stack(struct ttype *t)
{
	struct tfield *f;

	if (strcmp(t->system, "ftrace") || strcmp(t->name, "kernel_stack"))
		return;
	for (f = t->fields; f < t->fields + t->nfields; f++)
		if (!strcmp(f->name, "caller") && (f->flags & TEP_FIELD_IS_ARRAY) &&
		    !(f->flags & TEP_FIELD_IS_DYNAMIC) && (f->elem == 4 || f->elem == 8))
			f->stack = true;
}

/* The field a print argument reads, through casts (REC->f, (void *)REC->f); else NULL. */
static const char *arg_field(const struct tep_print_arg *a)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	return a && a->type == TEP_PRINT_FIELD ? a->field.name : NULL;
}

/* Past the flags, width, precision and length of the conversion at @p; *@stars '*' read. */
static const char *conv_char(const char *p, int *stars)
{
	*stars = 0;
	p += strspn(p, "-+ #0");
	if (*p == '*' && ++*stars)
		p++;
	p += strspn(p, "0123456789");
	if (*p == '.') {
		p++;
		if (*p == '*' && ++*stars)
			p++;
		p += strspn(p, "0123456789");
	}
	return p + strspn(p, "hlLqjzt");
}

/* How the conversion whose letter is at @c prints its argument as a symbol. */
static enum tsym conv_sym(const char *c)
{
	if (c[0] != 'p' || !c[1])
		return TSYM_NONE;
	if (c[1] == 's' || c[1] == 'f')
		return TSYM_NAME;
	return strchr("SFB", c[1]) ? TSYM_OFFSET : TSYM_NONE;
}

/*
 * Mark the fields the print format prints with %ps, %pS, ... (the first
 * conversion of a field decides): each conversion takes the next argument,
 * after one for each '*' of its width and precision, as libtraceevent reads
 * them (none if libtraceevent could not parse the format).  kernel_stack's
 * callers are a stack (mark_stack()).
 */
static void mark_syms(struct ttype *t)
{
	bool parsed = t->event && !(t->event->flags & TEP_EVENT_FL_FAILED);
	const struct tep_print_arg *a = parsed ? t->event->print_fmt.args : NULL;
	const char *p = parsed ? t->event->print_fmt.format : NULL;
	struct tfield *f;
	int stars;

	while (p && (p = strchr(p, '%'))) {
		if (*++p == '%') {
			p++;
			continue;
		}
		p = conv_char(p, &stars);
		while (stars-- && a)
			a = a->next;
		if (!*p || !a)
			break;
		f = arg_field(a) ? (struct tfield *)ttype_field(t, arg_field(a)) : NULL;
		if (f && !f->sym && f->kind != TK_STR && f->kind != TK_ARRAY)
			f->sym = conv_sym(p);
		a = a->next;
		p++;
	}
	for (f = t->fields; f < t->fields + t->nfields; f++) {
		if (f->stack)
			f->sym = TSYM_STACK;
		t->nsyms += f->sym != TSYM_NONE;
	}
}

/*
 * ftrace:bprint's "msg": the text libtraceevent makes of the record through
 * the printk format its fmt field points to, which is a string field of no
 * kernel format.  NULL without memory.
 */
static struct tmsg *msg_new(struct ttype *t)
{
	struct tmsg *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	trace_seq_init(&m->seq);
	m->event = t->event;
	m->ip = ttype_field(t, "ip");
	t->fields[t->nfields++] = (struct tfield){ .name = "msg", .kind = TK_STR, .elem = 1, .msg = m };
	return m;
}

static void type_free(void *p)
{
	struct ttype *t = p;

	if (t && t->nfields && t->fields[t->nfields - 1].msg) {
		trace_seq_destroy(&t->fields[t->nfields - 1].msg->seq);
		free(t->fields[t->nfields - 1].msg);
	}
	if (t && t->symtext) {
		free(t->symtext->buf);
		free(t->symtext->kept);
		free(t->symtext);
	}
	free(t);
}

static struct ttype *build(struct tep_event *e, unsigned id)
{
	const struct tep_format_field *tail = size0_tail(e);
	bool bprint = e && (e->flags & TEP_EVENT_FL_ISBPRINT);
	struct tep_format_field *fl;
	struct ttype *t;
	int n = 0;

	for (fl = e ? e->format.fields : NULL; fl; fl = fl->next)
		n++;
	t = calloc(1, sizeof(*t) + sizeof(t->fields[0]) * (size_t)(n + bprint));
	if (!t)
		return NULL;
	t->id = id;
	t->event = e;
	t->system = e ? e->system : "";
	t->name = e ? e->name : "";
	for (fl = e ? e->format.common_fields : NULL; fl; fl = fl->next) {
		if (!strcmp(fl->name, "common_pid"))
			set_field(&t->pid, fl, false);
		else if (!strcmp(fl->name, "common_flags"))
			set_field(&t->cflags, fl, false);
		else if (!strcmp(fl->name, "common_preempt_count"))
			set_field(&t->preempt, fl, false);
	}
	for (fl = e ? e->format.fields : NULL; fl; fl = fl->next)
		if (strncmp(fl->name, "common_", 7))
			set_field(&t->fields[t->nfields++], fl, fl == tail);
	mark_stack(t);
	mark_syms(t);
	learn_extent(t);
	if (t->nsyms)
		t->symtext = calloc(1, sizeof(*t->symtext));
	if ((bprint && !msg_new(t)) || (t->nsyms && !t->symtext)) {
		type_free(t);
		return NULL;
	}
	return t;
}

const struct ttype *file_type_id(struct tdat_file *f, unsigned id)
{
	void **slot;

	f = meta_of(f);	/* the pieces of a split share what was made of each type */
	if ((!f->types && !(f->types = calloc(1, sizeof(*f->types)))) || !(slot = idtab_slot(f->types, id)))
		return NULL;
	if (!*slot)
		*slot = build(tep_find_event(f->tep, (int)id), id);
	return *slot;
}

const struct tfield *ttype_field(const struct ttype *t, const char *name)
{
	for (int i = 0; t && i < t->nfields; i++)
		if (!strcmp(t->fields[i].name, name))
			return &t->fields[i];
	return NULL;
}

void file_types_free(struct tdat_file *f)
{
	if (f->types)
		idtab_release(f->types, type_free);
	free(f->types);
	f->types = NULL;
}

/*
 * The bytes of a stack's entries: to the record's end or an entry whose low 32
 * bits are all ones, as trace-cmd's stack printer reads them.
 */
static unsigned stack_len(const struct tdat_event *ev, const struct tfield *f)
{
	const unsigned char *p = (const unsigned char *)ev->data + f->offset;
	unsigned n = 0, end = (ev->size - f->offset) / f->elem * f->elem;

	while (n < end && (uint32_t)field_raw(ev->file, p + n, f->elem) != UINT32_MAX)
		n += f->elem;
	return n;
}

/* Where the bytes of a string or array field lie in @ev; false if outside it. */
static bool extent(const struct tdat_event *ev, const struct tfield *f, unsigned *at, unsigned *len)
{
	uint64_t off = f->offset, n = f->size;
	uint32_t loc;

	if ((f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC) && off <= ev->size &&
	    (!n || off + n > ev->size))
		n = ev->size - off;	/* a flexible array, or one the record holds fewer entries of
				 * (kernel_stack's caller[8]): what the event has */
	if (f->stack && off <= ev->size)
		n = stack_len(ev, f);
	if ((f->flags & TEP_FIELD_IS_DYNAMIC) && off + (n > 4 ? n : 4) <= ev->size) {
		/* the word saying where the data is: length << 16 | offset */
		loc = (uint32_t)field_raw(ev->file, (const unsigned char *)ev->data + off, 4);
		off = (loc & 0xffff) + ((f->flags & TEP_FIELD_IS_RELATIVE) ? off + f->size : 0);
		n = loc >> 16;
	} else if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		n = n > 4 ? n : 4;
	}
	*at = (unsigned)off;
	*len = (unsigned)n;
	return off + n <= ev->size;
}

/*
 * bprint's message: libtraceevent prints "%ps: " and the printk format, so
 * the text after the ip as %ps shows it (its symbol, else 0x and hex), as
 * the text output prints it (no final newline, up to a NUL).  None for a
 * record the text output would not print through its format.
 */
static bool msg_text(const struct tdat_event *ev, struct tmsg *m, const unsigned char **p,
		     unsigned *len)
{
	struct tdat_file *f = ev->file;
	struct trace_seq *s = &m->seq;
	const char *sym, *at;
	char why[128], ip[40];
	uint64_t addr = 0;
	size_t n, k;

	if (tep_guard_record(&m->guard, m->event, ev->data, ev->size, false, why,
			     sizeof(why)))
		return false;
	file_load_symbols(f);
	m->rec = (struct tep_record){ .ts = ev->ts, .cpu = ev->cpu, .size = (int)ev->size,
				      .data = (void *)ev->data };
	trace_seq_reset(s);
	tep_print_event(f->tep, s, &m->rec, "%s", TEP_PRINT_INFO);
	if (s->state != TRACE_SEQ__GOOD)
		return false;
	n = strnlen(s->buffer, s->len);
	if (n && s->buffer[n - 1] == '\n' && n == s->len)
		n--;
	tfield_num(ev, m->ip, &addr);
	sym = tep_find_function(f->tep, addr);
	snprintf(ip, sizeof(ip), "0x%llx", (unsigned long long)addr);
	at = sym ? sym : ip;
	k = strlen(at);
	if (n >= k + 2 && !memcmp(s->buffer, at, k) && !memcmp(s->buffer + k, ": ", 2)) {
		*p = (const unsigned char *)s->buffer + k + 2;
		*len = (unsigned)(n - k - 2);
	} else {
		*p = (const unsigned char *)s->buffer;
		*len = (unsigned)n;
	}
	return true;
}

bool tfield_bytes(const struct tdat_event *ev, const struct tfield *f, const unsigned char **p,
		  unsigned *len)
{
	const unsigned char *d = ev->data;
	unsigned off, n;

	if (f->msg)
		return msg_text(ev, f->msg, p, len);
	if (!extent(ev, f, &off, &n))
		return false;
	if (f->kind == TK_STR) {
		const unsigned char *z = memchr(d + off, '\0', n);

		if (z)
			n = (unsigned)(z - (d + off));
	}
	*p = d + off;
	*len = n;
	return true;
}

int sym_format(struct tdat_file *f, uint64_t addr, enum tsym how, char *buf, size_t size)
{
	unsigned long long start = 0;
	const char *name = NULL;

	file_load_symbols(f);
	if (!tep_find_function_info(f->tep, addr, &name, &start, NULL) || !name)
		return snprintf(buf, size, how == TSYM_STACK ? "%llx" : "0x%llx",
				(unsigned long long)addr);
	if (how == TSYM_OFFSET)
		return snprintf(buf, size, "%s+0x%llx", name, (unsigned long long)addr - start);
	return snprintf(buf, size, "%s", name);
}

/* Room for @n more bytes in @s; false without memory. */
static bool sym_room(struct tsymtext *s, size_t n)
{
	size_t cap = s->cap ? s->cap : 128;
	char *b;

	if (s->len + n <= s->cap)
		return true;
	while (cap < s->len + n)
		cap *= 2;
	if (!(b = realloc(s->buf, cap)))
		return false;
	s->buf = b;
	s->cap = cap;
	return true;
}

/* Append @addr's symbol to @s (';' first if @sep); false without memory. */
static bool sym_put(struct tsymtext *s, struct tdat_file *f, uint64_t addr, enum tsym how, bool sep)
{
	int n = 0;

	if (sep) {
		if (!sym_room(s, 1))
			return false;
		s->buf[s->len++] = ';';
	}
	do {
		if (!sym_room(s, (size_t)n + 1))
			return false;
		n = sym_format(f, addr, how, s->buf + s->len, s->cap - s->len);
	} while (n >= 0 && (size_t)n >= s->cap - s->len);
	if (n < 0)
		return false;
	s->len += (size_t)n;
	return true;
}

/* The text of one address @addr (as sym_put() makes it), kept in @s's slots. */
static bool sym_one(struct tsymtext *s, struct tdat_file *f, uint64_t addr, enum tsym how,
		    const char **p, unsigned *len)
{
	struct sym_kept *k = NULL;

	if (s->kept || (s->kept = calloc(SYM_KEPT, sizeof(*s->kept)))) {
		k = &s->kept[((addr >> 4) ^ (addr >> 13) ^ (addr >> 22)) % SYM_KEPT];
		if (k->how == how && k->addr == addr) {
			*p = k->text;
			*len = k->len;
			return true;
		}
	}
	if (!sym_put(s, f, addr, how, false))
		return false;
	*p = s->buf ? s->buf : "";
	*len = (unsigned)s->len;
	if (k && s->len < SYM_KEPT_TEXT) {	/* with its NUL, as sym_put() leaves it */
		k->addr = addr;
		k->how = (unsigned char)how;
		k->len = (unsigned char)s->len;
		memcpy(k->text, *p, s->len);
		k->text[s->len] = '\0';
	}
	return true;
}

bool tfield_sym(const struct ttype *t, const struct tdat_event *ev, const struct tfield *f,
		const char **p, unsigned *len)
{
	struct tsymtext *s = t->symtext;
	struct tdat_file *file = ev->file;
	const unsigned char *d;
	unsigned n;
	uint64_t v;

	if (!f->sym || !s)
		return false;
	s->len = 0;
	if (f->stack) {
		if (!tfield_bytes(ev, f, &d, &n))
			return false;
		for (unsigned i = 0; i + f->elem <= n; i += f->elem)
			if (!sym_put(s, file, field_raw(file, d + i, f->elem), f->sym, i > 0))
				return false;
	} else {
		/* the address as read, not sign-extended (libtraceevent's (void *) cast) */
		if (!tfield_num(ev, f, &v))
			return false;
		if (f->size < 8)
			v &= (UINT64_C(1) << (8 * f->size)) - 1;
		return sym_one(s, file, v, f->sym, p, len);
	}
	*p = s->buf ? s->buf : "";
	*len = (unsigned)s->len;
	return true;
}

/* Whether @f can be shown; why not, if not. */
static bool field_fits(const struct tdat_event *ev, const struct tfield *f, char *why, size_t len)
{
	unsigned at, n;

	if (!f->name)
		return true;
	if (field_end(f) > ev->size) {
		snprintf(why, len, "field %.64s at offset %u, %u bytes, is past the end of the "
			 "%u-byte record", f->name, f->offset, f->size, ev->size);
		return false;
	}
	if ((f->flags & TEP_FIELD_IS_DYNAMIC) && !extent(ev, f, &at, &n)) {
		snprintf(why, len, "the data of field %.64s, at offset %u, %u bytes, is past the end "
			 "of the %u-byte record", f->name, at, n, ev->size);
		return false;
	}
	return true;
}

bool ttype_fits(const struct ttype *t, const struct tdat_event *ev, char *why, size_t len)
{
	const struct tfield *common[3] = { &t->pid, &t->cflags, &t->preempt };

	if (ev->size >= t->need) {	/* every fixed field fits: only the dynamic ones to see */
		for (int i = t->dyn_lo; i < t->dyn_hi; i++)
			if ((t->fields[i].flags & TEP_FIELD_IS_DYNAMIC) &&
			    !field_fits(ev, &t->fields[i], why, len))
				return false;
		return true;
	}
	for (int i = 0; i < 3; i++)
		if (!field_fits(ev, common[i], why, len))
			return false;
	for (int i = 0; i < t->nfields; i++)
		if (!field_fits(ev, &t->fields[i], why, len))
			return false;
	return true;
}

/*
 * The kernel reserves the event's structure (its fields, padded to at most 8
 * bytes) and the dynamic data after it; the ring buffer rounds that up to 4
 * bytes (8 on some machines) and stores one of 8 as 12.  Past 8 more bytes
 * than that, the length is damaged.
 */
#define OVERLONG_SLACK	8
#define ALIGN8(x)	(((x) + 7) & ~(uint64_t)7)

uint64_t ttype_sure_len(const struct ttype *t)
{
	return t->bounded ? ALIGN8(t->fixed_end) + OVERLONG_SLACK : UINT64_MAX;
}

bool ttype_overlong(const struct ttype *t, const struct tdat_event *ev, unsigned *extra)
{
	uint64_t end = ALIGN8(t->fixed_end);
	unsigned at, n;

	if (ev->size <= ttype_sure_len(t))
		return false;
	for (int i = t->dyn_lo; i < t->dyn_hi; i++)
		if ((t->fields[i].flags & TEP_FIELD_IS_DYNAMIC) && extent(ev, &t->fields[i], &at, &n) &&
		    (uint64_t)at + n > end)
			end = (uint64_t)at + n;
	end = ALIGN8(end) + OVERLONG_SLACK;
	if (ev->size <= end)
		return false;
	*extra = ev->size - (unsigned)end;
	return true;
}
