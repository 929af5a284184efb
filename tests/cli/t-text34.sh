#!/usr/bin/env bash
# t-text34.sh: the default text style is byte for byte `trace-cmd report` 3.4
# (../shared/tools/trace-cmd-3.4, libtraceevent 1.9): the irq-flags column,
# -R's raw flags and function addresses, sched_switch's prev_state letters
# from the kernel's format.  On every capture in testdata/: against the
# stored goldens tests/expected/*.text34*.out (made by 3.4), and live against
# trace-cmd 3.4 for every file and variant (-t, --raw-ts, -R, -R -t,
# --ts2secs, -N, -N -R), several inputs and selections, where it is there
# (a SKIP line where it is not).  Then how the style is chosen:
# --report-style, TDAT_REPORT_STYLE (the option wins), the default 3.4, and
# what is refused; and prev_state letters taken from formats of other
# kernels, against 3.4.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
cd "$TOP_SRCDIR/testdata" || exit 1
HZ=2096000000	# as testdata/scripts/make-expected.sh
S34=(--report-style 3.4)

# --- goldens (trace-cmd 3.4's report, made by scripts/make-expected.sh) ---
for exp in "$TOP_SRCDIR"/tests/expected/*.text34*.out; do
	base=${exp##*/}
	[[ $base == *-func.out ]] && continue	# t-lastboot.sh's: the lines naming a function
	if ! golden_args "$base"; then
		not_ok "$base: a golden of an unknown variant"
		continue
	fi
	name=$G_NAME variant=$G_VARIANT args=("${T_ARGS[@]}")
	if [[ $name == multi && $variant == -R ]]; then
		t_golden "3.4: multi-input text -R, with instances" "$base" -- \
			tdat-convert "${S34[@]}" -R two-buffers.dat v6-two-buffers.dat
	elif [[ $name == multi ]]; then
		t_golden "3.4: multi-input text" "$base" -- tdat-convert "${S34[@]}" v7-zstd.dat v6.dat
	else
		dat=$name.dat
		[[ -e $dat ]] || dat=sym/$name.dat
		t_golden "3.4: $dat text${variant:+ $variant}" "$base" -- \
			tdat-convert "${S34[@]}" "${args[@]}" "$dat"
	fi
done

# the default is 3.4's, in every tool that prints text; the option wins over the environment
unset TDAT_REPORT_STYLE
t_golden "no option, no TDAT_REPORT_STYLE: 3.4's report" v6.text34.out -- tdat-convert v6.dat
t_golden "tdat-filter -f text: 3.4's report" v6.text34.out -- tdat-filter -f text v6.dat
t_golden "tdat-merge -f text: 3.4's report" multi.text34.out -- tdat-merge -f text v7-zstd.dat v6.dat
t_golden "TDAT_REPORT_STYLE=3.1: 3.1.6's report" v6.text.out -- env TDAT_REPORT_STYLE=3.1 tdat-convert v6.dat
t_golden "TDAT_REPORT_STYLE= (empty): the default" v6.text34.out -- env TDAT_REPORT_STYLE= tdat-convert v6.dat
t_golden "--report-style 3.1 over TDAT_REPORT_STYLE=3.4" v6.text.out -- \
	env TDAT_REPORT_STYLE=3.4 tdat-convert --report-style 3.1 v6.dat
t_golden "--report-style 3.4 over TDAT_REPORT_STYLE=3.1" v6.text34.out -- \
	env TDAT_REPORT_STYLE=3.1 tdat-convert --report-style 3.4 v6.dat
t_golden "tdat-filter --report-style 3.1 -f text" v6.text.out -- tdat-filter --report-style 3.1 -f text v6.dat
t_golden "tdat-merge -f text with TDAT_REPORT_STYLE=3.1" multi.text.out -- \
	env TDAT_REPORT_STYLE=3.1 tdat-merge -f text v7-zstd.dat v6.dat
