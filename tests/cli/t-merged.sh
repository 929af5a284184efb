#!/usr/bin/env bash
# t-merged.sh: a trace.dat that tdat-merge wrote is the inputs it was merged
# from, each its own machine (issue 43): for pairs of captures in testdata/
# (each capture in ten; every pair with TDAT_TEST_ALL_PAIRS=1), every export of the merged file equals the export of the two
# files given together, but for the files' own facts (size, version,
# compression): SQLite table by table and row by row (python3's sqlite3),
# CSV and the .pftrace byte for byte, JSON byte for byte but for those
# facts, the Parquet datasets file by file and row by row (DuckDB).  Pairs
# whose event ids or formats disagree cannot be merged, and say so.  Then --align and
# --ts-offset, a merged file merged again, the pieces of a split merged file,
# and trace processor's sched of a merged file's .pftrace: the inputs' CPUs
# and threads apart.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
O=$T_TMP
TP=${TDAT_TRACE_PROCESSOR:-$TOP_SRCDIR/../shared/tools/perfetto/trace_processor_shell}
export NPMDIR

command -v python3 >/dev/null || skip_all "python3 is not installed (it reads the databases)"

# the SQLite and Parquet comparisons: one python3 (sqlite-same.py) and one
# node (parquet-same.mjs, DuckDB) for all the pairs, asked pair by pair
# (lib.sh's t_serve): each pair's files are removed once compared
FACTS=trace_size_bytes,trace_file_version,trace_compression,trace_compression_version,trace_ts_offset
t_serve sq python3 "$TOP_SRCDIR/tests/cli/sqlite-same.py" "$FACTS" "the merged file's" "the inputs'"

# facts FILE: a JSON trace without the files' own facts
facts() { sed -E 's/"(file_version|compression|compression_version|file_size)":[^,}]*//g' "$1"; }

