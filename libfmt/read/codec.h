/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* codec.h - decompression of sections and chunks (codec.c). */
#ifndef TDAT_READ_CODEC_H
#define TDAT_READ_CODEC_H

#include "read/types.h"

const struct tdat_codec *codec_find(const char *name);

#endif /* TDAT_READ_CODEC_H */
