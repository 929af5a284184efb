#!/usr/bin/env bash
# t-sqlite.sh: tdat-convert -f sqlite on the real captures: one ftrace_event
# row per event (counted as tdat-info and trace-cmd report count them), the
# scheduling tables consistent with each other and with the kernel's own
# prev_state letters, thread names as trace-cmd prints them, Perfetto's
# example queries, a golden .dump, and the output written whole or not at all.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata

if ! command -v sqlite3 >/dev/null; then
	skip_all "no sqlite3 command"
fi

q() {	# q DB SQL: one query, its output on stdout
	sqlite3 -batch "$1" "$2" 2>&1
}

# convert NAME.dat into $T_TMP/NAME.db; 0 if that worked
convert() {
	t_exit "$1.dat converts" 0 -- tdat-convert -o "$T_TMP/$1.db" "$TD/$1.dat"
	((T_LAST_OK))
}

# Per event "system:name count" from tdat-info --json.
info_counts() {
	tdat-info --json "$1" | sed 's/"event_counts":\[//; s/},{/}\n{/g' |
		sed -n 's/.*"system":"\([^"]*\)","name":"\([^"]*\)","count":\([0-9]*\).*/\1:\2 \3/p' | sort
}

# Per event "name count" from trace-cmd's report (the golden text).
report_counts() {
	sed -nE 's/^.*\[[0-9]{3}\] +[0-9.]+: ([A-Za-z_0-9]+): .*/\1/p' "$1" | sort | uniq -c |
		awk '{print $2" "$1}' | sort
}

# "EVENT CPU SECS.USECS FIELD SYMBOL" of every FIELD_sym arg of DB, sorted:
# as text-syms.awk prints a report's symbols
db_syms() {
	sqlite3 -batch -separator ' ' "$1" "SELECT f.name, f.cpu, printf('%d.%06d', (f.ts + 500) / 1000000000,
		(f.ts + 500) / 1000 % 1000000), substr(a.key, 1, length(a.key) - 4), coalesce(a.string_value, '')
		FROM args a JOIN ftrace_event f ON f.id = a.arg_set_id WHERE a.key LIKE '%\_sym' ESCAPE '\'" | sort
}

