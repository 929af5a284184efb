#!/usr/bin/env python3
"""Give a copy of a v7 trace.dat what trace-cmd 3.4 saves for a persistent ring buffer.

usage: make-lastboot.py IN.dat OUT.dat LAST_BOOT_INFO [MODULES]

No persistent buffer of an earlier boot can be recorded here, so this builds
one's metadata in the layout of trace-cmd 3.4's source (tracecmd/trace-record.c
record_data(), lib/trace-cmd/trace-output.c tracecmd_append_modules_file()):

  * the option LAST_BOOT_INFO (24), "INSTANCE:TEXT" and a NUL, TEXT being the
    instance's last_boot_info file ("ADDR\\t[kernel]" and "ADDR\\tMODULE" lines
    of the boot that recorded it, or "# Current");
  * with MODULES (the text of /proc/modules), the section MODULES_FILE (25),
    "modules" in the strings, and the option 25 holding its offset, as
    tracecmd_add_option() writes the options that point to sections.

They go into one new options section at the end of the file, which the last
options section's DONE option is made to point to (trace-cmd reads the chain
of options sections), then a strings section with the new descriptions
(trace-cmd reads every strings section, one after the other).  MODULES_FILE
is compressed as the file is (trace-cmd 3.4 reads it only so), zstd by the
zstd command, zlib by Python's zlib; the options and strings are stored as
trace-cmd stores them, uncompressed.  Escapes in the texts (\\t, \\n) are
undone.  Every other byte of IN is kept.
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib


def options_chain(d):
    """Offsets of the DONE options of the chain of options sections."""
    p = d.index(b"\0", 18) + 1                # compression name
    p = d.index(b"\0", p) + 1                 # compression version
    off, dones = struct.unpack_from("<Q", d, p)[0], []
    while off:
        sid, flags, _, _ = struct.unpack_from("<HHIQ", d, off)
        if sid != 0 or flags:
            sys.exit("options section at %d: id %d flags %d (compressed options: not done)" %
                     (off, sid, flags))
        p = off + 16
        while True:
            oid, size = struct.unpack_from("<HI", d, p)
            if oid == 0:
                dones.append(p)
                off = struct.unpack_from("<Q", d, p + 6)[0]
                break
            p += 6 + size
    return dones


def own_strings(d, at):
    """Bytes of the file's strings sections from @at on (their ids index the concatenation)."""
    own = 0
    while at + 16 <= len(d):
        sid, flags, _, size = struct.unpack_from("<HHIQ", d, at)
        if at + 16 + size > len(d):
            break
        if sid == 15:   # compressed: 4 bytes of stored size, then 4 of the size decompressed
            own += struct.unpack_from("<I", d, at + 20)[0] if flags & 1 else size
        at += 16 + size
    return own


def compressed(d, data):
    """@data as a compressed section's content: stored size, size, the block (the file's codec)."""
    codec = bytes(d[18:d.index(b"\0", 18)])
    if codec == b"zlib":
        z = zlib.compress(data)
    elif codec == b"zstd":
        with tempfile.NamedTemporaryFile(delete=False) as t:
            t.write(data)
        z = subprocess.run(["zstd", "-q", "-c", t.name], check=True, capture_output=True).stdout
        os.unlink(t.name)
    else:
        return 0, data
    return 1, struct.pack("<II", len(z), len(data)) + z


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    unescape = lambda s: s.encode().decode("unicode_escape").encode("latin-1")
    lbi = unescape(sys.argv[3])
    mods = unescape(sys.argv[4]) if len(sys.argv) == 5 else None
    d = bytearray(open(src, "rb").read())
    if d[10:12] != b"7\0":
        sys.exit("not a v7 trace.dat")
    last_done = options_chain(d)[-1]
    strings = b"options\0modules\0strings\0"
    str_base = own_strings(d, last_done + 14)   # the last options section ends there
    tail, opts = bytearray(), b""
    new = len(d)
    if mods is not None:
        flags, body = compressed(d, mods)
        opts += struct.pack("<HIQ", 25, 8, new)
        tail += struct.pack("<HHIQ", 25, flags, str_base + 8, len(body)) + body
    opts += struct.pack("<HI", 24, len(lbi) + 1) + lbi + b"\0"
    opts += struct.pack("<HIQ", 0, 8, 0)
    sec = new + len(tail)
    tail += struct.pack("<HHIQ", 0, 0, str_base, len(opts)) + opts
    tail += struct.pack("<HHIQ", 15, 0, str_base + 16, len(strings)) + strings
    struct.pack_into("<Q", d, last_done + 6, sec)
    open(out, "wb").write(d + tail)


main()
