// SPDX-License-Identifier: Apache-2.0
/*
 * Levelled logging to standard error, one line per message.
 */
#include "base/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static enum log_level current = LOG_WARN;

static const char *const names[LOG_LEVEL_COUNT] = {
	[LOG_ERROR] = "error",
	[LOG_WARN] = "warn",
	[LOG_INFO] = "info",
	[LOG_DEBUG] = "debug",
};

void log_set_level(enum log_level level)
{
	current = level;
}

enum log_level log_get_level(void)
{
	return current;
}

int log_parse_level(const char *s, enum log_level *ret_level)
{
	for (int i = 0; i < LOG_LEVEL_COUNT; i++) {
		if (strcmp(s, names[i]) == 0) {
			*ret_level = (enum log_level)i;
			return 0;
		}
	}
	return -EINVAL;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level > current)
		return;
	fprintf(stderr, "echelon: %s: ", names[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
