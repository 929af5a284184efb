/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * writer-int.h - the contract between the writer front end (writer.c)
 * and the formats: struct tdat_writer_ops, struct tdat_writer, what a
 * format calls back (writer_damaged(), writer_unsupported()), what the
 * -j driver (run/) calls (writer_open_worker(), writer_put_now()), the
 * formats' ops, and the entry points one format's files lend another.
 */
#ifndef TDAT_WRITE_WRITER_INT_H
#define TDAT_WRITE_WRITER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/types.h"
#include "write/options.h"
#include "write/sink.h"
#include "write/worker.h"

struct tdat_writer_ops {
	const char *name;
	const char *exts;	/* space separated file name endings */
	int output;		/* enum tdat_output_kind */
	bool symbols;		/* prints function names: load kallsyms first */
	bool fields;		/* writes every field: an event with fields outside
				 * its record is counted (writer_damaged()) */
	int threads;		/* threads the format keeps busy besides the caller's from
				 * -j 2 on (sqlite's inserts, parquet's encoding): -j
				 * workers fewer by as many
				 * (run/par.c), the default -j more (tdat_writer_jobs()) */
	bool parallel;		/* an event's text depends on it and its file only:
				 * workers may print batches of events (run/par.c) */
	bool names;		/* but for the names of tasks libtraceevent learns from
				 * earlier events (run/par-names.c): --comm stays serial */
	const struct writer_option *options;	/* its own options, NULL: none */
	int (*open)(struct tdat_writer *w);
	int (*put)(struct tdat_writer *w, const struct tdat_event *ev);
	int (*close)(struct tdat_writer *w);
	void (*free)(struct tdat_writer *w);
	uint64_t (*size)(struct tdat_writer *w);	/* optional: output bytes so far */
	int (*copy)(struct tdat_writer *w);	/* optional: every event, page by page */
	/*
	 * Optional, for a parallel format with no single stream: write a worker's
	 * batch, @text cut by @s.  A worker's writer (opened with no fd and no
	 * path) puts its text in its sink and its cuts in w->segs.
	 */
	int (*put_segs)(struct tdat_writer *w, const char *text, const struct par_segs *s);
	/*
	 * Optional, for a format whose output for an event depends on the events
	 * before it: on a -j worker's writer, what of @ev depends on it and its
	 * file only (its fields, formatted) into w->sink; 0, or 1 if nothing is
	 * prepared for @ev, or a negative error.  The caller's writer then puts
	 * the events in order, each with its prepared bytes in w->pre (run/par.c).
	 */
	int (*prepare)(struct tdat_writer *w, const struct tdat_event *ev);
#define PREPARE_JOBS 3	/* from this many jobs workers prepare (run/par.c); fewer:
				   the caller's thread puts every event itself */
	/*
	 * Optional, with prepare: a worker's block of events ends; what the
	 * caller must know after its last event into w->sink.  The caller's
	 * writer takes those bytes with put_trailer() after the block's events.
	 */
	int (*prepare_end)(struct tdat_writer *w);
	int (*put_trailer)(struct tdat_writer *w, const char *p, size_t n);
};

struct tdat_writer {
	const struct tdat_writer_ops *ops;
	struct writer_opts opt;		/* tdat_writer_set_option() */
	struct tdat_sink sink;		/* unused by file and directory formats */
	const char *path;		/* file or directory formats */
	struct tdat_merge *merge;
	unsigned flags;
	int jobs;			/* threads (tdat_writer_set_jobs()) */
	char errmsg[TDAT_MSG_LEN];
	char warning[TDAT_MSG_LEN];	/* tdat_writer_warning() */
	uint64_t ndamaged;		/* events written without part of them */
	struct writer_damage {
		const char *path;		/* the first one's file */
		char first[TDAT_MSG_LEN];	/* the first one: sys:name at time: why */
		const char *one, *many;		/* what the last one was, in the warning */
	} damage;
	uint64_t window;		/* -j: bytes a time window holds, 0: run/par.c's default */
	struct par_segs segs;		/* a worker's text by destination (ops->put_segs) */
	struct par_names names;		/* a worker's text: names left out and learnt (text.c) */
	const char *pre;		/* put(): what a worker's ops->prepare made of the event, */
	size_t pre_len;			/* NULL: nothing (run/par.c) */
	bool fit;			/* put(): a worker found its fields inside its record */
	bool worker;			/* a -j worker's writer (writer_open_worker()) */
	int workers;			/* a worker's: how many share the run */
	char *piece;			/* dat: the piece mark to write, NULL: none */
	size_t piece_len;
	struct writer_notice {		/* events of a type whose print format is not supported */
		const struct tdat_file *file;
		const char *system, *name;	/* libtraceevent's, compared as pointers */
		uint64_t count;
	} *notices;
	int nnotices;
	char notice[TDAT_MSG_LEN];	/* tdat_writer_notice() */
	void *priv;
};

/*
 * An event written without part of it (@why), into tdat_writer_warning():
 * "PATH: N @many (the first, sys:name at time: why)", @one if N is 1.
 */
void writer_damaged(struct tdat_writer *w, const struct tdat_event *ev, const char *system,
		    const char *name, const char *why, const char *one, const char *many);
/* @n more damaged events, the first of them @d (a worker's, run/par.c), after those counted. */
void writer_damage_add(struct tdat_writer *w, const struct writer_damage *d, uint64_t n);

/*
 * A -j worker's writer (run/par.c): no output, its text into w->sink (and, for a
 * format with ops->put_segs, cut into w->segs); no workers of its own.
 */
int writer_open_worker(struct tdat_writer *w, struct tdat_merge *m, unsigned flags);

/* tdat_writer_put() on this thread (what run/par.c's workers and caller call). */
int writer_put_now(struct tdat_writer *w, const struct tdat_event *ev);
/*
 * Whether a writer of @ops need not count @ev as damaged (no fields
 * outside its record): asked on a -j worker, so that the caller's
 * writer_put_now() checks only the events that do not (w->fit).
 */
bool writer_fields_fit(const struct tdat_writer_ops *ops, const struct tdat_event *ev);

/* An event of a type whose print format is not supported, printed with its fields only (notices.c). */
void writer_unsupported(struct tdat_writer *w, const struct tdat_event *ev, const char *system,
			const char *name);

extern const struct tdat_writer_ops tdat_writer_text_ops;
extern const struct tdat_writer_ops tdat_writer_csv_ops;
extern const struct tdat_writer_ops tdat_writer_json_ops;
extern const struct tdat_writer_ops tdat_writer_sqlite_ops;
extern const struct tdat_writer_ops tdat_writer_dat_ops;
extern const struct tdat_writer_ops tdat_writer_perfetto_ops;
extern const struct tdat_writer_ops tdat_writer_parquet_ops;

/*
 * info-json.c: a dataset's _tdat/trace.json under the folder @dirfd: one
 * tdat_file_info_json() line per file added to the writer's merge, with the
 * statistics the merge counted (tdat_merge_count()), or read again.
 */
int dataset_info_write(struct tdat_writer *w, int dirfd);

/* writer-csvdir.c: csv with the "split" option; csv_open() hands over to it. */
int csvdir_open(struct tdat_writer *w);

#endif /* TDAT_WRITE_WRITER_INT_H */
