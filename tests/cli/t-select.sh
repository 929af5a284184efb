#!/usr/bin/env bash
# t-select.sh: the selection options every tool shares (-e, -F, -v, --cpu,
# --pid, --comm, -B/--top, --start/--end), checked against trace-cmd report's
# own -F and --cpu on the real captures where both can say the same thing.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
cd testdata || exit 1

# same_as NAME "TRACE-CMD REPORT ARGS" "TDAT-CONVERT ARGS" FILE
same_as() {
	local name=$1 tc=$2 td=$3 f=$4
	if ! have_trace_cmd; then
		skip "$name" "trace-cmd is not installed"
		return
	fi
	eval "\"\$TRACE_CMD\" report $tc $f" >"$T_TMP/want" 2>/dev/null
	eval "t_run \"\$name\" -- tdat-convert $td $f"
	if ((T_RC == 0)) && cmp -s "$T_OUT" "$T_TMP/want" && (($(wc -l <"$T_OUT") > 1)); then
		ok "$name ($(($(wc -l <"$T_OUT") - 1)) events, as trace-cmd report $tc)"
	else
		not_ok "$name" "exit $T_RC; lines $(wc -l <"$T_OUT") vs $(wc -l <"$T_TMP/want")" \
			"$(diff "$T_TMP/want" "$T_OUT" | head -4)"
	fi
}

same_as "-F one event" "-F sched_switch" "-F sched_switch" v7-zstd.dat
same_as "-F with an expression" "-F 'sched_switch:prev_pid>1000'" "-F 'sched_switch:prev_pid>1000'" v7-zstd.dat
same_as "-F with COMM" "-F 'sched_wakeup:COMM==\"sh\"'" "-F 'sched_wakeup:COMM==\"sh\"'" v7-zstd.dat
same_as "two -F" "-F 'sched_switch:prev_state==1' -F irq" "-F 'sched_switch:prev_state==1' -F irq" v7-zstd.dat
same_as "-v -F drops matches" "-v -F sched_switch" "-v -F sched_switch" v7-zstd.dat
same_as "-F then -v -F" "-F sched_switch -v -F kernel_stack" "-F sched_switch -v -F kernel_stack" stack.dat
same_as "--cpu" "--cpu 1" "--cpu 1" v7-zstd.dat
same_as "--cpu with a range" "--cpu 0-1" "--cpu 0-1" v6.dat
# (trace-cmd 3.1.6 drops every instance's events with --cpu; tdat keeps them)
t_run "cpu instances" -- tdat-convert --cpu 0-1 two-buffers.dat
t_assert "--cpu keeps the events of instances" cmp -s "$T_OUT" ../tests/expected/two-buffers.text.out
same_as "--pid" "-F '.*:common_pid==12405'" "--pid 12405" v7-zstd.dat
same_as "--comm" "-F '.*:COMM==\"sleep\"'" "--comm sleep" v7-zstd.dat
same_as "-e globs" "-F 'sched_switch,sched_wakeup'" "-e 'sched:sched_sw*' -e sched_wakeup" v7-zstd.dat
same_as "stack traces follow a selected event" "-F kernel_stack" "-F kernel_stack" stack.dat

# A stack trace goes with the event just before it on its CPU (trace-cmd 3.1.6 also
# keeps one after an unselected event when the event before that was selected).
t_run "stacks" -- tdat-convert -F sched_switch stack.dat
t_assert "every kernel_stack kept follows a kept sched_switch on its CPU" \
	test "$(awk '/ kernel_stack: / { if (prev[$2] !~ /sched_switch/) bad++ } / \[[0-9]+\] / { prev[$2] = $0 } END { print bad + 0 }' "$T_OUT")" = 0
t_assert "and stacks were kept" grep -q 'kernel_stack:' "$T_OUT"

# buffers
t_run "top" -- tdat-convert -f csv --top two-buffers.dat
t_assert "--top keeps only the top buffer" test "$(tail -n +2 "$T_OUT" | cut -d, -f4 | sort -u)" = ""
t_assert "all of it" test $(($(wc -l <"$T_OUT") - 1)) = \
	$(($(wc -l <../tests/expected/two-buffers.text.out) - 1 - $(grep -c '^foo: ' ../tests/expected/two-buffers.text.out)))
