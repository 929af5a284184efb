/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * json-line.c - the "json" writer's strings and its ftrace text lines:
 * sched_switch, sched_waking/sched_wakeup, sched_blocked_reason,
 * cpu_frequency/cpu_idle and atrace markers (tracing_mark_write) become
 * lines of systemTraceEvents, in the layout both Perfetto's and catapult's
 * line parsers accept, so that the viewers build their own CPU, thread-state
 * and counter tracks (json.c says how the lines are staged and timed).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "write/json.h"

/*
 * Up to @n bytes of @s (ending at a NUL) as JSON string content.  Without
 * JE_LINE, control characters are escaped (short forms, else \u00XX); with
 * it (text lines, where the importers take only short forms and a line
 * break would split the line) they become '_', as do spaces (JE_NOSPACE)
 * and '-' (JE_NODASH).  Bytes that are not UTF-8 become U+FFFD.
 */
void put_esc(struct tdat_sink *sk, const void *s, size_t n, unsigned mode)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = s;
	char *d = sink_reserve(sk, n * 6 + 8), *o = d;
	size_t i = 0, l;

	if (!d)
		return;
	while (i < n && p[i]) {
		unsigned ch = p[i];

		/* most bytes: printable ASCII that needs no escape, copied as is */
		if (ch > ' ' && ch < 0x7f && ch != '"' && ch != '\\' && ch != '-') {
			*o++ = (char)ch;
			i++;
			continue;
		}
		if (ch >= 0x80) {
			if ((l = utf8_len(p + i, n - i))) {
				memcpy(o, p + i, l);
				o += l;
				i += l;
			} else {
				memcpy(o, "\xef\xbf\xbd", 3);
				o += 3;
				i++;
			}
			continue;
		}
		i++;
		if (ch == '"' || ch == '\\') {
			*o++ = '\\';
			*o++ = (char)ch;
		} else if (ch < 0x20 || ch == 0x7f) {
			if (mode & JE_LINE) {
				*o++ = '_';
			} else if (ch == '\n' || ch == '\t' || ch == '\r') {
				*o++ = '\\';
				*o++ = ch == '\n' ? 'n' : ch == '\t' ? 't' : 'r';
			} else if (ch == 0x7f) {
				*o++ = (char)ch;
			} else {
				memcpy(o, "\\u00", 4);
				o[4] = hex[ch >> 4];
				o[5] = hex[ch & 15];
				o += 6;
			}
		} else if ((ch == ' ' && (mode & JE_NOSPACE)) || (ch == '-' && (mode & JE_NODASH))) {
			*o++ = '_';
		} else {
			*o++ = (char)ch;
		}
	}
	sink_commit(sk, (size_t)(o - d));
}

void put_str(struct tdat_sink *sk, const char *s)
{
	sink_putc(sk, '"');
	put_esc(sk, s, strlen(s), JE_U);
	sink_putc(sk, '"');
}

static bool has_fields(const struct ttype *tt, const char *const *names, const struct tfield **out)
{
	for (int i = 0; names[i]; i++)
		if (!(out[i] = ttype_field(tt, names[i])))
			return false;
	return true;
}

static bool is_num(const struct tfield *f)
{
	return f && f->kind != TK_STR && f->kind != TK_ARRAY;
}

static bool is_str(const struct tfield *f)
{
	return f && f->kind == TK_STR;
}

/* sched, power and ftrace events that become text lines. */
int line_role(struct jtype *jt)
{
	static const char *const sw[] = { "prev_comm", "prev_pid", "prev_prio", "prev_state",
					  "next_comm", "next_pid", "next_prio", NULL };
	static const char *const wk[] = { "comm", "pid", "prio", "target_cpu", NULL };
	static const char *const bl[] = { "pid", "io_wait", "caller", NULL };
	static const char *const pw[] = { "state", "cpu_id", NULL };
	static const char *const pr[] = { "buf", NULL };
	const struct ttype *tt = jt->tt;
	const char *n = tt->name;

	if (!strcmp(tt->system, "sched")) {
		if (!strcmp(n, "sched_switch") && has_fields(tt, sw, jt->lf) && is_str(jt->lf[0]) &&
		    is_str(jt->lf[4]) && is_num(jt->lf[1]) && is_num(jt->lf[2]) && is_num(jt->lf[3]) &&
		    is_num(jt->lf[5]) && is_num(jt->lf[6])) {
			/* prev_state's letters: its kernel's, as in every format (model/sched.c) */
			if (!(jt->states = malloc(sizeof(*jt->states))))
				return TDAT_ENOMEM;
			sched_states_init(jt->states, tt->event);
			jt->role = JR_SWITCH;
		} else if ((!strcmp(n, "sched_waking") || !strcmp(n, "sched_wakeup")) &&
			 has_fields(tt, wk, jt->lf) && is_str(jt->lf[0]) && is_num(jt->lf[1]) &&
			 is_num(jt->lf[2]) && is_num(jt->lf[3]))
			jt->role = JR_WAKE;
		else if (!strcmp(n, "sched_blocked_reason") && has_fields(tt, bl, jt->lf) &&
			 is_num(jt->lf[0]) && is_num(jt->lf[1]) && is_num(jt->lf[2]))
			jt->role = JR_BLOCKED;
	} else if (!strcmp(tt->system, "power")) {
		if ((!strcmp(n, "cpu_frequency") || !strcmp(n, "cpu_idle")) && has_fields(tt, pw, jt->lf) &&
		    is_num(jt->lf[0]) && is_num(jt->lf[1]))
			jt->role = JR_POWER;
	} else if (!strcmp(tt->system, "ftrace") && !strcmp(n, "print") && has_fields(tt, pr, jt->lf) &&
		   is_str(jt->lf[0])) {
		jt->role = JR_PRINT;
	}
	return 0;
}

