#!/usr/bin/env bash
# t-text.sh: `tdat-convert --report-style 3.1` (lib.sh sets
# TDAT_REPORT_STYLE=3.1) is byte for byte Debian's `trace-cmd report` 3.1.6
# on every capture in testdata/: against the stored goldens in
# tests/expected/ (made by 3.1.6), and live against the installed trace-cmd
# for every file and variant (-t, --raw-ts, -R, -R -t, --ts2secs, -N) when it
# is there.  A zlib-compressed capture, which 3.1.6 cannot read, against
# 3.1.6's report of the zstd copy trace-cmd 3.4's convert makes of it.
# -R is only for text, and --ts2secs takes a whole number above 0.
# t-text34.sh checks the default style, trace-cmd 3.4's.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
cd "$TOP_SRCDIR/testdata" || exit 1
HZ=2096000000	# as testdata/scripts/make-expected.sh

for exp in "$TOP_SRCDIR"/tests/expected/*.text.out "$TOP_SRCDIR"/tests/expected/*.text-*.out; do
	base=${exp##*/}
	if ! golden_args "$base"; then
		not_ok "$base: a golden of an unknown variant"
		continue
	fi
	name=$G_NAME variant=$G_VARIANT args=("${T_ARGS[@]}")
	if [[ $name == multi && $variant == -R ]]; then
		t_golden "multi-input text -R, with instances" "$base" -- \
			tdat-convert -R two-buffers.dat v6-two-buffers.dat
	elif [[ $name == multi ]]; then
		t_golden "multi-input text" "$base" -- tdat-convert v7-zstd.dat v6.dat
	else
		dat=$name.dat
		[[ -e $dat ]] || dat=sym/$name.dat	# captures kept out of the loops over *.dat
		t_golden "$dat text${variant:+ $variant}" "$base" -- tdat-convert "${args[@]}" "$dat"
	fi
done

# Live: the same bytes as the trace-cmd on this machine, every file and variant.
for f in *.dat; do
	r=$(tc31_readable "$f")
	for v in "" -t --raw-ts -R "-R -t" "--ts2secs $HZ" -N; do
		if ! have_trace_cmd; then
			skip "$f live ${v:-text}" "trace-cmd is not installed"
			continue
		elif [[ -z $r ]]; then
			skip "$f live ${v:-text}" "trace-cmd 3.1.6 reads no zlib, and no trace-cmd 3.4 to convert it"
			continue
		fi
		"$TRACE_CMD" report $v "$r" >"$T_TMP/want" 2>/dev/null
		t_run "$f live ${v:-text}" -- tdat-convert ${v/-N/--no-plugins} "$f"
		if cmp -s "$T_OUT" "$T_TMP/want" && ((T_RC == 0)); then
			ok "$f live ${v:-text}: same bytes as trace-cmd report $v"
		else
			not_ok "$f live ${v:-text}: same bytes as trace-cmd report $v" "exit $T_RC" \
				"$(diff "$T_TMP/want" "$T_OUT" | head -5)"
		fi
	done
done
if have_trace_cmd; then
	"$TRACE_CMD" report -i two-buffers.dat -i v6-two-buffers.dat >"$T_TMP/want" 2>/dev/null
	t_run "multi live" -- tdat-convert two-buffers.dat v6-two-buffers.dat
	t_assert "two files with instances: same bytes as trace-cmd report -i a -i b" cmp -s "$T_OUT" "$T_TMP/want"
else
	skip "multi live" "trace-cmd is not installed"
fi

t_exit "-R with -f csv is a usage error" 2 -- tdat-convert -R -f csv v6.dat
t_stderr_match "which names -R and text" "-R .*text"
t_exit "--raw with an output named .db too" 2 -- tdat-convert --raw -o "$T_TMP/x.db" v6.dat
t_assert "and writes nothing" test ! -e "$T_TMP/x.db"
for hz in 0 -5 1e9 2GHz "" 99999999999999999999999; do
	t_exit "--ts2secs '$hz' is a usage error" 2 -- tdat-convert --ts2secs "$hz" v6.dat
	t_stderr_match "which says why" "invalid --ts2secs '$hz' \\(ticks a second"
done
done_testing
