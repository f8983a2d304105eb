// SPDX-License-Identifier: Apache-2.0
/*
 * libmicrohttpd glue of `echelon serve`: requests to struct api_req and
 * back, held replies until the group commit, watch streams, the limits
 * and the bearer token. A connection is suspended while its reply waits
 * for a commit and while its watch has nothing to send, so nothing here
 * ever blocks the loop; the loop resumes it (serve_http_commit(),
 * serve_http_pump()) and libmicrohttpd's epoll fd wakes the loop.
 */
#include "serve/serve_http.h"
#include "serve/serve_dashboard.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/log.h"
#include "serve/serve_faults.h"

#include "base/banned.h"

#define BUCKETS	       4096 /* clients whose request rate is kept */
#define BUCKET_PROBE   8
#define PEEK_PERIOD_US (5 * 1000000LL) /* gone watch clients */
#define WATCH_CHUNK    (64u << 10)
#define CODE_MAX       600

enum verb { V_GET, V_POST, V_PUT, V_PATCH, V_DELETE, V_OTHER, V_COUNT };
static const char *const verb_names[V_COUNT] = {
	"GET", "POST", "PUT", "PATCH", "DELETE", "OTHER",
};

enum refusal { R_AUTH, R_BODY, R_RATE, R_WATCHES, R_COUNT };
static const char *const refusal_names[R_COUNT] = {
	"unauthorized",
	"body",
	"rate",
	"watches",
};

/* Request latency buckets, seconds. */
static const double lat_le[] = { 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
				 0.05,	 0.1,	0.25,	0.5,   1,    2.5 };
#define LAT_N ARRAY_SIZE(lat_le)

/* A client address's token bucket. */
struct bucket {
	unsigned char addr[16];
	bool used;
	double tokens;
	int64_t last_us;
};

enum req_state {
	RQ_NEW,	     /* headers seen, body may follow */
	RQ_HELD,     /* answered, waiting for the group commit */
	RQ_RELEASED, /* commit done: send on the next call */
	RQ_DONE,     /* a response is queued */
	RQ_DELAYED,  /* --faults slow: waiting for due_us */
	RQ_DUE,	     /* delay over: answer on the next call */
};

struct req {
	struct serve_http *h;
	struct MHD_Connection *conn;
	enum req_state state;
	enum verb verb;
	bool too_large;
	struct strbuf body;
	struct api_resp resp;
	bool have_resp;
	int64_t start_us;    /* monotonic */
	int64_t due_us;	     /* RQ_DELAYED: when to answer (monotonic) */
	struct strbuf bound; /* --faults: the binding, for the log */
	struct req *next_held;
};

struct watch {
	struct serve_http *h;
	struct MHD_Connection *conn;
	struct api_watch *api;
	struct strbuf buf;
	size_t off;
	bool suspended, ended;
	bool cut; /* --faults drop: end without the last chunk */
	struct serve_fault fault; /* --faults: EXPIRE or DROP to come */
	struct watch *prev, *next;
};

struct serve_http {
	struct MHD_Daemon *d;
	const struct serve_http_ops *ops;
	struct serve_http_options o;
	char *token;
	uint16_t port;
	int64_t now_us, mono_us, peeked_us;
	bool kick;	  /* a connection was resumed: run at once */
	bool closing;	  /* serve_http_free(): new requests get 503 */
	struct req *held; /* RQ_HELD and RQ_DELAYED */
	struct serve_faults *faults;
	struct watch *watches;
	unsigned nwatches;
	struct bucket *buckets;
	/* metrics */
	uint64_t requests[V_COUNT][CODE_MAX];
	uint64_t lat_count[LAT_N + 1];
	double lat_sum;
	uint64_t refused[R_COUNT];
};

static enum verb verb_of(const char *m)
{
	for (int v = 0; v < V_OTHER; v++) {
		if (strcmp(m, verb_names[v]) == 0)
			return (enum verb)v;
	}
	return V_OTHER;
}

static void status_body(struct strbuf *sb, int code, const char *reason,
			const char *message)
{
	strbuf_addstr(sb, "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
			  "\"metadata\":{},\"status\":\"Failure\","
			  "\"message\":");
	strbuf_add_json_string(sb, message);
	strbuf_addstr(sb, ",\"reason\":");
	strbuf_add_json_string(sb, reason);
	strbuf_addf(sb, ",\"code\":%d}", code);
}

