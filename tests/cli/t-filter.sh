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
t_exit "--help" 0 -- tdat-filter --help
t_stdout_match "says what it writes" 'as a trace.dat'
done_testing
