/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.c - the tools' outputs, never left half-written: a file (or a
 * directory) is written under a temporary name and renamed when complete;
 * on SIGINT, SIGTERM, SIGHUP, a usage error or a fatal error the temporary
 * output is removed, and so is every output a tracked run (outs_track(),
 * tdat-split's pieces) already renamed.  An output that is an input, a
 * directory where a file is wanted and binary output to a terminal are
 * refused before anything is written.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

/* Temporary outputs not yet renamed, removed on SIGINT/SIGTERM/SIGHUP. */
#define MAX_TMP 256
static char *volatile tmp_paths[MAX_TMP];
static volatile sig_atomic_t tmp_dirs[MAX_TMP];
/*
 * Outputs already renamed that go too if the run fails or is interrupted
 * (outs_track(): tdat-split's pieces).  Grown with signals blocked, so the
 * handler always sees a whole array.
 */
static char **volatile committed;
static volatile sig_atomic_t ncommitted;
static int committed_cap;
static bool tracking;

/*
 * Remove the entry @name of the directory @dirfd, a folder with what is in
 * it; whether it went.
 */
static bool remove_entry(int dirfd, const char *name, int depth);

/*
 * Remove the tree under the directory @fd (closed here): what tdat writes
 * into an output folder is files and folders a few levels deep; a symlink
 * is removed, never followed.  The entries are read with getdents64() into
 * a buffer on the stack, not with readdir(), which allocates: out of memory
 * (and in a signal handler) the folder still goes.  After a pass that
 * removed something the folder is read again from its start, since removing
 * entries may move those not read yet.
 */
static void remove_under(int fd, int depth)
{
	char buf[4096] __attribute__((aligned(8)));
	bool again = true;
	ssize_t n;

	while (again) {
		again = false;
		if (lseek(fd, 0, SEEK_SET) < 0)
			break;
		while ((n = getdents64(fd, buf, sizeof(buf))) > 0)
			for (ssize_t off = 0; off < n;) {
				struct dirent64 *e = (struct dirent64 *)(void *)(buf + off);

				off += e->d_reclen;
				if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
				    remove_entry(fd, e->d_name, depth))
					again = true;
			}
	}
	close(fd);
}

static bool remove_entry(int dirfd, const char *name, int depth)
{
	int sub;

	if (!unlinkat(dirfd, name, 0))
		return true;
	if (depth >= 8)
		return false;
	sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return false;
	remove_under(sub, depth + 1);
	return !unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* Remove an output directory (a temporary one, or one tdat wrote being replaced) and all in it. */
static void remove_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0)
		remove_under(fd, 0);
	rmdir(path);
}

static bool tmp_add(char *path, bool dir)
{
	for (int i = 0; i < MAX_TMP; i++) {
		if (!tmp_paths[i]) {
			tmp_dirs[i] = dir;
			tmp_paths[i] = path;
			return true;
		}
	}
	return false;
}

/* Forget @path; remove it first if @remove. */
static void tmp_done(const char *path, bool remove)
{
	for (int i = 0; i < MAX_TMP; i++) {
		if (tmp_paths[i] != path)
			continue;
		if (remove && tmp_dirs[i])
			remove_dir(path);
		else if (remove)
			unlink(path);
		tmp_paths[i] = NULL;
	}
}

/* Remove every temporary output; true if there was one. */
static bool remove_all_tmp(void)
{
	bool had = false;

	for (int i = 0; i < MAX_TMP; i++) {
		if (tmp_paths[i]) {
			had = true;
			tmp_done(tmp_paths[i], true);
		}
	}
	return had;
}

/* Remove every committed output of a tracked run; how many there were. */
static int remove_committed(void)
{
	int n = ncommitted;

	for (int i = 0; i < n; i++)
		unlink(committed[i]);
	ncommitted = 0;
	return n;
}

static void say(const char *s)
{
	if (write(STDERR_FILENO, s, strlen(s)) < 0)
		return;
}

/* A count for a message written from a signal handler (no stdio there). */
static void say_count(int n)
{
	char buf[16];
	int i = sizeof(buf);

	buf[--i] = '\0';
	do {
		buf[--i] = (char)('0' + n % 10);
		n /= 10;
	} while (n && i > 0);
	say(buf + i);
}

/*
 * SIGINT, SIGTERM, SIGHUP: remove the output being written, say so, and die
 * by the signal, so that the caller sees it (status 128+N in a shell).
 * SIGPIPE keeps its default: `tdat-convert ... | head` ends quietly.
 */
