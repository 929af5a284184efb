#!/usr/bin/env bash
# t-json.sh: tdat-convert -f json (Chrome trace JSON for Perfetto and
# chrome://tracing): every capture passes tests/json-check, which applies the
# importers' rules and compares the events written with tdat-info's counts;
# goldens pin the exact bytes; gzip, pipes, several inputs, rebasing, errors;
# and json-check itself rejects files that break each rule.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
CHECK=${JSON_CHECK:-$BIN/../tests/json-check}
[[ -x $CHECK ]] || skip_all "no $CHECK (make check builds it)"

info_count() {	# info_count INFO SYSTEM NAME: the count tdat-info --json gives
	sed 's/},{/}\n{/g' "$1" | grep -F "\"system\":\"$2\",\"name\":\"$3\"," |
		sed -n 's/.*"count":\([0-9]*\).*/\1/p' | awk '{ n += $1 } END { print n + 0 }'
}

# --- every capture: valid for both importers, every event accounted for ---
for f in v7-zstd v6 v7-none two-buffers v6-two-buffers markers lost-events lost-events-nocount \
	clock-mono clock-counter clock-x86-tsc date extract stack chunks; do
	t_exit "$f.dat converts" 0 -- tdat-convert -f json $TD/$f.dat
	cp "$T_OUT" "$T_TMP/$f.json"
	tdat-info --json $TD/$f.dat >"$T_TMP/$f.info"
	t_exit "$f.json passes json-check with tdat-info's counts" 0 -- \
		"$CHECK" -i "$T_TMP/$f.info" "$T_TMP/$f.json"
	((T_LAST_OK)) || diag "$(head -n 5 "$T_ERR")"
done
t_exit "atrace markers convert" 0 -- tdat-convert -f json testdata/atrace.dat
cp "$T_OUT" "$T_TMP/atrace.json"
tdat-info --json testdata/atrace.dat >"$T_TMP/atrace.info"
t_exit "atrace.json passes json-check" 0 -- "$CHECK" -i "$T_TMP/atrace.info" "$T_TMP/atrace.json"

# --- the counts the issue names, checked here directly too ---
want=$(info_count "$T_TMP/v7-zstd.info" sched sched_switch)
got=$(grep -o ': sched_switch: ' "$T_TMP/v7-zstd.json" | wc -l)
t_assert "one sched_switch text line per sched_switch event ($want)" test "$got" = "$want" -a "$want" -gt 0
t_assert "10 atrace markers become tracing_mark_write lines" \
	test "$(grep -o 'tracing_mark_write: [BECSF]' "$T_TMP/atrace.json" | wc -l)" = 10
t_assert "markers that are not atrace stay print instants" \
	test "$(grep -c '"name":"print"' "$T_TMP/atrace.json")" = 2
t_assert "syscalls pair into X slices (instance foo's: their category and args say so)" \
	grep -q '"ph":"X","name":"openat","cat":"syscalls,foo",.*"args":{"buffer":"foo","sys_enter_openat":{' \
	"$T_TMP/two-buffers.json"
t_assert "irqs go to the per-CPU tracks" \
	grep -q '"ph":"X","name":"softirq [A-Z]*","cat":"irq,foo","ts":[0-9.]*,"dur":[0-9.]*,"pid":1073741824,"tid":107374182[56]' \
	"$T_TMP/two-buffers.json"
t_assert "raw syscalls lost at the buffer overflow leave unfinished slices" \
	grep -q '"unfinished":true' "$T_TMP/lost-events.json"
t_assert "lost events are marked" grep -q '"name":"lost_events","cat":"tdat"' "$T_TMP/lost-events.json"
t_assert "threads are named" grep -q '{"ph":"M","name":"thread_name","pid":12963,"tid":12963,"args":{"name":"write-markers.p"}}' \
	"$T_TMP/markers.json"
t_assert "processes are named after exec" grep -q '"name":"process_name","pid":12963,"args":{"name":"write-markers.py"}' \
	"$T_TMP/markers.json"
t_assert "invalid UTF-8 becomes U+FFFD" grep -qF "$(printf 'invalid utf8: \357\277\275\357\277\275 and lone \357\277\275 end')" \
	"$T_TMP/markers.json"

