#!/usr/bin/env bash
# t-jobs-long.sh: -j N on a capture of millions of events: chunks.dat's pages
# repeated 70 times, each copy later than the one before (make-long.py), a
# v7 zstd trace.dat of two CPUs and 2.1 million events in one timeline.
# trace-cmd report prints it as tdat-convert does, and every format (text,
# text -R, csv, json, json.gz, perfetto, sqlite, typed csv, parquet, dat)
# is the same at -j 2 and 8 (text and json at -j 3 too; t-jobs.sh has every
# format at 3) as at -j 1: the same bytes, the same messages, the same exit
# status.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
O=$T_TMP
COPIES=70

tdat-convert -f dat --file-version 6 -o "$O/c6.dat" testdata/chunks.dat &&
	python3 tests/cli/make-long.py $COPIES "$O/c6.dat" "$O/long6.dat" &&
	tdat-convert -f dat -o "$O/long.dat" "$O/long6.dat"
t_assert "the long capture is made" test -s "$O/long.dat"
rm -f "$O/long6.dat"
L=$O/long.dat
events() { tdat-info --json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])'; }
n1=$(events testdata/chunks.dat)
n=$(events "$L")
t_assert "it holds $COPIES times chunks.dat's $n1 events ($n)" test "$n" = $((COPIES * n1))
t_assert "over two million events" test "$n" -gt 2000000

# digest CMD...: the CRC and size of CMD's standard output (cksum), its exit
# status and the md5 of its messages
digest() {
	local st
	"$@" 2>"$O/err" | cksum
	st=${PIPESTATUS[0]}
	echo "exit $st $(md5sum <"$O/err" | cut -c1-32)"
}
# tree_digest DIR_OR_FILE: the md5 of every file under it, by name
tree_digest() {
	(cd "$1" 2>/dev/null && find . -type f | LC_ALL=C sort | xargs md5sum) ||
		md5sum <"$1"
}

# with_md5 FILE CMD...: CMD, its output passed on and its md5 written to
# FILE (through a fifo: the output is over 100 MB); CMD's exit status
with_md5() {
	local f=$1 st m
	shift
	rm -f "$f.fifo"
	mkfifo "$f.fifo" || return 99
	md5sum <"$f.fifo" >"$f" &
	m=$!
	"$@" | tee "$f.fifo"
	st=${PIPESTATUS[0]}
	wait $m
	rm -f "$f.fifo"
	return $st
}
# the -j 1 text, made once (2.1 million events): trace-cmd report is
# compared with its md5, and same_stream "text" -j 2, 3 and 8 with its digest
text1=$(digest with_md5 "$O/text1.md5" tdat-convert -j 1 -f text "$L")
if have_trace_cmd; then
	t_assert "trace-cmd report prints the long capture as tdat-convert -j 1 does" \
		test "$("$TRACE_CMD" report "$L" 2>/dev/null | md5sum)" = "$(cat "$O/text1.md5")"
else
	skip "trace-cmd report prints the long capture as tdat-convert" "trace-cmd is not installed"
fi

# same_stream NAME ARGS...: tdat-convert ARGS to stdout at -j 1 and at each
# N of $JOBS (2, 8 unless set); REF=DIGEST: the -j 1 run made already, by
# the same command, its digest DIGEST
same_stream() {
	local name=$1 j ref=${REF-} got
	shift
	[[ -n $ref ]] || ref=$(digest tdat-convert -j 1 "$@" "$L")
	t_assert "long: $name -j 1 prints over 10 MB, exit 0 ($(echo $ref))" \
		test "$(echo $ref | cut -d' ' -f2)" -gt 10000000 -a "$(echo $ref | cut -d' ' -f4)" = 0
	for j in ${JOBS:-2 8}; do
		got=$(digest tdat-convert -j $j "$@" "$L")
		is "long: $name -j $j as -j 1" "$got" "$ref"
	done
}
# same_file NAME OUT ARGS...: tdat-convert ARGS -o $O/OUT at -j 1, 2, 8
same_file() {
	local name=$1 out=$O/$2 j ref got st
	shift 2
	for j in 1 2 8; do
		rm -rf "$out"
		tdat-convert -j $j "$@" -o "$out" "$L" 2>"$O/err"
		st=$?
		got="exit $st $(md5sum <"$O/err") $(tree_digest "$out" | md5sum)"
		if ((j == 1)); then
			ref=$got
			t_assert "long: $name -j 1 writes its output (exit $st)" test -e "$out" -a "$st" = 0
		else
			is "long: $name -j $j as -j 1" "$got" "$ref"
		fi
	done
	rm -rf "$out"
}

REF=$text1 JOBS="2 3 8" same_stream "text" -f text
same_stream "text -R" -R
same_stream "csv" -f csv
JOBS="2 3 8" same_stream "json" -f json
same_stream "perfetto" -f perfetto
same_file "json.gz" x.json.gz
same_file "sqlite" x.db -f sqlite
same_file "typed csv" csvdir -f csv --split-by-event
same_file "parquet" pq -f parquet
same_file "dat" x.dat -f dat
# a late window (--start at 3/4 of the timeline, --end at 7/8): the same at
# -j 2 and 8, and -j 2 reads the file about as -j 1 does: the workers start
# where the caller's seek put its cursors and the plan samples from there
# (a worker walked every chunk header again, and the plan sampled from the
# first chunk: 2.0x -j 1's bytes here)
read -r t0 t1 < <(tdat-info --json "$L" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["first_ts"], d["last_ts"])')
a=$((t0 + (t1 - t0) * 3 / 4)) b=$((t0 + (t1 - t0) * 7 / 8))
same_stream "csv --start 3/4 --end 7/8" -f csv --start "${a}ns" --end "${b}ns"
same_file "dat --start 3/4 --end 7/8" w.dat -f dat --start "${a}ns" --end "${b}ns"
if command -v strace >/dev/null; then
	for j in 1 2; do
		strace -f -qq -e trace=pread64 -o "$O/st$j" tdat-convert -j $j -f csv --start "${a}ns" \
			--end "${b}ns" -o /dev/null "$L"
		read_bytes[j]=$(grep -oE '= [0-9]+$' "$O/st$j" | awk '{ s += $2 } END { print s + 0 }')
	done
	t_assert "a late window: -j 2 reads ${read_bytes[2]} bytes, at most 1.5 times -j 1's ${read_bytes[1]}" \
		test "$((read_bytes[2] * 2))" -le "$((read_bytes[1] * 3))"
else
	skip "a late window: -j 2 reads the file about as -j 1 does" "strace is not installed"
fi
done_testing
