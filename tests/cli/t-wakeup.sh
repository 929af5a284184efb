#!/usr/bin/env bash
# t-wakeup.sh: the wakeup_latency table (doc/tdat-sqlite.7), for every
# capture in testdata/: each row (wake-up ts, latency, woken tid, waker tid,
# CPU it ran on) is trace processor's thread_state R row of that wake-up
# in our .pftrace of the same capture (its dur, waker_utid, and the CPU of
# the Running row that follows it), and each of trace processor's R rows
# with a waker is one of ours -- but for the R rows the two models differ
# on by design, those of tests/expected/tp-model-NAME.diff (t-tp-model.sh:
# sched_wakeup without sched_waking).  Each row's target_cpu is the one
# trace-cmd report prints for the wake-up event of that ts and pid.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
TP=${TDAT_TRACE_PROCESSOR:-$TOP_SRCDIR/../shared/tools/perfetto/trace_processor_shell}

[[ -x $TP ]] || skip_all "no trace_processor_shell ($TP)"
command -v sqlite3 >/dev/null || skip_all "no sqlite3 command"

OURS="SELECT w.ts || ' ' || w.dur || ' ' || t.tid || ' ' || coalesce(k.tid, 'NULL') || ' ' ||
		coalesce(w.cpu, 'NULL')
	FROM wakeup_latency w JOIN thread t USING (utid) LEFT JOIN thread k ON k.utid = w.waker_utid"
# trace processor: the R rows a wake-up began (a waker), and the Running row each ends in
THEIRS="SELECT s.ts || ' ' || s.dur || ' ' || t.tid || ' ' || coalesce(k.tid, 'NULL') || ' ' ||
		coalesce(n.cpu, 'NULL') AS r
	FROM thread_state s JOIN thread t USING (utid) LEFT JOIN thread k ON k.utid = s.waker_utid
	LEFT JOIN thread_state n ON n.utid = s.utid AND n.ts = s.ts + s.dur AND n.state = 'Running'
	WHERE s.state = 'R' AND s.waker_utid IS NOT NULL"
TARGETS="SELECT w.ts || ' ' || t.tid || ' ' || coalesce(w.target_cpu, 'NULL')
	FROM wakeup_latency w JOIN thread t USING (utid)"

tp() {	# tp FILE SQL: trace processor's answer, one unquoted row a line
	"$TP" query "$1" "$2" 2>/dev/null | sed '1d; s/^"//; s/"$//'
}

# known NAME: "TS DUR TID" of the R rows only ours has in t-tp-model.sh's known differences
known() {
	local f=$TOP_SRCDIR/tests/expected/tp-model-$1.diff
	[[ -e $f ]] && awk '$1 == ">" && $2 == "thread_state" && $5 == "R" { print $3, $4, $6 }' "$f"
}

# report DAT: "TS PID TARGET_CPU" of each sched_waking / sched_wakeup trace-cmd reports
# (3.4 if there is one: it reads every capture; a clock of counts has no dot)
report() {
	"${TRACE_CMD_34:-$TRACE_CMD}" report -t "$1" 2>/dev/null | awk '
	match($0, /[0-9]+(\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9])?: sched_wak(ing|eup): /) {
		split(substr($0, RSTART, RLENGTH), w, ": ")
		n = split(w[1], t, ".")
		ts = n == 2 ? (t[1] + 0 ? t[1] : "") t[2] : t[1]
		sub(/^0+/, "", ts)
		rest = substr($0, RSTART + RLENGTH)
		if (w[2] == "sched_waking") {
			pid = rest; sub(/.*pid=/, "", pid); sub(/ .*/, "", pid)
			cpu = rest; sub(/.*target_cpu=/, "", cpu)
		} else {	# the plugin: "comm:pid [prio] CPU:NNN" (or success=1 first)
			pid = rest; sub(/ \[.*/, "", pid); sub(/.*:/, "", pid)
			cpu = rest; sub(/.*CPU:/, "", cpu); sub(/ .*/, "", cpu)
		}
		print (ts == "" ? 0 : ts), pid, cpu + 0
	}' | sort -u
}

total=0
for dat in $TD/*.dat $TD/signal/signals.dat; do
	n=$(basename "$dat" .dat)
	pf=$T_TMP/$n.pftrace db=$T_TMP/$n.db
	t_run "$n" -- tdat-convert -f perfetto -o "$pf" "$dat"
	t_run "$n" -- tdat-convert -f sqlite -o "$db" "$dat"
	if [[ ! -s $pf || ! -s $db ]]; then
		not_ok "$n: converts to .pftrace and .db" "$(cat "$T_ERR")"
		continue
	fi
	sqlite3 -batch "$db" "$OURS" 2>&1 | LC_ALL=C sort >"$T_TMP/$n.ours"
	tp "$pf" "$THEIRS" | LC_ALL=C sort >"$T_TMP/$n.tp"
	only_tp=$(LC_ALL=C comm -23 "$T_TMP/$n.tp" "$T_TMP/$n.ours")
	# ours alone: only the R rows trace processor does not have by design
	only_ours=$(LC_ALL=C comm -13 "$T_TMP/$n.tp" "$T_TMP/$n.ours" |
		awk -v known="$(known "$n")" 'BEGIN { n = split(known, a, "\n")
			for (i = 1; i <= n; i++) k[a[i]] } !(($1 " " $2 " " $3) in k)')
	rows=$(wc -l <"$T_TMP/$n.ours") same=$(LC_ALL=C comm -12 "$T_TMP/$n.tp" "$T_TMP/$n.ours" | wc -l)
	total=$((total + same))
	t_none "$n: wakeup_latency is trace processor's R rows with a waker ($same of $rows rows \
the same$(((rows > same)) && echo ", the others R rows it has not by design"))" \
		"$(sed 's/^/only trace processor: /' <<<"$only_tp" | sed '/: $/d'
		   sed 's/^/only ours: /' <<<"$only_ours" | sed '/: $/d')"
	if have_trace_cmd || have_trace_cmd_34; then
		sqlite3 -batch "$db" "$TARGETS" | LC_ALL=C sort >"$T_TMP/$n.targets"
		report "$dat" | LC_ALL=C sort >"$T_TMP/$n.report"
		t_none "$n: each row's target_cpu is trace-cmd report's" \
			"$(LC_ALL=C comm -23 "$T_TMP/$n.targets" "$T_TMP/$n.report")"
	else
		skip "$n: each row's target_cpu is trace-cmd report's" "no trace-cmd"
	fi
done
# the comparison has something to compare
((total > 1000)) && ok "rows compared with trace processor: $total" ||
	not_ok "rows compared with trace processor: $total (too few)"
done_testing
