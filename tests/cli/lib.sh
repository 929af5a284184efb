# tests/cli/lib.sh: TAP helpers sourced by the CLI tests (tests/cli/t-*.sh).
#
#	#!/usr/bin/env bash
#	. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
#	plan 3
#	t_golden "text output" convert-text.out -- tdat-convert -f text testdata/v7-zstd.dat
#	t_exit "bad option" 2 -- tdat-convert --bogus
#	t_stderr_match "bad option is named" "unrecognized option|--bogus"
#
# Environment (set by Makefile.am's AM_TESTS_ENVIRONMENT; defaults for a run
# by hand from a source-tree build):
#   TOP_SRCDIR          source tree; tests run with it as the working directory,
#                       so paths like testdata/x.dat stay relative in outputs
#   BIN                 directory holding tdat-convert etc., put first in PATH
#   TRACE_CMD           trace-cmd to compare with; empty means not available
#   TRACE_CMD_34        trace-cmd 3.4 (default ../shared/tools/trace-cmd-3.4/
#                       trace-cmd beside the source tree); empty: not available
#   TDAT_UPDATE_GOLDEN  1: rewrite tests/expected/ files instead of comparing
#   TDAT_KEEP_TMP       1: keep the scratch directory and say where it is
#   T_TIMEOUT           seconds before a command is killed (default 120)
#
# Every check below prints exactly one TAP line ("ok N - NAME" or "not ok N
# - NAME" with "# " diagnostics), so the count for plan is the number of
# checks called. t_run prints none: it only runs a command and records
#   T_OUT T_ERR   files holding its stdout and stderr
#   T_RC          its exit status (128+N: killed by signal N)
#   T_CMD         the command, for messages
# Commands read stdin from /dev/null unless `--stdin FILE` comes before `--`.
# Checks always return 0 (so `set -e` in a test does not stop at the first
# failure); T_LAST_OK is 1 or 0 for a test that wants to branch on one.
# $T_TMP is a scratch directory for this test file, removed at exit.

# shellcheck disable=SC2034	# T_LAST_OK, T_RC ... are for the tests
if [[ -n ${TDAT_CLI_LIB_LOADED-} ]]; then
	return 0
fi
TDAT_CLI_LIB_LOADED=1

TOP_SRCDIR=${TOP_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BIN=${BIN:-$TOP_SRCDIR/tools}
TRACE_CMD=${TRACE_CMD-$(command -v trace-cmd || true)}
T_TIMEOUT=${T_TIMEOUT:-120}
export TOP_SRCDIR BIN TRACE_CMD
PATH=$BIN:$PATH
# A mistyped helper or command in a test stops it with an error, not a line
# on stderr (bash runs this in a subshell: $$ is the test).
command_not_found_handle() {
	echo "Bail out! ${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]}: no command '$1'"
	kill -TERM $$
}
# Sanitizer builds: make a report abort (a signal the checks catch) and keep
# the stack traces readable.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
# Fixed locale and time zone so outputs do not depend on the machine.
export LC_ALL=C TZ=UTC
# Text as Debian's trace-cmd 3.1.6 prints it: $TRACE_CMD is that one and the
# goldens in tests/expected/ are its output.  Tests of trace-cmd 3.4's style
# (the tools' default) say so: --report-style 3.4, or TDAT_REPORT_STYLE
# unset for the default (t-text.sh, t-text34.sh).
export TDAT_REPORT_STYLE=3.1
# trace-cmd 3.4 (../shared/tools/trace-cmd-3.4, see its README): the oracle
# of the default style; empty or missing: those checks print SKIP.
TRACE_CMD_34=${TRACE_CMD_34-$TOP_SRCDIR/../shared/tools/trace-cmd-3.4/trace-cmd}
export TRACE_CMD_34

T_COUNT=0
T_FAILED=0
T_PLANNED=
T_RUNS=0
T_LAST_OK=''
T_OUT='' T_ERR='' T_RC='' T_CMD=''
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/tdat-cli.XXXXXX") || {
	echo "Bail out! cannot create a scratch directory"
	exit 1
}

