// SPDX-License-Identifier: Apache-2.0
/*
 * echelon's explain subresource: why a workload waits or runs as it does,
 * layer by layer, each answer with the numbers it rests on.
 *
 *   GET /apis/echelon.dev/v1alpha1/namespaces/NS/workloads/NAME/explain
 *
 * answers a WorkloadExplanation: the workload's state, then its layers in
 * order (admission: quota or topology, with its position, who is ahead
 * and who holds the quota; assembly: its pods created, bound and Ready
 * since admission and what happens at the deadline; throughput: domains
 * spanned against the fewest and the modelled throughput against ideal;
 * hardware: a measured rate far below the model's, a node of the gang
 * no longer Ready, or one whose GPU signals (the embedded cluster's
 * simulated dcgm-exporter) show an XID, overheating or a slowed clock;
 * history: evictions and requeues), the first layer
 * that explains why it is not running at full speed (cause), and the
 * same as text for people (`echelon explain`). Computed on demand from
 * the controller, never stored.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_store.h"
#include "base/alloc.h"
#include "ctl/ctl_forecast.h"
#include "gang/gang.h"
#include "serve/serve_dcgm.h"
#include "serve/serve_sched_int.h"
#include "obs/obs_placement.h"
#include "sim/throughput.h"
#include "topo/topo_span.h"

#include "base/banned.h"

#define EXPLAIN_PREFIX "/apis/echelon.dev/v1alpha1/namespaces/"
#define MAX_LISTED     10   /* workloads named as ahead or holding */
#define SLOW_RATIO     0.95 /* modelled throughput below this: spread */
#define HW_SHORTFALL   0.8  /* measured below this share of the model */
#define HW_SLOW	       0.95 /* a node's GPU clock below this: a straggler */
#define GPU	       "nvidia.com/gpu"
/* What a training job may report of itself on its Workload: its measured
 * rate and the rate it reaches on an ideal placement, in any one unit
 * (steps/s, tokens/s). */
#define ANN_MEASURED "echelon.dev/measured-rate"
#define ANN_IDEAL    "echelon.dev/ideal-rate"

struct xp {
	struct serve_sched *x;
	const struct sched *s;
	const struct cluster *c;
	uint32_t wl;
	const struct workload *w;
	int64_t now_us;
	int gpu;	     /* resource id of GPUs, or -1 */
	json_t *layers;	     /* the answer's layers, in order */
	struct strbuf text;  /* the same for people */
	const char *cause;   /* the first layer that explains, or NULL */
	char cause_why[256]; /* its reason, for the text */
	double modelled;     /* throughput against ideal, 0: unknown */
};

/* Parse NS and NAME out of .../namespaces/NS/workloads/NAME/explain. */
static bool parse_path(const char *path, char *ns, char *name, size_t size)
{
	const char *p, *e;
	size_t n;

	if (strncmp(path, EXPLAIN_PREFIX, strlen(EXPLAIN_PREFIX)) != 0)
		return false;
	p = path + strlen(EXPLAIN_PREFIX);
	e = strchr(p, '/');
	if (!e || e == p || (size_t)(e - p) >= size)
		return false;
	memcpy(ns, p, (size_t)(e - p));
	ns[e - p] = '\0';
	p = e + 1;
	if (strncmp(p, "workloads/", 10) != 0)
		return false;
	p += 10;
	e = strchr(p, '/');
	n = e ? (size_t)(e - p) : 0;
	if (!e || n == 0 || n >= size || strcmp(e, "/explain") != 0)
		return false;
	memcpy(name, p, n);
	name[n] = '\0';
	return true;
}

static const char *stamp(int64_t us, char *buf, size_t size)
{
	return api_store_timestamp(us, buf, size);
}

/* GPUs (or the first resource) a workload requests in all. */
static int64_t wl_gpus(const struct xp *e, const struct workload *w)
{
	int64_t n = 0;

	if (e->gpu < 0)
		return 0;
	for (size_t p = 0; p < w->npodsets; p++)
		n += w->podsets[p].count * w->podsets[p].requests.v[e->gpu];
	return n;
}

static const char *wl_key(const struct workload *w, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", w->ns ? w->ns : "", w->name);
	return buf;
}

