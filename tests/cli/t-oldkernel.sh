#!/usr/bin/env bash
# t-oldkernel.sh: captures of 4.x kernels, whose ftrace print and bprint
# formats end in a field of size 0 not spelt as an array ("char buf;
# size:0", "u32 buf; size:0"), that runs to the end of the record.
# testdata/old-kernel.dat is testdata/atrace.dat with those formats, bytes
# after the NUL of each print text, and six binary printk (bprint) records
# (testdata/README.md).  In every export (CSV, typed CSV, JSON, SQLite,
# Perfetto) every print carries the text and every bprint the message
# trace-cmd report prints (tests/expected/old-kernel.text.out, its output),
# and the atrace markers give what they give for the modern-format capture.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
OLD=$TD/old-kernel.dat
NEW=$TD/atrace.dat
TEXT=tests/expected/old-kernel.text.out
TP=${TRACE_PROCESSOR:-$TOP_SRCDIR/../shared/tools/perfetto/trace_processor_shell}
CHECK=${JSON_CHECK:-$BIN/../tests/json-check}

# values FORMAT FILE ARGS...: string values, one a line, as raw bytes, each
# without the newline that ends it (trace-cmd prints the text without it).
#   csv FILE EVENT KEY       a key of the fields cell of -f csv
#   typed FILE COLUMN        a column of a --split-by-event file
#   json FILE NAME KEY       an arg of the JSON events called NAME
values() {
	python3 - "$@" <<'PY'
import csv, io, json, re, sys

def unescape(s):	# csvfmt.c's escapes: \\ and \xNN
	return re.sub(rb'\\(\\|x([0-9a-f]{2}))',
		      lambda m: bytes([int(m.group(2), 16)]) if m.group(2) else b'\\', s)

def out(v):
	sys.stdout.buffer.write((v[:-1] if v.endswith(b'\n') else v) + b'\n')

how, path = sys.argv[1], sys.argv[2]
data = open(path, 'rb').read()
if how == 'json':
	for e in json.loads(data)['traceEvents']:
		if e.get('name') == sys.argv[3] and sys.argv[4] in e.get('args', {}):
			out(e['args'][sys.argv[4]].encode())
	sys.exit(0)
rows = csv.reader(io.StringIO(data.decode('latin-1'), newline=''))
head = next(rows)
for r in rows:
	if how == 'typed':
		out(unescape(r[head.index(sys.argv[3])].encode('latin-1')))
	elif r[head.index('event')] == sys.argv[3]:
		cell = r[head.index('fields')].encode('latin-1')
		for k, v in re.findall(rb'(\w+)=("(?:[^"\\]|\\.)*"|\S+)', cell):
			if k == sys.argv[4].encode():
				out(unescape(v[1:-1].replace(b'\\"', b'"')))
PY
}

# What trace-cmd report prints: the markers' text, the bprints' messages
# (after the ip's symbol and ": ").
sed -n 's/^.* print: *tracing_mark_write: //p' "$TEXT" >"$T_TMP/want-print"
sed -n 's/^.* bprint: *[^ ]*: //p' "$TEXT" >"$T_TMP/want-bprint"
# the same with invalid UTF-8 as U+FFFD, as SQLite and JSON have text
python3 -c 'import sys; sys.stdout.write(sys.stdin.buffer.read().decode("utf-8", "replace"))' \
	<"$T_TMP/want-print" >"$T_TMP/want-print-utf8"

# same NAME GOT WANT: two files hold the same bytes.
same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1" "$(diff "$3" "$2" | head -n 8)"
	fi
}

# --- the capture ---
t_assert "old-kernel.dat declares print as 4.x kernels do" \
	grep -qaF "$(printf 'field:char buf;\toffset:16;\tsize:0;\tsigned:0;')" $OLD
t_assert "and bprint" grep -qaF "$(printf 'field:u32 buf;\toffset:24;\tsize:0;\tsigned:0;')" $OLD
t_assert "trace-cmd prints 12 markers and 6 binary printk messages" \
	test "$(wc -l <"$T_TMP/want-print") $(wc -l <"$T_TMP/want-bprint")" = "12 6"

