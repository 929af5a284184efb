#!/usr/bin/env bash
# t-bad.sh: damaged and hostile inputs (testdata/bad/, empty files,
# directories, /dev/zero) never crash or hang any tool: exit 1 with a message
# that names the file; no output file is left behind; what could be
# recovered from damaged event data is written and the loss is reported.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
T_TIMEOUT=20
mkdir -p "$T_TMP/out"

# Damage only in bytes no event needs: the same output as the undamaged file.
for f in testdata/bad/printk-malformed-*.dat; do
	t_golden "$f converts like the undamaged file" v6-two-buffers.text.out -- tdat-convert "$f"
done

for f in testdata/bad/*.dat; do
	[[ $f == */printk-malformed-* ]] && continue
	for fmt in text csv; do
		t_exit "$f -f $fmt fails cleanly" 1 -- tdat-convert -f $fmt -o "$T_TMP/out/x.$fmt" "$f"
		t_stderr_match "$f -f $fmt: the message names the file" "^tdat-convert: $f: "
		# damaged event data: the recovered events are written (checked below)
		if [[ $f == */truncated-v[67]-data.dat || $f == */bad-format-v6.dat ||
		      $f == */lying-*-v7.dat || $f == */format-crash.dat || $f == */printk-width.dat ]]; then
			rm -f "$T_TMP"/out/x.*
		else
			t_empty_dir "$f -f $fmt: no output file" "$T_TMP/out"
		fi
	done
	t_exit "$f: tdat-info fails cleanly" 1 -- tdat-info "$f"
	t_stderr_match "$f: tdat-info names the file" "^tdat-info: $f: "
	t_nocrash "$f on stdin" --stdin "$f" -- tdat-convert -
done
# Damaged event data: what was read is written, the loss is counted, exit 1.
t_exit "truncated v6 data" 1 -- tdat-convert -o "$T_TMP/trunc.txt" testdata/bad/truncated-v6-data.dat
t_stderr_match "the message says how much was skipped" "bytes skipped"
t_assert "events before the damage were recovered" test "$(wc -l <"$T_TMP/trunc.txt")" -gt 100
t_assert "and every recovered line is a line of the undamaged file" \
	test -z "$(comm -23 <(sort "$T_TMP/trunc.txt") <(sort tests/expected/v6.text.out))"
rm -f "$T_TMP/trunc.txt"
# v7 cut inside the data: the table of CPU data (in the options after it) is
# lost; the data is found by scanning, and trace-cmd prints nothing at all
t_exit "truncated v7 data" 1 -- tdat-convert -o "$T_TMP/trunc.txt" testdata/bad/truncated-v7-data.dat
t_stderr_match "the message says the file is cut and what was recovered" \
	"truncated-v7-data.dat: truncated: the file ends at offset 65102.*recovered by scanning from offset [0-9]+: the data of 1 CPU"
t_stderr_match "and what was lost" "the data of 1 of the file's 2 CPUs is lost"
t_stderr_match "and the partial chunk" "data cut at offset [0-9]+: the last [0-9]+ bytes are a partial chunk, lost"
t_assert "CPU 0's events were recovered, all of them" \
	test "$(grep -c '\[000\]' "$T_TMP/trunc.txt")" = "$(grep -c '\[000\]' tests/expected/clock-mono.text.out)"
t_assert "and every recovered line is a line of the undamaged file" \
	test -z "$(comm -23 <(sort "$T_TMP/trunc.txt") <(sort tests/expected/clock-mono.text.out))"
rm -f "$T_TMP/trunc.txt"
t_empty_dir "no partial outputs are left behind" "$T_TMP/out"

# A v7 kallsyms section whose sizes lie (trace-cmd prints nothing for one of
# them): read without it, every event is written, functions as addresses, exit 1.
for f in testdata/bad/lying-size-v7.dat testdata/bad/lying-csize-v7.dat; do
	t_exit "$f: read without its kallsyms" 1 -- tdat-convert -o "$T_TMP/ks.txt" "$f"
	t_stderr_match "$f: the message says so, and what it costs" \
		"^tdat-convert: $f: kallsyms section damaged, read without it \(functions are shown as addresses\): .*offset 2479"
	t_assert "$f: every event is there, the marker's function as its address" \
		cmp -s <(sed -E 's/ 0xffffffff[0-9a-f]+: / tracing_mark_write: /' "$T_TMP/ks.txt") tests/expected/markers.text.out
	rm -f "$T_TMP/ks.txt"
