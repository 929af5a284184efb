#!/usr/bin/env bash
# t-jobs-cases.sh: -j N around the cuts between its time windows (see
# t-jobs.sh; windows of a page or chunk each): times that go back across a
# cut (the caller reads on alone, as where a record's raw fields would change
# how later ones print), stack traces whose event a selection
# decides in the window before, damaged chunks between cuts, merged files
# of many buffers and several inputs (many blocks on a ring that wraps),
# a full disk, typed csv's files named in order, standard input, a
# selection, --lenient, parquet, tdat-split, gzip and perfetto's zlib give at -j 2, 3 and 8
# what -j 1 does; and the workers are threads that do run.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
. "$TOP_SRCDIR/tests/cli/jobs-lib.sh"
TD=testdata
mkdir -p "$O/v6"
for f in chunks stack; do
	tdat-convert -f dat --file-version 6 -o "$O/v6/$f.dat" $TD/$f.dat
done

# names learnt from events (testdata/names/nocmdlines.dat: v6.dat without its
# saved cmdlines): trace-cmd report names a task by the first name it printed
# for it in a sched_switch or sched_wakeup; a worker that has not printed the
# windows before its own cannot know it, and the caller puts it in: every -j
# and both styles give -j 1's text, which is trace-cmd report's.  Before, a
# worker named a task by what it had printed itself (-j 8 here: 'sh' where
# report has 'trace-cmd', a name from an earlier window; a 12-million-event
# capture gave other bytes at every run of -j 2)
N=$TD/names/nocmdlines.dat
windows "names learnt from events" "$N"
for st in 3.1 3.4; do
	TDAT_REPORT_STYLE=$st same "names learnt from events, $st style" "$N"
	TDAT_REPORT_STYLE=$st same "names learnt from events, $st style, -t" -t "$N"
done
TDAT_REPORT_STYLE=3.1 same "names learnt from events, -R" -R "$N"
TDAT_REPORT_STYLE=3.1 same "names learnt from events, a selection" -e 'sched:*' --cpu 0 "$N"
TDAT_REPORT_STYLE=3.1 same "names learnt from events, --comm (read on one thread)" --comm 'sh' "$N"
if have_trace_cmd; then
	t_assert "names learnt from events: -j 8 prints what trace-cmd report does" \
		test "$("$TRACE_CMD" report "$N" 2>/dev/null | md5sum)" = \
		"$(TDAT_REPORT_STYLE=3.1 tdat-convert -j 8 "$N" | md5sum)"
else
	skip "names learnt from events: -j 8 prints what trace-cmd report does" "no trace-cmd"
fi
if have_trace_cmd_34; then
	t_assert "names learnt from events: -j 8 prints what trace-cmd 3.4's report does" \
		test "$("$TRACE_CMD_34" report "$N" 2>/dev/null | md5sum)" = "$(TDAT_REPORT_STYLE=3.4 tdat-convert -j 8 "$N" | md5sum)"
else
	skip "names learnt from events: -j 8 prints what trace-cmd 3.4's report does" "no $TRACE_CMD_34"
fi

# times that go back: two pages of CPU 0 moved 200 ms earlier; the window
# after them does not begin where the one before ended, so the caller reads
# on alone from there: the output is still -j 1's (and trace-cmd report's)
python3 - "$O/v6/chunks.dat" "$O/back.dat" <<'PY'
import json, struct, subprocess, sys
src, dst = sys.argv[1:]
info = json.loads(subprocess.check_output(['tdat-info', '--json', src]))
off = info['buffers'][0]['cpus'][0]['offset']
data = bytearray(open(src, 'rb').read())
for k in (40, 41):
    ts = struct.unpack_from('<Q', data, off + k * 4096)[0]
    struct.pack_into('<Q', data, off + k * 4096, ts - 200000000)
open(dst, 'wb').write(data)
PY
same "times that go back text" "$O/back.dat"
same "times that go back json" -f json "$O/back.dat"
same_out "times that go back sqlite" -f sqlite "$O/back.dat"
t_assert "times that go back: the caller reads on alone from the first window that does not fit" \
	sh -c "tdat-convert -j 2 --verbose -o /dev/null '$O/back.dat' 2>&1 | grep -q 'read on one thread'"
