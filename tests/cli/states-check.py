#!/usr/bin/env python3
# states-check.py: task states and syscall names of one capture in every
# format against trace-cmd report -N (the kernel's own print format, t-states.sh).
#
#   states-check.py states REPORT FORMAT FILE
#       REPORT: `trace-cmd report -N -t` of the capture
#       FORMAT sqlite: FILE a database of -f sqlite
#       FORMAT rows:   FILE the same rows as the sqlite queries below print them,
#                      tab-separated (S END_TS CPU END_STATE; T TS TID ID STATE),
#                      from another format (Parquet through DuckDB)
#       FORMAT json:   FILE a -f json file (its systemTraceEvents lines)
#   states-check.py syscalls JSON DB
#       the raw_syscalls slices of -f json and the slices of -f sqlite with
#       the same thread and start: the same names
# Prints "ok N" (N values compared) or the differences, one a line, and exits 1.
#   states-check.py serve
#       the checks above, one a line of standard input (the arguments
#       tab-separated), each answered by a line: "ok N" or "bad " and the
#       differences, tab-separated (lib.sh's t_serve)
import collections
import json
import re
import sqlite3
import sys

SWITCH = re.compile(r'^(\S*?):?\s+.*?\[(\d+)\]\s*(?:[^\s:\d][^\s:]{3}\.?\s*)?(\d+)(?:\.(\d{9}))?: sched_switch:\s+'
                    r'prev_comm=.* prev_pid=(-?\d+) prev_prio=-?\d+ prev_state=(\S*) ==> '
                    r'next_comm=.* next_pid=(-?\d+) next_prio=-?\d+$')


def report(path):
    """Each switch the report prints: (buffer, ts, cpu, prev_pid, state, next_pid).

    The time stamps are nanoseconds (-t: SECONDS.NNNNNNNNN), or the clock's
    own counts for the clocks that are not in nanoseconds (counter, x86-tsc);
    trace-cmd 3.4 puts the latency flags ("d..2.") before the time stamp."""
    out = []
    for line in open(path, encoding='utf-8', errors='replace'):
        m = SWITCH.match(line.rstrip('\n'))
        if m:
            buf = m.group(1) if not line[0].isspace() else ''
            ts = int(m.group(3)) * 10**9 + int(m.group(4)) if m.group(4) else int(m.group(3))
            out.append((buf, ts, int(m.group(2)),
                        int(m.group(5)), m.group(6), int(m.group(7))))
    return out


def sqlite_rows(path):
    db = sqlite3.connect(path)
    s = db.execute('select ts + dur, cpu, end_state from sched_slice '
                   'where dur >= 0 and end_state is not null').fetchall()
    t = db.execute("select s.ts, t.tid, s.id, s.state from thread_state s join thread t "
                   "using (utid) where s.state != 'Running'").fetchall()
    return s, t


def text_rows(path):
    s, t = [], []
    for line in open(path, encoding='utf-8'):
        f = line.rstrip('\n').split('\t')
        if f[0] == 'S':
            s.append((int(f[1]), int(f[2]), f[3]))
        elif f[0] == 'T':
            t.append((int(f[1]), int(f[2]), int(f[3]), f[4]))
    return s, t


def expected_ends(sw):
    """Switches whose CPU's previous switch put their prev task on it: a sched slice ends there."""
    last, n = {}, 0
    for buf, ts, cpu, prev, state, nxt in sw:
        if last.get((buf, cpu)) == prev:
            n += 1
        last[(buf, cpu)] = nxt
    return n


