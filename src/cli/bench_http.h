/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small blocking HTTP/1.1 client for the serve benchmark: one keep-alive
 * connection to 127.0.0.1:port per client thread, bodies with
 * Content-Length or chunked, and chunked streams read line by line
 * (watches). Replies are at most BENCH_HTTP_MAX_BODY bytes, and a
 * connection silent for BENCH_HTTP_TIMEOUT_S fails.
 */
#ifndef ECHELON_CLI_BENCH_HTTP_H
#define ECHELON_CLI_BENCH_HTTP_H

#include <stddef.h>

#include "base/compiler.h"
#include "base/strbuf.h"

#define BENCH_HTTP_MAX_BODY (64u << 20)
/* A reply or stream silent this long fails. */
#define BENCH_HTTP_TIMEOUT_S 20

struct bench_http;

/* A connection to 127.0.0.1:port, or NULL (errno set). */
struct bench_http *bench_http_connect(int port);
void bench_http_close(struct bench_http *h);

/*
 * Send a request (body NULL for none; JSON otherwise) and read the whole
 * reply into body (reset first). Returns the status code, or -1 when the
 * connection failed (then close it).
 */
int bench_http_request(struct bench_http *h, const char *method,
		       const char *path, const char *accept, const char *body,
		       struct strbuf *reply) MUST_CHECK;

/* Send a GET whose reply is a stream; returns its status code or -1. */
int bench_http_stream(struct bench_http *h, const char *path) MUST_CHECK;
/* The next line of the stream (without the newline) in line; 1, or 0 at
 * the end of the stream, or -1 on error. */
int bench_http_line(struct bench_http *h, struct strbuf *line) MUST_CHECK;

#endif
