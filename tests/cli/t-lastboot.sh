#!/usr/bin/env bash
# t-lastboot.sh: a persistent ring buffer recorded in an earlier boot, as
# trace-cmd 3.4 saves it (option LAST_BOOT_INFO, section MODULES_FILE): the
# default text names its functions as trace-cmd 3.4 does (an address moved
# by the distance between the boots before it is looked up), the 3.1 style
# as 3.1.6 does (which knows nothing of it), and the other formats' symbols
# are the default text's.  No such capture can be recorded here:
# testdata/lastboot/lastboot.dat (tc34-zlib.dat with them added by
# scripts/make-lastboot.py, in the layout of trace-cmd's source: modules'
# distances, no _text in its kallsyms) and, made here, v7-zstd.dat with a
# LAST_BOOT_INFO alone (its kallsyms has _text: the kernel's distance).
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
LB=$TD/lastboot/lastboot.dat
O=$T_TMP
command -v python3 >/dev/null || skip_all "no python3"

func_lines() { grep -E ' (function|ip)=' "$@"; }

# live against trace-cmd 3.4: NAME FILE [ARGS...]
live_34() {
	local name=$1 f=$2
	shift 2
	if ! have_trace_cmd_34; then
		skip "$name: the same bytes as trace-cmd 3.4" "no trace-cmd 3.4"
		return
	fi
	"$TRACE_CMD_34" report "$@" -i "$f" >"$O/want" 2>/dev/null
	t_run "$name" -- tdat-convert --report-style 3.4 "${@/-N/--no-plugins}" "$f"
	t_assert "$name: the same bytes as trace-cmd 3.4 ($(wc -l <"$O/want") lines)" \
		cmp -s "$T_OUT" "$O/want"
}

# --- modules of the earlier boot (lastboot.dat) ---
for v in "" -R; do
	t_run "lastboot.dat ${v:-text}" -- tdat-convert --report-style 3.4 $v $LB
	t_assert "lastboot.dat ${v:-text}: the functions trace-cmd 3.4 names (golden)" \
		cmp -s <(func_lines "$T_OUT") tests/expected/lastboot.text34${v}-func.out
	live_34 "lastboot.dat ${v:-text}" $LB $v
done
live_34 "lastboot.dat -t" $LB -t
live_34 "lastboot.dat -N" $LB -N
t_assert "the modules' distances name other functions than the capture's" \
	test "$(diff <(func_lines tests/expected/tc34-zlib.text34.out) \
		<(tdat-convert --report-style 3.4 $LB | func_lines) | grep -c '^>')" -gt 0
t_golden "3.1 style: what 3.1.6 prints, the capture's own text" tc34-zlib.text.out -- \
	tdat-convert --report-style 3.1 $LB
for j in 2 8; do
	t_assert "-j $j: the same bytes" cmp -s <(TDAT_JOBS_WINDOW=1 tdat-convert --report-style 3.4 -j $j $LB) \
		<(tdat-convert --report-style 3.4 -j 1 $LB)
	t_assert "-j $j, 3.1 style: the same bytes (each worker's handle turns the distances off too)" \
		cmp -s <(TDAT_JOBS_WINDOW=1 tdat-convert --report-style 3.1 -j $j $LB) tests/expected/tc34-zlib.text.out
done
# the typed CSV's FIELD_sym: the names the default text prints
tdat-convert -f csv --split-by-event -o "$O/csv" $LB
want=$(func_lines tests/expected/lastboot.text34-func.out | grep ' hrtimer_expire_entry: ' |
	sed 's/.* function=\([^/ ]*\).*/\1/' | sort | uniq -c)
got=$(tail -n +2 "$O/csv/timer.hrtimer_expire_entry.csv" | awk -F, '{ print $NF }' | sort | uniq -c)
is "typed CSV: hrtimer_expire_entry's function_sym are the default text's" "$got" "$want"

# --- the kernel's distance (v7-zstd.dat, whose kallsyms has _text) ---
python3 $TD/scripts/make-lastboot.py $TD/v7-zstd.dat "$O/k.dat" 'boot:ffffffff80ffffc0\t[kernel]\n'
t_run "kernel" -- tdat-convert --report-style 3.4 "$O/k.dat"
t_assert "_text 0x40 further: other functions than the capture's" \
	test "$(diff <(func_lines tests/expected/v7-zstd.text34.out) <(func_lines "$T_OUT") | grep -c '^>')" -gt 0
for v in "" -R -t; do
	live_34 "kernel ${v:-text}" "$O/k.dat" $v
done
t_golden "kernel, 3.1 style: the capture's 3.1.6 text" v7-zstd.text.out -- \
	tdat-convert --report-style 3.1 "$O/k.dat"
# "# Current": the buffer is this boot's, nothing moves
python3 $TD/scripts/make-lastboot.py $TD/v7-zstd.dat "$O/c.dat" 'boot:# Current\n'
t_golden "# Current: the capture's text" v7-zstd.text34.out -- tdat-convert --report-style 3.4 "$O/c.dat"
live_34 "# Current" "$O/c.dat"
# a line libtraceevent cannot read: none is used
python3 $TD/scripts/make-lastboot.py $TD/v7-zstd.dat "$O/b.dat" 'boot:ffffffff80ffffc0\t[kernel]\nnot a line\n'
t_golden "a last_boot_info line that cannot be read: nothing moves" v7-zstd.text34.out -- \
	tdat-convert --report-style 3.4 "$O/b.dat"
live_34 "unreadable last_boot_info" "$O/b.dat"
done_testing
