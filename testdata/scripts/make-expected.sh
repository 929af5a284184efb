#!/bin/sh
# Regenerate the golden outputs tests/expected/*.out from the real trace-cmd report: Debian's 3.1.6
# (trace-cmd on PATH) for the 3.1 text style, and trace-cmd 3.4 ($TC34, default
# /work/shared/tools/trace-cmd-3.4/trace-cmd) for the 3.4 style, tdat's default.
# Runs from inside testdata/ so the file names trace-cmd prints (multi-input) are the bare names.
# For each testdata/X.dat:
#   X.text.out      = trace-cmd report X.dat                (3.1.6)
#   X.text-t.out    = trace-cmd report -t X.dat             (full-precision timestamps; some files)
#   X.text-raw.out  = trace-cmd report --raw-ts X.dat       (raw timestamps, no corrections; some files)
#   X.text-R.out    = trace-cmd report -R X.dat             (raw field values; some files)
#   X.text-ts2secs.out = trace-cmd report --ts2secs 2096000000 X.dat (the clock counts 2.096 GHz
#                     ticks, this machine's TSC; some files)
#   multi.text.out  = trace-cmd report -i v7-zstd.dat -i v6.dat
#   multi.text-R.out = trace-cmd report -R -i two-buffers.dat -i v6-two-buffers.dat
#   X.text34*.out, multi.text34*.out: the same from trace-cmd 3.4 (report -i X.dat ...), for every
#                     file plain and for fewer files in the other variants (the tests compare every
#                     file and variant live where 3.4 is there)
# 3.1.6 cannot read a zlib-compressed file (it has no zlib): its 3.1 goldens are 3.1.6's report of
# the zstd copy that trace-cmd 3.4's convert makes of it.
# Each report is run twice and must give identical stdout; stderr and exit status must be empty/0
# (anything else is printed). A summary goes to stdout.
set -u
cd "$(dirname "$0")/.." || exit 1     # -> testdata/
E=../tests/expected
TC34=${TC34:-/work/shared/tools/trace-cmd-3.4/trace-cmd}
mkdir -p $E
tmp=$(mktemp -d)
fail=0
# gen TOOL OUT ARGS...: TOOL is 31 (Debian's trace-cmd) or 34 (trace-cmd 3.4)
gen() {
  tool=$1 out=$2; shift 2
  if [ $tool = 34 ]; then set -- "$TC34" report "$@"; else set -- trace-cmd report "$@"; fi
  "$@" > $E/$out 2> $tmp/err; rc=$?
  "$@" > $tmp/again 2> $tmp/err2; rc2=$?
  cmp -s $E/$out $tmp/again || { echo "NOT DETERMINISTIC: $out"; fail=1; }
  [ -s $E/$out ] || { echo "EMPTY: $out"; fail=1; }
  if [ $rc != 0 ] || [ $rc2 != 0 ] || [ -s $tmp/err ]; then
    echo "$out: rc=$rc stderr:"; sed 's/^/    /' $tmp/err
  fi
}
# what 3.1.6 reads for FILE: FILE, or for a zlib one 3.4's zstd copy of it (same base name)
readable31() {
  if LC_ALL=C head -c 40 "$1" | grep -aq zlib; then
    mkdir -p $tmp/z && "$TC34" convert -i "$1" -o $tmp/z/$1 --compression zstd >/dev/null 2>&1 &&
      echo $tmp/z/$1
  else
    echo "$1"
  fi
}
# -t and --raw-ts goldens only for the files whose time handling differs (the
# CLI tests also compare every file and variant live when trace-cmd is installed).
with_t=" v7-zstd clock-mono clock-counter clock-x86-tsc date lost-events "
with_raw=" v6 clock-mono clock-x86-tsc date "
# -R: each kind of record and layout once (v6, instances, markers and raw_data,
# stack arrays, lost events, a clock in ticks); the tests compare all live.
with_R=" v6 two-buffers markers stack lost-events clock-x86-tsc "
# --ts2secs: clocks in ticks, a DATE offset on top, instances.
HZ=2096000000
with_ts2secs=" clock-x86-tsc clock-counter date two-buffers "
# 3.4: the irq-flags column beside each kind of time (us, ns, ticks, DATE, raw), -R's flags and
# function addresses (hrtimer functions, a marker's ip, a %pS call site)
with_t34=" v7-zstd clock-x86-tsc date "
with_raw34=" date "
with_R34=" v6 markers stack lost-events clock-x86-tsc "
with_ts2secs34=" clock-x86-tsc "
for f in *.dat sym/kmem.dat; do
  x=${f%.dat}; x=${x#sym/}
  # its golden is v6.text.out: it is v6.dat with formats of events that do not occur added
  [ $x = arm64-formats ] && continue
  # chunks.dat (30118 lines) and atrace.dat have no golden: the tests compare them live
  [ $x = chunks ] || [ $x = atrace ] && continue
  r=$(readable31 $f)
  [ -n "$r" ] || { echo "no 3.1.6-readable copy of $f"; fail=1; continue; }
  # the captures of trace-cmd 3.4 are large (its loader adds events): their 3.1 goldens only where
  # 3.1.6 cannot read the file, their 3.4 ones but for v6 and two buffers (layouts whose 3.4
  # goldens v6 and two-buffers give); the tests compare all of them live
  case $x in tc34-*) [ "$r" = "$f" ] || gen 31 $x.text.out $r ;; *) gen 31 $x.text.out $r ;; esac
  case $x in tc34-v6|tc34-two-buffers) ;; *) gen 34 $x.text34.out -i $f ;; esac
  case $with_t in *" $x "*) gen 31 $x.text-t.out -t $r ;; esac
  case $with_raw in *" $x "*) gen 31 $x.text-raw.out --raw-ts $r ;; esac
  case $with_R in *" $x "*) gen 31 $x.text-R.out -R $r ;; esac
  case $with_ts2secs in *" $x "*) gen 31 $x.text-ts2secs.out --ts2secs $HZ $r ;; esac
  case $with_t34 in *" $x "*) gen 34 $x.text34-t.out -t -i $f ;; esac
  case $with_raw34 in *" $x "*) gen 34 $x.text34-raw.out --raw-ts -i $f ;; esac
  case $with_R34 in *" $x "*) gen 34 $x.text34-R.out -R -i $f ;; esac
  case $with_ts2secs34 in *" $x "*) gen 34 $x.text34-ts2secs.out --ts2secs $HZ -i $f ;; esac
  [ -e $E/$x.text.out ] &&
  printf '%-26s size=%-8s lines=%-6s events=%-6s drop-lines=%s\n' $f $(wc -c < $f) $(wc -l < $E/$x.text.out) \
    $(grep -cE '\[[0-9]{3}\] *[0-9]+(\.[0-9]+)?:' $E/$x.text.out) $(grep -cE '^CPU:[0-9]+ \[' $E/$x.text.out)
done
gen 31 multi.text.out -i v7-zstd.dat -i v6.dat
gen 34 multi.text34.out -i v7-zstd.dat -i v6.dat
printf '%-26s lines=%s\n' multi.text.out $(wc -l < $E/multi.text.out)
# lastboot/lastboot.dat (tc34-zlib.dat with a persistent buffer's LAST_BOOT_INFO and MODULES_FILE,
# scripts/make-lastboot.py): the lines 3.4 names a function on, plain and -R
"$TC34" report -i lastboot/lastboot.dat 2>/dev/null | grep -E ' (function|ip)=' > $E/lastboot.text34-func.out
"$TC34" report -R -i lastboot/lastboot.dat 2>/dev/null | grep -E ' (function|ip)=' > $E/lastboot.text34-R-func.out
gen 31 multi.text-R.out -R -i two-buffers.dat -i v6-two-buffers.dat
gen 34 multi.text34-R.out -R -i two-buffers.dat -i v6-two-buffers.dat
printf '%-26s lines=%s\n' multi.text-R.out $(wc -l < $E/multi.text-R.out)
rm -rf $tmp
exit $fail
