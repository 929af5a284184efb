#!/usr/bin/env bash
# t-outsafe.sh: output safety.  A full disk (/dev/full, a tiny tmpfs when we
# may mount one), a failing disk (EIO reading the input or writing the
# output, injected by tests/eio.so), a reader that goes away (| head),
# Ctrl-C and SIGTERM in the middle of a conversion, and -o naming an input
# each end with a clear message (quietly for a closed pipe), the right
# status and no partial or temporary file.
#
# Chosen behaviour for a closed pipe: SIGPIPE is left at its default, so
# `tdat-convert big | head -1` dies by SIGPIPE (status 141) and prints
# nothing; when SIGPIPE is ignored by the caller, the failed write (EPIPE)
# ends the same way, quietly.  SIGINT/SIGTERM remove the unfinished output,
# say so on stderr, and die by the signal (status 130/143 in a shell).
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
T_TIMEOUT=60
OUT=$T_TMP/out
mkdir -p "$OUT"

# ---- a full disk ----
# As root, the device nodes are made in the scratch directory: a tool that
# renamed a temporary file over its output would replace the system's
# /dev/full or /dev/null (as happened before devices were written in place).
FULL=/dev/full NULL=/dev/null
if [[ $(id -u) == 0 ]] && mknod "$T_TMP/full" c 1 7 2>/dev/null && mknod "$T_TMP/null" c 1 3 2>/dev/null; then
	FULL=$T_TMP/full NULL=$T_TMP/null
fi
for fmt in text csv json dat; do
	t_exit "-o $FULL ($fmt) fails" 1 -- tdat-convert -f $fmt -o "$FULL" testdata/markers.dat
	t_stderr_match "-o $FULL ($fmt): the message says the disk is full" \
		"^tdat-convert: $FULL: .*No space left on device"
	t_assert "$FULL is still a character device" test -c "$FULL"
done
t_exit "stdout on /dev/full fails" 1 --stdin /dev/null -- sh -c 'exec tdat-convert testdata/markers.dat >/dev/full'
t_stderr_match "and says so" "No space left on device"
t_exit "sqlite cannot be written to a device" 1 -- tdat-convert -f sqlite -o "$FULL" testdata/markers.dat
t_stderr_match "and says why" "$FULL: not a regular file"
t_assert "and the device is still there" test -c "$FULL"
t_exit "-o $NULL works" 0 -- tdat-convert -o "$NULL" testdata/markers.dat
t_assert "$NULL is still a character device" test -c "$NULL"
t_exit "tdat-filter -o $NULL works" 0 -- tdat-filter -o "$NULL" testdata/markers.dat
t_assert "$NULL is still a character device" test -c "$NULL"

# a tiny tmpfs: ENOSPC in the middle of the output (root only)
MNT=$T_TMP/tiny
mkdir -p "$MNT"
if [[ $(id -u) == 0 ]] && mount -t tmpfs -o size=64k tdat-tiny "$MNT" 2>/dev/null; then
	trap 'umount "$MNT" 2>/dev/null; _t_at_exit' EXIT
	for fmt in text csv json sqlite dat; do
		t_exit "tiny tmpfs: -f $fmt fails" 1 -- tdat-convert -f $fmt -o "$MNT/out.$fmt" testdata/v7-zstd.dat
		t_stderr_match "tiny tmpfs: -f $fmt: the message names the file and the reason" \
			"^tdat-convert: $MNT/out.$fmt: .*(No space left on device|disk is full)"
		t_empty_dir "tiny tmpfs: -f $fmt: nothing left behind" "$MNT"
	done
	t_exit "tiny tmpfs: --split-by-event fails" 1 -- \
		tdat-convert -f csv --split-by-event -o "$MNT/split" testdata/v7-zstd.dat
	t_empty_dir "tiny tmpfs: no directory left behind" "$MNT"
	t_exit "tiny tmpfs as TMPDIR: a pipe on stdin cannot be spooled" 1 -- bash -c \
		'cat testdata/v7-zstd.dat | TMPDIR="$1" tdat-convert -o "$2" -' sh "$MNT" "$OUT/x.txt"
	t_stderr_match "and the message says so" "the temporary copy in .* would fill its file system"
	t_empty_dir "tiny tmpfs as TMPDIR: nothing left behind" "$MNT"
	t_empty_dir "and no output file" "$OUT"
	umount "$MNT"
	trap _t_at_exit EXIT
else
	skip "tiny tmpfs: ENOSPC" "not root, or mount refused"
fi

