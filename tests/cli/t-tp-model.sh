#!/usr/bin/env bash
# t-tp-model.sh: one truth.  For every capture in testdata/, the tables our
# SQLite export builds with our model (sched, thread_state, thread, process)
# equal, row by row, the ones Perfetto's trace processor builds from our
# .pftrace of the same capture (utid and upid compared through tid and pid).
# Where the two models differ on purpose (doc/tdat-sqlite.7, "ONE MODEL"),
# the exact differing rows are tests/expected/tp-model-NAME.diff.  Also: our
# JSON of every capture loads in trace processor with no import error but
# the one the data itself causes (switches whose prev_pid is not the task the
# CPU ran: mismatched_sched_switch_tids, as many as the capture has).
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
TP=${TDAT_TRACE_PROCESSOR:-$TOP_SRCDIR/../shared/tools/perfetto/trace_processor_shell}

[[ -x $TP ]] || skip_all "no trace_processor_shell ($TP)"
command -v sqlite3 >/dev/null || skip_all "no sqlite3 command"

# The four tables as "table columns..." lines, in one order, for both engines.
TABLES="SELECT 'sched ' || s.ts || ' ' || s.dur || ' ' || s.cpu || ' ' || t.tid || ' ' ||
		coalesce(s.end_state, 'NULL') AS r, 1 AS k, s.ts AS a, s.cpu AS b, 0 AS c
	FROM sched s JOIN thread t USING (utid)
UNION ALL SELECT 'thread_state ' || s.ts || ' ' || s.dur || ' ' || coalesce(s.state, 'NULL') ||
		' ' || t.tid || ' ' || coalesce(s.cpu, 'NULL') || ' ' || coalesce(w.tid, 'NULL'),
		2, t.tid, s.ts, s.state
	FROM thread_state s JOIN thread t USING (utid) LEFT JOIN thread w ON w.utid = s.waker_utid
UNION ALL SELECT 'thread ' || t.tid || ' ' || coalesce(t.name, 'NULL') || ' ' ||
		coalesce(p.pid, 'NULL'), 3, t.tid, 0, 0
	FROM thread t LEFT JOIN process p USING (upid)
UNION ALL SELECT 'process ' || p.pid || ' ' || coalesce(p.name, 'NULL'), 4, p.pid, 0, 0
	FROM process p"
ROWS="SELECT r FROM ($TABLES) ORDER BY k, a, b, c, r"
ERRORS="SELECT name || ' ' || value FROM stats WHERE severity <> 'info' AND value > 0 ORDER BY name"
LOST="SELECT count(*) FROM (SELECT prev_pid, lag(next_pid) OVER (PARTITION BY input, cpu
	ORDER BY ts, id) AS last FROM sched_switch) WHERE last IS NOT NULL AND prev_pid <> last"

tp() {	# tp FILE SQL: trace processor's answer, one unquoted row a line
	"$TP" query "$1" "$2" 2>/dev/null | sed '1d; s/^"//; s/"$//'
}

# The rows only one engine has: "< " trace processor's, "> " ours.
rows_diff() {
	diff --old-line-format='< %L' --new-line-format='> %L' --unchanged-line-format= "$1" "$2"
}

for dat in $TD/*.dat; do
	n=$(basename "$dat" .dat)
	pf=$T_TMP/$n.pftrace db=$T_TMP/$n.db js=$T_TMP/$n.json
	t_run "$n" -- tdat-convert -f perfetto -o "$pf" "$dat"
	t_run "$n" -- tdat-convert -f sqlite -o "$db" "$dat"
	t_run "$n" -- tdat-convert -f json -o "$js" "$dat"
	if [[ ! -s $pf || ! -s $db || ! -s $js ]]; then
		not_ok "$n: converts to .pftrace, .db and .json" "$(cat "$T_ERR")"
		continue
	fi
	tp "$pf" "$ROWS" >"$T_TMP/$n.tp"
	sqlite3 -batch "$db" "$ROWS" >"$T_TMP/$n.ours"
	rows_diff "$T_TMP/$n.tp" "$T_TMP/$n.ours" >"$T_TMP/$n.diff"
	want=$TOP_SRCDIR/tests/expected/tp-model-$n.diff
	mapfile -t problems < <(_t_compare "$T_TMP/$n.diff" "$want" "the rows that differ" optional)
	[[ -s $T_TMP/$n.tp ]] || problems+=("trace processor gave no rows")
	_t_verdict "$n: trace processor's sched, thread_state, thread, process are ours ($(wc -l \
		<"$T_TMP/$n.ours") rows$([[ -e $want ]] && echo ", but $(wc -l <"$want") known"))" \
		"${problems[@]}"

	lost=$(sqlite3 -batch "$db" "$LOST" 2>/dev/null)
	want=$( ((lost > 0)) && echo "mismatched_sched_switch_tids $lost")
	got=$(tp "$js" "$ERRORS")
	if [[ $got == "$want" ]]; then
		ok "$n: its JSON loads with no import error but the data's ($lost lost switches)"
	else
		not_ok "$n: its JSON loads with no import error but the data's" "got:  '$got'" \
			"want: '$want'"
	fi
done
pf=$T_TMP/v6.pftrace
if [[ -s $pf ]]; then
	got=$(tp "$pf" "SELECT count(*) FROM process WHERE parent_upid = upid")
	if [[ $got == 0 ]]; then
		ok "v6: no process is its own parent in trace processor (the idle one is unlisted)"
	else
		not_ok "v6: no process is its own parent in trace processor" "got: $got"
	fi
fi
done_testing
