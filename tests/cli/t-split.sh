#!/usr/bin/env bash
# t-split.sh: tdat-split cuts a capture into complete trace.dat pieces; in
# every mode the pieces, read together (or merged by tdat-merge), give back
# every event of the input exactly once, and trace-cmd report reads each.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
O=$T_TMP

# rows FILE...: the events as CSV without the input column (pieces are inputs).
rows() { tdat-convert -f csv "$@" | cut -d, -f1,2,4-; }
count() {
	if have_trace_cmd; then "$TRACE_CMD" report "$1" 2>/dev/null; else tdat-convert "$1"; fi |
		grep -vc 'cpus='
}

# check MODE-NAME INPUT PIECES...: the pieces hold the input's events, once.
check() {
	local name=$1 in=$2 n=0 bad=
	shift 2
	t_assert "$name: more than one piece ($#)" test $# -gt 1
	rows "$@" >"$O/got.csv"
	rows "$in" >"$O/want.csv"
	t_assert "$name: every event exactly once, in order" cmp -s "$O/got.csv" "$O/want.csv"
	for p; do
		n=$((n + $(count "$p")))
		if have_trace_cmd && ! "$TRACE_CMD" report "$p" >/dev/null 2>&1; then bad="$bad $p"; fi
	done
	t_assert "$name: trace-cmd report reads every piece${bad:+ (not:$bad)}" test -z "$bad"
	t_assert "$name: their reports hold as many events as the input's" test "$n" = "$(count "$in")"
}

t_exit "--events" 0 -- tdat-split --events 5000 -o "$O/ev" $TD/chunks.dat
check "--events" $TD/chunks.dat "$O"/ev.*.dat
t_assert "--events: 7 pieces of 5000, the last shorter" test "$(ls "$O"/ev.*.dat | wc -l)" = 7
t_assert "--events: the first has 5000" test "$(count "$O/ev.0001.dat")" = 5000
t_assert "--events: pieces are numbered from 0001" test -e "$O/ev.0001.dat" -a -e "$O/ev.0007.dat"

t_exit "--every" 0 -- tdat-split --every 100ms -o "$O/t" $TD/chunks.dat
check "--every" $TD/chunks.dat "$O"/t.*.dat
first() { tdat-convert -t "$1" | grep -oE ' [0-9]+\.[0-9]{9}: ' | head -n 1 | tr -d ' :.'; }
last() { tdat-convert -t "$1" | grep -oE ' [0-9]+\.[0-9]{9}: ' | tail -n 1 | tr -d ' :.'; }
t_assert "--every: no piece spans more than 100 ms" \
	bash -c 'for p in "$@"; do f=$(tdat-convert -t "$p" | grep -oE " [0-9]+\.[0-9]{9}: " | tr -d " :." | sed -n "1p;\$p" | paste -sd" "); set -- $f; test $(( ${f#* } - ${f% *} )) -lt 100000000 || exit 1; done' _ "$O"/t.*.dat

t_exit "--size" 0 -- tdat-split --size 100k -o "$O/s" $TD/chunks.dat
check "--size" $TD/chunks.dat "$O"/s.*.dat
t_assert "--size: every piece but the last is 60k..140k" \
	bash -c 'ls "$@" | head -n -1 | while read -r p; do n=$(stat -c %s "$p"); ((n > 61440 && n < 143360)) || exit 1; done' _ "$O"/s.*.dat

t_exit "--per-cpu" 0 -- tdat-split --per-cpu -o "$O/c" $TD/chunks.dat
check "--per-cpu" $TD/chunks.dat "$O/c.cpu0.dat" "$O/c.cpu1.dat"
t_run "cpu1's piece" -- tdat-convert -f csv "$O/c.cpu1.dat"
t_assert "--per-cpu: a CPU's piece holds only that CPU" test "$(cut -d, -f2 "$T_OUT" | sort -u | paste -sd,)" = "1,cpu"

t_exit "--per-buffer" 0 -- tdat-split --per-buffer -o "$O/b" $TD/two-buffers.dat
check "--per-buffer" $TD/two-buffers.dat "$O/b.top.dat" "$O/b.foo.dat"
t_run "the instance's piece" -- tdat-info "$O/b.foo.dat"
t_stdout_match "--per-buffer: the instance keeps its name" '^  foo +events'

