#!/usr/bin/env bash
# t-capture.sh: tdat-capture against the live kernel.  A workload writes
# known lines to the instance's trace_marker and execs known commands; our
# decoder and trace-cmd report must show every line and exec, in order, with
# the right comms.  Then start/stop/extract/reset, Ctrl-C in the middle,
# --duration, a failing command's status, --top with settings, pipes,
# filters, v6/zlib, refusals.  After every case tracefs must be as it was
# (buffer size, clock, instances, top events, tracing_on, cpumask, options).
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
O=$T_TMP

if [[ $(id -u) != 0 ]]; then
	skip_all "needs root to trace (tracefs)"
fi
TFS=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[[ -d $d/instances ]] && TFS=$d && break
done
if [[ -z $TFS ]] && ! mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
	skip_all "tracefs is not available (not mounted, cannot mount)"
fi
TFS=${TFS:-/sys/kernel/tracing}

# The tracefs settings a capture must leave as it found them.
state() {
	local f
	ls "$TFS/instances"
	for f in buffer_size_kb buffer_subbuf_size_kb trace_clock tracing_on tracing_cpumask \
		events/enable set_event set_event_notrace_pid buffer_percent options/stacktrace options/record-tgid \
		events/sched/sched_switch/enable events/sched/sched_switch/filter; do
		[[ -e $TFS/$f ]] && echo "$f: $(cat "$TFS/$f")"
	done
}
# A kernel that has not traced since boot reads buffer_size_kb as "7 (expanded: 1408)": the
# buffer grows on first use and stays grown, so no one can put that reading back.  Then -b is
# tried first: what is written back is the size the kernel grows it to (rounded to pages), not
# ours, and not the unwritable reading.  Every later case compares with the grown state.
grows=$(sed -n 's/.*(expanded: \([0-9]*\)).*/\1/p' "$TFS/buffer_size_kb")
if [[ -n $grows && -z $(cat "$TFS/set_event") ]]; then
	t_exit "record --top -b 512 with a buffer unused since boot" 0 -- \
		tdat-capture record -q --top -b 512 -o "$O/grow.dat" -- true
	now=$(cat "$TFS/buffer_size_kb")
	t_assert "puts back the size the kernel grows it to ($grows KB), not 512 ($now)" \
		test "$now" -ge "$grows" -a "$now" -lt $((grows + 16))
	rm -f "$O/grow.dat"
fi
state >"$O/state.before"

# unchanged NAME: the tracefs settings are those of the start of the test.
unchanged() {
	state >"$O/state.now"
	if cmp -s "$O/state.before" "$O/state.now"; then
		ok "tracefs unchanged after $1"
	else
		not_ok "tracefs unchanged after $1" "$(diff "$O/state.before" "$O/state.now" | head -n 8)"
	fi
}

# text FILE [trace-cmd [-N]]: the report of FILE by our decoder, or by
# trace-cmd; -N: without print plugins, so that every line's comm is the
# one the kernel saved (the sched_switch plugin names a pid after the last
# next_comm it printed, e.g. tdat-capture for a child before its exec).
text() {
	if [[ ${2-} == trace-cmd ]]; then
		"$TRACE_CMD" report ${3-} "$1" 2>"$O/tc.err"
	else
		tdat-convert ${3:+--no-plugins} "$1"
	fi
}

# --- record a known workload ---
# Commands of our own names, so that no other process on the machine matches.
cp "$(command -v cat)" "$O/tdat-wl-cat"
cp "$(command -v date)" "$O/tdat-wl-date"
cat >"$O/work.sh" <<EOF
#!/bin/sh
# five markers, each followed by an exec of tdat-wl-cat; the last one by tdat-wl-date
for i in 1 2 3 4 5; do
	echo "tdat-mark-\$i" >"\$TDAT_CAPTURE_DIR/trace_marker"
	"$O/tdat-wl-cat" /proc/version >/dev/null
done
echo "tdat-mark-end" >"\$TDAT_CAPTURE_DIR/trace_marker"
exec "$O/tdat-wl-date" >/dev/null
EOF
chmod +x "$O/work.sh"

