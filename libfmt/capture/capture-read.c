/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * capture-read.c - reading a capture: every CPU's per_cpu/cpuN/trace_pipe_raw
 * in one poll loop woken when a CPU's buffer is buffer_percent full.  While
 * tracing runs only whole pages are taken, spliced through a pipe and read
 * into a queue of slots, one readv() per splice (read() would hand over the
 * page the kernel is still writing, a few events at a time); at the end
 * libtracefs's tracefs_cpu_flush() takes the partly written ones too, and
 * tracefs_cpu_read() reads a kernel that cannot splice.  A second thread
 * stages the pages as the kernel wrote them (dstream_put_page()), one
 * stream per CPU of struct dat_out, compressed as chunks fill.  The reader
 * thus only moves pages and is back before the kernel's buffer fills, even
 * on a busy machine (trace-cmd has a reader per CPU that writes raw pages
 * to files and compresses at the end).
 *
 * libtracefs 1.6 against what this needs: tracefs_cpu_buffered_read() reads
 * the pipe a page per system call (tracefs_cpu_read_buf() of 1.8 as well),
 * tracefs_cpu_pipe() splices a length it has not set yet, and tracefs_cpu_open()
 * sizes pages from events/header_page, which does not follow
 * buffer_subbuf_size_kb (Linux 6.8).  So the files are opened here, handed
 * to libtracefs with the instance's sub-buffer size (tracefs_cpu_alloc_fd())
 * for flush and read, and spliced here.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <tracefs.h>

#include "read/read.h"
#include "write/options.h"
#include "capture.h"

#define STAGE_MEM	(16u << 20)	/* compressed chunks kept in memory, all CPUs */
#define QUEUE_MEM	(8u << 20)	/* raw pages waiting to be compressed, all CPUs */
#define BATCH		32		/* pages handed over at once (one wake-up) */
#define SPLICE_PAGES	16		/* pages moved per splice (a default pipe's size) */
#define MAX_PAGE	(1u << 20)

static unsigned subbuf_size(struct tdat_capture *c)
{
	long long kb = 0;

	if (tracefs_file_exists(c->inst, "buffer_subbuf_size_kb"))
		tracefs_instance_file_read_number(c->inst, "buffer_subbuf_size_kb", &kb);
	if (kb > 0 && (unsigned long long)kb * 1024 <= MAX_PAGE)
		return (unsigned)kb * 1024;
	return (unsigned)sysconf(_SC_PAGESIZE);
}

/* The kernel's long (the size of a page's commit field), which a 32-bit recorder's is not. */
static int kernel_long(struct tdat_capture *c)
{
	char *t, *p;
	int n = (int)sizeof(long);

	if (cap_read(c, "events/header_page", false, &t, NULL))
		return n;
	if ((p = strstr(t, "commit;")) && (p = strstr(p, "size:")) && (atoi(p + 5) == 4 || atoi(p + 5) == 8))
		n = atoi(p + 5);
	free(t);
	return n;
}

/* CPU @i's trace_pipe_raw, non-blocking; a CPU that is not there (offline) stays closed. */
static int open_cpu(struct tdat_capture *c, int i)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", i);
	c->fds[i] = tracefs_instance_file_open(c->inst, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->fds[i] < 0) {
		if (errno == ENOENT)
			return 0;
		tdat_msg(c->errmsg, "%s/%s: %s", c->dir, rel, strerror(errno));
		return TDAT_EIO;
	}
	if (!(c->tcpu[i] = tracefs_cpu_alloc_fd(c->fds[i], (int)c->page_size, true))) {
		close(c->fds[i]);
		c->fds[i] = -1;
		return TDAT_ENOMEM;
	}
	return 0;
}