# ---- a failing disk (EIO) ----
# tests/eio.so (tests/eio.c), preloaded, makes reads of a bad spot of the
# input, or writes to the output past some bytes, fail with EIO.  Both end
# like a full disk: status 1, `prog: FILE: ...: Input/output error` naming
# the file that failed, and nothing left behind.  A read error is not
# damage: nothing is recovered around it.  In a sanitizer build the ASan
# runtime must come before it in LD_PRELOAD.
EIO_SO=${EIO_SO:-$BIN/../tests/eio.so}
asan=$(ldd "$BIN/tdat-convert" 2>/dev/null | awk '/libasan/ { print $3 }')
EIO=(env LD_PRELOAD="${asan:+$asan:}$EIO_SO")
if [[ -f $EIO_SO ]]; then
	# v7-zstd.dat: metadata from 0 (event formats at 2063), CPU 0's one zstd
	# chunk at 1024004 (8284 bytes), CPU 1's at 1036292, options at the end
	for spot in 1030000-1030001:"CPU data" 3000-3001:metadata; do
		for fmt in text dat sqlite; do
			rm -rf "$OUT" && mkdir -p "$OUT"
			t_exit "EIO reading ${spot#*:} (-f $fmt) fails" 1 -- "${EIO[@]}" \
				TDAT_EIO_READ=/v7-zstd.dat:${spot%%:*} tdat-convert -f $fmt -o "$OUT/o.$fmt" testdata/v7-zstd.dat
			t_stderr_match "EIO reading ${spot#*:} (-f $fmt): the message names the input and the reason" \
				"^tdat-convert: testdata/v7-zstd.dat: read error at offset [0-9]+: Input/output error$"
			t_empty_dir "EIO reading ${spot#*:} (-f $fmt): nothing left behind" "$OUT"
		done
	done
	rm -rf "$OUT" && mkdir -p "$OUT"
	# uncompressed pages (v6.dat: CPU 0 at 229376, 45056 bytes)
	t_exit "EIO reading v6 pages fails" 1 -- "${EIO[@]}" \
		TDAT_EIO_READ=/v6.dat:240000-240001 tdat-convert -f csv -o "$OUT/o.csv" testdata/v6.dat
	t_stderr_match "EIO reading v6 pages: the message names the input and the reason" \
		"^tdat-convert: testdata/v6.dat: read error at offset [0-9]+: Input/output error$"
	t_empty_dir "EIO reading v6 pages: nothing left behind" "$OUT"
	# A spot that reads once, then fails: -f dat copies the compressed
	# metadata as it is, reading it a second time while writing (offset 53:
	# read at open by the 4 KiB windows at 10 and 37, then by the copy).
	rm -rf "$OUT" && mkdir -p "$OUT"
	t_exit "EIO copying the metadata (-f dat) fails" 1 -- "${EIO[@]}" TDAT_EIO_READ_SKIP=2 \
		TDAT_EIO_READ=/v7-zstd.dat:53-54 tdat-convert -f dat -o "$OUT/o.dat" testdata/v7-zstd.dat
	t_stderr_match "EIO copying the metadata: the message names the input too" \
		"^tdat-convert: $OUT/o.dat: copying metadata from testdata/v7-zstd.dat: read error at offset 53: Input/output error$"
	t_empty_dir "EIO copying the metadata: nothing left behind" "$OUT"
	rm -rf "$OUT" && mkdir -p "$OUT"
	t_exit "EIO reading for tdat-split fails" 1 -- "${EIO[@]}" \
		TDAT_EIO_READ=/v7-zstd.dat:1040000-1040001 tdat-split --per-cpu -o "$OUT/p" testdata/v7-zstd.dat
	t_stderr_match "EIO reading for tdat-split: the message names the input and the reason" \
		"^tdat-split: testdata/v7-zstd.dat: read error at offset [0-9]+: Input/output error$"
	t_empty_dir "EIO reading for tdat-split: no piece left behind" "$OUT"

	# writes: the output (through its temporary name) fails after 4096 bytes
	for fmt in text csv json dat sqlite; do
		rm -rf "$OUT" && mkdir -p "$OUT"
		t_exit "EIO writing -f $fmt fails" 1 -- "${EIO[@]}" \
			TDAT_EIO_WRITE="$OUT/o.$fmt:4096" tdat-convert -f $fmt -o "$OUT/o.$fmt" testdata/v7-zstd.dat
		t_stderr_match "EIO writing -f $fmt: the message names the output and the reason" \
			"^tdat-convert: $OUT/o.$fmt: .*Input/output error$"
		t_empty_dir "EIO writing -f $fmt: no output and no temporary file" "$OUT"
	done
	rm -rf "$OUT" && mkdir -p "$OUT"
	t_exit "EIO writing --split-by-event fails" 1 -- "${EIO[@]}" \
		TDAT_EIO_WRITE="$OUT/d:4096" tdat-convert -f csv --split-by-event -o "$OUT/d" testdata/v7-zstd.dat
	t_stderr_match "EIO writing --split-by-event: the message names the file and the reason" \
		"^tdat-convert: $OUT/d: [a-z_]+\.[a-z_]+\.csv: Input/output error$"
	t_empty_dir "EIO writing --split-by-event: no directory left behind" "$OUT"
	rm -rf "$OUT" && mkdir -p "$OUT"
	# the second piece fails: the first, finished, is removed too
	t_exit "EIO writing tdat-split's second piece fails" 1 -- "${EIO[@]}" \
		TDAT_EIO_WRITE="$OUT/p.0002.dat:4096" tdat-split --events 5000 -o "$OUT/p" testdata/chunks.dat
	t_stderr_match "EIO writing a piece: the message names it and the reason" \
		"^tdat-split: $OUT/p.0002.dat: write error: Input/output error$"
	t_empty_dir "EIO writing a piece: no piece left behind" "$OUT"
