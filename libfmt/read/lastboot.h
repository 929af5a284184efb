/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lastboot.h - addresses of a persistent buffer's earlier boot, as trace-cmd 3.4 names them (lastboot.c). */
#ifndef TDAT_READ_LASTBOOT_H
#define TDAT_READ_LASTBOOT_H

#include "read/types.h"

/* With the kallsyms parsed: LAST_BOOT_INFO and MODULES_FILE move function lookups (a resolver). */
void last_boot_setup(struct tdat_file *f);
/* @on false: lookups as libtraceevent 1.7 (trace-cmd 3.1.6) does them, ignoring the earlier boot. */
void file_last_boot(struct tdat_file *f, bool on);
void last_boot_free(struct tdat_file *f);
/* Whether @f's lookups move by an earlier boot (a resolver on its handle). */
bool last_boot_moves(const struct tdat_file *f);

#endif /* TDAT_READ_LASTBOOT_H */
