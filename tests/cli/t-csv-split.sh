#!/usr/bin/env bash
# t-csv-split.sh: tdat-convert -f csv --split-by-event -o DIR: one typed CSV
# file per event type, row counts as tdat-info and trace-cmd report count
# them, headers naming the format's fields, sqlite3 imports, escaping,
# several inputs, the open-file limit, and the output directory written
# whole or not at all.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata

# "FILE-BASE ROWS" per CSV file of a directory (the header is not a row)
counts_split() {
	local f b
	for f in "$1"/*.csv; do
		b=${f##*/}
		echo "${b%.csv} $(($(wc -l <"$f") - 1))"
	done | sort
}

# "EVENT COUNT" per event name of a trace-cmd report text (continuation
# lines such as a stack's "=> func" have no "[cpu] ts: name:")
counts_report() {
	sed -n 's/^[^[]*\[[0-9]*\] *[0-9.]*: \([^ :]*\):.*/\1/p' "$1" | sort | uniq -c |
		awk '{ print $2, $1 }' | sort
}

# rows sqlite3 imports from each file, as "FILE-BASE ROWS"
counts_sqlite() {
	local f b
	for f in "$1"/*.csv; do
		b=${f##*/}
		printf '.import --csv %s t\nselect count(*) from t;\n' "$f" >"$T_TMP/imp.sql"
		echo "${b%.csv} $(sqlite3 :memory: <"$T_TMP/imp.sql" 2>&1)"
	done | sort
}

# query DIR SQL-ON-TABLE-t FILE-BASE: import DIR/FILE-BASE.csv as t, run SQL
query() {
	printf '.import --csv %s t\n%s\n' "$1/$3.csv" "$2" >"$T_TMP/q.sql"
	sqlite3 :memory: <"$T_TMP/q.sql" 2>&1
}

# for_sym_cols DIR FN: FN FILE EVENT COLUMN for every FIELD_sym column of a split directory
for_sym_cols() {
	local c b col
	for c in "$1"/*.csv; do
		b=${c##*/}
		b=${b%.csv}
		for col in $(head -n 1 "$c" | tr , '\n' | grep '_sym$'); do
			"$2" "$c" "${b#*.}" "$col"
		done
	done
}

# "EVENT:FIELD " of a column
sym_column() {
	printf '%s:%s ' "$2" "${3%_sym}"
}

# "EVENT CPU SECS.USECS FIELD SYMBOL" of each cell of a column (read by
# sqlite3): as text-syms.awk prints the report's
sym_cells() {
	printf '.import --csv %s t\n.separator " "\nselect %s, cpu, printf(%s, (cast(ts as integer) + 500) / 1000000000, (cast(ts as integer) + 500) / 1000 %% 1000000), %s, "%s" from t;\n' \
		"$1" "'$2'" "'%d.%06d'" "'${3%_sym}'" "$3" | sqlite3 :memory:
}

# t_syms NAME DIR REPORT: every FIELD_sym cell of DIR is the symbol the
# report prints for that event and field (event by event: cpu and time)
t_syms() {
	t_same "$1" "$(for_sym_cols "$2" sym_cells | sort)" \
		"$(awk -v want="$(for_sym_cols "$2" sym_column)" -f tests/cli/text-syms.awk "$3" | sort)"
}