static void add_layer(struct xp *e, const char *layer, const char *status,
		      json_t *obj)
{
	json_object_set_new(obj, "layer", json_string(layer));
	json_object_set_new(obj, "status", json_string(status));
	json_array_append_new(e->layers, obj);
	if (!e->cause && strcmp(status, "ok") != 0 && strcmp(status, "n/a")) {
		const char *why =
			json_string_value(json_object_get(obj, "reason"));

		e->cause = layer;
		snprintf(e->cause_why, sizeof(e->cause_why), "%s%s%s", status,
			 why ? ", " : "", why ? why : "");
	}
}

/* Pending workloads of wl's ClusterQueue ahead of it, by position. */
static json_t *ahead_of(struct xp *e, const int64_t *cq_pos, int32_t cq,
			int64_t mine, size_t *count)
{
	json_t *a = json_array();
	char key[512];

	*count = 0;
	for (int64_t p = 0; p < mine; p++) {
		for (size_t i = 0; i < e->c->workloads.len; i++) {
			const struct workload *o = &e->c->workloads.items[i];

			if (cq_pos[i] != p ||
			    sched_wl_cq(e->s, (uint32_t)i) != cq)
				continue;
			(*count)++;
			if (json_array_size(a) < MAX_LISTED)
				json_array_append_new(
					a,
					json_pack("{s:s,s:I,s:i,s:I}", "name",
						  wl_key(o, key, sizeof(key)),
						  "position", (json_int_t)p,
						  "priority",
						  sched_wl_priority(
							  e->s, (uint32_t)i),
						  "gpus",
						  (json_int_t)wl_gpus(e, o)));
		}
	}
	return a;
}

static int holder_cmp(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t gx = json_integer_value(json_object_get(x, "gpus"));
	json_int_t gy = json_integer_value(json_object_get(y, "gpus"));

	if (gx != gy)
		return gx < gy ? 1 : -1;
	return strcmp(json_string_value(json_object_get(x, "name")),
		      json_string_value(json_object_get(y, "name")));
}

/* Admitted workloads of ClusterQueue cq, most GPUs first. */
static json_t *holders_of(struct xp *e, int32_t cq, int64_t *total)
{
	VEC(json_t *) v = VEC_INIT;
	json_t *a = json_array();
	char key[512];

	*total = 0;
	for (size_t i = 0; i < e->c->workloads.len; i++) {
		const struct workload *o = &e->c->workloads.items[i];

		if (i == e->wl || !o->name ||
		    sched_wl_state(e->s, (uint32_t)i) != SCHED_WL_ADMITTED ||
		    sched_wl_cq(e->s, (uint32_t)i) != cq)
			continue;
		*total += wl_gpus(e, o);
		vec_push(&v, json_pack("{s:s,s:I}", "name",
				       wl_key(o, key, sizeof(key)), "gpus",
				       (json_int_t)wl_gpus(e, o)));
	}
	if (v.len)
		qsort(v.items, v.len, sizeof(*v.items), holder_cmp);
	for (size_t i = 0; i < v.len; i++) {
		if (i < MAX_LISTED)
			json_array_append(a, v.items[i]);
		json_decref(v.items[i]);
	}
	vec_release(&v);
	return a;
}

/* A span of the embedded clock for people: 45s, 12m, 3h05m, 2d04h. */
static const char *span(int64_t us, char *buf, size_t size)
{
	long long sec = us > 0 ? (long long)((us + 999999) / 1000000) : 0;

	if (sec < 60)
		snprintf(buf, size, "%llds", sec);
	else if (sec < 3600)
		snprintf(buf, size, "%lldm", (sec + 30) / 60);
	else if (sec < 86400)
		snprintf(buf, size, "%lldh%02lldm", sec / 3600,
			 sec % 3600 / 60);
	else
		snprintf(buf, size, "%lldd%02lldh", sec / 86400,
			 sec % 86400 / 3600);
	return buf;
}

/* When the start-time forecast (serve_sched_forecast()) expects it to
 * be admitted, and after which workload's end. */
