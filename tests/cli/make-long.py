#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make-long.py - a long capture made of a short one, for t-jobs-long.sh.

    make-long.py COPIES V6.dat OUT.dat

OUT is V6.dat (a version 6 trace.dat of one buffer, as tdat-convert -f dat
--file-version 6 writes) with each CPU's pages repeated COPIES times, copy k
shifted k spans later (a page's events are deltas from its header's
timestamp, so shifting the header shifts them all): the same metadata, the
same CPUs, COPIES times the events, in one timeline that goes on.  It
stops with an error on a page whose records carry an absolute timestamp
(which a shifted header would not move), or on a file it does not know.
"""
import json
import struct
import subprocess
import sys
import os

PAGE = 4096


def cpus_of(path):
    """The top buffer's CPUs: (offset, size, first_ts, last_ts), by tdat-info --json."""
    tool = os.path.join(os.environ.get("BIN", "tools"), "tdat-info")
    info = json.loads(subprocess.run([tool, "--json", path], check=True,
                                     capture_output=True).stdout)
    if info["version"] != 6 or info["endian"] != "little" or len(info["buffers"]) != 1:
        sys.exit(f"make-long.py: {path}: not a little-endian v6 file of one buffer")
    return info["buffers"][0]["cpus"]


def check_page(page, where):
    """Refuse a page with an absolute time stamp record (type_len 30)."""
    commit = struct.unpack_from("<Q", page, 8)[0] & ((1 << 30) - 1)  # less the missed-events flags
    off, end = 16, 16 + commit
    while off + 4 <= end:
        word = struct.unpack_from("<I", page, off)[0]
        tlen = word & 31
        if tlen == 30:
            sys.exit(f"make-long.py: {where}: an absolute time stamp in a page")
        if tlen == 29:  # time extend: 8 bytes
            off += 8
        elif tlen == 31:  # padding: its length in the next word
            if word >> 5 == 0:  # the null event that ends a page
                break
            off += 4 + struct.unpack_from("<I", page, off + 4)[0]
        elif tlen == 0:  # data, its length in the next word
            off += 4 + struct.unpack_from("<I", page, off + 4)[0]
        else:
            off += 4 + 4 * tlen


def main():
    copies, src, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    data = open(src, "rb").read()
    cpus = cpus_of(src)
    table = b"".join(struct.pack("<QQ", c["offset"], c["stored_bytes"]) for c in cpus)
    at = data.find(b"flyrecord\0" + table)
    if at < 0 or any(c["stored_bytes"] % PAGE for c in cpus):
        sys.exit(f"make-long.py: {src}: no flyrecord table of whole pages")
    at += len(b"flyrecord\0")
    span = max(c["last_ts"] for c in cpus) - min(c["first_ts"] for c in cpus) + 1000
    start = (at + len(table) + PAGE - 1) // PAGE * PAGE
    sizes = [c["stored_bytes"] * copies for c in cpus]
    offs = [start + sum(sizes[:i]) for i in range(len(cpus))]
    with open(out, "wb") as f:
        f.write(data[:at])
        f.write(b"".join(struct.pack("<QQ", o, s) for o, s in zip(offs, sizes)))
        f.write(b"\0" * (start - at - len(table)))
        for c in cpus:
            pages = data[c["offset"]:c["offset"] + c["stored_bytes"]]
            for p in range(0, len(pages), PAGE):
                check_page(pages[p:p + PAGE], f"{src}: cpu {c['cpu']} page {p // PAGE}")
            for k in range(copies):
                buf = bytearray(pages)
                for p in range(0, len(buf), PAGE):
                    ts = struct.unpack_from("<Q", buf, p)[0]
                    struct.pack_into("<Q", buf, p, ts + k * span)
                f.write(buf)


if __name__ == "__main__":
    main()
