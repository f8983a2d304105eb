// SPDX-License-Identifier: Apache-2.0
/*
 * Allocation wrappers that abort on failure, and the BUG_ON() reporter.
 */
#include "base/alloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static NORETURN void oom(size_t size)
{
	fprintf(stderr, "echelon: out of memory allocating %zu bytes\n", size);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom(n * size);
	return p;
}

void *xreallocarray(void *ptr, size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		oom(SIZE_MAX);
	p = realloc(ptr, (n && size) ? n * size : 1);
	if (!p)
		oom(n * size);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	return p;
}

void bug_fail(const char *file, int line, const char *cond)
{
	fprintf(stderr, "echelon: BUG at %s:%d: %s\n", file, line, cond);
	abort();
}
