/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sqlite-pages.h - a SQLite database file written page by page, without
 * SQLite (sqlite-pages.c): records in the file format's encoding, and the
 * b-tree of a rowid table built from the bottom up from rows given in
 * rowid order.  Private to the sqlite writer.
 */
#ifndef TDAT_SQLITE_PAGES_H
#define TDAT_SQLITE_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SQP_PAGE 32768u		/* the page size of the sqlite writer's files */
#define SQP_HEADER 100u		/* page 1 begins with the file's header */
#define SQP_LEAF_HDR 8u		/* a leaf page's header; an interior page's has its right child too */
#define SQP_INTERIOR_HDR 12u

/* The b-tree page types of the file format. */
enum { SQP_INDEX_INTERIOR = 2, SQP_TABLE_INTERIOR = 5, SQP_INDEX_LEAF = 10, SQP_TABLE_LEAF = 13 };

/* The file being built: its pages, the first reserved for the schema. */
struct sqp_file {
	int fd;
	unsigned size;			/* bytes a page */
	int entries;			/* children of an interior page */
	uint32_t npages;		/* pages given out (page 1 included) */
	unsigned char *page;		/* a page being laid out */
	unsigned char *cells;		/* an interior page's cells, packed */
	uint16_t *off;			/* a page's cell offsets */
	int err;			/* errno of the first failed write, sticky */
};

/* One level of interior pages being built: its children, the largest rowid of each. */
struct sqp_level {
	struct sqp_entry {
		uint32_t child;
		int64_t key;
	} *e;
	int n, cap;
};

/* The b-tree of one table, filled in rowid order. */
struct sqp_tree {
	unsigned char *cells;		/* the leaf being filled: its cells, packed */
	size_t clen, ccap;
	uint16_t *coff;			/* each cell's offset in cells */
	int ncells, coffcap;
	int64_t leaf_last;		/* the leaf's largest rowid */
	struct sqp_level *lv;		/* lv[0] above the leaves, ... */
	int nlv;
	bool any;			/* it has a row */
	int64_t last;			/* its largest rowid */
};

/* Start writing the file open at @fd (empty), pages of @size bytes (a power of 2, 512 to 65536). */
int sqp_file_init(struct sqp_file *f, int fd, unsigned size);
void sqp_file_release(struct sqp_file *f);

/* An empty tree. */
void sqp_tree_init(struct sqp_tree *t);
void sqp_tree_release(struct sqp_tree *t);
/*
 * Add a row: @rowid greater than every one before (t->last), its record
 * @rec of @len bytes.  0, TDAT_ENOMEM, or TDAT_EIO (f->err says why).
 */
int sqp_tree_add(struct sqp_file *f, struct sqp_tree *t, int64_t rowid, const void *rec, size_t len);
/*
 * Write what is left of @t; its root page is *@root (given out here, or
 * page 1 if *@root is 1 on entry).  0, TDAT_ENOMEM or TDAT_EIO.
 */
int sqp_tree_finish(struct sqp_file *f, struct sqp_tree *t, uint32_t *root);
/*
 * Write a b-tree page of @type at the next free page (*@pg): its @n cells
 * packed at @cells (@clen bytes, cell i at @coff[i]), @right its right-most
 * child if it is an interior page.  0, TDAT_EINVAL (they do not fit) or TDAT_EIO.
 */
int sqp_page(struct sqp_file *f, int type, uint32_t right, const unsigned char *cells, size_t clen,
	     const uint16_t *coff, int n, uint32_t *pg);
/* SQLite's varint of @v at @p (up to 9 bytes); its length. */
unsigned sqp_varint(unsigned char *p, uint64_t v);
/* Write page 1's first SQP_HEADER bytes: the file's header. */
int sqp_file_header(struct sqp_file *f, uint32_t libversion);

/*
 * Records (the file format's "record format") of a row's values: V_TEXT
 * bytes at an offset in the row's arena, V_STATIC's at a pointer.
 */
enum { V_NULL, V_INT, V_REAL, V_TEXT, V_STATIC };

struct sq_val {
	int type;
	unsigned len;
	union {
		int64_t i;
		double d;
		size_t off;		/* V_TEXT: offset in the arena */
		const char *p;		/* V_STATIC */
	} u;
};

/* Bytes the record of @v[0..@n) takes at most (sqr_encode()'s room). */
size_t sqr_room(const struct sq_val *v, int n);
/*
 * Encode @v[0..@n) (V_TEXT bytes in @arena) at @out (sqr_room() bytes),
 * @v[0] as NULL if it is the @rowid; its length.
 */
size_t sqr_encode(unsigned char *out, const struct sq_val *v, int n, const char *arena, bool rowid);
/*
 * Decode column @col of the record @rec (@len bytes) into @v (text as
 * V_STATIC, in @rec): V_NULL past its last column; false if the record is
 * not one sqr_encode() makes.
 */
bool sqr_decode(const unsigned char *rec, size_t len, int col, struct sq_val *v);

/*
 * The affinity of each column that CREATE TABLE statement @sql declares,
 * by SQLite's rules on its declared type, into @aff (at most @max):
 * 'I'nteger, 'T'ext, 'R'eal, 'N'umeric, '-' none (BLOB or no type).  The
 * number of columns, or -1 if @sql is not one this reads (a table
 * constraint among its columns, say) or they are more than @max.
 */
int sqp_affinities(const char *sql, char *aff, int max);
/* The position of column @name (in any case) in CREATE TABLE statement @sql, or -1. */
int sqp_column(const char *sql, const char *name);

#endif /* TDAT_SQLITE_PAGES_H */
