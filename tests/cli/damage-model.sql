--- The analysis model's invariants (doc/tdat-sqlite.7), one query a check, each
--- counting the rows that break it: run on the SQLite database by
--- damage-model.py and on the Parquet dataset by damage-model-check.mjs
--- (which reads TABLE as the dataset's analysis/TABLE.parquet).  A line
--- "-- NAME" names the query below it.
-- sched_slice ids unique
select count(*) - count(distinct id) from sched_slice
-- thread_state ids unique
select count(*) - count(distinct id) from thread_state
-- slice ids unique
select count(*) - count(distinct id) from slice
-- track ids unique
select count(*) - count(distinct id) from track
-- counter ids unique
select count(*) - count(distinct id) from counter
-- utids number the threads from 0
select count(*) from thread where utid < 0 or utid >= (select count(*) from thread)
-- upids number the processes from 0
select count(*) from process where upid < 0 or upid >= (select count(*) from process)
-- sched_slice dur >= 0 or -1
select count(*) from sched_slice where dur is null or dur < -1 or ts is null or ts < 0
-- thread_state dur >= 0 or -1
select count(*) from thread_state where dur is null or dur < -1 or ts is null or ts < 0
-- slice dur >= 0 or -1
select count(*) from slice where dur is null or dur < -1 or ts is null or ts < 0
-- a slice's parent exists, on its track, one level up
select count(*) from slice c left join slice p on p.id = c.parent_id where c.parent_id is not null and (p.id is null or p.depth <> c.depth - 1 or p.track_id <> c.track_id)
-- a slice without a parent has depth 0
select count(*) from slice where (parent_id is null and depth <> 0) or (parent_id is not null and depth = 0)
-- the sched slices of a CPU do not overlap
select count(*) from (select ts, dur, lead(ts) over (partition by ucpu order by ts, id) as nts from sched_slice) as s where nts < ts + case when dur > 0 then dur else 0 end
-- the thread states of a thread do not overlap
select count(*) from (select ts, dur, lead(ts) over (partition by utid order by ts, id) as nts from thread_state) as s where nts < ts + case when dur > 0 then dur else 0 end
-- a Running thread state has the ts, CPU and thread of a sched slice
select count(*) from thread_state s where s.state = 'Running' and not exists (select 1 from sched_slice k where k.ts = s.ts and k.ucpu = s.ucpu and k.utid = s.utid)
-- sched_slice, thread_state utids are threads
select count(*) from (select utid from sched_slice union all select utid from thread_state) as u where utid not in (select utid from thread)
-- slice and counter tracks exist
select count(*) from (select track_id from slice union all select track_id from counter) as u where track_id not in (select id from track)
-- a thread's process and a process's parent exist
select count(*) from (select upid from thread union all select parent_upid from process) as u where upid is not null and upid not in (select upid from process)
