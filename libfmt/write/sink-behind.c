// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sink-behind.c - a file sink whose write(2)s are made on a thread of its
 * own (sink_behind(): a writer run with -j 2 or more), so that a format
 * that runs on one thread does not also wait for the system to copy its
 * output: 2 GB of JSON into the page cache took a second and more of
 * system time on the thread that formats it.
 *
 * Double buffering: when the caller's buffer is full it is handed to the
 * thread, and the caller goes on in the buffer the thread wrote last,
 * waiting only while the thread has not finished that one.  A write made
 * straight from the caller (one bigger than the buffer) first waits for
 * the thread, so the bytes keep their order.  The thread's failure is
 * sticky: the caller takes it into s->err when it next waits, at the
 * latest when the sink is finished.  A pipe closed by its reader raises
 * SIGPIPE on the thread that writes, as it did on the caller's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "read/read.h"
#include "write/sink.h"

#define BEHIND_CAP (1024 * 1024)	/* each buffer: a hand-over every MiB */

struct behind {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t work, idle;
	bool running, broken, stop;	/* broken: no thread could be started */
	int fd;
	char *buf;		/* being written; NULL: the thread is idle */
	size_t len, cap;	/* cap: buf's room (the caller may have grown it) */
	int err;		/* errno of the thread's failure */
	char *done;		/* the buffer it wrote last, for the caller's next */
	size_t done_cap;
};

/* Write all of @p, as sink_write_fd() does; 0 or an errno. */
static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void *run(void *arg)
{
	struct behind *b = arg;
	int err;

	pthread_mutex_lock(&b->mu);
	for (;;) {
		while (!b->buf && !b->stop)
			pthread_cond_wait(&b->work, &b->mu);
		if (!b->buf)
			break;
		pthread_mutex_unlock(&b->mu);
		err = b->err ? b->err : write_all(b->fd, b->buf, b->len);	/* none after a failure */
		pthread_mutex_lock(&b->mu);
		b->err = err;
		b->done = b->buf;
		b->done_cap = b->cap;
		b->buf = NULL;
		pthread_cond_signal(&b->idle);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

int sink_behind(struct tdat_sink *s)
{
	struct behind *b;
	char *buf;

	if (s->fd < 0 || s->gz || s->wb)
		return 0;
	if (!(b = calloc(1, sizeof(*b))) || !(buf = malloc(BEHIND_CAP))) {
		free(b);
		return TDAT_ENOMEM;
	}
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->work, NULL);
	pthread_cond_init(&b->idle, NULL);
	b->fd = s->fd;
	sink_flush(s);		/* what was written before, on this thread */
	free(s->buf);
	s->buf = buf;
	s->cap = BEHIND_CAP;
	s->wb = b;
	return 0;
}

/* Wait until the thread has written what it was given; its failure into s->err. */
void behind_wait(struct tdat_sink *s)
{
	struct behind *b = s->wb;

	pthread_mutex_lock(&b->mu);
	while (b->buf)
		pthread_cond_wait(&b->idle, &b->mu);
	if (b->err && !s->err)
		s->err = b->err;
	pthread_mutex_unlock(&b->mu);
}

/* Hand the caller's full buffer to the thread; the caller goes on in another. */
void behind_put(struct tdat_sink *s)
{
	struct behind *b = s->wb;
	size_t next_cap;
	char *next;

	behind_wait(s);
	if (s->err || !s->len)
		return;
	if (!b->running && !b->broken && !(b->running = !thread_start(&b->th, TDAT_THREAD_WRITE, run, b)))
		b->broken = true;
	next = b->broken ? NULL : b->done ? b->done : malloc(BEHIND_CAP);
	next_cap = b->done ? b->done_cap : BEHIND_CAP;
	if (!next) {	/* no thread, or no second buffer: write it here */
		s->err = write_all(s->fd, s->buf, s->len);
		s->len = 0;
		return;
	}
	pthread_mutex_lock(&b->mu);
	b->done = NULL;
	b->buf = s->buf;
	b->len = s->len;
	b->cap = s->cap;
	pthread_cond_signal(&b->work);
	pthread_mutex_unlock(&b->mu);
	s->buf = next;
	s->cap = next_cap;	/* the buffers' rooms differ once the caller grew one */
	s->len = 0;
}

void behind_free(struct tdat_sink *s)
{
	struct behind *b = s->wb;

	if (!b)
		return;
	if (b->running) {
		pthread_mutex_lock(&b->mu);
		b->stop = true;
		pthread_cond_signal(&b->work);
		pthread_mutex_unlock(&b->mu);
		pthread_join(b->th, NULL);
	}
	if (b->err && !s->err)
		s->err = b->err;
	free(b->done);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->work);
	pthread_cond_destroy(&b->idle);
	free(b);
	s->wb = NULL;
}
