#!/usr/bin/env bash
# tests/bench/bench-formats.sh: every output format of tdat-convert against
# trace-cmd report on one big mixed capture, side by side in one run (issue
# 48): time as a ratio to trace-cmd report's, peak RSS, at the default -j and
# at -j 1; the parquet dataset's size; the memory at 10% and at 100% of the
# capture; and, on every capture of testdata/, the big one's first 5% and
# the big one, the default -j against -j 1.  Not part of make check; see tests/bench/README.md.
#
#   tests/bench/bench-formats.sh [--record-only] [BIG.dat]
#
# With no file, it takes (recording it first, as root) big-mixed.dat of
# $TDAT_BENCH_DIR (default /var/tmp/tdat-bench): about 30 s of forks, file
# writes and syncs under -e sched -e irq -e timer -e raw_syscalls -e block
# -e kmem -e workqueue, v7 zstd.
# Exit status: 0 every target met, 1 error, 2 usage, 3 a target missed.
set -euo pipefail
export LC_ALL=C

REPO=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$REPO/tools}
TRACE_CMD=${TRACE_CMD:-trace-cmd}
BENCH_DIR=${TDAT_BENCH_DIR:-/var/tmp/tdat-bench}
RUNS=${TDAT_BENCH_RUNS:-3}		# runs of each measurement, the best kept
SMALL_RUNS=${TDAT_BENCH_SMALL_RUNS:-7}	# for the small captures of testdata/
SECONDS_REC=${TDAT_BENCH_SECONDS:-28}
SANDBOX=${TDAT_SANDBOX:-$REPO/../shared/tools/trace-cmd-sandboxed}
EVENTS=(-e sched -e irq -e timer -e raw_syscalls -e block -e kmem -e workqueue)

# format|arguments|target (x trace-cmd report at the default -j)|streaming
FORMATS=(
	"csv|-f csv|25|y"
	"perfetto|-f perfetto|-|y"
	"json|-f json|12|y"
	"text|-f text|4.5|y"
	"perfetto zlib|-f perfetto --compression zlib|10|y"
	"sqlite|-f sqlite|8|n"
	"json.gz|-f json|6|y"
	"parquet|-f parquet|10|n"
)
TARGET_PARQUET_J1=6	# parquet -j 1 x report, at least
TARGET_PARQUET_CSV=2	# parquet time over csv time, at most
TARGET_PARQUET_SIZE=1.3	# the dataset over the input, at most
TARGET_SQLITE_J2=1.3	# sqlite -j 1 time over -j 2 time, at least
TARGET_FLAT_MIB=16	# peak RSS, whole capture over its first 10%, at most
TARGET_THREAD_KIB=1	# what grows with the threads, per thread, at most
TARGET_J2_MIB=128	# every format at -j 2, at most
TARGET_J1_MIB=64	# the streaming ones at -j 1, at most
TARGET_DEFAULT=1.05	# default -j time over -j 1's, at most
DEFAULT_MIB=8		# default -j RSS over -j 1's where it gains nothing, at most
MISSED=0

