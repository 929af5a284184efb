#!/usr/bin/python3
"""cut-report.py FULL LEN < REPORT: the lines of REPORT (trace-cmd report of the whole
trace.dat FULL) whose events lie in the pages of FULL that a copy cut to its first LEN
bytes still holds whole: their header and the data their commit size covers.

Each CPU's pages are found with testdata/scripts/tracedat-layout.py (cpuN_data of a
v6 file, buffer[]_cpuN_data of a v7 one: the top buffer, uncompressed, little
endian, 8-byte longs); the data records of its whole pages are counted by walking
their event headers as the kernel lays them out (type_len 1-28: data of 4 x
type_len bytes, 0: data of the length in the next word, 29 padding, 30 time
extend, 31 time stamp), and the first that many of the CPU's lines of REPORT
(one a record) are printed, in REPORT's order.  The first line (cpus=N) is
left out.  Used by t-cut.sh."""
import os
import re
import struct
import subprocess
import sys

LAYOUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata",
                      "scripts", "tracedat-layout.py")
LINE = re.compile(r"\[(\d+)\]\s+(?:\S+\s+)?\d+\.\d+:")


def records(data, page, off):
    """Data records in the page at @off."""
    commit = struct.unpack_from("<Q", data, off + 8)[0] & 0xfffff
    pos, end, n = off + 16, off + 16 + commit, 0
    while pos + 4 <= end:
        w = struct.unpack_from("<I", data, pos)[0]
        tl = w & 0x1f
        if tl == 0:
            size, n = 4 + ((struct.unpack_from("<I", data, pos + 4)[0] + 3) & ~3), n + 1
        elif tl <= 28:
            size, n = 4 + 4 * tl, n + 1
        elif tl == 29:
            if w >> 5 == 0:
                break		# padding to the end of the page
            size = 4 + struct.unpack_from("<I", data, pos + 4)[0]
        else:
            size = 8
        pos += size
    return n


def whole_page(data, off, cut):
    """Whether the page at @off is whole in the first @cut bytes: its header and the data
    its commit size covers (the kernel zeroes the rest)."""
    return off + 16 <= cut and off + 16 + (struct.unpack_from("<Q", data, off + 8)[0] & 0xfffff) <= cut


def whole(path, cut):
    """{cpu: data records in its pages that lie whole in the first @cut bytes}."""
    text = subprocess.run([sys.executable, LAYOUT, path], check=True, capture_output=True,
                          text=True).stdout
    data = open(path, "rb").read()
    page = None
    out = {}
    for line in text.splitlines():
        f = line.split()
        if f[0] == "page_size":
            page = int(f[3])
        m = re.fullmatch(r"(?:cpu|buffer\[\]_cpu)(\d+)_data", f[0])
        if m:
            off, size = int(f[1]), int(f[2])
            out[int(m.group(1))] = sum(records(data, page, p)
                                       for p in range(off, off + size, page) if whole_page(data, p, cut))
    return out


def main():
    path, cut = sys.argv[1], int(sys.argv[2])
    left = whole(path, cut)
    lines = sys.stdin.read().splitlines()
    if lines and lines[0].startswith("cpus="):
        lines = lines[1:]
    for line in lines:
        m = LINE.search(line)
        if not m:
            sys.exit(f"cut-report.py: not an event line: {line}")
        cpu = int(m.group(1))
        if left.get(cpu, 0) > 0:
            left[cpu] -= 1
            print(line)
    if any(left.values()):
        sys.exit(f"cut-report.py: the report has fewer lines than records: {left}")


if __name__ == "__main__":
    main()
