#!/usr/bin/env bash
# t-parquet-text.sh: strings in a -f parquet dataset are the text itself,
# as -f sqlite stores it (doc/tdat-parquet.7 "Strings"): for every capture
# in testdata/, every string column of every event table holds, row for
# row, the values of the sqlite table of that name (parquet-text.mjs:
# DuckDB reads the Parquet file, sqlite3 the database).  markers.dat's
# trace_marker texts end in a newline and hold tabs and backslashes;
# a byte that is not UTF-8 is U+FFFD in both.
# The typed CSV keeps its escapes (\x0a).  DuckDB (@duckdb/node-api) comes
# from the npm cache t-parquet.sh fills.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata

command -v node >/dev/null || skip_all "node is not installed (apt-get install nodejs npm)"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed (apt-get install sqlite3)"
need_readers
# one node for all captures, asked capture by capture (lib.sh's t_serve)
t_serve pt env NPMDIR="$NPMDIR" node tests/cli/parquet-text.mjs

for dat in $TD/*.dat; do
	f=$(basename "$dat" .dat)
	out=$T_TMP/$f
	tdat-convert -f parquet -o "$out" "$dat" 2>/dev/null
	tdat-convert -f sqlite -o "$out.db" "$dat" 2>/dev/null
	if [[ ! -f $out/events.parquet || ! -f $out.db ]]; then
		not_ok "$f.dat: a dataset and a database are written"
		continue
	fi
	t_ask pt "$out"$'\t'"$out.db"$'\t'"$out.chk"
	[[ $T_REPLY == done ]] || echo "error $T_REPLY" >"$out.chk"
	t_assert "$f.dat: every string column of every event table equals sqlite's, row for row ($(grep -c ' same$' "$out.chk") columns)" \
		test -z "$(grep -v ' same$\|^escapes \|^fffd ' "$out.chk")" -a -s "$out.chk"
	[[ $f == markers ]] && cp "$out.chk" "$T_TMP/markers.kept"
	rm -rf "$out" "$out.db"
done
t_serve_end pt

n=$(sed -n 's/^escapes //p' "$T_TMP/markers.kept")
t_assert "markers.dat: the texts compared hold newlines, tabs or backslashes ($n values)" \
	test "${n:-0}" -gt 0
n=$(sed -n 's/^fffd //p' "$T_TMP/markers.kept")
t_assert "markers.dat: and a byte that is not UTF-8, U+FFFD in both ($n values)" test "${n:-0}" -gt 0
t_assert "markers.dat: the typed CSV keeps its escapes (\x0a)" \
	sh -c "tdat-convert -f csv --split-by-event -o '$T_TMP/csv' $TD/markers.dat &&
	       grep -q 'plain marker line\\\\x0a' '$T_TMP/csv/ftrace.print.csv'"
done_testing