# t_syms NAME DB REPORT: every FIELD_sym arg of DB is the symbol the report
# prints for that event and field (event by event: cpu and time)
t_syms() {
	local want
	want=$(q "$2" "SELECT DISTINCT f.name || ':' || substr(a.key, 1, length(a.key) - 4) FROM args a
		JOIN ftrace_event f ON f.id = a.arg_set_id WHERE a.key LIKE '%\_sym' ESCAPE '\'" | paste -sd' ')
	is "$1" "$(db_syms "$2")" "$(awk -v want="$want" -f tests/cli/text-syms.awk "$3" | sort)"
}

# t_indexes NAME DB: SQLite finds DB whole (PRAGMA integrity_check: each row
# once in each index, in order), has the seven indexes, written with the
# file (sqlite-index.c), and reads through each the rows a sort gives
t_indexes() {
	local ix tab cols got want
	is "$1: PRAGMA integrity_check" "$(q "$2" "PRAGMA integrity_check")" ok
	is "$1: the seven indexes" "$(q "$2" "SELECT count(*) FROM sqlite_schema WHERE type = 'index'")" 7
	while IFS='|' read -r ix tab cols; do
		got=$(q "$2" "SELECT count(*) || ' ' || total((row_number() OVER ()) * (rowid % 1000003))
			FROM (SELECT rowid FROM $tab INDEXED BY $ix ORDER BY $cols, rowid)")
		want=$(q "$2" "SELECT count(*) || ' ' || total((row_number() OVER ()) * (rowid % 1000003))
			FROM (SELECT rowid FROM $tab NOT INDEXED ORDER BY $cols, rowid)")
		is "$1: $ix reads the rows of $tab in the order of ($cols)" "$got" "$want"
	done < <(q "$2" "SELECT name || '|' || tbl_name || '|' || substr(sql, instr(sql, '(') + 1,
		length(sql) - instr(sql, '(') - 1) FROM sqlite_schema WHERE type = 'index'")
}

# --- every event is a row, counted as tdat-info and trace-cmd count them ---
for f in v7-zstd two-buffers markers lost-events stack extract; do
	convert $f || continue
	db=$T_TMP/$f.db
	t_indexes "$f" "$db"
	is "$f: ftrace_event counts per system:name equal tdat-info's" \
		"$(q "$db" "SELECT system || ':' || name || ' ' || count(*) FROM ftrace_event GROUP BY system, name" | sort)" \
		"$(info_counts $TD/$f.dat)"
	is "$f: counts per name equal trace-cmd report's" \
		"$(q "$db" "SELECT name || ' ' || count(*) FROM ftrace_event GROUP BY name" | sort)" \
		"$(report_counts tests/expected/$f.text.out)"
	is "$f: ids run 0..N-1 in timeline order" \
		"$(q "$db" "SELECT min(id) = 0 AND max(id) = count(*) - 1 FROM ftrace_event")$(q "$db" \
			"SELECT count(*) FROM ftrace_event a JOIN ftrace_event b ON b.id = a.id + 1 WHERE b.ts < a.ts")" "10"
	is "$f: raw is ftrace_event" "$(q "$db" "SELECT count(*) FROM raw EXCEPT SELECT count(*) FROM ftrace_event")" ""
	is "$f: trace_bounds span the events" \
		"$(q "$db" "SELECT start_ts = (SELECT min(ts) FROM ftrace_event) AND end_ts = (SELECT max(ts) FROM ftrace_event) FROM trace_bounds")" 1
	is "$f: there are FIELD_sym args to compare" "$(q "$db" "SELECT count(*) > 0 FROM args WHERE key LIKE '%_sym'")" 1
	t_syms "$f: FIELD_sym args are the symbols trace-cmd report prints" "$db" tests/expected/$f.text.out
done
t_exit "sym/kmem.dat converts" 0 -- tdat-convert -o "$T_TMP/kmem.db" $TD/sym/kmem.dat &&
	t_syms "sym/kmem: call_site_sym (%pS) args are the report's name+0xOFF" "$T_TMP/kmem.db" \
		tests/expected/kmem.text.out
convert old-kernel &&
	t_syms "old-kernel: ip_sym of print and bprint is the report's symbol" "$T_TMP/old-kernel.db" \
		tests/expected/old-kernel.text.out

# --- scheduling ---
overlaps() {	# rows of TABLE overlapping another of the same KEY (an unknown end: to the next)
	q "$1" "WITH r AS (SELECT id, $3 AS k, ts, CASE WHEN dur >= 0 THEN ts + dur ELSE
			coalesce((SELECT min(n.ts) FROM $2 n WHERE n.$3 = $2.$3 AND n.ts > $2.ts), 1e18) END AS e
			FROM $2)
		SELECT count(*) FROM r a JOIN r b ON a.k = b.k AND a.id < b.id AND a.ts < b.e AND b.ts < a.e"
}
lost_switches() {	# switches whose prev_pid is not the CPU's last next_pid
	q "$1" "SELECT count(*) FROM (SELECT prev_pid, lag(next_pid) OVER (PARTITION BY input, cpu
		ORDER BY ts, id) AS last FROM sched_switch) WHERE last IS NOT NULL AND prev_pid <> last"
}
for f in v7-zstd two-buffers lost-events stack; do
	db=$T_TMP/$f.db
	[[ -e $db ]] || continue
	span=$(q "$db" "SELECT end_ts - start_ts FROM trace_bounds")
	switches=$(q "$db" "SELECT count(*) FROM sched_switch")
	cpus=$(q "$db" "SELECT count(DISTINCT cpu) FROM sched_switch")
	is "$f: one sched_slice per sched_switch" "$(q "$db" "SELECT count(*) FROM sched_slice")" "$switches"
	# as in trace processor, a slice whose switch-out is lost ends unknown (dur -1, no end_state)
	is "$f: all slices ended but one per CPU and those whose switch-out was lost ($(lost_switches "$db"))" \
		"$(q "$db" "SELECT count(*) FROM sched_slice WHERE dur = -1 AND end_state IS NULL")" \
		"$((cpus + $(lost_switches "$db")))"
	is "$f: sched slices never overlap on a CPU" "$(overlaps "$db" sched_slice ucpu)" 0
	is "$f: no slice is longer than the trace" \
		"$(q "$db" "SELECT count(*) FROM sched_slice WHERE dur > $span OR dur < -1")" 0
	is "$f: sum of dur per CPU is within the span" \
		"$(q "$db" "SELECT count(*) FROM (SELECT cpu, sum(dur) AS d FROM sched WHERE dur >= 0 GROUP BY cpu) WHERE d > $span OR d <= 0")" 0
	is "$f: a slice starts where the CPU's previous one ended" \
		"$(q "$db" "SELECT count(*) FROM sched_slice a WHERE dur >= 0 AND NOT EXISTS
			(SELECT 1 FROM sched_slice b WHERE b.ucpu = a.ucpu AND b.ts = a.ts + a.dur)")" 0
	is "$f: every Running thread_state is a sched slice (of its dur if that ended)" \
		"$(q "$db" "SELECT count(*) FROM thread_state s WHERE state = 'Running' AND NOT EXISTS
			(SELECT 1 FROM sched_slice k WHERE k.utid = s.utid AND k.ts = s.ts AND k.cpu = s.cpu
			AND (k.dur = s.dur OR k.dur = -1))")" 0
	is "$f: and every non-idle slice is Running" \
		"$(q "$db" "SELECT (SELECT count(*) FROM sched_slice WHERE utid > 0) - (SELECT count(*) FROM thread_state WHERE state = 'Running')")" 0
	is "$f: a thread is in one state at a time" "$(overlaps "$db" thread_state utid)" 0
	is "$f: cpu only on Running states" \
		"$(q "$db" "SELECT count(*) FROM thread_state WHERE (cpu IS NULL) = (state = 'Running')")" 0
	is "$f: R states from a wake-up name the waker" \
		"$(q "$db" "SELECT count(*) > 0 FROM thread_state WHERE state = 'R' AND waker_utid IS NOT NULL")" 1
	# A lost switch-out ends a slice without its task's end_state, so on a CPU that
	# lost events the rule cannot hold; it must hold on every other CPU.
	is "$f: a switched-out task's next state is its end_state (CPUs without loss)" \
		"$(q "$db" "SELECT count(*) FROM sched_slice k JOIN thread_state s ON s.utid = k.utid
			AND s.ts = k.ts + k.dur WHERE k.utid > 0 AND k.dur >= 0 AND s.state <> k.end_state
			AND k.ucpu NOT IN (SELECT idx FROM stats WHERE severity = 'data_loss' AND value > 0)")" 0
	# prev_state letters as the kernel prints them (trace-cmd -N: no plugin)
	if have_trace_cmd; then
		"$TRACE_CMD" report -N $TD/$f.dat 2>/dev/null |
			sed -nE 's/.*\[0*([0-9]+)\] .* sched_switch: .*prev_pid=([0-9]+) .*prev_state=([^ ]+) ==>.*next_pid=([0-9]+) .*/\1 \2 \3 \4/p' |
			sort -s -n -k1,1 | awk '($1 in last) && last[$1] == $2 { print $1, $3 } { last[$1] = $4 }' \
			>"$T_TMP/want-states"
		q "$db" "SELECT cpu || ' ' || end_state FROM sched_slice WHERE end_state IS NOT NULL ORDER BY cpu, ts" \
			>"$T_TMP/got-states"
		t_assert "$f: end_state letters equal the kernel's prev_state ($(sort -u -k2 "$T_TMP/want-states" |
			awk '{print $2}' | paste -sd' '))" cmp -s "$T_TMP/got-states" "$T_TMP/want-states"
	else
		skip "$f: end_state letters equal the kernel's prev_state" "no trace-cmd"
	fi
