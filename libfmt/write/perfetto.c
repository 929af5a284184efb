/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfetto.c - the "perfetto" format: a Perfetto protobuf trace
 * (perfetto.protos.Trace, a stream of TracePacket records) that
 * ui.perfetto.dev and trace_processor open like one of Perfetto's own
 * kernel captures, streamed in bounded memory:
 *
 *   SystemInfo     utsname from the trace's uname, first, so that trace
 *                  processor decodes prev_state for the right kernel
 *   FtraceEventBundle, per CPU, in time order, up to BUNDLE_EVENTS events
 *                  (or BUNDLE_BYTES) each; a bundle after lost events has
 *                  lost_events set
 *   ProcessTree    at the end, from the process model (model/procs.c):
 *                  every process and the threads in them, those there when
 *                  tracing started stamped with the first event's time,
 *                  those created during the trace 1 ns after their creation
 *                  (trace processor sorts packets by time, so where they
 *                  are in the file does not matter), so that its thread and
 *                  process tables are those of the sqlite format
 *   FtraceStats    start and end of trace; at the end, per CPU, the kernel's
 *                  own figures of its ring buffers (the CPUSTAT text:
 *                  entries, overrun, commit overrun, bytes, oldest event
 *                  and now ts, dropped and read events) summed over the
 *                  buffers written, as Perfetto's recorder writes them from
 *                  per_cpu/cpuN/stats; where the text has no overrun, the
 *                  lost events counted in the pages
 *
 * Each event becomes an FtraceEvent (perfetto-events.c) with its timestamp
 * and pid.  Timestamps are the trace's own (corrected as for every format),
 * taken by trace processor as its default clock; ftrace_clock is left
 * unset.  Every packet is on trusted_packet_sequence_id 1; no incremental
 * state is used.  With several inputs, the CPUs of input N are numbered
 * after those of inputs 0..N-1; pids are written as they are.
 *
 * With the "compression" option zlib, packets are gathered ZBATCH bytes at a time and each
 * batch is written deflated (zlib) as one TracePacket's compressed_packets,
 * as Perfetto's recorder writes a trace configured with compression_type
 * DEFLATE; trace processor and ui.perfetto.dev inflate them as they read.
 * The batches are deflated on -j threads (perfetto-zlib.c), each on its
 * own, so the bytes do not depend on -j.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "perfetto.h"
#include "write/pbenc.h"
#include "write/writer-int.h"

#define BUNDLE_EVENTS 4096
#define BUNDLE_BYTES (64 * 1024)	/* bounds memory: 128 KiB at most a CPU */
#define SEQ_ID 1
#define ZBATCH (512 * 1024)	/* packet bytes per compressed_packets */
#define ZLEVEL 1		/* libdeflate: 0.4 times level 6's time, 1.12 times its size */

/* Field numbers of Perfetto's trace.proto, trace_packet.proto and friends. */
enum {
	PF_TRACE_PACKET = 1,
	PF_PKT_FTRACE_EVENTS = 1, PF_PKT_PROCESS_TREE = 2, PF_PKT_TIMESTAMP = 8,
	PF_PKT_SEQ_ID = 10, PF_PKT_SEQ_FLAGS = 13, PF_PKT_FTRACE_STATS = 34,
	PF_PKT_SYSTEM_INFO = 45, PF_PKT_COMPRESSED = 50, PF_PKT_FIRST_ON_SEQ = 87,
	PF_BUNDLE_CPU = 1, PF_BUNDLE_LOST = 3,
	PF_SYS_UTSNAME = 1, PF_SYS_PAGE_SIZE = 6, PF_SYS_NUM_CPUS = 8,
	PF_UTS_SYSNAME = 1, PF_UTS_VERSION = 2, PF_UTS_RELEASE = 3, PF_UTS_MACHINE = 4,
	PF_PT_PROCESS = 1, PF_PT_THREAD = 2,
	PF_PROC_PID = 1, PF_PROC_PPID = 2, PF_PROC_CMDLINE = 3, PF_PROC_IS_COMM = 9,
	PF_THR_TID = 1, PF_THR_NAME = 2, PF_THR_TGID = 3,
	PF_FS_PHASE = 1, PF_FS_CPU_STATS = 2,
	PF_CS_CPU = 1, PF_CS_ENTRIES = 2, PF_CS_OVERRUN = 3, PF_CS_COMMIT_OVERRUN = 4,
	PF_CS_BYTES_READ = 5, PF_CS_OLDEST_EVENT_TS = 6, PF_CS_NOW_TS = 7,
	PF_CS_DROPPED_EVENTS = 8, PF_CS_READ_EVENTS = 9,
};

