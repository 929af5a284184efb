#!/usr/bin/env python3
"""Write a small BTF blob holding part of a kernel's own BTF.

usage: btf-subset.py VMLINUX_BTF OUT FUNC...

Reads the raw BTF of VMLINUX_BTF (/sys/kernel/btf/vmlinux), keeps the FUNC
types named FUNC... and every type they reach (their prototypes, parameter
and return types, the structs those point to, ...), numbers the kept types
again from 1 in their original order, keeps only the names they use, and
writes a valid BTF (same header layout and byte order) to OUT.  Prints
how many types and bytes were kept.  testdata/README.md says which capture
was recorded with such a blob in place of the kernel's 5 MB one.
"""
import struct
import sys

# kind: size of what follows the 12-byte btf_type, per vlen entry or fixed
FIXED = {1: 4, 3: 12, 14: 4, 17: 4}            # INT, ARRAY, VAR, DECL_TAG
PER = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}  # STRUCT, UNION, ENUM, FUNC_PROTO, DATASEC, ENUM64
REF = {2, 8, 9, 10, 11, 12, 14, 17, 18}         # kinds whose size/type word is a type id


def parse(blob):
    magic, ver, flags, hlen = struct.unpack_from("<HBBI", blob, 0)
    end = "<" if magic == 0xEB9F else ">"
    if struct.unpack_from(end + "H", blob, 0)[0] != 0xEB9F:
        sys.exit("not BTF")
    _, _, _, hlen, toff, tlen, soff, slen = struct.unpack_from(end + "HBBIIIII", blob, 0)
    types = blob[hlen + toff:hlen + toff + tlen]
    strs = blob[hlen + soff:hlen + soff + slen]
    out, pos = [None], 0
    while pos < len(types):
        name, info, st = struct.unpack_from(end + "III", types, pos)
        kind, vlen = (info >> 24) & 0x1F, info & 0xFFFF
        extra = FIXED.get(kind, 0) + PER.get(kind, 0) * vlen
        out.append((name, info, st, types[pos + 12:pos + 12 + extra]))
        pos += 12 + extra
    return end, (ver, flags, hlen), out, strs


def refs(end, t):
    name, info, st, extra = t
    kind, vlen = (info >> 24) & 0x1F, info & 0xFFFF
    r = [st] if kind in REF or kind == 13 else []
    if kind == 3:
        r += list(struct.unpack_from(end + "II", extra, 0))
    elif kind in (4, 5):
        r += [struct.unpack_from(end + "III", extra, 12 * i)[1] for i in range(vlen)]
    elif kind == 13:
        r += [struct.unpack_from(end + "II", extra, 8 * i)[1] for i in range(vlen)]
    elif kind == 15:
        r += [struct.unpack_from(end + "III", extra, 12 * i)[0] for i in range(vlen)]
    return [x for x in r if x]


def cstr(strs, off):
    return strs[off:strs.index(b"\0", off)]


def main():
    src, dst, roots = sys.argv[1], sys.argv[2], set(a.encode() for a in sys.argv[3:])
    end, (ver, flags, hlen), types, strs = parse(open(src, "rb").read())
    todo = [i for i in range(1, len(types)) if (types[i][1] >> 24) & 0x1F == 12
            and cstr(strs, types[i][0]) in roots]
    keep = set()
    while todo:
        i = todo.pop()
        if i not in keep:
            keep.add(i)
            todo += refs(end, types[i])
    newid = {old: n for n, old in enumerate(sorted(keep), 1)}
    newid[0] = 0
    table, where = bytearray(b"\0"), {0: 0}

    def name(off):
        if off not in where:
            where[off] = len(table)
            table.extend(cstr(strs, off) + b"\0")
        return where[off]

    body = bytearray()
    for old in sorted(keep):
        nm, info, st, extra = types[old]
        kind, vlen = (info >> 24) & 0x1F, info & 0xFFFF
        st = newid[st] if kind in REF or kind == 13 else st
        extra = bytearray(extra)
        if kind == 3:
            a, b, n = struct.unpack_from(end + "III", extra, 0)
            struct.pack_into(end + "III", extra, 0, newid[a], newid[b], n)
        for i in range(vlen if kind in PER else 0):
            if kind in (4, 5):
                m, t, o = struct.unpack_from(end + "III", extra, 12 * i)
                struct.pack_into(end + "III", extra, 12 * i, name(m), newid[t], o)
            elif kind in (6, 19):
                struct.pack_into(end + "I", extra, PER[kind] * i,
                                 name(struct.unpack_from(end + "I", extra, PER[kind] * i)[0]))
            elif kind == 13:
                m, t = struct.unpack_from(end + "II", extra, 8 * i)
                struct.pack_into(end + "II", extra, 8 * i, name(m), newid[t])
            elif kind == 15:
                t, o, s = struct.unpack_from(end + "III", extra, 12 * i)
                struct.pack_into(end + "III", extra, 12 * i, newid[t], o, s)
        body += struct.pack(end + "III", name(nm), info, st) + extra
    hdr = struct.pack(end + "HBBIIIII", 0xEB9F, ver, flags, 24, 0, len(body), len(body), len(table))
    open(dst, "wb").write(hdr + body + table)
    print(f"{len(keep)} of {len(types) - 1} types, {24 + len(body) + len(table)} bytes "
          f"(from {len(roots)} functions: {b' '.join(sorted(roots)).decode()})")


main()
