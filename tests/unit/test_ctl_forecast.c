// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the start-time forecast (ctl_forecast.h): a table of exact
 * cases (FIFO, quota, topology, a running workload of unknown end,
 * priorities), each also checked against what the controller then does,
 * and a randomized check that with exact runtimes and nothing arriving
 * the forecast is what the real controller does, workload by workload,
 * when a driver runs it forward. The live controller is never changed by
 * a forecast.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdbool.h>

#include "base/rng.h"
#include "ctl/ctl.h"
#include "ctl/ctl_forecast.h"
#include "test_sched_fixture.h"
#include "testutil.h"

#include "base/banned.h"

#define S     ((int64_t)1000000)
#define MAXWL 32
#define UNK   (-1) /* expected: pending, estimate unknown */
#define RUNS  (-2) /* expected: admitted at the start, not pending */

/* The driver's view: when each workload was admitted first after the
 * start, and when the running ones end. */
struct world {
	const struct cluster *c;
	struct ctl *x;
	int64_t dur[MAXWL]; /* true runtime; 0: never ends */
	int64_t end[MAXWL]; /* INT64_MAX: not running */
	int64_t first[MAXWL];
	uint32_t news[MAXWL * 4];
	size_t nnews;
	uint32_t going[MAXWL * 4];
	size_t ngoing;
	bool hold; /* report released pods only when told */
	int64_t now;
};

static void on_event(void *ctx, const struct ctl_event *e)
{
	struct world *w = ctx;

	if (e->kind == CTL_EV_ADMITTED) {
		assert_true(w->nnews < ARRAY_SIZE(w->news));
		w->news[w->nnews++] = e->wl;
	} else if (e->kind == CTL_EV_PREEMPTED || e->kind == CTL_EV_EVICTED ||
		   e->kind == CTL_EV_FINISHED) {
		w->end[e->wl] = INT64_MAX;
	}
}

/* With wait_victims: a preempted workload's pods are gone when the world
 * says so (ctl_released()), here at the next settle. */
static void on_release(void *ctx, uint32_t wl)
{
	struct world *w = ctx;

	w->going[w->ngoing++] = wl;
}

static const struct ctl_backend_ops world_ops = { .release = on_release,
						  .event = on_event };

static uint32_t pods_of(const struct cluster *c, uint32_t wl)
{
	const struct workload *w = &c->workloads.items[wl];
	uint32_t n = 0;

	for (size_t p = 0; p < w->npodsets; p++)
		n += (uint32_t)w->podsets[p].count;
	return n;
}

/* Cycles at now; what they admit runs (bound at once, Ready at once). */
static void settle(struct world *w, int64_t now)
{
	w->now = now;
	ctl_run(w->x, now);
	while (w->nnews || (w->ngoing && !w->hold)) {
		if (!w->hold && w->ngoing) {
			uint32_t wl = w->going[--w->ngoing];

			if (ctl_handle(w->x, wl) &&
			    sched_wl_state(ctl_sched(w->x), wl) !=
				    SCHED_WL_ADMITTED)
				assert_int_equal(
					ctl_released(w->x, ctl_handle(w->x, wl),
						     now),
					0);
			ctl_run(w->x, now);
			continue;
		}
		uint32_t wl = w->news[--w->nnews];
		uint64_t h = ctl_handle(w->x, wl);

		if (sched_wl_state(ctl_sched(w->x), wl) != SCHED_WL_ADMITTED)
			continue;
		if (w->first[wl] < 0)
			w->first[wl] = now;
		w->end[wl] = w->dur[wl] ? now + w->dur[wl] : INT64_MAX;
		for (uint32_t p = 0; p < pods_of(w->c, wl); p++)
			assert_int_equal(
				ctl_pod_event(w->x, h, p, CTL_POD_READY, now),
				0);
		ctl_run(w->x, now);
	}
}

/* Drive the controller forward until until_us: every running workload
 * ends at its end, nothing arrives. */
