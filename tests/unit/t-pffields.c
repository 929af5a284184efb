/*
 * t-pffields.c - every proto field number the Perfetto writer uses is
 * Perfetto's: the table of typed events (pf_specs[] of
 * libfmt/write/perfetto-events.c: the FtraceEvent field of each event, the
 * number and kind of each of its fields), compact_sched's fields
 * (perfetto-compact.c) and the FtraceEvent, FtraceEventBundle and
 * GenericFtraceEvent numbers of perfetto.h, against
 * tests/perfetto/upstream-fields.txt, the facts of Perfetto's
 * .proto files of protos/perfetto/trace/ftrace/ (tests/perfetto/gen-fields.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/perfetto.h"
#include "../tap.h"

struct fact {
	char msg[96], field[64], type[64];
	unsigned num;
};

static struct fact *facts;
static size_t nfacts;

static void load(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t cap = 0;

	if (!f)
		bail_out("%s: cannot open", path);
	while (fgets(line, sizeof(line), f)) {
		struct fact x;

		if (line[0] == '#' ||
		    sscanf(line, "%95s %63s %u %63s", x.msg, x.field, &x.num, x.type) != 4)
			continue;
		if (nfacts == cap) {
			cap = cap ? 2 * cap : 1024;
			facts = realloc(facts, cap * sizeof(*facts));
			if (!facts)
				bail_out("out of memory");
		}
		facts[nfacts++] = x;
	}
	fclose(f);
}

/* The fact of @msg's field @field, NULL if Perfetto has none. */
static const struct fact *find(const char *msg, const char *field)
{
	for (size_t i = 0; i < nfacts; i++)
		if (!strcmp(facts[i].msg, msg) && !strcmp(facts[i].field, field))
			return &facts[i];
	return NULL;
}

static int is(const char *msg, const char *field, unsigned num)
{
	const struct fact *f = find(msg, field);

	return ok(f && f->num == num, "%s.%s = %u (Perfetto: %d)", msg, field, num,
		  f ? (int)f->num : -1);
}

static bool kind_is(enum pf_how how, const char *type)
{
	switch (how) {
	case PF_STR:
		return !strcmp(type, "string");
	case PF_BYTES:
		return !strcmp(type, "bytes");
	case PF_U64S:
		return !strcmp(type, "repeated:uint64");
	default:
		return !strcmp(type, "int32") || !strcmp(type, "uint32") ||
		       !strcmp(type, "int64") || !strcmp(type, "uint64") || !strcmp(type, "bool");
	}
}

/* One event of the table: its FtraceEvent field, then each of its fields. */
static void spec(const struct pf_spec *sp)
{
	const struct fact *ev = find("FtraceEvent", sp->name);
	int bad = 0;

	if (!is("FtraceEvent", sp->name, sp->num))
		return;
	for (int k = 0; k < PF_MAX_FIELDS && sp->f[k].name; k++) {
		const struct fact *f = find(ev->type, sp->f[k].name);

		if (!f || f->num != sp->f[k].num || !kind_is(sp->f[k].how, f->type)) {
			diag("%s.%s: ours %u kind %d, Perfetto's %d %s", ev->type, sp->f[k].name,
			     sp->f[k].num, sp->f[k].how, f ? (int)f->num : -1, f ? f->type : "-");
			bad++;
		}
	}
	ok(!bad, "%s: the numbers and kinds of its fields", ev->type);
}

static void compact(void)
{
	static const struct {
		const char *field;
		unsigned num;
	} cs[] = {
		{ "switch_timestamp", PF_CS_SWITCH_TS },
		{ "switch_prev_state", PF_CS_SWITCH_PREV_STATE },
		{ "switch_next_pid", PF_CS_SWITCH_NEXT_PID },
		{ "switch_next_prio", PF_CS_SWITCH_NEXT_PRIO },
		{ "intern_table", PF_CS_INTERN },
		{ "switch_next_comm_index", PF_CS_SWITCH_NEXT_COMM },
		{ "waking_timestamp", PF_CS_WAKING_TS },
		{ "waking_pid", PF_CS_WAKING_PID },
		{ "waking_target_cpu", PF_CS_WAKING_TARGET_CPU },
		{ "waking_prio", PF_CS_WAKING_PRIO },
		{ "waking_comm_index", PF_CS_WAKING_COMM },
		{ "waking_common_flags", PF_CS_WAKING_FLAGS },
	};

	for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
		is("FtraceEventBundle.CompactSched", cs[i].field, cs[i].num);
}

int main(void)
{
	load(tap_testdata("../tests/perfetto/upstream-fields.txt"));
	ok(nfacts > 1000, "upstream-fields.txt has Perfetto's fields (%zu)", nfacts);
	is("FtraceEvent", "timestamp", PF_EV_TIMESTAMP);
	is("FtraceEvent", "pid", PF_EV_PID);
	is("FtraceEvent", "sched_switch", PF_EV_SCHED_SWITCH);
	is("FtraceEvent", "sched_waking", PF_EV_SCHED_WAKING);
	is("FtraceEvent", "generic", PF_EV_GENERIC);
	is("FtraceEventBundle", "event", PF_BUNDLE_EVENT);
	is("FtraceEventBundle", "compact_sched", PF_BUNDLE_COMPACT);
	is("GenericFtraceEvent", "event_name", PF_GEN_NAME);
	is("GenericFtraceEvent", "field", PF_GEN_FIELD);
	is("GenericFtraceEvent.Field", "name", PF_FIELD_NAME);
	is("GenericFtraceEvent.Field", "str_value", PF_FIELD_STR);
	is("GenericFtraceEvent.Field", "int_value", PF_FIELD_INT);
	is("GenericFtraceEvent.Field", "uint_value", PF_FIELD_UINT);
	compact();
	for (size_t i = 0; i < pf_nspecs; i++)
		spec(&pf_specs[i]);
	free(facts);
	return done_testing();
}
