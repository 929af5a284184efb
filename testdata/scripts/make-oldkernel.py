#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make-oldkernel.py - old-kernel.dat: atrace.dat with the ftrace formats of a 4.x kernel.

    make-oldkernel.py [OUT.dat]        (default: old-kernel.dat next to atrace.dat)

Kernels of the 4.x series (LISA's public arm64 captures, e.g.
ipynb/deprecated/tutorial/example_rtapp/trace.dat and
tests/assets/sched_load/trace.dat in github:ARM-software/lisa) declare the
data that runs to the end of a record as a last field of size 0 that is not
spelt as an array:

    print         field:char buf;	offset:16;	size:0;	signed:0;
    bprint        field:u32 buf;	offset:24;	size:0;	signed:0;
    kernel_stack  field:unsigned long caller;	offset:16;	size:0;	signed:0;
    raw_data      field:char buf;	offset:12;	size:0;	signed:0;

where this machine's kernel says "char buf[]", "u32 buf[]", "unsigned long
caller[8]" (size 64) and "char buf[]".  The records of print are laid out
alike (ip, then the text, its NUL and the padding to 4 bytes), so this
script takes the real capture atrace.dat, made v6 by `trace-cmd convert
--file-version 6`, and

1. writes those four formats with the 4.x text (OLD below, byte for byte as
   in LISA's captures but for raw_data's ID, 16 there, 19 here); print and
   bprint differ from this kernel's only by the "[]";
2. fills the bytes after the NUL of each print record (up to the record's
   end) with non-zero bytes, as the 4.x kernels left them (LISA's print
   records end "...cpu_id=0\\n\\0\\x0c\\xf9\\x01\\x00"); this kernel clears them;
3. adds binary printk (trace_printk) records, which this machine cannot make
   (no trace_printk caller): the four PRINTKS formats in the printk section
   and one page more on CPU 0, 1 ms after the last event, holding BPRINTS,
   each the 24 bytes of struct bprint_entry (common fields, ip, fmt) and
   the 32-bit words the kernel's vbin_printf() stores (an int in 4 bytes, a
   long in 8, each aligned to 4; a string copied with its NUL), as in
   LISA's bprint records.  The last points to no printk format (trace-cmd
   prints "(NO FORMAT FOUND at ...)").

