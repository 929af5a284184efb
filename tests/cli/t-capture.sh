#!/usr/bin/env bash
# t-capture.sh: tdat-capture against the live kernel.  A workload writes
# known lines to the instance's trace_marker and execs known commands; our
# decoder and trace-cmd report must show every line and exec, in order, with
# the right comms.  Then start/stop/extract/reset, Ctrl-C in the middle,
# --duration, a failing command's status, --top with settings, pipes,
# filters, v6/zlib, refusals; trace-cmd record's flags (-f after -e, -F and
# -P with -c following tasks while another process makes the same events,
# -M, -T, -B, -r, -s).  After every case tracefs must be as it was (buffer
# sizes, clock, instances, top events, tracing_on, cpumask, every option,
# pids followed).  As root under CI, no tracefs is a failure, not a skip.
# The messages of usage errors come first: they need no root.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
O=$T_TMP

# --- usage: every message starts with the tool's name, trace-cmd's letters ---
# A bad option and a missing argument for each subcommand (getopt's messages too).
only_ours() {
	if grep -qvE "^tdat-capture: |^Try 'tdat-capture --help'" "$T_ERR" ||
		! head -n 1 "$T_ERR" | grep -qE "^tdat-capture: $1"; then
		not_ok "$2" "$(head -n 3 "$T_ERR")"
	else
		ok "$2"
	fi
}
for sub in record start stop extract reset list stat; do
	t_exit "$sub: a bad option is a usage error" 2 -- tdat-capture "$sub" --bogus
	only_ours "$sub: " "$sub: the message starts with 'tdat-capture: $sub:'"
	t_exit "$sub: a missing argument is a usage error" 2 -- tdat-capture "$sub" -B
	only_ours "$sub: " "$sub: the message on a missing argument too"
done
t_exit "-f with no -e before it is a usage error" 2 -- tdat-capture record -o "$O/u.dat" -f 'prev_pid > 1' -e sched:sched_switch
only_ours "" "and says that -f filters the -e before it"
t_stderr_match "(naming it)" "filters the events of the -e before it"
t_exit "-F with no command is a usage error" 2 -- tdat-capture record -o "$O/u.dat" -F -e sched:sched_process_exec
t_stderr_match "and says so" "-F follows the command"
t_exit "-F with the old filter habit is a usage error" 2 -- \
	tdat-capture record -o "$O/u.dat" -e sched:sched_switch -F 'sched_switch:prev_pid != 0' -- true
t_stderr_match "and points to -f and --filter" "reads like a filter: -e EVENT -f EXPR, or --filter"
t_exit "-c without -F or -P is a usage error" 2 -- tdat-capture record -o "$O/u.dat" -c -- true
t_exit "-P of a process that does not exist is a usage error" 2 -- tdat-capture record -o "$O/u.dat" -P 2147483647
t_stderr_match "and names it" "no process 2147483647"
t_exit "-P that is not a pid is a usage error" 2 -- tdat-capture record -o "$O/u.dat" -P 12x
t_exit "-d is not the duration (trace-cmd's -d is another thing)" 2 -- tdat-capture record -o "$O/u.dat" -d 1
t_stderr_match "and points to --duration" "--duration SECONDS"
t_exit "-B after -e is a usage error (trace-cmd gives those to the top buffer)" 2 -- \
	tdat-capture record -o "$O/u.dat" -e sched:sched_switch -B x -- true
t_exit "-M and --cpus together are a usage error" 2 -- tdat-capture record -o "$O/u.dat" -M 1 --cpus 0 -- true
t_exit "-P on stop is a usage error" 2 -- tdat-capture stop -P 1
t_exit "-s on start is a usage error (a recorder's setting)" 2 -- tdat-capture start -s 1000
t_exit "-r 0 is a usage error (SCHED_FIFO is 1 to 99)" 2 -- tdat-capture record -o "$O/u.dat" -r 0 -- true
t_stderr_match "and says the range" "invalid -r '0' \(a number from 1 to 99\)"
t_exit "-s that is not a number is a usage error" 2 -- tdat-capture record -o "$O/u.dat" -s 1ms -- true