cd "$TOP_SRCDIR" || {
	echo "Bail out! cannot cd to TOP_SRCDIR=$TOP_SRCDIR"
	exit 1
}

_t_at_exit() {
	local rc=$?

	if [[ ${TDAT_KEEP_TMP-} == 1 ]]; then
		echo "# scratch files kept in $T_TMP"
	else
		rm -rf "$T_TMP"
	fi
	if [[ -z $T_PLANNED ]]; then
		echo "# the script ended without plan or done_testing (after $T_COUNT tests)"
		rc=1
	elif ((T_COUNT != T_PLANNED)); then
		echo "# planned $T_PLANNED tests but ran $T_COUNT"
		rc=1
	elif ((T_FAILED > 0)); then
		echo "# failed $T_FAILED of $T_COUNT tests"
		rc=1
	fi
	exit "$rc"
}
trap _t_at_exit EXIT

# --- TAP basics --------------------------------------------------------------

plan() {
	T_PLANNED=$1
	echo "1..$1"
}

done_testing() {
	if [[ -z $T_PLANNED ]]; then
		T_PLANNED=$T_COUNT
		echo "1..$T_COUNT"
	fi
}

skip_all() {
	T_PLANNED=0
	echo "1..0 # SKIP $*"
	exit 0
}

diag() {
	local line
	for line in "$@"; do
		printf '%s\n' "$line" | sed 's/^/# /'
	done
}

