// SPDX-License-Identifier: Apache-2.0
/*
 * The serve benchmark's HTTP client: plain blocking sockets, so the
 * numbers measure the daemon rather than a client library, and each
 * client thread is one connection as kubectl or a controller would hold.
 */
#include "cli/bench_http.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/alloc.h"

#include "base/banned.h"

struct bench_http {
	int fd;
	char buf[65536];
	size_t off, len;
	/* The reply being read. */
	bool chunked;
	size_t left; /* bytes left of the body or of the current chunk */
	bool done;   /* the body has ended */
	int port;
	struct strbuf pend; /* stream bytes not yet returned as lines */
};

struct bench_http *bench_http_connect(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct timeval timeout = { .tv_sec = BENCH_HTTP_TIMEOUT_S };
	struct bench_http *h;
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return NULL;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return NULL;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* A daemon that stops answering fails the benchmark, not hangs it. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	h = xcalloc(1, sizeof(*h));
	h->fd = fd;
	h->port = port;
	strbuf_init(&h->pend);
	return h;
}

void bench_http_close(struct bench_http *h)
{
	if (!h)
		return;
	close(h->fd);
	strbuf_release(&h->pend);
	free(h);
}

static int send_all(struct bench_http *h, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(h->fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* At least one more byte in buf; -1 at end of file or error. */
static int fill(struct bench_http *h)
{
	ssize_t r;

	if (h->off == h->len)
		h->off = h->len = 0;
	if (h->len == sizeof(h->buf)) {
		memmove(h->buf, h->buf + h->off, h->len - h->off);
		h->len -= h->off;
		h->off = 0;
	}
	do
		r = recv(h->fd, h->buf + h->len, sizeof(h->buf) - h->len, 0);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return -1;
	h->len += (size_t)r;
	return 0;
}

/* One CRLF-terminated line of the header or chunk framing into sb. */
static int read_crlf(struct bench_http *h, struct strbuf *sb)
{
	strbuf_reset(sb);
	for (;;) {
		char *nl;

		if (h->off == h->len && fill(h) < 0)
			return -1;
		nl = memchr(h->buf + h->off, '\n', h->len - h->off);
		if (!nl) {
			strbuf_add(sb, h->buf + h->off, h->len - h->off);
			h->off = h->len;
			if (sb->len > 65536)
				return -1;
			continue;
		}
		strbuf_add(sb, h->buf + h->off,
			   (size_t)(nl - (h->buf + h->off)));
		h->off = (size_t)(nl - h->buf) + 1;
		if (sb->len && sb->buf[sb->len - 1] == '\r')
			strbuf_truncate(sb, sb->len - 1);
		return 0;
	}
}

/* Status line and headers; sets the body framing. */
static int read_head(struct bench_http *h)
{
	struct strbuf line;
	int code = -1;

	strbuf_init(&line);
	h->chunked = false;
	h->left = 0;
	h->done = false;
	if (read_crlf(h, &line) < 0 ||
	    sscanf(line.buf, "HTTP/1.%*d %d", &code) != 1)
		goto fail;
	for (;;) {
		if (read_crlf(h, &line) < 0)
			goto fail;
		if (!line.len)
			break;
		if (!strncasecmp(line.buf, "content-length:", 15))
			h->left = strtoull(line.buf + 15, NULL, 10);
		else if (!strncasecmp(line.buf, "transfer-encoding:", 18) &&
			 strstr(line.buf, "chunked"))
			h->chunked = true;
	}
	h->done = !h->chunked && !h->left;
	strbuf_release(&line);
	return code;
fail:
	strbuf_release(&line);
	return -1;
}

/* Up to max bytes of the body into sb; 0 at its end, -1 on error. */
static ssize_t read_body(struct bench_http *h, struct strbuf *sb, size_t max)
{
	struct strbuf line;
	size_t n;

	if (h->done)
		return 0;
	if (h->chunked && !h->left) {
		strbuf_init(&line);
		if (read_crlf(h, &line) < 0) {
			strbuf_release(&line);
			return -1;
		}
		h->left = strtoull(line.buf, NULL, 16);
		if (!h->left) {
			/* Trailers end with an empty line. */
			do {
				if (read_crlf(h, &line) < 0) {
					strbuf_release(&line);
					return -1;
				}
			} while (line.len);
			h->done = true;
		}
		strbuf_release(&line);
		if (h->done)
			return 0;
	}
	if (h->off == h->len && fill(h) < 0)
		return -1;
	n = h->len - h->off;
	if (n > h->left)
		n = h->left;
	if (n > max)
		n = max;
	strbuf_add(sb, h->buf + h->off, n);
	h->off += n;
	h->left -= n;
	if (h->chunked && !h->left) {
		struct strbuf crlf;

		strbuf_init(&crlf);
		if (read_crlf(h, &crlf) < 0) {
			strbuf_release(&crlf);
			return -1;
		}
		strbuf_release(&crlf);
	} else if (!h->chunked && !h->left) {
		h->done = true;
	}
	return (ssize_t)n;
}

static int send_request(struct bench_http *h, const char *method,
			const char *path, const char *accept, const char *body)
{
	struct strbuf req;
	int r;

	strbuf_init(&req);
	strbuf_addf(&req,
		    "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
		    "User-Agent: echelon-bench\r\nAccept: %s\r\n",
		    method, path, h->port,
		    accept ? accept : "application/json");
	if (body)
		strbuf_addf(&req,
			    "Content-Type: application/json\r\n"
			    "Content-Length: %zu\r\n",
			    strlen(body));
	strbuf_addstr(&req, "\r\n");
	if (body)
		strbuf_addstr(&req, body);
	r = send_all(h, req.buf, req.len);
	strbuf_release(&req);
	return r;
}

int bench_http_request(struct bench_http *h, const char *method,
		       const char *path, const char *accept, const char *body,
		       struct strbuf *reply)
{
	int code;
	ssize_t n;

	strbuf_reset(reply);
	if (send_request(h, method, path, accept, body) < 0)
		return -1;
	code = read_head(h);
	if (code < 0)
		return -1;
	while ((n = read_body(h, reply, sizeof(h->buf))) > 0) {
		if (reply->len > BENCH_HTTP_MAX_BODY)
			return -1;
	}
	return n < 0 ? -1 : code;
}

int bench_http_stream(struct bench_http *h, const char *path)
{
	if (send_request(h, "GET", path, NULL, NULL) < 0)
		return -1;
	return read_head(h);
}

int bench_http_line(struct bench_http *h, struct strbuf *line)
{
	for (;;) {
		char *nl = memchr(h->pend.buf, '\n', h->pend.len);
		ssize_t n;

		if (nl) {
			size_t len = (size_t)(nl - h->pend.buf);

			strbuf_reset(line);
			strbuf_add(line, h->pend.buf, len);
			memmove(h->pend.buf, nl + 1, h->pend.len - len - 1);
			strbuf_truncate(&h->pend, h->pend.len - len - 1);
			return 1;
		}
		if (h->pend.len > BENCH_HTTP_MAX_BODY)
			return -1;
		n = read_body(h, &h->pend, sizeof(h->buf));
		if (n <= 0)
			return n < 0 ? -1 : 0;
	}
}
