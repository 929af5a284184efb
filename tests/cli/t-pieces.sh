#!/usr/bin/env bash
# t-pieces.sh: the pieces of splits, read together (issue 43).  A split is
# the same bytes for the same input and options, wherever it is written
# and from a pipe or a file; pieces of two splits of one input are never
# read together (exit 2, naming them), and tdat-split will not leave such a
# mixed set behind (exit 2, or --force removes the earlier split's pieces
# and nothing else); a missing piece is a warning that names it.  Options
# that name an input (--ts-offset FILE=, --name FILE=) find it through any
# path to it, and one that names no input is a usage error.  And the pieces
# of every capture in testdata/, cut in time, by events and per CPU, read
# together are the input in every format: the text is trace-cmd report's
# of the input (names learnt from events included: cmdlines.dat), the CSV,
# JSON and .pftrace bytes and the SQLite and Parquet rows are the input's.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
O=$T_TMP
X=$TD/chunks.dat
export NPMDIR TDAT_REPORT_STYLE=3.1	# the text of Debian's trace-cmd report (3.1.6)

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
# ---- a thousand pieces need no more than a few open files ----
mkdir -p "$O/k"
tdat-split --events 30 -o "$O/k/p" $X
n=$(ls "$O"/k/p.*.dat | wc -l)
t_assert "a split of chunks.dat into $n pieces" test "$n" -gt 1000
tdat-convert -f csv $X >"$O/k.csv"
for run in "tdat-convert -f csv" "tdat-convert -f sqlite -o $O/k.db" "tdat-convert -f parquet -o $O/k.pq" \
	   "tdat-convert -f json" "tdat-convert -f perfetto -o $O/k.pftrace" "tdat-merge -o $O/k.dat" \
	   "tdat-filter -e raw_syscalls -o $O/k2.dat" "tdat-convert --start +500ms -f csv" \
	   "tdat-info --svg $O/k.svg" "tdat-info"; do
	t_run "$run of them with 40 open files at most" -- bash -c "ulimit -n 40 && $run $O/k/p.*.dat"
	t_assert "${run%% -*}: works (exit $T_RC)" test "$T_RC" = 0 -a ! -s "$T_ERR"
done
t_assert "the merge of them is the input again" \
	bash -c "tdat-convert -f csv '$O/k.dat' | cut -d, -f1,2,4- | cmp -s - <(cut -d, -f1,2,4- '$O/k.csv')"
tdat-convert -f csv --start +500ms $X >"$O/k-start.csv"
t_run "a seek into the middle of the pieces" -- tdat-convert -f csv --start +500ms "$O"/k/p.*.dat
t_assert "reads what the input gives from there" cmp -s "$T_OUT" "$O/k-start.csv"

# ---- the pieces of every capture, read together, are the capture ----
# the SQLite and Parquet comparisons: one python3 (sqlite-same.py: every
# table of the pieces' database has the input's rows, but for the files' own
# facts, as a v6 input is cut into v7 pieces) and one node (parquet-same.mjs,
# DuckDB) for all the splits, asked split by split (lib.sh's t_serve)
t_serve sq python3 "$TOP_SRCDIR/tests/cli/sqlite-same.py" \
	trace_size_bytes,trace_file_version,trace_compression,trace_compression_version "the pieces'" "the input's"
facts() { sed -E 's/"(file_version|compression|compression_version|file_size)":[^,}]*//g' "$1"; }
HAVE_DUCKDB=
readers_ready && HAVE_DUCKDB=1 && t_serve pq node "$TOP_SRCDIR/tests/cli/parquet-same.mjs"
k=0
# the input's own outputs, made once for its three splits
input_outputs() {
	local f=$1 d=$2 r fmt
	[[ -e $d/want.txt ]] && return
	mkdir -p "$d"
	r=$(tc31_readable "$f")	# a zlib capture: 3.4's zstd copy of it
	if have_trace_cmd && [[ -n $r ]]; then
		"$TRACE_CMD" report "$r" >"$d/want.txt" 2>/dev/null
	else
		tdat-convert "$f" >"$d/want.txt" 2>/dev/null
	fi
	for fmt in csv json perfetto sqlite; do
		tdat-convert -f $fmt -o "$d/in.$fmt" "$f" 2>/dev/null
	done
	[[ -n $HAVE_DUCKDB ]] && tdat-convert -f parquet -o "$d/in.pq" "$f" 2>/dev/null
}
for f in $TD/*.dat; do
	name=$(basename "$f" .dat)
	in=$O/all/in-$name
	for mode in "--every 20ms" "--events 300" "--per-cpu"; do
		d=$O/all/$k && k=$((k + 1)) && mkdir -p "$d"
		if ! tdat-split $mode -o "$d/p" "$f" 2>/dev/null || [[ $(ls "$d"/p.*.dat | wc -l) -lt 2 ]]; then
			continue	# one piece, or a split that fails as the input does (t-split)
		fi
		p=("$d"/p.*.dat)
		what="$name $mode (${#p[@]} pieces)"
		input_outputs "$f" "$in"
		tdat-convert "${p[@]}" >"$d/got.txt" 2>/dev/null
		t_assert "$what: text is trace-cmd report's of the input" cmp -s "$d/got.txt" "$in/want.txt"
		for fmt in csv json perfetto sqlite; do
			tdat-convert -f $fmt -o "$d/p.$fmt" "${p[@]}" 2>/dev/null
		done
		t_assert "$what: CSV" cmp -s "$d/p.csv" "$in/in.csv"
		t_assert "$what: JSON" cmp -s <(facts "$d/p.json") <(facts "$in/in.json")
		t_assert "$what: .pftrace" cmp -s "$d/p.perfetto" "$in/in.perfetto"
		t_ask sq "$d/p.sqlite"$'\t'"$in/in.sqlite"
		[[ $T_REPLY == same ]] && T_REPLY=
		is "$what: SQLite, every table" "${T_REPLY#differ }" ""
		if [[ -n $HAVE_DUCKDB ]]; then
			tdat-convert -f parquet -o "$d/p.pq" "${p[@]}" 2>/dev/null
			t_ask pq "$d/p.pq"$'\t'"$in/in.pq"
			t_assert "$what: Parquet, every file row for row" test "${T_REPLY%% *}" = same
			[[ ${T_REPLY%% *} == same ]] || diag "$T_REPLY"
		fi
		rm -rf "$d"	# compared: only the input's outputs are asked again
	done
done
t_serve_end sq
if [[ -n $HAVE_DUCKDB ]]; then
	t_serve_end pq
else
	skip "the Parquet datasets of pieces" "$NPM_WHY"
fi
done_testing
