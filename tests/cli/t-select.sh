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

# ---- a selection that names what the input has not is a usage error (issue 23, 4) ----
# in every tool that selects, before anything is written
for tool in tdat-convert tdat-filter tdat-split; do
	extra=()
	[[ $tool == tdat-split ]] && extra=(--events 100 -o "$T_TMP/sel")
	[[ $tool == tdat-filter ]] && extra=(-o "$T_TMP/sel.dat")
	t_exit "$tool -e 'shed:*' (a typo)" 2 -- $tool "${extra[@]}" -e 'shed:*' v6.dat
	t_stderr_match "$tool: names the glob and the closest system" "^$tool: event 'shed:\*' matches no event format.*did you mean 'sched:\*'\?"
	t_exit "$tool --cpu 7 of a 2-CPU trace" 2 -- $tool "${extra[@]}" --cpu 7 v6.dat
	t_stderr_match "$tool: says which CPUs there are" "^$tool: no input has CPU 7 \(CPUs: 0-1\)"
	t_exit "$tool -B fo" 2 -- $tool "${extra[@]}" -B fo two-buffers.dat
	t_stderr_match "$tool: names the closest buffer and all of them" 'no input has a buffer "fo"; did you mean "foo"\? \(buffers: top, foo\)'
	t_exit "$tool --end before --start" 2 -- $tool "${extra[@]}" --start 470.3 --end 470.2 v6.dat
	t_stderr_match "$tool: says the window ends before it starts" 'time window ends \(470\.200000000\) before it starts \(470\.300000000\)'
	t_assert "$tool: nothing was written" test -z "$(ls "$T_TMP" | grep '^sel')"
done
t_exit "-e sched_swich (an event)" 2 -- tdat-convert -e sched_swich v6.dat
t_stderr_match "names the closest event" "did you mean 'sched_switch'\?"
t_exit "-e sched:sched_swich" 2 -- tdat-convert -e sched:sched_swich v6.dat
t_stderr_match "names the closest event of that system" "did you mean 'sched:sched_switch'\?"
t_exit "-e nothing-like-it" 2 -- tdat-convert -e 'zzzz:*' v6.dat
t_stderr_match "lists the systems there are" 'its systems: .*sched'
tdat-merge -o "$T_TMP/m.dat" v6.dat two-buffers.dat
t_run "--top of a merged file: the top buffers of the inputs it holds" -- tdat-convert -f csv --top "$T_TMP/m.dat"
tdat-convert -f csv --top v6.dat two-buffers.dat >"$T_TMP/top.csv"
t_assert "as --top of the inputs given themselves ($(wc -l <"$T_OUT") lines)" \
	cmp -s "$T_OUT" "$T_TMP/top.csv"
t_exit "-B of no buffer in a merged file" 2 -- tdat-convert -B bar "$T_TMP/m.dat"
t_stderr_match "lists its buffers as INPUT and INPUT:INSTANCE" \
	'no input has a buffer "bar".*\(buffers: v6, two-buffers, two-buffers:foo\)'
t_exit "+T window that ends before it starts" 2 -- tdat-convert --start +20ms --end +10ms v6.dat
t_exit "-e of an event with a format but no occurrence is fine" 0 -- tdat-convert -e sched:sched_process_hang v6.dat

# ---- a valid selection that keeps nothing: the empty output and why (issue 23, 5) ----
t_run "--end 10ms: absolute, before a trace at 470 s" -- tdat-convert --end 10ms v6.dat
t_assert "exit 0" test "$T_RC" = 0
t_assert "the empty output" test "$(cat "$T_OUT")" = "cpus=2"
t_stderr_match "says the window is before the trace, with its span, and suggests +10ms" \
	'^tdat-convert: no event selected: the window ends at 0\.010000, before the trace starts \(it spans 470\.153446 \.\. 470\.448473\); --end \+10ms counts from its first event$'
