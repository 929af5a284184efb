#!/usr/bin/env bash
# t-options.sh: options that mean one thing in every tool.
#   -j N is --jobs N wherever it is taken (tdat-info's -j was --json): the
#   same output for every N, a bad N a usage error;
#   a write error on standard output is exit 1 with one message, also for
#   --help and --version (to /dev/full) and every output that goes there;
#   an option that would change nothing in the output asked for is a usage
#   error (exit 2) naming what it needs: -t and -R without -f text, --name
#   with one input.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
M=$TD/markers.dat
W=$T_TMP/w
mkdir -p "$W"

# -j N
for t in tdat-convert tdat-filter tdat-merge; do
	t_run "$t -j 1" -- $t -j 1 -f csv $M
	cp "$T_OUT" "$W/j1"
	t_exit "$t -j 3" 0 -- $t -j 3 -f csv $M
	t_assert "$t -j 3: the output of -j 1" cmp -s "$T_OUT" "$W/j1"
done
t_run "tdat-info" -- tdat-info $TD/v7-zstd.dat
cp "$T_OUT" "$W/info"
t_exit "tdat-info -j 2 FILE: -j takes N" 0 -- tdat-info -j 2 $TD/v7-zstd.dat
t_assert "and prints the text of FILE (not JSON, no '2: No such file')" cmp -s "$T_OUT" "$W/info"
t_exit "tdat-info --jobs 3 --json" 0 -- tdat-info --jobs 3 --json $TD/v7-zstd.dat
t_stdout_match "prints the JSON" '^\{"file":"testdata/v7-zstd.dat"'
tdat-info --svg "$W/svg1" -j 1 $TD/v7-zstd.dat
t_exit "tdat-info --svg -j 4" 0 -- tdat-info --svg "$W/svg4" -j 4 $TD/v7-zstd.dat
t_assert "draws what -j 1 draws" cmp -s "$W/svg1" "$W/svg4"
# the pieces' mark hashes the command line but -j: the same -o for both
mkdir "$W/s"
tdat-split -j 1 --every 100ms -o "$W/s/p" $TD/v7-zstd.dat && mv "$W/s" "$W/s1" && mkdir "$W/s"
t_exit "tdat-split -j 3" 0 -- tdat-split -j 3 --every 100ms -o "$W/s/p" $TD/v7-zstd.dat
t_assert "cuts the pieces -j 1 cuts" diff -r "$W/s1" "$W/s"
for t in tdat-convert tdat-filter tdat-merge tdat-split tdat-info; do
	t_exit "$t -j FILE: a usage error" 2 -- $t -j $M
	t_stderr_match "$t: that names -j's threads" "^$t: invalid -j '$M' \(threads, 1 to 256\)"
done

# a write error on standard output
for t in tdat-convert tdat-filter tdat-merge tdat-split tdat-info tdat-capture; do
	for o in --help --version; do
		t_exit "$t $o >/dev/full: exit 1" 1 -- sh -c "exec $t $o >/dev/full"
		is "$t $o >/dev/full: one message" "$(cat "$T_ERR")" "$t: standard output: No space left on device"
	done
done
for a in "" "--json" "--svg -"; do
	t_exit "tdat-info $a >/dev/full: exit 1" 1 -- sh -c "exec tdat-info $a $M >/dev/full"
	t_stderr_match "tdat-info $a >/dev/full: says so" "^tdat-info: standard output: .*No space left on device"
	is "tdat-info $a >/dev/full: once" "$(wc -l <"$T_ERR")" 1
done
for f in text csv json; do
	t_exit "tdat-convert -f $f >/dev/full: exit 1" 1 -- sh -c "exec tdat-convert -f $f $M >/dev/full"
	is "tdat-convert -f $f >/dev/full: once" "$(wc -l <"$T_ERR")" 1
done
t_exit "tdat-convert --help to a pipe closed early: no message" 0 -- sh -c "tdat-convert --help | head -n 1 >/dev/null"
is "and nothing on stderr" "$(cat "$T_ERR")" ""

# options that would change nothing
t_exit "-t -f csv: a usage error" 2 -- tdat-convert -t -f csv $M
t_stderr_match "that says -t needs -f text" "^tdat-convert: -t \(--nsec\) needs -f text"
t_exit "--nsec into a trace.dat (tdat-filter): a usage error" 2 -- tdat-filter --nsec -o "$W/f.dat" $M
t_exit "-R -f csv: a usage error, as before" 2 -- tdat-convert -R -f csv $M
t_stderr_match "that says -R needs -f text" "^tdat-convert: -R \(--raw\) needs -f text"
t_exit "-t -f text: taken" 0 -- tdat-convert -t -f text $M
t_exit "--name with one input: a usage error" 2 -- tdat-convert -f json --name "$M=x" $M
t_stderr_match "that says why" "^tdat-convert: --name $M=x: with one input there is nothing to tell apart"
t_exit "tdat-merge --name with one input: a usage error" 2 -- tdat-merge --name "$M=x" -o "$W/m.dat" $M
t_assert "and writes nothing" test ! -e "$W/m.dat"
t_exit "tdat-merge --name with two inputs: taken" 0 -- \
	tdat-merge --name "$M=x" -o "$W/m.dat" $M $TD/v6.dat
done_testing