static void drive(struct world *w, int64_t until_us)
{
	int64_t now = w->now;

	for (int step = 0; step < 10000; step++) {
		int64_t t = INT64_MAX;

		for (uint32_t i = 0; i < w->c->workloads.len; i++)
			if (w->end[i] < t)
				t = w->end[i];
		if (ctl_next_wakeup_us(w->x, now) < t)
			t = ctl_next_wakeup_us(w->x, now);
		if (t == INT64_MAX || t > until_us)
			return;
		now = t > now ? t : now;
		for (uint32_t i = 0; i < w->c->workloads.len; i++) {
			if (w->end[i] == t)
				assert_int_equal(ctl_finish(w->x,
							    ctl_handle(w->x, i),
							    t),
						 0);
		}
		settle(w, now);
	}
	fail_msg("the world does not settle");
}

/* ---- the table ---- */

struct fwl {
	const char *name;
	int prio, pods, gpus;
	bool rack;	/* topologyRequest required: rack */
	int dur;	/* seconds; 0: unknown */
	const char *on; /* running from the start on these hosts ("n0,n2"),
			   NULL: submitted at 0 */
	int want;	/* seconds, UNK or RUNS */
	const char *after;
};

struct fcase {
	const char *name;
	int racks, hosts, gpus; /* hosts per rack, GPUs per host */
	int quota;
	int64_t at; /* the forecast's time, seconds */
	struct fwl wl[8];
};

static const struct fcase cases[] = {
	{ "fifo",
	  1,
	  4,
	  1,
	  4,
	  10,
	  { { "a", 0, 4, 1, false, 100, NULL, RUNS, NULL },
	    { "b", 0, 4, 1, false, 50, NULL, 100, "a" },
	    { "c", 0, 2, 1, false, 10, NULL, 150, "b" },
	    { "d", 0, 2, 1, false, 10, NULL, 150, "b" } } },
	{ "quota",
	  1,
	  4,
	  1,
	  2,
	  0,
	  { { "a", 0, 2, 1, false, 30, NULL, RUNS, NULL },
	    { "b", 0, 1, 1, false, 20, NULL, 30, "a" },
	    { "c", 0, 1, 1, false, 5, NULL, 30, "a" },
	    { "d", 0, 2, 1, false, 5, NULL, 50, "b" } } },
	/* two GPUs are free, one per rack: the rack-bound gang waits */
	{ "topology",
	  2,
	  2,
	  1,
	  100,
	  0,
	  { { "a", 0, 1, 1, false, 40, "n0", RUNS, NULL },
	    { "b", 0, 1, 1, false, 100, "n2", RUNS, NULL },
	    { "c", 0, 2, 1, true, 10, NULL, 40, "a" } } },
	/* nothing is known about when a ends: b and what follows it wait
	 * for an end nobody knows */
	{ "unknown end",
	  1,
	  2,
	  1,
	  2,
	  0,
	  { { "a", 0, 2, 1, false, 0, NULL, RUNS, NULL },
	    { "b", 0, 1, 1, false, 20, NULL, UNK, NULL } } },
	{ "unknown in between",
	  1,
	  2,
	  1,
	  2,
	  0,
	  { { "a", 0, 2, 1, false, 100, NULL, RUNS, NULL },
	    { "b", 0, 2, 1, false, 0, NULL, 100, "a" },
	    { "c", 0, 1, 1, false, 10, NULL, UNK, NULL } } },
	{ "priorities",
	  1,
	  2,
	  1,
	  2,
	  0,
	  { { "a", 0, 2, 1, false, 100, "n0,n1", RUNS, NULL },
	    { "b", 0, 2, 1, false, 10, NULL, 120, "c" },
	    { "c", 10, 2, 1, false, 20, NULL, 100, "a" } } },
};

static void nodes_yaml(struct strbuf *sb, int racks, int hosts, int gpus)
{
	for (int r = 0; r < racks; r++) {
		for (int h = 0; h < hosts; h++) {
			int i = r * hosts + h;

			strbuf_addf(sb,
				    "---\napiVersion: v1\nkind: Node\n"
				    "metadata: {name: n%d, labels: {pool: g, "
				    "rack: r%d, kubernetes.io/hostname: n%d}}\n"
				    "status: {allocatable: {cpu: \"64\", pods: "
				    "\"10\", nvidia.com/gpu: \"%d\"}}\n",
				    i, r, i, gpus);
		}
	}
}