#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define PHASE_START 1
#define PHASE_END 2

/* One CPU of one input: the body of the bundle being filled. */
struct pf_stream {
	struct tdat_sink body;	/* FtraceEvent fields, a memory sink */
	struct pf_compact cs;	/* the bundle's compact_sched */
	unsigned n;		/* events in body and cs */
	bool lost;		/* events were lost before body's first */
	bool used;
};

struct pf_input {
	struct idtab types;	/* struct pf_type by event type id, compiled on use */
	struct pf_stream *cpus;
	int ncpus;
	int cpu_base;		/* the output number of its CPU 0 */
	struct kseen seen;	/* buffers written, lost events per buffer and CPU */
	struct pf_known known;	/* the thread names trace processor was given */
};

struct pf {
	struct pf_input *in;
	int ninputs;
	struct procmodel *pm;
	unsigned char *fed;	/* per utid: the process model saw the thread */
	int nfed;
	bool any;
	uint64_t first_ts, last_ts;
	struct tdat_sink pkt;	/* one packet being built (memory sink) */
	bool deflate;		/* "compression" zlib: packets go through zbatch */
	struct tdat_sink zbatch;	/* packets to deflate (memory sink) */
	struct pf_zring *zr;	/* the batches being deflated (perfetto-zlib.c) */
};

/* ---- packets ---- */

/* Where packets go: the output, or the batch to deflate. */
static struct tdat_sink *out_of(struct pf *p, struct tdat_writer *w)
{
	return p->deflate ? &p->zbatch : &w->sink;
}

/* Write the oldest batch submitted, deflated, as one compressed_packets; 0 or ENOMEM. */
static int put_oldest(struct pf *p, struct tdat_writer *w)
{
	const unsigned char *z;
	size_t n;

	if (pf_zring_oldest(p->zr, &z, &n))
		return TDAT_ENOMEM;
	pb_head(&w->sink, PF_TRACE_PACKET, pb_varint_size((uint64_t)PF_PKT_COMPRESSED << 3) +
		pb_varint_size(n) + n + 1 + pb_varint_size(SEQ_ID));
	pb_bytes(&w->sink, PF_PKT_COMPRESSED, z, n);
	pb_varint(&w->sink, PF_PKT_SEQ_ID, SEQ_ID);
	pf_zring_free_oldest(p->zr);
	return 0;
}

/*
 * Have the batch deflated when it is full (or @all), writing the oldest
 * batches as the ring fills; with @all, write every one; 0 or ENOMEM.
 */
static int put_batch(struct pf *p, struct tdat_writer *w, bool all)
{
	if (!p->deflate || (!all && p->zbatch.len < ZBATCH))
		return 0;
	if (p->zbatch.err)
		return TDAT_ENOMEM;
	if (!p->zr && !(p->zr = pf_zring_new(w->jobs, ZLEVEL)))
		return TDAT_ENOMEM;
	if (p->zbatch.len) {
		if (pf_zring_full(p->zr) && put_oldest(p, w))
			return TDAT_ENOMEM;
		pf_zring_submit(p->zr, &p->zbatch);
	}
	while (all && pf_zring_pending(p->zr))
		if (put_oldest(p, w))
			return TDAT_ENOMEM;
	return 0;
}

/* Write the packet built in p->pkt (with the sequence id) as a Trace.packet. */
static void put_packet(struct pf *p, struct tdat_sink *out)
{
	pb_varint(&p->pkt, PF_PKT_SEQ_ID, SEQ_ID);
	pb_bytes(out, PF_TRACE_PACKET, p->pkt.buf, p->pkt.len);
	p->pkt.len = 0;
}

