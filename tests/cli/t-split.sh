#!/usr/bin/env bash
# t-split.sh: tdat-split cuts a capture into complete trace.dat pieces; in
# every mode the pieces, read together (or merged by tdat-merge), give back
# every event of the input exactly once, and trace-cmd report reads each.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
O=$T_TMP

# rows FILE...: the events as CSV without the input column (pieces are inputs).
rows() { tdat-convert -f csv "$@" | cut -d, -f1,2,4-; }
count() {
	if have_trace_cmd; then "$TRACE_CMD" report "$1" 2>/dev/null; else tdat-convert "$1"; fi |
		grep -vc 'cpus='
}

# check MODE-NAME INPUT PIECES...: the pieces hold the input's events, once.
check() {
	local name=$1 in=$2 n=0 bad=
	shift 2
	t_assert "$name: more than one piece ($#)" test $# -gt 1
	rows "$@" >"$O/got.csv"
	rows "$in" >"$O/want.csv"
	t_assert "$name: every event exactly once, in order" cmp -s "$O/got.csv" "$O/want.csv"
	for p; do
		n=$((n + $(count "$p")))
		if have_trace_cmd && ! "$TRACE_CMD" report "$p" >/dev/null 2>&1; then bad="$bad $p"; fi
	done
	t_assert "$name: trace-cmd report reads every piece${bad:+ (not:$bad)}" test -z "$bad"
	t_assert "$name: their reports hold as many events as the input's" test "$n" = "$(count "$in")"
}

t_exit "--events" 0 -- tdat-split --events 5000 -o "$O/ev" $TD/chunks.dat
check "--events" $TD/chunks.dat "$O"/ev.*.dat
t_assert "--events: 7 pieces of 5000, the last shorter" test "$(ls "$O"/ev.*.dat | wc -l)" = 7
t_assert "--events: the first has 5000" test "$(count "$O/ev.0001.dat")" = 5000
t_assert "--events: pieces are numbered from 0001" test -e "$O/ev.0001.dat" -a -e "$O/ev.0007.dat"

t_exit "--every" 0 -- tdat-split --every 100ms -o "$O/t" $TD/chunks.dat
check "--every" $TD/chunks.dat "$O"/t.*.dat
first() { tdat-convert -t "$1" | grep -oE ' [0-9]+\.[0-9]{9}: ' | head -n 1 | tr -d ' :.'; }
last() { tdat-convert -t "$1" | grep -oE ' [0-9]+\.[0-9]{9}: ' | tail -n 1 | tr -d ' :.'; }
t_assert "--every: no piece spans more than 100 ms" \
	bash -c 'for p in "$@"; do f=$(tdat-convert -t "$p" | grep -oE " [0-9]+\.[0-9]{9}: " | tr -d " :." | sed -n "1p;\$p" | paste -sd" "); set -- $f; test $(( ${f#* } - ${f% *} )) -lt 100000000 || exit 1; done' _ "$O"/t.*.dat

t_exit "--size" 0 -- tdat-split --size 100k -o "$O/s" $TD/chunks.dat
check "--size" $TD/chunks.dat "$O"/s.*.dat
t_assert "--size: every piece but the last is 60k..140k" \
	bash -c 'ls "$@" | head -n -1 | while read -r p; do n=$(stat -c %s "$p"); ((n > 61440 && n < 143360)) || exit 1; done' _ "$O"/s.*.dat

t_exit "--per-cpu" 0 -- tdat-split --per-cpu -o "$O/c" $TD/chunks.dat
check "--per-cpu" $TD/chunks.dat "$O/c.cpu0.dat" "$O/c.cpu1.dat"
t_run "cpu1's piece" -- tdat-convert -f csv "$O/c.cpu1.dat"
t_assert "--per-cpu: a CPU's piece holds only that CPU" test "$(cut -d, -f2 "$T_OUT" | sort -u | paste -sd,)" = "1,cpu"

t_exit "--per-buffer" 0 -- tdat-split --per-buffer -o "$O/b" $TD/two-buffers.dat
check "--per-buffer" $TD/two-buffers.dat "$O/b.top.dat" "$O/b.foo.dat"
t_run "the instance's piece" -- tdat-info "$O/b.foo.dat"
t_stdout_match "--per-buffer: the instance keeps its name" '^  foo +events'

# tdat-merge puts pieces back together
t_exit "tdat-merge of the pieces" 0 -- tdat-merge -o "$O/back.dat" "$O"/ev.*.dat
t_assert "has every event" test "$(count "$O/back.dat")" = "$(count $TD/chunks.dat)"

# selection first, stdin, defaults
t_exit "selection and stdin" 0 --stdin $TD/v6.dat -- tdat-split -e sched:sched_switch --events 50 -o "$O/sel" -
tdat-convert -f csv -e sched:sched_switch $TD/v6.dat | cut -d, -f1,2,4- >"$O/want.csv"
rows "$O"/sel.*.dat >"$O/got.csv"
t_assert "the pieces hold exactly the selected events" cmp -s "$O/got.csv" "$O/want.csv"
t_exit "v6 pieces without compression" 0 -- tdat-split --file-version 6 --events 1000 -o "$O/v6" $TD/v6.dat
t_run "version" -- tdat-info "$O/v6.0001.dat"
t_stdout_match "are version 6" '^version: +6'

t_exit "default prefix" 0 -- bash -c "cd '$O' && tdat-split --events 1000 '$PWD/$TD/v6.dat'"
t_assert "is the input's name without .dat" test -e "$O/v6.0001.dat" -a -e "$O/v6.0002.dat"

# refusals, and nothing left behind
t_exit "no mode" 2 -- tdat-split -o "$O/x" $TD/v6.dat
t_exit "two modes" 2 -- tdat-split --events 5 --per-cpu -o "$O/x" $TD/v6.dat
t_exit "bad count" 2 -- tdat-split --events 0 -o "$O/x" $TD/v6.dat
t_exit "a duration without its unit" 2 -- tdat-split --every 5 -o "$O/x" $TD/v6.dat
t_stderr_match "says a unit is needed" "invalid --every '5' \\(a duration with its unit"
t_exit "a size past 64 bits" 2 -- tdat-split --size 17179869184G -o "$O/x" $TD/v6.dat
t_stderr_match "says it is too large" "^tdat-split: --size '17179869184G' is too large"
t_exit "a count past 64 bits" 2 -- tdat-split --events 18446744073709551616 -o "$O/x" $TD/v6.dat
t_exit "a signed size" 2 -- tdat-split --size +5k -o "$O/x" $TD/v6.dat
t_exit "two inputs" 2 -- tdat-split --events 5 $TD/v6.dat $TD/v6.dat
t_exit "an output that cannot be created" 1 -- tdat-split --events 5 -o /nonexistent/dir/x $TD/v6.dat
t_exit "nothing selected" 0 -- tdat-split -e nosuch:event --events 5 -o "$O/none" $TD/v6.dat
t_stderr_match "says so" 'no piece written'
t_assert "no file left behind" test -z "$(ls "$O" | grep -E '^(x|none)')"
done_testing