if [[ $(id -u) != 0 ]]; then
	skip "tracing" "needs root to trace (tracefs)"
	done_testing
	exit 0
fi
# Other worktrees may run this test at the same time, and the top buffer is shared (--top
# cases, the snapshots below): one run at a time, from finding tracefs to putting it back.
if command -v flock >/dev/null; then
	exec 9>/tmp/tdat-t-capture.lock
	flock -w 900 9 || diag "another t-capture.sh has held /tmp/tdat-t-capture.lock for 15 minutes"
fi
TFS=
MOUNTED=	# set when this test mounted tracefs: it unmounts it at the end
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[[ -d $d/instances ]] && TFS=$d && break
done
# put_back_tracefs: unmount tracefs if this test mounted it (at exit, whatever ends it)
put_back_tracefs() {
	[[ -n $MOUNTED ]] && umount /sys/kernel/tracing 2>/dev/null
	MOUNTED=
}
if [[ -z $TFS ]] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
	MOUNTED=1
	trap 'rc=$?; put_back_tracefs; (exit $rc); _t_at_exit' EXIT
elif [[ -z $TFS ]]; then
	# CI runs as root on a kernel with tracefs: there, no tracefs is a failure, not a skip
	if [[ -n ${CI-} ]]; then
		not_ok "tracing" "CI=$CI, root, and tracefs is not available (not mounted, cannot mount)"
	else
		skip "tracing" "tracefs is not available (not mounted, cannot mount)"
	fi
	done_testing
	exit 0
fi
TFS=${TFS:-/sys/kernel/tracing}

