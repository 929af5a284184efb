/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * capture.h - what the capture modules share (capture.c: attaching to an
 * instance, events, start/stop, lists, putting the top buffer back;
 * capture-set.c: an instance's settings; capture-read.c: reading the CPUs'
 * raw pages; capture-out.c: the trace.dat written from them).  The tracefs
 * work itself is libtracefs's, as in trace-cmd 3.x.  Never included from tools/.
 */
#ifndef TDAT_CAPTURE_H
#define TDAT_CAPTURE_H

#include <pthread.h>

#include "write/dat-enc.h"

struct tracefs_instance;
struct tracefs_cpu;

/* A tracefs file we changed, and the value to put back. */
struct cap_saved {
	char *rel;		/* path under the instance directory */
	char *value;
};

struct tdat_capture {
	struct tracefs_instance *inst;	/* NULL: the top buffer (libtracefs's convention) */
	char *name;		/* instance name; NULL: the top buffer */
	char *dir;		/* the instance's directory (the tracing directory for the top buffer) */
	unsigned flags;		/* enum tdat_capture_flags */
	bool opened, created;
	bool following;		/* set_event_pid holds our pids: add to it */
	bool excluding;		/* set_event_notrace_pid holds the recorder: add our thread */
	int ncpus;		/* per_cpu/cpuN directories: N + 1 */
	struct cap_saved *saved;
	int nsaved;
	char errmsg[TDAT_MSG_LEN];
	char **list;		/* the last tdat_capture_list() */
	char *text;		/* the last tdat_capture_file() */

	/* reading trace_pipe_raw */
	bool reading;
	unsigned page_size;	/* sub-buffer size in bytes */
	int *fds;		/* per CPU, -1 when closed (poll()ed; libtracefs reads them) */
	struct tracefs_cpu **tcpu;
	bool *nosplice;		/* per CPU: splice refused, read() instead */
	int pipe[2];		/* what splice moves pages through */
	struct dat_layout layout;	/* tdat_capture_set_dat_option() */
	struct dat_out out;	/* one buffer, one stream per CPU (stream i = CPU i) */
	char *clock;		/* the instance's trace clock */
	uint64_t *raw;		/* bytes read per CPU */
	struct tdat_capture_cpu *end;	/* per CPU: stats read at the end */
	bool stats_read;

	/*
	 * Pages read, waiting for the compressing thread (capture-read.c):
	 * the reader only moves pages, so that it is back in time on a busy
	 * machine.  Slots tail..head-1 (counters; slot k % nslots) are the
	 * thread's; the reader fills @pending more before it hands them over.
	 */
	pthread_t worker;
	bool worker_on, done;
	int werr;			/* the worker's failure, enum tdat_err */
	pthread_mutex_t lock;
	pthread_cond_t more, room;
	unsigned char *slots;
	int *slot_cpu;
	size_t *slot_len;
	unsigned nslots, head, tail, pending;
};

/*
 * Read a file of the instance (@root: of the tracing directory); an empty
 * file reads "".  0, or TDAT_EIO with errmsg set.
 */
int cap_read(struct tdat_capture *c, const char *rel, bool root, char **out, size_t *len);
/* Write @val to file @rel, replacing what it holds; 0 or TDAT_EINVAL/TDAT_EIO with errmsg. */
int cap_write_file(struct tdat_capture *c, const char *rel, const char *val);
/* The error of a failed libtracefs write of @val to @rel (errno): errmsg set. */
int cap_fail(struct tdat_capture *c, const char *rel, const char *val);
/* In the top buffer, keep @rel's first value to put back at close (no-op in an instance). */
int cap_save(struct tdat_capture *c, const char *rel);
/* cap_save() then cap_write_file(). */
int cap_set_file(struct tdat_capture *c, const char *rel, const char *val);
/*
 * The tracing_cpumask text for @spec on a machine of @ncpus CPUs: a hex
 * mask (@hex: "3", "0x3", "1,00000000", "-1" for all) or a list ("0,2-3").
 * Return: 0 with *@out allocated; TDAT_EINVAL (malformed, a CPU the
 * machine lacks, no CPU at all) with @errmsg set; TDAT_ENOMEM.
 */
int cap_cpumask(const char *spec, bool hex, int ncpus, char **out, char *errmsg);
/*
 * The value to write back to tracefs file @rel that read @text (changed in
 * place): the selected clock of trace_clock, "0" for a filter of "none", the
 * size an unused buffer_size_kb grows to, else the text without its newline.
 */
char *cap_restore_value(const char *rel, char *text);
/* Wait for the compressing thread to stage every page read (capture-read.c); 0 or its error. */
int cap_finish_reading(struct tdat_capture *c);
/* Close the CPU files, free what reading needs (capture-read.c). */
void cap_end_reading(struct tdat_capture *c);
/* The per-CPU counters of per_cpu/cpuN/stats of CPU index @i. */
int cap_cpu_stats(struct tdat_capture *c, int i, struct tdat_capture_cpu *st);
/* The events of @spec ("SYS", "SYS:EVENT", "EVENT", globs): @fn(c, sys, event, arg) each. */
int cap_for_events(struct tdat_capture *c, const char *spec,
		   int (*fn)(struct tdat_capture *c, const char *sys, const char *ev, void *arg),
		   void *arg);

#endif
