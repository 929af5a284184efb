#!/usr/bin/env bash
# t-parquet.sh: tdat-convert -f parquet -o DIR, checked by real readers:
# DuckDB (@duckdb/node-api, its own libduckdb) and hyparquet, installed with
# npm into a cache folder reused between runs (never part of the build).
# For every capture in testdata/: rows per event type as trace-cmd report
# and tdat-info count them, in the type files and in events.parquet; column
# types as the event's format declares them (a u64 stays UBIGINT, an array
# of u64 UBIGINT[]); every type file's rows equal the typed CSV's (EXCEPT
# ALL both ways, the CSV read as text and cast to the Parquet column's type,
# so u64 values above 2^63 compare exactly, an array's "[a,b]" to its LIST);
# hyparquet reads the same rows and values, lists too; a FIELD_sym column
# after each field the print fmt prints as a kernel symbol, its values the
# symbols trace-cmd report prints (text-syms.awk).  A stack's lists are the
# addresses trace-cmd report prints.  Then the folder written whole or not
# at all, the zstd level, and the usage errors.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata

# "EVENT COUNT" per event name of trace-cmd report (continuation lines such
# as a stack's "=> func" have no "[cpu] ts: name:")
counts_report() {
	"$TRACE_CMD" report "$1" 2>/dev/null |
		sed -n 's/^[^[]*\[[0-9]*\] *[0-9.]*: \([^ :]*\):.*/\1/p' | sort | uniq -c |
		awk '{ print $2, $1 }' | sort
}

