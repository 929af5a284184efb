#!/usr/bin/env bash
# t-convert.sh: how tdat-convert behaves as a command: CSV row counts and
# quoting, stdin and pipes, format from the output name, several inputs,
# output files written whole or not at all, usage errors, closed pipes.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata

events_of() {	# number of events tdat-info counts in a file
	tdat-info --json "$1" | sed -n 's/.*"events":\([0-9]*\),"lost".*/\1/p'
}

# --- CSV: one row per event, RFC 4180 that sqlite3 imports ---
for f in v7-zstd v6 two-buffers markers lost-events; do
	t_run "csv $f" -- tdat-convert -f csv $TD/$f.dat
	want=$(events_of $TD/$f.dat)
	if ((T_RC == 0)); then
		printf '.import --csv %s t\nselect count(*) from t;\n' "$T_OUT" >"$T_TMP/imp.sql"
		got=$(sqlite3 :memory: <"$T_TMP/imp.sql" 2>&1)
		[[ $got == "$want" ]] && ok "$f.dat: sqlite3 imports one CSV row per event ($want)" ||
			not_ok "$f.dat: sqlite3 imports one CSV row per event" "got '$got', want $want"
	else
		not_ok "$f.dat: csv conversion" "exit $T_RC"
	fi
done
t_run "csv header" -- tdat-convert -f csv $TD/v6.dat
t_assert "csv header names the columns" \
	test "$(head -n 1 "$T_OUT")" = "ts,cpu,input,buffer,pid,comm,system,event,lost,fields"
t_stdout_match "csv rows carry typed fields" '^[0-9]+,[01],0,,[0-9]+,[^,]*,sched,sched_switch,0,"?prev_comm=\\?"'

# markers: quotes doubled, odd bytes escaped, valid UTF-8 throughout
t_run "csv markers" -- tdat-convert -f csv $TD/markers.dat
printf '.import --csv %s t\nselect fields from t where event = %s;\n' "$T_OUT" "'print'" >"$T_TMP/q.sql"
sqlite3 :memory: <"$T_TMP/q.sql" >"$T_TMP/markers" 2>&1
t_assert "marker text with a double quote survives the CSV round trip" grep -qF 'double \"quoted\" text' "$T_TMP/markers"
t_assert "bytes that are not UTF-8 are written as \\xNN" grep -q '\\xff\\xfe' "$T_TMP/markers"
t_assert "the CSV is valid UTF-8" iconv -f UTF-8 -t UTF-8 "$T_OUT" -o /dev/null

# lost events column
t_run "csv lost" -- tdat-convert -f csv $TD/lost-events.dat
t_stdout_match "rows after a drop carry the lost count" ',[a-z_]+,[a-z_]+,1[0-9]{4},'
# kernel_stack's format says caller[8]; a shorter stack is a shorter record, and
# its entries are what it has (they were an empty "?" before)
t_run "csv kernel_stack" -- tdat-convert -f csv $TD/stack.dat
t_assert "every stack keeps its callers" test -z "$(grep 'caller=?' "$T_OUT")"
t_stdout_match "a 7-entry stack has 7 callers" 'size=7 caller=\[[0-9]+(,[0-9]+){6}\]"$'
# and a longer one all it has, whatever caller[8] says: as many as trace-cmd
# report lists, stack by stack (most stacks in stack.dat are deeper than 8)
want=$(awk '/kernel_stack:/ { if (n != "") print n; n = 0; next } /^=>/ { n++ } END { print n }' \
	tests/expected/stack.text.out | tr '\n' ' ')
t_assert "CSV: every stack has the callers trace-cmd lists" \
	test "$(sed -n 's/.*kernel_stack,.*caller=\[\([^]]*\)\].*/\1/p' "$T_OUT" | awk -F, '{ print NF }' | tr '\n' ' ')" = "$want"
