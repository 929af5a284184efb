#!/bin/sh
# Re-record the real trace-cmd captures in testdata/ (this is how the committed files were made).
# Needs: root, trace-cmd 3.1.6 (and 3.4 for tc34-*.dat), /work/shared/tools/trace-cmd-sandboxed (runs its arguments in a
# private mount namespace where the function-tracer files, refused here, are masked).
# usage: scripts/make-captures.sh [file.dat ...]   (no argument: all files)
# Every command actually run is appended to $LOG (default /tmp/tdat-commands.log).
# Leaves tracefs as it found it (checked after every capture; the script stops if not).
set -u
cd "$(dirname "$0")/.." || exit 1          # -> testdata/
TD=$PWD
W=/work/shared/tools/trace-cmd-sandboxed
KS=/tmp/tdat-kallsyms-small
WL='ls / >/dev/null; for i in 1 2 3 4 5; do sleep 0.05; cat /proc/uptime >/dev/null; done'
T=/sys/kernel/tracing
LOG=${LOG:-/tmp/tdat-commands.log}
# trace-cmd 3.4 (with libtraceevent 1.9.0, libtracefs 1.8.3; its README says how it was built)
TC34=${TC34:-/work/shared/tools/trace-cmd-3.4/trace-cmd}
BTF=/tmp/tdat-btf-small

# One recorder at a time: tests/cli/t-capture.sh takes the same lock.  Mount tracefs if it is not
# (the wrapper would, for good) and unmount it again at the end.
exec 9>/tmp/tdat-t-capture.lock
flock -w 900 9 || { echo "another capture holds /tmp/tdat-t-capture.lock"; exit 1; }
MOUNTED=
if ! mountpoint -q /sys/kernel/tracing; then
  mount -t tracefs nodev /sys/kernel/tracing || exit 1
  MOUNTED=1
fi
trap '[ -n "$MOUNTED" ] && umount /sys/kernel/tracing' EXIT

# Reduced kallsyms (used by every file except v7-zstd.dat and stack.dat): keep the data symbols
# (types B/D/R), every 100th line of /proc/kallsyms (lines 1, 101, 201, ...), module lines, and every
# symbol whose name matches the regex below (the callbacks that timer/hrtimer/workqueue events print
# and the trace_marker write functions that ftrace/print events print).
awk '$2 ~ /^[BDR]$/ || NR % 100 == 1 || $4 != "" ||
     $3 ~ /(timer|_tick|tick_|_fn$|wakeup|workfn|_work$|watchdog|tracing_mark)/' /proc/kallsyms > $KS

snap() {
  ( cd $T || exit 1
    for f in trace_clock tracing_on buffer_size_kb buffer_total_size_kb current_tracer trace_options \
             set_event tracing_cpumask saved_cmdlines_size events/enable tracing_thresh set_event_pid \
             set_event_notrace_pid buffer_percent; do echo "== $f"; cat $f 2>&1; done
    echo "== instances"; ls instances
    for c in per_cpu/cpu*; do echo "$c $(cat $c/buffer_size_kb)"; done
    echo "== options"; for o in options/*; do echo "$o $(cat $o)"; done | md5sum
    echo "== enabled events"; cat events/*/*/enable | sort | uniq -c
    echo "== filters"; cat events/*/*/filter | sort | uniq -c )
}
BASE=$(snap)
BUF0=$(cat $T/buffer_size_kb)
check() {
  # undo what trace-cmd record does not undo itself
  [ -d $T/instances/foo ] && rmdir $T/instances/foo
  [ "$(cat $T/buffer_size_kb)" = "$BUF0" ] || echo "$BUF0" > $T/buffer_size_kb
  if [ "$(snap)" != "$BASE" ]; then
    echo "tracefs state changed after $1:"; echo "$BASE" > /tmp/tdat-base.$$; snap | diff /tmp/tdat-base.$$ -
    rm -f /tmp/tdat-base.$$; exit 1
  fi
}
ONLY=" $* "
run() { # $1 = output file, $2 = the command (a string, logged then eval'ed)
  [ "$ONLY" = "  " ] || case "$ONLY" in *" $1 "*) ;; *) return 0;; esac
  rm -f "$1"; echo "[$(date -u +%FT%TZ)] $2" >> $LOG; eval "$2"; echo "rc=$? $1"; check "$1"; ls -l "$1"
}
MNT="mount --bind $KS /proc/kallsyms &&"
EV="-e sched -e irq -e timer"

