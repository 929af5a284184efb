#!/usr/bin/env bash
# tests/bench/bench.sh: time the tdat tools against trace-cmd on big real
# captures and check the targets (text >= 1.5x, csv >= 10x trace-cmd's events/s,
# split >= 2x trace-cmd split, -f dat at least as fast as trace-cmd convert, a
# 1% window < 5% of a full pass, peak RSS < 64 MiB; -f perfetto at least as
# fast as -f json and a fifth of its size; -f parquet >= 10x trace-cmd report,
# peak RSS < 128 MiB, a dataset < 1.5x the trace.dat) and that the text output
# is byte-identical.
# Not part of make check; see tests/bench/README.md.
#
#   tests/bench/bench.sh [--record-only] [BIG.dat...]
#
# With no file, records (once, then reuses) big-v7.dat and big-v6.dat under
# $TDAT_BENCH_DIR (default /var/tmp/tdat-bench); recording needs root.
# Exit status: 0 all targets met, 1 error, 2 usage, 3 a target missed or the
# text output differs.
set -euo pipefail
export LC_ALL=C

REPO=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$REPO/tools}
TRACE_CMD=${TRACE_CMD:-trace-cmd}
BENCH_DIR=${TDAT_BENCH_DIR:-/var/tmp/tdat-bench}
MIN_EVENTS=${TDAT_BENCH_MIN_EVENTS:-4000000}
RUNS=${TDAT_BENCH_RUNS:-3}
PAIR_RUNS=${TDAT_BENCH_PAIR_RUNS:-5}	# -j 1 against -j 2: runs of each, taking turns
FIRST_SECONDS=${TDAT_BENCH_SECONDS:-15}	# workload length of the first try
MAX_SECONDS=180				# never record longer than this
SANDBOX=${TDAT_SANDBOX:-$(cd "$(dirname "$0")/../../../shared/tools" 2>/dev/null &&
	pwd)/trace-cmd-sandboxed}
TRACEFS=/sys/kernel/tracing
EVENTS=(-e sched -e irq -e timer -e raw_syscalls -e workqueue)

TARGET_TEXT=1.5		# tdat events/s over trace-cmd report's
TARGET_CSV=10		# tdat -f csv events/s over trace-cmd report -R's
TARGET_RSS_MIB=64	# tdat-convert peak RSS, strictly below
TARGET_SQLITE=3		# tdat -f sqlite events/s over trace-cmd report's
TARGET_EXPORT=10	# json and typed (split) csv events/s over trace-cmd report's
TARGET_J2_TEXT=1.7	# -j 2 over -j 1 (issue 26)
TARGET_J2_CSV=1.5
TARGET_PIECES=1.7	# 10 pieces under parallel -j 2 over a serial loop
WORKER_MIB=32		# peak RSS allowed per -j worker over TARGET_RSS_MIB
JOBS=$(nproc 2>/dev/null || echo 1)	# tdat's default -j (at most 8)
((JOBS > 8)) && JOBS=8
TARGET_JSONGZ=5		# tdat-convert -j 2 -o x.json.gz events/s over trace-cmd report's
TARGET_JSONGZ_J2=1.3	# ... over -j 1's
TARGET_J2_TYPED=1.5	# -j 2 over -j 1: typed csv and parquet
TARGET_J2_STATEFUL=1.3	# -j 2 over -j 1: json and sqlite
TARGET_SPLIT=2		# tdat-split --events events/s over trace-cmd split -e -r's
TARGET_CONVERT=1	# tdat-convert -f dat over trace-cmd convert, each way
TARGET_WINDOW=0.05	# tdat-filter 1% window time over a full tdat-filter pass
SPLIT_EVENTS=1000000	# events per piece in the split benchmark
SQLITE_CACHE_MIB=64	# SQLite's page cache, allowed on top of TARGET_RSS_MIB
TARGET_PERFETTO_SPEED=1	# tdat -f perfetto events/s over tdat -f json's
TARGET_PERFETTO_SIZE=5	# -f json output size over -f perfetto's
TARGET_PARQUET=10	# tdat -f parquet events/s over trace-cmd report's
TARGET_PARQUET_RSS_MIB=128	# -f parquet peak RSS, strictly below
TARGET_PARQUET_SIZE=1.5	# the dataset's size over the trace.dat's, at most

SCRATCH=
SAVED_SIZES=()
MOUNTED_TRACEFS=	# set when this script mounted tracefs: unmounted at exit
MISSED=0

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

usage() {
	if (($1 == 0)); then
		sed -n '2,15s/^# \{0,1\}//p' "$0"
	else
		echo "usage: $0 [--record-only] [BIG.dat...]" >&2
	fi
	exit "$1"
}

