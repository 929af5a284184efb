#!/usr/bin/env bash
# t-layers.sh: the library's folders are layers, each using only those under
# it: guard/ (what libtraceevent must not be handed) < read/ < model/ <
# write/ < run/ (the -j driver) < capture/.  Checked twice: every #include
# "LAYER/..." of a source or header, and every symbol an object uses (nm)
# against the layer whose objects define it, so an upward call through a
# prototype copied by hand is caught too.  Fails naming each upward edge.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
export LC_ALL=C

LAYERS=(guard read model write run capture)
OBJ=${BUILDDIR:-$TOP_SRCDIR}/libfmt

# rank LAYER: its place from the bottom (none: not a layer)
rank() {
	local i
	for i in "${!LAYERS[@]}"; do
		[[ ${LAYERS[$i]} == "$1" ]] && { echo "$i"; return; }
	done
}

# upward_includes: "FILE includes HEADER" for each include of a higher layer
# (one awk over every source and header, in layer order)
upward_includes() {
	local l files=()
	for l in "${LAYERS[@]}"; do
		files+=(libfmt/"$l"/*.[ch])
	done
	awk -v layers="${LAYERS[*]}" '
		BEGIN { n = split(layers, a, " "); for (i = 1; i <= n; i++) r[a[i]] = i }
		FNR == 1 { split(FILENAME, p, "/"); from = r[p[2]] }
		match($0, /^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"/) {
			inc = substr($0, RSTART, RLENGTH)
			sub(/^[^"]*"/, "", inc)
			sub(/"$/, "", inc)
			k = index(inc, "/")
			if (k == 0) next
			to = substr(inc, 1, k - 1)
			if ((to in r) && r[to] > from) print FILENAME " includes " inc
		}' "${files[@]}"
}

# symbols OPT: "SYMBOL LAYER OBJECT" from nm OPT of every layer's objects
# (one nm for them all: its start is most of its time on an object)
symbols() {
	local l o b objs=()
	for l in "${LAYERS[@]}"; do
		for o in "$OBJ/$l"/*.o; do
			# an object of a source that is no more (a stale build) is not the library's
			b=${o##*/}
			[[ -e $o && -e libfmt/$l/${b%.o}.c ]] && objs+=("$l/$b")
		done
	done
	((${#objs[@]})) || return 0
	(cd "$OBJ" && nm -A "$@" "${objs[@]}") |
		awk 'NF > 1 { o = substr($0, 1, index($0, ":") - 1); split(o, p, "/"); print $NF, p[1], o }' |
		sort -k1,1
}

# upward USES DEFS: from "SYMBOL LAYER OBJECT" uses and "SYMBOL LAYER"
# definitions (both sorted by symbol), "OBJECT (LAYER) uses SYMBOL of LAYER"
# for each use of a symbol defined in a higher layer
upward() {
	local ranks
	ranks=$(for i in "${!LAYERS[@]}"; do printf '%s=%s ' "${LAYERS[$i]}" "$i"; done)
	join "$1" "$2" |
		awk -v ranks="$ranks" 'BEGIN { n = split(ranks, a, " "); for (i = 1; i <= n; i++) { split(a[i], kv, "="); r[kv[1]] = kv[2] } }
			r[$4] > r[$2] { print $3 " (" $2 ") uses " $1 " of " $4 }'
}

plan 6
inc=$(upward_includes)
is "no source or header includes a layer above its own" "$inc" ""
# every header of the library compiles alone (it includes what it needs): each
# in a translation unit of its own, all of them in one compiler run; if that
# fails, one run a header names those that do not
alone1() {
	echo "#include \"${1#libfmt/}\"" |
		${CC:-cc} -fsyntax-only -include "${BUILDDIR:-.}/config.h" -Ilibfmt -x c - >/dev/null 2>&1
}
units=() i=0
for h in libfmt/*/*.h; do
	echo "#include \"${h#libfmt/}\"" >"$T_TMP/alone$i.c"
	units+=("$T_TMP/alone$i.c")
	i=$((i + 1))
done
alone=
if ! ${CC:-cc} -fsyntax-only -include "${BUILDDIR:-.}/config.h" -Ilibfmt "${units[@]}" >/dev/null 2>&1; then
	alone=$(for h in libfmt/*/*.h; do alone1 "$h" || echo "$h"; done)
	[[ -n $alone ]] || alone="(the headers compile one by one, not in one run)"
fi
is "every header compiles alone" "$alone" ""
symbols -g --defined-only >"$T_TMP/defined"
nobj=$(awk '{ print $3 }' "$T_TMP/defined" | sort -u | wc -l)
t_assert "the objects of every layer are there to read ($nobj)" test "$nobj" -gt 40
symbols -u >"$T_TMP/uses"
awk '!seen[$1]++ { print $1, $2 }' "$T_TMP/defined" >"$T_TMP/defs"
t_assert "nm lists what the model uses of read/ (file_cpu_count)" \
	grep -q "^file_cpu_count model " "$T_TMP/uses"
is "no object uses a symbol of a layer above its own" "$(upward "$T_TMP/uses" "$T_TMP/defs")" ""
# the check itself, on made-up symbols: up is reported, down and across are not
printf '%s\n' 'a_up model model/x.o' 'b_down write write/y.o' 'c_same read read/z.o' >"$T_TMP/u"
printf '%s\n' 'a_up write' 'b_down read' 'c_same read' >"$T_TMP/d"
is "an upward use is reported, a downward or same-layer one is not" "$(upward "$T_TMP/u" "$T_TMP/d")" \
	"model/x.o (model) uses a_up of write"