static void count(struct serve_http *h, struct req *q, int code)
{
	double s = (double)(h->mono_us - q->start_us) / 1e6;
	size_t i = 0;

	h->requests[q->verb][code >= 0 && code < CODE_MAX ? code : 0]++;
	while (i < LAT_N && s > lat_le[i])
		i++;
	h->lat_count[i]++;
	h->lat_sum += s;
}

/* Queue q->resp (or a plain reply) on its connection. */
static enum MHD_Result send_reply(struct req *q, int code,
				  const char *content_type, struct strbuf *body,
				  const char *warning, int retry_after_s)
{
	struct MHD_Response *r;
	enum MHD_Result rc;
	size_t len = body->len;
	char num[24];

	r = MHD_create_response_from_buffer(len, strbuf_take(body),
					    MHD_RESPMEM_MUST_FREE);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				content_type ? content_type
					     : "application/json");
	MHD_add_response_header(r, "Cache-Control", "no-cache, private");
	if (warning)
		MHD_add_response_header(r, "Warning", warning);
	if (retry_after_s > 0) {
		snprintf(num, sizeof(num), "%d", retry_after_s);
		MHD_add_response_header(r, "Retry-After", num);
	}
	rc = MHD_queue_response(q->conn, (unsigned)code, r);
	MHD_destroy_response(r);
	q->state = RQ_DONE;
	count(q->h, q, code);
	return rc;
}

static enum MHD_Result send_status(struct req *q, int code, const char *reason,
				   const char *message, int retry_after_s)
{
	struct strbuf sb;
	enum MHD_Result rc;

	strbuf_init(&sb);
	status_body(&sb, code, reason, message);
	rc = send_reply(q, code, "application/json", &sb, NULL, retry_after_s);
	strbuf_release(&sb);
	return rc;
}

/* --faults: log a binding the API accepted, once it is durable (the
 * client may be gone by the time its reply goes out). */
static void note_binding(struct req *q)
{
	if (q->bound.len && q->resp.code >= 200 && q->resp.code < 300) {
		serve_faults_count_binding(q->h->faults);
		log_info("faults: bound %s", q->bound.buf);
	}
	strbuf_reset(&q->bound);
}

static enum MHD_Result send_resp(struct req *q)
{
	return send_reply(q, q->resp.code, q->resp.content_type, &q->resp.body,
			  q->resp.warning, 0);
}

/* Constant-time comparison of the Authorization header with the token. */
static bool authorized(const struct serve_http *h, struct MHD_Connection *conn)
{
	const char *v;
	size_t n, want;
	unsigned char diff = 0;

	if (!h->token)
		return true;
	v = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_AUTHORIZATION);
	if (!v || strncasecmp(v, "Bearer ", 7) != 0)
		return false;
	v += 7;
	n = strlen(v);
	want = strlen(h->token);
	for (size_t i = 0; i < want; i++)
		diff |= (unsigned char)(h->token[i] ^ (i < n ? v[i] : 0));
	return diff == 0 && n == want;
}

static void client_key(struct MHD_Connection *conn, unsigned char key[16])
{
	const union MHD_ConnectionInfo *ci;
	const struct sockaddr *sa;

	memset(key, 0, 16);
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!ci || !ci->client_addr)
		return;
	sa = ci->client_addr;
	if (sa->sa_family == AF_INET)
		memcpy(key, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (sa->sa_family == AF_INET6)
		memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

static uint32_t hash16(const unsigned char *k)
{
	uint32_t x = 2166136261u;

	for (int i = 0; i < 16; i++)
		x = (x ^ k[i]) * 16777619u;
	return x;
}

/*
 * Take a token from the client's bucket; false when empty, with the
 * seconds until the next token in *retry_s. The table is fixed: a new
 * client takes the least recently seen slot of its probe window.
 */
static bool rate_ok(struct serve_http *h, struct MHD_Connection *conn,
		    int *retry_s)
{
	unsigned char key[16];
	uint32_t at;
	struct bucket *b = NULL, *oldest = NULL;

	client_key(conn, key);
	at = hash16(key);
	for (int i = 0; i < BUCKET_PROBE && !b; i++) {
		struct bucket *c = &h->buckets[(at + (uint32_t)i) % BUCKETS];

		if (c->used && memcmp(c->addr, key, 16) == 0)
			b = c;
		else if (!oldest || !c->used ||
			 (oldest->used && c->last_us < oldest->last_us))
			oldest = c;
	}
	if (!b) {
		b = oldest;
		memcpy(b->addr, key, 16);
		b->used = true;
		b->tokens = h->o.burst;
		b->last_us = h->mono_us;
	}
	b->tokens += (double)(h->mono_us - b->last_us) / 1e6 * h->o.rate;
	if (b->tokens > h->o.burst)
		b->tokens = h->o.burst;
	b->last_us = h->mono_us;
	if (b->tokens < 1) {
		*retry_s = (int)((1 - b->tokens) / h->o.rate) + 1;
		return false;
	}
	b->tokens -= 1;
	return true;
}

static void add_pct(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~", c)) {
			strbuf_addch(sb, (char)c);
		} else {
			strbuf_addch(sb, '%');
			strbuf_addch(sb, hex[c >> 4]);
			strbuf_addch(sb, hex[c & 15]);
		}
	}
}

