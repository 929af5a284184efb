#!/usr/bin/env bash
# t-damage-model.sh: the analysis model on damaged input (issue 44).  Every
# capture in testdata/ is damaged inside its CPU data, DAMAGE_COPIES times
# (default 8) at other places and in other ways (damage-model.py: random
# bytes, a page's time stamp, bit flips, 0xff or zero bytes; seeded, so the
# same copies every run), and each copy is converted to SQLite, Parquet and
# CSV.  For each copy:
#   - the three exit with the same status, 0 or 1, and 1 names the file and
#     its damage on stderr; the database and the dataset are written either way;
#   - the database and events.parquet hold every event the CSV holds (time,
#     CPU, system and name);
#   - the model's invariants (damage-model.sql: unique ids, parents one level
#     up on their track, dur >= 0 or -1, no overlapping sched slices on a CPU
#     or thread states of a thread, ...) hold in the database (sqlite3
#     through python3) and in the dataset (DuckDB, from the npm cache that
#     t-parquet.sh fills);
#   - the dataset's sched_slice, thread_state and slice have the database's
#     rows (EXCEPT ALL both ways).
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
NPMDIR=${TDAT_TEST_NPM:-${XDG_CACHE_HOME:-$HOME/.cache}/tdat-test-npm}
COPIES=${DAMAGE_COPIES:-8}
T_TIMEOUT=60

command -v python3 >/dev/null || skip_all "python3 is not installed (it damages the copies, reads sqlite)"
HAVE_DUCKDB=1
command -v node >/dev/null && node -e "require('$NPMDIR/node_modules/@duckdb/node-api')" 2>/dev/null ||
	HAVE_DUCKDB=

d=$T_TMP/copies
mkdir -p "$d"
captures=(testdata/*.dat)
# and the issue's case: on 0932bc0 these made one slice id twice, and -f sqlite
# wrote no database ("UNIQUE constraint failed: slice.id")
issue=()
for i in 14 20 23; do
	((i >= COPIES)) && issue+=("testdata/chunks.dat@$i")
done
mapfile -t copies < <(python3 tests/cli/damage-model.py copies "$d" "$COPIES" "${captures[@]}" \
	"${issue[@]}")
is "$COPIES damaged copies of each of the ${#captures[@]} captures, and ${#issue[@]} more" \
	"${#copies[@]}" "$((COPIES * ${#captures[@]} + ${#issue[@]}))"

damaged=0
prefixes=()
for c in "${copies[@]}"; do
	p=${c%.dat} name=${c##*/}
	prefixes+=("$p")
	rc=()
	for f in sqlite parquet csv; do
		out=$p.$f
		[[ $f == sqlite ]] && out=$p.db
		[[ $f == parquet ]] && out=$p.pq
		r=0
		timeout -k 2 "$T_TIMEOUT" tdat-convert -f "$f" -o "$out" "$c" 2>"$p.$f.err" || r=$?
		rc+=("$r")
	done
	why=
	if [[ ${rc[0]} != "${rc[1]}" || ${rc[0]} != "${rc[2]}" ]]; then
		why="exit status sqlite ${rc[0]}, parquet ${rc[1]}, csv ${rc[2]}"
	elif ((rc[0] != 0 && rc[0] != 1)); then
		why="exit status ${rc[0]}"
	elif [[ ! -s $p.db || ! -s $p.pq/events.parquet || ! -s $p.pq/analysis/slice.parquet ]]; then
		why="no database or dataset written"
	elif ((rc[0] == 1)) && ! grep -q "^tdat-convert: $c: .* skipped" "$p.sqlite.err"; then
		why="exit 1 without naming the damage: $(head -3 "$p.sqlite.err")"
	fi
	((rc[0] == 1)) && damaged=$((damaged + 1))
	if [[ -z $why ]]; then
		ok "$name: exit ${rc[0]} for sqlite, parquet and csv, output written"
	else
		not_ok "$name: exit 0 or 1 alike for sqlite, parquet and csv, output written" "$why"
	fi
