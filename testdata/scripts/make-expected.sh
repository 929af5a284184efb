#!/bin/sh
# Regenerate the golden outputs tests/expected/*.out from the real trace-cmd (3.1.6) report.
# Runs from inside testdata/ so the file names trace-cmd prints (multi-input) are the bare names.
# For each testdata/X.dat:
#   X.text.out      = trace-cmd report X.dat
#   X.text-t.out    = trace-cmd report -t X.dat        (full-precision timestamps; some files)
#   X.text-raw.out  = trace-cmd report --raw-ts X.dat  (raw timestamps, no corrections; some files)
#   X.text-R.out    = trace-cmd report -R X.dat        (raw field values; some files)
#   X.text-ts2secs.out = trace-cmd report --ts2secs 2096000000 X.dat (the clock counts 2.096 GHz
#                     ticks, this machine's TSC; some files)
#   multi.text.out  = trace-cmd report -i v7-zstd.dat -i v6.dat
#   multi.text-R.out = trace-cmd report -R -i two-buffers.dat -i v6-two-buffers.dat
# Each report is run twice and must give identical stdout; stderr and exit status must be empty/0
# (anything else is printed). A summary goes to stdout.
set -u
cd "$(dirname "$0")/.." || exit 1     # -> testdata/
E=../tests/expected
mkdir -p $E
tmp=$(mktemp -d)
fail=0
gen() { # $1 = output name, rest = report arguments
  out=$1; shift
  trace-cmd report "$@" > $E/$out 2> $tmp/err; rc=$?
  trace-cmd report "$@" > $tmp/again 2> $tmp/err2; rc2=$?
  cmp -s $E/$out $tmp/again || { echo "NOT DETERMINISTIC: $out"; fail=1; }
  [ -s $E/$out ] || { echo "EMPTY: $out"; fail=1; }
  if [ $rc != 0 ] || [ $rc2 != 0 ] || [ -s $tmp/err ]; then
    echo "$out: rc=$rc stderr:"; sed 's/^/    /' $tmp/err
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
for f in *.dat; do
  x=${f%.dat}
  # its golden is v6.text.out: it is v6.dat with formats of events that do not occur added
  [ $x = arm64-formats ] && continue
  gen $x.text.out     $f
  case $with_t in *" $x "*) gen $x.text-t.out -t $f ;; esac
  case $with_raw in *" $x "*) gen $x.text-raw.out --raw-ts $f ;; esac
  case $with_R in *" $x "*) gen $x.text-R.out -R $f ;; esac
  case $with_ts2secs in *" $x "*) gen $x.text-ts2secs.out --ts2secs $HZ $f ;; esac
  printf '%-26s size=%-8s lines=%-6s events=%-6s drop-lines=%s\n' $f $(wc -c < $f) $(wc -l < $E/$x.text.out) \
    $(grep -cE '\[[0-9]{3}\] *[0-9]+(\.[0-9]+)?:' $E/$x.text.out) $(grep -cE '^CPU:[0-9]+ \[' $E/$x.text.out)
done
gen multi.text.out -i v7-zstd.dat -i v6.dat
printf '%-26s lines=%s\n' multi.text.out $(wc -l < $E/multi.text.out)
gen multi.text-R.out -R -i two-buffers.dat -i v6-two-buffers.dat
printf '%-26s lines=%s\n' multi.text-R.out $(wc -l < $E/multi.text-R.out)
rm -rf $tmp
exit $fail
