/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sections.h - the file's sections and options as read (sections.c). */
#ifndef TDAT_READ_SECTIONS_H
#define TDAT_READ_SECTIONS_H

#include "read/types.h"

/* A v7 section's header was read (rd_section()); returns its entry, -1 without memory. */
int sections_note(struct tdat_file *f, unsigned id, unsigned flags, unsigned strid, uint64_t offset,
		  uint64_t size);
void sections_usize(struct tdat_file *f, int i, uint64_t usize);
/* An option: @offset its header's (v6) or its options section's (v7, @pos in its data). */
void sections_option(struct tdat_file *f, unsigned id, uint64_t offset, uint64_t pos, uint64_t size);
/* A v6 part between @start and @end, with the id of the v7 section that holds the same. */
void sections_v6(struct tdat_file *f, unsigned id, const char *what, uint64_t start, uint64_t end);
/* The section at @offset was skipped: @why. */
void sections_damage(struct tdat_file *f, uint64_t offset, const char *why);
/* The BTF and MODULES_FILE sections the options point to, into f->meta (damage: a warning). */
int sections_extra(struct tdat_file *f, struct rd *r, const struct opts_state *st);
/* Every section from @off (the end of the v7 header) on, one after the other; then their labels. */
void sections_tail(struct tdat_file *f, struct rd *r, uint64_t off);

/* In file order (an options section's options after it); no entry is added after. */
void sections_sort(struct tdat_file *f);
void sections_free(struct tdat_file *f);

#endif /* TDAT_READ_SECTIONS_H */
