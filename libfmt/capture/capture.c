/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * capture.c - the tracefs side of tdat-capture, at the head of the
 * pipelines: finds (or mounts) tracefs, attaches to an instance (creating
 * or removing it as asked), enables events and kernel filters, starts and
 * stops tracing, lists what the kernel offers.  capture-set.c changes the
 * instance's settings (buffer, clock, CPUs, options, the pids followed),
 * capture-read.c reads every CPU's per_cpu/cpuN/trace_pipe_raw and
 * capture-out.c writes the trace.dat at the end.
 *
 * An instance is ours: its settings stay (start) or go with it (record).
 * In the top buffer (--top) every file changed through the handle is read
 * first (struct cap_saved) and put back at close, so that other users of
 * tracefs find it as it was.  Nothing here prints or exits.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

/* ---- files ---- */

bool cap_path(const struct tdat_capture *c, const char *rel, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/%s", c->dir, rel);

	return n > 0 && (size_t)n < size;
}

int cap_read_path(struct tdat_capture *c, const char *path, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1), *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	*out = NULL;
	if (!buf || fd < 0) {
		if (fd < 0)
			tdat_msg(c->errmsg, "%s: %s", path, strerror(errno));
		free(buf);
		if (fd >= 0)
			close(fd);
		return buf ? TDAT_EIO : TDAT_ENOMEM;
	}
	while ((r = read(fd, buf + n, cap - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			tdat_msg(c->errmsg, "%s: %s", path, strerror(errno));
			close(fd);
			free(buf);
			return TDAT_EIO;
		}
		n += (size_t)r;
		if (n == cap) {
			p = realloc(buf, cap * 2 + 1);
			if (!p) {
				close(fd);
				free(buf);
				return TDAT_ENOMEM;
			}
			buf = p;
			cap *= 2;
		}
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

int cap_read(struct tdat_capture *c, const char *rel, char **out, size_t *len)
{
	char path[4096];

	if (!cap_path(c, rel, path, sizeof(path))) {
		tdat_msg(c->errmsg, "%s: path too long", rel);
		return TDAT_EINVAL;
	}
	return cap_read_path(c, path, out, len);
}

/* A file that only the top directory has (available_events). */
static int read_root(struct tdat_capture *c, const char *rel, char **out)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", c->root, rel);
	return cap_read_path(c, path, out, NULL);
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/* Write @val to @rel, opened with @oflag (O_TRUNC: replace; O_APPEND: add to a list). */
static int write_rel(struct tdat_capture *c, const char *rel, const char *val, int oflag)
{
	char path[4096];
	size_t n = strlen(val);
	int fd, err = 0;

	if (!cap_path(c, rel, path, sizeof(path))) {
		tdat_msg(c->errmsg, "%s: path too long", rel);
		return TDAT_EINVAL;
	}
	fd = open(path, O_WRONLY | oflag | O_CLOEXEC);
	if (fd < 0 || write(fd, val, n) != (ssize_t)n)
		err = errno;
	if (fd >= 0 && close(fd) && !err)
		err = errno;
	if (!err)
		return 0;
	tdat_msg(c->errmsg, "%s: cannot write '%s': %s", path, val, strerror(err));
	return err == EINVAL ? TDAT_EINVAL : TDAT_EIO;
}

int cap_write_file(struct tdat_capture *c, const char *rel, const char *val)
{
	return write_rel(c, rel, val, O_TRUNC);
}

int cap_append_file(struct tdat_capture *c, const char *rel, const char *val)
{
	return write_rel(c, rel, val, O_APPEND);
}

char *cap_restore_value(const char *rel, char *text)
{
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	char *p, *e;

	chomp(text);
	if (!strcmp(base, "trace_clock") && (p = strchr(text, '[')) && (e = strchr(p, ']'))) {
		*e = '\0';
		memmove(text, p + 1, strlen(p + 1) + 1);
	} else if (!strcmp(base, "filter") && !strcmp(text, "none")) {
		strcpy(text, "0");
	} else if (!strcmp(base, "buffer_size_kb") && (p = strstr(text, "(expanded: "))) {
		/*
		 * Not traced since boot ("7 (expanded: 1408)"): the kernel grows
		 * the buffer on first use and never shrinks it back, so the size
		 * it grows to is what can be put back.
		 */
		size_t n;

		p += strlen("(expanded: ");
		n = strcspn(p, ")");
		memmove(text, p, n);
		text[n] = '\0';
	}
	return text;
}

/* Change a setting, keeping its first value to put back at close. */
int cap_set_file(struct tdat_capture *c, const char *rel, const char *val)
{
	struct cap_saved *s;
	char *old;
	int ret;
	bool known = false;

	for (int i = 0; i < c->nsaved && !known; i++)
		known = !strcmp(c->saved[i].rel, rel);
	/* an instance is ours (settings stay, or go with it); the top buffer is not */
	if (!known && !c->name) {
		if ((ret = cap_read(c, rel, &old, NULL)))
			return ret;
		if (!strcmp(old, "X\n")) {
			/* buffer_size_kb when the CPUs' sizes differ: no one value puts it back */
			tdat_msg(c->errmsg, "%s reads 'X' (a value per CPU): not changed, as it could not be put back",
				 rel);
			free(old);
			return TDAT_EINVAL;
		}
		s = realloc(c->saved, sizeof(*s) * (size_t)(c->nsaved + 1));
		if (!s) {
			free(old);
			return TDAT_ENOMEM;
		}
		c->saved = s;
		s += c->nsaved++;
		s->value = cap_restore_value(rel, old);
		if (!(s->rel = strdup(rel)))
			return TDAT_ENOMEM;
	}
	return cap_write_file(c, rel, val);
}

bool cap_exists(const struct tdat_capture *c, const char *rel)
{
	char path[4096];

	return cap_path(c, rel, path, sizeof(path)) && !access(path, F_OK);
}

/* ---- attaching ---- */

struct tdat_capture *tdat_capture_new(void)
{
	struct tdat_capture *c = calloc(1, sizeof(*c));

	if (c)
		c->pipe[0] = c->pipe[1] = -1;
	return c;
}

static int find_tracefs(struct tdat_capture *c, unsigned flags)
{
	char path[256];
	int err = ENOENT;

	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/instances", tracefs_dirs[i]);
		if (!access(path, F_OK)) {
			c->root = strdup(tracefs_dirs[i]);
			return c->root ? 0 : TDAT_ENOMEM;
		}
		if (errno == EACCES)
			err = EACCES;
	}
	if (err == ENOENT && (flags & TDAT_CAP_MOUNT)) {
		if (!mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL)) {
			c->root = strdup(tracefs_dirs[0]);
			return c->root ? 0 : TDAT_ENOMEM;
		}
		err = errno;
		tdat_msg(c->errmsg, "tracefs is not mounted and mounting it on %s failed: %s",
			 tracefs_dirs[0], strerror(err));
		return TDAT_EIO;
	}
	if (err == EACCES)
		tdat_msg(c->errmsg, "%s: permission denied (tracing needs root)", tracefs_dirs[0]);
	else
		tdat_msg(c->errmsg, "tracefs is not available (no %s/instances)", tracefs_dirs[0]);
	return TDAT_EIO;
}

