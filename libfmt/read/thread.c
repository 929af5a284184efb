/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * thread.c - the threads the library starts (reading ahead, -j workers,
 * gzip and Parquet helpers, SQLite's writer, the capture's compressor).
 *
 * Each runs with every signal blocked.  A process signal is the tool's to
 * handle, on its own thread: the tools block SIGINT, SIGTERM and SIGHUP
 * around the steps that must not be cut (renaming an output into place),
 * and a library thread that could take the signal meanwhile would run the
 * handler in the middle of such a step.
 *
 * Each is named after its kind ("tdat-sqlite", as top -H and perf show
 * it), and the CPU time it took is added to its kind's figures when it
 * ends (tdat_thread_cpu()): what a run spent where, and which of it one
 * thread had to do alone.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "read/read.h"

static const char *const names[TDAT_THREAD_KINDS] = {
	[TDAT_THREAD_READ] = "tdat-read",
	[TDAT_THREAD_WINDOW] = "tdat-window",
	[TDAT_THREAD_GZIP] = "tdat-gzip",
	[TDAT_THREAD_PARQUET] = "tdat-parquet",
	[TDAT_THREAD_SQLITE] = "tdat-sqlite",
	[TDAT_THREAD_CAPTURE] = "tdat-compress",	/* not the tool's name: pgrep -x tdat-capture */
	[TDAT_THREAD_WRITE] = "tdat-write",
};

static pthread_mutex_t cpu_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tdat_thread_cpu cpu[TDAT_THREAD_KINDS];

struct start {
	void *(*fn)(void *);
	void *arg;
	enum tdat_thread_kind kind;
};

static double thread_seconds(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t))
		return 0;
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The new thread: named, run, its CPU time counted. */
static void *run(void *p)
{
	struct start s = *(struct start *)p;
	struct tdat_thread_cpu *c = &cpu[s.kind];
	void *ret;
	double t;

	free(p);
	pthread_setname_np(pthread_self(), names[s.kind]);
	ret = s.fn(s.arg);
	t = thread_seconds();
	pthread_mutex_lock(&cpu_lock);
	c->seconds += t;
	if (t > c->max)
		c->max = t;
	c->threads++;
	pthread_mutex_unlock(&cpu_lock);
	return ret;
}

int thread_start(pthread_t *th, enum tdat_thread_kind kind, void *(*fn)(void *), void *arg)
{
	struct start *s = malloc(sizeof(*s));
	sigset_t all, old;
	int ret;

	if (!s)
		return ENOMEM;
	*s = (struct start){ fn, arg, kind };
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(th, NULL, run, s);	/* the new thread inherits the mask */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		free(s);
	return ret;
}

void tdat_thread_cpu(enum tdat_thread_kind kind, struct tdat_thread_cpu *out)
{
	*out = (struct tdat_thread_cpu){ 0 };
	if ((unsigned)kind >= TDAT_THREAD_KINDS)
		return;
	pthread_mutex_lock(&cpu_lock);
	*out = cpu[kind];
	pthread_mutex_unlock(&cpu_lock);
}

const char *tdat_thread_name(enum tdat_thread_kind kind)
{
	return (unsigned)kind < TDAT_THREAD_KINDS ? names[kind] : NULL;
}