# Instances but those of another run still going (a record's tdat-capture-PID, a test's
# tdat-test-...-PID, whose PID lives): a test of an older tree does not take the lock.
instances() {
	local name
	for name in $(ls "$TFS/instances"); do
		if [[ $name =~ ^tdat-(capture|test.*)-([0-9]+)$ && ${BASH_REMATCH[2]} != "$$" ]] &&
			kill -0 "${BASH_REMATCH[2]}" 2>/dev/null; then
			continue
		fi
		echo "$name"
	done
}
# The tracefs settings a capture must leave as it found them.
state() {
	local f
	instances
	for f in buffer_size_kb buffer_subbuf_size_kb trace_clock tracing_on tracing_cpumask \
		events/enable set_event set_event_notrace_pid set_event_pid buffer_percent \
		events/sched/sched_switch/enable events/sched/sched_switch/filter; do
		[[ -e $TFS/$f ]] && echo "$f: $(cat "$TFS/$f")"
	done
	# every option, and each CPU's buffer size
	for f in "$TFS"/options/* "$TFS"/per_cpu/cpu*/buffer_size_kb; do
		echo "${f#"$TFS"/}: $(cat "$f")"
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
# (not while another run's capture may have changed the top buffer)
for _ in $(seq 60); do pgrep -x tdat-capture >/dev/null || break; sleep 1; done
state >"$O/state.before"

# unchanged NAME: the tracefs settings are those of the start of the test.
# A tdat-capture running now is another run's (ours have ended): what it changed in the top
# buffer is its own to put back, so wait for it (up to a minute) before saying it differs.
unchanged() {
	local i
	for i in $(seq 60); do
		state >"$O/state.now"
		if cmp -s "$O/state.before" "$O/state.now" || ! pgrep -x tdat-capture >/dev/null; then
			break
		fi
		sleep 1
	done
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

# --- following tasks: a command, its children, and another process making the same events ---
# tdat-fw-parent reads a file itself and runs tdat-fw-child five times; tdat-fw-other (started
# by other_start) runs all the time in a loop of its own.  Names of our own, as above.
cp "$(command -v cat)" "$O/tdat-fw-child"
cp "$(command -v cat)" "$O/tdat-fw-other"
cat >"$O/tdat-fw-parent" <<EOF
#!/bin/sh
i=0
while [ \$i -lt 5 ]; do
	read -r x </proc/version
	"$O/tdat-fw-child" /proc/version >/dev/null
	i=\$((i + 1))
done
EOF
chmod +x "$O/tdat-fw-parent"
FOLLOW_EVENTS=(-e sched:sched_process_exec -e syscalls:sys_enter_openat)
other_pid=
other_start() {
	(while :; do "$O/tdat-fw-other" /proc/version >/dev/null; done) &
	other_pid=$!
}
other_stop() {
	[[ -n $other_pid ]] && kill "$other_pid" 2>/dev/null && wait "$other_pid" 2>/dev/null
	other_pid=
}
# tracefs as it was found: unmounted again if this test mounted it
trap 'rc=$?; other_stop; put_back_tracefs; (exit $rc); _t_at_exit' EXIT
# report FILE: the file as trace-cmd report prints it (our text, which equals it, without trace-cmd)
report() {
	if have_trace_cmd; then
		"$TRACE_CMD" report "$1" 2>/dev/null
	else
		tdat-convert "$1"
	fi
}
# count FILE COMM: the events of tasks named COMM
count() {
	report "$1" | grep -cE "^ *$2-[0-9]+ "
}
# execs FILE NAME: the sched_process_exec events of NAME
execs() {
	report "$1" | grep -cE "sched_process_exec: +filename=[^ ]*/$2 "
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

# -F -c: only the workload and its children, not the same commands of another t-capture run
t_exit "record a workload" 0 -- tdat-capture record -C global -F -c -e sched:sched_switch \
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
# tracing on means recording has begun.  recording DIR [SYS/EVENT]: that one enabled.
recording() {
	[[ $(cat "$1/events/${2:-sched/sched_switch}/enable" 2>/dev/null) == 1 &&
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
	-f 'no_such_field == 1' -o "$O/x.dat" -- true
t_stderr_match "and says which" "refuses the filter"
t_exit "an unknown clock fails" 1 -- tdat-capture record -C no_such_clock -o "$O/x.dat" -- true
t_exit "a bad option is a usage error" 2 -- tdat-capture record --bogus
t_exit "an unknown subcommand is a usage error" 2 -- tdat-capture recrod
t_exit "settings on stop are a usage error" 2 -- tdat-capture stop -e sched
t_exit "--top on start is a usage error" 2 -- tdat-capture start --top
t_exit "an unwritable output fails" 1 -- tdat-capture record -q -o /nonexistent/dir/x.dat -- true
if command -v script >/dev/null; then
	t_exit "binary output to a terminal is refused (a usage error)" 2 -- script -qec "tdat-capture record -q -o - -- true" /dev/null
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
		"stacktrace gave kernel_stack events" "the filter kept prev_pid 0 out" "--cpus 0: nothing on CPU 1" \
		"record --top -F -c" "tracefs unchanged after record --top -F -c" "--top -F -c: the children's execs"; do
		skip "$n" "events are enabled in the top buffer: someone is using it"
	done
else
	t_exit "record --top with buffer size, clock, option, filter, cpus" 0 -- tdat-capture record -q --top \
		-b 512 -C mono -O stacktrace --cpus 0 -e sched:sched_switch -f 'prev_pid != 0' \
		-o "$O/top.dat" -- taskset -c 0 sh -c 'i=0; while [ $i -lt 20 ]; do sleep 0.01; i=$((i + 1)); done'
	unchanged "record --top"
	t_run "its info" -- tdat-info "$O/top.dat"
	t_assert "the --top file has clock mono" grep -qE '^clock: +mono' "$T_OUT"
	tdat-convert "$O/top.dat" >"$O/top.txt"
	t_assert "stacktrace gave kernel_stack events" grep -q 'kernel_stack:' "$O/top.txt"
	t_assert "the filter kept prev_pid 0 out" test "$(grep -cE 'sched_switch: +[^ ]+:0 ' "$O/top.txt")" = 0
	t_assert "--cpus 0: nothing on CPU 1" test "$(grep -c '\[001\]' "$O/top.txt")" = 0
	# set_event_pid and event-fork of the top buffer are put back too
	t_exit "record --top -F -c" 0 -- tdat-capture record -q --top -F -c "${FOLLOW_EVENTS[@]}" \
		-o "$O/topF.dat" -- "$O/tdat-fw-parent"
	unchanged "record --top -F -c"
	t_assert "--top -F -c: the children's execs" test "$(execs "$O/topF.dat" tdat-fw-child)" = 5
fi

# --- a kernel filter, pipes, other layouts ---
t_exit "record with --filter 'EVENTS:EXPR' (formerly -F) on exec" 0 -- tdat-capture record -q \
	-e sched:sched_process_exec --filter 'sched_process_exec:filename ~ "*true"' -o "$O/flt.dat" -- \
	sh -c 'cat /dev/null; /bin/true; true'
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

# --- trace-cmd record's flags: -f after -e, -F and -P with -c, -M, -T, -B ---
# -f filters the -e before it; several -f for one -e all hold, as trace-cmd joins them.
B=tdat-test-f-$$
t_exit "start with two -f after one -e, and an -e after them" 0 -- tdat-capture start -B "$B" \
	-e sched:sched_switch -f 'prev_pid > 1' -f 'next_pid > 1' -e sched:sched_wakeup
t_assert "the -e before gets both, joined as trace-cmd does" \
	test "$(cat "$TFS/instances/$B/events/sched/sched_switch/filter")" = "(prev_pid > 1)&&(next_pid > 1)"
t_assert "the -e after gets none" test "$(cat "$TFS/instances/$B/events/sched/sched_wakeup/filter")" = none
t_exit "start -P PID -c on the same instance" 0 -- tdat-capture start -B "$B" -P $$ -c -e sched:sched_process_exec
t_run "stat" -- tdat-capture stat -B "$B"
t_stdout_match "stat shows the pid followed (with its children since)" "^pids:( [0-9]+)* $$( |\$)"
t_assert "event-fork is on in the instance" test "$(cat "$TFS/instances/$B/options/event-fork")" = 1
t_exit "start again without -P" 0 -- tdat-capture start -B "$B" -e sched:sched_process_exec
t_assert "no pid is followed any more" test -z "$(cat "$TFS/instances/$B/set_event_pid")"
t_assert "event-fork is off" test "$(cat "$TFS/instances/$B/options/event-fork")" = 0
t_assert "and the filters are gone" test "$(cat "$TFS/instances/$B/events/sched/sched_switch/filter")" = none
t_exit "reset" 0 -- tdat-capture reset -B "$B"
# Every task that exits switches out under its own name: tdat-fw-child does five times.
# (-F -c: not another t-capture run's tdat-fw-child.)
t_exit "record -e sched:sched_switch -f EXPR -e sched:sched_process_exec" 0 -- tdat-capture record -q -F -c \
	-e sched:sched_switch -f 'prev_comm != "tdat-fw-child"' -e sched:sched_process_exec \
	-o "$O/f.dat" -- "$O/tdat-fw-parent"
n=$(report "$O/f.dat" | grep -cE 'sched_switch: +tdat-fw-child:[0-9]+ ')
t_assert "the filter kept tdat-fw-child's switches out ($n)" test "$n" = 0
t_assert "and left the next -e alone: tdat-fw-child's five execs" test "$(execs "$O/f.dat" tdat-fw-child)" = 5
t_exit "the same without -f" 0 -- tdat-capture record -q -F -c -e sched:sched_switch -e sched:sched_process_exec \
	-o "$O/nof.dat" -- "$O/tdat-fw-parent"
n=$(report "$O/nof.dat" | grep -cE 'sched_switch: +tdat-fw-child:[0-9]+ ')
t_assert "has tdat-fw-child's switches ($n)" test "$n" -ge 5
unchanged "-f"

# -F: only the command (trace-cmd record -F); -F -c: its children too.  Another process
# makes the same events all along: it must not be in the file.
# (The command without -F lasts half a second more: the other process's loop gets to
# run in it on a loaded machine, where the command alone is over in milliseconds.)
other_start
t_exit "record without -F, while another process runs" 0 -- tdat-capture record -q "${FOLLOW_EVENTS[@]}" \
	-o "$O/all.dat" -- sh -c '"$1"; sleep 0.5' sh "$O/tdat-fw-parent"
n=$(count "$O/all.dat" tdat-fw-other)
t_assert "the other process's events are there without -F ($n)" test "$n" -gt 0
t_exit "record -F" 0 -- tdat-capture record -q -F "${FOLLOW_EVENTS[@]}" -o "$O/F.dat" -- "$O/tdat-fw-parent"
report "$O/F.dat" | sed -n 2p >"$O/F.first"
t_assert "-F: the first event is the command's exec (set before it runs)" \
	grep -qE '^ *tdat-fw-parent-[0-9]+ .*sched_process_exec: +filename=[^ ]*/tdat-fw-parent ' "$O/F.first"
n=$(count "$O/F.dat" tdat-fw-parent)
t_assert "-F: the command's own events (exec, openat: $n)" test "$n" -ge 2
t_assert "-F: not its children's, as trace-cmd record -F" test "$(count "$O/F.dat" tdat-fw-child)" = 0
t_assert "-F: nothing of the other process" test "$(count "$O/F.dat" tdat-fw-other)" = 0
t_exit "record -F -c" 0 -- tdat-capture record -q -F -c "${FOLLOW_EVENTS[@]}" -o "$O/Fc.dat" -- "$O/tdat-fw-parent"
t_assert "-F -c: the command's exec" test "$(execs "$O/Fc.dat" tdat-fw-parent)" = 1
t_assert "-F -c: its five children's execs" test "$(execs "$O/Fc.dat" tdat-fw-child)" = 5
n=$(count "$O/Fc.dat" tdat-fw-child)
t_assert "-F -c: and their openat ($n events)" test "$n" -gt 5
t_assert "-F -c: nothing of the other process" test "$(count "$O/Fc.dat" tdat-fw-other)" = 0
unchanged "-F"

# -P PID -c with no command: follows a running process and its children, and ends when it
# has exited, as trace-cmd record -P does.  The process waits for the recording to begin.
cat >"$O/tdat-fp-target" <<EOF
#!/bin/sh
while [ ! -e "$O/go" ]; do sleep 0.05; done
for i in 1 2 3; do "$O/tdat-fw-child" /proc/version >/dev/null; done
EOF
chmod +x "$O/tdat-fp-target"
"$O/tdat-fp-target" &
target=$!
B=tdat-test-P-$$
tdat-capture record -q -B "$B" -P "$target" -c "${FOLLOW_EVENTS[@]}" -o "$O/P.dat" 2>"$O/P.err" &
rec=$!
for _ in $(seq 200); do recording "$TFS/instances/$B" sched/sched_process_exec && break; sleep 0.1; done
t_assert "record -P began in the instance named by -B" recording "$TFS/instances/$B" sched/sched_process_exec
touch "$O/go"
for _ in $(seq 200); do kill -0 "$rec" 2>/dev/null || break; sleep 0.1; done
rc=0
if kill -0 "$rec" 2>/dev/null; then
	kill -INT "$rec"
	rc=timeout
fi
wait "$rec" || rc=$?
wait "$target"
t_assert "record -P ended by itself when the process exited (status $rc)" test "$rc" = 0
t_assert "-P -c: the process's children's execs" test "$(execs "$O/P.dat" tdat-fw-child)" = 3
n=$(count "$O/P.dat" tdat-fp-target)
t_assert "-P -c: the process's own events ($n)" test "$n" -gt 0
t_assert "-P -c: nothing of the other process" test "$(count "$O/P.dat" tdat-fw-other)" = 0
t_assert "the -B instance is removed" test ! -e "$TFS/instances/$B"
other_stop
unchanged "-P"

# -M CPUMASK (hex, as trace-cmd), -T stack traces, -B NAME for record.
if [[ -e $TFS/per_cpu/cpu1 ]]; then
	t_exit "record -M 1" 0 -- tdat-capture record -q -M 1 -e sched:sched_switch -o "$O/M.dat" -- \
		taskset -c 0 sh -c 'i=0; while [ $i -lt 10 ]; do sleep 0.01; i=$((i + 1)); done'
	report "$O/M.dat" >"$O/M.txt"
	t_assert "-M 1: events of CPU 0, none of CPU 1" \
		test "$(grep -c '\[000\]' "$O/M.txt")" -gt 0 -a "$(grep -c '\[001\]' "$O/M.txt")" = 0
else
	skip "-M 1: events of CPU 0, none of CPU 1" "one CPU"
	skip "record -M 1" "one CPU"
fi
n=$(ls -d "$TFS"/per_cpu/cpu* | wc -l)
t_exit "-M with a CPU the machine lacks fails" 1 -- tdat-capture record -q -M "$(printf '%x' $((1 << n)))" \
	-o "$O/x.dat" -- true
t_stderr_match "and names it" "CPU $n does not exist"
t_exit "-M that is not hex fails" 1 -- tdat-capture record -q -M 0xzz -o "$O/x.dat" -- true
t_exit "record -T" 0 -- tdat-capture record -q -T -e sched:sched_switch -o "$O/T.dat" -- \
	taskset -c 0 sh -c 'sleep 0.01; sleep 0.01'
t_assert "-T: stack traces (kernel_stack events)" grep -q 'kernel_stack:' <(report "$O/T.dat")
B=tdat-test-B-$$
t_exit "record -B NAME records in a new instance NAME" 0 -- tdat-capture record -q -B "$B" -o "$O/B.dat" -- \
	sh -c "case \$TDAT_CAPTURE_DIR in */instances/$B) exit 0;; esac; exit 9"
t_assert "and removes it" test ! -e "$TFS/instances/$B"
mkdir "$TFS/instances/$B"
t_exit "record -B of an instance that exists fails" 1 -- tdat-capture record -q -B "$B" -o "$O/x.dat" -- true
t_stderr_match "and says so" "instance '$B' exists already"
t_assert "and leaves it" test -d "$TFS/instances/$B"
rmdir "$TFS/instances/$B"
unchanged "-M, -T, -B"

# -r PRIO: the recorder reads at SCHED_FIFO priority PRIO, the command it runs does not.
if command -v chrt >/dev/null; then
	t_run "record -r 7" -- tdat-capture record -q -r 7 -o "$O/r.dat" -- sh -c 'chrt -p $PPID; chrt -p $$'
	t_assert "-r 7: the recorder is SCHED_FIFO at 7" grep -qE "pid [0-9]+'s current scheduling policy: SCHED_FIFO" "$T_OUT"
	t_assert "-r 7: priority 7" test "$(grep -c "scheduling priority: 7" "$T_OUT")" = 1
	t_assert "-r 7: the command is not" test "$(grep -c SCHED_OTHER "$T_OUT")" = 1
else
	skip "record -r 7" "chrt (util-linux) is not installed"
fi
# -s USECS: read at least that often.  300 markers (more than a page) on CPU 0, then a look at
# its stats 0.4 s later: without -s nothing is read before a second (or 10% of the buffer).
t_run "record -s 20000" -- tdat-capture record -q -s 20000 -o "$O/s.dat" -- taskset -c 0 sh -c \
	'for i in $(seq 300); do echo "tdat-s-$i" >"$TDAT_CAPTURE_DIR/trace_marker"; done; sleep 0.4
	 sed -n "s/^read events: //p" "$TDAT_CAPTURE_DIR/per_cpu/cpu0/stats"'
t_assert "-s 20000: pages were read while the command ran ($(cat "$T_OUT") events)" test "$(cat "$T_OUT")" -gt 0
t_assert "-s 20000: every marker is in the file" test "$(report "$O/s.dat" | grep -c 'tracing_mark_write: tdat-s-')" = 300
unchanged "-r, -s"

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
