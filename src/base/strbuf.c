// SPDX-License-Identifier: Apache-2.0
/*
 * Growable strings.
 */
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

static void grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 32;
	while (cap < need)
		cap *= 2;
	sb->buf = xreallocarray(sb->buf, cap, 1);
	sb->cap = cap;
}

void strbuf_init(struct strbuf *sb)
{
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	grow(sb, 0);
	sb->buf[0] = '\0';
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

char *strbuf_take(struct strbuf *sb)
{
	char *s = sb->buf;

	strbuf_init(sb);
	return s;
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_truncate(sb, 0);
}

void strbuf_truncate(struct strbuf *sb, size_t len)
{
	BUG_ON(len > sb->len);
	sb->len = len;
	sb->buf[len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, cp);
	va_end(cp);
	BUG_ON(n < 0);
	if ((size_t)n >= sb->cap - sb->len) {
		grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_add_json_string(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			strbuf_addstr(sb, "\\\"");
			break;
		case '\\':
			strbuf_addstr(sb, "\\\\");
			break;
		case '\n':
			strbuf_addstr(sb, "\\n");
			break;
		case '\r':
			strbuf_addstr(sb, "\\r");
			break;
		case '\t':
			strbuf_addstr(sb, "\\t");
			break;
		default:
			if (*p < 0x20)
				strbuf_addf(sb, "\\u%04x", *p);
			else
				strbuf_addch(sb, (char)*p);
		}
	}
	strbuf_addch(sb, '"');
}
