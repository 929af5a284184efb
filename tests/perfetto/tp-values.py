#!/usr/bin/env python3
"""tp-values.py - the events trace processor reads from a .pftrace against trace-cmd report -R.

Usage: tp-values.py TRACE_PROCESSOR FILE.pftrace RAW.txt TYPED

RAW.txt is `trace-cmd report -R -t` of the capture FILE.pftrace was made from,
TYPED the names of the events it holds as Perfetto's typed messages, one a
line.  Every row of trace processor's ftrace_event table of those is matched
with an event of
RAW.txt of the same timestamp, CPU and name, and each of its args must equal
that event's field of the same name: numbers as numbers (trace-cmd's hex
too), strings as strings (but for control characters, which trace processor
drops; each byte of trace-cmd's that starts no valid UTF-8 sequence is
U+FFFD, the rule of the .pftrace's strings); a field trace-cmd prints as a symbol, and arrays
other than a last element (trace processor keeps the last of a repeated
field), are not compared.  Prints one line per mismatch (at most 20) and a
summary "events N, typed T, values V, not compared X (...), nameless Z, bad B";
a row of ftrace_event without a name (Z) is a mismatch too; exit 1 on any
mismatch or an event trace-cmd does not have.
"""
import csv
import io
import re
import subprocess
import sys
from collections import defaultdict

LINE = re.compile(r"^.*?\[(\d+)\]\s*(\d+)(?:\.(\d{9}))?:\s+(\w+):\s?(.*)$")
CTRL = re.compile(r"[\x00-\x1f\x7f]")
FIELD = re.compile(r"(?:^|\s)(\w+)=")


def fields(text):
    """name=value pairs of a -R line; a value runs to the next ' name='."""
    marks = list(FIELD.finditer(text))
    out = {}
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out[m.group(1)] = text[m.end():end]
    return out


def raw_events(path):
    ev = defaultdict(list)
    last = None
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m and last:	# a value with a newline goes on
                k = list(last)[-1]
                last[k] += "\n" + line.rstrip("\n")
            if m:
                cpu, s, ns, name, rest = m.groups()
                ts = int(s) * 10**9 + int(ns) if ns else int(s)	# a counter clock: no dot
                last = fields(rest)
                ev[(ts, int(cpu), name)].append(last)
    return ev


def tp_rows(tp, trace):
    q = ("select e.id, e.ts, e.cpu, e.name, a.key, a.int_value, "
         "hex(a.string_value) as string_value, a.value_type "
         "from ftrace_event e left join args a using (arg_set_id) order by e.id, a.id")
    out = subprocess.run([tp, "query", trace, q], capture_output=True, check=True).stdout
    rows = defaultdict(lambda: [None, {}])
    for r in csv.DictReader(io.StringIO(out.decode("utf-8", "surrogateescape"))):
        e = rows[r["id"]]
        e[0] = (int(r["ts"]), int(r["cpu"]), r["name"].strip('"'))
        if r["key"] not in ("", "[NULL]"):
            v = r["int_value"]
            if r["value_type"] == "string":	# as hex: trace processor's CSV does not quote
                v = bytes.fromhex(r["string_value"]).decode("utf-8", "surrogateescape")
            e[1][r["key"]] = (r["value_type"], v)
    return rows


def number(s):
    """
    The values a trace-cmd number may be: 0x hex, else decimal or hex (it
    prints a field as the event's print format does, "%02x" or "%d").
    """
    s = s.strip()
    try:
        if s.lower().startswith(("0x", "-0x")):
            return {int(s, 16) % 2**64}
        vals = {int(s, 10) % 2**64}
        if re.fullmatch(r"[0-9a-fA-F]+", s):
            vals.add(int(s, 16) % 2**64)
        return vals
    except ValueError:
        return None


def last_word(s):
    b = s.strip()[len("ARRAY["):-1]
    b = [int(x, 16) for x in b.split(",") if x.strip()]
    if not b or len(b) % 8:
        return None
    return {int.from_bytes(bytes(b[-8:]), "little")}


def utf8_rule(s):
    """@s (bytes as surrogates) as the .pftrace writes it: a byte that starts no valid UTF-8 is U+FFFD."""
    b, out, i = s.encode("utf-8", "surrogateescape"), [], 0
    while i < len(b):
        for n in (1, 2, 3, 4):
            try:
                out.append(b[i:i + n].decode("utf-8"))
                i += n
                break
            except UnicodeDecodeError:
                pass
        else:
            out.append("\ufffd")
            i += 1
    return "".join(out)


def same(typ, v, tc):
    """True, False, or None when trace-cmd's value cannot be compared (a symbol)."""
    if typ == "string" and tc.startswith("ARRAY[") and v.startswith("["):
        return None	# a generic event's array, as text
    if typ == "string":
        return CTRL.sub("", v) == CTRL.sub("", utf8_rule(tc))
    if v in (None, "[NULL]"):
        return False
    want = last_word(tc) if tc.startswith("ARRAY[") else number(tc)
    if want is None:
        return None
    return int(v) % 2**64 in want


def main():
    tp, trace, raw, typed_names = sys.argv[1:5]
    tc = raw_events(raw)
    with open(typed_names) as f:
        known = set(f.read().split())
    bad, n, typed, nval, skipped, renamed = [], 0, 0, 0, 0, 0
    nameless = 0
    for key, args in tp_rows(tp, trace).values():
        n += 1
        if key[2] in ("", "[NULL]"):
            nameless += 1
            bad.append(f"{key}: a row without a name")
            continue
        cands = tc.get(key)
        if not cands:
            bad.append(f"{key}: not in trace-cmd report -R")
            continue
        if key[2] not in known:	# generic: not this test's
            cands.pop()
            continue
        typed += 1
        best = None
        for i, c in enumerate(cands):
            res = [same(t, v, c[k]) if k in c else False for k, (t, v) in args.items()]
            if key[2] == "sched_switch" and res[0] is False:
                res[0] = None	# compact: trace processor's name of the thread
            if all(r is not False for r in res):
                best = (i, res)
                break
        if best is None:
            got = " ".join(f"{k}={v}" for k, (_, v) in args.items())
            bad.append(f"{key}: {got} <> {cands[0]}")
            continue
        cands.pop(best[0])
        renamed += key[2] == "sched_switch" and best[1][0] is None
        nval += sum(r is True for r in best[1])
        skipped += sum(r is None for r in best[1])
    for b in bad[:20]:
        print("mismatch", b)
    print(f"events {n}, typed {typed}, values {nval}, not compared {skipped} "
          f"(prev_comm named by trace processor {renamed}), nameless {nameless}, bad {len(bad)}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