else
	skip "EIO" "$EIO_SO not built (make check builds it)"
fi

# ---- a reader that goes away ----
t_run "| head -1" -- bash -c 'set -o pipefail; tdat-convert testdata/v7-zstd.dat | head -1'
t_assert "| head -1: the first line came out" grep -q '^cpus=2$' "$T_OUT"
t_assert "| head -1: ended by SIGPIPE (141)" test "$T_RC" = 141
t_assert "| head -1: nothing on stderr" test ! -s "$T_ERR"
t_run "| head -1, SIGPIPE ignored" -- bash -c 'trap "" PIPE; set -o pipefail; tdat-convert -f csv testdata/v7-zstd.dat | head -1'
t_assert "SIGPIPE ignored: the same status" test "$T_RC" = 141
t_assert "SIGPIPE ignored: nothing on stderr" test ! -s "$T_ERR"
t_run "tdat-filter | head -c 100" -- bash -c 'set -o pipefail; tdat-filter testdata/v7-zstd.dat | head -c 100 >/dev/null'
t_assert "tdat-filter | head: SIGPIPE, quietly" test "$T_RC" = 141 -a ! -s "$T_ERR"
# -j 2: json's output is written on a thread of its own (sink-behind.c;
# chunks.dat's is 3.6 MB, more than its buffer): the same ends
t_run "-j 2 -f json | head -1" -- bash -c 'set -o pipefail; tdat-convert -j 2 -f json testdata/chunks.dat | head -1'
t_assert "-j 2 -f json | head -1: the first line came out" grep -q '^{"traceEvents":\[$' "$T_OUT"
t_assert "-j 2 -f json | head -1: SIGPIPE (141), quietly" test "$T_RC" = 141 -a ! -s "$T_ERR"
t_run "-j 2 -f json | head -1, SIGPIPE ignored" -- \
	bash -c 'trap "" PIPE; set -o pipefail; tdat-convert -j 2 -f json testdata/chunks.dat | head -1'
t_assert "-j 2 -f json, SIGPIPE ignored: the same status, quietly" test "$T_RC" = 141 -a ! -s "$T_ERR"

# ---- Ctrl-C and SIGTERM in the middle ----
# 40 copies of chunks.dat merged: about 1.2 million events, seconds of work
# (-f dat takes one input, too fast to interrupt).  Copies, since one file
# named twice is refused.
many=()
mkdir -p "$T_TMP/many"
for i in $(seq 40); do
	cp testdata/chunks.dat "$T_TMP/many/c$i.dat"
	many+=("$T_TMP/many/c$i.dat")
done
for sig in INT TERM; do
	for fmt in text csv sqlite; do
		rm -rf "$OUT" && mkdir -p "$OUT"
		tdat-convert -f $fmt -o "$OUT/out.$fmt" "${many[@]}" 2>"$T_TMP/sig.err" &
		pid=$!
		# wait for the temporary output to appear (at most 20 s), then signal
		for ((n = 0; n < 2000; n++)); do
			compgen -G "$OUT/out.$fmt.tmp-*" >/dev/null && break
			sleep 0.01
		done
		kill -$sig $pid 2>/dev/null
		rc=0
		wait $pid || rc=$?
		want=$((128 + $(kill -l $sig)))
		t_assert "SIG$sig during -f $fmt: the tool dies by it (status $rc, want $want)" test "$rc" = $want
		t_assert "SIG$sig during -f $fmt: a clear message" \
			grep -Eq "^tdat-convert: (interrupted|terminated); the unfinished output was removed$" "$T_TMP/sig.err"
		t_empty_dir "SIG$sig during -f $fmt: no partial and no temporary file" "$OUT"
	done
done

