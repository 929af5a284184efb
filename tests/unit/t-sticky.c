/*
 * t-sticky.c - tep_guard_raw_sticky() (libfmt/guard/print-guard.c) against
 * libtraceevent itself: printing a record's fields raw (tep_print_fields(),
 * as trace-cmd report -R and a print format it failed print them) clears a
 * char or u8 array field's string flag when its bytes are not text, so that
 * every later record prints it as ARRAY[..].  A -j worker does not print a
 * record for which the check says so (the text writer's caller reads on
 * alone), so the check must never miss a flag libtraceevent clears: for
 * random records of a format with fixed, dynamic (__data_loc, 2 and 4
 * bytes) and relative (__rel_loc) arrays, it says exactly what
 * libtraceevent clears, and it says so for every record with an array
 * outside it (not printed here: libtraceevent would read past it).  The
 * same for every record of the captures in testdata/ (an
 * i2c buffer of arm64-events.dat is binary: -R sends the caller on alone
 * there).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "tdat.h"
#include "guard/guard.h"
#include "read/read.h"
#include "../tap.h"

#define EVENT_ID 7	/* its first byte, BEL, is not text: read where an offset is 0 */
#define FIXED 44	/* the fields' end: dynamic data after it */
#define RECORDS 20000

static const char format[] =
	"name: arrays\nID: 7\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:u8 addr[4];\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc char[] rel;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int x;\toffset:36;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] old;\toffset:40;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned short pad;\toffset:42;\tsize:2;\tsigned:0;\n\n"
	"print fmt: \"x=%u\", REC->x\n";

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* A byte mostly of text, with NULs, and now and then anything. */
static unsigned char byte(void)
{
	unsigned r = rnd(100);

	if (r < 70)
		return (unsigned char)(' ' + rnd(95));
	return r < 85 ? 0 : r < 90 ? '\t' : (unsigned char)rnd(256);
}

/*
 * A __data_loc word of @bytes bytes at @at: an offset (and length), mostly
 * inside the record; @rel: the offset counts from the word's end (__rel_loc).
 */
static void put_loc(unsigned char *d, unsigned at, unsigned bytes, unsigned size, bool rel)
{
	unsigned off = rnd(10) ? FIXED + rnd(size - FIXED + 1) : rnd(300);
	unsigned len = rnd(10) ? rnd(size + 1 - (off < size ? off : size)) : rnd(300);
	unsigned v;

	if (rel)
		off = off >= at + bytes ? off - (at + bytes) : off;
	v = bytes == 2 ? off : (off & 0xffff) | (len << 16);
	memcpy(d + at, &v, bytes);
}

/* The string flags of @ev's fields, one bit each. */
static unsigned long long string_flags(struct tep_event *ev)
{
	unsigned long long bits = 0;
	int i = 0;

	for (struct tep_format_field *f = ev->format.fields; f; f = f->next, i++)
		if (f->flags & TEP_FIELD_IS_STRING)
			bits |= 1ULL << i;
	return bits;
}

static void set_string_flags(struct tep_event *ev, unsigned long long bits)
{
	int i = 0;

	for (struct tep_format_field *f = ev->format.fields; f; f = f->next, i++)
		f->flags = (bits >> i & 1) ? f->flags | TEP_FIELD_IS_STRING : f->flags & ~TEP_FIELD_IS_STRING;
}

/*
 * Whether a dynamic array of @ev lies outside the record where libtraceevent
 * looks for it (the check's one reason to say more): it takes an offset or
 * length past the record as 0, then adds a relative one's own place.
 */
static bool outside(struct tep_event *ev, const unsigned char *d, unsigned size)
{
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		unsigned v = 0, o, l;

		if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
			continue;
		memcpy(&v, d + f->offset, (size_t)f->size);
		o = v & 0xffff;
		l = f->size == 2 ? size - o : v >> 16;	/* unsigned: wraps as there */
		l = o + l > size ? 0 : l;
		o = o > size ? 0 : o;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			o += (unsigned)(f->offset + f->size);
		if ((unsigned long long)o + l > size)
			return true;
	}
	return false;
}

