/*
 * t-capset.c - unit tests of what tdat-capture writes back to tracefs at
 * close (cap_restore_value() in libfmt/capture.c): each setting it changed
 * must read as it did before, including the states a file can only be read
 * in, never written (trace_clock's list, a filter of "none", the buffer
 * size of a kernel that has not traced since boot).  The live check of the
 * same is t-capture.sh, which needs root and tracefs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "../tap.h"

static void check(const char *rel, const char *read, const char *want, const char *what)
{
	char *text = strdup(read);

	if (!text)
		abort();
	is_str(cap_restore_value(rel, text), want, "%s", what);
	free(text);
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
	return done_testing();
}