/* libmicrohttpd splits and decodes the query; the API wants it raw. */
static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind,
			       const char *key, const char *value)
{
	struct strbuf *sb = cls;

	(void)kind;
	if (sb->len)
		strbuf_addch(sb, '&');
	add_pct(sb, key);
	if (value) {
		strbuf_addch(sb, '=');
		add_pct(sb, value);
	}
	return MHD_YES;
}

static void add_metrics(struct serve_http *h, struct strbuf *out)
{
	uint64_t cum = 0;

	strbuf_addstr(out, "# HELP echelon_serve_requests_total HTTP requests "
			   "answered, by verb and code.\n"
			   "# TYPE echelon_serve_requests_total counter\n");
	for (int v = 0; v < V_COUNT; v++) {
		for (int c = 0; c < CODE_MAX; c++) {
			if (h->requests[v][c])
				strbuf_addf(
					out,
					"echelon_serve_requests_total{"
					"verb=\"%s\",code=\"%d\"} %llu\n",
					verb_names[v], c,
					(unsigned long long)h->requests[v][c]);
		}
	}
	strbuf_addstr(out, "# HELP echelon_serve_request_duration_seconds "
			   "Time from a request to its reply (writes: "
			   "after the commit).\n"
			   "# TYPE echelon_serve_request_duration_seconds "
			   "histogram\n");
	for (size_t i = 0; i <= LAT_N; i++) {
		cum += h->lat_count[i];
		if (i < LAT_N)
			strbuf_addf(out,
				    "echelon_serve_request_duration_seconds_"
				    "bucket{le=\"%g\"} %llu\n",
				    lat_le[i], (unsigned long long)cum);
		else
			strbuf_addf(out,
				    "echelon_serve_request_duration_seconds_"
				    "bucket{le=\"+Inf\"} %llu\n",
				    (unsigned long long)cum);
	}
	strbuf_addf(out,
		    "echelon_serve_request_duration_seconds_sum %.6f\n"
		    "echelon_serve_request_duration_seconds_count %llu\n",
		    h->lat_sum, (unsigned long long)cum);
	strbuf_addstr(out, "# HELP echelon_serve_refused_total Requests "
			   "refused by a limit or the token.\n"
			   "# TYPE echelon_serve_refused_total counter\n");
	for (int r = 0; r < R_COUNT; r++)
		strbuf_addf(out,
			    "echelon_serve_refused_total{reason=\"%s\"} %llu\n",
			    refusal_names[r],
			    (unsigned long long)h->refused[r]);
	strbuf_addf(out,
		    "# HELP echelon_serve_watches Open watch streams.\n"
		    "# TYPE echelon_serve_watches gauge\n"
		    "echelon_serve_watches %u\n",
		    h->nwatches);
	if (h->faults)
		serve_faults_metrics(h->faults, out);
	if (h->ops->metrics)
		h->ops->metrics(h->ops->ctx, out);
}

static bool health_path(const char *url)
{
	return strcmp(url, "/healthz") == 0 || strcmp(url, "/readyz") == 0 ||
	       strcmp(url, "/livez") == 0;
}

/* The dashboard page (serve_dashboard.h), as it is. */
static enum MHD_Result send_dashboard(struct req *q)
{
	struct MHD_Response *r;
	enum MHD_Result rc;

