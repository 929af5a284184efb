#!/usr/bin/env bash
# t-parquet-model.sh: the analysis tables of -f parquet (thread, process,
# sched_slice, thread_state, slice, counter, the tracks and wakeup_latency) equal the tables
# of the same names that -f sqlite writes, for every capture in testdata/:
# the same column names in the same order, and the same rows (EXCEPT ALL
# both ways through DuckDB, the sqlite3 export read as text and cast to the
# Parquet column's type, NULL kept apart from an empty string); counter's
# value is a DOUBLE with statistics.  Then that the comparison sees one
# changed value.  DuckDB (@duckdb/node-api) comes from the npm cache t-parquet.sh
# fills; python3's sqlite3 module reads the sqlite tables.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
TABLES=(thread process sched_slice thread_state slice track counter cpu_counter_track wakeup_latency
	process_counter_track thread_track cpu_track)

command -v node >/dev/null || skip_all "node is not installed (apt-get install nodejs npm)"
command -v python3 >/dev/null || skip_all "python3 is not installed (it reads the sqlite tables)"
need_readers

# the checkers, started once for all captures (lib.sh's t_serve):
# sqlite-export.py writes each table of a database as a CSV file,
# parquet-model-check.mjs compares the dataset's tables with them
t_serve ex python3 tests/cli/sqlite-export.py
t_serve pm env NPMDIR="$NPMDIR" node tests/cli/parquet-model-check.mjs

# export_tables DB DIR TABLE...: each TABLE of database DB as DIR/TABLE.csv
export_tables() {
	t_ask ex "$(IFS=$'\t'; echo "$*")"
	[[ $T_REPLY == done ]] || echo "$T_REPLY" >&2
}

# check DIR CSVDIR: parquet-model-check.mjs's lines for the dataset DIR
check() {
	NPMDIR=$NPMDIR node tests/cli/parquet-model-check.mjs "$1" "$2" "${TABLES[@]}" 2>&1
}

# (and signals.dat: its signal_generate and signal_deliver slices)
for dat in $TD/*.dat $TD/signal/signals.dat; do
	f=$(basename "$dat" .dat)
	out=$T_TMP/$f
	t_exit "$f.dat: -f parquet" 0 -- tdat-convert -f parquet -o "$out" "$dat"
	t_exit "$f.dat: -f sqlite" 0 -- tdat-convert -f sqlite -o "$out.db" "$dat"
	mkdir -p "$out.csv"
	export_tables "$out.db" "$out.csv" "${TABLES[@]}"
	t_ask pm "$out"$'\t'"$out.csv"$'\t'"$out.chk"$'\t'"$(IFS=$'\t'; echo "${TABLES[*]}")"
	[[ $T_REPLY == done ]] || echo "error $T_REPLY" >"$out.chk"
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

t_serve_end ex
t_serve_end pm

# counter.value is a DOUBLE whose statistics are the bounds of sqlite's values
out=$T_TMP/atrace
types=$(sed -n 's/^types counter //p' "$out.chk")
is "counter.parquet: value is a DOUBLE" "$types" "BIGINT,BIGINT,BIGINT,DOUBLE"
bounds=$(python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(*db.execute("select min(value), max(value) from counter").fetchone())' "$out.db")
stats=$(sed -n 's/^stats counter value //p' "$out.chk")
if [[ -n $stats ]] && awk -v a="$bounds" -v b="$stats" 'BEGIN { split(a, x, " "); split(b, y, " ");
	exit !(x[1] < x[2] && x[1] == y[1] && x[2] == y[2]) }'; then
	ok "counter.parquet: the statistics of value are sqlite's min and max ($stats)"
else
	not_ok "counter.parquet: the statistics of value are sqlite's min and max" \
		"sqlite $bounds, parquet $stats"
fi

# the comparison can fail: one value changed in one row of the export.
# changed NAME CAPTURE TABLE AWK: AWK changes a row of the exported TABLE
changed() {
	local out=$T_TMP/$2 line
	awk -F, "$4" OFS=, "$out.csv/$3.csv" >"$out.csv/x" && mv "$out.csv/x" "$out.csv/$3.csv"
	line=$(check "$out" "$out.csv" | grep "^except $3 ")
	if [[ $line == "except $3 1 1" ]]; then
		ok "$1 is one row missing each way"
	else
		not_ok "$1 is one row missing each way" "$line"
	fi
}
changed "a changed dur" v7-zstd sched_slice 'NR == 3 { $3 = $3 + 1 } 1'
changed "a changed counter value" atrace counter 'NR == 2 { $4 = $4 + 0.5 } 1'
done_testing
