#!/usr/bin/python3
"""Generate damaged trace.dat files from the real captures in testdata/ (issue 6).

Usage: make-damaged.py [--all] [OUTDIR]     (default: gen/ next to this script)

Without --all only the cases committed under gen/ are written: every case smaller than
70 KB and a chosen few of the larger ones (BIG_KEPT), to keep the repository small.

Every case is derived from one good capture by truncating it or by changing a few bytes
at an offset found with ../scripts/tracedat-layout.py (so the cases follow the files if
they are re-recorded).  Random choices use a fixed seed, so the output is the same on
every run.  OUTDIR/SOURCES lists "NAME SOURCE WHAT" for every case, so a test can compare
what a tool makes of a damaged file with what it makes of the undamaged one.

Kinds of damage: truncation at every section boundary and inside sections, chunks and
pages; bit flips in the file header, section and option sizes, chunk tables, page commit
words and event headers; decompression bombs (uncompressed sizes far beyond the file);
option chains that loop; absurd CPU counts; zero, odd and huge page sizes; the wrong
endianness byte; empty and magic-only files.
"""
import os
import random
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GOOD = os.path.dirname(HERE)                      # testdata/
LAYOUT = os.path.join(GOOD, "scripts", "tracedat-layout.py")
ARGS = [a for a in sys.argv[1:] if a != "--all"]
ALL = "--all" in sys.argv[1:]
OUT = ARGS[0] if ARGS else os.path.join(HERE, "gen")
BIG = 70000
BIG_KEPT = {"chunks-bomb.dat", "chunks-count-huge.dat", "chunks-cut-in-chunk.dat",
            "v6-commit-2.dat", "v6-event-length-huge.dat", "v6-cut-mid-page.dat",
            "v6-ftrace-count-huge.dat", "v6-event-padding.dat", "v6-padding-backwards.dat", "v6-padding-short.dat",
            "v7none-commit-1.dat", "v7none-event-flips.dat", "v6-event-overlong.dat",
            "v6-event-type-unknown.dat"}
rng = random.Random(6)
cases = []
# a section that only names things (kallsyms, say) is lost: every event is still read
NAMES = " [names: every event is read, some names are not]"


def layout(name):
    """Items of a capture: {name: (offset, size, extra)} (first one of each name wins)."""
    text = subprocess.run([sys.executable, LAYOUT, os.path.join(GOOD, name)], check=True,
                          capture_output=True, text=True).stdout
    items = {}
    order = []
    for line in text.splitlines():
        f = line.split(maxsplit=3)
        off, size = int(f[1]), int(f[2])
        order.append((f[0], off, size))
        items.setdefault(f[0], (off, size, f[3] if len(f) > 3 else ""))
    return items, order


def good(name):
    with open(os.path.join(GOOD, name), "rb") as fp:
        return bytearray(fp.read())


def emit(case, src, data, what):
    if not ALL and len(data) > BIG and case not in BIG_KEPT:
        return
    with open(os.path.join(OUT, case), "wb") as fp:
        fp.write(data)
    cases.append((case, src, what))


def put(data, off, fmt, value):
    struct.pack_into(fmt, data, off, value)
    return data


def flip(data, off, bit):
    data[off] ^= 1 << bit
    return data