t_exit "record a workload" 0 -- tdat-capture record -C global -e sched:sched_switch \
	-e sched:sched_process_exec -e 'sched:sched_process_f*' -o "$O/w.dat" -- "$O/work.sh"
t_stderr_match "the summary names events per CPU and lost ones" 'cpu0: [0-9]+ events, .* lost'
t_assert "the output file exists and no temporary is left" test -s "$O/w.dat" -a -z "$(ls "$O" | grep tmp-)"
unchanged "record"

# The markers and the execs of cat, in order, with their comms.
expected_seq() {
	for i in 1 2 3 4 5; do
		echo "mark tdat-mark-$i"
		echo "exec tdat-wl-cat"
	done
	echo "mark tdat-mark-end"
	echo "exec tdat-wl-date"
}
expected_seq >"$O/seq.want"
sequence() {
	sed -nE 's/^ *([^ ]+)-[0-9]+ .*tracing_mark_write: (tdat-mark-[0-9a-z]+)$/mark \2/p
		s/^ *(tdat-wl-[a-z]+)-[0-9]+ .*sched_process_exec: +filename=[^ ]*\/(tdat-wl-[a-z]+) .*/exec \2/p'
}
for who in tdat trace-cmd; do
	if [[ $who == trace-cmd ]] && ! have_trace_cmd; then
		skip "$who: markers and execs in order" "trace-cmd is not installed"
		skip "$who: sched_switch shows the workload's comms" "trace-cmd is not installed"
		continue
	fi
	text "$O/w.dat" $who >"$O/w.$who.txt"
	text "$O/w.dat" $who -N >"$O/w.$who.N.txt"
	sequence <"$O/w.$who.N.txt" >"$O/seq.$who"
	if cmp -s "$O/seq.want" "$O/seq.$who"; then
		ok "$who: markers and execs in order"
	else
		not_ok "$who: markers and execs in order" "$(diff "$O/seq.want" "$O/seq.$who" | head -n 8)"
	fi
	n=$(grep -cE 'sched_switch: +prev_comm=tdat-wl-cat prev_pid=[0-9]+ ' "$O/w.$who.N.txt")
	t_assert "$who: sched_switch shows the workload's comms ($n switches from tdat-wl-cat)" test "$n" -ge 5
done
if have_trace_cmd; then
	t_assert "trace-cmd report reads it without a complaint" test ! -s "$O/tc.err"
	t_assert "our text equals trace-cmd report byte for byte" cmp -s "$O/w.tdat.txt" "$O/w.trace-cmd.txt"
else
	skip "trace-cmd report reads it without a complaint" "trace-cmd is not installed"
	skip "our text equals trace-cmd report byte for byte" "trace-cmd is not installed"
fi
t_run "tdat-info" -- tdat-info "$O/w.dat"
t_stdout_match "the file says v7, zstd, clock global, our version" 'version: +7'
t_assert "zstd, clock global, tdat version" grep -qE '^compression: +zstd' "$T_OUT"
t_assert "the clock is global" grep -qE '^clock: +global' "$T_OUT"
# the kernel's figures of CPU 0: entries ... read events, then the oldest event's time
t_assert "the buffer statistics are there (CPUSTAT)" \
	grep -qE '^\(top\) +0( +[0-9]+){6} +[0-9]+\.[0-9]{9} ' "$T_OUT"

# --- start / stop / extract / reset on a named instance ---
B=tdat-test-$$
t_exit "start" 0 -- tdat-capture start -B "$B" -e sched:sched_process_exec -b 256
t_assert "start made the instance" test -d "$TFS/instances/$B"
t_run "stat" -- tdat-capture stat -B "$B"
t_stdout_match "stat: tracing on" '^tracing_on: 1$'
t_assert "stat: the enabled event and the buffer size" \
	grep -qx 'events: sched:sched_process_exec' "$T_OUT"
