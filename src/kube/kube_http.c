// SPDX-License-Identifier: Apache-2.0
/*
 * The libcurl transport's calls: queued by send(), started by run() as
 * the token bucket allows (KUBE_NO_LIMIT calls at once, the others in
 * FIFO order), finished when curl reports them, retried after a jittered
 * backoff or the server's Retry-After, and freed only when no callback is
 * on the stack (a callback may cancel any call, its own included).
 *
 * send() never starts I/O: everything happens in kube_http_run(), whose
 * phases are: re-read a rotated token, move due retries to the queue,
 * start what the rate limit allows, let curl do the ready I/O and its
 * timeouts, finish the completed calls (done() callbacks), free the dead.
 */
#include "kube/kube_http.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/version.h"
#include "kube/kube_http_int.h"

#include "base/banned.h"

/* client-go's buckets for rest_client_request_duration_seconds. */
static const double latency_buckets[] = { 0.005, 0.025, 0.1, 0.25, 0.5, 1,
					  2,	 4,	8,   15,   30,	60 };

static const struct metrics_def metric_defs[] = {
	{ "echelon_kube_client_requests_total",
	  "Requests sent to the Kubernetes API server (each try), by verb "
	  "and HTTP code (\"<error>\": no HTTP answer).",
	  METRICS_COUNTER, NULL, 0 },
	{ "echelon_kube_client_retries_total",
	  "Tries sent again after a transient failure, by verb.",
	  METRICS_COUNTER, NULL, 0 },
	{ "echelon_kube_client_rate_limit_wait_seconds_total",
	  "Time calls waited for the client-side rate limit.", METRICS_COUNTER,
	  NULL, 0 },
	{ "echelon_kube_client_request_duration_seconds",
	  "Time from a try's start to its whole reply (not streams), by verb.",
	  METRICS_HISTOGRAM, latency_buckets, ARRAY_SIZE(latency_buckets) },
};

static void register_metrics(struct kube_http *h)
{
	int ids[ARRAY_SIZE(metric_defs)];

	h->metrics = metrics_new();
	metrics_register(h->metrics, metric_defs, ARRAY_SIZE(metric_defs), ids);
	h->m_requests = ids[0];
	h->m_retries = ids[1];
	h->m_wait = ids[2];
	h->m_latency = ids[3];
	metrics_touch(h->metrics, h->m_wait, NULL);
}

int kube_http_new(const struct kube_http_options *o, struct kube_http **ret,
		  struct errbuf *err)
{
	struct kube_http *h;
	int rc;

