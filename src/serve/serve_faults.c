// SPDX-License-Identifier: Apache-2.0
/*
 * The fault plan of `echelon serve --faults`: the SPEC parser, the
 * request classes, the seeded draws and the texts of injected replies.
 * serve_http.c asks for a fault per request and carries it out; nothing
 * here touches a socket or a clock.
 */
#include "serve/serve_faults.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/rng.h"

#include "base/banned.h"

#define MAX_CODES      8
#define DEFAULT_EVENTS 10
#define MAX_EVENTS     1000000u
#define MAX_SLOW_MS    600000
#define ITEM_SHOW      64 /* bytes of a bad item shown in errors */
#define RESOURCE_MAX   128
#define NAME_MAX_LEN   256

static const char *const class_names[SERVE_FAULT_CLASS_COUNT] = {
	[SERVE_FAULT_BIND] = "bind",   [SERVE_FAULT_STATUS] = "status",
	[SERVE_FAULT_WRITE] = "write", [SERVE_FAULT_WATCH] = "watch",
	[SERVE_FAULT_READ] = "read",
};

/* The outcomes counted per class: the codes a class may answer, then an
 * expired watch, a drop and a delay. */
enum outcome {
	O_404,
	O_409,
	O_429,
	O_500,
	O_503,
	O_504,
	O_410,
	O_DROP,
	O_SLOW,
	O_COUNT
};
static const char *const outcome_names[O_COUNT] = {
	"404", "409", "429", "500", "503", "504", "410", "drop", "slow",
};

static const struct {
	int code;
	const char *reason;
} codes[] = {
	{ 404, "NotFound" },	       { 409, "Conflict" },
	{ 429, "TooManyRequests" },    { 500, "InternalError" },
	{ 503, "ServiceUnavailable" }, { 504, "Timeout" },
};

struct class_faults {
	bool set;
	double p;
	int codes[MAX_CODES];
	unsigned ncodes;
};

struct chance {
	bool set;
	double p;
	unsigned events;  /* drop, watch410 */
	int64_t delay_us; /* slow */
	unsigned classes; /* drop, slow: 1 << class of each class hit */
};

struct serve_faults {
	struct rng rng;
	struct class_faults cls[SERVE_FAULT_CLASS_COUNT];
	struct chance drop, expire, slow;
	uint64_t injected[SERVE_FAULT_CLASS_COUNT][O_COUNT];
	uint64_t bindings;
};

/* A run of bytes, not NUL-terminated. */
struct span {
	const char *p;
	size_t n;
};

static bool span_is(struct span s, const char *word)
{
	return strlen(word) == s.n && memcmp(s.p, word, s.n) == 0;
}

static int code_index(int code)
{
	for (size_t i = 0; i < ARRAY_SIZE(codes); i++) {
		if (codes[i].code == code)
			return (int)i;
	}
	return -1;
}

static int bad(struct errbuf *err, struct span item, const char *what)
{
	int n = item.n > ITEM_SHOW ? ITEM_SHOW : (int)item.n;

	return errbuf_set(err, -EINVAL, "item \"%.*s%s\": %s", n, item.p,
			  item.n > ITEM_SHOW ? "..." : "", what);
}

