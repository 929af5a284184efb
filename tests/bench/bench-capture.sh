#!/usr/bin/env bash
# tests/bench/bench-capture.sh: tdat-capture record against trace-cmd record
# (through trace-cmd-sandboxed), under the same load and buffer size: events
# captured, events lost, CPU time of the recorder (user + sys, the load's own
# subtracted), output size.  Not part of make check; needs root.
#
#   tests/bench/bench-capture.sh
#
# Environment: TDAT_BENCH_KB (buffer_size_kb per CPU, default 1410),
# TDAT_BENCH_COUNT (bytes dd copies one at a time: two system calls each,
# default 400000), TDAT_BENCH_ROUNDS (default 1), TDAT_SANDBOX.
# tdat-capture records in its own instance; trace-cmd in the top buffer (its
# -B needs set_ftrace_filter, which the sandbox cannot give an instance), whose
# per-CPU buffer sizes are put back after it; tracefs is checked at the end.
# Targets (issue 5): no more lost events, no more recorder CPU time, output
# no bigger than trace-cmd's (per event: the two never see exactly the same
# events).  Exit status: 0 all met, 1 error, 3 one missed.
set -euo pipefail
export LC_ALL=C

REPO=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$REPO/tools}
KB=${TDAT_BENCH_KB:-1410}
COUNT=${TDAT_BENCH_COUNT:-400000}
ROUNDS=${TDAT_BENCH_ROUNDS:-1}
SANDBOX=${TDAT_SANDBOX:-$(cd "$REPO/../shared/tools" 2>/dev/null && pwd)/trace-cmd-sandboxed}
TRACEFS=/sys/kernel/tracing
EVENTS=(-e sched -e raw_syscalls)

say() { printf 'bench-capture: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

[[ $(id -u) == 0 ]] || die "needs root"
[[ -x $SANDBOX ]] || die "no trace-cmd-sandboxed at $SANDBOX (set TDAT_SANDBOX)"
[[ -x /usr/bin/time ]] || die "needs /usr/bin/time (apt-get install time)"
[[ -x $BIN/tdat-capture && -x $BIN/tdat-info ]] || die "build first (tools/tdat-capture)"

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/bench-capture.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

state() {
	ls "$TRACEFS/instances"
	cat "$TRACEFS/buffer_size_kb" "$TRACEFS/trace_clock" "$TRACEFS/tracing_on" \
		"$TRACEFS/events/enable" "$TRACEFS"/per_cpu/cpu*/buffer_size_kb
}
state >"$SCRATCH/state.before"

# trace-cmd record -b leaves the buffers at the size it set: put each CPU's back.
SIZES=()
for f in "$TRACEFS"/per_cpu/cpu*/buffer_size_kb; do
	SIZES+=("$f=$(<"$f")")
done
restore_sizes() {
	local s
	for s in "${SIZES[@]}"; do
		echo "${s#*=}" >"${s%%=*}" || say "cannot restore ${s%%=*}"
	done
}
trap 'restore_sizes; [[ -n ${TDAT_BENCH_KEEP-} ]] && say "kept $SCRATCH" || rm -rf "$SCRATCH"' EXIT

# The load, timed on its own: $1 is where its user and sys seconds go.
cat >"$SCRATCH/load.sh" <<EOF
#!/bin/sh
exec /usr/bin/time -f '%U %S' -o "\$1" sh -c '
	dd if=/dev/zero of=/dev/null bs=1 count=$COUNT 2>/dev/null
	for i in 1 2 3 4 5; do sh "$REPO/testdata/scripts/syscall-load.sh"; done'
EOF
chmod +x "$SCRATCH/load.sh"

# run NAME OUT CMD...: record with CMD; prints "events lost cpu_seconds bytes".
run() {
	local name=$1 out=$2 t l
	shift 2
	/usr/bin/time -f '%U %S' -o "$SCRATCH/$name.rec" "$@" >"$SCRATCH/$name.log" 2>&1 ||
		{ cat "$SCRATCH/$name.log" >&2; die "$name failed"; }
	read -r ru rs <"$SCRATCH/$name.rec"
	read -r lu ls <"$SCRATCH/$name.load"
	"$BIN/tdat-info" "$out" >"$SCRATCH/$name.info" 2>/dev/null || true
	t=$(sed -n 's/^events: *//p' "$SCRATCH/$name.info")
	l=$(sed -n 's/^lost events: *\([0-9]*\).*/\1/p' "$SCRATCH/$name.info")
	printf '%s %s %.2f %s\n' "${t:-0}" "${l:-0}" "$(echo "$ru + $rs - $lu - $ls" | bc -l)" \
		"$(stat -c %s "$out")"
}

printf '%-12s %10s %8s %12s %12s %10s\n' recorder events lost "cpu (s)" "bytes" "bytes/ev"
missed=0
for r in $(seq "$ROUNDS"); do
	read -r te tl tc ts < <(run tdat "$SCRATCH/tdat.dat" "$BIN/tdat-capture" record -q -b "$KB" \
		"${EVENTS[@]}" -o "$SCRATCH/tdat.dat" -- "$SCRATCH/load.sh" "$SCRATCH/tdat.load")
	read -r ce cl cc cs < <(run trace-cmd "$SCRATCH/tc.dat" "$SANDBOX" trace-cmd record -q \
		-b "$KB" "${EVENTS[@]}" -o "$SCRATCH/tc.dat" \
		"$SCRATCH/load.sh" "$SCRATCH/trace-cmd.load")
	restore_sizes
	tb=$(echo "scale=3; $ts / $te" | bc -l)
	cb=$(echo "scale=3; $cs / $ce" | bc -l)
	printf '%-12s %10s %8s %12s %12s %10s\n' "tdat-capture" "$te" "$tl" "$tc" "$ts" "$tb" \
		"trace-cmd" "$ce" "$cl" "$cc" "$cs" "$cb"
	(( tl <= cl )) || { say "round $r: more events lost ($tl > $cl)"; missed=1; }
	[[ $(echo "$tc <= $cc" | bc -l) == 1 ]] || { say "round $r: more recorder CPU ($tc > $cc s)"; missed=1; }
	# the two see a few more or fewer events: compare bytes per event
	[[ $(echo "$tb <= $cb" | bc -l) == 1 ]] || { say "round $r: bigger output ($tb > $cb bytes/event)"; missed=1; }
done

state >"$SCRATCH/state.after"
if ! cmp -s "$SCRATCH/state.before" "$SCRATCH/state.after"; then
	diff "$SCRATCH/state.before" "$SCRATCH/state.after" >&2 || true
	die "tracefs was left changed"
fi
exit $((missed ? 3 : 0))
