#!/usr/bin/env python3
# make-nocmdlines.py: testdata/names/nocmdlines.dat, derived from v6.dat: the
# same file with its saved cmdlines blanked (each byte of their text a newline,
# so every offset stays), so that every task name trace-cmd report prints is one
# libtraceevent learnt from a sched_switch or sched_wakeup it printed before.
# usage: scripts/make-nocmdlines.py   (from anywhere; writes testdata/names/)
import os
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, '..', 'v6.dat')
dst = os.path.join(here, '..', 'names', 'nocmdlines.dat')
d = bytearray(open(src, 'rb').read())
# v6: ... printk (4-byte size + text), cmdlines (8-byte size + text), CPU count, "options  "
opts = d.find(b'options  \0')
assert opts > 0, 'no options block'
# the cmdlines text ends 4 bytes (the CPU count) before "options  "
end = opts - 4
for start in range(end - 8, 0, -1):
    size = struct.unpack_from('<Q', d, start)[0]
    if start + 8 + size == end:
        break
else:
    sys.exit('cmdlines section not found')
text = d[start + 8:end]
assert text[:1].isdigit() and text.count(b'\n') > 10, 'not a cmdlines text'
d[start + 8:end] = b'\n' * len(text)
os.makedirs(os.path.dirname(dst), exist_ok=True)
open(dst, 'wb').write(d)
print('%s: %d bytes of cmdlines at offset %d blanked' % (dst, len(text), start + 8))
