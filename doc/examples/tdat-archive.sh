#!/usr/bin/env bash
# tdat-archive.sh - convert a folder tree of trace.dat captures into one
# dataset with GNU parallel, on this machine's cores or on many machines.
#
#   tdat-archive.sh [-f parquet|csv|sqlite] [-j N] [-S SSHLOGIN]...
#                   [--sshloginfile FILE] IN_DIR OUT_DIR [-- tdat-convert options]
#
# Every IN_DIR/**/*.dat (or .dat.gz, .dat.zst, .dat.xz: tdat reads them as
# they are) becomes OUT_DIR/capture=NAME, NAME being its path under IN_DIR
# without ".dat" (and the compression's suffix), '/' written as "__"
# (a/b/x.dat: a__b__x):
#   csv      capture=NAME/SYSTEM.EVENT.csv, typed (--split-by-event)
#   parquet  capture=NAME/ (the default): events.parquet, event/SYSTEM.EVENT.parquet,
#            analysis/TABLE.parquet, _tdat/trace.json (tdat-parquet(7))
#   sqlite   capture=NAME/trace.db
# The capture=NAME folders are a hive-partitioned dataset: DuckDB reads them
# all at once with a `capture` column, e.g.
#   SELECT capture, count(*) FROM read_parquet('OUT/*/event/sched.sched_switch.parquet',
#       hive_partitioning = true) GROUP BY capture;
# and SQLite databases are ATTACHed side by side.
#
# parallel keeps a joblog in OUT_DIR/.tdat-archive.joblog: running the same
# command again converts only what failed or was never converted (a failed
# conversion is converted again from scratch, and leaves nothing behind).
# The format and the options after -- are kept in OUT_DIR/.tdat-archive.options:
# a run into OUT_DIR with others is refused, so that one dataset never mixes
# two selections (remove OUT_DIR, or name another, to convert with them).
# With -S/--sshloginfile, each capture is
# copied to the machine that converts it and its folder copied back (tdat must
# be installed there; ':' is this machine).  Exit status: 0 when every capture
# converted, 1 when some did not (they are listed), 2 for a usage error.
set -euo pipefail

prog=${0##*/}
usage() {
	sed -n '4,6p' "$0" | sed 's/^#  *//; s/^/usage: /; 2,$s/^usage:/      /' >&2
	exit 2
}

format=parquet jobs= logins=() hosts=
while (($#)); do
	case $1 in
	-f) format=${2:?}; shift 2 ;;
	-j) jobs=${2:?}; shift 2 ;;
	-S) logins+=(--sshlogin "${2:?}")
	    [[ $2 =~ ^([0-9]+/)?:$ ]] || hosts=1	# ':' is this machine
	    shift 2 ;;
	--sshloginfile) logins+=(--sshloginfile "${2:?}"); hosts=1; shift 2 ;;
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

# The captures, as IN/./REL; two that would share a NAME (x.dat and x.dat.gz) are refused.
list=$(mktemp) || exit 1
trap 'rm -f "$list"' EXIT
(cd "$in" && find . -type f \( -name '*.dat' -o -name '*.dat.gz' -o -name '*.dat.zst' -o \
	-name '*.dat.xz' \) -print0) | sed -z "s:^\./:$in/./:" | sort -z >"$list"
dup=$(tr '\0' '\n' <"$list" | sed 's:.*/\./::; s:\.dat\(\.gz\|\.zst\|\.xz\)\{0,1\}$::' | sort | uniq -d)
if [[ -n $dup ]]; then
	echo "$prog: captures that would share a name (keep one of each):" >&2
	sed 's/^/  /; s/$/.dat*/' <<<"$dup" >&2
	exit 2
fi

# The options every capture of OUT is converted with: the same on every run.
opts="format $format; tdat-convert ${convert_opts[*]@Q}"
if [[ -e $out/.tdat-archive.options ]]; then
	if [[ $(cat "$out/.tdat-archive.options") != "$opts" ]]; then
		echo "$prog: $out was converted with other options:" >&2
		sed 's/^/  /' "$out/.tdat-archive.options" >&2
		echo "  (this run: $opts); remove $out, or name another output, to convert with them" >&2
		exit 2
	fi
elif [[ -n $(ls -A "$out") ]]; then
	echo "$prog: $out is not empty and is not a dataset of $prog (no .tdat-archive.options)" >&2
	exit 2
else
	printf '%s\n' "$opts" >"$out/.tdat-archive.options"
fi

# One job: {} is IN/./REL.dat.  On another machine parallel put the file at
# REL.dat under the job's work dir; here it is under IN.  tdat-convert reads
# it as REL.dat from the folder that holds it either way, so the paths the
# dataset records (trace.json, tdat.source) are the same wherever it ran.
# The job writes capture=NAME into OUT here, into its work dir there (copied
# back).
name='{= s:.*/\./::; s:\.dat(\.gz|\.zst|\.xz)?$::; s:/:__:g; $_ = "capture=$_" =}'
rel='{= s:.*/\./:: =}'
# Only a capture that failed (or never ran) runs: what it left is not kept,
# and a failure leaves nothing (sqlite's folder included).
if [[ $format == sqlite ]]; then
	target="\"\$o\"/$name/trace.db"
	prepare="rm -rf \"\$o\"/$name && mkdir \"\$o\"/$name &&"
else
	target="\"\$o\"/$name"
	prepare="rm -rf \"\$o\"/$name &&"
fi
job="o=\$PWD d=.; [ -e $rel ] || { o=${out@Q} d=${in@Q}; }; $prepare"
job="$job (cd \"\$d\" && exec tdat-convert ${convert_opts[*]@Q} -o $target $rel)"
job="$job || { s=\$?; rm -rf \"\$o\"/$name; exit \$s; }"

# Another machine: the capture goes there and its folder comes back, in a
# work dir of the job's own (--workdir ...) that --cleanup removes whole
# (it removes only files by name, not a returned folder).  GNU parallel
# 20221122 quotes a --return path for the remote shell as rsync before 3.2.4
# needs it; newer rsync quotes it again unless told to take it as it is.
remote=("${logins[@]}")
if [[ -n $hosts ]]; then
	remote+=(--workdir ... --transferfile {} --return "$name" --cleanup)
	export RSYNC_OLD_ARGS=1
fi
cd "$out"
set +e
parallel -0 -a "$list" ${jobs:+-j "$jobs"} --joblog "$out/.tdat-archive.joblog" --resume-failed \
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
