#!/usr/bin/env bash
# t-dataset.sh: the Parquet dataset folder as engines read it, and folder
# outputs as tdat writes them.
#
# Folders: -o DIR/ (a trailing slash) names DIR for -f parquet and
# --split-by-event; a folder tdat wrote (its _tdat/tdat.json) is replaced
# whole by the next run (files the new run does not write are gone), and
# kept as it was when that run fails; an empty folder is taken; any other
# folder, or a file, is refused before anything is read, and left as it
# was; -o t.parquet and -o DIR/ for a file format point to the folder
# formats.
#
# Engines: every DuckDB and polars query of tdat-parquet(7)'s EXAMPLES
# (dataset-queries.mjs runs them as the page shows them) on one capture
# (chunks.dat) and on an archive of three made by doc/examples/tdat-archive.sh,
# each value compared with trace-cmd report's counts, the typed CSV (read
# by Python's csv module) or SQLite's tables (sqlite3); DIR/* and
# DIR/*.parquet give every event once.  DuckDB and nodejs-polars come from
# the npm cache of t-parquet.sh (installed here if missing; a SKIP line says
# why not).
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
W=$T_TMP/w
mkdir "$W"

# files DIR: the files under DIR, relative, sorted
files() { (cd "$1" && find . -type f | sort); }

# --- folder outputs ----------------------------------------------------------
t_exit "-f parquet -o DIR/: the trailing slash names DIR" 0 -- \
	tdat-convert -f parquet -o "$W/pq/" $TD/markers.dat
t_assert "DIR holds the dataset" test -s "$W/pq/events.parquet" -a -s "$W/pq/_tdat/tdat.json"
is "and nothing else was left beside it" "$(ls "$W")" "pq"
is "_tdat/tdat.json: the tool, its version, the format" "$(cat "$W/pq/_tdat/tdat.json")" \
	"{\"written_by\":\"tdat-convert\",\"version\":\"$PACKAGE_VERSION\",\"format\":\"parquet\"}"
t_exit "--split-by-event -o DIR/" 0 -- tdat-convert -f csv --split-by-event -o "$W/csv/" $TD/markers.dat
is "writes its typed CSV files and the mark" "$(files "$W/csv")" \
	"$(printf './%s\n' _tdat/tdat.json ftrace.print.csv ftrace.raw_data.csv sched.sched_process_exec.csv \
		sched.sched_process_exit.csv)"

t_exit "a second run into the parquet folder tdat wrote" 0 -- \
	tdat-convert -f parquet -e sched:sched_process_exit -o "$W/pq" $TD/markers.dat
is "replaces it: the types the new run did not write are gone" "$(files "$W/pq" | grep event/)" \
	"./event/sched.sched_process_exit.parquet"
is "and nothing else was left beside it" "$(ls "$W")" "$(printf 'csv\npq')"
t_exit "a parquet run into the CSV folder tdat wrote" 0 -- tdat-convert -f parquet -o "$W/csv" $TD/markers.dat
t_assert "replaces it" test -s "$W/csv/events.parquet" -a ! -e "$W/csv/ftrace.print.csv"
cp -r "$W/pq" "$W/pq.before"
t_exit "a failed run into a folder tdat wrote: exit 1" 1 -- \
	tdat-convert -f parquet -o "$W/pq" $TD/markers.dat $TD/bad/bad-magic.dat
t_assert "leaves that folder as it was" diff -r "$W/pq" "$W/pq.before"
rm -rf "$W/pq.before"

mkdir "$W/mine"
echo keep >"$W/mine/notes.txt"
t_exit "a folder tdat did not write: exit 1" 1 -- tdat-convert -f parquet -o "$W/mine/" $TD/markers.dat
t_stderr_match "with a message that says why and what to do" \
	"^tdat-convert: $W/mine: the directory exists, is not empty and is not one tdat wrote \(it has no _tdat/tdat.json\): it is not replaced; remove it or name another$"
is "it is left as it was" "$(files "$W/mine")" "./notes.txt"
t_exit "the same for --split-by-event" 1 -- tdat-convert --split-by-event -o "$W/mine" $TD/markers.dat
is "and nothing is left beside it" "$(ls "$W")" "$(printf 'csv\nmine\npq')"
mkdir "$W/empty"
t_exit "an empty folder is taken" 0 -- tdat-convert -f parquet -o "$W/empty" $TD/markers.dat
t_assert "and filled" test -s "$W/empty/events.parquet"
echo x >"$W/plain"
t_exit "a file where the folder goes: exit 1" 1 -- tdat-convert -f parquet -o "$W/plain" $TD/markers.dat
t_stderr_match "says so" "plain: exists and is not a directory"
t_exit "-o t.parquet: a usage error" 2 -- tdat-convert -o "$W/t.parquet" $TD/markers.dat
t_stderr_match "that points to -f parquet -o DIR" \
	"-o $W/t.parquet: Parquet output is a folder \(a dataset of files, one per table\): -f parquet -o $W/t$"
t_exit "-o DIR/ for a file format: a usage error" 2 -- tdat-convert -f csv -o "$W/x/" $TD/markers.dat
t_stderr_match "that names the formats that write folders" "not a directory \(-f parquet and --split-by-event write folders\)"
rm -rf "$W"/*

# --- the engines --------------------------------------------------------------
if ! readers_ready; then
	skip "the queries of tdat-parquet(7) with DuckDB and polars" "${NPM_WHY:-node is not installed}"
	done_testing
	exit 0
fi
have_trace_cmd || { skip "the queries of tdat-parquet(7)" "no trace-cmd to compare with"; done_testing; exit 0; }

# trace-cmd report's "COUNT EVENT" lines, by count (desc) then name
tc_counts() {
	"$TRACE_CMD" report "$1" 2>/dev/null |
		sed -n 's/^[^[]*\[[0-9]*\] *[0-9.]*: \([^ :]*\):.*/\1/p' | sort | uniq -c | sort -k1,1nr -k2
}
# block KIND N: the rows dataset-queries.mjs printed for that query
block() { awk -v h="$1 $2" '$0 == h { on = 1; next } /^(duckdb|polars) [0-9]+$/ { on = 0 } on' "$W/q.out"; }