	if (!o->target || !o->target->server)
		return errbuf_set(err, -EINVAL, "no API server to talk to");
	if (o->qps < 0 || o->burst < 0 || !isfinite(o->qps) ||
	    !isfinite(o->burst))
		return errbuf_set(err, -EINVAL, "qps and burst must be >= 0");
	h = xcalloc(1, sizeof(*h));
	h->target = o->target;
	h->qps = o->qps > 0 ? o->qps : 200;
	h->burst = o->burst >= 1 ? o->burst : o->burst > 0 ? 1 : 400;
	h->tokens = h->burst;
	h->max_connections = o->max_connections ? o->max_connections : 256;
	h->max_running = h->max_connections / KUBE_HTTP_LIMITED_SHARE;
	if (h->max_running < 1)
		h->max_running = 1;
	h->user_agent = o->user_agent ? xstrdup(o->user_agent)
				      : xstrdup("echelon/" ECHELON_VERSION);
	rng_seed(&h->rng, o->seed);
	h->curl_due_us = INT64_MAX;
	h->ready_tail = &h->ready;
	h->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (h->epfd < 0) {
		rc = errbuf_set(err, -errno, "epoll: %s", strerror(errno));
		goto fail;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h->curl_global = true;
	rc = kube_http_curl_init(h, err);
	if (rc < 0)
		goto fail;
	register_metrics(h);
	*ret = h;
	return 0;
fail:
	kube_http_free(h);
	return rc;
}

static void call_free(struct call *c)
{
	free(c->method);
	free(c->path);
	free(c->content_type);
	free(c->body);
	strbuf_release(&c->in);
	free(c);
}

/* Take c out of h->calls and put it on h->dead. */
static void call_kill(struct kube_http *h, struct call *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		h->calls = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->state = CALL_DEAD;
	c->qnext = h->dead;
	h->dead = c;
	h->active--;
}

/* Free the dead calls; only when no callback is running. */
static void reap(struct kube_http *h)
{
	while (h->dead) {
		struct call *c = h->dead;

		h->dead = c->qnext;
		kube_http_easy_stop(h, c);
		call_free(c);
	}
}

void kube_http_free(struct kube_http *h)
{
	if (!h)
		return;
	while (h->calls) {
		h->calls->cancelled = true;
		call_kill(h, h->calls);
	}
	reap(h);
	if (h->multi)
		curl_multi_cleanup(h->multi);
	if (h->curl_global)
		curl_global_cleanup();
	if (h->epfd >= 0)
		close(h->epfd);
	curl_slist_free_all(h->connect_to);
	metrics_free(h->metrics);
	free(h->auth);
	free(h->base);
	free(h->user_agent);
	free(h);
}

static void ready_push(struct kube_http *h, struct call *c)
{
	c->state = CALL_READY;
	/* Before the first run there is no clock yet: count from it. */
	c->queued_us = h->first_run_us ? h->now_us : -1;
	c->qnext = NULL;
	*h->ready_tail = c;
	h->ready_tail = &c->qnext;
	if (c->flags & KUBE_NO_LIMIT)
		h->ready_free++;
	else
		h->ready_limited++;
}

static uint64_t http_send(void *impl, const struct kube_call *kc,
			  kube_done_fn done, kube_line_fn line, void *ctx)
{
	struct kube_http *h = impl;
	struct call *c = xcalloc(1, sizeof(*c));

	BUG_ON(!kc->method || !kc->path || !done);
	BUG_ON((kc->flags & KUBE_STREAM) && !line);
	c->h = h;
	c->id = ++h->next_id;
	c->method = xstrdup(kc->method);
	c->path = xstrdup(kc->path);
	c->content_type = kc->content_type ? xstrdup(kc->content_type) : NULL;
	if (kc->body) {
		c->body = xmalloc(kc->len + 1);
		memcpy(c->body, kc->body, kc->len);
		c->body[kc->len] = '\0';
		c->len = kc->len;
	}
	c->flags = kc->flags;
	c->retry_us = kc->retry_us > 0 ? kc->retry_us : 30000000;
	c->timeout_us = kc->timeout_us;
	c->done = done;
	c->line = line;
	c->ctx = ctx;
	c->first_us = -1;
	strbuf_init(&c->in);
	c->next = h->calls;
	if (h->calls)
		h->calls->prev = c;
	h->calls = c;
	h->active++;
	ready_push(h, c);
	return c->id;
}

/* Take c off the list that holds it (ready or backoff). */
static void unqueue(struct kube_http *h, struct call *c)
{
	struct call **pp = c->state == CALL_READY ? &h->ready : &h->backoff;

	for (; *pp; pp = &(*pp)->qnext) {
		if (*pp != c)
			continue;
		*pp = c->qnext;
		break;
	}
	if (c->state != CALL_READY)
		return;
	if (h->ready_tail == &c->qnext)
		h->ready_tail = pp;
	if (c->flags & KUBE_NO_LIMIT)
		h->ready_free--;
	else
		h->ready_limited--;
}

static void http_cancel(void *impl, uint64_t id)
{
	struct kube_http *h = impl;
	struct call *c;

	for (c = h->calls; c && c->id != id; c = c->next)
		;
	if (!c)
		return;
	if (c->state == CALL_READY || c->state == CALL_BACKOFF)
		unqueue(h, c);
	c->cancelled = true;
	call_kill(h, c);
	/* Outside run, nothing of c is on the stack: close it now. */
	if (!h->depth)
		reap(h);
}

struct kube_transport kube_http_transport(struct kube_http *h)
{
	return (struct kube_transport){ .send = http_send,
					.cancel = http_cancel,
					.impl = h };
}

int kube_http_fd(const struct kube_http *h)
{
	return h->epfd;
}

unsigned kube_http_active(const struct kube_http *h)
{
	return h->active;
}

static double tokens_at(const struct kube_http *h, int64_t mono_us)
{
	double t;

	if (!h->refill_us)
		return h->tokens;
	t = h->tokens + (double)(mono_us - h->refill_us) * h->qps / 1e6;
	return t < h->burst ? t : h->burst;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

int kube_http_timeout_ms(const struct kube_http *h, int64_t mono_us)
{
	int64_t due = h->curl_due_us;

	if (h->dead)
		return 0;
	/* While a new connection opens, the ready calls wait for its first
	 * answer (curl's I/O). */
	if (h->ready_free && !h->opener)
		return 0;
	/* At max_running, a completion (curl's I/O) frees a place. */
	if (h->ready_limited && h->running < h->max_running && !h->opener) {
		double t = tokens_at(h, mono_us);

		if (t >= 1)
			return 0;
		due = min64(due,
			    mono_us + (int64_t)ceil((1 - t) * 1e6 / h->qps));
	}
	for (const struct call *c = h->backoff; c; c = c->qnext)
		due = min64(due, c->due_us);
	if (due == INT64_MAX)
		return -1;
	if (due <= mono_us)
		return 0;
	/* Round up: waking before the deadline only spins. */
	return (int)min64((due - mono_us + 999) / 1000, 3600 * 1000);
}

static void start(struct kube_http *h, struct call *c)
{
	int64_t queued = c->queued_us < 0 ? h->first_run_us : c->queued_us;

	if (c->first_us < 0)
		c->first_us = h->now_us;
	if (!(c->flags & KUBE_NO_LIMIT) && h->now_us > queued)
		metrics_add(h->metrics, h->m_wait, NULL,
			    (double)(h->now_us - queued) / 1e6);
	kube_http_easy_start(h, c);
}

/* Start the ready calls: unlimited ones all, limited ones in order while
 * the bucket has tokens. */
static void start_ready(struct kube_http *h)
{
	struct call **pp = &h->ready;

	h->tokens = tokens_at(h, h->now_us);
	h->refill_us = h->now_us;
	while (*pp && !h->opener) {
		struct call *c = *pp;
		bool free_call = c->flags & KUBE_NO_LIMIT;

		if (!free_call &&
		    (h->tokens < 1 || h->running >= h->max_running)) {
			if (!h->ready_free)
				break;
			pp = &c->qnext;
			continue;
		}
		*pp = c->qnext;
		if (free_call) {
			h->ready_free--;
		} else {
			h->ready_limited--;
			h->running++;
			h->tokens -= 1;
		}
		start(h, c);
	}
	/* Stopped early, the last call is still queued: the tail holds. */
	if (!*pp)
		h->ready_tail = pp;
}

static void due_retries(struct kube_http *h)
{
	struct call **pp = &h->backoff;

	while (*pp) {
		struct call *c = *pp;

		if (c->due_us > h->now_us) {
			pp = &c->qnext;
			continue;
		}
		*pp = c->qnext;
		ready_push(h, c);
	}
}

static bool transient(int code)
{
	return code == 0 || code == 429 || code == 500 || code == 502 ||
	       code == 503 || code == 504;
}

static int64_t retry_after_us(struct call *c, int code)
{
	struct curl_header *hd;
	char *end;
	long s;

	if (code != 429 && code != 503)
		return 0;
	if (curl_easy_header(c->easy, "Retry-After", 0, CURLH_HEADER, -1,
			     &hd) != CURLHE_OK)
		return 0;
	s = strtol(hd->value, &end, 10);
	if (end == hd->value || s <= 0)
		return 0;
	return (int64_t)(s < 3600 ? s : 3600) * 1000000;
}

/* The backoff before the next try: 100 ms doubling to 5 s, plus up to
 * half again at random, or the server's Retry-After when longer. */
static int64_t backoff_us(struct kube_http *h, const struct call *c,
			  int64_t after_us)
{
	unsigned k = c->tries > 7 ? 7 : c->tries - 1;
	int64_t base = min64((int64_t)100000 << k, 5000000);
	int64_t d = base + (int64_t)rng_below(&h->rng, (uint64_t)base / 2 + 1);

	return d > after_us ? d : after_us;
}

static void count(struct kube_http *h, const struct call *c, int code)
{
	char num[16];
	const char *labels[] = { "verb", c->method, "code", num, NULL };

	if (code)
		snprintf(num, sizeof(num), "%d", code);
	else
		snprintf(num, sizeof(num), "<error>");
	metrics_add(h->metrics, h->m_requests, labels, 1);
	if (!(c->flags & KUBE_STREAM)) {
		const char *vl[] = { "verb", c->method, NULL };

		metrics_observe(h->metrics, h->m_latency, vl,
				(double)(h->now_us - c->start_us) / 1e6);
	}
}

/* c was refused a connection while another opened: first in line again,
 * its try and its token given back. */
static void defer(struct kube_http *h, struct call *c)
{
	kube_http_easy_stop(h, c);
	c->tries--;
	if (!(c->flags & KUBE_NO_LIMIT))
		h->tokens = h->tokens + 1 < h->burst ? h->tokens + 1 : h->burst;
	ready_push(h, c);
	/* Move it from the tail to the head. */
	if (h->ready != c) {
		struct call **pp = &h->ready;

		while (*pp != c)
			pp = &(*pp)->qnext;
		*pp = NULL;
		h->ready_tail = pp;
		c->qnext = h->ready;
		h->ready = c;
	}
}

static void finish(struct kube_http *h, struct call *c, struct kube_reply *r)
{
	call_kill(h, c);
	c->done(c->ctx, r);
}

/* A try ended: done(), or back off and try again. */
static void completed(struct kube_http *h, struct call *c, CURLcode res)
{
	struct kube_reply r = { .tries = c->tries };
	long code = 0;

	if (c->deferred) {
		defer(h, c);
		return;
	}
	curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &code);
	r.code = res == CURLE_OK ? (int)code : 0;
	if (c->closed)
		r.error = "closed";
	else if (c->too_long)
		r.error = c->streaming ? "a line longer than 16 MiB"
				       : "a reply larger than 512 MiB";
	else if (res != CURLE_OK)
		r.error =
			c->curl_err[0] ? c->curl_err : curl_easy_strerror(res);
	if (r.error)
		r.code = 0;
	count(h, c, r.code);
	r.retry_after_us = retry_after_us(c, r.code);
	if ((c->flags & KUBE_RETRY) && transient(r.code) && !c->closed &&
	    !c->too_long && !c->streaming) {
		int64_t d = backoff_us(h, c, r.retry_after_us);

		if (h->now_us + d <= c->first_us + c->retry_us) {
			const char *vl[] = { "verb", c->method, NULL };

			metrics_add(h->metrics, h->m_retries, vl, 1);
			kube_http_easy_stop(h, c);
			c->state = CALL_BACKOFF;
			c->due_us = h->now_us + d;
			c->qnext = h->backoff;
			h->backoff = c;
			return;
		}
	}
	if (c->streaming && r.code == 200) {
		/* The server ended the stream: a last line without '\n'. */
		if (c->in.len && c->line(c->ctx, c->in.buf, c->in.len) != 0)
			r.code = 0, r.error = "closed";
		strbuf_reset(&c->in);
		if (c->cancelled)
			return;
	}
	r.body = c->in.buf;
	r.len = c->in.len;
	finish(h, c, &r);
}

static void completions(struct kube_http *h)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(h->multi, &left))) {
		struct call *c = NULL;

		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &c);
		if (!c || c->cancelled)
			continue;
		completed(h, c, m->data.result);
	}
}

