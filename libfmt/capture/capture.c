/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * capture.c - the tracefs side of tdat-capture, over libtracefs as
 * trace-cmd 3.x is: finds (or mounts) tracefs, attaches to an instance
 * (creating or removing it as asked), enables events and kernel filters,
 * starts and stops tracing, lists what the kernel offers.  capture-set.c
 * changes the instance's settings, capture-read.c reads every CPU's raw
 * pages and capture-out.c writes the trace.dat at the end.
 *
 * What libtracefs does not do stays here: -e's globs (trace-cmd's, where
 * tracefs_event_enable() takes regular expressions), and putting the top
 * buffer back.  An instance is ours: its settings stay (start) or go with
 * it (record).  In the top buffer (--top) every file changed through the
 * handle is read first (struct cap_saved) and put back at close, so that
 * other users of tracefs find it as it was.  Nothing here prints or exits.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>

#include "capture.h"

/* ---- files ---- */

int cap_read(struct tdat_capture *c, const char *rel, bool root, char **out, size_t *len)
{
	int size = 0;

	errno = 0;
	*out = tracefs_instance_file_read(root ? NULL : c->inst, rel, &size);
	/* libtracefs gives NULL for an empty file too: errno tells them apart */
	if (!*out && !errno)
		*out = strdup("");
	else if (!*out)
		tdat_msg(c->errmsg, "%s/%s: %s", root ? tracefs_tracing_dir() : c->dir, rel,
			 strerror(errno));
	if (*out && len)
		*len = *out ? (size_t)size : 0;
	return *out ? 0 : errno ? TDAT_EIO : TDAT_ENOMEM;
}

int cap_fail(struct tdat_capture *c, const char *rel, const char *val)
{
	int err = errno ? errno : EIO;

	tdat_msg(c->errmsg, "%s/%s: cannot write '%s': %s", c->dir, rel, val, strerror(err));
	return err == EINVAL ? TDAT_EINVAL : TDAT_EIO;
}

