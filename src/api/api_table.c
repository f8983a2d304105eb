// SPDX-License-Identifier: Apache-2.0
/*
 * Table rows: the cells `kubectl get` prints for each kind. Built-in
 * kinds follow the API server's printers (a pod's STATUS is the reason of
 * its most telling container, READY counts ready containers, RESTARTS
 * says when the last one was); custom resources follow their printer
 * columns, a JSON path each, with ages for "date" columns. Everything a
 * cell shows is read from the object; nothing is cached.
 */
#include "api/api_table.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/timemap.h"
#include "manifest/dec.h"

#include "base/banned.h"

#define SEC_US	(INT64_C(1000000))
#define MIN_US	(60 * SEC_US)
#define HOUR_US (60 * MIN_US)

const char *api_table_age(int64_t d_us, char *buf, size_t size)
{
	int64_t s = d_us / SEC_US, m = d_us / MIN_US, h = d_us / HOUR_US;

	/* Up to 2 s of clock skew reads as "now". */
	if (s < -1)
		snprintf(buf, size, "<invalid>");
	else if (s < 0)
		snprintf(buf, size, "0s");
	else if (s < 120)
		snprintf(buf, size, "%" PRId64 "s", s);
	else if (m < 10 && s % 60)
		snprintf(buf, size, "%" PRId64 "m%" PRId64 "s", m, s % 60);
	else if (m < 180)
		snprintf(buf, size, "%" PRId64 "m", m);
	else if (h < 8 && m % 60)
		snprintf(buf, size, "%" PRId64 "h%" PRId64 "m", h, m % 60);
	else if (h < 48)
		snprintf(buf, size, "%" PRId64 "h", h);
	else if (h < 24 * 8 && h % 24)
		snprintf(buf, size, "%" PRId64 "d%" PRId64 "h", h / 24, h % 24);
	else if (h < 24 * 365 * 2)
		snprintf(buf, size, "%" PRId64 "d", h / 24);
	else if (h < 24 * 365 * 8 && (h / 24) % 365)
		snprintf(buf, size, "%" PRId64 "y%" PRId64 "d", h / 24 / 365,
			 (h / 24) % 365);
	else
		snprintf(buf, size, "%" PRId64 "y", h / 24 / 365);
	return buf;
}

/* From one instant of the embedded clock to another as the wall clock
 * saw it: what kubectl shows, since it reads the same timestamps with
 * its own clock (base/timemap.h). */
static int64_t wall_span(int64_t from_us, int64_t to_us)
{
	return timemap_wall(to_us) - timemap_wall(from_us);
}

const char *api_table_since(const char *ts, int64_t now_us, char *buf,
			    size_t size)
{
	int64_t t_us;

	if (!ts || !*ts || dec_parse_time(ts, &t_us) < 0) {
		snprintf(buf, size, "<unknown>");
		return buf;
	}
	return api_table_age(wall_span(t_us, now_us), buf, size);
}

/* The string at path, or NULL when absent or not a string. */
static const char *str_at(const json_t *obj, const char *path)
{
	return json_string_value(api_kind_field(obj, path));
}

/* The string at path, or "" (never NULL). */
static const char *str_or_empty(const json_t *obj, const char *path)
{
	const char *s = str_at(obj, path);

	return s ? s : "";
}

