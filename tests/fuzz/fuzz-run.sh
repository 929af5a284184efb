#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fuzz-run.sh - long libFuzzer campaigns for the targets of tests/fuzz, from a
# build tree configured with --enable-fuzzing.  Each run is logged, so that
# executions and findings can be added up afterwards.
#
#   fuzz-run.sh run TARGET [SECONDS [libFuzzer args...]]
#       one run (default 3600 s), at the lowest priority; two runs of one
#       target share its corpus (libFuzzer reloads it), so start one per CPU
#   fuzz-run.sh tally
#       every logged run: executions, and how it ended (clean, stopped,
#       running, or the finding)
#   fuzz-run.sh leaks TARGET
#       run the whole grown corpus once with leak detection on
#   fuzz-run.sh beside COMMAND [ARG...]
#       run other work (a build, make check) at the runs' priority: at the
#       normal one it starves them, and libFuzzer's -timeout counts wall
#       time, so a slow input then ends a run as a timeout (an input of
#       0.7 s waited 12 s behind a make check)
#
# Where: $FUZZ_DIR (default /var/tmp/tdat-fuzz) holds TARGET/ (the corpus),
# art/ (findings) and TARGET-MMDD-HHMMSS.log.  Seeds come from
# tests/fuzz/corpus/TARGET; open and writers also get tests/fuzz/formats.dict.
# Run it from the build tree's top directory.
#
# The ASan options only shorten the stacks kept and the quarantine (every
# error is still caught); UBSan stops at its first report.  The open and
# writers targets run without libFuzzer's leak check (-detect_leaks=0):
# libtraceevent 1.7 leaks on damaged formats (the suppressed leaks of
# lsan.supp), and each such input made libFuzzer scan the whole heap, 30-40%
# of the time.  Run `leaks open` and `leaks writers` after them: every input
# that reached new code is run again with leak detection.
set -u

dir=${FUZZ_DIR:-/var/tmp/tdat-fuzz}
top=$PWD

usage() {
	sed -n '4,24p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

max_len() {
	case $1 in
	pages) echo 8200 ;;
	filter) echo 256 ;;
	*) echo 24600 ;;
	esac
}

fuzz_env() {
	[[ -x $top/tests/fuzz/fuzz-$1 ]] || {
		echo "fuzz-run.sh: $top/tests/fuzz/fuzz-$1: not built (./configure CC=clang --enable-fuzzing; make tests/fuzz/fuzz-$1)" >&2
		exit 1
	}
	export TDAT_TESTDATA=$top/testdata TMPDIR=${TMPDIR:-/dev/shm}
	export LSAN_OPTIONS=suppressions=$top/tests/fuzz/lsan.supp
	export ASAN_OPTIONS=malloc_context_size=0:quarantine_size_mb=4
	# UBSan only prints by default: stop, so that libFuzzer keeps the input
	export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
	mkdir -p "$dir/$1" "$dir/art"
}

run() {
	local t=$1 secs=${2:-3600} log extra=()

	shift $(($# < 2 ? $# : 2))
	# a session of its own, so that lowering its autogroup below leaves the caller's alone
	if [[ -z ${FUZZ_RUN_SESSION-} ]]; then
		FUZZ_RUN_SESSION=1 exec setsid -w "$0" run "$t" "$secs" "$@"
	fi
	fuzz_env "$t"
	# the format tokens (sizeof(, REC->, %*s, ...) for the targets that parse formats
	[[ $t == writers || $t == open ]] && extra=(-detect_leaks=0 -dict="$top/tests/fuzz/formats.dict")
	log=$dir/$t-$(date +%m%d-%H%M%S).log
	# two runs started in the same second would share (and garble) one log
	[[ -e $log ]] && log=${log%.log}-$$.log
	echo "fuzz-run.sh: $t for $secs s, log $log" >&2
	# nice alone is per autogroup: lower the group too, or a test run beside it halves
	echo 19 >/proc/self/autogroup 2>/dev/null
	echo $$ >"$log.pid"	# exec keeps the pid: tally tells a running run by it
	exec nice -n 19 "$top/tests/fuzz/fuzz-$t" "$dir/$t" "$top/tests/fuzz/corpus/$t" \
		-max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=1024 -malloc_limit_mb=512 \
		-max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$dir/art/$t-" \
		"${extra[@]}" "$@" >"$log" 2>&1
}

tally() {
	local f name n end

	for f in "$dir"/*.log; do
		[[ -e $f ]] || continue
		name=$(basename "$f" .log)
		n=$(grep -o "number_of_executed_units: [0-9]*" "$f" | awk '{n = $2} END {print n}')
		[[ -z $n ]] && n=$(grep -oE "^#[0-9]+" "$f" | tail -1 | tr -d '#')
		end=stopped
		grep -q "^Done [0-9]* runs" "$f" && end=clean
		[[ $end == stopped && -e $f.pid ]] && grep -qs "fuzz-${name%%-*}" "/proc/$(cat "$f.pid")/cmdline" &&
			end=running
		grep -q "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|ERROR: libFuzzer\|runtime error" "$f" &&
			end="finding: $(grep -m1 -oE 'ERROR: [A-Za-z]+: [A-Za-z -]+|runtime error: .{0,60}' "$f")"
		printf '%-24s %12s  %s\n' "$name" "${n:-0}" "$end"
	done
}

leaks() {
	fuzz_env "$1"
	"$top/tests/fuzz/fuzz-$1" -runs=0 -detect_leaks=1 -timeout=10 -rss_limit_mb=1024 \
		"$dir/$1" "$top/tests/fuzz/corpus/$1" 2>&1 | grep -E "^Done|ERROR|SUMMARY"
	return "${PIPESTATUS[0]}"
}

# Lower the group only in a session of its own: the caller's group is the terminal's.
beside() {
	if [[ -z ${FUZZ_RUN_SESSION-} ]]; then
		FUZZ_RUN_SESSION=1 exec setsid -w "$0" beside "$@"
	fi
	echo 19 >/proc/self/autogroup 2>/dev/null
	unset FUZZ_RUN_SESSION	# a fuzz-run.sh inside the command starts its own session
	exec nice -n 19 "$@"
}

case ${1:-} in
run) [[ $# -ge 2 ]] || usage; shift; run "$@" ;;
beside) [[ $# -ge 2 ]] || usage; shift; beside "$@" ;;
tally) tally ;;
leaks) [[ $# -eq 2 ]] || usage; leaks "$2" ;;
*) usage ;;
esac
