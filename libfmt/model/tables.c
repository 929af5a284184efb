/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tables.c - the one description of the model's tables (model.h, enum
 * mt_table): per table its name, per column its name, type, NULL rule and
 * the member of the row struct derive.c hands the writers its value comes
 * from.  The sqlite writer makes its CREATE TABLE statements, reserved
 * names and inserts from it (write/sqlite-model.c), the parquet writer its
 * schemas and column appends (write/parquet-model.c), so the two cannot
 * drift apart; doc/tdat-sqlite.7 documents the same columns.
 */
#include <stddef.h>
#include <string.h>

#include "model/model.h"

/* The mt_src of member @m of struct @T, from its C type. */
#define SRC(T, m) _Generic(((T *)0)->m, int: MS_INT, int64_t: MS_I64, uint64_t: MS_U64, \
			   bool: MS_BOOL, double: MS_DOUBLE, char *: MS_STR, const char *: MS_STR)

/* A column read from member @m, NULL as @null says (@cond: MN_UNLESS, MN_UNLESS_ID). */
#define COL(T, name, type, m, null) { name, type, SRC(T, m), null, offsetof(T, m), 0 }
#define COL_IF(T, name, type, m, null, cond) \
	{ name, type, SRC(T, m), null, offsetof(T, m), offsetof(T, cond) }
/* Text of @len bytes at @m, valid during the call. */
#define COL_N(T, name, m, len) { name, MT_TEXT, MS_STRN, MN_NEVER, offsetof(T, m), offsetof(T, len) }
/* A column with no value yet (always NULL). */
#define COL_NULL(name, type) { name, type, MS_NONE, MN_ALWAYS, 0, 0 }

#define TABLE(name, cols) { name, sizeof(cols) / sizeof(cols[0]), cols }

typedef struct pm_thread TH;
static const struct mt_col thread[] = {
	COL(TH, "utid", MT_I32, utid, MN_NEVER),
	COL(TH, "tid", MT_I64, tid, MN_NEVER),
	COL(TH, "name", MT_TEXT, name, MN_NEVER),
	COL_IF(TH, "start_ts", MT_I64, start_ts, MN_UNLESS, has_start),
	COL_IF(TH, "end_ts", MT_I64, end_ts, MN_UNLESS, has_end),
	COL(TH, "upid", MT_I32, upid, MN_NEG),
	COL_IF(TH, "is_main_thread", MT_I32, is_main, MN_UNLESS_ID, upid),
	COL(TH, "is_idle", MT_I32, is_idle, MN_NEVER),
	COL(TH, "input", MT_I32, input, MN_NEVER),
};

typedef struct pm_process PR;
static const struct mt_col process[] = {
	COL(PR, "upid", MT_I32, upid, MN_NEVER),
	COL(PR, "pid", MT_I64, pid, MN_NEVER),
	COL(PR, "name", MT_TEXT, name, MN_NEVER),
	COL_IF(PR, "start_ts", MT_I64, start_ts, MN_UNLESS, has_start),
	COL_IF(PR, "end_ts", MT_I64, end_ts, MN_UNLESS, has_end),
	COL(PR, "parent_upid", MT_I32, parent_upid, MN_NEG),
	COL(PR, "cmdline", MT_TEXT, cmdline, MN_NEVER),
	COL(PR, "input", MT_I32, input, MN_NEVER),
};

typedef struct sched_slice_row SS;
static const struct mt_col sched_slice[] = {
	COL(SS, "id", MT_I64, id, MN_NEVER),
	COL(SS, "ts", MT_I64, ts, MN_NEVER),
	COL(SS, "dur", MT_I64, dur, MN_NEVER),
	COL(SS, "cpu", MT_I32, cpu, MN_NEVER),
	COL(SS, "utid", MT_I32, utid, MN_NEVER),
	COL(SS, "end_state", MT_TEXT, end_state, MN_NEVER),
	COL(SS, "priority", MT_I32, priority, MN_NEVER),
	COL(SS, "ucpu", MT_I32, ucpu, MN_NEVER),
};

typedef struct sched_state_row ST;
static const struct mt_col thread_state[] = {
	COL(ST, "id", MT_I64, id, MN_NEVER),
	COL(ST, "ts", MT_I64, ts, MN_NEVER),
	COL(ST, "dur", MT_I64, dur, MN_NEVER),
	COL(ST, "cpu", MT_I32, cpu, MN_NEG),
	COL(ST, "utid", MT_I32, utid, MN_NEVER),
	COL(ST, "state", MT_TEXT, state, MN_NEVER),
	COL(ST, "io_wait", MT_I32, io_wait, MN_NEG),
	COL(ST, "blocked_function", MT_TEXT, blocked_function, MN_NEVER),
	COL(ST, "waker_utid", MT_I32, waker_utid, MN_NEG),
	COL(ST, "ucpu", MT_I32, ucpu, MN_NEG),
};

typedef struct dv_track TR;
#define TRACK_COLS \
	COL(TR, "id", MT_I64, id, MN_NEVER), \
	COL(TR, "name", MT_TEXT, name, MN_NEVER), \
	COL(TR, "type", MT_TEXT, type, MN_NEVER)
