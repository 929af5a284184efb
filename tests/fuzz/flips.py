#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""flips.py - a random-byte campaign: does any damaged copy exit 0 with events missing?

    flips.py [-n N] [-k 1,5,50] [--seed S] [--trace-cmd] BINDIR TESTDATA [FILE...]

For every FILE (default: v6.dat v7-none.dat v7-zstd.dat two-buffers.dat
chunks.dat of TESTDATA), K in -k and N copies (default 300, seeded by file,
K, copy number and S, so a run repeats), K random bytes of a copy get random new
values; BINDIR/tdat-convert writes it as CSV and the rows are counted (a text
line count would take a newline put in a name for an added event).  Each
copy is then: full (exit 0, as many events as the undamaged file), partial (exit
1 with output), refused (exit 1, nothing), silent (exit 0, events missing or
added) or crash (a signal, or 20 s).  --trace-cmd counts `trace-cmd report`'s
lines on the same copies (silent: exit 0 with another count).  Silent copies
are kept in $TMPDIR/flips-silent/ and listed.
"""
import argparse
import csv
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile

DEFAULT = ("v6.dat", "v7-none.dat", "v7-zstd.dat", "two-buffers.dat", "chunks.dat")


def lines(cmd, rows=False):
    """(exit status or 'crash', lines on stdout, or CSV rows after the header with @rows)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=20)
    except subprocess.TimeoutExpired:
        return "crash", 0
    if rows:
        n = max(sum(1 for _ in csv.reader(io.StringIO(p.stdout.decode("utf-8", "replace")))) - 1, 0)
    else:
        n = p.stdout.count(b"\n")
    return ("crash" if p.returncode < 0 else p.returncode), n


def verdict(rc, n, ref, partial_ok):
    if rc == "crash":
        return "crash"
    if rc == 0:
        return "full" if n == ref else "silent"
    if partial_ok:
        return "partial" if n else "refused"
    return "refused"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=300)
    ap.add_argument("-k", default="1,5,50")
    ap.add_argument("--seed", default="")
    ap.add_argument("--trace-cmd", action="store_true")
    ap.add_argument("bindir")
    ap.add_argument("testdata")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    tool = os.path.join(a.bindir, "tdat-convert")
    keep = os.path.join(tempfile.gettempdir(), "flips-silent")
    os.makedirs(keep, exist_ok=True)
    tally = {"tdat": {}, "trace-cmd": {}}
    tmp = tempfile.NamedTemporaryFile(suffix=".dat", delete=False).name
    for name in a.files or DEFAULT:
        good = open(os.path.join(a.testdata, name), "rb").read()
        ref = lines([tool, "-f", "csv", os.path.join(a.testdata, name)], True)[1]
        tref = lines(["trace-cmd", "report", os.path.join(a.testdata, name)])[1] if a.trace_cmd else 0
        for k in map(int, a.k.split(",")):
            for i in range(a.n):
                rng = random.Random(f"{name}/{k}/{i}{a.seed}")
                d = bytearray(good)
                for _ in range(k):
                    at = rng.randrange(len(d))
                    d[at] = (d[at] + rng.randrange(1, 256)) & 0xff
                with open(tmp, "wb") as fp:
                    fp.write(d)
                v = verdict(*lines([tool, "-f", "csv", tmp], True), ref, True)
                tally["tdat"][v] = tally["tdat"].get(v, 0) + 1
                if v in ("silent", "crash"):
                    shutil.copy(tmp, os.path.join(keep, f"{name}-{k}-{i}.dat"))
                    print(f"{v}: {name} k={k} copy {i}", flush=True)
                if a.trace_cmd:
                    rc, n = lines(["trace-cmd", "report", tmp])
                    v = verdict(rc if rc in (0, "crash") else 1, n, tref, False)
                    tally["trace-cmd"][v] = tally["trace-cmd"].get(v, 0) + 1
    os.unlink(tmp)
    for who, t in tally.items():
        if t:
            print(who + ": " + ", ".join(f"{k} {t[k]}" for k in
                                         ("full", "partial", "refused", "silent", "crash") if k in t))
    return 1 if tally["tdat"].get("silent") or tally["tdat"].get("crash") else 0


if __name__ == "__main__":
    sys.exit(main())
