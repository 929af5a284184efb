#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make-seeds.py - shrink a real v6 trace.dat into a small fuzz seed.

The whole-file fuzz targets (fuzz-open, fuzz-writers) spend nearly all of
their time parsing what a real capture carries in bulk: 170 KB of kallsyms,
a hundred ftrace formats, thousands of command lines.  A seed that keeps a
few of each, and the first page or two of every CPU, exercises the same
parsers and decoders at many times the executions per second.

    make-seeds.py IN.dat OUT.dat [--pages N] [--events a,b,...]

IN must be a single-buffer v6 file (make v7 seeds from OUT with
`trace-cmd convert`).  The kept pieces are bytes of IN, unchanged: only the
counts, sizes and offsets around them are rewritten.
"""
import argparse
import struct
import sys

MAGIC = b"\x17\x08\x44tracing"
KEEP_EVENTS = ("sched_switch", "sched_wakeup", "sched_waking", "softirq_entry",
               "softirq_exit", "softirq_raise", "hrtimer_start", "sched_stat_runtime",
               "print", "sys_enter", "sys_exit", "sched_process_exec")


class Reader:
    def __init__(self, data):
        self.d, self.o = data, 0

    def take(self, n):
        if self.o + n > len(self.d):
            sys.exit("make-seeds: input ends early at offset %d" % self.o)
        b = self.d[self.o:self.o + n]
        self.o += n
        return b

    def u(self, fmt):
        return struct.unpack("<" + fmt, self.take(struct.calcsize(fmt)))[0]

    def cstr(self):
        end = self.d.index(b"\0", self.o)
        s = self.d[self.o:end]
        self.o = end + 1
        return s


def format_name(fmt):
    for line in fmt.split(b"\n"):
        if line.startswith(b"name: "):
            return line[6:].strip().decode()
    return ""


def first_lines(text, n):
    lines = text.split(b"\n")
    return b"\n".join(lines[:n]) + b"\n" if len(lines) > n else text


def parse(data, keep):
    r = Reader(data)
    if r.take(10) != MAGIC or r.cstr() != b"6":
        sys.exit("make-seeds: not a v6 trace.dat")
    f = {"endian": r.take(1), "lsize": r.take(1), "page": r.u("I")}
    if f["endian"] != b"\0":
        sys.exit("make-seeds: only little-endian files")
    f["hpage"] = (r.cstr(), r.take(r.u("Q")))
    f["hevent"] = (r.cstr(), r.take(r.u("Q")))
    f["ftrace"] = [r.take(r.u("Q")) for _ in range(r.u("I"))]
    f["systems"] = []
    for _ in range(r.u("I")):
        name = r.cstr()
        fmts = [r.take(r.u("Q")) for _ in range(r.u("I"))]
        f["systems"].append((name, [x for x in fmts if format_name(x) in keep]))
    f["kallsyms"] = r.take(r.u("I"))
    f["printk"] = r.take(r.u("I"))
    f["cmdlines"] = r.take(r.u("Q"))
    f["ncpus"] = r.u("I")
    f["options"] = []
    if r.d.startswith(b"options  \0", r.o):
        r.take(10)
        while True:
            oid = r.u("H")
            if oid == 0:
                break
            f["options"].append((oid, r.take(r.u("I"))))
    if r.cstr() != b"flyrecord":
        sys.exit("make-seeds: only flyrecord files")
    f["cpus"] = [(r.u("Q"), r.u("Q")) for _ in range(f["ncpus"])]
    return f


def build(f, data, npages):
    page = f["page"]
    out = bytearray(MAGIC + b"6\0" + f["endian"] + f["lsize"] + struct.pack("<I", page))
    for name, body in (f["hpage"], f["hevent"]):
        out += name + b"\0" + struct.pack("<Q", len(body)) + body
    ftrace = [x for x in f["ftrace"] if format_name(x) in KEEP_EVENTS][:2]
    out += struct.pack("<I", len(ftrace))
    for x in ftrace:
        out += struct.pack("<Q", len(x)) + x
    systems = [s for s in f["systems"] if s[1]]
    out += struct.pack("<I", len(systems))
    for name, fmts in systems:
        out += name + b"\0" + struct.pack("<I", len(fmts))
        for x in fmts:
            out += struct.pack("<Q", len(x)) + x
    for key, n, size in (("kallsyms", 24, "I"), ("printk", 4, "I"), ("cmdlines", 8, "Q")):
        body = first_lines(f[key], n)
        out += struct.pack("<" + size, len(body)) + body
    out += struct.pack("<I", f["ncpus"])
    opts = [o for o in f["options"] if o[0] != 3]  # BUFFER options point into IN
    if opts:
        out += b"options  \0"
        for oid, body in opts:
            out += struct.pack("<HI", oid, len(body)) + body
        out += struct.pack("<H", 0)
    out += b"flyrecord\0"
    table = len(out)
    out += bytes(16 * f["ncpus"])
    for cpu, (off, size) in enumerate(f["cpus"]):
        size = min(size, npages * page)
        out += bytes(-len(out) % page)
        struct.pack_into("<QQ", out, table + 16 * cpu, len(out), size)
        out += data[off:off + size]
    return bytes(out)


def main():
    ap = argparse.ArgumentParser(description="shrink a v6 trace.dat into a fuzz seed")
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--pages", type=int, default=1, help="pages kept per CPU (1)")
    ap.add_argument("--events", help="event formats kept, comma-separated")
    a = ap.parse_args()
    keep = tuple(a.events.split(",")) if a.events else KEEP_EVENTS
    with open(a.input, "rb") as fp:
        data = fp.read()
    seed = build(parse(data, keep), data, a.pages)
    with open(a.output, "wb") as fp:
        fp.write(seed)


if __name__ == "__main__":
    main()