t_assert "and more than 8 in some" grep -q 'caller=\[[0-9]\+\(,[0-9]\+\)\{8\}' "$T_OUT"
t_run "json kernel_stack" -- tdat-convert -f json $TD/stack.dat
t_assert "JSON: every stack has the callers trace-cmd lists" \
	test "$(grep -o '"caller":\[[^]]*\]' "$T_OUT" | awk -F, '{ print NF }' | tr '\n' ' ')" = "$want"

# --- inputs: stdin, pipes, several files ---
t_golden "stdin (a regular file) equals the file" v7-zstd.text.out --stdin $TD/v7-zstd.dat -- tdat-convert -
t_run "pipe" -- sh -c "cat $TD/v6.dat | tdat-convert -"
t_assert "a pipe on stdin equals the file" cmp -s "$T_OUT" tests/expected/v6.text.out
t_run "pipe csv" -- sh -c "cat $TD/two-buffers.dat | tdat-convert -f csv -"
tdat-convert -f csv $TD/two-buffers.dat >"$T_TMP/file.csv"
t_assert "csv from a pipe equals csv from the file" cmp -s "$T_OUT" "$T_TMP/file.csv"
t_golden "several inputs make one timeline" multi.text.out -- tdat-convert $TD/v7-zstd.dat $TD/v6.dat
t_run "merged csv" -- tdat-convert -f csv $TD/v7-zstd.dat $TD/v6.dat
t_assert "merged csv is sorted by ts" sh -c "tail -n +2 '$T_OUT' | cut -d, -f1 | sort -c -n"
t_assert "merged csv has both inputs' rows" test $(($(wc -l <"$T_OUT") - 1)) -eq \
	$(($(events_of $TD/v7-zstd.dat) + $(events_of $TD/v6.dat)))

# --- outputs ---
t_exit "-o file.csv picks csv" 0 -- tdat-convert -o "$T_TMP/a.csv" $TD/v6.dat
t_assert "the .csv output has the csv header" grep -q '^ts,cpu,input' "$T_TMP/a.csv"
t_exit "-o file.txt picks text" 0 -- tdat-convert -o "$T_TMP/a.txt" $TD/v6.dat
t_assert "the .txt output is the report" cmp -s "$T_TMP/a.txt" tests/expected/v6.text.out
t_exit "-o file.txt.gz gzips the text" 0 -- tdat-convert -o "$T_TMP/a.txt.gz" $TD/v6.dat
t_assert "which gunzips to the report" cmp -s <(gzip -dc "$T_TMP/a.txt.gz") tests/expected/v6.text.out
t_exit "gzip to a terminal-less stdout works too" 0 -- sh -c "tdat-convert -f csv $TD/v6.dat | cmp - $T_TMP/a.csv"
mkdir -p "$T_TMP/outdir"
t_exit "unwritable output fails" 1 -- tdat-convert -o "$T_TMP/nodir/x.txt" $TD/v6.dat
t_stderr_match "and names the file" "tdat-convert: .*nodir/x.txt: No such file or directory"
t_exit "damaged input with -o" 1 -- tdat-convert -o "$T_TMP/outdir/bad.txt" $TD/bad/bad-magic.dat
t_empty_dir "nothing is left behind when an input cannot be read" "$T_TMP/outdir"
cp $TD/v6.dat "$T_TMP/in.dat"
t_exit "output naming an input is refused (usage)" 2 -- tdat-convert -o "$T_TMP/in.dat" "$T_TMP/in.dat"
t_assert "and the input is untouched" cmp -s "$T_TMP/in.dat" $TD/v6.dat
if [[ -w /dev/full ]]; then
	t_exit "a full disk is an error" 1 -- sh -c "tdat-convert $TD/v6.dat > /dev/full"
	t_stderr_match "that says so" "No space left on device"
else
	skip "a full disk is an error" "no /dev/full"
	skip "that says so" "no /dev/full"
fi
t_run "closed pipe" -- bash -c "set -o pipefail; tdat-convert $TD/stack.dat | head -n 1"
t_assert "a closed pipe (| head) ends quietly" test ! -s "$T_ERR"
t_assert "by SIGPIPE or 0, not an error status" test "$T_RC" = 0 -o "$T_RC" = 141

