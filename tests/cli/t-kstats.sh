#!/usr/bin/env bash
# t-kstats.sh: the kernel's per-CPU ring-buffer statistics that trace-cmd
# keeps in a trace.dat (CPUSTAT: what `trace-cmd report --stat` prints) reach
# every output that has a place for them, with the kernel's figures, not the
# pages' counts: tdat-info (per buffer and CPU, text and --json), Perfetto's
# FtraceStats at the end of the trace (judged by protoc and by Perfetto's
# own trace_processor, whose stats table names them ftrace_cpu_*_end) and
# the SQLite stats table (the same names, idx = cpu).  Where a file has no
# text, the lost events counted in the pages stand in for the overrun.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
O=$T_TMP
TP=${TDAT_TRACE_PROCESSOR:-$TOP_SRCDIR/../shared/tools/perfetto/trace_processor_shell}
FILES="lost-events-nocount lost-events two-buffers v6-two-buffers clock-counter date"

# is NAME GOT WANT: a TAP check of two values (a diff of the lines when they differ).
# kernel_text FILE: "BUFFER CPU FIGURE VALUE" for each figure of trace-cmd
# report --stat (BUFFER '-' for the top one; times "S.USEC" as ns).
kernel_text() {
	"$TRACE_CMD" report --stat "$1" 2>/dev/null | awk '
		/^Buffer: / { buf = $2; next }
		/^CPU: / { cpu = $2; next }
		/^CPU[0-9]+ data recorded/ { cpu = "" }
		cpu == "" || !/^(entries|overrun|commit overrun|bytes|oldest event ts|now ts|dropped events|read events): / { next }
		{
			key = $0; sub(/:.*/, "", key); gsub(/ /, "_", key)
			v = $NF
			if (v ~ /\./) {
				split(v, p, ".")
				v = p[1] sprintf("%06d", p[2]) "000"
				sub(/^0+/, "", v)
				if (v == "") v = 0
			}
			print (buf == "" ? "-" : buf), cpu, key, v
		}' | sort
}

# kernel_end FILE [NS]: what Perfetto names the figures at the end, one
# line per CPU and figure over all buffers ("ftrace_cpu_FIGURE_end CPU VALUE"):
# counts summed, the earliest oldest event, the latest now; NS added to times.
kernel_end() {
	kernel_text "$1" | awk -v off="${2:-0}" '
		{
			k = "ftrace_cpu_" $3 "_end " $2
			if ($3 ~ /_ts$/) $4 += off
			if (!(k in v)) v[k] = $4
			else if ($3 == "oldest_event_ts") { if ($4 < v[k]) v[k] = $4 }
			else if ($3 == "now_ts") { if ($4 > v[k]) v[k] = $4 }
			else v[k] += $4
		}
		END { for (k in v) printf "%s %.0f\n", k, v[k] }' | sort
}

# info_kernel JSON: the same from tdat-info --json.
info_kernel() {
	sqlite3 :memory: "SELECT CASE WHEN json_extract(b.value, '\$.name') = '' THEN '-'
			ELSE json_extract(b.value, '\$.name') END, json_extract(c.value, '\$.cpu'), k.key, k.value
		FROM json_each(readfile('$1'), '\$.buffers') b, json_each(b.value, '\$.cpus') c,
			json_each(c.value, '\$.kernel') k" | tr '|' ' ' | sort
}

# tp_stats PFTRACE: trace_processor's ftrace_cpu_*_end rows.
tp_stats() {
	"$TP" query "$1" "SELECT name, idx, value FROM stats WHERE name LIKE 'ftrace_cpu_%_end'" \
		2>/dev/null | sed '1d; s/"//g; s/,/ /g' | sort
}

# db_stats DB: the same rows of our SQLite stats table.
db_stats() {
	sqlite3 "$1" "SELECT name, idx, value FROM stats WHERE name LIKE 'ftrace_cpu_%_end'" |
		tr '|' ' ' | sort
}