static void queues_yaml(struct strbuf *sb, int quota, const char *preempt)
{
	strbuf_addf(sb,
		    "---\n" K2 "kind: Topology\nmetadata: {name: t}\n"
		    "spec: {levels: [{nodeLabel: rack}, "
		    "{nodeLabel: kubernetes.io/hostname}]}\n"
		    "---\n" K2 "kind: ResourceFlavor\nmetadata: {name: f}\n"
		    "spec: {nodeLabels: {pool: g}, topologyName: t}\n"
		    "---\n" K2 "kind: ClusterQueue\nmetadata: {name: q}\n"
		    "spec:\n  preemption: {withinClusterQueue: %s}\n"
		    "  resourceGroups:\n  - coveredResources: "
		    "[cpu, nvidia.com/gpu]\n    flavors: [{name: f, "
		    "resources: [{name: cpu, nominalQuota: 10000}, "
		    "{name: nvidia.com/gpu, nominalQuota: %d}]}]\n",
		    preempt, quota);
	fx_lq(sb, "lq", "q");
}

static void wl_yaml(struct strbuf *sb, const struct fwl *w)
{
	char hosts[128];
	const char *p;

	fx_wl(sb, w->name, "lq", w->prio, w->pods, "1", w->gpus,
	      w->rack ? "    topologyRequest: {required: rack}\n" : NULL);
	if (!w->on)
		return;
	strbuf_addf(sb,
		    "status:\n  admission:\n    clusterQueue: q\n"
		    "    podSetAssignments:\n    - name: main\n"
		    "      count: %d\n"
		    "      flavors: {cpu: f, nvidia.com/gpu: f}\n"
		    "      topologyAssignment: {levels: "
		    "[kubernetes.io/hostname], domains: [",
		    w->pods);
	snprintf(hosts, sizeof(hosts), "%s", w->on);
	p = hosts;
	for (int i = 0; *p; i++) {
		const char *e = strchr(p, ',');
		int n = e ? (int)(e - p) : (int)strlen(p);

		strbuf_addf(sb, "%s{values: [%.*s], count: 1}", i ? ", " : "",
			    n, p);
		p += n + (e != NULL);
	}
	strbuf_addstr(sb, "]}\n");
}

static void world_init_with(struct world *w, struct cluster *c,
			    const struct ctl_options *o)
{
	memset(w, 0, sizeof(*w));
	w->c = c;
	for (size_t i = 0; i < MAXWL; i++) {
		w->end[i] = INT64_MAX;
		w->first[i] = -1;
	}
	w->x = ctl_new(c, o, &world_ops, w);
}

static void world_init(struct world *w, struct cluster *c)
{
	world_init_with(w, c, NULL);
}

