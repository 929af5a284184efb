/*
 * t-fields.c - unit tests of ttype_fits() (libfmt/fields.c), the check
 * every structured writer's events pass through: real records from the
 * captures fit their formats; the same records cut short, or with a
 * __data_loc word pointing past their end, do not, and the reason names
 * the field; a kernel stack has the callers its record holds, more or
 * fewer than its caller[8].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "internal.h"
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
	ok(t->dynamic, "and the type says it has a dynamic field");
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

	ok(!t->dynamic && t->need == np->offset + np->size, "sched_switch needs every byte up to next_prio");
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

int main(void)
{
	check_dynamic();
	check_fixed();
	check_stacks();
	return done_testing();
}