echo "cycle-marker" >"$TFS/instances/$B/trace_marker"
/bin/true
t_exit "stop" 0 -- tdat-capture stop -B "$B"
echo "after-stop" 2>/dev/null >"$TFS/instances/$B/trace_marker"
t_assert "stop turned tracing off" test "$(cat "$TFS/instances/$B/tracing_on")" = 0
t_exit "extract" 0 -- tdat-capture extract -B "$B" -o "$O/e.dat"
tdat-convert "$O/e.dat" >"$O/e.txt"
t_assert "extract holds the marker written while tracing" grep -q 'tracing_mark_write: cycle-marker' "$O/e.txt"
t_assert "and the exec of true" grep -qE 'sched_process_exec: +filename=[^ ]*/true ' "$O/e.txt"
t_assert "but not what came after stop" test "$(grep -c after-stop "$O/e.txt")" = 0
t_exit "reset" 0 -- tdat-capture reset -B "$B"
t_assert "reset removed the instance" test ! -e "$TFS/instances/$B"
t_exit "stop of a missing instance fails" 1 -- tdat-capture stop -B "$B"
t_stderr_match "and says so" "no instance '$B'"
unchanged "start/stop/extract/reset"

# --- Ctrl-C in the middle ---
tdat-capture record -q -e sched:sched_switch -o "$O/int.dat" 2>"$O/int.err" &
pid=$!
inst=$TFS/instances/tdat-capture-$pid
# A new instance traces at once until record turns it off, sets it up,
# clears it and turns it on: only the event enabled (read first) and then
# tracing on means recording has begun.
recording() {
	[[ $(cat "$1/events/sched/sched_switch/enable" 2>/dev/null) == 1 &&
	   $(cat "$1/tracing_on" 2>/dev/null) == 1 ]]
}
for _ in $(seq 200); do recording "$inst" && break; sleep 0.1; done
t_assert "record began within 20 s" recording "$inst"
echo "before-sigint" >"$inst/trace_marker" 2>/dev/null
sleep 0.3
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
t_assert "SIGINT ends record with status 0 (got $rc)" test "$rc" = 0
t_assert "no instance is left behind" test ! -e "$inst"
t_nocrash "the file after SIGINT is valid" -- tdat-convert "$O/int.dat"
t_assert "it decodes and holds the marker" test "$T_RC" = 0 -a -n "$(grep before-sigint "$T_OUT")"
t_assert "no temporary output is left" test -z "$(ls "$O" | grep tmp-)"
unchanged "SIGINT"

# SIGTERM while a command runs: same, and the capture still completes.
tdat-capture record -q -e sched:sched_switch -o "$O/term.dat" -- sleep 30 &
pid=$!
for _ in $(seq 100); do pgrep -P "$pid" -x sleep >/dev/null && break; sleep 0.1; done
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
t_assert "SIGTERM ends record and leaves no instance" test ! -e "$TFS/instances/tdat-capture-$pid"
t_assert "the command got SIGTERM too: its status is ours ($rc)" test "$rc" = 143
t_run "the file after SIGTERM" -- tdat-convert "$O/term.dat"
t_assert "the file after SIGTERM is valid" test "$T_RC" = 0
unchanged "SIGTERM"

# --- --duration, exit status, refusals ---
t_exit "--duration ends the capture" 0 -- tdat-capture record -q -e sched:sched_switch --duration 0.5 -o "$O/d.dat"
t_run "its file" -- tdat-convert "$O/d.dat"
t_assert "the --duration file is valid and has events" test "$T_RC" = 0 -a "$(wc -l <"$T_OUT")" -gt 1
t_exit "a failing command's status is returned" 3 -- tdat-capture record -q -o "$O/f.dat" -- sh -c 'exit 3'
t_assert "and the file is still written" test -s "$O/f.dat"
t_run "a command killed by a signal" -- tdat-capture record -q -o "$O/k.dat" -- sh -c 'kill -TERM $$'
t_assert "a command killed by SIGTERM gives 128+15 (got $T_RC)" test "$T_RC" = 143
t_run "a command that does not exist" -- tdat-capture record -q -o "$O/n.dat" -- /nonexistent/cmd
t_assert "a command that does not exist gives 127 (got $T_RC)" test "$T_RC" = 127
t_exit "an unknown event fails" 1 -- tdat-capture record -e no_such_event_xyz -o "$O/x.dat" -- true
t_stderr_match "and names it" "no event matches 'no_such_event_xyz'"
t_assert "and writes nothing" test ! -e "$O/x.dat" -a -z "$(ls "$O" | grep tmp-)"
t_exit "a filter the kernel refuses fails" 1 -- tdat-capture record -e sched:sched_switch \
	-F 'sched_switch:no_such_field == 1' -o "$O/x.dat" -- true