static void admission_estimate(struct xp *e, json_t *o)
{
	const struct ctl_forecast *f = serve_sched_forecast(e->x);
	const struct ctl_forecast_wl *r = e->wl < f->n ? &f->wl[e->wl] : NULL;
	char ts[40], sp[32], key[512];

	if (!r || !r->pending)
		return;
	if (r->at_us == CTL_FORECAST_UNKNOWN) {
		json_object_set_new(o, "estimatedAdmissionTime", json_null());
		strbuf_addstr(&e->text,
			      "   estimated admission: unknown (it waits "
			      "for a workload whose end is not known, or "
			      "beyond the forecast)\n");
		return;
	}
	json_object_set_new(o, "estimatedAdmissionTime",
			    json_string(stamp(r->at_us, ts, sizeof(ts))));
	json_object_set_new(
		o, "estimatedWaitSeconds",
		json_real(r->at_us > e->now_us
				  ? (double)(r->at_us - e->now_us) / 1e6
				  : 0.0));
	strbuf_addf(&e->text, "   estimated admission in %s (at %s)",
		    span(r->at_us - e->now_us, sp, sizeof(sp)), ts);
	if (r->after != CTL_FORECAST_NONE && r->after < e->c->workloads.len &&
	    e->c->workloads.items[r->after].name) {
		wl_key(&e->c->workloads.items[r->after], key, sizeof(key));
		json_object_set_new(o, "estimatedAfter", json_string(key));
		strbuf_addf(&e->text, ", after %s ends", key);
	}
	strbuf_addch(&e->text, '\n');
}

static void admission_pending(struct xp *e, json_t *o, int32_t cq)
{
	int64_t *cq_pos = xcalloc(e->c->workloads.len + 1, sizeof(int64_t));
	int64_t *lq_pos = xcalloc(e->c->workloads.len + 1, sizeof(int64_t));
	struct strbuf msg;
	enum sched_pend pend;
	enum ctl_wait wait = ctl_wl_wait(e->x->ctl, e->wl, &pend);
	size_t nahead = 0;
	int64_t held = 0;
	json_t *ahead, *holders;

	strbuf_init(&msg);
	pend = sched_wl_pending(e->s, e->wl, &msg);
	sched_positions(e->s, cq_pos, lq_pos);
	json_object_set_new(o, "reason",
			    json_string(ctl_wait_name(wait, pend)));
	json_object_set_new(o, "message", json_string(msg.buf ? msg.buf : ""));
	strbuf_addf(&e->text, "1. Admission: waiting (%s): %s\n",
		    ctl_wait_name(wait, pend), msg.buf ? msg.buf : "");
	if (sched_wl_compact(e->s, e->wl)) {
		json_object_set_new(o, "compact", json_true());
		strbuf_addstr(&e->text,
			      "   a compact gang: it waits for a placement on "
			      "the fewest domains rather than start spread\n");
	}
	if (cq >= 0 && cq_pos[e->wl] >= 0) {
		json_object_set_new(o, "positionInClusterQueue",
				    json_integer(cq_pos[e->wl]));
		json_object_set_new(o, "positionInLocalQueue",
				    json_integer(lq_pos[e->wl]));
		ahead = ahead_of(e, cq_pos, cq, cq_pos[e->wl], &nahead);
		json_object_set_new(o, "ahead", ahead);
		strbuf_addf(&e->text,
			    "   position %lld in ClusterQueue %s, %zu ahead "
			    "of it",
			    (long long)cq_pos[e->wl], sched_cq_name(e->s, cq),
			    nahead);
		for (size_t i = 0; i < json_array_size(ahead); i++)
			strbuf_addf(&e->text, "%s%s", i ? ", " : ": ",
				    json_string_value(json_object_get(
					    json_array_get(ahead, i), "name")));
		strbuf_addch(&e->text, '\n');
	}
	admission_estimate(e, o);
	if (cq >= 0) {
		holders = holders_of(e, cq, &held);
		json_object_set_new(o, "heldGPUs", json_integer(held));
		json_object_set_new(o, "holders", holders);
		strbuf_addf(&e->text, "   %lld GPUs held in %s by %zu admitted",
			    (long long)held, sched_cq_name(e->s, cq),
			    json_array_size(holders));
		for (size_t i = 0; i < json_array_size(holders) && i < 3; i++) {
			json_t *h = json_array_get(holders, i);

			strbuf_addf(
				&e->text, "%s%s (%lld)", i ? ", " : ": ",
				json_string_value(json_object_get(h, "name")),
				(long long)json_integer_value(
					json_object_get(h, "gpus")));
		}
		strbuf_addch(&e->text, '\n');
	}
	strbuf_release(&msg);
	free(cq_pos);
	free(lq_pos);
}

