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
files=(testdata/*.dat testdata/bad/*.dat testdata/bad/gen/*.dat testdata/bad/fuzz/*.dat tests/fuzz/corpus/*/*)
t_assert "there are inputs to replay" test "${#files[@]}" -gt 40
for f in "${files[@]}"; do
	t_exit "replay $f" 0 -- "$REPLAY" "$f"
	t_assert "$f went through all four targets" test "$(grep -c ': done$' "$T_OUT")" = 4
done
t_exit "an unknown target is refused" 2 -- "$REPLAY" -t bogus testdata/markers.dat
t_exit "an unreadable input is an error" 1 -- "$REPLAY" testdata/no-such.dat
done_testing