# tdat-merge puts pieces back together
t_exit "tdat-merge of the pieces" 0 -- tdat-merge -o "$O/back.dat" "$O"/ev.*.dat
t_assert "has every event" test "$(count "$O/back.dat")" = "$(count $TD/chunks.dat)"

# selection first, stdin, defaults
t_exit "selection and stdin" 0 --stdin $TD/v6.dat -- tdat-split -e sched:sched_switch --events 50 -o "$O/sel" -
tdat-convert -f csv -e sched:sched_switch $TD/v6.dat | cut -d, -f1,2,4- >"$O/want.csv"
rows "$O"/sel.*.dat >"$O/got.csv"
t_assert "the pieces hold exactly the selected events" cmp -s "$O/got.csv" "$O/want.csv"
t_exit "v6 pieces without compression" 0 -- tdat-split --file-version 6 --events 1000 -o "$O/v6" $TD/v6.dat
t_run "version" -- tdat-info "$O/v6.0001.dat"
t_stdout_match "are version 6" '^version: +6'

# (a folder of its own: the v6 pieces above are another split at that prefix)
t_exit "default prefix" 0 -- bash -c "mkdir -p '$O/def' && cd '$O/def' && tdat-split --events 1000 '$PWD/$TD/v6.dat'"
t_assert "is the input's name without .dat" test -e "$O/def/v6.0001.dat" -a -e "$O/def/v6.0002.dat"

# refusals, and nothing left behind
t_exit "no mode" 2 -- tdat-split -o "$O/x" $TD/v6.dat
t_exit "two modes" 2 -- tdat-split --events 5 --per-cpu -o "$O/x" $TD/v6.dat
t_exit "bad count" 2 -- tdat-split --events 0 -o "$O/x" $TD/v6.dat
t_exit "a duration without its unit" 2 -- tdat-split --every 5 -o "$O/x" $TD/v6.dat
t_stderr_match "says a unit is needed" "invalid --every '5' \\(a duration with its unit"
t_exit "a size past 64 bits" 2 -- tdat-split --size 17179869184G -o "$O/x" $TD/v6.dat
t_stderr_match "says it is too large" "^tdat-split: --size '17179869184G' is too large"
t_exit "a count past 64 bits" 2 -- tdat-split --events 18446744073709551616 -o "$O/x" $TD/v6.dat
t_exit "a signed size" 2 -- tdat-split --size +5k -o "$O/x" $TD/v6.dat
t_exit "two inputs" 2 -- tdat-split --events 5 $TD/v6.dat $TD/v6.dat
t_exit "an output that cannot be created" 1 -- tdat-split --events 5 -o /nonexistent/dir/x $TD/v6.dat
t_exit "nothing selected" 0 -- tdat-split --pid 999999 --events 5 -o "$O/none" $TD/v6.dat
t_stderr_match "says so" 'no piece written'
t_assert "no file left behind" test -z "$(ls "$O" | grep -E '^(x|none)')"

# ---- a piece name that is the input (issue 23, 1): refused before anything is written ----
P=$O/own && mkdir -p "$P"
cp $TD/v6.dat "$P/p.0001.dat"
t_exit "the input named like the first piece" 2 -- tdat-split --every 100ms -o "$P/p" "$P/p.0001.dat"
t_stderr_match "names the piece and the input" "piece .*/p\.0001\.dat is the input .*/p\.0001\.dat"
t_assert "the input is untouched" cmp -s "$P/p.0001.dat" $TD/v6.dat
t_assert "and no piece was written" test "$(ls "$P")" = p.0001.dat
cp $TD/v6.dat "$P/in.dat"
ln -s in.dat "$P/p.0003.dat"
t_exit "a later piece name is a symlink to the input" 2 -- tdat-split --events 500 -o "$P/p" "$P/in.dat"
t_stderr_match "names both" "piece .*/p\.0003\.dat is the input .*/in\.dat"
rm "$P/p.0003.dat" && ln "$P/in.dat" "$P/p.0012.dat"
t_exit "a piece name is a hard link to the input" 2 -- tdat-split --events 500 -o "$P/p" "$P/in.dat"
t_assert "nothing written" test "$(ls "$P" | paste -sd' ')" = "in.dat p.0001.dat p.0012.dat"
t_assert "the input is untouched" cmp -s "$P/in.dat" $TD/v6.dat
rm "$P/p.0012.dat"
cp $TD/two-buffers.dat "$P/q.cpu1.dat"
t_exit "--per-cpu: a CPU's piece name is the input" 2 -- tdat-split --per-cpu -o "$P/q" "$P/q.cpu1.dat"
cp $TD/two-buffers.dat "$P/q.foo.dat"
t_exit "--per-buffer: a buffer's piece name is the input" 2 -- tdat-split --per-buffer -o "$P/q" "$P/q.foo.dat"
t_assert "no piece written" test -z "$(ls "$P" | grep -vE '^(in|p\.0001|q\.cpu1|q\.foo)\.dat$')"
t_assert "the inputs are untouched" cmp -s "$P/q.foo.dat" $TD/two-buffers.dat

