#!/usr/bin/env python3
# png-pixels.py: the colours of pixels of a PNG, for tests that check a
# rendered picture (t-svg.sh).  Only zlib: 8-bit RGB or RGBA, not interlaced
# (what rsvg-convert writes).
#
#   png-pixels.py FILE.png Y X0 X1   one line "X R G B" per pixel of row Y, X0..X1
import struct
import sys
import zlib


def decode(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit('not a PNG')
    pos, idat = 8, b''
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                sys.exit('unsupported PNG: depth %d, colour type %d, interlace %d'
                         % (depth, ctype, interlace))
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    w, h, bpp, rows = decode(sys.argv[1])
    y, x0, x1 = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    for x in range(max(x0, 0), min(x1, w - 1) + 1):
        px = rows[y][x * bpp:x * bpp + 3]
        print(x, px[0], px[1], px[2])


main()