say() { printf 'bench-formats: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
usage() { sed -n '2,15s/^# \{0,1\}//p' "$0"; exit "$1"; }

RECORD_ONLY=0
case ${1-} in
-h | --help) usage 0 ;;
--record-only) RECORD_ONLY=1; shift ;;
-*) usage 2 >&2 ;;
esac
(($# <= 1)) || usage 2 >&2
BIG=${1:-$BENCH_DIR/big-mixed.dat}
[[ -x /usr/bin/time ]] || die "/usr/bin/time is not installed (Debian package time)"
SCRATCH=$(mktemp -d "${TMPDIR:-/var/tmp}/tdat-bench-formats.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

# --- the capture ----------------------------------------------------------------

# The workload: four loops of short processes (ls, cat, sh, sleep) writing
# and syncing small files, so that threads come and go by the thousand.
# shellcheck disable=SC2016
WORKLOAD='
end=$((SECONDS + $1)) dir=$2
spin() {
	local i=0
	while ((SECONDS < end)); do
		ls -l /usr/bin >/dev/null
		cat /proc/stat /proc/meminfo /proc/self/status >/dev/null
		echo "$i $RANDOM" >"$dir/w$1"
		(sleep 0.001 &)
		sh -c "head -c 65536 /dev/urandom >$dir/f$1; sync $dir/f$1"
		i=$((i + 1))
	done
}
for n in 1 2 3 4; do spin "$n" & done
wait
'

record() {
	local sizes=() f i=0
	[[ $(id -u) == 0 ]] || die "recording needs root (or pass a capture: $0 FILE.dat)"
	[[ -x $SANDBOX ]] || die "trace-cmd-sandboxed not found at $SANDBOX (set TDAT_SANDBOX)"
	mkdir -p "$BENCH_DIR" "$SCRATCH/wl"
	for f in /sys/kernel/tracing/per_cpu/cpu*/buffer_size_kb; do
		[[ -r $f ]] && sizes+=("$(cat "$f")")
	done
	say "recording $SECONDS_REC s of workload into $BIG"
	"$SANDBOX" trace-cmd record -b 20000 "${EVENTS[@]}" --file-version 7 --compression zstd \
		-o "$SCRATCH/rec.dat" bash -c "$WORKLOAD" workload "$SECONDS_REC" "$SCRATCH/wl" \
		>"$SCRATCH/record.log" 2>&1 || { tail -n 20 "$SCRATCH/record.log" >&2; die "trace-cmd record failed"; }
	for f in /sys/kernel/tracing/per_cpu/cpu*/buffer_size_kb; do
		[[ -w $f && -n ${sizes[$i]-} ]] && echo "${sizes[$i]}" >"$f"
		i=$((i + 1))
	done
	mv -f "$SCRATCH/rec.dat" "$BIG"
}

[[ -s $BIG ]] || record
((RECORD_ONLY)) && exit 0
[[ -r $BIG ]] || die "$BIG: cannot read it"

# --- measuring ------------------------------------------------------------------

declare -A WALL RSS

# once KEY OUT CMD...: one run, output to OUT (a file or folder, removed
# first; stdout too); WALL[KEY] the best wall time, RSS[KEY] the largest
# peak RSS in KiB
once() {
	local key=$1 out=$2 t0 t1 w r
	shift 2
	rm -rf "$out"
	t0=$EPOCHREALTIME
	/usr/bin/time -f %M -o "$SCRATCH/time" "$@" >"$SCRATCH/stdout" 2>"$SCRATCH/err" ||
		{ tail -n 5 "$SCRATCH/err" >&2; die "failed: $*"; }
	t1=$EPOCHREALTIME
	w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
	r=$(tail -n 1 "$SCRATCH/time")
	if [[ -z ${WALL[$key]-} ]] || awk -v a="$w" -v b="${WALL[$key]}" 'BEGIN { exit !(a < b) }'; then
		WALL[$key]=$w
	fi
	((r > ${RSS[$key]:-0})) && RSS[$key]=$r
	return 0
}

# calc EXPR: awk arithmetic, printed with %.2f
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }

# check NAME OK: record a target's verdict ("ok" or "MISSED")
check() {
	if [[ $2 == 1 ]]; then
		printf '  %-62s ok\n' "$1"
	else
		printf '  %-62s MISSED\n' "$1"
		MISSED=1
	fi
}

# out_of NAME: where a format's output goes
out_of() {
	case $1 in
	json.gz) echo "$SCRATCH/out.json.gz" ;;
	*) echo "$SCRATCH/out" ;;
	esac
}

# convert KEY J ARGS... FILE: tdat-convert at -j J ("" the default) into out_of
convert() {
	local key=$1 j=$2 name=$3 args=$4 file=$5 jopt=()
	[[ -n $j ]] && jopt=(-j "$j")
	# shellcheck disable=SC2086
	once "$key" "$(out_of "$name")" "$BIN/tdat-convert" "${jopt[@]}" $args -o "$(out_of "$name")" $file
}

EVENTS_N=$("$BIN/tdat-info" --json "$BIG" | python3 -c 'import json, sys; print(json.load(sys.stdin)["events"])')
say "$BIG: $EVENTS_N events, $(stat -c %s "$BIG") bytes, $(nproc) CPUs, best of $RUNS"

# What two cores give here: one CPU-bound process alone, then two at once (a VM's
# two vCPUs may be one core's two hyperthreads, or share a quota): -j 2 can gain
# no more than this.
spin() { awk 'BEGIN { for (i = 0; i < 4e7; i++) s += i % 7; print s > "/dev/null" }'; }
t0=$(date +%s.%N); spin; t1=$(date +%s.%N); spin & spin; wait; t2=$(date +%s.%N)
say "two cores: two CPU-bound processes at once did $(calc "2 * ($t1 - $t0) / ($t2 - $t1)")x the work of one in its time"

for ((i = 0; i < RUNS; i++)); do
	once report "$SCRATCH/report" "$TRACE_CMD" report -i "$BIG"
done
REPORT=${WALL[report]}

# --- the table ------------------------------------------------------------------

