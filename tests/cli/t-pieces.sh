#!/usr/bin/env bash
# t-pieces.sh: the pieces of splits, read together (issue 43).  A split is
# the same bytes for the same input and options, wherever it is written
# and from a pipe or a file; pieces of two splits of one input are never
# read together (exit 2, naming them), and tdat-split will not leave such a
# mixed set behind (exit 2, or --force removes the earlier split's pieces
# and nothing else); a missing piece is a warning that names it.  Options
# that name an input (--ts-offset FILE=, --name FILE=) find it through any
# path to it, and one that names no input is a usage error.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
O=$T_TMP
X=$TD/chunks.dat

# ---- the same input and options, the same pieces ----
mkdir -p "$O/r1" "$O/r2/sub" "$O/r3"
tdat-split -j 1 --every 20ms -e 'sched:*' -o "$O/r1/q" $X
(cd "$O/r2/sub" && tdat-split -j 2 --every 20ms -e 'sched:*' -o ../q "$TOP_SRCDIR/$X")
ln -s "$TOP_SRCDIR/$X" "$O/r3/chunks.dat"
tdat-split -j 3 --every 20ms -e 'sched:*' -o "$O/r3/q" "$O/r3/chunks.dat"
n=$(ls "$O"/r1/q.*.dat | wc -l)
t_assert "a split of $n pieces" test "$n" -gt 5
t_assert "run again elsewhere, through another path and -j: the same bytes, piece by piece" \
	bash -c "for p in '$O'/r1/q.*.dat; do cmp -s \"\$p\" '$O'/r2/\${p##*/} && cmp -s \"\$p\" '$O'/r3/\${p##*/} || exit 1; done"
mkdir -p "$O/r4"
tdat-split --every 20ms -e 'sched:*' -o "$O/r4/q" - <$X
t_assert "from a pipe: the same events and split id, the input named stdin" \
	bash -c "tdat-info --json '$O/r1/q.0001.dat' | grep -o '\"split\":\"[0-9a-f]*\"' >'$O/id1' &&
		tdat-info --json '$O/r4/q.0001.dat' | grep -o '\"split\":\"[0-9a-f]*\"' >'$O/id2' && cmp -s '$O/id1' '$O/id2'"
mkdir -p "$O/r5"
tdat-split --every 20ms -o "$O/r5/q" $X
t_assert "other options, another split" \
	bash -c "! cmp -s <(tdat-info --json '$O/r1/q.0001.dat' | grep -o '\"split\":\"[0-9a-f]*\"') \
		<(tdat-info --json '$O/r5/q.0001.dat' | grep -o '\"split\":\"[0-9a-f]*\"')"
t_run "a piece's mark" -- tdat-info --json "$O/r1/q.0001.dat"
t_stdout_match "says how it was cut" '"how":"--every 20ms -e sched:\*"'

# ---- pieces of two splits of one input are not read together ----
mkdir -p "$O/a" "$O/b" "$O/mix"
tdat-split --every 5ms -o "$O/a/q" $X
tdat-split --every 20ms -o "$O/b/q" $X
cp "$O/a/q.0001.dat" "$O/a/q.0002.dat" "$O/mix/"
cp "$O/b/q.0003.dat" "$O/mix/"
for run in "tdat-convert -o $O/mix.csv" "tdat-merge -o $O/mix.dat" "tdat-info --svg $O/mix.svg"; do
	t_exit "${run%% *} of pieces of two splits of one input" 2 -- $run "$O"/mix/q.*.dat
	t_stderr_match "${run%% *} names them and both cuts" \
		"mix/q.000[12].dat and .*mix/q.0003.dat are pieces of two different splits of chunks \(tdat-split --every 5ms and tdat-split --every 20ms\)"
	t_assert "${run%% *} wrote nothing" bash -c "test ! -e '$O/mix.csv' -a ! -e '$O/mix.dat' -a ! -e '$O/mix.svg' -a ! -s '$T_OUT'"
done
t_run "tdat-info of them" -- tdat-info "$O"/mix/q.*.dat
t_assert "shows each file (exit 0)" test "$T_RC" = 0 -a "$(grep -c '^piece:' "$T_OUT")" = 3
t_stderr_match "and warns that they are pieces of two splits of one file" \
	"are pieces of two different splits of chunks \(--every 5ms and --every 20ms\)"
