/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dat-salvage.c - the events of a v7 file cut short.  trace-cmd writes a
 * buffer's per-CPU data before the options section whose BUFFER option says
 * where each CPU's data is, so a file truncated inside the data (a full
 * disk, a copy that stopped) still holds events but not the table that
 * locates them.  They are found by reading what follows the last complete
 * options section: a flyrecord section header, then each CPU's data,
 * page-aligned, one CPU after another, as trace-output.c lays them out.
 * Compressed data says where each CPU's ends (a chunk count, then the
 * chunks); uncompressed data is pages only, and a CPU's pages are in time
 * order, so a page whose time goes back begins the next CPU.  CPU numbers
 * are assumed to follow file order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

#define CHUNK_MAX	(64u << 20)	/* as the decoder's limit */

struct scan {
	struct tdat_file *f;
	uint64_t page;		/* the file's page size */
	uint64_t cut_at;	/* where the data stops being whole */
	uint64_t rest;		/* pages from here on are not read (0: all are) */
};

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static bool num_at(struct scan *s, uint64_t off, int len, uint64_t *v)
{
	unsigned char b[8];

	if (off > s->f->src.size || (uint64_t)len > s->f->src.size - off ||
	    src_pread(&s->f->src, b, (size_t)len, off, s->f->errmsg))
		return false;
	*v = file_num(s->f, b, len);
	return true;
}

/*
 * The whole chunks of one CPU's data at @off: their number, and where the
 * last one ends.  Walks the chunk headers while they are plausible; the
 * stored count is 0 if trace-cmd stopped before going back to write it.
 */
static unsigned walk_chunks(struct scan *s, uint64_t off, uint64_t *end)
{
	uint64_t count, z, u, pos = off + 4;
	unsigned n = 0;

	*end = off;
	if (!num_at(s, off, 4, &count))
		return 0;
	while ((!count || n < count) && num_at(s, pos, 4, &z) && num_at(s, pos + 4, 4, &u)) {
		if (!z || !u || u > CHUNK_MAX || u % s->page || u > z * 1024 + s->page)
			break;
		if (z > s->f->src.size - pos - 8) {
			s->cut_at = pos;	/* a chunk cut by the end of the file */
			break;
		}
		pos += 8 + z;
		n++;
	}
	if (n)
		*end = pos;
	return n;
}

static int add_cpu(struct tdat_buffer *b, uint64_t off, uint64_t end, unsigned nchunks)
{
	struct tdat_cpu_info *c = realloc(b->cpus, sizeof(*c) * (size_t)(b->info.ncpus + 1));

	if (!c)
		return TDAT_ENOMEM;
	b->cpus = c;
	b->info.cpus = c;
	c += b->info.ncpus;
	memset(c, 0, sizeof(*c));
	c->cpu = b->info.ncpus++;
	c->offset = off;
	/* compressed: as trace-cmd records it, without the count */
	c->size = end - off - (nchunks ? 4 : 0);
	c->nchunks = nchunks;
	return 0;
}

/* A buffer for what was found: the top one unless the file already has it. */
static int new_buffer(struct tdat_file *f, bool compressed, struct tdat_buffer **out)
{
	const char *name = "";
	int ret;

	for (int i = 0; i < f->nbuffers; i++)
		if (!f->buffers[i].info.name[0])
			name = "salvaged";
	if ((ret = file_add_buffer(f, out)))
		return ret;
	(*out)->info.name = strdup(name);
	(*out)->info.clock = strdup(f->clock ? f->clock : "");
	(*out)->info.page_size = f->info.page_size;
	(*out)->compressed = compressed;
	if (!(*out)->info.name || !(*out)->info.clock)
		return TDAT_ENOMEM;
	return 0;
}

/* The compressed CPU data from @off on: each CPU's whole chunks. */
static int salvage_chunks(struct scan *s, struct tdat_buffer *b, uint64_t off, int max)
{
	uint64_t end;
	unsigned n;
	int ret;

	for (; b->info.ncpus < max; off = align_up(end, s->page)) {
		if (!(n = walk_chunks(s, off, &end)))
			break;
		if ((ret = add_cpu(b, off, end, n)))
			return ret;
	}
	return 0;
}

/*
 * The time in the header of the page at @off, and whether it is a page:
 * its commit size fits and it began with an event (a page of zeros did
 * not); false if the file ends inside the header.
 */
