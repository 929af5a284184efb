/*
 * t-fields.c - unit tests of ttype_fits() (libfmt/read/fields.c), the check
 * every structured writer's events pass through: real records from the
 * captures fit their formats; the same records cut short, or with a
 * __data_loc word pointing past their end, do not, and the reason names
 * the field; a kernel stack has the callers its record holds, more or
 * fewer than its caller[8].  ttype_overlong(), the check every record read
 * passes through: a record longer than its fields make it is too long, no
 * record of a real capture is.  The ftrace formats of 4.x kernels
 * (old-kernel.dat): a last field of size 0 is read as the flexible array
 * newer kernels declare, and bprint has its message as a field.  Fields
 * the print format prints with %ps, %pS, ... are marked so, and their
 * symbol is what libtraceevent's printer makes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "read/read.h"
#include "../tap.h"

/* The first event named @event in testdata/@file, its data copied (so that it can be damaged). */
struct sample {
	struct tdat_file *f;
	struct tdat_merge *m;
	struct tdat_event ev;
	const struct ttype *t;
	unsigned char buf[4096];
};

static void sample_open(struct sample *s, const char *file, const char *event)
{
	const struct tdat_event *ev;

	s->f = tdat_file_new();
	if (tdat_file_open(s->f, tap_testdata(file), NULL))
		bail_out("cannot open %s: %s", tap_testdata(file), tdat_file_errmsg(s->f));
	s->m = tdat_merge_new();
	if (!s->m || tdat_merge_add(s->m, s->f))
		bail_out("cannot merge %s", file);
	while (tdat_merge_next(s->m, &ev) == 0) {
		s->t = file_type(ev->file, ev);
		if (!s->t || strcmp(s->t->name, event) || ev->size > sizeof(s->buf))
			continue;
		s->ev = *ev;
		memcpy(s->buf, ev->data, ev->size);
		s->ev.data = s->buf;
		return;
	}
	bail_out("no %s event in %s", event, file);
}

static void sample_close(struct sample *s)
{
	tdat_merge_free(s->m);
	tdat_file_free(s->f);
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);	/* the captures are little-endian, as this machine */
}

/* The record cut inside @f (4 bytes): it does not fit, and why names @f. */
static void cut_inside(struct sample *s, const struct tfield *f, const char *what)
{
	char why[256], want[256];

	s->ev.size = f->offset + 2;
	snprintf(want, sizeof(want), "field %s at offset %u, 4 bytes, is past the end of the %u-byte "
		 "record", f->name, f->offset, s->ev.size);
	ok(!ttype_fits(s->t, &s->ev, why, sizeof(why)), "a record that ends inside %s does not fit", what);
	is_str(why, want, "and why names it");
}

static void check_dynamic(void)
{
	static struct sample s;
	struct tdat_event *ev = &s.ev;
	const struct ttype *t;
	const struct tfield *fn;
	const unsigned char *p;
	unsigned len;
	char why[256], want[256];

	sample_open(&s, "v6.dat", "sched_process_exec");
	t = s.t;
	fn = ttype_field(t, "filename");
	ok(fn && (fn->flags & TEP_FIELD_IS_DYNAMIC), "sched_process_exec's filename is a __data_loc");
	ok(t->dyn_lo <= fn - t->fields && fn - t->fields < t->dyn_hi,
	   "and the type's range of dynamic fields holds it");
	ok(ttype_fits(t, ev, why, sizeof(why)), "the real record fits");
	ok(tfield_bytes(ev, fn, &p, &len) && len == strlen("/usr/bin/sh") && !memcmp(p, "/usr/bin/sh", len),
	   "and its filename is read");

	put32(s.buf + fn->offset, 0xffffu << 16 | 8);
	snprintf(want, sizeof(want), "the data of field filename, at offset 8, 65535 bytes, is past the "
		 "end of the %u-byte record", ev->size);
	ok(!ttype_fits(t, ev, why, sizeof(why)), "a __data_loc length past the end does not fit");
	is_str(why, want, "and why names the field, where and how long");
	ok(!tfield_bytes(ev, fn, &p, &len), "the field is not read");

	put32(s.buf + fn->offset, 1u << 16 | 0xfff0);
	ok(!ttype_fits(t, ev, why, sizeof(why)), "a __data_loc offset past the end does not fit");

	put32(s.buf + fn->offset, (ev->size - 8) << 16 | 8);
	ok(ttype_fits(t, ev, why, sizeof(why)), "data that ends at the record's end fits");

	cut_inside(&s, fn, "the __data_loc word");
	sample_close(&s);
}