if have_trace_cmd; then
	t_assert "times that go back: trace-cmd report prints what -j 2 does" \
		test "$("$TRACE_CMD" report "$O/back.dat" 2>/dev/null | md5sum)" = "$(tdat-convert -j 2 "$O/back.dat" | md5sum)"
else
	skip "times that go back: trace-cmd report prints what -j 2 does" "trace-cmd is not installed"
fi
# a record whose fields libtraceevent prints raw (a print format it failed,
# or -R) with a char array that is not text: it prints ARRAY[..], and so that
# field of every later record, which a worker that did not print it cannot
# know; the worker stops there and the caller reads on alone (fuzz-writers'
# input, where -j 3 differed from -j 1 in 2 to 6 runs of 20)
tail -c +2 "$TOP_SRCDIR/tests/fuzz/corpus/writers/text-jobs-sticky-array" >"$O/sticky.dat"
JOBS="3 8 3 8 3 8 3 8" same "an array printed raw that is not text" -N "$O/sticky.dat"
JOBS="3 8" same "an array printed raw that is not text, -R" -N -R "$O/sticky.dat"
t_assert "an array printed raw that is not text: the caller reads on alone from its record" \
	sh -c "tdat-convert -N -j 3 --verbose -o /dev/null '$O/sticky.dat' 2>&1 | grep -q 'read on one thread'"
# a stack trace goes with the event before it on its CPU: when that event is
# in the window before, the worker marks it and the caller decides
same "stack.dat (v6) -e sched_switch" -e sched_switch "$O/v6/stack.dat"
frames=$(grep -c '=>' "$O/out1")	# -j 1's stack frames, counted below
same "stack.dat (v6) -e sched_switch json" -f json -e sched_switch "$O/v6/stack.dat"
same "stack.dat (v6) -e sched_switch -v -F" -e sched_switch -v -F 'sched_switch:prev_pid==0' \
	"$O/v6/stack.dat"
same "stack.dat (v6) -F" -F 'sched_switch:prev_pid>100' -e sched_wakeup "$O/v6/stack.dat"
same "stack.dat (v6) --cpu 0 -R" --cpu 0 -R "$O/v6/stack.dat"
same_out "stack.dat (v6) -e sched_switch sqlite" -f sqlite -e sched_switch "$O/v6/stack.dat"
same_out "stack.dat (v6) -e sched_switch typed csv" -f csv --split-by-event -e sched_switch \
	"$O/v6/stack.dat"
# (-j 1's run of same above, not one of its own)
t_assert "stack.dat (v6) -e sched_switch: its stack traces are kept (-j 1 prints $frames frames)" \
	test "$frames" -gt 100
# windows_not_one MESSAGES: -j 2 --verbose said it read time windows, never on one thread
windows_not_one() {
	grep -q 'time windows read' <<<"$1" && ! grep -q 'one thread' <<<"$1"
}
t_assert "and -j 2 reads every window with the workers, none on one thread" \
	windows_not_one "$(tdat-convert -j 2 --verbose -e sched_switch -o /dev/null "$O/v6/stack.dat" 2>&1)"

# damage in chunks the thread reads ahead (not a CPU's first): the cursor
# reads them again itself, so -j 2 reports what -j 1 does, at the same place
chunk_at() {	# FILE CPU_OFFSET K: the offset of chunk K (from 0)
	python3 - "$@" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
off = int(sys.argv[2]) + 4
for _ in range(int(sys.argv[3])):
    off += 8 + struct.unpack_from('<I', data, off)[0]
print(off)
PY
}
cpu0=$(tdat-info --json $TD/chunks.dat | python3 -c 'import json,sys; print(json.load(sys.stdin)["buffers"][0]["cpus"][0]["offset"])')
c5=$(chunk_at $TD/chunks.dat "$cpu0" 5)
c9=$(chunk_at $TD/chunks.dat "$cpu0" 9)
cp $TD/chunks.dat "$O/zdata.dat"
printf '\377\377\377\377\377\377\377\377' | dd of="$O/zdata.dat" bs=1 seek=$((c5 + 40)) conv=notrunc 2>/dev/null
cp $TD/chunks.dat "$O/zsize.dat"
printf '\377\377\377\177' | dd of="$O/zsize.dat" bs=1 seek=$((c9 + 4)) conv=notrunc 2>/dev/null
# (-j 1's json run once: its messages checked, then same's -j 1)
for f in zdata zsize; do
	tdat-convert -j 1 -f json "$O/$f.dat" >"$O/out1" 2>"$O/err1"
	SAME_RC=$?
	t_assert "$f.dat: a damaged chunk in the middle of CPU 0 is reported" grep -q 'offset' "$O/err1"
	SAME_MADE=1 same "$f.dat json" -f json "$O/$f.dat"
	same "$f.dat text" "$O/$f.dat"
