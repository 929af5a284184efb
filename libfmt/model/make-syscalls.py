#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""make-syscalls.py - writes libfmt/model/syscalls.c, the syscall names by number
of the machines Perfetto's trace processor names syscalls for, from the Linux UAPI
headers of a Debian 12 machine (linux-libc-dev 6.1):

    python3 libfmt/model/make-syscalls.py > libfmt/model/syscalls.c

As Perfetto (v58.2) reads them: every "#define __NR_name N" line of the header
counts, whatever #if it is under, a later one for a number replacing an earlier
one; x86_64 also has the x32 numbers 512-547 (unistd_x32.h, without the x32 bit).
Linux 6.5-6.7 added 451-456, which the 6.1 headers lack: they are added here.
"""
import re
import sys

INC = '/usr/include'
LATER = {451: 'cachestat', 452: 'fchmodat2', 453: 'map_shadow_stack', 454: 'futex_wake',
         455: 'futex_wait', 456: 'futex_requeue'}


def parse(path, x32=False):
    tab = {}
    pat = (r'^#define\s+__NR_(\w+)\s+\(__X32_SYSCALL_BIT \+ (\d+)\)\s*$' if x32 else
           r'^#define\s+__NR\d*?_(\w+)\s+(\d+)\s*$')
    with open(path) as f:
        for line in f:
            m = re.match(pat, line.strip())
            if m and m.group(1) != 'syscalls':
                tab[int(m.group(2))] = m.group(1)
    return tab


def table(name, tab):
    tab.update(LATER)
    print('static const char *const %s[] = {' % name)
    line = ''
    for i in sorted(tab):
        item = '[%d] = "%s",' % (i, tab[i])
        if line and 8 + len(line) + 1 + len(item) > 100:
            print('\t' + line)
            line = ''
        line = line + ' ' + item if line else item
    print('\t' + line)
    print('};\n')


x86_64 = parse(INC + '/x86_64-linux-gnu/asm/unistd_64.h')
x86_64.update({k: v for k, v in parse(INC + '/x86_64-linux-gnu/asm/unistd_x32.h', True).items()
               if k >= 512})
print('/* SPDX-License-Identifier: LGPL-2.1-or-later */')
print('/*')
print(' * syscalls.c - syscall names by number, as the Linux UAPI headers give them;')
print(' * written by make-syscalls.py (read it for how), do not edit.')
print(' */')
print("#include <stddef.h>\n#include <stdio.h>\n#include <string.h>\n")
print('#include "model.h"\n')
table('x86_64', x86_64)
table('i686', parse(INC + '/x86_64-linux-gnu/asm/unistd_32.h'))
table('aarch64', parse(INC + '/asm-generic/unistd.h'))
print('''#define N(a) (sizeof(a) / sizeof((a)[0]))

const char *syscall_name(const char *machine, uint64_t nr)
{
	static const struct {
		const char *machine;
		const char *const *names;
		size_t n;
	} m[] = {
		{ "x86_64", x86_64, N(x86_64) },
		{ "i686", i686, N(i686) },
		{ "aarch64", aarch64, N(aarch64) },
	};

	for (size_t i = 0; machine && i < N(m); i++)
		if (!strcmp(machine, m[i].machine))
			return nr < m[i].n ? m[i].names[nr] : NULL;
	return NULL;
}

/*
 * The name of a slice of syscall @nr in every format: "sys_NAME" from the
 * machine's table (as trace processor names it), "sys_N" without a name.
 */
int syscall_slice_name(const char *machine, int64_t nr, char *buf, size_t len)
{
	const char *n = nr >= 0 ? syscall_name(machine, (uint64_t)nr) : NULL;

	if (n)
		return snprintf(buf, len, "sys_%s", n);
	return snprintf(buf, len, "sys_%lld", (long long)nr);
}''')