cleanup() {
	restore_buffer_sizes
	[[ -n $MOUNTED_TRACEFS ]] && umount "$TRACEFS" 2>/dev/null
	MOUNTED_TRACEFS=
	[[ -n $SCRATCH ]] && rm -rf "$SCRATCH"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- tools --------------------------------------------------------------------

need_time() {
	[[ -x /usr/bin/time ]] && return 0
	[[ $(id -u) == 0 ]] || die "/usr/bin/time missing: sudo apt-get install time"
	say "installing time"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends time >&2 ||
		{ apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends time >&2; } ||
		die "cannot install time"
}

need_tools() {
	command -v "$TRACE_CMD" >/dev/null ||
		die "$TRACE_CMD not found: apt-get install trace-cmd (or set TRACE_CMD)"
	[[ -x $BIN/tdat-convert ]] ||
		die "$BIN/tdat-convert not found: build first (./quickstart.sh build) or set BIN"
}

# --- tracefs: leave it as found -------------------------------------------------

# need_tracefs: tracefs mounted at TRACEFS (by this script if it was not: unmounted at exit)
need_tracefs() {
	mountpoint -q "$TRACEFS" && return 0
	mount -t tracefs nodev "$TRACEFS" || die "tracefs is not mounted at $TRACEFS and cannot be"
	MOUNTED_TRACEFS=1
}

tracefs_state() {
	local f
	for f in tracing_on current_tracer set_event; do
		printf '%s: %s\n' "$f" "$(tr '\n' ' ' <"$TRACEFS/$f")"
	done
	printf 'instances: %s\n' "$(find "$TRACEFS/instances" -mindepth 1 -maxdepth 1 | sort |
		tr '\n' ' ')"
	for f in "$TRACEFS"/per_cpu/cpu*/buffer_size_kb; do
		printf '%s: %s\n' "${f#"$TRACEFS"/}" "$(<"$f")"
	done
}

# trace-cmd record -b leaves the buffer at the size it set; put each CPU's back.
save_buffer_sizes() {
	local f
	SAVED_SIZES=()
	for f in "$TRACEFS"/per_cpu/cpu*/buffer_size_kb; do
		SAVED_SIZES+=("$f=$(<"$f")")
	done
}

restore_buffer_sizes() {
	local s
	for s in "${SAVED_SIZES[@]}"; do
		echo "${s#*=}" >"${s%%=*}" 2>/dev/null || say "cannot restore ${s%%=*}"
	done
	SAVED_SIZES=()
}

# --- recording ------------------------------------------------------------------

# The workload: four shell loops (2 cores) making syscalls, forks, exits and
# small writes until DURATION seconds have passed; trace-cmd records while it runs.
# shellcheck disable=SC2016
WORKLOAD='
end=$((SECONDS + $1)) dir=$2
spin() {
	local i=0
	while ((SECONDS < end)); do
		ls -l /usr/bin >/dev/null
		cat /proc/stat /proc/meminfo /proc/self/status >/dev/null
		echo "$i $RANDOM" >"$dir/w$1"
		i=$((i + 1))
	done
}
for n in 1 2 3 4; do spin "$n" & done
wait
'

# Events in FILE: lines of trace-cmd report but the "cpus=" header line.
count_events() {
	local n
	n=$("$TRACE_CMD" report "$1" 2>/dev/null | grep -cv '^cpus=' || true)
	echo "${n:-0}"
}

# Cached count for our own captures, kept in FILE.events.
cached_count() {
	local f=$1
	if [[ ! -s $f.events || $f.events -ot $f ]]; then
		count_events "$f" >"$f.events"
	fi
	cat "$f.events"
}

# record_once OUT SECONDS VERSION-ARGS...: one capture of the workload.
record_once() {
	local out=$1 secs=$2 before after
	shift 2
	before=$(tracefs_state)
	save_buffer_sizes
	say "recording $secs s of workload into ${out##*/} ($*)"
	if ! "$SANDBOX" trace-cmd record -b 20000 "${EVENTS[@]}" "$@" -o "$out" \
		timeout -k 5 $((secs + 30)) bash -c "$WORKLOAD" workload "$secs" "$SCRATCH" \
		>"$SCRATCH/record.log" 2>&1; then
		tail -n 20 "$SCRATCH/record.log" >&2
		die "trace-cmd record failed"
	fi
	restore_buffer_sizes
	after=$(tracefs_state)
	if [[ $before != "$after" ]]; then
		diff <(echo "$before") <(echo "$after") >&2 || true
		die "tracefs was left changed by trace-cmd record (see above)"
	fi
}