static void check_case(const struct fcase *k)
{
	struct ctl_forecast *f, *again;
	uint64_t gen;
	struct cluster c;
	struct strbuf sb;
	struct world w;
	size_t n = 0;

	strbuf_init(&sb);
	nodes_yaml(&sb, k->racks, k->hosts, k->gpus);
	queues_yaml(&sb, k->quota, "Never");
	while (n < ARRAY_SIZE(k->wl) && k->wl[n].name)
		wl_yaml(&sb, &k->wl[n++]);
	fx_load(&c, sb.buf);
	world_init(&w, &c);
	for (size_t i = 0; i < n; i++) {
		uint32_t id = fx_id(&c, k->wl[i].name);
		uint64_t h = ctl_handle(w.x, id);

		w.dur[id] = k->wl[i].dur * S;
		assert_int_equal(ctl_set_estimate(w.x, h, w.dur[id]), 0);
		if (!k->wl[i].on) {
			assert_int_equal(ctl_submit(w.x, h, true, 0), 0);
			continue;
		}
		assert_int_equal(ctl_adopt(w.x, h, 0, NULL), 0);
		w.first[id] = 0;
		w.end[id] = w.dur[id] ? w.dur[id] : INT64_MAX;
		for (uint32_t p = 0; p < pods_of(&c, id); p++)
			assert_int_equal(
				ctl_pod_event(w.x, h, p, CTL_POD_READY, 0), 0);
	}
	settle(&w, 0);
	drive(&w, k->at * S);
	ctl_run(w.x, k->at * S);
	w.now = k->at * S;

	gen = ctl_generation(w.x);
	f = ctl_forecast(w.x, NULL);
	assert_int_equal(f->now_us, k->at * S);
	assert_int_equal(f->n, c.workloads.len);
	for (size_t i = 0; i < n; i++) {
		const struct fwl *e = &k->wl[i];
		const struct ctl_forecast_wl *r = &f->wl[fx_id(&c, e->name)];

		if (e->want == RUNS) {
			if (r->pending) {
				struct strbuf m;

				strbuf_init(&m);
				sched_wl_pending(ctl_sched(w.x),
						 fx_id(&c, e->name), &m);
				fail_msg("%s: %s: pending: %s", k->name,
					 e->name, m.buf);
			}
			continue;
		}
		if (!r->pending ||
		    (e->want == UNK) != (r->at_us == CTL_FORECAST_UNKNOWN))
			fail_msg("%s: %s: pending %d at %" PRId64, k->name,
				 e->name, r->pending, r->at_us);
		if (e->want == UNK)
			continue;
		if (r->at_us != e->want * S)
			fail_msg("%s: %s: at %" PRId64 " s, want %d s", k->name,
				 e->name, r->at_us / S, e->want);
		assert_true(r->after != CTL_FORECAST_NONE);
		assert_string_equal(c.workloads.items[r->after].name, e->after);
	}
	/* the cache answers the same until the controller changes */
	again = NULL;
	assert_ptr_equal(ctl_forecast_cached(&again, w.x, NULL),
			 ctl_forecast_cached(&again, w.x, NULL));
	for (size_t i = 0; i < f->n; i++)
		assert_int_equal(again->wl[i].at_us, f->wl[i].at_us);
	ctl_forecast_free(again);

	/* the live controller is as it was */
	assert_int_equal(ctl_generation(w.x), gen);
	assert_true(ctl_check(w.x, NULL));

	/* and the outcome is the estimate */
	drive(&w, INT64_MAX - 1);
	for (size_t i = 0; i < n; i++) {
		uint32_t id = fx_id(&c, k->wl[i].name);

		if (!f->wl[id].pending)
			continue;
		if (f->wl[id].at_us == CTL_FORECAST_UNKNOWN) {
			assert_int_equal(w.first[id], -1);
			continue;
		}
		assert_int_equal(w.first[id], f->wl[id].at_us);
	}
	ctl_forecast_free(f);
	ctl_free(w.x);
	cluster_release(&c);
	strbuf_release(&sb);
}

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_case(&cases[i]);
}

/*
 * Random clusters and queues, exact runtimes, nothing arriving after the
 * forecast: every workload pending then is admitted when the forecast
 * said, and one it could not estimate is never admitted. Priorities and
 * preemption on or off; half of the seeds with wait_victims.
 */
static void random_case(uint64_t seed, size_t *known, size_t *unknown)
{
	static const char *const preempt[] = { "Never", "LowerPriority" };
	struct ctl_forecast *f;
	struct cluster c;
	struct strbuf sb;
	struct world w;
	struct rng r;
	int n, racks, hosts, gpus, quota;
	int64_t at;

	rng_seed(&r, seed);
	racks = 1 + (int)rng_below(&r, 3);
	hosts = 1 + (int)rng_below(&r, 4);
	gpus = 1 + (int)rng_below(&r, 4);
	n = 2 + (int)rng_below(&r, 14);
	strbuf_init(&sb);
	nodes_yaml(&sb, racks, hosts, gpus);
	quota = racks * hosts * gpus - (int)rng_below(&r, 3);
	queues_yaml(&sb, quota > 1 ? quota : 1, preempt[rng_below(&r, 2)]);
	for (int i = 0; i < n; i++) {
		struct fwl e = { 0 };
		char name[16];

		snprintf(name, sizeof(name), "w%d", i);
		e.name = name;
		e.prio = (int)rng_below(&r, 3);
		e.pods = 1 + (int)rng_below(&r, (uint64_t)hosts);
		e.gpus = 1 + (int)rng_below(&r, (uint64_t)gpus);
		e.rack = rng_below(&r, 2);
		wl_yaml(&sb, &e);
	}
	fx_load(&c, sb.buf);
	/* half as live backends run: victims hold their quota until their
	 * pods are gone (at once here) */
	world_init_with(&w, &c,
			&(struct ctl_options){ .wait_victims = seed & 1 });
	for (int i = 0; i < n; i++) {
		uint64_t h = ctl_handle(w.x, (uint32_t)i);

		/* one in eight has no estimate and never ends */
		w.dur[i] = rng_below(&r, 8)
				   ? (int64_t)(10 + rng_below(&r, 300)) * S
				   : 0;
		assert_int_equal(ctl_set_estimate(w.x, h, w.dur[i]), 0);
		assert_int_equal(ctl_submit(w.x, h, true, 0), 0);
	}
	settle(&w, 0);
	at = (int64_t)rng_below(&r, 200) * S;
	drive(&w, at);
	ctl_run(w.x, at);
	w.now = at;
	f = ctl_forecast(w.x, NULL);
	for (int i = 0; i < n; i++)
		w.first[i] = -1; /* admissions from the forecast on */
	drive(&w, INT64_MAX - 1);
	for (int i = 0; i < n; i++) {
		const struct ctl_forecast_wl *e = &f->wl[i];

		if (!e->pending)
			continue;
		if (e->at_us == CTL_FORECAST_UNKNOWN) {
			(*unknown)++;
			if (w.first[i] != -1)
				fail_msg("seed %" PRIu64 ": w%d: admitted at "
					 "%" PRId64 ", forecast unknown",
					 seed, i, w.first[i]);
			continue;
		}
		(*known)++;
		if (w.first[i] != e->at_us)
			fail_msg("seed %" PRIu64 ": w%d: admitted at %" PRId64
				 ", forecast %" PRId64,
				 seed, i, w.first[i], e->at_us);
	}
	ctl_forecast_free(f);
	ctl_free(w.x);
	cluster_release(&c);
	strbuf_release(&sb);
}

