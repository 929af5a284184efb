#!/usr/bin/env bash
# tests/bench/bench-pieces.sh: a big capture against its own pieces (issue 43).
# The capture is split into about 1,000 and 10,000 pieces (tdat-split
# --events); then every tool and format reads the pieces and the capture
# side by side, in turns, at the default -j, and the table gives the time of
# the pieces over the capture's (target: at most 1.5x) and the peak RSS over
# the capture's (target: at most 32 MiB more), all under ulimit -n 256.
# Not part of make check; see tests/bench/README.md.
#
#   tests/bench/bench-pieces.sh [BIG.dat]
#
# With no file, it takes big-v7.dat of $TDAT_BENCH_DIR (default
# /var/tmp/tdat-bench), which tests/bench/bench.sh --record-only records.
# Exit status: 0 all targets met, 1 error, 2 usage, 3 a target missed or an
# output of the pieces differs from the capture's.
set -euo pipefail
export LC_ALL=C

REPO=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$REPO/tools}
BENCH_DIR=${TDAT_BENCH_DIR:-/var/tmp/tdat-bench}
RUNS=${TDAT_BENCH_RUNS:-3}
COUNTS=(${TDAT_BENCH_PIECES:-1000 10000})
TARGET_TIME=1.5		# the pieces' time over the capture's, at most
TARGET_RSS_MIB=32	# the pieces' peak RSS over the capture's, at most
OPEN_FILES=256		# ulimit -n for every run
MISSED=0

say() { printf 'bench-pieces: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

[[ ${1-} == -h || ${1-} == --help ]] && { sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 0; }
(($# <= 1)) || { echo "usage: $0 [BIG.dat]" >&2; exit 2; }
BIG=${1:-$BENCH_DIR/big-v7.dat}
[[ -r $BIG ]] || die "$BIG: not there (tests/bench/bench.sh --record-only records it)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is not installed (Debian package time)"
SCRATCH=$(mktemp -d "${TMPDIR:-/var/tmp}/tdat-bench-pieces.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

# timed OUT CMD...: run CMD under ulimit -n, output to OUT; prints "SECONDS KIB"
timed() {
	local out=$1
	shift
	rm -rf "$out"
	bash -c "ulimit -n $OPEN_FILES && exec /usr/bin/time -f '%e %M' -o '$SCRATCH/time' \"\$@\"" _ "$@" \
		>"$out.stdout" 2>"$SCRATCH/err" || { cat "$SCRATCH/err" >&2; die "failed: $*"; }
	cat "$SCRATCH/time"
}

# row NAME TOOL ARGS...: the capture and the pieces in turns, RUNS each: the
# best time and the largest peak RSS of each, their ratio and difference, and
# whether the outputs are the same bytes ("-": a database or dataset, whose
# rows make check compares)
row() {
	local name=$1 tool=$2 ta=999999 tb=999999 ra=0 rb=0 t r line out
	shift 2
	for ((i = 0; i < RUNS; i++)); do
		read -r t r < <(timed "$SCRATCH/a" "$BIN/$tool" "$@" "$(outopt "$tool")" "$SCRATCH/a" "$BIG")
		ta=$(awk -v x="$t" -v y="$ta" 'BEGIN { print (x < y ? x : y) }')
		((r > ra)) && ra=$r
		read -r t r < <(timed "$SCRATCH/b" "$BIN/$tool" "$@" "$(outopt "$tool")" "$SCRATCH/b" "${PIECES[@]}")
		tb=$(awk -v x="$t" -v y="$tb" 'BEGIN { print (x < y ? x : y) }')
		((r > rb)) && rb=$r
	done
	out=$(same_output "$tool" "$@")
	[[ $out == DIFFERS ]] && MISSED=1
	line=$(awk -v a="$ta" -v b="$tb" -v ra="$ra" -v rb="$rb" -v tt="$TARGET_TIME" -v tr="$TARGET_RSS_MIB" \
		'BEGIN { x = a > 0 ? b / a : 0; d = (rb - ra) / 1024;
			 printf "%7.2f %7.2f %6.2fx %7.0f %7.0f %+7.0f  %s", a, b, x, ra / 1024, rb / 1024, d,
			 (x <= tt && d <= tr) ? "ok    " : "MISSED" }')
	[[ $line == *MISSED ]] && MISSED=1
	printf '%-22s %s  %s\n' "$name" "$line" "$out"
}

# same_output TOOL ARGS...: whether the capture's output a and the pieces'
# b are the same: text, CSV and .pftrace byte for byte, JSON but for the
# file's own facts (size, version, compression), a trace.dat by its CSV;
# "-" for a database, a dataset or a picture (make check compares their rows)
same_output() {
	local a=$SCRATCH/a b=$SCRATCH/b
	case "$1 $*" in
	*sqlite* | *parquet* | tdat-info*) echo -; return ;;
	*json*)
		cmp -s <(facts "$a") <(facts "$b") ;;
	tdat-merge* | tdat-filter*)
		"$BIN/tdat-convert" -f csv -o "$SCRATCH/a.csv" "$a" &&
			"$BIN/tdat-convert" -f csv -o "$SCRATCH/b.csv" "$b" &&
			cmp -s "$SCRATCH/a.csv" "$SCRATCH/b.csv" ;;
	*)
		cmp -s "$a" "$b" ;;
	esac && echo same || echo DIFFERS
}

# facts FILE: a JSON trace without the file's own facts
facts() { sed -E 's/"(file_version|compression|compression_version|file_size)":[^,}]*//g' "$1"; }

# The option that names a tool's output.
outopt() { [[ $1 == tdat-info ]] && echo --svg || echo -o; }

EVENTS=$("$BIN/tdat-info" --json "$BIG" | python3 -c 'import json, sys; print(json.load(sys.stdin)["events"])')
say "$BIG: $EVENTS events, $(stat -c %s "$BIG") bytes, $(nproc) CPUs"
for n in "${COUNTS[@]}"; do
	mkdir -p "$SCRATCH/p$n"
	"$BIN/tdat-split" --max-pieces $((n * 2)) --events $(((EVENTS + n - 1) / n)) -o "$SCRATCH/p$n/p" "$BIG"
	PIECES=("$SCRATCH/p$n"/p.*.dat)
	echo
	echo "$BIG and its ${#PIECES[@]} pieces ($(du -sh "$SCRATCH/p$n" | cut -f1)), best of $RUNS, ulimit -n $OPEN_FILES"
	printf '%-22s %7s %7s %7s %7s %7s %7s  %-6s  %s\n' "" "file s" "pieces" "ratio" "MiB" "MiB" \
		"delta" "target" "output"
	row "text" tdat-convert -f text
	row "csv" tdat-convert -f csv
	row "json" tdat-convert -f json
	row "perfetto" tdat-convert -f perfetto
	row "sqlite" tdat-convert -f sqlite
	row "parquet" tdat-convert -f parquet
	row "tdat-merge" tdat-merge -f dat
	row "tdat-filter -e sched" tdat-filter -e sched
	row "tdat-info --svg" tdat-info
	rm -rf "$SCRATCH/p$n"
done
exit $((MISSED ? 3 : 0))
