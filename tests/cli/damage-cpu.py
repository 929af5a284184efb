#!/usr/bin/python3
"""damage-cpu.py SRC OUT SEED [RUNS [LEN]]: a copy of the trace.dat SRC with RUNS
(default 3) runs of LEN (default 64) pseudo-random bytes written into its CPU data.
damage-cpu.py --each SRC OUT SEED [SRC OUT SEED]...: a copy for each triple, with
the default RUNS and LEN, in one process (the same bytes as one run for each).

Where and what is drawn from SHA-256 of "SEED:COUNTER" (the same copy on every
machine and Python); the CPU data regions are those testdata/scripts/tracedat-layout.py
lists (cpuN_data of a v6 file, buffer[NAME]_cpuN_data of a v7 one).  Used by
t-jobs-damage.sh: damage that lands in pages and chunks the -j windows cut."""
import hashlib
import os
import subprocess
import sys

LAYOUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata",
                      "scripts", "tracedat-layout.py")


class Stream:
    """Numbers drawn from SHA-256 of "seed:counter"."""

    def __init__(self, seed):
        self.seed, self.n, self.buf = seed, 0, b""

    def bytes(self, k):
        while len(self.buf) < k:
            self.buf += hashlib.sha256(f"{self.seed}:{self.n}".encode()).digest()
            self.n += 1
        out, self.buf = self.buf[:k], self.buf[k:]
        return out

    def below(self, n):
        return int.from_bytes(self.bytes(8), "little") % n


REGIONS = {}


def cpu_regions(src):
    if src not in REGIONS:
        REGIONS[src] = layout_regions(src)
    return REGIONS[src]


def layout_regions(src):
    text = subprocess.run([sys.executable, LAYOUT, src], check=True, capture_output=True,
                          text=True).stdout
    regions = []
    for line in text.splitlines():
        f = line.split()
        if f[0].endswith("_data") and f[0].startswith(("cpu", "buffer")) and int(f[2]) > 0:
            regions.append((int(f[1]), int(f[2])))
    return regions


def main():
    if sys.argv[1] == "--each":
        args = sys.argv[2:]
        if not args or len(args) % 3:
            sys.exit("damage-cpu.py: --each takes SRC OUT SEED triples")
        for i in range(0, len(args), 3):
            damage(*args[i:i + 3])
        return
    src, out, seed = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    length = int(sys.argv[5]) if len(sys.argv) > 5 else 64
    damage(src, out, seed, runs, length)


def damage(src, out, seed, runs=3, length=64):
    """Write to OUT the copy of SRC that SEED draws."""
    regions = cpu_regions(src)
    data = bytearray(open(src, "rb").read())
    rng = Stream(seed)
    for _ in range(runs):
        off, size = regions[rng.below(len(regions))]
        at = off + rng.below(max(1, size - length))
        end = min(at + length, len(data))
        data[at:end] = rng.bytes(end - at)
    with open(out, "wb") as fp:
        fp.write(data)


if __name__ == "__main__":
    main()
