#!/usr/bin/env bash
# quickstart.sh: install what tdat needs, build it, and then either run the
# sample job (default), run the test suite, or stop after the build.
#
#   ./quickstart.sh [run]   build, then convert testdata/v7-zstd.dat into out/
#   ./quickstart.sh check   build, then make check
#   ./quickstart.sh build   build only
#
# Safe to run again: each step is skipped when its output is up to date.
set -euo pipefail

cd "$(dirname "$0")"

# Debian packages: toolchain, libraries, and the tools the tests use
# (trace-cmd is the oracle for golden tests, sqlite3 reads back SQLite
# output, groff lints the man pages, protoc decodes Perfetto output, xmllint
# validates and rsvg-convert renders tdat-info --svg, python3 reads the pixels,
# GNU parallel runs doc/examples/tdat-archive.sh, over ssh too: openssh-server's
# sshd, started by tests/cli/t-ssh.sh on 127.0.0.1 with keys of its own, and
# rsync, which parallel copies files with; liblzma reads .dat.xz inputs;
# node and npm install DuckDB, hyparquet and nodejs-polars into a cache folder
# to read the Parquet output back: tests/cli/t-parquet.sh, t-dataset.sh).
PACKAGES=(build-essential autoconf automake libtool pkg-config
	libtraceevent-dev libtracefs-dev libzstd-dev zlib1g-dev libdeflate-dev liblzma-dev
	libsqlite3-dev libjson-c-dev sqlite3 trace-cmd groff-base protobuf-compiler
	libxml2-utils librsvg2-bin python3 parallel openssh-client openssh-server rsync
	nodejs npm)

SAMPLE=testdata/v7-zstd.dat
OUT=out

# tdat-convert formats the run job produces: "FORMAT FILE", one per line.
CONVERSIONS=(
	"text trace.txt"
	"csv  trace.csv"
	"json trace.json"
	"sqlite trace.db"
	"perfetto trace.pftrace"
)

JOBS=$(nproc 2>/dev/null || echo 2)

say() { printf 'quickstart: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# True if $1 is missing or older than any of the following files.
stale() {
	local target=$1 dep
	shift
	[[ -e $target ]] || return 0
	for dep; do
		[[ -e $dep && $dep -nt $target ]] && return 0
	done
	return 1
}

missing_packages() {
	local p
	for p in "${PACKAGES[@]}"; do
		# node and npm from elsewhere (NodeSource's nodejs bundles npm, and
		# conflicts with Debian's npm package) will do
		case $p in
		nodejs) command -v node >/dev/null && continue ;;
		npm) command -v npm >/dev/null && continue ;;
		esac
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q 'ok installed' || printf '%s\n' "$p"
	done
}

install_deps() {
	local missing
	if ! command -v dpkg-query >/dev/null; then
		say "not a Debian system; make sure these are installed: ${PACKAGES[*]}"
		return 0
	fi
	mapfile -t missing < <(missing_packages)
	((${#missing[@]} == 0)) && return 0
	if [[ $(id -u) != 0 ]]; then
		say "missing packages; run this, then ./quickstart.sh again:"
		printf 'sudo apt-get update && sudo apt-get install -y --no-install-recommends %s\n' \
			"${missing[*]}" >&2
		exit 1
	fi
	say "installing ${missing[*]}"
	apt-get update -qq >&2 || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >&2 || die "apt-get install ${missing[*]} failed"
}

build() {
	install_deps
	if stale configure configure.ac Makefile.am; then
		say "autoreconf"
		autoreconf -fi >&2
		touch configure		# autoconf may keep an unchanged file's old time
	fi
	if stale Makefile configure; then
		say "configuring"
		./configure --quiet >&2
	fi
	say "building"
	make -j"$JOBS" >&2
}

# The totals of test-suite.log as one "N passed, N failed, N skipped" line,
# the closing line CI looks for.
totals() {
	[[ -f test-suite.log ]] || return 0
	awk '/^# (PASS|XFAIL):/ { p += $3 } /^# (FAIL|XPASS|ERROR):/ { f += $3 }
		/^# SKIP:/ { s += $3 }
		END { printf "quickstart: %d passed, %d failed, %d skipped\n", p, f, s }' \
		test-suite.log
}

check() {
	say "running make check"
	rm -f test-suite.log	# so a build failure does not show an old one
	if ! make -j"$JOBS" check >&2; then
		if [[ -f test-suite.log ]]; then
			say "tests failed; end of test-suite.log:"
			tail -n 60 test-suite.log >&2
		fi
		totals
		die "make check failed"
	fi
	totals
	say "all tests passed"
}

# step DESCRIPTION CMD...: run one output step, naming it if it fails.
step() {
	local what=$1
	shift
	"$@" || die "step failed: $what ($*)"
}

summary_file() {
	local f=$1
	printf '  %-16s %10s bytes %8s lines\n' "$f" "$(stat -c %s "$f")" "$(wc -l <"$f")"
}

run_sample() {
	local c fmt file outputs=()
	[[ -f $SAMPLE ]] || die "sample capture $SAMPLE not found"
	mkdir -p "$OUT"
	say "running the sample job on $SAMPLE"

	step "tdat-info" tools/tdat-info "$SAMPLE" >"$OUT/info.txt"
	step "tdat-info --json" tools/tdat-info --json "$SAMPLE" >"$OUT/info.json"
	outputs+=("$OUT/info.txt" "$OUT/info.json")
	for c in "${CONVERSIONS[@]}"; do
		read -r fmt file <<<"$c"
		step "tdat-convert -f $fmt" \
			tools/tdat-convert -f "$fmt" -o "$OUT/$file" "$SAMPLE"
		outputs+=("$OUT/$file")
	done

	echo "Outputs:"
	for file in "${outputs[@]}"; do
		summary_file "$file"
	done
	echo
	echo "First 5 lines of $OUT/trace.txt:"
	head -n 5 "$OUT/trace.txt"
	echo
	echo "CSV header of $OUT/trace.csv:"
	head -n 1 "$OUT/trace.csv"
	echo
	echo "tdat-info $SAMPLE (first 15 lines):"
	head -n 15 "$OUT/info.txt"
}

main() {
	local cmd=${1:-run}
	case $cmd in
	run)	build; run_sample ;;
	check)	build; check ;;
	build)	build ;;
	-h|--help)
		sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*)	say "unknown command '$cmd' (use run, check or build)"; exit 2 ;;
	esac
}

main "$@"
