#!/usr/bin/env bash
# t-man.sh: the man pages format without warnings, and each tool's --help
# shows the same options its man page SYNOPSIS lists.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
for page in doc/*.1; do
	if command -v groff >/dev/null; then
		t_run "$page" -- groff -man -ww -z "$page"
		t_assert "$page formats without warnings" test ! -s "$T_ERR" -a "$T_RC" = 0
	else
		skip "$page formats without warnings" "groff is not installed"
	fi
	tool=$(basename "$page" .1)
	t_run "$tool --help" -- "$tool" --help
	missing=
	for opt in $(sed -n '/^\.SH SYNOPSIS/,/^\.SH/p' "$page" | grep -o '\\-\\-[a-z-]*' | sed 's/\\//g'); do
		grep -q -- "$opt" "$T_OUT" || missing="$missing $opt"
	done
	t_assert "$tool --help lists every long option of the SYNOPSIS${missing:+ (missing:$missing)}" test -z "$missing"
done
# Every public function of libfmt/tdat.h has its place in doc/tdat.3.
missing=
for fn in $(grep -oE '\btdat_[a-z_]+\(' libfmt/tdat.h | tr -d '(' | sort -u); do
	grep -q "$fn" doc/tdat.3 || missing="$missing $fn"
done
t_assert "doc/tdat.3 covers every public function${missing:+ (missing:$missing)}" test -z "$missing"
if command -v groff >/dev/null; then
	t_run "tdat.3" -- groff -man -ww -z doc/tdat.3
	t_assert "doc/tdat.3 formats without warnings" test ! -s "$T_ERR" -a "$T_RC" = 0
else
	skip "doc/tdat.3 formats without warnings" "groff is not installed"
fi
done_testing
