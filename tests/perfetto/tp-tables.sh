#!/usr/bin/env bash
# tp-tables.sh TRACE_PROCESSOR FILE: what trace processor computes from FILE
# (a .pftrace) that must not move when the encoding changes: its sched and
# thread_state tables, threads by tid (utids depend on the process model),
# in a canonical order, then its import errors (stats of severity other than
# info).  The goldens in tests/perfetto/tp/ (gzipped) are its output for the
# captures of testdata/; t-perfetto-tp.sh compares.
exec "$1" query "$2" "
select 'sched', s.ts, s.dur, s.cpu, t.tid, s.end_state, s.priority, null, null
	from sched s join thread t using (utid)
union all
select 'state', s.ts, s.dur, s.cpu, t.tid, s.state, s.io_wait, s.blocked_function, w.tid
	from thread_state s join thread t using (utid) left join thread w on w.utid = s.waker_utid
union all
select 'stats', name, idx, value, null, null, null, null, null
	from stats where severity <> 'info' and value > 0
order by 1, 2, 5, 3, 4, 6, 7, 8, 9" 2>/dev/null | sed 1d
