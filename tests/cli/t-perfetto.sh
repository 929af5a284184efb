#!/usr/bin/env bash
# t-perfetto.sh: tdat-convert -f perfetto (a Perfetto protobuf trace).  The
# output is decoded with `protoc --decode` and our own subset of Perfetto's
# schema (tests/perfetto/tdat-perfetto.proto); for several captures the
# events per CPU and event name must be those of our decoder (-f csv) and of
# trace-cmd report, and sample events must carry the fields trace-cmd report
# -R prints.  Then the packets around the events (SystemInfo, ProcessTree,
# lost events, FtraceStats), output names, gzip, pipes, several inputs and
# errors.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
command -v protoc >/dev/null || skip_all "protoc is not installed (Debian protobuf-compiler)"

# decode FILE.pftrace: the text form next to it, FILE.txt; fails if protoc does
# or complains (a string field that is not UTF-8 is an error protoc only prints).
decode() {
	protoc --proto_path=tests/perfetto --decode=perfetto.protos.Trace tdat-perfetto.proto \
		<"$1" >"${1%.*}.txt" 2>"${1%.*}.err" && ! test -s "${1%.*}.err"
}

# "count cpu name" for the events of a decoded trace, those in compact_sched too.
pf_counts() {
	awk '
		/^    cpu: / { cpu = $2 }
		/^      switch_timestamp: / { print cpu, "sched_switch" }
		/^      waking_timestamp: / { print cpu, "sched_waking" }
		/^    event \{/ { want = 1; next }
		want && /^      [a-z_0-9]+ \{/ {
			if ($1 != "generic") { print cpu, $1; want = 0 }
			next
		}
		want && /^        event_name: / { n = $2; gsub(/"/, "", n); print cpu, n; want = 0 }
	' "$1" | sort | uniq -c
}

# The same from tdat-convert -f csv (CPUs of input N after those of inputs
# before it, NCPU each): the quoted fields cell and lost go, event is last.
csv_counts() {
	local ncpu=$1
	shift
	tdat-convert -f csv "$@" | sed -E '1d; s/,("([^"]|"")*")?$//' |
		awk -F, -v n="$ncpu" '{ print $2 + n * $3, $(NF - 1) }' | sort | uniq -c
}

# The same from trace-cmd report (its lines for events, not stack lines).
tc_counts() {
	"$TRACE_CMD" report "$1" 2>/dev/null |
		sed -nE 's/^.*\[([0-9]{3})\] +[0-9.]+: ([a-z_0-9]+): .*/\1 \2/p' |
		awk '{ print $1 + 0, $2 }' | sort | uniq -c
}

# event_at FILE.txt TS NAME: the lines of the NAME event stamped TS.
event_at() {
	awk -v ts="$2" -v name="$3" '
		/^    event \{/ { buf = ""; on = 1; next }
		on && /^    \}/ {
			if (index(buf, "timestamp: " ts "\n") && index(buf, " " name " {\n")) {
				printf "%s", buf
				exit
			}
			on = 0
			next
		}
		on { buf = buf $0 "\n" }
	' "$1"
}

# field TEXT NAME: the value of NAME in the event lines TEXT.
field() {
	sed -nE "s/^ *$2: (.*)$/\1/p" <<<"$1" | head -n 1
}

# raw_first FILE EVENT: "TS fields..." of the first EVENT in trace-cmd report -R -t.
raw_first() {
	"$TRACE_CMD" report -R -t "$1" 2>/dev/null | grep -m1 -E "\] +[0-9.]+: $2: " |
		sed -E "s/^.*\] +([0-9]+)\.([0-9]{9}): $2: +/\1\2 /"
}

# --- every capture: the events per CPU and name ---
for f in v7-zstd v6 v7-none two-buffers v6-two-buffers markers lost-events lost-events-nocount \
	clock-mono clock-counter clock-x86-tsc date extract stack chunks atrace; do
	t_exit "$f.dat converts" 0 -- tdat-convert -f perfetto -o "$T_TMP/$f.pftrace" $TD/$f.dat
	t_assert "$f.pftrace decodes with protoc" decode "$T_TMP/$f.pftrace"
	((T_LAST_OK)) || diag "$(head -n 5 "$T_TMP/$f.err")"
	pf_counts "$T_TMP/$f.txt" >"$T_TMP/$f.pf"
	csv_counts 0 $TD/$f.dat >"$T_TMP/$f.csv"
	t_assert "$f: events per CPU and name are the decoder's ($(awk '{ n += $1 } END { print n }' \
		"$T_TMP/$f.csv"))" cmp -s "$T_TMP/$f.pf" "$T_TMP/$f.csv"
	((T_LAST_OK)) || diag "$(diff "$T_TMP/$f.csv" "$T_TMP/$f.pf" | head -n 10)"
done
for f in v7-zstd two-buffers lost-events stack chunks; do
	if have_trace_cmd; then
		tc_counts $TD/$f.dat >"$T_TMP/$f.tc"
		t_assert "$f: and those of trace-cmd report" cmp -s "$T_TMP/$f.pf" "$T_TMP/$f.tc"
		((T_LAST_OK)) || diag "$(diff "$T_TMP/$f.tc" "$T_TMP/$f.pf" | head -n 10)"
	else
		skip "$f: and those of trace-cmd report" "no trace-cmd"
	fi
done
t_assert "sched_switch is a typed message" grep -q '^      sched_switch {' "$T_TMP/v7-zstd.txt"
t_assert "sched_stat_runtime is generic" grep -q 'event_name: "sched_stat_runtime"' "$T_TMP/v7-zstd.txt"
t_assert "a bundle holds at most 4096 events" test "$(awk '/^packet \{/ { n = 0 } /^    event \{/ { n++ }
	n > m { m = n } END { print m + 0 }' "$T_TMP/chunks.txt")" -le 4096
t_assert "chunks.dat needs several bundles per CPU" \
	test "$(grep -c '^  ftrace_events {' "$T_TMP/chunks.txt")" -gt 4
t_assert "each CPU's events are in time order" awk '
	/^    cpu: / { cpu = $2 }
	/^      timestamp: / { if ($2 < last[cpu]) exit 1; last[cpu] = $2 }' "$T_TMP/chunks.txt"

# --- sample events: the fields trace-cmd report -R prints ---
if have_trace_cmd; then
	read -r ts raw < <(raw_first $TD/v7-zstd.dat sched_switch)
	ev=$(event_at "$T_TMP/v7-zstd.txt" "$ts" sched_switch)
	want=$(sed -E 's/prev_comm=([^ ]*)/prev_comm="\1"/; s/next_comm=([^ ]*)/next_comm="\1"/' <<<"$raw")
	got=$(for k in prev_comm prev_pid prev_prio prev_state next_comm next_pid next_prio; do
		printf '%s=%s ' "$k" "$(field "$ev" "$k")"; done)
	t_assert "a sched_switch has trace-cmd's fields ($raw)" test "${got% }" = "$want"
	((T_LAST_OK)) || diag "got: $got"
	t_assert "and its pid" test "$(field "$ev" pid)" = "$(sed -E 's/.*prev_pid=([0-9]+).*/\1/' <<<"$raw")"

	read -r ts raw < <(raw_first $TD/v7-zstd.dat sched_stat_runtime)
	ev=$(event_at "$T_TMP/v7-zstd.txt" "$ts" generic)
	got=$(awk '/name: / { n = $2 } /_value: / { v = $2; printf "%s=%s ", n, v }' <<<"$ev" | tr -d '"')
	t_assert "a generic event has typed fields ($raw)" test "${got% }" = "$raw"
	((T_LAST_OK)) || diag "got: $got"
	t_assert "numbers as numbers, strings as strings" test \
		"$(grep -c 'int_value\|uint_value' <<<"$ev") $(grep -c str_value <<<"$ev")" = "2 1"

	read -r ts raw < <(raw_first $TD/markers.dat print)
	ev=$(event_at "$T_TMP/markers.txt" "$ts" print)
	t_assert "a print's buf (${raw#*buf=})" test "$(field "$ev" buf)" = "\"${raw#*buf=}\\n\""
	((T_LAST_OK)) || diag "got: $(field "$ev" buf)"

	read -r ts raw < <(raw_first $TD/two-buffers.dat sys_enter_openat)
	ev=$(event_at "$T_TMP/two-buffers.txt" "$ts" generic)
	t_assert "a syscalls event of an instance is generic, with its fields" \
		test "$(field "$ev" event_name)" = '"sys_enter_openat"' -a -n "$(field "$ev" uint_value)"
else
	for n in 1 2 3 4 5 6; do skip "sample events against trace-cmd report -R" "no trace-cmd"; done
fi
t_assert "sys_enter has its six args" test "$(awk '/^      sys_enter \{/ { on = 1; n = 0; next }
	on && /^      \}/ { print n; exit } on && /args: / { n++ }' "$T_TMP/lost-events.txt")" = 6
t_assert "sched_waking's common_flags are in compact_sched" \
	grep -q '^      waking_common_flags: ' "$T_TMP/atrace.txt"
t_assert "and never in an FtraceEvent (trace processor would make an event of them)" \
	test "$(grep -c common_flags "$T_TMP/atrace.txt")" = \
	"$(grep -c waking_common_flags "$T_TMP/atrace.txt")"

# --- typed events and compact_sched ---
for ev in hrtimer_start hrtimer_expire_entry timer_start softirq_raise sched_migrate_task \
	sched_process_wait; do
	t_assert "$ev is a typed message" grep -q "^      $ev {" "$T_TMP/v7-zstd.txt"
done
t_assert "and its fields the kernel's (hrtimer_start: hrtimer function expires softexpires mode)" \
	test "$(awk '/^      hrtimer_start \{/ { on = 1; next } on && /^      \}/ { exit }
		on { printf "%s ", $1 }' "$T_TMP/v7-zstd.txt")" = \
	"hrtimer: function: expires: softexpires: mode: "
t_assert "sched_switch and sched_waking go into compact_sched" grep -q '^    compact_sched {' \
	"$T_TMP/v7-zstd.txt"
t_assert "with comms interned" grep -q '^      intern_table: "' "$T_TMP/v7-zstd.txt"
t_assert "but the first sched_switch of a CPU is a full one" test "$(awk '
	/^    cpu: / { cpu = $2 } /^      sched_switch \{/ && !(cpu in seen) { seen[cpu]; n++ }
	/^      switch_timestamp: / && !(cpu in seen) { bad = 1 } END { print bad ? -1 : n }' \
	"$T_TMP/v7-zstd.txt")" = 2

# compact_sched_events FILE.txt: "cpu ts name fields..." of its sched_switch
# and sched_waking, as trace-cmd report -R -t prints them (prev_* of a
# compact sched_switch: the last sched_switch's next_* on the CPU).
compact_sched_events() {
	awk '
	function val(   v) { v = $0; sub(/^ *[a-z_]+: /, "", v); gsub(/^"|"$/, "", v); return v }
	function flush(   i, t) {
		t = 0
		for (i = 1; i <= ns; i++) {
			t += s_ts[i]
			printf "%d %.0f C %s %s %s %s\n", cpu, t, s_st[i], names[s_comm[i]],
				s_pid[i], s_prio[i]
		}
		t = 0
		for (i = 1; i <= nw; i++) {
			t += w_ts[i]
			printf "%d %.0f W comm=%s pid=%s prio=%s target_cpu=%03d\n", cpu, t,
				names[w_comm[i]], w_pid[i], w_prio[i], w_cpu[i]
		}
		delete n
		ns = nw = nn = 0
	}
	/^    cpu: / { cpu = $2 }
	# protoc prints a packed column whole, then the next
	/^      switch_timestamp: / { s_ts[++ns] = $2 }
	/^      switch_prev_state: / { s_st[++n[1]] = $2 }
	/^      switch_next_pid: / { s_pid[++n[2]] = $2 }
	/^      switch_next_prio: / { s_prio[++n[3]] = $2 }
	/^      switch_next_comm_index: / { s_comm[++n[4]] = $2 }
	/^      waking_timestamp: / { w_ts[++nw] = $2 }
	/^      waking_pid: / { w_pid[++n[5]] = $2 }
	/^      waking_target_cpu: / { w_cpu[++n[6]] = $2 }
	/^      waking_prio: / { w_prio[++n[7]] = $2 }
	/^      waking_comm_index: / { w_comm[++n[8]] = $2 }
	/^      intern_table: / { names[nn++] = val() }
	/^    compact_sched \{/ { delete n; ns = nw = nn = 0 }
	/^    \}/ { flush() }
	/^      timestamp: / { ts = $2 }
	/^      sched_switch \{/ { full = 1 }
	full && /^        next_comm: / { c = val() }
	full && /^        next_pid: / { p = val() }
	full && /^        next_prio: / { printf "%d %s F - %s %s %s\n", cpu, ts, c, p, val(); full = 0 }
	' "$1" | sort -k1,1n -k2,2n -s | awk '
	$3 == "F" { comm[$1] = $5; pid[$1] = $6; prio[$1] = $7 }
	$3 == "C" {
		printf "%s %s sched_switch prev_comm=%s prev_pid=%s prev_prio=%s prev_state=%s " \
			"next_comm=%s next_pid=%s next_prio=%s\n", $1, $2, comm[$1], pid[$1],
			prio[$1], $4, $5, $6, $7
		comm[$1] = $5; pid[$1] = $6; prio[$1] = $7
	}
	$3 == "W" { $3 = "sched_waking"; print }'
}
# The same from trace-cmd report -R -t, for the events of compact_sched.
raw_sched() {
	"$TRACE_CMD" report -R -t "$1" 2>/dev/null |
		sed -nE 's/^.*\[([0-9]+)\] +([0-9]+)\.([0-9]{9}): (sched_switch|sched_waking): +/\1 \2\3 \4 /p' |
		awk '{ $1 = $1 + 0; print }'
}
if have_trace_cmd; then
	compact_sched_events "$T_TMP/v7-zstd.txt" | sort >"$T_TMP/cs.txt"
	raw_sched $TD/v7-zstd.dat | sort | comm -12 - "$T_TMP/cs.txt" >"$T_TMP/cs-tc.txt"
	t_assert "compact_sched's events are trace-cmd's ($(wc -l <"$T_TMP/cs.txt") of them)" \
		test -s "$T_TMP/cs.txt" -a "$(wc -l <"$T_TMP/cs-tc.txt")" = "$(wc -l <"$T_TMP/cs.txt")"
	((T_LAST_OK)) || diag "$(comm -23 "$T_TMP/cs.txt" "$T_TMP/cs-tc.txt" | head -n 3)"
else
	skip "compact_sched's events are trace-cmd's" "no trace-cmd"
fi

# --- the other packets ---
uname=$(tdat-info $TD/v7-zstd.dat | sed -n 's/^uname: *//p')
read -r sys _ rel mach <<<"$uname"
t_assert "SystemInfo comes first" test "$(sed -n 2,3p "$T_TMP/v7-zstd.txt" | tr -d ' \n')" = \
	"trusted_packet_sequence_id:1sequence_flags:1"
t_assert "with utsname from the uname ($uname)" grep -qzP \
	"utsname \\{\n *sysname: \"$sys\"\n *release: \"$rel\"\n *machine: \"$mach\"" "$T_TMP/v7-zstd.txt"
t_assert "every packet is on sequence 1" test "$(grep -c '^packet {' "$T_TMP/v7-zstd.txt")" = \
	"$(grep -c '^  trusted_packet_sequence_id: 1$' "$T_TMP/v7-zstd.txt")"
t_assert "ProcessTree names the marker-writing thread" grep -qzP \
	'threads \{\n *tid: 12963\n *name: "write-markers.p"' "$T_TMP/markers.txt"
t_assert "and its process after exec, by the file's base name (trace processor's name: cmdline[0])" \
	grep -qzP 'processes \{\n *pid: 12963\n *cmdline: "write-markers.py"\n *\}' "$T_TMP/markers.txt"
t_assert "threads are joined to their process" grep -qzP \
	'tid: 12738\n *name: "sh"\n *tgid: 12738' "$T_TMP/two-buffers.txt"
lost=$(tdat-convert -f csv $TD/lost-events.dat | sed -E '1d; s/,("([^"]|"")*")?$//' |
	awk -F, '$NF != 0 { n++; if ($NF > 0) sum += $NF } END { print n + 0, sum + 0 }')
got=$(grep -c '^    lost_events: true' "$T_TMP/lost-events.txt")
t_assert "a bundle after each loss has lost_events (${lost% *})" test "$got" = "${lost% *}" -a "$got" -gt 0
got=$(awk '/phase: END_OF_TRACE/ { on = 1 } on && /overrun:/ { n += $2 } END { print n + 0 }' \
	"$T_TMP/lost-events.txt")
t_assert "FtraceStats at the end counts the lost events (${lost#* })" test "$got" = "${lost#* }"
t_assert "a loss of unknown size still marks the bundle" grep -q '^    lost_events: true' \
	"$T_TMP/lost-events-nocount.txt"

# --- outputs ---
t_exit "-o t.pftrace picks perfetto" 0 -- tdat-convert -o "$T_TMP/t.pftrace" $TD/two-buffers.dat
t_assert "same bytes as -f perfetto" cmp -s "$T_TMP/t.pftrace" "$T_TMP/two-buffers.pftrace"
t_exit "-o t.perfetto-trace too" 0 -- tdat-convert -o "$T_TMP/t.perfetto-trace" $TD/two-buffers.dat
t_assert "same bytes" cmp -s "$T_TMP/t.perfetto-trace" "$T_TMP/two-buffers.pftrace"
t_exit "-o t.pftrace.gz" 0 -- tdat-convert -o "$T_TMP/t.pftrace.gz" $TD/two-buffers.dat
t_assert "gunzips to the same bytes" cmp -s <(gzip -dc "$T_TMP/t.pftrace.gz") "$T_TMP/two-buffers.pftrace"
t_run "pipe" -- sh -c "cat $TD/v6.dat | tdat-convert -f perfetto -"
t_assert "from a pipe equals from the file" cmp -s "$T_OUT" "$T_TMP/v6.pftrace"
t_exit "a selection" 0 -- tdat-convert -f perfetto -e sched:sched_switch -o "$T_TMP/sel.pftrace" \
	$TD/v7-zstd.dat
decode "$T_TMP/sel.pftrace"
t_assert "writes only what is selected" test "$(pf_counts "$T_TMP/sel.txt" | awk '{ print $3 }' |
	sort -u)" = sched_switch
t_exit "two inputs on one timeline" 0 -- tdat-convert -f perfetto -o "$T_TMP/multi.pftrace" \
	$TD/v7-zstd.dat $TD/v6.dat
decode "$T_TMP/multi.pftrace"
pf_counts "$T_TMP/multi.txt" >"$T_TMP/multi.pf"
csv_counts 2 $TD/v7-zstd.dat $TD/v6.dat >"$T_TMP/multi.csv"
t_assert "the second input's CPUs come after the first's" cmp -s "$T_TMP/multi.pf" "$T_TMP/multi.csv"
((T_LAST_OK)) || diag "$(diff "$T_TMP/multi.csv" "$T_TMP/multi.pf" | head -n 10)"

# --- errors ---
t_exit "damaged data" 1 -- tdat-convert -f perfetto -o "$T_TMP/damaged.pftrace" \
	$TD/bad/truncated-v6-data.dat
t_assert "still gives a trace protoc decodes" decode "$T_TMP/damaged.pftrace"
mkdir -p "$T_TMP/out"
t_exit "an unwritable directory" 1 -- tdat-convert -o "$T_TMP/none/x.pftrace" $TD/v6.dat
t_exit "a missing input" 1 -- tdat-convert -o "$T_TMP/out/x.pftrace" $TD/v6.dat $TD/none.dat
t_empty_dir "leaves no output behind" "$T_TMP/out"
if [[ -w /dev/full ]]; then
	t_exit "a full disk is an error" 1 -- sh -c "tdat-convert -f perfetto $TD/v6.dat > /dev/full"
else
	skip "a full disk is an error" "no /dev/full"
fi
if command -v script >/dev/null; then
	t_run "terminal" -- script -qec "tdat-convert -f perfetto $TD/v6.dat" /dev/null
	t_assert "a terminal is refused" grep -q 'refusing to write binary output to a terminal' "$T_OUT"
else
	skip "a terminal is refused" "no script(1)"
fi
t_run "closed pipe" -- bash -c "set -o pipefail; tdat-convert -f perfetto $TD/stack.dat | head -c 100"
t_assert "a closed pipe ends quietly" test ! -s "$T_ERR"

# --- our schema is Perfetto's: its ftrace part as gen-fields.py makes it ---
if command -v python3 >/dev/null; then
	sed -n '/^message FtraceEventBundle {/,/^\/\/ trace\/ftrace\/generic.proto/p' \
		tests/perfetto/tdat-perfetto.proto | sed '$d' | sed '$d' >"$T_TMP/part.proto"
	t_assert "tdat-perfetto.proto's ftrace messages are upstream-fields.txt's" cmp -s \
		"$T_TMP/part.proto" <(python3 tests/perfetto/gen-fields.py proto \
		tests/perfetto/upstream-fields.txt libfmt/write/perfetto-events.c)
else
	skip "tdat-perfetto.proto's ftrace messages are upstream-fields.txt's" "no python3"
fi

# --- the checks can fail: a changed field number or a dropped event shows ---
sed 's/sched_switch = 4;/sched_switch = 6;/' tests/perfetto/tdat-perfetto.proto >"$T_TMP/wrong.proto"
protoc --proto_path="$T_TMP" --decode=perfetto.protos.Trace wrong.proto <"$T_TMP/v7-zstd.pftrace" \
	>"$T_TMP/wrong.txt" 2>/dev/null
t_assert "a wrong field number changes the counts" \
	test -n "$(pf_counts "$T_TMP/wrong.txt" | diff - "$T_TMP/v7-zstd.csv")"
awk '/^    event \{/ && !done { skip = 1; done = 1 } !skip { print } skip && /^    \}/ { skip = 0 }' \
	"$T_TMP/v7-zstd.txt" >"$T_TMP/short.txt"
t_assert "a missing event changes the counts" test -n "$(pf_counts "$T_TMP/short.txt" |
	diff - "$T_TMP/v7-zstd.csv")"
# --- strings are UTF-8: a byte that is not is U+FFFD, as in sqlite and json ---
# every print's buf as protoc decodes it, in time order, against our SQLite's
pf_bufs() {
	python3 -c '
import codecs, re, sys
for line in open(sys.argv[1], encoding="utf-8"):
    m = re.match(r" *buf: \"(.*)\"$", line)
    if m:
        print(ascii(codecs.escape_decode(m.group(1))[0].decode("utf-8")))' "$1"
}
if tdat-convert -o "$T_TMP/markers.db" $TD/markers.dat 2>/dev/null; then
	pf_bufs "$T_TMP/markers.txt" >"$T_TMP/markers.pfbuf"
	sqlite3 -batch "$T_TMP/markers.db" "SELECT hex(a.string_value) FROM ftrace_event e
		JOIN args a USING (arg_set_id) WHERE e.name = 'print' AND a.key = 'buf'
		ORDER BY e.ts, e.id" | python3 -c '
import sys
for h in sys.stdin.read().split():
    print(ascii(bytes.fromhex(h).decode("utf-8")))' >"$T_TMP/markers.sqbuf"
	t_assert "markers: print texts as protoc decodes them are SQLite's ($(wc -l \
		<"$T_TMP/markers.sqbuf"))" cmp -s "$T_TMP/markers.pfbuf" "$T_TMP/markers.sqbuf"
	((T_LAST_OK)) || diag "$(diff "$T_TMP/markers.sqbuf" "$T_TMP/markers.pfbuf" | head -n 6)"
	t_assert "markers: the text that is not UTF-8 holds U+FFFD there" grep -qF \
		"'invalid utf8: \\ufffd\\ufffd and lone \\ufffd end\\n'" "$T_TMP/markers.pfbuf"
else
	not_ok "markers.dat converts to sqlite"
fi

# --compression zlib: every packet deflated into compressed_packets, which
# inflate to the very bytes of the plain file (Python's zlib is the reader)
for f in chunks markers; do
	tdat-convert -f perfetto -o "$T_TMP/$f-plain.pftrace" "$TD/$f.dat"
	t_exit "$f: --compression zlib" 0 -- \
		tdat-convert -f perfetto --compression zlib -o "$T_TMP/$f-z.pftrace" "$TD/$f.dat"
	t_run "inflate $f" -- python3 tests/perfetto/inflate-packets.py "$T_TMP/$f-z.pftrace"
	t_assert "$f: its compressed packets inflate to the plain file" cmp -s "$T_OUT" "$T_TMP/$f-plain.pftrace"
	t_assert "$f: and it is smaller" test "$(stat -c %s "$T_TMP/$f-z.pftrace")" -lt \
		"$(stat -c %s "$T_TMP/$f-plain.pftrace")"
done
t_exit "--compression zstd is refused for perfetto" 2 -- \
	tdat-convert -f perfetto --compression zstd -o "$T_TMP/x.pftrace" "$TD/chunks.dat"
t_exit "--file-version is refused for perfetto" 2 -- \
	tdat-convert -f perfetto --file-version 6 -o "$T_TMP/x.pftrace" "$TD/chunks.dat"
t_exit "--compression is refused for csv" 2 -- \
	tdat-convert -f csv --compression zlib -o "$T_TMP/x.csv" "$TD/chunks.dat"

done_testing