# make_capture NAME VERSION-ARGS...: BENCH_DIR/NAME with >= MIN_EVENTS events.
make_capture() {
	local name=$1 f=$BENCH_DIR/$1 tmp secs=$FIRST_SECONDS n=0 try
	shift
	if [[ -s $f ]] && (($(cached_count "$f") >= MIN_EVENTS)); then
		say "reusing $f ($(cached_count "$f") events)"
		return 0
	fi
	[[ $(id -u) == 0 ]] || die "recording needs root (or pass a capture: $0 FILE.dat)"
	[[ -x $SANDBOX ]] || die "trace-cmd-sandboxed not found at $SANDBOX (set TDAT_SANDBOX)"
	need_tracefs
	tmp=$SCRATCH/$name
	for try in 1 2 3; do
		record_once "$tmp" "$secs" "$@"
		n=$(count_events "$tmp")
		say "$name (try $try): $n events in $secs s (want >= $MIN_EVENTS)"
		if ((n >= MIN_EVENTS)); then
			mv -f "$tmp" "$f"
			echo "$n" >"$f.events"
			return 0
		fi
		((secs >= MAX_SECONDS)) && break
		# Scale up with 30% headroom; the rate is roughly constant.
		secs=$(( n > 0 ? secs * MIN_EVENTS * 13 / (n * 10) + 1 : secs * 4 ))
		((secs > MAX_SECONDS)) && secs=$MAX_SECONDS
	done
	die "could not record $MIN_EVENTS events for $name (last try: $n)"
}

# --- timing ---------------------------------------------------------------------

declare -A WALL RSS

# measure_once KEY CMD...: one run, stdout to /dev/null; WALL[KEY] the best wall
# time so far, RSS[KEY] the largest peak RSS (MiB).
measure_once() {
	local key=$1 t0 t1 w r
	shift
	t0=$EPOCHREALTIME
	if ! /usr/bin/time -v -o "$SCRATCH/time" "$@" >/dev/null 2>"$SCRATCH/err"; then
		tail -n 5 "$SCRATCH/err" >&2
		die "failed: $*"
	fi
	t1=$EPOCHREALTIME
	w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	r=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$SCRATCH/time")
	if [[ -z ${WALL[$key]:-} ]] || awk -v a="$w" -v b="${WALL[$key]}" 'BEGIN { exit !(a < b) }'; then
		WALL[$key]=$w
	fi
	RSS[$key]=$(awk -v a="$r" -v b="${RSS[$key]:-0}" 'BEGIN { print (a > b) ? a : b }')
}

# measure KEY CMD...: best wall time and peak RSS over RUNS runs.
measure() {
	local key=$1 i
	shift
	unset "WALL[$key]" "RSS[$key]"
	for ((i = 0; i < RUNS; i++)); do
		measure_once "$key" "$@"
	done
}

# measure_j KEY CMD...: CMD at -j 1 (KEY1) and -j 2 (KEY2), the runs taking turns
# (the machine's speed drifts over minutes), PAIR_RUNS runs each.
measure_j() {
	local key=$1 i j
	shift
	unset "WALL[${key}1]" "RSS[${key}1]" "WALL[${key}2]" "RSS[${key}2]"
	for ((i = 0; i < PAIR_RUNS; i++)); do
		for j in 1 2; do
			measure_once "$key$j" "${@/#@J@/$j}"
		done
	done
}

# What two cores give here: one tdat-convert -j 1 -f csv against two at once
# (the ceiling of a -j 2 speed-up on this machine, which may share its cores).
bench_ceiling() {
	local f=$1 i
	unset "WALL[one]" "WALL[two]"
	for ((i = 0; i < PAIR_RUNS; i++)); do
		measure_once one "$BIN/tdat-convert" -j 1 -f csv "$f"
		measure_once two sh -c '"$1" -j 1 -f csv "$2" >/dev/null & "$1" -j 1 -f csv "$2"; wait' \
			sh "$BIN/tdat-convert" "$f"
	done
	printf '  %-34s %8sx  (what -j 2 can give at most here)\n' "two -j 1 csv at once / one" \
		"$(awk -v a="${WALL[one]}" -v b="${WALL[two]}" 'BEGIN { printf "%.2f", 2 * a / b }')"
}

row() {
	local key=$1 label=$2 events=$3
	awk -v l="$label" -v w="${WALL[$key]}" -v r="${RSS[$key]}" -v n="$events" \
		'BEGIN { printf "  %-34s %9.3f %12.0f %10.1f\n", l, w, (w > 0 ? n / w : 0), r }'
}

# verdict NAME VALUE OP TARGET UNIT: print whether VALUE meets the target.
verdict() {
	local name=$1 value=$2 op=$3 target=$4 unit=$5 met
	met=$(awk -v v="$value" -v t="$target" -v op="$op" \
		'BEGIN { print (op == ">=" ? v >= t : v < t) ? "met" : "MISSED" }')
	[[ $met == met ]] || MISSED=1
	printf '  %-34s %8s%s  (target %s %s%s)  %s\n' "$name" "$value" "$unit" \
		"$op" "$target" "$unit" "$met"
}

ratio() {
	awk -v tc="$1" -v td="$2" 'BEGIN { printf "%.2f", (td > 0 ? tc / td : 0) }'
}