/* The tgid for a text line, -1 for "-----" (not known yet, or idle). */
static int64_t line_tgid(struct json *j, int utid, struct jthread *t)
{
	if (utid == 0 || (t->pid < 0 && pm_thread(j->pm, utid)->upid <= 0))
		return -1;
	return json_thread_pid(j, utid, t);
}

/* Right-aligned in @width columns. */
static void put_rjust(struct tdat_sink *sk, uint64_t v, int width)
{
	char b[24];
	size_t n = fmt_u64(b, v);

	for (int i = (int)n; i < width; i++)
		sink_putc(sk, ' ');
	sink_write(sk, b, n);
}

/* "%16s-%-5d (%5d) [%03d] .... SECONDS: " */
static void line_head(struct json *j, const void *comm, size_t n, uint32_t tid, int64_t tgid,
		      int cpu, uint64_t ts)
{
	static const char spaces[] = "                ";
	struct tdat_sink *s = &j->stage;
	char b[24];
	size_t l;

	if (!n) {
		comm = "<...>";
		n = 5;
	}
	if (n > 64)
		n = 64;
	if (n < 16)
		sink_write(s, spaces, 16 - n);
	put_esc(s, comm, n, JE_LINE | JE_NOSPACE | JE_NODASH);
	sink_putc(s, '-');
	l = fmt_u64(b, tid);
	sink_write(s, b, l);
	if (l < 5)
		sink_write(s, spaces, 5 - l);
	put_lit(s, " (");
	if (tgid < 0)
		put_lit(s, "-----");
	else
		put_rjust(s, (uint64_t)tgid, 5);
	put_lit(s, ") [");
	if (cpu < 0)
		cpu = 0;
	l = fmt_u64(b, (uint64_t)cpu);
	if (l < 3)
		sink_write(s, "000", 3 - l);
	sink_write(s, b, l);
	put_lit(s, "] .... ");
	ts = rel(j, ts);
	put_u64(s, ts / 1000000000);
	sink_putc(s, '.');
	put_digits(s, (unsigned)(ts % 1000000000), 9);
	put_lit(s, "5: ");	/* half a ns: see the top of the file */
}

static inline void line_end(struct json *j)
{
	put_lit(&j->stage, "\\n");
}

/* The CPU a line names: with several inputs, after the CPUs of the inputs before (ucpu). */
static int line_cpu(const struct json *j, const struct tdat_event *ev)
{
	return ev->cpu < 0 ? ev->cpu : j->in[ev->input].cpu_base + ev->cpu;
}

/* The command name of a thread: the process model's, the file's, or <...>. */
static const char *thread_comm(struct json *j, int utid, const struct tdat_event *ev, int64_t tid)
{
	const struct pm_thread *th = pm_thread(j->pm, utid);
	struct tep_handle *tep = ev->file->tep;

	if (utid == 0)
		return "<idle>";
	if (th && th->name)
		return th->name;
	if (tid >= 0 && tid <= 0x7fffffff && tep_is_pid_registered(tep, (int)tid))
		return tep_data_comm_from_pid(tep, (int)tid);
	return "<...>";
}

static void line_task(struct json *j, const struct tdat_event *ev, int utid, int64_t tid)
{
	const char *comm = thread_comm(j, utid, ev, tid);
	struct jthread *t = json_thread(j, utid);

	line_head(j, comm, strlen(comm), (uint32_t)tid, t ? line_tgid(j, utid, t) : -1,
		  line_cpu(j, ev), ev->ts);
}

static void line_num(struct tdat_sink *s, const char *key, const struct tdat_event *ev,
		     const struct tfield *f)
{
	uint64_t v = 0;

	sink_write(s, key, strlen(key));
	tfield_num(ev, f, &v);
	if (f->kind == TK_INT)
		put_i64(s, (int64_t)v);
	else
		put_u64(s, v);
}

