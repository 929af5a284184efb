#!/usr/bin/env bash
# t-replay.sh: the fuzz targets (tests/fuzz/fuzz-*.c), run by the plain
# replay program over every real capture, every damaged input and the fuzz
# corpus (tests/fuzz/corpus/TARGET/: seeds and past findings).  Each file must go through all four
# targets (open, pages, writers, filter) without a signal, a sanitizer
# report or a hang; the targets never fail on bad input, so the status is 0.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
# A hang guard, not a speed test: a whole capture goes through the writers
# target eleven times (every writer and flag byte), about 20 s under ASan
# on an idle 2-vCPU machine and over 60 s on a loaded one.
T_TIMEOUT=240
REPLAY=$BIN/../tests/fuzz/replay
[[ -x $REPLAY ]] || skip_all "tests/fuzz/replay not built"
# templates of the pages and filter targets
export TDAT_TESTDATA=$TOP_SRCDIR/testdata
# sanitizer builds: leaks that are libtraceevent's own (see the file)
export LSAN_OPTIONS=suppressions=$TOP_SRCDIR/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}

shopt -s nullglob
files=(testdata/*.dat testdata/bad/*.dat testdata/bad/print/*.dat testdata/bad/gen/*.dat testdata/bad/fuzz/*.dat tests/fuzz/corpus/*/*)
t_assert "there are inputs to replay" test "${#files[@]}" -gt 40
# replay_one FILE: FILE alone through the targets, its status and its lines
replay_one() {
	t_exit "replay $1" 0 -- "$REPLAY" "$1"
	t_assert "$1 went through all four targets" test "$(grep -c ': done$' "$T_OUT")" = 4
}
# The files go through replay REPLAY_BATCH (default 20) to a process, as
# libFuzzer runs its inputs, not a process each (under ASan a process's
# start is ~0.2 s): a batch that exits 0 with no signal or sanitizer
# report, each of its files with its four "FILE: TARGET: done" lines, is
# each file's exit 0 and its four targets; any other batch is replayed
# again file by file (replay_one), which names the file that failed.
BATCH=${REPLAY_BATCH:-20}
for ((b = 0; b < ${#files[@]}; b += BATCH)); do
	batch=("${files[@]:b:BATCH}")
	t_run "replay a batch" -- "$REPLAY" "${batch[@]}"
	_t_crash_reason
	unset dones
	declare -A dones=()
	if [[ -z $T_WHY ]] && ((T_RC == 0)); then
		while IFS= read -r l; do
			[[ $l =~ ^(.*):\ (open|pages|writers|filter):\ done$ ]] &&
				dones[${BASH_REMATCH[1]}]=$((${dones[${BASH_REMATCH[1]}]-0} + 1))
		done <"$T_OUT"
	fi
	for f in "${batch[@]}"; do
		if [[ ${dones[$f]-} == 4 ]]; then
			ok "replay $f"
			ok "$f went through all four targets"
		else
			replay_one "$f"
		fi
	done
done
t_exit "an unknown target is refused" 2 -- "$REPLAY" -t bogus testdata/markers.dat
t_exit "an unreadable input is an error" 1 -- "$REPLAY" testdata/no-such.dat

# the campaign script: usage, a missing fuzz build, and its tally of logs
RUN=$TOP_SRCDIR/tests/fuzz/fuzz-run.sh
d=$T_TMP/fuzz-run
mkdir -p "$d"
t_exit "fuzz-run.sh with no command is a usage error" 2 -- "$RUN"
t_exit "fuzz-run.sh run outside a fuzz build" 1 -- env -C "$d" FUZZ_DIR="$d" "$RUN" run open 1
t_stderr_match "it names what to build" 'tests/fuzz/fuzz-open: not built .*--enable-fuzzing'
printf '#4096\tpulse\nDone 5000 runs in 1 second(s)\nstat::number_of_executed_units: 5000\n' >"$d/open-1.log"
printf '#8192\tpulse\nx.c:1:2: runtime error: applying zero offset to null pointer\n#9000\tNEW\n' >"$d/writers-2.log"
printf '#16384\tpulse\n' >"$d/pages-3.log"
t_exit "fuzz-run.sh tally" 0 -- env FUZZ_DIR="$d" "$RUN" tally
t_stdout_match "a clean run and its executions" '^open-1 +5000  clean$'
t_stdout_match "a finding" '^writers-2 +9000  finding: runtime error: applying zero offset'
t_stdout_match "a run that stopped" '^pages-3 +16384  stopped$'
t_exit "fuzz-run.sh beside passes the command's status on" 3 -- "$RUN" beside sh -c 'exit 3'
t_run "fuzz-run.sh beside" -- "$RUN" beside sh -c 'echo "nice $(nice) session $(ps -o sid= $$)"'
t_stdout_match "runs the command at nice 19" '^nice 19 '
t_assert "in a session of its own" test "$(awk '{print $4}' "$T_OUT")" != "$(ps -o sid= $$ | tr -d ' ')"
done_testing