static int count_cpus(struct tdat_capture *c)
{
	char path[4096];
	struct dirent *e;
	DIR *d;
	int n = 0, cpu;

	if (!cap_path(c, "per_cpu", path, sizeof(path)) || !(d = opendir(path))) {
		tdat_msg(c->errmsg, "%s/per_cpu: %s", c->dir, strerror(errno));
		return TDAT_EIO;
	}
	while ((e = readdir(d)))
		if (sscanf(e->d_name, "cpu%d", &cpu) == 1 && cpu >= 0 && cpu < MAX_CPUS && cpu >= n)
			n = cpu + 1;
	closedir(d);
	c->ncpus = n;
	if (!n) {
		tdat_msg(c->errmsg, "%s/per_cpu: no CPUs", c->dir);
		return TDAT_EIO;
	}
	return 0;
}

int tdat_capture_open(struct tdat_capture *c, const char *instance, unsigned flags)
{
	int ret;

	c->flags = flags;
	if (instance && (!*instance || strchr(instance, '/') || !strcmp(instance, ".") ||
			 !strcmp(instance, ".."))) {
		tdat_msg(c->errmsg, "'%s' is not a valid instance name", instance);
		return TDAT_EINVAL;
	}
	if (!instance)
		c->flags &= ~(unsigned)(TDAT_CAP_REMOVE | TDAT_CAP_CREATE);
	if ((ret = find_tracefs(c, flags)))
		return ret;
	if (!instance) {
		c->dir = strdup(c->root);
	} else if ((c->name = strdup(instance)) && asprintf(&c->dir, "%s/instances/%s", c->root, instance) < 0) {
		c->dir = NULL;
	}
	if (!c->dir)
		return TDAT_ENOMEM;
	if (instance && access(c->dir, F_OK)) {
		if (!(flags & TDAT_CAP_CREATE)) {
			tdat_msg(c->errmsg, "no instance '%s' (%s)", instance, c->dir);
			c->flags &= ~(unsigned)TDAT_CAP_REMOVE;
			return TDAT_EIO;
		}
		if (mkdir(c->dir, 0755)) {
			tdat_msg(c->errmsg, "%s: %s", c->dir, strerror(errno));
			return TDAT_EIO;
		}
		c->created = true;
		/* a new instance traces at once; nothing before start */
		if ((ret = cap_write_file(c, "tracing_on", "0")))
			return ret;
	} else if (instance && (flags & TDAT_CAP_EXCL)) {
		tdat_msg(c->errmsg, "instance '%s' exists already", instance);
		c->flags &= ~(unsigned)TDAT_CAP_REMOVE;
		return TDAT_EIO;
	}
	c->opened = true;
	return count_cpus(c);
}