# --- progress ---
t_exit "--progress" 0 -- tdat-convert --progress -o "$T_TMP/p.txt" $TD/v6.dat
t_stderr_match "ends with a summary on stderr" "^tdat-convert: 100\.0%  1859 events in [0-9.]+ s"
t_exit "no progress by default off a terminal" 0 -- tdat-convert -o "$T_TMP/p.txt" $TD/v6.dat
t_assert "so stderr stays empty" test ! -s "$T_ERR"

# --- usage ---
t_exit "--help" 0 -- tdat-convert --help
t_stdout_match "--help prints the usage" '^Usage: tdat-convert'
t_exit "--version" 0 -- tdat-convert --version
t_exit "a bad option is a usage error" 2 -- tdat-convert --bogus $TD/v6.dat
t_stderr_match "naming the option" "bogus"
t_exit "a bad option, the tool run by its path" 2 -- "$BIN/tdat-convert" --bogus $TD/v6.dat
t_stderr_match "the message starts with the tool's name, not its path" "^tdat-convert: .*bogus"
t_exit "no input (standard input not a pipe, file or terminal) is a usage error" 2 -- tdat-convert
t_exit "an unknown format is a usage error" 2 -- tdat-convert -f xml $TD/v6.dat
t_stderr_match "naming the format" "unknown format 'xml'"
t_exit "--split-by-event is for csv" 2 -- tdat-convert -f text --split-by-event -o "$T_TMP/d" $TD/v6.dat
t_exit "a bad --ts-offset is a usage error" 2 -- tdat-convert --ts-offset 12parsecs $TD/v6.dat

# --- time options ---
t_run "ts-offset" -- tdat-convert -t --ts-offset 2s $TD/v6.dat
t_assert "--ts-offset 2s adds two seconds to every timestamp" \
	sh -c "test \"\$(sed -n 2p '$T_OUT' | grep -o '[0-9]*\.[0-9]*:')\" = \"\$(tdat-convert -t $TD/v6.dat | sed -n 2p | grep -o '[0-9]*\.[0-9]*:' | awk -F'[.:]' '{ printf \"%d.%s:\", \$1 + 2, \$2 }')\""
t_run "ts-offset per file" -- tdat-convert -f csv --ts-offset $TD/v6.dat=1000 --ts-offset 5 $TD/v6.dat $TD/v7-none.dat
t_assert "FILE=NS applies to that file only" \
	test "$(awk -F, '$3 == 0' "$T_OUT" | head -1 | cut -d, -f1)" = \
	"$(($(tdat-convert -f csv $TD/v6.dat | sed -n 2p | cut -d, -f1) + 1000))"

# ---- trace-cmd's spellings (issue 23, 9) ----
t_run "-i FILE" -- tdat-convert -i $TD/v6.dat
t_assert "-i FILE reads FILE" cmp -s "$T_OUT" tests/expected/v6.text.out
t_run "-i twice" -- tdat-convert -f csv -i $TD/v6.dat -i $TD/v7-none.dat
t_assert "-i twice merges both, as two FILE arguments" \
	cmp -s "$T_OUT" <(tdat-convert -f csv $TD/v6.dat $TD/v7-none.dat)
t_run "-N" -- tdat-convert -N $TD/v6.dat
t_assert "-N is --no-plugins" cmp -s "$T_OUT" <(tdat-convert --no-plugins $TD/v6.dat)
differs() { ! cmp -s "$1" "$2"; }
t_assert "and differs from the plugins' text" differs "$T_OUT" tests/expected/v6.text.out
mkdir -p "$T_TMP/cwd" && cp $TD/v6.dat "$T_TMP/cwd/trace.dat"
t_run "no input, standard input a terminal" -- \
	script -qec "cd '$T_TMP/cwd' && tdat-convert -o out.txt" /dev/null
