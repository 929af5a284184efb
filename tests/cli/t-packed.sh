#!/usr/bin/env bash
# t-packed.sh: a trace.dat compressed as a whole (.dat.gz, .dat.zst, .dat.xz,
# made here by Debian's gzip, zstd and xz) is an input to every tool, from a
# file and from a pipe, known by its magic (not its name): the output is
# byte for byte that of the trace.dat it holds (text, csv at -j 1 and -j 3,
# a --start/--end window, tdat-info, tdat-split's pieces, tdat-merge's
# buffer names).  Multi-member gzip, multi-frame zstd with a skippable frame
# (pzstd's) and concatenated xz streams read as one.  A stream cut short, a
# flipped byte, a compressed file that holds no trace.dat and formats tdat
# does not read fail with exit 1 and a message naming the file, the format
# and what failed.  The temporary copy stops before it fills its file
# system (a 256 KiB tmpfs, mounted in a namespace of our own: SKIP if not).
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
for z in gzip zstd xz; do
	command -v "$z" >/dev/null || skip_all "$z is not installed (Debian $z, xz-utils)"
done
TD=testdata
W=$T_TMP

declare -A ZCMD=([gz]="gzip -c" [zst]="zstd -q -c" [xz]="xz -c")
declare -A ZNAME=([gz]=gzip [zst]=zstd [xz]=xz)

# same NAME WANT_FILE [--stdin FILE] -- CMD...: CMD exits 0 and prints WANT_FILE's bytes
same() {
	local name=$1 want=$2
	shift 2
	t_run "$name" "$@"
	if ((T_RC == 0)) && cmp -s "$T_OUT" "$want"; then
		ok "$name"
	else
		not_ok "$name" "exit $T_RC" "$(head -n 3 "$T_ERR")" "$(cmp "$T_OUT" "$want" 2>&1)"
	fi
}

for dat in v7-zstd chunks; do
	tdat-convert "$TD/$dat.dat" >"$W/$dat.txt"
	tdat-convert -j 1 -f csv "$TD/$dat.dat" >"$W/$dat.csv"
	tdat-convert --start +0.1s --end +0.2s "$TD/$dat.dat" >"$W/$dat.win"
	tdat-info "$TD/$dat.dat" | sed 1,2d >"$W/$dat.info"
	for x in gz zst xz; do
		f=$W/$dat.dat.$x
		${ZCMD[$x]} "$TD/$dat.dat" >"$f"
		same "$dat.dat.$x: text as the trace.dat's" "$W/$dat.txt" -- tdat-convert "$f"
		same "$dat.dat.$x from a pipe: the same" "$W/$dat.txt" --stdin "$f" -- tdat-convert -
		same "$dat.dat.$x: csv at -j 3 as -j 1's of the trace.dat" "$W/$dat.csv" -- \
			tdat-convert -j 3 -f csv "$f"
		same "$dat.dat.$x: a --start/--end window" "$W/$dat.win" -- \
			tdat-convert --start +0.1s --end +0.2s "$f"
		t_run "$dat.dat.$x: tdat-info" -- tdat-info "$f"
		is "$dat.dat.$x: tdat-info as the trace.dat's" "$(sed 1,2d "$T_OUT")" "$(cat "$W/$dat.info")"
		is "$dat.dat.$x: tdat-info says it is ${ZNAME[$x]}-compressed" "$(sed -n 2p "$T_OUT")" \
			"size:          $(stat -c %s "$TD/$dat.dat") bytes (${ZNAME[$x]}-compressed: $(stat -c %s "$f") bytes)"
	done
done

# a name that says nothing: the magic decides
cp "$W/chunks.dat.xz" "$W/noext"
same "a name without an extension: read by its magic" "$W/chunks.txt" -- tdat-convert "$W/noext"
cp "$W/chunks.dat.gz" "$W/wrong.dat.xz"
same "a .xz that is gzip: read as gzip" "$W/chunks.txt" -- tdat-convert "$W/wrong.dat.xz"

# tdat-filter, tdat-merge, tdat-split
same "tdat-filter of a .dat.zst: the events a trace.dat gives" "$W/chunks.txt" -- \
	sh -c "tdat-filter -o '$W/f.dat' '$W/chunks.dat.zst' && tdat-convert '$W/f.dat'"
t_exit "tdat-merge of a .dat.gz and a .dat.xz" 0 -- tdat-merge -o "$W/m.dat" "$W/v7-zstd.dat.gz" "$W/chunks.dat.xz"
t_run "its buffers" -- tdat-info --json "$W/m.dat"
is "its buffers are named after the inputs without .dat.gz and .dat.xz" \
	"$(grep -o '"name":"[a-z0-9-]*"' "$T_OUT" | sort -u | tr '\n' ' ')" \
	'"name":"chunks" "name":"v7-zstd" '