run v7-zstd.dat  "$W trace-cmd record -q $EV -o v7-zstd.dat sh -c '$WL'"
run v6.dat       "$W sh -c \"$MNT trace-cmd record -q --file-version 6 $EV -o v6.dat sh -c '$WL'\""
run v7-none.dat  "$W sh -c \"$MNT trace-cmd record -q --compression none $EV -o v7-none.dat sh -c '$WL'\""
BEV="-e sched -B foo -e irq -e syscalls:sys_enter_openat -e syscalls:sys_exit_openat -e syscalls:sys_enter_close -e syscalls:sys_exit_close"
run two-buffers.dat    "$W sh -c \"$MNT scripts/prep-instance.sh foo && trace-cmd record -q $BEV -o two-buffers.dat sh -c '$WL'\""
run v6-two-buffers.dat "$W sh -c \"$MNT scripts/prep-instance.sh foo && trace-cmd record -q --file-version 6 $BEV -o v6-two-buffers.dat sh -c '$WL'\""
# several compressed chunks (10 pages each) per CPU, for seeking by chunk; no golden (too big), the
# tests compare it with trace-cmd report live
run chunks.dat   "$W sh -c \"$MNT trace-cmd record -q -e sched -e raw_syscalls -o chunks.dat scripts/syscall-load.sh\""
run markers.dat  "$W sh -c \"$MNT trace-cmd record -q -e sched:sched_process_exec -e sched:sched_process_exit -o markers.dat scripts/write-markers.py\""
# Lost events: tiny per-CPU buffer (-b 4 -> buffer_size_kb 7), the recorder and its per-CPU readers
# pinned to CPU 1 and the syscall flood run there as SCHED_FIFO, so the readers starve during each
# burst; each of the 6 bursts overflows the CPU-1 buffer once.
run lost-events.dat "$W sh -c \"$MNT taskset -c 1 trace-cmd record -q -b 4 -e raw_syscalls -e sched -o lost-events.dat chrt -f 10 sh -c 'for i in 1 2 3 4 5 6; do dd if=/dev/zero of=/dev/null bs=1 count=3000 2>/dev/null; sleep 0.02; done'\""
# Same idea, one long burst; whether the kernel could store the lost-event count at the end of the
# page is luck, so retry until the report has a drop line without a count ("[EVENTS DROPPED]").
for try in $(seq 40); do
  run lost-events-nocount.dat "$W sh -c \"$MNT taskset -c 1 trace-cmd record -q -b 4 -e raw_syscalls -e sched -o lost-events-nocount.dat chrt -f 10 dd if=/dev/zero of=/dev/null bs=1 count=20000\""
  [ -f lost-events-nocount.dat ] || break
  trace-cmd report lost-events-nocount.dat 2>/dev/null | grep -q '^CPU:[0-9]* \[EVENTS DROPPED\]$' && break
