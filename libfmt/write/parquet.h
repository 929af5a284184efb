/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * parquet.h - the Parquet file builder (parquet-enc.c, parquet-page.c)
 * under the parquet writer (parquet.c): a table of OPTIONAL integer,
 * double, string and LIST-of-integer columns, rows buffered in memory and
 * written as row groups, then the footer.
 *
 * A LIST column is the three-level structure of LogicalTypes.md ("Lists"):
 * "optional group NAME (LIST) { repeated group list { required INT element;
 * } }".  Elements are never null, so the maximum definition level is 2:
 * 0 a null list, 1 an empty one, 2 an element; the repetition level is 0
 * for a row's first entry, 1 for the elements after it.
 *
 * Each column chunk is one or more DataPage v1 pages (definition levels in
 * the RLE/bit-packed hybrid, PLAIN values, DELTA_BINARY_PACKED ones for a
 * timestamp, or RLE_DICTIONARY indices after a PLAIN dictionary page for
 * strings with few distinct values), compressed
 * with zstd; its statistics (min/max in the column's order, null count)
 * go into the footer.
 */
#ifndef TDAT_PARQUET_H
#define TDAT_PARQUET_H

#include "write/sink.h"

/* Parquet's enum values (parquet.thrift). */
enum pq_ptype { PQ_INT32 = 1, PQ_INT64 = 2, PQ_DOUBLE = 5, PQ_BYTE_ARRAY = 6 };
enum pq_enc { PQ_PLAIN = 0, PQ_RLE = 3, PQ_DELTA = 5, PQ_RLE_DICT = 8 };
enum pq_page { PQ_DATA_PAGE = 0, PQ_DICT_PAGE = 2 };
#define PQ_ZSTD 6		/* CompressionCodec */
enum pq_rep { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };	/* FieldRepetitionType */
#define PQ_NULL_LIST UINT32_MAX	/* a null list in pq_col.lens */

struct pq_col {
	char *name;
	enum pq_ptype ptype;
	unsigned bits;		/* integer width 8, 16, 32, 64; 64 a double; 0 a string */
	bool sign;
	bool delta;		/* INT64 as DELTA_BINARY_PACKED (timestamps, row ids) */
	/* the row group being built */
	struct tdat_sink vals;	/* the non-null values, PLAIN */
	struct tdat_sink defs;	/* one byte per row (1 value, 0 null), kept only from
				 * the first null on: until then every row has a value */
	uint64_t nnull, nrows;
	/* a LIST column: vals holds the elements */
	bool list;
	struct tdat_sink lens;	/* one uint32_t a row: its count of elements, or PQ_NULL_LIST */
	uint64_t nempty;	/* rows with an empty list */
};

struct pq_kv {
	char *key, *value;
};

/*
 * The records of a packed table's rows (pq_table_pack()), @len bytes at
 * @rec, put into the columns @cols as their values, in order.
 */
typedef void pq_unpack_fn(struct pq_col *cols, const char *rec, size_t len);

struct pq_table {
	const char *name;	/* the file name in its directory (for errors) */
	int ncols;
	struct pq_col *cols;
	/*
	 * A packed table's owner stores a row's values of its first npacked
	 * columns as one record (pq_put_rec()) in a buffer after the columns,
	 * cols[ncols].vals; unpack puts them into those columns on the thread
	 * that encodes the row group (a helper's with -j), so that the caller
	 * writes a record a row, not a value into each of those columns.
	 * Without helpers (eager) it does so every PQ_REC_BATCH bytes, while
	 * they are in the cache.  The records count in buffered as their bytes
	 * (rec_done: of those unpacked already), not as the values they become,
	 * so that the row groups are the same either way.  unpack NULL: none.
	 * nbufs is the buffers the table holds: ncols, and the records' if packed.
	 */
	pq_unpack_fn *unpack;
	int nbufs, npacked;
	bool eager;
	size_t rec_done;
	uint64_t rows;		/* in the row group being built */
	uint64_t total_rows;
	uint64_t off;		/* bytes in the file so far */
	size_t buffered;	/* bytes of the row group being built (its values, levels,
				 * lengths) at the last pq_row_end() */
	bool rows_bound;	/* its owner writes a row group every so many rows: its
				 * buffers' peak bounds them, and it keeps them (pq_keep()) */
	struct bufpool *pool;	/* where its columns' large buffers come from (pq_ctx.bp) */
	struct tdat_sink rgs;	/* the RowGroup structs written so far (thrift), without
				 * sorting_columns */
	size_t *rg_cut;		/* while pq_sorted(): where each one's field after
				 * sorting_columns begins in rgs (the footer puts them in) */
	int nrgs;
	struct pq_kv *kv;
	int nkv;
	int sort_col;		/* sorting_columns: this one, ascending; -1 none */
	/*
	 * Whether the rows so far are out of order by sort_col (pq_row_end()
	 * checks each row; a null breaks the order): the footer declares
	 * sorting_columns in every row group if all rows of the file are in
	 * order, else in none, so that an engine that takes it for the whole
	 * file's order is right.
	 */
	bool unsorted;
	int64_t sort_last;
};

/* Things a table's writing shares (scratch buffers, the zstd context). */
struct pq_ctx {
	void *zctx;
	int level;		/* zstd level */
	struct tdat_sink page, zpage, head;	/* memory sinks */
	uint32_t *idx;		/* dictionary indices of a chunk */
	size_t idx_cap;
	uint32_t *lev;		/* a page's repetition or definition levels */
	size_t lev_cap;
	char *err;		/* the writer's errmsg */
	struct pq_ctx *more;	/* helpers' contexts (parquet-par.c), nmore of them */
	int nmore;
	char *errs;		/* their messages, TDAT_MSG_LEN each */
	struct pq_pool *pool;	/* the helpers and the row groups in flight, or NULL */
	/*
	 * The tables' column buffers of BP_MIN bytes and more (bufpool.c):
	 * those of written row groups go back to it, and up to PQ_POOL bytes of
	 * them wait there for the next row groups of any table.  Made by the
	 * writer (pq_ctx_init() leaves it NULL: buffers from malloc()), freed by
	 * pq_ctx_release(); a helper's context has none.
	 */
	struct bufpool *bp;
};

/*
 * 24 MiB.  Before the pool, each table kept its written row group's
 * buffers for its next one, up to 12 MiB in all, in malloc()'s heap: on
 * big-mixed.dat at -j 2 the peak grew by 18 to 19 MiB from the first 10%
 * to the whole (the heap's holes; the largest of 3 and of 6 runs), with the
 * pool by 14 to 16 MiB, in the same time (7 pairs, 1.00).  A pool of 12
 * or 16 MiB grew as much (14.3, 13.6 MiB), peaked 9 and 7 MiB lower, and
 * took 1.11 and 1.08 of the time (3 runs each, not paired).
 */
#define PQ_POOL ((size_t)24 << 20)
/*
 * A column's first buffer in a row group holds what its last held (its
 * sinks' hint) up to this; a longer one grows from there.  Without the
 * bound, a few columns' 4 MiB first buffers came fresh from the system
 * each time (231 of them, 0.4 s more in the kernel).
 */
#define PQ_HINT_MAX ((size_t)1 << 20)
#define PQ_MAX_HELPERS 31	/* threads besides the caller's that encode column chunks */

int pq_ctx_init(struct pq_ctx *c, int level, char *err);
void pq_ctx_release(struct pq_ctx *c);

/*
 * A table of @ncols columns, set with pq_col_int()/pq_col_str()/pq_col_list(),
 * its buffers from @c's pool; @name borrowed.
 */
int pq_table_init(struct pq_table *t, const struct pq_ctx *c, const char *name, int ncols);
/* @n columns' buffers made empty memory sinks of @t's pool. */
void pq_cols_empty(const struct pq_table *t, struct pq_col *cols, int n);
void pq_table_release(struct pq_table *t);
int pq_col_int(struct pq_table *t, int i, const char *name, unsigned bits, bool sign);
int pq_col_str(struct pq_table *t, int i, const char *name);
/* A DOUBLE column (no logical type; statistics as doubles, NaN left out). */
int pq_col_double(struct pq_table *t, int i, const char *name);
/* A LIST of integers of @bits (8, 16, 32, 64) and @sign. */
int pq_col_list(struct pq_table *t, int i, const char *name, unsigned bits, bool sign);
/*
 * Make @t packed: the values of its first @npacked columns go into the
 * buffer after its columns as a record a row (pq_put_rec()), @unpack puts
 * them into the columns before a row group is encoded (at once if @c has
 * no helpers), and the owner ends each row with pq_row_end_key().
 */
int pq_table_pack(const struct pq_ctx *c, struct pq_table *t, int npacked, pq_unpack_fn *unpack);
#define PQ_REC_BATCH ((size_t)32 << 10)
/* Key-value metadata of the file (copied). */
int pq_table_kv(struct pq_table *t, const char *key, const char *value);

/* An integer value, PLAIN: of the row (pq_put_int) or an element of its list. */
static inline void pq_put_elem(struct pq_col *c, uint64_t v)
{
	uint32_t w = (uint32_t)v;

	if (c->ptype == PQ_INT64) {	/* little-endian host; constant sizes: plain stores */
		sink_write(&c->vals, &v, 8);
	} else {
		sink_write(&c->vals, &w, 4);
	}
}

/* A value of the row put: its definition level if the column has a null. */
static inline void pq_put_def(struct pq_col *c)
{
	c->nrows++;
	if (c->nnull)
		sink_putc(&c->defs, 1);
}

/* Values of the row being built, one per column, then pq_row_end(). */
static inline void pq_put_int(struct pq_col *c, uint64_t v)
{
	pq_put_elem(c, v);
	pq_put_def(c);
}

void pq_put_str(struct pq_col *c, const void *p, size_t n);

#define PQ_STR_PAD 32	/* pq_put_kept() reads this many bytes of a short string */

/*
 * pq_put_str() of a string kept by the caller whose allocation holds at
 * least PQ_STR_PAD bytes (of which @n are the string): a short one is
 * copied PQ_STR_PAD bytes at once, not by a memcpy() call of @n.
 */
static inline void pq_put_kept(struct pq_col *c, const char *p, uint32_t n)
{
	char *d;

	if (n > PQ_STR_PAD || c->vals.len + 4 + PQ_STR_PAD > c->vals.cap) {
		pq_put_str(c, p, n);
		return;
	}
	d = c->vals.buf + c->vals.len;
	memcpy(d, &n, 4);
	memcpy(d + 4, p, PQ_STR_PAD);	/* a constant size: plain stores */
	c->vals.len += 4 + n;
	pq_put_def(c);
}
/*
 * Text: @n bytes of @s up to a NUL, stored as they are where they are UTF-8,
 * each byte that is not as U+FFFD (the rule of the sqlite and JSON writers).
 */
void pq_put_text(struct pq_col *c, const char *s, size_t n);
/* The same into @dst (room for 3 * @n bytes); returns its length. */
size_t pq_text_clean(char *dst, const char *s, size_t n);

static inline void pq_put_double(struct pq_col *c, double v)
{
	sink_write(&c->vals, &v, 8);	/* PLAIN: IEEE 754, little-endian */
	pq_put_def(c);
}

/* A null value (a null list in a LIST column). */
void pq_put_null(struct pq_col *c);

/* The row's value of a LIST column: the @n elements just put with pq_put_elem(). */
void pq_put_list(struct pq_col *c, uint32_t n);

/*
 * Room for @n more bytes of values in @c: exactly that many on an empty
 * buffer (a row group's records about to be unpacked, whose size is known),
 * else at least twice the room it had; sets c->vals.err if out of memory.
 */
void pq_col_room(struct pq_col *c, size_t n);

/* A packed table's record of the row being built (pq_table_pack()). */
static inline void pq_put_rec(struct pq_table *t, const void *rec, size_t n)
{
	sink_write(&t->cols[t->ncols].vals, rec, n);
}

/* The row is complete; returns the bytes it added to t->buffered. */
size_t pq_row_end(struct pq_table *t);
/* The same for a packed table, whose sort column's value in the row is @key. */
size_t pq_row_end_key(struct pq_table *t, int64_t key);
/* Unpack the records in @cols (@t's, or a frozen copy's) into them (pq_table_pack()). */
void pq_unpack(const struct pq_table *t, struct pq_col *cols);
/* Did a value of the row group fail to fit (a buffer of @t out of memory)? */
bool pq_cols_failed(const struct pq_table *t);
/*
 * A row group of @t is written from @cols (@t's own columns, or the frozen
 * copies parquet-par.c's helpers wrote): empty a rows_bound table's own
 * buffers in place, give any others back to the pool.
 */
void pq_keep(struct pq_table *t, struct pq_col *cols);
/* Free the buffers of @n columns (not their names); each sink's next one starts at its length. */
void pq_cols_release(struct pq_col *cols, int n);
/* @to's sinks' first buffers to hold what @from's hold now, up to PQ_HINT_MAX (sink.hint). */
static inline void pq_hint(struct pq_col *to, const struct pq_col *from)
{
	to->vals.hint = from->vals.len < PQ_HINT_MAX ? from->vals.len : PQ_HINT_MAX;
	to->defs.hint = from->defs.len < PQ_HINT_MAX ? from->defs.len : PQ_HINT_MAX;
	to->lens.hint = from->lens.len < PQ_HINT_MAX ? from->lens.len : PQ_HINT_MAX;
}

/*
 * Write the "PAR1" magic if the file is new (t->off 0), then the buffered
 * row group to @fd (opened for appending).  Nothing if no rows are buffered.
 */
int pq_flush(struct pq_ctx *c, struct pq_table *t, int fd);
/* Flush, then write the footer and the closing magic. */
int pq_finish(struct pq_ctx *c, struct pq_table *t, int fd);

/* A column chunk's statistics (parquet-page.c). */
struct pq_stats {
	uint64_t nulls;		/* entries without a value: null (or empty list) */
	uint64_t nans;		/* a DOUBLE column's NaN values */
	bool any;
	uint64_t min, max;	/* integers in the column's order; a double's bits */
	size_t smin, smax;	/* strings: offsets of the bounds in vals */
};

/* A column chunk being written (parquet-page.c). */
struct pq_cchunk {
	struct pq_ctx *c;
	struct pq_table *t;
	const struct pq_col *col;
	struct tdat_sink *out;
	uint64_t raw, stored;	/* page bytes with their headers, before and after zstd */
	uint64_t off;		/* bytes of the chunk so far */
	uint64_t dict_off, data_off;	/* from the chunk's start until placed */
	bool data_set;
	uint32_t *dict;		/* NULL: PLAIN */
	size_t ndict;
	unsigned bw;		/* bits of an index */
	uint64_t levels;	/* a LIST column's entries (its ColumnMetaData num_values) */
};

struct thrift;
/*
 * parquet-par.c: contexts for @jobs - 1 helper threads (none for 1), so that
 * pq_chunks() encodes a row group's column chunks on @jobs threads.
 */
int pq_ctx_helpers(struct pq_ctx *c, int jobs);
/* Every column chunk of the row group into @out, in order, on this thread (pq_chunk() each). */
int pq_chunks(struct pq_ctx *c, struct pq_table *t, struct tdat_sink *out, struct thrift *meta,
	      uint64_t *raw);
/* Whether @t's row group is worth encoding on @c's helpers. */
bool pq_async_fits(const struct pq_ctx *c, const struct pq_table *t);
/* Hand @t's row group to the helpers (a queue of them in flight); @t goes on empty. */
int pq_launch(struct pq_ctx *c, struct pq_table *t, int fd);
/*
 * Write and place the row groups of @t in flight (of every table if NULL),
 * in order, waiting for them; 0 or an error.
 */
int pq_drain(struct pq_ctx *c, const struct pq_table *t);
/* Stop the helpers; forget the row groups in flight (on failure: none at a good end). */
void pq_pool_stop(struct pq_ctx *c);
/* parquet-enc.c: the RowGroup struct of @rows rows just placed; flush @out into @t's file. */
void pq_row_group(struct pq_table *t, const struct tdat_sink *meta, uint64_t start, uint64_t raw,
		  uint64_t rows);
/* Whether @t's rows so far are in order by its sort column (if it has one). */
static inline bool pq_sorted(const struct pq_table *t)
{
	return t->sort_col >= 0 && !t->unsorted;
}
int pq_write_out(struct pq_ctx *c, struct pq_table *t, struct tdat_sink *out);

/* parquet-page.c: a column chunk's pages into @out; its ColumnChunk struct into @meta. */
struct thrift;
int pq_chunk(struct pq_ctx *c, struct pq_table *t, int i, struct tdat_sink *out,
	     struct thrift *meta, uint64_t *raw_size);
/*
 * The same in two steps: the pages into ch->out (set by the caller, with
 * c, t, col), offsets counted from the chunk's start; then, in column
 * order, the chunk placed at t->off (its bytes written there by the
 * caller) and its ColumnChunk struct.  The caller frees ch->dict.
 */
int pq_chunk_encode(struct pq_cchunk *ch, struct pq_stats *st);
void pq_chunk_place(struct pq_cchunk *ch, const struct pq_stats *st, struct thrift *meta,
		    uint64_t *raw_size);
/* parquet-encodings.c: the RLE/bit-packed hybrid of @n values of @bw bits. */
void pq_hybrid(struct tdat_sink *s, const uint32_t *v, size_t n, unsigned bw);
/*
 * Room for @n levels in c->lev; false without memory.  (Not on the stack: a
 * page's 256 KiB there, out of memory, cannot grow it and kills the process.)
 */
bool pq_lev_room(struct pq_ctx *c, size_t n);
/*
 * The levels of @n rows of a LIST column whose element counts are @lens
 * (PQ_NULL_LIST: null), as a DataPage v1 starts: the repetition levels
 * (bit width 1) and then the definition levels (bit width 2), each a 4-byte
 * little-endian length and the hybrid encoding.  Returns the count of
 * levels (entries) of each, 0 without memory.
 */
size_t pq_list_levels(struct pq_ctx *c, struct tdat_sink *s, const uint32_t *lens, size_t n);
/* DELTA_BINARY_PACKED of @n INT64 values (little-endian, 8 bytes each) at @vals. */
void pq_delta(struct tdat_sink *s, const unsigned char *vals, size_t n);

#endif /* TDAT_PARQUET_H */
