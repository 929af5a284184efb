/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * capture-read.c - reading a capture: every CPU's per_cpu/cpuN/trace_pipe_raw
 * in one poll loop, woken when a CPU's buffer is buffer_percent full.
 * While tracing runs only whole pages are taken, moved by splice through a
 * pipe (read() would hand over the page the kernel is still writing, a few
 * events at a time); at the end read() takes the partly written ones too.
 * Pages are staged as the kernel wrote them (dstream_put_page()), one
 * stream per CPU of struct dat_out, compressed as chunks fill.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"

#define STAGE_MEM	(4u << 20)	/* compressed chunks kept in memory, all CPUs */
#define SPLICE_PAGES	16		/* pages moved per splice (a default pipe's size) */
#define MAX_PAGE	(1u << 20)

static unsigned subbuf_size(struct tdat_capture *c)
{
	char *t;
	long kb = 0;

	if (cap_exists(c, "buffer_subbuf_size_kb") && !cap_read(c, "buffer_subbuf_size_kb", &t, NULL)) {
		kb = strtol(t, NULL, 10);
		free(t);
	}
	if (kb > 0 && (unsigned long)kb * 1024 <= MAX_PAGE)
		return (unsigned)kb * 1024;
	return (unsigned)sysconf(_SC_PAGESIZE);
}

/* The selected clock of trace_clock ("[local] global ..."). */
static int selected_clock(struct tdat_capture *c)
{
	char *t, *p, *e;
	int ret = cap_read(c, "trace_clock", &t, NULL);

	if (ret)
		return ret;
	p = strchr(t, '[');
	e = p ? strchr(p, ']') : NULL;
	c->clock = p && e ? strndup(p + 1, (size_t)(e - p - 1)) : strdup("local");
	free(t);
	return c->clock ? 0 : TDAT_ENOMEM;
}

/* The kernel's long (the size of a page's commit field), which a 32-bit recorder's is not. */
static int kernel_long(struct tdat_capture *c)
{
	char *t, *p;
	int n = (int)sizeof(long);

	if (cap_read(c, "events/header_page", &t, NULL))
		return n;
	if ((p = strstr(t, "commit;")) && (p = strstr(p, "size:")) && (atoi(p + 5) == 4 || atoi(p + 5) == 8))
		n = atoi(p + 5);
	free(t);
	return n;
}

int tdat_capture_read_begin(struct tdat_capture *c, unsigned wflags)
{
	char rel[64], path[4096];
	int *ids, ret;

	if (c->reading || !c->opened)
		return TDAT_EINVAL;
	if ((ret = dat_out_init(&c->out, wflags, STAGE_MEM, c->errmsg)))
		return ret;
	c->reading = true;
	c->page_size = subbuf_size(c);
	c->fds = malloc(sizeof(*c->fds) * (size_t)c->ncpus);
	c->raw = calloc((size_t)c->ncpus, sizeof(*c->raw));
	c->end = calloc((size_t)c->ncpus, sizeof(*c->end));
	c->page = malloc((size_t)c->page_size * SPLICE_PAGES);
	if (pipe2(c->pipe, O_CLOEXEC | O_NONBLOCK))
		c->pipe[0] = c->pipe[1] = -1;	/* no splice: read() only */
	else
		fcntl(c->pipe[1], F_SETPIPE_SZ, (int)(c->page_size * SPLICE_PAGES));
	ids = malloc(sizeof(*ids) * (size_t)c->ncpus);
	if (!c->fds || !c->raw || !c->end || !c->page || !ids) {
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
	if (!(ret = selected_clock(c))) {
		c->out.clock = c->clock;
		ret = dat_out_add_buffer(&c->out, "", c->clock, c->page_size, ids, c->ncpus,
					 kernel_long(c));
	}
	free(ids);
	for (int i = 0; i < c->ncpus && !ret; i++) {
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", i);
		if (!cap_path(c, rel, path, sizeof(path)))
			return TDAT_EINVAL;
		c->fds[i] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->fds[i] < 0 && errno != ENOENT) {
			tdat_msg(c->errmsg, "%s: %s", path, strerror(errno));
			return TDAT_EIO;
		}
	}
	return ret;
}

static int put_pages(struct tdat_capture *c, int i, size_t n)
{
	int ret = 0;

	c->raw[i] += n;
	for (size_t off = 0; off < n && !ret; off += c->page_size)
		ret = dstream_put_page(&c->out.st, &c->out.streams[i], c->page + off,
				       n - off < c->page_size ? n - off : c->page_size);
	return ret;
}

/*
 * Read the pages CPU @i has now.  While tracing runs, only whole pages
 * (splice gives nothing else): read() would hand over the page the kernel
 * is still writing, again and again, a few events at a time.  @all: also
 * the last, partly written page (at the end).
 */
static int read_cpu(struct tdat_capture *c, int i, bool all)
{
	size_t chunk = (size_t)c->page_size * SPLICE_PAGES;

	while (!all && c->pipe[0] >= 0) {
		ssize_t n = splice(c->fds[i], NULL, c->pipe[1], NULL, chunk, SPLICE_F_NONBLOCK), got = 0;
		int ret;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 || errno == EAGAIN)
				return 0;
			break;		/* no splice here: read() */
		}
		while (got < n) {
			ssize_t r = read(c->pipe[0], c->page + got, (size_t)(n - got));

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				tdat_msg(c->errmsg, "cpu %d: reading the splice pipe: %s", i,
					 r < 0 ? strerror(errno) : "end of file");
				return TDAT_EIO;
			}
			got += r;
		}
		if ((ret = put_pages(c, i, (size_t)n)))
			return ret;
	}
	for (;;) {
		ssize_t n = read(c->fds[i], c->page, c->page_size);
		int ret;

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
		if ((ret = put_pages(c, i, (size_t)n)))
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
		if (c->fds[i] >= 0)
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
	if ((ret = cap_read(c, rel, &text, NULL)))
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
	for (int i = 0; c->fds && i < c->ncpus; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	for (int i = 0; i < 2; i++) {
		if (c->pipe[i] >= 0)
			close(c->pipe[i]);
		c->pipe[i] = -1;
	}
	dat_out_release(&c->out);
	free(c->fds);
	free(c->raw);
	free(c->end);
	free(c->page);
	free(c->clock);
	c->fds = NULL;
	c->raw = NULL;
	c->end = NULL;
	c->page = NULL;
	c->clock = NULL;
	c->reading = false;
	c->stats_read = false;
}
