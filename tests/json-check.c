/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json-check - validate a tdat-convert -f json output against the rules
 * Perfetto's and catapult's importers apply (doc: perfetto-facts.md §1, §2),
 * the ones that make them reject the file or mis-read it:
 *
 *   - bytes: the file starts with {"traceEvents", is UTF-8, has no raw
 *     control characters inside strings and no \uD800-\uDFFF escapes;
 *     systemTraceEvents uses only the short escapes;
 *   - JSON: parses with json-c in strict mode, complete object form;
 *   - events: ph known and not ignored/misread (no T, P...), name string,
 *     ts (not M) and dur (X) JSON numbers in us with exactly three decimals,
 *     exact as ns doubles; pid/tid integers in [0, 2^32), tid 0 only with
 *     pid 0; X has dur >= 0; i has s in g/p/t and tid for s=t; M is one of
 *     the four Perfetto names with args.name / args.sort_index; C has
 *     numeric args; X slices nest on each (pid, tid) track; a tid keeps one
 *     pid over every event, M event and text line; a category
 *     "SYSTEM,BUFFER" goes with args.buffer "BUFFER" (tdat's buffer names),
 *     a plain "SYSTEM" with no args.buffer;
 *   - systemTraceEvents: a string starting with "# tracer: nop\n", every
 *     line ends with \n and matches both Perfetto's and catapult's line
 *     regexes, with the per-event argument grammars (sched_switch with
 *     valid prev_state, wakeups, sched_blocked_reason, cpu_frequency and
 *     cpu_idle, atrace payloads of tracing_mark_write), and the
 *     trace_event_clock_sync: parent_ts=0 line;
 *   - metadata: the keys tdat writes;
 *   - with -i INFO (tdat-info --json output): for every event type, the
 *     count in the file equals the events written (instants, each event of
 *     an X slice, text lines).
 *
 * Usage: json-check [-i INFO] FILE.json   Exit 0 if valid, 1 if not, 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORTS 20
#define TWO53 9007199254740992.0

static const char *path;
static int nerrors;

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (nerrors++ >= MAX_REPORTS)
		return;
	fprintf(stderr, "json-check: %s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static char *slurp(const char *name, size_t *len)
{
	FILE *fp = fopen(name, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!fp)
		return NULL;
	do {
		if (n + 65536 + 1 > cap) {
			cap = (n + 65536 + 1) * 2;
			if (!(buf = realloc(buf, cap)))
				exit(2);
		}
		r = fread(buf + n, 1, 65536, fp);
		n += r;
	} while (r);
	fclose(fp);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* ---- counts per "system:name" ---- */

struct count {
	char *key;
	long long got, want;
};

static struct count *counts;
static int ncounts;

static struct count *count_of(const char *system, const char *name)
{
	char *key;

	if (asprintf(&key, "%s:%s", system, name) < 0)
		exit(2);
	for (int i = 0; i < ncounts; i++) {
		if (!strcmp(counts[i].key, key)) {
			free(key);
			return &counts[i];
		}
	}
	if (!(counts = realloc(counts, sizeof(*counts) * (size_t)(ncounts + 1))))
		exit(2);
	counts[ncounts] = (struct count){ key, 0, 0 };
	return &counts[ncounts++];
}

/* ---- tid -> pid bindings ---- */

struct bind {
	int64_t tid, pid;
};

static struct bind *binds;
static size_t nbinds, bcap;

static void bind(int64_t tid, int64_t pid, const char *where)
{
	/* a linear probe table on tid */
	if (nbinds * 2 >= bcap) {
		size_t cap = bcap ? bcap * 2 : 1024;
		struct bind *n = malloc(sizeof(*n) * cap);

		if (!n)
			exit(2);
		for (size_t i = 0; i < cap; i++)
			n[i].tid = -1;
		for (size_t i = 0; i < bcap; i++) {
			size_t k;

			if (binds[i].tid < 0)
				continue;
			for (k = (size_t)binds[i].tid & (cap - 1); n[k].tid >= 0; k = (k + 1) & (cap - 1))
				;
			n[k] = binds[i];
		}
		free(binds);
		binds = n;
		bcap = cap;
	}
	for (size_t k = (size_t)tid & (bcap - 1);; k = (k + 1) & (bcap - 1)) {
		if (binds[k].tid < 0) {
			binds[k] = (struct bind){ tid, pid };
			nbinds++;
			return;
		}
		if (binds[k].tid == tid) {
			if (binds[k].pid != pid)
				fail("tid %" PRId64 " is bound to pid %" PRId64 " and to pid %" PRId64
				     " (%s): importers split the thread", tid, binds[k].pid, pid, where);
			return;
		}
	}
}

/* ---- raw bytes ---- */

static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
		     c >= 0xf0 && c <= 0xf4 ? 4 : 0;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0;
	return len;
}

static void check_bytes(const char *buf, size_t len)
{
	static const char sys_key[] = "\"systemTraceEvents\":\"";
	const unsigned char *p = (const unsigned char *)buf;
	bool in_str = false, in_sys = false;
	size_t l;

	if (strncmp(buf, "{\"traceEvents\"", 14))
		fail("does not start with {\"traceEvents\"");
	for (size_t i = 0; i < len; i++) {
		if (p[i] >= 0x80) {
			if (!(l = utf8_len(p + i, len - i)))
				fail("byte 0x%02x at offset %zu is not UTF-8", p[i], i);
			i += l ? l - 1 : 0;
		} else if (!in_str) {
			in_str = p[i] == '"';
			if (in_str && !strncmp(buf + i, sys_key, sizeof(sys_key) - 1)) {
				i += sizeof(sys_key) - 2;
				in_sys = true;
			}
		} else if (p[i] < 0x20) {
			fail("raw control character 0x%02x in a string at offset %zu", p[i], i);
		} else if (p[i] == '"') {
			in_str = in_sys = false;
		} else if (p[i] == '\\' && i + 1 < len) {
			i++;
			if (in_sys && !strchr("\"\\/bfnrt", buf[i]))
				fail("escape \\%c in systemTraceEvents (offset %zu): only short forms are unescaped",
				     buf[i], i);
			else if (buf[i] == 'u' && i + 4 < len && (buf[i + 1] == 'd' || buf[i + 1] == 'D') &&
				 strchr("89abAB", buf[i + 2]))
				fail("surrogate escape \\u%.4s at offset %zu is fatal for Perfetto", buf + i + 1, i);
		}
	}
}

/* ---- traceEvents ---- */

static bool is_int(json_object *o)
{
	return o && json_object_is_type(o, json_type_int);
}

static bool get_id(json_object *ev, const char *key, int64_t *v, long idx)
{
	json_object *o;

	if (!json_object_object_get_ex(ev, key, &o))
		return false;
	if (!is_int(o)) {
		fail("event %ld: %s is not an integer", idx, key);
		return false;
	}
	*v = json_object_get_int64(o);
	if (*v < 0 || *v > 0xffffffffll) {
		fail("event %ld: %s %" PRId64 " outside [0, 2^32): read as 0", idx, key, *v);
		return false;
	}
	return true;
}

/* ts and dur: a JSON number of us with exactly three decimals, exact in ns. */
static bool get_us(json_object *ev, const char *key, double *v, long idx)
{
	static regex_t re;
	static bool compiled;
	json_object *o;
	const char *s;

	if (!compiled && regcomp(&re, "^[0-9]+\\.[0-9]{3}$", REG_EXTENDED | REG_NOSUB))
		exit(2);
	compiled = true;
	if (!json_object_object_get_ex(ev, key, &o)) {
		fail("event %ld: no %s", idx, key);
		return false;
	}
	s = json_object_get_string(o);
	if (!json_object_is_type(o, json_type_double) || regexec(&re, s, 0, NULL, 0)) {
		fail("event %ld: %s %s is not microseconds with three decimals", idx, key, s);
		return false;
	}
	*v = json_object_get_double(o);
	if (*v * 1000 >= TWO53)
		fail("event %ld: %s %s is beyond 2^53 ns: not exact as a double", idx, key, s);
	return true;
}

struct slice {
	int64_t pid, tid;
	long long ts, dur;	/* ns, as Perfetto rounds them */
};

static struct slice *slices;
static size_t nslices, scap;

static void add_slice(int64_t pid, int64_t tid, double ts_us, double dur_us)
{
	long long ts = llround(ts_us * 1000), dur = llround(dur_us * 1000);

	if (nslices == scap) {
		scap = scap ? scap * 2 : 1024;
		if (!(slices = realloc(slices, sizeof(*slices) * scap)))
			exit(2);
	}
	slices[nslices++] = (struct slice){ pid, tid, ts, dur };
}

static int slice_cmp(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->dur > y->dur ? -1 : x->dur < y->dur;
}

/* X slices must nest on their track, or Perfetto moves them to an overflow track. */
static void check_nesting(void)
{
	long long stack[256];
	int depth = 0;

	if (nslices)
		qsort(slices, nslices, sizeof(*slices), slice_cmp);
	for (size_t i = 0; i < nslices; i++) {
		const struct slice *s = &slices[i];
		long long end = s->ts + s->dur;

		if (i && (s->pid != slices[i - 1].pid || s->tid != slices[i - 1].tid))
			depth = 0;
		while (depth && stack[depth - 1] <= s->ts)
			depth--;
		if (depth && end > stack[depth - 1])
			fail("X slice at ts %lld ns on pid %" PRId64 " tid %" PRId64
			     " overlaps its parent (ends %lld ns after it)", s->ts, s->pid, s->tid,
			     end - stack[depth - 1]);
		else if (depth < 256)
			stack[depth++] = end;
	}
}

static const char *str_member(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static void check_meta(json_object *ev, const char *name, bool has_tid, long idx)
{
	json_object *args = NULL, *v;
	bool sort = strstr(name, "sort_index") != NULL;

	if (strcmp(name, "process_name") && strcmp(name, "thread_name") &&
	    strcmp(name, "process_sort_index") && strcmp(name, "thread_sort_index")) {
		fail("event %ld: M event \"%s\" is ignored by Perfetto", idx, name);
		return;
	}
	if (!strncmp(name, "thread_", 7) && !has_tid)
		fail("event %ld: %s without tid", idx, name);
	json_object_object_get_ex(ev, "args", &args);
	if (!args || !json_object_object_get_ex(args, sort ? "sort_index" : "name", &v) ||
	    !json_object_is_type(v, sort ? json_type_int : json_type_string))
		fail("event %ld: %s without args.%s", idx, name, sort ? "sort_index" : "name");
}

/* The events of an X slice: one object per event in args, named by the event. */
static void count_slice(json_object *args, const char *cat)
{
	json_object_object_foreach(args, key, val)
		if (json_object_is_type(val, json_type_object))
			count_of(cat, key)->got++;
}

/*
 * The system of a category "SYSTEM" or "SYSTEM,BUFFER" (in @buf), checked
 * against args.buffer.
 */
static const char *cat_system(const char *cat, json_object *args, char *buf, size_t n, long idx)
{
	const char *comma = cat ? strchr(cat, ',') : NULL;
	const char *b = args ? str_member(args, "buffer") : NULL;

	if (!cat)
		return NULL;
	if (!comma) {
		if (b)
			fail("event %ld: args.buffer \"%s\" but no buffer in its category", idx, b);
		return cat;
	}
	if (!b || strcmp(b, comma + 1))
		fail("event %ld: category \"%s\" names a buffer that args.buffer does not (%s)", idx,
		     cat, b ? b : "none");
	snprintf(buf, n, "%.*s", (int)(comma - cat), cat);
	return buf;
}

static void check_event(json_object *ev, long idx, long *nph)
{
	const char *ph = str_member(ev, "ph"), *name = str_member(ev, "name");
	const char *cat = str_member(ev, "cat"), *s;
	char sys[256];
	json_object *args = NULL;
	int64_t pid = -1, tid = -1;
	bool has_pid, has_tid;
	double ts = 0, dur = 0;

	if (!json_object_is_type(ev, json_type_object)) {
		fail("event %ld is not an object", idx);
		return;
	}
	if (!ph || strlen(ph) != 1 || !strchr("XiIMCBE", ph[0])) {
		fail("event %ld: ph %s is missing, ignored or misread by one importer", idx,
		     ph ? ph : "(none)");
		return;
	}
	nph[(unsigned char)ph[0]]++;
	if (!name)
		fail("event %ld: no name", idx);
	has_pid = get_id(ev, "pid", &pid, idx);
	has_tid = get_id(ev, "tid", &tid, idx);
	if (!has_pid)
		fail("event %ld: no valid pid", idx);
	if (has_tid && tid == 0 && pid != 0)
		fail("event %ld: tid 0 with pid %" PRId64 " is read as tid %" PRId64, idx, pid, pid);
	if (has_tid && has_pid)
		bind(tid, pid, "traceEvents");
	if (json_object_object_get_ex(ev, "args", &args) && !json_object_is_type(args, json_type_object))
		fail("event %ld: args is not an object", idx);
	if (ph[0] == 'M') {
		check_meta(ev, name ? name : "", has_tid, idx);
		return;
	}
	cat = cat_system(cat, args, sys, sizeof(sys), idx);
	get_us(ev, "ts", &ts, idx);
	if (!has_tid && ph[0] != 'C')
		fail("event %ld: %s event without tid", idx, ph);
	switch (ph[0]) {
	case 'X':
		if (get_us(ev, "dur", &dur, idx) && has_pid && has_tid)
			add_slice(pid, tid, ts, dur);
		if (args && cat)
			count_slice(args, cat);
		break;
	case 'i':
	case 'I':
		s = str_member(ev, "s");
		if (!s || !strchr("gpt", s[0]) || s[1])
			fail("event %ld: instant without s g/p/t", idx);
		if (name && cat && strcmp(cat, "tdat"))
			count_of(cat, name)->got++;
		break;
	case 'C':
		if (!args)
			fail("event %ld: C event without args", idx);
		break;
	}
}

/* ---- systemTraceEvents ---- */

#define D "[0-9]"
#define SP "[[:space:]]"
#define NSP "[^[:space:]]"

static regex_t re_perfetto, re_catapult, re_switch, re_wake, re_blocked, re_power, re_atrace;

static void compile_regexes(void)
{
	static const struct {
		regex_t *re;
		const char *src;
	} tab[] = {
		/* systrace_line_tokenizer.cc, partial match */
		{ &re_perfetto, "-(" D "+)" SP "+\\(?" SP "*(" D "+|-+)?\\)?" SP "?\\[(" D "+)\\]" SP
				"*([a-zA-Z.]{3}[0-9a-f.]{1,2}" SP "*)?(" D "+\\." D "+):" SP "+(" NSP "+):" },
		/* ftrace_importer.html, the form with a tgid */
		{ &re_catapult, "^" SP "*(.+)-(" D "+)" SP "+\\(" SP "*(" D "+|-+)\\)" SP "\\[(" D "+)\\]"
				SP "+[dX.][Nnp.][Hhs.][0-9a-f.][0-9a-f.]?" SP "+(" D "+\\." D "+):" SP
				"+(" NSP "+):" SP "(.*)$" },
		/* catapult sched parser; prev_state checked apart (Perfetto's set) */
		{ &re_switch, "^prev_comm=(.+) prev_pid=(" D "+) prev_prio=(" D "+) prev_state=(" NSP
			      "+) ==> next_comm=(.+) next_pid=(" D "+) next_prio=(" D "+)$" },
		{ &re_wake, "^comm=(.+) pid=(" D "+) prio=(" D "+)( success=" D "+)? target_cpu=(" D "+)$" },
		{ &re_blocked, "^pid=(" D "+) iowait=(" D ") caller=(.+)$" },
		{ &re_power, "^state=" D "+ cpu_id=" D "+$" },
		/* atrace (systrace_parser.h) that catapult also reads, and the clock sync */
		{ &re_atrace, "^(B\\|" D "+\\|.+|E|E\\|.*|C\\|" D "+\\|.+\\|-?" D "+|[SF]\\|" D "+\\|.+\\|"
			      D "+|trace_event_clock_sync: .*)$" },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (regcomp(tab[i].re, tab[i].src, REG_EXTENDED))
			exit(2);
}

static bool state_ok(const char *s)
{
	if (!strcmp(s, "R") || !strcmp(s, "R+"))
		return true;
	for (; *s; s++) {
		if (!strchr("SDTtXZPxKWNI", *s))
			return false;
		if (s[1] == '|' && s[2])
			s++;
		else if (s[1])
			return false;
	}
	return true;
}

static char *group(const char *line, const regmatch_t *m, char *buf, size_t size)
{
	size_t n = m->rm_so < 0 ? 0 : (size_t)(m->rm_eo - m->rm_so);

	if (n >= size)
		n = size - 1;
	memcpy(buf, line + (m->rm_so < 0 ? 0 : m->rm_so), n);
	buf[n] = '\0';
	return buf;
}

static void check_args(const char *event, const char *args, long ln)
{
	regmatch_t m[8];
	char st[64];

	if (!strcmp(event, "sched_switch")) {
		if (regexec(&re_switch, args, 8, m, 0))
			fail("line %ld: sched_switch args do not parse: %s", ln, args);
		else if (!state_ok(group(args, &m[4], st, sizeof(st))))
			fail("line %ld: prev_state %s is not a Perfetto state", ln, st);
	} else if (!strcmp(event, "sched_waking") || !strcmp(event, "sched_wakeup")) {
		if (regexec(&re_wake, args, 0, NULL, 0))
			fail("line %ld: %s args do not parse: %s", ln, event, args);
	} else if (!strcmp(event, "sched_blocked_reason")) {
		if (regexec(&re_blocked, args, 0, NULL, 0))
			fail("line %ld: sched_blocked_reason args do not parse: %s", ln, args);
	} else if (!strcmp(event, "cpu_frequency") || !strcmp(event, "cpu_idle")) {
		if (regexec(&re_power, args, 0, NULL, 0))
			fail("line %ld: %s args do not parse: %s", ln, event, args);
	} else if (!strcmp(event, "tracing_mark_write")) {
		if (regexec(&re_atrace, args, 0, NULL, 0))
			fail("line %ld: tracing_mark_write payload is not atrace: %s", ln, args);
	} else {
		fail("line %ld: event %s is dropped by Perfetto's text parser", ln, event);
	}
}

static const char *line_system(const char *event)
{
	if (!strcmp(event, "cpu_frequency") || !strcmp(event, "cpu_idle"))
		return "power";
	return strncmp(event, "sched_", 6) ? "ftrace" : "sched";
}

/* One line (without its \n): both regexes, the args grammar, the counts. */
static bool check_line(char *line, long ln)
{
	regmatch_t m[8];
	char event[64], tid[32], tgid[32];
	const char *args;

	if (regexec(&re_perfetto, line, 0, NULL, 0)) {
		fail("line %ld does not match Perfetto's regex (fatal there): %s", ln, line);
		return false;
	}
	if (regexec(&re_catapult, line, 8, m, 0)) {
		fail("line %ld does not match catapult's regex: %s", ln, line);
		return false;
	}
	group(line, &m[6], event, sizeof(event));
	args = line + m[7].rm_so;
	check_args(event, args, ln);
	group(line, &m[2], tid, sizeof(tid));
	group(line, &m[3], tgid, sizeof(tgid));
	if (tgid[0] != '-')
		bind(strtoll(tid, NULL, 10), strtoll(tgid, NULL, 10), "text line");
	if (!strcmp(event, "tracing_mark_write") && !strncmp(args, "trace_event_clock_sync:", 23)) {
		if (!strcmp(args, "trace_event_clock_sync: parent_ts=0"))
			return true;
		fail("line %ld: clock sync other than parent_ts=0", ln);
		return false;
	}
	count_of(line_system(event), strcmp(event, "tracing_mark_write") ? event : "print")->got++;
	return false;
}

static long check_system(json_object *o, long *nswitch)
{
	const char *s, *e;
	long ln = 0, n = 0;
	bool sync = false;

	if (!json_object_is_type(o, json_type_string)) {
		fail("systemTraceEvents is not a string (fatal for Perfetto)");
		return 0;
	}
	s = json_object_get_string(o);
	if (strncmp(s, "# tracer: nop\n", 14))
		fail("systemTraceEvents does not start with \"# tracer: nop\\n\"");
	for (; *s; s = e + 1) {
		char *line;

		ln++;
		if (!(e = strchr(s, '\n'))) {
			fail("last line of systemTraceEvents has no \\n (Perfetto drops it)");
			break;
		}
		if (e == s || *s == '#')
			continue;
		if (!(line = strndup(s, (size_t)(e - s))))
			exit(2);
		if (strchr(line, '\r'))
			fail("line %ld has a carriage return", ln);
		sync |= check_line(line, ln);
		*nswitch += strstr(line, ": sched_switch: ") != NULL;
		free(line);
		n++;
	}
	if (!sync)
		fail("no trace_event_clock_sync: parent_ts=0 line");
	return n;
}

/* ---- the document ---- */

static void check_metadata(json_object *top)
{
	static const char *const keys[] = { "uname", "clock", "trace_cmd_version", "file_version",
					    "compression", "ts_offset_ns", NULL };
	json_object *md, *v;

	if (!json_object_object_get_ex(top, "metadata", &md) ||
	    !json_object_is_type(md, json_type_object)) {
		fail("no metadata object");
		return;
	}
	for (int i = 0; keys[i]; i++)
		if (!json_object_object_get_ex(md, keys[i], &v))
			fail("metadata has no %s", keys[i]);
	if (json_object_object_get_ex(top, "displayTimeUnit", &v) &&
	    (!json_object_is_type(v, json_type_string) ||
	     (strcmp(json_object_get_string(v), "ns") && strcmp(json_object_get_string(v), "ms"))))
		fail("displayTimeUnit must be \"ms\" or \"ns\" (catapult throws)");
}

/* tdat-info --json: one object per line and input; add up the counts. */
static void read_info(const char *name)
{
	size_t len;
	char *buf = slurp(name, &len), *line, *save = NULL;

	if (!buf) {
		fprintf(stderr, "json-check: %s: %s\n", name, strerror(errno));
		exit(2);
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_object *o = json_tokener_parse(line), *ec;

		if (!o || !json_object_object_get_ex(o, "event_counts", &ec)) {
			fprintf(stderr, "json-check: %s: not tdat-info --json output\n", name);
			exit(2);
		}
		for (size_t i = 0; i < json_object_array_length(ec); i++) {
			json_object *e = json_object_array_get_idx(ec, i);

			count_of(str_member(e, "system"), str_member(e, "name"))->want +=
				json_object_get_int64(json_object_object_get(e, "count"));
		}
		json_object_put(o);
	}
	free(buf);
}

static json_object *parse(const char *buf, size_t len)
{
	json_tokener *tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	json_object *top;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	top = json_tokener_parse_ex(tok, buf, (int)len);
	if (!top)
		fail("not valid JSON: %s (offset %zu)",
		     json_tokener_error_desc(json_tokener_get_error(tok)), json_tokener_get_parse_end(tok));
	json_tokener_free(tok);
	return top;
}

int main(int argc, char **argv)
{
	const char *info = NULL;
	json_object *top, *te, *sys;
	long nph[256] = { 0 }, nlines = 0, nswitch = 0;
	size_t len;
	char *buf;

	if (argc == 4 && !strcmp(argv[1], "-i"))
		info = argv[2];
	if (argc != 2 && !info) {
		fprintf(stderr, "usage: json-check [-i INFO.json] FILE.json\n");
		return 2;
	}
	path = argv[argc - 1];
	if (!(buf = slurp(path, &len))) {
		fprintf(stderr, "json-check: %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (info)
		read_info(info);
	compile_regexes();
	check_bytes(buf, len);
	if (!(top = parse(buf, len)))
		return 1;
	if (!json_object_is_type(top, json_type_object) ||
	    !json_object_object_get_ex(top, "traceEvents", &te) || !json_object_is_type(te, json_type_array)) {
		fail("not the object form with a traceEvents array");
		return 1;
	}
	for (size_t i = 0; i < json_object_array_length(te); i++)
		check_event(json_object_array_get_idx(te, i), (long)i, nph);
	check_nesting();
	if (json_object_object_get_ex(top, "systemTraceEvents", &sys))
		nlines = check_system(sys, &nswitch);
	check_metadata(top);
	for (int i = 0; info && i < ncounts; i++)
		if (counts[i].got != counts[i].want)
			fail("%s: %lld events written, the file has %lld", counts[i].key, counts[i].got,
			     counts[i].want);
	printf("%s: %zu events (X %ld, i %ld, M %ld), %ld text lines (sched_switch %ld), %d event types: %s\n",
	       path, json_object_array_length(te), nph['X'], nph['i'], nph['M'], nlines, nswitch,
	       ncounts, nerrors ? "INVALID" : "ok");
	if (nerrors > MAX_REPORTS)
		fprintf(stderr, "json-check: %s: %d more problems\n", path, nerrors - MAX_REPORTS);
	json_object_put(top);
	free(buf);
	return nerrors ? 1 : 0;
}