OUT=$W/out ARCH=$W/archive
tdat-convert -f parquet -o "$OUT" $TD/chunks.dat
tdat-convert -f csv --split-by-event -o "$W/csv" $TD/chunks.dat
tdat-convert -f sqlite -o "$W/chunks.db" $TD/chunks.dat
mkdir -p "$W/in"
cp $TD/chunks.dat $TD/lost-events.dat $TD/v7-zstd.dat "$W/in/"
t_exit "an archive of three captures (tdat-archive.sh)" 0 -- \
	doc/examples/tdat-archive.sh -j 2 "$W/in" "$ARCH"
t_run "the queries of tdat-parquet(7)" -- env NPMDIR="$NPMDIR" node tests/cli/dataset-queries.mjs \
	doc/tdat-parquet.7 "$OUT" "$ARCH"
cp "$T_OUT" "$W/q.out"
is "the page has 7 DuckDB and 2 polars queries, and each ran" \
	"$(grep -c '^duckdb [0-9]*$' "$W/q.out") $(grep -c '^polars [0-9]*$' "$W/q.out") $(grep -c '^error' "$W/q.out")" "7 2 0"
((T_LAST_OK)) || diag "$(grep -A1 '^error' "$W/q.out" | head)" "$(head -n 5 "$T_ERR")"

tc_counts $TD/chunks.dat >"$W/tc"
total=$(awk '{ s += $1 } END { print s }' "$W/tc")
is "DIR/*.parquet: every event once (trace-cmd report's $total)" "$(block duckdb 1)" "$total"
is "events.parquet: the 5 most frequent types, counted as trace-cmd report does" \
	"$(block duckdb 2 | awk -F'|' '{ print $3, $2 }')" "$(head -n 5 "$W/tc" | awk '{ print $1, $2 }')"
python3 - "$W/csv/sched.sched_switch.csv" >"$W/comm" <<'PY'
import collections, csv, sys
with open(sys.argv[1], newline='') as f:
    n = collections.Counter(r['next_comm'] for r in csv.DictReader(f))
for comm, c in sorted(n.items(), key=lambda x: (-x[1], x[0]))[:5]:
    print(f'{comm}|{c}')
PY
is "sched_switch's next_comm: the typed CSV's counts" "$(block duckdb 3)" "$(cat "$W/comm")"
is "polars: the same" "$(block polars 1)" "$(cat "$W/comm")"
is "read(2)'s fd (args[1]): the first argument trace-cmd report prints" "$(block duckdb 4)" \
	"$("$TRACE_CMD" report $TD/chunks.dat 2>/dev/null | sed -n 's/.* sys_enter: *NR 0 (\([0-9a-f]*\),.*/\1/p' |
		while read -r h; do echo $((16#$h)); done | sort | uniq -c | sort -k1,1nr -k2n | head -n 5 |
		awk '{ print $2 "|" $1 }')"
is "running time per thread: SQLite's sched and thread tables" "$(block duckdb 5)" \
	"$(sqlite3 "$W/chunks.db" "SELECT t.tid, t.name, sum(s.dur) FROM sched s JOIN thread t USING (utid)
		WHERE NOT t.is_idle GROUP BY 1, 2 ORDER BY 3 DESC, 1 LIMIT 5")"
t_assert "which is not empty" test -n "$(block duckdb 5)"

for c in chunks lost-events v7-zstd; do tc_counts $TD/$c.dat >"$W/tc.$c"; done
is "archive: sched_switch per capture (hive partitioning), as trace-cmd report counts" "$(block duckdb 6)" \
	"$(for c in chunks lost-events v7-zstd; do echo "$c|$(awk '$2 == "sched_switch" { print $1 }' "$W/tc.$c")"; done)"
is "archive: every sched event per capture" "$(block duckdb 7 | awk -F'|' '{ print $1, $3, $4 }')" \
	"$(for c in chunks lost-events v7-zstd; do awk -v c=$c '$2 ~ /^sched_/ { print c, $2, $1 }' "$W/tc.$c" | sort -k2; done)"
is "archive, polars: the events of each capture" "$(block polars 2)" \
	"$(for c in chunks lost-events v7-zstd; do echo "$c|$(awk '{ s += $1 } END { print s }' "$W/tc.$c")"; done)"

# the readers skip _tdat/; DIR/* stays out of folders
cat >"$T_TMP/globs.mjs" <<'EOF'
import { createRequire } from 'module';
const req = createRequire(process.env.NPMDIR + '/');
const [dir] = process.argv.slice(2);
const c = await (await req('@duckdb/node-api').DuckDBInstance.create(':memory:', { enable_external_file_cache: 'false' })).connect();
for (const g of ['*', '*.parquet'])
	console.log(String((await c.runAndReadAll(`select count(*) from read_parquet('${dir}/${g}')`)).getRowsJS()[0][0]));
console.log(req('nodejs-polars').scanParquet(dir + '/*').collectSync().height);
EOF
t_run "DuckDB: DIR/* and DIR/*.parquet" -- env NPMDIR="$NPMDIR" node "$T_TMP/globs.mjs" "$OUT"
is "DuckDB's DIR/* and DIR/*.parquet, polars' DIR/*: every event once" "$(cat "$T_OUT")" \
	"$(printf '%s\n' "$total" "$total" "$total")"
done_testing