static void layer_admission(struct xp *e)
{
	enum sched_wl_state st = sched_wl_state(e->s, e->wl);
	int32_t cq = sched_wl_cq(e->s, e->wl);
	struct sched_condition qr =
		sched_wl_condition(e->s, e->wl, SCHED_COND_QUOTA_RESERVED);
	json_t *o = json_object();
	char ts[40];

	json_object_set_new(o, "gpus", json_integer(wl_gpus(e, e->w)));
	if (st == SCHED_WL_PENDING || st == SCHED_WL_NEW) {
		admission_pending(e, o, cq);
		add_layer(e, "admission", "waiting", o);
		return;
	}
	if (qr.present && qr.status)
		json_object_set_new(
			o, "admittedAt",
			json_string(stamp(qr.transition_us, ts, sizeof(ts))));
	strbuf_addf(&e->text, "1. Admission: %s in ClusterQueue %s%s%s\n",
		    st == SCHED_WL_FINISHED ? "was admitted" : "admitted",
		    cq >= 0 ? sched_cq_name(e->s, cq) : "-",
		    qr.present && qr.status ? " at " : "",
		    qr.present && qr.status ? ts : "");
	add_layer(e, "admission", "ok", o);
}

static void layer_assembly(struct xp *e)
{
	struct gang_saved g;
	const struct swl *sw =
		e->wl < e->x->wl.len ? &e->x->wl.items[e->wl] : NULL;
	json_t *o = json_object(), *waiting = json_array();
	uint32_t created = 0, bound = 0, ready = 0;
	char ts[40];

	if (sched_wl_state(e->s, e->wl) != SCHED_WL_ADMITTED) {
		strbuf_addstr(&e->text, "2. Assembly: -\n");
		add_layer(e, "assembly", "n/a", o);
		json_decref(waiting);
		return;
	}
	gang_wl_export(ctl_gang(e->x->ctl), e->wl, &g);
	for (uint32_t p = 0; p < g.npods; p++) {
		uint8_t f = g.pods[p].flags;

		created += sw && p < sw->npods && sw->uid_at
				   ? sw->uid_at[p] != NULL
				   : (f & GANG_POD_CREATED) != 0;
		bound += g.pods[p].node != UINT32_MAX;
		ready += (f & (GANG_POD_READY | GANG_POD_SUCCEEDED)) != 0;
		if (!(f & (GANG_POD_READY | GANG_POD_SUCCEEDED)) &&
		    json_array_size(waiting) < MAX_LISTED)
			json_array_append_new(
				waiting,
				json_string(sw && p < sw->npods &&
							    sw->name_at &&
							    sw->name_at[p]
						    ? sw->name_at[p]
						    : "(not created)"));
	}
	json_object_set_new(o, "state", json_string(gang_state_name(g.state)));
	json_object_set_new(o, "pods", json_integer(g.npods));
	json_object_set_new(o, "created", json_integer(created));
	json_object_set_new(o, "bound", json_integer(bound));
	json_object_set_new(o, "ready", json_integer(ready));
	if (g.state == GANG_READY) {
		json_decref(waiting);
		strbuf_addf(&e->text,
			    "2. Assembly: all %u pods bound and Ready\n",
			    g.npods);
		add_layer(e, "assembly", "ok", o);
		return;
	}
	json_object_set_new(o, "waitingPods", waiting);
	strbuf_addf(&e->text,
		    "2. Assembly: %s: %u of %u pods created, %u bound, %u "
		    "Ready",
		    gang_state_name(g.state), created, g.npods, bound, ready);
	if (g.ready_deadline_us > 0 && g.ready_deadline_us < INT64_MAX) {
		json_object_set_new(o, "deadline",
				    json_string(stamp(g.ready_deadline_us, ts,
						      sizeof(ts))));
		json_object_set_new(o, "then",
				    json_string("evicted and requeued "
						"(waitForPodsReady)"));
		strbuf_addf(&e->text,
			    "; if not all Ready by %s it is evicted and "
			    "requeued (waitForPodsReady)",
			    ts);
	}
	strbuf_addch(&e->text, '\n');
	add_layer(e, "assembly", "waiting", o);
}

