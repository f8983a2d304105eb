// SPDX-License-Identifier: Apache-2.0
/*
 * One user-facing error message in a fixed buffer.
 */
#include "base/errbuf.h"

#include <stdio.h>

#include "base/strbuf.h"
#include "base/text.h"

int errbuf_vset(struct errbuf *eb, int err, const char *fmt, va_list ap)
{
	struct strbuf sb;

	if (!eb)
		return err;
	/* The message may quote input: keep it safe to print. */
	strbuf_init(&sb);
	strbuf_vaddf(&sb, fmt, ap);
	text_quote_buf(eb->msg, sizeof(eb->msg), sb.buf, sb.len, 0);
	strbuf_release(&sb);
	return err;
}

int errbuf_set(struct errbuf *eb, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf_vset(eb, err, fmt, ap);
	va_end(ap);
	return err;
}

void errbuf_clear(struct errbuf *eb)
{
	if (eb)
		eb->msg[0] = '\0';
}
