#!/usr/bin/env bash
# t-svg.sh: tdat-info --svg as a person sees it: the SVG is valid XML
# (xmllint), it renders (rsvg-convert), and in the pixels of the rendering
# the losses trace-cmd reports are in the right lane at the right x, an
# idle stretch is empty and a busy one is not; the numbers on hover are
# trace-cmd's; the selection options draw a selection; the output is
# written whole or not at all.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
TD=testdata
O=$T_TMP

for tool in xmllint rsvg-convert python3; do
	command -v $tool >/dev/null ||
		skip_all "$tool is not installed (Debian: libxml2-utils, librsvg2-bin, python3)"
done

# The events as trace-cmd reports them (live, or its stored output), with ns timestamps.
report() {	# NAME FILE.dat
	if have_trace_cmd; then
		"$TRACE_CMD" report -t "$2" 2>/dev/null >"$O/$1.report"
	else
		cp "tests/expected/$1.text-t.out" "$O/$1.report"
	fi
}

# Facts from a report: what the picture must show (python: exact ns arithmetic).
facts() {	# REPORT WHAT [ARGS]
	python3 - "$@" <<'PY'
import re, sys
rep, what, args = sys.argv[1], sys.argv[2], sys.argv[3:]
ev = []		# (cpu, ns)
drops = []	# (cpu, counted) before the next event of that cpu
pending = {}
for line in open(rep, errors='replace'):
    m = re.match(r'CPU:(\d+) \[(\d+ )?EVENTS DROPPED\]', line)
    if m:
        pending[int(m.group(1))] = m.group(2) is not None
        continue
    m = re.search(r'\[(\d{3})\] +(\d+)\.(\d+):', line)
    if not m:
        continue
    cpu, frac = int(m.group(1)), m.group(3)
    ns = int(m.group(2)) * 10**9 + int(frac.ljust(9, '0'))
    ev.append((cpu, ns))
    if cpu in pending:
        drops.append((cpu, pending.pop(cpu), ns))
first = min(t for _, t in ev)
last = max(t for _, t in ev)
if what == 'span':	# the axis: first and last event
    print(first, last)
elif what == 'x':	# LANE_X WIDTH NS...: where a time is drawn
    x0, w = float(args[0]), float(args[1])
    for a in args[2:]:
        print(int(x0 + (int(a) - first) * w // (last - first + 1)))
elif what == 'drops':	# CPU COUNTED(1/0): times of the events after the drops
    print(' '.join(str(t) for c, k, t in drops if c == int(args[0]) and k == bool(int(args[1]))))
elif what == 'gap':	# CPU: the longest stretch without an event of it
    ts = sorted(t for c, t in ev if c == int(args[0]))
    a, b = max(zip(ts, ts[1:]), key=lambda p: p[1] - p[0])
    print(a, b)
elif what == 'count':	# CPU|all [FROM TO]: events
    lo, hi = (int(args[1]), int(args[2])) if len(args) > 2 else (first, last)
    print(sum(1 for c, t in ev if (args[0] == 'all' or c == int(args[0])) and lo <= t <= hi))
PY
}

# An attribute of lane (input 0, buffer 0, CPU $2) of SVG $1: x, y, width, height.
lane() {
	xmllint --xpath "string(//*[local-name()='g'][@id='lane-0-0-$2']/*[local-name()='rect'][@class='lane']/@$3)" "$1"
}

# Pixels of PNG $1, row $2, from x $3 to $4 that are loss red (1), orange (2), density (3) or light (0).
pixels() {
	python3 tests/cli/png-pixels.py "$@" | awk '{
		r = $2; g = $3; b = $4
		k = 9
		if (r >= 235 && g >= 235 && b >= 235) k = 0
		else if (r > 180 && g < 80 && b < 80) k = 1
		else if (r > 200 && g > 90 && g < 170 && b < 60) k = 2
		else if (b > r + 20) k = 3
		print $1, k }'
}

# Render $1.svg to $1.png; the run before made $1.svg.
render() {
	rsvg-convert -o "$1.png" "$1.svg" 2>"$O/rsvg.err"
}

report lost-events $TD/lost-events.dat
R=$O/lost-events.report
t_exit "--svg FILE writes a picture" 0 -- tdat-info --svg "$O/l.svg" $TD/lost-events.dat
t_assert "nothing on standard output" test ! -s "$T_OUT"
t_run "xmllint" -- xmllint --noout "$O/l.svg"
t_assert "the SVG is well-formed XML" test "$T_RC" = 0
t_assert "self-contained: no script, no link, no external reference" \
	bash -c "! grep -Eqi '<script|href=|url\\(|@import|<image|<foreignObject' '$O/l.svg'"
t_assert "rsvg-convert renders it" render "$O/l"
x=$(lane "$O/l.svg" 1 x) y=$(lane "$O/l.svg" 1 y) w=$(lane "$O/l.svg" 1 width) h=$(lane "$O/l.svg" 1 height)
y0=$(lane "$O/l.svg" 0 y)
t_assert "a lane for CPU 0 and one for CPU 1, labelled" \
	bash -c "[[ -n '$x' && -n '$y0' ]] && grep -q '>CPU 0<' '$O/l.svg' && grep -q '>CPU 1<' '$O/l.svg'"
mid=$(( ${y%.*} + ${h%.*} / 2 )) mid0=$(( ${y0%.*} + ${h%.*} / 2 ))
mapfile -t want < <(facts "$R" x "$x" "$w" $(facts "$R" drops 1 1))
pixels "$O/l.png" "$mid" "${x%.*}" $(( ${x%.*} + ${w%.*} - 1 )) >"$O/row1"
pixels "$O/l.png" "$mid0" "${x%.*}" $(( ${x%.*} + ${w%.*} - 1 )) >"$O/row0"
diag "trace-cmd's 6 drops on CPU 1 are drawn at x = ${want[*]}"
miss=
for wx in "${want[@]}"; do
	awk -v a=$((wx - 1)) -v b=$((wx + 1)) '$1 >= a && $1 <= b && $2 == 1 { f = 1 } END { exit !f }' \
		"$O/row1" || miss="$miss $wx"
done
t_assert "the ${#want[@]} losses of CPU 1 are marked in its lane where trace-cmd reports them" \
	test "${#want[@]}" = 6 -a -z "$miss"
marks=$(awk '$2 == 1 && p != 1 { n++ } { p = $2 } END { print n + 0 }' "$O/row1")
t_assert "and nowhere else in it ($marks marks)" test "$marks" = 6
t_assert "CPU 0, which lost nothing, has no loss mark" bash -c "! awk '\$2 == 1' '$O/row0' | grep -q ."
read -r g0 g1 <<<"$(facts "$R" gap 0)"
read -r gx0 gx1 <<<"$(facts "$R" x "$x" "$w" "$g0" "$g1" | tr '\n' ' ')"
diag "CPU 0's longest idle stretch: $g0 .. $g1 ns, x = $gx0 .. $gx1"
t_assert "an idle stretch of CPU 0 is empty in its lane (x $((gx0 + 2)) .. $((gx1 - 2)))" \
	bash -c "(( $gx1 - $gx0 > 10 )) && awk -v a=$((gx0 + 2)) -v b=$((gx1 - 2)) \
		'\$1 >= a && \$1 <= b && \$2 != 0 { bad = 1 } END { exit bad }' '$O/row0'"
t_assert "where CPU 0 had events, its lane is coloured (x $gx0 and $gx1)" \
	bash -c "awk -v a=$gx0 -v b=$gx1 '(\$1 == a || \$1 == b) && \$2 == 3 { n++ } END { exit n != 2 }' '$O/row0'"

# exact numbers on hover
sum_lane() {	# SVG CPU: the events the titles of a lane's strips count
	xmllint --xpath "//*[local-name()='g'][@id='lane-0-0-$2']/*[local-name()='rect'][not(@class)]/*[local-name()='title']/text()" "$1" |
		awk '{ n += $1 } END { print n + 0 }'
}
for c in 0 1; do
	t_assert "the titles of CPU $c's strips add up to trace-cmd's events of CPU $c" \
		test "$(sum_lane "$O/l.svg" $c)" = "$(facts "$R" count $c)"
done
t_assert "a loss mark's title says how many were lost (12860, the first drop)" \
	grep -q '<title>CPU 1: 12860 events lost between' "$O/l.svg"
t_assert "the type bars say trace-cmd's number of sched_switch" \
	grep -q "<title>sched:sched_switch: $(grep -c ' sched_switch: ' "$R") events" "$O/l.svg"
read -r first last <<<"$(facts "$R" span)"
t_assert "the axis runs from the first to the last event" \
	grep -q "from ${first:0:-9}.${first: -9} to ${last:0:-9}.${last: -9}</text>" "$O/l.svg"

# a loss of an unknown number
report lost-events-nocount $TD/lost-events-nocount.dat
t_exit "--svg of lost-events-nocount.dat" 0 -- tdat-info --svg "$O/n.svg" $TD/lost-events-nocount.dat
render "$O/n"
x=$(lane "$O/n.svg" 1 x) y=$(lane "$O/n.svg" 1 y)
wx=$(facts "$O/lost-events-nocount.report" x "$x" "$w" $(facts "$O/lost-events-nocount.report" drops 1 0))
pixels "$O/n.png" $(( ${y%.*} + ${h%.*} / 2 )) $((wx - 1)) $((wx + 1)) >"$O/rown"
t_assert "a page that lost an unknown number is marked (orange) where trace-cmd says (x $wx)" \
	bash -c "awk '\$2 == 2' '$O/rown' | grep -q ."

# the picture of a selection
t_exit "--svg - --cpu 1 writes to standard output" 0 -- tdat-info --svg - --cpu 1 $TD/lost-events.dat
t_assert "--cpu 1: one lane, CPU 1's" \
	test "$(grep -o 'id="lane-[0-9-]*"' "$T_OUT" | tr '\n' ' ')" = 'id="lane-0-0-1" '
t_exit "-e sched:sched_switch" 0 -- tdat-info --svg "$O/e.svg" -e sched:sched_switch $TD/lost-events.dat
t_assert "-e: only that event type in the bars" \
	test "$(grep -c '<title>[a-z_]*:[a-z_]*: [0-9]* events (' "$O/e.svg")" = 1
t_assert "-e: the lanes count only those events" \
	test "$(( $(sum_lane "$O/e.svg" 0) + $(sum_lane "$O/e.svg" 1) ))" = "$(grep -c ' sched_switch: ' "$R")"
t_exit "--start/--end" 0 -- tdat-info --svg "$O/w.svg" --start 716.6 --end 716.7 $TD/lost-events.dat
t_assert "--start/--end: the axis is the window" grep -q 'from 716.600000000 to 716.700000000</text>' "$O/w.svg"
n=$(facts "$R" count all 716600000000 716700000000)
t_assert "--start/--end: the events of the window ($n, trace-cmd's)" grep -q ">$n events, " "$O/w.svg"
t_exit "a window after the trace" 0 -- tdat-info --svg "$O/late.svg" --start 716.8 $TD/lost-events.dat
t_stderr_match "says why nothing was selected" 'no event selected: the window starts at 716.8'
t_assert "and draws the empty window" grep -q '>0 events, 0 lost, from 716.800000000 to 716.800000000<' "$O/late.svg"
t_exit "a selection that matches no CPU is a usage error" 2 -- tdat-info --svg "$O/x.svg" --cpu 7 $TD/lost-events.dat
t_assert "and writes nothing" test ! -e "$O/x.svg"

# a window that misses the trace is drawn as it was asked for (it was a
# point at the trace's start)
t_exit "a window before the trace" 0 -- tdat-info --svg "$O/early.svg" --start 10 --end 20 $TD/lost-events.dat
t_assert "draws that window, empty" grep -q '>0 events, 0 lost, from 10.000000000 to 20.000000000<' "$O/early.svg"
is "its axis runs from 10 s to 20 s" \
	"$(grep -o '<text x="[0-9.]*" y="63"[^>]*>[0-9.]*<' "$O/early.svg" | sed 's/.*>\([0-9.]*\)<$/\1/' | sed -n '1p;$p' | tr '\n' ' ')" \
	"10 20 "
t_exit "--end alone before the trace" 0 -- tdat-info --svg "$O/early2.svg" --end 1s $TD/lost-events.dat
t_assert "draws 0 to 1 s" grep -q '>0 events, 0 lost, from 0.000000000 to 1.000000000<' "$O/early2.svg"

# "time (s)" ends 8 px left of the axis; a tick label at the axis's start
# (716.6 s here) used to be centred on it and run into it: in the rendering,
# the 6 px between them stay blank, and the label is still there
t_exit "a window that starts on a tick" 0 -- tdat-info --svg "$O/tick.svg" --start 716.6 --end 716.7 $TD/lost-events.dat
t_assert "rendered" render "$O/tick"
gap=$(for yy in $(seq 54 64); do pixels "$O/tick.png" "$yy" 183 188; done | awk '$2 != 0' | wc -l)
ink=$(for yy in $(seq 54 64); do pixels "$O/tick.png" "$yy" 130 181; done | awk '$2 != 0' | wc -l)
tick=$(for yy in $(seq 54 64); do pixels "$O/tick.png" "$yy" 190 230; done | awk '$2 != 0' | wc -l)
t_assert "no ink between \"time (s)\" and the axis ($gap pixels), both labels drawn ($ink, $tick)" \
	test "$gap" = 0 -a "$ink" -gt 20 -a "$tick" -gt 20

# one of a thing is not "1 things"
t_exit "a capture with one page that lost events" 0 -- tdat-info --svg "$O/one.svg" $TD/lost-events-nocount.dat
t_assert "the title says \"1 page\"" grep -q '(and 1 page that lost an unknown number)' "$O/one.svg"
for f in $TD/*.dat; do tdat-info --svg - "$f" 2>/dev/null; done >"$O/all.svg"
is "no \"1 events\", \"1 pages\" or \"1 types\" in the pictures of every capture" \
	"$(grep -oE '(^|[^0-9.])1 (events|pages|types)\b' "$O/all.svg" | sort | uniq -c)" ""

# several inputs, several buffers
t_exit "two inputs" 0 -- tdat-info --svg "$O/2.svg" $TD/two-buffers.dat $TD/lost-events.dat
t_assert "a lane per CPU of every buffer of every input, named" \
	test "$(grep -o '>[a-z-]*: [a-z ]*CPU [0-9]<' "$O/2.svg" | tr '\n' ' ')" = \
	">two-buffers: CPU 0< >two-buffers: CPU 1< >two-buffers: foo CPU 0< >two-buffers: foo CPU 1< >lost-events: CPU 0< >lost-events: CPU 1< "
t_run "valid" -- xmllint --noout "$O/2.svg"
t_assert "valid XML too" test "$T_RC" = 0
long=$(printf 'x%.0s' {1..150})
cp $TD/lost-events.dat "$O/$long&<.dat"
t_exit "an input with a long name and markup characters in it" 0 -- \
	tdat-info --svg "$O/long.svg" $TD/v6.dat "$O/$long&<.dat"
t_run "valid" -- xmllint --noout "$O/long.svg"
t_assert "valid XML, its lane names cut to 100 bytes of the name" \
	bash -c "[[ $T_RC == 0 ]] && grep -q '>x\{100\}: CPU 1<' '$O/long.svg'"

# usage and failures
t_exit "--svg with --json is a usage error" 2 -- tdat-info --svg "$O/j.svg" --json $TD/v6.dat
t_exit "a selection without --svg is a usage error" 2 -- tdat-info --cpu 1 $TD/v6.dat
t_exit "an input that is not a trace.dat fails" 1 -- tdat-info --svg "$O/bad.svg" $TD/bad/bad-magic.dat
t_assert "and leaves no picture, not even a temporary one" \
	bash -c "! ls '$O' | grep -q '^bad\\.svg'"
t_exit "damaged data: the picture of what could be read, and exit 1" 1 -- \
	tdat-info --svg "$O/bad.svg" $TD/bad/truncated-v7-data.dat
t_stderr_match "the damage is reported" 'truncated-v7-data.dat'
t_assert "the picture is written" test -s "$O/bad.svg"
t_exit "--lenient: exit 0" 0 -- tdat-info --lenient --svg "$O/bad.svg" $TD/bad/truncated-v7-data.dat
t_exit "an output directory that does not exist fails" 1 -- tdat-info --svg "$O/no/such.svg" $TD/v6.dat
t_stderr_match "naming it" 'no/such.svg'
done_testing