static void drive_curl(struct kube_http *h)
{
	struct epoll_event ev[64];
	int n, running;

	n = epoll_wait(h->epfd, ev, ARRAY_SIZE(ev), 0);
	for (int i = 0; i < n; i++) {
		int mask = 0;

		if (ev[i].events & EPOLLIN)
			mask |= CURL_CSELECT_IN;
		if (ev[i].events & EPOLLOUT)
			mask |= CURL_CSELECT_OUT;
		if (ev[i].events & (EPOLLERR | EPOLLHUP))
			mask |= CURL_CSELECT_ERR;
		curl_multi_socket_action(h->multi, ev[i].data.fd, mask,
					 &running);
	}
	if (h->curl_due_us <= h->now_us) {
		h->curl_due_us = INT64_MAX;
		curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0,
					 &running);
	}
}

void kube_http_run(struct kube_http *h, int64_t mono_us)
{
	h->now_us = mono_us;
	if (!h->first_run_us)
		h->first_run_us = mono_us;
	h->depth++;
	kube_http_token_refresh(h);
	due_retries(h);
	start_ready(h);
	drive_curl(h);
	completions(h);
	/* Places the completions freed (curl's timer then wakes the loop
	 * at once to send). */
	start_ready(h);
	h->depth--;
	if (!h->depth)
		reap(h);
}

void kube_http_metrics(const struct kube_http *h, struct strbuf *out)
{
	metrics_write(h->metrics, out);
}
