// SPDX-License-Identifier: Apache-2.0
/*
 * One try of a call as a libcurl easy handle: URL, method, body, headers,
 * TLS material from the target, timeouts; the reply's body gathered, or a
 * stream's body cut into lines for line(). Also the credentials (the
 * bearer header, re-made when the token file changes) and the glue
 * between curl's sockets and timer and kube_http's epoll set.
 *
 * curl calls on_body() from inside curl_multi_socket_action(): a line()
 * callback may cancel calls and send new ones, but nothing here touches
 * the multi handle from within curl: cancelled calls abort their own
 * transfer (a short write) and are removed after curl returns.
 */
#include "kube/kube_http_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "kube/kube_config.h"

#include "base/banned.h"

static int on_socket(CURL *easy, curl_socket_t s, int what, void *ud,
		     void *sockp)
{
	struct kube_http *h = ud;
	struct epoll_event ev = { .data.fd = s };

	(void)easy;
	if (what == CURL_POLL_REMOVE) {
		epoll_ctl(h->epfd, EPOLL_CTL_DEL, s, NULL);
		curl_multi_assign(h->multi, s, NULL);
		return 0;
	}
	if (what & CURL_POLL_IN)
		ev.events |= EPOLLIN;
	if (what & CURL_POLL_OUT)
		ev.events |= EPOLLOUT;
	if (sockp) {
		epoll_ctl(h->epfd, EPOLL_CTL_MOD, s, &ev);
	} else {
		epoll_ctl(h->epfd, EPOLL_CTL_ADD, s, &ev);
		/* Any non-NULL pointer: "in the epoll set". */
		curl_multi_assign(h->multi, s, h);
	}
	return 0;
}

static int on_timer(CURLM *multi, long timeout_ms, void *ud)
{
	struct kube_http *h = ud;

	(void)multi;
	h->curl_due_us = timeout_ms < 0
				 ? INT64_MAX
				 : h->now_us + (int64_t)timeout_ms * 1000;
	return 0;
}

/* scheme://host[:port][/prefix]: the host (brackets kept) and port. */
static int split_server(const char *url, char **ret_host, char **ret_port,
			const char **ret_rest)
{
	const char *p = strstr(url, "://"), *host, *end, *colon;
	bool tls = strncmp(url, "https", 5) == 0;

	if (!p)
		return -EINVAL;
	host = p + 3;
	end = host + strcspn(host, "/");
	if (*host == '[') {
		const char *close = memchr(host, ']', (size_t)(end - host));

		if (!close)
			return -EINVAL;
		colon = close + 1 < end && close[1] == ':' ? close + 1 : NULL;
	} else {
		colon = memchr(host, ':', (size_t)(end - host));
	}
	*ret_host = xstrndup(host, (size_t)((colon ? colon : end) - host));
	*ret_port = colon ? xstrndup(colon + 1, (size_t)(end - colon - 1))
			  : xstrdup(tls ? "443" : "80");
	*ret_rest = end;
	return 0;
}

/* With tls-server-name, requests name that host (SNI and verification)
 * and curl connects to the server's address instead. */
static int make_base(struct kube_http *h, struct errbuf *err)
{
	const struct kube_target *t = h->target;
	const char *rest;
	char *host, *port, *map;

	if (!t->tls_server_name || strncmp(t->server, "https://", 8) != 0) {
		h->base = xstrdup(t->server);
		return 0;
	}
	if (split_server(t->server, &host, &port, &rest) < 0)
		return errbuf_set(err, -EINVAL, "%s: not a URL", t->server);
	h->base = xasprintf("https://%s:%s%s", t->tls_server_name, port, rest);
	map = xasprintf("%s:%s:%s:%s", t->tls_server_name, port, host, port);
	h->connect_to = curl_slist_append(NULL, map);
	free(map);
	free(host);
	free(port);
	return 0;
}

static void set_token(struct kube_http *h, const char *token)
{
	free(h->auth);
	h->auth = token && *token ? xasprintf("Authorization: Bearer %s", token)
				  : NULL;
}