# --- 64-bit values a double cannot hold are strings, exact ---
if command -v node >/dev/null; then
	node "$TOP_SRCDIR/tests/cli/json-exact.js" "$T_TMP/chunks.json" >"$T_TMP/exact" 2>&1
	t_assert "JSON.parse reads every integer exactly" grep -qx 'unsafe 0' "$T_TMP/exact"
	t_assert "the values above 2^53 are there, as strings" \
		test "$(sed -n 's/^big //p' "$T_TMP/exact")" -gt 100
	if [[ -n $TRACE_CMD ]]; then
		"$TRACE_CMD" report $TD/chunks.dat 2>/dev/null |
			sed -n 's/.* sys_enter: *NR \([0-9-]*\) (\(.*\))$/sys_enter \1 \2/p' |
			sed 's/, /,/g' | sort >"$T_TMP/exact.want"
		grep '^sys_enter' "$T_TMP/exact" | sort >"$T_TMP/exact.got"
		t_assert "sys_enter args equal trace-cmd report's ($(wc -l <"$T_TMP/exact.want") events)" \
			test -s "$T_TMP/exact.want" -a "$(wc -l <"$T_TMP/exact.want")" -gt 1000
		t_assert "... value for value" cmp -s "$T_TMP/exact.want" "$T_TMP/exact.got"
	else
		skip "sys_enter args equal trace-cmd report's" "trace-cmd is not installed"
	fi
else
	skip "JSON.parse reads every integer exactly" "node is not installed (apt-get install nodejs)"
fi

# --- exact bytes ---
t_golden "markers.dat golden" json-markers.json -- tdat-convert -f json $TD/markers.dat
t_golden "two-buffers.dat golden" json-two-buffers.json -- tdat-convert -f json $TD/two-buffers.dat
t_golden "atrace golden" json-atrace.json -- tdat-convert -f json testdata/atrace.dat

# --- timestamps ---
first=$(sed -n 's/.*"first_ts":\("[0-9]*"\),"last_ts".*/\1/p' "$T_TMP/date.info")
t_assert "wall-clock (DATE) times are rebased on the first event (offset $first, a string)" \
	grep -q "\"ts_offset_ns\":$first}" "$T_TMP/date.json"
t_assert "and start at 0" grep -q '"ts":0.000,' "$T_TMP/date.json"
t_assert "small clock values are not rebased" grep -q '"ts_offset_ns":0}' "$T_TMP/clock-x86-tsc.json"
t_assert "a text line carries the event's exact ns (+0.5 ns for Perfetto's truncation)" \
	grep -q '\[001\] .... 472.5314803215: sched_waking: comm=rcu_preempt pid=15' "$T_TMP/two-buffers.json"

# --- outputs ---
t_exit "-o t.json picks json" 0 -- tdat-convert -o "$T_TMP/t.json" $TD/two-buffers.dat
t_assert "same bytes as -f json" cmp -s "$T_TMP/t.json" "$T_TMP/two-buffers.json"
t_exit "-o t.json.gz" 0 -- tdat-convert -o "$T_TMP/t.json.gz" $TD/two-buffers.dat
t_assert "gunzips to the same bytes" cmp -s <(gzip -dc "$T_TMP/t.json.gz") "$T_TMP/t.json"
# gzip on several threads: one gzip stream whose bytes do not depend on -j
tdat-convert -f json $TD/chunks.dat >"$T_TMP/c.json"
for j in 1 2 3 8; do
	t_exit "-j $j -o c.json.gz (two blocks)" 0 -- \
		tdat-convert -j $j -o "$T_TMP/c$j.json.gz" $TD/chunks.dat
	t_assert "-j $j: gzip -t finds one valid stream" gzip -t "$T_TMP/c$j.json.gz"
	t_assert "-j $j: gunzips to the same bytes as plain json" \
		cmp -s <(gzip -dc "$T_TMP/c$j.json.gz") "$T_TMP/c.json"
	t_assert "-j $j: the same file as -j 1" cmp -s "$T_TMP/c$j.json.gz" "$T_TMP/c1.json.gz"
done
t_assert "chunks.json spans two 2 MiB blocks" test "$(stat -c %s "$T_TMP/c.json")" -gt 3000000
if command -v python3 >/dev/null; then
	t_assert "python's zlib reads it as one stream, to its end" python3 -c '
import sys, zlib
d = zlib.decompressobj(31)
out = d.decompress(open(sys.argv[1], "rb").read())
sys.exit(not (d.eof and not d.unused_data and out == open(sys.argv[2], "rb").read()))' \
		"$T_TMP/c2.json.gz" "$T_TMP/c.json"