const char *tdat_capture_dir(const struct tdat_capture *c)
{
	return c->dir ? c->dir : "";
}

int tdat_capture_ncpus(const struct tdat_capture *c)
{
	return c->ncpus;
}

const char *tdat_capture_errmsg(const struct tdat_capture *c)
{
	return c->errmsg;
}

/* ---- events ---- */

/* Does "system:event" @name match @spec ("SYS", "SYS:EVENT", "EVENT", globs)? */
static bool event_matches(const char *spec, const char *name)
{
	const char *colon = strchr(name, ':'), *sc = strchr(spec, ':');
	char sys[256];

	if (!colon || (size_t)(colon - name) >= sizeof(sys))
		return false;
	memcpy(sys, name, (size_t)(colon - name));
	sys[colon - name] = '\0';
	if (sc) {
		char ssys[256];

		if ((size_t)(sc - spec) >= sizeof(ssys))
			return false;
		memcpy(ssys, spec, (size_t)(sc - spec));
		ssys[sc - spec] = '\0';
		return !fnmatch(ssys, sys, 0) && !fnmatch(sc + 1, colon + 1, 0);
	}
	return !fnmatch(spec, sys, 0) || !fnmatch(spec, colon + 1, 0);
}

/* For each available event matching @spec: @fn(c, "SYS/EVENT", arg). */
static int for_events(struct tdat_capture *c, const char *spec,
		      int (*fn)(struct tdat_capture *c, const char *sysev, const char *arg),
		      const char *arg)
{
	char *text, *line, *save = NULL, rel[600];
	int ret, n = 0;

	if ((ret = read_root(c, "available_events", &text)))
		return ret;
	for (line = strtok_r(text, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!colon || !event_matches(spec, line))
			continue;
		*colon = '/';
		snprintf(rel, sizeof(rel), "events/%s", line);
		ret = fn(c, rel, arg);
		n++;
	}
	free(text);
	if (!ret && !n) {
		tdat_msg(c->errmsg, "no event matches '%s' (see tdat-capture list)", spec);
		ret = TDAT_EINVAL;
	}
	return ret;
}

static int enable_one(struct tdat_capture *c, const char *ev, const char *arg)
{
	char rel[700];

	snprintf(rel, sizeof(rel), "%s/enable", ev);
	return cap_set_file(c, rel, arg);
}

int tdat_capture_enable(struct tdat_capture *c, const char *spec)
{
	return for_events(c, spec, enable_one, "1");
}

static int filter_one(struct tdat_capture *c, const char *ev, const char *expr)
{
	char rel[700];
	int ret;

	snprintf(rel, sizeof(rel), "%s/filter", ev);
	ret = cap_set_file(c, rel, expr);
	if (ret == TDAT_EINVAL)
		tdat_msg(c->errmsg, "the kernel refuses the filter '%s' on %s", expr, ev + 7);
	return ret;
}

/* Filter identifiers: a glob of an event name or system. */
static bool is_glob_word(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_*?[]-", s[i]))
			return false;
	return n > 0;
}

