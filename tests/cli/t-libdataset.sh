#!/usr/bin/env bash
# t-libdataset.sh: a program using only libtdat (tdat.h, the built
# libtdat.so) that writes a Parquet dataset gets a complete one, with the
# _tdat/trace.json tdat-parquet(7) lists: one line per input, each the line
# tdat-info --json prints for it (the oracle: the tool's reading of the
# file, counted again from the start).  Two ways to write: tdat_writer_run(),
# and the caller's own tdat_merge_next()/tdat_writer_put() loop.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
: "${BUILDDIR:?BUILDDIR (the build tree) is set by make check}"
TD=testdata
LIBS=$BUILDDIR/libfmt/.libs

cat >"$T_TMP/ds.c" <<'C'
/* ds [-p] DIR FILE...: the events of FILE... as a Parquet dataset in DIR (-p: put, not run) */
#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tdat.h>

int main(int argc, char **argv)
{
	struct tdat_merge *m = tdat_merge_new();
	struct tdat_writer *w = tdat_writer_new("parquet");
	const struct tdat_event *ev;
	int put = argc > 1 && !strcmp(argv[1], "-p"), ret;
	char **a = argv + 1 + put;

	if (argc < 3 + put || !m || !w)
		errx(2, "usage: ds [-p] DIR FILE...");
	for (int i = 1; a[i]; i++) {
		struct tdat_file *f = tdat_file_new();

		if (!f || tdat_file_open(f, a[i], NULL) || tdat_merge_add(m, f))
			errx(1, "%s: %s", a[i], f ? tdat_file_errmsg(f) : "out of memory");
	}
	if (mkdir(a[0], 0777) || tdat_writer_open(w, -1, a[0], m, 0))
		errx(1, "%s: %s", a[0], tdat_writer_errmsg(w));
	if (put) {
		while ((ret = tdat_merge_next(m, &ev)) == 0 && !(ret = tdat_writer_put(w, ev)))
			;
	} else {
		struct tdat_run r = { 0 };

		ret = tdat_writer_run(w, NULL, &r);
	}
	if (ret != TDAT_END || tdat_writer_close(w))
		errx(1, "%s: %s", a[0], tdat_writer_errmsg(w));
	tdat_writer_free(w);
	tdat_merge_free(m);
	return 0;
}
C
t_assert "a program using tdat.h alone compiles against the built libtdat" \
	${CC:-cc} $CFLAGS -I"$TOP_SRCDIR/libfmt" -o "$T_TMP/ds" "$T_TMP/ds.c" \
	-L"$LIBS" -Wl,-rpath,"$LIBS" -ltdat $LDFLAGS

tdat-merge -o "$T_TMP/merged.dat" $TD/v6.dat $TD/two-buffers.dat 2>/dev/null
n=0
for set in "$TD/v7-zstd.dat" "$TD/two-buffers.dat $TD/lost-events.dat" "$T_TMP/merged.dat" \
	"$T_TMP/merged.dat $TD/markers.dat"; do
	for how in run put; do
		n=$((n + 1)) s=${set//$T_TMP\//}
		d=$T_TMP/ds$n
		# shellcheck disable=SC2086 # the inputs are words
		t_exit "$how: $s as a dataset" 0 -- "$T_TMP/ds" $([[ $how == put ]] && echo -p) "$d" $set
		t_assert "$how: $s: events.parquet and _tdat/trace.json are written" \
			test -s "$d/events.parquet" -a -s "$d/_tdat/trace.json"
		# shellcheck disable=SC2086
		t_same "$how: $s: trace.json is tdat-info --json of the inputs" \
			"$(cat "$d/_tdat/trace.json" 2>/dev/null)" "$(tdat-info --json $set)"
	done
done
# The tool writes the same trace.json as the program (the library's, not its own).
tdat-convert -f parquet -o "$T_TMP/tool" $TD/two-buffers.dat $TD/lost-events.dat 2>/dev/null
t_same "tdat-convert -f parquet writes the same trace.json" \
	"$(cat "$T_TMP/tool/_tdat/trace.json" 2>/dev/null)" "$(cat "$T_TMP/ds3/_tdat/trace.json")"
done_testing