t_run "--start after the trace" -- tdat-convert --start 500 -f csv v6.dat
t_assert "exit 0, the CSV header only" test "$T_RC" = 0 -a "$(wc -l <"$T_OUT")" = 1
t_stderr_match "says the window starts after the trace ends" 'the window starts at 500\.000000, after the trace ends \(it spans 470\.153446 \.\. 470\.448473\)'
# a gap between two events, strictly inside it
gap=$(tdat-convert -f csv v6.dat | tail -n +2 | cut -d, -f1 | awk 'NR > 1 && $1 - p > 1000 { printf "%.0f %.0f\n", p + 1, $1 - 1; exit } { p = $1 }')
t_run "a window between two events" -- tdat-convert --start "${gap% *}ns" --end "${gap#* }ns" v6.dat
t_stderr_match "says no event lies in it" 'no event lies in the time window \(the trace spans 470\.153446 \.\. 470\.448473\)'
t_run "--pid that never runs" -- tdat-convert --pid 999999 v6.dat
t_assert "exit 0" test "$T_RC" = 0
t_stderr_match "says the task has no event" 'no event selected: the tasks selected \(--pid, --comm\) have no event'
t_run "-e of a type that never occurs" -- tdat-convert -e sched:sched_process_hang v6.dat
t_stderr_match "says no event of the type occurs" 'no event of the types selected \(-e\) occurs'
t_run "a filter that matches nothing" -- tdat-convert --cpu 0 -F 'sched_switch:prev_pid==999999' v6.dat
t_stderr_match "says the filter kept nothing" 'no event matches the filters \(-F\)'
t_run "parts that each keep something, but not together" -- tdat-convert -B foo --cpu 0 -e 'sched:*' two-buffers.dat
t_stderr_match "says so" 'each part of the selection keeps some event, but no event passes all of them'
t_run "a selection that keeps events" -- tdat-convert -e sched_switch v6.dat
t_assert "says nothing" test ! -s "$T_ERR"
t_run "tdat-split: a window before the trace" -- tdat-split --end 10ms --events 10 -o "$T_TMP/none" v6.dat
t_stderr_match "tdat-split says why too" 'window ends at 0\.010000, before the trace starts'

# ---- times with fractions and units (issue 23, 8) ----
tdat-convert -f csv v6.dat | tail -n +2 | cut -d, -f1 >"$T_TMP/ts"
first=$(head -n 1 "$T_TMP/ts")
t_run "--start +1.5ms --end +2.5ms" -- tdat-convert -f csv --start +1.5ms --end +2.5ms v6.dat
t_assert "keeps the events 1.5 to 2.5 ms after the first" cmp -s <(tail -n +2 "$T_OUT" | cut -d, -f1) \
	<(awk -v a=$((first + 1500000)) -v b=$((first + 2500000)) '$1 >= a && $1 <= b' "$T_TMP/ts")
t_run "+0.0025s is +2.5ms" -- tdat-convert -f csv --start +1500us --end +0.0025s v6.dat
t_assert "the same events" cmp -s <(tail -n +2 "$T_OUT" | cut -d, -f1) \
	<(awk -v a=$((first + 1500000)) -v b=$((first + 2500000)) '$1 >= a && $1 <= b' "$T_TMP/ts")
t_run "--ts-offset 1.5ms" -- tdat-convert -f csv --ts-offset 1.5ms v6.dat
t_assert "shifts every event by 1500000 ns" test "$(sed -n 2p "$T_OUT" | cut -d, -f1)" = $((first + 1500000))
t_run "--ts-offset -0.25s" -- tdat-convert -f csv --ts-offset -0.25s v6.dat
t_assert "shifts back by 250000000 ns" test "$(sed -n 2p "$T_OUT" | cut -d, -f1)" = $((first - 250000000))
for bad in 1.5ns 1.0000000001s 1..5ms +-2ms 1.5xs .ms 470.1234567891; do
	t_exit "--start $bad is refused" 2 -- tdat-convert --start "$bad" v6.dat
done
t_exit "--ts-offset 1.5 (no unit: ns) is refused" 2 -- tdat-convert --ts-offset 1.5 v6.dat
done_testing