# other formats do not read the variable
tdat-convert -f csv v6.dat >"$T_TMP/csv.want"
t_run "csv, TDAT_REPORT_STYLE=bogus" -- env TDAT_REPORT_STYLE=bogus tdat-convert -f csv v6.dat
t_assert "csv ignores TDAT_REPORT_STYLE (exit $T_RC)" cmp -s "$T_OUT" "$T_TMP/csv.want"
t_exit "TDAT_REPORT_STYLE=bogus with text: a usage error" 2 -- env TDAT_REPORT_STYLE=bogus tdat-convert v6.dat
t_stderr_match "which names the variable and the styles" "invalid TDAT_REPORT_STYLE 'bogus'.*3\\.4 or 3\\.1"
t_assert "and prints no text" test ! -s "$T_OUT"
t_exit "--report-style 3.3: a usage error" 2 -- tdat-convert --report-style 3.3 v6.dat
t_stderr_match "which names the option and the styles" "invalid --report-style '3\\.3'.*3\\.4 or 3\\.1"
t_exit "--report-style with -f csv: a usage error" 2 -- tdat-convert --report-style 3.1 -f csv v6.dat
t_stderr_match "which says it needs text" "--report-style needs -f text"
t_exit "--report-style with tdat-filter's trace.dat: a usage error" 2 -- \
	tdat-filter --report-style 3.4 -o "$T_TMP/x.dat" v6.dat
t_assert "and writes nothing" test ! -e "$T_TMP/x.dat"
for tool in tdat-convert tdat-filter tdat-merge; do
	t_run "$tool --help" -- $tool --help
	t_stdout_match "$tool --help names --report-style and its default" \
		"--report-style 3\\.4\\|3\\.1 +text: as trace-cmd 3\\.4 reports \\(the default"
done
export TDAT_REPORT_STYLE=3.1	# as lib.sh had it

