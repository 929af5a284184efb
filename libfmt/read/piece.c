/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * piece.c - the mark tdat-split leaves in each piece it writes, so that the
 * pieces of one split merge back into the file they came from.
 *
 * The mark is an option of its own id (OPT_TDAT_PIECE) that trace-cmd
 * skips by its size, holding short "key=value" lines:
 *
 *	tdat-piece 1
 *	split=<16 hex digits: the same in every piece of one split>
 *	seq=<the piece's place in the split, from 1>
 *	count=<pieces in the split, 0 where not known yet>
 *	name=<the source's name>
 *	source=<16 hex digits: the same for every split of one file's contents>
 *	how=<how it was cut: the options of the split, as given>
 *
 * source and how are newer (an older tdat-split did not write them): a
 * mark without them reads as before.  The split id is made from the source
 * and the options, so one command on one file gives the same pieces.
 *
 * The reader keeps it on the file (tdat_file_piece()); merge.c joins the
 * pieces of one split into one input when their metadata is the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

#define PIECE_MAGIC	"tdat-piece 1\n"
#define PIECE_MAX	1024	/* a longer mark is damage */

/* The value of "@key=" in the mark @text, copied into @out; false if absent. */
static bool piece_value(const char *text, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t n = strcspn(p, "\n");

		if (n > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			n -= klen + 1;
			if (n >= len)
				return false;
			memcpy(out, p + klen + 1, n);
			out[n] = '\0';
			return true;
		}
	}
	return false;
}

static bool piece_number(const char *text, const char *key, int base, uint64_t max, uint64_t *v)
{
	char buf[24], *end;

	if (!piece_value(text, key, buf, sizeof(buf)) || !buf[0])
		return false;
	*v = strtoull(buf, &end, base);
	return !*end && *v <= max;
}

int piece_read(struct tdat_file *f, const char *buf, uint64_t size)
{
	char text[PIECE_MAX + 1], name[256], how[PIECE_MAX];
	uint64_t split, seq, count, source = 0;
	size_t len = strnlen(buf, (size_t)(size < PIECE_MAX ? size : PIECE_MAX + 1));

	if (len > PIECE_MAX || strncmp(buf, PIECE_MAGIC, strlen(PIECE_MAGIC))) {
		file_warn(f, "a tdat-split piece mark that is not one was ignored");
		return 0;
	}
	memcpy(text, buf, len);
	text[len] = '\0';
	if (!piece_number(text, "split", 16, UINT64_MAX, &split) ||
	    !piece_number(text, "seq", 10, 1u << 30, &seq) || !seq ||
	    !piece_number(text, "count", 10, 1u << 30, &count) ||
	    !piece_value(text, "name", name, sizeof(name)) || !name[0] || (count && seq > count)) {
		file_warn(f, "a damaged tdat-split piece mark was ignored");
		return 0;
	}
	if (piece_value(text, "source", how, sizeof(how)) &&
	    !piece_number(text, "source", 16, UINT64_MAX, &source)) {
		file_warn(f, "a damaged tdat-split piece mark was ignored");
		return 0;
	}
	if (!piece_value(text, "how", how, sizeof(how)))
		how[0] = '\0';
	free(f->piece_name);
	free(f->piece_how);
	f->piece_how = strdup(how);
	if (!(f->piece_name = strdup(name)) || !f->piece_how)
		return TDAT_ENOMEM;
	f->piece = (struct tdat_piece){ .split = split, .seq = (unsigned)seq,
					.count = (unsigned)count, .name = f->piece_name,
					.source = source, .how = f->piece_how };
	f->is_piece = true;
	return 0;
}

const struct tdat_piece *tdat_file_piece(const struct tdat_file *f)
{
	return f->is_piece ? &f->piece : NULL;
}