/* Stage the pages of the queue until told it is done (the second thread). */
static void *stage_pages(void *arg)
{
	struct tdat_capture *c = arg;
	char tid[24];
	int ret = 0;

	/* the recorder's events are left out: this thread's too (its futex calls, its writes) */
	snprintf(tid, sizeof(tid), "%d", (int)gettid());
	if (c->excluding)
		tracefs_instance_file_append(c->inst, "set_event_notrace_pid", tid);
	pthread_mutex_lock(&c->lock);
	while (!ret) {
		unsigned k = c->tail % c->nslots;

		if (c->tail == c->head && c->done)
			break;
		if (c->tail == c->head) {
			pthread_cond_wait(&c->more, &c->lock);
			continue;
		}
		pthread_mutex_unlock(&c->lock);
		ret = dstream_put_page(&c->out.st, &c->out.streams[c->slot_cpu[k]],
				       c->slots + (size_t)k * c->page_size, c->slot_len[k]);
		pthread_mutex_lock(&c->lock);
		c->tail++;
		c->werr = ret;
		pthread_cond_signal(&c->room);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* The queue and its thread; without a thread, pages are staged as they are read. */
static int start_worker(struct tdat_capture *c)
{
	c->nslots = QUEUE_MEM / c->page_size < 16 ? 16 : QUEUE_MEM / c->page_size;
	c->slots = malloc((size_t)c->nslots * c->page_size);
	c->slot_cpu = malloc(sizeof(*c->slot_cpu) * c->nslots);
	c->slot_len = malloc(sizeof(*c->slot_len) * c->nslots);
	if (!c->slots || !c->slot_cpu || !c->slot_len)
		return TDAT_ENOMEM;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->more, NULL);
	pthread_cond_init(&c->room, NULL);
	c->worker_on = !thread_start(&c->worker, TDAT_THREAD_CAPTURE, stage_pages, c);
	/* no pipe: no splice, read() (tracefs_cpu_read()) */
	if (pipe2(c->pipe, O_CLOEXEC | O_NONBLOCK))
		c->pipe[0] = c->pipe[1] = -1;
	else
		fcntl(c->pipe[1], F_SETPIPE_SZ, (int)(c->page_size * SPLICE_PAGES));
	return 0;
}

/* Hand the pages filled so far to the thread. */
static void hand_over(struct tdat_capture *c)
{
	if (!c->worker_on || !c->pending)
		return;
	pthread_mutex_lock(&c->lock);
	c->head += c->pending;
	c->pending = 0;
	pthread_cond_signal(&c->more);
	pthread_mutex_unlock(&c->lock);
}

/* Room for @k more pages; waits while the queue is too full.  0 or the thread's error. */
static int reserve(struct tdat_capture *c, unsigned k)
{
	int ret;

	if (!c->worker_on)
		return 0;
	pthread_mutex_lock(&c->lock);
	if (c->head + c->pending - c->tail > c->nslots - k) {
		c->head += c->pending;
		c->pending = 0;
		pthread_cond_signal(&c->more);
		while (c->head - c->tail > c->nslots - k && !c->werr)
			pthread_cond_wait(&c->room, &c->lock);
	}
	ret = c->werr;
	pthread_mutex_unlock(&c->lock);
	return ret;
}

/* The slot of the @j-th page after those filled so far (reserve()d). */
static unsigned char *slot_at(struct tdat_capture *c, unsigned j)
{
	unsigned k = c->worker_on ? (c->head + c->pending + j) % c->nslots : j;

	return c->slots + (size_t)k * c->page_size;
}

/* The page at slot_at(c, 0) holds @n bytes of CPU @i. */
static int queue_page(struct tdat_capture *c, int i, unsigned char *slot, size_t n)
{
	unsigned k = (c->head + c->pending) % c->nslots;

	c->raw[i] += n;
	if (!c->worker_on)
		return dstream_put_page(&c->out.st, &c->out.streams[i], slot, n);
	c->slot_cpu[k] = i;
	c->slot_len[k] = n;
	if (++c->pending == BATCH)
		hand_over(c);
	return 0;
}

int cap_finish_reading(struct tdat_capture *c)
{
	hand_over(c);
	if (!c->worker_on)
		return c->werr;
	pthread_mutex_lock(&c->lock);
	c->done = true;
	pthread_cond_signal(&c->more);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->worker, NULL);
	c->worker_on = false;
	return c->werr;
}

int tdat_capture_set_dat_option(struct tdat_capture *c, const char *key, const char *value)
{
	const struct writer_option *o = writer_option_find(dat_options, key);
	struct writer_opts opts = { .dat = c->layout };
	int ret;

	if (c->reading) {
		tdat_msg(c->errmsg, "option %s: reading has begun", key);
		return TDAT_EINVAL;
	}
	if (!o) {
		tdat_msg(c->errmsg, "no option '%s' (version, compression: the dat format's)", key);
		return TDAT_EINVAL;
	}
	if ((ret = writer_option_parse(o, value, &opts, c->errmsg)))
		return ret;
	c->layout = opts.dat;
	return 0;
}