static bool page_ts(struct scan *s, uint64_t off, uint64_t *ts, bool *real)
{
	int ls = s->f->info.long_size;
	uint64_t commit;

	if (off >= s->f->src.size || s->f->src.size - off < 8 + (uint64_t)ls ||
	    !num_at(s, off, 8, ts) || !num_at(s, off + 8, ls, &commit))
		return false;
	*real = *ts && (commit & COMMIT_MASK) <= s->page - 8 - (uint64_t)ls;
	return true;
}

/*
 * The uncompressed CPU data from @off on: its pages, a CPU's in time order,
 * split where a page's time goes back, into at most @max CPUs (a page that
 * is not one, zeros say, goes with the one before it; pages whose time goes
 * back once more are not read: s->rest).  The last CPU's data
 * ends at the page the file ends in (its cursor reports what the cut
 * took), so a CPU found holds at least one whole page header.
 */
static int salvage_pages(struct scan *s, struct tdat_buffer *b, uint64_t off, int max)
{
	uint64_t p, ts, last = 0, from = off;
	bool real;
	int ret;

	for (p = off; page_ts(s, p, &ts, &real); p += s->page) {
		if (!real)
			continue;
		if (ts < last) {
			if ((ret = add_cpu(b, from, p, 0)))
				return ret;
			from = p;
			if (b->info.ncpus == max) {
				s->rest = p;	/* another buffer's, or damage */
				return 0;
			}
		}
		last = ts;
	}
	if (p > from && (ret = add_cpu(b, from, p, 0)))
		return ret;
	return 0;
}

/**
 * v7_salvage() - find the CPU data that follows the last options section read
 * @f: the file, its metadata read
 * @from: where the last complete options section ends
 * @why: what stopped the options chain (for the warning)
 *
 * Return: 0 with a buffer added and a warning saying what was recovered;
 * TDAT_EFORMAT if nothing was found there (f->errmsg says why).
 */
int v7_salvage(struct tdat_file *f, uint64_t from, const char *why)
{
	struct scan s = { .f = f, .page = f->info.page_size };
	struct tdat_buffer *b;
	uint64_t id, flags;
	bool z;
	int ret, max = f->info.cpus > 0 ? f->info.cpus : MAX_CPUS;

	if (!num_at(&s, from, 2, &id) || !num_at(&s, from + 2, 2, &flags) || id != OPT_BUFFER ||
	    (flags != SEC_FL_COMPRESS && flags != 0)) {
		tdat_msg(f->errmsg, "%s; no CPU data follows the last options section "
			 "(offset %llu) to recover", why, (unsigned long long)from);
		return TDAT_EFORMAT;
	}
	z = flags == SEC_FL_COMPRESS;
	if ((ret = new_buffer(f, z, &b)))
		return ret;
	/* pages: without the file's CPU count, one CPU (times that go back may be damage) */
	ret = z ? salvage_chunks(&s, b, align_up(from + 16, s.page), max)
		: salvage_pages(&s, b, align_up(from + 16, s.page), f->info.cpus > 0 ? max : 1);
	if (ret)
		return ret;
	if (!b->info.ncpus && s.cut_at) {
		tdat_msg(f->errmsg, "%s; the CPU data after offset %llu ends inside its first chunk "
			 "(offset %llu): no whole chunk to recover", why, (unsigned long long)from,
			 (unsigned long long)s.cut_at);
		return TDAT_EFORMAT;
	}
	if (!b->info.ncpus) {
		tdat_msg(f->errmsg, z ? "%s; the CPU data after offset %llu cannot be read" :
			 "%s; the file ends before the first page header of the CPU data after "
			 "offset %llu", why, (unsigned long long)from);
		return TDAT_EFORMAT;
	}
	file_warn(f, "%s; recovered by scanning from offset %llu: the data of %d CPU%s "
		  "(%snumbered in file order: the table that numbers them is lost)",
		  why, (unsigned long long)from, b->info.ncpus, b->info.ncpus == 1 ? "" : "s",
		  z ? "" : "uncompressed pages, split where their times go back, ");
	if (f->info.cpus > b->info.ncpus)
		file_warn(f, "the data of %d of the file's %d CPUs is lost", f->info.cpus - b->info.ncpus,
			  f->info.cpus);
	if (s.rest)
		file_warn(f, "the data from offset %llu on is not recovered: its pages' times go "
			  "back once more than the file has CPUs (another buffer's data, or damage)",
			  (unsigned long long)s.rest);
	if (s.cut_at)
		file_warn(f, "data cut at offset %llu: the last %llu bytes are a partial chunk, lost",
			  (unsigned long long)s.cut_at, (unsigned long long)(f->src.size - s.cut_at));
	return 0;
}
