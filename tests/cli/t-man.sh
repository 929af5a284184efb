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
for page in doc/*.[0-9]; do
	if command -v groff >/dev/null; then
		t_run "$page" -- bash -c "$GROFF_CLEAN" _ "$page"
		t_assert "$page formats without warnings" test ! -s "$T_OUT" -a "$T_RC" = 0
	else
		skip "$page formats without warnings" "groff is not installed"
	fi
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
# Every public function of libfmt/tdat.h has its place in doc/tdat.3.
missing=
for fn in $(grep -oE '\btdat_[a-z_]+\(' libfmt/tdat.h | tr -d '(' | sort -u); do
	grep -q "$fn" doc/tdat.3 || missing="$missing $fn"
done
t_assert "doc/tdat.3 covers every public function${missing:+ (missing:$missing)}" test -z "$missing"
done_testing