	r = MHD_create_response_from_buffer(serve_dashboard_html_len,
					    (void *)serve_dashboard_html,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/html; charset=utf-8");
	MHD_add_response_header(r, "Cache-Control", "no-cache");
	MHD_add_response_header(r, "Content-Security-Policy",
				SERVE_DASHBOARD_CSP);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	rc = MHD_queue_response(q->conn, 200, r);
	MHD_destroy_response(r);
	q->state = RQ_DONE;
	count(q->h, q, 200);
	return rc;
}

/* /, /metrics, /metrics/dcgm, /healthz, /readyz, /livez; false for other
 * paths. */
static bool builtin(struct req *q, const char *url, enum MHD_Result *rc)
{
	struct strbuf sb;

	if (q->verb != V_GET)
		return false;
	if (strcmp(url, "/") == 0) {
		*rc = send_dashboard(q);
		return true;
	}
	strbuf_init(&sb);
	if (strcmp(url, "/metrics") == 0) {
		add_metrics(q->h, &sb);
		*rc = send_reply(q, 200, "text/plain; version=0.0.4", &sb, NULL,
				 0);
	} else if (strcmp(url, "/metrics/dcgm") == 0 &&
		   q->h->ops->dcgm_metrics) {
		q->h->ops->dcgm_metrics(q->h->ops->ctx, &sb);
		*rc = send_reply(q, 200, "text/plain; version=0.0.4", &sb, NULL,
				 0);
	} else if (strcmp(url, "/readyz") == 0 && q->h->ops->ready &&
		   !q->h->ops->ready(q->h->ops->ctx)) {
		strbuf_addstr(&sb, "not ready");
		*rc = send_reply(q, 503, "text/plain; charset=utf-8", &sb, NULL,
				 0);
	} else if (health_path(url)) {
		strbuf_addstr(&sb, "ok");
		*rc = send_reply(q, 200, "text/plain; charset=utf-8", &sb, NULL,
				 0);
	} else {
		strbuf_release(&sb);
		return false;
	}
	strbuf_release(&sb);
	return true;
}

static void unlink_watch(struct watch *w)
{
	struct serve_http *h = w->h;

	if (w->prev)
		w->prev->next = w->next;
	else
		h->watches = w->next;
	if (w->next)
		w->next->prev = w->prev;
	w->prev = w->next = NULL;
}

static ssize_t watch_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct watch *w = cls;
	size_t n = w->buf.len - w->off;

	(void)pos;
	if (n) {
		if (n > max)
			n = max;
		memcpy(buf, w->buf.buf + w->off, n);
		w->off += n;
		if (w->off == w->buf.len) {
			strbuf_reset(&w->buf);
			w->off = 0;
		}
		return (ssize_t)n;
	}
	if (w->ended)
		return w->cut ? MHD_CONTENT_READER_END_WITH_ERROR
			      : MHD_CONTENT_READER_END_OF_STREAM;
	/* Nothing to send: sleep until serve_http_pump() has more. */
	w->suspended = true;
	MHD_suspend_connection(w->conn);
	return 0;
}

static void watch_free(void *cls)
{
	struct watch *w = cls;
	struct serve_http *h = w->h;

	unlink_watch(w);
	h->ops->watch_free(w->api);
	strbuf_release(&w->buf);
	h->nwatches--;
	free(w);
}

/*
 * --faults: once the watch has sent fault.events more events (lines)
 * from w->buf's byte from on, drop what follows and end the stream with
 * an ERROR 410 Expired event, or cut it (no last chunk).
 */
static void watch_fault(struct watch *w, size_t from)
{
	size_t at = from;

	if (w->fault.kind == SERVE_FAULT_NONE)
		return;
	while (w->fault.events && at < w->buf.len) {
		const char *nl = memchr(w->buf.buf + at, '\n', w->buf.len - at);

		if (!nl)
			return; /* a line not yet whole */
		at = (size_t)(nl - w->buf.buf) + 1;
		w->fault.events--;
	}
	if (w->fault.events)
		return;
	strbuf_truncate(&w->buf, at);
	if (w->fault.kind == SERVE_FAULT_EXPIRE)
		serve_faults_expired(&w->buf);
	else
		w->cut = true;
	w->fault.kind = SERVE_FAULT_NONE;
	w->ended = true;
}

