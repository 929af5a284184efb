#!/usr/bin/env bash
# t-ts2secs.sh: --ts2secs HZ (trace-cmd report --ts2secs) turns a clock that
# counts ticks into nanoseconds once, in the library, so every format gets
# the same times.  The times wanted are those the real trace-cmd printed for
# clock-x86-tsc.dat with --ts2secs (the golden clock-x86-tsc.text-ts2secs.out,
# as plain numbers of ns), its ticks those of clock-x86-tsc.text.out.  Then:
# CSV, SQLite, JSON and Perfetto (judged by Perfetto's trace_processor) hold
# them; -f dat writes them with a TSC2NSEC option of factor 1, so trace-cmd
# reads the new file in seconds; tdat-merge, tdat-split and tdat-info take the
# option; --raw-ts turns it off, --ts-offset adds after it; bad values exit 2.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
F=$TD/clock-x86-tsc.dat
HZ=2096000000	# this machine's TSC, as testdata/scripts/make-expected.sh
E=tests/expected
TP=${TRACE_PROCESSOR:-$TOP_SRCDIR/../shared/tools/perfetto/trace_processor_shell}
O=$T_TMP

# The timestamps of a report's event lines, as integers: "[001]123:" and
# "[001] 12.345678901:" (-t) give 123 and 12345678901.
report_ts() {
	sed -nE 's/^.*\[[0-9]{3}\] *([0-9]+)\.?([0-9]*): .*/\1\2/p' "$@" | sed -E 's/^0+([0-9])/\1/'
}
# The ts column of CSV (the first), without the header.
csv_ts() {
	sed 1d "$@" | cut -d, -f1
}
same_list() {	# NAME GOT WANT: the two files hold the same lines, and some
	if [[ -s $3 ]] && cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1" "$(diff "$3" "$2" | head -4)"
	fi
}

report_ts $E/clock-x86-tsc.text-ts2secs.out >"$O/want"
report_ts $E/clock-x86-tsc.text.out >"$O/ticks"
n=$(wc -l <"$O/want")
first=$(head -1 "$O/want") last=$(tail -1 "$O/want")
t_assert "the golden has the $n events of the capture, in ns (not ticks)" \
	test "$n" = 1966 -a "$(head -1 "$O/ticks")" != "$first"

# CSV: the same numbers, event for event.
t_run "csv" -- tdat-convert --ts2secs $HZ -f csv $F
csv_ts "$T_OUT" >"$O/csv"
same_list "csv: every ts is what trace-cmd report --ts2secs prints" "$O/csv" "$O/want"

# SQLite.
t_run "sqlite" -- tdat-convert --ts2secs $HZ -o "$O/t.db" $F
if command -v sqlite3 >/dev/null; then
	t_assert "sqlite: ftrace_event spans the same ns" \
		test "$(sqlite3 "$O/t.db" 'select min(ts), max(ts), count(*) from ftrace_event')" = "$first|$last|$n"
else
	skip "sqlite: ftrace_event spans the same ns" "no sqlite3 command"
fi

# JSON: microseconds, and the metadata says ns.
t_run "json" -- tdat-convert --ts2secs $HZ -f json $F
us=$(grep -om1 '"ts":[0-9.]*' "$T_OUT" | cut -d: -f2)
t_assert "json: the first event at $us us, the first ns / 1000" \
	test "$us" = "$((first / 1000)).$(printf %03d $((first % 1000)))"
t_stdout_match "json: metadata says ns" '"ts_unit":"ns"'
t_run "json without" -- tdat-convert -f json $F
t_stdout_match "json without --ts2secs: clock ticks" '"ts_unit":"clock ticks"'

# Perfetto: trace_processor reads the span in real seconds.
tp_span() {	# FILE: "min,max" of ftrace_event
	"$TP" query "$1" 'select min(ts), max(ts) from ftrace_event' 2>/dev/null | sed 1d
}
t_run "perfetto" -- tdat-convert --ts2secs $HZ -o "$O/t.pftrace" $F
t_run "perfetto without" -- tdat-convert -o "$O/ticks.pftrace" $F
if [[ -x $TP ]]; then
	got=$(tp_span "$O/t.pftrace")
	t_assert "perfetto: trace_processor sees the events at the ns trace-cmd prints ($got)" \
		test "$got" = "$first,$last"
	IFS=, read -r a b <<<"$got"
	span_ticks=$(($(tail -1 "$O/ticks") - $(head -1 "$O/ticks")))
	t_assert "perfetto: its span, $((b - a)) ns, is the tick span $span_ticks / $HZ Hz" \
		awk -v s=$((b - a)) -v t=$span_ticks -v hz=$HZ \
		'BEGIN { d = s - t * 1e9 / hz; exit !(d < 2 && d > -2 && s > 0) }'
	IFS=, read -r a b <<<"$(tp_span "$O/ticks.pftrace")"
	t_assert "perfetto without --ts2secs: the span is in ticks ($((b - a)))" test $((b - a)) = "$span_ticks"
else
	skip "perfetto: trace_processor sees the ns" "no $TP"
	skip "perfetto: the span is the tick span / HZ" "no $TP"
	skip "perfetto without --ts2secs: the span is in ticks" "no $TP"
fi