static const struct mt_col track[] = { TRACK_COLS };
static const struct mt_col cpu_track[] = {	/* cpu_counter_track too */
	TRACK_COLS,
	COL(TR, "cpu", MT_I32, cpu, MN_NEG),
	COL(TR, "ucpu", MT_I32, ucpu, MN_NEG),
};
static const struct mt_col process_counter_track[] = {
	TRACK_COLS,
	COL(TR, "upid", MT_I32, upid, MN_NEG),
};
static const struct mt_col thread_track[] = {
	TRACK_COLS,
	COL(TR, "utid", MT_I32, utid, MN_NEG),
};

typedef struct dv_counter CO;
static const struct mt_col counter[] = {
	COL(CO, "id", MT_I64, id, MN_NEVER),
	COL(CO, "ts", MT_I64, ts, MN_NEVER),
	COL(CO, "track_id", MT_I64, track_id, MN_NEVER),
	COL(CO, "value", MT_REAL, value, MN_NEVER),
};

typedef struct dv_slice SL;
static const struct mt_col slice[] = {
	COL(SL, "id", MT_I64, id, MN_NEVER),
	COL(SL, "ts", MT_I64, ts, MN_NEVER),
	COL(SL, "dur", MT_I64, dur, MN_NEVER),
	COL(SL, "track_id", MT_I64, track_id, MN_NEVER),
	COL(SL, "category", MT_TEXT, category, MN_NEVER),
	COL_N(SL, "name", name, name_len),
	COL(SL, "depth", MT_I32, depth, MN_NEVER),
	COL(SL, "parent_id", MT_I64, parent_id, MN_NEG),
	COL_NULL("arg_set_id", MT_I64),
};

typedef struct sched_wakeup_row WK;
static const struct mt_col wakeup_latency[] = {
	COL(WK, "id", MT_I64, id, MN_NEVER),
	COL(WK, "ts", MT_I64, ts, MN_NEVER),
	COL(WK, "dur", MT_I64, dur, MN_NEVER),
	COL(WK, "utid", MT_I32, utid, MN_NEVER),
	COL(WK, "waker_utid", MT_I32, waker_utid, MN_NEG),
	COL(WK, "target_cpu", MT_I32, target_cpu, MN_NEG),
	COL(WK, "cpu", MT_I32, cpu, MN_NEG),
	COL(WK, "ucpu", MT_I32, ucpu, MN_NEG),
};

const struct mt_desc mt_tables[MT_NTABLES] = {
	[MT_THREAD] = TABLE("thread", thread),
	[MT_PROCESS] = TABLE("process", process),
	[MT_SCHED_SLICE] = TABLE("sched_slice", sched_slice),
	[MT_THREAD_STATE] = TABLE("thread_state", thread_state),
	[MT_TRACK] = TABLE("track", track),
	[MT_CPU_COUNTER_TRACK] = TABLE("cpu_counter_track", cpu_track),
	[MT_PROCESS_COUNTER_TRACK] = TABLE("process_counter_track", process_counter_track),
	[MT_THREAD_TRACK] = TABLE("thread_track", thread_track),
	[MT_COUNTER] = TABLE("counter", counter),
	[MT_SLICE] = TABLE("slice", slice),
	[MT_CPU_TRACK] = TABLE("cpu_track", cpu_track),
	[MT_WAKEUP_LATENCY] = TABLE("wakeup_latency", wakeup_latency),
};

/* ---- reading a value ---- */

#define AT(row, off, type) (*(const type *)((const char *)(row) + (off)))

/* Is @c's value NULL by its rule (the value itself aside)? */
static bool null_by_rule(const struct mt_col *c, const void *row)
{
	switch (c->null) {
	case MN_UNLESS:
		return !AT(row, c->aux, bool);
	case MN_UNLESS_ID:
		return AT(row, c->aux, int) < 0;
	case MN_ALWAYS:
		return true;
	default:
		return false;
	}
}

bool mt_int(const struct mt_col *c, const void *row, int64_t *v)
{
	if (null_by_rule(c, row))
		return false;
	switch (c->src) {
	case MS_INT:
		*v = AT(row, c->off, int);
		break;
	case MS_I64:
		*v = AT(row, c->off, int64_t);
		break;
	case MS_U64:
		*v = (int64_t)AT(row, c->off, uint64_t);
		break;
	case MS_BOOL:
		*v = AT(row, c->off, bool);
		break;
	default:
		return false;
	}
	return c->null != MN_NEG || *v >= 0;
}

bool mt_real(const struct mt_col *c, const void *row, double *v)
{
	int64_t i;

	if (c->src != MS_DOUBLE) {
		if (!mt_int(c, row, &i))
			return false;
		*v = (double)i;
		return true;
	}
	if (null_by_rule(c, row))
		return false;
	*v = AT(row, c->off, double);
	return true;
}

bool mt_text(const struct mt_col *c, const void *row, const char **p, size_t *n)
{
	if (null_by_rule(c, row) || (c->src != MS_STR && c->src != MS_STRN) ||
	    !(*p = AT(row, c->off, const char *)))
		return false;
	*n = c->src == MS_STRN ? AT(row, c->aux, size_t) : strlen(*p);
	return true;
}
