/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-open.c - fuzz target for the container and section parser: the
 * input is a whole trace.dat, opened with tdat_file_open() from memory.
 * Every header fact, buffer, latency text and kernel statistic (the parsed
 * CPUSTAT text) the handle offers is read, so a parser that stores garbage
 * (a dangling name, an absurd count) is caught when it is used, not later
 * in a tool.  An input that begins with the magic of gzip, zstd or xz is
 * decompressed first (read/io-unpack.c): the seeds packed-* of
 * corpus/open/ are small trace.dat files so compressed, whose mutations
 * reach its cut-short and corrupt streams.
 */
#include <string.h>

#include "tdat.h"
#include "fuzz.h"

static volatile size_t sink;

static void touch(const char *s)
{
	sink += s ? strlen(s) : 0;
}

/* The kernel's figures parsed from the CPUSTAT text: every entry read. */
static void touch_cpustat(struct tdat_file *f)
{
	const struct tdat_kernel_cpu_stats *ks;
	int n;

	ks = tdat_file_cpustat(f, &n);
	for (int i = 0; i < n; i++) {
		touch(ks[i].buffer_name);
		sink += (size_t)ks[i].buffer + (size_t)ks[i].cpu + ks[i].have + ks[i].entries +
			ks[i].overrun + ks[i].commit_overrun + ks[i].bytes + ks[i].oldest_event_ts +
			ks[i].now_ts + ks[i].dropped_events + ks[i].read_events;
	}
}

FUZZ_TARGET(fuzz_open)
{
	static struct fuzz_mem mem;
	struct tdat_open_opts oo = { .flags = TDAT_OPEN_NO_PLUGINS };
	struct tdat_file *f = tdat_file_new();
	const struct tdat_file_info *fi;

	if (!f)
		return 0;
	fuzz_mem_fill(&mem, 0, data, size);
	if (size && (data[0] & 1))
		oo.flags |= TDAT_OPEN_RAW_TS;
	if (tdat_file_open(f, mem.path, &oo)) {
		touch(tdat_file_errmsg(f));
		tdat_file_free(f);
		return 0;
	}
	fi = tdat_file_info(f);
	touch(fi->packing);
	sink += fi->packed_size + fi->file_size;
	touch(fi->compression);
	touch(fi->compression_version);
	touch(fi->uname);
	touch(fi->tracecmd_version);
	touch(fi->clock);
	touch(fi->cpustat);
	touch_cpustat(f);
	for (int i = 0; i < tdat_file_nwarnings(f); i++)
		touch(tdat_file_warning(f, i));
	for (int i = 0; i < fi->nbuffers; i++) {
		const struct tdat_buffer_info *b = tdat_file_buffer(f, i);
		size_t len;

		touch(b->name);
		touch(b->clock);
		for (int c = 0; c < b->ncpus; c++)
			sink += b->cpus[c].offset + b->cpus[c].size + b->cpus[c].usize;
		if (b->latency && tdat_file_latency_text(f, i, &len))
			sink += len;
	}
	tdat_file_free(f);
	return 0;
}