/* The bundle of one CPU; its length is known, so the body is copied once. */
static void flush_stream(struct tdat_sink *out, struct pf_stream *s, unsigned cpu)
{
	uint64_t blen, plen;

	if (!s->n)
		return;
	blen = 1 + pb_varint_size(cpu) + (s->lost ? 2 : 0) + pf_compact_size(&s->cs) + s->body.len;
	plen = 1 + pb_varint_size(blen) + blen + 1 + pb_varint_size(SEQ_ID);
	pb_head(out, PF_TRACE_PACKET, plen);
	pb_head(out, PF_PKT_FTRACE_EVENTS, blen);
	pb_varint(out, PF_BUNDLE_CPU, cpu);
	if (s->lost)
		pb_varint(out, PF_BUNDLE_LOST, 1);
	pf_compact_flush(&s->cs, out);
	sink_write(out, s->body.buf, s->body.len);
	pb_varint(out, PF_PKT_SEQ_ID, SEQ_ID);
	s->body.len = 0;
	s->n = 0;
	s->lost = false;
}

static void put_str(struct tdat_sink *s, unsigned field, const char *str, size_t n)
{
	if (n)
		pb_text(s, field, str, n);
}

/* "sysname nodename release [version] machine" as trace-cmd saves uname. */
static void put_utsname(struct tdat_sink *s, const char *u)
{
	const char *tok[3], *end = u + strlen(u), *last, *ver;
	size_t len[3];
	size_t at = pb_begin(s, PF_SYS_UTSNAME);

	for (int i = 0; i < 3; i++) {
		u += strspn(u, " ");
		tok[i] = u;
		len[i] = strcspn(u, " ");
		u += len[i];
	}
	while (end > u && end[-1] == ' ')
		end--;
	for (last = end; last > u && last[-1] != ' '; last--)
		;
	put_str(s, PF_UTS_SYSNAME, tok[0], len[0]);
	put_str(s, PF_UTS_RELEASE, tok[2], len[2]);
	ver = u + strspn(u, " ");
	if (last > ver)
		put_str(s, PF_UTS_VERSION, ver, (size_t)(last - ver) - 1);
	put_str(s, PF_UTS_MACHINE, last, (size_t)(end - last));
	pb_end(s, at);
}

static void put_system_info(struct pf *p, struct tdat_writer *w)
{
	const struct tdat_file_info *fi = tdat_file_info(tdat_merge_file(w->merge, 0));
	size_t at = pb_begin(&p->pkt, PF_PKT_SYSTEM_INFO);

	if (fi->uname[0])
		put_utsname(&p->pkt, fi->uname);
	if (fi->page_size)
		pb_varint(&p->pkt, PF_SYS_PAGE_SIZE, fi->page_size);
	if (fi->cpus > 0)
		pb_varint(&p->pkt, PF_SYS_NUM_CPUS, (uint64_t)fi->cpus);
	pb_end(&p->pkt, at);
	pb_varint(&p->pkt, PF_PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_varint(&p->pkt, PF_PKT_FIRST_ON_SEQ, 1);
	put_packet(p, out_of(p, w));
}

/*
 * When trace processor is to read a process or thread of the ProcessTree:
 * one there from the start at the first event; one the trace saw created
 * 1 ns after its creation, so that it is alive then in trace processor's
 * eyes (not yet freed, and after a task_newtask that makes it) and the
 * model's tid is the one meant.  A process goes with its main thread.
 */
static uint64_t thread_stamp(const struct pf *p, const struct pm_thread *th)
{
	return th && th->has_start ? th->start_ts + 1 : p->first_ts;
}

/* One process (thread < 0) or thread of the ProcessTree, and when it is read. */
struct pt_entry {
	uint64_t ts;
	int proc, thread;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct pt_entry *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->thread != y->thread)	/* processes first */
		return x->thread < y->thread ? -1 : 1;
	return (x->proc > y->proc) - (x->proc < y->proc);
}

