# text-syms.awk: the kernel symbols a `trace-cmd report` text prints, for
# the FIELD_sym checks of t-csv-split.sh, t-sqlite.sh and t-parquet.sh.
#
#   awk -v want='EVENT:FIELD ...' -f text-syms.awk REPORT
#
# prints "EVENT CPU SECS.USECS FIELD SYMBOL" for every event line of an
# EVENT named in want, one line per FIELD, in the report's order.  SYMBOL is
# what the report shows for the field:
#   kernel_stack caller  the names of the "=> name (addr)" lines after it
#                        (the bare hex of a "=> addr" line), joined by ';'
#   print/bprint ip      the text before the first ": " ("%ps: %s")
#   function ip          " %ps <-- %ps": the name before "<--", parent_ip after
#   others               the word after "FIELD=" or "FIELD " (as in
#                        "function=%ps", "function %ps"), where hrtimer's
#                        plugin's "/0xOFFSET" after the name is left out;
#                        "?" if the line has no such word.
BEGIN {
	n = split(want, w, " ")
	for (i = 1; i <= n; i++) {
		split(w[i], p, ":")
		fields[p[1]] = fields[p[1]] " " p[2]
	}
}

function flush_stack() {
	if (instack)
		print sev, scpu, sts, "caller", stk
	instack = 0
	stk = ""
}

function word_after(info, f,    s) {
	if (!match(info, "(^|[ (])" f "[= ]"))
		return "?"
	s = substr(info, RSTART + RLENGTH)
	sub(/[ ,)].*/, "", s)
	sub(/\/0x[0-9a-f]+$/, "", s)
	return s == "" ? "?" : s
}

function sym_of(ev, f, info,    s) {
	s = info
	if ((ev == "print" || ev == "bprint") && f == "ip") {
		if (!sub(/: .*/, "", s))
			return "?"
		return s
	}
	if (ev == "function" && (f == "ip" || f == "parent_ip")) {
		if (f == "parent_ip")
			return sub(/.*<-- /, "", s) ? s : "?"
		sub(/^ */, "", s)
		sub(/ .*/, "", s)
		return s
	}
	return word_after(info, f)
}

/^=> / {
	if (instack)
		stk = stk (stk == "" ? "" : ";") $2
	next
}

match($0, /\[[0-9]+\] *[0-9.]+: [^ :]+: */) {
	flush_stack()
	head = substr($0, RSTART, RLENGTH)
	info = substr($0, RSTART + RLENGTH)
	cpu = head
	sub(/^\[/, "", cpu)
	sub(/\].*/, "", cpu)
	ts = head
	sub(/^[^\]]*\] */, "", ts)
	sub(/:.*/, "", ts)
	ev = head
	sub(/^[^\]]*\] *[0-9.]+: /, "", ev)
	sub(/:.*/, "", ev)
	if (!(ev in fields))
		next
	if (ev == "kernel_stack") {
		instack = 1
		sev = ev
		scpu = cpu + 0
		sts = ts
		next
	}
	nf = split(fields[ev], fl, " ")
	for (i = 1; i <= nf; i++)
		print ev, cpu + 0, ts, fl[i], sym_of(ev, fl[i], info)
}

END {
	flush_stack()
}