static void on_signal(int sig)
{
	bool had_tmp = remove_all_tmp();
	int done = remove_committed();

	say(progname);
	say(sig == SIGINT ? ": interrupted" : sig == SIGTERM ? ": terminated" : ": hangup");
	if (had_tmp && !done)
		say("; the unfinished output was removed");
	if (done)
		say(had_tmp ? "; removed the unfinished output and " : "; removed ");
	if (done) {
		say("the ");
		say_count(done);
		say(done == 1 ? " file written" : " files written");
	}
	say("\n");
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Hold (or let through again) the signals that remove the output. */
static void block_signals(bool block)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/* Whether directory @path holds the mark of a folder tdat wrote (OUT_MARK). */
static bool tdat_wrote(const char *path)
{
	char *mark;
	struct stat st;
	bool yes;

	if (asprintf(&mark, "%s/" OUT_MARK, path) < 0)
		die_(EXIT_FAIL, "out of memory");
	yes = !lstat(mark, &st) && S_ISREG(st.st_mode);
	free(mark);
	return yes;
}

/*
 * An output directory may not exist, be empty, or be a folder tdat wrote
 * (*@replace: it is replaced when the new one is complete); any other is
 * refused before any work.
 */
static bool dir_usable(const char *path, bool *replace)
{
	struct stat st;
	struct dirent *e;
	bool empty = true;
	DIR *d;

	*replace = false;
	if (lstat(path, &st))
		return true;
	if (!S_ISDIR(st.st_mode)) {
		warnx_("%s: exists and is not a directory", path);
		return false;
	}
	if (!(d = opendir(path))) {
		warn_("%s", path);
		return false;
	}
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	if (empty)
		return true;
	*replace = tdat_wrote(path);
	if (!*replace)
		warnx_("%s: the directory exists, is not empty and is not one tdat wrote "
		       "(it has no %s): it is not replaced; remove it or name another", path, OUT_MARK);
	return *replace;
}

/*
 * A device or a pipe (-o /dev/null, /dev/full, a FIFO) is written in place:
 * a temporary file renamed over it would replace the device node.
 */
/* The process's umask; umask() can only be read by setting it, so set it back. */
static mode_t current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

static int out_open_special(struct tool_out *o, int kind, bool binary)
{
	if (kind != TDAT_OUT_STREAM) {
		warnx_("%s: not a regular file", o->path);
		return -1;
	}
	o->fd = open(o->path, O_WRONLY | O_CLOEXEC);
	if (o->fd < 0) {
		warn_("%s", o->path);
		return -1;
	}
	if (binary && isatty(o->fd))
		usage_error("%s: refusing to write binary output to a terminal", o->path);
	return 0;
}

/* A directory's name without its trailing slashes ("out/" is "out"); it is kept until exit. */
static const char *dir_name(const char *path)
{
	size_t n = strlen(path);
	char *p;

	while (n > 1 && path[n - 1] == '/')
		n--;
	if (!(p = strndup(path, n)))
		die_(EXIT_FAIL, "out of memory");
	return p;
}

int out_open(struct tool_out *o, const char *path, int kind, bool binary)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!path || !strcmp(path, "-")) {
		if (kind != TDAT_OUT_STREAM)
			usage_error("this format needs an output %s: -o %s",
				    kind == TDAT_OUT_DIR ? "directory" : "file",
				    kind == TDAT_OUT_DIR ? "DIR" : "FILE");
		if (binary && isatty(STDOUT_FILENO))
			usage_error("refusing to write binary output to a terminal (use -o FILE or a pipe)");
		o->fd = STDOUT_FILENO;
		return 0;
	}
	if (!*path)
		usage_error("-o needs a name, not an empty string");
	o->path = path;
	o->dir = kind == TDAT_OUT_DIR;
	if (o->dir && (o->path = dir_name(path)) && !dir_usable(o->path, &o->replace))
		return -1;
	path = o->path;
	if (!o->dir && ((!stat(path, &st) && S_ISDIR(st.st_mode)) || path[strlen(path) - 1] == '/'))
		usage_error("-o %s: a file name is expected, not a directory (-f parquet and "
			    "--split-by-event write folders)", path);
	if (!o->dir && !stat(path, &st) && !S_ISREG(st.st_mode))
		return out_open_special(o, kind, binary);
	if (asprintf(&o->tmp, "%s.tmp-XXXXXX", path) < 0)
		die_(EXIT_FAIL, "out of memory");
	/* a signal between creating the file and noting its name would leave it behind */
	block_signals(true);
	if (o->dir ? !mkdtemp(o->tmp) : (o->fd = mkostemp(o->tmp, O_CLOEXEC)) < 0) {
		block_signals(false);
		warn_("%s", path);
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	if (!tmp_add(o->tmp, o->dir)) {
		block_signals(false);
		warnx_("%s: too many outputs open at once (at most %d)", path, MAX_TMP);
		out_abort(o);
		return -1;
	}
	block_signals(false);
	if (o->dir)
		chmod(o->tmp, 0777 & ~current_umask());
	else
		fchmod(o->fd, 0666 & ~current_umask());
	return 0;
}

/*
 * Rename the finished directory into place.  One tdat wrote is swapped
 * with it in one step (readers see the old folder or the new one, never
 * neither), then removed; a folder that is not tdat's by now is kept.
 */
static int commit_dir(struct tool_out *o)
{
	if (!rename(o->tmp, o->path))
		return 0;
	if (errno != ENOTEMPTY && errno != EEXIST) {
		warn_("%s", o->path);
		return -1;
	}
	if (!o->replace || !tdat_wrote(o->path)) {
		warnx_("%s: the directory was filled by someone else while the output was "
		       "written; it is kept, and the new output removed", o->path);
		return -1;
	}
	if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_EXCHANGE)) {
		warn_("%s", o->path);
		return -1;
	}
	remove_dir(o->tmp);	/* the old folder, now under the temporary name */
	return 0;
}