static void line_comm(struct tdat_sink *s, const char *key, const struct tdat_event *ev,
		      const struct tfield *f)
{
	const unsigned char *p = NULL;
	unsigned n = 0;

	sink_write(s, key, strlen(key));
	if (!tfield_bytes(ev, f, &p, &n) || !n) {
		p = (const unsigned char *)"<...>";
		n = 5;
	}
	put_esc(s, p, n, JE_LINE | JE_NOSPACE);
}

static void line_switch(struct json *j, const struct tdat_event *ev, const struct jtype *jt,
			int utid, int64_t tid)
{
	struct tdat_sink *s = &j->stage;
	struct jthread *t = json_thread(j, utid);
	const unsigned char *p;
	unsigned n = 0;
	uint64_t st = 0;
	char state[64];

	if (utid == 0 || !tfield_bytes(ev, jt->lf[0], &p, &n)) {
		line_task(j, ev, utid, tid);
	} else {
		line_head(j, p, n, (uint32_t)tid, t ? line_tgid(j, utid, t) : -1, line_cpu(j, ev),
			  ev->ts);
	}
	put_lit(s, "sched_switch: ");
	line_comm(s, "prev_comm=", ev, jt->lf[0]);
	line_num(s, " prev_pid=", ev, jt->lf[1]);
	line_num(s, " prev_prio=", ev, jt->lf[2]);
	put_lit(s, " prev_state=");
	tfield_num(ev, jt->lf[3], &st);
	sched_state_str(jt->states, (int64_t)st, state, sizeof(state));
	put_esc(s, state, strlen(state), JE_LINE | JE_NOSPACE);
	line_comm(s, " ==> next_comm=", ev, jt->lf[4]);
	line_num(s, " next_pid=", ev, jt->lf[5]);
	line_num(s, " next_prio=", ev, jt->lf[6]);
	line_end(j);
}

static void line_wake(struct json *j, const struct tdat_event *ev, const struct jtype *jt,
		      int utid, int64_t tid)
{
	struct tdat_sink *s = &j->stage;
	uint64_t cpu = 0;
	char b[24];
	size_t l;

	line_task(j, ev, utid, tid);
	put_esc(s, jt->tt->name, strlen(jt->tt->name), JE_LINE);
	line_comm(s, ": comm=", ev, jt->lf[0]);
	line_num(s, " pid=", ev, jt->lf[1]);
	line_num(s, " prio=", ev, jt->lf[2]);
	put_lit(s, " target_cpu=");
	tfield_num(ev, jt->lf[3], &cpu);
	l = fmt_u64(b, (uint32_t)cpu);
	if (l < 3)
		sink_write(s, "000", 3 - l);
	sink_write(s, b, l);
	line_end(j);
}

static void line_blocked(struct json *j, const struct tdat_event *ev, const struct jtype *jt,
			 int utid, int64_t tid)
{
	struct tdat_sink *s = &j->stage;
	const char *fn;
	uint64_t v = 0;

	line_task(j, ev, utid, tid);
	line_num(s, "sched_blocked_reason: pid=", ev, jt->lf[0]);
	line_num(s, " iowait=", ev, jt->lf[1]);
	put_lit(s, " caller=");
	tfield_num(ev, jt->lf[2], &v);
	if ((fn = function_name(ev->file, v)))
		put_esc(s, fn, strlen(fn), JE_LINE | JE_NOSPACE);
	else
		sink_printf(s, "0x%llx", (unsigned long long)v);
	line_end(j);
}

static void line_power(struct json *j, const struct tdat_event *ev, const struct jtype *jt,
		       int utid, int64_t tid)
{
	struct tdat_sink *s = &j->stage;
	uint64_t v = 0;

	line_task(j, ev, utid, tid);
	sink_write(s, jt->tt->name, strlen(jt->tt->name));
	put_lit(s, ": state=");
	tfield_num(ev, jt->lf[0], &v);
	put_u64(s, (uint32_t)v);
	put_lit(s, " cpu_id=");	/* a CPU of this input: numbered as the line's */
	tfield_num(ev, jt->lf[1], &v);
	put_u64(s, (uint32_t)v + (uint32_t)j->in[ev->input].cpu_base);
	line_end(j);
}

static bool digits_at(const unsigned char *p, size_t n, size_t *i, bool sign)
{
	size_t s;

	if (sign && *i < n && p[*i] == '-')
		(*i)++;
	s = *i;
	while (*i < n && p[*i] >= '0' && p[*i] <= '9')
		(*i)++;
	return *i > s;
}

