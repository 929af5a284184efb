#!/usr/bin/env bash
# t-tp-slices.sh: one truth for slices.  For every capture in testdata/, the
# slice table of our SQLite database (-f sqlite) must be, row by row, the
# slice table Perfetto's own trace processor (v58.2) makes of our .pftrace of
# the same capture: ts, dur, name, depth, category, the start of the parent
# and the track's CPU (irq and softirq) or thread (syscalls, workqueue,
# atrace).  A name byte that is not UTF-8 is U+FFFD in both (the .pftrace
# writes strings as UTF-8).  A difference that is ours on purpose
# (doc/tdat-sqlite.7): atrace async slices (S|/F|) are not in our table; the
# test checks it exactly.  signal/signals.dat too: signal_generate and
# signal_deliver are instants on the thread signalled and the one delivered
# to, as trace processor makes them.  Then what the tracks are: names and types as trace
# processor gives them.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
TP=${TDAT_TRACE_PROCESSOR:-$TOP_SRCDIR/../shared/tools/perfetto/trace_processor_shell}
[[ -x $TP ]] || skip_all "no trace_processor_shell at $TP (Perfetto's trace processor)"
command -v sqlite3 >/dev/null || skip_all "no sqlite3 command (Debian sqlite3)"

# rows_sql NAME WHERE [CPU]: one line per slice, ts|dur|hex(name)|depth|cpu|tid|
# category|parent's ts: NAME is the name expression, CPU the cpu_track column
# that numbers CPUs as the .pftrace does (ours: ucpu).
rows_sql() {
	printf '%s' "SELECT s.ts || '|' || s.dur || '|' || hex($1) || '|' || s.depth || '|' ||
		coalesce(c.${3:-cpu}, '') || '|' || coalesce(th.tid, '') || '|' ||
		coalesce(s.category, '') || '|' || coalesce(p.ts, '') AS r
		FROM slice s LEFT JOIN slice p ON p.id = s.parent_id
		LEFT JOIN cpu_track c ON c.id = s.track_id
		LEFT JOIN thread_track tt ON tt.id = s.track_id LEFT JOIN thread th ON th.utid = tt.utid
		$2"
}

ASYNC="JOIN track t ON t.id = s.track_id WHERE t.type = 'atrace_async_slice'"
NOT_ASYNC="WHERE s.track_id NOT IN (SELECT id FROM track WHERE type = 'atrace_async_slice')"

# q NAME SQL: our database NAME's rows.
q() { sqlite3 -batch "$T_TMP/$1.db" "$2"; }

# tpq FILE SQL: trace processor's rows, without its header and quotes.
tpq() {
	"$TP" query "$1" "$2" 2>/dev/null | sed '1d; s/^"//; s/"$//'
}

# one_truth NAME INPUT...: the comparison for tdat-convert INPUT...
one_truth() {
	local b=$1 db=$T_TMP/$1.db pf=$T_TMP/$1.pftrace n
	shift
	if ! tdat-convert -o "$db" "$@" 2>/dev/null || ! tdat-convert -o "$pf" "$@" 2>/dev/null; then
		not_ok "$b: converts to sqlite and perfetto"
		return
	fi
	tpq "$pf" "$(rows_sql s.name "$NOT_ASYNC")" | LC_ALL=C sort >"$T_TMP/$b.tp"
	sqlite3 -batch "$db" "$(rows_sql s.name "" ucpu)" |
		LC_ALL=C sort >"$T_TMP/$b.sq"
	n=$(wc -l <"$T_TMP/$b.tp")
	if cmp -s "$T_TMP/$b.tp" "$T_TMP/$b.sq"; then
		ok "$b: our $n slices are trace processor's, row by row"
	else
		not_ok "$b: our slices are trace processor's, row by row" \
			"trace processor $n rows, ours $(wc -l <"$T_TMP/$b.sq")" \
			"$(diff "$T_TMP/$b.tp" "$T_TMP/$b.sq" | head -10)"
	fi
	is "$b: trace processor's other slices are one async slice per atrace S| marker" \
		"$(tpq "$pf" "SELECT count(*) FROM slice s $ASYNC")" \
		"$(sqlite3 -batch "$db" "SELECT count(*) FROM ftrace_event e JOIN args a USING (arg_set_id)
			WHERE e.name = 'print' AND a.key = 'buf' AND a.string_value LIKE 'S|%'")"
}