done

# --- threads and processes ---
for f in v7-zstd two-buffers lost-events stack; do
	db=$T_TMP/$f.db
	[[ -e $db ]] || continue
	sed -nE 's/^(foo: )? *(.*)-([0-9]+) +\[[0-9]{3}\] .*/\3|\2/p' tests/expected/$f.text.out |
		grep -v -e '^0|' -e '|<\.\.\.>$' | sort -u >"$T_TMP/want-comms"
	q "$db" "SELECT tid || '|' || name FROM thread t WHERE utid = (SELECT max(utid) FROM thread u
		WHERE u.tid = t.tid) AND tid IN ($(cut -d'|' -f1 "$T_TMP/want-comms" | paste -sd,))" |
		sort -u >"$T_TMP/got-comms"
	t_assert "$f: thread names are the comms trace-cmd prints ($(wc -l <"$T_TMP/want-comms") tids)" \
		cmp -s "$T_TMP/got-comms" "$T_TMP/want-comms"
	is "$f: utid 0 is the idle task" "$(q "$db" "SELECT tid, name, is_idle, upid FROM thread WHERE utid = 0")" "0|swapper|1|0"
	is "$f: every event's utid is a thread" \
		"$(q "$db" "SELECT count(*) FROM ftrace_event WHERE utid NOT IN (SELECT utid FROM thread)")" 0
	is "$f: threads of a process: the main thread's tid is the pid" \
		"$(q "$db" "SELECT count(*) FROM thread t JOIN process p USING (upid) WHERE t.is_main_thread AND t.tid <> p.pid")" 0
	# a process began when its main thread did (trace processor: both at task_newtask)
	is "$f: a process whose main thread began in the trace began then too" \
		"$(q "$db" "SELECT count(*) FROM thread t JOIN process p USING (upid) WHERE t.is_main_thread AND
			t.start_ts IS NOT NULL AND p.start_ts IS NOT t.start_ts")" 0
	if have_trace_cmd; then
		# sched_process_fork of a child that leads its own process: its process starts there
		"$TRACE_CMD" report -t testdata/$f.dat 2>/dev/null |
			sed -nE 's/^.* ([0-9]+)\.([0-9]{9}): sched_process_fork: .* child_pid=([0-9]+)$/\3|\1\2/p' |
			sort >"$T_TMP/forks"
		q "$db" "SELECT pid || '|' || start_ts FROM process WHERE start_ts IS NOT NULL AND
			pid IN ($(cut -d'|' -f1 "$T_TMP/forks" | paste -sd, | sed 's/^$/-1/'))" | sort >"$T_TMP/pstarts"
		t_assert "$f: forked processes start at their fork, as trace-cmd report times it ($(wc -l <"$T_TMP/pstarts") of $(wc -l <"$T_TMP/forks") forks)" \
			test -s "$T_TMP/pstarts" -o ! -s "$T_TMP/forks"
		is "$f: and each start is its child_pid's fork" "$(join -t'|' "$T_TMP/pstarts" "$T_TMP/forks" |
			awk -F'|' '$2 != $3')" ""
	else
		skip "$f: forked processes start at their fork" "trace-cmd is not installed"
		skip "$f: and each start is its child_pid's fork" "trace-cmd is not installed"
	fi
