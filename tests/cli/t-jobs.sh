#!/usr/bin/env bash
# t-jobs.sh: -j N prints text and csv events on N threads and writes them in
# order: for every capture in testdata/ (the damaged ones in bad/ too), every
# text option and csv, -j 2, 3 and 8 give the same output, the same
# messages and the same exit status as -j 1; so do several inputs, merged
# files of many buffers (past the first 4096 events, which the caller
# prints itself), standard input, a selection and gzip.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
O=$T_TMP

# same NAME ARGS...: tdat-convert ARGS at -j 1 and at -j 2, 3, 8: equal
# stdout, stderr and exit status
same() {
	local name=$1 j st1 st
	shift
	tdat-convert -j 1 "$@" >"$O/out1" 2>"$O/err1"
	st1=$?
	for j in 2 3 8; do
		tdat-convert -j $j "$@" >"$O/out$j" 2>"$O/err$j"
		st=$?
		if [[ $st != "$st1" ]]; then
			not_ok "$name: -j $j as -j 1" "exit $st, -j 1 exit $st1"
		elif ! cmp -s "$O/out1" "$O/out$j"; then
			not_ok "$name: -j $j as -j 1" "output differs: $(cmp "$O/out1" "$O/out$j" 2>&1)"
		elif ! cmp -s "$O/err1" "$O/err$j"; then
			not_ok "$name: -j $j as -j 1" "messages differ:" "$(diff "$O/err1" "$O/err$j" | head -n 6)"
		else
			ok "$name: -j $j as -j 1 ($(wc -l <"$O/out1") lines, exit $st1)"
		fi
	done
}

for dat in $TD/*.dat $TD/bad/*.dat; do
	f=${dat#"$TD"/}
	same "$f text" "$dat"
	[[ $f == bad/* ]] && continue
	same "$f text -t" -t "$dat"
	same "$f text -R" -R "$dat"
	same "$f csv" -f csv "$dat"
done

# many batches on a ring that wraps: eight copies of chunks.dat merged
# into one file of eight named buffers, and as eight inputs
for i in 1 2 3 4 5 6 7 8; do cp $TD/chunks.dat "$O/c$i.dat"; done
t_exit "eight copies of chunks.dat merged" 0 -- tdat-merge -o "$O/big.dat" "$O"/c[1-8].dat
same "big.dat (eight buffers) text" "$O/big.dat"
same "big.dat csv" -f csv "$O/big.dat"
same "eight inputs text" "$O"/c[1-8].dat
t_assert "the eight inputs are many batches (over 200000 lines)" test "$(wc -l <"$O/out1")" -gt 200000
# the first 4096 events are printed on the caller's thread, the rest by the
# workers: sixteen copies of the small captures whose text has most to get
# right (a stack's words past its record with -R, lost-event lines, markers)
for f in stack lost-events markers two-buffers; do
	for i in $(seq 16); do cp $TD/$f.dat "$O/$f$i.dat"; done
	if tdat-merge -o "$O/${f}-x16.dat" $(for i in $(seq 16); do echo "$O/$f$i.dat"; done) 2>/dev/null; then
		same "$f.dat x 16 text -R" -R "$O/${f}-x16.dat"
		same "$f.dat x 16 text" "$O/${f}-x16.dat"
	else
		not_ok "$f.dat x 16: tdat-merge" "$(tdat-merge -o "$O/x.dat" "$O/$f1.dat" "$O/$f2.dat" 2>&1 | head -n 2)"
	fi
	rm -f "$O/$f"[0-9]*.dat
done
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
	t_assert "${f##*/} parquet: a dataset of every type" test -s "$O/pq1/raw_syscalls.sys_enter.parquet"
	rm -rf "$O"/pq[1-9]
done

for j in 1 2 8; do
	t_exit "-j $j -o x.txt.gz" 0 -- tdat-convert -j $j -o "$O/x$j.txt.gz" $TD/chunks.dat
done
t_assert "gzip: -j 2 and -j 8 write the file -j 1 does" \
	sh -c "cmp -s '$O/x1.txt.gz' '$O/x2.txt.gz' && cmp -s '$O/x1.txt.gz' '$O/x8.txt.gz'"
t_assert "which is the text" cmp -s <(gzip -dc "$O/x2.txt.gz") <(tdat-convert $TD/chunks.dat)

# the workers do run: -j 3 starts threads (clone), -j 1 none
if command -v strace >/dev/null; then
	strace -f -qq -e trace=clone,clone3 -o "$O/st3" tdat-convert -j 3 -o /dev/null $TD/chunks.dat
	strace -f -qq -e trace=clone,clone3 -o "$O/st1" tdat-convert -j 1 -o /dev/null $TD/chunks.dat
	t_assert "-j 3 prints on three threads ($(grep -c clone "$O/st3") clone calls)" \
		test "$(grep -c 'clone' "$O/st3")" -ge 3
	t_assert "-j 1 on the caller's only" test "$(grep -c 'clone' "$O/st1")" = 0
else
	skip "-j 3 prints on three threads" "strace is not installed"
fi
done_testing
