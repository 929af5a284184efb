/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lastboot.c - the kernel addresses of a persistent ring buffer recorded
 * in an earlier boot, named as trace-cmd 3.4 names them.  trace-cmd 3.4
 * saves such a buffer's last_boot_info as the option LAST_BOOT_INFO
 * ("instance:text": "ADDR [kernel]" and "ADDR module" lines of that boot,
 * or "# Current") and /proc/modules as the section MODULES_FILE, and hands
 * them to libtraceevent 1.9 (tep_parse_last_boot_info(), tep_load_modules()),
 * whose function lookup then moves an address by the distance between the
 * two boots before looking it up in the file's kallsyms: a kernel address
 * by the current _text less the "[kernel]" line's address, one at or above
 * the lowest module line by the module's current address (its /proc/modules
 * line) less its address then.  The name and start found are the current
 * kallsyms' (so "+0xOFF" and the hrtimer plugin's "/0xOFF" are worked out
 * from the address as recorded).  libtraceevent 1.7 does none of this; here
 * it is a function resolver on the file's handle, which looks up a second
 * handle that has the kallsyms alone.  Not for trace-cmd 3.1.6's text style
 * (file_last_boot()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "read/kallsyms.h"
#include "read/read.h"

struct lb_ent {
	unsigned long long addr;
	char *name;
};

struct last_boot {
	struct lb_ent *lbi;	/* the boot's lines, by address */
	int nlbi;
	struct lb_ent *mods;	/* /proc/modules of the file, by name; addr: the move */
	int nmods;
	unsigned long long kdelta;	/* _text now less the "[kernel]" line's address */
	unsigned long long bound;	/* the lowest module line's address, 0: none */
	struct tep_handle *tep;	/* the kallsyms, without the resolver */
	bool installed;
};

static void ents_free(struct lb_ent *e, int n)
{
	for (int i = 0; i < n; i++)
		free(e[i].name);
	free(e);
}

/*
 * The lines of @text as libtraceevent 1.9 reads them: each (empty ones
 * skipped) must give two values, else none is kept.  @modules: /proc/modules
 * lines (name ... address), else last_boot_info's (address name).
 */
static int parse_lines(const char *text, size_t len, bool modules, struct lb_ent **out)
{
	char *copy = strndup(text, len), *save = NULL, *line;
	struct lb_ent *e = NULL;
	int n = 0, cap = 2;

	*out = NULL;
	if (!copy)
		return 0;
	for (const char *p = copy; (p = strchr(p, '\n')); p++)
		cap++;
	e = calloc((size_t)cap, sizeof(*e));
	for (line = strtok_r(copy, "\n", &save); e && line; line = strtok_r(NULL, "\n", &save)) {
		char *name = NULL;
		int got = modules ? sscanf(line, "%ms %*s %*s %*s %*s %18llx", &name, &e[n].addr) :
				    sscanf(line, "%16llx %ms", &e[n].addr, &name);

		if (got != 2) {
			free(name);
			ents_free(e, n);
			free(copy);
			return 0;
		}
		e[n++].name = name;
	}
	free(copy);
	*out = e;
	return e ? n : 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct lb_ent *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct lb_ent *)a)->name, ((const struct lb_ent *)b)->name);
}

/* The module of @name in the sorted list, or NULL. */
static struct lb_ent *module(struct last_boot *lb, const char *name)
{
	struct lb_ent key = { .name = (char *)name };

	return lb->nmods ? bsearch(&key, lb->mods, (size_t)lb->nmods, sizeof(key), by_name) : NULL;
}

/* The last LAST_BOOT_INFO option's text after "instance:", or NULL. */
static const char *lbi_text(const struct tdat_file *f, size_t *len)
{
	const struct tdat_mopt *o = NULL;
	const char *colon;

	for (int i = 0; i < f->meta.nopts; i++)
		if (f->meta.opts[i].id == OPT_LAST_BOOT_INFO)
			o = &f->meta.opts[i];
	if (!o || !(colon = memchr(o->b.data, ':', o->b.len)))
		return NULL;
	*len = strnlen(colon + 1, o->b.len - (size_t)(colon + 1 - o->b.data));
	return colon + 1;
}

