#!/usr/bin/python3
"""Print the byte layout of a little-endian trace-cmd trace.dat (v6 or v7) file:
one line per item, "name offset size [extra]" (decimal).  Used by bad/make-bad.sh to find the
bytes to damage.  Only what is needed for that is decoded."""
import struct, sys

def main(path):
    d = open(path, "rb").read()
    out = []
    def item(name, off, size, extra=""):
        out.append(f"{name} {off} {size} {extra}".rstrip())
    assert d[:3] == b"\x17\x08\x44" and d[3:10] == b"tracing", "bad magic"
    p = 10
    e = d.index(b"\0", p); ver = int(d[p:e]); item("version", p, e + 1 - p, str(ver)); p = e + 1
    assert d[p] == 0, "only little endian handled"
    item("endian", p, 1); item("long_size", p + 1, 1, str(d[p + 1]))
    page = struct.unpack_from("<I", d, p + 2)[0]; item("page_size", p + 2, 4, str(page)); p += 6
    if ver < 7:
        for tag in (b"header_page\0", b"header_event\0"):
            assert d[p:p + len(tag)] == tag
            n = tag[:-1].decode(); item(n + "_tag", p, len(tag)); p += len(tag)
            sz = struct.unpack_from("<Q", d, p)[0]; item(n + "_size", p, 8, str(sz)); p += 8
            item(n + "_text", p, sz); p += sz
        cnt = struct.unpack_from("<I", d, p)[0]; item("ftrace_count", p, 4, str(cnt)); p += 4
        for i in range(cnt):
            sz = struct.unpack_from("<Q", d, p)[0]; item(f"ftrace_format[{i}]", p, 8 + sz); p += 8 + sz
        nsys = struct.unpack_from("<I", d, p)[0]; item("systems_count", p, 4, str(nsys)); p += 4
        for s in range(nsys):
            e = d.index(b"\0", p); name = d[p:e].decode(); p = e + 1
            cnt = struct.unpack_from("<I", d, p)[0]; p += 4
            start = p
            for i in range(cnt):
                sz = struct.unpack_from("<Q", d, p)[0]; p += 8 + sz
            item(f"system[{name}]", start, p - start, f"{cnt} formats")
        for n, fmt, w in (("kallsyms", "<I", 4), ("printk", "<I", 4), ("cmdlines", "<Q", 8)):
            sz = struct.unpack_from(fmt, d, p)[0]
            item(n + "_size", p, w, str(sz)); item(n + "_data", p + w, sz); p += w + sz
        cpus = struct.unpack_from("<I", d, p)[0]; item("cpus", p, 4, str(cpus)); p += 4
        assert d[p:p + 10] == b"options  \0", d[p:p + 10]
        item("options_tag", p, 10); p += 10
        while True:
            oid = struct.unpack_from("<H", d, p)[0]
            if oid == 0:           # v6: DONE is a bare u16
                item("option[0]", p, 2); p += 2
                break
            osz = struct.unpack_from("<I", d, p + 2)[0]
            item(f"option[{oid}]", p, 6 + osz)
            if oid == 3:           # BUFFER: u64 offset of the instance's flyrecord, name
                boff = struct.unpack_from("<Q", d, p + 6)[0]
                bname = d[p + 14:d.index(b"\0", p + 14)].decode()
                item(f"buffer[{bname}]_flyrecord", boff, 0)
            p += 6 + osz
        tag = d[p:p + 10]; item("data_tag", p, 10, tag[:-1].decode().strip()); p += 10
        for c in range(cpus):
            off, sz = struct.unpack_from("<QQ", d, p)
            item(f"cpu{c}_entry", p, 16); item(f"cpu{c}_data", off, sz); p += 16
        for l in list(out):      # v6 instances: "flyrecord\0" + (offset, size) table at each BUFFER offset
            n, off = l.split()[0], int(l.split()[1])
            if n.startswith("buffer[") and n.endswith("_flyrecord"):
                for c in range(cpus):
                    o, sz = struct.unpack_from("<QQ", d, off + 10 + 16 * c)
                    item(f"{n[:-10]}_cpu{c}_data", o, sz)
    else:
        e = d.index(b"\0", p); item("compression", p, e + 1 - p, d[p:e].decode() or "-"); p = e + 1
        e = d.index(b"\0", p); item("compression_version", p, e + 1 - p); p = e + 1
        opt = struct.unpack_from("<Q", d, p)[0]; item("first_options_offset", p, 8, str(opt)); p += 8
        # walk the chain of options sections; each option that points to a section is followed
        seen = set()
        sections = []
        while opt and opt not in seen:
            seen.add(opt)
            sid, fl, sstr, ssz = struct.unpack_from("<HHIQ", d, opt)
            item("options_section", opt, 16 + ssz, f"flags={fl}")
            q, end, nxt = opt + 16, opt + 16 + ssz, 0
            while q < end:
                oid, osz = struct.unpack_from("<HI", d, q)
                item(f"option[{oid}]", q, 6 + osz)
                body = q + 6
                if oid == 0:
                    nxt = struct.unpack_from("<Q", d, body)[0]; break
                if oid in (16, 17, 18, 19, 20, 21):
                    sections.append(struct.unpack_from("<Q", d, body)[0])
                if oid == 8:
                    item("cpucount_value", body, 4, str(struct.unpack_from("<I", d, body)[0]))
                if oid == 3:   # BUFFER: offset, name, clock, page size, cpus, (cpu, offset, size)*
                    boff = struct.unpack_from("<Q", d, body)[0]; r = body + 8
                    e = d.index(b"\0", r); bname = d[r:e].decode(); r = e + 1
                    e = d.index(b"\0", r); r = e + 1
                    r += 4
                    ncpu = struct.unpack_from("<I", d, r)[0]; item(f"buffer[{bname}]_cpus", r, 4, str(ncpu)); r += 4
                    sections.append(boff)
                    for c in range(ncpu):
                        cid, coff, csz = struct.unpack_from("<IQQ", d, r)
                        item(f"buffer[{bname}]_cpu{cid}_data", coff, csz); r += 20
                q = body + osz
            opt = nxt
        for s in sorted(sections):
            sid, fl, sstr, ssz = struct.unpack_from("<HHIQ", d, s)
            item(f"section[{sid}]", s, 16 + ssz, f"flags={fl}")
            item(f"section[{sid}]_size_field", s + 8, 8, str(ssz))
    item("file_size", 0, len(d))
    print("\n".join(out))

main(sys.argv[1])