need_readers
# parquet-check.mjs: one node for all datasets, asked one by one (lib.sh's t_serve)
t_serve pc env NPMDIR="$NPMDIR" node tests/cli/parquet-check.mjs
# pcheck DIR CSVDIR OUT: parquet-check.mjs's lines for DIR in OUT
pcheck() {
	t_ask pc "$1"$'\t'"$2"$'\t'"$3"
	[[ $T_REPLY == done ]] || echo "error $T_REPLY" >"$3"
}
big=0 nsyms=0
lists=0
for dat in $TD/*.dat; do
	f=$(basename "$dat" .dat)
	out=$T_TMP/$f
	t_exit "$f.dat: -f parquet" 0 -- tdat-convert -f parquet -o "$out" "$dat"
	t_exit "$f.dat: typed CSV to compare with" 0 -- \
		tdat-convert -f csv --split-by-event -o "$out.csv" "$dat"
	pcheck "$out" "$out.csv" "$out.chk"
	info=$(counts_info "$dat")
	rows=$(sed -n 's/^rows //p' "$out.chk" | sort)
	t_same "$f.dat: one file per event type, rows as tdat-info counts them" "$rows" "$info"
	# old-kernel.dat: a marker's odd byte joins the event name in the report's text
	# (a zlib capture, which 3.1.6 cannot read, through trace-cmd 3.4's zstd copy of it)
	if [[ -n $TRACE_CMD && $f != old-kernel && -z $(tc31_readable "$dat") ]]; then
		skip "$f.dat: rows per event as trace-cmd report shows them" "zlib, and no trace-cmd 3.4 to convert it"
	elif [[ -n $TRACE_CMD && $f != old-kernel ]]; then
		t_same "$f.dat: rows per event as trace-cmd report shows them" \
			"$(sed 's/^[^.]*\.//' <<<"$rows" | sort)" "$(counts_report "$(tc31_readable "$dat")")"
	fi
	t_same "$f.dat: events.parquet has every event" \
		"$(sed -n 's/^events //p' "$out.chk" | sort)" "$info"
	t_none "$f.dat: DuckDB's column types are the format's (and no reader failed)" \
		"$(grep -v '^rows\|^events\|^except\|^hyparquet\|^big\|^sym\|^lists' "$out.chk")"
	t_none "$f.dat: DuckDB rows equal the typed CSV's (EXCEPT ALL both ways)" \
		"$(grep '^except' "$out.chk" | grep -v ' 0 0$')"
	t_same "$f.dat: hyparquet reads the same rows, ts, last and LIST columns" \
		"$(sed -n 's/^hyparquet \([^ ]*\) \([0-9]*\) yes$/\1 \2/p' "$out.chk" | sort)" "$rows"
	big=$((big + $(sed -n 's/^big [^ ]* //p' "$out.chk" | awk '{ s += $1 } END { print s + 0 }')))
	# FIELD_sym against trace-cmd report's text, event by event (cpu, time as
	# printed: not for the captures whose clock prints counts); that the
	# columns are there is the type check's
	syms=$(sed -n 's/^sym //p' "$out.chk" | sort)
	if [[ -n $syms && -f tests/expected/$f.text.out && $f != clock-counter && $f != clock-x86-tsc ]]; then
		t_same "$f.dat: every FIELD_sym value is the symbol trace-cmd report prints" "$syms" \
			"$(awk -v want="$(cut -d' ' -f1,4 <<<"$syms" | sort -u | tr ' ' : | paste -sd' ')" \
				-f tests/cli/text-syms.awk tests/expected/$f.text.out | sort)"
		nsyms=$((nsyms + $(grep -c . <<<"$syms")))
	fi
	lists=$((lists + $(sed -n 's/^lists [^ ]* //p' "$out.chk" | awk '{ s += $1 } END { print s + 0 }')))
done
# sym/kmem.dat: kmalloc and kfree print call_site with %pS (name+0xOFF)
K=$T_TMP/kmem
t_exit "sym/kmem.dat: -f parquet" 0 -- tdat-convert -f parquet -o "$K" $TD/sym/kmem.dat
tdat-convert -f csv --split-by-event -o "$K.csv" $TD/sym/kmem.dat
pcheck "$K" "$K.csv" "$K.chk"
t_none "sym/kmem.dat: types as declared, call_site_sym expected; rows equal the typed CSV's" \
	"$(grep -v '^rows\|^events\|^except [^ ]* 0 0$\|^hyparquet [^ ]* [0-9]* yes$\|^big\|^sym' "$K.chk")"
syms=$(sed -n 's/^sym //p' "$K.chk" | sort)
t_same "sym/kmem.dat: every call_site_sym is the report's name+0xOFF" "$syms" \
	"$(awk -v want='kmalloc:call_site kfree:call_site' -f tests/cli/text-syms.awk tests/expected/kmem.text.out | sort)"
nsyms=$((nsyms + $(grep -c . <<<"$syms")))
t_assert "FIELD_sym values were among those compared ($nsyms)" test "$nsyms" -gt 1000
t_assert "u64 values above 2^63 were among those compared ($big)" test "$big" -gt 0
t_assert "hyparquet read LIST elements equal to DuckDB's ($lists)" test "$lists" -gt 0

# --- types and values that matter ---
S=$T_TMP/v7-zstd
q() {
	NPMDIR=$NPMDIR node -e "
const r = require('module').createRequire('$NPMDIR/')('@duckdb/node-api');
(async () => { const c = await (await r.DuckDBInstance.create(':memory:', { enable_external_file_cache: 'false' })).connect();
for (const row of (await c.runAndReadAll(process.argv[1])).getRowsJS()) console.log(row.join('|')); })();" "$1"
}
# --- many row groups: buffers emptied and used again, at -j 1 and -j 2 ---
# chunks.dat's pages 20 times over (make-long.py): 600,000 events, so every
# big file is written as several row groups, each filled in the buffers the
# one before left (pq_keep()); both readers must read every row as the typed
# CSV has it
LONG=$T_TMP/long
tdat-convert -f dat --file-version 6 -o "$LONG-6.dat" $TD/chunks.dat &&
	python3 tests/cli/make-long.py 20 "$LONG-6.dat" "$LONG.dat"
t_assert "a capture of 20 times chunks.dat's pages is made" test -s "$LONG.dat"
tdat-convert -f csv --split-by-event -o "$LONG.csv" "$LONG.dat"
for j in 1 2; do
	t_exit "long, -j $j: -f parquet" 0 -- tdat-convert -j $j -f parquet -o "$LONG-j$j" "$LONG.dat"
	pcheck "$LONG-j$j" "$LONG.csv" "$LONG-j$j.chk"
	t_none "long, -j $j: rows equal the typed CSV's (EXCEPT ALL), hyparquet reads them" \
		"$(grep -v '^rows\|^events\|^except [^ ]* 0 0$\|^hyparquet [^ ]* [0-9]* yes$\|^big\|^lists\|^sym' "$LONG-j$j.chk")"
	NPMDIR=$NPMDIR node tests/cli/parquet-sorted.mjs "$LONG-j$j" >"$LONG-j$j.srt" 2>&1
	t_none "long, -j $j: every row group's sorting_columns holds (parquet-sorted.mjs)" \
		"$(grep -v '^sorted \|^nan \|^files ' "$LONG-j$j.srt")"
	# (its timeline goes back 19 times on a CPU, in trace-cmd report too, so
	# events.parquet declares no order; sys_enter's file is in order)
	t_assert "long, -j $j: sys_enter's row groups declare ts ($(grep -c '^sorted event/raw_syscalls.sys_enter.parquet ' "$LONG-j$j.srt"))" \
		test "$(grep -c '^sorted event/raw_syscalls.sys_enter.parquet ' "$LONG-j$j.srt")" -ge 4
	t_same "long, -j $j: every event is in events.parquet" \
		"$(sed -n 's/^events //p' "$LONG-j$j.chk" | sort)" "$(counts_info "$LONG.dat")"
done
t_assert "long: events.parquet and sys_enter's file have several row groups ($(q "select string_agg(n, ',') from (select count(distinct row_group_id) n from parquet_metadata('$LONG-j1/**/*.parquet') where file_name similar to '.*/(events|raw_syscalls.sys_enter).parquet' group by file_name)"))" \
	test "$(q "select min(n) from (select count(distinct row_group_id) n from parquet_metadata('$LONG-j1/**/*.parquet') where file_name similar to '.*/(events|raw_syscalls.sys_enter).parquet' group by file_name)")" -ge 4
