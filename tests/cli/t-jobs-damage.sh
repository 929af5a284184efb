#!/usr/bin/env bash
# t-jobs-damage.sh: -j N on damaged input gives what -j 1 does (issue 44,
# point 2): copies of v6, v7-zstd, v7-none, chunks and two-buffers with 3 x 64
# pseudo-random bytes written into their CPU data (damage-cpu.py, fixed
# seeds), read in windows of a page or chunk each (jobs-lib.sh), in text,
# csv, json, sqlite and parquet: at -j 2, 3 and 8 the same output bytes, the
# same messages (every damaged region named once, the same sizes) and the
# same exit status as -j 1, which names the damage and exits 1.
# Before: the caller that reads on alone after a cut (a damaged page's times
# go back) named the regions of the pages it went back to again ("5 regions,
# 7060 bytes" for -j 1's "4 regions, 4624 bytes"), parquet's trace.json lost
# the first window's damaged_bytes and counted undecompressable chunks in
# uncompressed_bytes; and a record too short for a type id made every format
# but text stop with "out of memory", writing nothing.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
. "$TOP_SRCDIR/tests/cli/jobs-lib.sh"
TD=testdata
JOBS="2 3 8"
mkdir -p "$O/d"

# damaged FILE: -j 1 reads it in part: exit 1, the damage named, an output
# written (ARGS before FILE: the format).  Its output in $O/so1, its messages
# in $O/err1 and its status in D_RC, as same_out's -j 1 (the same command):
# same_out with SO_MADE=1 compares -j N with them, not with a run of its own;
# and same with SAME_MADE=1 (text, csv and json: -j 1 writes to -o FILE the
# bytes and messages it writes to stdout), once so1 is moved to out1
damaged() {
	local name=$1 rc
	shift
	rm -rf "$O/so1"
	tdat-convert -j 1 "$@" -o "$O/so1" 2>"$O/err1"
	rc=$?
	D_RC=$rc
	if [[ $rc != 1 ]]; then
		not_ok "$name: -j 1 exits 1" "exit $rc"
	elif ! grep -q '^tdat-convert: damaged input: [0-9]* regions*,' "$O/err1"; then
		not_ok "$name: -j 1 names the damage" "$(head -n 3 "$O/err1")"
	elif [[ ! -s $O/so1 ]]; then
		not_ok "$name: -j 1 writes what it read" "no output: $(grep -v skipped "$O/err1" | head -n 2)"
	else
		ok "$name: -j 1 exits 1, names the damage, writes an output"
	fi
}

# as_out1: damaged's -j 1 output as same's (empty when it wrote none)
as_out1() {
	rm -f "$O/out1"
	mv "$O/so1" "$O/out1" 2>/dev/null || : >"$O/out1"
}

# one FILE [WHOLE]: every format at every -j (-j 2's workers read a window
# or more: after one whose times go back, the caller reads on alone;
# WHOLE: a file of a chunk a CPU, read in one window by the caller)
one() {
	local f=$1 n=${1##*/} w
	w=$(nwindows "$f")
	if [[ -n ${2-} ]]; then
		t_assert "$n: one window, read by the caller" test "$w" -eq 0
	else
		t_assert "$n: -j 2's workers read $w time windows" test "$w" -gt 0
	fi
	damaged "$n text" "$f"
	as_out1
	SAME_MADE=1 SAME_RC=$D_RC same "$n text" "$f"
	for fmt in csv json; do
		damaged "$n $fmt" -f $fmt "$f"
		as_out1
		SAME_MADE=1 SAME_RC=$D_RC same "$n $fmt" -f $fmt "$f"
	done
	for fmt in sqlite parquet; do
		damaged "$n $fmt" -f $fmt "$f"
		SO_MADE=1 SO_RC=$D_RC same_out "$n $fmt" -f $fmt "$f"
	done
}

# v7-zstd and two-buffers hold a chunk a CPU: one window; their v6 copies
# are cut at every page
for src in v7-zstd two-buffers; do
	tdat-convert -f dat --file-version 6 -o "$O/$src-v6.dat" "$TD/$src.dat"
	windows "$src-v6.dat" "$O/$src-v6.dat"
done
# seeds: each damages pages or chunks that the windows cut (on v6 and
# v7-none every one of these differed at -j 2 before); chunks.dat seed 6:
# chunks that do not decompress.  The copies made by one python3.
SRCS="$TD/v6 $TD/v7-zstd $O/v7-zstd-v6 $TD/v7-none $TD/chunks $TD/two-buffers $O/two-buffers-v6"
copies=()
for src in $SRCS; do
	for seed in 1 2; do
		copies+=("$src.dat" "$O/d/${src##*/}-$seed.dat" "$seed")
	done
done
copies+=($TD/chunks.dat "$O/d/chunks-6.dat" 6)
python3 "$TOP_SRCDIR/tests/cli/damage-cpu.py" --each "${copies[@]}"
for src in $SRCS; do
	for seed in 1 2; do
		whole=
		[[ $src == "$TD/v7-zstd" || $src == "$TD/two-buffers" ]] && whole=1
		one "$O/d/${src##*/}-$seed.dat" $whole
	done
done
# chunks.dat seed 6 in windows of a chunk
one "$O/d/chunks-6.dat"

# a record too short to hold a type id (type_len 0, length 4; trace-cmd
# prints an unknown event): every format writes the rest, at every -j
python3 - $TD/v6.dat "$O/d/short.dat" <<'PY'
import json, struct, subprocess, sys
src, dst = sys.argv[1:]
info = json.loads(subprocess.check_output(['tdat-info', '--json', src]))
off = info['buffers'][0]['cpus'][0]['offset'] + 2 * 4096 + 16	# page 2's first record
data = bytearray(open(src, 'rb').read())
w = struct.unpack_from('<I', data, off)[0]
struct.pack_into('<II', data, off, w & ~0x1f, 4)
open(dst, 'wb').write(data)
PY
one "$O/d/short.dat"
t_assert "short.dat: the short record is named as damage" \
	grep -q "short.dat: events of a type the file has no format for, written undecoded (offset [0-9]*, cpu 0): 8 bytes" "$O/err1"

done_testing