t_run "-B foo" -- tdat-convert -f csv -B foo two-buffers.dat
t_assert "-B foo keeps only foo" test "$(tail -n +2 "$T_OUT" | cut -d, -f4 | sort -u)" = foo
t_assert "all of it" test $(($(wc -l <"$T_OUT") - 1)) = "$(grep -c '^ *foo: ' ../tests/expected/two-buffers.text.out)"

# time windows
first=$(tdat-convert -f csv v6.dat | sed -n 2p | cut -d, -f1)
t_run "window" -- tdat-convert -f csv --start +10ms --end +20ms v6.dat
t_assert "--start/--end +T keep a window relative to the first event" \
	awk -F, -v a=$((first + 10000000)) -v b=$((first + 20000000)) \
	'NR > 1 && ($1 < a || $1 > b) { bad = 1 } END { exit bad || NR < 3 }' "$T_OUT"
want=$(tdat-convert -f csv v6.dat | awk -F, -v a=$((first + 10000000)) -v b=$((first + 20000000)) \
	'NR > 1 && $1 >= a && $1 <= b' | wc -l)
t_assert "and every event in it ($want)" test $(($(wc -l <"$T_OUT") - 1)) = "$want"
secs=$((first / 1000000000)).$(printf '%09d' $((first % 1000000000)))
t_run "window abs" -- tdat-convert -f csv --start "$secs" --end "$secs" v6.dat
t_assert "--start S.NNNNNNNNN is exact to the ns" test "$(tail -n +2 "$T_OUT" | cut -d, -f1 | sort -u)" = "$first"

# windows late in compressed (chunked) and plain files: seeking skips pages, never events
for f in chunks.dat stack.dat extract.dat v7-none.dat; do
	all=$(tdat-convert -f csv $f | tail -n +2)
	n=$(echo "$all" | wc -l)
	a=$(echo "$all" | sed -n "$((n * 2 / 3))p" | cut -d, -f1)
	b=$(echo "$all" | sed -n "$((n * 5 / 6))p" | cut -d, -f1)
	t_run "$f late window" -- tdat-convert -f csv --start ${a}ns --end ${b}ns $f
	t_assert "$f: a late window holds exactly the events between its ends" \
		cmp -s <(tail -n +2 "$T_OUT") <(echo "$all" | awk -F, -v a=$a -v b=$b '$1 >= a && $1 <= b')
done

# errors
t_exit "a bad filter is a usage error" 2 -- tdat-convert -F 'sched_switch:prev_pid >' v6.dat
t_stderr_match "naming the filter" "filter 'sched_switch:prev_pid >'"
t_stderr_match "what was expected, at its end" "a number or a quoted string expected .*, at its end$"
t_exit "a filter outside the accepted shapes" 2 -- tdat-convert -F 'sched_switch:prev_pid==1 && && next_pid==0' v6.dat
t_stderr_match "says what was expected and where" 'a field name expected .*, at "&& next_pid==0"$'
t_exit "a bad CPU list" 2 -- tdat-convert --cpu 1-x v6.dat
t_stderr_match "naming the option and the list" "^tdat-convert: --cpu: invalid list '1-x'"
t_exit "a PID past 32 bits" 2 -- tdat-convert --pid 4294967297 v6.dat
t_stderr_match "naming the option and the list" "^tdat-convert: --pid: invalid list '4294967297'"
t_exit "a bad time" 2 -- tdat-convert --start yesterday v6.dat
t_stderr_match "naming the time" "invalid time 'yesterday'"
# an empty value (an unset shell variable) selected everything for --cpu and
# --pid and nothing for --comm and -e: each is now refused
for o in --cpu --pid --comm --event; do
	t_exit "an empty $o is a usage error" 2 -- tdat-convert $o '' v6.dat
	t_stderr_match "and says so" "^tdat-convert: $o needs a value, not an empty string"
done
done_testing