/* The address of "_text" (not a module's) in the kallsyms, 0 if none, as tep_parse_kallsyms() reads it. */
static unsigned long long text_address(const char *ks)
{
	unsigned long long addr, text = 0;
	const char *line = ks;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		char name[8] = "", type;
		int n = sscanf(line, "%16llx %c %7s", &addr, &type, name);

		if (n < 2)
			break;	/* libtraceevent stops at a line it cannot read */
		if (n == 3 && !strcmp(name, "_text") && type != 'A' && type != 'a' &&
		    !memchr(line, '[', end ? (size_t)(end - line) : strlen(line)))
			text = addr;
		line = end ? end + 1 : NULL;
	}
	return text;
}

/* The distances between the boots (libtraceevent 1.9's, worked out as it does). */
static void distances(struct last_boot *lb, unsigned long long text)
{
	bool kernel = false;

	for (int i = 0; i < lb->nlbi; i++) {
		struct lb_ent *m;

		if (!strncmp(lb->lbi[i].name, "[kernel]", 8)) {
			if (!kernel && text && lb->lbi[i].addr)	/* the first such line only */
				lb->kdelta = text - lb->lbi[i].addr;
			kernel = true;
			continue;
		}
		if (!lb->nmods)
			continue;
		if (!lb->bound)
			lb->bound = lb->lbi[i].addr;
		if ((m = module(lb, lb->lbi[i].name)))
			m->addr -= lb->lbi[i].addr;
	}
}

/* How far @addr moves: by its module's distance at or above the first module line. */
static unsigned long long distance(struct last_boot *lb, unsigned long long addr)
{
	int lo = 0, hi = lb->nlbi - 1, at = -1;
	struct lb_ent *m;

	if (!lb->bound || addr < lb->bound)
		return lb->kdelta;
	while (lo <= hi) {	/* the line whose address is the last at or below @addr */
		int mid = (lo + hi) / 2;

		if (lb->lbi[mid].addr <= addr) {
			at = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return at >= 0 && (m = module(lb, lb->lbi[at].name)) ? m->addr : 0;
}

static char *resolve(void *priv, unsigned long long *addrp, char **modp)
{
	struct last_boot *lb = priv;
	unsigned long long key = *addrp + distance(lb, *addrp);
	const char *name = tep_find_function(lb->tep, key);

	*modp = NULL;
	if (name)
		*addrp = tep_find_function_address(lb->tep, key);
	return (char *)name;
}

static void apply(struct tdat_file *f)
{
	struct last_boot *lb = f->last_boot;
	bool want = lb && lb->tep && !f->last_boot_off;

	if (!lb || want == lb->installed)
		return;
	if (want)
		lb->installed = !tep_set_function_resolver(f->tep, resolve, lb);
	else {
		tep_reset_function_resolver(f->tep);
		lb->installed = false;
	}
}

void last_boot_setup(struct tdat_file *f)
{
	struct last_boot *lb;
	const char *text;
	size_t len;

	if (f->last_boot || !(text = lbi_text(f, &len)) || !strncmp(text, "# Current", 9) ||
	    !file_kallsyms(f) || !(lb = calloc(1, sizeof(*lb))))
		return;
	f->last_boot = lb;
	lb->nlbi = parse_lines(text, len, false, &lb->lbi);
	if (lb->nlbi && f->meta.modules.data)
		lb->nmods = parse_lines(f->meta.modules.data, f->meta.modules.len, true, &lb->mods);
	qsort(lb->lbi, (size_t)lb->nlbi, sizeof(*lb->lbi), by_addr);
	if (lb->nmods)
		qsort(lb->mods, (size_t)lb->nmods, sizeof(*lb->mods), by_name);
	distances(lb, text_address(file_kallsyms(f)));
	if (!lb->kdelta && !lb->bound)
		return;	/* nothing moves */
	lb->tep = tep_alloc();
	if (lb->tep && kallsyms_load(lb->tep, file_kallsyms(f))) {
		tep_free(lb->tep);
		lb->tep = NULL;
	}
	apply(f);
}

bool last_boot_moves(const struct tdat_file *f)
{
	return f->last_boot && f->last_boot->tep;
}

void file_last_boot(struct tdat_file *f, bool on)
{
	f = meta_of(f);	/* a piece that borrows its split's: that one's handle */
	f->last_boot_off = !on;
	apply(f);
}

void last_boot_free(struct tdat_file *f)
{
	struct last_boot *lb = f->last_boot;

	if (!lb)
		return;
	if (lb->installed && f->tep)
		tep_reset_function_resolver(f->tep);
	if (lb->tep)
		tep_free(lb->tep);
	ents_free(lb->lbi, lb->nlbi);
	ents_free(lb->mods, lb->nmods);
	free(lb);
	f->last_boot = NULL;
}
