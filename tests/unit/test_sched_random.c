// SPDX-License-Identifier: Apache-2.0
/*
 * Randomized invariants of the whole scheduler: many generated clusters
 * (topology, a TAS and a plain flavor, queues in cohorts with random
 * quotas, limits, strategies and preemption policies, workloads of mixed
 * shapes, priorities, minCount and topology requests) driven through
 * submissions, cycles, finishes and evictions. After every cycle: usage
 * within nominal plus borrowable quota everywhere in the cohort tree, the
 * tree's aggregates equal to a recomputation, quota usage and node usage
 * equal to the sum of the admissions (so no capacity counted twice), no
 * node over capacity, every admission whole (all pod sets, at least
 * minCount), no preemption of a higher priority for a lower one, and a
 * pending workload's reason and message the same while its
 * sched_wl_pending_key() is. The same seed gives the same decisions.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/rng.h"
#include "sched/quota.h"
#include "test_sched_fixture.h"
#include "testutil.h"

#define SCENARIOS 150

static size_t stats[2]; /* admissions and preemptions seen */

static const char *const within[] = { "Never", "LowerPriority",
				      "LowerOrNewerEqualPriority" };

static void gen_nodes(struct rng *r, struct strbuf *sb)
{
	unsigned racks = 2 + (unsigned)rng_below(r, 2);
	unsigned hosts = 2 + (unsigned)rng_below(r, 2);
	unsigned gpu = rng_below(r, 2) ? 8 : 4;

	strbuf_addstr(sb, "---\n" K2 "kind: Topology\nmetadata: {name: t}\n"
			  "spec: {levels: [{nodeLabel: rack}, "
			  "{nodeLabel: kubernetes.io/hostname}]}\n");
	for (unsigned k = 0; k < racks; k++) {
		for (unsigned h = 0; h < hosts; h++)
			strbuf_addf(sb,
				    "---\napiVersion: v1\nkind: Node\n"
				    "metadata: {name: n%u-%u, labels: {pool: g,"
				    " rack: r%u, kubernetes.io/hostname: "
				    "n%u-%u}}\nstatus: {allocatable: {cpu: "
				    "\"32\", pods: \"20\", nvidia.com/gpu: "
				    "\"%u\"}}\n",
				    k, h, k, k, h, gpu);
	}
	strbuf_addstr(sb, "---\n" K2 "kind: ResourceFlavor\nmetadata: "
			  "{name: tas}\nspec: {nodeLabels: {pool: g}, "
			  "topologyName: t}\n");
	fx_flavor(sb, "plain");
}

static void gen_quota(struct rng *r, struct strbuf *sb, const char *res,
		      unsigned max, bool cohort)
{
	unsigned nominal = (unsigned)rng_below(r, max + 1);

	strbuf_addf(sb, "{name: %s, nominalQuota: %u", res, nominal);
	if (cohort && rng_below(r, 3) == 0)
		strbuf_addf(sb, ", borrowingLimit: %u",
			    (unsigned)rng_below(r, max / 2 + 1));
	if (cohort && rng_below(r, 3) == 0)
		strbuf_addf(sb, ", lendingLimit: %u",
			    (unsigned)rng_below(r, nominal + 1));
	strbuf_addstr(sb, "}");
}

static void gen_cq(struct rng *r, struct strbuf *sb, unsigned i)
{
	unsigned co = (unsigned)rng_below(r, 3); /* 2: none */
	bool tas_first = rng_below(r, 2);

	strbuf_addf(sb,
		    "---\n" K2 "kind: ClusterQueue\nmetadata: {name: "
		    "q%u}\nspec:\n",
		    i);
	if (co < 2)
		strbuf_addf(sb, "  cohortName: co%u\n", co);
	strbuf_addf(sb, "  queueingStrategy: %s\n",
		    rng_below(r, 3) ? "BestEffortFIFO" : "StrictFIFO");
	strbuf_addf(sb,
		    "  preemption:\n    withinClusterQueue: %s\n"
		    "    reclaimWithinCohort: %s\n",
		    within[rng_below(r, 3)],
		    rng_below(r, 2) ? "LowerPriority" : "Never");
	if (rng_below(r, 4) == 0)
		strbuf_addstr(sb, "    borrowWithinCohort: {policy: "
				  "LowerPriority, maxPriorityThreshold: 2}\n");
	strbuf_addstr(sb, "  resourceGroups:\n  - coveredResources: [cpu, "
			  "nvidia.com/gpu]\n    flavors:\n");
	for (int k = 0; k < 2; k++) {
		bool tas = (k == 0) == tas_first;

		if (!tas && rng_below(r, 3) == 0)
			continue;
		strbuf_addf(sb, "    - name: %s\n      resources: [",
			    tas ? "tas" : "plain");
		gen_quota(r, sb, "cpu", 64, co < 2);
		strbuf_addstr(sb, ", ");
		gen_quota(r, sb, "nvidia.com/gpu", 24, co < 2);
		strbuf_addstr(sb, "]\n");
	}
}