t_stderr_match "and says which" "refuses the filter"
t_exit "an unknown clock fails" 1 -- tdat-capture record -C no_such_clock -o "$O/x.dat" -- true
t_exit "a bad option is a usage error" 2 -- tdat-capture record --bogus
t_exit "an unknown subcommand is a usage error" 2 -- tdat-capture recrod
t_exit "settings on stop are a usage error" 2 -- tdat-capture stop -e sched
t_exit "--top on start is a usage error" 2 -- tdat-capture start --top
t_exit "an unwritable output fails" 1 -- tdat-capture record -q -o /nonexistent/dir/x.dat -- true
if command -v script >/dev/null; then
	t_exit "binary output to a terminal is refused" 1 -- script -qec "tdat-capture record -q -o - -- true" /dev/null
	t_stdout_match "and says why" "refusing to write binary output to a terminal"
else
	skip "binary output to a terminal is refused" "script (util-linux) is not installed"
fi
# Per-CPU buffer sizes that differ read as "X", which cannot be written back: -b is refused
# before anything changes.
pc=$TFS/per_cpu/cpu0/buffer_size_kb
if [[ -z $(cat "$TFS/set_event") && -e $TFS/per_cpu/cpu1 && $(cat "$pc") =~ ^[0-9]+$ ]]; then
	old0=$(cat "$pc")
	echo $((old0 + 16)) >"$pc"
	t_assert "(CPU 0's buffer made larger: buffer_size_kb reads X)" test "$(cat "$TFS/buffer_size_kb")" = X
	t_exit "--top -b with per-CPU sizes that differ is refused" 1 -- \
		tdat-capture record -q --top -b 512 -o "$O/x.dat" -- true
	t_stderr_match "and says why" "buffer_size_kb reads 'X' \(a value per CPU\): not changed"
	t_assert "no file is left" test ! -e "$O/x.dat"
	t_assert "CPU 0's size is untouched" test "$(cat "$pc")" = $((old0 + 16))
	echo "$old0" >"$pc"
else
	skip "--top -b with per-CPU sizes that differ" "the top buffer is in use, not grown yet, or there is one CPU"
fi
unchanged "refusals"

# --- --top with settings: everything put back ---
# Not while someone else records there (events enabled in the top buffer).
# A task that sleeps on CPU 0 makes sure there are switches (and stacks) to record.
if [[ -n $(cat "$TFS/set_event") ]]; then
	for n in "record --top" "tracefs unchanged after record --top" "the --top file has clock mono" \
		"stacktrace gave kernel_stack events" "the filter kept prev_pid 0 out" "--cpus 0: nothing on CPU 1"; do
		skip "$n" "events are enabled in the top buffer: someone is using it"
	done
else
	t_exit "record --top with buffer size, clock, option, filter, cpus" 0 -- tdat-capture record -q --top \
		-b 512 -C mono -O stacktrace --cpus 0 -e sched:sched_switch -F 'sched_switch:prev_pid != 0' \
		-o "$O/top.dat" -- taskset -c 0 sh -c 'i=0; while [ $i -lt 20 ]; do sleep 0.01; i=$((i + 1)); done'
	unchanged "record --top"
	t_run "its info" -- tdat-info "$O/top.dat"
	t_assert "the --top file has clock mono" grep -qE '^clock: +mono' "$T_OUT"
	tdat-convert "$O/top.dat" >"$O/top.txt"
	t_assert "stacktrace gave kernel_stack events" grep -q 'kernel_stack:' "$O/top.txt"
	t_assert "the filter kept prev_pid 0 out" test "$(grep -cE 'sched_switch: +[^ ]+:0 ' "$O/top.txt")" = 0
	t_assert "--cpus 0: nothing on CPU 1" test "$(grep -c '\[001\]' "$O/top.txt")" = 0
