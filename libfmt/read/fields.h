/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fields.h - event types and typed access to their fields (fields.c). */
#ifndef TDAT_READ_FIELDS_H
#define TDAT_READ_FIELDS_H

#include "read/dat.h"
#include "read/piece.h"
#include "read/types.h"

/* The type of event type id @id of @f (as file_type()); NULL without memory. */
const struct ttype *file_type_id(struct tdat_file *f, unsigned id);

/*
 * The type of @ev (built on first use, owned by the file; a record shorter
 * than a type id, on a damaged page: type 0, which no kernel gives an event,
 * so an unknown event); NULL without memory.  Inline: every event's type is
 * looked up by its reader and its writer.
 */
static inline const struct ttype *file_type(struct tdat_file *f, const struct tdat_event *ev)
{
	const unsigned char *p = ev->data;
	unsigned id = ev->size < 2 ? 0 : f->info.big_endian ? (unsigned)p[0] << 8 | p[1] :
				     (unsigned)p[1] << 8 | p[0];
	struct tdat_file *m = meta_of(f);
	void **leaf = m->types ? m->types->leaf[(id >> 8) & (IDTAB_LEAVES - 1)] : NULL;

	return leaf && leaf[id & 255] ? leaf[id & 255] : file_type_id(f, id);
}
const struct tfield *ttype_field(const struct ttype *t, const char *name);
void file_types_free(struct tdat_file *f);
/*
 * A number field (TK_INT sign-extended); false if absent or outside the
 * event.  Inline: the writers read several for every event.
 */
static inline bool tfield_num(const struct tdat_event *ev, const struct tfield *f, uint64_t *v)
{
	if (!f || !f->size || f->offset + f->size > ev->size ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return false;
	*v = field_raw(ev->file, (const unsigned char *)ev->data + f->offset, f->size);
	if (f->kind == TK_INT && f->size < 8)
		*v = (uint64_t)((int64_t)(*v << (64 - 8 * f->size)) >> (64 - 8 * f->size));
	return true;
}
/*
 * A string (without its NUL) or array field's bytes; false if outside the
 * event.  A message field's text is valid until the next call for that type.
 */
bool tfield_bytes(const struct tdat_event *ev, const struct tfield *f, const unsigned char **p,
		  unsigned *len);
/*
 * Field @f of @t (one with a sym) in @ev as the text output prints its
 * symbol: "name", "name+0x1f", "0xffffffff81000000"; a stack's entries
 * joined by ';'.  False if outside the event or without memory.  The text
 * is valid until the next call for that type.
 */
bool tfield_sym(const struct ttype *t, const struct tdat_event *ev, const struct tfield *f,
		const char **p, unsigned *len);
/*
 * Address @addr of @f as @how prints it (file's kallsyms loaded on first use),
 * into @buf of @size bytes; the length it needs, as snprintf.
 */
int sym_format(struct tdat_file *f, uint64_t addr, enum tsym how, char *buf, size_t size);
/*
 * Whether every field of @t in @ev can be shown (a static array may hang
 * RECORD_SLACK bytes over the end, as print-guard.c allows); if not, why.
 */
bool ttype_fits(const struct ttype *t, const struct tdat_event *ev, char *why, size_t len);
/*
 * Whether @ev is longer than the kernel makes a record of type @t (a damaged
 * length, which hides the events it swallowed); if so, by how many bytes.
 */
bool ttype_overlong(const struct ttype *t, const struct tdat_event *ev, unsigned *extra);
/* A record of @t no longer than this is never overlong (UINT64_MAX: no record of @t is). */
uint64_t ttype_sure_len(const struct ttype *t);

#endif /* TDAT_READ_FIELDS_H */