/*
 * Threads the ProcessTree lists: those of a process, and those of no known
 * process that the model names where no event gave trace processor a name
 * (events that name no thread, the comm only from the saved cmdlines).  A
 * Thread's tgid says its process; one without is read by trace processor as
 * a thread of process 0, the only way it takes a thread's name from the
 * ProcessTree without a process (tdat-sqlite(7), ONE MODEL).
 */
static bool thread_listed(const struct pf *p, const struct pm_thread *th)
{
	if (th->utid <= 0 || th->is_idle)
		return false;
	return th->upid > 0 || (th->name && !pf_known_tid(&p->in[th->input].known,
							  (uint64_t)th->tid));
}

static void put_process(struct pf *p, const struct pm_process *pr)
{
	const struct pm_process *parent = pm_process(p->pm, pr->parent_upid);
	const char *name = pr->name ? pr->name : pr->cmdline;
	size_t at = pb_begin(&p->pkt, PF_PT_PROCESS);

	pb_varint(&p->pkt, PF_PROC_PID, (uint64_t)pr->pid);
	if (parent)
		pb_varint(&p->pkt, PF_PROC_PPID, (uint64_t)parent->pid);
	/*
	 * Trace processor keeps only a process with a cmdline and names it
	 * after its first element (cut at a space if it is the only one), as
	 * Perfetto's recorder gives a process with no cmdline of its own its
	 * comm.  So the first element is the model's name (exec's file's base
	 * name, else the main thread's comm); a second, empty one keeps a
	 * name with a space whole.
	 */
	if (name) {
		pb_text(&p->pkt, PF_PROC_CMDLINE, name, strlen(name));
		if (strchr(name, ' '))
			pb_bytes(&p->pkt, PF_PROC_CMDLINE, "", 0);
		if (!pr->cmdline)
			pb_varint(&p->pkt, PF_PROC_IS_COMM, 1);
	}
	pb_end(&p->pkt, at);
}

static void put_thread(struct pf *p, const struct pm_thread *th)
{
	const struct pm_process *pr = pm_process(p->pm, th->upid);
	size_t at = pb_begin(&p->pkt, PF_PT_THREAD);

	pb_varint(&p->pkt, PF_THR_TID, (uint64_t)th->tid);
	if (th->name)
		pb_text(&p->pkt, PF_THR_NAME, th->name, strlen(th->name));
	if (th->upid > 0)
		pb_varint(&p->pkt, PF_THR_TGID, (uint64_t)pr->pid);
	pb_end(&p->pkt, at);
}

/* The entries @e[0..n) of one time as one ProcessTree packet. */
static void put_process_tree(struct pf *p, struct tdat_sink *out, const struct pt_entry *e, int n)
{
	struct tdat_sink *s = &p->pkt;
	size_t at;

	pb_varint(s, PF_PKT_TIMESTAMP, e[0].ts);
	at = pb_begin(s, PF_PKT_PROCESS_TREE);
	for (int i = 0; i < n; i++) {
		if (e[i].thread < 0)
			put_process(p, pm_process(p->pm, e[i].proc));
		else
			put_thread(p, pm_thread(p->pm, e[i].thread));
	}
	pb_end(s, at);
	put_packet(p, out);
}

/* The processes and threads of the model, one ProcessTree packet per time they are read at. */
static int put_process_trees(struct pf *p, struct tdat_sink *out)
{
	int np = pm_nprocs(p->pm), nt = pm_nthreads(p->pm), n = 0;
	struct pt_entry *e = malloc(sizeof(*e) * (size_t)(np + nt + 1));

	if (!e)
		return TDAT_ENOMEM;
	/* not the idle process (upid 0): trace processor has it, would make it its own parent */
	for (int i = 1; i < np; i++) {
		const struct pm_process *pr = pm_process(p->pm, i);

		e[n++] = (struct pt_entry){ pr->has_start ? pr->start_ts + 1 : p->first_ts, i, -1 };
	}
	for (int i = 0; i < nt; i++) {
		const struct pm_thread *th = pm_thread(p->pm, i);

		if (!thread_listed(p, th))
			continue;
		e[n++] = (struct pt_entry){ thread_stamp(p, th), th->upid > 0 ? th->upid : 0, i };
		if (th->is_main && th->upid > 0 && !pm_process(p->pm, th->upid)->has_start)
			e[th->upid - 1].ts = thread_stamp(p, th);
	}
	qsort(e, (size_t)n, sizeof(*e), cmp_entry);
	for (int i = 0, k; i < n; i = k) {
		for (k = i + 1; k < n && e[k].ts == e[i].ts; k++)
			;
		put_process_tree(p, out, &e[i], k - i);
	}
	free(e);
	return p->pkt.err ? TDAT_ENOMEM : 0;
}