fi

# --- a kernel filter, pipes, other layouts ---
t_exit "record with -F on exec" 0 -- tdat-capture record -q -e sched:sched_process_exec \
	-F 'sched_process_exec:filename ~ "*true"' -o "$O/flt.dat" -- sh -c 'cat /dev/null; /bin/true; true'
tdat-convert "$O/flt.dat" >"$O/flt.txt"
t_assert "the filter let true through and kept cat out" \
	test "$(grep -c 'filename=.*/true' "$O/flt.txt")" -ge 1 -a "$(grep -c 'filename=.*/cat' "$O/flt.txt")" = 0
tdat-capture record -q -e sched:sched_process_exec -o - -- /bin/true 2>"$O/pipe.err" |
	tdat-convert - >"$O/pipe.txt" 2>>"$O/pipe.err"
t_assert "-o - into tdat-convert -" grep -qE 'filename=[^ ]*/true' "$O/pipe.txt"
for layout in "--file-version 6" "--compression none" "--compression zlib"; do
	# shellcheck disable=SC2086
	t_exit "record $layout" 0 -- tdat-capture record -q $layout -e sched:sched_process_exec -o "$O/l.dat" -- /bin/true
	t_run "read back ($layout)" -- tdat-convert "$O/l.dat"
	t_assert "$layout: readable, the exec is there" grep -qE 'filename=[^ ]*/true' "$T_OUT"
done
if have_trace_cmd; then
	tdat-capture record -q --file-version 6 -e sched:sched_process_exec -o "$O/v6.dat" -- /bin/true
	t_assert "trace-cmd report reads v6" grep -qE 'filename=[^ ]*/true' <("$TRACE_CMD" report "$O/v6.dat" 2>/dev/null)
else
	skip "trace-cmd report reads v6" "trace-cmd is not installed"
fi
unchanged "filters, pipes, layouts"

# --- thread groups (saved_tgids) reach the process model ---
if command -v python3 >/dev/null && command -v sqlite3 >/dev/null; then
	cat >"$O/thr.py" <<'EOF'
import os, sys, threading
def work():
    with open(sys.argv[1], "a") as f:
        f.write("%d %d\n" % (threading.get_native_id(), os.getpid()))
    sum(range(100000))
ts = [threading.Thread(target=work) for _ in range(2)]
for t in ts: t.start()
for t in ts: t.join()
EOF
	# only sched_switch: no event says which process a thread is in
	t_exit "record a threaded workload" 0 -- tdat-capture record -q -e sched:sched_switch -o "$O/thr.dat" \
		-- python3 "$O/thr.py" "$O/thr.txt"
	t_exit "to SQLite" 0 -- tdat-convert -o "$O/thr.db" "$O/thr.dat"
	read -r tid pid <"$O/thr.txt"
	got=$(sqlite3 "$O/thr.db" "select p.pid from thread t join process p using(upid) where t.tid = $tid")
	t_assert "thread $tid is in process $pid (got '$got')" test "$got" = "$pid"
else
	skip "thread groups reach the process model" "python3 or sqlite3 is not installed"
fi

# --- list ---
t_run "list -e" -- tdat-capture list -e 'sched:sched_switc*'
t_assert "list -e prints the matching events, one a line" test "$(cat "$T_OUT")" = "sched:sched_switch"
t_run "list" -- tdat-capture list
t_stdout_match "list shows the clocks with the selected one" '^clocks: .*\[[a-z0-9-]+\]'
t_stdout_match "and the options" '^options: .*stacktrace'
unchanged "everything"
done_testing