static void check_fixed(void)
{
	static struct sample s;
	struct tdat_event *ev = &s.ev;
	const struct ttype *t;
	const struct tfield *np;
	char why[256];

	sample_open(&s, "v6.dat", "sched_switch");
	t = s.t;
	np = ttype_field(t, "next_prio");

	ok(t->dyn_lo == t->dyn_hi && t->need == np->offset + np->size, "sched_switch needs every byte up to next_prio");
	ok(ttype_fits(t, ev, why, sizeof(why)), "the real record fits");
	cut_inside(&s, np, "its last field");
	ev->size = 6;
	ok(!ttype_fits(t, ev, why, sizeof(why)), "cut inside the common fields, it does not fit");
	ok(strstr(why, "field common_") != NULL, "and why names a common field (%s)", why);
	sample_close(&s);
}

/*
 * kernel_stack's callers: as many as its size field says (what the record
 * holds), fewer or more than caller[8]; short ones fit.
 */
static void check_stacks(void)
{
	static struct sample s;
	const struct tdat_event *e = &s.ev;
	const struct tfield *caller, *size;
	const unsigned char *p;
	unsigned len;
	uint64_t n;
	char why[256];
	int nshort = 0, nlong = 0, nfit = 0, nright = 0, total = 0;

	sample_open(&s, "stack.dat", "kernel_stack");
	caller = ttype_field(s.t, "caller");
	size = ttype_field(s.t, "size");
	if (!ok(caller && size && caller->stack, "kernel_stack's caller is read as a stack"))
		return;
	do {
		if (file_type(e->file, e) != s.t)
			continue;
		total++;
		nshort += e->size < caller->offset + caller->size;
		nlong += e->size > caller->offset + caller->size;
		nfit += ttype_fits(s.t, e, why, sizeof(why));
		nright += tfield_num(e, size, &n) && tfield_bytes(e, caller, &p, &len) && len == n * 8;
	} while (tdat_merge_next(s.m, &e) == 0);
	ok(nshort > 0 && nlong > 0, "stack.dat has stacks shorter (%d) and longer (%d) than 8", nshort, nlong);
	is_int(nfit, total, "every stack fits");
	is_int(nright, total, "every stack has as many callers as its size field says");
	sample_close(&s);
}

#define ALIGN8(x) (((x) + 7) & ~7u)

/*
 * ttype_overlong(): a record longer than its type's fields (and dynamic
 * data), rounded as the ring buffer rounds, plus 8, has a damaged length;
 * one of ftrace's own events (sized by their text or stack) never does.
 */
static void check_overlong(void)
{
	static struct sample s;
	struct tdat_event *ev = &s.ev;
	const struct tfield *fn;
	unsigned extra = 0, real, at, len, bound;
	bool long_one;
	uint32_t loc;

	sample_open(&s, "v6.dat", "sched_switch");
	real = ev->size;
	bound = ALIGN8((unsigned)s.t->fixed_end) + 8;
	ok(s.t->bounded && real <= bound, "sched_switch is bounded, its real record (%u) within %u", real, bound);
	ok(!ttype_overlong(s.t, ev, &extra), "the real record is not too long");
	ev->size = bound;
	ok(!ttype_overlong(s.t, ev, &extra), "nor one of %u bytes", bound);
	ev->size = bound + 36;
	long_one = ttype_overlong(s.t, ev, &extra);
	ok(long_one && extra == 36, "one of %u is, by 36 bytes (%u)", ev->size, extra);
	sample_close(&s);

	sample_open(&s, "v6.dat", "sched_process_exec");
	fn = ttype_field(s.t, "filename");
	memcpy(&loc, s.buf + fn->offset, 4);
	at = loc & 0xffff;
	len = loc >> 16;
	bound = ALIGN8(at + len > ALIGN8((unsigned)s.t->fixed_end) ? at + len : (unsigned)s.t->fixed_end) + 8;
	ok(!ttype_overlong(s.t, ev, &extra), "sched_process_exec's real record is not too long");
	ev->size = bound;
	ok(!ttype_overlong(s.t, ev, &extra), "nor one that ends 8 bytes past its filename, rounded (%u)", bound);
	ev->size = bound + 8;
	extra = 0;
	long_one = ttype_overlong(s.t, ev, &extra);
	ok(long_one && extra == 8, "8 bytes more are too long (%u)", extra);
	put32(s.buf + fn->offset, (bound + 8 - at) << 16 | at);
	ok(!ttype_overlong(s.t, ev, &extra), "unless its filename says it runs to the end");
	sample_close(&s);

	sample_open(&s, "stack.dat", "kernel_stack");
	ev->size = 4000;
	ok(!s.t->bounded && !ttype_overlong(s.t, ev, &extra), "a kernel stack is never too long");
	sample_close(&s);
	sample_open(&s, "markers.dat", "print");
	ev->size = 4000;
	ok(!s.t->bounded && !ttype_overlong(s.t, ev, &extra), "nor a marker");
	sample_close(&s);
}