# --- real captures: one file per type, counts, headers, sqlite ---
for f in v7-zstd v6 two-buffers markers lost-events stack extract; do
	out=$T_TMP/$f
	t_exit "$f.dat: split" 0 -- tdat-convert -f csv --split-by-event -o "$out" $TD/$f.dat
	info=$(counts_info $TD/$f.dat)
	t_same "$f.dat: one file per event type, rows as tdat-info counts" \
		"$(counts_split "$out")" "$info"
	t_same "$f.dat: per-event rows as trace-cmd report shows them" \
		"$(counts_split "$out" | sed 's/^[^.]*\.//' | sort)" \
		"$(counts_report tests/expected/$f.text.out)"
	t_same "$f.dat: sqlite3 imports every row of every file" "$(counts_sqlite "$out")" "$info"
	bad=$(for c in "$out"/*.csv; do
		h=$(head -n 1 "$c")
		[[ $h == ts,cpu,input,buffer,pid,comm,lost* ]] || echo "${c##*/}: $h"
		[[ -z $(tr , '\n' <<<"$h" | sort | uniq -d) ]] || echo "${c##*/}: duplicate column in $h"
	done)
	t_none "$f.dat: headers start with the fixed columns, no name twice" "$bad"
	t_assert "$f.dat: every file is valid UTF-8" \
		sh -c "cat '$out'/*.csv | iconv -f UTF-8 -t UTF-8 >/dev/null"
	t_syms "$f.dat: FIELD_sym cells are the symbols trace-cmd report prints" \
		"$out" tests/expected/$f.text.out
done
# sym/kmem.dat: kmalloc and kfree print call_site with %pS (name+0xOFF)
t_exit "sym/kmem.dat: split" 0 -- tdat-convert -f csv --split-by-event -o "$T_TMP/kmem" $TD/sym/kmem.dat
t_same "sym/kmem.dat: kfree columns: call_site_sym after call_site" "$(head -n 1 $T_TMP/kmem/kmem.kfree.csv)" \
	"ts,cpu,input,buffer,pid,comm,lost,call_site,call_site_sym,ptr"
t_syms "sym/kmem.dat: call_site_sym (%pS) cells are the report's name+0xOFF" \
	"$T_TMP/kmem" tests/expected/kmem.text.out
t_exit "old-kernel.dat: split" 0 -- tdat-convert -f csv --split-by-event -o "$T_TMP/old" $TD/old-kernel.dat
t_syms "old-kernel.dat: ip_sym of print and bprint is the report's symbol" \
	"$T_TMP/old" tests/expected/old-kernel.text.out

# --- headers name the format's fields ---
S=$T_TMP/v7-zstd
t_same "sched_switch columns are its fields" "$(head -n 1 $S/sched.sched_switch.csv)" \
	"ts,cpu,input,buffer,pid,comm,lost,prev_comm,prev_pid,prev_prio,prev_state,next_comm,next_pid,next_prio"
t_same "a field named like a fixed column is field_NAME" "$(head -n 1 $S/sched.sched_wakeup.csv)" \
	"ts,cpu,input,buffer,pid,comm,lost,field_comm,field_pid,prio,target_cpu"
t_same "ftrace/print columns: ip_sym after ip (%ps)" "$(head -n 1 $T_TMP/markers/ftrace.print.csv)" \
	"ts,cpu,input,buffer,pid,comm,lost,ip,ip_sym,buf"
t_same "hrtimer_start: function_sym after function (%ps)" \
	"$(head -n 1 $S/timer.hrtimer_start.csv)" \
	"ts,cpu,input,buffer,pid,comm,lost,hrtimer,function,function_sym,expires,softexpires,mode,was_armed"
t_same "kernel_stack: caller_sym after the callers" "$(head -n 1 $T_TMP/stack/ftrace.kernel_stack.csv)" \
	"ts,cpu,input,buffer,pid,comm,lost,size,caller,caller_sym"
t_same "no FIELD_sym where the format prints no symbol" \
	"$(grep -l '_sym' $S/*.csv | sed 's|.*/||' | tr '\n' ' ')" \
	"timer.hrtimer_expire_entry.csv timer.hrtimer_start.csv timer.timer_expire_entry.csv timer.timer_start.csv "

# --- typed queries agree with the text report ---
t_same "sum(runtime) of sched_stat_runtime equals the report's" \
	"$(query $S 'select sum(runtime) from t;' sched.sched_stat_runtime)" \
	"$(sed -n 's/.*sched_stat_runtime: .* runtime=\([0-9]*\) \[ns\]$/\1/p' tests/expected/v7-zstd.text.out |
		awk '{ s += $1 } END { print s }')"
