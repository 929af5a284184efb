#!/usr/bin/env bash
# t-unsupported.sh: kernel event formats libtraceevent cannot print are not
# damage.  testdata/arm64-formats.dat is v6.dat carrying a 4.19 arm64
# kernel's i2c, xhci-hcd and dwc3 formats (xhci and dwc3 print formats with
# GNU statement expressions, i2c arrays declared "buf[32 + 2]") for events
# that never occur: every tool reads it as it reads v6.dat, exit 0, nothing
# on stderr (a note per such format with --verbose).  arm64-events.dat has
# records of those types (synthesised, testdata/scripts/make-unsupported.py):
# text is trace-cmd report's, with one notice per type not supported (exit
# 0); every export decodes their fields.  Damage stays damage.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
F=testdata/arm64-formats.dat
E=testdata/arm64-events.dat
UNSUPP="xhci-hcd:xhci_urb_giveback xhci-hcd:xhci_urb_enqueue xhci-hcd:xhci_urb_dequeue dwc3:dwc3_prepare_trb dwc3:dwc3_complete_trb"

# --- formats only: as if they were not there ---------------------------------
t_case "$F: text is v6.dat's trace-cmd report, exit 0, nothing on stderr" v6.text -- tdat-convert "$F"
for fmt in csv json; do
	tdat-convert -f $fmt testdata/v6.dat >"$T_TMP/want.$fmt"
	t_exit "$F: $fmt exits 0" 0 -- tdat-convert -f $fmt "$F"
	t_assert "$F: $fmt is v6.dat's, nothing on stderr" eval 'cmp -s "$T_OUT" "$T_TMP/want.$fmt" && test ! -s "$T_ERR"'
done
for cmd in "tdat-filter -e sched:sched_switch" "tdat-merge -o $T_TMP/m.dat testdata/v7-zstd.dat" \
	   "tdat-split --events 1000 -o $T_TMP/piece" "tdat-info" "tdat-convert -f sqlite -o $T_TMP/f.db" \
	   "tdat-convert -f perfetto -o $T_TMP/f.pftrace" "tdat-convert -f dat -o $T_TMP/f.dat"; do
	t_exit "$cmd: exit 0" 0 -- $cmd "$F"
	t_assert "$cmd: nothing on stderr" test ! -s "$T_ERR"
done
if have_trace_cmd; then
	t_assert "the trace.dat written keeps the formats: trace-cmd reads it as v6.dat" \
		cmp -s <("$TRACE_CMD" report "$T_TMP/f.dat" 2>/dev/null) <(tdat-convert testdata/v6.dat)
else
	skip "the trace.dat written keeps the formats" "trace-cmd is not installed"
fi

# --verbose: one note per format not supported, naming it; still exit 0
t_exit "$F --verbose: exit 0" 0 -- tdat-convert --verbose "$F"
t_assert "$F --verbose: the same text" cmp -s "$T_OUT" tests/expected/v6.text.out
missing=
for ev in $UNSUPP; do
	grep -q "^tdat-convert: $F: note: event format $ev: its print format has a GNU statement expression, which libtraceevent cannot print: its events are printed with their fields only, as trace-cmd prints them$" "$T_ERR" ||
		missing="$missing $ev"
done
t_assert "$F --verbose: a note for each format not supported${missing:+ (missing:$missing)}" test -z "$missing"
t_assert "$F --verbose: those five notes only (and the -j chosen), none says damaged" \
	eval 'test "$(grep -vc "^tdat-convert: -j 1: about .* MiB of trace data" "$T_ERR")" = 5 &&
	      test "$(wc -l <"$T_ERR")" = 6 && ! grep -q damaged "$T_ERR"'
for cmd in tdat-info "tdat-split --per-cpu -o $T_TMP/v" "tdat-filter -e irq"; do
	t_exit "$cmd --verbose: exit 0" 0 -- $cmd --verbose "$F"
	t_assert "$cmd --verbose: the five notes" test "$(grep -c ': note: event format ' "$T_ERR")" = 5
done

# --- events of those types ----------------------------------------------------
t_case "$E: text is trace-cmd report's; a notice per type not supported, exit 0" arm64-events.text -- \
	tdat-convert "$E"
t_stdout_match "$E: i2c's %*phD dump, the length from the record" 'i2c_write: +i2c-1 #0 a=050 f=0000 l=4 \[de-ad-be-ef\]$'
t_stdout_match "$E: a length (200) past the array's 3 bytes is clamped to them" \
	'i2c_reply: +i2c-1 #1 a=050 f=0001 l=200 \[01-02-03\]$'
t_stdout_match "$E: the statement expressions' events: their fields, as trace-cmd prints them" \
	'xhci_urb_giveback: +\[FAILED TO PARSE\] urb=0xffff000012345678 pipe=1073775232 .* type=3$'