for f in $TD/*.dat $TD/signal/signals.dat; do
	one_truth "$(basename "$f" .dat)" "$f"
done
# slices cut by a window, ends without begins, begins without ends, two inputs
one_truth window --start +3ms --end +9ms $TD/chunks.dat
one_truth enters -e raw_syscalls:sys_enter $TD/lost-events.dat
one_truth softirq-exits -e irq:softirq_exit --start +1ms $TD/v7-zstd.dat
one_truth two-inputs $TD/v7-zstd.dat $TD/v6-two-buffers.dat
# Every syscall twice on its thread, the copy 1.5 us later (a capture merged
# with itself, read as one machine): ends that are not for the innermost
# slice, and the slices left open inside them cut when a later event passes
# their end.  tdat-merge records its inputs, which then read as two machines;
# the record's options are renamed to an id no reader knows, so that the
# file's two buffers are one machine's.
cp $TD/chunks.dat "$T_TMP/again.dat"
if tdat-merge -o "$T_TMP/overlap.dat" --ts-offset "$T_TMP/again.dat=1500ns" $TD/chunks.dat \
	"$T_TMP/again.dat" 2>/dev/null && python3 - "$T_TMP/overlap.dat" <<'PY'
import sys
p = sys.argv[1]
d = open(p, 'rb').read()
opt = (0x7465).to_bytes(2, 'little') + (8).to_bytes(4, 'little')
assert d.count(opt) == 2, d.count(opt)
open(p, 'wb').write(d.replace(opt, (0x7466).to_bytes(2, 'little') + (8).to_bytes(4, 'little')))
PY
then
	one_truth overlapping "$T_TMP/overlap.dat"
	is "overlapping: slices end inside others (depth 1 with a parent)" \
		"$(q overlapping "SELECT count(*) > 1000 FROM slice WHERE depth = 1 AND parent_id >= 0")" 1
else
	not_ok "overlapping: tdat-merge makes the capture"
fi

# The slices of each kind exist in the captures (so the comparisons above are not empty).
is "softirqs: named by vector, on SoftIrq Cpu N (cpu_softirq), category irq" \
	"$(q v7-zstd "SELECT DISTINCT s.name || ' ' || t.name || ' ' || t.type || ' ' || s.category
		FROM slice s JOIN cpu_track t ON t.id = s.track_id WHERE t.type = 'cpu_softirq'
		ORDER BY 1 LIMIT 2")" \
	"BLOCK SoftIrq Cpu 1 cpu_softirq irq
RCU SoftIrq Cpu 0 cpu_softirq irq"
is "irqs: IRQ (name) on Irq Cpu N (cpu_irq)" \
	"$(q v7-zstd "SELECT s.name || ' ' || t.name || ' ' || t.type || ' ' || t.cpu
		FROM slice s JOIN cpu_track t ON t.id = s.track_id WHERE t.type = 'cpu_irq'")" \
	"IRQ (virtio1-req.0) Irq Cpu 1 cpu_irq 1"
is "raw syscalls: sys_NAME of the machine's table, on the thread (thread_execution)" \
	"$(q chunks "SELECT s.name || ' ' || t.type FROM slice s JOIN thread_track t ON t.id = s.track_id
		WHERE s.name IN ('sys_openat', 'sys_newfstatat') GROUP BY s.name ORDER BY 1")" \
	"sys_newfstatat thread_execution
sys_openat thread_execution"
is "every track of a slice is in track, with its name and type" \
	"$(q v7-zstd "SELECT count(*) FROM slice s LEFT JOIN track t ON t.id = s.track_id
		WHERE t.id IS NULL")" 0
is "syscalls still open at the end have dur -1, as in trace processor" \
	"$(q chunks "SELECT count(*) FROM slice WHERE dur = -1")" \
	"$(tpq "$T_TMP/chunks.pftrace" "SELECT count(*) FROM slice WHERE dur = -1")"
is "signals: signal_generate on the thread signalled (inside its syscall), signal_deliver on its own" \
	"$(q signals "SELECT s.name || ' ' || s.depth || ' ' || max(s.dur) || ' ' || count(*) || ' ' ||
		sum(s.name = 'signal_deliver' OR th.tid = e.pid)
		FROM slice s JOIN thread_track tt ON tt.id = s.track_id JOIN thread th USING (utid)
		LEFT JOIN signal_generate e ON e.ts = s.ts AND s.name = 'signal_generate'
		WHERE s.name LIKE 'signal%' GROUP BY s.name, s.depth ORDER BY 1")" \
	"signal_deliver 0 0 52 52
signal_generate 0 0 9 9
signal_generate 1 0 44 44"
is "sys_rt_sigreturn never returns: a slice of dur 0" \
	"$(q chunks "SELECT DISTINCT dur FROM slice WHERE name = 'sys_rt_sigreturn'")" 0
done_testing