/* The type of id @id in @s's file (no record of it needed), built from a made-up header. */
static const struct ttype *type_by_id(struct sample *s, unsigned id)
{
	static unsigned char rec[8];
	struct tdat_event ev = { .file = s->f, .data = rec, .size = sizeof(rec) };

	rec[0] = (unsigned char)id;
	rec[1] = (unsigned char)(id >> 8);
	return file_type(s->f, &ev);
}

static void field_is(const struct ttype *t, const char *name, enum tkind kind, unsigned elem,
		     const char *what)
{
	const struct tfield *f = ttype_field(t, name);

	if (!ok(f && f->kind == kind && f->elem == elem, "%s: %s.%s is %s of %u-byte elements", what,
		t->name, name, kind == TK_STR ? "a string" : "an array", elem) && f)
		diag("kind %d, elements of %u bytes", (int)f->kind, f->elem);
}

/*
 * 4.x kernels: "char buf; size:0" is print's text to the end of the record,
 * up to its NUL (the bytes after it are not cleared); "u32 buf; size:0" is
 * bprint's words, "unsigned long caller; size:0" kernel_stack's callers;
 * all as newer kernels' "[]" spellings give them.
 */
static void check_old_formats(void)
{
	static struct sample s, m;
	const unsigned char *p, *q;
	unsigned len, mlen;
	const struct tfield *f;

	sample_open(&s, "old-kernel.dat", "print");
	sample_open(&m, "atrace.dat", "print");
	field_is(s.t, "buf", TK_STR, 1, "char buf, size 0");
	len = mlen = 0;
	if (!tfield_bytes(&s.ev, ttype_field(s.t, "buf"), &p, &len) ||
	    !tfield_bytes(&m.ev, ttype_field(m.t, "buf"), &q, &mlen))
		len = UINT32_MAX;
	ok(len == mlen && mlen > 0 && !memcmp(p, q, len), "the first marker's text is the modern capture's "
	   "(%u bytes)", mlen);
	ok(s.ev.size > ttype_field(s.t, "buf")->offset + len + 1 && s.buf[s.ev.size - 1],
	   "though bytes that are not 0 follow its NUL");
	field_is(type_by_id(&s, 4), "caller", TK_ARRAY, 8, "unsigned long caller, size 0");
	f = ttype_field(type_by_id(&s, 4), "caller");
	ok(f && f->stack, "is a kernel stack's callers");
	field_is(type_by_id(&s, 19), "buf", TK_STR, 1, "raw_data's char buf, size 0");
	sample_close(&m);
	sample_close(&s);

	sample_open(&s, "old-kernel.dat", "bprint");
	field_is(s.t, "buf", TK_ARRAY, 1, "u32 buf, size 0");
	len = 0;
	tfield_bytes(&s.ev, ttype_field(s.t, "buf"), &p, &len);
	ok(len > 0 && len == s.ev.size - 24, "runs to the end of the record (%u bytes)", len);
	f = ttype_field(s.t, "msg");
	ok(f && f == &s.t->fields[s.t->nfields - 1] && f->kind == TK_STR, "bprint's last field is msg");
	ok(f && tfield_bytes(&s.ev, f, &p, &len) && len == 37 &&
	   !memcmp(p, "tdat_bprint: step=pre pid=10736 cpu=0", len),
	   "the message trace-cmd prints after the ip");
	ok(!tfield_num(&s.ev, f, &(uint64_t){ 0 }), "which is no number");
	sample_close(&s);
}

/* The type of @sys:@name in @s's file (no record of it needed); NULL if it has no format. */
static const struct ttype *type_named(struct sample *s, const char *sys, const char *name)
{
	struct tep_event *e = tep_find_event_by_name(s->f->tep, sys, name);

	return e ? type_by_id(s, (unsigned)e->id) : NULL;
}

static void sym_is(struct sample *s, const char *sys, const char *name, const char *field,
		   enum tsym want)
{
	const struct ttype *t = type_named(s, sys, name);
	const struct tfield *f = t ? ttype_field(t, field) : NULL;

	if (!ok(f && f->sym == want, "%s:%s prints %s as %s", sys, name, field,
		want == TSYM_NONE ? "no symbol" : want == TSYM_NAME ? "a name (%ps)" :
		want == TSYM_OFFSET ? "name+0xOFF (%pS)" : "a stack"))
		diag("got %d", f ? (int)f->sym : -1);
}

/*
 * A made-up kfree record whose call_site is @addr: tfield_sym() gives what
 * libtraceevent's own printer (its %pS) prints after "call_site=".
 */
