#!/usr/bin/env bash
# t-info.sh: tdat-info on the real captures: header facts, per-CPU counts
# that agree with the events trace-cmd reports, lost events counted, and
# --json that is valid JSON with the same numbers.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata

t_golden "info of two-buffers.dat" info-two-buffers.out -- tdat-info $TD/two-buffers.dat
t_golden "info of lost-events.dat" info-lost-events.out -- tdat-info $TD/lost-events.dat
t_golden "info --json of v6.dat" info-v6.json -- tdat-info --json $TD/v6.dat
for f in v7-zstd v6 v7-none two-buffers markers extract stack; do
	t_run "$f json" -- tdat-info --json $TD/$f.dat
	printf "select json_valid(readfile('%s'));\n" "$T_OUT" >"$T_TMP/q.sql"
	t_assert "$f.dat: --json is valid JSON" test "$(sqlite3 :memory: <"$T_TMP/q.sql")" = 1
	events=$(sed -n 's/.*"events":\([0-9]*\),"lost".*/\1/p' "$T_OUT")
	# every event line of trace-cmd report has "[CPU]" and "TIMESTAMP:"
	want=$(grep -cE '^ *([a-z]+: )?.{16}-[0-9]+ +\[[0-9]{3}\] *[0-9.]+:' tests/expected/$f.text.out)
	t_assert "$f.dat: event count ($events) equals trace-cmd report's ($want)" test "$events" = "$want"
done
t_run "lost" -- tdat-info --json $TD/lost-events.dat
t_stdout_match "lost events are counted" '"lost":74808'
t_run "lost-nocount" -- tdat-info $TD/lost-events-nocount.dat
t_stdout_match "pages that lost an unknown number are flagged" ' 0\+ '
t_exit "several files" 0 -- tdat-info --json $TD/v6.dat $TD/markers.dat
t_assert "one JSON object per file, one per line" test "$(wc -l <"$T_OUT")" = 2
t_exit "--help" 0 -- tdat-info --help
t_exit "no input (standard input neither a pipe, a file nor a terminal) is a usage error" 2 -- tdat-info
t_run "-i FILE" -- tdat-info -i $TD/v6.dat
t_assert "-i FILE reads FILE, as trace-cmd's -i" cmp -s "$T_OUT" <(tdat-info $TD/v6.dat)
t_run "a pipe, no FILE" -- bash -c "tdat-info < $TD/v6.dat"
t_stdout_match "reads standard input" '^events: +1859$'
mkdir -p "$T_TMP/p"
tdat-split --events 700 -o "$T_TMP/p/x" $TD/v6.dat
t_run "a piece" -- tdat-info "$T_TMP/p/x.0003.dat"
t_stdout_match "says which piece of which split it is, of how many, cut how" '^piece: +3 of 3 of a split of v6 \(split [0-9a-f]{16}: --events 700\)$'
t_run "a piece, not the last" -- tdat-info --json "$T_TMP/p/x.0001.dat"
t_stdout_match "JSON: the piece object" '"piece":\{"split":"[0-9a-f]{16}","seq":1,"count":null,"name":"v6","source":"[0-9a-f]{16}","how":"--events 700"\}'
t_run "not a piece" -- tdat-info --json $TD/v6.dat
t_stdout_match "JSON: piece is null" '"piece":null'
t_exit "a bad option is a usage error" 2 -- tdat-info --frobnicate
done_testing