static int64_t int_at(const json_t *obj, const char *path, int64_t dflt)
{
	const json_t *v = api_kind_field(obj, path);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

static void add_str(json_t *cells, const char *s)
{
	json_array_append_new(cells, json_string(s ? s : ""));
}

static void add_name(json_t *cells, const json_t *obj)
{
	add_str(cells, str_at(obj, "metadata.name"));
}

static void add_age(json_t *cells, const json_t *obj, int64_t now_us)
{
	char buf[32];

	add_str(cells,
		api_table_since(str_at(obj, "metadata.creationTimestamp"),
				now_us, buf, sizeof(buf)));
}

/* A custom resource column: the value as it is, null when absent. */
static void add_value(json_t *cells, const json_t *v)
{
	if (v && (json_is_string(v) || json_is_number(v) || json_is_boolean(v)))
		json_array_append_new(cells, json_deep_copy(v));
	else
		json_array_append_new(cells, json_null());
}

/* The first element of the array at path whose "type" is type. */
static const json_t *cond(const json_t *obj, const char *path, const char *type)
{
	const json_t *conds = api_kind_field(obj, path), *c;
	size_t i;

	json_array_foreach(conds, i, c)
	{
		const char *t = str_at(c, "type");

		if (t && strcmp(t, type) == 0)
			return c;
	}
	return NULL;
}

static bool cond_true(const json_t *obj, const char *path, const char *type)
{
	const char *s = str_at(cond(obj, path, type), "status");

	return s && strcmp(s, "True") == 0;
}

void api_table_name_age(const json_t *obj, int64_t now_us, json_t *cells)
{
	add_name(cells, obj);
	add_age(cells, obj, now_us);
}

void api_table_namespace(const json_t *obj, int64_t now_us, json_t *cells)
{
	add_name(cells, obj);
	add_str(cells, str_at(obj, "status.phase"));
	add_age(cells, obj, now_us);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ROLES: the node-role.kubernetes.io/<role> keys and the value of
 * kubernetes.io/role, sorted and unique, comma-separated. */
static void node_roles(const json_t *obj, struct strbuf *out)
{
	static const char prefix[] = "node-role.kubernetes.io/";
	const json_t *labels = api_kind_field(obj, "metadata.labels"), *v;
	const char **roles, *key;
	size_t n = 0;

	roles = xcalloc(json_object_size(labels) + 1, sizeof(*roles));
	json_object_foreach((json_t *)labels, key, v)
	{
		if (strncmp(key, prefix, sizeof(prefix) - 1) == 0 &&
		    key[sizeof(prefix) - 1])
			roles[n++] = key + sizeof(prefix) - 1;
		else if (strcmp(key, "kubernetes.io/role") == 0 &&
			 json_string_length(v))
			roles[n++] = json_string_value(v);
	}
	qsort(roles, n, sizeof(*roles), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (i && strcmp(roles[i], roles[i - 1]) == 0)
			continue;
		if (out->len)
			strbuf_addch(out, ',');
		strbuf_addstr(out, roles[i]);
	}
	if (!out->len)
		strbuf_addstr(out, "<none>");
	free(roles);
}

static void add_node_address(json_t *cells, const json_t *obj, const char *type)
{
	const json_t *addrs = api_kind_field(obj, "status.addresses"), *a;
	size_t i;

	json_array_foreach(addrs, i, a)
	{
		const char *t = str_at(a, "type");

		if (t && strcmp(t, type) == 0) {
			add_str(cells, str_at(a, "address"));
			return;
		}
	}
	add_str(cells, "<none>");
}

static void add_or_unknown(json_t *cells, const char *s)
{
	add_str(cells, s && *s ? s : "<unknown>");
}

void api_table_node(const json_t *obj, int64_t now_us, json_t *cells)
{
	const json_t *ready = cond(obj, "status.conditions", "Ready");
	const json_t *unsched = api_kind_field(obj, "spec.unschedulable");
	struct strbuf sb;

	strbuf_init(&sb);
	add_name(cells, obj);
	if (!ready)
		strbuf_addstr(&sb, "Unknown");
	else if (strcmp(str_or_empty(ready, "status"), "True") == 0)
		strbuf_addstr(&sb, "Ready");
	else
		strbuf_addstr(&sb, "NotReady");
	if (json_is_true(unsched))
		strbuf_addstr(&sb, ",SchedulingDisabled");
	add_str(cells, sb.buf);
	strbuf_reset(&sb);
	node_roles(obj, &sb);
	add_str(cells, sb.buf);
	strbuf_release(&sb);
	add_age(cells, obj, now_us);
	add_str(cells, str_at(obj, "status.nodeInfo.kubeletVersion"));
	add_node_address(cells, obj, "InternalIP");
	add_node_address(cells, obj, "ExternalIP");
	add_or_unknown(cells, str_at(obj, "status.nodeInfo.osImage"));
	add_or_unknown(cells, str_at(obj, "status.nodeInfo.kernelVersion"));
	add_or_unknown(cells,
		       str_at(obj, "status.nodeInfo.containerRuntimeVersion"));
}

/* A pod's row as the API server's pod printer computes it. */
struct pod_row {
	char reason[160];
	int64_t restarts;
	int64_t last_restart_us; /* 0: none seen */
	int64_t ready, total;
};

static void note_restart(struct pod_row *r, const json_t *cs)
{
	const char *fin = str_at(cs, "lastState.terminated.finishedAt");
	int64_t t_us;

	if (fin && dec_parse_time(fin, &t_us) == 0 &&
	    (r->last_restart_us == 0 || t_us > r->last_restart_us))
		r->last_restart_us = t_us;
}

/* Whether the init container named name has restartPolicy Always (a
 * sidecar: counted with the containers). */
static bool restartable_init(const json_t *pod, const char *name)
{
	const json_t *ics = api_kind_field(pod, "spec.initContainers"), *c;
	size_t i;

	json_array_foreach(ics, i, c)
	{
		const char *n = str_at(c, "name");

		if (n && name && strcmp(n, name) == 0) {
			const char *p = str_at(c, "restartPolicy");

			return p && strcmp(p, "Always") == 0;
		}
	}
	return false;
}

/* The terminated state's reason, or Signal:N / ExitCode:N. */
static void terminated_reason(const json_t *term, const char *prefix, char *buf,
			      size_t size)
{
	const char *reason = str_at(term, "reason");

	if (reason && *reason)
		snprintf(buf, size, "%s%s", prefix, reason);
	else if (int_at(term, "signal", 0))
		snprintf(buf, size, "%sSignal:%" PRId64, prefix,
			 int_at(term, "signal", 0));
	else
		snprintf(buf, size, "%sExitCode:%" PRId64, prefix,
			 int_at(term, "exitCode", 0));
}

/* Init containers: returns whether the pod is still initializing. */
static bool init_containers(const json_t *pod, struct pod_row *r,
			    int64_t *sidecar_restarts, int64_t *sidecar_last_us)
{
	const json_t *st = api_kind_field(pod, "status.initContainerStatuses"),
		     *cs;
	size_t i, ninit = json_array_size(
			  api_kind_field(pod, "spec.initContainers"));

	json_array_foreach(st, i, cs)
	{
		const json_t *term = api_kind_field(cs, "state.terminated");
		const char *waiting = str_at(cs, "state.waiting.reason");
		bool sidecar = restartable_init(pod, str_at(cs, "name"));
		int64_t restarts = int_at(cs, "restartCount", 0);

		r->restarts += restarts;
		note_restart(r, cs);
		if (sidecar) {
			const char *fin =
				str_at(cs, "lastState.terminated.finishedAt");
			int64_t t_us;

			*sidecar_restarts += restarts;
			if (fin && dec_parse_time(fin, &t_us) == 0 &&
			    t_us > *sidecar_last_us)
				*sidecar_last_us = t_us;
		}
		if (term && int_at(term, "exitCode", 0) == 0)
			continue;
		if (sidecar && json_is_true(api_kind_field(cs, "started"))) {
			if (json_is_true(api_kind_field(cs, "ready")))
				r->ready++;
			continue;
		}
		if (term)
			terminated_reason(term, "Init:", r->reason,
					  sizeof(r->reason));
		else if (waiting && *waiting &&
			 strcmp(waiting, "PodInitializing") != 0)
			snprintf(r->reason, sizeof(r->reason), "Init:%s",
				 waiting);
		else
			snprintf(r->reason, sizeof(r->reason), "Init:%zu/%zu",
				 i, ninit);
		return true;
	}
	return false;
}

static void app_containers(const json_t *pod, struct pod_row *r)
{
	const json_t *st = api_kind_field(pod, "status.containerStatuses");
	bool running = false;

	for (size_t i = json_array_size(st); i-- > 0;) {
		const json_t *cs = json_array_get(st, i);
		const json_t *term = api_kind_field(cs, "state.terminated");
		const char *waiting = str_at(cs, "state.waiting.reason");

		r->restarts += int_at(cs, "restartCount", 0);
		note_restart(r, cs);
		if (waiting && *waiting) {
			snprintf(r->reason, sizeof(r->reason), "%s", waiting);
		} else if (term) {
			terminated_reason(term, "", r->reason,
					  sizeof(r->reason));
		} else if (json_is_true(api_kind_field(cs, "ready")) &&
			   api_kind_field(cs, "state.running")) {
			running = true;
			r->ready++;
		}
	}
	/* A completed container next to a running one: the pod runs. */
	if (running && strcmp(r->reason, "Completed") == 0)
		snprintf(r->reason, sizeof(r->reason), "%s",
			 cond_true(pod, "status.conditions", "Ready")
				 ? "Running"
				 : "NotReady");
}

static void pod_reason(const json_t *pod, struct pod_row *r)
{
	const json_t *c, *ics = api_kind_field(pod, "spec.initContainers");
	const char *phase = str_or_empty(pod, "status.phase");
	const char *reason = str_at(pod, "status.reason");
	int64_t sidecar_restarts = 0, sidecar_last_us = 0;
	size_t i;

	snprintf(r->reason, sizeof(r->reason), "%s",
		 reason && *reason ? reason : phase);
	json_array_foreach(api_kind_field(pod, "status.conditions"), i, c)
	{
		if (strcmp(str_or_empty(c, "type"), "PodScheduled") == 0 &&
		    strcmp(str_or_empty(c, "reason"), "SchedulingGated") == 0)
			snprintf(r->reason, sizeof(r->reason),
				 "SchedulingGated");
	}
	r->total = (int64_t)json_array_size(
		api_kind_field(pod, "spec.containers"));
	json_array_foreach(ics, i, c)
	{
		if (strcmp(str_or_empty(c, "restartPolicy"), "Always") == 0)
			r->total++;
	}
	if (!init_containers(pod, r, &sidecar_restarts, &sidecar_last_us) ||
	    cond_true(pod, "status.conditions", "Initialized")) {
		r->restarts = sidecar_restarts;
		r->last_restart_us = sidecar_last_us;
		app_containers(pod, r);
	}
	if (api_kind_field(pod, "metadata.deletionTimestamp")) {
		if (reason && strcmp(reason, "NodeLost") == 0)
			snprintf(r->reason, sizeof(r->reason), "Unknown");
		else if (strcmp(phase, "Succeeded") != 0 &&
			 strcmp(phase, "Failed") != 0)
			snprintf(r->reason, sizeof(r->reason), "Terminating");
	}
}

static void add_or_none(json_t *cells, const char *s)
{
	add_str(cells, s && *s ? s : "<none>");
}

void api_table_pod(const json_t *obj, int64_t now_us, json_t *cells)
{
	struct pod_row r = { .reason = "" };
	const json_t *gates = api_kind_field(obj, "spec.readinessGates"), *g;
	char buf[160], age[32];
	const char *ip;
	size_t i, held = 0;

	pod_reason(obj, &r);
	add_name(cells, obj);
	snprintf(buf, sizeof(buf), "%" PRId64 "/%" PRId64, r.ready, r.total);
	add_str(cells, buf);
	add_str(cells, r.reason);
	if (r.restarts && r.last_restart_us)
		snprintf(buf, sizeof(buf), "%" PRId64 " (%s ago)", r.restarts,
			 api_table_age(wall_span(r.last_restart_us, now_us),
				       age, sizeof(age)));
	else
		snprintf(buf, sizeof(buf), "%" PRId64, r.restarts);
	add_str(cells, buf);
	add_age(cells, obj, now_us);
	ip = str_at(json_array_get(api_kind_field(obj, "status.podIPs"), 0),
		    "ip");
	add_or_none(cells, ip ? ip : str_at(obj, "status.podIP"));
	add_or_none(cells, str_at(obj, "spec.nodeName"));
	add_or_none(cells, str_at(obj, "status.nominatedNodeName"));
	if (json_array_size(gates) == 0) {
		add_str(cells, "<none>");
		return;
	}
	json_array_foreach(gates, i, g)
	{
		const json_t *c = cond(obj, "status.conditions",
				       str_or_empty(g, "conditionType"));

		held += c && strcmp(str_or_empty(c, "status"), "True") == 0;
	}
	snprintf(buf, sizeof(buf), "%zu/%zu", held, json_array_size(gates));
	add_str(cells, buf);
}

/* "component, host" of an Event's source (reporting controller and
 * instance when the source is empty). */
static void event_source(const json_t *ev, struct strbuf *out)
{
	const char *comp = str_at(ev, "source.component");
	const char *host = str_at(ev, "source.host");

	if (!comp || !*comp)
		comp = str_at(ev, "reportingComponent");
	if (!host || !*host)
		host = str_at(ev, "reportingInstance");
	strbuf_addstr(out, comp ? comp : "");
	if (host && *host)
		strbuf_addf(out, ", %s", host);
}

static void event_cells(const json_t *ev, int64_t now_us, json_t *cells)
{
	const char *kind = str_or_empty(ev, "involvedObject.kind");
	const char *name = str_or_empty(ev, "involvedObject.name");
	const char *msg = str_or_empty(ev, "message");
	const json_t *series = api_kind_field(ev, "series");
	char first[32], last[32];
	int64_t count = int_at(ev, "count", 0);
	struct strbuf sb;
	size_t len;

	if (str_at(ev, "firstTimestamp"))
		api_table_since(str_at(ev, "firstTimestamp"), now_us, first,
				sizeof(first));
	else
		api_table_since(str_at(ev, "eventTime"), now_us, first,
				sizeof(first));
	if (str_at(ev, "lastTimestamp"))
		api_table_since(str_at(ev, "lastTimestamp"), now_us, last,
				sizeof(last));
	else
		snprintf(last, sizeof(last), "%s", first);
	if (json_is_object(series)) {
		api_table_since(str_at(series, "lastObservedTime"), now_us,
				last, sizeof(last));
		count = int_at(series, "count", 0);
	} else if (count == 0) {
		count = 1;
	}
	strbuf_init(&sb);
	add_str(cells, last);
	add_str(cells, str_at(ev, "type"));
	add_str(cells, str_at(ev, "reason"));
	for (const char *p = kind; *p; p++)
		strbuf_addch(&sb,
			     (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p));
	if (*name)
		strbuf_addf(&sb, "/%s", name);
	add_str(cells, sb.buf);
	add_str(cells, str_at(ev, "involvedObject.fieldPath"));
	strbuf_reset(&sb);
	event_source(ev, &sb);
	add_str(cells, sb.buf);
	/* The message without surrounding white space. */
	while (*msg == ' ' || *msg == '\t' || *msg == '\n' || *msg == '\r')
		msg++;
	len = strlen(msg);
	while (len && strchr(" \t\n\r", msg[len - 1]))
		len--;
	strbuf_reset(&sb);
	strbuf_add(&sb, msg, len);
	add_str(cells, sb.buf);
	strbuf_release(&sb);
	add_str(cells, first);
	json_array_append_new(cells, json_integer(count));
	add_name(cells, ev);
}

void api_table_event(const json_t *obj, int64_t now_us, json_t *cells)
{
	const struct api_kind *core = api_kind_at(API_KIND_EVENT);
	json_t *ev;

	/* Both Event kinds print the core form, as the API server does. */
	if (api_kind_of(str_at(obj, "apiVersion"), "Event") == core) {
		event_cells(obj, now_us, cells);
		return;
	}
	ev = api_kind_convert(obj, core, NULL);
	event_cells(ev, now_us, cells);
	json_decref(ev);
}

/* One requirement of a selector as printed, with its key to sort by. */
struct sel_req {
	const char *key;
	char *text;
};

static int cmp_req(const void *a, const void *b)
{
	const struct sel_req *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : strcmp(x->text, y->text);
}

/* "key in (a,b)": the values sorted, as Kubernetes prints a set. */
static void format_set(const json_t *vals, struct strbuf *out)
{
	size_t n = json_array_size(vals), m = 0;
	const char **v = xcalloc(n + 1, sizeof(*v));

	for (size_t i = 0; i < n; i++)
		if (json_string_value(json_array_get(vals, i)))
			v[m++] = json_string_value(json_array_get(vals, i));
	qsort(v, m, sizeof(*v), cmp_str);
	strbuf_addch(out, '(');
	for (size_t i = 0; i < m; i++)
		strbuf_addf(out, "%s%s", i ? "," : "", v[i]);
	strbuf_addch(out, ')');
	free(v);
}

/* A label selector as Kubernetes prints one: requirements sorted by key,
 * "k=v", "k in (a,b)", "k notin (a)", "k", "!k"; "<none>" when empty. */
static void format_selector(const json_t *sel, struct strbuf *out)
{
	const json_t *ml = api_kind_field(sel, "matchLabels"), *v, *e;
	const json_t *exprs = api_kind_field(sel, "matchExpressions");
	struct sel_req *reqs;
	struct strbuf one;
	const char *key;
	size_t n = 0, i;

	reqs = xcalloc(json_object_size(ml) + json_array_size(exprs) + 1,
		       sizeof(*reqs));
	strbuf_init(&one);
	json_object_foreach((json_t *)ml, key, v)
	{
		strbuf_addf(&one, "%s=%s", key,
			    json_string_value(v) ? json_string_value(v) : "");
		reqs[n].key = key;
		reqs[n++].text = strbuf_take(&one);
	}
	json_array_foreach(exprs, i, e)
	{
		const char *op = str_or_empty(e, "operator");
		const char *k = str_or_empty(e, "key");

		if (strcmp(op, "DoesNotExist") == 0)
			strbuf_addch(&one, '!');
		strbuf_addstr(&one, k);
		if (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0) {
			strbuf_addstr(&one, op[0] == 'N' ? " notin " : " in ");
			format_set(api_kind_field(e, "values"), &one);
		}
		reqs[n].key = k;
		reqs[n++].text = strbuf_take(&one);
	}
	qsort(reqs, n, sizeof(*reqs), cmp_req);
	for (i = 0; i < n; i++) {
		strbuf_addf(out, "%s%s", i ? "," : "", reqs[i].text);
		free(reqs[i].text);
	}
	if (!n)
		strbuf_addstr(out, "<none>");
	free(reqs);
	strbuf_release(&one);
}

static const char *job_status(const json_t *job)
{
	static const char *const order[] = {
		"Complete",  "Failed",	      NULL,
		"Suspended", "FailureTarget", "SuccessCriteriaMet"
	};

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		if (!order[i]) {
			if (api_kind_field(job, "metadata.deletionTimestamp"))
				return "Terminating";
		} else if (cond_true(job, "status.conditions", order[i])) {
			return order[i];
		}
	}
	return "Running";
}

void api_table_job(const json_t *obj, int64_t now_us, json_t *cells)
{
	const json_t *containers = api_kind_field(
			     obj, "spec.template.spec.containers"),
		     *c;
	int64_t succeeded = int_at(obj, "status.succeeded", 0);
	const char *start = str_at(obj, "status.startTime");
	const char *end = str_at(obj, "status.completionTime");
	int64_t start_us, end_us;
	struct strbuf sb;
	char buf[64];
	size_t i;

	add_name(cells, obj);
	add_str(cells, job_status(obj));
	if (json_is_integer(api_kind_field(obj, "spec.completions")))
		snprintf(buf, sizeof(buf), "%" PRId64 "/%" PRId64, succeeded,
			 int_at(obj, "spec.completions", 0));
	else if (int_at(obj, "spec.parallelism", 0) > 1)
		snprintf(buf, sizeof(buf), "%" PRId64 "/1 of %" PRId64,
			 succeeded, int_at(obj, "spec.parallelism", 0));
	else
		snprintf(buf, sizeof(buf), "%" PRId64 "/1", succeeded);
	add_str(cells, buf);
	buf[0] = '\0';
	if (start && dec_parse_time(start, &start_us) == 0) {
		if (!end || dec_parse_time(end, &end_us) < 0)
			end_us = now_us;
		api_table_age(wall_span(start_us, end_us), buf, sizeof(buf));
	}
	add_str(cells, buf);
	add_age(cells, obj, now_us);
	strbuf_init(&sb);
	json_array_foreach(containers, i, c)
	{
		strbuf_addf(&sb, "%s%s", i ? "," : "", str_or_empty(c, "name"));
	}
	add_str(cells, sb.buf);
	strbuf_reset(&sb);
	json_array_foreach(containers, i, c)
	{
		strbuf_addf(&sb, "%s%s", i ? "," : "",
			    str_or_empty(c, "image"));
	}
	add_str(cells, sb.buf);
	strbuf_reset(&sb);
	format_selector(api_kind_field(obj, "spec.selector"), &sb);
	add_str(cells, sb.buf);
	strbuf_release(&sb);
}

void api_table_lease(const json_t *obj, int64_t now_us, json_t *cells)
{
	add_name(cells, obj);
	add_str(cells, str_at(obj, "spec.holderIdentity"));
	add_age(cells, obj, now_us);
}

void api_table_priority_class(const json_t *obj, int64_t now_us, json_t *cells)
{
	const char *policy = str_at(obj, "preemptionPolicy");

	add_name(cells, obj);
	json_array_append_new(
		cells, json_integer((json_int_t)int_at(obj, "value", 0)));
	json_array_append_new(cells, json_boolean(json_is_true(api_kind_field(
					     obj, "globalDefault"))));
	add_age(cells, obj, now_us);
	/* The API server defaults the policy; show what it would hold. */
	add_str(cells, policy ? policy : "PreemptLowerPriority");
}

/* A custom resource's "date" column: an age, null when absent. */
static void add_date(json_t *cells, const json_t *obj, const char *path,
		     int64_t now_us)
{
	const char *ts = str_at(obj, path);
	char buf[32];

	if (!ts) {
		json_array_append_new(cells, json_null());
		return;
	}
	add_str(cells, api_table_since(ts, now_us, buf, sizeof(buf)));
}

void api_table_cluster_queue(const json_t *obj, int64_t now_us, json_t *cells)
{
	const json_t *cohort = api_kind_field(obj, "spec.cohortName");

	(void)now_us;
	/* v1beta1 calls the field spec.cohort. */
	if (!cohort)
		cohort = api_kind_field(obj, "spec.cohort");
	add_name(cells, obj);
	add_value(cells, cohort);
	add_value(cells, api_kind_field(obj, "spec.queueingStrategy"));
	add_value(cells, api_kind_field(obj, "status.pendingWorkloads"));
	add_value(cells, api_kind_field(obj, "status.admittedWorkloads"));
}

void api_table_local_queue(const json_t *obj, int64_t now_us, json_t *cells)
{
	(void)now_us;
	add_name(cells, obj);
	add_value(cells, api_kind_field(obj, "spec.clusterQueue"));
	add_value(cells, api_kind_field(obj, "status.pendingWorkloads"));
	add_value(cells, api_kind_field(obj, "status.admittedWorkloads"));
}

void api_table_wpc(const json_t *obj, int64_t now_us, json_t *cells)
{
	(void)now_us;
	add_name(cells, obj);
	add_value(cells, api_kind_field(obj, "value"));
}

void api_table_workload(const json_t *obj, int64_t now_us, json_t *cells)
{
	add_name(cells, obj);
	add_value(cells, api_kind_field(obj, "spec.queueName"));
	add_value(cells, api_kind_field(obj, "status.admission.clusterQueue"));
	add_value(cells,
		  api_kind_field(cond(obj, "status.conditions", "Admitted"),
				 "status"));
	add_value(cells,
		  api_kind_field(cond(obj, "status.conditions", "Finished"),
				 "status"));
	add_date(cells, obj, "metadata.creationTimestamp", now_us);
}

void api_table_pod_group(const json_t *obj, int64_t now_us, json_t *cells)
{
	add_name(cells, obj);
	add_value(cells, api_kind_field(obj, "status.phase"));
	add_value(cells, api_kind_field(obj, "spec.minMember"));
	add_value(cells, api_kind_field(obj, "status.running"));
	add_value(cells, api_kind_field(obj, "status.succeeded"));
	add_value(cells, api_kind_field(obj, "status.failed"));
	add_date(cells, obj, "metadata.creationTimestamp", now_us);
}

void api_table_native_pod_group(const json_t *obj, int64_t now_us,
				json_t *cells)
{
	const json_t *topo = json_array_get(
		api_kind_field(obj, "spec.schedulingConstraints.topology"), 0);
	const json_t *c =
		cond(obj, "status.conditions", "PodGroupInitiallyScheduled");

	add_name(cells, obj);
	add_value(cells,
		  api_kind_field(obj, "spec.schedulingPolicy.gang.minCount"));
	add_value(cells, json_object_get(topo, "key"));
	add_value(cells, json_object_get(c, "status"));
	add_value(cells, json_object_get(c, "reason"));
	add_date(cells, obj, "metadata.creationTimestamp", now_us);
}

json_t *api_table_columns(const struct api_kind *k)
{
	json_t *cols = json_array();

	for (size_t i = 0; i < k->ncolumns; i++) {
		const struct api_column *c = &k->columns[i];

		json_array_append_new(cols,
				      json_pack("{s:s, s:s, s:s, s:s, s:i}",
						"name", c->name, "type",
						c->type, "format", c->format,
						"description", c->description,
						"priority", c->priority));
	}
	return cols;
}

json_t *api_table_row_cells(const struct api_kind *k, const json_t *obj,
			    int64_t now_us)
{
	json_t *cells = json_array();

	k->cells(obj, now_us, cells);
	BUG_ON(json_array_size(cells) != k->ncolumns);
	return cells;
}
