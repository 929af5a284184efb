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
	FROM process p
UNION ALL SELECT 'counter ' || t.name || ' ' || CASE t.type WHEN 'atrace_counter'
		THEN 'process_counter' ELSE t.type END || ' ' || coalesce(cc.cpu, 'NULL') || ' ' ||
		coalesce(p.pid, 'NULL') || ' ' || c.ts || ' ' || c.value, 5, c.ts, 0, 0
	FROM counter c JOIN counter_track t ON t.id = c.track_id
	LEFT JOIN cpu_counter_track cc ON cc.id = t.id
	LEFT JOIN process_counter_track pc ON pc.id = t.id LEFT JOIN process p ON p.upid = pc.upid
UNION ALL SELECT 'stats ' || name || ' ' || idx || ' ' || CASE WHEN value < 9007199254740992
		THEN value ELSE 'about ' || CAST(round(value / 1e3) AS INT) || '000' END, 6, idx, 0, 0
	FROM stats WHERE name LIKE 'ftrace_cpu_%_end'
UNION ALL SELECT 'args ' || e.ts || ' ' || e.CPU || ' ' || e.name || ' ' || a.key || ' ' ||
		coalesce(a.int_value, 'x' || hex(a.string_value), 'NULL'), 7, e.ts, e.CPU, 0
	FROM ftrace_event e JOIN args a USING (arg_set_id) WHERE e.ts % 16 = 0"
# The differences kept on purpose (tdat-sqlite(7), ONE MODEL), and only those:
# the counter type (trace processor's atrace_counter is our process_counter);
# timestamps of FtraceCpuStats from 2^53 ns on (seconds as a double: to the us);
# in the sample of args (events whose ts is a multiple of 16):
kept() {	# kept tp|ours: the rows without those differences
	local ours='/^args [0-9]+ [0-9]+ [a-z_0-9]+ [a-z_0-9]+_sym /d
		/^args [0-9]+ [0-9]+ (hrtimer_start was_armed|sched_process_exit group_dead) /d
		/^args [0-9]+ [0-9]+ (signal_generate errno|signal_deliver (errno|sa_handler)) /d'
	# a thread of no known process listed in the ProcessTree for its name: process 0 there
	local tp='s/^(thread [1-9][0-9]* .*) 0$/\1 NULL/'
	[[ $1 == ours ]] && tp=
	[[ $1 == tp ]] && ours=
	# compact sched_switch: trace processor infers prev_comm (its name of the thread);
	# sys_enter args: trace processor keeps the last of the repeated field, we the array
	sed -E "$tp
		$ours
		/^args [0-9]+ [0-9]+ sched_switch prev_comm /d
		/^args [0-9]+ [0-9]+ sys_enter args /d"
}
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

# one_model NAME TDAT-CONVERT-ARGS...: trace processor's tables of the .pftrace
# are those of our SQLite (but for the differences kept, and those of
# tests/expected/tp-model-NAME.diff); leaves NAME.pftrace and NAME.db.
one_model() {
	local n=$1 pf=$T_TMP/$1.pftrace db=$T_TMP/$1.db want
	shift
	t_run "$n" -- tdat-convert -f perfetto -o "$pf" "$@"
	t_run "$n" -- tdat-convert -f sqlite -o "$db" "$@"
	if [[ ! -s $pf || ! -s $db ]]; then
		not_ok "$n: converts to .pftrace and .db" "$(cat "$T_ERR")"
		return 1
	fi
	tp "$pf" "${ROWS//.CPU/.cpu}" | kept tp >"$T_TMP/$n.tp"
	sqlite3 -batch "$db" "${ROWS//.CPU/.ucpu}" | kept ours >"$T_TMP/$n.ours"
	rows_diff "$T_TMP/$n.tp" "$T_TMP/$n.ours" >"$T_TMP/$n.diff"
	want=$TOP_SRCDIR/tests/expected/tp-model-$n.diff
	mapfile -t problems < <(_t_compare "$T_TMP/$n.diff" "$want" "the rows that differ" optional)
	[[ -s $T_TMP/$n.tp ]] || problems+=("trace processor gave no rows")
	_t_verdict "$n: trace processor's sched, thread_state, thread, process, counter, stats, \
args are ours ($(wc -l <"$T_TMP/$n.ours") rows$([[ -e $want ]] && echo ", but $(wc -l <"$want") \
known"))" "${problems[@]}"
}

for dat in $TD/*.dat; do
	n=$(basename "$dat" .dat)
	db=$T_TMP/$n.db js=$T_TMP/$n.json
	one_model "$n" "$dat" || continue
	t_run "$n" -- tdat-convert -f json -o "$js" "$dat"
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
one_model signals $TD/signal/signals.dat	# signal_generate's target thread, seen first there
# Events that name no thread (no sched_switch): names only from the saved
# cmdlines, which reach trace processor through the ProcessTree.
one_model irq-only -e 'irq:*' $TD/v7-zstd.dat
one_model syscalls-only -e 'raw_syscalls:*' $TD/chunks.dat
got=$(tp "$T_TMP/irq-only.pftrace" "SELECT count(*) FROM thread WHERE tid > 0 AND name IS NULL")
if [[ $got == 0 ]]; then
	ok "irq-only: every thread has a name in trace processor"
else
	not_ok "irq-only: every thread has a name in trace processor" "$got nameless"
fi
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