int cap_write_file(struct tdat_capture *c, const char *rel, const char *val)
{
	errno = 0;
	if (tracefs_instance_file_write(c->inst, rel, val) < (int)strlen(val) || (!*val && errno))
		return cap_fail(c, rel, val);
	return 0;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
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

int cap_save(struct tdat_capture *c, const char *rel)
{
	struct cap_saved *s;
	char *old;
	int ret;

	/* an instance is ours (settings stay, or go with it); the top buffer is not */
	if (c->name)
		return 0;
	for (int i = 0; i < c->nsaved; i++)
		if (!strcmp(c->saved[i].rel, rel))
			return 0;
	if ((ret = cap_read(c, rel, false, &old, NULL)))
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
	return (s->rel = strdup(rel)) ? 0 : TDAT_ENOMEM;
}

int cap_set_file(struct tdat_capture *c, const char *rel, const char *val)
{
	int ret = cap_save(c, rel);

	return ret ? ret : cap_write_file(c, rel, val);
}

/* ---- attaching ---- */

struct tdat_capture *tdat_capture_new(void)
{
	/* libtracefs warns on stderr by default: a library does not print */
	tracefs_set_loglevel(TEP_LOG_NONE);
	return calloc(1, sizeof(struct tdat_capture));
}

static int find_tracefs(struct tdat_capture *c, unsigned flags)
{
	const char *root = NULL;
	char path[4096];
	int m;

	if (!(flags & TDAT_CAP_MOUNT)) {
		m = tracefs_tracing_dir_is_mounted(false, &root);
		/* libtracefs (1.6 to 1.8) hands over an allocated path it does not keep */
		free((char *)root);
		if (m <= 0) {
			tdat_msg(c->errmsg, "tracefs is not available (not mounted)");
			return TDAT_EIO;
		}
	}
	/* found, or mounted on /sys/kernel/tracing; kept by libtracefs */
	errno = 0;
	if (!(root = tracefs_tracing_dir())) {
		tdat_msg(c->errmsg, "tracefs is not mounted and mounting it on /sys/kernel/tracing failed: %s",
			 strerror(errno ? errno : EPERM));
		return TDAT_EIO;
	}
	snprintf(path, sizeof(path), "%s/instances", root);
	if (access(path, F_OK)) {
		if (errno == EACCES)
			tdat_msg(c->errmsg, "%s: permission denied (tracing needs root)", root);
		else
			tdat_msg(c->errmsg, "tracefs is not available (no %s)", path);
		return TDAT_EIO;
	}
	return 0;
}

static int attach(struct tdat_capture *c, const char *instance, unsigned flags)
{
	bool exists = tracefs_instance_exists(instance);

	if (!exists && !(flags & TDAT_CAP_CREATE)) {
		tdat_msg(c->errmsg, "no instance '%s' (%s/instances/%s)", instance,
			 tracefs_tracing_dir(), instance);
		return TDAT_EIO;
	}
	if (exists && (flags & TDAT_CAP_EXCL)) {
		tdat_msg(c->errmsg, "instance '%s' exists already", instance);
		return TDAT_EIO;
	}
	c->inst = exists ? tracefs_instance_alloc(NULL, instance) : tracefs_instance_create(instance);
	if (!c->inst) {
		tdat_msg(c->errmsg, "instance '%s': %s", instance, strerror(errno ? errno : ENOMEM));
		return TDAT_EIO;
	}
	c->created = tracefs_instance_is_new(c->inst);
	return 0;
}

int tdat_capture_open(struct tdat_capture *c, const char *instance, unsigned flags)
{
	char *dir;
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
	if (instance && (ret = attach(c, instance, flags))) {
		c->flags &= ~(unsigned)TDAT_CAP_REMOVE;
		return ret;
	}
	/* from here on, tdat_capture_close() removes what it created */
	c->opened = true;
	dir = instance ? tracefs_instance_get_dir(c->inst) : NULL;
	c->dir = strdup(instance ? (dir ? dir : "") : tracefs_tracing_dir());
	tracefs_put_tracing_file(dir);
	if (!c->dir || (instance && !(c->name = strdup(instance))))
		return TDAT_ENOMEM;
	/* a new instance traces at once; nothing before start */
	if (c->created && tracefs_trace_off(c->inst))
		return cap_fail(c, "tracing_on", "0");
	for (char d[64]; c->ncpus < MAX_CPUS; c->ncpus++)
		if (snprintf(d, sizeof(d), "per_cpu/cpu%d", c->ncpus), !tracefs_dir_exists(c->inst, d))
			break;
	if (!c->ncpus)
		tdat_msg(c->errmsg, "%s/per_cpu: no CPUs", c->dir);
	return c->ncpus ? 0 : TDAT_EIO;
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

/* Does event @sys:@ev match @spec ("SYS", "SYS:EVENT", "EVENT", globs)? */
static bool event_matches(const char *spec, const char *sys, const char *ev)
{
	const char *sc = strchr(spec, ':');
	char ssys[256];

	if (!sc)
		return !fnmatch(spec, sys, 0) || !fnmatch(spec, ev, 0);
	if ((size_t)(sc - spec) >= sizeof(ssys))
		return false;
	snprintf(ssys, sizeof(ssys), "%.*s", (int)(sc - spec), spec);
	return !fnmatch(ssys, sys, 0) && !fnmatch(sc + 1, ev, 0);
}

int cap_for_events(struct tdat_capture *c, const char *spec,
		   int (*fn)(struct tdat_capture *c, const char *sys, const char *ev, void *arg),
		   void *arg)
{
	/* the systems that have events to enable (not ftrace), as available_events */
	char **systems = tracefs_event_systems(NULL), **events;
	int ret = 0, n = 0;

	if (!systems) {
		tdat_msg(c->errmsg, "%s/events: cannot list the events", tracefs_tracing_dir());
		return TDAT_EIO;
	}
	for (int s = 0; systems[s] && !ret; s++) {
		events = tracefs_system_events(NULL, systems[s]);
		for (int e = 0; events && events[e] && !ret; e++) {
			if (!event_matches(spec, systems[s], events[e]))
				continue;
			ret = fn(c, systems[s], events[e], arg);
			n++;
		}
		tracefs_list_free(events);
	}
	tracefs_list_free(systems);
	if (!ret && !n) {
		tdat_msg(c->errmsg, "no event matches '%s' (see tdat-capture list)", spec);
		ret = TDAT_EINVAL;
	}
	return ret;
}

/* Write @val to the event's file @file ("enable", "filter"), kept to put back in the top buffer. */
static int event_set(struct tdat_capture *c, const char *sys, const char *ev, const char *file,
		     const char *val)
{
	char rel[700];
	int ret;

	snprintf(rel, sizeof(rel), "events/%s/%s/%s", sys, ev, file);
	if ((ret = cap_save(c, rel)))
		return ret;
	errno = 0;
	if (tracefs_event_file_write(c->inst, sys, ev, file, val) < (int)strlen(val))
		return cap_fail(c, rel, val);
	return 0;
}

static int enable_one(struct tdat_capture *c, const char *sys, const char *ev, void *arg)
{
	(void)arg;
	return event_set(c, sys, ev, "enable", "1");
}

int tdat_capture_enable(struct tdat_capture *c, const char *spec)
{
	return cap_for_events(c, spec, enable_one, NULL);
}

static int filter_one(struct tdat_capture *c, const char *sys, const char *ev, void *expr)
{
	int ret = event_set(c, sys, ev, "filter", expr);

	if (ret == TDAT_EINVAL)
		tdat_msg(c->errmsg, "the kernel refuses the filter '%s' on %s:%s", (char *)expr, sys, ev);
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
	return cap_for_events(c, spec, filter_one, (void *)expr);
}

/* ---- control ---- */

static int unfilter_one(struct tdat_capture *c, const char *sys, const char *ev, void *arg)
{
	char *v = tracefs_event_file_read(c->inst, sys, ev, "filter", NULL);
	int ret = v && strncmp(v, "none", 4) ? event_set(c, sys, ev, "filter", "0") : 0;

	(void)arg;
	free(v);
	return ret;
}

int tdat_capture_reset(struct tdat_capture *c)
{
	int ret;

	if (!c->name) {
		tdat_msg(c->errmsg, "the top buffer is not reset: it is not ours");
		return TDAT_EINVAL;
	}
	if (tracefs_trace_off(c->inst))
		return cap_fail(c, "tracing_on", "0");
	if (tracefs_event_disable(c->inst, NULL, NULL))
		return cap_fail(c, "events/enable", "0");
	if ((ret = cap_for_events(c, "*", unfilter_one, NULL)))
		return ret;
	/* no pids followed (start -P of an earlier call) */
	if (tracefs_file_exists(c->inst, "set_event_pid") &&
	    tracefs_instance_file_clear(c->inst, "set_event_pid"))
		return cap_fail(c, "set_event_pid", "");
	if (tracefs_option_is_supported(c->inst, TRACEFS_OPTION_EVENT_FORK) &&
	    tracefs_option_disable(c->inst, TRACEFS_OPTION_EVENT_FORK))
		return cap_fail(c, "options/event-fork", "0");
	return tracefs_instance_file_clear(c->inst, "trace") ? cap_fail(c, "trace", "") : 0;
}

int tdat_capture_start(struct tdat_capture *c)
{
	int ret;

	if (tracefs_instance_file_clear(c->inst, "trace"))
		return cap_fail(c, "trace", "");
	if ((ret = cap_save(c, "tracing_on")))
		return ret;
	return tracefs_trace_on(c->inst) ? cap_fail(c, "tracing_on", "1") : 0;
}

int tdat_capture_stop(struct tdat_capture *c)
{
	int ret = cap_save(c, "tracing_on");

	if (ret)
		return ret;
	return tracefs_trace_off(c->inst) ? cap_fail(c, "tracing_on", "0") : 0;
}

/* ---- lists ---- */

static void free_list(struct tdat_capture *c)
{
	tracefs_list_free(c->list);
	c->list = NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The options of the instance, "name" when set, "noname" when not. */
static char **list_options(struct tdat_capture *c)
{
	char *path = tracefs_instance_get_file(c->inst, "options"), opt[300], **l = NULL;
	struct dirent *e;
	DIR *d = path ? opendir(path) : NULL;

	tracefs_put_tracing_file(path);
	if (!d) {
		tdat_msg(c->errmsg, "%s/options: %s", c->dir, strerror(errno));
		return NULL;
	}
	while ((e = readdir(d))) {
		char *v;

		if (e->d_name[0] == '.')
			continue;
		snprintf(opt, sizeof(opt), "options/%s", e->d_name);
		v = tracefs_instance_file_read(c->inst, opt, NULL);
		snprintf(opt, sizeof(opt), "%s%s", v && v[0] == '1' ? "" : "no", e->d_name);
		free(v);
		if (!(l = tracefs_list_add(l, opt)))
			break;
	}
	closedir(d);
	return l;
}

static int list_event(struct tdat_capture *c, const char *sys, const char *ev, void *arg)
{
	char name[600];

	(void)c;
	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	return (*(char ***)arg = tracefs_list_add(*(char ***)arg, name)) ? 0 : TDAT_ENOMEM;
}

/* The words (@what: clocks) or lines of file @rel. */
static char **list_file(struct tdat_capture *c, const char *rel, int what)
{
	const char *sep = what == TDAT_CAP_CLOCKS ? " \n" : "\n";
	char *text, *save = NULL, **l = NULL;

	if (cap_read(c, rel, false, &text, NULL))
		return NULL;
	for (char *w = strtok_r(text, sep, &save); w; w = strtok_r(NULL, sep, &save))
		if (!(l = tracefs_list_add(l, w)))
			break;
	free(text);
	return l;
}

const char *const *tdat_capture_list(struct tdat_capture *c, int what, const char *glob, int *n)
{
	char **l = NULL;
	int k = 0, j = 0;

	free_list(c);
	*n = 0;
	/* no event matching is an empty list */
	if (what == TDAT_CAP_EVENTS && (k = cap_for_events(c, glob ? glob : "*", list_event, &l)) &&
	    k != TDAT_EINVAL) {
		tracefs_list_free(l);
		return NULL;
	}
	if (what == TDAT_CAP_ENABLED)
		l = list_file(c, "set_event", what);
	else if (what == TDAT_CAP_CLOCKS)
		l = list_file(c, "trace_clock", what);
	else if (what == TDAT_CAP_OPTIONS)
		l = list_options(c);
	else if (what == TDAT_CAP_INSTANCES)
		l = tracefs_instances(NULL);
	else if (what != TDAT_CAP_EVENTS)
		return NULL;
	/* an empty list of libtracefs's kind (tracefs_list_free() frees it) */
	if (!l && (l = tracefs_list_add(NULL, ""))) {
		free(l[0]);
		l[0] = NULL;
	}
	if (!l)
		return NULL;
	for (int i = 0; l[i]; i++) {
		const char *name = l[i][0] == '[' ? l[i] + 1 : l[i];
		char tmp[300], *colon = strchr(l[i], ':');
		bool keep = !glob || what == TDAT_CAP_EVENTS;

		if (!keep && what == TDAT_CAP_ENABLED && colon) {
			snprintf(tmp, sizeof(tmp), "%.*s", (int)(colon - l[i]), l[i]);
			keep = event_matches(glob, tmp, colon + 1);
		} else if (!keep) {
			snprintf(tmp, sizeof(tmp), "%.*s", (int)strcspn(name, "]"), name);
			keep = !fnmatch(glob, tmp, 0);
		}
		if (keep)
			l[j++] = l[i];
		else
			free(l[i]);
	}
	l[j] = NULL;
	if (what != TDAT_CAP_CLOCKS && j)
		qsort(l, (size_t)j, sizeof(*l), cmp_str);
	c->list = l;
	*n = j;
	return (const char *const *)l;
}

const char *tdat_capture_file(struct tdat_capture *c, const char *rel)
{
	free(c->text);
	c->text = NULL;
	if (cap_read(c, rel, false, &c->text, NULL))
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
		tracefs_trace_off(c->inst);
		tracefs_event_disable(c->inst, NULL, NULL);
		if (tracefs_instance_destroy(c->inst) && errno != ENOENT) {
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
	tracefs_instance_free(c->inst);
	free_list(c);
	free(c->text);
	free(c->name);
	free(c->dir);
	free(c);
}
