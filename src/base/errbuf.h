/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A fixed-size buffer for one user-facing error message.
 *
 * Fallible functions return a negative errno-style code and, when given an
 * errbuf, describe the failure in words complete enough to show a user as
 * is ("must be a positive integer"). The caller adds the location. The
 * buffer is embedded by the caller; it owns no memory.
 */
#ifndef ECHELON_BASE_ERRBUF_H
#define ECHELON_BASE_ERRBUF_H

#include <stdarg.h>

#include "base/compiler.h"

#define ERRBUF_SIZE 512

struct errbuf {
	char msg[ERRBUF_SIZE];
};

/* Replace the message (truncated to fit). eb may be NULL. Returns err. */
int errbuf_set(struct errbuf *eb, int err, const char *fmt, ...)
	PRINTF_LIKE(3, 4);
int errbuf_vset(struct errbuf *eb, int err, const char *fmt, va_list ap)
	PRINTF_LIKE(3, 0);
/* Empty the message. */
void errbuf_clear(struct errbuf *eb);

#endif