static void layer_throughput(struct xp *e)
{
	const struct sched_admission *adm = sched_wl_admission(e->s, e->wl);
	struct throughput_config tc;
	json_t *o = json_object(), *sets = json_array();
	bool spread = false, any = false;
	double worst = 1;

	throughput_config_init(&tc);
	for (size_t p = 0; adm && p < adm->npodsets; p++) {
		const struct sched_podset_admission *pa = &adm->ps[p];
		const struct podset *ps = &e->w->podsets[p];
		struct obs_placement pl;
		const char *link;
		struct strbuf sum;

		if (!obs_placement_of(e->s, e->wl, e->w, p, e->gpu, &tc, &pl))
			continue;
		strbuf_init(&sum);
		topo_span_summary(sched_topo(e->s, pa->tas_flavor), pa->nodes,
				  (size_t)pa->count, &ps->requests, &sum);
		link = throughput_level_name(pl.slowest);
		worst = pl.ratio < worst ? pl.ratio : worst;
		spread = spread || pl.racks > pl.min_racks ||
			 pl.blocks > pl.min_blocks || pl.ratio < SLOW_RATIO;
		json_array_append_new(
			sets,
			json_pack("{s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:f,s:s}",
				  "podSet", ps->name ? ps->name : "main",
				  "placement", sum.buf, "hosts", pl.hosts,
				  "racks", pl.racks, "minRacks", pl.min_racks,
				  "blocks", pl.blocks, "minBlocks",
				  pl.min_blocks, "modelledThroughput",
				  round(pl.ratio * 1000) / 1000, "slowestLink",
				  link));
		strbuf_addf(&e->text,
			    "%s %s: %s; modelled throughput %.0f%% of ideal, "
			    "slowest link: %s\n",
			    any ? "  " : "3. Throughput:",
			    ps->name ? ps->name : "main", sum.buf,
			    pl.ratio * 100, link);
		any = true;
		strbuf_release(&sum);
	}
	if (!any) {
		json_decref(sets);
		strbuf_addstr(&e->text, "3. Throughput: -\n");
		add_layer(e, "throughput", "n/a", o);
		return;
	}
	e->modelled = worst;
	json_object_set_new(o, "podSets", sets);
	json_object_set_new(o, "modelledThroughput",
			    json_real(round(worst * 1000) / 1000));
	add_layer(e, "throughput", spread ? "spread" : "ok", o);
}

/* A rate the Workload object reports (annotation key; read from the
 * store, where users and agents write it, not from the controller's copy
 * of the spec), or 0. */
static double reported(const struct xp *e, const char *key)
{
	const struct api_obj *o = api_store_get(
		e->x->s, e->x->kinds[SK_WORKLOAD], e->w->ns, e->w->name);
	const char *v = o ? json_string_value(json_object_get(
				    json_object_get(json_object_get(o->body,
								    "metadata"),
						    "annotations"),
				    key))
			  : NULL;
	char *end;
	double d;

	if (!v)
		return 0;
	d = strtod(v, &end);
	return end != v && *end == '\0' && d > 0 && isfinite(d) ? d : 0;
}

/* What one node's GPU signals say of the gang on it. */
struct hw_node {
	uint32_t xid_gpu, hot_gpu;
	int32_t xid, hot_c;
	double speed; /* slowest busy GPU's clock against full */
	int64_t gang_gpus;
};

