#!/usr/bin/python3
# Workload for markers.dat: each marker is exactly one write(2) to trace_marker,
# so the byte content of every ftrace/print event is known exactly.
import os, time

T = "/sys/kernel/tracing/"
markers = [
    b"plain marker line\n",
    b"commas, here, and, there\n",
    b"double \"quoted\" text and a lone \" quote\n",
    b"back\\slash and two \\\\ and trailing \\\n",
    b"tab\there\tand\ttabs\n",
    "utf8: h\u00e9llo \u2713 \u65e5\u672c\n".encode(),          # héllo ✓ 日本
    b"invalid utf8: \xff\xfe and lone \xc3 end\n",
    b"printf chars: %s %d %p %% 100%\n",
    b"control: \x01\x02 esc\x1b[31mred\x1b[0m cr\r bell\x07\n",
    b"\n",                                      # empty line (only a newline)
    b" \n",                                     # a single blank
    b"no trailing newline",                     # kernel appends the newline
    b"long: " + b"abcdefghij" * 100 + b" END\n",            # 1011 bytes
    b"verylong: " + b"0123456789ABCDEF" * 250 + b" END\n",  # 4015 bytes
    b"multi\nline\nmarker in one write\n",      # one event with embedded newlines
    b"last marker\n",
]
fd = os.open(T + "trace_marker", os.O_WRONLY)
for m in markers:
    os.write(fd, m)
os.close(fd)
# one binary marker: trace_marker_raw takes a 4-byte id followed by payload
fd = os.open(T + "trace_marker_raw", os.O_WRONLY)
os.write(fd, (0x12345678).to_bytes(4, "little") + b"raw\x00\x01\x02\xff payload")
os.close(fd)
