/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Listen addresses of `echelon serve`: "ADDR:PORT" or "[ADDR]:PORT" with
 * a numeric address ("localhost" is read as 127.0.0.1), whether it is a
 * loopback one (no TLS, no token), and the URL clients use for it.
 */
#ifndef ECHELON_SERVE_ADDR_H
#define ECHELON_SERVE_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

/* Split s into addr (size bytes, NUL-terminated) and port; -EINVAL when
 * it is not ADDR:PORT. The address itself is checked when listening. */
int serve_addr_parse(const char *s, char *addr, size_t size,
		     uint16_t *port) MUST_CHECK;
/* Whether a numeric address is a loopback one. */
bool serve_addr_loopback(const char *addr);
/* The URL clients use for a server on addr:port ("http://127.0.0.1:8080";
 * a wildcard address becomes the loopback one). Caller frees. */
char *serve_addr_url(bool tls, const char *addr, uint16_t port);

#endif