/* Read node name's simulated signals; true when they flag it. */
static bool hw_node_read(const struct xp *e, const char *name,
			 struct serve_dcgm_node *dn, struct hw_node *h)
{
	memset(h, 0, sizeof(*h));
	h->speed = 1;
	if (serve_dcgm_node(e->x->s, name, dn) != 0)
		return false;
	for (uint32_t g = 0; g < dn->ngpus; g++) {
		const struct serve_dcgm_gpu *u = &dn->gpus[g];
		double sp = (double)u->sm_clock / SERVE_DCGM_SM_CLOCK_MHZ;

		if (u->xid && !h->xid) {
			h->xid = u->xid;
			h->xid_gpu = g;
		}
		if (u->temp_c >= SERVE_DCGM_HOT_C && u->temp_c > h->hot_c) {
			h->hot_c = u->temp_c;
			h->hot_gpu = g;
		}
		if (u->busy && sp < h->speed)
			h->speed = sp;
	}
	return h->xid || h->hot_c || h->speed < HW_SLOW;
}

/* A node of the gang and the GPUs the gang has on it. */
struct gang_node {
	const struct node *n;
	int64_t gpus;
};

/* The gang's nodes, each once, in placement order (caller frees; NULL
 * when none). */
static struct gang_node *gang_nodes(const struct xp *e, size_t *ret_n)
{
	const struct sched_admission *adm = sched_wl_admission(e->s, e->wl);
	VEC(struct gang_node) v = VEC_INIT;
	struct hmap at;
	int64_t k;

	hmap_init(&at);
	for (size_t p = 0; adm && p < adm->npodsets; p++) {
		const struct sched_podset_admission *pa = &adm->ps[p];
		const struct topo *t;

		if (pa->tas_flavor < 0 || !pa->nodes)
			continue;
		t = sched_topo(e->s, pa->tas_flavor);
		for (int32_t i = 0; i < pa->count; i++) {
			const struct node *n = t->node_src[pa->nodes[i]];

			if (!hmap_get_str(&at, n->name, &k)) {
				k = (int64_t)v.len;
				hmap_put_str(&at, n->name, k);
				vec_push(&v, ((struct gang_node){ .n = n }));
			}
			if (e->gpu >= 0)
				v.items[k].gpus +=
					e->w->podsets[p].requests.v[e->gpu];
		}
	}
	hmap_release(&at);
	*ret_n = v.len;
	return v.items;
}

/* One flagged node, as JSON (its summary the line of text). */
static json_t *hw_node_report(struct xp *e, const struct serve_dcgm_node *dn,
			      const struct hw_node *h)
{
	json_t *o = json_pack("{s:s,s:i,s:f}", "node", dn->name, "gangGPUs",
			      (int)h->gang_gpus, "speed",
			      round(h->speed * 1000) / 1000);
	const char *sep = ": ";
	struct strbuf line;
	char ts[40];

	strbuf_init(&line);
	strbuf_addf(&line, "node %s", dn->name);
	if (h->xid) {
		json_object_set_new(o, "xid", json_integer(h->xid));
		json_object_set_new(o, "xidGPU", json_integer(h->xid_gpu));
		strbuf_addf(&line, "%sXID %d on GPU %u", sep, h->xid,
			    h->xid_gpu);
		if (dn->fault.since_us >= 0) {
			stamp(dn->fault.since_us, ts, sizeof(ts));
			json_object_set_new(o, "xidAt", json_string(ts));
			strbuf_addf(&line, " at %s", ts);
		}
		sep = ", ";
	}
	if (h->hot_c) {
		json_object_set_new(o, "hotGPU", json_integer(h->hot_gpu));
		json_object_set_new(o, "temperature", json_integer(h->hot_c));
		strbuf_addf(&line, "%sGPU %u at %d °C", sep, h->hot_gpu,
			    h->hot_c);
	}
	strbuf_addf(&line, "%sits %lld GPUs run the gang at %.2gx",
		    h->xid || h->hot_c ? "; " : ": ", (long long)h->gang_gpus,
		    h->speed);
	strbuf_addf(&e->text, "   %s\n", line.buf);
	json_object_set_new(o, "summary", json_string(line.buf));
	strbuf_release(&line);
	return o;
}

/* The GPU signals of the gang's nodes g[0..n): flagged ones into bad
 * (and the text); how many nodes were read, -1 when there are no
 * signals (a real cluster). */