done
is "two-buffers: the 11 processes sh forked start at their forks" \
	"$(q "$T_TMP/two-buffers.db" "SELECT count(*) FROM process WHERE start_ts IS NOT NULL")" 11
db=$T_TMP/v7-zstd.db
is "exec names the process and its cmdline" \
	"$(q "$db" "SELECT p.name, p.cmdline FROM process p JOIN thread t USING (upid) WHERE t.name = 'ls'")" "ls|/usr/bin/ls"
is "sched_with_thread_process joins the names" \
	"$(q "$db" "SELECT count(*) FROM sched_with_thread_process w JOIN sched_slice s USING (id) WHERE w.ts = s.ts AND
		w.thread_name IS (SELECT name FROM thread WHERE utid = s.utid)")" "$(q "$db" "SELECT count(*) FROM sched_slice")"

# --- Perfetto's documented queries, unchanged ---
t_run "sched on cpu 0" -- sqlite3 "$db" "SELECT ts, dur, utid FROM sched WHERE cpu = 0"
is "SELECT ts, dur, utid FROM sched WHERE cpu = 0: the CPU 0 switches" "$(wc -l <"$T_OUT")" \
	"$(q "$db" "SELECT count(*) FROM sched_switch WHERE cpu = 0")"
t_run "cpufreq" -- sqlite3 "$db" "SELECT ts, value FROM counter JOIN cpu_counter_track ON counter.track_id = cpu_counter_track.id WHERE cpu_counter_track.name = 'cpufreq'"
is "the cpufreq query runs (no power events in this capture: no rows)" "$T_RC:$(wc -c <"$T_OUT")" "0:0"
id=$(q "$db" "SELECT id FROM ftrace_event WHERE name = 'sched_switch' ORDER BY id LIMIT 1 OFFSET 7")
is "args: prev_comm of a sched_switch by its arg_set_id" \
	"$(q "$db" "SELECT string_value FROM args WHERE arg_set_id = $id AND key = 'prev_comm'")" \
	"$(q "$db" "SELECT prev_comm FROM sched_switch WHERE id = $id")"
