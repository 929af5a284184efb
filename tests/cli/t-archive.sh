#!/usr/bin/env bash
# t-archive.sh: doc/examples/tdat-archive.sh, the GNU parallel recipe, on a
# tree of testdata/ captures with a local parallel (-S :): every capture
# becomes capture=NAME of one dataset whose per-event counts are trace-cmd
# report's (typed CSV rows read by Python's csv module, SQLite rows by
# sqlite3); a capture that fails is listed and leaves nothing, and a rerun
# converts it alone; a rerun with other options is refused; .dat.gz,
# .dat.zst and .dat.xz captures are picked up.  (The ssh run: t-ssh.sh.)
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
command -v parallel >/dev/null || skip_all "GNU parallel is not installed (Debian parallel)"
have_trace_cmd || skip_all "no trace-cmd to count the events"
command -v python3 >/dev/null || skip_all "no python3"
command -v sqlite3 >/dev/null || skip_all "no sqlite3"
ARCHIVE=$TOP_SRCDIR/doc/examples/tdat-archive.sh
IN=$T_TMP/in OUT=$T_TMP/out
CAPTURES="a/b/v7-zstd c/chunks markers"

# tc_counts FILE.dat: "COUNT EVENT" lines from trace-cmd report
tc_counts() {
	"$TRACE_CMD" report "$1" 2>/dev/null |
		awk 'match($0, /\[[0-9][0-9][0-9]\] +[0-9.]+: [a-z_0-9]+:/) {
			s = substr($0, RSTART, RLENGTH); sub(/:$/, "", s); sub(/.*: /, "", s); print s }' |
		sort | uniq -c | awk '{ print $1, $2 }'
}

# csv_counts DIR: the same from the typed CSV files SYSTEM.EVENT.csv
csv_counts() {
	python3 - "$1" <<'PY' | sort -k2
import csv, os, sys
for f in sorted(os.listdir(sys.argv[1])):
    if f.endswith('.csv'):
        with open(os.path.join(sys.argv[1], f), newline='') as fh:
            print(sum(1 for _ in csv.reader(fh)) - 1, f[:-4].split('.', 1)[1])
PY
}

mkdir -p "$IN/a/b" "$IN/c"
for c in $CAPTURES; do cp "testdata/$(basename "$c").dat" "$IN/$c.dat"; done
head -c 100000 testdata/chunks.dat >"$IN/c/cut.dat"

t_exit "a tree with a damaged capture: exit 1" 1 -- "$ARCHIVE" -f csv -j 2 -S : "$IN" "$OUT"
t_assert "the damaged capture is named" grep -q '^  capture=c__cut$' "$T_ERR"
for c in $CAPTURES; do
	name=capture=${c//\//__}
	tc_counts "$IN/$c.dat" >"$T_TMP/tc"
	csv_counts "$OUT/$name" >"$T_TMP/csv"
	t_assert "$name: per-event rows are trace-cmd report's ($(wc -l <"$T_TMP/tc") events)" \
		cmp -s "$T_TMP/tc" "$T_TMP/csv"
	((T_LAST_OK)) || diag "$(diff "$T_TMP/tc" "$T_TMP/csv" | head)"
done
# the check can fail
t_assert "a missing row shows" test -n "$(csv_counts "$OUT/capture=markers" | sed '1s/^[0-9]*/0/' |
	diff - <(tc_counts "$IN/markers.dat"))"

cp testdata/chunks.dat "$IN/c/cut.dat"
t_exit "a rerun after the capture is mended: exit 0" 0 -- "$ARCHIVE" -f csv -j 2 -S : "$IN" "$OUT"
is "it converted the mended capture alone (5 jobs in the log)" "$(tail -n +2 "$OUT/.tdat-archive.joblog" | wc -l)" 5
tc_counts "$IN/c/cut.dat" >"$T_TMP/tc"
csv_counts "$OUT/capture=c__cut" >"$T_TMP/csv"
t_assert "and its rows are trace-cmd report's now" cmp -s "$T_TMP/tc" "$T_TMP/csv"
t_exit "a third run has nothing to do" 0 -- "$ARCHIVE" -f csv "$IN" "$OUT"
is "and runs no job" "$(tail -n +2 "$OUT/.tdat-archive.joblog" | wc -l)" 5

