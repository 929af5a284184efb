#!/usr/bin/env bash
# t-sections.sh: every section and option of a trace.dat, known or not, in
# tdat-info (text and --json) with its id, place, size and what it holds;
# the sections trace-cmd 3.4 added (BTF_FILE 23, MODULES_FILE 25) and the
# option LAST_BOOT_INFO (24) kept byte for byte by -f dat, tdat-filter,
# tdat-merge and every piece of tdat-split where trace-cmd 3.4 reads them
# (compressed v7: not in v6 or uncompressed v7, which say so); a damaged
# BTF section named and skipped (the events still read), as trace-cmd 3.4
# does not (it prints nothing).  The data of a section is read back by
# tests/cli/dat-section.py, not by tdat.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
X=$TD/tc34-extract.dat
LB=$TD/lastboot/lastboot.dat
O=$T_TMP
command -v python3 >/dev/null || skip_all "no python3"
have_zstd() { command -v zstd >/dev/null; }

# --- tdat-info lists them ---
t_exit "tdat-info of an extract of trace-cmd 3.4" 0 -- tdat-info $X
t_stdout_match "its BTF section: id 23, where, stored and decompressed size, label" \
	'^  section +23 BTF_FILE +166943 +1447 +3224  the kernel.s BTF \(/sys/kernel/btf/vmlinux\) \("BTF"\)$'
t_stdout_match "the option pointing to it" '^  option +23 BTF_FILE +187218 +8 +-  the kernel.s BTF'
t_stdout_match "the strings section no option points to" '^  section +15 STRINGS +226515 +105 +112  the names of the sections \("strings"\)$'
t_stdout_match "the options sections" '^  section +0 OPTIONS +186685 +569 +-  options \("options"\)$'
t_stdout_match "a buffer's data section" '^  section +3 BUFFER +187270 +39130 '
t_assert "every option of trace-cmd dump --options is listed (17)" \
	test "$(grep -c '^  option ' "$T_OUT")" = 17
if have_trace_cmd_34; then
	t_assert "as many options as trace-cmd 3.4 dump --options counts" test "$(grep -c '^  option ' "$T_OUT")" = \
		"$("$TRACE_CMD_34" dump --options -i $X 2>/dev/null | sed -n 's/^	\[\([0-9]*\) options\]$/\1/p')"
else
	skip "as many options as trace-cmd 3.4 dump --options counts" "no trace-cmd 3.4"
fi
t_run "--json" -- tdat-info --json $X
t_assert "--json: the same entries" test "$(grep -o '"kind":' "$T_OUT" | wc -l)" = \
	"$(tdat-info $X | sed -n '/^sections and options:/,$p' | grep -c '^  [sov]')"
t_stdout_match "--json: BTF with its sizes and label" \
	'\{"kind":"section","id":23,"name":"BTF_FILE","what":"[^"]*","label":"BTF","offset":166943,"size":1447,"uncompressed_size":3224,"compressed":true,"damage":null\}'
t_run "v6" -- tdat-info $TD/v6.dat
t_stdout_match "v6: its parts at their fixed places" '^  v6 part +19 KALLSYMS +41977 +176375 +-  kernel symbols'
t_stdout_match "v6: its options" '^  option +5 UNAME +226561 +32 '

# an option of an id no one knows: listed as such, and the file reads on
lbi=$(tdat-info --json $LB | grep -o '"id":24,[^}]*')
off=$(sed -n 's/.*"offset":\([0-9]*\).*/\1/p' <<<"$lbi")
size=$(sed -n 's/.*"size":\([0-9]*\).*/\1/p' <<<"$lbi")
cp $LB "$O/unknown.dat"
python3 -c "import sys; f=open(sys.argv[1],'r+b'); f.seek(int(sys.argv[2])); f.write((999).to_bytes(2,'little'))" \
	"$O/unknown.dat" "$off"
t_exit "an option of unknown id 999: the file opens" 0 -- tdat-info "$O/unknown.dat"
t_stdout_match "and lists it" "^  option +999 \\? +$off +$size +-  unknown\$"

# --- -f dat keeps them, byte for byte ---
btf() { python3 tests/cli/dat-section.py "$1" 23; }
if have_zstd; then
	btf $X >"$O/btf.want"
	t_assert "the extract's BTF section holds a BTF (magic 0xeb9f, 3224 bytes)" \
		test "$(head -c 2 "$O/btf.want" | od -An -tx1 | tr -d ' ')" = 9feb -a "$(wc -c <"$O/btf.want")" = 3224
else
	skip "the extract's BTF section holds a BTF" "no zstd command to read it with"