fi
# --compression-level: the deflate level of a gzipped output, 1 to 12
for l in 1 12; do
	t_exit "--compression-level $l -o c.json.gz" 0 -- \
		tdat-convert -j 2 --compression-level $l -o "$T_TMP/c-l$l.json.gz" $TD/chunks.dat
	t_assert "level $l: gunzips to the same bytes as plain json" \
		cmp -s <(gzip -dc "$T_TMP/c-l$l.json.gz") "$T_TMP/c.json"
	tdat-convert -j 1 --compression-level $l -o "$T_TMP/c-l$l-j1.json.gz" $TD/chunks.dat
	t_assert "level $l: the same file at -j 1" cmp -s "$T_TMP/c-l$l.json.gz" "$T_TMP/c-l$l-j1.json.gz"
done
z1=$(stat -c %s "$T_TMP/c-l1.json.gz") z6=$(stat -c %s "$T_TMP/c1.json.gz") z12=$(stat -c %s "$T_TMP/c-l12.json.gz")
t_assert "a higher level is smaller (1: $z1, 6 (the default): $z6, 12: $z12 bytes)" \
	test "$z12" -lt "$z6" -a "$z6" -lt "$z1"
for bad in 0 13 x; do
	t_exit "--compression-level $bad of a gzipped output is a usage error" 2 -- \
		tdat-convert --compression-level $bad -o "$T_TMP/bad.json.gz" $TD/v6.dat
	t_stderr_match "that says the range" "invalid --compression-level '$bad' \(gzip: 1 to 12\)"
done
t_exit "--compression-level of a plain json is a usage error" 2 -- \
	tdat-convert --compression-level 3 -o "$T_TMP/bad.json" $TD/v6.dat
t_stderr_match "that names what takes it" "needs -f parquet or a gzipped output"
t_assert "and nothing was written" test ! -e "$T_TMP/bad.json" -a ! -e "$T_TMP/bad.json.gz"
t_exit "-j 0 is a usage error" 2 -- tdat-convert -j 0 -o "$T_TMP/bad.json.gz" $TD/v6.dat
t_exit "-j x is a usage error" 2 -- tdat-convert -j x -o "$T_TMP/bad.json.gz" $TD/v6.dat
t_run "pipe" -- sh -c "cat $TD/v6.dat | tdat-convert -f json -"
t_assert "from a pipe equals from the file" cmp -s "$T_OUT" "$T_TMP/v6.json"
t_exit "two inputs on one timeline" 0 -- tdat-convert -f json -o "$T_TMP/multi.json" $TD/v7-zstd.dat $TD/v6.dat
cat "$T_TMP/v7-zstd.info" "$T_TMP/v6.info" >"$T_TMP/multi.info"
t_exit "pass json-check with both files' counts" 0 -- "$CHECK" -i "$T_TMP/multi.info" "$T_TMP/multi.json"

# --- buffers: every event says which one it came from ---
# foo_events JSON: events of buffer foo written (an X slice holds two, one if unfinished)
foo_events() {
	awk '/"buffer":"foo"/ { n += /"ph":"X"/ ? (/"unfinished":true/ ? 1 : 2) : 1 } END { print n + 0 }' "$1"
}
t_assert "every event of instance foo says so ($(foo_events "$T_TMP/two-buffers.json"))" test \
	"$(foo_events "$T_TMP/two-buffers.json")" = "$(tdat-convert -f csv -B foo $TD/two-buffers.dat | grep -c '^[0-9]')"
t_assert "the top buffer's do not" test "$(grep -c '"cat":"sched"' "$T_TMP/two-buffers.json")" = \
	"$(grep -c '"cat":"sched"[^}]*"args":{"[^b]' "$T_TMP/two-buffers.json")"
t_exit "one input of three buffers (a merged trace.dat)" 0 -- \
	tdat-convert -o "$T_TMP/m3.dat" $TD/v6.dat $TD/two-buffers.dat
t_exit "to JSON" 0 -- tdat-convert -o "$T_TMP/m3.json" "$T_TMP/m3.dat"
tdat-info --json "$T_TMP/m3.dat" >"$T_TMP/m3.info"
t_exit "passes json-check" 0 -- "$CHECK" -i "$T_TMP/m3.info" "$T_TMP/m3.json"
t_exit "the same two files as two inputs" 0 -- tdat-convert -o "$T_TMP/m2.json" $TD/v6.dat $TD/two-buffers.dat
# but for the files' own facts (version, compression), a merged trace.dat is its inputs
facts() { sed -E 's/"(file_version|compression)":[^,}]*//g' "$1"; }
t_assert "the merged trace.dat's JSON is its two inputs' (two machines, not one)" \
	cmp -s <(facts "$T_TMP/m2.json") <(facts "$T_TMP/m3.json")
