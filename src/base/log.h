/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Levelled logging to standard error.
 *
 * Library code logs at debug level at most; the caller that decides what
 * to do about an outcome logs it once. The level is process-wide and set by
 * the command-line front end.
 */
#ifndef ECHELON_BASE_LOG_H
#define ECHELON_BASE_LOG_H

#include "base/compiler.h"

enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG, LOG_LEVEL_COUNT };

void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Parse "error", "warn", "info" or "debug"; -EINVAL otherwise. */
int log_parse_level(const char *s, enum log_level *ret_level) MUST_CHECK;
void log_msg(enum log_level level, const char *fmt, ...) PRINTF_LIKE(2, 3);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
