/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * thread.c - the threads the library starts (reading ahead, -j workers,
 * gzip and Parquet helpers, SQLite's writer, the capture's compressor) run
 * with every signal blocked.  A process signal is the tool's to handle, on
 * its own thread: the tools block SIGINT, SIGTERM and SIGHUP around the
 * steps that must not be cut (renaming an output into place), and a
 * library thread that could take the signal meanwhile would run the
 * handler in the middle of such a step.
 */
#include <pthread.h>
#include <signal.h>

#include "read/read.h"

int thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(th, NULL, fn, arg);	/* the new thread inherits the mask */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}