tdat-merge -o "$W/m0.dat" "$TD/v7-zstd.dat" "$TD/chunks.dat"
t_assert "and it equals the merge of the trace.dat files" cmp -s "$W/m.dat" "$W/m0.dat"
mkdir "$W/sp" "$W/sp0"
t_exit "tdat-split of a .dat.xz" 0 -- tdat-split --every 100ms -o "$W/sp/x" "$W/v7-zstd.dat.xz"
tdat-split --every 100ms -o "$W/sp0/x" "$TD/v7-zstd.dat"
# the pieces' split mark hashes the command line (the path): their events are compared
for p in "$W"/sp0/*.dat; do tdat-convert "$p" 2>/dev/null; done >"$W/sp0.txt"
same "its pieces hold the events of the trace.dat's ($(ls "$W/sp0" | wc -l) pieces)" "$W/sp0.txt" -- \
	sh -c 'for p in "$0"/*.dat; do tdat-convert "$p" 2>/dev/null; done' "$W/sp"

# several members, frames, streams
full=$TD/v7-zstd.dat
head -c 400000 "$full" | gzip -c >"$W/multi.gz"
tail -c +400001 "$full" | gzip -c >>"$W/multi.gz"
head -c 4 /dev/zero >>"$W/multi.gz"
same "a gzip of two members and zero padding: one trace.dat" "$W/v7-zstd.txt" -- tdat-convert "$W/multi.gz"
printf '\x50\x2a\x4d\x18\x04\x00\x00\x00abcd' >"$W/multi.zst"
head -c 400000 "$full" | zstd -q -c >>"$W/multi.zst"
tail -c +400001 "$full" | zstd -q -c >>"$W/multi.zst"
same "a zstd skippable frame, then two frames: one trace.dat" "$W/v7-zstd.txt" -- tdat-convert "$W/multi.zst"
same "the same from a pipe" "$W/v7-zstd.txt" --stdin "$W/multi.zst" -- tdat-convert
head -c 400000 "$full" | xz -c >"$W/multi.xz"
tail -c +400001 "$full" | xz -c >>"$W/multi.xz"
same "two xz streams: one trace.dat" "$W/v7-zstd.txt" -- tdat-convert "$W/multi.xz"

# bad input: exit 1, the file, the format and what failed
bad() {
	local name=$1 re=$2
	shift 2
	t_exit "$name: exit 1" 1 "$@"
	t_stderr_match "$name: says so" "$re"
	is "$name: nothing on stdout" "$(wc -c <"$T_OUT")" 0
}
for x in gz zst xz; do
	head -c 300000 "$W/v7-zstd.dat.$x" >"$W/cut.$x"
	bad "a .$x cut short" "^tdat-convert: $W/cut.$x: ${ZNAME[$x]}-compressed input: truncated \(the compressed stream ends at offset 300000" \
		-- tdat-convert "$W/cut.$x"
	bad "a .$x cut short, from a pipe" "^tdat-convert: \\(stdin\\): ${ZNAME[$x]}-compressed input: truncated" \
		--stdin "$W/cut.$x" -- tdat-convert -f csv -
	python3 -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[5000] ^= 0x55;
open(sys.argv[2], 'wb').write(d)" "$W/v7-zstd.dat.$x" "$W/flip.$x"
	bad "a .$x with a flipped byte" "^tdat-convert: $W/flip.$x: ${ZNAME[$x]}-compressed input: corrupt data \(.*\) near offset [0-9]+ of the compressed input" \
		-- tdat-convert "$W/flip.$x"
	${ZCMD[$x]} README.md >"$W/readme.$x"
	bad "a .$x of a text file" "^tdat-info: $W/readme.$x: ${ZNAME[$x]}-compressed, but what it holds is not a trace.dat" \
		-- tdat-info "$W/readme.$x"
	${ZCMD[$x]} </dev/null >"$W/empty.$x"
	bad "an empty .$x" "^tdat-convert: $W/empty.$x: ${ZNAME[$x]}-compressed, but empty" \
		-- tdat-convert "$W/empty.$x"
done
bzip2 -c "$full" >"$W/t.bz2" 2>/dev/null || printf 'BZh91AY&SY' >"$W/t.bz2"
bad "bzip2: named, not read" "^tdat-convert: $W/t.bz2: bzip2-compressed: tdat reads a trace.dat compressed with gzip, zstd or xz" \
	-- tdat-convert "$W/t.bz2"
printf '\x04\x22\x4d\x18rest' >"$W/t.lz4"
bad "lz4 from a pipe: named" "^tdat-convert: \\(stdin\\): lz4-compressed" --stdin "$W/t.lz4" -- tdat-convert -

# the copy stops before it fills its file system: a 256 KiB tmpfs of our own
mkdir "$W/small"
SMALL=(unshare -m sh -c 'mount -t tmpfs -o size=256k tdat-test "$0" && TMPDIR=$0 exec "$@"' "$W/small")
if "${SMALL[@]}" true 2>/dev/null; then
	gzip -c "$TD/v6.dat" >"$W/v6.dat.gz"
	bad "a .dat.gz larger than its tmpfs (290 KB in 256 KiB)" \
		"^tdat-convert: $W/v6.dat.gz: the temporary copy in $W/small would fill its file system \([0-9]+ MiB copied, [0-9]+ MiB free, 0 MiB kept free\): set TMPDIR to a folder with more room" \
		-- "${SMALL[@]}" tdat-convert "$W/v6.dat.gz"
	bad "a pipe larger than its tmpfs" "^tdat-convert: \\(stdin\\): the temporary copy in $W/small would fill" \
		-- "${SMALL[@]}" sh -c "cat $TD/v6.dat | tdat-convert -"
	tdat-convert "$TD/markers.dat" >"$W/markers.txt"
	gzip -c "$TD/markers.dat" >"$W/markers.dat.gz"
	same "a smaller one fits (54 KB)" "$W/markers.txt" -- "${SMALL[@]}" tdat-convert "$W/markers.dat.gz"
else
	for i in 1 2 3 4 5 6 7; do
		skip "the temporary copy in a small tmpfs ($i)" "cannot mount a tmpfs in a namespace (needs root)"
	done
fi
done_testing
