/*
 * t-sched.c - unit tests of the scheduling state machine (libfmt/model/sched.c):
 * a short made-up timeline of switches and wake-ups gives the expected
 * sched slices and thread states, lost switches end what they hide with
 * dur -1 as trace processor does; the wake-ups' latencies (wakeup_latency);
 * prev_state letters as each kernel's
 * sched_switch format prints them (6.x, 4.9, 4.4: the letters, the mask,
 * the "+" bit, bits no letter names); the atrace grammar of trace_marker text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "model/model.h"
#include "../tap.h"

#define MAXROWS 32

static struct sched_slice_row slices[MAXROWS];
static struct sched_state_row states[MAXROWS];
static int nslices, nstates;

static int on_slice(void *ctx, const struct sched_slice_row *r)
{
	(void)ctx;
	if (nslices < MAXROWS)
		slices[nslices++] = *r;
	return 0;
}

static int on_state(void *ctx, const struct sched_state_row *r)
{
	(void)ctx;
	if (nstates < MAXROWS)
		states[nstates++] = *r;
	return 0;
}

static const struct sched_state_row *state_by_id(int64_t id)
{
	for (int i = 0; i < nstates; i++)
		if (states[i].id == id)
			return &states[i];
	return NULL;
}

static struct sched_wakeup_row wakeups[MAXROWS];
static int nwakeups;

static int on_wakeup(void *ctx, const struct sched_wakeup_row *r)
{
	(void)ctx;
	if (nwakeups < MAXROWS)
		wakeups[nwakeups++] = *r;
	return 0;
}

static const struct sched_wakeup_row *wakeup_by_id(int64_t id)
{
	for (int i = 0; i < nwakeups; i++)
		if (wakeups[i].id == id)
			return &wakeups[i];
	return NULL;
}

static void sw(struct sched_sm *s, uint64_t ts, int cpu, int prev, const char *st, int next)
{
	struct sched_switch_in in = {
		.ts = ts, .cpu = cpu, .ucpu = cpu, .prev_utid = prev, .next_utid = next,
		.next_prio = 120, .prev_state = sched_intern(s, st),
	};

	is_int(sched_switch(s, &in), 0, "switch at %llu", (unsigned long long)ts);
}

static void timeline(void)
{
	struct sched_ops ops = { .slice = on_slice, .state = on_state };
	struct sched_sm *s = sched_new(&ops);
	const struct sched_state_row *r;

	/* cpu 0: idle -> 5 (100) -> idle (200, 5 sleeps); 5 woken by 7 at 250; runs at 300 */
	sw(s, 100, 0, 0, "R", 5);
	sw(s, 200, 0, 5, "S", 0);
	is_int(sched_wake(s, 250, 5, 7, -1), 0, "wake");
	is_int(sched_wake(s, 260, 5, 8, -1), 0, "a second wake-up of a runnable task");
	sw(s, 300, 0, 0, "R", 5);
	sw(s, 400, 0, 5, "R+", 6);	/* preempted */
	is_int(sched_finish(s), 0, "finish");

	is_int(nslices, 4, "four slices");
	ok(slices[0].id == 0 && slices[0].ts == 100 && slices[0].dur == 100 && slices[0].utid == 5 &&
	   !strcmp(slices[0].end_state, "S"), "5 ran 100..200 and slept");
	ok(slices[1].id == 1 && slices[1].utid == 0 && slices[1].dur == 100, "idle 200..300");
	ok(slices[2].utid == 5 && slices[2].ts == 300 && !strcmp(slices[2].end_state, "R+"), "5 preempted");
	ok(slices[3].utid == 6 && slices[3].dur == -1 && !slices[3].end_state, "6 still running: dur -1");

	/* thread 5: Running, S, R (waker 7), Running, R+ (open); thread 6: Running (open) */
	is_int(nstates, 6, "six thread states");
	r = state_by_id(0);
	ok(r && r->utid == 5 && !strcmp(r->state, "Running") && r->cpu == 0 && r->dur == 100, "Running on cpu 0");
	r = state_by_id(1);
	ok(r && !strcmp(r->state, "S") && r->ts == 200 && r->dur == 50 && r->cpu == -1, "S until woken");
	r = state_by_id(2);
	ok(r && !strcmp(r->state, "R") && r->ts == 250 && r->dur == 50 && r->waker_utid == 7,
	   "R from the first wake-up, by 7, until it runs");
	r = state_by_id(3);
	ok(r && !strcmp(r->state, "Running") && r->ts == 300 && r->dur == 100, "Running again");
	r = state_by_id(4);
	ok(r && r->utid == 5 && !strcmp(r->state, "R+") && r->dur == -1, "R+ open at the end");
	r = state_by_id(5);
	ok(r && r->utid == 6 && !strcmp(r->state, "Running") && r->dur == -1, "6 Running at the end");
	for (int i = 0; i < nstates; i++)
		ok(states[i].utid != 0, "no thread state for the idle task (row %d)", i);
	sched_free(s);
}