static void gen_wl(struct rng *r, struct strbuf *sb, unsigned i, unsigned ncq)
{
	static const char *const topo[] = {
		"", "    topologyRequest: {required: rack}\n",
		"    topologyRequest: {preferred: rack}\n",
		"    topologyRequest: {required: kubernetes.io/hostname}\n"
	};
	char name[16], lq[16], cpu[8], extra[128];
	unsigned count = 1 + (unsigned)rng_below(r, 4);

	snprintf(name, sizeof(name), "w%u", i);
	snprintf(lq, sizeof(lq), "lq%u", (unsigned)rng_below(r, ncq));
	snprintf(cpu, sizeof(cpu), "%u", 1 + (unsigned)rng_below(r, 8));
	snprintf(extra, sizeof(extra), "%s%s", topo[rng_below(r, 4)],
		 rng_below(r, 4) == 0 ? "    minCount: 1\n" : "");
	fx_wl(sb, name, lq, (int)rng_below(r, 4), (int)count, cpu,
	      (int)rng_below(r, 5), extra);
}

/* Quota and node usage equal the sum of the admissions. */
static void check_usage(const struct sched *s, const struct cluster *c)
{
	const struct quota *q = sched_quota(s);
	int64_t *use = calloc(q->ncq * q->nfr + 1, sizeof(int64_t));
	const struct topo *t = sched_topo(s, 0);
	int64_t *node =
		calloc((size_t)t->nnodes * t->nres + 1, sizeof(int64_t));
	struct strbuf why;

	for (uint32_t i = 0; i < c->workloads.len; i++) {
		const struct sched_admission *a = sched_wl_admission(s, i);
		const struct workload *w = &c->workloads.items[i];

		if (sched_wl_state(s, i) != SCHED_WL_ADMITTED)
			continue;
		assert_non_null(a);
		assert_int_equal(a->npodsets, w->npodsets);
		for (size_t k = 0; k < a->npodsets; k++) {
			const struct sched_podset_admission *p = &a->ps[k];

			assert_true(p->count >= w->podsets[k].min_count);
			assert_true(p->count <= w->podsets[k].count);
			for (int r = 0; r < RESOURCE_MAX; r++) {
				if (p->flavor[r] >= 0)
					use[a->cq * q->nfr +
					    QUOTA_FR(p->flavor[r], r)] +=
						w->podsets[k].requests.v[r] *
						p->count;
			}
			if (p->tas_flavor < 0)
				continue;
			assert_int_equal(p->tas_flavor, 0);
			for (int32_t j = 0; j < p->count; j++)
				for (int r = 0; r < t->nres; r++)
					node[p->nodes[j] * t->nres + r] +=
						w->podsets[k].requests.v[r];
		}
	}
	for (size_t n = 0; n < q->ncq; n++)
		for (size_t fr = 0; fr < q->nfr; fr++) {
			assert_int_equal(q->nodes[n].usage[fr],
					 use[n * q->nfr + fr]);
			if (q->nodes[n].listed[fr])
				assert_true(quota_available(q, (int32_t)n,
							    fr) >= 0);
			assert_true(q->nodes[n].usage[fr] <=
				    quota_potential(q, (int32_t)n, fr));
		}
	for (size_t n = 0; n < q->nnodes; n++)
		for (size_t fr = 0; fr < q->nfr; fr++)
			if (q->nodes[n].parent < 0)
				assert_true(q->nodes[n].usage[fr] <=
					    q->nodes[n].subtree[fr]);
	for (uint32_t n = 0; n < t->nnodes; n++)
		for (int r = 0; r < t->nres; r++) {
			size_t k = (size_t)n * t->nres + r;

			assert_int_equal(t->node_alloc[k] - t->node_free[k],
					 node[k]);
			assert_true(t->node_free[k] >= 0);
		}
	strbuf_init(&why);
	if (!quota_check(q, &why) || !topo_check(t, &why))
		fail_msg("aggregates: %s", why.buf);
	strbuf_release(&why);
	free(use);
	free(node);
}

