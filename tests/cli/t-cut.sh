#!/usr/bin/env bash
# t-cut.sh: an uncompressed trace.dat cut short inside its event data (issue
# 44, point 3): v7-none.dat and v6.dat cut at lengths around and inside each
# CPU's pages.  The events written are exactly those trace-cmd report (3.1.6)
# prints of the whole file from the pages the cut copy holds whole (their
# header and committed data: cut-report.py counts each CPU's records there),
# as text (3.1 style, -t), the truncation is named on stderr and the exit
# status is 1.  A version 7 file keeps the table that locates each CPU's data
# after the data, so the cut loses it: before, an uncompressed one recovered
# nothing ("no compressed CPU data ... to recover"); its pages are now found
# by scanning (dat-salvage.c) and split into CPUs where their times go back.
# -j 2 (windows of a page) gives what -j 1 does on each cut copy.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
O=$T_TMP
export TDAT_REPORT_STYLE=3.1

# cuts FILE: lengths to cut FILE at: inside CPU 0's first page, in the
# middle of CPU 0's data, at its end, inside CPU 1's first pages, inside
# its last page (its committed data whole, and not), one byte short
cuts() {
	python3 - "$TOP_SRCDIR/testdata/scripts/tracedat-layout.py" "$1" <<'PY'
import re, subprocess, sys
text = subprocess.run([sys.executable] + sys.argv[1:], check=True, capture_output=True,
                      text=True).stdout
cpu = {}
for line in text.splitlines():
    f = line.split()
    m = re.fullmatch(r"(?:cpu|buffer\[\]_cpu)(\d+)_data", f[0])
    if m:
        cpu[int(m.group(1))] = (int(f[1]), int(f[2]))
(o0, s0), (o1, s1) = cpu[0], cpu[1]
print(o0 + 1000, o0 + s0 // 2 + 100, o0 + s0, o1 + 5000, o1 + s1 - 3000, o1 + s1 - 816,
      o1 + s1 - 1)
PY
}

for src in v7-none v6; do
	full=$TD/$src.dat
	if have_trace_cmd; then
		"$TRACE_CMD" report -t -i "$full" >"$O/$src.report" 2>/dev/null
	fi
	for len in $(cuts "$full"); do
		cut=$O/$src-$len.dat
		name="$src.dat cut to $len bytes"
		head -c "$len" "$full" >"$cut"
		tdat-convert -j 1 -t "$cut" >"$O/out" 2>"$O/err"
		rc=$?
		is "$name: exit 1" "$rc" 1
		t_assert "$name: the cut is named" \
			grep -Eq "^tdat-convert: $cut: .*(truncated|cut by the end of the file)" "$O/err"
		if [[ $src == v7-none ]]; then
			t_assert "$name: what was recovered is said" \
				grep -q "recovered by scanning from offset [0-9]*: the data of [12] CPU" "$O/err"
		fi
		if have_trace_cmd; then
			if python3 "$TOP_SRCDIR/tests/cli/cut-report.py" "$full" "$len" <"$O/$src.report" \
				>"$O/want"; then
				sed 1d "$O/out" >"$O/got"
				t_assert "$name: the events of its whole pages, as trace-cmd report prints them ($(wc -l <"$O/want") of $(($(wc -l <"$O/$src.report") - 1)))" \
					cmp -s "$O/want" "$O/got"
			else
				not_ok "$name: cut-report.py" "$(python3 "$TOP_SRCDIR/tests/cli/cut-report.py" \
					"$full" "$len" <"$O/$src.report" 2>&1 >/dev/null | head -n 3)"
			fi
		else
			skip "$name: the events of its whole pages, as trace-cmd report prints them" \
				"no trace-cmd"
		fi
		TDAT_JOBS_WINDOW=1 tdat-convert -j 2 -t "$cut" >"$O/out2" 2>"$O/err2"
		rc2=$?
		t_assert "$name: -j 2 as -j 1 (exit $rc2)" \
			sh -c "cmp -s '$O/out' '$O/out2' && cmp -s '$O/err' '$O/err2' && test $rc2 = $rc"
	done
done

# the recovered v7 data in the other formats: both CPUs' events, numbered
cut=$O/v7-none-$(cuts $TD/v7-none.dat | awk '{print $5}').dat
t_exit "v7-none.dat cut inside CPU 1 to sqlite" 1 -- tdat-convert -f sqlite -o "$O/cut.db" "$cut"
t_assert "which writes the database" test -s "$O/cut.db"
t_assert "csv: events of CPUs 0 and 1" \
	test "$(tdat-convert -f csv "$cut" 2>/dev/null | sed 1d | cut -d, -f2 | sort -u | tr '\n' ' ')" = "0 1 "

done_testing
