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
NPMDIR=${TDAT_TEST_NPM:-${XDG_CACHE_HOME:-$HOME/.cache}/tdat-test-npm}

command -v node >/dev/null || skip_all "node is not installed (apt-get install nodejs npm)"
node -e "require.resolve('$NPMDIR/node_modules/hyparquet-compressors')" 2>/dev/null ||
	skip_all "hyparquet is not in $NPMDIR (tests/cli/t-parquet.sh installs it)"

t_none() {
	if [[ -z $2 ]]; then ok "$1"; else not_ok "$1" "$(head -n 10 <<<"$2")"; fi
}

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