# --- CSV ---
t_exit "csv" 0 -- tdat-convert -f csv $OLD
cp "$T_OUT" "$T_TMP/old.csv"
values csv "$T_TMP/old.csv" print buf >"$T_TMP/got"
same "csv: every print's buf is the text trace-cmd prints" "$T_TMP/got" "$T_TMP/want-print"
values csv "$T_TMP/old.csv" bprint msg >"$T_TMP/got"
same "csv: every bprint's msg is the message trace-cmd prints" "$T_TMP/got" "$T_TMP/want-bprint"
tdat-convert -f csv $NEW | grep ',ftrace,print,' >"$T_TMP/new-print.csv"
grep ',ftrace,print,' "$T_TMP/old.csv" >"$T_TMP/got"
same "csv: the print rows are those of the modern-format capture" "$T_TMP/got" "$T_TMP/new-print.csv"

# --- typed CSV ---
t_exit "typed csv" 0 -- tdat-convert -f csv --split-by-event -o "$T_TMP/old.d" $OLD
t_exit "typed csv of the modern capture" 0 -- tdat-convert -f csv --split-by-event -o "$T_TMP/new.d" $NEW
values typed "$T_TMP/old.d/ftrace.print.csv" buf >"$T_TMP/got"
same "typed csv: buf is the text trace-cmd prints" "$T_TMP/got" "$T_TMP/want-print"
same "typed csv: ftrace.print.csv is the modern capture's" "$T_TMP/old.d/ftrace.print.csv" \
	"$T_TMP/new.d/ftrace.print.csv"
t_assert "typed csv: bprint has a msg column" \
	grep -qx 'ts,cpu,input,buffer,pid,comm,lost,ip,ip_sym,fmt,buf,msg' "$T_TMP/old.d/ftrace.bprint.csv"
values typed "$T_TMP/old.d/ftrace.bprint.csv" msg >"$T_TMP/got"
same "typed csv: msg is the message trace-cmd prints" "$T_TMP/got" "$T_TMP/want-bprint"

# --- JSON: the markers become the modern capture's slices and counters ---
t_exit "json" 0 -- tdat-convert -f json $OLD
cp "$T_OUT" "$T_TMP/old.json"
tdat-convert -f json $NEW >"$T_TMP/new.json"
grep -v '"name":"bprint"\|^"metadata"' "$T_TMP/old.json" >"$T_TMP/got"
grep -v '^"metadata"' "$T_TMP/new.json" >"$T_TMP/want"
same "json: all but the bprints is the modern capture's JSON" "$T_TMP/got" "$T_TMP/want"
t_assert "json: 10 atrace markers become tracing_mark_write lines" \
	test "$(grep -o 'tracing_mark_write: [BECSF]' "$T_TMP/old.json" | wc -l)" = 10
values json "$T_TMP/old.json" bprint msg >"$T_TMP/got"
same "json: every bprint's msg is the message trace-cmd prints" "$T_TMP/got" "$T_TMP/want-bprint"
if [[ -x $CHECK ]]; then
	tdat-info --json $OLD >"$T_TMP/old.info"
	t_exit "json: passes json-check with tdat-info's counts" 0 -- \
		"$CHECK" -i "$T_TMP/old.info" "$T_TMP/old.json"
else
	skip "json: passes json-check with tdat-info's counts" "no $CHECK"
fi

