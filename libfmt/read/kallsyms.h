/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* kallsyms.h - a kallsyms section into libtraceevent's function map (kallsyms.c). */
#ifndef TDAT_READ_KALLSYMS_H
#define TDAT_READ_KALLSYMS_H

#include <stdbool.h>

struct tep_handle;

/*
 * kallsyms.c: what tep_parse_kallsyms(@tep, @text) registers, the same
 * functions with the same addresses and modules, the plain lines read
 * without sscanf().  0, or -1 where tep_parse_kallsyms() returns it.
 */
int kallsyms_parse(struct tep_handle *tep, const char *text);
/*
 * kallsyms_parse(), then libtraceevent's lookup map made at once in memory
 * set aside for it before (see kallsyms.c); -2 if out of memory a function
 * (or, without memory for the map, any) was not registered.
 */
int kallsyms_load(struct tep_handle *tep, const char *text);
/*
 * Whether handles with @tep's print formats can look functions up in
 * another's map of @text (kallsyms_share()): a resolver finds what that map
 * finds, but the handle has no function to find by name, which would show
 * in a print format whose argument is a function's name (libtraceevent
 * reads it as the function's address).  False where an argument of an
 * event's print format may be a name in @text.
 */
bool kallsyms_shareable(struct tep_handle *tep, const char *text);
/*
 * @tep to look functions up in @from, whose map kallsyms_load() made and
 * nothing changes any more, from any thread (tep_set_function_resolver());
 * 0, or -1 out of memory.
 */
int kallsyms_share(struct tep_handle *tep, struct tep_handle *from);

#endif /* TDAT_READ_KALLSYMS_H */