t_same "max(prev_pid) of sched_switch equals the report's" \
	"$(query $S 'select max(cast(prev_pid as integer)) from t;' sched.sched_switch)" \
	"$(sed -n 's/.*sched_switch: .*:\([0-9]*\) \[[0-9]*\] [^ ]* ==> .*/\1/p' tests/expected/v7-zstd.text.out |
		sort -n | tail -n 1)"
t_same "next_comm values are the report's" \
	"$(query $S 'select next_comm from t order by cast(ts as integer), cpu;' sched.sched_switch | sort | uniq -c)" \
	"$(sed -n 's/.*sched_switch: .* ==> \(.*\):[0-9]* \[[0-9]*\]$/\1/p' tests/expected/v7-zstd.text.out |
		sort | uniq -c)"
t_same "the buffer column names the instance" \
	"$(query $T_TMP/two-buffers 'select buffer, count(*) from t group by buffer;' irq.softirq_raise)" \
	"foo|$(grep -c '^foo: .* softirq_raise: ' tests/expected/two-buffers.text.out)"

# --- markers.dat: odd bytes survive, quotes only doubled ---
M=$T_TMP/markers
t_same "a marker with double quotes round-trips through sqlite3" \
	"$(query $M "select buf from t where buf like 'double%';" ftrace.print)" \
	'double "quoted" text and a lone " quote\x0a'
t_assert "in the file the quotes are doubled, not backslashed" \
	grep -qF ',"double ""quoted"" text and a lone "" quote\x0a"' $M/ftrace.print.csv
t_same "bytes that are not UTF-8 are \\xNN, UTF-8 kept" \
	"$(query $M "select buf from t where buf like '%utf8%';" ftrace.print)" \
	"$(printf '%s\n%s' 'utf8: héllo ✓ 日本\x0a' 'invalid utf8: \xff\xfe and lone \xc3 end\x0a')"
t_same "backslashes are doubled, control characters \\xNN" \
	"$(query $M "select buf from t where buf like 'back%' or buf like 'control%';" ftrace.print)" \
	"$(printf '%s\n%s' 'back\\slash and two \\\\ and trailing \\\x0a' \
		'control: \x01\x02 esc\x1b[31mred\x1b[0m cr\x0d bell\x07\x0a')"
t_same "the 4015-byte marker is whole" \
	"$(query $M "select length(buf) from t where buf like 'verylong%';" ftrace.print)" 4018
t_golden_dir "markers.dat split equals tests/expected/split-markers/" split-markers $M

# --- several inputs ---
MI=$T_TMP/multi
t_exit "two inputs into one directory" 0 -- \
	tdat-convert --split-by-event -o "$MI" $TD/v7-zstd.dat $TD/v6.dat
t_same "a type of both inputs is one file holding both inputs' rows" \
	"$(counts_split "$MI")" \
	"$(cat <(counts_info $TD/v7-zstd.dat) <(counts_info $TD/v6.dat) |
		awk '{ n[$1] += $2 } END { for (k in n) print k, n[k] }' | sort)"
t_same "rows come from input 0 and input 1" \
	"$(query "$MI" 'select input, count(*) from t group by input;' sched.sched_switch)" \
	"$(printf '0|%s\n1|%s' "$(counts_info $TD/v7-zstd.dat | sed -n 's/^sched.sched_switch //p')" \
		"$(counts_info $TD/v6.dat | sed -n 's/^sched.sched_switch //p')")"
t_assert "each file is in timestamp order" sh -c "for f in '$MI'/*.csv; do
	tail -n +2 \"\$f\" | cut -d, -f1 | sort -c -n || exit 1; done"
# the same type with another field list goes to SYSTEM.EVENT.2.csv (the field
# is renamed in its print format too: a format naming a field it lacks is
# refused as damaged, see libfmt/guard/tep-guard.c)
LC_ALL=C sed 's/\([ >]\)prev_pid\([;,]\)/\1prev_pie\2/g' $TD/v6.dat >"$T_TMP/v6-renamed.dat"
t_exit "two inputs whose sched_switch formats differ" 0 -- \
	tdat-convert --split-by-event -o "$T_TMP/differ" $TD/v6.dat "$T_TMP/v6-renamed.dat"
