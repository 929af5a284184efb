#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make-unsupported.py - v6.dat with an arm64 4.19 kernel's i2c, xhci-hcd and dwc3 formats.

    make-unsupported.py V6.dat FORMATS.txt OUT.dat
    make-unsupported.py --events V6.dat FORMATS.txt OUT.dat

FORMATS.txt is juno-4.19-formats.txt: the formats, byte for byte, of a real
capture where none of their events occur.  Some are what libtraceevent 1.7
cannot print (GNU statement expressions "({ ... })", helper functions it does
not know) and an array declared "buf[32 + 2]".

Without --events, OUT is V6.dat with those three systems added after its own
and nothing else changed: every event and every other byte of metadata is
V6.dat's, so any reader must print exactly what it prints for V6.dat.

With --events, OUT is made the way tests/fuzz/make-seeds.py shrinks a capture
(kallsyms cut to its first 24 lines, printk formats to 4, the first page of
each CPU) and a page of synthesised records of those types goes in front of
CPU 0's: i2c transfers whose hex dump length fits its array, exceeds it, or is
0; an smbus write; xhci and dwc3 events whose print formats libtraceevent
cannot parse.  Their bytes follow each format's field offsets and sizes
(little-endian, 4-byte aligned as the kernel stores them); no kernel wrote them.
"""
import importlib.util
import os
import re
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "seeds", os.path.join(here, "..", "..", "tests", "fuzz", "make-seeds.py"))
seeds = importlib.util.module_from_spec(spec)
spec.loader.exec_module(seeds)


class Everything:
    def __contains__(self, name):
        return True


def read_formats(path):
    """[(system, [format bytes])] in file order."""
    systems = []
    for block in open(path, "rb").read().split(b"=== system ")[1:]:
        name, body = block.split(b"\n", 1)
        if not systems or systems[-1][0] != name:
            systems.append((name, []))
        systems[-1][1].append(body)
    return systems


def layout(fmt):
    """ID and {field: (offset, size)} of a format."""
    fid = int(re.search(rb"\nID: (\d+)", fmt).group(1))
    fields = {}
    for m in re.finditer(rb"field:[^;]*?(\w+)(\[[^\]]*\])?;\toffset:(\d+);\tsize:(\d+);", fmt):
        fields[m.group(1).decode()] = (int(m.group(3)), int(m.group(4)))
    return fid, fields


def record(fmt, pid, values, dyn=None):
    """A record of @fmt: numbers in @values, byte strings for arrays, and a
    __data_loc field in @dyn as (bytes, length written in its loc)."""
    fid, fields = layout(fmt)
    size = max(o + s for o, s in fields.values() if s)
    rec = bytearray(size)
    values = dict(values, common_type=fid, common_pid=pid)
    for name, v in values.items():
        off, sz = fields[name]
        if isinstance(v, bytes):
            rec[off:off + len(v)] = v
        else:
            rec[off:off + sz] = (v & ((1 << (8 * sz)) - 1)).to_bytes(sz, "little")
    for name, (data, length) in (dyn or {}).items():
        off, sz = fields[name]
        struct.pack_into("<I", rec, off, len(rec) | (length << 16))
        rec += data
    return bytes(rec + bytes(-len(rec) % 4))


def synth_records(systems):
    by_name = {seeds.format_name(f): f for _, fmts in systems for f in fmts}
    i2c_w, i2c_r, smbus = by_name["i2c_write"], by_name["i2c_reply"], by_name["smbus_write"]
    urb, trb, ctrl = by_name["xhci_urb_giveback"], by_name["dwc3_prepare_trb"], by_name["dwc3_ctrl_req"]
    msg = dict(adapter_nr=1, msg_nr=0, addr=0x50, flags=0)
    pid = 452   # kworker/0:2 in v6.dat's saved command lines
    return [
        # the length fits the array: printed in full
        record(i2c_w, pid, dict(msg, len=4), {"buf": (b"\xde\xad\xbe\xef", 4)}),
        # a length of 200 from the record, an array of 3 bytes: clamped to 3
        record(i2c_r, pid, dict(msg, msg_nr=1, flags=1, len=200), {"buf": (b"\x01\x02\x03", 3)}),
        # an empty transfer
        record(i2c_w, pid, dict(msg, len=0), {"buf": (b"", 0)}),
        # a static array ("buf[32 + 2]"), not a dynamic one
        record(smbus, pid, dict(adapter_nr=2, addr=0x1a, flags=0, command=0x10, len=2, protocol=3,
                              buf=b"\x34\x12")),
        # print formats libtraceevent fails on: fields only
        record(urb, pid, dict(urb=0xffff000012345678, pipe=0x40008280, stream=0, status=0, flags=0x200,
                            num_mapped_sgs=0, num_sgs=0, length=64, actual=64, epnum=1, dir_in=1,
                            type=3)),
        record(trb, pid, dict(trb=0xffff0000abcd0010, allocated=3, queued=1, bpl=0x8000, bph=0,
                            size=0x40, ctrl=0x813, type=2), {"name": (b"ep1in\0\0\0", 6)}),
        # an ordinary dwc3 format: printed as its print format says
        record(ctrl, pid, dict(bRequestType=0x80, bRequest=6, wValue=0x100, wIndex=0, wLength=18)),
    ]


def page(ts, page_size, records, delta=1000):
    body = bytearray()
    for rec in records:
        assert len(rec) % 4 == 0 and len(rec) <= 112   # type_len = words of data
        body += struct.pack("<I", (len(rec) // 4) | (delta << 5)) + rec
    return struct.pack("<QQ", ts, len(body)) + bytes(body) + bytes(page_size - 16 - len(body))


def build(f, data, extra, npages, records):
    """OUT: @f's pieces with the systems @extra added; with @npages, pages cut
    and metadata shrunk as make-seeds.py does, and @records in front of CPU 0."""
    psize = f["page"]
    shrink = npages is not None
    out = bytearray(seeds.MAGIC + b"6\0" + f["endian"] + f["lsize"] + struct.pack("<I", psize))
    for name, body in (f["hpage"], f["hevent"]):
        out += name + b"\0" + struct.pack("<Q", len(body)) + body
    out += struct.pack("<I", len(f["ftrace"]))
    for x in f["ftrace"]:
        out += struct.pack("<Q", len(x)) + x
    systems = f["systems"] + extra
    out += struct.pack("<I", len(systems))
    for name, fmts in systems:
        out += name + b"\0" + struct.pack("<I", len(fmts))
        for x in fmts:
            out += struct.pack("<Q", len(x)) + x
    for key, n, size in (("kallsyms", 24, "I"), ("printk", 4, "I"), ("cmdlines", 8, "Q")):
        body = seeds.first_lines(f[key], n) if shrink and key != "cmdlines" else f[key]
        out += struct.pack("<" + size, len(body)) + body
    out += struct.pack("<I", f["ncpus"])
    if f["options"]:
        assert not [o for o in f["options"] if o[0] == 3], "only single-buffer inputs"
        out += b"options  \0"
        for oid, body in f["options"]:
            out += struct.pack("<HI", oid, len(body)) + body
        out += struct.pack("<H", 0)
    out += b"flyrecord\0"
    table = len(out)
    out += bytes(16 * f["ncpus"])
    for cpu, (off, size) in enumerate(f["cpus"]):
        pages = data[off:off + (min(size, npages * psize) if shrink else size)]
        if cpu == 0 and records:
            first = struct.unpack_from("<Q", data, off)[0]
            pages = page(first - 1000000, psize, records) + pages   # 1 ms before CPU 0's first page
        out += bytes(-len(out) % psize)
        struct.pack_into("<QQ", out, table + 16 * cpu, len(out), len(pages))
        out += pages
    return bytes(out)


def main():
    args = sys.argv[1:]
    events = args[:1] == ["--events"]
    if events:
        args = args[1:]
    if len(args) != 3:
        sys.exit(__doc__)
    src, formats, out = args
    data = open(src, "rb").read()
    f = seeds.parse(data, Everything())
    extra = read_formats(formats)
    records = synth_records(extra) if events else []
    open(out, "wb").write(build(f, data, extra, 1 if events else None, records))


if __name__ == "__main__":
    main()
