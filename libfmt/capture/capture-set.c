/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * capture-set.c - an instance's settings for tdat-capture, through
 * libtracefs: buffer and sub-buffer sizes, wake-up threshold, trace clock,
 * the CPUs traced (tracing_cpumask, from a list or trace-cmd's hex mask,
 * checked against the CPUs there are), options, and which tasks are traced
 * (set_event_pid and event-fork to follow pids and their children,
 * set_event_notrace_pid to leave the recorder out).  Every change is first
 * cap_save()d (capture.c), which keeps the top buffer's old value to put
 * back at close.  Nothing here prints.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>

#include "capture.h"

int tdat_capture_set_buffer_kb(struct tdat_capture *c, unsigned kb)
{
	int ret = cap_save(c, "buffer_size_kb");
	char v[32];

	snprintf(v, sizeof(v), "%u", kb);
	if (!ret && tracefs_instance_set_buffer_size(c->inst, kb, -1))
		ret = cap_fail(c, "buffer_size_kb", v);
	return ret;
}

/* A file libtracefs 1.6 has no function for (1.8 has some): @v, kept to put back. */
static int set_number(struct tdat_capture *c, const char *rel, unsigned v)
{
	char s[32];

	snprintf(s, sizeof(s), "%u", v);
	return cap_set_file(c, rel, s);
}

int tdat_capture_set_buffer_percent(struct tdat_capture *c, unsigned pct)
{
	if (!tracefs_file_exists(c->inst, "buffer_percent"))
		return TDAT_EUNSUPP;
	return set_number(c, "buffer_percent", pct > 100 ? 100 : pct);
}

int tdat_capture_set_subbuf_kb(struct tdat_capture *c, unsigned kb)
{
	if (!tracefs_file_exists(c->inst, "buffer_subbuf_size_kb")) {
		tdat_msg(c->errmsg, "this kernel has no buffer_subbuf_size_kb (Linux 6.8 or later)");
		return TDAT_EUNSUPP;
	}
	return set_number(c, "buffer_subbuf_size_kb", kb);
}

int tdat_capture_set_clock(struct tdat_capture *c, const char *clock)
{
	int n;
	const char *const *l = tdat_capture_list(c, TDAT_CAP_CLOCKS, clock, &n);

	if (l && n == 1 && !strpbrk(clock, "*?["))
		return cap_set_file(c, "trace_clock", clock);
	if (l)
		tdat_msg(c->errmsg, "this kernel has no clock '%s' (see tdat-capture list)", clock);
	return l ? TDAT_EINVAL : TDAT_EIO;
}

/* CPU @cpu into @mask; TDAT_EINVAL with @errmsg if the machine has no such CPU. */
static int mask_set(uint32_t *mask, long cpu, int ncpus, char *errmsg)
{
	if (cpu >= ncpus) {
		tdat_msg(errmsg, "CPU %ld does not exist (0-%d)", cpu, ncpus - 1);
		return TDAT_EINVAL;
	}
	mask[cpu / 32] |= 1u << (cpu % 32);
	return 0;
}

/* A CPU list, "0,2-3". */
static int list_mask(const char *list, int ncpus, uint32_t *mask, char *errmsg)
{
	const char *p = list;
	char *end;
	int ret;

	while (*p) {
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0 || !isdigit((unsigned char)*p))
			goto bad;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				goto bad;
		}
		for (long i = a; i <= b; i++)
			if ((ret = mask_set(mask, i, ncpus, errmsg)))
				return ret;
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	return 0;
bad:
	tdat_msg(errmsg, "'%s' is not a CPU list (e.g. 0,2-3)", list);
	return TDAT_EINVAL;
}

/*
 * A hex mask as trace-cmd record -M and tracing_cpumask take it: "3",
 * "0x3", 32-bit words apart with commas ("1,00000000" is CPU 32), or "-1"
 * for every CPU.
 */
