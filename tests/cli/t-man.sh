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
done_testing
