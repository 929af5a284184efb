/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * capture-out.c - the trace.dat a capture becomes: the metadata read from
 * tracefs at the end (struct tdat_meta, as a reader keeps it from a file)
 * around the pages capture.c staged, written by dat-write.c.
 *
 * The metadata: header_page and header_event, every ftrace format and the
 * format of every event enabled in the instance, /proc/kallsyms,
 * printk_formats, saved_cmdlines; options TRACECLOCK (the instance's
 * trace_clock text), UNAME, VERSION, one CPUSTAT per CPU (its stats file,
 * read after tracing stopped: overruns and dropped events) and, when the
 * kernel kept them (options/record-tgid), the thread groups of
 * saved_tgids with more than one thread as PROCMAPS options (see
 * tgid_options()).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <tracefs.h>

#include "read/read.h"
#include "write/sink.h"
#include "capture.h"

/* A tracefs file of the instance (or, with @root, of the top directory) as a blob. */
static int blob_of(struct tdat_capture *c, const char *rel, bool root, struct tdat_blob *b)
{
	size_t len;
	int ret = cap_read(c, rel, root, &b->data, &len);

	b->len = ret ? 0 : len;
	return ret;
}

static int push_format(struct tdat_capture *c, const char *sys, const char *ev,
		       struct tdat_blob **arr, int *n)
{
	int len = 0, ret;
	char *f = tracefs_event_file_read(c->inst, sys, ev, "format", &len);

	if (!f) {
		tdat_msg(c->errmsg, "%s/events/%s/%s/format: %s", c->dir, sys, ev,
			 strerror(errno ? errno : EIO));
		return TDAT_EIO;
	}
	if ((ret = meta_push(arr, n, f, (size_t)len)))
		free(f);
	return ret;
}

static int ftrace_formats(struct tdat_capture *c, struct tdat_meta *m)
{
	char **l = tracefs_system_events(NULL, "ftrace");
	int ret = 0;

	if (!l) {
		tdat_msg(c->errmsg, "%s/events/ftrace: cannot list the ftrace formats", c->dir);
		return TDAT_EIO;
	}
	for (int i = 0; l[i] && !ret; i++)
		ret = push_format(c, "ftrace", l[i], &m->ftrace, &m->nftrace);
	tracefs_list_free(l);
	return ret;
}

/* The formats of the events enabled in the instance (set_event), by system. */
static int event_formats(struct tdat_capture *c, struct tdat_meta *m)
{
	int n, ret = 0;
	const char *const *l = tdat_capture_list(c, TDAT_CAP_ENABLED, NULL, &n);

	if (!l)
		return TDAT_EIO;
	for (int i = 0; i < n && !ret; i++) {
		const char *colon = strchr(l[i], ':');
		struct tdat_msys *s = NULL;
		char sys[256];

		if (!colon || (size_t)(colon - l[i]) >= sizeof(sys))
			continue;
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - l[i]), l[i]);
		if (!strcmp(sys, "ftrace"))
			continue;
		for (int k = 0; k < m->nsystems && !s; k++)
			if (!strcmp(m->systems[k].name, sys))
				s = &m->systems[k];
		if (!s) {
			s = realloc(m->systems, sizeof(*s) * (size_t)(m->nsystems + 1));
			if (!s)
				return TDAT_ENOMEM;
			m->systems = s;
			s += m->nsystems++;
			memset(s, 0, sizeof(*s));
			if (!(s->name = strdup(sys)))
				return TDAT_ENOMEM;
		}
		ret = push_format(c, sys, colon + 1, &s->fmts, &s->nfmts);
	}
	return ret;
}

static int add_option(struct tdat_meta *m, unsigned id, const char *text)
{
	return meta_keep_option(m, id, text, strlen(text) + 1);
}

static int cpustat_options(struct tdat_capture *c, struct tdat_meta *m)
{
	char rel[64], *text, *opt;
	int ret;

	for (int i = 0; i < c->ncpus; i++) {
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", i);
		if ((ret = cap_read(c, rel, false, &text, NULL)))
			return ret;
		ret = asprintf(&opt, "CPU: %d\n%s", i, text) < 0 ? TDAT_ENOMEM : 0;
		free(text);
		if (ret)
			return ret;
		ret = add_option(m, OPT_CPUSTAT, opt);
		free(opt);
		if (ret)
			return ret;
	}
	return 0;
}