t_same "the second format goes to sched.sched_switch.2.csv" \
	"$(head -qn 1 "$T_TMP"/differ/sched.sched_switch{,.2}.csv | cut -d, -f8-9)" \
	"$(printf 'prev_comm,prev_pid\nprev_comm,prev_pie')"
t_same "each with its own input's rows" \
	"$(cut -d, -f3 "$T_TMP"/differ/sched.sched_switch{,.2}.csv | sort | uniq -c | sed 's/^ *//')" \
	"$(n=$(counts_info $TD/v6.dat | sed -n 's/^sched.sched_switch //p'); printf '%s 0\n%s 1\n2 input' "$n" "$n")"
t_same "types whose formats agree still share a file" \
	"$(cut -d, -f3 "$T_TMP"/differ/sched.sched_wakeup.csv | sort -u | tr '\n' ' ')" "0 1 input "

# --- bounded open files: the least recently used is closed and reopened ---
t_exit "27 types with 9 descriptors (ulimit -n 9)" 0 -- \
	bash -c "ulimit -n 9 && exec tdat-convert --split-by-event -o '$T_TMP/fewfds' $TD/extract.dat"
t_assert "gives the same files as without a limit" diff -r "$T_TMP/extract" "$T_TMP/fewfds"

# --- the output directory: whole or not at all ---
mkdir -p "$T_TMP/full" && echo keep >"$T_TMP/full/mine.txt"
t_exit "an existing non-empty directory is refused" 1 -- \
	tdat-convert --split-by-event -o "$T_TMP/full" $TD/markers.dat
t_stderr_match "with a clear message" "tdat-convert: .*/full: the directory exists, is not empty and is not one tdat wrote"
t_same "and it is left as it was" "$(ls "$T_TMP/full"):$(cat "$T_TMP/full/mine.txt")" "mine.txt:keep"
t_none "no temporary directory is left beside it" "$(ls -d "$T_TMP"/full.tmp-* 2>/dev/null)"
mkdir -p "$T_TMP/empty"
t_exit "an existing empty directory is replaced" 0 -- \
	tdat-convert --split-by-event -o "$T_TMP/empty" $TD/markers.dat
t_assert "by the split" diff -r "$T_TMP/empty" "$T_TMP/markers"
t_exit "-o - is a usage error" 2 -- tdat-convert --split-by-event -o - $TD/markers.dat
t_stderr_match "that asks for a directory" "needs an output directory"
t_exit "no -o is a usage error" 2 -- tdat-convert --split-by-event $TD/markers.dat
t_exit "--split-by-event with -f text is a usage error" 2 -- \
	tdat-convert -f text --split-by-event -o "$T_TMP/t" $TD/markers.dat
mkdir -p "$T_TMP/fail"
t_exit "a write failure (file size limit) fails" 1 -- bash -c \
	"trap '' XFSZ; ulimit -f 8 && exec tdat-convert --split-by-event -o '$T_TMP/fail/d' $TD/v7-zstd.dat"
t_stderr_match "naming the file" "tdat-convert: .*/fail/d: [a-z_]+\.[a-z_]+\.csv: File too large"
t_empty_dir "and leaves no directory behind" "$T_TMP/fail"
t_exit "an unreadable input fails" 1 -- \
	tdat-convert --split-by-event -o "$T_TMP/fail/bad" $TD/bad/bad-magic.dat
t_empty_dir "and leaves no directory behind" "$T_TMP/fail"
t_exit "-o DIR.gz is a directory, not gzip" 0 -- \
	tdat-convert --split-by-event -o "$T_TMP/m.gz" $TD/markers.dat
t_assert "holding the same files" diff -r "$T_TMP/m.gz" "$T_TMP/markers"
done_testing