static void test_random(void **state)
{
	size_t known = 0, unknown = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 200; seed++)
		random_case(seed, &known, &unknown);
	/* both kinds were checked, many times */
	print_message("%zu estimates, %zu unknown\n", known, unknown);
	assert_true(known > 200);
	assert_true(unknown > 20);
}

/* The horizon and the step cap bound the work: what lies beyond is
 * unknown, and the forecast says it stopped. */
static void test_bounds(void **state)
{
	struct ctl_forecast_options o = { .max_steps = 1 };
	struct ctl_forecast *f;
	struct cluster c;
	struct strbuf sb;
	struct world w;

	(void)state;
	strbuf_init(&sb);
	nodes_yaml(&sb, 1, 1, 1);
	queues_yaml(&sb, 1, "Never");
	for (int i = 0; i < 3; i++) {
		struct fwl e = { .name = i == 0	  ? "a"
					 : i == 1 ? "b"
						  : "c",
				 .pods = 1,
				 .gpus = 1 };

		wl_yaml(&sb, &e);
	}
	fx_load(&c, sb.buf);
	world_init(&w, &c);
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(
			ctl_set_estimate(w.x, ctl_handle(w.x, i), 3600 * S), 0);
		assert_int_equal(ctl_submit(w.x, ctl_handle(w.x, i), true, 0),
				 0);
	}
	settle(&w, 0);
	f = ctl_forecast(w.x, &o);
	assert_true(f->truncated);
	assert_int_equal(f->steps, 1);
	assert_int_equal(f->valid_until_us, 3600 * S);
	assert_int_equal(f->wl[fx_id(&c, "b")].at_us, 3600 * S);
	assert_int_equal(f->wl[fx_id(&c, "c")].at_us, CTL_FORECAST_UNKNOWN);
	ctl_forecast_free(f);
	o = (struct ctl_forecast_options){ .horizon_us = 2 * 3600 * S - 1 };
	f = ctl_forecast(w.x, &o);
	assert_true(f->truncated);
	assert_int_equal(f->wl[fx_id(&c, "c")].at_us, CTL_FORECAST_UNKNOWN);
	ctl_forecast_free(f);
	f = ctl_forecast(w.x, NULL);
	assert_false(f->truncated);
	assert_int_equal(f->wl[fx_id(&c, "c")].at_us, 2 * 3600 * S);
	ctl_forecast_free(f);
	ctl_free(w.x);
	cluster_release(&c);
	strbuf_release(&sb);
}

/* Live operation: a preempted workload holds its quota until its pods are
 * gone. A forecast taken meanwhile counts them gone: the preemptor is
 * admitted now, the victim when the preemptor ends. */
