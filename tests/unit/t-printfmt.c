/*
 * t-printfmt.c - a seeded random search of print formats, the way the
 * text writer meets them: each format (libtraceevent's operators, casts,
 * helpers and printf conversions over fields of every kind) goes through
 * tep_guard_format(), is parsed, and is printed for 40 random records
 * that tep_guard_record() lets through (and the fields of those it refuses
 * for their print format, as the text writer prints them), and again as
 * trace-cmd report -R prints them (tep_print_fields()).  Records lie at
 * the end of a page whose next page is unmapped, so a read past one
 * faults.  Batches run in child processes: no format may crash, abort or
 * hang libtraceevent.
 * Found with it: array indexes read outside the record, "%*s" widths of
 * 2^31, __rel_loc lengths written through NULL, divisors whose parentheses
 * libtraceevent drops, sizeof(int) freed twice, and refused records whose
 * fields were printed through the refused conversion.
 *
 * TDAT_PRINTFMT_TRIALS and TDAT_PRINTFMT_SEED run a longer or another search.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "read/read.h"
#include "../tap.h"

#define BATCH		500
#define RECORDS		40
#define PAGE		4096
#define EVENT_ID	7
#define TRIAL_TIMEOUT	20	/* seconds */

static unsigned long long rng;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (unsigned)(rng % n) : 0;
}

#define PICK(a) (a)[rnd(sizeof(a) / sizeof((a)[0]))]

static const char *const operands[] = {
	"REC->a", "REC->b", "REC->c", "REC->h", "REC->arr", "REC->w", "REC->s", "REC->common_pid",
	"0", "1", "-1", "2", "4", "8", "29", "4096", "0xffffffff", "0x8000000000000000", "\"str\"",
	"sizeof(int)", "sizeof(long)", "sizeof(unsigned)", "sizeof(u64)",
	"__get_str(s)", "__get_dynamic_array(s)", "__get_dynamic_array_len(s)", "__get_bitmask(s)",
	"__get_cpumask(s)", "__get_rel_str(r)", "__get_rel_dynamic_array(r)", "__get_rel_dynamic_array_len(r)",
	"REC->arr[1]", "REC->arr[100]", "REC->arr[-1]", "REC->arr[0x7fffffff]", "REC->arr[REC->a]",
	"REC->arr[REC->h]", "REC->w[REC->b]", "__get_dynamic_array(s)[REC->a]",
};
static const char *const binary[] = {
	"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "&&", "||", "==", "!=", "<", ">", "<=", ">=",
};
static const char *const casts[] = {
	"(int)", "(u8)", "(unsigned long)", "(char *)", "(s16)", "(u64)", "(void *)", "(unsigned)", "(bool)",
};
static const char *const conversions[] = {
	"%d", "%s", "%lx", "%p", "%pS", "%pM", "%pI4", "%pI6c", "%pU", "%*s", "%.*s", "%-*s", "%*d", "%.*d",
	"%c", "%llu", "%pB", "%ps", "%pISpc", "%pm", "%u", "%08x", "%hhd", "%pf", "%*pbl", "%*phD", "%s:%d",
	"%99999999d",
};
static const char *const helpers[] = {
	"__print_hex", "__print_hex_str", "__print_array", "__print_symbolic", "__print_flags",
	"__print_symbolic_u64", "__print_flags_u64", "__print_ns_to_secs", "__print_ns_without_secs",
	"__le16_to_cpup", "__print_dynamic_array", "scsi_trace_parse_cdb",
};
static const char *const names[] = {
	"t", "sched_switch", "sched_wakeup", "irq_handler_entry", "kvm_exit", "softirq_entry", "kernel_stack",
};

struct text {
	char buf[4096];
	size_t len;
};

static void put(struct text *t, const char *s)
{
	size_t n = strlen(s);

	if (t->len + n < sizeof(t->buf)) {
		memcpy(t->buf + t->len, s, n + 1);
		t->len += n;
	}
}

static void expr(struct text *t, int depth);

static void call(struct text *t, int depth)
{
	unsigned h = rnd(sizeof(helpers) / sizeof(helpers[0]));

	put(t, helpers[h]);
	put(t, "(");
	expr(t, depth + 1);
	if (h == 3 || h == 5) {
		put(t, ", { 0, \"zero\" }, { 1, \"one\" }");
	} else if (h == 4 || h == 6) {
		put(t, ", \"|\", { 1, \"A\" }, { 2, \"B\" }");
	} else if (h < 7 || h > 9) {
		for (unsigned n = 1 + rnd(3); n; n--) {
			put(t, ", ");
			expr(t, depth + 1);
		}
	}
	put(t, ")");
}