int piece_format(const struct tdat_piece *p, char **out, size_t *len)
{
	const char *name = p->name && *p->name ? p->name : "trace", *how = p->how ? p->how : "";
	char source[40] = "";
	int n;

	if (strlen(name) > 200 || strchr(name, '\n') || strlen(how) > 400 || strchr(how, '\n') ||
	    !p->seq || (p->count && p->seq > p->count))
		return TDAT_EINVAL;
	if (p->source)
		snprintf(source, sizeof(source), "source=%016llx\n", (unsigned long long)p->source);
	n = asprintf(out, PIECE_MAGIC "split=%016llx\nseq=%u\ncount=%u\nname=%s\n%s%s%s%s",
		     (unsigned long long)p->split, p->seq, p->count, name, source,
		     *how ? "how=" : "", how, *how ? "\n" : "");
	if (n < 0) {
		*out = NULL;
		return TDAT_ENOMEM;
	}
	*len = (size_t)n + 1;	/* with its NUL, as trace-cmd's text options */
	return 0;
}

/* ---- pieces that belong together ---- */

static bool same_blob(const struct tdat_blob *a, const struct tdat_blob *b)
{
	return a->len == b->len && (!a->len || a->data == b->data || !memcmp(a->data, b->data, a->len));
}

static bool same_formats(const struct tdat_meta *a, const struct tdat_meta *b)
{
	if (a->nftrace != b->nftrace || a->nsystems != b->nsystems)
		return false;
	for (int i = 0; i < a->nftrace; i++)
		if (!same_blob(&a->ftrace[i], &b->ftrace[i]))
			return false;
	for (int s = 0; s < a->nsystems; s++) {
		if (strcmp(a->systems[s].name, b->systems[s].name) ||
		    a->systems[s].nfmts != b->systems[s].nfmts)
			return false;
		for (int i = 0; i < a->systems[s].nfmts; i++)
			if (!same_blob(&a->systems[s].fmts[i], &b->systems[s].fmts[i]))
				return false;
	}
	return true;
}

static bool same_buffers(const struct tdat_file *a, const struct tdat_file *b)
{
	if (a->nbuffers != b->nbuffers)
		return false;
	for (int i = 0; i < a->nbuffers; i++) {
		const struct tdat_buffer_info *x = &a->buffers[i].info, *y = &b->buffers[i].info;

		if (strcmp(x->name, y->name) || strcmp(x->clock, y->clock) || x->ncpus != y->ncpus ||
		    x->page_size != y->page_size || x->latency != y->latency)
			return false;
		for (int c = 0; c < x->ncpus; c++)
			if (x->cpus[c].cpu != y->cpus[c].cpu)
				return false;
	}
	return true;
}

bool piece_alike(const struct tdat_file *a, const struct tdat_file *b)
{
	const struct tdat_meta *x = &a->meta, *y = &b->meta;

	return a->info.big_endian == b->info.big_endian && a->info.long_size == b->info.long_size &&
	       a->info.ts_offset == b->info.ts_offset && a->tsc_mult == b->tsc_mult &&
	       a->tsc_shift == b->tsc_shift && !strcmp(a->info.clock, b->info.clock) &&
	       same_blob(&x->header_page, &y->header_page) &&
	       same_blob(&x->header_event, &y->header_event) && same_formats(x, y) &&
	       same_blob(&x->kallsyms, &y->kallsyms) && same_blob(&x->printk, &y->printk) &&
	       same_buffers(a, b);
}

/* ---- a piece that shares its split's metadata ---- */

bool piece_defers(const struct tdat_file *f)
{
	return f->is_piece && f->info.version >= 7 && f->origin_want < 0 && !f->norigin_offs;
}

bool piece_borrow(struct tdat_file *f, struct tdat_file *from)
{
	struct tdat_file *o = from ? meta_of(from) : NULL;
	const struct tdat_piece *p = &f->piece, *q;

	if (!o || !from->is_piece || !f->meta_deferred)
		return false;
	q = &from->piece;
	if (!p->source || q->source != p->source || q->split != p->split || strcmp(q->name, p->name) ||
	    o->meta_deferred || !o->tep || o->zombie || o->origin_want >= 0 ||
	    o->info.version != f->info.version || o->info.big_endian != f->info.big_endian ||
	    o->meta.user_long != f->meta.user_long || o->info.page_size != f->info.page_size ||
	    o->flags != f->flags)
		return false;
	meta_release(&f->meta);	/* the options it kept: every piece has the same */
	sections_free(f);	/* the sections it listed: tdat-info lists a file's own */
	f->meta = o->meta;
	memset(f->meta.raw_off, 0, sizeof(f->meta.raw_off));	/* its own sections are not read */
	memset(f->meta.raw_len, 0, sizeof(f->meta.raw_len));
	f->tep = o->tep;
	f->unsupp_ids = o->unsupp_ids;
	f->nunsupp = o->nunsupp;
	f->info.long_size = o->info.long_size;
	if (f->cpustat && o->cpustat && !strcmp(f->cpustat, o->cpustat)) {
		free(f->cpustat);	/* every piece repeats the input's: keep one */
		f->cpustat = NULL;
		f->info.cpustat = o->cpustat;
	}
	f->meta_owner = o;
	o->nborrowers++;
	return true;
}

