/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Attributes shared by every module: results that must be checked and
 * printf-like argument checking.
 */
#ifndef ECHELON_BASE_COMPILER_H
#define ECHELON_BASE_COMPILER_H

#define MUST_CHECK	       __attribute__((warn_unused_result))
#define PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#define NORETURN	       __attribute__((noreturn))
#define ARRAY_SIZE(a)	       (sizeof(a) / sizeof((a)[0]))

#endif
