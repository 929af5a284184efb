#!/usr/bin/env bash
# t-merge.sh: tdat-merge writes one trace.dat holding every event of its
# inputs: each input's buffers under its name, timestamps corrected and
# offset as asked, in the order tdat-convert merges them; trace-cmd report
# reads it.  Refusals: v6, equal names, event ids that disagree.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
O=$T_TMP
A=$TD/v6.dat
B=$TD/two-buffers.dat
C=$TD/date.dat

# report FILE...: trace-cmd report -t of FILE (our text when trace-cmd is not there).
report() {
	if have_trace_cmd; then "$TRACE_CMD" report -t "$@" 2>/dev/null; else tdat-convert -t "$@"; fi
}
# events: the event lines of a report on stdin, without the buffer prefix.
events() {
	grep -v '^\(cpus=\|.*: cpus=\)' | sed -E 's/^ *[A-Za-z0-9_:.-]+: +//'
}
count() { report "$1" | grep -vc 'cpus='; }

t_exit "three inputs, a name, an offset" 0 -- \
	tdat-merge -o "$O/m.dat" --name "$B=guest" --ts-offset "$B=-1500us" $A $B $C
t_run "tdat-info" -- tdat-info "$O/m.dat"
t_stdout_match "the first input's buffer is named after it" '^  v6 +events'
t_stdout_match "--name names the second input's top buffer" '^  guest +events'
t_stdout_match "and its instance NAME:INSTANCE" '^  guest:foo +events'
t_stdout_match "the third input's buffer" '^  date +events'
want=$(($(count $A) + $(count $B) + $(count $C)))
t_assert "trace-cmd report holds the sum of the inputs' events ($want)" test "$(count "$O/m.dat")" = "$want"
report "$O/m.dat" | events >"$O/got.txt"
tdat-convert -t --ts-offset "$B=-1500us" $A $B $C | events >"$O/want.txt"
t_assert "the same events in the same order as tdat-convert merges the inputs" cmp -s "$O/got.txt" "$O/want.txt"
t_assert "and timestamps never go back" \
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; if (t < last) exit 1; last = t; break } }' "$O/got.txt"
report -B guest:foo "$O/m.dat" | events | wc -l >"$O/n.txt"
t_assert "an instance's events are in its buffer" test "$(cat "$O/n.txt")" -gt 0

# the offset moved the second input's events only
first() { tdat-convert -t "$@" | grep -oE ' [0-9]+\.[0-9]{9}: ' | head -n 1 | tr -d ' :'; }
a0=$(first --top $B) a1=$(first -B guest "$O/m.dat") v0=$(first $A) v1=$(first -B v6 "$O/m.dat")
d=$(awk -v a="$a0" -v b="$a1" 'BEGIN { printf "%.9f", a - b }')
t_assert "the offset input's first event is 1500 us earlier ($a0 -> $a1)" test "$d" = "0.001500000"
t_assert "the other inputs' are where they were ($v0)" test -n "$v0" -a "$v0" = "$v1"

t_exit "--align" 0 -- tdat-merge --align -o "$O/al.dat" $A $C
t_run "aligned" -- tdat-info "$O/al.dat"
t_assert "both inputs start at 0" test "$(grep -cE '^(v6|date) +[0-9]+ +[0-9]+ .* 0\.000000000 ' "$T_OUT")" -ge 2

# stdin and pipes: a three-tool pipeline equals the same work on files
t_run "pipe" -- bash -c "set -o pipefail; tdat-filter -e sched $A | tdat-merge - $C | tdat-convert -f csv -"
tdat-filter -e sched -o "$O/f.dat" $A
tdat-merge -o "$O/fm.dat" --name "$O/f.dat=stdin" "$O/f.dat" $C
tdat-convert -f csv "$O/fm.dat" >"$O/want.csv"
t_assert "tdat-filter | tdat-merge - | tdat-convert - equals the same on files" cmp -s "$T_OUT" "$O/want.csv"
t_assert "and it succeeded with events" test "$T_RC" = 0 -a "$(wc -l <"$T_OUT")" -gt 100

# -f: any format of the merged timeline
t_exit "-f csv" 0 -- tdat-merge -f csv $A $C
t_assert "has every event" test "$(($(wc -l <"$T_OUT") - 1))" = "$(($(count $A) + $(count $C)))"

# --- refusals ---
mkdir -p "$O/other" && cp $A "$O/other/"
t_exit "two inputs of one name" 1 -- tdat-merge -o "$O/x.dat" $A "$O/other/${A##*/}"
t_stderr_match "says to use --name" 'both named "v6".*--name'
t_assert "no output left behind" test ! -e "$O/x.dat"
t_exit "v6 output" 1 -- tdat-merge --file-version 6 -o "$O/x.dat" $A $C
t_stderr_match "says to use v7" 'use v7'
# an input whose sched_switch has another event's id
python3 - "$A" "$O/ids.dat" <<'PY'
import re, sys
d = open(sys.argv[1], 'rb').read()
m = re.search(rb'name: sched_switch\nID: (\d+)\n', d)
n = re.search(rb'name: sched_wakeup\nID: (\d+)\n', d)
a, b = m.group(1), n.group(1)
assert len(a) == len(b)
d = d[:m.start(1)] + b + d[m.end(1):]
d = d[:n.start(1)] + a + d[n.end(1):]
open(sys.argv[2], 'wb').write(d)
PY
t_exit "event ids that disagree" 1 -- tdat-merge -o "$O/x.dat" $C "$O/ids.dat"
t_stderr_match "names the event and the ids" 'ids.dat: event id [0-9]+ is sched:sched_(switch|wakeup) there but sched:sched_(switch|wakeup)'
t_assert "no output left behind" test ! -e "$O/x.dat"
t_exit "--name without =" 2 -- tdat-merge --name foo $A

# ---- clocks that differ are not comparable (issue 23, 6) ----
t_run "x86-tsc and mono" -- tdat-merge -o "$O/clocks.dat" $TD/clock-x86-tsc.dat $TD/clock-mono.dat
t_assert "still merges (exit $T_RC)" test "$T_RC" = 0
t_stderr_match "warns, naming both clocks" "clock-x86-tsc.dat uses the x86-tsc clock, .*clock-mono.dat the mono clock: their timestamps are not comparable"
t_run "counter and local, to text" -- tdat-convert $TD/clock-counter.dat $TD/v6.dat
t_stderr_match "tdat-convert warns too" "uses the counter clock, .*v6.dat the local clock"
t_run "one clock" -- tdat-merge -o "$O/one.dat" $TD/v6.dat $TD/two-buffers.dat
t_assert "no warning" test ! -s "$T_ERR"
t_exit "one input twice" 2 -- tdat-merge -o "$O/twice.dat" $TD/v6.dat $TD/v6.dat
t_stderr_match "is a usage error that says so" "v6.dat is named twice as an input"
done_testing