static const struct sched_slice_row *slice_by_id(int64_t id)
{
	for (int i = 0; i < nslices; i++)
		if (slices[i].id == id)
			return &slices[i];
	return NULL;
}

/* Trace processor's rules where switches were lost (ftrace_sched_event_tracker.cc). */
static void lost_switches(void)
{
	struct sched_ops ops = { .slice = on_slice, .state = on_state };
	struct sched_sm *s = sched_new(&ops);
	const struct sched_slice_row *k;
	const struct sched_state_row *r;

	nslices = nstates = 0;
	sw(s, 100, 1, 0, "R", 9);		/* slice 0, state 0: 9 Running */
	sw(s, 200, 1, 0, "R", 4);		/* 9's switch-out was lost; slice 1, state 1 */
	sw(s, 300, 0, 0, "R", 9);		/* slice 2, state 2: 9 seen again on cpu 0 */
	is_int(sched_wake(s, 350, 4, 9, -1), 0, "wake of a running task");
	sw(s, 400, 1, 4, "S", 0);		/* slice 3, state 3: S */
	is_int(sched_wake(s, 450, 4, 9, -1), 0, "wake");	/* state 4: R */
	sw(s, 500, 0, 4, "D", 0);		/* 9 -> 4 on cpu 0 lost; slice 4, state 5: D */
	is_int(sched_finish(s), 0, "finish");

	k = slice_by_id(0);
	ok(k && k->utid == 9 && k->dur == -1 && !k->end_state,
	   "a slice whose switch-out was lost ends unknown: dur -1, end_state NULL");
	k = slice_by_id(1);
	ok(k && k->utid == 4 && k->dur == 200 && !strcmp(k->end_state, "S"),
	   "a switch that names the task the CPU ran ends its slice");
	k = slice_by_id(2);
	ok(k && k->utid == 9 && k->dur == -1 && !k->end_state,
	   "9's slice on cpu 0 ends unknown too");
	r = state_by_id(0);
	ok(r && r->utid == 9 && !strcmp(r->state, "Running") && r->dur == 200,
	   "9 Running until it is switched in again");
	r = state_by_id(3);
	ok(r && r->utid == 4 && !strcmp(r->state, "S") && r->ts == 400 && r->dur == 50,
	   "4 S until woken");
	r = state_by_id(4);
	ok(r && r->utid == 4 && !strcmp(r->state, "R") && r->ts == 450 && r->dur == -1,
	   "4 switched out when not Running: its R ends unknown");
	r = state_by_id(5);
	ok(r && r->utid == 4 && !strcmp(r->state, "D") && r->ts == 500 && r->dur == -1,
	   "and its end state starts");
	sched_free(s);
}