t_assert "long: -j 2 wrote the same files as -j 1" diff -r "$LONG-j1" "$LONG-j2"
# the model's tables share a budget of bytes: slice.parquet is written in
# several row groups long before its 131,072 rows, and holds what SQLite's
# table holds
SLICE_RGS="select count(distinct row_group_id) || ',' || max(row_group_num_rows) from parquet_metadata('$LONG-j1/analysis/slice.parquet')"
t_assert "long: analysis/slice.parquet: row groups, the most rows in one ($(q "$SLICE_RGS")) < 131072" \
	test "$(q "$SLICE_RGS" | awk -F, '{ print ($1 >= 2 && $2 < 131072) }')" = 1
tdat-convert -f sqlite -o "$LONG.sqlite" "$LONG.dat"
t_same "long: analysis/slice.parquet's rows are the sqlite slice table's" \
	"$(q "select count(*), sum(ts), sum(dur), sum(depth), count(distinct name) from '$LONG-j1/analysis/slice.parquet'")" \
	"$(sqlite3 -separator '|' "$LONG.sqlite" 'select count(*), sum(ts), sum(dur), sum(depth), count(distinct name) from slice')"
rm -rf "$LONG"*

t_same "sched_switch: typed columns" \
	"$(q "select string_agg(column_name || ':' || column_type, ',') from (describe select * from '$S/event/sched.sched_switch.parquet')")" \
	"ts:BIGINT,cpu:INTEGER,input:INTEGER,buffer:VARCHAR,pid:INTEGER,comm:VARCHAR,lost:BIGINT,prev_comm:VARCHAR,prev_pid:INTEGER,prev_prio:INTEGER,prev_state:BIGINT,next_comm:VARCHAR,next_pid:INTEGER,next_prio:INTEGER"