# Is tdat-convert -f text byte for byte trace-cmd report?
identity() {
	local f=$1 msg line
	if msg=$(cmp <("$TRACE_CMD" report "$f" 2>/dev/null) \
		<("$BIN/tdat-convert" -f text "$f" 2>/dev/null) 2>&1); then
		echo "  text output vs trace-cmd report:   identical"
		return 0
	fi
	MISSED=1
	echo "  text output vs trace-cmd report:   DIFFERENT (${msg##*: })"
	line=$(sed -n 's/.*line \([0-9]*\).*/\1/p' <<<"$msg")
	if [[ -n $line ]]; then
		echo "    trace-cmd: $("$TRACE_CMD" report "$f" 2>/dev/null | sed -n "${line}{p;q}" || true)"
		echo "    tdat:      $("$BIN/tdat-convert" -f text "$f" 2>/dev/null | sed -n "${line}{p;q}" || true)"
	fi
}

describe() {
	"$TRACE_CMD" dump --summary "$1" 2>/dev/null | awk '
		/\[Version\]/ { v = $1 }
		/\[Compression algorithm\]/ { c = $1 }
		END { printf "v%s%s", v, (c != "" ? ", " c : "") }' || true
}

bench_file() {
	local f=$1 n size
	if [[ ${f%/*} == "$BENCH_DIR" ]]; then n=$(cached_count "$f"); else n=$(count_events "$f"); fi
	size=$(awk -v s="$(stat -c %s "$f")" 'BEGIN { printf "%.1f", s / 1048576 }')
	say "timing ${f##*/} (best of $RUNS runs each)"
	measure tc_text "$TRACE_CMD" report "$f"
	measure td_textd "$BIN/tdat-convert" -f text "$f"
	measure_j td_text "$BIN/tdat-convert" -j @J@ -f text "$f"
	measure tc_raw "$TRACE_CMD" report -R "$f"
	measure td_csvd "$BIN/tdat-convert" -f csv "$f"
	measure_j td_csv "$BIN/tdat-convert" -j @J@ -f csv "$f"

	echo
	echo "$f ($(describe "$f"), $size MiB, $n events)"
	printf '  %-34s %9s %12s %10s\n' command "wall s" "events/s" "peak RSS MiB"
	row tc_text "trace-cmd report" "$n"
	row td_textd "tdat-convert -f text (-j $JOBS)" "$n"
	row td_text1 "tdat-convert -j 1 -f text" "$n"
	row td_text2 "tdat-convert -j 2 -f text" "$n"
	row tc_raw "trace-cmd report -R" "$n"
	row td_csvd "tdat-convert -f csv (-j $JOBS)" "$n"
	row td_csv1 "tdat-convert -j 1 -f csv" "$n"
	row td_csv2 "tdat-convert -j 2 -f csv" "$n"
	verdict "text: -j 2 / -j 1 speed" \
		"$(ratio "${WALL[td_text1]}" "${WALL[td_text2]}")" ">=" "$TARGET_J2_TEXT" x
	verdict "csv: -j 2 / -j 1 speed" \
		"$(ratio "${WALL[td_csv1]}" "${WALL[td_csv2]}")" ">=" "$TARGET_J2_CSV" x
	F_BENCH=$f project td_text "-f text" - -f text
	F_BENCH=$f project td_csv "-f csv" - -f csv
	verdict "text -j 2 peak RSS" "${RSS[td_text2]}" "<" $((TARGET_RSS_MIB + 2 * WORKER_MIB)) " MiB"
	verdict "text: tdat / trace-cmd events/s" \
		"$(ratio "${WALL[tc_text]}" "${WALL[td_textd]}")" ">=" "$TARGET_TEXT" x
	verdict "csv: tdat / trace-cmd -R events/s" \
		"$(ratio "${WALL[tc_raw]}" "${WALL[td_csvd]}")" ">=" "$TARGET_CSV" x
	verdict "tdat-convert -j 1 peak RSS" \
		"$(awk -v a="${RSS[td_text1]}" -v b="${RSS[td_csv1]}" 'BEGIN { print (a > b) ? a : b }')" \
		"<" "$TARGET_RSS_MIB" " MiB"
	identity "$f"
	bench_ceiling "$f"
	bench_exports "$f" "$n"
	bench_pieces "$f" "$n"
	bench_dat "$f" "$n" "${2:-}"
}

# Does this tdat-convert know format $1? (an unknown one is a usage error, 2)
has_format() {
	"$BIN/tdat-convert" -f "$1" -o "$SCRATCH/probe.$1" /dev/null >/dev/null 2>&1
	(($? != 2))
}

# jobs_pair KEY LABEL TARGET OUT FORMAT_ARGS...: tdat-convert ARGS -o OUT at -j 1
# and at -j 2 (OUT removed before each run; "-": standard output, to /dev/null as
# the other rows), their rows, and the speed-up's verdict.
jobs_pair() {
	local key=$1 label=$2 target=$3 out=$4 j
	shift 4
	if [[ $out == - ]]; then
		measure_j "$key" "$BIN/tdat-convert" -j @J@ "$@" "$F_BENCH"
	else
		measure_j "$key" sh -c 'out=$1 && shift && rm -rf "$out" && exec "$@" -o "$out"' \
			sh "$out" "$BIN/tdat-convert" -j @J@ "$@" "$F_BENCH"
	fi
	for j in 1 2; do
		row "$key$j" "tdat-convert -j $j $label" "$N_BENCH"
	done
	verdict "$label: -j 2 / -j 1 speed" "$(ratio "${WALL[${key}1]}" "${WALL[${key}2]}")" ">=" \
		"$target" x
	project "$key" "$label" "$out" "$@"
	[[ $out == - ]] || rm -rf "$out"
}

# project KEY LABEL OUT ARGS...: one more run, -j 3 --verbose: the CPU time of
# the thread that puts the windows in order, or of the sqlite format's one
# inserting thread if that took more (S), against all of it (C).  By Amdahl's
# law N cores take at least max(S, C / N): the most -j N can give over the -j 1
# time measured.  (-j 3: from there every format splits its work as at
# any N, json pairing its slices on the workers too; on this machine's cores,
# whose cost to each other is in both figures.)
project() {
	local key=$1 label=$2 out=$3 line s c one who="in order"
	shift 3
	if [[ $out == - ]]; then
		line=$("$BIN/tdat-convert" -j 3 --verbose "$@" "$F_BENCH" 2>&1 >/dev/null)
	else
		rm -rf "$out"
		line=$("$BIN/tdat-convert" -j 3 --verbose "$@" -o "$out" "$F_BENCH" 2>&1)
	fi
	read -r s c < <(sed -n 's/.*CPU: \([0-9.]*\) s on the thread .*, \([0-9.]*\) s in all.*/\1 \2/p' \
		<<<"$line") || true
	one=$(sed -n 's/.*CPU: .* tdat-sqlite thread, the busiest \([0-9.]*\) s.*/\1/p' <<<"$line")
	if [[ -n $s && -n $one ]] && awk -v a="$one" -v b="$s" 'BEGIN { exit !(a > b) }'; then
		s=$one who="on one sqlite thread"
	fi
	if [[ -z $s || -z $c || $line != *"time window"* ]]; then
		printf '  %-34s read on one thread at -j 3 (no time windows)\n' "$label in order"
		return 0
	fi
	awk -v l="$label" -v w="${WALL[${key}1]}" -v s="$s" -v c="$c" -v who="$who" 'BEGIN {
		m8 = s > c / 8 ? s : c / 8; m32 = s > c / 32 ? s : c / 32
		printf "  %-34s %5.2f of %5.2f s CPU %s (%2.0f%%): -j 8 <= %.1fx, -j 32 <= %.1fx\n",
			l " in order", s, c, who, 100 * s / c, w / m8, w / m32 }'
}

# The exports of the exports issue, against trace-cmd report on the same file,
# and a 1% time window in the middle of the file against a full pass.
bench_exports() {
	local f=$1 n=$2 first span a b
	F_BENCH=$f N_BENCH=$n
	echo "  exports and windows:"
	if has_format sqlite; then
		measure td_sqlite sh -c 'rm -f "$1"; exec "$2" -o "$1" "$3"' sh "$SCRATCH/x.db" "$BIN/tdat-convert" "$f"
		row td_sqlite "tdat-convert -f sqlite" "$n"
		verdict "sqlite: tdat / trace-cmd events/s" \
			"$(ratio "${WALL[tc_text]}" "${WALL[td_sqlite]}")" ">=" "$TARGET_SQLITE" x
		verdict "sqlite peak RSS" "${RSS[td_sqlite]}" "<" $((TARGET_RSS_MIB + SQLITE_CACHE_MIB)) " MiB"
		rm -f "$SCRATCH/x.db"
		jobs_pair td_sqlite_j "-f sqlite" "$TARGET_J2_STATEFUL" "$SCRATCH/x.db" -f sqlite
	fi
	if has_format json; then
		measure td_json "$BIN/tdat-convert" -f json "$f"
		row td_json "tdat-convert -f json" "$n"
		verdict "json: tdat / trace-cmd events/s" \
			"$(ratio "${WALL[tc_text]}" "${WALL[td_json]}")" ">=" "$TARGET_EXPORT" x
		verdict "json peak RSS" "${RSS[td_json]}" "<" $((TARGET_RSS_MIB + JOBS * WORKER_MIB)) " MiB"
		jobs_pair td_json_j "-f json" "$TARGET_J2_STATEFUL" - -f json
		# .json.gz: deflate in blocks on -j threads (the same bytes for any -j)
		measure_j td_jsongz "$BIN/tdat-convert" -j @J@ -o "$SCRATCH/x.json.gz" "$f"
		for j in 1 2; do
			row td_jsongz$j "tdat-convert -j $j -o x.json.gz" "$n"
		done
		verdict "json.gz -j 2: tdat / trace-cmd events/s" \
			"$(ratio "${WALL[tc_text]}" "${WALL[td_jsongz2]}")" ">=" "$TARGET_JSONGZ" x
		verdict "json.gz: -j 2 / -j 1 speed" \
			"$(ratio "${WALL[td_jsongz1]}" "${WALL[td_jsongz2]}")" ">=" "$TARGET_JSONGZ_J2" x
		rm -f "$SCRATCH/x.json.gz"
	fi
	if has_format perfetto && has_format json; then
		bench_perfetto "$f" "$n"
	fi
	if has_format parquet; then
		bench_parquet "$f" "$n"
	fi
	if "$BIN/tdat-convert" --help | grep -q -- --split-by-event; then
		measure td_split sh -c 'rm -rf "$1"; exec "$2" -f csv --split-by-event -o "$1" "$3"' sh \
			"$SCRATCH/split" "$BIN/tdat-convert" "$f"
		row td_split "tdat-convert --split-by-event" "$n"
		verdict "typed csv: tdat / trace-cmd events/s" \
			"$(ratio "${WALL[tc_text]}" "${WALL[td_split]}")" ">=" "$TARGET_EXPORT" x
		rm -rf "$SCRATCH/split"
		jobs_pair td_typed_j "typed csv" "$TARGET_J2_TYPED" "$SCRATCH/split" -f csv --split-by-event
	fi
	if "$BIN/tdat-convert" --help | grep -q -- --start; then
		first=$("$BIN/tdat-convert" -f csv "$f" | sed -n 2p | cut -d, -f1)
		span=$("$BIN/tdat-info" --json "$f" | sed -n 's/.*"first_ts":\([0-9]*\),"last_ts":\([0-9]*\).*/\2 \1/p' |
			awk '{ printf "%d\n", $1 - $2 }')
		a=$((first + span / 2))
		b=$((a + span / 100))
		measure td_window "$BIN/tdat-convert" -f csv --start "${a}ns" --end "${b}ns" "$f"
		row td_window "tdat-convert -f csv, 1% window" "$n"
		verdict "1% window / full csv pass (time)" \
			"$(awk -v w="${WALL[td_window]}" -v c="${WALL[td_csvd]}" 'BEGIN { printf "%.2f", w / c }')" \
			"<" 0.5 ""
	fi
}

# Start and end (ns) of a 1% window in the middle of FILE.
window_of() {
	local f=$1 first span a
	first=$("$BIN/tdat-convert" -f csv "$f" | sed -n 2p | cut -d, -f1)
	span=$("$BIN/tdat-info" --json "$f" | sed -n 's/.*"first_ts":\([0-9]*\),"last_ts":\([0-9]*\).*/\2 \1/p' |
		awk '{ printf "%d\n", $1 - $2 }')
	a=$((first + span / 2))
	echo "$a $((a + span / 100))"
}

# The trace.dat writers: split, convert each way, filter windows, merge,
# against trace-cmd split/convert on the same file; peak RSS of every tool.
bench_dat() {
	local f=$1 n=$2 other=$3 v win rss=0
	[[ -x $BIN/tdat-split && -x $BIN/tdat-merge ]] || return 0
	echo "  trace.dat writers:"
	mkdir -p "$SCRATCH/sp"
	measure tc_split sh -c 'rm -f "$1"/tc*; exec "$2" split -i "$3" -o "$1/tc.dat" -e "$4" -r' sh \
		"$SCRATCH/sp" "$TRACE_CMD" "$f" "$SPLIT_EVENTS"
	measure td_splitev sh -c 'rm -f "$1"/td*; exec "$2" --events "$4" -o "$1/td" "$3"' sh \
		"$SCRATCH/sp" "$BIN/tdat-split" "$f" "$SPLIT_EVENTS"
	row tc_split "trace-cmd split -e $SPLIT_EVENTS -r" "$n"
	row td_splitev "tdat-split --events $SPLIT_EVENTS" "$n"
	verdict "split: tdat / trace-cmd events/s" \
		"$(ratio "${WALL[tc_split]}" "${WALL[td_splitev]}")" ">=" "$TARGET_SPLIT" x
	rm -rf "$SCRATCH/sp"
	if [[ $(describe "$f") == v6* ]]; then v=7; else v=6; fi
	measure tc_convert sh -c 'rm -f "$1"; exec "$2" convert -i "$3" -o "$1" --file-version "$4" --compression "$5"' \
		sh "$SCRATCH/c.dat" "$TRACE_CMD" "$f" "$v" "$( ((v == 6)) && echo none || echo zstd)"
	measure td_convert "$BIN/tdat-convert" -f dat --file-version "$v" -o "$SCRATCH/c.dat" "$f"
	row tc_convert "trace-cmd convert to v$v" "$n"
	row td_convert "tdat-convert -f dat to v$v" "$n"
	verdict "convert to v$v: tdat / trace-cmd speed" \
		"$(ratio "${WALL[tc_convert]}" "${WALL[td_convert]}")" ">=" "$TARGET_CONVERT" x
	rm -f "$SCRATCH/c.dat"
	read -r -a win <<<"$(window_of "$f")"
	measure td_filter "$BIN/tdat-filter" -o "$SCRATCH/fl.dat" "$f"
	measure td_fwindow "$BIN/tdat-filter" --start "${win[0]}ns" --end "${win[1]}ns" -o "$SCRATCH/fl.dat" "$f"
	row td_filter "tdat-filter, every event" "$n"
	row td_fwindow "tdat-filter, 1% window" "$n"
	verdict "1% window / full tdat-filter pass (time)" \
		"$(awk -v w="${WALL[td_fwindow]}" -v c="${WALL[td_filter]}" 'BEGIN { printf "%.3f", w / c }')" \
		"<" "$TARGET_WINDOW" ""
	if [[ -n $other ]]; then
		measure td_merge "$BIN/tdat-merge" -o "$SCRATCH/m.dat" "$f" "$other"
		row td_merge "tdat-merge with ${other##*/}" "$n"
	fi
	rm -f "$SCRATCH/fl.dat" "$SCRATCH/m.dat"
	for v in td_splitev td_convert td_filter td_fwindow ${other:+td_merge}; do
		rss=$(awk -v a="${RSS[$v]}" -v b="$rss" 'BEGIN { print (a > b) ? a : b }')
	done
	verdict "peak RSS of split/convert/filter/merge" "$rss" "<" "$TARGET_RSS_MIB" " MiB"
}

# -f parquet against trace-cmd report (timed at the start of the run): events/s,
# peak RSS, and the dataset's size against the trace.dat's (with bytes per event).
bench_parquet() {
	local f=$1 n=$2 bytes
	measure td_parquet sh -c 'rm -rf "$1"; exec "$2" -f parquet -o "$1" "$3"' sh \
		"$SCRATCH/pq" "$BIN/tdat-convert" "$f"
	row td_parquet "tdat-convert -f parquet" "$n"
	verdict "parquet: tdat / trace-cmd events/s" \
		"$(ratio "${WALL[tc_text]}" "${WALL[td_parquet]}")" ">=" "$TARGET_PARQUET" x
	verdict "parquet peak RSS" "${RSS[td_parquet]}" "<" "$TARGET_PARQUET_RSS_MIB" " MiB"
	bytes=$(du -sb "$SCRATCH/pq" | cut -f1)
	verdict "parquet dataset / trace.dat size" \
		"$(awk -v a="$bytes" -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.2f", a / b }')" \
		"<" "$TARGET_PARQUET_SIZE" x
	printf '  %-34s %8s\n' "parquet bytes per event" \
		"$(awk -v a="$bytes" -v n="$n" 'BEGIN { printf "%.2f", a / n }')"
	rm -rf "$SCRATCH/pq"
	jobs_pair td_parquet_j "-f parquet" "$TARGET_J2_TYPED" "$SCRATCH/pq" -f parquet
}

