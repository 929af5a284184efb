#!/usr/bin/env python3
# sqlite-same.py: whether pairs of SQLite databases hold the same tables and
# rows (t-merged.sh: a merged trace.dat against its inputs given together;
# t-pieces.sh: the pieces of a split against the input), one python3 for all
# the pairs of a test (its start costs more than a comparison).
#
#   sqlite-same.py FACTS [FIRST SECOND]
#       FACTS: the metadata names left out (the files' own facts: size,
#       version, compression), comma-separated; FIRST and SECOND: what the
#       messages call A's rows and B's ("the first", "the second")
# Reads pairs from standard input, "A<TAB>B" a line, and answers each at
# once (a test runs it as a coprocess: it may remove A and B then):
#   same                 every table of A is in B and the other way round,
#                        with B's rows (the metadata rows of FACTS aside)
#   differ WHAT          the first difference: a file that is missing, the
#                        tables one side lacks, or the first table (by
#                        name) whose rows differ
import os
import sqlite3
import sys


def compare(a_path, b_path, facts, first, second):
    """"" if A and B hold the same tables and rows, else the first difference."""
    for path in (a_path, b_path):
        if not os.path.isfile(path):
            return f"{path}: no such file"
    a = sqlite3.connect(a_path)
    try:
        a.execute("attach ? as b", (b_path,))
        names = [r[0] for r in a.execute("select name from sqlite_master where type = 'table' order by 1")]
        other = [r[0] for r in a.execute("select name from b.sqlite_master where type = 'table' order by 1")]
        if names != other:
            return f"tables {sorted(set(names) ^ set(other))}"
        for t in names:
            where = f" where name not in ({', '.join('?' * len(facts))})" if t == "metadata" and facts else ""
            p = tuple(facts) if where else ()
            x = a.execute(f'select count(*) from (select * from main."{t}"{where} '
                          f'except select * from b."{t}"{where})', p * 2).fetchone()[0]
            y = a.execute(f'select count(*) from (select * from b."{t}"{where} '
                          f'except select * from main."{t}"{where})', p * 2).fetchone()[0]
            n = a.execute(f'select count(*) from main."{t}"{where}', p).fetchone()[0]
            m = a.execute(f'select count(*) from b."{t}"{where}', p).fetchone()[0]
            if x or y or n != m:
                return f"{t}: {n} and {m} rows, {x} only in {first}, {y} only in {second}"
        return ""
    finally:
        a.close()


def main():
    facts = [f for f in sys.argv[1].split(",") if f] if len(sys.argv) > 1 else []
    first, second = sys.argv[2:4] if len(sys.argv) > 3 else ("the first", "the second")
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        a, _, b = line.rstrip("\n").partition("\t")
        try:
            why = compare(a, b, facts, first, second)
        except Exception as e:  # a file that is no database: a difference, named
            why = f"cannot compare: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
        print(f"differ {why}" if why else "same", flush=True)


main()
