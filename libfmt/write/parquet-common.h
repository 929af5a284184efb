/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * parquet-common.h - an event's common columns in the parquet writer
 * (parquet-common.c): ts, cpu, input, buffer, pid, comm and lost, in its
 * type's file and in events.parquet (with its type's system and event),
 * stored as one record a row of each (pq_table_pack()) and unpacked into
 * the columns on the thread that encodes the row group.  Private to the
 * write layer.
 */
#ifndef TDAT_PARQUET_COMMON_H
#define TDAT_PARQUET_COMMON_H

#include "write/parquet.h"
#include "write/typed.h"
#include "write/writer-int.h"

#define PQC_NFIXED 7		/* ts cpu input buffer pid comm lost */

/* A type's system and event as events.parquet has them (pqc_text_dup()), its file's to free. */
struct pqc_name {
	char *sys, *name;
};

struct pqc;

/* The comms and buffer names of @ninputs inputs, kept for the writer's life; NULL: no memory. */
struct pqc *pqc_new(int ninputs);
/* Free them; no helper may unpack a record any more (pq_pool_stop()). */
void pqc_free(struct pqc *c);
/*
 * @ev's common columns (its type @tt, named @n, which must live as long as
 * @c) as a record of the row being built in its type's file @t and in
 * events.parquet's @all; TDAT_ENOMEM if out of memory.
 */
int pqc_put(struct pqc *c, struct pq_table *t, struct pq_table *all, const struct tdat_event *ev,
	    const struct ttype *tt, const struct pqc_name *n);
/* pq_table_pack()'s unpack of a type's file (the common columns) and of events.parquet. */
pq_unpack_fn pqc_unpack_type, pqc_unpack_events;
/*
 * @s as every string of the dataset holds text (pq_text_clean()), with at
 * least PQ_STR_PAD bytes from its start (pq_put_kept()) and its length in
 * the 4 bytes before it (pqc_text_len()); NULL without memory.
 */
char *pqc_text_dup(const char *s);
void pqc_text_free(char *s);
static inline uint32_t pqc_text_len(const char *s)
{
	uint32_t len;

	memcpy(&len, s - 4, 4);
	return len;
}

#endif /* TDAT_PARQUET_COMMON_H */