static int hex_mask(const char *hex, int ncpus, uint32_t *mask, char *errmsg)
{
	const char *s = hex + (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X') ? 2 : 0);
	bool commas = strchr(s, ',');
	long word = 0, bit = 0;
	int ret;

	if (!strcmp(hex, "-1")) {
		for (long i = 0; i < ncpus; i++)
			mask_set(mask, i, ncpus, errmsg);
		return 0;
	}
	for (const char *p = s + strlen(s); p-- > s;) {
		int d = isxdigit((unsigned char)*p) ? (isdigit((unsigned char)*p) ? *p - '0' :
			 tolower((unsigned char)*p) - 'a' + 10) : -1;

		if (*p == ',' && bit && p > s) {
			word++;
			bit = 0;
			continue;
		}
		/* a word of more than 8 digits is not the kernel's format */
		if (d < 0 || (commas && bit == 32))
			goto bad;
		for (int k = 0; k < 4; k++)
			if ((d >> k & 1) && (ret = mask_set(mask, word * 32 + bit + k, ncpus, errmsg)))
				return ret;
		bit += 4;
	}
	if (bit)
		return 0;
bad:
	tdat_msg(errmsg, "'%s' is not a hex CPU mask (e.g. 3: CPUs 0 and 1; -1: all)", hex);
	return TDAT_EINVAL;
}

int cap_cpumask(const char *spec, bool hex, int ncpus, char **out, char *errmsg)
{
	int words = (ncpus + 31) / 32, ret;
	uint32_t *mask = calloc((size_t)words + 1, sizeof(*mask));
	char *text = malloc((size_t)words * 9 + 2);
	size_t pos = 0;
	bool any = false;

	*out = NULL;
	ret = !mask || !text ? TDAT_ENOMEM :
	      hex ? hex_mask(spec, ncpus, mask, errmsg) : list_mask(spec, ncpus, mask, errmsg);
	for (int w = 0; !ret && w < words; w++)
		any |= mask[w] != 0;
	if (!ret && !any) {
		tdat_msg(errmsg, "'%s' selects no CPU", spec);
		ret = TDAT_EINVAL;
	}
	for (int w = words - 1; !ret && w >= 0; w--)
		pos += (size_t)sprintf(text + pos, w == words - 1 ? "%x" : ",%08x", mask[w]);
	free(mask);
	if (ret)
		free(text);
	else
		*out = text;
	return ret;
}

static int set_cpumask(struct tdat_capture *c, const char *spec, bool hex)
{
	char *text;
	int ret = cap_cpumask(spec, hex, c->ncpus, &text, c->errmsg);

	if (!ret)
		ret = cap_save(c, "tracing_cpumask");
	if (!ret && tracefs_instance_set_affinity_raw(c->inst, text) < (int)strlen(text))
		ret = cap_fail(c, "tracing_cpumask", text);
	free(text);
	return ret;
}

int tdat_capture_set_cpus(struct tdat_capture *c, const char *list)
{
	return set_cpumask(c, list, false);
}

int tdat_capture_set_cpumask(struct tdat_capture *c, const char *hex)
{
	return set_cpumask(c, hex, true);
}

int tdat_capture_exclude_pid(struct tdat_capture *c, int pid)
{
	int ret;

	if (!tracefs_file_exists(c->inst, "set_event_notrace_pid"))
		return TDAT_EUNSUPP;
	ret = set_number(c, "set_event_notrace_pid", (unsigned)pid);
	c->excluding = !ret;
	return ret;
}

/* Set (or clear) option @name, known to libtracefs or not; kept to put back. */
static int set_option(struct tdat_capture *c, const char *name, bool on)
{
	enum tracefs_option_id id = tracefs_option_id(name);
	char rel[300];
	int ret;

	snprintf(rel, sizeof(rel), "options/%s", name);
	if ((ret = cap_save(c, rel)))
		return ret;
	/* an option newer than libtracefs: its file */
	if (id == TRACEFS_OPTION_INVALID)
		return cap_write_file(c, rel, on ? "1" : "0");
	if (on ? tracefs_option_enable(c->inst, id) : tracefs_option_disable(c->inst, id))
		return cap_fail(c, rel, on ? "1" : "0");
	return 0;
}

int tdat_capture_follow_pid(struct tdat_capture *c, int pid, bool children)
{
	char v[32];
	int ret;

	if (!tracefs_file_exists(c->inst, "set_event_pid") ||
	    (children && !tracefs_option_is_supported(c->inst, TRACEFS_OPTION_EVENT_FORK))) {
		tdat_msg(c->errmsg, "this kernel cannot follow pids (no set_event_pid or options/event-fork)");
		return TDAT_EUNSUPP;
	}
	if (pid <= 0) {
		tdat_msg(c->errmsg, "%d is not a pid", pid);
		return TDAT_EINVAL;
	}
	snprintf(v, sizeof(v), "%d", pid);
	/* the first replaces what the file held (kept to put back), the next add to it */
	if (c->following)
		ret = tracefs_instance_file_append(c->inst, "set_event_pid", v) < (int)strlen(v) ?
		      cap_fail(c, "set_event_pid", v) : 0;
	else
		ret = cap_set_file(c, "set_event_pid", v);
	c->following |= !ret;
	if (!ret && children)
		ret = set_option(c, "event-fork", true);
	return ret;
}

int tdat_capture_set_option(struct tdat_capture *c, const char *name)
{
	bool off = !strncmp(name, "no", 2);
	char rel[300];

	/* "no..." may also be an option's own name (none is now, but be exact) */
	snprintf(rel, sizeof(rel), "options/%s", name);
	if (off && !tracefs_file_exists(c->inst, rel))
		name += 2;
	else
		off = false;
	snprintf(rel, sizeof(rel), "options/%s", name);
	if (!*name || strchr(name, '/') || !tracefs_file_exists(c->inst, rel)) {
		tdat_msg(c->errmsg, "no option '%s' (see tdat-capture list)", name);
		return TDAT_EINVAL;
	}
	return set_option(c, name, !off);
}