static void expr(struct text *t, int depth)
{
	switch (depth > 4 || t->len > sizeof(t->buf) - 400 ? 0 : rnd(14)) {
	case 4: case 5: case 6:
		expr(t, depth + 1);
		put(t, " ");
		put(t, PICK(binary));
		put(t, " ");
		expr(t, depth + 1);
		break;
	case 7:
		put(t, "(");
		expr(t, depth + 1);
		put(t, ")");
		break;
	case 8:
		put(t, PICK(casts));
		expr(t, depth + 1);
		break;
	case 9:
		expr(t, depth + 1);
		put(t, " ? ");
		expr(t, depth + 1);
		put(t, rnd(8) ? " : " : " ");
		expr(t, depth + 1);
		break;
	case 10:
		call(t, depth);
		break;
	case 11:
		put(t, rnd(3) == 0 ? "-" : rnd(2) ? "!" : "~");
		expr(t, depth + 1);
		break;
	default:
		put(t, PICK(operands));
		break;
	}
}

/* One format: every kind of field, then a random print format. */
static void make_format(struct text *t)
{
	struct text pf = { .len = 0 }, args = { .len = 0 };
	unsigned n = 1 + rnd(3), convs = n + (rnd(8) == 0) - (rnd(8) == 0);

	pf.buf[0] = args.buf[0] = '\0';
	for (unsigned i = 0; i < convs; i++) {
		put(&pf, PICK(conversions));
		put(&pf, " ");
	}
	for (unsigned i = 0; i < n; i++) {
		put(&args, ", ");
		expr(&args, 0);
	}
	t->len = (size_t)snprintf(t->buf, sizeof(t->buf),
		"name: %s\nID: %d\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:unsigned int b;\toffset:12;\tsize:4;\tsigned:0;\n"
		"\tfield:char arr[8];\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:__data_loc char[] s;\toffset:24;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned long c;\toffset:28;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned short h;\toffset:36;\tsize:2;\tsigned:0;\n"
		"\tfield:__rel_loc u8[] r;\toffset:38;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned long w[2];\toffset:42;\tsize:16;\tsigned:0;\n"
		"\nprint fmt: \"%s\"%s\n", PICK(names), EVENT_ID, pf.buf, args.buf);
	if (t->len >= sizeof(t->buf))
		t->len = sizeof(t->buf) - 1;
}

/* A random record of @size bytes ending RECORD_SLACK zero bytes before @page_end, as the decoder leaves it. */
static unsigned char *make_record(unsigned char *page_end, unsigned size)
{
	unsigned char *d = page_end - size - RECORD_SLACK;

	for (unsigned i = 0; i < size; i++) {
		unsigned r = rnd(8);

		d[i] = r == 0 ? 0xff : r < 4 ? 0 : r == 4 ? (unsigned char)rnd(256) : (unsigned char)rnd(16);
	}
	memset(d + size, 0, RECORD_SLACK);
	d[0] = EVENT_ID;
	d[1] = 0;
	if (size > 58 && rnd(8)) {	/* mostly dynamic fields that fit */
		unsigned off = 58 + rnd(size - 58), len = rnd(size - off + 1);

		d[24] = (unsigned char)off, d[25] = 0, d[26] = (unsigned char)len, d[27] = 0;
		off = 58 + rnd(size - 58);
		len = rnd(size - off + 1);
		d[38] = (unsigned char)(off - 42), d[39] = 0, d[40] = (unsigned char)len, d[41] = 0;
	}
	return d;
}

struct counts {
	long formats, printed, refused, fields;
	long raw, raw_refused;	/* the same for -R */
};

static void seed_trial(unsigned long long seed, unsigned long long i)
{
	rng = ((seed * 1000003ull + i) * 0x9E3779B97F4A7C15ull) | 1;
}

static void trial(unsigned char *page_end, struct counts *n)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_guard_type gt = { .event = NULL };
	struct tep_event *ev;
	struct trace_seq s;
	struct text fmt;
	enum tep_guard g;
	size_t keep;

	make_format(&fmt);
	if (!tep)
		return;
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, PAGE);
	tep_guard_plugins(tep);
	g = tep_guard_format(fmt.buf, &keep);
	if (g == TEP_GUARD_BAD || tep_parse_event(tep, fmt.buf, g == TEP_GUARD_OK ? fmt.len : keep, "sys") ||
	    !(ev = tep_find_event(tep, EVENT_ID))) {
		tep_free(tep);
		return;
	}
	if (!(ev->flags & TEP_EVENT_FL_FAILED))
		n->formats++;	/* printed through its print format, not as [FAILED TO PARSE] */
	trace_seq_init(&s);
	for (int i = 0; i < RECORDS; i++) {
		unsigned size = rnd(4) ? 58 + rnd(30) : rnd(90);
		struct tep_record rec = { .size = (int)size };
		char why[256];

		rec.data = make_record(page_end, size);
		/* through its print format, then as trace-cmd report -R prints it */
		for (int raw = 0; raw < 2; raw++) {
			trace_seq_reset(&s);
			switch (tep_guard_record(&gt, ev, rec.data, size, raw, why, sizeof(why))) {
			case TEP_RECORD_SAFE:
				++*(raw ? &n->raw : &n->printed);
				tep_print_event(tep, &s, &rec, "%s",
						raw ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
				break;
			case TEP_RECORD_BAD_PRINT:	/* the text writer prints its fields instead */
				++*(raw ? &n->raw_refused : &n->refused);
				n->fields += !raw;
				tep_guard_print_fields(&s, &rec, ev);
				break;
			default:
				++*(raw ? &n->raw_refused : &n->refused);
			}
			tep_guard_refused();
		}
	}
	trace_seq_destroy(&s);
	tep_free(tep);
}