Every other byte (kallsyms, command lines, options, the other pages) is the
converted file's.  `trace-cmd report` must read the result and print the
bprint lines in EXPECT.
"""
import importlib.util
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.dirname(HERE)
spec = importlib.util.spec_from_file_location(
    "seeds", os.path.join(TESTDATA, "..", "tests", "fuzz", "make-seeds.py"))
seeds = importlib.util.module_from_spec(spec)
spec.loader.exec_module(seeds)

COMMON = (b"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
          b"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
          b"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
          b"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")
# The 4.x texts of the ftrace events whose last field has size 0 (LISA's
# capture), with the ID this file gives the event (the same for the first
# three; raw_data is 16 there)
OLD = {
    "print": (b"name: print\nID: %d\nformat:\n" + COMMON +
              b"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
              b"\tfield:char buf;\toffset:16;\tsize:0;\tsigned:0;\n\n"
              b"print fmt: \"%%ps: %%s\", (void *)REC->ip, REC->buf\n"),
    "bprint": (b"name: bprint\nID: %d\nformat:\n" + COMMON +
               b"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
               b"\tfield:const char * fmt;\toffset:16;\tsize:8;\tsigned:0;\n"
               b"\tfield:u32 buf;\toffset:24;\tsize:0;\tsigned:0;\n\n"
               b"print fmt: \"%%ps: %%s\", (void *)REC->ip, REC->fmt\n"),
    "kernel_stack": (b"name: kernel_stack\nID: %d\nformat:\n" + COMMON +
                     b"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
                     b"\tfield:unsigned long caller;\toffset:16;\tsize:0;\tsigned:0;\n\n"
                     b"print fmt: \"\\t=> (\" \"%%016lx\" \")\\n\\t=> (\" \"%%016lx\" \")\\n\\t=> (\" "
                     b"\"%%016lx\" \")\\n\" \"\\t=> (\" \"%%016lx\" \")\\n\\t=> (\" \"%%016lx\" \")\\n\\t=> (\" "
                     b"\"%%016lx\" \")\\n\" \"\\t=> (\" \"%%016lx\" \")\\n\\t=> (\" \"%%016lx\" \")\\n\", "
                     b"REC->caller[0], REC->caller[1], REC->caller[2], REC->caller[3], "
                     b"REC->caller[4], REC->caller[5], REC->caller[6], REC->caller[7]\n"),
    "raw_data": (b"name: raw_data\nID: %d\nformat:\n" + COMMON +
                 b"\tfield:unsigned int id;\toffset:8;\tsize:4;\tsigned:0;\n"
                 b"\tfield:char buf;\toffset:12;\tsize:0;\tsigned:0;\n\n"
                 b"print fmt: \"id:%%04x %%08x\", REC->id, (int)REC->buf[0]\n"),
}

PRINT_ID, BPRINT_ID = 5, 6
GARBAGE = b"\x0c\xf9\x01"          # what follows a NUL in LISA's first print record
PAGE_HDR = 16                      # u64 timestamp, u64 commit (long size 8)
FMT_BASE = 0xffffffff8285f000      # addresses of the added printk formats
PRINTKS = [
    b"tdat_bprint: step=%s pid=%d cpu=%u\n",
    b"tdat_bprint: comm=%s prio=%d flags=0x%x delta=%llu addr=%lx\n",
    b"tdat_bprint: no newline %d",
    b"tdat_bprint: %s, \"%s\" and 100%%\n",
]
PID = 10736                        # trace-cmd, which runs on CPU 0 after the workload
# (format index or None for an address with no format, function, offset into it, args)
BPRINTS = [
    (0, "tick_nohz_handler", 0x2c, ["pre", 10736, 0]),
    (0, "tick_nohz_handler", 0x2c, ["post", -1, 4294967295]),
    (1, "tracing_mark_write", 0x10, ["trace-cmd", 120, 0x2a, 1 << 40, 0xffffffff814a9f70]),
    (2, "tick_nohz_handler", 0x40, [-42]),
    (3, "tick_nohz_handler", 0x40, ["commas, here", "quoted"]),
    (None, "tick_nohz_handler", 0x40, []),
]
# what trace-cmd report must print after "bprint: " for each
EXPECT = [
    "tick_nohz_handler: tdat_bprint: step=pre pid=10736 cpu=0",
    "tick_nohz_handler: tdat_bprint: step=post pid=-1 cpu=4294967295",
    "tracing_mark_write: tdat_bprint: comm=trace-cmd prio=120 flags=0x2a delta=1099511627776 "
    "addr=ffffffff814a9f70",
    "tick_nohz_handler: tdat_bprint: no newline -42",
    "tick_nohz_handler: tdat_bprint: commas, here, \"quoted\" and 100%",
    "tick_nohz_handler: (NO FORMAT FOUND at %x)" % (FMT_BASE + 0x100),
]


class All:
    def __contains__(self, name):
        return True


def vbin(fmt, args):
    """The words vbin_printf() stores for @fmt and @args (%s, %d, %u, %x, with l or ll).

    An int is 4 bytes, a long or long long 8 (this file's long size), each
    aligned to 4 bytes; a string is copied with its NUL, unaligned."""
    out, i, k = bytearray(), 0, 0
    while i < len(fmt):
        if fmt[i:i + 1] != b"%":
            i += 1
            continue
        i += 1
        size = 4
        while fmt[i:i + 1] == b"l":
            size, i = 8, i + 1
        conv = fmt[i:i + 1]
        i += 1
        if conv == b"%":
            continue
        a = args[k]
        k += 1
        if conv == b"s":
            out += a.encode() + b"\0"
            continue
        assert conv in b"dux"
        out += bytes(-len(out) % 4)
        out += struct.pack("<Q" if size == 8 else "<I", a & ((1 << 8 * size) - 1))
    assert k == len(args)
    return bytes(out + bytes(-len(out) % 4))


def symbol(kallsyms, name):
    for line in kallsyms.decode().splitlines():
        f = line.split()
        if len(f) >= 3 and f[2] == name:
            return int(f[0], 16)
    sys.exit("make-oldkernel: %s is not in kallsyms" % name)


def walk(data, off, size, visit):
    """Call visit(record offset, length) for every data record of a CPU's pages."""
    last_ts = 0
    for page in range(off, off + size, 4096):
        ts, commit = struct.unpack_from("<QQ", data, page)
        at, end = page + PAGE_HDR, page + PAGE_HDR + (commit & ((1 << 27) - 1))
        while at < end:
            head, = struct.unpack_from("<I", data, at)
            tl, delta = head & 31, head >> 5
            if tl == 29:               # padding
                n, = struct.unpack_from("<I", data, at + 4)
                at += 4 + n if delta else end - at
                continue
            if tl == 30:               # time extend
                ts += delta + (struct.unpack_from("<I", data, at + 4)[0] << 27)
                at += 8
                continue
            if tl == 31:               # absolute time stamp
                ts = delta + (struct.unpack_from("<I", data, at + 4)[0] << 27)
                at += 8
                continue
            ts += delta
            if tl == 0:
                n = struct.unpack_from("<I", data, at + 4)[0] - 4
                rec = at + 8
            else:
                n, rec = tl * 4, at + 4
            visit(rec, n)
            last_ts = ts
            at = rec + n
    return last_ts


def garble(data, f):
    """Non-zero bytes after the NUL of every print record, up to its end."""
    buf = bytearray(data)

    def visit(rec, n):
        if struct.unpack_from("<H", buf, rec)[0] != PRINT_ID:
            return
        nul = buf.index(b"\0", rec + 16, rec + n)
        for j in range(nul + 1, rec + n):
            buf[j] = GARBAGE[(j - nul - 1) % len(GARBAGE)]

    ends = [walk(buf, off, size, visit) for off, size in f["cpus"]]
    return bytes(buf), ends


def bprint_page(f, start):
    """One ring-buffer page of BPRINTS records, the first at @start ns."""
    body = bytearray()
    for n, (fi, func, plus, args) in enumerate(BPRINTS):
        fmt_addr = FMT_BASE + (0x100 if fi is None else 0x40 * fi)
        words = vbin(PRINTKS[fi], args) if fi is not None else b""
        rec = struct.pack("<HBBiQQ", BPRINT_ID, 0x01, 1, PID,
                          symbol(f["kallsyms"], func) + plus, fmt_addr) + words
        assert len(rec) <= 112 and len(rec) % 4 == 0
        body += struct.pack("<I", (len(rec) // 4) | ((1000 if n else 0) << 5)) + rec
    page = struct.pack("<QQ", start, len(body)) + body
    return page + bytes(4096 - len(page))


def printk_lines():
    lines = b""
    for i, fmt in enumerate(PRINTKS):
        text = fmt.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b"\"", b"\\\"")
        lines += b"0x%x : \"%s\"\n" % (FMT_BASE + 0x40 * i, text)
    return lines


def build(f, data, extra):
    """The file: f's parts (all kept), CPU 0's pages followed by @extra."""
    out = bytearray(seeds.MAGIC + b"6\0" + f["endian"] + f["lsize"] + struct.pack("<I", f["page"]))
    for name, body in (f["hpage"], f["hevent"]):
        out += name + b"\0" + struct.pack("<Q", len(body)) + body
    out += struct.pack("<I", len(f["ftrace"]))
    for x in f["ftrace"]:
        out += struct.pack("<Q", len(x)) + x
    out += struct.pack("<I", len(f["systems"]))
    for name, fmts in f["systems"]:
        out += name + b"\0" + struct.pack("<I", len(fmts))
        for x in fmts:
            out += struct.pack("<Q", len(x)) + x
    for key, size in (("kallsyms", "I"), ("printk", "I"), ("cmdlines", "Q")):
        out += struct.pack("<" + size, len(f[key])) + f[key]
    out += struct.pack("<I", f["ncpus"])
    if f["options"]:
        out += b"options  \0"
        for oid, body in f["options"]:
            assert oid != 3, "BUFFER options point into the input"
            out += struct.pack("<HI", oid, len(body)) + body
        out += struct.pack("<H", 0)
    out += b"flyrecord\0"
    table = len(out)
    out += bytes(16 * f["ncpus"])
    for cpu, (off, size) in enumerate(f["cpus"]):
        out += bytes(-len(out) % f["page"])
        pages = data[off:off + size] + (extra if cpu == 0 else b"")
        struct.pack_into("<QQ", out, table + 16 * cpu, len(out), len(pages))
        out += pages
    return bytes(out)


def old_format(fmt):
    """The 4.x text of @fmt if OLD has one; print and bprint differ from this
    kernel's only in the "[]" of their last field."""
    name = seeds.format_name(fmt)
    if name not in OLD:
        return fmt
    eid = int(re.search(rb"\nID: (\d+)\n", fmt).group(1))
    old = OLD[name] % eid
    if name in ("print", "bprint"):
        assert fmt.replace(b" buf[];", b" buf;") == old, name
    return old


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TESTDATA, "old-kernel.dat")
    with tempfile.TemporaryDirectory() as tmp:
        v6 = os.path.join(tmp, "v6.dat")
        subprocess.run(["trace-cmd", "convert", "-i", os.path.join(TESTDATA, "atrace.dat"),
                        "--file-version", "6", "-o", v6], check=True, capture_output=True)
        data = open(v6, "rb").read()
    f = seeds.parse(data, All())
    assert f["lsize"] == b"\x08" and f["page"] == 4096
    f["ftrace"] = [old_format(x) for x in f["ftrace"]]
    data, ends = garble(data, f)
    f["printk"] += printk_lines()
    with open(out, "wb") as fp:
        fp.write(build(f, data, bprint_page(f, max(ends) + 1000000)))
    report = subprocess.run(["trace-cmd", "report", out], check=True, capture_output=True).stdout
    got = [line.split(b"bprint:", 1)[1].strip().decode() for line in report.splitlines()
           if b" bprint: " in line]
    if got != EXPECT:
        sys.exit("make-oldkernel: trace-cmd report prints\n  %s\nnot\n  %s" %
                 ("\n  ".join(got), "\n  ".join(EXPECT)))


if __name__ == "__main__":
    main()
