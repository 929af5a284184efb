#!/usr/bin/env python3
# sqlite-export.py: tables of SQLite databases as CSV files for
# parquet-model-check.mjs (t-parquet-model.sh): the column names, then the
# rows, NULL as \N, text as it is, up to a NUL (SQLite and the dataset hold
# the same text: doc/tdat-parquet.7, a byte that is not UTF-8 is U+FFFD in
# both).  One python3 for all of a test's databases (lib.sh's t_serve): each
# line of standard input, "DB<TAB>DIR<TAB>TABLE...", writes DIR/TABLE.csv
# for each TABLE of DB and is answered by "done" or the error.
import csv
import sqlite3
import sys


def esc(b):
    return b.split(b'\0')[0].decode('utf-8')


def export(path, out_dir, tables):
    db = sqlite3.connect(path)
    db.text_factory = bytes
    try:
        for t in tables:
            cur = db.execute('select * from "%s"' % t)
            with open('%s/%s.csv' % (out_dir, t), 'w', encoding='utf-8') as out:
                w = csv.writer(out, lineterminator='\n')
                w.writerow([d[0] for d in cur.description])
                for row in cur:
                    w.writerow(['\\N' if v is None else esc(v) if isinstance(v, bytes) else v
                                for v in row])
    finally:
        db.close()


def main():
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        path, out_dir, *tables = line.rstrip('\n').split('\t')
        try:
            export(path, out_dir, tables)
            print('done', flush=True)
        except Exception as e:
            print('%s: %s: %s' % (path, type(e).__name__, e), flush=True)


main()