is "args: every field of the event, typed" \
	"$(q "$db" "SELECT group_concat(key || '=' || value_type || '=' || coalesce(int_value, string_value), ' ') FROM args WHERE arg_set_id = $id")" \
	"$(q "$db" "SELECT 'prev_comm=string=' || prev_comm || ' prev_pid=int=' || prev_pid || ' prev_prio=int=' || prev_prio ||
		' prev_state=int=' || prev_state || ' next_comm=string=' || next_comm || ' next_pid=int=' || next_pid ||
		' next_prio=int=' || next_prio FROM sched_switch WHERE id = $id")"
want=0
for t in $(q "$db" "SELECT DISTINCT name FROM ftrace_event"); do
	want=$((want + $(q "$db" "SELECT count(*) * ((SELECT count(*) FROM pragma_table_info('$t')) - 8) FROM $t")))
done
is "args has one row per field of every event ($want)" "$(q "$db" "SELECT count(*) FROM args")" "$want"
is "args value types" "$(q "$db" "SELECT group_concat(DISTINCT value_type) FROM (SELECT value_type FROM args ORDER BY 1)")" \
	"int,pointer,string,uint"
is "exactly one value column is set" \
	"$(q "$db" "SELECT count(*) FROM args WHERE (int_value IS NULL) = (string_value IS NULL) OR real_value IS NOT NULL")" 0

# --- metadata, stats, cpus ---
is "metadata from the header (uname, clock, versions, size)" \
	"$(q "$db" "SELECT name || '=' || coalesce(str_value, int_value) FROM metadata WHERE name IN ('system_name',
		'system_release', 'system_machine', 'trace_clock', 'trace_file_version', 'trace_compression',
		'trace_size_bytes') ORDER BY rowid" | paste -sd' ')" \
	"system_name=Linux system_release=6.18.44-fc-v782 system_machine=x86_64 trace_size_bytes=$(stat -c %s $TD/v7-zstd.dat) trace_file_version=7 trace_clock=local trace_compression=zstd"
is "one cpu row per CPU" "$(q "$db" "SELECT group_concat(id || ':' || cpu, ' ') FROM cpu")" "0:0 1:1"
db=$T_TMP/lost-events.db
is "stats: events lost per CPU, as tdat-info counts them" \
	"$(q "$db" "SELECT idx || ':' || value FROM stats WHERE name = 'cpu_events_lost' AND value > 0")" \
	"1:$(tdat-info --json $TD/lost-events.dat | sed -n 's/.*"events":[0-9]*,"lost":\([0-9]*\),.*/\1/p')"
is "stats: events per CPU add up" "$(q "$db" "SELECT sum(value) FROM stats WHERE name = 'cpu_events'")" \
	"$(q "$db" "SELECT count(*) FROM ftrace_event")"

# --- instances and several inputs ---
db=$T_TMP/two-buffers.db
is "buffer is the instance name" \
	"$(q "$db" "SELECT buffer || ':' || count(*) FROM ftrace_event GROUP BY buffer ORDER BY buffer" | paste -sd' ')" ":597 foo:1854"
is "sched tables come from one buffer" "$(q "$db" "SELECT count(*) FROM sched_slice")" \
	"$(q "$db" "SELECT count(*) FROM sched_switch WHERE buffer = ''")"
t_exit "two inputs into one database" 0 -- tdat-convert -o "$T_TMP/multi.db" $TD/v7-zstd.dat $TD/v6.dat
t_indexes "two inputs" "$T_TMP/multi.db"
db=$T_TMP/multi.db
is "every event of both inputs" "$(q "$db" "SELECT input || ':' || count(*) FROM ftrace_event GROUP BY input" | paste -sd' ')" \
	"0:$(q $T_TMP/v7-zstd.db "SELECT count(*) FROM ftrace_event") 1:1859"
is "ucpu numbers the CPUs of both inputs" \
	"$(q "$db" "SELECT group_concat(ucpu || '=' || input || '.' || cpu, ' ') FROM cpu")" "0=0.0 1=0.1 2=1.0 3=1.1"