# pf_end PFTRACE: the integer figures of FtraceStats END_OF_TRACE, as protoc decodes them.
pf_end() {
	protoc --proto_path=tests/perfetto --decode=perfetto.protos.Trace tdat-perfetto.proto <"$1" |
		awk '/phase: END_OF_TRACE/ { on = 1; next } /phase:/ { on = 0 }
			on && /^ *cpu: / { cpu = $2; next }
			on && /^ *[a-z_]+: [0-9]+$/ {
				k = $1; sub(/:/, "", k); if (k == "bytes_read") k = "bytes"
				print "ftrace_cpu_" k "_end", cpu, $2
			}' | sort
}

# without the doubles, which protoc prints rounded
ints() {
	grep -v '_ts_end '
}

have_tc=0
have_trace_cmd && have_tc=1
have_tp=0
[[ -x $TP ]] && have_tp=1
have_protoc=0
command -v protoc >/dev/null && have_protoc=1

# a capture without the text: lost-events.dat as v6, its CPUSTAT options renamed
t_exit "lost-events.dat as v6" 0 -- tdat-convert --file-version 6 -o "$O/lost-v6.dat" $TD/lost-events.dat
command -v python3 >/dev/null && python3 - "$O/lost-v6.dat" "$O/none.dat" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.index(b"options  \0") + 10
while True:
    oid, size = struct.unpack_from("<HI", d, i)
    if oid == 0:
        break
    if oid == 2:
        d[i:i + 2] = struct.pack("<H", 255)   # an option id nobody knows: no CPUSTAT
    i += 6 + size
open(sys.argv[2], "wb").write(d)
PY
have_none=0
[[ -s $O/none.dat ]] && have_none=1

# --- tdat-info: per buffer and CPU, every figure the text has ---
for f in $FILES; do
	t_exit "tdat-info --json --raw-ts $f.dat" 0 -- tdat-info --json --raw-ts $TD/$f.dat
	cp "$T_OUT" "$O/$f.info.json"
	if ((have_tc)); then
		want=$(kernel_text $TD/$f.dat)
		t_assert "$f.dat: trace-cmd report --stat has figures" test -n "$want"
		is "$f.dat: tdat-info's kernel figures are trace-cmd report --stat's" \
			"$(info_kernel "$O/$f.info.json")" "$want"
	else
		skip "$f.dat: kernel figures" "trace-cmd is not installed"
	fi
done
t_run "nocount text" -- tdat-info $TD/lost-events-nocount.dat
t_stdout_match "tdat-info shows the overrun the pages could not count" \
	'^\(top\) +1 +93 +80497 +0 +4444 +0 +0 +554\.512925000 +554\.514285000$'
t_run "date" -- tdat-info --json $TD/date.dat
cp "$T_OUT" "$O/date.json"
off=$(sed -n 's/.*"ts_offset":"\?\([0-9-]*\)"\?,.*/\1/p' "$O/date.json")	# a string above 2^53
moved=$(paste -d' ' <(info_kernel "$O/date.json") <(info_kernel "$O/date.info.json") |
	while read -r _ _ k v _ _ _ raw; do [[ $k == *_ts ]] && echo $((v - raw)); done | sort -u)
is "date.dat: the kernel's times move with the events' (DATE offset)" "$moved" "$off"
t_stdout_match "a file with CPUSTAT has kernel figures" '"kernel":\{"entries":'
if ((have_none)); then
	t_exit "the capture without CPUSTAT" 0 -- tdat-info --json "$O/none.dat"
	t_assert "has none" grep -q '"kernel":null' "$T_OUT"
	t_assert "and no kernel object" test "$(grep -c '"kernel":{' "$T_OUT")" = 0
fi