t_assert "reads ./trace.dat, as trace-cmd report (exit $T_RC)" cmp -s "$T_TMP/cwd/out.txt" tests/expected/v6.text.out
t_run "no input, standard input a pipe" -- bash -c "cat $TD/v6.dat | tdat-convert"
t_assert "reads the pipe" cmp -s "$T_OUT" tests/expected/v6.text.out
t_run "no input, a terminal, no ./trace.dat" -- script -qec "cd '$T_TMP' && tdat-convert" /dev/null
t_assert "fails naming trace.dat (exit $T_RC)" test "$T_RC" = 1
t_stdout_match "the message names trace.dat" '^tdat-convert: trace\.dat: No such file'

# ---- usage mistakes are usage errors, exit 2 (issue 23, 10) ----
for o in out.xyz t.DB t.db.gz t.sqlite.gz trace.dat.1; do
	t_exit "-o $o: an extension of no format (or not gzippable)" 2 -- tdat-convert -o "$T_TMP/$o" $TD/v6.dat
	t_assert "-o $o: nothing written" test ! -e "$T_TMP/$o"
done
t_stderr_match "says what to do" "database or a directory; it cannot be gzipped|name the format with -f"
t_exit "-o t.DB: refused" 2 -- tdat-convert -o "$T_TMP/t.DB" $TD/v6.dat
t_stderr_match "names the extension and -f" "^tdat-convert: -o .*/t.DB: '\.DB' is the extension of no format; name the format with -f"
t_exit "-f says the format: any name goes" 0 -- tdat-convert -f sqlite -o "$T_TMP/t.DB" $TD/v6.dat
t_assert "and it is that format" sqlite3 "$T_TMP/t.DB" 'select count(*) from ftrace_event'
t_exit "-o NAME with no extension: the default format" 0 -- tdat-convert -o "$T_TMP/plain" $TD/v6.dat
t_assert "is text" cmp -s "$T_TMP/plain" tests/expected/v6.text.out
t_exit "-o .gz of text" 0 -- tdat-convert -o "$T_TMP/x.txt.gz" $TD/v6.dat
mkdir -p "$T_TMP/adir"
t_exit "-o an existing directory" 2 -- tdat-convert -o "$T_TMP/adir" $TD/v6.dat
t_stderr_match "says a file is expected" "-o .*/adir: a file name is expected, not a directory"
t_exit "-o DIR/" 2 -- tdat-convert -o "$T_TMP/newdir/" $TD/v6.dat
t_stderr_match "says a file is expected" "a file name is expected, not a directory"
t_empty_dir "nothing written into the directory" "$T_TMP/adir"
t_exit "the same input twice" 2 -- tdat-convert $TD/v6.dat $TD/v6.dat
t_stderr_match "says so" "is named twice as an input"
ln -sf "$PWD/$TD/v6.dat" "$T_TMP/link.dat"
t_exit "the same input through a link" 2 -- tdat-convert $TD/v6.dat "$T_TMP/link.dat"
t_stderr_match "names both" "v6.dat and .*/link.dat are the same input file"
t_run "binary output to a terminal" -- script -qec "tdat-filter $PWD/$TD/v6.dat" /dev/null
t_assert "is a usage error (exit $T_RC)" test "$T_RC" = 2
t_stdout_match "that says so" "refusing to write binary output to a terminal"
t_run "-f sqlite -o -" -- tdat-convert -f sqlite -o - $TD/v6.dat
t_assert "a database on standard output is a usage error" test "$T_RC" = 2

# ---- zlib is not what Debian's trace-cmd reads (issue 23, 11) ----
t_run "--compression zlib" -- tdat-filter --compression zlib -o "$T_TMP/z.dat" $TD/v6.dat
t_assert "writes the file (exit $T_RC)" test "$T_RC" = 0 -a -s "$T_TMP/z.dat"
t_stderr_match "warns that trace-cmd without zlib cannot read it" "^tdat-filter: --compression zlib: trace-cmd builds without zlib .*cannot read the file"
t_run "--compression zstd" -- tdat-filter --compression zstd -o "$T_TMP/z.dat" $TD/v6.dat
t_assert "no warning for zstd" test ! -s "$T_ERR"
done_testing
