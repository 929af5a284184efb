#!/usr/bin/env bash
# t-parquet-sorted.sh: the footers of a -f parquet dataset tell the truth
# (doc/tdat-parquet.7 "Sort order" and "Statistics"), for every file of the
# dataset of every capture in testdata/ (parquet-sorted.mjs, hyparquet):
# a row group that declares sorting_columns holds rows in that order, as do
# the file's rows before it; every DOUBLE column chunk has nan_count, and it
# is the count of NaN values it holds.  The event files (sorted by ts as
# merged) still declare it.  hyparquet comes from the npm cache
# t-parquet.sh fills.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata

command -v node >/dev/null || skip_all "node is not installed (apt-get install nodejs npm)"
need_readers

nans=0
for dat in $TD/*.dat; do
	f=$(basename "$dat" .dat)
	out=$T_TMP/$f
	if ! tdat-convert -f parquet -o "$out" "$dat" 2>/dev/null && [[ ! -f $out/events.parquet ]]; then
		not_ok "$f.dat: a dataset is written"
		continue
	fi
	NPMDIR=$NPMDIR node tests/cli/parquet-sorted.mjs "$out" >"$out.chk" 2>&1
	t_none "$f.dat: every sorting_columns holds, every DOUBLE chunk counts its NaN" \
		"$(grep -v '^sorted \|^nan \|^files ' "$out.chk")"
	t_assert "$f.dat: events.parquet declares ts" grep -q '^sorted events.parquet 0 ts$' "$out.chk"
	nans=$((nans + $(grep -c '^nan ' "$out.chk")))
	rm -rf "$out"
done
t_assert "DOUBLE column chunks were checked ($nans)" test "$nans" -gt 0
done_testing