# --- live: the same bytes as trace-cmd 3.4, every file and variant ---
for f in *.dat sym/*.dat; do
	for v in "" -t --raw-ts -R "-R -t" "--ts2secs $HZ" -N "-N -R"; do
		if ! have_trace_cmd_34; then
			skip "3.4: $f live ${v:-text}" "no trace-cmd 3.4 at ${TRACE_CMD_34:-(TRACE_CMD_34 empty)}"
			continue
		fi
		"$TRACE_CMD_34" report $v -i "$f" >"$T_TMP/want" 2>/dev/null
		t_run "3.4: $f live ${v:-text}" -- tdat-convert "${S34[@]}" ${v/-N/--no-plugins} "$f"
		if cmp -s "$T_OUT" "$T_TMP/want" && ((T_RC == 0 || T_RC == 1)) && [[ -s $T_OUT ]]; then
			ok "3.4: $f live ${v:-text}: same bytes as trace-cmd 3.4 report $v"
		else
			not_ok "3.4: $f live ${v:-text}: same bytes as trace-cmd 3.4 report $v" "exit $T_RC" \
				"$(diff "$T_TMP/want" "$T_OUT" | head -5)"
		fi
	done
done

# same_34 NAME "3.4 REPORT ARGS" "TDAT-CONVERT ARGS": the same bytes, live
same_34() {
	local name=$1 tc=$2 td=$3
	if ! have_trace_cmd_34; then
		skip "3.4: $name" "no trace-cmd 3.4 at ${TRACE_CMD_34:-(TRACE_CMD_34 empty)}"
		return
	fi
	eval "\"\$TRACE_CMD_34\" report $tc" >"$T_TMP/want" 2>/dev/null
	eval "t_run \"\$name\" -- tdat-convert \"\${S34[@]}\" $td"
	if ((T_RC == 0)) && cmp -s "$T_OUT" "$T_TMP/want" && (($(wc -l <"$T_OUT") > 1)); then
		ok "3.4: $name ($(($(wc -l <"$T_OUT") - 1)) lines, as trace-cmd 3.4 report $tc)"
	else
		not_ok "3.4: $name" "exit $T_RC; lines $(wc -l <"$T_OUT") vs $(wc -l <"$T_TMP/want")" \
			"$(diff "$T_TMP/want" "$T_OUT" | head -4)"
	fi
}

# several inputs (names right-aligned before every line), instances, zlib among them
same_34 "two inputs" "-i v7-zstd.dat -i v6.dat" "v7-zstd.dat v6.dat"
same_34 "two inputs with instances, -R" "-R -i two-buffers.dat -i v6-two-buffers.dat" \
	"-R two-buffers.dat v6-two-buffers.dat"
same_34 "three inputs: zlib, stacks, lost events, -t" "-t -i tc34-zlib.dat -i stack.dat -i lost-events.dat" \
	"-t tc34-zlib.dat stack.dat lost-events.dat"
same_34 "a clock in ticks beside ns, -R -t" "-R -t -i clock-x86-tsc.dat -i tc34-two-buffers.dat" \
	"-R -t clock-x86-tsc.dat tc34-two-buffers.dat"
# selections (as t-select.sh has them against 3.1.6)
same_34 "-F one event" "-F sched_switch -i v7-zstd.dat" "-F sched_switch v7-zstd.dat"
same_34 "-F with an expression" "-F 'sched_switch:prev_pid>1000' -i tc34-zstd.dat" \
	"-F 'sched_switch:prev_pid>1000' tc34-zstd.dat"
same_34 "-F on prev_state 256 (letters of 3.4)" "-F 'sched_switch:prev_state==256' -i tc34-zstd.dat" \
	"-F 'sched_switch:prev_state==256' tc34-zstd.dat"
same_34 "-v -F drops matches" "-v -F sched_switch -i v7-zstd.dat" "-v -F sched_switch v7-zstd.dat"
same_34 "stack traces follow a selected event" "-F sched_switch -i stack.dat" "-F sched_switch stack.dat"
same_34 "--cpu" "--cpu 1 -i tc34-zlib.dat" "--cpu 1 tc34-zlib.dat"
same_34 "--pid, -R" "-R -F '.*:common_pid==12405' -i v7-zstd.dat" "-R --pid 12405 v7-zstd.dat"

# --- prev_state letters come from the kernel's format ---
# v6.dat shrunk (bad/rewrite-format.py: a page per CPU) with sched_switch's
# __print_flags() rewritten as other kernels could spell it: 4.4's letters
# (16 Z, 32 X, 64 x, 128 K), and one bit without a letter (the letters end
# there: only S and D are known).
declare -A flags=(
	[k44]='{ 0x00000001, "S" }, { 0x00000002, "D" }, { 0x00000004, "T" }, { 0x00000008, "t" }, { 0x00000010, "Z" }, { 0x00000020, "X" }, { 0x00000040, "x" }, { 0x00000080, "K" }'
	[gap]='{ 0x00000001, "S" }, { 0x00000002, "D" }, { 0x00000008, "t" }, { 0x00000010, "X" }, { 0x00000020, "Z" }, { 0x00000040, "P" }, { 0x00000080, "I" }'
)
for k in k44 gap; do
	python3 bad/rewrite-format.py v6.dat "$T_TMP/$k.dat" sched_switch \
		'\{ 0x00000001, "S" \}.*\{ 0x00000080, "I" \}' "${flags[$k]}"
	t_run "$k letters" -- tdat-convert "${S34[@]}" "$T_TMP/$k.dat"
	tdat-convert --report-style 3.1 "$T_TMP/$k.dat" >"$T_TMP/$k.31"
	case $k in
	k44) t_assert "4.4's letters: 128 prints K, as the format says (3.1 style: W)" \
		grep -q '\] K ==> ' "$T_OUT" ;;
	gap) t_assert "a bit without a letter ends them: 128 prints R (3.1 style: W)" \
		test "$(grep -c '\] I ==> ' "$T_OUT")" = 0 -a "$(grep -c '\] W ==> ' "$T_TMP/$k.31")" -gt 0 ;;
	esac
	# (the shrunk file keeps a dozen formats: the events of the others are damage,
	# which tdat prints its own way; the sched_switch lines are compared)
	if have_trace_cmd_34; then
		"$TRACE_CMD_34" report -i "$T_TMP/$k.dat" 2>/dev/null | grep ' sched_switch: ' >"$T_TMP/want"
		t_assert "$k letters: the sched_switch lines of trace-cmd 3.4 ($(wc -l <"$T_TMP/want"))" \
			cmp -s <(grep ' sched_switch: ' "$T_OUT") "$T_TMP/want"
	else
		skip "$k letters: the same bytes as trace-cmd 3.4" "no trace-cmd 3.4"
	fi
done
done_testing