void kube_http_token_refresh(struct kube_http *h)
{
	const char *path = h->target->token_file;
	struct errbuf ignored;
	struct stat st;
	char *token;

	if (!path ||
	    (h->token_checked_us && h->now_us - h->token_checked_us < 1000000))
		return;
	h->token_checked_us = h->now_us;
	if (stat(path, &st) < 0 ||
	    (st.st_mtim.tv_sec == h->token_mtime.tv_sec &&
	     st.st_mtim.tv_nsec == h->token_mtime.tv_nsec))
		return;
	/* A token being rewritten may not be readable: keep the old one. */
	if (kube_config_read_file(path, 1u << 20, &token, &ignored) < 0)
		return;
	token[strcspn(token, "\r\n")] = '\0';
	set_token(h, token);
	free(token);
	h->token_mtime = st.st_mtim;
}

int kube_http_curl_init(struct kube_http *h, struct errbuf *err)
{
	int rc = make_base(h, err);

	if (rc < 0)
		return rc;
	set_token(h, h->target->token);
	h->multi = curl_multi_init();
	if (!h->multi)
		return errbuf_set(err, -ENOMEM, "cannot start libcurl");
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, on_timer);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h);
	curl_multi_setopt(h->multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
	curl_multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS,
			  (long)h->max_connections);
	return 0;
}

/* Hand complete lines to line(); keep the partial one. False: stop
 * (closed, cancelled, or a line over the limit). */
static bool stream_lines(struct call *c, const char *p, size_t len)
{
	size_t from = 0;
	char *nl;

	strbuf_add(&c->in, p, len);
	while (!c->closed && !c->cancelled &&
	       (nl = memchr(c->in.buf + from, '\n', c->in.len - from))) {
		size_t n = (size_t)(nl - (c->in.buf + from));

		if (n && c->in.buf[from + n - 1] == '\r')
			n--;
		if (n && c->line(c->ctx, c->in.buf + from, n) != 0)
			c->closed = true;
		from = (size_t)(nl - c->in.buf) + 1;
	}
	if (c->cancelled || c->closed)
		return false;
	memmove(c->in.buf, c->in.buf + from, c->in.len - from);
	strbuf_truncate(&c->in, c->in.len - from);
	if (c->in.len > KUBE_HTTP_MAX_LINE) {
		c->too_long = true;
		return false;
	}
	return true;
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
	struct call *c = ud;
	size_t len = size * n;

	if (c->cancelled || c->closed)
		return 0;
	if ((c->flags & KUBE_STREAM) && !c->streaming && c->in.len == 0) {
		long code = 0;

		curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &code);
		c->streaming = code == 200;
	}
	if (c->streaming)
		return stream_lines(c, p, len) ? len : 0;
	if (c->in.len + len > KUBE_HTTP_MAX_BODY) {
		c->too_long = true;
		return 0;
	}
	strbuf_add(&c->in, p, len);
	return len;
}

/*
 * A new connection while HTTP/2 is in use (the old one got a GOAWAY, or
 * is gone): curl 7.88 opens one for every call that starts before the
 * first is up, CURLOPT_PIPEWAIT notwithstanding. The first call to open
 * one is the opener; the others are refused a socket (deferred: run()
 * starts them again once the opener's connection is up, and curl puts
 * them on it).
 */
static curl_socket_t on_open_socket(void *ud, curlsocktype purpose,
				    struct curl_sockaddr *a)
{
	struct call *c = ud;
	struct kube_http *h = c->h;

	(void)purpose;
	if (h->multiplexed && h->opener && h->opener != c) {
		c->deferred = true;
		return CURL_SOCKET_BAD;
	}
	if (h->multiplexed)
		h->opener = c;
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

/* The connection is up (TLS and ALPN done), the request about to go. */
static int on_prereq(void *ud, char *primary_ip, char *local_ip,
		     int primary_port, int local_port)
{
	struct call *c = ud;

	(void)primary_ip, (void)local_ip, (void)primary_port, (void)local_port;
	if (c->h->opener == c)
		c->h->opener = NULL;
	return CURL_PREREQFUNC_OK;
}

/* The first header of a reply: which protocol the connection speaks. */
static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
	struct call *c = ud;
	long version = 0;

	(void)p;
	if (!c->answered) {
		c->answered = true;
		curl_easy_getinfo(c->easy, CURLINFO_HTTP_VERSION, &version);
		c->h->multiplexed = version == CURL_HTTP_VERSION_2_0;
	}
	return size * n;
}