# --- Perfetto: FtraceStats at the end ---
if ((have_protoc)); then
	for f in $FILES; do
		t_exit "$f.dat to .pftrace" 0 -- tdat-convert -o "$O/$f.pftrace" $TD/$f.dat
		if ((have_tc)); then
			is "$f.dat: FtraceStats END_OF_TRACE has the kernel's counts" \
				"$(pf_end "$O/$f.pftrace")" "$(kernel_end $TD/$f.dat | ints)"
		fi
	done
	t_assert "nocount: CPU 1's overrun is the kernel's 80497, not 0" \
		grep -q '^ftrace_cpu_overrun_end 1 80497$' <(pf_end "$O/lost-events-nocount.pftrace")
else
	skip "FtraceStats" "protoc is not installed"
fi

# --- trace_processor reads them as the kernel's figures ---
t_exit "nocount with an offset whose times need care as doubles" 0 -- \
	tdat-convert --ts-offset 481000123000 -o "$O/off.pftrace" $TD/lost-events-nocount.dat
if ((have_tp && have_tc)); then
	for f in lost-events-nocount two-buffers v6-two-buffers lost-events; do
		is "$f.dat: trace_processor's ftrace_cpu_*_end are the kernel's figures" \
			"$(tp_stats "$O/$f.pftrace")" "$(kernel_end $TD/$f.dat)"
	done
	is "to the ns, after --ts-offset too" "$(tp_stats "$O/off.pftrace")" \
		"$(kernel_end $TD/lost-events-nocount.dat 481000123000)"
else
	skip "trace_processor's stats" "trace_processor_shell ($TP) or trace-cmd is missing"
fi

# --- SQLite: the same rows, named as trace_processor names them ---
for f in lost-events-nocount two-buffers v6-two-buffers lost-events; do
	t_exit "$f.dat to SQLite" 0 -- tdat-convert -o "$O/$f.db" $TD/$f.dat
	if ((have_tc)); then
		is "$f.dat: SQLite stats has the kernel's figures" "$(db_stats "$O/$f.db")" \
			"$(kernel_end $TD/$f.dat)"
	fi
	if ((have_tp)); then
		is "$f.dat: and they are trace_processor's rows for our .pftrace" \
			"$(db_stats "$O/$f.db")" "$(tp_stats "$O/$f.pftrace")"
	fi
done
is "beside the pages' counts" "$(sqlite3 "$O/lost-events-nocount.db" \
	"SELECT group_concat(name || ':' || value, ' ') FROM stats WHERE idx = 1 AND name LIKE 'cpu_%'")" \
	"cpu_events:93 cpu_events_lost:0 cpu_lost_unknown:1"
t_exit "a selected buffer: its figures only" 0 -- tdat-convert -B foo -o "$O/foo.db" $TD/two-buffers.dat
if ((have_tc)); then
	is "only foo's entries" "$(sqlite3 "$O/foo.db" \
		"SELECT group_concat(value, ' ') FROM stats WHERE name = 'ftrace_cpu_entries_end' ORDER BY idx")" \
		"$(kernel_text $TD/two-buffers.dat | awk '$1 == "foo" && $3 == "entries" { print $4 }' | paste -sd' ')"
fi

# --- no text: the pages' counts stand in ---
if ((have_none)); then
	t_exit "the same without CPUSTAT" 0 -- tdat-convert -o "$O/none.db" "$O/none.dat"
	lost=$(sed -n 's/.*"events":[0-9]*,"lost":\([0-9]*\),.*/\1/p' "$O/lost-events.info.json")
	is "SQLite: the pages' lost events as the overrun, no other figure" "$(db_stats "$O/none.db")" \
		"$(printf 'ftrace_cpu_overrun_end 0 0\nftrace_cpu_overrun_end 1 %s' "$lost")"
	if ((have_protoc)); then
		t_exit "and to .pftrace" 0 -- tdat-convert -o "$O/none.pftrace" "$O/none.dat"
		is "Perfetto: the same" "$(pf_end "$O/none.pftrace")" "$(db_stats "$O/none.db")"
	fi
else
	skip "a capture without CPUSTAT" "python3 is not installed"
fi
done_testing