/*
 * @ns as the seconds Perfetto's FtraceCpuStats holds: trace processor reads
 * them back as ns by multiplying by 1e9 and truncating, so take the next
 * double up while that would come out short (exact below 2^53 ns).
 */
static double pf_seconds(uint64_t ns)
{
	double d = (double)ns / 1e9;
	uint64_t bits;

	for (int i = 0; i < 4 && ns < (1ull << 53) && (uint64_t)(d * 1e9) < ns; i++) {
		memcpy(&bits, &d, sizeof(bits));
		bits++;		/* a positive double's next one up */
		memcpy(&d, &bits, sizeof(d));
	}
	return d;
}

/* The kernel's figures of one CPU at the end of the trace (see kseen_cpu()). */
static void put_cpu_end(struct tdat_sink *s, struct tdat_file *f, const struct kseen *seen,
			int cpu)
{
	struct tdat_kernel_cpu_stats k;

	kseen_cpu(seen, f, cpu, &k);
	if (k.have & TDAT_KS_ENTRIES)
		pb_varint(s, PF_CS_ENTRIES, k.entries);
	pb_varint(s, PF_CS_OVERRUN, k.overrun);
	if (k.have & TDAT_KS_COMMIT_OVERRUN)
		pb_varint(s, PF_CS_COMMIT_OVERRUN, k.commit_overrun);
	if (k.have & TDAT_KS_BYTES)
		pb_varint(s, PF_CS_BYTES_READ, k.bytes);
	if (k.have & TDAT_KS_OLDEST_TS)
		pb_double(s, PF_CS_OLDEST_EVENT_TS, pf_seconds(k.oldest_event_ts));
	if (k.have & TDAT_KS_NOW_TS)
		pb_double(s, PF_CS_NOW_TS, pf_seconds(k.now_ts));
	if (k.have & TDAT_KS_DROPPED)
		pb_varint(s, PF_CS_DROPPED_EVENTS, k.dropped_events);
	if (k.have & TDAT_KS_READ)
		pb_varint(s, PF_CS_READ_EVENTS, k.read_events);
}

/*
 * FtraceStats of one phase, for every CPU written: nothing is known of the
 * start (an overrun of 0: trace-cmd record empties the buffers), the
 * kernel's figures at the end.
 */
static void put_ftrace_stats(struct pf *p, struct tdat_writer *w, uint64_t ts, int phase)
{
	struct tdat_sink *s = &p->pkt;
	size_t at, cs;

	pb_varint(s, PF_PKT_TIMESTAMP, ts);
	at = pb_begin(s, PF_PKT_FTRACE_STATS);
	pb_varint(s, PF_FS_PHASE, (uint64_t)phase);
	for (int i = 0; i < p->ninputs; i++) {
		for (int c = 0; c < p->in[i].ncpus; c++) {
			if (!p->in[i].cpus[c].used)
				continue;
			cs = pb_begin(s, PF_FS_CPU_STATS);
			pb_varint(s, PF_CS_CPU, (uint64_t)(p->in[i].cpu_base + c));
			if (phase == PHASE_END)
				put_cpu_end(s, tdat_merge_file(w->merge, i), &p->in[i].seen, c);
			else
				pb_varint(s, PF_CS_OVERRUN, 0);
			pb_end(s, cs);
		}
	}
	pb_end(s, at);
	put_packet(p, out_of(p, w));
}