echo
echo "$(basename "$BIG"): every format, default -j and -j 1 in turns, against trace-cmd report"
printf '  %-16s %8s %8s %8s %8s %8s %8s  %s\n' format "s" "x report" "MiB" "-j1 s" "x report" "MiB" target
printf '  %-16s %8.2f %8s %8.0f\n' "trace-cmd report" "$REPORT" 1 "$((RSS[report] / 1024))"
for f in "${FORMATS[@]}"; do
	IFS='|' read -r name args target streaming <<<"$f"
	for ((i = 0; i < RUNS; i++)); do
		convert "$name" "" "$name" "$args" "$BIG"
		convert "$name-j1" 1 "$name" "$args" "$BIG"
	done
	[[ $name == parquet ]] && PARQUET_BYTES=$(du -sb "$(out_of parquet)" | cut -f1)
	[[ $name == sqlite ]] && THREADS=$(sqlite3 "$(out_of sqlite)" 'select count(*) from thread')
	printf '  %-16s %8.2f %8s %8.0f %8.2f %8s %8.0f  %s\n' "$name" "${WALL[$name]}" \
		"$(calc "$REPORT / ${WALL[$name]}")" "$((RSS[$name] / 1024))" "${WALL[$name-j1]}" \
		"$(calc "$REPORT / ${WALL[$name-j1]}")" "$((RSS[$name-j1] / 1024))" "$target"
done

echo
echo "targets"
for f in "${FORMATS[@]}"; do
	IFS='|' read -r name args target streaming <<<"$f"
	x=$(calc "$REPORT / ${WALL[$name]}")
	[[ $target == - ]] ||
		check "$name >= ${target}x trace-cmd report (${x}x)" "$(awk -v a="$x" -v b="$target" 'BEGIN { print (a >= b) }')"
	if [[ $streaming == y ]]; then
		check "$name at -j 1 <= $TARGET_J1_MIB MiB ($((RSS[$name-j1] / 1024)) MiB)" \
			"$((RSS[$name-j1] <= TARGET_J1_MIB * 1024))"
	fi
done
x=$(calc "$REPORT / ${WALL[parquet-j1]}")
check "parquet -j 1 >= ${TARGET_PARQUET_J1}x trace-cmd report (${x}x)" \
	"$(awk -v a="$x" -v b="$TARGET_PARQUET_J1" 'BEGIN { print (a >= b) }')"
x=$(calc "${WALL[parquet]} / ${WALL[csv]}")
check "parquet <= ${TARGET_PARQUET_CSV}x csv's time (${x}x)" \
	"$(awk -v a="$x" -v b="$TARGET_PARQUET_CSV" 'BEGIN { print (a <= b) }')"
x=$(calc "$PARQUET_BYTES / $(stat -c %s "$BIG")")
check "parquet dataset <= ${TARGET_PARQUET_SIZE}x the input (${x}x)" \
	"$(awk -v a="$x" -v b="$TARGET_PARQUET_SIZE" 'BEGIN { print (a <= b) }')"

# sqlite at -j 2 against -j 1, in turns
unset "WALL[sqlite-j2]" "WALL[sqlite-j1]"
for ((i = 0; i < RUNS; i++)); do
	convert sqlite-j2 2 sqlite "-f sqlite" "$BIG"
	convert sqlite-j1 1 sqlite "-f sqlite" "$BIG"
done
x=$(calc "${WALL[sqlite-j1]} / ${WALL[sqlite-j2]}")
check "sqlite -j 2 >= ${TARGET_SQLITE_J2}x -j 1 (${x}x)" \
	"$(awk -v a="$x" -v b="$TARGET_SQLITE_J2" 'BEGIN { print (a >= b) }')"

# --- memory: the first 10% against the whole, at -j 2 -----------------------------

read -r FIRST LAST < <("$BIN/tdat-info" --json "$BIG" |
	python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["first_ts"], d["last_ts"])' 2>/dev/null ||
	echo "- -")
echo
if [[ $FIRST == - ]]; then
	say "tdat-info --json gives no first/last time: the 10% check is left out"
	MISSED=1