def check_model(sw, s, t):
    bad, n = [], 0
    at = collections.defaultdict(set)
    for buf, ts, cpu, prev, state, nxt in sw:
        at[(ts, cpu)].add(state)
    for end, cpu, state in s:
        n += 1
        if state not in at.get((end, cpu), ()):
            bad.append('sched slice ending %d on CPU %d: %s, report %s' %
                       (end, cpu, state, sorted(at.get((end, cpu), ['none']))))
    bufs = {b for b, *_ in sw}
    if len(bufs) == 1 and len(s) != expected_ends(sw):
        bad.append('%d sched slices end in a state, the report has %d such switches' %
                   (len(s), expected_ends(sw)))
    first = {}
    for ts, tid, rid, state in t:
        if (ts, tid) not in first or rid < first[(ts, tid)][0]:
            first[(ts, tid)] = (rid, state)
    for buf, ts, cpu, prev, state, nxt in sw:
        if prev <= 0:
            continue
        n += 1
        got = first.get((ts, prev), (None, 'none'))[1]
        if got != state:
            bad.append('thread_state of %d at %d: %s, report %s' % (prev, ts, got, state))
    return bad, n


def check_json(sw, path):
    d = json.load(open(path, encoding='utf-8'))
    got = collections.Counter()
    for line in d.get('systemTraceEvents', '').splitlines():
        m = re.search(r'\[(\d+)\] \S+ [\d.]+: sched_switch: .* prev_pid=(-?\d+) .*'
                      r'prev_state=(\S*) ==> .* next_pid=(-?\d+) ', line)
        if m:
            got[(int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(4)))] += 1
    by_buf = collections.defaultdict(collections.Counter)
    for buf, ts, cpu, prev, state, nxt in sw:
        by_buf[buf][(cpu, prev, state, nxt)] += 1
    if any(got == c for c in by_buf.values()):
        return [], sum(got.values())
    if not by_buf:
        return ['the report has no sched_switch'], 0
    want = by_buf[min(by_buf, key=lambda b: sum(((by_buf[b] - got) + (got - by_buf[b])).values()))]
    return ['switch (cpu, prev_pid, state, next_pid) %s: report %d, json %d' % (k, want[k], got[k])
            for k in sorted(set(got) | set(want)) if got[k] != want[k]][:20], 0


def syscalls(jpath, dbpath):
    d = json.load(open(jpath, encoding='utf-8'))
    db = sqlite3.connect(dbpath)
    rows = db.execute('select s.ts, t.tid, s.name from slice s join thread_track k '
                      'on s.track_id = k.id join thread t using (utid)').fetchall()
    sq = {(ts, tid): name for ts, tid, name in rows}
    bad, n = [], 0
    for e in d['traceEvents']:
        if e.get('ph') != 'X' or not str(e.get('cat', '')).startswith('raw_syscalls'):
            continue
        key = (round(e['ts'] * 1000), e['tid'])
        if key not in sq:
            continue
        n += 1
        if sq[key] != e['name']:
            bad.append('slice at %d of %d: json %s, sqlite %s' % (key[0], key[1], e['name'],
                                                                  sq[key]))
    if not n:
        bad.append('no raw_syscalls slice of the json found in sqlite')
    return bad, n


def check(argv):
    """The differences found (at most 20) and the number of values compared."""
    if argv[0] == 'syscalls':
        bad, n = syscalls(argv[1], argv[2])
    else:
        sw = report(argv[1])
        how, path = argv[2], argv[3]
        if how == 'json':
            bad, n = check_json(sw, path)
        else:
            bad, n = check_model(sw, *(sqlite_rows(path) if how == 'sqlite' else text_rows(path)))
        if not sw:
            bad.append('the report has no sched_switch')
    return bad[:20], n


def serve():
    """The checks of standard input's lines (their arguments tab-separated),
    each answered by a line: "ok N", or "bad " and the differences, a tab
    between them (one python3 for all of a test's checks, lib.sh's t_serve)."""
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        try:
            bad, n = check(line.rstrip('\n').split('\t'))
        except Exception as e:
            bad, n = ['%s: %s' % (type(e).__name__, e)], 0
        print('bad ' + '\t'.join(bad) if bad else 'ok %d' % n, flush=True)


def main():
    if sys.argv[1] == 'serve':
        serve()
        return
    bad, n = check(sys.argv[1:])
    if bad:
        print('\n'.join(bad))
        sys.exit(1)
    print('ok %d' % n)


if __name__ == '__main__':
    main()
