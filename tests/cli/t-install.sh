#!/usr/bin/env bash
# t-install.sh: what `make install` puts in a DESTDIR is usable and complete,
# and `make uninstall` takes all of it back.  The library is installed as
# libtdat (a versioned shared object exporting only tdat_*, tdat.h, tdat.pc,
# tdat(3)): the EXAMPLE program of tdat(3) is compiled against the installed
# copy through pkg-config, run, and its events are checked against trace-cmd
# report's (the oracle); every tool's --version prints configure's version.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
D=$T_TMP/root
F=testdata/v7-zstd.dat
: "${BUILDDIR:?BUILDDIR (the build tree) is set by make check}"
: "${PACKAGE_VERSION:?set by make check}"
TOOLS="tdat-convert tdat-filter tdat-merge tdat-split tdat-info tdat-capture"

# make, without the parent make's jobserver and flags (we run inside make check).
submake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s -C "$BUILDDIR" "$@" DESTDIR="$D"
}

submake install >"$T_TMP/install.log" 2>&1
is "make install DESTDIR=... succeeds" "$?" 0
lib=$(find "$D" -name 'libtdat.so.*.*' -type f | head -1)
libdir=$(dirname "${lib:-/nonexistent/x}")
t_assert "libtdat.so with a versioned soname is installed ($lib)" \
	test -n "$lib" -a -L "$libdir/libtdat.so.0" -a -L "$libdir/libtdat.so"
soname=$(readelf -d "$lib" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
is "its soname is libtdat.so.0" "$soname" "libtdat.so.0"
leaked=$(nm -D --defined-only "$lib" 2>/dev/null | awk '$3 !~ /^tdat_/ {print $3}' | head -5)
is "it exports only tdat_* functions" "$leaked" ""
pc=$(find "$D" -name tdat.pc | head -1)
hdr=$(find "$D" -name tdat.h | head -1)
t_assert "tdat.h and tdat.pc are installed" test -n "$pc" -a -n "$hdr"
for p in $TOOLS; do
	t_assert "$p is installed" test -x "$(dirname "$libdir")/bin/$p"
done
for m in man1/tdat-convert.1 man3/tdat.3 man7/tdat-sqlite.7; do
	t_assert "$m is installed" test -n "$(find "$D" -path "*/$m")"
done

# The EXAMPLE of tdat(3), as a reader copies it from the page.
sed -n '/^\.SH EXAMPLE/,/^\.SH/{/^\.nf/,/^\.fi/p}' doc/tdat.3 | sed '1d;$d' |
	sed -e 's/\\e/\\/g' -e 's/\\-/-/g' >"$T_TMP/events.c"
t_assert "tdat(3) has an EXAMPLE program" grep -q 'int main' "$T_TMP/events.c"
# The .pc file as installed, with its prefix moved under DESTDIR.
prefix=$(sed -n 's/^prefix=//p' "${pc:-/dev/null}")
pcflags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-variable=prefix="$D$prefix" \
	--cflags --libs tdat)
t_assert "pkg-config --cflags --libs tdat names the DESTDIR copy ($pcflags)" \
	grep -q -- "-L$D" <<<"$pcflags"
# shellcheck disable=SC2086 # word splitting of the flags is meant
t_assert "the EXAMPLE compiles against the installed library" \
	${CC:-cc} $CFLAGS -o "$T_TMP/events" "$T_TMP/events.c" $pcflags $LDFLAGS
needed=$(readelf -d "$T_TMP/events" 2>/dev/null | grep -c 'NEEDED.*libtdat.so.0')
is "and links the shared libtdat.so.0" "$needed" 1
LD_LIBRARY_PATH=$libdir "$T_TMP/events" "$F" >"$T_TMP/events.out" 2>"$T_TMP/events.err"
is "it runs with the installed library" "$?" 0
if have_trace_cmd; then
	# trace-cmd report -t: "comm-pid [cpu] secs.ns: name: ..." -> "ns cpu name"
	"$TRACE_CMD" report -t "$F" 2>/dev/null |
		sed -nE 's/^.*\[0*([0-9]+)\] +([0-9]+)\.([0-9]{9}): +([^:]+):.*/\2\3 \1 \4/p' |
		sed -E 's/^0+([0-9])/\1/' >"$T_TMP/want"
	n=$(wc -l <"$T_TMP/want")
	t_assert "its $n events (ts, cpu, name) are trace-cmd report's" \
		test "$n" -gt 100 -a -z "$(diff "$T_TMP/want" "$T_TMP/events.out" | head -3)"
else
	skip "its events are trace-cmd report's" "trace-cmd is not installed"
fi
# Given a folder, it writes a Parquet dataset (a format option set by name),
# complete: its _tdat/trace.json is what tdat-info --json says of the input.
LD_LIBRARY_PATH=$libdir "$T_TMP/events" "$F" "$T_TMP/ds" 2>"$T_TMP/ds.err"
is "with a folder it writes a Parquet dataset ($(head -c 200 "$T_TMP/ds.err"))" "$?" 0
t_same "whose _tdat/trace.json is tdat-info --json of the input" \
	"$(cat "$T_TMP/ds/_tdat/trace.json" 2>/dev/null)" "$(tdat-info --json "$F")"
cat >"$T_TMP/version.c" <<'C'
#include <stdio.h>
#include <tdat.h>
int main(void) { puts(tdat_version()); return 0; }
C
# shellcheck disable=SC2086
${CC:-cc} $CFLAGS -o "$T_TMP/version" "$T_TMP/version.c" $pcflags $LDFLAGS
is "tdat_version() of the installed library is configure's" \
	"$(LD_LIBRARY_PATH=$libdir "$T_TMP/version")" "$PACKAGE_VERSION"
for p in $TOOLS; do
	is "$p --version prints configure's version" \
		"$("$(dirname "$libdir")/bin/$p" --version 2>&1 | head -1)" "$p (tdat) $PACKAGE_VERSION"
done

submake uninstall >"$T_TMP/uninstall.log" 2>&1
is "make uninstall DESTDIR=... succeeds" "$?" 0
left=$(find "$D" ! -type d | head -5)
is "and leaves no file behind" "$left" ""
done_testing