done
# Two-buffers with bytes changed in its kallsyms, formats and data: every damage named, the
# rest written.
t_exit "format-crash.dat: what can be read is written" 1 -- tdat-convert -o "$T_TMP/fc.txt" testdata/bad/format-crash.dat
t_stderr_match "the damaged kallsyms section is named" "format-crash.dat: kallsyms section damaged"
t_stderr_match "and the damaged pages" "damaged input: 4 regions, 11600 bytes skipped"
t_stderr_match "among them events whose type id (or a length before it) is damaged" \
	"format-crash.dat: events of a type the file has no format for, written undecoded \(offset 49156, cpu 0\)"
t_assert "most events are written" test "$(wc -l <"$T_TMP/fc.txt")" -gt 2000
rm -f "$T_TMP/fc.txt"

# An event whose type id has no format (trace-cmd report prints [UNKNOWN EVENT], exit 0): it
# is written undecoded, named as damage, exit 1; every other event is as in the undamaged file.
f=testdata/bad/gen/v6-event-type-unknown.dat
t_exit "an event of a type with no format" 1 -- tdat-convert -o "$T_TMP/u.txt" "$f"
t_stderr_match "is named, with where it is" \
	"^tdat-convert: $f: events of a type the file has no format for, written undecoded \(offset 241664, cpu 0\): 40 bytes skipped$"
t_assert "it is written undecoded, every other event as in the undamaged file" \
	test "$(grep -c 'UNKNOWN EVENT' "$T_TMP/u.txt")" = 1 -a \
	"$(comm -23 <(sort "$T_TMP/u.txt") <(sort tests/expected/v6.text.out) | grep -vc 'UNKNOWN EVENT')" = 0
t_exit "tdat-info on it fails too, counting every event" 1 -- tdat-info "$f"
t_stdout_match "(as many as the undamaged file)" "^$(tdat-info testdata/v6.dat | grep '^events:')\$"
rm -f "$T_TMP/u.txt"

# A damaged event format: the file opens, the warning names the format, its events are
# unknown, every other event is decoded, exit 1.
t_exit "damaged event format" 1 -- tdat-convert -o "$T_TMP/fmt.txt" testdata/bad/bad-format-v6.dat
t_stderr_match "the warning names the format" 'bad-format-v6.dat: damaged event format 5 of system "sched" skipped'
t_assert "the other events are decoded as in the undamaged file" \
	test -z "$(comm -23 <(grep -v UNKNOWN "$T_TMP/fmt.txt" | sort) <(sort tests/expected/v6.text.out))"
t_assert "and the damaged type's events are still there, as unknown" \
	test "$(grep -c 'UNKNOWN EVENT' "$T_TMP/fmt.txt")" = "$(grep -c ' sched_switch: ' tests/expected/v6.text.out)"
rm -f "$T_TMP/fmt.txt"
t_exit "tdat-info on it fails too" 1 -- tdat-info testdata/bad/bad-format-v6.dat
# A printk format taking a width from the record: left out with a warning; no event uses it here
t_exit "printk format with a '*' width" 1 -- tdat-convert -o "$T_TMP/pw.txt" testdata/bad/printk-width.dat
t_stderr_match "the warning says what was left out" \
	"^tdat-convert: testdata/bad/printk-width.dat: 1 printk format taking a printf width from the record, or wider than 4096, left out: binary printk events that use it print as NO FORMAT FOUND$"
t_assert "every event is printed as in the undamaged file" cmp -s "$T_TMP/pw.txt" tests/expected/v6.text.out
t_exit "--lenient" 0 -- tdat-convert --lenient -o "$T_TMP/pw.txt" testdata/bad/printk-width.dat
rm -f "$T_TMP/pw.txt"
# No CPU data left and an empty TRACECLOCK option (fuzz-writers): both dat versions are
# still written whole, and read back
for v in 6 7; do
	t_exit "no CPU data: dat v$v written" 1 -- tdat-convert -f dat --file-version $v -o "$T_TMP/nd.dat" \
		testdata/bad/fuzz/writers-dat-no-buffer-clock.dat
	t_exit "no CPU data: dat v$v reads back" 0 -- tdat-info "$T_TMP/nd.dat"
	t_stdout_match "no CPU data: dat v$v holds no event" "^events: +0$"
done
rm -f "$T_TMP/nd.dat"

