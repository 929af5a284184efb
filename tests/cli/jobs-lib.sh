# jobs-lib.sh: what t-jobs.sh and t-jobs-cases.sh share (sourced after
# lib.sh): windows as small as they can be (TDAT_JOBS_WINDOW=1: a cut at
# every page or chunk), and the checks that -j N gives what -j 1 does.
O=$T_TMP
export TDAT_JOBS_WINDOW=1	# a window a page (v6) or a chunk (v7): every cut there is

# same NAME ARGS...: tdat-convert ARGS at -j 1 and at each N of $JOBS (2, 3,
# 8 unless set): equal stdout, stderr and exit status (SAME_MADE=1: the -j 1
# run made already, by the same command or with -o FILE: its output in
# $O/out1, its messages in $O/err1, its exit status in $SAME_RC)
same() {
	local name=$1 j st1 st n1
	shift
	if [[ -n ${SAME_MADE-} ]]; then
		st1=$SAME_RC
	else
		tdat-convert -j 1 "$@" >"$O/out1" 2>"$O/err1"
		st1=$?
	fi
	n1=$(wc -l <"$O/out1")	# once, not once for each N
	for j in ${JOBS:-2 3 8}; do
		tdat-convert -j $j "$@" >"$O/out$j" 2>"$O/err$j"
		st=$?
		if [[ $st != "$st1" ]]; then
			not_ok "$name: -j $j as -j 1" "exit $st, -j 1 exit $st1"
		elif ! cmp -s "$O/out1" "$O/out$j"; then
			not_ok "$name: -j $j as -j 1" "output differs: $(cmp "$O/out1" "$O/out$j" 2>&1)"
		elif ! cmp -s "$O/err1" "$O/err$j"; then
			not_ok "$name: -j $j as -j 1" "messages differ:" "$(diff "$O/err1" "$O/err$j" | head -n 6)"
		else
			ok "$name: -j $j as -j 1 ($n1 lines, exit $st1)"
		fi
	done
}

# same_out NAME ARGS...: tdat-convert ARGS -o OUT at -j 1 and at each N of
# $JOBS (2, 8 unless set): the same file (or folder), the same messages and
# exit status (SO_MADE=1: the -j 1 run made already, by the same command:
# its output in $O/so1, its messages in $O/err1, its exit status in $SO_RC)
same_out() {
	local name=$1 j st1 st
	shift
	if [[ -n ${SO_MADE-} ]]; then
		# -j 1 run already, by this same command: $O/so1, $O/err1, $SO_RC
		rm -rf "$O"/so[2-9]*
		st1=$SO_RC
	else
		rm -rf "$O"/so[1-9]*
		tdat-convert -j 1 "$@" -o "$O/so1" 2>"$O/err1"
		st1=$?
	fi
	for j in ${JOBS:-2 8}; do
		tdat-convert -j $j "$@" -o "$O/so$j" 2>"$O/err$j"
		st=$?
		if [[ $st != "$st1" ]]; then
			not_ok "$name: -j $j as -j 1" "exit $st, -j 1 exit $st1"
		elif ! diff -r "$O/so1" "$O/so$j" >/dev/null 2>&1; then
			not_ok "$name: -j $j as -j 1" "output differs: $(diff -r "$O/so1" "$O/so$j" 2>&1 | head -n 2)"
		elif ! cmp -s "$O/err1" "$O/err$j"; then
			not_ok "$name: -j $j as -j 1" "messages differ:" "$(diff "$O/err1" "$O/err$j" | head -n 6)"
		else
			ok "$name: -j $j as -j 1 (exit $st1)"
		fi
	done
}

# nwindows FILE: the time windows -j 2 reads FILE in with its workers (0: it
# is read by the caller alone, as at -j 1)
nwindows() {
	tdat-convert -j 2 --verbose -o /dev/null "$@" 2>&1 |
		sed -n 's/.*: \([0-9]*\) time windows* read by the workers.*/\1/p' | grep . || echo 0
}

# windows NAME ARGS...: -j 2 --verbose reads ARGS in more than one time window
windows() {
	local name=$1 n
	shift
	n=$(nwindows "$@")
	t_assert "$name: -j 2 reads it in $n time windows" test "$n" -gt 1
}