# --- SQLite ---
if command -v sqlite3 >/dev/null; then
	rm -f "$T_TMP/old.db" "$T_TMP/new.db"
	t_exit "sqlite" 0 -- tdat-convert -o "$T_TMP/old.db" $OLD
	tdat-convert -o "$T_TMP/new.db" $NEW
	# a value's bytes, its final newline dropped, one a line
	sq() { sqlite3 -batch "$1" "SELECT CASE WHEN v LIKE '%' || char(10) THEN
		substr(CAST(v AS BLOB), 1, length(CAST(v AS BLOB)) - 1) ELSE v END FROM ($2)"; }
	sq "$T_TMP/old.db" "SELECT buf AS v FROM print ORDER BY ts" >"$T_TMP/got"
	same "sqlite: print.buf is the text trace-cmd prints" "$T_TMP/got" "$T_TMP/want-print-utf8"
	sq "$T_TMP/old.db" "SELECT a.string_value AS v FROM ftrace_event e JOIN args a USING (arg_set_id)
		WHERE e.name = 'print' AND a.key = 'buf' ORDER BY e.ts" >"$T_TMP/got"
	same "sqlite: and so is each print's buf arg" "$T_TMP/got" "$T_TMP/want-print-utf8"
	sq "$T_TMP/old.db" "SELECT a.string_value AS v FROM ftrace_event e JOIN args a USING (arg_set_id)
		WHERE e.name = 'bprint' AND a.key = 'msg' ORDER BY e.ts" >"$T_TMP/got"
	same "sqlite: each bprint's msg arg is the message trace-cmd prints" "$T_TMP/got" "$T_TMP/want-bprint"
	for db in old new; do
		sqlite3 -batch "$T_TMP/$db.db" "SELECT ts, dur, depth, name FROM slice ORDER BY ts;
			SELECT c.ts, c.value, t.name FROM counter c JOIN track t ON c.track_id = t.id
			ORDER BY c.ts" >"$T_TMP/$db.slices"
	done
	t_assert "sqlite: the markers make slices and counters (3 and 2 values)" \
		test "$(wc -l <"$T_TMP/old.slices")" = 5
	same "sqlite: the modern capture's slices and counters" "$T_TMP/old.slices" "$T_TMP/new.slices"
else
	for n in 1 2 3 4 5 6; do skip "sqlite" "no sqlite3 command"; done
fi

# --- Perfetto: print events are PrintFtraceEvent, read back by trace processor ---
t_exit "perfetto" 0 -- tdat-convert -o "$T_TMP/old.pftrace" $OLD
tdat-convert -o "$T_TMP/new.pftrace" $NEW
if command -v protoc >/dev/null; then
	protoc --proto_path=tests/perfetto --decode=perfetto.protos.Trace tdat-perfetto.proto \
		<"$T_TMP/old.pftrace" >"$T_TMP/old.pf.txt" 2>/dev/null
	t_assert "perfetto: 12 typed print events (PrintFtraceEvent)" \
		test "$(grep -c '^      print {' "$T_TMP/old.pf.txt")" = 12
else
	skip "perfetto: 12 typed print events (PrintFtraceEvent)" "protoc is not installed"
fi
if [[ -x $TP ]]; then
	# tpq FILE SQL: trace processor's CSV without its header and quotes; a
	# value's newlines as \n, the final one dropped
	tpq() { "$TP" query "$1" "$2" 2>/dev/null | sed '1d; s/^"//; s/"$//'; }
	tpq "$T_TMP/old.pftrace" "SELECT rtrim(a.display_value, char(10)) FROM ftrace_event e
		JOIN args a USING (arg_set_id) WHERE e.name = 'print' AND a.key = 'buf' ORDER BY e.ts" \
		>"$T_TMP/got"
	# a byte that is not UTF-8 is U+FFFD in a .pftrace string, as in every binary format
	LC_ALL=C sed 's/\xff/\xef\xbf\xbd/g' <"$T_TMP/want-print" >"$T_TMP/want"
	same "perfetto: each print's buf is the text trace-cmd prints" "$T_TMP/got" "$T_TMP/want"
	tpq "$T_TMP/old.pftrace" "SELECT a.display_value FROM ftrace_event e JOIN args a USING (arg_set_id)
		WHERE e.name = 'bprint' AND a.key = 'msg' ORDER BY e.ts" >"$T_TMP/got"
	same "perfetto: each bprint's msg arg is the message trace-cmd prints" "$T_TMP/got" \
		"$T_TMP/want-bprint"
	q="SELECT ts, dur, depth, name FROM slice WHERE name <> 'bprint' ORDER BY ts;"
	q="$q SELECT c.ts, c.value, t.name FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts"
	for f in old new; do
		"$TP" query "$T_TMP/$f.pftrace" "$q" >"$T_TMP/$f.tp" 2>/dev/null
		"$TP" query "$T_TMP/$f.json" "$q" >"$T_TMP/$f.tpj" 2>/dev/null
	done
	t_assert "perfetto: the markers make slices and counters (4 and 2 values)" \
		test "$(grep -c '^[0-9]' "$T_TMP/old.tp")" = 6
	same "perfetto: trace processor finds the modern capture's slices and counters" \
		"$T_TMP/old.tp" "$T_TMP/new.tp"
	same "json: trace processor finds the modern capture's slices and counters" \
		"$T_TMP/old.tpj" "$T_TMP/new.tpj"
else
	for n in 1 2 3 4 5; do skip "trace processor" "no $TP"; done
fi
done_testing