else
	END10=$(awk -v a="$FIRST" -v b="$LAST" 'BEGIN { printf "%.9f", (a + (b - a) / 10) / 1e9 }')
	"$BIN/tdat-convert" -f sqlite --end "$END10" -o "$SCRATCH/t10.sqlite" "$BIG" 2>/dev/null
	THREADS10=$(sqlite3 "$SCRATCH/t10.sqlite" 'select count(*) from thread')
	echo "memory at -j 2: the first 10% (to $END10, $THREADS10 threads) against the whole ($THREADS threads)"
	printf '  %-16s %8s %8s %8s %10s\n' format "10% MiB" "MiB" "delta" "KiB/thread"
	for f in "${FORMATS[@]}"; do
		IFS='|' read -r name args target streaming <<<"$f"
		unset "RSS[$name-10]" "RSS[$name-100]"
		# the peak of RUNS runs each, in turns: one run's peak varies by a few
		# MiB with how many blocks the workers have queued (csv: 34 to 39 MiB
		# for the first 10%, 38 to 41 for the whole, four runs each)
		for ((i = 0; i < RUNS; i++)); do
			convert "$name-10" 2 "$name" "$args --end $END10" "$BIG"
			convert "$name-100" 2 "$name" "$args" "$BIG"
		done
		d=$((RSS[$name-100] - RSS[$name-10]))
		per=$(calc "($d > 0 ? $d : 0) / ($THREADS - $THREADS10 > 0 ? $THREADS - $THREADS10 : 1)")
		printf '  %-16s %8.0f %8.0f %+8.1f %10s\n' "$name" "$((RSS[$name-10] / 1024))" \
			"$((RSS[$name-100] / 1024))" "$(calc "$d / 1024")" "$per"
		FLAT+=("$name|$d|$per")
	done
	for f in "${FLAT[@]}"; do
		IFS='|' read -r name d per <<<"$f"
		check "$name: whole - 10% <= $TARGET_FLAT_MIB MiB, <= $TARGET_THREAD_KIB KiB/thread" \
			"$(awk -v d="$d" -v p="$per" -v m="$TARGET_FLAT_MIB" -v k="$TARGET_THREAD_KIB" \
				'BEGIN { print (d <= m * 1024 && p <= k) }')"
		check "$name at -j 2 <= $TARGET_J2_MIB MiB ($((RSS[$name-100] / 1024)) MiB)" \
			"$((RSS[$name-100] <= TARGET_J2_MIB * 1024))"
	done
fi

# --- the default -j never costs ----------------------------------------------------

# default_vs_j1 FILE RUNS: text, csv, json, sqlite and parquet of FILE at the
# default -j and at -j 1 in turns; one line per format, a missed target counted.
# Where the default is -j 1 (--verbose says), the two are one command: the
# check is that choice and the memory, the times (tens of ms, mostly the
# process's start) only shown.
default_vs_j1() {
	local file=$1 runs=$2 name args t1 td r1 rd chosen
	for name in text csv json sqlite parquet; do
		args="-f $name"
		# each format's: sqlite and parquet count their own thread from 4 MiB
		chosen=$("$BIN/tdat-convert" --verbose $args -o "$SCRATCH/chosen" "$file" 2>&1 |
			sed -n 's/^tdat-convert: -j \([0-9]*\): about .*/\1/p')
		rm -rf "$SCRATCH/chosen"
		unset "WALL[d]" "WALL[1]" "RSS[d]" "RSS[1]"
		for ((i = 0; i < runs; i++)); do
			convert d "" "$name" "$args" "$file"
			convert 1 1 "$name" "$args" "$file"
		done
		td=${WALL[d]} t1=${WALL[1]} rd=${RSS[d]} r1=${RSS[1]}
		ok=$(awk -v d="$td" -v o="$t1" -v rd="$rd" -v r1="$r1" -v t="$TARGET_DEFAULT" -v m="$DEFAULT_MIB" \
			-v one="$([[ $chosen == 1 ]] && echo 1 || echo 0)" \
			'BEGIN { print ((one || d <= o * t) && (d < o * 0.95 || rd <= r1 + m * 1024)) }')
		printf '  %-28s %-7s %3s %8.3f %8.3f %7.2f %6.0f %6.0f  %s\n' "$(basename "$file")" "$name" \
			"${chosen:-?}" "$td" "$t1" "$(calc "$td / $t1")" "$((rd / 1024))" "$((r1 / 1024))" \
			"$( ((ok)) && echo ok || echo MISSED)"
		((ok)) || MISSED=1
	done
}

echo
echo "the default -j (the -j it chose) against -j 1 (time <= ${TARGET_DEFAULT}x where it chose more than 1;"
echo "RSS <= +$DEFAULT_MIB MiB unless it gains)"
printf '  %-28s %-7s %3s %8s %8s %7s %6s %6s\n' capture format "-j" "def s" "-j1 s" ratio "MiB" "-j1"
for f in "$REPO"/testdata/*.dat; do
	default_vs_j1 "$f" "$SMALL_RUNS"
done
# a medium capture: the big one's first 5% (tens of MiB of trace data: one
# thread more for sqlite's and parquet's own, not yet for workers)
if [[ $FIRST != - ]]; then
	END5=$(awk -v a="$FIRST" -v b="$LAST" 'BEGIN { printf "%.9f", (a + (b - a) / 20) / 1e9 }')
	if "$BIN/tdat-filter" --end "$END5" -o "$SCRATCH/first5.dat" "$BIG" 2>/dev/null; then
		default_vs_j1 "$SCRATCH/first5.dat" "$RUNS"
	else
		say "tdat-filter could not cut the first 5%: the medium capture is left out"
		MISSED=1
	fi
fi
default_vs_j1 "$BIG" "$RUNS"

exit $((MISSED ? 3 : 0))