t_same "hrtimer_start: function_sym, a string, after function (printed with %ps)" \
	"$(q "select string_agg(column_name || ':' || column_type, ',') from (describe select * from '$S/event/timer.hrtimer_start.parquet')")" \
	"ts:BIGINT,cpu:INTEGER,input:INTEGER,buffer:VARCHAR,pid:INTEGER,comm:VARCHAR,lost:BIGINT,hrtimer:UBIGINT,function:UBIGINT,function_sym:VARCHAR,expires:BIGINT,softexpires:BIGINT,mode:UINTEGER,was_armed:UTINYINT"
t_same "function_sym is dictionary-encoded (few distinct symbols)" \
	"$(q "select distinct encodings from parquet_metadata('$S/event/timer.hrtimer_start.parquet') where path_in_schema = 'function_sym'")" \
	"PLAIN, RLE, RLE_DICTIONARY"
t_same "sum(runtime) of sched_stat_runtime equals the report's" \
	"$(q "select sum(runtime) from '$S/event/sched.sched_stat_runtime.parquet'")" \
	"$(sed -n 's/.*sched_stat_runtime: .* runtime=\([0-9]*\) \[ns\]$/\1/p' tests/expected/v7-zstd.text.out |
		awk '{ s += $1 } END { print s }')"
t_same "the footer's statistics bound ts (row-group skipping by time)" \
	"$(q "select min(stats_min_value::BIGINT) <= min(ts_min) and max(stats_max_value::BIGINT) >= max(ts_max)
	      from parquet_metadata('$S/event/sched.sched_switch.parquet'),
	      (select min(ts) ts_min, max(ts) ts_max from '$S/event/sched.sched_switch.parquet') where path_in_schema = 'ts'")" true
t_same "comm is zstd compressed and dictionary-encoded" \
	"$(q "select distinct compression, encodings from parquet_metadata('$S/event/sched.sched_switch.parquet') where path_in_schema = 'comm'")" \
	"ZSTD|PLAIN, RLE, RLE_DICTIONARY"
t_same "hyparquet: every row group is sorted by ts (sorting_columns), u64 is UINT_64" \
	"$(NPMDIR=$NPMDIR node --input-type=module -e "
const req = (await import('module')).createRequire('$NPMDIR/');
const h = await import(req.resolve('hyparquet'));
const m = await h.parquetMetadataAsync(await h.asyncBufferFromFile('$S/event/timer.hrtimer_start.parquet'));
console.log(JSON.stringify(m.row_groups.map((g) => g.sorting_columns)),
	m.schema.find((e) => e.name === 'function').converted_type);")" \
	'[[{"column_idx":0,"descending":false,"nulls_first":false}]] UINT_64'
t_same "sys_enter's args[6] is a LIST of UBIGINT, one of 6 a row" \
	"$(q "select any_value(typeof(args)), min(len(args)), max(len(args)), count(*) from '$T_TMP/chunks/event/raw_syscalls.sys_enter.parquet'")" \
	"UBIGINT[]|6|6|$(sed -n 's/^rows raw_syscalls.sys_enter //p' "$T_TMP/chunks.chk")"
t_same "its values' statistics: one leaf column, nulls counted, bounds of the elements" \
	"$(q "select path_in_schema, sum(stats_null_count), min(stats_min_value::UBIGINT) = (select min(x) from (select unnest(args) x from '$T_TMP/chunks/event/raw_syscalls.sys_enter.parquet')),
	      max(stats_max_value::UBIGINT) = (select max(x) from (select unnest(args) x from '$T_TMP/chunks/event/raw_syscalls.sys_enter.parquet'))
	      from parquet_metadata('$T_TMP/chunks/event/raw_syscalls.sys_enter.parquet') where path_in_schema like 'args%' group by 1")" \
	"args, list, element|0|true|true"