int tdat_capture_read_begin(struct tdat_capture *c)
{
	int *ids, ret;

	if (c->reading || !c->opened)
		return TDAT_EINVAL;
	if ((ret = dat_out_init(&c->out, &c->layout, STAGE_MEM, c->errmsg)))
		return ret;
	c->reading = true;
	c->pipe[0] = c->pipe[1] = -1;
	c->page_size = subbuf_size(c);
	c->fds = malloc(sizeof(*c->fds) * (size_t)c->ncpus);
	c->tcpu = calloc((size_t)c->ncpus, sizeof(*c->tcpu));
	c->nosplice = calloc((size_t)c->ncpus, sizeof(*c->nosplice));
	c->raw = calloc((size_t)c->ncpus, sizeof(*c->raw));
	c->end = calloc((size_t)c->ncpus, sizeof(*c->end));
	ids = malloc(sizeof(*ids) * (size_t)c->ncpus);
	if (!c->fds || !c->tcpu || !c->nosplice || !c->raw || !c->end || !ids) {
		free(ids);
		return TDAT_ENOMEM;
	}
	for (int i = 0; i < c->ncpus; i++) {
		c->fds[i] = -1;
		ids[i] = i;
	}
	/* the kernel's byte order and long size: ours */
	c->out.big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	c->out.page_size = c->page_size;
	c->out.cpus = c->ncpus;
	if (!(c->clock = tracefs_get_clock(c->inst)) && !(c->clock = strdup("local")))
		ret = TDAT_ENOMEM;
	c->out.clock = c->clock;
	if (!ret)
		ret = dat_out_add_buffer(&c->out, "", c->clock, c->page_size, ids, c->ncpus,
					 kernel_long(c));
	free(ids);
	for (int i = 0; i < c->ncpus && !ret; i++)
		ret = open_cpu(c, i);
	return ret ? ret : start_worker(c);
}

/*
 * The whole pages CPU @i has now, spliced through the pipe and read into
 * the queue's slots in one readv() per splice: libtracefs 1.6's
 * tracefs_cpu_buffered_read() reads the pipe a page per system call, a
 * cost the bench measures (1.8 has tracefs_cpu_read_buf(), no better).
 * Return: 0, 1 if this kernel cannot splice, or an error.
 */
static int splice_cpu(struct tdat_capture *c, int i)
{
	size_t ps = c->page_size;

	for (;;) {
		struct iovec iov[SPLICE_PAGES];
		ssize_t n, r;
		int k, ret;

		if ((ret = reserve(c, SPLICE_PAGES)))
			return ret;
		n = splice(c->fds[i], NULL, c->pipe[1], NULL, ps * SPLICE_PAGES,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 && errno != EAGAIN;
		for (k = 0; (size_t)k * ps < (size_t)n; k++)
			iov[k] = (struct iovec){ slot_at(c, (unsigned)k),
						 (size_t)n - (size_t)k * ps < ps ? (size_t)n - (size_t)k * ps : ps };
		while ((r = readv(c->pipe[0], iov, k)) < 0 && errno == EINTR)
			;
		if (r != n) {
			tdat_msg(c->errmsg, "cpu %d: reading the splice pipe: %s", i,
				 r < 0 ? strerror(errno) : "short read");
			return TDAT_EIO;
		}
		for (int j = 0; j < k && !ret; j++)
			ret = queue_page(c, i, iov[j].iov_base, iov[j].iov_len);
		if (ret)
			return ret;
	}
}

/*
 * Read the pages CPU @i has now.  While tracing runs, only whole pages
 * (splice gives nothing else; a kernel that cannot splice is read()).
 * @all: also the last, partly written page (at the end).
 */
static int read_cpu(struct tdat_capture *c, int i, bool all)
{
	struct tracefs_cpu *t = c->tcpu[i];
	int ret;

	if (!all && !c->nosplice[i] && c->pipe[0] >= 0) {
		if ((ret = splice_cpu(c, i)) != 1)
			return ret;
		c->nosplice[i] = true;
	}
	for (;;) {
		int n = (ret = reserve(c, 1)) ? 0 : all ? tracefs_cpu_flush(t, slot_at(c, 0)) :
			tracefs_cpu_read(t, slot_at(c, 0), true);

		if (ret)
			return ret;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0) {
			tdat_msg(c->errmsg, "cpu %d: trace_pipe_raw: %s", i, strerror(errno));
			return TDAT_EIO;
		}
		if (n == 0)
			return 0;
		if ((ret = queue_page(c, i, slot_at(c, 0), (size_t)n)))
			return ret;
	}
}