static void test_held_victim(void **state)
{
	struct ctl_options o = { .wait_victims = true };
	struct ctl_forecast *f;
	struct cluster c;
	struct strbuf sb;
	struct world w;
	uint32_t a, b;

	(void)state;
	strbuf_init(&sb);
	nodes_yaml(&sb, 1, 2, 1);
	queues_yaml(&sb, 2, "LowerPriority");
	wl_yaml(&sb, &(struct fwl){ .name = "a", .pods = 2, .gpus = 1 });
	wl_yaml(&sb,
		&(struct fwl){ .name = "b", .prio = 10, .pods = 2, .gpus = 1 });
	fx_load(&c, sb.buf);
	world_init_with(&w, &c, &o);
	a = fx_id(&c, "a");
	b = fx_id(&c, "b");
	w.dur[a] = 100 * S;
	w.dur[b] = 50 * S;
	for (uint32_t i = 0; i < 2; i++)
		assert_int_equal(
			ctl_set_estimate(w.x, ctl_handle(w.x, i), w.dur[i]), 0);
	assert_int_equal(ctl_submit(w.x, ctl_handle(w.x, a), true, 0), 0);
	settle(&w, 0);
	w.hold = true; /* a's pods take their time to go */
	assert_int_equal(ctl_submit(w.x, ctl_handle(w.x, b), true, 10 * S), 0);
	settle(&w, 10 * S);
	assert_int_equal(w.ngoing, 1);
	assert_int_equal(sched_wl_state(ctl_sched(w.x), b), SCHED_WL_PENDING);
	f = ctl_forecast(w.x, NULL);
	assert_true(f->wl[b].pending);
	assert_int_equal(f->wl[b].at_us, 10 * S);
	assert_true(f->wl[a].pending);
	assert_int_equal(f->wl[a].at_us, 60 * S);
	assert_int_equal(f->wl[a].after, b);
	/* and so it goes */
	w.first[a] = w.first[b] = -1;
	w.hold = false;
	settle(&w, 10 * S);
	drive(&w, INT64_MAX - 1);
	assert_int_equal(w.first[b], 10 * S);
	assert_int_equal(w.first[a], 60 * S);
	ctl_forecast_free(f);
	ctl_free(w.x);
	cluster_release(&c);
	strbuf_release(&sb);
}

/* The cache is made again when the controller changes or its time passes
 * the first end the forecast counted on. */
static void test_cache(void **state)
{
	struct ctl_forecast *cache = NULL;
	const struct ctl_forecast *f1, *f2;
	struct cluster c;
	struct strbuf sb;
	struct world w;
	uint64_t g;

	(void)state;
	strbuf_init(&sb);
	nodes_yaml(&sb, 1, 1, 1);
	queues_yaml(&sb, 1, "Never");
	for (int i = 0; i < 2; i++) {
		struct fwl e = { .name = i ? "b" : "a", .pods = 1, .gpus = 1 };

		wl_yaml(&sb, &e);
	}
	fx_load(&c, sb.buf);
	world_init(&w, &c);
	for (uint32_t i = 0; i < 2; i++) {
		w.dur[i] = 60 * S;
		assert_int_equal(
			ctl_set_estimate(w.x, ctl_handle(w.x, i), w.dur[i]), 0);
		assert_int_equal(ctl_submit(w.x, ctl_handle(w.x, i), true, 0),
				 0);
	}
	settle(&w, 0);
	g = ctl_generation(w.x);
	f1 = ctl_forecast_cached(&cache, w.x, NULL);
	assert_int_equal(ctl_generation(w.x), g); /* it changed nothing */
	assert_int_equal(f1->wl[1].at_us, 60 * S);
	ctl_run(w.x, 30 * S); /* time alone: the same */
	assert_ptr_equal(ctl_forecast_cached(&cache, w.x, NULL), f1);
	/* a's runtime changes: made again */
	assert_int_equal(ctl_set_estimate(w.x, ctl_handle(w.x, 0), 90 * S), 0);
	assert_int_not_equal(ctl_generation(w.x), g);
	f2 = ctl_forecast_cached(&cache, w.x, NULL);
	assert_int_equal(f2->wl[1].at_us, 90 * S);
	/* a overruns: past its expected end it is expected to end now */
	ctl_run(w.x, 100 * S);
	f2 = ctl_forecast_cached(&cache, w.x, NULL);
	assert_int_equal(f2->wl[1].at_us, 100 * S);
	ctl_forecast_free(cache);
	ctl_free(w.x);
	cluster_release(&c);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_held_victim),
		cmocka_unit_test(test_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