/* A wake-up ends R+ (a task preempted on its way to sleep), not R; task_newtask opens R. */
static void wake_rules(void)
{
	struct sched_ops ops = { .slice = on_slice, .state = on_state };
	struct sched_sm *s = sched_new(&ops);
	const struct sched_state_row *r;

	nslices = nstates = 0;
	sw(s, 100, 0, 0, "R", 5);		/* state 0 */
	sw(s, 200, 0, 5, "R+", 0);		/* state 1: R+ */
	is_int(sched_wake(s, 250, 5, 7, -1), 0, "wake of a preempted task");
	is_int(sched_wake(s, 260, 5, 8, -1), 0, "wake of a woken task");
	is_int(sched_new_task(s, 270, 11, 5), 0, "task_newtask");
	is_int(sched_wake(s, 280, 12, 5, -1), 0, "wake of a task not seen before");
	is_int(sched_finish(s), 0, "finish");
	r = state_by_id(1);
	ok(r && !strcmp(r->state, "R+") && r->dur == 50, "R+ ends at the wake-up");
	r = state_by_id(2);
	ok(r && r->utid == 5 && !strcmp(r->state, "R") && r->ts == 250 && r->waker_utid == 7 &&
	   r->dur == -1, "R from the first wake-up, by 7");
	r = state_by_id(3);
	ok(r && r->utid == 11 && !strcmp(r->state, "R") && r->ts == 270 && r->waker_utid == 5,
	   "a new task is runnable, woken by its creator");
	r = state_by_id(4);
	ok(r && r->utid == 12 && !strcmp(r->state, "R") && r->ts == 280,
	   "a task first seen woken is R");
	is_int(nstates, 5, "five states");
	sched_free(s);
}

/* sched_blocked_reason marks the last blocked state until the task runs (trace processor's). */
static void blocked_reason(void)
{
	struct sched_ops ops = { .slice = on_slice, .state = on_state };
	struct sched_sm *s = sched_new(&ops);
	const struct sched_state_row *r;

	nslices = nstates = 0;
	sw(s, 100, 0, 0, "R", 5);		/* state 0: Running */
	sw(s, 200, 0, 5, "D", 0);		/* state 1: D */
	is_int(sched_wake(s, 250, 5, 7, -1), 0, "wake");	/* state 2: R */
	sched_blocked(s, 5, 1, "folio_wait_bit");
	sw(s, 300, 0, 0, "R", 5);		/* state 3: Running */
	sched_blocked(s, 5, 0, "too_late");
	sw(s, 400, 0, 5, "S", 0);		/* state 4: S */
	sched_blocked(s, 5, 0, "do_sys_poll");
	is_int(sched_finish(s), 0, "finish");
	r = state_by_id(1);
	ok(r && !strcmp(r->state, "D") && r->io_wait == 1 && r->blocked_function &&
	   !strcmp(r->blocked_function, "folio_wait_bit"),
	   "a reason after the wake-up marks the D");
	r = state_by_id(2);
	ok(r && !strcmp(r->state, "R") && r->io_wait == -1 && !r->blocked_function, "not the R");
	r = state_by_id(3);
	ok(r && !strcmp(r->state, "Running") && !r->blocked_function, "nor, once it ran, anything");
	r = state_by_id(4);
	ok(r && !strcmp(r->state, "S") && r->io_wait == 0 && r->blocked_function &&
	   !strcmp(r->blocked_function, "do_sys_poll"), "a reason while asleep marks that sleep");
	is_int(nstates, 5, "five states, each reported once");
	sched_free(s);
}

static void prev_state(void)
{
	struct sched_states m;
	static const struct { int64_t v; const char *want; } cases[] = {
		{ 0, "R" }, { 0x100, "R+" }, { 1, "S" }, { 2, "D" }, { 0x80, "I" },
		{ 0x20, "Z" }, { 0x10, "X" }, { 3, "S|D" }, { 0x40, "P" },
	};
	char buf[64];

	sched_states_init(&m, NULL);
	is_uint(m.preempt, 0x100, "the + bit is TASK_REPORT_MAX 0x100");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sched_state_str(&m, cases[i].v, buf, sizeof(buf));
		is_str(buf, cases[i].want, "prev_state 0x%llx", (unsigned long long)cases[i].v);
	}
	sched_state_str(&m, 0x103, buf, 4);
	is_str(buf, "S|D", "cut to the buffer, NUL-terminated");
}