if have_trace_cmd; then
	for v in "" -t --no-plugins; do
		t_assert "$E ${v:-text}: same bytes as trace-cmd report ${v/--no-plugins/-N}" \
			cmp -s <(tdat-convert $v "$E" 2>/dev/null) <("$TRACE_CMD" report ${v/--no-plugins/-N} "$E" 2>/dev/null)
	done
else
	skip "$E live text" "trace-cmd is not installed"
fi
t_exit "$E: a selection without them: exit 0" 0 -- tdat-convert -e sched -e i2c "$E"
t_assert "$E: and no notice" test ! -s "$T_ERR"

# every export decodes their fields (nothing printed there: no notice)
t_exit "$E: csv" 0 -- tdat-convert -f csv "$E"
t_assert "$E: csv: nothing on stderr" test ! -s "$T_ERR"
t_stdout_match "$E: csv: xhci_urb_giveback's fields" \
	',xhci-hcd,xhci_urb_giveback,0,"urb=0xffff000012345678 pipe=1073775232 stream=0 status=0 flags=512 num_mapped_sgs=0 num_sgs=0 length=64 actual=64 epnum=1 dir_in=1 type=3"$'
t_stdout_match "$E: csv: dwc3_prepare_trb's, its __data_loc string too" \
	',dwc3,dwc3_prepare_trb,0,"name=""ep1in"" trb=0xffff0000abcd0010 allocated=3 queued=1 bpl=32768 bph=0 size=64 ctrl=2067 type=2"$'
t_stdout_match "$E: csv: smbus_write (a \"buf[32 + 2]\" array) is decoded" \
	',i2c,smbus_write,0,"adapter_nr=2 addr=26 flags=0 command=16 len=2 protocol=3 buf='
t_exit "$E: json" 0 -- tdat-convert -f json "$E"
t_stdout_match "$E: json: dwc3_prepare_trb's args" \
	'"name":"dwc3_prepare_trb","cat":"dwc3",.*"args":\{"name":"ep1in","trb":"0xffff0000abcd0010","allocated":3,"queued":1,"bpl":32768,"bph":0,"size":64,"ctrl":2067,"type":2\}'
if command -v sqlite3 >/dev/null; then
	t_exit "$E: sqlite" 0 -- tdat-convert -f sqlite -o "$T_TMP/e.db" "$E"
	t_assert "$E: sqlite: xhci_urb_giveback's fields" test "$(sqlite3 "$T_TMP/e.db" \
		"select printf('0x%x', urb), pipe, stream, status, flags, num_mapped_sgs, num_sgs, length, actual,
		 epnum, dir_in, type from xhci_urb_giveback")" = "0xffff000012345678|1073775232|0|0|512|0|0|64|64|1|1|3"
else
	skip "$E: sqlite" "sqlite3 is not installed"
	skip "$E: sqlite: xhci_urb_giveback's fields" "sqlite3 is not installed"
fi
if command -v protoc >/dev/null; then
	t_exit "$E: perfetto" 0 -- tdat-convert -f perfetto -o "$T_TMP/e.pftrace" "$E"
	protoc --proto_path=tests/perfetto --decode=perfetto.protos.Trace tdat-perfetto.proto \
		<"$T_TMP/e.pftrace" >"$T_TMP/e.txt" 2>/dev/null
	t_assert "$E: perfetto: dwc3_prepare_trb with its fields" \
		eval 'grep -A 40 "event_name: \"dwc3_prepare_trb\"" "$T_TMP/e.txt" | tr -d " \n" |
		      grep -q "name:\"name\"str_value:\"ep1in\"}field{name:\"trb\"uint_value:18446462601615179792}"'
else
	skip "$E: perfetto" "protoc is not installed"
	skip "$E: perfetto: dwc3_prepare_trb with its fields" "protoc is not installed"
fi

# --- damage is still damage ---------------------------------------------------
t_exit "a damaged field line is still damage" 1 -- tdat-convert testdata/bad/bad-format-v6.dat
t_stderr_match "and says so" '^tdat-convert: testdata/bad/bad-format-v6.dat: damaged event format 5 of system "sched" skipped'
if command -v python3 >/dev/null; then
	# a print format damaged before its statement expression (made from v6.dat as bad/make-bad.sh does)
	python3 testdata/bad/rewrite-format.py testdata/v6.dat "$T_TMP/stmt.dat" sched_switch 'print fmt: .*' \
		'print fmt: "%d %s", REC->nope, ({ char *s; s = "x"; s; })'
	t_exit "a print format damaged before a statement expression is damage" 1 -- tdat-convert "$T_TMP/stmt.dat"
	t_stderr_match "and says so" \
		"^tdat-convert: $T_TMP/stmt.dat: damaged print format in event format [0-9]+ of system \"sched\""
else
	skip "a print format damaged before a statement expression is damage" "python3 is not installed"
	skip "and says so" "python3 is not installed"
fi
done_testing
