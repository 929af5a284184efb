#!/usr/bin/env python3
"""Write to stdout the data of the v7 section an option points to, decompressed.

usage: dat-section.py FILE.dat ID

Walks the chain of options sections of a v7 trace.dat (the layout of
trace-cmd's lib/trace-cmd/trace-input.c, read here on its own, not through
tdat), finds the last option ID that holds an 8-byte offset (HEADER_INFO..,
BTF_FILE 23, MODULES_FILE 25), and prints that section's data: as stored, or
decompressed with the file's codec (zlib by Python, zstd by the zstd
command).  Exit 1 with a message when there is no such option or section.
"""
import struct
import subprocess
import sys
import zlib


def inflate(codec, data):
    if codec == b"zlib":
        return zlib.decompress(data)
    if codec == b"zstd":
        return subprocess.run(["zstd", "-d", "-q", "-c"], input=data, check=True,
                              capture_output=True).stdout
    sys.exit("unknown compression %r" % codec)


def section(d, codec, off):
    """(id, data) of the section at @off."""
    sid, flags, _, size = struct.unpack_from("<HHIQ", d, off)
    body = bytes(d[off + 16:off + 16 + size])
    if flags & 1:
        csize, usize = struct.unpack_from("<II", body, 0)
        body = inflate(codec, body[8:8 + csize])
        if len(body) != usize:
            sys.exit("section at %d: %d bytes decompressed, %d announced" % (off, len(body), usize))
    return sid, body


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    d = open(sys.argv[1], "rb").read()
    want = int(sys.argv[2])
    if d[10:12] != b"7\0":
        sys.exit("not a v7 trace.dat")
    end = d.index(b"\0", 18)
    codec = d[18:end]
    p = d.index(b"\0", end + 1) + 1
    off, found = struct.unpack_from("<Q", d, p)[0], None
    while off:
        sid, opts = section(d, codec, off)
        if sid != 0:
            sys.exit("offset %d: section %d, not options" % (off, sid))
        p, off = 0, 0
        while p + 6 <= len(opts):
            oid, size = struct.unpack_from("<HI", opts, p)
            if oid == want and size == 8:
                found = struct.unpack_from("<Q", opts, p + 6)[0]
            if oid == 0:
                off = struct.unpack_from("<Q", opts, p + 6)[0]
                break
            p += 6 + size
    if found is None:
        sys.exit("no option %d pointing to a section" % want)
    sid, body = section(d, codec, found)
    if sid != want:
        sys.exit("option %d points to section %d" % (want, sid))
    sys.stdout.buffer.write(body)


main()
