/*
 * t-sinkbehind.c - unit tests of a sink written by a thread of its own
 * (libfmt/write/sink-behind.c): small writes, reservations bigger than its
 * buffer (which grow the caller's buffer, so the two buffers' rooms
 * differ) and writes bigger than the buffer (made straight, after the
 * thread) must reach the file whole and in order; a failing descriptor's
 * error must come back to the caller.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat.h"
#include "write/sink.h"
#include "../tap.h"

#define ROUNDS 24

/* Byte @i of round @r's part @part (0: small writes, 1: a reservation, 2: a straight write). */
static char byte_of(int r, int part, size_t i)
{
	return (char)('a' + (r * 7 + part * 3 + (int)(i % 97)) % 26);
}

static size_t part_len(int r, int part)
{
	return part == 0 ? 300000 : part == 1 ? ((size_t)1 + r % 4) << 20 : ((size_t)2 << 20) + 17;
}

/* The sink's bytes: each round small writes, a reservation, a write bigger than the buffer. */
static int fill(struct tdat_sink *s)
{
	char small[100];

	for (int r = 0; r < ROUNDS; r++) {
		size_t n = part_len(r, 0), big = part_len(r, 1), huge = part_len(r, 2);
		char *d, *h = malloc(huge);

		for (size_t i = 0; i < n; i += sizeof(small)) {
			for (size_t k = 0; k < sizeof(small); k++)
				small[k] = byte_of(r, 0, i + k);
			sink_write(s, small, sizeof(small));
		}
		if (!h || !(d = sink_reserve(s, big))) {
			free(h);
			return -1;
		}
		for (size_t i = 0; i < big; i++)
			d[i] = byte_of(r, 1, i);
		sink_commit(s, big);
		for (size_t i = 0; i < huge; i++)
			h[i] = byte_of(r, 2, i);
		sink_write(s, h, huge);
		free(h);
	}
	return 0;
}

/* Whether @path holds what fill() wrote, and nothing more. */
static bool same(const char *path)
{
	FILE *f = fopen(path, "rb");
	bool ok = f != NULL;

	for (int r = 0; ok && r < ROUNDS; r++)
		for (int part = 0; ok && part < 3; part++)
			for (size_t i = 0; ok && i < part_len(r, part); i++)
				ok = fgetc(f) == (unsigned char)byte_of(r, part, i);
	ok = ok && fgetc(f) == EOF;
	if (f)
		fclose(f);
	return ok;
}

int main(void)
{
	char path[64];
	struct tdat_sink s;
	int fd;

	snprintf(path, sizeof(path), "/tmp/t-sinkbehind.%d", (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ok(fd >= 0 && !sink_init(&s, fd) && !sink_behind(&s), "a file sink written behind");
	ok(!fill(&s), "small writes, reservations of 1 to 4 MiB and 2 MiB writes");
	is_int(sink_finish(&s), 0, "finished without an error");
	sink_release(&s);
	close(fd);
	ok(same(path), "the file holds every byte, in order");
	unlink(path);

	fd = open("/dev/full", O_WRONLY);
	if (fd >= 0 && !sink_init(&s, fd) && !sink_behind(&s)) {
		fill(&s);
		is_int(sink_finish(&s), TDAT_EIO, "a full disk: finishing fails");
		is_int(s.err, ENOSPC, "with the thread's ENOSPC");
		sink_release(&s);
	} else {
		skip("a full disk: no /dev/full");
		skip("its ENOSPC: no /dev/full");
	}
	if (fd >= 0)
		close(fd);
	return done_testing();
}
