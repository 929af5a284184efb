#!/usr/bin/env python3
"""damage-model.py: the damaged copies of t-damage-model.sh, and its SQLite checks.

    damage-model.py copies OUTDIR N CAPTURE.dat[@I]...
        N damaged copies of each capture, OUTDIR/NAME-I.dat for I from 0 (with
        @I: that copy alone), one path a line on stdout.  Each copy has one to three damages of one kind inside a CPU's
        stored data (testdata/scripts/tracedat-layout.py finds it): 64 random
        bytes (the issue's case: an event of unknown type, a length past the
        page), a page's time stamp overwritten (its events' times go back or
        forward), four bit flips, 16 bytes of 0xff, or 64 zero bytes.  The
        random choices are seeded by the capture's name and the copy's
        number: every run makes the same copies.
    damage-model.py check PREFIX...
        For each PREFIX: the invariants of PREFIX.db (lines "PREFIX inv NAME
        COUNT" for each one broken); the events of PREFIX.db against PREFIX.csv
        (tdat-convert -f csv of the same copy: "PREFIX events N" when they are
        the same N events, by time, CPU, system and name, else "PREFIX events
        differ ..."); and sched_slice, thread_state and slice exported as
        PREFIX.exp/TABLE.csv for damage-model-check.mjs (NULL as \\N).
The invariant queries are in damage-model.sql, shared with the DuckDB side.
"""
import csv
import os
import random
import sqlite3
import struct
import subprocess
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
LAYOUT = os.path.join(HERE, "..", "..", "testdata", "scripts", "tracedat-layout.py")
TABLES = ("sched_slice", "thread_state", "slice")


def regions(path):
    """(offset, size, page size) of each CPU's stored data of @path."""
    text = subprocess.run([sys.executable, LAYOUT, path], check=True, capture_output=True,
                          text=True).stdout
    page, out = 4096, []
    for line in text.splitlines():
        f = line.split()
        if f[0] == "page_size":
            page = int(f[3])
        elif f[0].endswith("_data") and "cpu" in f[0] and int(f[2]) >= 128:
            out.append((int(f[1]), int(f[2])))
    return out, page


def damage(d, rng, regs, page):
    kind = rng.randrange(5)
    for _ in range(rng.randrange(1, 4)):
        off, size = rng.choice(regs)
        if kind == 0:
            at = off + rng.randrange(size - 64)
            d[at:at + 64] = bytes(rng.randrange(256) for _ in range(64))
        elif kind == 1:
            at = off + rng.randrange(max(1, size // page)) * page
            d[at:at + 8] = struct.pack("<Q", rng.randrange(1 << 64))
        elif kind == 2:
            for _ in range(4):
                at = off + rng.randrange(size)
                d[at] ^= 1 << rng.randrange(8)
        elif kind == 3:
            at = off + rng.randrange(size - 16)
            d[at:at + 16] = b"\xff" * 16
        else:
            at = off + rng.randrange(size - 64)
            d[at:at + 64] = bytes(64)


def copies(outdir, n, paths):
    for arg in paths:
        path, _, which = arg.partition("@")
        name = os.path.basename(path)[:-4]
        regs, page = regions(path)
        good = open(path, "rb").read()
        for i in [int(which)] if which else range(n):
            rng = random.Random(f"{name}/{i}")
            d = bytearray(good)
            damage(d, rng, regs, page)
            out = os.path.join(outdir, f"{name}-{i}.dat")
            with open(out, "wb") as fp:
                fp.write(d)
            print(out)


def queries():
    """(name, sql) of damage-model.sql: a '-- name' line before each query ('---': a comment)."""
    out, name, sql = [], None, []
    for line in open(os.path.join(HERE, "damage-model.sql"), encoding="utf-8"):
        if line.startswith("---"):
            continue
        if line.startswith("-- "):
            if name:
                out.append((name, " ".join(sql)))
            name, sql = line[3:].strip(), []
        elif line.strip():
            sql.append(line.strip())
    if name:
        out.append((name, " ".join(sql)))
    return out


def events_db(db):
    rows = db.execute("select ts, cpu, system, name from ftrace_event")
    return Counter((ts % (1 << 64), cpu, s.decode("utf-8", "replace"), n.decode("utf-8", "replace"))
                   for ts, cpu, s, n in rows)


def events_csv(path):
    with open(path, encoding="utf-8", errors="replace", newline="") as fp:
        r = csv.reader(fp)
        next(r, None)
        return Counter((int(row[0]), int(row[1]), row[6], row[7]) for row in r)


def export(db, outdir):
    os.makedirs(outdir, exist_ok=True)
    for t in TABLES:
        cur = db.execute(f"select * from {t}")
        with open(os.path.join(outdir, t + ".csv"), "w", encoding="utf-8", newline="") as fp:
            w = csv.writer(fp, lineterminator="\n")
            w.writerow([c[0] for c in cur.description])
            for row in cur:
                w.writerow(["\\N" if v is None else v.decode("utf-8", "replace")
                            if isinstance(v, bytes) else v for v in row])


def check(prefixes):
    qs = queries()
    for p in prefixes:
        if not os.path.exists(p + ".db"):
            print(f"{p} inv no database was written 1")
            continue
        db = sqlite3.connect(p + ".db")
        db.text_factory = bytes
        for name, sql in qs:
            n = db.execute(sql).fetchone()[0]
            if n:
                print(f"{p} inv {name} {n}")
        a, b = events_db(db), events_csv(p + ".csv")
        if a == b:
            print(f"{p} events {sum(a.values())}")
        else:
            print(f"{p} events differ: {sum((a - b).values())} only in the database, "
                  f"{sum((b - a).values())} only in the csv")
        export(db, p + ".exp")
        db.close()


def main():
    if len(sys.argv) > 3 and sys.argv[1] == "copies":
        copies(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    elif len(sys.argv) > 2 and sys.argv[1] == "check":
        check(sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