/* The comm of @pid in saved_cmdlines, or "<...>"; no white space (a PROCMAPS name). */
static void comm_of(const char *cmdlines, int pid, char *out, size_t size)
{
	char key[24];
	const char *p = cmdlines;
	size_t k = (size_t)snprintf(key, sizeof(key), "%d ", pid), n;

	snprintf(out, size, "<...>");
	while (p && *p) {
		if (!strncmp(p, key, k)) {
			p += k;
			n = strcspn(p, "\n");
			snprintf(out, size, "%.*s", (int)n, p);
			break;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	for (char *q = out; *q; q++)
		if (isspace((unsigned char)*q))
			*q = '_';
}

static int cmp_pair(const void *a, const void *b)
{
	const int *x = a, *y = b;

	return x[1] != y[1] ? (x[1] > y[1]) - (x[1] < y[1]) : (x[0] > y[0]) - (x[0] < y[0]);
}

/*
 * saved_tgids ("PID TGID" lines) as one PROCMAPS option per thread group
 * of more than its leader (the kernel keeps thousands of one-thread ones).
 * trace-cmd (3.1.6 to 3.4) has no option for tgids and warns about unknown
 * ones, but it reads PROCMAPS ("TGID NMAPS COMM" in hex, then NMAPS lines
 * "START END NAME") silently and uses it only to name user stack addresses.
 * Each thread is a map "0 0 tid:TID": an empty range at address 0, which
 * no user stack holds.  libfmt's process model reads these back.
 */
static int tgid_options(struct tdat_capture *c, struct tdat_meta *m)
{
	char *text, *line, *save = NULL, comm[64];
	int *pairs = NULL, n = 0, cap = 0, ret = 0;
	size_t len;
	struct tdat_blob b;
	FILE *f;
	char *opt;

	if (blob_of(c, "saved_tgids", true, &b))
		return 0;	/* no saved_tgids: nothing to add */
	text = b.data;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int pid, tgid;

		if (sscanf(line, "%d %d", &pid, &tgid) != 2 || pid <= 0 || tgid <= 0)
			continue;
		if (n == cap) {
			int *p = realloc(pairs, sizeof(*p) * 2 * (size_t)(cap = cap ? cap * 2 : 256));

			if (!p) {
				ret = TDAT_ENOMEM;
				goto out;
			}
			pairs = p;
		}
		pairs[2 * n] = pid;
		pairs[2 * n + 1] = tgid;
		n++;
	}
	qsort(pairs, (size_t)n, sizeof(int) * 2, cmp_pair);
	for (int i = 0, j; i < n && !ret; i = j) {
		int tgid = pairs[2 * i + 1];

		for (j = i; j < n && pairs[2 * j + 1] == tgid; j++)
			;
		/* a process of one thread, its leader, says nothing a reader lacks */
		if (j - i == 1 && pairs[2 * i] == tgid)
			continue;
		comm_of(m->cmdlines.data, tgid, comm, sizeof(comm));
		if (!(f = open_memstream(&opt, &len))) {
			ret = TDAT_ENOMEM;
			break;
		}
		fprintf(f, "%x %x %s\n", tgid, j - i, comm);
		for (int k = i; k < j; k++)
			fprintf(f, "0 0 tid:%d\n", pairs[2 * k]);
		ret = fclose(f) ? TDAT_ENOMEM : add_option(m, OPT_PROCMAPS, opt);
		free(opt);
	}
out:
	free(pairs);
	free(text);
	return ret;
}

/* /proc/kallsyms, not a tracefs file; not readable: the section is left out. */
static void read_kallsyms(struct tdat_blob *b)
{
	FILE *in = fopen("/proc/kallsyms", "re"), *out;
	char chunk[65536], *data = NULL;
	size_t n, len = 0;

	if (!in || !(out = open_memstream(&data, &len))) {
		if (in)
			fclose(in);
		return;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		fwrite(chunk, 1, n, out);
	if (fclose(out) || ferror(in) || !len)
		free(data);
	else
		*b = (struct tdat_blob){ .data = data, .len = len };
	fclose(in);
}

static int build_meta(struct tdat_capture *c, struct tdat_meta *m)
{
	struct utsname u;
	char *clock, *uname_s;
	int ret;

	memset(m, 0, sizeof(*m));
	m->user_long = sizeof(long);
	if ((ret = blob_of(c, "events/header_page", false, &m->header_page)) ||
	    (ret = blob_of(c, "events/header_event", false, &m->header_event)) ||
	    (ret = ftrace_formats(c, m)) || (ret = event_formats(c, m)) ||
	    (ret = blob_of(c, "printk_formats", true, &m->printk)) ||
	    (ret = blob_of(c, "saved_cmdlines", true, &m->cmdlines)))
		return ret;
	read_kallsyms(&m->kallsyms);
	if ((ret = cap_read(c, "trace_clock", false, &clock, NULL)))
		return ret;
	ret = add_option(m, OPT_TRACECLOCK, clock);
	free(clock);
	if (ret)
		return ret;
	if (!uname(&u)) {
		if (asprintf(&uname_s, "%s %s %s %s", u.sysname, u.nodename, u.release, u.machine) < 0)
			return TDAT_ENOMEM;
		ret = add_option(m, OPT_UNAME, uname_s);
		free(uname_s);
		if (ret)
			return ret;
	}
	if ((ret = add_option(m, OPT_VERSION, PACKAGE_STRING)) || (ret = cpustat_options(c, m)))
		return ret;
	return tgid_options(c, m);
}

int tdat_capture_write(struct tdat_capture *c, int fd)
{
	struct tdat_meta m;
	struct tdat_sink sink;
	int ret;

	if (!c->reading)
		return TDAT_EINVAL;
	if ((ret = cap_finish_reading(c)))
		return ret;
	/* the counters as they are now that reading is over (the summary shows them) */
	for (int i = 0; i < c->ncpus; i++)
		if ((ret = cap_cpu_stats(c, i, &c->end[i])))
			return ret;
	c->stats_read = true;
	if ((ret = build_meta(c, &m)) || (ret = sink_init(&sink, fd))) {
		meta_release(&m);
		return ret;
	}
	c->out.meta = &m;
	ret = dat_out_write(&c->out, &sink);
	if (!ret)
		ret = sink_finish(&sink);
	else
		sink_flush(&sink);
	if (sink.err) {
		tdat_msg(c->errmsg, "cannot write the trace.dat: %s", strerror(sink.err));
		ret = TDAT_EIO;
	}
	c->out.meta = NULL;
	sink_release(&sink);
	meta_release(&m);
	return ret;
}
