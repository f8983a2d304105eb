// SPDX-License-Identifier: Apache-2.0
/*
 * Quoting input text for messages, and the byte-level checks that the
 * manifest, trace and ITP readers share.
 */
#include "base/text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/banned.h"

size_t text_utf8_len(const unsigned char *p, size_t left)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (left < n)
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++) {
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	}
	return n;
}

static void escape_byte(struct strbuf *out, unsigned char c)
{
	char hex[5];

	switch (c) {
	case '\n':
		strbuf_addstr(out, "\\n");
		return;
	case '\r':
		strbuf_addstr(out, "\\r");
		return;
	case '\t':
		strbuf_addstr(out, "\\t");
		return;
	default:
		snprintf(hex, sizeof(hex), "\\x%02x", c);
		strbuf_addstr(out, hex);
	}
}

/* Quote s[0..len) whole. */
static void quote_all(struct strbuf *out, const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t run = i, n;

		/* Printable ASCII goes out in runs. */
		while (run < len && s[run] >= 0x20 && s[run] < 0x7f)
			run++;
		if (run > i)
			strbuf_add(out, s + i, run - i);
		i = run;
		if (i >= len)
			break;
		n = s[i] < 0x80 ? 0 : text_utf8_len(s + i, len - i);
		/* U+0080..U+009F (C1): 0xc2 0x80..0x9f; 0x9b is a CSI. */
		if (n == 0 || (n == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)) {
			escape_byte(out, s[i]);
			i++;
			continue;
		}
		strbuf_add(out, s + i, n);
		i += n;
	}
}

/* Back off from a cut at off to the start of a UTF-8 sequence. */
static size_t char_start(const unsigned char *s, size_t off)
{
	size_t back = 0;

	while (off > 0 && back < 3 && (s[off] & 0xc0) == 0x80) {
		off--;
		back++;
	}
	return off;
}

void text_quote(struct strbuf *out, const char *s, size_t len, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t head, tail;

	if (max == 0 || len <= max) {
		quote_all(out, u, len);
		return;
	}
	/* Two thirds of the room for the start, one third for the end. */
	head = char_start(u, max * 2 / 3);
	tail = char_start(u, len - max / 3);
	quote_all(out, u, head);
	strbuf_addf(out, "[... %zu bytes ...]", tail - head);
	quote_all(out, u + tail, len - tail);
}

void text_quote_buf(char *buf, size_t size, const char *s, size_t len,
		    size_t max)
{
	struct strbuf sb;
	size_t n;

	strbuf_init(&sb);
	text_quote(&sb, s, len, max);
	n = sb.len < size - 1 ? sb.len : size - 1;
	/* Do not leave half an escape or half a character at the end. */
	if (n < sb.len) {
		n = char_start((const unsigned char *)sb.buf, n);
		for (size_t i = n >= 3 ? n - 3 : 0; i < n; i++) {
			if (sb.buf[i] == '\\' && i + 4 > n) {
				n = i;
				break;
			}
		}
	}
	if (n)
		memcpy(buf, sb.buf, n);
	buf[n] = '\0';
	strbuf_release(&sb);
}

void text_position(const char *buf, size_t off, int *ret_line, int *ret_col)
{
	const unsigned char *p = (const unsigned char *)buf;
	int line = 1, col = 1;

	for (size_t i = 0; i < off; i++) {
		if (p[i] == '\n') {
			line++;
			col = 1;
		} else if ((p[i] & 0xc0) != 0x80) {
			col++;
		}
	}
	if (ret_line)
		*ret_line = line;
	if (ret_col)
		*ret_col = col;
}

size_t text_find_nul(const char *buf, size_t len, int *ret_line, int *ret_col)
{
	const char *nul = len ? memchr(buf, '\0', len) : NULL;
	size_t off = nul ? (size_t)(nul - buf) : len;

	if (nul)
		text_position(buf, off, ret_line, ret_col);
	return off;
}

size_t text_find_bad_utf8(const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;

	for (size_t i = 0; i < len;) {
		size_t n;

		/* ASCII, eight bytes at a time. */
		while (i + 8 <= len) {
			uint64_t w;

			memcpy(&w, p + i, 8);
			if (w & 0x8080808080808080ULL)
				break;
			i += 8;
		}
		if (i >= len)
			break;
		n = text_utf8_len(p + i, len - i);
		if (n == 0)
			return i;
		i += n;
	}
	return len;
}