static enum MHD_Result start_watch(struct req *q,
				   const struct serve_fault *fault)
{
	struct serve_http *h = q->h;
	struct MHD_Response *r;
	struct watch *w;
	enum MHD_Result rc;

	if (h->nwatches >= h->o.max_watches) {
		h->ops->watch_free(q->resp.watch);
		q->resp.watch = NULL;
		h->refused[R_WATCHES]++;
		return send_status(q, 429, "TooManyRequests",
				   "too many open watches, retry later", 1);
	}
	w = xcalloc(1, sizeof(*w));
	w->h = h;
	w->conn = q->conn;
	w->api = q->resp.watch;
	q->resp.watch = NULL;
	strbuf_init(&w->buf);
	strbuf_add(&w->buf, q->resp.body.buf, q->resp.body.len);
	w->fault = *fault;
	if (h->ops->watch_next(w->api, h->now_us, &w->buf) == 0)
		w->ended = true;
	watch_fault(w, 0);
	w->next = h->watches;
	if (w->next)
		w->next->prev = w;
	h->watches = w;
	h->nwatches++;
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, WATCH_CHUNK,
					      watch_read, w, watch_free);
	if (!r) {
		watch_free(w);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				q->resp.content_type ? q->resp.content_type
						     : "application/json");
	MHD_add_response_header(r, "Cache-Control", "no-cache, private");
	rc = MHD_queue_response(q->conn, 200, r);
	MHD_destroy_response(r);
	q->state = RQ_DONE;
	count(h, q, 200);
	return rc;
}

/*
 * --faults: draw q's fault and carry it out. True when it took the
 * request (*rc set): a Status reply, a closed connection, or a delay
 * (the request is answered when serve_http_run() finds it due). A
 * watch's fault comes later, in *watch.
 */
static bool inject(struct req *q, enum serve_fault_class c, const char *url,
		   struct serve_fault *watch, enum MHD_Result *rc)
{
	struct serve_http *h = q->h;
	struct serve_fault f;
	struct strbuf sb;

	serve_faults_draw(h->faults, c, &f);
	switch (f.kind) {
	case SERVE_FAULT_NONE:
		return false;
	case SERVE_FAULT_REPLY:
		strbuf_init(&sb);
		serve_faults_status(f.code, url, &sb);
		*rc = send_reply(q, f.code, "application/json", &sb, NULL,
				 f.code == 429 ? 1 : 0);
		strbuf_release(&sb);
		return true;
	case SERVE_FAULT_DROP:
		if (c == SERVE_FAULT_WATCH)
			break;
		q->state = RQ_DONE;
		*rc = MHD_NO; /* libmicrohttpd closes, no reply */
		return true;
	case SERVE_FAULT_SLOW:
		q->state = RQ_DELAYED;
		q->due_us = h->mono_us + f.delay_us;
		q->next_held = h->held;
		h->held = q;
		MHD_suspend_connection(q->conn);
		*rc = MHD_YES;
		return true;
	case SERVE_FAULT_EXPIRE:
		break;
	}
	*watch = f;
	return false;
}

static enum MHD_Result answer(struct req *q, const char *url,
			      const char *method)
{
	struct serve_http *h = q->h;
	struct MHD_Connection *conn = q->conn;
	struct api_req r = { 0 };
	struct serve_fault wf = { .kind = SERVE_FAULT_NONE };
	enum serve_fault_class c = SERVE_FAULT_READ;
	struct strbuf query;
	enum MHD_Result rc;

	if (h->closing)
		/* after the last commit: a write would be neither durable
		 * nor answered, a watch would hold the connection */
		return send_status(q, 503, "ServiceUnavailable",
				   "the server is shutting down", 1);
	if (builtin(q, url, &rc))
		return rc;
	strbuf_init(&query);
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_arg, &query);
	if (h->faults) {
		c = serve_faults_classify(method, url,
					  query.len ? query.buf : NULL);
		if (q->state == RQ_NEW && inject(q, c, url, &wf, &rc)) {
			strbuf_release(&query);
			return rc;
		}
		if (c == SERVE_FAULT_BIND)
			serve_faults_binding(url, q->body.buf, q->body.len,
					     &q->bound);
	}
	r.method = method;
	r.path = url;
	r.query = query.len ? query.buf : NULL;
	r.accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					       MHD_HTTP_HEADER_ACCEPT);
	r.content_type = MHD_lookup_connection_value(
		conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	r.user_agent = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						   MHD_HTTP_HEADER_USER_AGENT);
	r.body = q->body.len ? q->body.buf : NULL;
	r.body_len = q->body.len;
	h->ops->handle(h->ops->ctx, &r, h->now_us, &q->resp);
	q->have_resp = true;
	strbuf_release(&query);
	strbuf_release(&q->body);
	if (q->resp.watch && q->resp.code < 300)
		return start_watch(q, &wf);
	if (q->resp.watch) {
		h->ops->watch_free(q->resp.watch);
		q->resp.watch = NULL;
	}
	if (q->resp.wrote) {
		q->state = RQ_HELD;
		q->next_held = h->held;
		h->held = q;
		MHD_suspend_connection(conn);
		return MHD_YES;
	}
	note_binding(q);
	return send_resp(q);
}