int tdat_capture_read(struct tdat_capture *c, int timeout_ms, int wake_fd)
{
	struct pollfd *p;
	int n = 0, ret = 0;

	if (!c->reading)
		return TDAT_EINVAL;
	if (timeout_ms) {
		p = calloc((size_t)c->ncpus + 1, sizeof(*p));
		if (!p)
			return TDAT_ENOMEM;
		for (int i = 0; i < c->ncpus; i++)
			if (c->fds[i] >= 0)
				p[n++] = (struct pollfd){ .fd = c->fds[i], .events = POLLIN };
		if (wake_fd >= 0)
			p[n++] = (struct pollfd){ .fd = wake_fd, .events = POLLIN };
		/* a signal ends the wait early: that is what wake_fd is for too */
		if (poll(p, (nfds_t)n, timeout_ms) < 0 && errno != EINTR) {
			tdat_msg(c->errmsg, "poll: %s", strerror(errno));
			ret = TDAT_EIO;
		}
		free(p);
	}
	for (int i = 0; i < c->ncpus && !ret; i++)
		if (c->tcpu[i])
			ret = read_cpu(c, i, !timeout_ms);
	hand_over(c);
	/* the last read: every page staged before the file is written */
	if (!timeout_ms) {
		int r = cap_finish_reading(c);

		ret = ret ? ret : r;
	}
	return ret;
}

int cap_cpu_stats(struct tdat_capture *c, int i, struct tdat_capture_cpu *st)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "entries:", offsetof(struct tdat_capture_cpu, entries) },
		{ "overrun:", offsetof(struct tdat_capture_cpu, overrun) },
		{ "bytes:", offsetof(struct tdat_capture_cpu, buffer_bytes) },
		{ "dropped events:", offsetof(struct tdat_capture_cpu, dropped) },
		{ "read events:", offsetof(struct tdat_capture_cpu, kernel_read) },
	};
	char rel[64], *text, *line, *save = NULL;
	int ret;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", i);
	if ((ret = cap_read(c, rel, false, &text, NULL)))
		return ret;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!strncmp(line, keys[k].key, strlen(keys[k].key)))
				*(uint64_t *)((char *)st + keys[k].off) =
					strtoull(line + strlen(keys[k].key), NULL, 10);
	free(text);
	return 0;
}

int tdat_capture_cpu_stats(struct tdat_capture *c, int i, struct tdat_capture_cpu *out)
{
	int ret = 0;

	if (i < 0 || i >= c->ncpus)
		return TDAT_EINVAL;
	memset(out, 0, sizeof(*out));
	if (c->reading && c->stats_read)
		*out = c->end[i];
	else
		ret = cap_cpu_stats(c, i, out);
	out->cpu = i;
	if (c->reading) {
		out->events = c->out.streams[i].events;
		out->read_bytes = c->raw[i];
		out->stored = dstream_size(&c->out.st, &c->out.streams[i]);
	} else {
		out->events = out->entries;
	}
	return ret;
}

void cap_end_reading(struct tdat_capture *c)
{
	if (!c->reading)
		return;
	cap_finish_reading(c);
	if (c->slots) {
		pthread_mutex_destroy(&c->lock);
		pthread_cond_destroy(&c->more);
		pthread_cond_destroy(&c->room);
	}
	free(c->slots);
	free(c->slot_cpu);
	free(c->slot_len);
	c->slots = NULL;
	c->slot_cpu = NULL;
	c->slot_len = NULL;
	c->head = c->tail = c->pending = 0;
	c->werr = 0;
	c->done = false;
	for (int i = 0; c->tcpu && i < c->ncpus; i++)
		tracefs_cpu_close(c->tcpu[i]);	/* its fd too */
	for (int i = 0; i < 2; i++) {
		if (c->pipe[i] >= 0)
			close(c->pipe[i]);
		c->pipe[i] = -1;
	}
	dat_out_release(&c->out);
	free(c->fds);
	free(c->tcpu);
	free(c->nosplice);
	free(c->raw);
	free(c->end);
	free(c->clock);
	c->fds = NULL;
	c->tcpu = NULL;
	c->nosplice = NULL;
	c->raw = NULL;
	c->end = NULL;
	c->clock = NULL;
	c->reading = false;
	c->stats_read = false;
}