# same_exports NAME "MERGED..." [OPTIONS --] INPUT...: every export of the
# MERGED files (one, or the pieces of a split; the list is split on spaces)
# equals that of the INPUTs given together (with OPTIONS)
same_exports() {
	local name=$1 d=$O/x opts=() f m
	read -r -a m <<<"$2"
	shift 2
	while (($#)) && [[ $1 != -- && $1 == -* ]]; do opts+=("$1"); shift; done
	[[ ${1-} == -- ]] && shift
	rm -rf "$d" && mkdir -p "$d"
	for f in sqlite csv json perfetto; do
		tdat-convert -f $f -o "$d/m.$f" "${m[@]}" 2>"$d/m.err"
		tdat-convert -f $f -o "$d/ab.$f" "${opts[@]}" "$@" 2>"$d/ab.err"
	done
	# "" if every table of m has ab's rows (the metadata rows of the
	# files' own facts aside), else the first table that differs and how
	t_ask sq "$d/m.sqlite"$'\t'"$d/ab.sqlite"
	[[ $T_REPLY == same ]] && T_REPLY=
	is "$name: SQLite, every table row for row" "${T_REPLY#differ }" ""
	t_assert "$name: CSV byte for byte ($(wc -l <"$d/m.csv") lines)" cmp -s "$d/m.csv" "$d/ab.csv"
	t_assert "$name: JSON byte for byte but the files' facts" cmp -s <(facts "$d/m.json") <(facts "$d/ab.json")
	t_assert "$name: .pftrace byte for byte" cmp -s "$d/m.perfetto" "$d/ab.perfetto"
	if [[ -n $HAVE_DUCKDB ]]; then
		tdat-convert -f parquet -o "$d/m.pq" "${m[@]}" 2>/dev/null
		tdat-convert -f parquet -o "$d/ab.pq" "${opts[@]}" "$@" 2>/dev/null
		t_ask pq "$d/m.pq"$'\t'"$d/ab.pq"
		t_assert "$name: Parquet, every file row for row (${T_REPLY#same * * })" \
			test "${T_REPLY%% *}" = same
	fi
}

HAVE_DUCKDB=
if readers_ready; then
	HAVE_DUCKDB=1
	t_serve pq node "$TOP_SRCDIR/tests/cli/parquet-same.mjs"
fi

# ---- pairs of captures ----
# Each capture with those 1, 2, 4, 8 and 16 places after it in testdata/'s
# order (around the end): every capture in ten pairs, about 5 n of the
# n (n - 1) / 2 pairs, which were the suite's longest test.
# TDAT_TEST_ALL_PAIRS=1 merges every pair.
caps=("$TD"/*.dat)
n=${#caps[@]}
pairs=()
declare -A seen=()
for ((i = 0; i < n; i++)); do
	if [[ -n ${TDAT_TEST_ALL_PAIRS-} ]]; then
		for ((j = i + 1; j < n; j++)); do pairs+=("$i $j"); done
		continue
	fi
	for step in 1 2 4 8 16; do
		j=$(((i + step) % n))
		((i == j)) && continue
		p="$((i < j ? i : j)) $((i < j ? j : i))"
		[[ -n ${seen[$p]-} ]] && continue
		seen[$p]=1 pairs+=("$p")
	done
done
merged=0 refused=0
for p in "${pairs[@]}"; do
	read -r i j <<<"$p"
	a=${caps[i]} b=${caps[j]} pair="$(basename "${caps[i]}" .dat)+$(basename "${caps[j]}" .dat)"
	rm -f "$O/m.dat"
	if ! tdat-merge -o "$O/m.dat" "$a" "$b" 2>"$O/merge.err"; then
		# the reasons two captures cannot be merged: one trace.dat has one
		# event per id, and one format per event
		t_assert "$pair: refused, saying why ($(tail -n 1 "$O/merge.err" | cut -c1-100))" \
			grep -Eq 'event id .* cannot be merged into one trace.dat|has another format there than in the first input' "$O/merge.err"
		refused=$((refused + 1))
		continue
	fi
	merged=$((merged + 1))
	same_exports "$pair" "$O/m.dat" "$a" "$b"
done
t_assert "most pairs merge ($merged merged, $refused refused)" test "$merged" -gt $((refused * 4))

# ---- --align, --ts-offset, and merging again ----
A=$TD/v6.dat B=$TD/two-buffers.dat C=$TD/clock-mono.dat
tdat-merge -o "$O/al.dat" --align $A $B 2>/dev/null
same_exports "--align" "$O/al.dat" --align -- $A $B
tdat-merge -o "$O/off.dat" --ts-offset "$B=-1.5ms" --name "$B=guest" $A $B 2>/dev/null
same_exports "--ts-offset and --name" "$O/off.dat" --ts-offset "$B=-1.5ms" --name "$B=guest" -- $A $B
tdat-merge -o "$O/ab.dat" $A $B 2>/dev/null
tdat-merge -o "$O/abc.dat" "$O/ab.dat" $C 2>/dev/null
same_exports "a merged file merged again" "$O/abc.dat" $A $B $C
t_run "tdat-info of it" -- tdat-info "$O/abc.dat"
t_stdout_match "lists the three inputs it holds" '^merged: +v6 \(buffer v6\)$'
t_stdout_match "with their buffers" '^ +two-buffers \(buffers two-buffers, two-buffers:foo\)$'
tdat-convert -o "$O/ab-all.dat" --ts-offset 1ms "$O/ab.dat" 2>/dev/null
same_exports "--ts-offset on a merged file moves all its inputs" "$O/ab-all.dat" --ts-offset 1ms -- $A $B
mkdir -p "$O/pieces"
tdat-split --every 50ms -o "$O/pieces/p" "$O/ab.dat" 2>/dev/null
same_exports "the pieces of a split merged file, read together" "$(echo "$O"/pieces/p.*.dat)" $A $B
tdat-merge -o "$O/back.dat" "$O"/pieces/p.*.dat 2>/dev/null
same_exports "its pieces merged back" "$O/back.dat" $A $B

# ---- trace processor: two machines' CPUs and threads stay apart ----
if [[ -x $TP ]]; then
	tdat-convert -o "$O/ab.pftrace" "$O/ab.dat"
	tdat-convert -o "$O/ab.db" "$O/ab.dat"
	t_run "trace processor's sched of the merged file" -- "$TP" query "$O/ab.pftrace" \
		"select cpu, count(*), sum(dur) from sched group by cpu order by cpu"
	is "four CPUs, each input's own, as our SQLite's ucpu" "$(sed 1d "$T_OUT" | tr -d '"')" \
		"$(sqlite3 -csv "$O/ab.db" 'select ucpu, count(*), sum(dur) from sched group by ucpu order by ucpu')"
	# a switch's prev_pid is the thread that ran on the CPU before it (the kernel's
	# own misses after idle aside, testdata/README): as many as in the inputs alone
	mism() { "$TP" query "$1" "select value from stats where name = 'mismatched_sched_switch_tids'" 2>/dev/null | sed 1d; }
	tdat-convert -o "$O/a.pftrace" $A
	tdat-convert -o "$O/b.pftrace" $B
	is "no more mismatched switches than the inputs have alone" "$(mism "$O/ab.pftrace")" \
		"$(( $(mism "$O/a.pftrace") + $(mism "$O/b.pftrace") ))"
else
	skip "trace processor's sched of the merged file" "no trace_processor_shell ($TP)"
fi

t_serve_end sq
if [[ -n $HAVE_DUCKDB ]]; then
	t_serve_end pq
else
	skip "the Parquet datasets of merged files" "$NPM_WHY"
fi
done_testing