#define FIELDS \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" \
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n" \
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n" \
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n" \
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n" \
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n" \
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n" \
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n" \
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> " \
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
#define TAIL ", REC->next_comm, REC->next_pid, REC->next_prio\n"
#define MASK614 "((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | " \
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)"

/* The sched_switch formats of three kernels, as their tracefs prints them. */
static const char *const formats[] = {
	/* 6.18 (testdata/v6.dat) */
	"name: sched_switch\nID: 372\n" FIELDS
	"(REC->prev_state & " MASK614 ") ? __print_flags(REC->prev_state & " MASK614 ", \"|\", "
	"{ 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, "
	"{ 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, "
	"{ 0x00000080, \"I\" }) : \"R\", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | "
	"0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\""
	TAIL,
	/* 4.9 (include/trace/events/sched.h, TASK_STATE_MAX 4096) */
	"name: sched_switch\nID: 272\n" FIELDS
	"REC->prev_state & (4096-1) ? __print_flags(REC->prev_state & (4096-1), \"|\", "
	"{ 1, \"S\"} , { 2, \"D\" }, { 4, \"T\" }, { 8, \"t\" }, { 16, \"Z\" }, { 32, \"X\" }, "
	"{ 64, \"x\" }, { 128, \"K\" }, { 256, \"W\" }, { 512, \"P\" }, { 1024, \"N\" }) : \"R\", "
	"REC->prev_state & 4096 ? \"+\" : \"\"" TAIL,
	/* 4.4-era (TASK_STATE_MAX 1024, no N) */
	"name: sched_switch\nID: 68\n" FIELDS
	"REC->prev_state & (1024-1) ? __print_flags(REC->prev_state & (1024-1), \"|\", "
	"{ 1, \"S\"} , { 2, \"D\" }, { 4, \"T\" }, { 8, \"t\" }, { 16, \"Z\" }, { 32, \"X\" }, "
	"{ 64, \"x\" }, { 128, \"K\" }, { 256, \"W\" }, { 512, \"P\" }) : \"R\", "
	"REC->prev_state & 1024 ? \"+\" : \"\"" TAIL,
};

static void kernel_states(void)
{
	static const struct { int k; int64_t v; const char *want; } cases[] = {
		{ 0, 0, "R" }, { 0, 0x100, "R+" }, { 0, 0x80, "I" }, { 0, 0x10, "X" },
		{ 0, 0x40, "P" }, { 0, 0x102, "D+" },
		{ 1, 0, "R" }, { 1, 0x1000, "R+" }, { 1, 0x40, "x" }, { 1, 0x82, "D|K" },
		{ 1, 0x402, "D|N" }, { 1, 0x10, "Z" }, { 1, 0x20, "X" }, { 1, 0x100, "W" },
		{ 1, 0x200, "P" }, { 1, 0x800, "0x800" }, { 1, 0x801, "S|0x800" },
		{ 1, 0x2000, "R" }, { 1, 0x1001, "S+" },
		{ 2, 0x400, "R+" }, { 2, 0x40, "x" }, { 2, 0x1000, "R" },
	};
	static const uint64_t preempt[] = { 0x100, 0x1000, 0x400 }, mask[] = { 0xff, 0xfff, 0x3ff };
	struct sched_states m[3];
	struct tep_handle *tep = tep_alloc();
	struct tep_event *e;
	char buf[64];

	for (int k = 0; k < 3; k++) {
		e = NULL;
		ok(tep && tep_parse_format(tep, &e, formats[k], strlen(formats[k]), "sched") == 0 && e,
		   "kernel %d's format parses", k);
		sched_states_init(&m[k], e);
		is_uint(m[k].preempt, preempt[k], "kernel %d: the + bit", k);
		is_uint(m[k].mask, mask[k], "kernel %d: the mask", k);
	}
	is_int(m[1].n, 11, "4.9: eleven letters");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sched_state_str(&m[cases[i].k], cases[i].v, buf, sizeof(buf));
		is_str(buf, cases[i].want, "kernel %d: prev_state 0x%llx", cases[i].k,
		       (unsigned long long)cases[i].v);
	}
	tep_free(tep);
}

