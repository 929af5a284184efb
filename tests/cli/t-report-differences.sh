#!/usr/bin/env bash
# t-report-differences.sh: the differences from trace-cmd report that are on
# purpose (doc/tdat-convert.1 "DIFFERENCES FROM TRACE-CMD"), each pinned
# with both tools run on the same capture here, so that a change on either
# side shows:
#   - a stack trace goes with the event before it on its CPU: with
#     -F sched_switch on stack.dat trace-cmd 3.4 prints what tdat prints, and
#     trace-cmd 3.1.6 also keeps the stack traces of the events it drops;
#   - --cpu selects CPUs of every buffer: trace-cmd report (3.1.6 and 3.4)
#     prints only the top buffer's events, which is tdat's --top --cpu.
# trace-cmd is $TRACE_CMD (3.1.6), trace-cmd 3.4 $TRACE_CMD_34; a SKIP line
# when one is missing.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
cd testdata || exit 1
T34=${TRACE_CMD_34:-}

# "CPU TS" of every kernel_stack event of a report on stdin
stacks() {
	sed -n 's/^.*\[\([0-9]*\)\][^:]* \([0-9.]*\): kernel_stack:.*/\1 \2/p'
}
# the report on stdin without its stack traces (the event lines and their "=>" lines)
no_stacks() {
	awk '/^=>/ { if (skip) next } / kernel_stack: / { skip = 1; next } { skip = 0; print }'
}
# "CPU TS EVENT": for every stack trace of a full report on stdin, the event just before it
# on its CPU
owners() {
	awk 'match($0, /\[[0-9]+\][^:]* [0-9.]+: [a-z_0-9]+:/) {
		split(substr($0, RSTART, RLENGTH), f, " ")
		cpu = f[1]; gsub(/[^0-9]/, "", cpu)
		ts = f[length(f) - 1]; sub(/:$/, "", ts)
		ev = f[length(f)]; sub(/:$/, "", ev)
		if (ev == "kernel_stack") print cpu, ts, last[cpu]; else last[cpu] = ev
	}'
}

# --- stack traces and -F ---
if [[ -n $T34 && -x $T34 ]]; then
	"$T34" report -F sched_switch stack.dat >"$T_TMP/k34" 2>/dev/null
	tdat-convert --report-style 3.4 -F sched_switch stack.dat >"$T_TMP/kt34"
	t_assert "-F sched_switch, stack.dat: as trace-cmd 3.4 ($(stacks <"$T_TMP/k34" | wc -l) kernel_stack, tdat $(stacks <"$T_TMP/kt34" | wc -l))" \
		cmp -s "$T_TMP/k34" "$T_TMP/kt34"
else
	skip "-F sched_switch, stack.dat: as trace-cmd 3.4" "trace-cmd 3.4 is not there (TRACE_CMD_34)"
fi
if have_trace_cmd; then
	"$TRACE_CMD" report -F sched_switch stack.dat >"$T_TMP/k31" 2>/dev/null
	"$TRACE_CMD" report stack.dat 2>/dev/null | owners >"$T_TMP/own"
	tdat-convert --report-style 3.1 -F sched_switch stack.dat >"$T_TMP/kt31"
	stacks <"$T_TMP/k31" | sort >"$T_TMP/s31"
	stacks <"$T_TMP/kt31" | sort >"$T_TMP/st"
	n31=$(wc -l <"$T_TMP/s31") nt=$(wc -l <"$T_TMP/st")
	t_assert "-F sched_switch, stack.dat: trace-cmd 3.1.6 keeps $n31 kernel_stack events, tdat $nt (fewer)" \
		test "$nt" -gt 0 -a "$n31" -gt "$nt"
	t_assert "the events but the stack traces are the same" \
		cmp -s <(no_stacks <"$T_TMP/k31") <(no_stacks <"$T_TMP/kt31")
	t_assert "tdat's stack traces are among trace-cmd 3.1.6's" test -z "$(comm -13 "$T_TMP/s31" "$T_TMP/st")"
	bad=$(join <(comm -23 "$T_TMP/s31" "$T_TMP/st" | awk '{ print $1 "@" $2 }' | sort) \
		<(awk '{ print $1 "@" $2, $3 }' "$T_TMP/own" | sort) | awk '$2 == "sched_switch"' | wc -l)
	t_assert "every stack trace only trace-cmd 3.1.6 keeps follows an event -F drops ($(join <(comm -23 "$T_TMP/s31" "$T_TMP/st" | awk '{ print $1 "@" $2 }' | sort) <(awk '{ print $1 "@" $2, $3 }' "$T_TMP/own" | sort) | awk '{ print $2 }' | sort | uniq -c | tr -s ' \n' ' '))" \
		test "$bad" = 0
	bad=$(join <(awk '{ print $1 "@" $2 }' "$T_TMP/st" | sort) \
		<(awk '{ print $1 "@" $2, $3 }' "$T_TMP/own" | sort) | awk '$2 != "sched_switch"' | wc -l)
	t_assert "every stack trace tdat keeps follows a sched_switch" test "$bad" = 0
else
	skip "-F sched_switch, stack.dat: against trace-cmd 3.1.6" "trace-cmd is not installed"
fi

# --- --cpu and instances ---
for tc in "$TRACE_CMD:3.1" "$T34:3.4"; do
	bin=${tc%:*} style=${tc##*:}
	if [[ -z $bin || ! -x $bin ]]; then
		skip "--cpu 0, two-buffers.dat: trace-cmd for style $style" "not there"
		continue
	fi
	"$bin" report --cpu 0 two-buffers.dat >"$T_TMP/c" 2>/dev/null
	tdat-convert --report-style "$style" --top --cpu 0 two-buffers.dat >"$T_TMP/ct"
	tdat-convert --report-style "$style" --cpu 0 two-buffers.dat >"$T_TMP/ca"
	"$bin" report two-buffers.dat 2>/dev/null | grep '^ *foo: .*\[000\]' >"$T_TMP/foo"
	t_assert "--cpu 0, two-buffers.dat: trace-cmd $style's report ($(($(wc -l <"$T_TMP/c") - 1)) events, $(grep -c '^ *foo: ' "$T_TMP/c") of foo) is tdat's --top --cpu 0" \
		cmp -s "$T_TMP/c" "$T_TMP/ct"
	t_assert "tdat's --cpu 0 keeps foo's CPU 0 events ($(grep -c '^ *foo: ' "$T_TMP/ca")), as trace-cmd $style prints them without --cpu ($(wc -l <"$T_TMP/foo"))" \
		test -s "$T_TMP/foo" -a "$(grep '^ *foo: ' "$T_TMP/ca")" = "$(cat "$T_TMP/foo")"
	t_assert "and the top buffer's as trace-cmd $style --cpu 0" \
		cmp -s "$T_TMP/c" <(grep -v '^ *foo: ' "$T_TMP/ca")
done

# --- each is said in the manual ---
sec=$(sed -n '/^\.SH DIFFERENCES FROM TRACE-CMD/,/^\.SH [^D]/p' ../doc/tdat-convert.1)
t_assert "tdat-convert(1) has a section DIFFERENCES FROM TRACE-CMD" test -n "$sec"
has=0
grep -q 'kernel_stack' <<<"$sec" && grep -q 'B \\-\\-cpu and instances' <<<"$sec" && has=1
t_assert "that names the stack traces of -F and --cpu with instances" test "$has" = 1
done_testing
