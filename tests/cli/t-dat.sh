#!/usr/bin/env bash
# t-dat.sh: tdat-convert -f dat writes a trace.dat that trace-cmd report
# prints exactly like the input: every capture, as v7 zstd, v7 none, v6 and
# v7 zlib, selections, a pipe output, lost events, per-CPU counts, refusals.
# Debian's trace-cmd 3.1.6 reads no zlib: where the input or the output is
# zlib-compressed, trace-cmd 3.4 reads both (our own reader when it is not
# there).
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
O=$T_TMP

# report FILE [ARGS...]: the text as trace-cmd report prints it (our own
# text writer, which equals it, when trace-cmd is not there); REPORT=34:
# as trace-cmd 3.4 does.
report() {
	local f=$1
	shift
	if [[ ${REPORT-} == 34 ]] && have_trace_cmd_34; then
		"$TRACE_CMD_34" report "$@" -i "$f" 2>/dev/null
	elif [[ ${REPORT-} == 34 ]]; then
		tdat-convert --report-style 3.4 "$@" "$f"
	elif have_trace_cmd; then
		"$TRACE_CMD" report "$@" "$f" 2>/dev/null
	else
		tdat-convert "$@" "$f"
	fi
}

# same_report NAME OUT.dat IN.dat [SELECTION...]: OUT's report equals IN's.
same_report() {
	local name=$1 out=$2 in=$3 REPORT=
	shift 3
	if is_zlib "$in" || is_zlib "$out"; then
		REPORT=34
		have_trace_cmd_34 || name="$name (trace-cmd 3.4 missing: our reader)"
	fi
	report "$in" "$@" >"$O/want.txt"
	report "$out" >"$O/got.txt"
	if [[ -s $O/want.txt ]] && cmp -s "$O/got.txt" "$O/want.txt"; then
		ok "$name"
	else
		not_ok "$name" "$(diff "$O/want.txt" "$O/got.txt" | head -n 5)"
	fi
}