static void check_preemptions(const struct sched *s, const struct cluster *c,
			      const struct sched_decisions *d)
{
	vec_foreach (&d->items, x) {
		int32_t pv = sched_wl_priority(s, x->wl);
		int32_t pp = sched_wl_priority(s, x->by);
		const struct cluster_queue *cq =
			&c->cluster_queues.items[sched_wl_cq(s, x->by)];

		if (x->kind != SCHED_DECIDE_PREEMPT)
			continue;
		assert_true(pv <= pp);
		if (pv == pp)
			assert_true(
				x->reason == SCHED_PREEMPT_IN_CLUSTER_QUEUE &&
				cq->within_cluster_queue ==
					PREEMPT_LOWER_OR_NEWER_EQUAL_PRIORITY);
	}
}

/* Run one scenario; its decisions, in order, into trace. */
/* What sched_wl_pending() said of each workload, under which key. */
struct pend_seen {
	uint64_t key;
	enum sched_pend code;
	char *msg;
};

/* A pending workload whose key stayed has the same code and message. */
static void check_pending_keys(const struct sched *s, struct pend_seen *seen,
			       unsigned nwl)
{
	struct strbuf msg;

	strbuf_init(&msg);
	for (uint32_t id = 0; id < nwl; id++) {
		uint64_t key;
		enum sched_pend code;

		if (sched_wl_state(s, id) != SCHED_WL_PENDING)
			continue;
		key = sched_wl_pending_key(s, id);
		strbuf_reset(&msg);
		code = sched_wl_pending(s, id, &msg);
		strbuf_addstr(&msg, "");
		if (seen[id].key == key) {
			assert_int_equal(seen[id].code, code);
			assert_string_equal(seen[id].msg, msg.buf);
		}
		seen[id].key = key;
		seen[id].code = code;
		free(seen[id].msg);
		seen[id].msg = xstrdup(msg.buf);
	}
	strbuf_release(&msg);
}

static void scenario(uint64_t seed, struct strbuf *trace)
{
	struct pend_seen *seen;
	struct rng r;
	struct strbuf sb;
	struct cluster c;
	struct sched *s;
	struct sched_decisions d;
	unsigned ncq, nwl;
	struct sched_options o = { 0 };

	rng_seed(&r, seed);
	strbuf_init(&sb);
	gen_nodes(&r, &sb);
	ncq = 2 + (unsigned)rng_below(&r, 3);
	for (unsigned i = 0; i < ncq; i++) {
		char n[16], q[16];

		gen_cq(&r, &sb, i);
		snprintf(n, sizeof(n), "lq%u", i);
		snprintf(q, sizeof(q), "q%u", i);
		fx_lq(&sb, n, q);
	}
	nwl = 10 + (unsigned)rng_below(&r, 30);
	for (unsigned i = 0; i < nwl; i++)
		gen_wl(&r, &sb, i, ncq);
	o.fair_sharing = rng_below(&r, 3) == 0;
	fx_load(&c, sb.buf);
	s = sched_new(&c, &o);
	seen = xcalloc(nwl, sizeof(*seen));
	sched_decisions_init(&d);
	for (int64_t now = 1; now < 40; now++) {
		uint32_t id = (uint32_t)rng_below(&r, nwl);
		enum sched_wl_state st = sched_wl_state(s, id);

		if (st == SCHED_WL_NEW || st == SCHED_WL_FINISHED)
			sched_submit(s, id, now);
		else if (st == SCHED_WL_ADMITTED && rng_below(&r, 2))
			sched_finish(s, id, now);
		else if (st == SCHED_WL_ADMITTED)
			sched_evict(s, id, "PodsReadyTimeout", now);
		check_pending_keys(s, seen, nwl);
		if (rng_below(&r, 2))
			continue;
		d.items.len = 0;
		sched_cycle(s, now, &d);
		check_pending_keys(s, seen, nwl);
		check_usage(s, &c);
		check_preemptions(s, &c, &d);
		vec_foreach (&d.items, x) {
			strbuf_addf(trace, "%d:%u:%u ", (int)x->kind, x->wl,
				    x->by);
			stats[x->kind]++;
		}
	}
	sched_decisions_release(&d);
	for (unsigned i = 0; i < nwl; i++)
		free(seen[i].msg);
	free(seen);
	sched_free(s);
	cluster_release(&c);
	strbuf_release(&sb);
}

static void test_invariants(void **state)
{
	struct strbuf a, b;
	size_t decisions = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= SCENARIOS; seed++) {
		strbuf_init(&a);
		strbuf_init(&b);
		scenario(seed, &a);
		if (seed % 10 == 0) {
			scenario(seed, &b);
			assert_string_equal(a.buf, b.buf);
		}
		decisions += a.len;
		strbuf_release(&a);
		strbuf_release(&b);
	}
	print_message("%zu admissions, %zu preemptions\n", stats[0], stats[1]);
	assert_true(decisions > 0 && stats[0] > 1000 && stats[1] > 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invariants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
