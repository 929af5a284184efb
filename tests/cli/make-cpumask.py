#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make-cpumask.py - a capture with cpumask fields, for t-parquet.sh.

    make-cpumask.py [--past-end] V6.dat OUT.dat

No capture of testdata/ has an event with a cpumask: the kernel traces
ipi:ipi_send_cpumask only for an IPI to more than one other CPU, which the
2-CPU machine that recorded them never sends.  OUT is V6.dat made as
testdata/scripts/make-unsupported.py --events makes its file (metadata
shrunk, the first page of each CPU) with the ipi system of the same kernel
(6.18.44, the format below byte for byte as its tracefs has it) added, and
a page of synthesised ipi_send_cpumask records in front of CPU 0's: masks of
a 128-CPU kernel (two longs) with CPUs {0, 1}, {1}, none, {0, 63, 64, 127}
and {5, 70} set.  No kernel wrote them; trace-cmd report prints each mask
as libtraceevent's __get_cpumask() does, the oracle of the test.  With
--past-end a sixth record's mask lies past its end (a damaged record).
"""
import importlib.util
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "unsupported", os.path.join(here, "..", "..", "testdata", "scripts", "make-unsupported.py"))
mk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mk)

FORMAT = b"""name: ipi_send_cpumask
ID: 353
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:__data_loc cpumask_t cpumask;\toffset:8;\tsize:4;\tsigned:0;
\tfield:void * callsite;\toffset:16;\tsize:8;\tsigned:0;
\tfield:void * callback;\toffset:24;\tsize:8;\tsigned:0;

print fmt: "cpumask=%s callsite=%pS callback=%pS", __get_cpumask(cpumask), REC->callsite, REC->callback
"""

MASKS = ({0, 1}, {1}, set(), {0, 63, 64, 127}, {5, 70})


def main():
    args = sys.argv[1:]
    past = args[:1] == ["--past-end"]
    if past:
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    src, out = args
    data = open(src, "rb").read()
    f = mk.seeds.parse(data, mk.Everything())
    pid = 452   # kworker/0:2 in v6.dat's saved command lines
    ips = dict(callsite=0xffffffff81234560, callback=0xffffffff81234570)
    records = []
    for cpus in MASKS:
        bits = sum(1 << c for c in cpus).to_bytes(16, "little")
        records.append(mk.record(FORMAT, pid, ips, {"cpumask": (bits, 16)}))
    if past:    # 16 bytes at offset 200 of a 32-byte record
        records.append(mk.record(FORMAT, pid, dict(ips, cpumask=200 | 16 << 16)))
    open(out, "wb").write(mk.build(f, data, [(b"ipi", [FORMAT])], 1, records))


if __name__ == "__main__":
    main()
