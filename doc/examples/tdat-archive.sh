#!/usr/bin/env bash
# tdat-archive.sh - convert a folder tree of trace.dat captures into one
# dataset with GNU parallel, on this machine's cores or on many machines.
#
#   tdat-archive.sh [-f parquet|csv|sqlite] [-j N] [-S SSHLOGIN]...
#                   [--sshloginfile FILE] IN_DIR OUT_DIR [-- tdat-convert options]
#
# Every IN_DIR/**/*.dat becomes OUT_DIR/capture=NAME, NAME being its path
# under IN_DIR without ".dat", '/' written as "__" (a/b/x.dat: a__b__x):
#   csv      capture=NAME/SYSTEM.EVENT.csv, typed (--split-by-event)
#   parquet  capture=NAME/SYSTEM.EVENT.parquet (the default), events.parquet, trace.json
#   sqlite   capture=NAME/trace.db
# The capture=NAME folders are a hive-partitioned dataset: DuckDB reads them
# all at once with a `capture` column, e.g.
#   SELECT capture, count(*) FROM read_parquet('OUT/*/sched.sched_switch.parquet',
#       hive_partitioning = true) GROUP BY capture;
# and SQLite databases are ATTACHed side by side.
#
# parallel keeps a joblog in OUT_DIR/.tdat-archive.joblog: running the same
# command again converts only what failed or was never converted (a failed
# conversion is converted again from scratch).  With -S/--sshloginfile, each capture is
# copied to the machine that converts it and its folder copied back (tdat must
# be installed there; ':' is this machine).  Exit status: 0 when every capture
# converted, 1 when some did not (they are listed), 2 for a usage error.
set -euo pipefail

prog=${0##*/}
usage() {
	sed -n '4,6p' "$0" | sed 's/^#  *//; s/^/usage: /; 2,$s/^usage:/      /' >&2
	exit 2
}

format=parquet jobs= logins=()
while (($#)); do
	case $1 in
	-f) format=${2:?}; shift 2 ;;
	-j) jobs=${2:?}; shift 2 ;;
	-S) logins+=(--sshlogin "${2:?}"); shift 2 ;;
	--sshloginfile) logins+=(--sshloginfile "${2:?}"); shift 2 ;;
	-h|--help) usage ;;
	--) break ;;
	-*) echo "$prog: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
(($# >= 2)) || usage
in=$1 out=$2
shift 2
[[ ${1-} == -- ]] && shift
convert_opts=("$@")

case $format in
csv) convert_opts=(-f csv --split-by-event "${convert_opts[@]}") ;;
parquet) convert_opts=(-f parquet "${convert_opts[@]}") ;;
sqlite) convert_opts=(-f sqlite "${convert_opts[@]}") ;;
*) echo "$prog: -f $format: csv, parquet or sqlite" >&2; exit 2 ;;
esac
command -v parallel >/dev/null || { echo "$prog: GNU parallel is not installed (Debian: parallel)" >&2; exit 1; }
[[ -d $in ]] || { echo "$prog: $in: not a directory" >&2; exit 2; }
mkdir -p "$out"
in=$(cd "$in" && pwd) out=$(cd "$out" && pwd)
case $out/ in "$in"/*) echo "$prog: $out: the output is inside the input folder" >&2; exit 2 ;; esac

# One job: {} is IN/./REL.dat.  Here the file is there; on another machine,
# parallel put it at REL.dat under the job's work dir.  The job writes
# capture=NAME (relative: OUT here, the work dir there, copied back).
name='{= s:.*/\./::; s:\.dat$::; s:/:__:g; $_ = "capture=$_" =}'
rel='{= s:.*/\./:: =}'
# Only a capture that failed (or never ran) runs: what it left is not kept.
if [[ $format == sqlite ]]; then
	target="$name/trace.db"
	prepare="rm -rf $name && mkdir $name &&"
else
	target=$name
	prepare="rm -rf $name &&"
fi
job="f={}; [ -e \"\$f\" ] || f=$rel; $prepare tdat-convert ${convert_opts[*]@Q} -o $target \"\$f\""

remote=()
((${#logins[@]})) && remote=("${logins[@]}" --transferfile {} --return "$name" --cleanup)
cd "$out"
set +e
(cd "$in" && find . -name '*.dat' -type f -print0) | sed -z "s:^\./:$in/./:" | sort -z |
	parallel -0 ${jobs:+-j "$jobs"} --joblog "$out/.tdat-archive.joblog" --resume-failed \
		--halt never "${remote[@]}" "$job"
status=$?
set -e
if ((status)); then
	echo "$prog: $status capture(s) failed to convert; run the same command again to retry them:" >&2
	# the last try of each capture
	awk -F'\t' 'NR > 1 { match($9, /capture=[^ \/]*/); c = substr($9, RSTART, RLENGTH)
		gsub(/\047/, "", c); last[c] = $7 } END { for (c in last) if (last[c]) print "  " c }' \
		"$out/.tdat-archive.joblog" | sort >&2
	exit 1
fi