/* A stream's deadline: the watch's own timeoutSeconds, and a minute. */
static long stream_timeout_ms(const char *path)
{
	const char *q = strchr(path, '?');
	const char *t = q ? strstr(q, "timeoutSeconds=") : NULL;
	long s;

	if (!t)
		return 0;
	s = strtol(t + 15, NULL, 10);
	return s > 0 && s < 86400 ? (s + 60) * 1000 : 0;
}

static void set_headers(struct kube_http *h, struct call *c)
{
	struct curl_slist *l =
		curl_slist_append(NULL, "Accept: application/json");

	/* No 100-continue round trip before large bodies. */
	l = curl_slist_append(l, "Expect:");
	if (h->auth)
		l = curl_slist_append(l, h->auth);
	if (c->body) {
		char *ct = xasprintf("Content-Type: %s",
				     c->content_type ? c->content_type
						     : "application/json");

		l = curl_slist_append(l, ct);
		free(ct);
	}
	c->headers = l;
	curl_easy_setopt(c->easy, CURLOPT_HTTPHEADER, l);
}

static void set_tls(struct kube_http *h, CURL *e)
{
	const struct kube_target *t = h->target;

	if (t->ca_pem) {
		struct curl_blob b = { t->ca_pem, strlen(t->ca_pem),
				       CURL_BLOB_NOCOPY };

		curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &b);
	}
	if (t->cert_pem && t->key_pem) {
		struct curl_blob cb = { t->cert_pem, strlen(t->cert_pem),
					CURL_BLOB_NOCOPY };
		struct curl_blob kb = { t->key_pem, strlen(t->key_pem),
					CURL_BLOB_NOCOPY };

		curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &cb);
		curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
		curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &kb);
		curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
	}
	if (t->insecure) {
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (h->connect_to)
		curl_easy_setopt(e, CURLOPT_CONNECT_TO, h->connect_to);
}

static void set_timeouts(struct call *c)
{
	CURL *e = c->easy;

	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	if (c->flags & KUBE_STREAM) {
		curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
				 stream_timeout_ms(c->path));
		curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME,
				 (long)KUBE_HTTP_STALL_S);
	} else {
		curl_easy_setopt(
			e, CURLOPT_TIMEOUT_MS,
			(long)((c->timeout_us ? c->timeout_us : 60000000) /
			       1000));
	}
}

void kube_http_easy_start(struct kube_http *h, struct call *c)
{
	CURL *e = curl_easy_init();
	char *url = xasprintf("%s%s", h->base, c->path);

	BUG_ON(!e);
	c->easy = e;
	c->tries++;
	c->start_us = h->now_us;
	c->streaming = c->closed = c->too_long = false;
	c->answered = c->deferred = false;
	c->curl_err[0] = '\0';
	strbuf_reset(&c->in);
	curl_easy_setopt(e, CURLOPT_URL, url);
	free(url);
	curl_easy_setopt(e, CURLOPT_PRIVATE, c);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, c->curl_err);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	/* Over TLS, wait for the first connection's ALPN rather than open
	 * more: with HTTP/2 one connection carries every call. */
	if (strncmp(h->base, "https:", 6) == 0)
		curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
	curl_easy_setopt(e, CURLOPT_USERAGENT, h->user_agent);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, c);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, c);
	curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
	curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, c);
	curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, on_prereq);
	curl_easy_setopt(e, CURLOPT_PREREQDATA, c);
	if (strcmp(c->method, "GET") != 0)
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, c->method);
	if (c->body) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)c->len);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, c->body);
	} else if (strcmp(c->method, "GET") != 0 &&
		   strcmp(c->method, "DELETE") != 0) {
		/* An empty body, said so: Content-Length: 0. */
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, "");
	}
	set_headers(h, c);
	set_tls(h, e);
	set_timeouts(c);
	c->state = CALL_RUNNING;
	curl_multi_add_handle(h->multi, e);
}

void kube_http_easy_stop(struct kube_http *h, struct call *c)
{
	if (!c->easy)
		return;
	if (h->opener == c)
		h->opener = NULL;
	if (!(c->flags & KUBE_NO_LIMIT))
		h->running--;
	curl_multi_remove_handle(h->multi, c->easy);
	curl_easy_cleanup(c->easy);
	curl_slist_free_all(c->headers);
	c->easy = NULL;
	c->headers = NULL;
}