/* Trials [from, to) in a child; 0 if it exited normally, else its signal. Counts come back through a pipe. */
static int run_batch(unsigned long long seed, unsigned long long from, unsigned long long to,
		     unsigned char *page_end, struct counts *total)
{
	int fds[2], st = 0;
	struct counts n = { 0 };
	pid_t pid;

	if (pipe(fds))
		bail_out("pipe: %m");
	if (!(pid = fork())) {
		close(fds[0]);
		for (unsigned long long i = from; i < to; i++) {
			/* a hang is one trial that runs for seconds (a trial takes
			 * milliseconds, even under ASan): SIGALRM.  Timed per trial,
			 * not per batch, so a loaded machine is not a hang. */
			alarm(TRIAL_TIMEOUT);
			seed_trial(seed, i);
			trial(page_end, &n);
		}
		if (write(fds[1], &n, sizeof(n)) != (ssize_t)sizeof(n))
			_exit(3);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &n, sizeof(n)) == (ssize_t)sizeof(n)) {
		total->formats += n.formats;
		total->printed += n.printed;
		total->refused += n.refused;
		total->fields += n.fields;
		total->raw += n.raw;
		total->raw_refused += n.raw_refused;
	}
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		bail_out("fork: %m");
	return WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st) ? -1 : 0;
}

/* The first trial of a failed batch that fails alone, shown for a rerun. */
static void show_failure(unsigned long long seed, unsigned long long from, unsigned long long to,
			 unsigned char *page_end)
{
	struct counts n = { 0 };
	struct text fmt;

	for (unsigned long long i = from; i < to; i++) {
		int sig = run_batch(seed, i, i + 1, page_end, &n);

		if (sig) {
			seed_trial(seed, i);
			make_format(&fmt);
			diag("trial %llu (seed %llu) ends with signal %d; its format:\n%s", i, seed, sig, fmt.buf);
			return;
		}
	}
	diag("no trial of %llu..%llu fails alone", from, to - 1);
}

int main(void)
{
	const char *e = getenv("TDAT_PRINTFMT_TRIALS"), *se = getenv("TDAT_PRINTFMT_SEED");
	unsigned long long trials = e ? strtoull(e, NULL, 0) : 20000, seed = se ? strtoull(se, NULL, 0) : 1;
	unsigned char *pages = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct counts n = { 0 };
	int failed = 0;

	tep_set_loglevel(TEP_LOG_NONE);
	if (pages == MAP_FAILED || mprotect(pages + PAGE, PAGE, PROT_NONE))
		bail_out("mmap: %m");
	for (unsigned long long b = 0; b < trials; b += BATCH) {
		unsigned long long end = b + BATCH < trials ? b + BATCH : trials;

		if (run_batch(seed, b, end, pages + PAGE, &n)) {
			if (!failed++)
				show_failure(seed, b, end, pages + PAGE);
		}
	}
	is_int(failed, 0, "%llu random print formats (seed %llu): no batch crashed, aborted or hung", trials, seed);
	diag("%ld formats libtraceevent reads; %ld records printed, %ld refused by the guard (%ld of them printed as raw fields)",
	     n.formats, n.printed, n.refused, n.fields);
	ok(n.formats > (long)trials / 5, "a fifth of the formats or more are read (the search reaches the printer)");
	ok(n.printed > n.refused, "most records print (the guard is not refusing everything)");
	ok(n.fields > (long)trials / 10, "records refused for their print format have their fields printed (the search reaches that too)");
	diag("raw (-R): %ld records printed, %ld refused", n.raw, n.raw_refused);
	ok(n.raw > n.printed && n.raw_refused < n.refused,
	   "raw printing (-R) refuses fewer records than printing through the print format");
	return done_testing();
}
