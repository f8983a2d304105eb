/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Diagnostics: a bounded list of located errors and warnings.
 *
 * Parsers report every problem they find, each with the file, line and
 * column it points at, and a text that starts with the field path:
 *
 *	jobs.yaml:14:9: spec.podSets[0].count: must be a positive integer
 *
 * The list keeps at most DIAG_MAX messages (further ones are only counted),
 * so input that is wrong everywhere cannot exhaust memory. A diag owns its
 * messages.
 */
#ifndef ECHELON_BASE_DIAG_H
#define ECHELON_BASE_DIAG_H

#include <stdarg.h>
#include <stddef.h>

#include "base/compiler.h"
#include "base/strbuf.h"
#include "base/vec.h"

#define DIAG_MAX 1000

/* Where an object or field was declared: file (interned or static), 1-based
 * line and column; zeros when it did not come from a file. */
struct srcpos {
	const char *file;
	int line;
	int col;
};

enum diag_severity { DIAG_ERROR, DIAG_WARNING, DIAG_SEVERITY_COUNT };

struct diag_msg {
	enum diag_severity severity;
	char *file;    /* owned; may be NULL */
	int line, col; /* 1-based; 0 when unknown */
	char *text;    /* owned: "path: what is wrong" */
};

struct diag {
	VEC(struct diag_msg) msgs;
	size_t errors;
	size_t warnings;
	size_t dropped;
};

void diag_init(struct diag *d);
void diag_release(struct diag *d);
/* Record a message; file may be NULL, line and col 0 when unknown. */
void diag_add(struct diag *d, enum diag_severity severity, const char *file,
	      int line, int col, const char *fmt, ...) PRINTF_LIKE(6, 7);
/* diag_add() with a va_list, for callers that add a position. */
void diag_vadd(struct diag *d, enum diag_severity severity, const char *file,
	       int line, int col, const char *fmt, va_list ap)
	PRINTF_LIKE(6, 0);
/* diag_add() at a source position. */
void diag_at(struct diag *d, enum diag_severity severity,
	     const struct srcpos *pos, const char *fmt, ...) PRINTF_LIKE(4, 5);
/* Move every message of src to the end of dst; src is left empty. */
void diag_move(struct diag *dst, struct diag *src);
/* One line per message, "file:line:col: [warning: ]text\n". */
void diag_format(const struct diag *d, struct strbuf *out);

#endif