/*
 * A body declared over the limit is refused before it is read when the
 * client waits for "100 Continue", or when it is beyond any reason.
 * Otherwise it is read and dropped first, and 413 answered after it:
 * closing a connection with the body unread resets it, and a client
 * that sends without waiting (Go's, so kubectl) would often lose the
 * 413 and see "connection reset by peer".
 */
#define SERVE_DRAIN_MAX (16u << 20)

static bool refuse_unread(struct MHD_Connection *conn, unsigned long long len)
{
	const char *expect = MHD_lookup_connection_value(
		conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);

	return len > SERVE_DRAIN_MAX ||
	       (expect && strcasecmp(expect, "100-continue") == 0);
}

/* First call: checks that need no body (size, token, rate). Two things
 * need no token: the health checks, as the API server's and
 * kube-scheduler's (a kubelet probes them with none, and they tell
 * nothing but "ok"), and the dashboard page, which holds no data and asks
 * for the token itself. */
static enum MHD_Result on_headers(struct req *q, const char *url)
{
	struct serve_http *h = q->h;
	const char *cl;
	unsigned long long len;
	int retry;

	if (!(q->verb == V_GET &&
	      (health_path(url) || strcmp(url, "/") == 0)) &&
	    !authorized(h, q->conn)) {
		h->refused[R_AUTH]++;
		return send_status(q, 401, "Unauthorized", "Unauthorized", 0);
	}
	cl = MHD_lookup_connection_value(q->conn, MHD_HEADER_KIND,
					 MHD_HTTP_HEADER_CONTENT_LENGTH);
	len = cl ? strtoull(cl, NULL, 10) : 0;
	if (len > API_MAX_BODY && refuse_unread(q->conn, len)) {
		h->refused[R_BODY]++;
		return send_status(q, 413, "RequestEntityTooLarge",
				   "the request body is too large", 0);
	}
	if (len > API_MAX_BODY)
		q->too_large = true; /* read, dropped, then 413 */
	if (!rate_ok(h, q->conn, &retry)) {
		h->refused[R_RATE]++;
		return send_status(q, 429, "TooManyRequests",
				   "too many requests, retry later", retry);
	}
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct serve_http *h = cls;
	struct req *q = *con_cls;

	(void)version;
	if (!q) {
		q = xcalloc(1, sizeof(*q));
		q->h = h;
		q->conn = conn;
		q->verb = verb_of(method);
		q->start_us = h->mono_us;
		strbuf_init(&q->body);
		strbuf_init(&q->bound);
		*con_cls = q;
		return on_headers(q, url);
	}
	if (q->state == RQ_DONE) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (*upload_size) {
		if (q->too_large || q->body.len + *upload_size > API_MAX_BODY) {
			/* Keep reading (and dropping) to answer 413. */
			q->too_large = true;
			strbuf_release(&q->body);
		} else {
			strbuf_add(&q->body, upload, *upload_size);
		}
		*upload_size = 0;
		return MHD_YES;
	}
	switch (q->state) {
	case RQ_NEW:
		if (q->too_large) {
			h->refused[R_BODY]++;
			return send_status(q, 413, "RequestEntityTooLarge",
					   "the request body is too large", 0);
		}
		return answer(q, url, method);
	case RQ_DUE:
		return answer(q, url, method);
	case RQ_RELEASED:
		return send_resp(q);
	case RQ_HELD: /* not resumed yet */
	case RQ_DELAYED:
	case RQ_DONE:
		break;
	}
	return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct serve_http *h = cls;
	struct req *q = *con_cls;

	(void)conn;
	(void)toe;
	if (!q)
		return;
	for (struct req **p = &h->held; *p; p = &(*p)->next_held) {
		if (*p == q) {
			*p = q->next_held;
			break;
		}
	}
	strbuf_release(&q->body);
	strbuf_release(&q->bound);
	if (q->have_resp) {
		strbuf_release(&q->resp.body);
		free(q->resp.warning);
		if (q->resp.watch)
			h->ops->watch_free(q->resp.watch);
	}
	free(q);
	*con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	log_debug("http: %s", msg);
}