int tdat_capture_filter(struct tdat_capture *c, const char *spec)
{
	const char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL, *expr;
	char events[512];
	size_t n;

	if (!c1 || !is_glob_word(spec, (size_t)(c1 - spec))) {
		tdat_msg(c->errmsg, "'%s': a filter is EVENTS:EXPR", spec);
		return TDAT_EINVAL;
	}
	/* "SYS:EVENT:EXPR" when the middle is a name, else "EVENT:EXPR" */
	expr = c2 && is_glob_word(c1 + 1, (size_t)(c2 - c1 - 1)) ? c2 + 1 : c1 + 1;
	n = (size_t)(expr - 1 - spec);
	while (*expr == ' ')
		expr++;
	if (n >= sizeof(events) || !*expr) {
		tdat_msg(c->errmsg, "'%s': a filter is EVENTS:EXPR", spec);
		return TDAT_EINVAL;
	}
	memcpy(events, spec, n);
	events[n] = '\0';
	return tdat_capture_event_filter(c, events, expr);
}

int tdat_capture_event_filter(struct tdat_capture *c, const char *spec, const char *expr)
{
	if (!*expr) {
		tdat_msg(c->errmsg, "an empty filter for '%s'", spec);
		return TDAT_EINVAL;
	}
	return for_events(c, spec, filter_one, expr);
}

/* ---- control ---- */

static int disable_one(struct tdat_capture *c, const char *ev, const char *arg)
{
	char rel[700];
	char *v;
	int ret;

	(void)arg;
	snprintf(rel, sizeof(rel), "%s/filter", ev);
	if (!cap_read(c, rel, &v, NULL)) {
		chomp(v);
		ret = strcmp(v, "none") ? cap_write_file(c, rel, "0") : 0;
		free(v);
		if (ret)
			return ret;
	}
	return 0;
}

int tdat_capture_reset(struct tdat_capture *c)
{
	int ret;

	if (!c->name) {
		tdat_msg(c->errmsg, "the top buffer is not reset: it is not ours");
		return TDAT_EINVAL;
	}
	if ((ret = cap_write_file(c, "tracing_on", "0")) ||
	    (ret = cap_write_file(c, "events/enable", "0")))
		return ret;
	ret = for_events(c, "*", disable_one, NULL);
	/* no pids followed (start -P of an earlier call) */
	if (!ret && cap_exists(c, "set_event_pid"))
		ret = cap_write_file(c, "set_event_pid", "");
	if (!ret && cap_exists(c, "options/event-fork"))
		ret = cap_write_file(c, "options/event-fork", "0");
	return ret ? ret : cap_write_file(c, "trace", "");
}

int tdat_capture_start(struct tdat_capture *c)
{
	int ret = cap_write_file(c, "trace", "");

	return ret ? ret : cap_set_file(c, "tracing_on", "1");
}

int tdat_capture_stop(struct tdat_capture *c)
{
	return cap_set_file(c, "tracing_on", "0");
}

/* ---- lists ---- */

static void free_list(struct tdat_capture *c)
{
	for (int i = 0; c->list && c->list[i]; i++)
		free(c->list[i]);
	free(c->list);
	c->list = NULL;
}