done
t_assert "most copies are damaged as the reader sees it ($damaged of ${#copies[@]}: exit 1)" \
	test "$((damaged * 2))" -gt "${#copies[@]}"

# grab FILE TAG: for each of prefixes, NUL-terminated, the lines of FILE that
# hold "PREFIX TAG" (as grep -F finds them: anywhere in the line), in order,
# joined by newlines; one awk for them all (not a grep for each copy)
grab() {
	printf '%s\n' "${prefixes[@]}" |
		awk -v tag="$2" 'NR == FNR { p[++n] = $0 " " tag; got[n] = ""; next }
			{ for (i = 1; i <= n; i++) if (index($0, p[i])) got[i] = got[i] (got[i] == "" ? "" : "\n") $0 }
			END { for (i = 1; i <= n; i++) printf "%s%c", got[i], 0 }' - "$1"
}

# verdicts SIDE FILE: a line for each copy from the "PREFIX inv ..." lines of FILE
verdicts() {
	local side=$1 file=$2 i p name bad l invs any
	mapfile -t -d '' invs < <(grab "$file" "inv ")
	mapfile -t -d '' any < <(grab "$file" "")
	for i in "${!prefixes[@]}"; do
		p=${prefixes[$i]}
		name=${p##*/}.dat
		bad=
		if [[ -n ${invs[$i]} ]]; then
			while IFS= read -r l; do
				bad+=${bad:+$'\n'}${l#"$p inv "}
			done <<<"${invs[$i]}"
		fi
		if [[ -z $bad && -n ${any[$i]} ]]; then
			ok "$name: $side: the model's invariants hold"
		else
			not_ok "$name: $side: the model's invariants hold" "${bad:-not checked}"
		fi
	done
}

python3 tests/cli/damage-model.py check "${prefixes[@]}" >"$T_TMP/sqlite.chk" 2>&1
verdicts sqlite "$T_TMP/sqlite.chk"
mapfile -t -d '' lines < <(grab "$T_TMP/sqlite.chk" events)
for i in "${!prefixes[@]}"; do
	p=${prefixes[$i]}
	line=${lines[$i]}
	if [[ $line =~ ^[^\ ]+\ events\ [0-9]+$ ]]; then
		ok "${p##*/}.dat: sqlite: every event of the csv (${line##* })"
	else
		not_ok "${p##*/}.dat: sqlite: every event of the csv" "${line:-not checked}"
	fi
done

if [[ -z $HAVE_DUCKDB ]]; then
	skip "parquet: the model's invariants and the database's rows" \
		"@duckdb/node-api is not in $NPMDIR (tests/cli/t-parquet.sh installs it)"
	done_testing
	exit 0
fi
NPMDIR=$NPMDIR node tests/cli/damage-model-check.mjs "${prefixes[@]}" >"$T_TMP/parquet.chk" 2>&1
verdicts parquet "$T_TMP/parquet.chk"
mapfile -t -d '' excepts < <(grab "$T_TMP/parquet.chk" "except ")
mapfile -t -d '' lines < <(grab "$T_TMP/parquet.chk" "events-except ")
for i in "${!prefixes[@]}"; do
	p=${prefixes[$i]}
	name=${p##*/}.dat
	diff= n=0
	if [[ -n ${excepts[$i]} ]]; then
		while IFS= read -r l; do
			n=$((n + 1))
			[[ $l == *" 0 0" ]] || diff+=${diff:+$'\n'}$l
		done <<<"${excepts[$i]}"
	fi
	if [[ $n == 3 && -z $diff ]]; then
		ok "$name: parquet: sched_slice, thread_state and slice have the database's rows"
	else
		not_ok "$name: parquet: sched_slice, thread_state and slice have the database's rows" \
			"${diff:-not checked: $(tail -3 "$T_TMP/parquet.chk")}"
	fi
	is "$name: parquet: events.parquet has every event of the csv" "${lines[$i]}" "$p events-except 0 0"
done
done_testing