t_exit "the same piece twice (a copy)" 2 -- tdat-convert -o "$O/mix.csv" "$O/a/q.0001.dat" "$O/mix/q.0001.dat"
t_stderr_match "says so" "are both piece 1 of one split of chunks"
t_run "pieces of one split with one missing" -- tdat-convert -f csv "$O/a/q.0001.dat" "$O/a/q.0003.dat"
t_assert "still read (exit 0)" test "$T_RC" = 0
t_stderr_match "a warning names the gap" "the first: piece 2\) is not among the inputs"

# ---- tdat-split leaves no mixed set behind ----
mkdir -p "$O/s"
tdat-split --every 5ms -o "$O/s/q" $X
n5=$(ls "$O"/s/q.*.dat | wc -l)
cp $TD/v6.dat "$O/s/q.notes.dat"	# a trace.dat at the prefix that is no piece
echo hello >"$O/s/q.readme.dat"		# and a file that is no trace.dat
t_exit "another split at the prefix of an earlier one" 2 -- tdat-split --every 20ms -o "$O/s/q" $X
t_stderr_match "names the earlier pieces and how they were cut, and says what to do" \
	"q.0001.dat ... .*q.0$n5.dat \($n5 files\) hold pieces of an earlier split at this prefix \(tdat-split --every 5ms of chunks\).*--force"
t_assert "and wrote nothing: the earlier $n5 pieces are still there" test "$(ls "$O"/s/q.0*.dat | wc -l)" = "$n5"
t_exit "the same split again" 0 -- tdat-split --every 5ms -o "$O/s/q" $X
t_assert "rewrites the same pieces" test "$(ls "$O"/s/q.0*.dat | wc -l)" = "$n5"
t_exit "--force" 0 -- tdat-split --force --every 20ms -o "$O/s/q" $X
t_stderr_match "says what it removed" "removed $n5 pieces of an earlier split at .*q \(tdat-split --every 5ms of chunks\)"
n20=$(ls "$O"/s/q.0*.dat | wc -l)
t_assert "only the new split's pieces are left ($n20)" \
	test "$n20" = "$(ls "$O"/r5/q.*.dat | wc -l)" -a "$n20" -lt "$n5"
t_assert "the trace.dat that is no piece and the other file are untouched" \
	bash -c "cmp -s $TD/v6.dat '$O/s/q.notes.dat' && test \"\$(cat '$O/s/q.readme.dat')\" = hello"
t_run "the pieces read together" -- tdat-convert -f csv "$O"/s/q.0*.dat
tdat-convert -f csv $X >"$O/x.csv"
t_assert "are the input" bash -c "cut -d, -f1,2,4- '$T_OUT' | cmp -s - <(cut -d, -f1,2,4- '$O/x.csv')"

# ---- FILE=VALUE options find their input by identity ----
cp $TD/v6.dat "$O/A.dat"
ln -s A.dat "$O/L.dat"
first() { tdat-convert -f csv "$@" | sed -n 2p | cut -d, -f1; }
base=$(first "$O/A.dat")
for spelling in "$O/./A.dat" "$O/L.dat" "$(cd "$O" && pwd -P)/A.dat"; do
	t_assert "--ts-offset ${spelling#"$O"/}=1ms shifts A.dat" \
		test "$(first --ts-offset "$spelling=1ms" "$O/A.dat")" = "$((base + 1000000))"
done
t_exit "--ts-offset of a file that is no input" 2 -- tdat-convert --ts-offset "$O/B.dat=1ms" "$O/A.dat"
t_stderr_match "is a usage error naming it" "--ts-offset .*B.dat=1ms: .*B.dat is not one of the inputs"
t_exit "--name of a file that is no input" 2 -- tdat-merge -o "$O/n.dat" --name "$TD/v6.dat=x" "$O/L.dat" $TD/date.dat
t_stderr_match "is a usage error too (v6.dat is no input, though A.dat is its copy)" "is not one of the inputs"
t_exit "--name through a symlink" 0 -- tdat-merge -o "$O/n.dat" --name "$O/L.dat=host" "$O/A.dat" $TD/date.dat
t_run "names the input" -- tdat-info "$O/n.dat"
t_stdout_match "its buffer is host" '^  host +events'
done_testing
