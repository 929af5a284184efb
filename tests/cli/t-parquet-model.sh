#!/usr/bin/env bash
# t-parquet-model.sh: the analysis tables of -f parquet (thread, process,
# sched_slice, thread_state) equal the tables of the same names that -f sqlite
# writes, for every capture in testdata/: the same column names in the same
# order, and the same rows (EXCEPT ALL both ways through DuckDB, the sqlite3
# export read as text and cast to the Parquet column's type, NULL kept
# apart from an empty string).  Then that the comparison sees one changed
# value.  DuckDB (@duckdb/node-api) comes from the npm cache t-parquet.sh
# fills; sqlite3 is the oracle's reader.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
NPMDIR=${TDAT_TEST_NPM:-${XDG_CACHE_HOME:-$HOME/.cache}/tdat-test-npm}
TABLES=(thread process sched_slice thread_state)

command -v node >/dev/null || skip_all "node is not installed (apt-get install nodejs npm)"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed (apt-get install sqlite3)"
node -e "require('$NPMDIR/node_modules/@duckdb/node-api')" 2>/dev/null ||
	skip_all "@duckdb/node-api is not in $NPMDIR (tests/cli/t-parquet.sh installs it)"

# table $2 of database $1 as CSV: the column names, then the rows, NULL as \N
export_table() {
	sqlite3 "$1" "select group_concat(name, ',') from pragma_table_info('$2')"
	sqlite3 -csv -nullvalue '\N' "$1" "select * from $2"
}

check() {
	NPMDIR=$NPMDIR node tests/cli/parquet-model-check.mjs "$1" "$2" "${TABLES[@]}" 2>&1
}

for dat in $TD/*.dat; do
	f=$(basename "$dat" .dat)
	out=$T_TMP/$f
	t_exit "$f.dat: -f parquet" 0 -- tdat-convert -f parquet -o "$out" "$dat"
	t_exit "$f.dat: -f sqlite" 0 -- tdat-convert -f sqlite -o "$out.db" "$dat"
	mkdir -p "$out.csv"
	for t in "${TABLES[@]}"; do
		export_table "$out.db" "$t" >"$out.csv/$t.csv"
	done
	check "$out" "$out.csv" >"$out.chk"
	for t in "${TABLES[@]}"; do
		cols=$(sed -n "s/^cols $t //p" "$out.chk")
		if [[ -n $cols && $cols == "$(head -n 1 "$out.csv/$t.csv")" ]]; then
			ok "$f.dat: $t.parquet has the sqlite table's columns"
		else
			not_ok "$f.dat: $t.parquet has the sqlite table's columns" "$(head -n 5 "$out.chk")"
		fi
		if grep -qx "except $t 0 0" "$out.chk"; then
			ok "$f.dat: $t.parquet has the sqlite table's $(sed -n "s/^rows $t //p" "$out.chk") rows"
		else
			not_ok "$f.dat: $t.parquet has the sqlite table's rows" "$(grep -v '^cols' "$out.chk")"
		fi
	done
done

# the comparison can fail: one value changed in one row of the export
out=$T_TMP/v7-zstd
awk -F, 'NR == 3 { $3 = $3 + 1 } 1' OFS=, "$out.csv/sched_slice.csv" >"$out.csv/x" &&
	mv "$out.csv/x" "$out.csv/sched_slice.csv"
t_same_line=$(check "$out" "$out.csv" | grep '^except sched_slice')
if [[ $t_same_line == "except sched_slice 1 1" ]]; then
	ok "a changed dur is one row missing each way"
else
	not_ok "a changed dur is one row missing each way" "$t_same_line"
fi
done_testing