done

# many batches on a ring that wraps: eight copies of chunks.dat merged
# into one file of eight named buffers, and as eight inputs
for i in 1 2 3 4 5 6 7 8; do cp $TD/chunks.dat "$O/c$i.dat"; done
t_exit "eight copies of chunks.dat merged" 0 -- tdat-merge -o "$O/big.dat" "$O"/c[1-8].dat
same "big.dat (eight buffers) text" "$O/big.dat"
same "big.dat csv" -f csv "$O/big.dat"
# json: workers format each event's fields, the caller puts the events in order
same "big.dat json" -f json "$O/big.dat"
same "eight inputs json" -f json "$O"/c[1-8].dat
# a write that fails under -j ends the run with exit 1 and says why (json:
# on the thread that writes its output, sink-behind.c)
for f in text csv json; do
	if [[ -w /dev/full ]]; then
		t_exit "big.dat $f -j 2 on a full disk is an error" 1 -- \
			sh -c "tdat-convert -j 2 -f $f '$O/big.dat' > /dev/full"
		t_stderr_match "that says so" "standard output: write error: No space left on device"
	else
		skip "big.dat $f -j 2 on a full disk is an error" "no /dev/full"
		skip "that says so" "no /dev/full"
	fi
done
same "eight inputs text" "$O"/c[1-8].dat
# typed csv: workers print rows into memory, each piece appended to its type's file
same_out "big.dat typed csv" -f csv --split-by-event "$O/big.dat"
t_assert "big.dat typed csv: a file per type ($(ls "$O/so1" | wc -l))" test -s "$O/so1/sched.sched_switch.csv"
# a sched_switch whose field is renamed goes to sched.sched_switch.2.csv, named
# in the order types first appear, whichever thread printed their rows
# (chunks.dat as v6, whose formats are not compressed)
tdat-convert -f dat --file-version 6 -o "$O/c-v6.dat" $TD/chunks.dat
LC_ALL=C sed 's/\([ >]\)prev_pid\([;,]\)/\1prev_pie\2/g' "$O/c-v6.dat" >"$O/renamed.dat"
same_out "nine inputs typed csv" -f csv --split-by-event "$O"/c[1-8].dat "$O/renamed.dat" $TD/v6.dat
t_assert "nine inputs typed csv: the renamed field's rows in sched.sched_switch.2.csv" \
	sh -c "head -n 1 '$O/so1/sched.sched_switch.2.csv' | grep -q prev_pie &&
	       test \$(wc -l <'$O/so1/sched.sched_switch.2.csv') -gt 800"
t_assert "the eight inputs are many batches (over 200000 lines)" test "$(wc -l <"$O/out1")" -gt 200000
# sixteen copies of the small captures whose text has most to get right (a
# stack's words past its record with -R, lost-event lines, markers), merged
for f in stack lost-events markers two-buffers; do
	for i in $(seq 16); do cp $TD/$f.dat "$O/$f$i.dat"; done
	if tdat-merge -o "$O/${f}-x16.dat" $(for i in $(seq 16); do echo "$O/$f$i.dat"; done) 2>/dev/null; then
		same "$f.dat x 16 text -R" -R "$O/${f}-x16.dat"
		same "$f.dat x 16 text" "$O/${f}-x16.dat"
		same "$f.dat x 16 json" -f json "$O/${f}-x16.dat"
	else
		not_ok "$f.dat x 16: tdat-merge" "$(tdat-merge -o "$O/x.dat" "$O/$f1.dat" "$O/$f2.dat" 2>&1 | head -n 2)"
	fi
	rm -f "$O/$f"[0-9]*.dat