/* Note @path as a committed output of a tracked run (signals are blocked). */
static int remember_committed(const char *path)
{
	char *copy = strdup(path);

	if (copy && ncommitted == committed_cap) {
		int cap = committed_cap ? 2 * committed_cap : 64;
		char **a = malloc(sizeof(*a) * (size_t)cap);

		if (a) {
			for (int i = 0; i < ncommitted; i++)
				a[i] = committed[i];
			free(committed);
			committed = a;
			committed_cap = cap;
		}
	}
	if (!copy || ncommitted == committed_cap) {
		free(copy);
		unlink(path);	/* it could not be taken back on failure: not kept either */
		warnx_("%s: out of memory", path);
		return -1;
	}
	committed[ncommitted] = copy;
	ncommitted = ncommitted + 1;
	return 0;
}

int out_commit(struct tool_out *o)
{
	int ret = 0;

	if (!o->tmp) {
		/* stdout: a failed close catches ENOSPC on redirected output */
		if (o->fd >= 0 && close(o->fd) && errno != EINTR) {
			warn_("%s", o->path ? o->path : "standard output");
			return -1;
		}
		return 0;
	}
	block_signals(true);	/* renamed and forgotten at once */
	if (o->fd >= 0 && close(o->fd)) {
		warn_("%s", o->path);
		ret = -1;
	} else if (o->dir) {
		ret = commit_dir(o);
	} else if (rename(o->tmp, o->path)) {
		warn_("%s", o->path);
		ret = -1;
	}
	tmp_done(o->tmp, ret != 0);
	if (!ret && tracking)
		ret = remember_committed(o->path);
	block_signals(false);
	free(o->tmp);
	o->tmp = NULL;
	return ret;
}

void outs_track(void)
{
	tracking = true;
}

int outs_remove(void)
{
	int n;

	block_signals(true);
	n = remove_committed();
	block_signals(false);
	return n;
}

void out_abort(struct tool_out *o)
{
	if (!o->tmp)
		return;
	if (o->fd >= 0)
		close(o->fd);
	tmp_done(o->tmp, true);
	if (o->dir)
		remove_dir(o->tmp);	/* when it was never registered */
	else
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
}

int out_mark(const char *dir, const char *format)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, OUT_MARK_DIR);
	if (mkdir(path, 0777) && errno != EEXIST) {
		warn_("%s", path);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, OUT_MARK);
	if (!(fp = fopen(path, "we"))) {
		warn_("%s", path);
		return -1;
	}
	/* no paths, times or options: the same bytes wherever the run was */
	fprintf(fp, "{\"written_by\":\"%s\",\"version\":\"%s\",\"format\":\"%s\"}\n",
		progname, PACKAGE_VERSION, format);
	if (ferror(fp) | fclose(fp)) {
		warn_("%s", path);
		return -1;
	}
	return 0;
}

/* Whether @a and @b name the same file (a path, a symlink or a hard link to it). */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!strcmp(a, "-") || !strcmp(b, "-"))
		return !strcmp(a, b);
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void refuse_input_as_output(const char *what, const char *out, char **inputs, int n)
{
	if (!out || !strcmp(out, "-"))
		return;
	for (int i = 0; i < n; i++)
		if (same_file(out, inputs[i]))
			usage_error("%s %s is the input %s: it would be overwritten", what, out,
				    inputs[i]);
}

void refuse_duplicate_inputs(char **inputs, int n)
{
	struct stat *st = calloc((size_t)n + 1, sizeof(*st));

	if (!st)
		die_(EXIT_FAIL, "out of memory");
	for (int i = 0; i < n; i++)
		if (!strcmp(inputs[i], "-") || stat(inputs[i], &st[i]))
			st[i].st_ino = 0;	/* compared by name: "-", or an error later */
	for (int i = 1; i < n; i++)
		for (int j = 0; j < i; j++) {
			bool same = st[i].st_ino ? st[i].st_ino == st[j].st_ino &&
						   st[i].st_dev == st[j].st_dev :
						   !strcmp(inputs[i], inputs[j]);

			if (same && !strcmp(inputs[i], inputs[j]))
				usage_error("%s is named twice as an input", inputs[j]);
			if (same)
				usage_error("%s and %s are the same input file; name it once",
					    inputs[j], inputs[i]);
		}
	free(st);
}

int input_named(char **inputs, int n, const char *file)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(inputs[i], file) || same_file(inputs[i], file))
			return i;
	return -1;
}

void check_pipe(int err)
{
	if (err != EPIPE)
		return;
	remove_all_tmp();
	signal(SIGPIPE, SIG_DFL);
	raise(SIGPIPE);
	exit(128 + SIGPIPE);
}

void outs_catch_signals(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
}

void outs_cleanup(void)
{
	remove_all_tmp();
	remove_committed();
}
