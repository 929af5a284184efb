#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make-kernel49.py - states/kernel-4.9.dat: v6.dat with a 4.9 kernel's sched_switch.

    make-kernel49.py [OUT.dat]    (default: states/kernel-4.9.dat beside v6.dat)

Kernels 4.8 to 4.13 print prev_state with the table of Linux v4.9's
include/trace/events/sched.h (TASK_STATE_MAX 4096, TASK_STATE_TO_CHAR_STR
"RSDTtXZxKWPNn" in include/linux/sched.h):

    __entry->prev_state & (TASK_STATE_MAX-1) ?
      __print_flags(__entry->prev_state & (TASK_STATE_MAX-1), "|",
        { 1, "S"} , { 2, "D" }, { 4, "T" }, { 8, "t" }, { 16, "Z" }, { 32, "X" },
        { 64, "x" }, { 128, "K" }, { 256, "W" }, { 512, "P" }, { 1024, "N" }) : "R",
    __entry->prev_state & TASK_STATE_MAX ? "+" : "",

where kernels >= 4.14 print S D T t X Z P I from bits 0x01-0x80 and "+" at
0x100.  This machine cannot record such a kernel, so this script takes the
real capture v6.dat (v6, 6.18) and

1. replaces the print fmt line of its sched_switch format with the 4.9 one,
   as tracefs prints it (TASK_STATE_MAX expanded to 4096); the fields are
   laid out alike (prev_state a long at offset 32 in both);
2. rewrites each sched_switch's prev_state to what a 4.9 kernel records for
   the same switch (MAP): preempted (0x100) is 0x1000; an idle kernel
   thread (I, 0x80) sleeps in TASK_IDLE, D|N (0x402); the last switch of an
   exiting task (Z 0x20, X 0x10) is TASK_DEAD, x (0x40); parked (0x40) is
   0x200; D (2) is made D|K (0x82, TASK_KILLABLE: the 6.x value cannot say
   whether the sleep was killable, and this gives a state of two letters);
   S, T, t and R keep their values;
3. says in its UNAME option that the kernel is 4.9 (UNAME below), so that
   readers which decode prev_state by kernel version (trace processor, from
   the uname a .pftrace carries) know the table too.

Every other byte (the other formats, kallsyms, command lines, options, the
other records) is v6.dat's.  trace-cmd report -N (the kernel's print format,
no plugin) must print the letters EXPECT counts.
"""
import collections
import importlib.util
import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.dirname(HERE)
spec = importlib.util.spec_from_file_location("oldk", os.path.join(HERE, "make-oldkernel.py"))
oldk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(oldk)

FMT49 = (b'print fmt: "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> '
         b'next_comm=%s next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, '
         b'REC->prev_state & (4096-1) ? __print_flags(REC->prev_state & (4096-1), "|", '
         b'{ 1, "S"} , { 2, "D" }, { 4, "T" }, { 8, "t" }, { 16, "Z" }, { 32, "X" }, '
         b'{ 64, "x" }, { 128, "K" }, { 256, "W" }, { 512, "P" }, { 1024, "N" }) : "R", '
         b'REC->prev_state & 4096 ? "+" : "", REC->next_comm, REC->next_pid, REC->next_prio\n')
# 6.x prev_state -> 4.9 prev_state of the same switch
MAP = {0: 0, 0x100: 0x1000, 1: 1, 2: 0x82, 4: 4, 8: 8, 0x10: 0x40, 0x20: 0x40, 0x40: 0x200,
       0x80: 0x402}
STATE_AT = 32
UNAME = b"Linux vm 4.9.0-tdat-derived x86_64\0"
# what trace-cmd report -N prints for v6.dat's 156 switches
EXPECT = {"R": 44, "R+": 12, "S": 31, "D|K": 11, "D|N": 46, "x": 12}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TESTDATA, "states", "kernel-4.9.dat")
    data = bytearray(open(os.path.join(TESTDATA, "v6.dat"), "rb").read())
    f = oldk.seeds.parse(bytes(data), oldk.All())
    assert f["lsize"] == b"\x08" and f["page"] == 4096
    sid = None
    for name, fmts in f["systems"]:
        for i, x in enumerate(fmts):
            if name == b"sched" and oldk.seeds.format_name(x) == "sched_switch":
                assert b"field:long prev_state;\toffset:32;\tsize:8;" in x
                sid = int(re.search(rb"\nID: (\d+)\n", x).group(1))
                fmts[i] = re.sub(rb"print fmt: .*\n", lambda m: FMT49, x)
    assert sid is not None, "no sched_switch format"

    def visit(rec, n):
        if struct.unpack_from("<H", data, rec)[0] != sid:
            return
        v, = struct.unpack_from("<q", data, rec + STATE_AT)
        struct.pack_into("<q", data, rec + STATE_AT, MAP[v])

    for off, size in f["cpus"]:
        oldk.walk(data, off, size, visit)
    assert [o for o, _ in f["options"]].count(5) == 1
    f["options"] = [(o, UNAME if o == 5 else b) for o, b in f["options"]]
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "wb") as fp:
        fp.write(oldk.build(f, bytes(data), b""))
    report = subprocess.run(["trace-cmd", "report", "-N", "-i", out], check=True,
                            capture_output=True).stdout.decode()
    got = collections.Counter(re.findall(r"prev_state=(\S+)", report))
    if got != EXPECT:
        sys.exit("make-kernel49: trace-cmd report -N prints %s, not %s" % (dict(got), EXPECT))
    print("%s: %d switches, prev_state %s" % (out, sum(got.values()), dict(got)))


if __name__ == "__main__":
    main()
