/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* kallsyms.h - a kallsyms section into libtraceevent's function map (kallsyms.c). */
#ifndef TDAT_READ_KALLSYMS_H
#define TDAT_READ_KALLSYMS_H

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

#endif /* TDAT_READ_KALLSYMS_H */
