/*
 * t-capset.c - unit tests of what tdat-capture writes back to tracefs at
 * close (cap_restore_value() in libfmt/capture/capture.c): each setting it changed
 * must read as it did before, including the states a file can only be read
 * in, never written (trace_clock's list, a filter of "none", the buffer
 * size of a kernel that has not traced since boot); and the tracing_cpumask
 * it writes for -M (trace-cmd's hex mask) and --cpus (a list)
 * (cap_cpumask() in libfmt/capture/capture-set.c).  The live check of the same is
 * t-capture.sh, which needs root and tracefs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "../tap.h"

static void check(const char *rel, const char *read, const char *want, const char *what)
{
	char *text = strdup(read);

	if (!text)
		abort();
	is_str(cap_restore_value(rel, text), want, "%s", what);
	free(text);
}

/* cap_cpumask(@spec) on @ncpus CPUs gives @want, or (@want NULL) an error saying @why. */
static void mask(const char *spec, bool hex, int ncpus, const char *want, const char *why)
{
	char errmsg[TDAT_MSG_LEN] = "", *out = NULL;
	int ret = cap_cpumask(spec, hex, ncpus, &out, errmsg);

	if (want) {
		is_int(ret, 0, "%s '%s' on %d CPUs: accepted (%s)", hex ? "-M" : "--cpus", spec, ncpus,
		       errmsg);
		is_str(out ? out : "(null)", want, "%s '%s' on %d CPUs: tracing_cpumask %s",
		       hex ? "-M" : "--cpus", spec, ncpus, want);
	} else {
		is_int(ret, TDAT_EINVAL, "%s '%s' on %d CPUs: refused", hex ? "-M" : "--cpus", spec, ncpus);
		ok(strstr(errmsg, why) != NULL, "and the message says '%s' (%s)", why, errmsg);
	}
	free(out);
}

int main(void)
{
	check("trace_clock", "[local] global counter uptime perf mono\n", "local",
	      "trace_clock: the selected clock");
	check("trace_clock", "local global [mono] x86-tsc\n", "mono", "trace_clock: one not first");
	check("events/sched/sched_switch/filter", "none\n", "0", "a filter of none is cleared with 0");
	check("events/sched/sched_switch/filter", "prev_pid != 0\n", "prev_pid != 0",
	      "a filter is written back as it reads");
	check("buffer_size_kb", "1410\n", "1410", "a buffer size in use is written back");
	check("buffer_size_kb", "7 (expanded: 1408)\n", "1408",
	      "a buffer unused since boot gets the size the kernel grows it to");
	check("buffer_size_kb", "7 (expanded: 1408", "1408", "even without the closing parenthesis");
	check("tracing_on", "1\n", "1", "a number loses its newline");
	check("tracing_on", "", "", "an empty file stays empty");

	mask("3", true, 2, "3", NULL);
	mask("1", true, 2, "1", NULL);
	mask("0x2", true, 2, "2", NULL);
	mask("-1", true, 2, "3", NULL);
	mask("-1", true, 40, "ff,ffffffff", NULL);
	mask("1,00000000", true, 40, "1,00000000", NULL);
	mask("100000000", true, 40, "1,00000000", NULL);
	mask("Ab", true, 8, "ab", NULL);
	mask("4", true, 2, NULL, "CPU 2 does not exist (0-1)");
	mask("0", true, 2, NULL, "selects no CPU");
	mask("zz", true, 2, NULL, "is not a hex CPU mask");
	mask("", true, 2, NULL, "is not a hex CPU mask");
	mask("0x", true, 2, NULL, "is not a hex CPU mask");
	mask(",1", true, 2, NULL, "is not a hex CPU mask");
	mask("1,", true, 2, NULL, "is not a hex CPU mask");
	mask("1,,1", true, 40, NULL, "is not a hex CPU mask");
	mask("1,100000000", true, 40, NULL, "is not a hex CPU mask");
	mask("0,2-3", false, 4, "d", NULL);
	mask("1", false, 2, "2", NULL);
	mask("32", false, 33, "1,00000000", NULL);
	mask("2", false, 2, NULL, "CPU 2 does not exist");
	mask("1-0", false, 2, NULL, "is not a CPU list");
	mask("-1", false, 2, NULL, "is not a CPU list");
	mask("0,", false, 2, NULL, "is not a CPU list");
	mask("", false, 2, NULL, "selects no CPU");
	return done_testing();
}
