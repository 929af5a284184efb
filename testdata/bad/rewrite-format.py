#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rewrite-format.py - a copy of a real v6 capture with event formats rewritten.

    rewrite-format.py IN.dat OUT.dat EVENT REGEX REPLACEMENT

Every format named EVENT ('*' for all of them) has REGEX replaced (Python
re, on bytes).  The rest is tests/fuzz/make-seeds.py's shrinking (a few
formats, kallsyms and command lines, one page per CPU), so that the file
stays small; only the formats differ from what that makes of IN.
"""
import importlib.util
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "seeds", os.path.join(here, "..", "..", "tests", "fuzz", "make-seeds.py"))
seeds = importlib.util.module_from_spec(spec)
spec.loader.exec_module(seeds)


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    src, out, event, pat, rep = sys.argv[1:]
    data = open(src, "rb").read()
    f = seeds.parse(data, seeds.KEEP_EVENTS)
    pat, rep = pat.encode(), rep.encode()

    def edit(fmt):
        return re.sub(pat, rep, fmt) if event in ("*", seeds.format_name(fmt)) else fmt

    f["systems"] = [(name, [edit(x) for x in fmts]) for name, fmts in f["systems"]]
    f["ftrace"] = [edit(x) for x in f["ftrace"]]
    open(out, "wb").write(seeds.build(f, data, 1))


if __name__ == "__main__":
    main()
