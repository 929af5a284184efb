/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * read.h - the reading layer as the layers above it see it, never seen by
 * the tools: its data (types.h) and one header per module, each of which
 * may be included alone.
 */
#ifndef TDAT_READ_H
#define TDAT_READ_H

#include "read/types.h"
#include "read/idtab.h"
#include "read/io.h"
#include "read/thread.h"
#include "read/codec.h"
#include "read/file.h"
#include "read/dat.h"
#include "read/sections.h"
#include "read/lastboot.h"
#include "read/kallsyms.h"
#include "read/origin.h"
#include "read/piece.h"
#include "read/fields.h"
#include "read/stats.h"
#include "read/cpustat.h"
#include "read/notes.h"
#include "read/select.h"
#include "read/cursor.h"
#include "read/window.h"
#include "read/prefetch.h"
#include "read/merge.h"
#include "read/merge-par.h"

#endif /* TDAT_READ_H */
