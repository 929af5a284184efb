/*
 * t-fields.c - unit tests of ttype_fits() (libfmt/fields.c), the check
 * every structured writer's events pass through: real records from the
 * captures fit their formats; the same records cut short, or with a
 * __data_loc word pointing past their end, do not, and the reason names
 * the field; a short kernel stack (fewer entries than caller[8]) fits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "internal.h"
#include "../tap.h"

static struct tdat_file *open_td(const char *name, struct tdat_merge **m)
{
	const char *top = getenv("TOP_SRCDIR");
	char path[4096];
	struct tdat_file *f = tdat_file_new();

	snprintf(path, sizeof(path), "%s/testdata/%s", top ? top : ".", name);
	if (tdat_file_open(f, path, NULL))
		bail_out("cannot open %s: %s", path, tdat_file_errmsg(f));
	*m = tdat_merge_new();
	if (!*m || tdat_merge_add(*m, f))
		bail_out("cannot merge %s", path);
	return f;
}

/* The first event named @event in @m, copied into @copy (its data into @buf). */
static const struct ttype *first_of(struct tdat_merge *m, const char *event, struct tdat_event *copy,
				    unsigned char *buf, size_t cap)
{
	const struct tdat_event *ev;
	const struct ttype *t;

	while (tdat_merge_next(m, &ev) == 0) {
		t = file_type(ev->file, ev);
		if (!t || strcmp(t->name, event) || ev->size > cap)
			continue;
		*copy = *ev;
		memcpy(buf, ev->data, ev->size);
		copy->data = buf;
		return t;
	}
	bail_out("no %s event", event);
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);	/* the captures are little-endian, as this machine */
}

static void check_dynamic(void)
{
	static unsigned char buf[4096];
	struct tdat_merge *m;
	struct tdat_file *f = open_td("v6.dat", &m);
	struct tdat_event ev;
	const struct ttype *t = first_of(m, "sched_process_exec", &ev, buf, sizeof(buf));
	const struct tfield *fn = ttype_field(t, "filename");
	const unsigned char *p;
	unsigned len;
	char why[256], want[256];

	ok(fn && (fn->flags & TEP_FIELD_IS_DYNAMIC), "sched_process_exec's filename is a __data_loc");
	ok(t->dynamic, "and the type says it has a dynamic field");
	ok(ttype_fits(t, &ev, why, sizeof(why)), "the real record fits");
	ok(tfield_bytes(&ev, fn, &p, &len) && len == strlen("/usr/bin/sh") && !memcmp(p, "/usr/bin/sh", len),
	   "and its filename is read");

	put32(buf + fn->offset, 0xffffu << 16 | 8);
	snprintf(want, sizeof(want), "the data of field filename, at offset 8, 65535 bytes, is past the "
		 "end of the %u-byte record", ev.size);
	ok(!ttype_fits(t, &ev, why, sizeof(why)), "a __data_loc length past the end does not fit");
	is_str(why, want, "and why names the field, where and how long");
	ok(!tfield_bytes(&ev, fn, &p, &len), "the field is not read");

	put32(buf + fn->offset, 1u << 16 | 0xfff0);
	ok(!ttype_fits(t, &ev, why, sizeof(why)), "a __data_loc offset past the end does not fit");

	put32(buf + fn->offset, (ev.size - 8) << 16 | 8);
	ok(ttype_fits(t, &ev, why, sizeof(why)), "data that ends at the record's end fits");

	ev.size = fn->offset + 2;
	snprintf(want, sizeof(want), "field filename at offset %u, 4 bytes, is past the end of the "
		 "%u-byte record", fn->offset, ev.size);
	ok(!ttype_fits(t, &ev, why, sizeof(why)), "a record that ends inside the __data_loc word does not fit");
	is_str(why, want, "and why names the word");
	tdat_merge_free(m);
	tdat_file_free(f);
}

static void check_fixed(void)
{
	static unsigned char buf[4096];
	struct tdat_merge *m;
	struct tdat_file *f = open_td("v6.dat", &m);
	struct tdat_event ev;
	const struct ttype *t = first_of(m, "sched_switch", &ev, buf, sizeof(buf));
	const struct tfield *np = ttype_field(t, "next_prio");
	char why[256], want[256];

	ok(!t->dynamic && t->need == np->offset + np->size, "sched_switch needs every byte up to next_prio");
	ok(ttype_fits(t, &ev, why, sizeof(why)), "the real record fits");
	ev.size = np->offset + 2;
	snprintf(want, sizeof(want), "field next_prio at offset %u, 4 bytes, is past the end of the "
		 "%u-byte record", np->offset, ev.size);
	ok(!ttype_fits(t, &ev, why, sizeof(why)), "cut inside its last field, it does not fit");
	is_str(why, want, "and why names that field");
	ev.size = 6;
	ok(!ttype_fits(t, &ev, why, sizeof(why)), "cut inside the common fields, it does not fit");
	ok(strstr(why, "field common_") != NULL, "and why names a common field (%s)", why);
	tdat_merge_free(m);
	tdat_file_free(f);
}

/* kernel_stack's caller[8] holds as many entries as the stack has. */
static void check_short_stack(void)
{
	struct tdat_merge *m;
	struct tdat_file *f = open_td("stack.dat", &m);
	const struct tdat_event *e;
	const struct ttype *t;
	const struct tfield *caller;
	char why[256];
	int nshort = 0, nfit = 0;

	while (tdat_merge_next(m, &e) == 0) {
		t = file_type(e->file, e);
		if (!t || strcmp(t->name, "kernel_stack") || !(caller = ttype_field(t, "caller")))
			continue;
		if (e->size < caller->offset + caller->size) {
			nshort++;
			nfit += ttype_fits(t, e, why, sizeof(why));
		}
	}
	ok(nshort > 0, "stack.dat has short stacks (%d)", nshort);
	is_int(nfit, nshort, "every one fits");
	tdat_merge_free(m);
	tdat_file_free(f);
}

int main(void)
{
	check_dynamic();
	check_fixed();
	check_short_stack();
	return done_testing();
}
