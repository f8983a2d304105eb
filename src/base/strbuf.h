/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A growable, always NUL-terminated string.
 *
 * buf is never NULL after strbuf_init(); len excludes the terminator. The
 * strbuf owns buf until strbuf_take() hands it to the caller.
 */
#ifndef ECHELON_BASE_STRBUF_H
#define ECHELON_BASE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "base/compiler.h"

struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
};

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
/* Return the string (caller frees) and leave sb empty and initialised. */
char *strbuf_take(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
/* Cut back to len bytes (len <= sb->len). */
void strbuf_truncate(struct strbuf *sb, size_t len);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) PRINTF_LIKE(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	PRINTF_LIKE(2, 0);

/* s (not NULL) as a JSON string, quoted, with the escapes RFC 8259
 * requires: \" \\ \n \r \t, other control characters as \u00XX. */
void strbuf_add_json_string(struct strbuf *sb, const char *s);

#endif