done
run clock-mono.dat    "$W sh -c \"$MNT trace-cmd record -q -C mono $EV -o clock-mono.dat sh -c '$WL'\""
run clock-counter.dat "$W sh -c \"$MNT trace-cmd record -q -C counter $EV -o clock-counter.dat sh -c '$WL'\""
run clock-x86-tsc.dat "$W sh -c \"$MNT trace-cmd record -q -C x86-tsc $EV -o clock-x86-tsc.dat sh -c '$WL'\""
run date.dat     "$W sh -c \"$MNT trace-cmd record -q --date $EV -o date.dat sh -c '$WL'\""
run extract.dat  "$W sh -c \"$MNT trace-cmd start $EV && sh -c '$WL' && trace-cmd stop && trace-cmd extract -o extract.dat; trace-cmd reset\""
run stack.dat    "$W trace-cmd record -q -T -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_process_exec -e sched:sched_process_exit -o stack.dat sh -c '$WL'"
# Recorded by trace-cmd 3.4 (the oracle of the default text style): the same events and workload
# as v7-zstd.dat, in each layout 3.4 writes; two buffers; and extract, which saves the kernel's BTF
# (option 23).  The kernel's BTF is 5.4 MB (1.7 MB compressed), so tc34-extract.dat was made with
# a subset of it bind-mounted over /sys/kernel/btf/vmlinux: the types 6 functions reach
# (scripts/btf-subset.py; 82 types, 3224 bytes, a valid BTF that bpftool dumps).
TEV="-e sched -e irq -e timer"
run tc34-zstd.dat "$W sh -c \"$MNT $TC34 record -q $TEV -o tc34-zstd.dat sh -c '$WL'\""
run tc34-zlib.dat "$W sh -c \"$MNT $TC34 record -q --compression zlib $TEV -o tc34-zlib.dat sh -c '$WL'\""
run tc34-v6.dat   "$W sh -c \"$MNT $TC34 record -q --file-version 6 $TEV -o tc34-v6.dat sh -c '$WL'\""
# (the instance without syscalls: trace-cmd 3.4's own loader opens and closes a hundred files)
run tc34-two-buffers.dat "$W sh -c \"$MNT scripts/prep-instance.sh foo && $TC34 record -q -e sched -B foo -e irq -e timer -o tc34-two-buffers.dat sh -c '$WL'\""
case "$ONLY" in "  "|*" tc34-extract.dat "*)
  python3 scripts/btf-subset.py /sys/kernel/btf/vmlinux $BTF ksys_read ksys_write ksys_lseek \
    tick_nohz_handler kfree __kmalloc_noprof || exit 1 ;;
esac
run tc34-extract.dat "$W sh -c \"$MNT mount --bind $BTF /sys/kernel/btf/vmlinux && $TC34 start $TEV && sh -c '$WL' && $TC34 stop && $TC34 extract -o tc34-extract.dat; $TC34 reset\""
rm -f $BTF
# not possible with this trace-cmd / machine (kept to show the attempt; see README):
run tsc2nsec.dat "$W sh -c \"$MNT trace-cmd record -q -C x86-tsc --tsc2nsec $EV -o tsc2nsec.dat sh -c '$WL'\""
run v7-zlib.dat  "$W sh -c \"$MNT trace-cmd record -q --compression zlib $EV -o v7-zlib.dat sh -c '$WL'\""
# Signals (issue 44): signal_generate and signal_deliver of a handler, a sleeper and a kill,
# with the syscalls they interrupt; only the workload's tasks (-F -c).  In a folder of its own:
# the tests that take every testdata/*.dat would each need goldens for it.
mkdir -p signal
run signal/signals.dat "$W sh -c \"$MNT trace-cmd record -q -F -c -e sched -e raw_syscalls -e signal -o signal/signals.dat scripts/write-signals.sh\""
rm -f $KS
# Comms that only events name: 8000 short processes (only their exec recorded) push an early
# awk out of the kernel's saved cmdlines (6552 entries here, which a recorded event on a CPU makes
# the next sched_switch save), so trace-cmd report names awk from the sched_switch it printed
# before; the pieces of a split of it must do the same (issue 43).
run cmdlines.dat "$W sh -c \"$MNT trace-cmd record -q -e sched:sched_switch -f 'prev_comm == \\\"awk\\\" || next_comm == \\\"awk\\\"' -e sched:sched_process_exit -f 'comm == \\\"awk\\\"' -e sched:sched_process_exec -o cmdlines.dat sh -c 'awk \\\"BEGIN { for (i = 0; i < 5000000; i++) n += i }\\\" & sleep 0.1; for i in \\\$(seq 8000); do /bin/true; done; wait'\""