static int hw_signals(struct xp *e, const struct gang_node *g, size_t n,
		      json_t *bad)
{
	struct serve_dcgm_node *dn;
	struct hw_node h;

	if (e->x->opt.kube)
		return -1;
	dn = xmalloc(sizeof(*dn));
	for (size_t i = 0; i < n; i++) {
		if (!hw_node_read(e, g[i].n->name, dn, &h) ||
		    json_array_size(bad) >= MAX_LISTED)
			continue;
		h.gang_gpus = g[i].gpus;
		json_array_append_new(bad, hw_node_report(e, dn, &h));
	}
	free(dn);
	return (int)n;
}

static void layer_hardware(struct xp *e)
{
	const struct sched_admission *adm = sched_wl_admission(e->s, e->wl);
	double m = reported(e, ANN_MEASURED), ideal = reported(e, ANN_IDEAL);
	json_t *o = json_object(), *bad = json_array();
	json_t *gpu_bad = json_array();
	size_t ng;
	struct gang_node *g = gang_nodes(e, &ng);
	int nsig;
	bool suspect = false;

	for (size_t i = 0; i < ng && json_array_size(bad) < MAX_LISTED; i++) {
		if (g[i].n->ready && !g[i].n->unschedulable)
			continue;
		json_array_append_new(bad, json_string(g[i].n->name));
		suspect = true;
	}
	json_object_set_new(o, "degradedNodes", bad);
	if (m > 0 && ideal > 0 && e->modelled > 0) {
		double got = m / ideal;

		json_object_set_new(o, "measuredThroughput",
				    json_real(round(got * 1000) / 1000));
		json_object_set_new(
			o, "expectedThroughput",
			json_real(round(e->modelled * 1000) / 1000));
		if (got < HW_SHORTFALL * e->modelled)
			suspect = true;
		strbuf_addf(&e->text,
			    "4. Hardware: measured %.0f%% of ideal against "
			    "%.0f%% the placement explains%s",
			    got * 100, e->modelled * 100,
			    got < HW_SHORTFALL * e->modelled
				    ? ": slower than its placement explains, "
				      "look at its nodes"
				    : "");
	} else if (sched_wl_state(e->s, e->wl) == SCHED_WL_ADMITTED) {
		strbuf_addstr(&e->text, "4. Hardware: no measured rate "
					"(annotations " ANN_MEASURED
					" and " ANN_IDEAL ")");
	} else {
		strbuf_addstr(&e->text, "4. Hardware: -");
	}
	for (size_t i = 0; i < json_array_size(bad); i++)
		strbuf_addf(&e->text, "%s%s",
			    i ? ", " : "; nodes not Ready or cordoned: ",
			    json_string_value(json_array_get(bad, i)));
	strbuf_addch(&e->text, '\n');
	nsig = adm ? hw_signals(e, g, ng, gpu_bad) : 0;
	free(g);
	if (nsig < 0)
		strbuf_addstr(&e->text,
			      "   no GPU signals: a real cluster's DCGM "
			      "exporter is not read\n");
	else if (nsig > 0 && !json_array_size(gpu_bad))
		strbuf_addf(&e->text,
			    "   GPU signals of its %d nodes: no XID, none at "
			    "%d °C or above, full clock\n",
			    nsig, SERVE_DCGM_HOT_C);
	json_object_set_new(o, "gpuSignals",
			    json_string(nsig < 0    ? "unavailable"
					: nsig == 0 ? "none"
						    : "simulated"));
	if (json_array_size(gpu_bad))
		json_object_set(
			o, "reason",
			json_object_get(json_array_get(gpu_bad, 0), "summary"));
	json_object_set_new(o, "stragglers", gpu_bad);
	suspect = suspect || json_array_size(gpu_bad) > 0;
	add_layer(e, "hardware",
		  suspect			     ? "suspect"
		  : (m > 0 && ideal > 0) || nsig > 0 ? "ok"
						     : "n/a",
		  o);
}