# --- every capture, every layout ---
for f in $TD/*.dat; do
	b=$(basename "$f" .dat)
	for v in zstd none v6 zlib; do
		case $v in
		zstd) args=() ;;
		none) args=(--compression none) ;;
		v6) args=(--file-version 6) ;;
		zlib) args=(--compression zlib) ;;
		esac
		t_run "$b $v" -- tdat-convert -f dat "${args[@]}" -o "$O/$b.$v.dat" "$f"
		if ((T_RC != 0)); then
			not_ok "$b.dat as $v: conversion" "exit $T_RC: $(head -n 2 "$T_ERR")"
			continue
		fi
		same_report "$b.dat as $v: trace-cmd report is byte-identical" "$O/$b.$v.dat" "$f"
	done
	tdat-convert "$f" >"$O/want.txt"
	tdat-convert "$O/$b.zstd.dat" >"$O/got.txt"
	t_assert "$b.dat: tdat-convert of the copy equals tdat-convert of the input" \
		cmp -s "$O/got.txt" "$O/want.txt"
done

# --- selections ---
t_exit "-F sched_switch" 0 -- tdat-convert -f dat -F sched_switch -o "$O/sw.dat" $TD/v7-zstd.dat
same_report "-F sched_switch: report equals trace-cmd report -F sched_switch" \
	"$O/sw.dat" $TD/v7-zstd.dat -F sched_switch
t_exit "--cpu 1" 0 -- tdat-convert -f dat --cpu 1 -o "$O/c1.dat" $TD/v7-zstd.dat
same_report "--cpu 1: report equals trace-cmd report --cpu 1" "$O/c1.dat" $TD/v7-zstd.dat --cpu 1
t_run "info of --cpu 1" -- tdat-info "$O/c1.dat"
t_stdout_match "the CPU without events is still listed, with no data" '^\(top\) +0 +0 +0 +0 '
# trace-cmd 3.1.6 report -F crashes on two-buffers.dat: compare with our text
t_exit "a buffer left without events" 0 -- tdat-convert -f dat -e sched_switch -o "$O/e.dat" \
	$TD/two-buffers.dat
tdat-convert -e sched_switch $TD/two-buffers.dat >"$O/want.txt"
report "$O/e.dat" >"$O/got.txt"
t_assert "a buffer without events: the report has the selected events only" \
	cmp -s "$O/got.txt" "$O/want.txt"

# --- pipes, lost events, counts ---
t_run "pipe" -- sh -c "tdat-convert -f dat -o - $TD/two-buffers.dat | cat >'$O/pipe.dat'"
t_assert "a pipe output gives the same bytes as a file output" \
	cmp -s "$O/pipe.dat" "$O/two-buffers.zstd.dat"
t_run "pipe v6" -- sh -c "tdat-convert -f dat --file-version 6 -o - $TD/v6.dat | cat >'$O/pipe6.dat'"
t_assert "v6 to a pipe too" cmp -s "$O/pipe6.dat" "$O/v6.v6.dat"
for v in zstd v6; do
	t_assert "lost-events.dat as $v keeps its 6 drop lines" \
		test "$(report "$O/lost-events.$v.dat" | grep -c 'EVENTS DROPPED')" = 6
	t_assert "lost-events-nocount.dat as $v keeps its drop line without a count" \
		grep -q 'CPU:1 \[EVENTS DROPPED\]' <(report "$O/lost-events-nocount.$v.dat")
done
counts() {	# buffer, cpu, events, lost of each row of tdat-info's table
	tdat-info "$1" | awk '/^buffer +cpu/ { on = 1; next } /^events:/ { on = 0 } on { print $1, $2, $3, $4 }'
}
for b in two-buffers lost-events v6-two-buffers chunks; do
	t_assert "$b.dat: tdat-info shows the same per-CPU event counts" \
		test "$(counts "$O/$b.zstd.dat")" = "$(counts $TD/$b.dat)"
done

# --- whole pages are copied when nothing is selected; damage still shows ---
off=$(tdat-info --json $TD/v6.dat | python3 -c 'import json, sys; print(json.load(sys.stdin)["buffers"][0]["cpus"][0]["offset"])')
python3 - $TD/v6.dat "$O/bad-event.dat" "$off" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
page = int(sys.argv[3]) + 4096          # the second page of CPU 0
d[page + 16:page + 24] = (0).to_bytes(4, 'little') + (0xfffff0).to_bytes(4, 'little')
open(sys.argv[2], 'wb').write(bytes(d))
PY
t_exit "an event length past its page" 1 -- tdat-convert -f dat -o "$O/copied.dat" "$O/bad-event.dat"
t_stderr_match "is reported with its offset" "bad-event.dat: .*event length runs past the page.*$((off + 4096))"
n_in=$(tdat-convert -f csv $TD/v6.dat | wc -l)
n_out=$(tdat-convert -f csv "$O/copied.dat" | wc -l)
t_assert "the other pages are kept ($n_out of $n_in rows)" test "$n_out" -lt "$n_in" -a "$n_out" -gt $((n_in / 2))
t_exit "and the copy reads without damage" 0 -- tdat-convert -f csv -o /dev/null "$O/copied.dat"

# --- refusals ---
t_exit "several inputs as v6" 1 -- tdat-convert -f dat --file-version 6 -o "$O/m.dat" $TD/v6.dat $TD/markers.dat
t_stderr_match "several inputs as v6: the reason is given" 'several inputs.*use v7'
t_assert "several inputs as v6: no output left behind" test ! -e "$O/m.dat"
if command -v script >/dev/null; then
	t_run "terminal" -- script -qec "tdat-convert -f dat $TD/v6.dat" /dev/null
	t_assert "a terminal is refused" grep -q 'refusing to write binary output to a terminal' "$T_OUT"
else
	skip "a terminal is refused" "no script(1)"
fi
t_exit "--file-version 5" 2 -- tdat-convert -f dat --file-version 5 -o "$O/b.dat" $TD/v6.dat
t_exit "--compression lzma" 2 -- tdat-convert -f dat --compression lzma -o "$O/b.dat" $TD/v6.dat
t_exit "--compression without -f dat" 2 -- tdat-convert --compression none $TD/v6.dat
t_exit "-o x.dat picks the dat format" 0 -- tdat-convert -o "$O/auto.dat" $TD/markers.dat
t_assert "the .dat output is the zstd default" cmp -s "$O/auto.dat" "$O/markers.zstd.dat"
done_testing