# the options are the dataset's: a rerun with others is refused (it used to
# convert only the failures with them, mixing two selections in one dataset)
cp -r "$OUT" "$T_TMP/out.before"
t_exit "a rerun with other options after --: refused" 2 -- "$ARCHIVE" -f csv "$IN" "$OUT" -- -e 'sched:*'
t_stderr_match "naming the options it was made with" "was converted with other options:"
t_stderr_match "and the ones asked for" "this run: format csv; tdat-convert .*sched:\*"
t_exit "a rerun in another format: refused" 2 -- "$ARCHIVE" -f parquet "$IN" "$OUT"
t_assert "the dataset is left as it was" diff -r "$T_TMP/out.before" "$OUT"
rm -rf "$T_TMP/out.before"
mkdir -p "$T_TMP/other" && echo x >"$T_TMP/other/notes"
t_exit "a folder that is not an archive's: refused" 2 -- "$ARCHIVE" "$IN" "$T_TMP/other"
t_stderr_match "saying so" "is not empty and is not a dataset of tdat-archive.sh"

# a capture that fails leaves nothing, in every format (sqlite left an empty capture=NAME)
IN3=$T_TMP/in3
mkdir -p "$IN3"
cp testdata/markers.dat "$IN3/ok.dat"
head -c 100000 testdata/chunks.dat >"$IN3/cut.dat"
for f in sqlite parquet csv; do
	t_exit "$f: a damaged capture fails (exit 1)" 1 -- "$ARCHIVE" -f $f "$IN3" "$T_TMP/fail-$f"
	is "$f: it leaves nothing, the other is there" "$(cd "$T_TMP/fail-$f" && ls)" "capture=ok"
done

# compressed captures are picked up as they are, named without their suffix
IN2=$T_TMP/in2
mkdir -p "$IN2/z"
gzip -c testdata/lost-events.dat >"$IN2/z/lost-events.dat.gz"
zstd -q -c testdata/two-buffers.dat >"$IN2/two-buffers.dat.zst"
xz -c testdata/atrace.dat >"$IN2/atrace.dat.xz"
cp testdata/markers.dat "$IN2/markers.dat"
t_exit "an archive of .dat.gz, .dat.zst, .dat.xz and .dat" 0 -- "$ARCHIVE" -f csv -j 2 "$IN2" "$T_TMP/z"
is "one capture each, named without .dat and the suffix" "$(cd "$T_TMP/z" && ls | tr '\n' ' ')" \
	"capture=atrace capture=markers capture=two-buffers capture=z__lost-events "
for c in z/lost-events two-buffers atrace; do
	tc_counts "testdata/${c#z/}.dat" >"$T_TMP/tc"
	csv_counts "$T_TMP/z/capture=${c//\//__}" >"$T_TMP/csv"
	t_assert "capture=${c//\//__}: per-event rows are trace-cmd report's" cmp -s "$T_TMP/tc" "$T_TMP/csv"
done
gzip -c testdata/markers.dat >"$IN2/markers.dat.gz"
t_exit "x.dat beside x.dat.gz: refused" 2 -- "$ARCHIVE" -f csv "$IN2" "$T_TMP/z2"
t_stderr_match "naming them" "^  markers\.dat\*$"

# SQLite: one database per capture, with the options after --
t_exit "sqlite, with a selection" 0 -- "$ARCHIVE" -f sqlite "$IN" "$T_TMP/db" -- -e 'sched:*'
for c in $CAPTURES; do
	name=capture=${c//\//__}
	tc_counts "$IN/$c.dat" | awk '$2 ~ /^sched_/' >"$T_TMP/tc"
	sqlite3 "$T_TMP/db/$name/trace.db" "SELECT count(*), name FROM ftrace_event GROUP BY name" |
		tr '|' ' ' | sort -k2 >"$T_TMP/db.counts"
	t_assert "$name: its sched events in SQLite are trace-cmd report's" cmp -s "$T_TMP/tc" "$T_TMP/db.counts"
	((T_LAST_OK)) || diag "$(diff "$T_TMP/tc" "$T_TMP/db.counts" | head)"
done

# Parquet (the default): the same event files as the CSV folders (t-parquet checks their values),
# besides events.parquet and the analysis tables (t-parquet-model)
t_exit "parquet, the default" 0 -- "$ARCHIVE" -j 2 "$IN" "$T_TMP/pq"
for c in $CAPTURES; do
	name=capture=${c//\//__}
	is "$name: one parquet file per event, as in CSV" \
		"$(cd "$T_TMP/pq/$name/event" && ls *.parquet | sed 's/\.parquet$//')" \
		"$(cd "$OUT/$name" && ls *.csv | sed 's/\.csv$//')"
	t_assert "$name: with events.parquet and _tdat/trace.json" \
		test -s "$T_TMP/pq/$name/events.parquet" -a -s "$T_TMP/pq/$name/_tdat/trace.json"
done

t_exit "an output inside the input is refused" 2 -- "$ARCHIVE" "$IN" "$IN/out"
t_exit "an unknown format is refused" 2 -- "$ARCHIVE" -f text "$IN" "$T_TMP/x"
done_testing
