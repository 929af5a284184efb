/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * capture-read.c - reading a capture: every CPU's per_cpu/cpuN/trace_pipe_raw
 * through libtracefs's tracefs_cpu, in one poll loop woken when a CPU's
 * buffer is buffer_percent full.  While tracing runs only whole pages are
 * taken, spliced through a pipe (tracefs_cpu_buffered_read(); read() would
 * hand over the page the kernel is still writing, a few events at a time);
 * at the end tracefs_cpu_flush() takes the partly written ones too.  Pages
 * are staged as the kernel wrote them (dstream_put_page()), one stream per
 * CPU of struct dat_out, compressed as chunks fill.
 *
 * libtracefs 1.6 sizes a CPU's pages from events/header_page, which does
 * not follow buffer_subbuf_size_kb (Linux 6.8): the files are opened here
 * and handed over with the instance's sub-buffer size (tracefs_cpu_alloc_fd()).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>

#include "capture.h"

#define STAGE_MEM	(4u << 20)	/* compressed chunks kept in memory, all CPUs */
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

int tdat_capture_read_begin(struct tdat_capture *c, unsigned wflags)
{
	int *ids, ret;

	if (c->reading || !c->opened)
		return TDAT_EINVAL;
	if ((ret = dat_out_init(&c->out, wflags, STAGE_MEM, c->errmsg)))
		return ret;
	c->reading = true;
	c->page_size = subbuf_size(c);
	c->fds = malloc(sizeof(*c->fds) * (size_t)c->ncpus);
	c->tcpu = calloc((size_t)c->ncpus, sizeof(*c->tcpu));
	c->nosplice = calloc((size_t)c->ncpus, sizeof(*c->nosplice));
	c->raw = calloc((size_t)c->ncpus, sizeof(*c->raw));
	c->end = calloc((size_t)c->ncpus, sizeof(*c->end));
	c->page = malloc(c->page_size);
	ids = malloc(sizeof(*ids) * (size_t)c->ncpus);
	if (!c->fds || !c->tcpu || !c->nosplice || !c->raw || !c->end || !c->page || !ids) {
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
	return ret;
}

/*
 * Read the pages CPU @i has now.  While tracing runs, only whole pages
 * (splice gives nothing else; a kernel that cannot splice is read()).
 * @all: also the last, partly written page (at the end).
 */
static int read_cpu(struct tdat_capture *c, int i, bool all)
{
	struct tracefs_cpu *t = c->tcpu[i];

	for (;;) {
		int n = all ? tracefs_cpu_flush(t, c->page) : c->nosplice[i] ?
			tracefs_cpu_read(t, c->page, true) : tracefs_cpu_buffered_read(t, c->page, true);
		int ret;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0 && !all && !c->nosplice[i]) {
			c->nosplice[i] = true;
			continue;
		}
		if (n < 0) {
			tdat_msg(c->errmsg, "cpu %d: trace_pipe_raw: %s", i, strerror(errno));
			return TDAT_EIO;
		}
		if (n == 0)
			return 0;
		c->raw[i] += (uint64_t)n;
		if ((ret = dstream_put_page(&c->out.st, &c->out.streams[i], c->page, (size_t)n)))
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
	for (int i = 0; c->tcpu && i < c->ncpus; i++)
		tracefs_cpu_close(c->tcpu[i]);	/* its fd too */
	dat_out_release(&c->out);
	free(c->fds);
	free(c->tcpu);
	free(c->nosplice);
	free(c->raw);
	free(c->end);
	free(c->page);
	free(c->clock);
	c->fds = NULL;
	c->tcpu = NULL;
	c->nosplice = NULL;
	c->raw = NULL;
	c->end = NULL;
	c->page = NULL;
	c->clock = NULL;
	c->reading = false;
	c->stats_read = false;
}