static void layer_history(struct xp *e)
{
	struct sched_condition ev =
		sched_wl_condition(e->s, e->wl, SCHED_COND_EVICTED);
	struct sched_condition pr =
		sched_wl_condition(e->s, e->wl, SCHED_COND_PREEMPTED);
	int64_t requeues = gang_requeues(ctl_gang(e->x->ctl), e->wl);
	json_t *o = json_object();
	char ts[40];

	json_object_set_new(o, "requeues", json_integer(requeues));
	strbuf_addf(&e->text, "5. History: requeued %lld times",
		    (long long)requeues);
	if (ev.present) {
		json_object_set_new(
			o, "lastEviction",
			json_pack("{s:s,s:s,s:s}", "reason",
				  ev.reason ? ev.reason : "", "message",
				  ev.message ? ev.message : "", "time",
				  stamp(ev.transition_us, ts, sizeof(ts))));
		strbuf_addf(&e->text, "; last evicted at %s (%s: %s)", ts,
			    ev.reason ? ev.reason : "",
			    ev.message ? ev.message : "");
	}
	if (pr.present && pr.status)
		json_object_set_new(o, "preempted",
				    json_string(pr.message ? pr.message : ""));
	strbuf_addch(&e->text, '\n');
	add_layer(e, "history", "n/a", o);
}

static const char *state_name(const struct xp *e)
{
	struct gang_saved g;

	switch (sched_wl_state(e->s, e->wl)) {
	case SCHED_WL_ADMITTED:
		gang_wl_export(ctl_gang(e->x->ctl), e->wl, &g);
		return g.state == GANG_READY ? "Running" : "Admitted";
	case SCHED_WL_FINISHED:
		return "Finished";
	default:
		return "Pending";
	}
}

static json_t *explain(struct xp *e, const char *ns, const char *name)
{
	json_t *o;
	char head[600];

	e->layers = json_array();
	strbuf_init(&e->text);
	snprintf(head, sizeof(head), "Workload %s/%s: %s, %lld GPUs\n", ns,
		 name, state_name(e), (long long)wl_gpus(e, e->w));
	strbuf_addstr(&e->text, head);
	layer_admission(e);
	layer_assembly(e);
	layer_throughput(e);
	layer_hardware(e);
	layer_history(e);
	if (e->cause)
		strbuf_addf(&e->text, "Cause: %s (%s)\n", e->cause,
			    e->cause_why);
	else
		strbuf_addf(&e->text, "Cause: %s\n",
			    strcmp(state_name(e), "Finished") == 0
				    ? "none: finished"
				    : "none: running as well as its placement "
				      "allows");
	o = json_pack("{s:s,s:s,s:{s:s,s:s},s:s,s:s,s:o,s:s}", "kind",
		      "WorkloadExplanation", "apiVersion",
		      "echelon.dev/v1alpha1", "metadata", "namespace", ns,
		      "name", name, "state", state_name(e), "cause",
		      e->cause ? e->cause : "none", "layers", e->layers, "text",
		      e->text.buf);
	strbuf_release(&e->text);
	return o;
}

int serve_sched_explain(struct serve_sched *x, const struct api_req *r,
			int64_t now_us, struct api_resp *resp)
{
	struct xp e = { .x = x, .now_us = now_us };
	char ns[254], name[254];
	int64_t slot;
	json_t *o;
	char *text;

	if (!r->path || !parse_path(r->path, ns, name, sizeof(ns)))
		return -ENOENT;
	if (strcmp(r->method, "GET") != 0) {
		api_resp_status(resp, 405, "MethodNotAllowed",
				"the server does not allow this method on "
				"the requested resource");
		return 0;
	}
	slot = serve_sched_find(x, ns, name);
	if (slot < 0) {
		api_resp_status(resp, 404, "NotFound",
				"workloads.kueue.x-k8s.io \"%s\" not found in "
				"namespace %s (or not queued by echelon)",
				name, ns);
		return 0;
	}
	e.s = ctl_sched(x->ctl);
	e.c = ctl_cluster(x->ctl);
	e.wl = (uint32_t)slot;
	e.w = &e.c->workloads.items[slot];
	e.gpu = resource_lookup(e.c->resources, GPU);
	o = explain(&e, ns, name);
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
				     JSON_REAL_PRECISION(6));
	resp->code = 200;
	resp->content_type = "application/json";
	strbuf_addstr(&resp->body, text);
	free(text);
	json_decref(o);
	return 0;
}