if have_trace_cmd; then
	# each kernel_stack event's "=> func (addr)" lines, one line of addresses an event
	t_same "stack.dat: kernel_stack's caller lists are the addresses trace-cmd report prints" \
		"$(q "select array_to_string(list_transform(caller, lambda x: printf('%x', x)), ',')
		      from '$T_TMP/stack/event/ftrace.kernel_stack.parquet' order by ts")" \
		"$("$TRACE_CMD" report testdata/stack.dat 2>/dev/null | awk '
			/ kernel_stack: / { if (n++) print s; s = ""; next }
			/^=> / && n { a = $NF; gsub(/[()]/, "", a); s = s (s == "" ? "" : ",") a }
			END { if (n) print s }')"
else
	skip "kernel_stack's caller lists against trace-cmd report: trace-cmd is not installed"
fi
# cpumasks: no capture has one (make-cpumask.py says why); records made for the test
CM=$T_TMP/cpumask
if command -v python3 >/dev/null && python3 tests/cli/make-cpumask.py $TD/v6.dat "$CM.dat"; then
	t_exit "cpumasks: -f parquet" 0 -- tdat-convert -f parquet -o "$CM" "$CM.dat"
	tdat-convert -f csv --split-by-event -o "$CM.csv" "$CM.dat"
	pcheck "$CM" "$CM.csv" "$CM.chk"
	t_none "cpumasks: INTEGER[], the CSV's words' bits (EXCEPT ALL), hyparquet reads them" \
		"$(grep -v '^rows\|^events\|^except [^ ]* 0 0$\|^hyparquet [^ ]* [0-9]* yes$\|^big\|^lists\|^sym' "$CM.chk")"
	t_same "cpumasks: hyparquet read their elements" "$(sed -n 's/^lists ipi.ipi_send_cpumask //p' "$CM.chk")" 9
	# a sixth record whose mask lies past its end: a null list, not an empty one
	python3 tests/cli/make-cpumask.py --past-end $TD/v6.dat "$CM-past.dat"
	t_exit "cpumasks: a mask past its record's end: exit 1" 1 -- tdat-convert -f parquet -o "$CM-past" "$CM-past.dat"
	tdat-convert --lenient -f csv --split-by-event -o "$CM-past.csv" "$CM-past.dat" 2>/dev/null
	pcheck "$CM-past" "$CM-past.csv" "$CM-past.chk"
	t_same "cpumasks: a null list and an empty one differ (DuckDB, hyparquet, footer null_count)" \
		"$(q "select list(cpumask is null order by ts), list(len(cpumask) order by ts) from '$CM-past/event/ipi.ipi_send_cpumask.parquet'")
$(q "select stats_null_count from parquet_metadata('$CM-past/event/ipi.ipi_send_cpumask.parquet') where path_in_schema = 'cpumask, list, element'")
$(grep '^hyparquet ipi\|^except ipi' "$CM-past.chk")" \
		"false,false,false,false,false,true|2,1,0,4,2,
2
except ipi.ipi_send_cpumask 0 0
hyparquet ipi.ipi_send_cpumask 6 yes"
	if have_trace_cmd; then
		t_same "cpumasks: the CPUs trace-cmd report lists (cpumask=0,63-64,127)" \
			"$(q "select array_to_string(cpumask, ',') from '$CM/event/ipi.ipi_send_cpumask.parquet' order by ts")" \
			"$("$TRACE_CMD" report "$CM.dat" 2>/dev/null | sed -n 's/.* ipi_send_cpumask: *cpumask=\([^ ]*\) .*/\1/p' |
				awk -F, '{ s = ""; for (i = 1; i <= NF; i++) { n = split($i, r, "-");
					for (c = r[1]; c <= r[n]; c++) s = s (s == "" ? "" : ",") c }; print s }')"
	else
		skip "cpumasks against trace-cmd report: trace-cmd is not installed"
	fi
else
	skip "cpumasks: python3 could not make the capture (tests/cli/make-cpumask.py)"
fi
t_same "key-value metadata: clock, source, format" \
	"$(q "select string_agg(decode(key), ',' order by key) from parquet_kv_metadata('$S/event/sched.sched_switch.parquet')")" \
	"tdat.clock,tdat.format,tdat.source"

