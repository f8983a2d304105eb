// SPDX-License-Identifier: Apache-2.0
/*
 * Listen addresses: parsing ADDR:PORT, loopback or not, the clients' URL.
 */
#include "serve/serve_addr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

int serve_addr_parse(const char *s, char *addr, size_t size, uint16_t *port)
{
	const char *colon = strrchr(s, ':');
	const char *a = s;
	size_t n;
	char *end;
	unsigned long p;

	if (!colon || !colon[1])
		return -EINVAL;
	n = (size_t)(colon - s);
	if (*s == '[') {
		if (n < 2 || s[n - 1] != ']')
			return -EINVAL;
		a = s + 1;
		n -= 2;
	}
	if (!n || n >= size)
		return -EINVAL;
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (*end || errno || p > 65535 || colon[1] == '-' || colon[1] == '+')
		return -EINVAL;
	memcpy(addr, a, n);
	addr[n] = '\0';
	if (strcmp(addr, "localhost") == 0)
		snprintf(addr, size, "127.0.0.1");
	*port = (uint16_t)p;
	return 0;
}

bool serve_addr_loopback(const char *addr)
{
	return strncmp(addr, "127.", 4) == 0 || strcmp(addr, "::1") == 0;
}

char *serve_addr_url(bool tls, const char *addr, uint16_t port)
{
	bool v6 = strchr(addr, ':') != NULL;

	if (strcmp(addr, "0.0.0.0") == 0)
		addr = "127.0.0.1";
	else if (strcmp(addr, "::") == 0)
		addr = "::1";
	return xasprintf("%s://%s%s%s:%u", tls ? "https" : "http",
			 v6 ? "[" : "", addr, v6 ? "]" : "", (unsigned)port);
}
