/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The dashboard page of `echelon serve` (src/serve/dashboard.html,
 * embedded at build time by cmake/embed.cmake): served at "/" by
 * serve_http as it is, with no data in it; the page reads the API itself.
 */
#ifndef ECHELON_SERVE_DASHBOARD_H
#define ECHELON_SERVE_DASHBOARD_H

#include <stddef.h>

extern const unsigned char serve_dashboard_html[];
extern const size_t serve_dashboard_html_len;

/* What the page may load: itself, its inline style and script, and the
 * API of the server that served it; nothing from elsewhere. */
#define SERVE_DASHBOARD_CSP                                                    \
	"default-src 'none'; style-src 'unsafe-inline'; "                      \
	"script-src 'unsafe-inline'; connect-src 'self'; img-src 'self' "      \
	"data:; "                                                              \
	"base-uri 'none'; form-action 'self'"

#endif