static void atrace(void)
{
	struct atrace a;

	ok(atrace_parse("B|123|frame\n", 12, &a) && a.kind == 'B' && a.pid == 123 &&
	   a.name_len == 5 && !memcmp(a.name, "frame", 5), "B|pid|name");
	ok(atrace_parse("B|12|a|b", 8, &a) && a.name_len == 3, "a begin name keeps its bars");
	ok(atrace_parse("E\n", 2, &a) && a.kind == 'E' && !a.has_pid, "E");
	ok(atrace_parse("E|77", 4, &a) && a.kind == 'E' && a.pid == 77, "E|pid");
	ok(atrace_parse("C|5|queue|-42\n", 14, &a) && a.kind == 'C' && a.value == -42 &&
	   a.name_len == 5, "C|pid|name|value");
	ok(atrace_parse("I|5|tick", 8, &a) && a.kind == 'I', "I|pid|name");
	ok(!atrace_parse("plain marker line\n", 18, &a), "plain text is not atrace");
	ok(!atrace_parse("B|x|name", 8, &a), "a pid must be a number");
	ok(!atrace_parse("C|5|name|many", 13, &a), "a counter needs an integer");
	ok(!atrace_parse("Begin", 5, &a), "B must be followed by a bar");
	ok(!atrace_parse("", 0, &a), "empty");
}

/*
 * A row per wake-up that made a task runnable: the latency to the switch
 * that ran it and where; -1 (and no CPU) if it never ran or that switch
 * was lost; none for a wake-up of a running or runnable task, or a new task.
 */
static void wakeup_latency(void)
{
	struct sched_ops ops = { .slice = on_slice, .state = on_state, .wakeup = on_wakeup };
	struct sched_sm *s = sched_new(&ops);
	const struct sched_wakeup_row *w;

	nwakeups = 0;
	sw(s, 100, 0, 0, "R", 5);
	sw(s, 200, 0, 5, "S", 0);
	is_int(sched_wake(s, 210, 5, 0, -1), 0, "wake 5 (to an unknown CPU)");
	is_int(sched_wake(s, 220, 5, 8, 1), 0, "wake 5 again: no row");
	sw(s, 300, 1, 0, "R", 5);	/* runs on cpu 1 after 90 */
	is_int(sched_wake(s, 310, 5, 9, 1), 0, "wake of a running task: no row");
	is_int(sched_wake(s, 320, 6, 5, 0), 0, "wake 6, never seen");
	sw(s, 330, 0, 6, "S", 0);	/* 6 leaves cpu 0: its switch-in was lost */
	is_int(sched_wake(s, 340, 6, 5, 1), 0, "wake 6 again");
	is_int(sched_new_task(s, 350, 7, 5), 0, "new task 7: no row");
	is_int(sched_wake(s, 360, 8, 5, 0), 0, "wake 8, which never runs");
	is_int(sched_finish(s), 0, "finish");

	is_int(nwakeups, 4, "four wake-ups made a task runnable");
	w = wakeup_by_id(0);
	ok(w && w->ts == 210 && w->dur == 90 && w->utid == 5 && w->waker_utid == 0 &&
	   w->target_cpu == -1 && w->cpu == 1 && w->ucpu == 1, "5: woken at 210, ran on cpu 1 at 300");
	w = wakeup_by_id(1);
	ok(w && w->ts == 320 && w->utid == 6 && w->waker_utid == 5 && w->target_cpu == 0 &&
	   w->dur == -1 && w->cpu == -1, "6: the switch that ran it was lost: dur -1");
	w = wakeup_by_id(2);
	ok(w && w->ts == 340 && w->utid == 6 && w->target_cpu == 1 && w->dur == -1,
	   "6 woken again, never ran");
	w = wakeup_by_id(3);
	ok(w && w->ts == 360 && w->utid == 8 && w->dur == -1 && w->cpu == -1, "8 never ran");
	sched_free(s);
}

int main(void)
{
	timeline();
	wakeup_latency();
	lost_switches();
	wake_rules();
	blocked_reason();
	prev_state();
	kernel_states();
	atrace();
	return done_testing();
}
