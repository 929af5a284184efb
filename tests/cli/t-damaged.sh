#!/usr/bin/env bash
# t-damaged.sh: every damaged input made by testdata/bad/make-damaged.py (the
# committed set in testdata/bad/gen/, listed with its undamaged source in
# gen/SOURCES), every fuzzer finding (testdata/bad/fuzz/), a directory,
# /dev/zero and /dev/null go through tdat-convert (text and dat) and
# tdat-info.  For each run: no signal, no sanitizer report, done within
# DAMAGED_TIMEOUT seconds, bounded memory (ulimit -v, except under ASan,
# and the peak RSS measured by /usr/bin/time).  Each input ends in exactly one of
#   full     exit 0, and the output is that of the undamaged file
#            (damage in bytes nobody reads);
#   partial  exit 1 with a message naming the file and what was skipped, and
#            every event written is one of the undamaged file's events;
#   refused  exit 1 with a message naming the file, and no output file.
# A case whose SOURCES text says "[payload" changed values nobody can check
# (only the line count of a full run is compared); "[names" lost only names
# (a kallsyms section, say): exit 1 and tdat-info counts every event.
# Exit 0 with events missing is the failure this test exists for.
# DAMAGED_DIR=DIR runs it on another set, e.g. every case:
#   testdata/bad/make-damaged.py --all /tmp/all && DAMAGED_DIR=/tmp/all tests/cli/t-damaged.sh
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
GEN=${DAMAGED_DIR:-testdata/bad/gen}
LIMIT=${DAMAGED_TIMEOUT:-10}		# seconds per run (sanitizer builds are slow)
VMEM_KB=$((512 * 1024))			# ulimit -v for a run
RSS_MAX_KB=$((512 * 1024))		# peak RSS allowed (ASan included)
HAVE_TIME=
[[ -x /usr/bin/time ]] && HAVE_TIME=1
ASAN=
grep -qa __asan_init "$BIN/tdat-convert" && ASAN=1	# ASan reserves terabytes of address space
mkdir -p "$T_TMP/ref" "$T_TMP/out"

full=0 partial=0 refused=0 worst_t=0 worst_t_what='' peak_kb=0 peak_what=''

# run_lim OUTPREFIX CMD...: run CMD with the limits; sets RC, ELAPSED_MS, RSS_KB.
run_lim() {
	local pre=$1 t0 t1
	shift
	t0=$(date +%s%N)
	RC=0
	(
		[[ -n $ASAN ]] || ulimit -v "$VMEM_KB"
		if [[ -n $HAVE_TIME ]]; then
			exec timeout -k 2 "$LIMIT" /usr/bin/time -f %M -o "$pre.rss" "$@"
		else
			exec timeout -k 2 "$LIMIT" "$@"
		fi
	) <"${STDIN:-/dev/null}" >"$pre.stdout" 2>"$pre.stderr" || RC=$?
	t1=$(date +%s%N)
	ELAPSED_MS=$(((t1 - t0) / 1000000))
	RSS_KB=0
	if [[ -s $pre.rss ]]; then
		RSS_KB=$(grep -E '^[0-9]+$' "$pre.rss" | tail -1)
		RSS_KB=${RSS_KB:-0}
		# /usr/bin/time notes a signal of its child in the same file
		grep -q 'Command terminated by signal' "$pre.rss" && RC=$((128 + $(grep -o 'signal [0-9]*' "$pre.rss" | grep -o '[0-9]*')))
	fi
	if ((ELAPSED_MS > worst_t)); then
		worst_t=$ELAPSED_MS worst_t_what="$*"
	fi
	if ((RSS_KB > peak_kb)); then
		peak_kb=$RSS_KB peak_what="$*"
	fi
}