done
# two captures of other kernels merged: each worker's handle on an input
# names functions from that input's kallsyms (file_clone() of a view), not
# from the merged file's
if tdat-merge -o "$O/two-kernels.dat" $TD/stack.dat $TD/tc34-extract.dat 2>/dev/null; then
	same "two kernels merged, text" "$O/two-kernels.dat"
	same "two kernels merged, json" -f json "$O/two-kernels.dat"
else
	not_ok "stack.dat + tc34-extract.dat: tdat-merge" "$(tdat-merge -o "$O/x.dat" $TD/stack.dat $TD/tc34-extract.dat 2>&1 | head -n 2)"
fi
same "standard input" - <$TD/chunks.dat
same "a selection (-e, --cpu, --start)" -e 'raw_syscalls:*' --cpu 1 --start 3889.1 $TD/chunks.dat
same "--lenient on damaged data" --lenient $TD/bad/truncated-v7-data.dat

# parquet: a row group's column chunks are encoded on -j threads, written in order
for f in $TD/chunks.dat "$O/big.dat"; do
	for j in 1 2 3 8; do
		tdat-convert -j $j -f parquet -o "$O/pq$j" "$f" 2>"$O/pqerr$j"
	done
	t_assert "${f##*/} parquet: -j 2, 3, 8 write the files -j 1 does" \
		sh -c "diff -r '$O/pq1' '$O/pq2' && diff -r '$O/pq1' '$O/pq3' && diff -r '$O/pq1' '$O/pq8'"
	t_assert "${f##*/} parquet: a dataset of every type" test -s "$O/pq1/event/raw_syscalls.sys_enter.parquet"
	rm -rf "$O"/pq[1-9]
done

# tdat-split reads ahead too: the same pieces, named and marked the same
for j in 1 2 8; do
	mkdir -p "$O/split$j"
	(cd "$O/split$j" && tdat-split -j $j --events 7000 -o p "$OLDPWD/$TD/chunks.dat") 2>"$O/spliterr$j"
	echo $? >>"$O/spliterr$j"
done
t_assert "tdat-split: -j 2 and -j 8 write the pieces -j 1 does ($(ls "$O/split1" | wc -l) pieces)" \
	sh -c "test -s '$O/split1/p.0005.dat' && diff -r '$O/split1' '$O/split2' && diff -r '$O/split1' '$O/split8' &&
	       cmp -s '$O/spliterr1' '$O/spliterr2' && cmp -s '$O/spliterr1' '$O/spliterr8'"

for j in 1 2 8; do
	t_exit "-j $j -o x.txt.gz" 0 -- tdat-convert -j $j -o "$O/x$j.txt.gz" $TD/chunks.dat
done
t_assert "gzip: -j 2 and -j 8 write the file -j 1 does" \
	sh -c "cmp -s '$O/x1.txt.gz' '$O/x2.txt.gz' && cmp -s '$O/x1.txt.gz' '$O/x8.txt.gz'"
t_assert "which is the text" cmp -s <(gzip -dc "$O/x2.txt.gz") <(tdat-convert $TD/chunks.dat)

# perfetto --compression zlib: batches deflated on the workers, written in
# order; chunks.dat's pages 4 times over make several batches (512 KiB each)
tdat-convert -f dat --file-version 6 -o "$O/long-6.dat" $TD/chunks.dat &&
	python3 tests/cli/make-long.py 4 "$O/long-6.dat" "$O/long.dat"
for j in 1 2 8; do
	t_exit "-j $j -f perfetto --compression zlib" 0 -- \
		tdat-convert -j $j -f perfetto --compression zlib -o "$O/z$j.pftrace" "$O/long.dat"
done
tdat-convert -f perfetto -o "$O/plain.pftrace" "$O/long.dat"
t_assert "perfetto zlib: the plain file is over 3 batches ($(stat -c %s "$O/plain.pftrace") bytes)" \
	test "$(stat -c %s "$O/plain.pftrace")" -gt $((3 * 512 * 1024))
