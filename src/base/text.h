/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Text from input, made safe to show: every message that can hold text
 * read from a file, a trace or the command line goes through text_quote()
 * before it reaches a terminal, so that a name holding escape sequences
 * cannot clear or retitle the terminal, a newline cannot forge a second
 * diagnostic line, and a 50 MB value is not echoed whole.
 *
 * Also the byte-level checks every text reader shares: UTF-8 sequences and
 * the position of a NUL byte.
 */
#ifndef ECHELON_BASE_TEXT_H
#define ECHELON_BASE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

/* The longest message text_quote() keeps whole, in bytes. */
#define TEXT_QUOTE_MAX 1024

/*
 * Append s[0..len) to out with C0 and C1 control characters, DEL and bytes
 * that are not UTF-8 written as \n, \r, \t or \xNN. Printable text,
 * backslashes included, is kept as is, so quoting twice changes nothing.
 * When len is over max (0: no limit), the middle is cut out and replaced by
 * "[... N bytes ...]": the start (the field) and the end (what is wrong)
 * stay readable.
 */
void text_quote(struct strbuf *out, const char *s, size_t len, size_t max);
/* text_quote() into buf of size (at least 1), truncated to fit. */
void text_quote_buf(char *buf, size_t size, const char *s, size_t len,
		    size_t max);
/* Length of the UTF-8 sequence at p (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 when it is not one; left >= 1. */
size_t text_utf8_len(const unsigned char *p, size_t left);
/*
 * Offset of the first NUL byte in buf[0..len), or len when there is none.
 * ret_line and ret_col (either may be NULL) get its 1-based line and
 * column in characters.
 */
size_t text_find_nul(const char *buf, size_t len, int *ret_line, int *ret_col);
/* Offset of the first byte of buf[0..len) that does not start a valid
 * UTF-8 sequence (text_utf8_len() is 0), or len when all is UTF-8. */
size_t text_find_bad_utf8(const char *buf, size_t len);
/* Line and column (1-based, in UTF-8 characters) of byte offset off. */
void text_position(const char *buf, size_t off, int *ret_line, int *ret_col);

#endif