# TAP descriptions: escape '#' so it does not read as a directive.
_t_desc() {
	local d=${1//\\/\\\\}
	# as $(...) had it: no newline at the end
	while [[ $d == *$'\n' ]]; do
		d=${d%$'\n'}
	done
	T_DESC=${d//#/\\#}
}

ok() {
	T_COUNT=$((T_COUNT + 1))
	T_LAST_OK=1
	_t_desc "$1"
	echo "ok $T_COUNT - $T_DESC"
}

# not_ok NAME [DIAG...]: a failed test, with diagnostic lines.
not_ok() {
	T_COUNT=$((T_COUNT + 1))
	T_FAILED=$((T_FAILED + 1))
	T_LAST_OK=0
	_t_desc "$1"
	echo "not ok $T_COUNT - $T_DESC"
	shift
	diag "$@"
	return 0
}

# skip NAME REASON
skip() {
	T_COUNT=$((T_COUNT + 1))
	_t_desc "$1"
	echo "ok $T_COUNT - $T_DESC # SKIP $2"
}

# is NAME GOT WANT: passes if the two strings are equal (a diff if not).
is() {
	if [[ $2 == "$3" ]]; then
		ok "$1"
	else
		not_ok "$1" "$(diff <(echo "$3") <(echo "$2") | head -20)"
	fi
}

# t_same NAME GOT WANT: as is, but an empty WANT fails (nothing to compare with).
t_same() {
	if [[ -z $3 ]]; then
		not_ok "$1" "nothing to compare with (empty reference)"
	elif [[ $2 == "$3" ]]; then
		ok "$1"
	else
		not_ok "$1" "got vs wanted:" "$(diff <(echo "$2") <(echo "$3") | head -n 10)"
	fi
}

# t_none NAME GOT: passes if GOT (a list of the problems found) is empty.
t_none() {
	if [[ -z $2 ]]; then ok "$1"; else not_ok "$1" "$(head -n 10 <<<"$2")"; fi
}

# counts_info FILE: "SYSTEM.EVENT COUNT" per event type of tdat-info --json, sorted.
counts_info() {
	tdat-info --json "$1" | grep -o '"event_counts":\[[^]]*\]' | grep -o '{[^}]*}' |
		sed 's/.*"system":"\([^"]*\)","name":"\([^"]*\)","count":\([0-9]*\).*/\1.\2 \3/' | sort
}

# t_assert NAME CMD...: passes if CMD exits 0.
t_assert() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name" "failed: $*"; fi
}

# The test readers of the formats (never used by the tools): one list, one
# folder, installed by the first test that needs them while the others wait.
NPMDIR=${TDAT_TEST_NPM:-${XDG_CACHE_HOME:-$HOME/.cache}/tdat-test-npm}
NPM_READERS=(@duckdb/node-api@1.5.6-r.1 hyparquet@1.33.0 hyparquet-compressors@1.1.2
	nodejs-polars@0.26.1 nodejs-polars-linux-x64-gnu@0.26.1)
export NPMDIR

# readers_there: every reader of NPM_READERS resolves in $NPMDIR.
readers_there() {
	local p mods=()
	for p in "${NPM_READERS[@]}"; do mods+=("'$NPMDIR/node_modules/${p%@*}'"); done
	node -e "for (const m of [$(IFS=,; echo "${mods[*]}")]) require.resolve(m)" 2>/dev/null
}

# readers_ready: 0 when the readers are in $NPMDIR, installing them first if
# they are not (under a lock: tests run side by side, and none may see a half
# install); else 1 with the reason in $NPM_WHY.
readers_ready() {
	local log=$T_TMP/npm.log
	command -v node >/dev/null || { NPM_WHY="node is not installed (apt-get install nodejs npm)"; return 1; }
	command -v npm >/dev/null || { NPM_WHY="npm is not installed (apt-get install npm)"; return 1; }
	mkdir -p "$NPMDIR" && { [[ -f $NPMDIR/package.json ]] || echo '{"private":true}' >"$NPMDIR/package.json"; }
	if ! (flock 9 && { readers_there || (cd "$NPMDIR" &&
		timeout 600 npm install --no-audit --no-fund --loglevel=error "${NPM_READERS[@]}"); }) \
		9>"$NPMDIR/.install.lock" >"$log" 2>&1 || ! readers_there; then
		NPM_WHY="npm could not install ${NPM_READERS[*]} into $NPMDIR: $(grep -m1 -i 'err' "$log")"
		return 1
	fi
}

# need_readers: readers_ready, or the whole test skipped saying why.
need_readers() {
	readers_ready || skip_all "$NPM_WHY"
}

have_trace_cmd() {
	[[ -n $TRACE_CMD && -x $TRACE_CMD ]]
}

have_trace_cmd_34() {
	[[ -n $TRACE_CMD_34 && -x $TRACE_CMD_34 ]]
}

# golden_args BASE: of a text golden NAME.text[34][VARIANT].out, G_NAME,
# G_VARIANT and in T_ARGS the tdat-convert options of the variant (-t: -t;
# -raw, -R, -ts2secs: --raw-ts, -R, --ts2secs $HZ; none); 1 for an unknown one
golden_args() {
	G_NAME=${1%%.text*}
	G_VARIANT=${1#"$G_NAME".text}
	G_VARIANT=${G_VARIANT#34}
	G_VARIANT=${G_VARIANT%.out}
	case $G_VARIANT in
	"") T_ARGS=() ;;
	-t) T_ARGS=(-t) ;;
	-raw) T_ARGS=(--raw-ts) ;;
	-R) T_ARGS=(-R) ;;
	-ts2secs) T_ARGS=(--ts2secs "$HZ") ;;
	*) return 1 ;;
	esac
}

# is_zlib FILE: a v7 file compressed with zlib (Debian's trace-cmd 3.1.6 has no zlib)
is_zlib() {
	LC_ALL=C head -c 40 "$1" | grep -aq zlib
}

