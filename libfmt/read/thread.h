/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* thread.h - the library's threads (thread.c). */
#ifndef TDAT_READ_THREAD_H
#define TDAT_READ_THREAD_H

#include "read/types.h"

/*
 * thread.c: pthread_create() with every signal blocked in the new thread
 * (signals are the tools' to handle, on their own thread), named after
 * @kind, its CPU time added to the kind's (tdat_thread_cpu()) when it
 * ends.  0 or an errno.
 */
int thread_start(pthread_t *th, enum tdat_thread_kind kind, void *(*fn)(void *), void *arg);

#endif /* TDAT_READ_THREAD_H */