# dat: the converted times, and no longer a clock in ticks.
for v in 7 6; do
	t_exit "dat v$v" 0 -- tdat-convert --ts2secs $HZ -f dat --file-version $v -o "$O/v$v.dat" $F
	t_run "dat v$v read back" -- tdat-convert -t "$O/v$v.dat"
	report_ts "$T_OUT" >"$O/got"
	same_list "dat v$v: its timestamps are those of trace-cmd report --ts2secs" "$O/got" "$O/want"
	t_stdout_match "dat v$v: printed in seconds (a TSC2NSEC of factor 1)" '^ +sh-13429 +\[001\] +[0-9]+\.[0-9]{9}: '
	if have_trace_cmd; then
		"$TRACE_CMD" report -t "$O/v$v.dat" >"$O/tc" 2>/dev/null
		same_list "dat v$v: trace-cmd report reads the same bytes as tdat-convert" "$T_OUT" "$O/tc"
	else
		skip "dat v$v: trace-cmd report reads the same" "trace-cmd is not installed"
	fi
done
t_run "dat info" -- tdat-info --json "$O/v7.dat"
t_stdout_match "dat: tdat-info says ns, corrected by tsc2nsec" '"ts_unit":"ns"'
# --ts2secs again on a file with TSC2NSEC: it replaces that factor (as trace-cmd).
for hz in 1000000000 4192000000; do
	if have_trace_cmd; then
		"$TRACE_CMD" report --ts2secs $hz "$O/v7.dat" >"$O/tc" 2>/dev/null
		t_run "TSC2NSEC and --ts2secs $hz" -- tdat-convert --ts2secs $hz "$O/v7.dat"
		same_list "a TSC2NSEC file with --ts2secs $hz: as trace-cmd report" "$T_OUT" "$O/tc"
	else
		skip "a TSC2NSEC file with --ts2secs $hz" "trace-cmd is not installed"
	fi
done

# A v6 file whose TRACECLOCK option names no clock (as old trace-cmd wrote
# them): the clock after the flyrecord table counts then, but trace-cmd report
# --ts2secs does not read it, so it prints seconds.
tdat-convert -f dat --file-version 6 -o "$O/old6.dat" $F
python3 - "$O/old6.dat" <<'PY'
import sys
p = sys.argv[1]
d = open(p, 'rb').read()
# the option comes first; the copy after the flyrecord table stays
open(p, 'wb').write(d.replace(b'[x86-tsc]\n', b' x86-tsc \n', 1))
PY
for v in "" "--ts2secs $HZ" "--raw-ts --ts2secs $HZ"; do
	if have_trace_cmd; then
		"$TRACE_CMD" report $v "$O/old6.dat" >"$O/tc" 2>/dev/null
		t_run "old v6 $v" -- tdat-convert $v "$O/old6.dat"
		same_list "v6, clock only after the table${v:+, $v}: as trace-cmd report" "$T_OUT" "$O/tc"
	else
		skip "v6, clock only after the table${v:+, $v}" "trace-cmd is not installed"
	fi
done
t_stdout_match "(it prints the raw ticks as seconds, as trace-cmd)" '\[001\] 793919\.519478: '

# tdat-merge: every input converted, and the merged file in seconds.
t_exit "merge" 0 -- tdat-merge --ts2secs $HZ -o "$O/m.dat" $F $TD/clock-counter.dat
t_run "merge csv" -- tdat-convert -f csv "$O/m.dat"
csv_ts "$T_OUT" >"$O/got"
t_run "merge want" -- tdat-convert --ts2secs $HZ -f csv $F $TD/clock-counter.dat
csv_ts "$T_OUT" >"$O/want2"
same_list "merge: the merged file holds both inputs' ns" "$O/got" "$O/want2"

# tdat-split: --every counts real time.
mkdir "$O/s" "$O/s0"
t_exit "split" 0 -- tdat-split --ts2secs $HZ --every 100ms -o "$O/s/p" $F
t_assert "split: 0.29 s of trace in 100 ms pieces: 3" test "$(ls "$O/s" | wc -l)" = 3
t_exit "split without" 0 -- tdat-split --every 100ms -o "$O/s0/p" $F
t_assert "split without --ts2secs: 609M ticks taken for ns: 7" test "$(ls "$O/s0" | wc -l)" = 7
t_run "split read back" -- tdat-convert -f csv "$O"/s/p.*.dat
csv_ts "$T_OUT" >"$O/got"
same_list "split: the pieces hold the ns" "$O/got" "$O/want"

# tdat-info.
t_run "info" -- tdat-info --ts2secs $HZ $F
sec() { printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000)); }
t_stdout_match "info: the span in seconds" "^span: +$(sec "$first") \.\. $(sec "$last")\$"

# With the other time options.
t_golden "--raw-ts turns --ts2secs off" clock-x86-tsc.text-raw.out -- tdat-convert --raw-ts --ts2secs $HZ $F
t_run "ts-offset" -- tdat-convert --ts2secs $HZ --ts-offset 1s -f csv $F
csv_ts "$T_OUT" | while read -r t; do echo $((t - 1000000000)); done >"$O/got"
same_list "--ts-offset adds ns after the conversion" "$O/got" "$O/want"

# Usage errors.
t_exit "tdat-info --ts2secs 0" 2 -- tdat-info --ts2secs 0 $F
t_stderr_match "says why" "invalid --ts2secs '0'"
t_exit "tdat-split --ts2secs x" 2 -- tdat-split --ts2secs x --every 1s -o "$O/x" $F
t_stderr_match "says why" "invalid --ts2secs 'x'"
t_exit "tdat-merge --ts2secs -1" 2 -- tdat-merge --ts2secs -1 -o "$O/x.dat" $F
t_stderr_match "says why" "invalid --ts2secs '-1'"
t_exit "tdat-filter --ts2secs without a value" 2 -- tdat-filter $F --ts2secs
t_stderr_match "says it needs one" "requires an argument"
done_testing