is "ftrace_event.ucpu follows the input" \
	"$(q "$db" "SELECT count(*) FROM ftrace_event f JOIN cpu c ON c.input = f.input AND c.cpu = f.cpu WHERE c.ucpu <> f.ucpu")" 0
is "sched slices never overlap on a ucpu" "$(overlaps "$db" sched_slice ucpu)" 0
is "metadata keys are 'multi', one row per input" \
	"$(q "$db" "SELECT key_type || ':' || count(*) FROM metadata WHERE name = 'trace_file_version'")" "multi:2"

# --- a small capture in full ---
t_exit "markers.dat converts" 0 -- tdat-convert -o "$T_TMP/markers-dump.db" $TD/markers.dat
t_golden "the database of markers.dat (.dump)" sqlite-markers.dump -- sqlite3 "$T_TMP/markers-dump.db" .dump
is "print markers are stored as UTF-8, invalid bytes as U+FFFD" \
	"$(q "$T_TMP/markers-dump.db" "SELECT hex(buf) FROM print WHERE buf LIKE 'invalid%'")" \
	"$(printf 'invalid utf8: \xef\xbf\xbd\xef\xbf\xbd and lone \xef\xbf\xbd end\n' | od -An -tx1 | tr -d ' \n' | tr a-f A-F)"
is "valid UTF-8 is kept as it is" \
	"$(q "$T_TMP/markers-dump.db" "SELECT buf FROM print WHERE buf LIKE 'utf8:%'")" "$(printf 'utf8: h\xc3\xa9llo \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac\n')"
is "non-atrace markers make no slices" "$(q "$T_TMP/markers-dump.db" "SELECT count(*) FROM slice")" 0
is "a field named like a common column is field_NAME" \
	"$(q "$T_TMP/markers-dump.db" "SELECT printf('%x', field_id) FROM raw_data")" 12345678

# --- output: a file by name, whole or nothing ---
t_exit "-o - is a usage error" 2 -- tdat-convert -f sqlite -o - $TD/v6.dat
t_stderr_match "that says a file is needed" "needs an output file"
t_exit "no -o is a usage error" 2 -- tdat-convert -f sqlite $TD/v6.dat
mkdir -p "$T_TMP/out"
t_exit ".db picks sqlite" 0 -- tdat-convert -o "$T_TMP/out/a.db" $TD/v6.dat
is "and writes a database" "$(q "$T_TMP/out/a.db" "SELECT count(*) FROM ftrace_event")" 1859
t_exit ".sqlite3 picks sqlite too" 0 -- tdat-convert -o "$T_TMP/out/a.sqlite3" $TD/v6.dat
t_exit "an existing database is replaced" 0 -- tdat-convert -o "$T_TMP/out/a.db" $TD/markers.dat
is "by the new one" "$(q "$T_TMP/out/a.db" "SELECT count(*) FROM ftrace_event")" 19
rm -f "$T_TMP/out"/*
t_exit "a damaged input fails" 1 -- tdat-convert -o "$T_TMP/out/bad.db" $TD/bad/bad-magic.dat
t_empty_dir "and leaves no file" "$T_TMP/out"
t_exit "a database cannot be gzipped (a usage error)" 2 -- tdat-convert -o "$T_TMP/out/x.db.gz" $TD/v6.dat
t_empty_dir "and that leaves no file" "$T_TMP/out"
t_exit "a write failure (file size limit) fails" 1 -- \
	bash -c "ulimit -f 64; trap '' XFSZ; exec tdat-convert -o '$T_TMP/out/big.db' $TD/v7-zstd.dat"
t_stderr_match "with the system's reason" "big.db: write: File too large"
t_empty_dir "and leaves no file" "$T_TMP/out"

# --- the man page: formats cleanly, and its example queries run ---
if command -v groff >/dev/null; then
	t_run "man page" -- groff -man -ww -z doc/tdat-sqlite.7
	t_assert "doc/tdat-sqlite.7 formats without warnings" test ! -s "$T_ERR" -a "$T_RC" = 0
else
	skip "doc/tdat-sqlite.7 formats without warnings" "groff is not installed"
fi
sed -n '/^\.SH EXAMPLES/,/^\.SH SEE ALSO/p' doc/tdat-sqlite.7 | sed -n 's/^\.B "\{0,1\}\(.*\)/\1/p' |
	sed 's/"$//; s/\\-/-/g' | grep -v '^tdat-convert' | tr '\n' ' ' | tr ';' '\n' | sed 's/^ *//' |
	grep . >"$T_TMP/examples.sql"
