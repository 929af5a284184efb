/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * error.c - the generic text of each error code (from the TDAT_ERRORS
 * X-macro list in tdat.h) and the helper that fills the errmsg buffer kept
 * on every handle; the library's version.
 */
#include <stdio.h>

#include "read/read.h"

const char *tdat_strerror(int code)
{
	switch (code) {
	case TDAT_OK:
		return "success";
	case TDAT_END:
		return "end of data";
#define _TE(name, value, text) case name: return text;
	TDAT_ERRORS
#undef _TE
	}
	return "unknown error";
}

void tdat_msg(char *dst, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, TDAT_MSG_LEN, fmt, ap);
	va_end(ap);
}

const char *tdat_version(void)
{
	return PACKAGE_VERSION;
}
