/*
 * t-wopts.c - unit tests of the writers' options (libfmt/write/options.c,
 * tdat_writer_set_option()): each format takes its own keys and values and
 * refuses the others with TDAT_EINVAL and a message that names what it
 * takes; the value lands where the format reads it (struct writer_opts);
 * csv's "split" makes its output a directory; an open writer takes none.
 */
#include <stdlib.h>
#include <string.h>

#include "write/dat-enc.h"
#include "write/options.h"
#include "write/writer-int.h"
#include "../tap.h"

/* Set @key=@value on a new @format writer: the return, the options and the message. */
static int set(const char *format, const char *key, const char *value, struct writer_opts *o,
	       char *msg)
{
	struct tdat_writer *w = tdat_writer_new(format);
	int ret;

	if (!w)
		return TDAT_ENOMEM;
	ret = tdat_writer_set_option(w, key, value);
	*o = w->opt;
	strcpy(msg, tdat_writer_errmsg(w));
	tdat_writer_free(w);
	return ret;
}

static void taken(void)
{
	struct writer_opts o;
	char msg[TDAT_MSG_LEN];

	ok(!set("text", "nsec", "1", &o, msg) && o.nsec, "text: nsec=1");
	ok(!set("text", "raw", "1", &o, msg) && o.raw, "text: raw=1");
	ok(!set("text", "raw", NULL, &o, msg) && !o.raw, "text: raw NULL is off");
	ok(!set("text", "style", "3.1", &o, msg) && o.style_3_1, "text: style=3.1");
	ok(!set("text", "style", "3.4", &o, msg) && !o.style_3_1, "text: style=3.4");
	ok(!set("csv", "split", "1", &o, msg) && o.split, "csv: split=1");
	ok(!set("dat", "version", "6", &o, msg) && o.dat.v6, "dat: version=6");
	ok(!set("dat", "compression", "zlib", &o, msg) && o.dat.z == DAT_ZLIB, "dat: compression=zlib");
	ok(!set("dat", "compression", "none", &o, msg) && o.dat.z == DAT_ZNONE, "dat: compression=none");
	ok(!set("perfetto", "compression", "zlib", &o, msg) && o.zlib, "perfetto: compression=zlib");
	ok(!set("parquet", "compression-level", "22", &o, msg) && o.level == 22,
	   "parquet: compression-level=22");
	ok(!set("json", "gzip-level", "12", &o, msg) && o.gzip_level == 12, "json: gzip-level=12");
}

static void refused(void)
{
	static const char *const bad[][3] = {
		{ "csv", "nsec", "1" },			/* another format's key */
		{ "text", "split", "1" },
		{ "json", "compression-level", "3" },
		{ "sqlite", "compression", "zlib" },
		{ "text", "nsec", "yes" },		/* values the key does not take */
		{ "text", "style", "3.2" },
		{ "dat", "version", "8" },
		{ "dat", "compression", "lz4" },
		{ "perfetto", "compression", "zstd" },
		{ "parquet", "compression-level", "0" },
		{ "parquet", "compression-level", "23" },
		{ "parquet", "compression-level", "5x" },
		{ "parquet", "compression-level", NULL },
		{ "csv", "gzip-level", "13" },
	};
	struct writer_opts o;
	char msg[TDAT_MSG_LEN];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = set(bad[i][0], bad[i][1], bad[i][2], &o, msg);

		ok(ret == TDAT_EINVAL && strstr(msg, bad[i][1]), "%s: %s=%s refused (%s)", bad[i][0],
		   bad[i][1], bad[i][2] ? bad[i][2] : "NULL", msg);
	}
	set("parquet", "compression-level", "23", &o, msg);
	ok(strstr(msg, "1 to 22") != NULL, "the message says the range (%s)", msg);
	set("dat", "compression", "lz4", &o, msg);
	ok(strstr(msg, "zstd zlib none") != NULL, "the message says the values (%s)", msg);
	set("csv", "nsec", "1", &o, msg);
	ok(strstr(msg, "split") && strstr(msg, "gzip-level"), "the message lists the keys (%s)", msg);
}

static void output(void)
{
	struct tdat_writer *w = tdat_writer_new("csv");
	struct tdat_merge *m = tdat_merge_new();

	if (!ok(w && m, "a csv writer"))
		return;
	is_int(tdat_writer_output(w), TDAT_OUT_STREAM, "csv writes a stream");
	is_int(tdat_format_output("csv"), TDAT_OUT_STREAM, "by default");
	tdat_writer_set_option(w, "split", "1");
	is_int(tdat_writer_output(w), TDAT_OUT_DIR, "csv with split=1 writes a directory");
	is_int(tdat_writer_open(w, -1, NULL, m, 0), TDAT_EINVAL, "which open needs");
	ok(strstr(tdat_writer_errmsg(w), "directory") != NULL, "and says so (%s)",
	   tdat_writer_errmsg(w));
	tdat_writer_free(w);
	w = tdat_writer_new("json");
	if (ok(w && !tdat_writer_open(w, -1, NULL, m, 0), "a json writer open into memory"))
		is_int(tdat_writer_set_option(w, "gzip-level", "3"), TDAT_EINVAL,
		       "takes no option once open");
	tdat_writer_free(w);
	tdat_merge_free(m);
}

int main(void)
{
	taken();
	refused();
	output();
	return done_testing();
}