/*
 * An atrace payload both importers take: B|pid|name, E or E|pid...,
 * C|pid|name|int, S|pid|name|int, F|pid|name|int; no control characters.
 */
static bool atrace_ok(const unsigned char *p, size_t n)
{
	const unsigned char *last;
	size_t i = 2;

	for (size_t k = 0; k < n; k++)
		if (p[k] < 0x20 || p[k] == 0x7f)
			return false;
	if (n == 1 && p[0] == 'E')
		return true;
	if (n < 3 || p[1] != '|' || !strchr("BECSF", p[0]) || !digits_at(p, n, &i, false))
		return false;
	if (p[0] == 'E')
		return i == n || p[i] == '|';
	if (i + 1 >= n || p[i] != '|')
		return false;
	if (p[0] == 'B')
		return true;
	/* C, S, F: a name, then an integer after the last bar */
	last = memrchr(p + i + 1, '|', n - i - 1);
	if (!last || last == p + i + 1)
		return false;
	i = (size_t)(last - p) + 1;
	return digits_at(p, n, &i, p[0] == 'C') && i == n;
}

/* An ftrace print: a tracing_mark_write line if it is atrace; false if not. */
static bool line_print(struct json *j, const struct tdat_event *ev, const struct jtype *jt,
		       int utid, int64_t tid)
{
	const unsigned char *p;
	unsigned n;

	if (!tfield_bytes(ev, jt->lf[0], &p, &n))
		return false;
	while (n && (p[n - 1] == '\n' || p[n - 1] == '\0'))
		n--;
	if (!atrace_ok(p, n))
		return false;
	line_task(j, ev, utid, tid);
	put_lit(&j->stage, "tracing_mark_write: ");
	put_esc(&j->stage, p, n, JE_LINE);
	line_end(j);
	return true;
}

int put_line(struct json *j, const struct tdat_event *ev, const struct jtype *jt, int utid,
		    int64_t tid)
{
	switch (jt->role) {
	case JR_SWITCH:
		line_switch(j, ev, jt, utid, tid);
		break;
	case JR_WAKE:
		line_wake(j, ev, jt, utid, tid);
		break;
	case JR_BLOCKED:
		line_blocked(j, ev, jt, utid, tid);
		break;
	case JR_POWER:
		line_power(j, ev, jt, utid, tid);
		break;
	default:
		return line_print(j, ev, jt, utid, tid) ? 0 : 1;
	}
	return 0;
}

/* Is @ev's buffer the one whose events of @jt's kind become text lines (the first seen)? */
bool line_buffer(struct json *j, const struct tdat_event *ev, const struct jtype *jt)
{
	int *b;

	switch (jt->role) {
	case JR_SWITCH: case JR_WAKE: case JR_BLOCKED:
		b = &j->in[ev->input].line_buffer[JL_SCHED];
		break;
	case JR_POWER:
		b = &j->in[ev->input].line_buffer[strcmp(jt->tt->name, "cpu_idle") ? JL_FREQ : JL_IDLE];
		break;
	default:
		return true;	/* prints: every buffer's */
	}
	if (*b < 0)
		*b = ev->buffer;
	return *b == ev->buffer;
}

/* Append the staged text lines. */
int copy_stage(struct json *j, struct tdat_writer *w)
{
	uint64_t off = 0;

	if (!j->stage_ok)
		return 0;
	if (sink_flush(&j->stage)) {
		tdat_msg(w->errmsg, "temporary file: %s", strerror(j->stage.err));
		return TDAT_EIO;
	}
	for (;;) {
		char *d = sink_reserve(&w->sink, 1 << 16);
		ssize_t r;

		if (!d)
			return TDAT_ENOMEM;
		r = pread(j->stage.fd, d, 1 << 16, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			tdat_msg(w->errmsg, "temporary file: %s", strerror(errno));
			return TDAT_EIO;
		}
		if (!r)
			return 0;
		sink_commit(&w->sink, (size_t)r);
		off += (uint64_t)r;
	}
}

int stage_open(struct json *j, struct tdat_writer *w)
{
	const char *dir = getenv("TMPDIR");
	char *name;
	int fd = -1;

	if (!dir || !*dir)
		dir = "/tmp";
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
#endif
	if (fd < 0) {
		if (asprintf(&name, "%s/tdat-json-XXXXXX", dir) < 0)
			return TDAT_ENOMEM;
		if ((fd = mkstemp(name)) >= 0)
			unlink(name);
		free(name);
	}
	if (fd < 0) {
		tdat_msg(w->errmsg, "cannot make a temporary file in %s: %s", dir, strerror(errno));
		return TDAT_EIO;
	}
	if (sink_init(&j->stage, fd)) {
		close(fd);
		return TDAT_ENOMEM;
	}
	j->stage_ok = true;
	return 0;
}