is "the man page has 8 example queries" "$(wc -l <"$T_TMP/examples.sql")" 8
n=0
while read -r sql; do
	n=$((n + 1))
	t_run "example $n" -- sqlite3 -bail "$T_TMP/v7-zstd.db" "$sql"
	if ((T_RC == 0)) && [[ ! -s $T_ERR ]] && { [[ -s $T_OUT ]] || [[ $sql == *cpufreq* ]]; }; then
		ok "example query $n runs and answers: ${sql:0:60}"
	else
		not_ok "example query $n runs and answers: ${sql:0:60}" "status $T_RC" "$(head -3 "$T_ERR")"
	fi
done <"$T_TMP/examples.sql"

# common_flags and common_preempt_count: trace-cmd 3.4's irq-flags column (its
# golden) worked out from them, for every sched_switch and sched_waking
LAT="(CASE WHEN common_flags & 1 THEN 'd' WHEN common_flags & 2 THEN 'X' ELSE '.' END) ||
	(CASE WHEN common_flags & 4 THEN 'N' ELSE '.' END) ||
	(CASE WHEN common_flags & 24 = 24 THEN 'H' WHEN common_flags & 8 THEN 'h'
	      WHEN common_flags & 16 THEN 's' ELSE '.' END) ||
	(CASE WHEN common_preempt_count & 15 THEN printf('%x', common_preempt_count & 15) ELSE '.' END) ||
	(CASE WHEN common_preempt_count & 240 THEN printf('%x', common_preempt_count >> 4) ELSE '.' END)"
for f in v7-zstd tc34-zstd; do
	rm -f "$T_TMP/lat.db"
	tdat-convert -o "$T_TMP/lat.db" "$TD/$f.dat"
	is "$f: sched_switch's and sched_waking's common_flags and common_preempt_count give trace-cmd 3.4's irq-flags column" \
		"$(q "$T_TMP/lat.db" "SELECT lat FROM (SELECT id, $LAT AS lat FROM sched_switch UNION ALL
			SELECT id, $LAT FROM sched_waking) ORDER BY id" | md5sum)" \
		"$(grep -E ' (sched_switch|sched_waking): ' tests/expected/$f.text34.out |
			sed -E 's/^.*\[[0-9]{3}\] (.{5}) +[0-9.]+: .*$/\1/' | md5sum)"
done

# atrace markers (testdata/atrace.dat): slices nest on the writing thread, counters
rm -f "$T_TMP/atrace.db"
t_exit "atrace.dat converts" 0 -- tdat-convert -o "$T_TMP/atrace.db" testdata/atrace.dat
is "atrace: B/E pairs become slices, in order" \
	"$(q "$T_TMP/atrace.db" "SELECT group_concat(name || '@' || depth, ';') FROM (SELECT name, depth FROM slice ORDER BY ts)")" \
	'outer slice@0;inner "q" \ slice@1;utf8 é and bad '$'\xef\xbf\xbd'' byte@0'
is "atrace: the inner slice's parent is the outer one" \
	"$(q "$T_TMP/atrace.db" "SELECT p.name FROM slice c JOIN slice p ON c.parent_id = p.id WHERE c.depth = 1")" "outer slice"
is "atrace: the inner slice ends before the outer one" \
	"$(q "$T_TMP/atrace.db" "SELECT count(*) FROM slice c JOIN slice p ON c.parent_id = p.id WHERE c.ts + c.dur > p.ts + p.dur")" 0
is "atrace: C lines become a process counter track with their values" \
	"$(q "$T_TMP/atrace.db" "SELECT group_concat(value, ',') FROM (SELECT value FROM counter JOIN track ON counter.track_id = track.id WHERE track.name = 'queue depth' ORDER BY ts)")" "42.0,-3.0"
is "atrace: a counter that is not an integer is not a counter" \
	"$(q "$T_TMP/atrace.db" "SELECT count(*) FROM track WHERE name = 'bad counter'")" 0
done_testing