# Formats that make libtraceevent's printer read outside the record (trace-cmd
# report crashes on them): those events are printed without the print format,
# counted in one message, exit 1; nothing is lost (as many lines as CSV rows).
for f in testdata/bad/print/*.dat; do
	for p in "" --no-plugins; do
		if [[ $f == */helper-* && -n $p ]]; then
			# without plugins the helper is unknown: the format fails to parse, as in trace-cmd -N
			t_run "$f $p: text" -- tdat-convert $p "$f"
			t_stdout_match "$f $p: its events are shown as failed to parse" 'softirq_entry: +\[FAILED TO PARSE\] vec=7'
			continue
		fi
		t_exit "$f $p: text" 1 -- tdat-convert $p -o "$T_TMP/p.txt" "$f"
		t_stderr_match "$f $p: one message names the file, counts and says why" \
			"^tdat-convert: $f: [0-9]+ events? not printed as (its|their) print format says, which would read outside the record, divide by 0 or print without bound \(the first, [a-z_]+:[a-z_]+ at [0-9.]+: .+\)$"
		t_assert "$f $p: the events are marked" grep -q "UNSAFE TO PRINT\|softirq_entry: *0$" "$T_TMP/p.txt"
		t_assert "$f $p: and none is lost" \
			test "$(($(wc -l <"$T_TMP/p.txt") - 1))" = "$(tdat-convert -f csv "$f" | tail -n +2 | wc -l)"
	done
	t_exit "$f --lenient" 0 -- tdat-convert --lenient -o "$T_TMP/p.txt" "$f"
	if [[ $f != */field-past-* ]]; then
		# These are shrunk fuzz seeds: some of their events have no format (exit 1 for that)
		t_exit "$f: json" 1 -- tdat-convert -f json -o "$T_TMP/p.json" "$f"
		t_stderr_match "$f: json: the events with no format are the damage reported" \
			"$f: events of a type the file has no format for"
		t_assert "$f: json does not print through libtraceevent (no print format message)" \
			test "$(grep -c 'not printed as' "$T_ERR")" = 0
		continue
	fi
	# a field outside the record: every format that writes fields leaves it
	# out of those events, says so and counts it as damage
	n=$(grep -c "UNSAFE TO PRINT" "$T_TMP/p.txt")
	for fmt in csv json sqlite perfetto; do
		t_exit "$f: $fmt" 1 -- tdat-convert -f $fmt -o "$T_TMP/p.$fmt" "$f"
		t_stderr_match "$f: $fmt: one message counts the events and names the field" \
			"^tdat-convert: $f: $n events have fields outside their record, written without them \(the first, sched:sched_switch at [0-9.]+: field prev_comm at offset 60000000, 16 bytes, is past the end of the 64-byte record\)$"
		t_exit "$f: $fmt --lenient" 0 -- tdat-convert --lenient -f $fmt -o "$T_TMP/p.$fmt" "$f"
	done
	t_assert "$f: the CSV has every event, prev_comm empty in the damaged ones" \
		test "$(tdat-convert -f csv "$f" 2>/dev/null | grep -c ',sched_switch,.*"prev_comm=? ')" = "$n"
done
t_run "a print format reading far past the record" -- tdat-convert testdata/bad/print/print-hex-length.dat
t_stderr_match "says how far" "__print_hex of [0-9]+ elements of 1 bytes from offset 8, past the end of the 64-byte record"
t_stdout_match "and prints the fields instead" "UNSAFE TO PRINT: __print_hex of .* prev_comm=trace-cmd prev_pid=12513"
t_run "a field far past the record" -- tdat-convert testdata/bad/print/field-past-record.dat
t_stderr_match "names the field" "field prev_comm at offset 60000000, 16 bytes, is past the end of the 64-byte record"
t_exit "common fields outside the record header are refused" 1 -- tdat-info testdata/bad/common-pid-offset.dat
t_stderr_match "saying which" "damaged event format ftrace:print: common_pid at offset 60000000, 4 bytes, is outside the 8-byte header of every record"
rm -f "$T_TMP"/p.*

t_exit "a directory is refused" 1 -- tdat-convert testdata
t_stderr_match "as a directory" "tdat-convert: testdata: is a directory"
t_exit "/dev/zero is refused at once" 1 -- tdat-convert /dev/zero
t_stderr_match "as not a trace.dat" "/dev/zero: not a trace.dat file \(bad magic at offset 0\)"
t_exit "a missing file" 1 -- tdat-convert testdata/no-such.dat
t_stderr_match "is named with the reason" "tdat-convert: testdata/no-such.dat: No such file or directory"
t_exit "an empty stdin" 1 --stdin /dev/null -- tdat-convert -
t_stderr_match "says so" "empty"
t_exit "text on stdin" 1 --stdin tests/cli/lib.sh -- tdat-convert -f csv -
t_stderr_match "is not a trace.dat" "bad magic"
done_testing