static void sym_as_printed(struct sample *s, uint64_t addr, const char *what)
{
	const struct ttype *t = type_named(s, "kmem", "kfree");
	const struct tfield *f = ttype_field(t, "call_site");
	static unsigned char rec[64];
	struct tdat_event ev = { .file = s->f, .data = rec, .size = (unsigned)t->need };
	struct tep_record r = { .data = rec, .size = (int)t->need };
	struct trace_seq seq;
	const char *p, *at;
	unsigned len = 0;

	memset(rec, 0, sizeof(rec));
	rec[0] = (unsigned char)t->id;
	rec[1] = (unsigned char)(t->id >> 8);
	memcpy(rec + f->offset, &addr, 8);
	ok(tfield_sym(t, &ev, f, &p, &len), "%s: call_site_sym is made", what);
	trace_seq_init(&seq);
	tep_print_event(s->f->tep, &seq, &r, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	at = strstr(seq.buffer, "call_site=");
	if (!ok(at && !strncmp(at + 10, p, len) && at[10 + len] == ' ',
		"%s: %.*s, as libtraceevent prints it", what, (int)len, p))
		diag("libtraceevent: %s", seq.buffer);
	trace_seq_destroy(&seq);
}

/*
 * Fields printed as kernel symbols: the conversion each format gives them
 * (extract.dat holds every format of its kernel), and the text made.
 */
static void check_syms(void)
{
	static const struct {
		const char *sys, *name, *field;
		enum tsym want;
	} cases[] = {
		{ "kmem", "kmalloc", "call_site", TSYM_OFFSET },
		{ "kmem", "kmalloc", "ptr", TSYM_NONE },
		{ "kmem", "kfree", "call_site", TSYM_OFFSET },
		{ "timer", "timer_start", "function", TSYM_NAME },
		{ "timer", "timer_start", "timer", TSYM_NONE },
		{ "notifier", "notifier_run", "cb", TSYM_NAME },
		{ "initcall", "initcall_start", "func", TSYM_OFFSET },
		{ "ftrace", "function", "ip", TSYM_NAME },
		{ "ftrace", "function", "parent_ip", TSYM_NAME },
		{ "ftrace", "print", "ip", TSYM_NAME },
		{ "ftrace", "kernel_stack", "caller", TSYM_STACK },
		{ "sched", "sched_switch", "prev_pid", TSYM_NONE },
	};
	static struct sample s;
	uint64_t addr = 0;
	const char *k;

	sample_open(&s, "extract.dat", "sched_switch");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		sym_is(&s, cases[i].sys, cases[i].name, cases[i].field, cases[i].want);
	file_load_symbols(s.f);
	k = s.f->meta.kallsyms.data;
	for (; k && *k; k = strchr(k, '\n') ? strchr(k, '\n') + 1 : "") {
		char type;

		if (sscanf(k, "%" SCNx64 " %c", &addr, &type) == 2 && addr &&
		    (type == 't' || type == 'T'))
			break;
	}
	if (ok(addr != 0, "the file's kallsyms has a function (%#" PRIx64 ")", addr)) {
		sym_as_printed(&s, addr, "a function's first byte");
		sym_as_printed(&s, addr + 0x10, "16 bytes into it");
		sym_as_printed(&s, 0x10, "an address below every symbol");
	}
	sample_close(&s);
}

/* No event of a real capture is too long. */
static void check_captures_not_overlong(void)
{
	static const char *const files[] = { "v6.dat", "v7-zstd.dat", "two-buffers.dat", "markers.dat",
					     "stack.dat", "atrace.dat", "extract.dat", "chunks.dat",
					     "old-kernel.dat" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct tdat_file *f = tdat_file_new();
		struct tdat_merge *m = tdat_merge_new();
		const struct tdat_event *ev;
		unsigned extra;
		int n = 0, bad = 0, ndamage = -1;

		if (tdat_file_open(f, tap_testdata(files[i]), NULL) || !m || tdat_merge_add(m, f))
			bail_out("cannot read %s", files[i]);
		while (tdat_merge_next(m, &ev) == 0) {
			const struct ttype *t = file_type(ev->file, ev);

			n++;
			bad += t && ttype_overlong(t, ev, &extra);
		}
		tdat_merge_damage(m, &ndamage);
		ok(n > 0 && !bad && !ndamage, "%s: none of its %d events is too long (%d), no damage (%d)",
		   files[i], n, bad, ndamage);
		tdat_merge_free(m);
		tdat_file_free(f);
	}
}

int main(void)
{
	check_dynamic();
	check_fixed();
	check_stacks();
	check_overlong();
	check_captures_not_overlong();
	check_old_formats();
	check_syms();
	return done_testing();
}
