#!/usr/bin/env bash
# t-oom.sh: out of memory.  tdat-convert runs under `ulimit -v` limits
# stepped from where the input cannot be opened to where the conversion
# has all it needs, for each format (and -j 2 for those with threads of
# their own).  At every limit the run ends in one of two ways:
#   complete  exit 0, and the output is the one an unlimited run writes;
#   failed    exit 1 with a message that says memory ran out, and either no
#             output or, when only the kernel's symbols could not be read
#             (a damage the message names), the output;
# never a signal, and never a temporary output left behind.  Found so:
# libtraceevent searching the function map it had failed to allocate, a
# 256 KiB array on the stack that the limit would not let grow, and the
# temporary folder left when listing it needed memory.
# Under AddressSanitizer, which reserves terabytes of address space, a
# limit means nothing: skipped.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
T_TIMEOUT=60
IN=testdata/v7-zstd.dat
OUT=$T_TMP/out
mkdir -p "$OUT" "$T_TMP/ref"

grep -qa __asan_init "$BIN/tdat-convert" &&
	skip_all "tdat-convert is built with AddressSanitizer, which reserves terabytes of address space"

# the limits, in KiB: 8 MiB to 64 MiB in steps of 1.5 MiB
LIMITS=$(seq 8192 1536 65536)

# same REF OUT: whether an output (a file or a dataset folder) equals the reference.
same() {
	if [[ -d $1 ]]; then
		diff -r -x tdat.json "$1" "$2" >/dev/null
	else
		cmp -s "$1" "$2"
	fi
}

# sweep NAME EXT CONVERT-ARGS...: one check over all the limits.
sweep() {
	local name=$1 ext=$2 kb rc bad='' done=0 failed=0 dmg=0
	shift 2
	local ref=$T_TMP/ref/$name.$ext out=$OUT/o.$ext
	if ! tdat-convert "$@" -o "$ref" "$IN" 2>"$T_TMP/ref.err"; then
		not_ok "$name: the run without a limit" "$(cat "$T_TMP/ref.err")"
		return
	fi
	for kb in $LIMITS; do
		rc=0
		(ulimit -v "$kb" && exec tdat-convert "$@" -o "$out" "$IN") \
			</dev/null >/dev/null 2>"$T_TMP/err" || rc=$?
		if compgen -G "$OUT/*.tmp-*" >/dev/null; then
			bad="at $kb KiB: a temporary output was left: $(ls "$OUT")"
		elif ((rc == 0)) && ! same "$ref" "$out"; then
			bad="at $kb KiB: exit 0, but the output is not the unlimited run's"
		elif ((rc == 0)); then
			done=$((done + 1))
		elif ((rc != 1)); then
			bad="at $kb KiB: exit $rc: $(head -c 300 "$T_TMP/err")"
		elif ! grep -Eq '^tdat-convert: .*(out of memory|not enough memory|Cannot allocate memory)' "$T_TMP/err"; then
			bad="at $kb KiB: exit 1 without saying memory ran out: $(head -c 300 "$T_TMP/err")"
		elif [[ -e $out ]] && ! grep -q 'out of memory reading kallsyms: kernel addresses' "$T_TMP/err"; then
			bad="at $kb KiB: exit 1, out of memory, and an output left: $(head -c 300 "$T_TMP/err")"
		elif [[ -e $out ]]; then
			dmg=$((dmg + 1))
		else
			failed=$((failed + 1))
		fi
		[[ -n $bad ]] && break
		rm -rf "$out"
	done
	if [[ -n $bad ]]; then
		not_ok "$name: out of memory, complete or failed cleanly" "$bad"
	elif ((done == 0 || failed == 0)); then
		not_ok "$name: out of memory, complete or failed cleanly" \
			"the limits did not reach both ends: $done complete, $failed failed"
	else
		ok "$name: out of memory, complete or failed cleanly ($failed failed, $dmg without symbols, $done complete)"
	fi
	rm -rf "${OUT:?}"/*	# the next sweep starts clean
}

sweep parquet pq -f parquet -j 1
sweep "parquet -j 2" pq2 -f parquet -j 2
sweep sqlite db -f sqlite -j 1
sweep "sqlite -j 2" db2 -f sqlite -j 2
sweep text txt -f text
sweep csv csv -f csv
sweep json json -f json
sweep perfetto pftrace -f perfetto
sweep "json.gz -j 2" json.gz -f json -j 2
done_testing