static void defaults(struct serve_http_options *o)
{
	if (!o->max_connections)
		o->max_connections = 1024;
	if (!o->max_per_client)
		o->max_per_client = 512;
	if (!o->max_watches)
		o->max_watches = 1000;
	if (!(o->rate > 0))
		o->rate = 10000;
	if (!(o->burst >= 1))
		o->burst = 2 * o->rate;
	if (!o->timeout_s)
		o->timeout_s = 300;
	if (!o->header_memory)
		o->header_memory = 64u << 10;
	if (!o->watch_buffer)
		o->watch_buffer = 16u << 20;
}

int serve_http_new(const struct serve_http_options *o,
		   const struct serve_http_ops *ops, struct serve_http **ret,
		   struct errbuf *err)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
	const union MHD_DaemonInfo *di;
	struct serve_http *h;
	bool tls = o->cert_pem && o->key_pem;
	struct MHD_OptionItem opt[8];
	size_t n;

	if (inet_pton(AF_INET, o->addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(o->port);
	} else if (inet_pton(AF_INET6, o->addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(o->port);
		flags |= MHD_USE_IPv6;
	} else {
		return errbuf_set(err, -EINVAL,
				  "%s: expected a numeric IPv4 or IPv6 "
				  "address",
				  o->addr);
	}
	if (tls)
		flags |= MHD_USE_TLS;
	h = xcalloc(1, sizeof(*h));
	if (o->faults && serve_faults_parse(o->faults, &h->faults, err) < 0) {
		free(h);
		return -EINVAL;
	}
	h->ops = ops;
	h->o = *o;
	defaults(&h->o);
	h->token = o->token ? xstrdup(o->token) : NULL;
	h->buckets = xcalloc(BUCKETS, sizeof(*h->buckets));
	n = 0;
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, &ss };
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT,
					    h->o.max_connections, NULL };
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT,
					    h->o.max_per_client, NULL };
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT,
					    h->o.timeout_s, NULL };
	opt[n++] =
		(struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT,
					 (intptr_t)h->o.header_memory, NULL };
	if (tls) {
		opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0,
						    (void *)o->key_pem };
		opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT,
						    0, (void *)o->cert_pem };
	}
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	errno = 0;
	h->d = MHD_start_daemon(flags, o->port, NULL, NULL, on_request, h,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				MHD_OPTION_ARRAY, opt, MHD_OPTION_END);
	if (!h->d) {
		int e = errno ? errno : EADDRINUSE;

		serve_http_free(h);
		return errbuf_set(err, -e, "cannot listen on %s port %u: %s",
				  o->addr, (unsigned)o->port, strerror(e));
	}
	di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = di ? di->port : o->port;
	*ret = h;
	return 0;
}

/* libmicrohttpd's epoll fd does not always wake for a resumed connection
 * in external-epoll mode, so the next turn runs it without waiting. */
static void resume(struct serve_http *h, struct MHD_Connection *conn)
{
	MHD_resume_connection(conn);
	h->kick = true;
}

/* Wake every suspended connection so that it can finish. */
static void resume_all(struct serve_http *h)
{
	for (struct req *q = h->held; q; q = q->next_held) {
		if (q->state == RQ_HELD || q->state == RQ_DELAYED) {
			q->state = q->state == RQ_HELD ? RQ_RELEASED : RQ_DUE;
			resume(h, q->conn);
		}
	}
	for (struct watch *w = h->watches; w; w = w->next) {
		w->ended = true;
		if (w->suspended) {
			w->suspended = false;
			resume(h, w->conn);
		}
	}
}

void serve_http_free(struct serve_http *h)
{
	if (!h)
		return;
	if (h->d) {
		h->closing = true;
		resume_all(h);
		MHD_run(h->d);
		MHD_stop_daemon(h->d);
	}
	free(h->buckets);
	free(h->token);
	serve_faults_free(h->faults);
	free(h);
}

uint16_t serve_http_port(const struct serve_http *h)
{
	return h->port;
}

int serve_http_fd(const struct serve_http *h)
{
	const union MHD_DaemonInfo *di;

	di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	return di ? di->epoll_fd : -1;
}