# --- a field outside its record is NULL ---
B=testdata/bad/print/field-past-record.dat
t_exit "a damaged capture: exit 1" 1 -- tdat-convert -f parquet -o "$T_TMP/dmg" $B
t_stderr_match "one message counts the events written without the field" \
	"^tdat-convert: $B: [0-9]+ events have fields outside their record, written without them"
tdat-convert --lenient -f csv --split-by-event -o "$T_TMP/dmg.csv" $B 2>/dev/null
pcheck "$T_TMP/dmg" "$T_TMP/dmg.csv" "$T_TMP/dmg.chk"
t_none "its rows equal the typed CSV's, types as declared" \
	"$(grep -v '^rows\|^events\|^except [^ ]* 0 0$\|^hyparquet [^ ]* [0-9]* yes$\|^big\|^sym' "$T_TMP/dmg.chk")"
t_same "prev_comm is NULL where the text output says UNSAFE TO PRINT" \
	"$(q "select count(*) from '$T_TMP/dmg/event/sched.sched_switch.parquet' where prev_comm is null")" \
	"$(tdat-convert --lenient $B 2>/dev/null | grep -c 'UNSAFE TO PRINT')"
t_same "the footer counts the nulls" \
	"$(q "select sum(stats_null_count) from parquet_metadata('$T_TMP/dmg/event/sched.sched_switch.parquet') where path_in_schema = 'prev_comm'")" \
	"$(tdat-convert --lenient $B 2>/dev/null | grep -c 'UNSAFE TO PRINT')"

# --- trace.json, several inputs, the other tools ---
t_exit "two inputs into one dataset" 0 -- tdat-convert -f parquet -o "$T_TMP/two" $TD/v7-zstd.dat $TD/v6.dat
t_same "trace.json is tdat-info --json of the inputs" "$(cat "$T_TMP/two/_tdat/trace.json")" \
	"$(tdat-info --json $TD/v7-zstd.dat $TD/v6.dat)"
t_same "events.parquet holds both inputs' events" \
	"$(q "select input, count(*) from '$T_TMP/two/events.parquet' group by 1 order by 1")" \
	"$(printf '0|%s\n1|%s' "$(tdat-info --json $TD/v7-zstd.dat | grep -o '"events":[0-9]*' | tail -n 1 | cut -d: -f2)" \
		"$(tdat-info --json $TD/v6.dat | grep -o '"events":[0-9]*' | tail -n 1 | cut -d: -f2)")"
t_exit "lost events and damage into one dataset" 1 -- \
	tdat-convert -f parquet -o "$T_TMP/lostdmg" $TD/lost-events.dat $TD/bad/truncated-v6-data.dat
t_same "its trace.json is tdat-info --json of the inputs (counted in one pass)" \
	"$(cat "$T_TMP/lostdmg/_tdat/trace.json")" \
	"$(tdat-info --json $TD/lost-events.dat $TD/bad/truncated-v6-data.dat 2>/dev/null)"
t_exit "a selection into a dataset" 0 -- \
	tdat-convert -f parquet -e sched:sched_switch -o "$T_TMP/sel" $TD/lost-events.dat
t_same "its trace.json is still the whole input's" "$(cat "$T_TMP/sel/_tdat/trace.json")" \
	"$(tdat-info --json $TD/lost-events.dat)"
t_exit "tdat-merge -f parquet" 0 -- tdat-merge -f parquet -o "$T_TMP/merged" $TD/v7-zstd.dat $TD/v6.dat
t_assert "writes the same dataset" cmp "$T_TMP/two/event/sched.sched_switch.parquet" "$T_TMP/merged/event/sched.sched_switch.parquet"
t_exit "tdat-filter -f parquet with a selection" 0 -- \
	tdat-filter -f parquet -e sched:sched_switch -o "$T_TMP/filtered" $TD/v7-zstd.dat