static int list_add(char ***l, int *n, const char *s, size_t len)
{
	char **p = realloc(*l, sizeof(**l) * (size_t)(*n + 2));

	if (!p)
		return TDAT_ENOMEM;
	*l = p;
	if (!(p[*n] = strndup(s, len)))
		return TDAT_ENOMEM;
	p[++*n] = NULL;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_dir(struct tdat_capture *c, const char *rel, bool options, char ***l, int *n)
{
	char path[4096], opt[300];
	struct dirent *e;
	DIR *d;
	int ret = 0;

	if (!cap_path(c, rel, path, sizeof(path)) || !(d = opendir(path))) {
		tdat_msg(c->errmsg, "%s/%s: %s", c->dir, rel, strerror(errno));
		return TDAT_EIO;
	}
	while (!ret && (e = readdir(d))) {
		char *v = NULL;

		if (e->d_name[0] == '.')
			continue;
		snprintf(opt, sizeof(opt), "%s%s", options ? "no" : "", e->d_name);
		if (options) {
			snprintf(path, sizeof(path), "%s/%s", rel, e->d_name);
			if (!cap_read(c, path, &v, NULL) && v[0] == '1')
				memmove(opt, opt + 2, strlen(opt + 2) + 1);
			free(v);
		}
		ret = list_add(l, n, opt, strlen(opt));
	}
	closedir(d);
	return ret;
}

const char *const *tdat_capture_list(struct tdat_capture *c, int what, const char *glob, int *n)
{
	static const char *const files[] = { "available_events", "set_event", "trace_clock" };
	char *text = NULL, *line, *save = NULL, **l = NULL;
	int ret = 0, k = 0;

	free_list(c);
	*n = 0;
	if (what == TDAT_CAP_OPTIONS) {
		ret = list_dir(c, "options", true, &l, &k);
	} else if (what == TDAT_CAP_INSTANCES) {
		char *dir = c->dir;

		c->dir = c->root;
		ret = list_dir(c, "instances", false, &l, &k);
		c->dir = dir;
	} else if (what >= 0 && what <= TDAT_CAP_CLOCKS) {
		ret = what == TDAT_CAP_EVENTS ? read_root(c, files[what], &text) :
		      cap_read(c, files[what], &text, NULL);
		for (line = text ? strtok_r(text, what == TDAT_CAP_CLOCKS ? " \n" : "\n", &save) : NULL;
		     line && !ret; line = strtok_r(NULL, what == TDAT_CAP_CLOCKS ? " \n" : "\n", &save))
			ret = list_add(&l, &k, line, strlen(line));
		free(text);
	} else {
		ret = TDAT_EINVAL;
	}
	if (!ret && !l && !(l = calloc(1, sizeof(*l))))
		ret = TDAT_ENOMEM;
	if (ret) {
		for (int i = 0; i < k; i++)
			free(l[i]);
		free(l);
		return NULL;
	}
	for (int i = 0, j = 0; i <= k; i++) {
		const char *name = l[i] && l[i][0] == '[' ? l[i] + 1 : l[i];
		char tmp[300];

		if (name && glob && what == TDAT_CAP_CLOCKS) {
			snprintf(tmp, sizeof(tmp), "%.*s", (int)strcspn(name, "]"), name);
			name = tmp;
		}
		if (l[i] && glob && (what <= TDAT_CAP_ENABLED ? !event_matches(glob, l[i]) :
				     fnmatch(glob, name, 0))) {
			free(l[i]);
			continue;
		}
		l[j++] = l[i];
		if (!l[i])
			k = j - 1;
	}
	if (what != TDAT_CAP_CLOCKS && k)
		qsort(l, (size_t)k, sizeof(*l), cmp_str);
	c->list = l;
	*n = k;
	return (const char *const *)l;
}

const char *tdat_capture_file(struct tdat_capture *c, const char *rel)
{
	free(c->text);
	c->text = NULL;
	if (cap_read(c, rel, &c->text, NULL))
		return NULL;
	chomp(c->text);
	return c->text;
}

/* ---- the end ---- */

int tdat_capture_close(struct tdat_capture *c)
{
	int ret = 0, r;
	char msg[TDAT_MSG_LEN] = "";

	if (!c)
		return 0;
	cap_end_reading(c);
	if (c->opened && (c->flags & TDAT_CAP_REMOVE) && c->name) {
		/* events off first: rmdir fails while an event still uses the instance */
		cap_write_file(c, "tracing_on", "0");
		cap_write_file(c, "events/enable", "0");
		if (rmdir(c->dir) && errno != ENOENT) {
			tdat_msg(c->errmsg, "cannot remove instance %s: %s", c->dir, strerror(errno));
			ret = TDAT_EIO;
		}
	} else {
		/* put back in reverse order (a clock before the buffer it was cleared with) */
		for (int i = c->nsaved - 1; i >= 0; i--) {
			if ((r = cap_write_file(c, c->saved[i].rel, c->saved[i].value)) && !ret) {
				ret = r;
				memcpy(msg, c->errmsg, sizeof(msg));
			}
		}
		if (ret)
			memcpy(c->errmsg, msg, sizeof(msg));
	}
	for (int i = 0; i < c->nsaved; i++) {
		free(c->saved[i].rel);
		free(c->saved[i].value);
	}
	free(c->saved);
	c->saved = NULL;
	c->nsaved = 0;
	c->opened = false;
	return ret;
}

void tdat_capture_free(struct tdat_capture *c)
{
	if (!c)
		return;
	tdat_capture_close(c);
	free_list(c);
	free(c->text);
	free(c->root);
	free(c->name);
	free(c->dir);
	free(c);
}
