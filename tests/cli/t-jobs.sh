#!/usr/bin/env bash
# t-jobs.sh: -j N cuts the timeline into time windows that N workers each
# decode, select and format, and the caller takes them in order (text and
# csv printed by the workers, json's fields formatted by them, the other
# formats' events put by the caller).  For every capture in testdata/ (the
# damaged ones in bad/ too) and its v6 copy, in windows as small as they
# can be (a cut at every page or chunk), every text option, csv, json,
# perfetto, sqlite, typed csv, parquet and dat give at -j 2, 3 and 8 the
# same output, the same messages and the same exit status as at -j 1: text
# and json at each N (text in both report styles, lib.sh's 3.1 and 3.4); the
# other formats at one N of the three, in turn from
# one input to the next; an input read in one window (by the caller alone,
# whatever N) at -j 2.  t-jobs-cases.sh has the cases around the cuts.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
. "$TOP_SRCDIR/tests/cli/jobs-lib.sh"
TD=testdata

mkdir -p "$O/v6"
turn=0
declare -A nw	# nwindows of each input, for the checks at the end
for dat in $TD/*.dat $TD/sym/*.dat $TD/bad/*.dat; do
	f=${dat#"$TD"/}
	v6=$O/v6/${f//\//_}
	tdat-convert -f dat --file-version 6 -o "$v6" "$dat" 2>/dev/null || rm -f "$v6"
	for in in "$dat" "$v6"; do
		[[ -s $in ]] || continue
		[[ $in == "$v6" ]] && f="$f (v6)"
		n=$(nwindows "$in")
		nw[$in]=$n
		if ((n > 1)); then
			all="2 3 8" one=$(set -- 2 3 8; shift $((turn++ % 3)); echo $1)
		else
			all=2 one=2
		fi
		JOBS=$all same "$f text" "$in"
		JOBS=$all same "$f text, 3.4 style" --report-style 3.4 "$in"
		JOBS=$all same "$f json" -f json "$in"
		[[ $f == bad/* ]] && continue
		JOBS=$one same "$f text -t" -t "$in"
		JOBS=$one same "$f text -R" -R "$in"
		JOBS=$one same "$f text -t, 3.4 style" --report-style 3.4 -t "$in"
		JOBS=$one same "$f text -R, 3.4 style" --report-style 3.4 -R "$in"
		JOBS=$one same "$f csv" -f csv "$in"
		JOBS=$one same "$f perfetto" -f perfetto "$in"
		JOBS=$one same_out "$f sqlite" -f sqlite "$in"
		JOBS=$one same_out "$f typed csv" -f csv --split-by-event "$in"
		JOBS=$one same_out "$f parquet" -f parquet "$in"
		JOBS=$one same_out "$f dat" -f dat "$in"
	done
done
# the cuts are real: the v6 copies of the captures with most to get right
# (lost events, a stack's words past its record, two buffers, markers,
# non-ns clocks) are read in many windows (as jobs-lib.sh's windows: -j 2
# --verbose, run in the loop above)
for f in lost-events stack two-buffers markers clock-x86-tsc clock-counter chunks v6; do
	n=${nw[$O/v6/$f.dat]:-0}
	t_assert "$f.dat (v6): -j 2 reads it in $n time windows" test "$n" -gt 1
done
n=${nw[$TD/chunks.dat]:-0}
t_assert "chunks.dat (v7, a window a chunk): -j 2 reads it in $n time windows" test "$n" -gt 1

done_testing