t_assert "both inputs' sched_switch lines ($(grep -o ': sched_switch: ' "$T_TMP/m3.json" | wc -l))" test \
	"$(grep -o ': sched_switch: ' "$T_TMP/m3.json" | wc -l)" = \
	"$(($(info_count "$T_TMP/v6.info" sched sched_switch) + $(info_count "$T_TMP/two-buffers.info" sched sched_switch)))"
# buffers JSON: the buffer names its events carry
buffers() {
	grep -o '"args":{"buffer":"[^"]*"' "$1" | sort -u | sed 's/.*"buffer":"//; s/"$//' | paste -sd' '
}
t_assert "name their buffers as the merged trace.dat does ($(buffers "$T_TMP/m2.json"))" test \
	"$(buffers "$T_TMP/m2.json")" = "$(buffers "$T_TMP/m3.json")" -a \
	"$(buffers "$T_TMP/m3.json")" = "$(sed 's/"name":"/\n&/g' "$T_TMP/m3.info" | sed -n 's/^"name":"\([^"]*\)","clock".*/\1/p' | sort | paste -sd' ')"
t_exit "lost events of a named buffer" 0 -- tdat-convert -o "$T_TMP/lost2.json" $TD/lost-events.dat $TD/v6.dat
t_assert "say their buffer too" grep -q \
	'"name":"lost_events","cat":"tdat,lost-events",.*"args":{"buffer":"lost-events","cpu":1,"lost":' "$T_TMP/lost2.json"
t_exit "and pass json-check" 0 -- "$CHECK" "$T_TMP/lost2.json"
TP=${TDAT_TRACE_PROCESSOR:-$TOP_SRCDIR/../shared/tools/perfetto/trace_processor_shell}
if [[ -x $TP ]]; then
	t_run "trace_processor" -- "$TP" query "$T_TMP/two-buffers.json" \
		"SELECT category, extract_arg(arg_set_id, 'args.buffer') AS buffer, count(*) FROM slice GROUP BY 1, 2"
	t_assert "trace_processor tells instance foo's events from the top buffer's" test \
		"$(sed 1d "$T_OUT" | tr -d '"' | paste -sd' ')" = \
		"irq,foo,foo,456 sched,[NULL],266 syscalls,foo,foo,585"
	# two machines' CPUs stay apart: the second input's CPUs come after the first's
	t_run "trace_processor m3" -- "$TP" query "$T_TMP/m3.json" \
		"SELECT cpu, count(*), sum(dur) FROM sched GROUP BY cpu ORDER BY cpu"
	tdat-convert -o "$T_TMP/m2.db" $TD/v6.dat $TD/two-buffers.dat
	t_assert "and builds its sched table of both inputs, CPU by CPU, as our SQLite's ($(sed 1d "$T_OUT" | paste -sd' '))" \
		test "$(sed 1d "$T_OUT" | tr -d '"' | paste -sd' ')" = \
		"$(sqlite3 -csv "$T_TMP/m2.db" 'SELECT ucpu, count(*), sum(dur) FROM sched GROUP BY ucpu ORDER BY ucpu' | paste -sd' ')"
	# the gzipped JSON of two 2 MiB blocks (-j 2 and level 1): the same tables as the plain
	q="SELECT (SELECT count(*) FROM slice), (SELECT count(*) FROM thread), (SELECT sum(dur) FROM slice)"
	"$TP" query "$T_TMP/c.json" "$q" >"$T_TMP/c.tpq" 2>/dev/null
	for z in c2.json.gz c-l1.json.gz; do
		t_run "trace_processor $z" -- "$TP" query "$T_TMP/$z" "$q"
		t_assert "trace_processor reads $z as the plain JSON ($(sed 1d "$T_OUT" | tr -d '"'))" \
			bash -c "sed 1d '$T_OUT' | cmp -s - <(sed 1d '$T_TMP/c.tpq') && test -s '$T_TMP/c.tpq'"
	done
else
	skip "trace_processor tells the buffers apart" "no trace_processor_shell ($TP)"
	skip "trace_processor reads a gzipped JSON" "no trace_processor_shell ($TP)"