# ---- --size below what a piece repeats, --max-pieces (issue 23, 2) ----
S=$O/size && mkdir -p "$S"
t_exit "--size 300k of a capture with 1 MB of kallsyms" 2 -- tdat-split --size 300k -o "$S/s" $TD/v7-zstd.dat
t_stderr_match "says what a piece repeats and the smallest size that works" \
	'metadata \([0-9]+ bytes\).*smallest size that works is --size [0-9]+k'
t_assert "nothing written" test -z "$(ls "$S")"
t_exit "--size 1k of a smaller capture" 2 -- tdat-split --size 1k -o "$S/s" $TD/v6.dat
min=$(grep -oE 'is --size [0-9]+k' "$T_ERR" | grep -oE '[0-9]+k')
t_exit "the size it names works ($min)" 0 -- tdat-split --size "$min" -o "$S/s" $TD/v6.dat
n=$(ls "$S" | wc -l)
pages=$(($(stat -c %s $TD/v6.dat) / 4096))
t_assert "each piece holds at least a page of events: $n pieces, fewer than $pages pages" \
	test "$n" -gt 1 -a "$n" -lt "$pages"
check_back() { rows "$@" >"$O/got.csv"; cmp -s "$O/got.csv" "$O/want.csv"; }
rows $TD/v6.dat >"$O/want.csv"
t_assert "which hold every event" check_back "$S"/s.*.dat
rm -f "$S"/*
t_exit "--max-pieces 5 on a split into 3012" 1 -- tdat-split --events 10 --max-pieces 5 -o "$S/m" $TD/chunks.dat
t_stderr_match "says it stopped and removed what it wrote" 'more pieces than --max-pieces 5; it stopped, and the 5 written are removed'
t_assert "no piece is left" test -z "$(ls "$S")"
t_exit "the default stops at 10000" 1 -- tdat-split --events 2 -o "$S/m" $TD/chunks.dat
t_stderr_match "and says so" 'more pieces than --max-pieces 10000'
t_assert "no piece is left" test -z "$(ls "$S")"
t_exit "--per-cpu past --max-pieces: refused before writing" 2 -- tdat-split --per-cpu --max-pieces 1 -o "$S/c" $TD/v6.dat
t_stderr_match "says how many" 'would write 2 pieces, past --max-pieces 1'
t_exit "--max-pieces 0" 2 -- tdat-split --per-cpu --max-pieces 0 -o "$S/c" $TD/v6.dat
t_assert "nothing written" test -z "$(ls "$S")"

# ---- interrupted or failed: every piece of the run is removed (issue 23, 3) ----
EIO_SO=${EIO_SO:-$BIN/../tests/eio.so}
# a sanitizer build's runtime must come first (as in t-outsafe.sh)
asan=$(ldd "$BIN/tdat-split" 2>/dev/null | awk '/libasan/ { print $3 }')
PRELOAD=${asan:+$asan:}$EIO_SO
I=$O/int && mkdir -p "$I"
for sig in INT TERM HUP; do
	num=$(kill -l $sig)
	t_run "SIG$sig after 6 pieces" -- \
		env TDAT_SIG_AFTER_RENAME=$num:6 LD_PRELOAD="$PRELOAD" tdat-split --every 10ms -o "$I/p" $TD/chunks.dat
	t_assert "SIG$sig: the status is 128+$num ($T_RC)" test "$T_RC" = $((128 + num))
	t_stderr_match "SIG$sig: says the 6 written were removed" '^tdat-split: (interrupted|terminated|hangup); removed the 6 files written$'
	t_assert "SIG$sig: no piece is left" test -z "$(ls "$I")"
done
t_exit "a write error in piece 3" 1 -- \
	env TDAT_EIO_WRITE=p.0003.dat:1000 LD_PRELOAD="$PRELOAD" tdat-split --every 10ms -o "$I/p" $TD/chunks.dat
t_stderr_match "names it" 'p\.0003\.dat.*(Input/output error|write error)'
t_assert "pieces 1 and 2 are removed too" test -z "$(ls "$I")"
# a real Ctrl-C: a big input, signalled as soon as the first piece is complete;
# five times, with -j 2: a library thread (reading ahead) must never take the
# signal while the tool holds it off around a rename (it left a piece's
# temporary file in 25 of 40 tries before thread.c)
for i in 1 2 3 4 5 6 7 8; do cp $TD/chunks.dat "$I/c$i.dat"; done
tdat-merge -o "$I/big.dat" "$I"/c?.dat && rm "$I"/c?.dat
for try in 1 2 3 4 5; do
	rm -rf "$I/out"
	mkdir -p "$I/out"
	tdat-split -j 2 --every 1ms -o "$I/out/p" "$I/big.dat" 2>"$I/err" &
	pid=$!
	for ((n = 0; n < 2000; n++)); do
		[[ -e $I/out/p.0002.dat ]] && break
		sleep 0.005
	done
	if ((try == 1)); then	# the threads besides the tool's own block SIGINT (bit 2)
		blk=$(for t in /proc/$pid/task/*; do
			[[ ${t##*/} == "$pid" ]] || awk '/^SigBlk:/ { print $2 }' "$t/status"; done)
		t_assert "the library's threads block SIGINT (SigBlk: $(echo $blk))" test -n "$blk" -a \
			"$(for m in $blk; do echo $(((16#$m >> 1) & 1)); done | sort -u)" = 1
	fi
	kill -INT $pid 2>/dev/null
	rc=0
	wait $pid || rc=$?
	t_assert "Ctrl-C while splitting ($try): status 130 ($rc)" test "$rc" = 130
	t_assert "Ctrl-C ($try): says what it removed" grep -Eq '^tdat-split: interrupted; removed (the unfinished output and )?the [0-9]+ files? written$' "$I/err"
	t_empty_dir "Ctrl-C ($try): no piece and no temporary file is left" "$I/out"
