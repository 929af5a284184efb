// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * jobs.c - how many threads a run of a merge is worth (tdat_merge_jobs(),
 * and with a format's own threads tdat_writer_jobs()):
 * workers pay for themselves only on a trace large enough to keep them
 * busy.  Each one opens the inputs again, loads their symbols and takes
 * its own buffers, and a trace of a few time windows is over before that
 * pays back; so the threads grow with the trace's decompressed size, one
 * more for each whole JOB_BYTES of it, and never above the caller's bound.
 */
#include <string.h>

#include "tdat.h"
#include "write/writer-int.h"

/*
 * Decompressed trace data a thread must have for itself.  Measured on 2
 * cores (tests/bench/bench-formats.sh): below about this, -j 2 of text
 * and csv ran no faster than -j 1 and took twice the memory.
 */
#define JOB_BYTES ((uint64_t)48 << 20)
/*
 * What a format's own thread (sqlite's storing one, parquet's encoding
 * helper) needs: sqlite at 2 threads took 1.04 times the time of 1 on
 * 0.8 MiB, 0.98 on 2.3 MiB, 0.95 on 4.4 MiB and 0.75 on 24 MiB (cuts of
 * tests/bench's big-mixed.dat); parquet 0.93 on 4.1 MiB, 0.85 on 11.5 MiB
 * and 0.73 on 43.6 MiB.
 */
#define OWN_BYTES ((uint64_t)4 << 20)
/* Stored bytes of compressed (v7) data: what they decompress to, about (zstd, zlib: 6 to 8) */
#define PACK_RATIO 7

/* The decompressed bytes of @f's event data, about. */
static uint64_t unpacked(const struct tdat_file *f)
{
	const struct tdat_file_info *fi = tdat_file_info(f);
	uint64_t known = 0, stored = 0;

	for (int b = 0; b < fi->nbuffers; b++) {
		const struct tdat_buffer_info *bi = tdat_file_buffer(f, b);

		for (int c = 0; bi && c < bi->ncpus; c++) {
			known += bi->cpus[c].usize;
			stored += bi->cpus[c].size;
		}
	}
	if (known >= stored)
		return known;
	return strcmp(fi->compression, "none") ? stored * PACK_RATIO : stored;
}

int tdat_merge_jobs(const struct tdat_merge *m, int max, uint64_t *bytes)
{
	uint64_t sum = 0, jobs;

	for (int i = 0; i < tdat_merge_nfiles(m); i++)
		sum += unpacked(tdat_merge_file(m, i));
	if (bytes)
		*bytes = sum;
	jobs = 1 + sum / JOB_BYTES;
	return max < 1 ? 1 : jobs < (uint64_t)max ? (int)jobs : max;
}

int tdat_writer_jobs(const struct tdat_writer *w, const struct tdat_merge *m, int max,
		     uint64_t *bytes)
{
	uint64_t sum;
	int jobs = tdat_merge_jobs(m, max, &sum);

	if (bytes)
		*bytes = sum;
	if (sum >= OWN_BYTES)
		jobs += w->ops->threads;
	return max < 1 ? 1 : jobs < max ? jobs : max;
}