/* ---- events ---- */

/* Input @input's streams are made at open for every CPU id its buffers have. */
static struct pf_stream *stream_of(struct pf *p, int input, int cpu)
{
	struct pf_input *in = &p->in[input];

	if (cpu < 0 || cpu >= in->ncpus)
		return NULL;
	in->cpus[cpu].used = true;
	return &in->cpus[cpu];
}

static const struct pf_type *type_of(struct pf *p, const struct tdat_event *ev)
{
	const struct ttype *tt = file_type(ev->file, ev);
	void **slot = tt ? idtab_slot(&p->in[ev->input].types, tt->id) : NULL;

	if (!slot)
		return NULL;
	if (!*slot)
		*slot = pf_compile(tt);
	return *slot;
}

/* Tell the process model what it needs: every event of some types, one of each thread. */
static int feed(struct pf *p, const struct tdat_event *ev, const struct pf_type *pt, int64_t tid)
{
	int utid = pm_utid(p->pm, ev->input, tid);

	if (utid < 0)
		return TDAT_ENOMEM;
	if (utid >= p->nfed) {
		int cap = p->nfed ? p->nfed : 1024;
		unsigned char *f;

		while (cap <= utid)
			cap *= 2;
		if (!(f = realloc(p->fed, (size_t)cap)))
			return TDAT_ENOMEM;
		memset(f + p->nfed, 0, (size_t)(cap - p->nfed));
		p->fed = f;
		p->nfed = cap;
	}
	if (!pt->feed && p->fed[utid])
		return 0;
	p->fed[utid] = 1;
	return pm_feed(p->pm, ev, pt->tt);
}

static int pf_put(struct tdat_writer *w, const struct tdat_event *ev)
{
	struct pf *p = w->priv;
	const struct pf_type *pt = type_of(p, ev);
	struct pf_stream *s = stream_of(p, ev->input, ev->cpu);
	uint64_t tid = 0, named;
	int ret;

	if (!s) {
		tdat_msg(w->errmsg, "cpu %d of input %d is not one of its buffers' CPUs", ev->cpu,
			 ev->input);
		return TDAT_EFORMAT;
	}
	if (!pt)
		return TDAT_ENOMEM;
	if (!p->any) {
		p->any = true;
		p->first_ts = ev->ts;
	}
	if (ev->ts > p->last_ts)
		p->last_ts = ev->ts;
	if (!tfield_num(ev, &pt->tt->pid, &tid))
		tid = 0;
	if ((ret = feed(p, ev, pt, (int64_t)tid)) < 0)
		return ret;
	if (ev->missed) {
		/* the loss belongs between two bundles */
		flush_stream(out_of(p, w), s, (unsigned)(p->in[ev->input].cpu_base + ev->cpu));
		s->lost = true;
	}
	kseen_event(&p->in[ev->input].seen, ev);
	if (pt->names && tfield_num(ev, pt->names, &named))
		pf_known_tid_add(&p->in[ev->input].known, named);
	if (!pf_compact_put(&s->cs, ev, pt, (uint32_t)tid)) {
		pf_encode(&s->body, ev, pt, (uint32_t)tid);
		pf_compact_note(&s->cs, ev, pt);
	}
	if (s->body.err || pf_compact_err(&s->cs)) {
		tdat_msg(w->errmsg, "out of memory");
		return TDAT_ENOMEM;
	}
	if (++s->n >= BUNDLE_EVENTS || s->body.len + s->cs.bound >= BUNDLE_BYTES)
		flush_stream(out_of(p, w), s, (unsigned)(p->in[ev->input].cpu_base + ev->cpu));
	if (s->body.err || put_batch(p, w, false)) {
		tdat_msg(w->errmsg, "out of memory");
		return TDAT_ENOMEM;
	}
	return 0;
}

/* ---- open, close ---- */