t_assert "perfetto zlib: -j 2 and -j 8 write the file -j 1 does" \
	sh -c "cmp -s '$O/z1.pftrace' '$O/z2.pftrace' && cmp -s '$O/z1.pftrace' '$O/z8.pftrace'"

# the workers do run: -j 3 starts threads (clone), -j 1 none
if command -v strace >/dev/null; then
	strace -f -qq -e trace=clone,clone3 -o "$O/st3" tdat-convert -j 3 -o /dev/null $TD/chunks.dat
	strace -f -qq -e trace=clone,clone3 -o "$O/st1" tdat-convert -j 1 -o /dev/null $TD/chunks.dat
	t_assert "-j 3 reads on three threads ($(grep -c clone "$O/st3") clone calls)" \
		test "$(grep -c 'clone' "$O/st3")" -ge 3
	t_assert "-j 1 on the caller's only" test "$(grep -c 'clone' "$O/st1")" = 0
	TDAT_JOBS_WINDOW= strace -f -qq -e trace=clone,clone3 -o "$O/stj" tdat-convert -j 2 -f json -o /dev/null $TD/chunks.dat
	t_assert "-j 2 -f json in one window (the default size) reads chunks ahead on a thread, writes on another" \
		test "$(grep -c 'clone' "$O/stj")" = 2
else
	skip "-j 3 reads on three threads" "strace is not installed"
	skip "-j 1 on the caller's only" "strace is not installed"
	skip "-j 2 -f json in one window reads chunks ahead on a thread, writes on another" "strace is not installed"
fi
# the default -j: the trace's size decides (tdat_merge_jobs()), --verbose says
tdat-convert --verbose -o /dev/null $TD/chunks.dat 2>"$O/auto.err"
t_assert "the default -j on a small capture is 1, and --verbose says why" \
	grep -q '^tdat-convert: -j 1: about [0-9.]* MiB of trace data, a thread more for each 48 MiB' "$O/auto.err"
t_assert "so no worker reads a time window" sh -c "! grep -q 'time window' '$O/auto.err'"
if command -v strace >/dev/null; then
	strace -f -qq -e trace=clone,clone3 -o "$O/stauto" tdat-convert -o /dev/null $TD/chunks.dat
	t_assert "nor starts: the default on a small capture makes no thread" \
		test "$(grep -c 'clone' "$O/stauto")" = 0
else
	skip "the default on a small capture makes no thread" "strace is not installed"
fi
tdat-convert --verbose -j 2 -o /dev/null $TD/chunks.dat 2>"$O/given.err"
t_assert "-j N given: no choice to tell" sh -c "! grep -q 'a thread more for each' '$O/given.err'"
# 30 copies of a v7 capture are about 60 MiB of trace data: two threads where there are two CPUs
CH=()
for i in $(seq 30); do cp $TD/chunks.dat "$O/c$i.dat" && CH+=("$O/c$i.dat"); done
if [ "$(nproc)" -ge 2 ]; then
	tdat-convert --verbose -o /dev/null "${CH[@]}" 2>"$O/auto2.err" || true
	t_assert "the default -j grows with the trace: 30 copies of chunks.dat get 2 threads" \
		grep -q '^tdat-convert: -j 2: about' "$O/auto2.err"
	# sqlite's inserting thread pays back from 4 MiB: the default counts it there
	tdat-convert --verbose -f sqlite -o "$O/auto.db" "${CH[@]:0:3}" 2>"$O/autosq.err"
	t_assert "the default -j of sqlite on 3 copies of chunks.dat (5 MiB) is 2, its inserting thread, and --verbose says why" \
		grep -q "^tdat-convert: -j 2: about [0-9.]* MiB of trace data, a thread more for each 48 MiB and one for the format's own" \
		"$O/autosq.err"
	tdat-convert --verbose -f csv -o /dev/null "${CH[@]:0:3}" 2>"$O/autocsv.err"
	t_assert "and of csv 1" grep -q "^tdat-convert: -j 1: about" "$O/autocsv.err"
	tdat-convert --verbose -f sqlite -o "$O/auto1.db" $TD/chunks.dat 2>"$O/autosq1.err"
	t_assert "and of sqlite on chunks.dat alone (2 MiB) 1" grep -q "^tdat-convert: -j 1: about" "$O/autosq1.err"
	# parquet's encoding helper is its own thread too: the default counts it
	# from 4 MiB, and at -j 2 the caller decodes (no window worker) while the
	# helper encodes
	tdat-convert --verbose -f parquet -o "$O/autopq" "${CH[@]:0:3}" 2>"$O/autopq.err"
	t_assert "the default -j of parquet on 3 copies of chunks.dat is 2, its encoding helper" \
		grep -q "^tdat-convert: -j 2: about [0-9.]* MiB of trace data, a thread more for each 48 MiB and one for the format's own" \
		"$O/autopq.err"
	t_assert "parquet at -j 2: no window read by a worker, one tdat-parquet thread" \
		sh -c "! grep -q 'time windows read by the workers' '$O/autopq.err' &&
		       grep -Eq -- '-j 2: CPU: [0-9.]+ s on 1 tdat-parquet thread' '$O/autopq.err'"
	tdat-convert -j 1 -f parquet -o "$O/autopq1" "${CH[@]:0:3}"
	t_assert "and the dataset -j 1 writes" diff -r "$O/autopq" "$O/autopq1"