fi
for v in zstd zlib; do
	t_exit "-f dat --compression $v" 0 -- tdat-convert -f dat --compression $v -o "$O/x.$v.dat" $X
	if have_zstd; then
		t_assert "$v: the same BTF, byte for byte" cmp -s <(btf "$O/x.$v.dat") "$O/btf.want"
	else
		skip "$v: the same BTF" "no zstd command"
	fi
	if have_trace_cmd_34; then
		t_assert "$v: trace-cmd 3.4 reports it as the extract" \
			cmp -s <("$TRACE_CMD_34" report -i "$O/x.$v.dat" 2>/dev/null) tests/expected/tc34-extract.text34.out
	else
		skip "$v: trace-cmd 3.4 reports it as the extract" "no trace-cmd 3.4"
	fi
done
for v in "--compression none" "--file-version 6"; do
	t_exit "-f dat $v" 0 -- tdat-convert -f dat $v -o "$O/x.n.dat" $X
	t_stderr_match "$v: says the BTF section is not written, and why" \
		"tc34-extract.dat: its BTF_FILE section is not written: (trace-cmd 3.4 reads it only compressed|version 6 has no sections)"
	t_assert "$v: and it is not" test "$(tdat-info "$O/x.n.dat" | grep -c ' 23 BTF_FILE')" = 0
	t_golden "$v: the text is the extract's" tc34-extract.text34.out -- tdat-convert --report-style 3.4 "$O/x.n.dat"
done
t_exit "tdat-filter of a selection keeps BTF" 0 -- tdat-filter -F sched_switch -o "$O/f.dat" $X
t_assert "its BTF section is there" test "$(tdat-info "$O/f.dat" | grep -Ec '^  section +23 BTF_FILE .* 3224 ')" = 1
t_exit "tdat-merge with another input: the first input's BTF" 0 -- tdat-merge -o "$O/m.dat" $X $TD/v6.dat
t_assert "its BTF section is there" test "$(tdat-info "$O/m.dat" | grep -Ec '^  section +23 BTF_FILE .* 3224 ')" = 1
mkdir -p "$O/p"
t_exit "tdat-split into 3 pieces" 0 -- tdat-split --events 1400 -o "$O/p/x" $X
n=0
for p in "$O"/p/x.*.dat; do
	tdat-info "$p" | grep -Eq '^  section +23 BTF_FILE .* 3224 ' && n=$((n + 1))
done
t_assert "every piece keeps the BTF section ($n of $(ls "$O"/p | wc -l))" test "$n" = "$(ls "$O"/p | wc -l)" -a "$n" -ge 3
if have_zstd; then
	t_assert "a piece's BTF is the extract's, byte for byte" cmp -s <(btf "$O/p/x.0002.dat") "$O/btf.want"
else
	skip "a piece's BTF is the extract's" "no zstd command"
fi
# a persistent buffer's LAST_BOOT_INFO and MODULES_FILE (zlib: Python reads them)
t_exit "-f dat of lastboot.dat" 0 -- tdat-convert -f dat --compression zlib -o "$O/lb.dat" $LB
t_assert "keeps MODULES_FILE, byte for byte" \
	cmp -s <(python3 tests/cli/dat-section.py "$O/lb.dat" 25) <(python3 tests/cli/dat-section.py $LB 25)
t_assert "and LAST_BOOT_INFO" test "$(tdat-info --json "$O/lb.dat" | grep -o '"id":24,"name":"LAST_BOOT_INFO"[^}]*"size":'"$size" | wc -l)" = 1

# --- a damaged BTF section is named and skipped ---
cp $X "$O/bad.dat"
python3 -c "import sys; f=open(sys.argv[1],'r+b'); f.seek(166943 + 16 + 8 + 20); f.write(b'\xff' * 64)" "$O/bad.dat"
t_exit "a BTF section that does not decompress: exit 1" 1 -- tdat-convert --report-style 3.4 "$O/bad.dat"
t_stderr_match "which names it, says it was skipped, and why" \
	"bad.dat: BTF_FILE section damaged, skipped: section does not decompress \\(offset 166943\\)"
t_assert "and every event is printed as from the undamaged file" cmp -s "$T_OUT" tests/expected/tc34-extract.text34.out
t_exit "--lenient: exit 0" 0 -- tdat-convert --lenient --report-style 3.4 -o /dev/null "$O/bad.dat"
t_exit "tdat-info: exit 1" 1 -- tdat-info "$O/bad.dat"
t_stdout_match "and its listing says so" '^  section +23 BTF_FILE +166943 .*; DAMAGED, skipped: section does not decompress \(offset 166943\)$'
t_exit "-f dat of it: exit 1" 1 -- tdat-convert -f dat -o "$O/bad-out.dat" "$O/bad.dat"
t_assert "and writes no BTF section" test "$(tdat-info "$O/bad-out.dat" | grep -c ' 23 BTF_FILE')" = 0
if have_trace_cmd_34; then
	t_assert "(trace-cmd 3.4 prints nothing for it)" test ! -s "$("$TRACE_CMD_34" report -i "$O/bad.dat" 2>/dev/null | head -c 1 >"$O/tc"; echo "$O/tc")"
else
	skip "(trace-cmd 3.4 prints nothing for it)" "no trace-cmd 3.4"
fi
done_testing
