#!/usr/bin/env bash
# t-man.sh: the man pages format without warnings (as man shows them on a
# terminal, at several widths), and each tool's --help usage shows the same
# options its man page SYNOPSIS lists.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"

# GROFF_CLEAN PAGE: formatted for a terminal 65 to 120 columns wide, the
# warnings ("cannot adjust line" and the like, which groff -z alone does not
# show) on standard output.
GROFF_CLEAN='for w in 65 72 80 100 120; do
	groff -man -Tutf8 -ww -z -rLL=${w}n "$1" 2>&1 | sed "s/^/$w columns: /"
done'
# CTRL: a control byte (not a newline or a tab) on a line, as grep prints it
CTRL=$'[\x01-\x08\x0b-\x1f\x7f]'
# LEFT: a roff escape the formatter left as it was (\fB, \-, \e, \(..)
LEFT='\\f[BIRP(]\|\\[-e(]'
for page in doc/*.[0-9]; do
	if command -v groff >/dev/null; then
		t_run "$page" -- bash -c "$GROFF_CLEAN" _ "$page"
		t_assert "$page formats without warnings" test ! -s "$T_OUT" -a "$T_RC" = 0
		# rendered as man shows it on a terminal, without bold and underline
		t_run "$page rendered" -- groff -man -Tutf8 -rLL=80n -P-cbou "$page"
		t_assert "$page renders (exit 0, text)" test "$T_RC" = 0 -a -s "$T_OUT"
		is "$page: no control byte and no escape left in the rendered text" \
			"$(grep -n "$CTRL\|$LEFT" "$T_OUT" | head -n 3)" ""
	else
		skip "$page formats without warnings" "groff is not installed"
		skip "$page renders" "groff is not installed"
		skip "$page: no control byte in the rendered text" "groff is not installed"
	fi
	# a form feed where "\f" was meant (a font escape written through printf) shows here
	is "$page: no control byte in its source" "$(grep -n "$CTRL" "$page" | cat -A | head -n 3)" ""
done
for page in doc/*.1; do
	tool=$(basename "$page" .1)
	t_run "$tool --help" -- "$tool" --help
	# the usage lines, up to the first empty line (tdat-capture's say OPTIONS)
	[[ $tool == tdat-capture ]] || sed -i '/^$/,$d' "$T_OUT"
	missing=
	for opt in $(sed -n '/^\.SH SYNOPSIS/,/^\.SH/p' "$page" | grep -o '\\-\\-[a-z-]*' | sed 's/\\//g'); do
		grep -q -- "$opt" "$T_OUT" || missing="$missing $opt"
	done
	t_assert "$tool --help's usage lists every long option of the SYNOPSIS${missing:+ (missing:$missing)}" test -z "$missing"
	t_run "$tool's NAME" -- sed -n '/^\.SH NAME/,/^\.SH/p' "$page"
	t_assert "$tool's man page has a NAME line" grep -q "^$tool \\\\- " "$T_OUT"
done
t_run "tdat-convert's NAME" -- sed -n '/^\.SH NAME/{n;p}' doc/tdat-convert.1
t_stdout_match "tdat-convert's NAME line names every format, Perfetto's too" 'text.*CSV.*JSON.*SQLite.*Perfetto.*trace\.dat'
# every page says what 130 and 143 mean (a signal ends the tool: 128 + N)
says_signals() {
	local s
	s=$(sed -n '/^\.SH "\{0,1\}EXIT STATUS/,/^\.SH/p' "$1")
	grep -q 130 <<<"$s" && grep -q 143 <<<"$s"
}
for page in doc/*.1; do
	t_assert "$page: EXIT STATUS says 130 and 143" says_signals "$page"
done
# The example queries of tdat-convert(1), run as the page writes them in a
# scratch folder beside testdata/ (those of tdat-sqlite(7) and tdat-parquet(7):
# t-sqlite.sh, t-dataset.sh): each count is trace-cmd report's.
# ex_block PAGE N: the N-th .nf block of PAGE's EXAMPLES that runs sqlite3, as a shell script
ex_block() {
	sed -n '/^\.SH EXAMPLES/,/^\.SH SEE ALSO/p' "$1" |
		awk -v want="$2" '/^\.nf/ { b = ""; on = 1; next } /^\.fi/ { if (b ~ /sqlite3/ && ++n == want) print b; on = 0 }
			on { sub(/^\.B "?/, ""); sub(/"$/, ""); b = b $0 "\n" }' |
		sed 's/\\e$/\\/; s/\\-/-/g'
}
# tc_counts FILE [next]: "NAME|COUNT" of trace-cmd report per event, or per
# sched_switch's next task ("prev ==> next:pid [prio]", the plugin's line)
tc_counts() {
	if [[ -n ${2-} ]]; then
		"$TRACE_CMD" report "$1" 2>/dev/null |
			sed -n 's/.* sched_switch: .* ==> \(.*\):[0-9][0-9]* \[[0-9]*\]$/\1/p'
	else
		"$TRACE_CMD" report "$1" 2>/dev/null | sed -n 's/^[^[]*\[[0-9]*\] *[0-9.]*: \([^ :]*\):.*/\1/p'
	fi | sort | uniq -c | awk '{ print $2 "|" $1 }' | sort
}
EX=$T_TMP/examples
mkdir -p "$EX" && ln -s "$TOP_SRCDIR/testdata" "$EX/testdata"
if command -v sqlite3 >/dev/null && have_trace_cmd; then
	for n in 1 2; do
		ex_block doc/tdat-convert.1 $n >"$EX/$n.sh"
		t_run "tdat-convert(1): example query $n" -- bash -c 'cd "$1" && bash "$2"' _ "$EX" "$EX/$n.sh"
		sort "$T_OUT" >"$EX/$n.out"
		t_assert "tdat-convert(1): example query $n runs ($(grep -c . "$EX/$n.sh") lines, $(wc -l <"$EX/$n.out") rows)" \
			test "$T_RC" = 0 -a -s "$EX/$n.out"
	done
	is "tdat-convert(1): events per type from the CSV: trace-cmd report's" "$(cat "$EX/1.out")" \
		"$(tc_counts testdata/two-buffers.dat)"
	is "tdat-convert(1): sched_switch's next_comm from the typed CSV: trace-cmd report's" "$(cat "$EX/2.out")" \
		"$(tc_counts testdata/v7-zstd.dat next)"
else
	skip "tdat-convert(1)'s example queries" "sqlite3 or trace-cmd is not installed"
fi
# tdat-info(1)'s jq example
if command -v jq >/dev/null; then
	t_run "tdat-info(1): the jq example" -- bash -c "$(sed -n '/^\.SH EXAMPLES/,/^\.SH/p' doc/tdat-info.1 |
		sed -n 's/^\.B \(tdat-info --json.* | jq .*\)/\1/p' | sed 's/\\-/-/g')"
	is "tdat-info(1): jq .lost gives the lost events" "$(cat "$T_OUT")" \
		"$(tdat-info --json testdata/lost-events.dat | grep -o '"lost":[0-9]*' | tail -n 1 | cut -d: -f2)"
else
	skip "tdat-info(1): the jq example" "jq is not installed (apt-get install jq)"
fi
# Every public function of libfmt/tdat.h has its place in doc/tdat.3.
missing=
for fn in $(grep -oE '\btdat_[a-z_]+\(' libfmt/tdat.h | tr -d '(' | sort -u); do
	grep -q "$fn" doc/tdat.3 || missing="$missing $fn"
done
t_assert "doc/tdat.3 covers every public function${missing:+ (missing:$missing)}" test -z "$missing"
done_testing
