/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cpustat.h - the kernel's per-CPU ring-buffer statistics (cpustat.c). */
#ifndef TDAT_READ_CPUSTAT_H
#define TDAT_READ_CPUSTAT_H

#include "read/types.h"

/* Parse CPUSTAT @text (@len bytes) into @f's table, replacing it; 0 or TDAT_ENOMEM. */
int cpustat_parse(struct tdat_file *f, const char *text, size_t len);
void cpustat_free(struct tdat_file *f);

extern const struct kstat_field kstat_fields[KSTAT_NFIELDS];
/* The figure of @k that @bit names. */
uint64_t kstat_value(const struct tdat_kernel_cpu_stats *k, unsigned bit);

int kseen_init(struct kseen *k, const struct tdat_file *f);
void kseen_event(struct kseen *k, const struct tdat_event *ev);
void kseen_release(struct kseen *k);
/*
 * CPU @cpu's figures over the buffers written: counts summed, the oldest
 * ts the earliest, now_ts the latest; where a buffer's text has no overrun,
 * the lost events its pages counted stand in (so overrun is always set).
 */
void kseen_cpu(const struct kseen *k, struct tdat_file *f, int cpu,
	       struct tdat_kernel_cpu_stats *out);

#endif /* TDAT_READ_CPUSTAT_H */