static int pf_close(struct tdat_writer *w)
{
	struct pf *p = w->priv;

	if (!p || !p->pm)
		return 0;
	for (int i = 0; i < p->ninputs; i++)
		for (int c = 0; c < p->in[i].ncpus; c++)
			flush_stream(out_of(p, w), &p->in[i].cpus[c], (unsigned)(p->in[i].cpu_base + c));
	if (p->any) {
		pm_finish(p->pm, w->merge);
		if (put_process_trees(p, out_of(p, w)))
			return TDAT_ENOMEM;
		put_ftrace_stats(p, w, p->first_ts, PHASE_START);
		put_ftrace_stats(p, w, p->last_ts, PHASE_END);
	}
	if (p->pkt.err || put_batch(p, w, true)) {
		tdat_msg(w->errmsg, "out of memory");
		return TDAT_ENOMEM;
	}
	return 0;
}

/* CPUs of @f: the highest id any buffer has, or the header's count. */
static int file_cpus(struct tdat_file *f)
{
	const struct tdat_file_info *fi = tdat_file_info(f);
	int n = fi->cpus > 0 ? fi->cpus : 1;

	for (int b = 0; b < fi->nbuffers; b++) {
		const struct tdat_buffer_info *bi = tdat_file_buffer(f, b);

		for (int c = 0; bi && c < bi->ncpus; c++)
			if (bi->cpus[c].cpu >= n)
				n = bi->cpus[c].cpu + 1;
	}
	return n;
}

static int pf_open(struct tdat_writer *w)
{
	struct pf *p = calloc(1, sizeof(*p));
	int base = 0;

	if (!p)
		return TDAT_ENOMEM;
	w->priv = p;
	p->pkt.fd = -1;
	p->zbatch.fd = -1;
	p->deflate = w->opt.zlib;
	p->ninputs = tdat_merge_nfiles(w->merge);
	p->in = calloc((size_t)(p->ninputs ? p->ninputs : 1), sizeof(*p->in));
	if (!p->in || !(p->pm = pm_new()))
		return TDAT_ENOMEM;
	for (int i = 0; i < p->ninputs; i++) {
		struct pf_input *in = &p->in[i];

		in->ncpus = file_cpus(tdat_merge_file(w->merge, i));
		in->cpus = calloc((size_t)in->ncpus, sizeof(*in->cpus));
		if (!in->cpus || kseen_init(&in->seen, tdat_merge_file(w->merge, i)))
			return TDAT_ENOMEM;
		for (int c = 0; c < in->ncpus; c++) {
			in->cpus[c].body.fd = -1;
			pf_compact_init(&in->cpus[c].cs, &in->known);
		}
		in->cpu_base = base;
		base += in->ncpus;
	}
	if (p->ninputs)
		put_system_info(p, w);
	return p->pkt.err ? TDAT_ENOMEM : 0;
}

static void pf_free(struct tdat_writer *w)
{
	struct pf *p = w->priv;

	if (!p)
		return;
	for (int i = 0; p->in && i < p->ninputs; i++) {
		idtab_release(&p->in[i].types, pf_type_free);
		for (int c = 0; p->in[i].cpus && c < p->in[i].ncpus; c++) {
			free(p->in[i].cpus[c].body.buf);
			pf_compact_free(&p->in[i].cpus[c].cs);
		}
		free(p->in[i].cpus);
		pf_known_free(&p->in[i].known);
		kseen_release(&p->in[i].seen);
	}
	pm_free(p->pm);
	free(p->fed);
	free(p->pkt.buf);
	free(p->zbatch.buf);
	pf_zring_free(p->zr);
	free(p->in);
	free(p);
	w->priv = NULL;
}

static const struct writer_option perfetto_options[] = {
	WOPT_WORD("compression", "none zlib", zlib),	/* packets deflated in compressed_packets */
	{ NULL, WO_BOOL, NULL, 0, 0, 0 },
};

const struct tdat_writer_ops tdat_writer_perfetto_ops = {
	.options = perfetto_options,
	.name = "perfetto",
	.exts = ".pftrace .perfetto-trace",
	.fields = true,
	.output = TDAT_OUT_STREAM,
	.open = pf_open,
	.put = pf_put,
	.close = pf_close,
	.free = pf_free,
};