/* ---- the splits of the pieces added to a merge ---- */

/* Whether @f is a piece of the split that @first (a piece of it) belongs to. */
static bool of_split(const struct tdat_file *first, const struct tdat_file *f)
{
	const struct tdat_piece *p = &f->piece, *q = &first->piece;

	/* a piece of a merged file: each input it holds is a split of its own */
	return q->split == p->split && !strcmp(q->name, p->name) &&
	       !strcmp(first->info.name, f->info.name);
}

static int two_splits(const struct tdat_file *g, const struct tdat_file *f, char *err)
{
	const struct tdat_piece *p = &f->piece, *q = &g->piece;

	tdat_msg(err, "%s and %s are pieces of two different splits of %s (%s%s%s and %s%s%s): "
		 "their events would be read twice; read the pieces of one split", g->info.path,
		 f->info.path, p->name, *q->how ? "tdat-split " : "one", q->how,
		 *q->how ? "" : " split", *p->how ? "tdat-split " : "another", p->how,
		 *p->how ? "" : " split");
	return TDAT_EINVAL;
}

/* Split @e's pieces by their place: @f as piece f->piece.seq, unless it is there already. */
static int split_seat(struct split_ent *e, struct tdat_file *f, char *err)
{
	unsigned seq = f->piece.seq;

	if (seq >= e->nseats) {
		unsigned n = seq + 1 > e->nseats * 2 ? seq + 1 : e->nseats * 2;
		struct tdat_file **s = realloc(e->seats, sizeof(*s) * n);

		if (!s)
			return TDAT_ENOMEM;
		memset(s + e->nseats, 0, sizeof(*s) * (n - e->nseats));
		e->seats = s;
		e->nseats = n;
	}
	if (e->seats[seq]) {
		tdat_msg(err, "%s and %s are both piece %u of one split of %s",
			 e->seats[seq]->info.path, f->info.path, seq, f->piece.name);
		return TDAT_EINVAL;
	}
	e->seats[seq] = f;
	return 0;
}

int splits_join(struct splits *s, struct tdat_file *f, int new_input, int *input, char *err)
{
	struct split_ent *e;
	int ret;

	*input = -1;
	if (!f->is_piece)
		return 0;
	for (int i = 0; i < s->n; i++) {
		e = &s->v[i];
		if (f->piece.source && e->first->piece.source == f->piece.source &&
		    e->first->piece.split != f->piece.split)
			return two_splits(e->first, f, err);
		if (!of_split(e->first, f))
			continue;
		if ((ret = split_seat(e, f, err)))
			return ret;
		if (!piece_alike(e->first, f)) {
			tdat_msg(err, "%s is marked as a piece of the split %s comes from, but its "
				 "formats, buffers or time settings differ", f->info.path,
				 e->first->info.path);
			return TDAT_EINVAL;
		}
		*input = e->input;
		return 0;
	}
	if (!(e = realloc(s->v, sizeof(*e) * (size_t)(s->n + 1))))
		return TDAT_ENOMEM;
	s->v = e;
	e += s->n++;
	memset(e, 0, sizeof(*e));
	e->first = f;
	e->input = new_input;
	return split_seat(e, f, err);
}

struct tdat_file *splits_first(const struct splits *s, const struct tdat_file *f)
{
	for (int i = 0; f->is_piece && i < s->n; i++)
		if (of_split(s->v[i].first, f))
			return s->v[i].first;
	return NULL;
}

void splits_free(struct splits *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i].seats);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