void serve_http_run(struct serve_http *h, int64_t now_us, int64_t mono_us)
{
	h->now_us = now_us;
	h->mono_us = mono_us;
	h->kick = false;
	/* Delayed requests (--faults slow) that are due leave the list. */
	for (struct req **p = &h->held; *p;) {
		struct req *q = *p;

		if (q->state == RQ_DELAYED && q->due_us <= mono_us) {
			q->state = RQ_DUE;
			*p = q->next_held;
			resume(h, q->conn);
		} else {
			p = &q->next_held;
		}
	}
	MHD_run(h->d);
}

bool serve_http_holding(const struct serve_http *h)
{
	for (const struct req *q = h->held; q; q = q->next_held) {
		if (q->state == RQ_HELD)
			return true;
	}
	return false;
}

void serve_http_commit(struct serve_http *h, bool ok)
{
	for (struct req *q = h->held; q; q = q->next_held) {
		if (q->state != RQ_HELD)
			continue;
		if (!ok) {
			strbuf_reset(&q->resp.body);
			status_body(&q->resp.body, 500, "InternalError",
				    "the change could not be made durable");
			q->resp.code = 500;
			q->resp.content_type = "application/json";
		}
		note_binding(q);
		q->state = RQ_RELEASED;
		resume(h, q->conn);
	}
	/* Released requests leave the list when they complete; drop them
	 * now so the list only holds waiting ones. */
	for (struct req **p = &h->held; *p;) {
		if ((*p)->state == RQ_RELEASED)
			*p = (*p)->next_held;
		else
			p = &(*p)->next_held;
	}
}

/* The client of a suspended watch closed its end (libmicrohttpd does not
 * look at suspended connections). */
static bool client_gone(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci;
	char c;
	ssize_t n;

	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci)
		return false;
	n = recv(ci->connect_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
			  errno != EINTR);
}

void serve_http_pump(struct serve_http *h, int64_t now_us)
{
	bool peek = h->mono_us - h->peeked_us >= PEEK_PERIOD_US;

	h->now_us = now_us;
	if (peek)
		h->peeked_us = h->mono_us;
	for (struct watch *w = h->watches; w; w = w->next) {
		size_t from = w->buf.len;

		if (!w->ended &&
		    h->ops->watch_next(w->api, now_us, &w->buf) == 0)
			w->ended = true;
		watch_fault(w, from);
		if (w->buf.len - w->off > h->o.watch_buffer) {
			/* A reader this slow loses its stream (as
			 * Kubernetes closes it): the client relists. */
			strbuf_reset(&w->buf);
			w->off = 0;
			w->ended = true;
		}
		if (peek && w->suspended && w->buf.len == w->off &&
		    client_gone(w->conn))
			w->ended = true;
		if (w->suspended && (w->ended || w->buf.len > w->off)) {
			w->suspended = false;
			resume(h, w->conn);
		}
	}
}

int64_t serve_http_next_us(const struct serve_http *h)
{
	int64_t next = INT64_MAX;

	for (const struct watch *w = h->watches; w; w = w->next) {
		int64_t t = w->ended ? INT64_MAX
				     : h->ops->watch_deadline_us(w->api);

		if (t < next)
			next = t;
	}
	return next;
}

int serve_http_timeout_ms(const struct serve_http *h)
{
	MHD_UNSIGNED_LONG_LONG ms;
	int t = -1;

	if (h->kick)
		return 0;
	if (MHD_get_timeout(h->d, &ms) == MHD_YES)
		t = ms > 60000 ? 60000 : (int)ms;
	for (const struct req *q = h->held; q; q = q->next_held) {
		int64_t due_ms;

		if (q->state != RQ_DELAYED)
			continue;
		due_ms = (q->due_us - h->mono_us + 999) / 1000;
		if (due_ms < 0)
			due_ms = 0;
		if (t < 0 || due_ms < t)
			t = (int)due_ms;
	}
	/* Suspended watches are checked for gone clients now and then. */
	if (h->nwatches && (t < 0 || t > PEEK_PERIOD_US / 1000))
		t = (int)(PEEK_PERIOD_US / 1000);
	return t;
}

unsigned serve_http_watches(const struct serve_http *h)
{
	return h->nwatches;
}

void serve_http_quiesce(struct serve_http *h)
{
	MHD_socket fd = MHD_quiesce_daemon(h->d);

	if (fd != MHD_INVALID_SOCKET)
		close(fd);
}