else
	skip "the default -j grows with the trace" "one CPU only"
	skip "the default -j of sqlite from 4 MiB is 2" "one CPU only"
	skip "and of csv 1" "one CPU only"
	skip "and of sqlite on chunks.dat alone 1" "one CPU only"
	skip "the default -j of parquet from 4 MiB is 2" "one CPU only"
	skip "parquet at -j 2: no window read by a worker" "one CPU only"
	skip "and the dataset -j 1 writes" "one CPU only"
fi
# -j counts sqlite's inserting thread: -j 1 stores the rows on the caller's
# thread, in the same file as -j 2's thread does (t-jobs.sh: every capture)
if command -v strace >/dev/null; then
	strace -f -qq -e trace=clone,clone3 -o "$O/stsq" tdat-convert -j 1 -f sqlite -o "$O/sq1.db" $TD/chunks.dat
	t_assert "-j 1 -f sqlite on the caller's only" test "$(grep -c 'clone' "$O/stsq")" = 0
	tdat-convert -j 2 -f sqlite -o "$O/sq2.db" $TD/chunks.dat
	t_assert "-j 1 -f sqlite: the file -j 2 writes" cmp -s "$O/sq1.db" "$O/sq2.db"
else
	skip "-j 1 -f sqlite on the caller's only" "strace is not installed"
	skip "-j 1 -f sqlite: the file -j 2 writes" "strace is not installed"
fi

# the threads are named after their kind (top -H shows them): -j 3's three
# workers, seen while a consumer that has not started reading holds them
rm -f "$O/go"
tdat-convert -j 3 $TD/chunks.dat > >(while [ ! -e "$O/go" ]; do sleep 0.1; done; cat >/dev/null) &
conv=$!
for _ in $(seq 100); do
	names=$(cat /proc/$conv/task/*/comm 2>/dev/null | sort | uniq -c | tr -s ' \n' ' ')
	[[ $names == *"3 tdat-window"* ]] && break
	sleep 0.1
done
touch "$O/go"
wait $conv
t_assert "-j 3 reads on three threads named tdat-window (threads: $names)" \
	test "${names/3 tdat-window/}" != "$names"

# --verbose: the CPU of the thread in order, of the library's threads by
# kind (sqlite's one inserting thread, the workers), and of all of it
tdat-convert -j 3 --verbose -f sqlite -o "$O/cpu.db" $TD/chunks.dat 2>"$O/cpu.err"
t_assert "--verbose -f sqlite: the CPU of its one tdat-sqlite thread, busiest = all of it" \
	grep -Eq -- '-j 3: CPU: ([0-9.]+) s on 1 tdat-sqlite thread, the busiest \1 s$' "$O/cpu.err"
t_assert "and of the tdat-window threads; with the caller's, within the process's" \
	awk '/tdat-window thread/ { w = 1 } / CPU: / { sum += $5; n++ }
	     / s in all$/ { all = $(NF - 3) } END { exit !(w && all > 0 && sum <= all + 0.01 * n) }' \
	"$O/cpu.err"
done_testing
