#!/usr/bin/env bash
# t-states.sh: one decoder of task states and one name per syscall in every
# format (issue 44, points 4 and 5).  For every capture in testdata/ (and its
# folders but bad/), each sched_switch's prev_state letters in -f sqlite
# (sched_slice.end_state, thread_state.state), -f parquet (the same tables)
# and -f json (the systemTraceEvents lines) are the ones trace-cmd report -N
# prints: the kernel's own print format, evaluated by libtraceevent, without
# the sched_switch plugin (which drops the "+" of a preempted task).  Both
# trace-cmd 3.1.6 and 3.4 are asked.  testdata/states/kernel-4.9.dat has a
# 4.9 kernel's table (x K W P N, "+" at 0x1000; testdata/README.md).  Then
# the raw_syscalls slices of -f json and -f sqlite that start at the same
# time on the same thread have the same name ("sys_wait4", from one table),
# and -j 2 writes the JSON -j 1 writes for the 4.9 capture.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
CHECK=tests/cli/states-check.py

command -v python3 >/dev/null || skip_all "python3 is not installed"
have_trace_cmd || have_trace_cmd_34 || skip_all "no trace-cmd (3.1.6 or 3.4) to compare with"
DUCK=1
readers_ready || DUCK=

# report TC FILE OUT: `TC report -N -t` of FILE in OUT; non-zero if TC cannot read it
report() {
	[[ -n $1 && -x $1 ]] || return 1
	[[ $1 != "$TRACE_CMD" ]] || ! is_zlib "$2" || return 1
	"$1" report -N -t -i "$2" >"$3" 2>/dev/null && grep -q ' sched_switch: ' "$3"
}

# the checkers, started once (lib.sh's t_serve): states-check.py's checks,
# and states-rows.mjs: the rows it compares of a Parquet dataset (DuckDB)
t_serve st python3 "$CHECK" serve
[[ -n $DUCK ]] && t_serve pr env NPMDIR="$NPMDIR" node tests/cli/states-rows.mjs

# check NAME ARGS...: states-check.py ARGS passes
check() {
	local name=$1
	shift
	t_ask st "$(IFS=$'\t'; echo "$*")"
	if [[ $T_REPLY == "ok "* ]]; then
		ok "$name (${T_REPLY#ok } values)"
	else
		T_REPLY=${T_REPLY#bad }
		not_ok "$name" "${T_REPLY//$'\t'/$'\n'}"
	fi
}

[[ -f $TD/states/kernel-4.9.dat ]] || echo "Bail out! $TD/states/kernel-4.9.dat is missing"
for dat in $TD/*.dat $TD/*/*.dat; do
	[[ $dat == $TD/bad/* ]] && continue
	f=${dat#"$TD"/}
	out=$T_TMP/${f//\//_}
	rep=
	report "$TRACE_CMD" "$dat" "$out.3.1.6" && rep+=" $out.3.1.6"
	report "$TRACE_CMD_34" "$dat" "$out.3.4" && rep+=" $out.3.4"
	t_exit "$f: -f sqlite" 0 -- tdat-convert -f sqlite -o "$out.db" "$dat"
	t_exit "$f: -f json" 0 -- tdat-convert -f json -o "$out.json" "$dat"
	for r in $rep; do
		check "$f: sqlite states = trace-cmd ${r#"$out".} report -N" states "$r" sqlite "$out.db"
	done
	if [[ -n $rep ]]; then
		r=${rep# }
		r=${r%% *}
		check "$f: json states = trace-cmd report -N" states "$r" json "$out.json"
		if [[ -z $DUCK ]]; then
			skip "$f: parquet states = trace-cmd report -N" "$NPM_WHY"
		else
			t_exit "$f: -f parquet" 0 -- tdat-convert -f parquet -o "$out.pq" "$dat"
			t_ask pr "$out.pq"$'\t'"$out.pq.rows"
			if [[ $T_REPLY == done ]]; then
				check "$f: parquet states = trace-cmd report -N" states "$r" rows "$out.pq.rows"
			else
				not_ok "$f: parquet states can be read" "$T_REPLY"
			fi
		fi
	fi
	if grep -q '"cat":"raw_syscalls' "$out.json"; then
		check "$f: json syscall names = sqlite's" syscalls "$out.json" "$out.db"
	fi
done

t_serve_end st
[[ -n $DUCK ]] && t_serve_end pr

# -j workers decode with the same tables
k49=$TD/states/kernel-4.9.dat
t_exit "kernel-4.9.dat: -f json -j 2" 0 -- tdat-convert -f json -j 2 -o "$T_TMP/k49-j2.json" "$k49"
if cmp -s "$T_TMP/k49-j2.json" "$T_TMP/states_kernel-4.9.dat.json"; then
	ok "kernel-4.9.dat: -j 2 writes the JSON of -j 1"
else
	not_ok "kernel-4.9.dat: -j 2 writes the JSON of -j 1" \
		"$(cmp "$T_TMP/k49-j2.json" "$T_TMP/states_kernel-4.9.dat.json")"
fi
# the 4.9 letters are there, and the + of 0x1000
n=$(grep -o 'prev_state=[^ ]*' "$T_TMP/states_kernel-4.9.dat.json" | sort | uniq -c | tr -s ' ' | tr '\n' ,)
is "kernel-4.9.dat: json has the 4.9 letters" "$n" \
	" 11 prev_state=D|K, 46 prev_state=D|N, 44 prev_state=R, 12 prev_state=R+, 31 prev_state=S, 12 prev_state=x,"
done_testing
