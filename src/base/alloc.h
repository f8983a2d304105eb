/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Allocation that never returns NULL, and always-on invariant checks.
 *
 * An allocation failure aborts the process: a restarted daemon rebuilds its
 * state, and no caller has to carry an out-of-memory path. BUG_ON() checks
 * invariants that must hold in production; it prints file and line and
 * aborts. Memory from these functions is released with free().
 */
#ifndef ECHELON_BASE_ALLOC_H
#define ECHELON_BASE_ALLOC_H

#include <stddef.h>

#include "base/compiler.h"

/* Never NULL; abort on failure. xmalloc(0) returns a unique pointer. */
void *xmalloc(size_t size);
/* Zeroed; checks n * size for overflow. */
void *xcalloc(size_t n, size_t size);
/* Like realloc(); checks n * size for overflow. */
void *xreallocarray(void *ptr, size_t n, size_t size);
/* Copies of a NUL-terminated string, or of its first n bytes. */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A heap string built like printf(); never NULL. */
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);

NORETURN void bug_fail(const char *file, int line, const char *cond);

/* Abort with file and line when cond holds. Always compiled in. */
#define BUG_ON(cond)                                                           \
	do {                                                                   \
		if (__builtin_expect(!!(cond), 0))                             \
			bug_fail(__FILE__, __LINE__, #cond);                   \
	} while (0)

#endif