t_same "keeps only the selected type (and the analysis tables)" "$(cd "$T_TMP/filtered" && find . -type f | sort)" \
	"$(printf './%s\n' _tdat/tdat.json _tdat/trace.json analysis/counter.parquet analysis/cpu_counter_track.parquet \
		analysis/cpu_track.parquet analysis/process.parquet analysis/process_counter_track.parquet \
		analysis/sched_slice.parquet analysis/slice.parquet analysis/thread.parquet \
		analysis/thread_state.parquet analysis/thread_track.parquet analysis/track.parquet analysis/wakeup_latency.parquet \
		event/sched.sched_switch.parquet events.parquet)"

# --- the zstd level ---
pqbytes() { cat "$1"/*.parquet "$1"/*/*.parquet | wc -c; }
t_exit "--compression-level 3 (the default)" 0 -- \
	tdat-convert -f parquet --compression-level 3 -o "$T_TMP/l3" $TD/chunks.dat
t_assert "is the default: the same files" diff -r "$T_TMP/chunks" "$T_TMP/l3"
t_exit "--compression-level 5" 0 -- tdat-convert -f parquet --compression-level 5 -o "$T_TMP/l5" $TD/chunks.dat
t_exit "--compression-level 1" 0 -- tdat-convert -f parquet --compression-level 1 -o "$T_TMP/l1" $TD/chunks.dat
t_exit "tdat-filter --compression-level 19" 0 -- \
	tdat-filter -f parquet --compression-level 19 -o "$T_TMP/l19" $TD/chunks.dat
l1=$(pqbytes "$T_TMP/l1") l3=$(pqbytes "$T_TMP/l3") l5=$(pqbytes "$T_TMP/l5") l19=$(pqbytes "$T_TMP/l19")
t_assert "a higher level gives a smaller dataset (1: $l1, 3: $l3, 5: $l5, 19: $l19 bytes)" \
	test "$l19" -lt "$l5" -a "$l5" -le "$l3" -a "$l3" -le "$l1"
pcheck "$T_TMP/l19" "$T_TMP/chunks.csv" "$T_TMP/l19.chk"
t_none "level 19: the readers read the same rows (EXCEPT ALL, hyparquet)" \
	"$(grep -v '^rows\|^events\|^except [^ ]* 0 0$\|^hyparquet [^ ]* [0-9]* yes$\|^big\|^lists\|^sym' "$T_TMP/l19.chk")"
for bad in 0 23 -1 3x ''; do
	t_exit "--compression-level '$bad' is a usage error" 2 -- \
		tdat-convert -f parquet --compression-level "$bad" -o "$T_TMP/lbad" $TD/markers.dat
	t_stderr_match "that says the range" "invalid --compression-level '$bad' \(zstd: 1 to 22\)"
done
t_exit "tdat-merge --compression-level without -f parquet is a usage error" 2 -- \
	tdat-merge --compression-level 5 -o "$T_TMP/lbad.dat" $TD/markers.dat
t_stderr_match "that names -f parquet" "compression-level needs -f parquet"
t_assert "and nothing was written" test ! -e "$T_TMP/lbad" -a ! -e "$T_TMP/lbad.dat"

# --- the output directory: whole or not at all ---
mkdir -p "$T_TMP/fail"
t_exit "a write failure (file size limit) fails" 1 -- bash -c \
	"trap '' XFSZ; ulimit -f 4 && exec tdat-convert -f parquet -o '$T_TMP/fail/d' $TD/v7-zstd.dat"
t_stderr_match "naming the file" "tdat-convert: .*/fail/d: .*parquet: File too large"
t_empty_dir "and leaves no directory behind" "$T_TMP/fail"
t_exit "an unreadable input fails" 1 -- tdat-convert -f parquet -o "$T_TMP/fail/bad" $TD/bad/bad-magic.dat
t_empty_dir "and leaves no directory behind" "$T_TMP/fail"
t_exit "-o - is a usage error" 2 -- tdat-convert -f parquet -o - $TD/markers.dat
t_stderr_match "that asks for a directory" "needs an output directory"
t_serve_end pc
done_testing