done

# ---- split, then merge, gives the file back (issue 23, 7) ----
R=$O/rt && mkdir -p "$R"
for f in $TD/*.dat; do
	b=${f##*/}
	b=${b%.dat}
	rm -rf "${R:?}"/* && mkdir -p "$R/p"
	n=$(tdat-info "$f" | awk '/^events:/ { print $2 }')
	tdat-split --events $((n / 3 + 1)) -o "$R/p/$b" "$f" 2>/dev/null
	t_assert "$b: split into 3 pieces" test "$(ls "$R/p" | wc -l)" = 3
	t_exit "$b: tdat-merge of the pieces" 0 -- tdat-merge -o "$R/m.dat" "$R"/p/*.dat
	# (a zlib original, which 3.1.6 cannot read, through trace-cmd 3.4's zstd copy of it)
	r=$(tc31_readable "$f")
	if have_trace_cmd && [[ -n $r ]]; then
		"$TRACE_CMD" report "$r" >"$R/want.txt" 2>/dev/null
		"$TRACE_CMD" report "$R/m.dat" >"$R/got.txt" 2>/dev/null
		t_assert "$b: trace-cmd report of the merged file is the original's" cmp -s "$R/want.txt" "$R/got.txt"
	else
		skip "$b: trace-cmd report of the merged file is the original's" \
			"no trace-cmd, or a zlib file and no trace-cmd 3.4 to convert it"
		tdat-convert "$f" >"$R/want.txt"
	fi
	t_run "$b: tdat-convert of the pieces" -- tdat-convert $(ls -r "$R"/p/*.dat)
	t_assert "$b: its text (pieces in any order) is the original's report" cmp -s "$T_OUT" "$R/want.txt"
done
rm -rf "${R:?}"/* && mkdir -p "$R/p"
tdat-split --per-cpu -o "$R/p/c" $TD/two-buffers.dat
tdat-split --per-buffer -o "$R/p/b" $TD/v6-two-buffers.dat
t_exit "--per-cpu pieces merge back" 0 -- tdat-merge -o "$R/c.dat" "$R"/p/c.*.dat
t_exit "--per-buffer pieces merge back" 0 -- tdat-merge -o "$R/b.dat" "$R"/p/b.*.dat
if have_trace_cmd; then
	t_assert "--per-cpu: trace-cmd report as the original's" \
		cmp -s <("$TRACE_CMD" report "$R/c.dat" 2>/dev/null) <("$TRACE_CMD" report $TD/two-buffers.dat 2>/dev/null)
	t_assert "--per-buffer: trace-cmd report as the original's" \
		cmp -s <("$TRACE_CMD" report "$R/b.dat" 2>/dev/null) <("$TRACE_CMD" report $TD/v6-two-buffers.dat 2>/dev/null)
else
	skip "--per-cpu: trace-cmd report as the original's" "no trace-cmd"
	skip "--per-buffer: trace-cmd report as the original's" "no trace-cmd"
fi
tdat-split --every 50ms -o "$R/p/e" $TD/chunks.dat
cp "$R/p/e.0002.dat" "$R/copy.dat"
t_exit "a second copy of a piece" 2 -- tdat-merge -o "$R/x.dat" "$R/p/e.0002.dat" "$R/copy.dat"
t_stderr_match "is named" 'both piece 2 of one split of chunks'
t_exit "pieces with a gap" 0 -- tdat-merge -o "$R/x.dat" "$R/p/e.0001.dat" "$R/p/e.0003.dat" "$R"/p/e.001?.dat
t_stderr_match "say which are missing" 'pieces of its split of chunks \(the first: piece 2\) are not among the inputs'
t_exit "a piece and another file" 0 -- tdat-merge -o "$R/y.dat" "$R/p/e.0001.dat" $TD/v6.dat
t_run "their buffers" -- tdat-info "$R/y.dat"
t_stdout_match "the piece's are named after the file it was cut from" '^  chunks +events'
t_exit "trace-cmd's -i names the input" 0 -- tdat-split -i $TD/v6.dat --every 100ms -o "$R/i"
t_assert "and it is split" test -e "$R/i.0001.dat" -a -e "$R/i.0002.dat"

# ---- durations with fractions (issue 23, 8) ----
rm -rf "${R:?}"/*
t_exit "--every 1.5ms" 0 -- tdat-split --every 1.5ms -o "$R/f" $TD/v6.dat
t_assert "--every 1.5ms: no piece spans 1.5 ms or more" \
	bash -c 'for p in "$@"; do f=$(tdat-convert -t "$p" | grep -oE " [0-9]+\.[0-9]{9}: " | tr -d " :." | sed -n "1p;\$p" | paste -sd" "); set -- $f; test $(( ${f#* } - ${f% *} )) -lt 1500000 || exit 1; done' _ "$R"/f.*.dat
# a piece per 1.5 ms stretch of the timeline that has events (counted by awk)
tdat-convert -t $TD/v6.dat | grep -oE ' [0-9]+\.[0-9]{9}: ' | tr -d ' :.' >"$R/ts"
want=$(awk 'NR == 1 { f = $1 } { b[int(($1 - f) / 1500000)] = 1 } END { for (k in b) n++; print n }' "$R/ts")
t_assert "--every 1.5ms: a piece per 1.5 ms stretch with events ($want)" test "$(ls "$R"/f.*.dat | wc -l)" = "$want"
t_exit "--every 1.5ns (finer than a nanosecond)" 2 -- tdat-split --every 1.5ns -o "$R/h" $TD/v6.dat
done_testing