fi

# --- errors: the document is still closed, nothing is left behind ---
t_exit "damaged data" 1 -- tdat-convert -f json $TD/bad/truncated-v6-data.dat
cp "$T_OUT" "$T_TMP/damaged.json"
t_exit "still gives a complete, valid document" 0 -- "$CHECK" "$T_TMP/damaged.json"
mkdir -p "$T_TMP/out"
t_exit "no temporary directory" 1 -- env TMPDIR="$T_TMP/none" tdat-convert -o "$T_TMP/out/x.json" $TD/v6.dat
t_stderr_match "says so" "cannot make a temporary file in .*/none"
t_empty_dir "and leaves no output" "$T_TMP/out"
if [[ -w /dev/full ]]; then
	t_exit "a full disk is an error" 1 -- sh -c "tdat-convert -f json $TD/v6.dat > /dev/full"
else
	skip "a full disk is an error" "no /dev/full"
fi
t_run "closed pipe" -- bash -c "set -o pipefail; tdat-convert -f json $TD/stack.dat | head -c 100"
t_assert "a closed pipe ends quietly" test ! -s "$T_ERR"

# --- json-check rejects what the importers reject (so the checks above can fail) ---
good=$T_TMP/markers.json
bad() {	# bad NAME FILE: json-check must fail on FILE
	t_exit "json-check rejects $1" 1 -- "$CHECK" "$2"
}
sed 's/\[001\] \.\.\.\. 472\.5314803215:/[001] .... 472:/' "$T_TMP/two-buffers.json" >"$T_TMP/b1.json"
bad "a text line whose time is not seconds.fraction" "$T_TMP/b1.json"
sed 's/plain marker line/plain \\ud83d marker/' "$good" >"$T_TMP/b2.json"
bad "a surrogate escape" "$T_TMP/b2.json"
sed '0,/"ts":474951783.665/s//"ts":474951783.66/' "$good" >"$T_TMP/b3.json"
bad "a ts without three decimals" "$T_TMP/b3.json"
sed 's/parent_ts=0\\n"/parent_ts=0"/' "$good" >"$T_TMP/b4.json"
bad "a last text line without \\n" "$T_TMP/b4.json"
sed 's/{"traceEvents":\[/{"traceEvents":[{"ph":"X","name":"a","ts":1.000,"dur":5.000,"pid":1,"tid":1},{"ph":"X","name":"b","ts":2.000,"dur":5.000,"pid":1,"tid":1},/' \
	"$good" >"$T_TMP/b5.json"
bad "X slices that overlap" "$T_TMP/b5.json"
sed 's/"pid":12963,"tid":12963,"args":{"ip"/"pid":12963,"tid":0,"args":{"ip"/' "$good" >"$T_TMP/b6.json"
bad "tid 0 in a process" "$T_TMP/b6.json"
sed '0,/"pid":12963,"tid":12963/s//"pid":5,"tid":12963/' "$good" >"$T_TMP/b7.json"
bad "a tid in two processes" "$T_TMP/b7.json"
sed '0,/\\n[^\\]*: sched_switch: [^\\]*\\n/s//\\n/' "$T_TMP/v7-zstd.json" >"$T_TMP/b8.json"
t_exit "json-check rejects a missing sched_switch line" 1 -- "$CHECK" -i "$T_TMP/v7-zstd.info" "$T_TMP/b8.json"
t_stderr_match "by its count" "sched:sched_switch: $((want - 1)) events written, the file has $want"
sed 's/prev_state=S /prev_state=Q /' "$T_TMP/v7-zstd.json" >"$T_TMP/b9.json"
bad "an unknown prev_state" "$T_TMP/b9.json"
sed 's/"ph":"i","s":"t"/"ph":"i"/' "$good" >"$T_TMP/b10.json"
bad "an instant without scope" "$T_TMP/b10.json"
head -c -3 "$good" >"$T_TMP/b11.json"
bad "an unclosed document" "$T_TMP/b11.json"
sed 's/plain marker line/plain\x01line/' "$good" >"$T_TMP/b12.json"
bad "a raw control character" "$T_TMP/b12.json"
sed 's/"cat":"irq,foo"/"cat":"irq,bar"/' "$T_TMP/two-buffers.json" >"$T_TMP/b13.json"
bad "a category whose buffer is not args.buffer" "$T_TMP/b13.json"
done_testing
