// SPDX-License-Identifier: Apache-2.0
/*
 * One user-facing error message in a fixed buffer.
 */
#include "base/errbuf.h"

#include <stdio.h>

int errbuf_vset(struct errbuf *eb, int err, const char *fmt, va_list ap)
{
	if (eb)
		vsnprintf(eb->msg, sizeof(eb->msg), fmt, ap);
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