# tc31_readable FILE: a path of FILE's events that trace-cmd 3.1.6 reads: FILE, or
# for a zlib one the zstd copy trace-cmd 3.4's convert makes of it (of the same
# base name, in $T_TMP/tc31); nothing when that cannot be made.
tc31_readable() {
	local d=$T_TMP/tc31/${1//\//_}
	if ! is_zlib "$1"; then
		echo "$1"
	elif [[ -s $d/${1##*/} ]]; then
		echo "$d/${1##*/}"
	elif have_trace_cmd_34 && mkdir -p "$d" &&
		"$TRACE_CMD_34" convert -i "$1" -o "$d/${1##*/}" --compression zstd >/dev/null 2>&1; then
		echo "$d/${1##*/}"
	fi
}

# --- running commands --------------------------------------------------------

# _t_parse NAME [--stdin FILE] -- CMD...: sets _T_IN and _T_SHIFT (args to drop).
_t_parse() {
	_T_IN=/dev/null
	_T_SHIFT=1
	shift
	while (($#)); do
		case $1 in
		--stdin) _T_IN=$2; shift 2; _T_SHIFT=$((_T_SHIFT + 2)) ;;
		--) _T_SHIFT=$((_T_SHIFT + 1)); return 0 ;;
		*) echo "Bail out! lib.sh: expected -- before the command, got '$1'"; exit 1 ;;
		esac
	done
	echo "Bail out! lib.sh: no -- before the command"
	exit 1
}

# t_run NAME [--stdin FILE] -- CMD...: run CMD, keeping stdout, stderr and status.
t_run() {
	local dir
	_t_parse "$@"
	shift "$_T_SHIFT"
	T_RUNS=$((T_RUNS + 1))
	dir=$T_TMP/run-$T_RUNS
	mkdir -p "$dir"
	T_OUT=$dir/stdout
	T_ERR=$dir/stderr
	T_CMD="$*"
	T_RC=0
	if command -v timeout >/dev/null; then
		{ timeout -k 5 "$T_TIMEOUT" "$@" <"$_T_IN" >"$T_OUT" 2>"$T_ERR" || T_RC=$?; } 2>/dev/null
	else
		{ "$@" <"$_T_IN" >"$T_OUT" 2>"$T_ERR" || T_RC=$?; } 2>/dev/null
	fi
	return 0
}

# Why the last run counts as a crash (signal, timeout, sanitizer), or nothing:
# in T_WHY (a variable, not a $(...) subshell for each check)
_t_crash_reason() {
	T_WHY=
	if ((T_RC == 124)) && command -v timeout >/dev/null; then
		T_WHY="timed out after ${T_TIMEOUT}s"
	elif ((T_RC == 126 || T_RC == 127)); then
		T_WHY="could not run (status $T_RC): $T_CMD"
	elif ((T_RC >= 128)); then
		T_WHY="killed by signal $((T_RC - 128))$(kill -l $((T_RC - 128)) 2>/dev/null |
			sed 's/^/ (SIG/; s/$/)/')"
	elif [[ -n $T_ERR ]] && grep -Eq 'ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error: ' "$T_ERR"; then
		T_WHY="sanitizer report on stderr"
	fi
}

# Diagnostics for a failed check: the command, its status and stderr's head.
_t_run_diag() {
	diag "command: $T_CMD" "exit status: $T_RC"
	if [[ -s $T_ERR ]]; then
		diag "stderr:"
		head -n 10 "$T_ERR" | sed 's/^/#   /'
	fi
}

# _t_verdict NAME PROBLEM...: ok if no problem was given, else not ok.
_t_verdict() {
	local name=$1
	shift
	if (($# == 0)); then
		ok "$name"
		return 0
	fi
	not_ok "$name" "$@"
	_t_run_diag
}

# t_nocrash NAME [--stdin FILE] -- CMD...: CMD may fail, but not by a signal.
t_nocrash() {
	local name=$1 why
	t_run "$@"
	_t_crash_reason
	why=$T_WHY
	_t_verdict "$name" ${why:+"$why"}
}

# t_nosignal NAME: the last t_run did not die by a signal (or sanitizer).
t_nosignal() {
	local why
	_t_crash_reason
	why=$T_WHY
	_t_verdict "$1" ${why:+"$why"}
}

# t_exit NAME WANT [--stdin FILE] -- CMD...: CMD exits with status WANT.
t_exit() {
	local name=$1 want=$2 why
	shift 2
	t_run "$name" "$@"
	_t_crash_reason
	why=$T_WHY
	if [[ -n $why ]]; then
		_t_verdict "$name" "$why"
	elif ((T_RC != want)); then
		_t_verdict "$name" "exit status $T_RC, wanted $want"
	else
		ok "$name"
	fi
}

# t_stderr_match NAME REGEX: the last run's stderr matches an extended regex.
t_stderr_match() {
	if grep -Eq -- "$2" "$T_ERR"; then
		ok "$1"
	else
		_t_verdict "$1" "stderr does not match /$2/"
	fi
}

# t_stdout_match NAME REGEX: the same for stdout.
t_stdout_match() {
	if grep -Eq -- "$2" "$T_OUT"; then
		ok "$1"
	else
		_t_verdict "$1" "stdout does not match /$2/"
	fi
}

# _t_compare GOT EXPECTED LABEL: echo problems; TDAT_UPDATE_GOLDEN=1 rewrites
# EXPECTED from GOT (an empty GOT removes an optional .err/.exit sidecar).
_t_compare() {
	local got=$1 want=$2 label=$3 optional=${4-}
	if [[ ${TDAT_UPDATE_GOLDEN-} == 1 ]]; then
		if [[ -n $optional && ! -s $got ]]; then
			rm -f "$want"
		elif ! cmp -s "$got" "$want"; then
			mkdir -p "$(dirname "$want")" && cp "$got" "$want" &&
				echo "updated ${want#"$TOP_SRCDIR"/}" >&2
		fi
		return 0
	fi
	if [[ ! -e $want ]]; then
		[[ -n $optional && ! -s $got ]] && return 0
		echo "missing ${want#"$TOP_SRCDIR"/} (make it with TDAT_UPDATE_GOLDEN=1)"
		return 0
	fi
	cmp -s "$got" "$want" && return 0
	echo "$label differs from ${want#"$TOP_SRCDIR"/}:"
	diff -u --label "expected/${want##*/}" --label "got" "$want" "$got" |
		sed -n '1,20p' | sed 's/^/  /'
}

# t_golden NAME EXPECTED [--stdin FILE] -- CMD...: CMD's stdout is byte for byte
# tests/expected/EXPECTED, and CMD did not crash.
t_golden() {
	local name=$1 want=$TOP_SRCDIR/tests/expected/$2 why problems=()
	shift 2
	t_run "$name" "$@"
	_t_crash_reason
	why=$T_WHY
	[[ -n $why ]] && problems+=("$why")
	mapfile -t -O "${#problems[@]}" problems < <(_t_compare "$T_OUT" "$want" stdout)
	_t_verdict "$name" "${problems[@]}"
}

# t_case NAME BASE [--stdin FILE] -- CMD...: the full sidecar check of
# tests/expected/BASE.{out,err,exit}: stdout equals BASE.out, stderr equals
# BASE.err (no file: empty), the status equals BASE.exit (no file: 0).
t_case() {
	local name=$1 base=$TOP_SRCDIR/tests/expected/$2 why want_rc=0 problems=()
	shift 2
	t_run "$name" "$@"
	_t_crash_reason
	why=$T_WHY
	[[ -n $why ]] && problems+=("$why")
	mapfile -t -O "${#problems[@]}" problems < <(
		_t_compare "$T_OUT" "$base.out" stdout
		_t_compare "$T_ERR" "$base.err" stderr optional)
	if [[ ${TDAT_UPDATE_GOLDEN-} == 1 ]]; then
		if ((T_RC == 0)); then rm -f "$base.exit"; else echo "$T_RC" >"$base.exit"; fi
	else
		[[ -e $base.exit ]] && want_rc=$(<"$base.exit")
		((T_RC == want_rc)) || problems+=("exit status $T_RC, wanted $want_rc")
	fi
	_t_verdict "$name" "${problems[@]}"
}

# t_empty_dir NAME DIR: DIR holds no files (nothing left behind on failure).
t_empty_dir() {
	local left
	left=$(find "$2" -mindepth 1 2>/dev/null | head -n 5 || true)
	if [[ -z $left ]]; then ok "$1"; else not_ok "$1" "left behind in $2:" "$left"; fi
}

# t_golden_dir NAME EXPECTED_DIR GOT_DIR: every file of GOT_DIR is byte for
# byte the one of the same name in tests/expected/EXPECTED_DIR, and neither
# directory has a file the other lacks.  TDAT_UPDATE_GOLDEN=1 rewrites
# EXPECTED_DIR from GOT_DIR (and removes files GOT_DIR no longer has).
t_golden_dir() {
	local name=$1 want=$TOP_SRCDIR/tests/expected/$2 got=$3 f problems=()
	if [[ ${TDAT_UPDATE_GOLDEN-} == 1 && -d $want ]]; then
		for f in "$want"/*; do
			[[ -e $f && ! -e $got/${f##*/} ]] && rm -f "$f" && echo "removed ${f#"$TOP_SRCDIR"/}" >&2
		done
	fi
	if [[ ${TDAT_UPDATE_GOLDEN-} != 1 ]]; then
		for f in "$want"/*; do
			[[ -e $f && ! -e $got/${f##*/} ]] && problems+=("not written: ${f##*/}")
		done
	fi
	for f in "$got"/*; do
		# the mark of a folder tdat wrote (its version inside) is t-dataset.sh's
		[[ -e $f && ${f##*/} != _tdat ]] || continue
		mapfile -t -O "${#problems[@]}" problems < <(_t_compare "$f" "$want/${f##*/}" "${f##*/}")
	done
	[[ -n $(find "$got" -mindepth 1 -print -quit 2>/dev/null) ]] || problems+=("$got is empty")
	if ((${#problems[@]})); then not_ok "$name" "${problems[@]}"; else ok "$name"; fi
}

# --- checkers that stay up ----------------------------------------------------
# A checker in python3 or node starts slower than it compares one pair of
# files: a test starts it once and asks it item by item, in the order of its
# checks, each answer read before the next check (so the files asked about
# can be removed at once, and a failure names the item that failed).

# t_serve NAME CMD...: start CMD in the background, reading lines from a fifo
# and writing one answer line a line asked to another (NAME a shell word)
t_serve() {
	local name=$1 wfd rfd
	shift
	rm -f "$T_TMP/serve-$name.in" "$T_TMP/serve-$name.out"
	mkfifo "$T_TMP/serve-$name.in" "$T_TMP/serve-$name.out" || {
		echo "Bail out! cannot make the fifos of $name"
		exit 1
	}
	# without the other checkers' input fds: each sees its end when it is told
	(
		for v in ${!T_SERVE_W_@} ${!T_SERVE_R_@}; do
			fd=${!v}
			exec {fd}>&-
		done
		exec "$@"
	) <"$T_TMP/serve-$name.in" >"$T_TMP/serve-$name.out" &
	printf -v "T_SERVE_PID_$name" %s "$!"
	exec {wfd}>"$T_TMP/serve-$name.in" {rfd}<"$T_TMP/serve-$name.out"
	printf -v "T_SERVE_W_$name" %s "$wfd"
	printf -v "T_SERVE_R_$name" %s "$rfd"
}

# t_ask NAME LINE: send LINE to NAME's checker; its answer in T_REPLY (the
# reason in it when the checker is gone or does not answer: then it starts
# "checker NAME"; the line is written by a subshell, so that a checker gone
# is a SIGPIPE of that subshell, not of the test)
t_ask() {
	local pid=T_SERVE_PID_$1 w=T_SERVE_W_$1 r=T_SERVE_R_$1
	T_REPLY=
	if [[ -z ${!pid-} ]] || ! kill -0 "${!pid}" 2>/dev/null; then
		T_REPLY="checker $1 is not running"
	elif ! (printf '%s\n' "$2" >&"${!w}") 2>/dev/null || ! IFS= read -r T_REPLY <&"${!r}"; then
		T_REPLY="checker $1 did not answer${T_REPLY:+ (got \"$T_REPLY\")}"
	fi
}

# t_serve_end NAME: the checker is told that nothing more comes, and waited for
t_serve_end() {
	local pid=T_SERVE_PID_$1 w=T_SERVE_W_$1 r=T_SERVE_R_$1 wfd rfd
	wfd=${!w-} rfd=${!r-}
	[[ -n $wfd ]] && exec {wfd}>&- {rfd}<&-
	[[ -n ${!pid-} ]] && wait "${!pid}" 2>/dev/null
	unset "T_SERVE_PID_$1" "T_SERVE_W_$1" "T_SERVE_R_$1"
}
