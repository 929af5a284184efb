#!/usr/bin/env bash
# t-filter.sh: tdat-filter writes the selected events as a trace.dat (to a
# file or down a pipe) that trace-cmd report and every tdat tool read.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata

t_exit "no selection" 0 -- tdat-filter -o "$T_TMP/all.dat" $TD/v7-zstd.dat
t_golden "keeps every event: the report is the input's" v7-zstd.text.out -- tdat-convert "$T_TMP/all.dat"
t_exit "-F" 0 -- tdat-filter -F 'sched_switch:prev_pid>1000' -o "$T_TMP/sw.dat" $TD/v7-zstd.dat
tdat-convert -F 'sched_switch:prev_pid>1000' $TD/v7-zstd.dat >"$T_TMP/want.txt"
t_run "read back" -- tdat-convert "$T_TMP/sw.dat"
t_assert "holds exactly the selected events" cmp -s "$T_OUT" "$T_TMP/want.txt"
t_assert "and some" test "$(wc -l <"$T_OUT")" -gt 10
if have_trace_cmd; then
	"$TRACE_CMD" report -F 'sched_switch:prev_pid>1000' $TD/v7-zstd.dat >"$T_TMP/tc-want.txt" 2>/dev/null
	"$TRACE_CMD" report "$T_TMP/sw.dat" >"$T_TMP/tc-got.txt" 2>/dev/null
	t_assert "trace-cmd reads it as trace-cmd report -F shows the input" cmp -s "$T_TMP/tc-got.txt" "$T_TMP/tc-want.txt"
else
	skip "trace-cmd reads it as trace-cmd report -F shows the input" "trace-cmd is not installed"
fi
t_run "pipe" -- bash -c "set -o pipefail; tdat-filter -e sched --cpu 1 $TD/v6.dat | tdat-convert -f csv -"
tdat-convert -f csv -e sched --cpu 1 $TD/v6.dat >"$T_TMP/want.csv"
t_assert "tdat-filter | tdat-convert - is the same as selecting in tdat-convert" cmp -s "$T_OUT" "$T_TMP/want.csv"
t_assert "and the pipeline succeeded" test "$T_RC" = 0
t_exit "-f csv still works" 0 -- tdat-filter -f csv --comm sleep $TD/v6.dat
t_stdout_match "with only the selected task" '^[0-9]+,[01],0,,[0-9]+,sleep,'
# Each selection, written as a trace.dat: trace-cmd report of it equals
# trace-cmd report's own selection of the input.
filtered_as() {
	local name=$1 tc=$2 td=$3 f=$TD/$4
	if ! have_trace_cmd; then
		skip "$name" "trace-cmd is not installed"
		return
	fi
	eval "\"\$TRACE_CMD\" report $tc $f" >"$T_TMP/want" 2>/dev/null
	eval "tdat-filter $td -o \"\$T_TMP/sel.dat\" $f"
	"$TRACE_CMD" report "$T_TMP/sel.dat" >"$T_TMP/got" 2>/dev/null
	if cmp -s "$T_TMP/got" "$T_TMP/want" && (($(wc -l <"$T_TMP/got") > 1)); then
		ok "$name ($(($(wc -l <"$T_TMP/got") - 1)) events, as trace-cmd report $tc)"
	else
		not_ok "$name" "$(diff "$T_TMP/want" "$T_TMP/got" | head -4)"
	fi
}
filtered_as "-e sched:sched_switch" "-F sched_switch" "-e sched:sched_switch" v7-zstd.dat
filtered_as "--cpu" "--cpu 1" "--cpu 1" v7-zstd.dat
filtered_as "--pid" "-F '.*:common_pid==12405'" "--pid 12405" v7-zstd.dat
filtered_as "--comm" "-F '.*:COMM==\"sleep\"'" "--comm sleep" v7-zstd.dat
filtered_as "-F with an expression and -v" "-F irq -v -F 'irq_handler_entry:irq==1'" \
	"-F irq -v -F 'irq_handler_entry:irq==1'" v6.dat
filtered_as "lost events kept" "" "" lost-events.dat
# a window: the events between the 100th and the 200th, by their timestamps
a=$(tdat-convert -f csv $TD/v6.dat | sed -n 101p | cut -d, -f1)
b=$(tdat-convert -f csv $TD/v6.dat | sed -n 201p | cut -d, -f1)
t_exit "time window" 0 -- tdat-filter --start "${a}ns" --end "${b}ns" -o "$T_TMP/win.dat" $TD/v6.dat
tdat-convert -f csv $TD/v6.dat | awk -F, -v a="$a" -v b="$b" 'NR == 1 || ($1 >= a && $1 <= b)' >"$T_TMP/want.csv"
tdat-convert -f csv "$T_TMP/win.dat" >"$T_TMP/got.csv"
t_assert "keeps exactly the events of the window" cmp -s "$T_TMP/got.csv" "$T_TMP/want.csv"
t_assert "about a hundred of them" test "$(wc -l <"$T_TMP/got.csv")" -ge 100
t_exit "--help" 0 -- tdat-filter --help
t_stdout_match "says what it writes" 'as a trace.dat'
done_testing