/* A whole number in s within [min, max]. */
static bool parse_uint(struct span s, uint64_t min, uint64_t max, uint64_t *ret)
{
	uint64_t v = 0;

	if (!s.n || s.n > 20)
		return false;
	for (size_t i = 0; i < s.n; i++) {
		unsigned d = (unsigned)(unsigned char)s.p[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (v < min || v > max)
		return false;
	*ret = v;
	return true;
}

/* A probability: a decimal number from 0 to 1. */
static bool parse_prob(struct span s, double *ret)
{
	char buf[32], *end;
	double v;

	if (!s.n || s.n >= sizeof(buf))
		return false;
	for (size_t i = 0; i < s.n; i++) {
		if (!strchr("0123456789.", s.p[i]))
			return false;
	}
	memcpy(buf, s.p, s.n);
	buf[s.n] = '\0';
	v = strtod(buf, &end);
	if (*end || !isfinite(v) || v < 0 || v > 1)
		return false;
	*ret = v;
	return true;
}

/* Split s at the first c: *head before, *tail after (n == 0 and p NULL
 * when c is absent). */
static void split(struct span s, char c, struct span *head, struct span *tail)
{
	/* Not memchr on NULL: the compiler would take s.p for non-NULL. */
	const char *at = s.p ? memchr(s.p, c, s.n) : NULL;

	if (!at) {
		*head = s;
		*tail = (struct span){ NULL, 0 };
		return;
	}
	*head = (struct span){ s.p, (size_t)(at - s.p) };
	*tail = (struct span){ at + 1, s.n - (size_t)(at - s.p) - 1 };
}

static int parse_codes(struct class_faults *cf, struct span item,
		       struct span list, struct errbuf *err)
{
	struct span one, rest = list;

	if (!list.p)
		return bad(err, item,
			   "expected CLASS=P:CODE[|CODE...], e.g. "
			   "bind=0.1:409|500");
	do {
		uint64_t code;

		split(rest, '|', &one, &rest);
		if (!parse_uint(one, 0, 999, &code) ||
		    code_index((int)code) < 0)
			return bad(err, item,
				   "a code must be one of 404, 409, 429, "
				   "500, 503, 504");
		if (cf->ncodes == MAX_CODES)
			return bad(err, item, "at most 8 codes");
		cf->codes[cf->ncodes++] = (int)code;
	} while (rest.p);
	return 0;
}

/* CLASS[|CLASS...] into a mask; absent: every class. */
static int parse_classes(struct chance *ch, struct span item, struct span list,
			 struct errbuf *err)
{
	struct span one, rest = list;

	ch->classes = 0;
	if (!list.p) {
		ch->classes = (1u << SERVE_FAULT_CLASS_COUNT) - 1;
		return 0;
	}
	do {
		int c = 0;

		split(rest, '|', &one, &rest);
		while (c < SERVE_FAULT_CLASS_COUNT &&
		       !span_is(one, class_names[c]))
			c++;
		if (c == SERVE_FAULT_CLASS_COUNT)
			return bad(err, item,
				   "a class must be one of bind, status, "
				   "write, watch, read");
		ch->classes |= 1u << c;
	} while (rest.p);
	return 0;
}

/* drop=P[:N[:CLASSES]], watch410=P[:N], slow=P:MS[:CLASSES]. */
static int parse_chance(struct chance *ch, const char *key, struct span item,
			struct span val, struct errbuf *err)
{
	bool slow = !strcmp(key, "slow"), expire = !strcmp(key, "watch410");
	struct span p, arg, classes;
	uint64_t n;

	split(val, ':', &p, &arg);
	if (!parse_prob(p, &ch->p))
		return bad(err, item,
			   "the probability must be a number from 0 to 1");
	split(arg, ':', &arg, &classes);
	if (expire && classes.p)
		return bad(err, item, "expected watch410=P[:N]");
	if (slow) {
		if (!parse_uint(arg, 0, MAX_SLOW_MS, &n))
			return bad(err, item,
				   "expected slow=P:MS[:CLASS|...] with MS "
				   "a whole number of milliseconds up to "
				   "600000");
		ch->delay_us = (int64_t)n * 1000;
		return parse_classes(ch, item, classes, err);
	}
	ch->events = DEFAULT_EVENTS;
	if (arg.p && (arg.n || !classes.p)) {
		if (!parse_uint(arg, 0, MAX_EVENTS, &n))
			return bad(err, item,
				   "the number of events must be a whole "
				   "number up to 1000000");
		ch->events = (unsigned)n;
	}
	return parse_classes(ch, item, classes, err);
}

static int parse_item(struct serve_faults *f, struct span item, bool *seeded,
		      struct errbuf *err)
{
	struct span key, val;
	struct chance *ch = NULL;
	uint64_t seed;

	split(item, '=', &key, &val);
	if (!val.p || !key.n)
		return bad(err, item, "expected KEY=VALUE");
	for (int c = 0; c < SERVE_FAULT_CLASS_COUNT; c++) {
		struct class_faults *cf = &f->cls[c];
		struct span p, list;

		if (!span_is(key, class_names[c]))
			continue;
		if (cf->set)
			return bad(err, item, "given twice");
		cf->set = true;
		split(val, ':', &p, &list);
		if (!parse_prob(p, &cf->p))
			return bad(err, item,
				   "the probability must be a "
				   "number from 0 to 1");
		return parse_codes(cf, item, list, err);
	}
	if (span_is(key, "seed")) {
		if (*seeded)
			return bad(err, item, "given twice");
		if (!parse_uint(val, 0, UINT64_MAX, &seed))
			return bad(err, item,
				   "the seed must be a whole number");
		rng_seed(&f->rng, seed);
		*seeded = true;
		return 0;
	}
	if (span_is(key, "drop"))
		ch = &f->drop;
	else if (span_is(key, "watch410"))
		ch = &f->expire;
	else if (span_is(key, "slow"))
		ch = &f->slow;
	if (!ch)
		return bad(err, item,
			   "unknown; expected seed, bind, status, write, "
			   "watch, read, watch410, drop or slow");
	if (ch->set)
		return bad(err, item, "given twice");
	ch->set = true;
	return parse_chance(ch,
			    ch == &f->slow     ? "slow"
			    : ch == &f->expire ? "watch410"
					       : "drop",
			    item, val, err);
}

int serve_faults_parse(const char *spec, struct serve_faults **ret,
		       struct errbuf *err)
{
	struct serve_faults *f = xcalloc(1, sizeof(*f));
	struct span rest = { spec, strlen(spec) }, item;
	bool seeded = false;
	int rc = 0;

	rng_seed(&f->rng, 1);
	if (!rest.n)
		rc = errbuf_set(err, -EINVAL,
				"empty; expected items such as "
				"seed=7,bind=0.1:409|500,drop=0.01");
	while (!rc && rest.p) {
		split(rest, ',', &item, &rest);
		if (!item.n)
			rc = errbuf_set(err, -EINVAL,
					"an empty item (two commas, or a "
					"comma at an end)");
		else
			rc = parse_item(f, item, &seeded, err);
	}
	if (rc < 0) {
		free(f);
		return rc;
	}
	*ret = f;
	return 0;
}

void serve_faults_free(struct serve_faults *f)
{
	free(f);
}

const char *serve_faults_class_name(enum serve_fault_class c)
{
	return c < SERVE_FAULT_CLASS_COUNT ? class_names[c] : "?";
}

/*
 * What a resource path names: resource, name and subresource, after
 * /api/v1/ or /apis/GROUP/VERSION/ and an optional namespaces/NS/.
 * Kubernetes' own routing is in api_route.c; this only needs enough to
 * classify and to word a Status.
 */
struct target {
	struct span ns, res, name, sub;
	bool legacy_bindings; /* POST .../namespaces/NS/bindings */
};

static void parse_target(const char *path, struct target *t)
{
	struct span seg[8], rest = { path, strlen(path) }, s;
	int n = 0, i, skip;

	memset(t, 0, sizeof(*t));
	if (strncmp(path, "/api/", 5) == 0)
		skip = 2;
	else if (strncmp(path, "/apis/", 6) == 0)
		skip = 3;
	else
		return;
	split(rest, '/', &s, &rest); /* the empty segment before '/' */
	while (rest.p && n < (int)ARRAY_SIZE(seg)) {
		split(rest, '/', &s, &rest);
		if (!s.n)
			return;
		seg[n++] = s;
	}
	if (rest.p || n <= skip)
		return;
	n -= skip;
	i = skip;
	if (n >= 3 && span_is(seg[i], "namespaces") &&
	    !(n == 3 && skip == 2 &&
	      (span_is(seg[i + 2], "status") ||
	       span_is(seg[i + 2], "finalize")))) {
		t->ns = seg[i + 1];
		i += 2;
		n -= 2;
		if (n == 1 && skip == 2 && span_is(seg[i], "bindings"))
			t->legacy_bindings = true;
	}
	if (n > 3) { /* no such resource path */
		memset(t, 0, sizeof(*t));
		return;
	}
	t->res = seg[i];
	if (n >= 2)
		t->name = seg[i + 1];
	if (n >= 3)
		t->sub = seg[i + 2];
}

static bool watch_query(const char *query)
{
	struct span rest, kv, key, val;

	if (!query)
		return false;
	rest = (struct span){ query, strlen(query) };
	while (rest.p) {
		split(rest, '&', &kv, &rest);
		split(kv, '=', &key, &val);
		if (span_is(key, "watch") &&
		    (span_is(val, "true") || span_is(val, "True") ||
		     span_is(val, "1")))
			return true;
	}
	return false;
}

enum serve_fault_class
serve_faults_classify(const char *method, const char *path, const char *query)
{
	bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
	bool update =
		strcmp(method, "PUT") == 0 || strcmp(method, "PATCH") == 0;
	struct target t;

	if (get)
		return watch_query(query) ? SERVE_FAULT_WATCH
					  : SERVE_FAULT_READ;
	parse_target(path, &t);
	if (strcmp(method, "POST") == 0 &&
	    (t.legacy_bindings || span_is(t.sub, "binding")))
		return SERVE_FAULT_BIND;
	if (update && span_is(t.sub, "status"))
		return SERVE_FAULT_STATUS;
	return SERVE_FAULT_WRITE;
}

static bool chance(struct serve_faults *f, const struct chance *ch,
		   enum serve_fault_class c)
{
	return ch->set && (ch->classes & (1u << c)) &&
	       rng_double(&f->rng) < ch->p;
}

void serve_faults_draw(struct serve_faults *f, enum serve_fault_class c,
		       struct serve_fault *ret)
{
	const struct class_faults *cf = &f->cls[c];
	bool watch = c == SERVE_FAULT_WATCH;

	memset(ret, 0, sizeof(*ret));
	if (chance(f, &f->drop, c)) {
		ret->kind = SERVE_FAULT_DROP;
		if (watch)
			ret->events = (unsigned)rng_below(
				&f->rng, (uint64_t)f->drop.events + 1);
		f->injected[c][O_DROP]++;
		return;
	}
	if (cf->set && rng_double(&f->rng) < cf->p) {
		ret->kind = SERVE_FAULT_REPLY;
		ret->code = cf->codes[rng_below(&f->rng, cf->ncodes)];
		f->injected[c][code_index(ret->code)]++;
		return;
	}
	if (watch && chance(f, &f->expire, c)) {
		ret->kind = SERVE_FAULT_EXPIRE;
		ret->events = (unsigned)rng_below(
			&f->rng, (uint64_t)f->expire.events + 1);
		f->injected[c][O_410]++;
		return;
	}
	if (chance(f, &f->slow, c)) {
		ret->kind = SERVE_FAULT_SLOW;
		ret->delay_us = f->slow.delay_us;
		f->injected[c][O_SLOW]++;
	}
}

static void add_span_json(struct strbuf *out, struct span s)
{
	char buf[NAME_MAX_LEN];
	size_t n = s.n < sizeof(buf) - 1 ? s.n : sizeof(buf) - 1;

	memcpy(buf, s.p ? s.p : "", n);
	buf[n] = '\0';
	strbuf_add_json_string(out, buf);
}

const char *serve_faults_status(int code, const char *path, struct strbuf *out)
{
	int i = code_index(code);
	const char *reason = i >= 0 ? codes[i].reason : "InternalError";
	struct target t;
	struct strbuf msg;
	char res[RESOURCE_MAX], name[NAME_MAX_LEN];

	parse_target(path, &t);
	snprintf(res, sizeof(res), "%.*s%s%.*s", (int)t.res.n,
		 t.res.p ? t.res.p : "", t.sub.n ? "/" : "", (int)t.sub.n,
		 t.sub.p ? t.sub.p : "");
	snprintf(name, sizeof(name), "%.*s", (int)t.name.n,
		 t.name.p ? t.name.p : "");
	strbuf_init(&msg);
	switch (code) {
	case 404:
		if (t.name.n)
			strbuf_addf(&msg, "%s \"%s\" not found", res, name);
		else
			strbuf_addstr(&msg, "the server could not find the "
					    "requested resource");
		break;
	case 409:
		strbuf_addf(&msg,
			    "Operation cannot be fulfilled on %s \"%s\": the "
			    "object has been modified; please apply your "
			    "changes to the latest version and try again",
			    res, name);
		break;
	case 429:
		strbuf_addstr(&msg, "Too many requests, please try again "
				    "later.");
		break;
	case 503:
		strbuf_addstr(&msg, "the server is currently unable to "
				    "handle the request");
		break;
	case 504:
		strbuf_addstr(&msg, "Timeout: request did not complete "
				    "within the allotted timeout");
		break;
	default:
		strbuf_addstr(&msg, "Internal error occurred");
		break;
	}
	strbuf_addstr(&msg, " (injected by --faults)");
	strbuf_addstr(out, "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
			   "\"metadata\":{},\"status\":\"Failure\","
			   "\"message\":");
	strbuf_add_json_string(out, msg.buf);
	strbuf_addstr(out, ",\"reason\":");
	strbuf_add_json_string(out, reason);
	strbuf_addstr(out, ",\"details\":{");
	if (t.name.n) {
		strbuf_addstr(out, "\"name\":");
		add_span_json(out, t.name);
		strbuf_addch(out, ',');
	}
	if (t.res.n) {
		strbuf_addstr(out, "\"kind\":");
		add_span_json(out, t.res);
		strbuf_addch(out, ',');
	}
	if (code == 429)
		strbuf_addstr(out, "\"retryAfterSeconds\":1,");
	if (out->buf[out->len - 1] == ',')
		strbuf_truncate(out, out->len - 1);
	strbuf_addf(out, "},\"code\":%d}", code);
	strbuf_release(&msg);
	return reason;
}

void serve_faults_expired(struct strbuf *out)
{
	strbuf_addstr(out, "{\"type\":\"ERROR\",\"object\":{\"kind\":"
			   "\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
			   "\"status\":\"Failure\",\"message\":\"too old "
			   "resource version (injected by --faults)\","
			   "\"reason\":\"Expired\",\"code\":410}}\n");
}

/* A name for a log line: the DNS characters of Kubernetes names, others
 * shown as '?'; "-" when empty. */
static void add_name(struct strbuf *out, const char *p, size_t n)
{
	if (!n) {
		strbuf_addch(out, '-');
		return;
	}
	for (size_t i = 0; i < n && i < NAME_MAX_LEN; i++) {
		char c = p[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || strchr("-._:", c);

		strbuf_addch(out, ok && c ? c : '?');
	}
}

static void add_json_field(struct strbuf *out, json_t *obj, const char *a,
			   const char *b)
{
	json_t *v = json_object_get(json_object_get(obj, a), b);
	const char *s = json_is_string(v) ? json_string_value(v) : "";

	add_name(out, s, strlen(s));
}

void serve_faults_binding(const char *path, const char *body, size_t len,
			  struct strbuf *out)
{
	struct target t;
	json_t *b = body ? json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL)
			 : NULL;

	parse_target(path, &t);
	strbuf_addstr(out, "pod=");
	add_name(out, t.ns.p, t.ns.n);
	strbuf_addch(out, '/');
	if (t.name.n)
		add_name(out, t.name.p, t.name.n);
	else
		add_json_field(out, b, "metadata", "name");
	strbuf_addstr(out, " node=");
	add_json_field(out, b, "target", "name");
	strbuf_addstr(out, " uid=");
	add_json_field(out, b, "metadata", "uid");
	json_decref(b);
}

void serve_faults_count_binding(struct serve_faults *f)
{
	f->bindings++;
}

void serve_faults_metrics(const struct serve_faults *f, struct strbuf *out)
{
	strbuf_addstr(out, "# HELP echelon_faults_injected_total API failures "
			   "injected by --faults, by request class and "
			   "code.\n"
			   "# TYPE echelon_faults_injected_total counter\n");
	for (int c = 0; c < SERVE_FAULT_CLASS_COUNT; c++) {
		const struct class_faults *cf = &f->cls[c];
		bool shown[O_COUNT] = { false };

		for (unsigned i = 0; i < cf->ncodes; i++)
			shown[code_index(cf->codes[i])] = true;
		shown[O_DROP] = f->drop.set && (f->drop.classes & (1u << c));
		shown[O_SLOW] = f->slow.set && (f->slow.classes & (1u << c));
		shown[O_410] = c == SERVE_FAULT_WATCH && f->expire.set;
		for (int o = 0; o < O_COUNT; o++) {
			if (!shown[o] && !f->injected[c][o])
				continue;
			strbuf_addf(out,
				    "echelon_faults_injected_total{class="
				    "\"%s\",code=\"%s\"} %llu\n",
				    class_names[c], outcome_names[o],
				    (unsigned long long)f->injected[c][o]);
		}
	}
	strbuf_addf(out,
		    "# HELP echelon_faults_bindings_total Binding requests "
		    "answered with success while --faults is on.\n"
		    "# TYPE echelon_faults_bindings_total counter\n"
		    "echelon_faults_bindings_total %llu\n",
		    (unsigned long long)f->bindings);
}