# -f perfetto side by side with -f json (timed just before): at least as fast,
# at most a fifth of its size; the sizes as a ratio and in bytes per event,
# beside the input's.
bench_perfetto() {
	local f=$1 n=$2 js ps pz
	measure td_perfetto "$BIN/tdat-convert" -f perfetto "$f"
	row td_perfetto "tdat-convert -f perfetto" "$n"
	verdict "perfetto / json events/s" "$(ratio "${WALL[td_json]}" "${WALL[td_perfetto]}")" \
		">=" "$TARGET_PERFETTO_SPEED" x
	verdict "perfetto peak RSS" "${RSS[td_perfetto]}" "<" "$TARGET_RSS_MIB" " MiB"
	js=$("$BIN/tdat-convert" -f json "$f" | wc -c)
	ps=$("$BIN/tdat-convert" -f perfetto "$f" | wc -c)
	printf '  %-34s %9.1f MiB json, %.1f MiB perfetto (%s of json)\n' "output sizes" \
		"$(awk -v b="$js" 'BEGIN { print b / 1048576 }')" \
		"$(awk -v b="$ps" 'BEGIN { print b / 1048576 }')" \
		"$(awk -v j="$js" -v p="$ps" 'BEGIN { printf "%.3f", (j > 0 ? p / j : 0) }')"
	printf '  %-34s %9.1f json, %.1f perfetto, %.1f the input (%s)\n' "bytes per event" \
		"$(awk -v b="$js" -v n="$n" 'BEGIN { print (n > 0 ? b / n : 0) }')" \
		"$(awk -v b="$ps" -v n="$n" 'BEGIN { print (n > 0 ? b / n : 0) }')" \
		"$(awk -v b="$(stat -c %s "$f")" -v n="$n" 'BEGIN { print (n > 0 ? b / n : 0) }')" \
		"$("$BIN/tdat-info" "$f" | sed -n 's/^compression: *//p' | head -n 1)"
	verdict "json / perfetto size" "$(ratio "$js" "$ps")" ">=" "$TARGET_PERFETTO_SIZE" x
	# the packets deflated (compressed_packets), as Perfetto's recorder can write them
	measure td_perfetto_z "$BIN/tdat-convert" -f perfetto --compression zlib "$f"
	row td_perfetto_z "tdat-convert -f perfetto --compression zlib" "$n"
	pz=$("$BIN/tdat-convert" -f perfetto --compression zlib "$f" | wc -c)
	printf '  %-34s %9.1f MiB, %.1f bytes per event (%s of json)\n' "perfetto --compression zlib" \
		"$(awk -v b="$pz" 'BEGIN { print b / 1048576 }')" \
		"$(awk -v b="$pz" -v n="$n" 'BEGIN { print (n > 0 ? b / n : 0) }')" \
		"$(awk -v j="$js" -v p="$pz" 'BEGIN { printf "%.3f", (j > 0 ? p / j : 0) }')"
	verdict "json / perfetto (zlib packets) size" "$(ratio "$js" "$pz")" ">=" "$TARGET_PERFETTO_SIZE" x
}