# ---- sqlite's index entries, their spill failing ----
# 3 copies of chunks.dat: 40,080 slices, more than a run of 8,192, so the
# slice index spills sorted runs to a temporary file (spool_new(): a deleted
# one).  With every write to a deleted file failing, that index is left to
# SQLite's CREATE INDEX at close: the same rows in every table, the seven
# indexes, PRAGMA integrity_check ok.
if [[ -f $EIO_SO ]] && command -v sqlite3 >/dev/null; then
	rm -rf "$OUT" && mkdir -p "$OUT"
	tdat-convert -f sqlite -o "$OUT/ok.db" "${many[@]:0:3}"
	t_exit "sqlite, its index spill failing: it converts" 0 -- env TDAT_EIO_WRITE='(deleted):0' \
		"${EIO[@]}" tdat-convert -f sqlite -o "$OUT/spill.db" "${many[@]:0:3}"
	t_assert "the slice index is SQLite's: its schema row comes after the views'" test \
		"$(sqlite3 "$OUT/spill.db" "SELECT (SELECT rowid FROM sqlite_schema WHERE name = 'slice_track_ts') >
			(SELECT rowid FROM sqlite_schema WHERE name = 'raw')")" = 1
	t_assert "and in the file written without failures it comes before them" test \
		"$(sqlite3 "$OUT/ok.db" "SELECT (SELECT rowid FROM sqlite_schema WHERE name = 'slice_track_ts') >
			(SELECT rowid FROM sqlite_schema WHERE name = 'raw')")" = 0
	is "PRAGMA integrity_check, and the seven indexes" \
		"$(sqlite3 "$OUT/spill.db" "PRAGMA integrity_check; SELECT count(*) FROM sqlite_schema WHERE type = 'index'")" \
		"$(printf 'ok\n7')"
	is "the same rows as without the failures" \
		"$(printf '%s\t%s\n' "$OUT/ok.db" "$OUT/spill.db" | python3 tests/cli/sqlite-same.py '')" same
	# a spilled run that cannot be read back fails the file
	rm -rf "$OUT" && mkdir -p "$OUT"
	t_exit "sqlite, its index spill unreadable: fails" 1 -- env TDAT_EIO_READ='(deleted):0' \
		"${EIO[@]}" tdat-convert -f sqlite -o "$OUT/bad.db" "${many[@]:0:3}"
	t_stderr_match "and says which index and why" \
		"^tdat-convert: $OUT/bad.db: a temporary file for index slice_track_ts: Input/output error$"
	t_empty_dir "and leaves nothing" "$OUT"
else
	skip "sqlite, its index spill failing" "no tests/eio.so or no sqlite3"
fi

# ---- the output's mode follows the umask, like any file a program creates ----
for mask in 022 077; do
	want=$(printf '%o' $((0666 & ~8#$mask)))
	rm -rf "$OUT" && mkdir -p "$OUT"
	t_exit "umask $mask: -f dat" 0 -- bash -c "umask $mask; exec tdat-filter -o $OUT/m.dat testdata/markers.dat"
	t_assert "umask $mask: the file's mode is $want" test "$(stat -c %a "$OUT/m.dat")" = "$want"
	want=$(printf '%o' $((0777 & ~8#$mask)))
	t_exit "umask $mask: --split-by-event" 0 -- \
		bash -c "umask $mask; exec tdat-convert -f csv --split-by-event -o $OUT/d testdata/markers.dat"
	t_assert "umask $mask: the directory's mode is $want" test "$(stat -c %a "$OUT/d")" = "$want"
done

# ---- -o naming an input ----
cp testdata/markers.dat "$T_TMP/in.dat"
ln "$T_TMP/in.dat" "$T_TMP/hard.dat"
ln -s in.dat "$T_TMP/sym.dat"
for o in in.dat hard.dat sym.dat; do
	t_exit "-o $o (the input) is refused, a usage error" 2 -- tdat-convert -o "$T_TMP/$o" "$T_TMP/in.dat"
	t_stderr_match "-o $o: the message names both and says why" \
		"^tdat-convert: -o .*/$o is the input .*/in.dat: it would be overwritten"
	t_assert "-o $o: the input is untouched" cmp -s "$T_TMP/in.dat" testdata/markers.dat
done
t_exit "tdat-filter -o its second input is refused" 2 -- \
	tdat-filter -o "$T_TMP/in.dat" testdata/markers.dat "$T_TMP/in.dat"
t_assert "the input is untouched" cmp -s "$T_TMP/in.dat" testdata/markers.dat
t_assert "and no temporary file is left" test "$(ls "$T_TMP" | grep -c 'tmp-')" = 0

# ---- an output directory that does not exist ----
t_exit "-o in a missing directory" 1 -- tdat-convert -o "$T_TMP/no/such/x.txt" testdata/markers.dat
t_stderr_match "names the output and the reason" "no/such/x.txt: No such file or directory"
done_testing
