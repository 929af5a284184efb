#!/usr/bin/env python3
"""inflate-packets.py Z.pftrace: the Trace of Z.pftrace with every packet
that holds compressed_packets (TracePacket field 50, zlib) replaced by the
packets it holds, written to stdout; exit 1 if a top-level packet is not
compressed or holds anything but compressed_packets and the sequence id.
Field numbers from Perfetto's trace.proto and trace_packet.proto."""
import sys, zlib

def varint(b, i):
    x = s = 0
    while True:
        c = b[i]; i += 1
        x |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return x, i

def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        wt = key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v = b[i:i + n]; i += n
        else:
            sys.exit("wire type %d" % wt)
        yield key >> 3, wt, v

data = open(sys.argv[1], 'rb').read()
out = bytearray()
for num, wt, pkt in fields(data):
    if num != 1 or wt != 2:
        sys.exit("field %d at the top level" % num)
    got = {n: v for n, _, v in fields(pkt)}
    if set(got) != {50, 10}:
        sys.exit("a packet with fields %s, not compressed_packets" % sorted(got))
    out += zlib.decompress(got[50])
sys.stdout.buffer.write(out)