# sane NAME FILE: the last run_lim ended by itself, within the limits.
sane() {
	local why=
	if ((RC == 124 || RC == 137)); then
		why="timed out after ${LIMIT}s"
	elif ((RC >= 128)); then
		why="killed by signal $((RC - 128))"
	elif ((RC != 0 && RC != 1)); then
		why="exit status $RC, wanted 0 or 1"
	elif grep -Eq 'ERROR: (Address|Leak|Memory)Sanitizer|runtime error: ' "$2"; then
		why="sanitizer report"
	elif ((RSS_KB > RSS_MAX_KB)); then
		why="peak RSS ${RSS_KB} KB"
	fi
	if [[ -z $why ]]; then
		ok "$1"
	else
		not_ok "$1" "$why" "stderr:" "$(head -5 "$2")"
	fi
}

# The undamaged file's text, once per source.
ref_text() {
	local src=$1 ref=$T_TMP/ref/${1//\//_}.txt
	[[ -f $ref ]] || tdat-convert "testdata/$src" >"$ref" 2>/dev/null
	echo "$ref"
}

# subset GOT REF: every line of GOT is a line of REF.  A case whose SOURCES
# text says "[buffer NAME is read as NEW]" (a buffer whose name was lost with
# the options after its data) has NEW: lines compared as NAME: lines, spaces
# squeezed (the columns are aligned to the longest buffer name).
subset() {
	local squeeze=
	[[ -n $RENAME ]] && squeeze='s/  */ /g'
	test -z "$(comm -23 <(sed "$RENAME" "$1" | sed "$squeeze" | sort) <(sed "$squeeze" "$2" | sort))"
}

# The undamaged file's event count, as tdat-info gives it, in REF_EVENTS
# (once per source: eight cases lose names of markers.dat).
declare -A ref_events_of=()
ref_events() {
	[[ -n ${ref_events_of[$1]+set} ]] ||
		ref_events_of[$1]=$(tdat-info "testdata/$1" 2>/dev/null | grep '^events:')
	REF_EVENTS=${ref_events_of[$1]}
}

# check_input FILE SOURCE PAYLOAD NAMES: the three runs and the verdict.
# NAMES: only names were lost (a kallsyms section, say): every event is read.
check_input() {
	local f=$1 src=$2 payload=$3 names=$4 p=$T_TMP/run ref='' kind rc_text out=$T_TMP/out/x
	[[ $src != - ]] && ref=$(ref_text "$src")
	rm -f "$T_TMP"/out/*

	# text
	run_lim "$p" tdat-convert -o "$out.txt" "$f"
	sane "$f: text ends by itself (${ELAPSED_MS} ms, ${RSS_KB} KB)" "$p.stderr"
	rc_text=$RC
	if ((RC == 0)); then
		kind=full
		if [[ -z $ref ]]; then
			not_ok "$f: exit 0 for an input with no undamaged source"
		elif [[ -n $payload ]]; then
			# flipped payload bits are undetectable; lost events are not
			t_assert "$f: full: as many lines as the undamaged file" \
				test "$(wc -l <"$out.txt")" = "$(wc -l <"$ref")"
		else
			t_assert "$f: full: the output is the undamaged file's" cmp -s "$out.txt" "$ref"
		fi
	elif ((RC == 1)); then
		t_assert "$f: exit 1 says why, naming the file" grep -q "^tdat-convert: $f: " "$p.stderr"
		if [[ -e $out.txt ]]; then
			kind=partial
			t_assert "$f: partial: the message says what was skipped" \
				grep -Eq 'skipped|damaged|truncated' "$p.stderr"
			if [[ -n $ref && -z $payload ]]; then
				t_assert "$f: partial: every line written is one of the undamaged file's" \
					subset "$out.txt" "$ref"
			fi
		else
			kind=refused
		fi
	else
		kind=crash
	fi
	t_assert "$f: no temporary file left behind" test -z "$(ls "$T_TMP/out" | grep -v '^x\.txt$')"
	rm -f "$T_TMP"/out/*

	# dat: the same verdict, and a written trace.dat reads back as the text did
	run_lim "$p" tdat-convert -f dat -o "$out.dat" "$f"
	sane "$f: dat ends by itself (${ELAPSED_MS} ms)" "$p.stderr"
	t_assert "$f: dat gives the exit status text gave ($RC, $rc_text)" test "$RC" = "$rc_text"
	if [[ -e $out.dat && -n $ref ]]; then
		tdat-convert "$out.dat" >"$out.back" 2>/dev/null
		if ((RC == 0)) && [[ -z $payload ]]; then
			t_assert "$f: the trace.dat written reads as the undamaged file" cmp -s "$out.back" "$ref"
		elif [[ -z $payload ]]; then
			t_assert "$f: the trace.dat written holds only the undamaged file's events" \
				subset "$out.back" "$ref"
		fi
	fi
	t_assert "$f: dat leaves no temporary file behind" \
		test -z "$(ls "$T_TMP/out" | grep -Ev '^x\.(dat|back)$')"
	rm -f "$T_TMP"/out/*

	# tdat-info
	run_lim "$p" tdat-info "$f"
	sane "$f: tdat-info ends by itself (${ELAPSED_MS} ms)" "$p.stderr"
	if ((RC == 1)); then
		t_assert "$f: tdat-info names the file" grep -q "^tdat-info: $f: " "$p.stderr"
	fi
	if [[ -n $names ]]; then
		ref_events "$src"
		t_assert "$f: only names lost: exit 1, and every event counted ($REF_EVENTS)" \
			eval '((RC == 1)) && [[ $(grep "^events:" "$p.stdout") == "$REF_EVENTS" ]]'
	fi

	case $kind in
	full) full=$((full + 1)) ;;
	partial) partial=$((partial + 1)) ;;
	refused) refused=$((refused + 1)) ;;
	esac
	diag "$f: $kind"
}

t_assert "the generator's committed set is here" test "$(ls "$GEN"/*.dat | wc -l)" -ge 30
for dir in "$GEN" testdata/bad/fuzz; do
	while read -r name src what; do
		[[ $name == \#* || -z $name ]] && continue
		payload= names=
		[[ $what == *"[payload"* ]] && payload=1
		[[ $what == *"[names"* ]] && names=1 payload=1	# names differ, lines may too
		RENAME=
		[[ $what =~ \[buffer\ ([^ ]+)\ is\ read\ as\ ([^] ]+)\] ]] &&
			RENAME="s/^${BASH_REMATCH[2]}:/${BASH_REMATCH[1]}:/"
		check_input "$dir/$name" "$src" "$payload" "$names"
	done <"$dir/SOURCES"
done
t_assert "every fuzz finding is listed in testdata/bad/fuzz/SOURCES" \
	test "$(ls testdata/bad/fuzz | grep -vc '^SOURCES$')" = "$(grep -vc '^#' testdata/bad/fuzz/SOURCES)"

# Not files at all: refused at once, with the reason.
for f in testdata /dev/zero /dev/null; do
	run_lim "$T_TMP/run" tdat-convert -o "$T_TMP/out/x.txt" "$f"
	sane "$f: ends by itself" "$T_TMP/run.stderr"
	t_assert "$f: refused with exit 1 and a message naming it" \
		eval '((RC == 1)) && grep -q "^tdat-convert: $f: " "$T_TMP/run.stderr"'
	t_empty_dir "$f: no output file" "$T_TMP/out"
	run_lim "$T_TMP/run" tdat-info "$f"
	sane "$f: tdat-info ends by itself" "$T_TMP/run.stderr"
	refused=$((refused + 1))
done
STDIN=/dev/zero run_lim "$T_TMP/run" tdat-convert -
t_assert "/dev/zero on standard input is refused at once" \
	eval '((RC == 1)) && grep -q "bad magic" "$T_TMP/run.stderr"'

# -f sqlite on a damaged file whose first text value in a row chunk is empty
# (found by fuzz-writers): the database is written, no "out of memory"
run_lim "$T_TMP/run" tdat-convert -f sqlite -o "$T_TMP/out/x.db" testdata/bad/fuzz/writers-sqlite-empty-text.dat
t_assert "sqlite: an empty first text value is stored (status $RC)" \
	eval '((RC == 1)) && test -s "$T_TMP/out/x.db" && ! grep -q "out of memory" "$T_TMP/run.stderr"'
rm -f "$T_TMP"/out/*
# -f sqlite on a file that lists CPU 5046273 (fuzz-writers): rows for the CPUs
# that exist, not for every number up to it
run_lim "$T_TMP/run" tdat-convert -f sqlite -o "$T_TMP/out/x.db" testdata/bad/fuzz/writers-sqlite-cpu-5046273.dat
t_assert "sqlite: a CPU numbered 5046273 ends in $ELAPSED_MS ms (status $RC)" \
	eval '((RC == 1 && ELAPSED_MS < 5000)) && test -s "$T_TMP/out/x.db"'
t_assert "sqlite: one cpu row per CPU that exists (sqlite3, installed by quickstart.sh)" \
	test "$(sqlite3 "$T_TMP/out/x.db" 'SELECT count(*) FROM cpu')" = 2
rm -f "$T_TMP"/out/*
# -f perfetto on a file that lists CPU 67109120 (fuzz-writers): 4.2 GB before
run_lim "$T_TMP/run" tdat-convert -f perfetto -o "$T_TMP/out/x.pftrace" testdata/bad/fuzz/writers-perfetto-cpu-67109120.dat
t_assert "perfetto: a CPU numbered 67109120 ends in $ELAPSED_MS ms, in $RSS_KB KB (status $RC)" \
	eval '((RC == 1 && ELAPSED_MS < 5000 && RSS_KB < 262144)) && test -s "$T_TMP/out/x.pftrace"'
t_assert "and says that CPU's data was skipped" \
	grep -q 'damaged CPU number 67109120 in the table of buffer "": that CPU.s data (1463 bytes at offset 8192) skipped' "$T_TMP/run.stderr"
rm -f "$T_TMP"/out/*

# --start on a file whose chunk count says 3.2 billion (fuzz-writers): the
# seek allocated an offset for each (25 GB), and the failure was an empty
# usage error; now the chunks the data has room for, the damage reported
run_lim "$T_TMP/run" tdat-convert --start 3889.14 -f csv -o "$T_TMP/out/x.csv" \
	testdata/bad/fuzz/writers-jobs-seek-chunk-count.dat
t_assert "--start past a chunk count of 3.2 billion: exit 1 in $RSS_KB KB, the damage named" \
	eval '((RC == 1 && RSS_KB < 262144)) && test -s "$T_TMP/out/x.csv" &&
	      grep -q "chunk sizes do not fit the data" "$T_TMP/run.stderr"'
rm -f "$T_TMP"/out/*

# --lenient: the same message, exit 0.
run_lim "$T_TMP/run" tdat-convert --lenient -o "$T_TMP/out/x.txt" "$GEN/v6-commit-2.dat"
t_assert "--lenient: a partly read file exits 0" test "$RC" = 0
t_assert "--lenient: and still reports the damage" grep -q "bytes skipped" "$T_TMP/run.stderr"
t_assert "--lenient: and writes what was recovered" test -s "$T_TMP/out/x.txt"
rm -f "$T_TMP"/out/*
run_lim "$T_TMP/run" tdat-info --lenient "$GEN/v6-commit-2.dat"
t_assert "tdat-info --lenient: exit 0, damage reported" \
	eval '((RC == 0)) && grep -q "bytes skipped" "$T_TMP/run.stderr"'
t_assert "tdat-info names the damage, its offset and CPU, as tdat-convert does" grep -Eq \
	"^tdat-info: $GEN/v6-commit-2.dat: page commit size larger than the page \(offset [0-9]+, cpu 0\): 4096 bytes skipped$" \
	"$T_TMP/run.stderr"
run_lim "$T_TMP/run" tdat-filter --lenient -o "$T_TMP/out/x.dat" "$GEN/v6-commit-2.dat"
t_assert "tdat-filter --lenient: exit 0, damage reported" \
	eval '((RC == 0)) && grep -q "bytes skipped" "$T_TMP/run.stderr"'
run_lim "$T_TMP/run" tdat-convert --lenient "$GEN/empty.dat"
t_assert "--lenient: a file that cannot be opened still fails" test "$RC" = 1

# Hostile filters (found by fuzz-filter): libtraceevent's parser crashed on a
# byte that is not printable ASCII, on two operators in a row (a double free,
# or a NULL pointer) and more; a filter outside the grammar that
# tep-guard.c accepts is a usage error that says what was expected.
run_lim "$T_TMP/run" tdat-convert -F "$(printf '.*:COMM=="s\t"')" testdata/two-buffers.dat
t_assert "a filter with a tab in a string is a usage error, no crash" \
	eval '((RC == 2)) && grep -q "not printable ASCII" "$T_TMP/run.stderr"'
run_lim "$T_TMP/run" tdat-convert -F "$(printf 'sched_wakeup:COMM=="wh\xb1"')" testdata/two-buffers.dat
t_assert "a filter with a non-ASCII byte: no crash (status $RC)" test "$RC" -lt 124
t_assert "a filter with a non-ASCII byte is a usage error that says why" \
	eval '((RC == 2)) && grep -q "not printable ASCII" "$T_TMP/run.stderr"'
for expr in 'prev_comm===="sh"' 'prev_pid==1 && && next_pid==0' 'prev_pid==1 || || 2'; do
	run_lim "$T_TMP/run" tdat-convert -F "sched_switch:$expr" testdata/two-buffers.dat
	t_assert "filter '$expr': a usage error, no crash" \
		eval '((RC == 2)) && grep -Eq "(a field name|a number or a quoted string) expected" "$T_TMP/run.stderr"'
done
run_lim "$T_TMP/run" tdat-convert -F 'sched_switch:prev_pid==0 && prev_comm<"a"' testdata/two-buffers.dat
t_assert "filter 'a && b < \"x\"': a usage error, no crash" \
	eval '((RC == 2)) && grep -q "a string after <, <=, > or >=" "$T_TMP/run.stderr"'
run_lim "$T_TMP/run" tdat-convert -F 'sched_switch:prev_pid==0 && prev_pid' testdata/two-buffers.dat
t_assert "filter 'a == 0 && b': a usage error, no crash" \
	eval '((RC == 2)) && grep -q "a comparison expected after a field name" "$T_TMP/run.stderr"'
for expr in 'prev_pid==0 || next_pid==prev_pid' 'prev_pid==0 && next_comm==sh'; do
	run_lim "$T_TMP/run" tdat-convert -F "sched_switch:$expr" testdata/two-buffers.dat
	t_assert "filter '$expr': a usage error, no crash" \
		eval '((RC == 2)) && grep -q "fields compare with constants, not with other fields" "$T_TMP/run.stderr"'
done
for expr in 'prev_pid==0 || next_pid==0 |p' 'prev_pid==0 && next_pid==0 + 1' 'next_pid==0 || prev_pid==0 ^ 4'; do
	run_lim "$T_TMP/run" tdat-convert -F "sched_switch:$expr" testdata/two-buffers.dat
	t_assert "filter '$expr': a usage error, no crash" \
		eval '((RC == 2)) && grep -q "&&, || or the end expected after a condition" "$T_TMP/run.stderr"'
done
for expr in '.*:commo,nlong=12' 'sched_switch:prev_comm=="a,b"'; do
	run_lim "$T_TMP/run" tdat-convert -F "$expr" testdata/two-buffers.dat
	t_assert "filter '$expr': a usage error that names the ','" \
		eval '((RC == 2)) && grep -q "a .,. after the .:." "$T_TMP/run.stderr"'
done
run_lim "$T_TMP/run" tdat-convert -F 'sched_switch:(prev_pid == 0 || prev_prio < 100) && next_pid != 1' \
	-o /dev/null testdata/two-buffers.dat
t_assert "comparisons in groups joined by && and || are still accepted" test "$RC" = 0

diag "damaged inputs: $((full + partial + refused)): full $full, partial $partial, refused $refused"
diag "worst time: ${worst_t} ms ($worst_t_what)"
diag "peak RSS: ${peak_kb} KB ($peak_what)${ASAN:+ (ASan build)}"
t_assert "every input was classified" test $((full + partial + refused)) -ge 40
done_testing