def chunks(data, off):
    """(offset, csize, usize) of each compressed chunk of one CPU's data at @off."""
    n = struct.unpack_from("<I", data, off)[0]
    p, out = off + 4, []
    for _ in range(n):
        cs, us = struct.unpack_from("<II", data, p)
        out.append((p, cs, us))
        p += 8 + cs
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.unlink(os.path.join(OUT, f))

    # ---- nothing, or only the start -------------------------------------------------
    emit("empty.dat", "-", b"", "0 bytes")
    m = good("markers.dat")
    emit("magic-only.dat", "markers.dat", m[:10], "the 10-byte magic, nothing else")
    emit("header-only.dat", "markers.dat", m[:18], "magic, version, endianness, long and page size")

    # ---- v7 (markers.dat, zstd): truncation at every section boundary and inside ----
    items, order = layout("markers.dat")
    seen = set()
    for name, off, size in order:
        if not (name.startswith("section[") and not name.endswith("_field")
                or name == "options_section"):
            continue
        for cut, where in ((off, "start"), (off + size // 2, "mid")):
            if cut in seen or cut >= len(m):
                continue
            seen.add(cut)
            tag = name.replace("[", "").replace("]", "").replace("_section", "")
            emit(f"v7-cut-{tag}-{where}-{cut}.dat", "markers.dat", m[:cut],
                 f"truncated at the {where} of {name} (offset {cut})")

    # ---- v7 header fields ----------------------------------------------------------
    emit("v7-endian-big.dat", "markers.dat", put(good("markers.dat"), items["endian"][0], "<B", 1),
         "endianness byte says big endian")
    emit("v7-long-size-3.dat", "markers.dat",
         put(good("markers.dat"), items["long_size"][0], "<B", 3), "long size 3")
    for v, tag in ((0, "zero"), (4095, "odd"), (1 << 31, "huge"), (16, "tiny")):
        emit(f"v7-page-size-{tag}.dat", "markers.dat",
             put(good("markers.dat"), items["page_size"][0], "<I", v), f"page size {v}")
    emit("v7-options-offset-past-end.dat", "markers.dat",
         put(good("markers.dat"), items["first_options_offset"][0], "<Q", 1 << 40),
         "first options offset far past the end of the file")
    emit("v7-compression-unknown.dat", "markers.dat",
         put(good("markers.dat"), items["compression"][0], "<4s", b"zstz"),
         "unknown compression name")

    # ---- v7 sizes: sections, options, decompression bombs ----------------------------
    for sid, v in (("16", 0), ("17", 1 << 62), ("20", 3)):
        o = items[f"section[{sid}]_size_field"][0]
        emit(f"v7-section{sid}-size-{v}.dat", "markers.dat", put(good("markers.dat"), o, "<Q", v),
             f"size of section {sid} set to {v}" + (NAMES if sid == "17" else ""))
    for sid in ("17", "19", "3"):
        o = items[f"section[{sid}]"][0] + 16       # compression header: u32 csize, u32 usize
        emit(f"v7-bomb-section{sid}.dat", "markers.dat",
             put(good("markers.dat"), o + 4, "<I", 0xfffffff0),
             f"uncompressed size of section {sid} claims 4 GB (decompression bomb)" +
             (NAMES if sid != "3" else ""))
    o = items["section[18]"][0] + 16
    emit("v7-section18-csize-zero.dat", "markers.dat", put(good("markers.dat"), o, "<I", 0),
         "compressed size of section 18 is 0")
    o = items["option[5]"][0]
    emit("v7-option-size-huge.dat", "markers.dat", put(good("markers.dat"), o + 2, "<I", 0xfffffff0),
         "size of an option (id 5) claims 4 GB")

    # ---- v7 option chains and CPU counts ---------------------------------------------
    opts = [o for n, o, s in order if n == "options_section"]
    done = [o for n, o, s in order if n == "option[0]"]
    emit("v7-options-loop-self.dat", "markers.dat", put(good("markers.dat"), done[1] + 6, "<Q", opts[1]),
         "the last options section's DONE option points back at itself")
    emit("v7-options-loop-first.dat", "markers.dat", put(good("markers.dat"), done[1] + 6, "<Q", opts[0]),
         "the last options section's DONE option points back at the first one")
    emit("v7-options-next-garbage.dat", "markers.dat",
         put(good("markers.dat"), done[0] + 6, "<Q", items["section[19]"][0] + 100),
         "the first DONE option points into the middle of the kallsyms section")
    emit("v7-cpucount-huge.dat", "markers.dat",
         put(good("markers.dat"), items["cpucount_value"][0], "<I", 0xffffffff), "CPUCOUNT 4294967295")
    emit("v7-buffer-cpus-1000000.dat", "markers.dat",
         put(good("markers.dat"), items["buffer[]_cpus"][0], "<I", 1000000),
         "the top buffer claims a million CPUs")
    o = items["buffer[]_cpus"][0]
    emit("v7-buffer-cpu-offset-past-end.dat", "markers.dat", put(good("markers.dat"), o + 8, "<Q", 1 << 50),
         "CPU 0 data offset far past the end of the file")
    emit("v7-buffer-cpu-size-huge.dat", "markers.dat", put(good("markers.dat"), o + 16, "<Q", 1 << 50),
         "CPU 0 data size far beyond the file")
    emit("v7-buffer-page-size-zero.dat", "markers.dat", put(good("markers.dat"), o - 4, "<I", 0),
         "the top buffer's page size is 0")

    # ---- v7 chunk tables (chunks.dat: 17-19 zstd chunks per CPU) ---------------------
    ci, _ = layout("chunks.dat")
    c = good("chunks.dat")
    ch = chunks(c, ci["buffer[]_cpu0_data"][0])
    emit("chunks-count-huge.dat", "chunks.dat",
         put(good("chunks.dat"), ci["buffer[]_cpu0_data"][0], "<I", 0xffffffff),
         "CPU 0 claims 4294967295 chunks")
    emit("chunks-bomb.dat", "chunks.dat", put(good("chunks.dat"), ch[3][0] + 4, "<I", 0x7ffffff0),
         "chunk 3 of CPU 0 claims 2 GB uncompressed (decompression bomb)")
    mi, _ = layout("clock-mono.dat")
    mc = chunks(good("clock-mono.dat"), mi["buffer[]_cpu0_data"][0])
    emit("v7-chunk-bomb-60m.dat", "clock-mono.dat",
         put(good("clock-mono.dat"), mc[0][0] + 4, "<I", 60 << 20),
         "the only chunk of CPU 0 claims 60 MB uncompressed (below the 64 MB chunk limit)")
    emit("chunks-csize-huge.dat", "chunks.dat", put(good("chunks.dat"), ch[5][0], "<I", 0x7ffffff0),
         "chunk 5 of CPU 0 claims 2 GB compressed")
    emit("chunks-csize-zero.dat", "chunks.dat", put(good("chunks.dat"), ch[2][0], "<I", 0),
         "chunk 2 of CPU 0 has compressed size 0")
    d = good("chunks.dat")
    for i in range(3):
        flip(d, ch[7][0] + 8 + rng.randrange(ch[7][1]), rng.randrange(8))
    emit("chunks-frame-flips.dat", "chunks.dat", d, "three bit flips inside the zstd frame of chunk 7")
    cut = ch[9][0] + 8 + ch[9][1] // 2
    emit("chunks-cut-in-chunk.dat", "chunks.dat", c[:cut], "truncated inside chunk 9 of CPU 0")
    # cut inside the data of the second buffer: the first keeps its table, the
    # second's CPU 0 is found by scanning (dat-salvage.c), its CPU 1 is lost
    tb, _ = layout("two-buffers.dat")
    cut = tb["buffer[foo]_cpu1_data"][0] + 100
    emit("two-buffers-cut-foo-cpu1.dat", "two-buffers.dat", good("two-buffers.dat")[:cut],
         "truncated inside CPU 1 of buffer foo (its table and name, in the options after it, are lost) "
         "[buffer foo is read as salvaged]")

    # ---- v7 uncompressed (v7-none.dat) and v6 pages ---------------------------------
    for src, key in (("v7-none.dat", "buffer[]_cpu0_data"), ("v6.dat", "cpu0_data")):
        li, _ = layout(src)
        base = li[key][0]
        tag = "v6" if src == "v6.dat" else "v7none"
        d = good(src)
        for k, (v, what) in enumerate(((0, "0"), (0xffffff, "beyond the page"),
                                       (4081, "one past the page's data"))):
            put(d, base + (k + 1) * 4096 + 8, "<Q", v)
            what_all = f"commit word of page {k + 1} of CPU 0: {what}"
            emit(f"{tag}-commit-{k + 1}.dat", src, bytearray(d), what_all)
            d = good(src)
        # first event header of page 2: type_len 0 with a length far beyond the page
        put(d, base + 2 * 4096 + 16, "<I", 0)
        put(d, base + 2 * 4096 + 20, "<I", 0x00fffff0)
        emit(f"{tag}-event-length-huge.dat", src, d, "first event of page 2: length 16 MB")
        d = good(src)
        put(d, base + 4096 + 16, "<I", 29)           # padding with no length
        emit(f"{tag}-event-padding.dat", src, d, "first event of page 1 turned into padding")
        d = good(src)
        # second event of page 4 turned into padding of length -8: kbuffer walked
        # backwards from it forever (found by fuzz-pages)
        first = base + 4 * 4096 + 16
        tl = struct.unpack_from("<I", d, first)[0] & 0x1f
        second = first + (4 + 4 * tl if 1 <= tl <= 28 else 8 + struct.unpack_from("<I", d, first + 4)[0])
        put(d, second, "<I", 29)
        put(d, second + 4, "<I", 0xfffffff8)
        emit(f"{tag}-padding-backwards.dat", src, d, "second event of page 4: padding of length -8")
        d = good(src)
        # page 5: a padding of length 0 (whose length word is then read as the
        # next event, one running past the page), lost events stored after a
        # commit of 64: -4.  Cut before the bad event, kbuffer read the padding's
        # length from the lost-events count moved there and looped (fuzz-pages)
        page = base + 5 * 4096
        put(d, page + 8, "<Q", (3 << 30) | 64)
        put(d, page + 16, "<I", 29)
        put(d, page + 20, "<I", 0)
        put(d, page + 24, "<I", 0x00fffff0)
        put(d, page + 16 + 64, "<Q", 0xfffffffffffffffc)
        emit(f"{tag}-padding-short.dat", src, d, "page 5: a padding of length 0 before an event running past the page, lost-events count -4")
        d = good(src)
        for i in range(4):
            flip(d, base + 3 * 4096 + 16 + rng.randrange(200), rng.randrange(8))
        emit(f"{tag}-event-flips.dat", src, d, "four bit flips among the first events of page 3 [payload: changed values cannot be detected, lost events can]")
    vi, _ = layout("v6.dat")
    v6 = good("v6.dat")
    b = vi["cpu0_data"][0]
    for cut, where in ((b + 4096, "page-boundary"), (b + 4096 + 1000, "mid-page"),
                       (vi["cpus"][0] + 2, "cpu-count"), (vi["kallsyms_data"][0] + 77, "kallsyms")):
        emit(f"v6-cut-{where}.dat", "v6.dat", v6[:cut], f"truncated at the {where.replace('-', ' ')}")
    emit("v6-endian-big.dat", "v6.dat", put(good("v6.dat"), vi["endian"][0], "<B", 1),
         "endianness byte says big endian")
    emit("v6-page-size-zero.dat", "v6.dat", put(good("v6.dat"), vi["page_size"][0], "<I", 0), "page size 0")
    emit("v6-cpus-zero.dat", "v6.dat", put(good("v6.dat"), vi["cpus"][0], "<I", 0), "CPU count 0")
    emit("v6-cpu1-size-huge.dat", "v6.dat", put(good("v6.dat"), vi["cpu1_entry"][0] + 8, "<Q", 1 << 60),
         "CPU 1 data size far beyond the file")
    emit("v6-header-page-size-huge.dat", "v6.dat",
         put(good("v6.dat"), vi["header_page_size"][0], "<Q", 1 << 40), "header_page size 1 TB")
    emit("v6-ftrace-count-huge.dat", "v6.dat",
         put(good("v6.dat"), vi["ftrace_count"][0], "<I", 0x7fffffff), "2147483647 ftrace formats")

    # ---- v7 sections that only name things: damaged, every event is still read -----
    for sid, what in (("17", "ftrace's own formats: markers are shown undecoded"),
                      ("19", "kallsyms: functions are shown as addresses"),
                      ("20", "printk formats"),
                      ("21", "cmdlines: tasks are named only where an event names them")):
        o = items[f"section[{sid}]"][0] + 24       # header 16, csize and usize 8: the frame
        emit(f"v7-section{sid}-frame-damaged.dat", "markers.dat", put(good("markers.dat"), o, "<I", 0),
             f"the zstd frame of section {sid} ({what}) does not decompress" + NAMES)

    # ---- a data event whose length swallows the two events after it ----------------
    for src, key, tag in (("v6.dat", "cpu0_data", "v6"), ("v7-none.dat", "buffer[]_cpu0_data", "v7none")):
        base = layout(src)[0][key][0] + 3 * 4096 + 16
        d = good(src)
        sizes, pos = [], 0
        while len(sizes) < 3:
            tl = struct.unpack_from("<I", d, base + pos)[0] & 0x1f
            if not 1 <= tl <= 28:
                sizes, pos = [], pos + (8 if tl in (30, 31) else 8 + struct.unpack_from("<I", d, base + pos + 4)[0])
                continue
            sizes.append((pos, tl))
            pos += 4 + 4 * tl
        (first, tl), swallowed = sizes[0], pos - sizes[1][0]
        if tl + swallowed // 4 <= 28:
            w = struct.unpack_from("<I", d, base + first)[0]
            put(d, base + first, "<I", (w & ~0x1f) | (tl + swallowed // 4))
            emit(f"{tag}-event-overlong.dat", src, d,
                 f"an event of page 3 of CPU 0 made {swallowed} bytes longer, hiding the two after it "
                 "[payload: their time deltas are lost too, so later times on the page are early]")

    # ---- a data event whose type id names no format ------------------------------------
    base = layout("v6.dat")[0]["cpu0_data"][0] + 3 * 4096 + 16
    d, pos = good("v6.dat"), 0
    while not 1 <= struct.unpack_from("<I", d, base + pos)[0] & 0x1f <= 28:
        tl = struct.unpack_from("<I", d, base + pos)[0] & 0x1f
        pos += 8 if tl in (30, 31) else 8 + struct.unpack_from("<I", d, base + pos + 4)[0]
    emit("v6-event-type-unknown.dat", "v6.dat", put(d, base + pos + 4, "<H", 0xfdfd),
         "the first event of page 3 of CPU 0 has type id 65021, which has no format "
         "[payload: that event is written undecoded]")

    with open(os.path.join(OUT, "SOURCES"), "w") as fp:
        fp.write("# name source what (made by ../make-damaged.py; source '-': none)\n")
        for case, src, what in cases:
            fp.write(f"{case} {src} {what}\n")
    print(f"{len(cases)} cases in {OUT}")


main()
