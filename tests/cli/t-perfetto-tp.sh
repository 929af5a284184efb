#!/usr/bin/env bash
# t-perfetto-tp.sh: tdat-convert -f perfetto as Perfetto's own trace processor
# reads it (../shared/tools/perfetto/trace_processor_shell, or
# $TDAT_TRACE_PROCESSOR).  For every capture of testdata/:
#   - each event written as a typed message (full or in compact_sched) has in
#     trace processor's ftrace_event table the values trace-cmd report -R
#     prints (tests/perfetto/tp-values.py);
#   - the sched and thread_state tables and the import errors are those of
#     tests/perfetto/tp/ (tests/perfetto/tp-tables.sh), made from the encoding
#     without compact_sched (one FtraceEvent per event);
#   - no ftrace_event row without a name (common_flags outside
#     compact_sched made one for each sched_waking);
#   - --compression zlib (compressed_packets) gives the same tables.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
TP=${TDAT_TRACE_PROCESSOR:-$TOP_SRCDIR/../shared/tools/perfetto/trace_processor_shell}
[[ -x $TP ]] || skip_all "no trace_processor_shell ($TP)"
command -v protoc >/dev/null || skip_all "protoc is not installed (Debian protobuf-compiler)"
command -v python3 >/dev/null || skip_all "no python3"

# typed FILE.pftrace: the names of the events it holds as typed messages.
typed() {
	protoc --proto_path=tests/perfetto --decode=perfetto.protos.Trace tdat-perfetto.proto <"$1" |
		awk '/^      [a-z_0-9]+ \{/ && $1 != "generic" { print $1 }
			/^      switch_timestamp: / { print "sched_switch" }
			/^      waking_timestamp: / { print "sched_waking" }' | sort -u
}

for dat in $TD/*.dat; do
	f=$(basename "$dat" .dat)
	p=$T_TMP/$f.pftrace
	t_exit "$f.dat converts" 0 -- tdat-convert -f perfetto -o "$p" "$dat"
	typed "$p" >"$T_TMP/$f.typed"	# t-perfetto.sh checks what protoc decodes
	r=$(tc31_readable "$dat")	# a zlib capture through trace-cmd 3.4's zstd copy of it
	if have_trace_cmd && [[ -n $r ]]; then
		"$TRACE_CMD" report -R -t "$r" >"$T_TMP/$f.raw" 2>/dev/null
		t_run "values" -- python3 tests/perfetto/tp-values.py "$TP" "$p" "$T_TMP/$f.raw" \
			"$T_TMP/$f.typed"
		t_assert "$f: typed events' values are trace-cmd report -R's ($(tail -n 1 "$T_OUT"))" \
			test "$T_RC" = 0
		((T_LAST_OK)) || diag "$(head -n 5 "$T_OUT")"
		t_assert "$f: no ftrace_event row without a name" grep -q ' nameless 0,' "$T_OUT"
	else
		skip "$f: typed events' values are trace-cmd report -R's" "no trace-cmd (or zlib, and no 3.4)"
		skip "$f: no ftrace_event row without a name" "no trace-cmd (or zlib, and no 3.4)"
	fi
	tests/perfetto/tp-tables.sh "$TP" "$p" >"$T_TMP/$f.tp"
	t_assert "$f: sched, thread_state and import errors as before ($(wc -l <"$T_TMP/$f.tp") rows)" \
		cmp -s <(gzip -dc "tests/perfetto/tp/$f.tp.gz") "$T_TMP/$f.tp"
	((T_LAST_OK)) || diag "$(diff <(gzip -dc "tests/perfetto/tp/$f.tp.gz") "$T_TMP/$f.tp" | head)"
	# --compression zlib: the same packets, deflated into compressed_packets
	t_exit "$f.dat converts with --compression zlib" 0 -- \
		tdat-convert -f perfetto --compression zlib -o "$T_TMP/$f-z.pftrace" "$dat"
	tests/perfetto/tp-tables.sh "$TP" "$T_TMP/$f-z.pftrace" >"$T_TMP/$f-z.tp"
	t_assert "$f: compressed packets give trace processor the same tables" \
		cmp -s "$T_TMP/$f.tp" "$T_TMP/$f-z.tp"
done

# the checks can fail: a value changed, a row of sched moved
t_assert "typed events of v7-zstd include compact ones and timers" \
	grep -qx hrtimer_start "$T_TMP/v7-zstd.typed"
if have_trace_cmd; then
	sed -E 's/(hrtimer_start: +hrtimer=0x[0-9a-f]+ function=[^ ]+ expires=)[0-9]/\19/' \
		"$T_TMP/v7-zstd.raw" >"$T_TMP/bad.raw"
	t_run "a changed value" -- python3 tests/perfetto/tp-values.py "$TP" "$T_TMP/v7-zstd.pftrace" \
		"$T_TMP/bad.raw" "$T_TMP/v7-zstd.typed"
	t_assert "a changed hrtimer_start value shows" test "$T_RC" = 1
	sed -E '0,/(sched_switch: +prev_comm=[^ ]+ prev_pid=[0-9]+ prev_prio=)/s//\1999/' \
		"$T_TMP/v7-zstd.raw" >"$T_TMP/bad.raw"
	t_run "a changed value" -- python3 tests/perfetto/tp-values.py "$TP" "$T_TMP/v7-zstd.pftrace" \
		"$T_TMP/bad.raw" "$T_TMP/v7-zstd.typed"
	t_assert "and so does a changed sched_switch prio" test "$T_RC" = 1
else
	skip "a changed hrtimer_start value shows" "no trace-cmd"
	skip "and so does a changed sched_switch prio" "no trace-cmd"
fi
done_testing