/*
 * Record @d of @ev: the check against what printing its fields raw does to
 * a handle whose flags are @all; *@missed, *@extra counted, and whether a
 * flag was cleared.  A record with an array outside it is not printed (the
 * text writer's guard refuses it: libtraceevent would read past it); the
 * check must say so for it.
 */
static bool compare(struct tep_event *ev, unsigned long long all, const unsigned char *d,
		    unsigned size, long *missed, long *extra, long *out, const char *what)
{
	static struct trace_seq s;
	static bool init;
	bool sticky, lost;

	if (!init) {
		trace_seq_init(&s);
		init = true;
	}
	set_string_flags(ev, all);
	sticky = tep_guard_raw_sticky(ev, d, size);
	if (outside(ev, d, size)) {
		(*out)++;
		if (!sticky && (*missed)++ < 3)
			diag("%s: an array outside the record was not seen", what);
		return false;
	}
	trace_seq_reset(&s);
	tep_print_fields(&s, (void *)d, (int)size, ev);
	lost = string_flags(ev) != all;
	set_string_flags(ev, all);
	if (lost && !sticky && (*missed)++ < 3)
		diag("%s: libtraceevent cleared a flag the check did not see", what);
	if (!lost && sticky && (*extra)++ < 3)
		diag("%s: the check saw a change libtraceevent did not make", what);
	return lost;
}

static void synthetic(void)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev;
	unsigned long long all;
	long cleared = 0, missed = 0, extra = 0, out = 0;
	unsigned char d[400];
	char what[32];

	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_event(tep, format, sizeof(format) - 1, "test") ||
	    !(ev = tep_find_event(tep, EVENT_ID)))
		bail_out("the test format does not parse");
	all = string_flags(ev);
	ok(all == 0x2f, "the format's five arrays are strings to libtraceevent (flags %#llx)", all);
	for (int i = 0; i < RECORDS; i++) {
		unsigned size = FIXED + rnd(120);

		for (unsigned k = 0; k < size; k++)
			d[k] = byte();
		d[0] = EVENT_ID, d[1] = 0;
		put_loc(d, 28, 4, size, false);
		put_loc(d, 32, 4, size, true);
		put_loc(d, 40, 2, size, false);
		snprintf(what, sizeof(what), "record %d", i);
		cleared += compare(ev, all, d, size, &missed, &extra, &out, what);
	}
	is_int(missed, 0, "%d random records: every flag libtraceevent cleared was seen (%ld cleared), "
	       "and every array outside its record (%ld)", RECORDS, cleared, out);
	is_int(extra, 0, "and nothing else was seen");
	ok(cleared > RECORDS / 10 && cleared < RECORDS * 9 / 10, "both kinds of record were tried");
	tep_free(tep);
}

/* Every record of capture @name: the same, and how many would send a worker's caller on alone. */
static void capture(const char *name)
{
	struct tdat_file *f = tdat_file_new();
	struct tdat_merge *m = tdat_merge_new();
	const struct tdat_event *ev;
	long n = 0, cleared = 0, missed = 0, extra = 0, out = 0;

	if (!f || !m || tdat_file_open(f, tap_testdata(name), NULL) || tdat_merge_add(m, f))
		bail_out("%s does not open", name);
	while (!tdat_merge_next(m, &ev)) {
		struct tep_record rec = { .data = (void *)ev->data, .size = (int)ev->size };
		struct tep_event *e = tep_find_event_by_record(ev->file->tep, &rec);

		n++;
		if (e)
			cleared += compare(e, string_flags(e), ev->data, ev->size, &missed, &extra, &out,
					   name);
	}
	ok(!missed && !extra && !out,
	   "%s: %ld records as libtraceevent prints them (%ld of them not text)", name, n, cleared);
	tdat_merge_free(m);
	tdat_file_free(f);
}

int main(void)
{
	static const char *const caps[] = {
		"v7-zstd.dat", "v6.dat", "arm64-events.dat", "old-kernel.dat", "tc34-zstd.dat",
		"two-buffers.dat", "stack.dat",
	};

	synthetic();
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		capture(caps[i]);
	return done_testing();
}