# One big capture as an archive of its pieces (issue 26): tdat-split into 10
# pieces, then each to Parquet, in a serial loop and under GNU parallel -j 2.
bench_pieces() {
	local f=$1 n=$2 conv=$SCRATCH/conv-piece.sh
	if ! command -v parallel >/dev/null; then
		echo "  pieces under GNU parallel: not timed (apt-get install parallel)"
		return 0
	fi
	rm -rf "$SCRATCH/pieces" && mkdir -p "$SCRATCH/pieces"
	"$BIN/tdat-split" --events $(((n + 9) / 10)) -o "$SCRATCH/pieces/p" "$f" >/dev/null ||
		die "tdat-split of $f failed"
	printf '#!/bin/sh\nrm -rf "$1.pq" && exec %q -j 1 -f parquet -o "$1.pq" "$1"\n' \
		"$BIN/tdat-convert" >"$conv"
	chmod +x "$conv"
	measure td_pieces1 sh -c 'for p in "$1"/*.dat; do "$2" "$p" || exit 1; done' \
		sh "$SCRATCH/pieces" "$conv"
	measure td_pieces2 parallel -j 2 --halt now,fail=1 "$conv" ::: "$SCRATCH"/pieces/*.dat
	row td_pieces1 "10 pieces to parquet, a loop" "$n"
	row td_pieces2 "10 pieces, parallel -j 2" "$n"
	verdict "pieces: parallel -j 2 / loop speed" \
		"$(ratio "${WALL[td_pieces1]}" "${WALL[td_pieces2]}")" ">=" "$TARGET_PIECES" x
	rm -rf "$SCRATCH/pieces" "$conv"
}

main() {
	local record_only=0 files=()
	while (($#)); do
		case $1 in
		--record-only) record_only=1 ;;
		-h|--help) usage 0 ;;
		-*) say "unknown option $1"; usage 2 ;;
		*) [[ -r $1 ]] || die "$1: cannot read"; files+=("$1") ;;
		esac
		shift
	done
	((record_only)) || need_tools
	need_time
	if ((${#files[@]} == 0)); then
		mkdir -p "$BENCH_DIR"
		SCRATCH=$(mktemp -d "$BENCH_DIR/.scratch.XXXXXX")
		make_capture big-v7.dat --file-version 7 --compression zstd
		make_capture big-v6.dat --file-version 6
		files=("$BENCH_DIR/big-v7.dat" "$BENCH_DIR/big-v6.dat")
	else
		SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/tdat-bench.XXXXXX")
	fi
	if ((record_only)); then
		ls -l "${files[@]}"
		return 0
	fi
	echo "trace-cmd: $("$TRACE_CMD" --version 2>&1 | grep -m1 version || true)"
	echo "tdat:      $("$BIN/tdat-convert" --version 2>&1 | head -n 1 || true)"
	for f in "${files[@]}"; do
		# the other input of the merge benchmark: the next file, else none
		bench_file "$f" "$(for g in "${files[@]}"; do [[ $g != "$f" ]] && echo "$g" && break; done || true)"
	done
	echo
	if ((MISSED)); then
		echo "bench: some targets MISSED"
		exit 3
	fi
	echo "bench: all targets met"
}

main "$@"
