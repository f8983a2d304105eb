// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the gang lifecycle: each scenario is a script of events on a
 * fake clock against a recording backend, with the calls and decisions
 * each step must produce and the workload's status afterwards. A
 * randomized run checks that binds come whole gang at a time and that the
 * same events always give the same log.
 *
 * The cluster: racks r0 and r1 of three 2-GPU hosts each; workload "a"
 * (2 pods x 2 GPUs, one rack) lands on n0-0 and n0-1, "b" (3 pods) fills
 * r1, so a has one spare host in its rack and b none.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdbool.h>
#include <time.h>

#include "base/rng.h"
#include "gang/gang.h"
#include "sched/sched_int.h"
#include "test_sched_fixture.h"
#include "testutil.h"

#include "base/banned.h"

#define S ((int64_t)1000000)

/* The recording backend. */
struct rec {
	const struct cluster *c;
	struct strbuf log;
	int64_t binds[4]; /* by workload, this step */
};

static void rec_bind(void *ctx, uint32_t wl, uint32_t pod, const char *node)
{
	struct rec *r = ctx;

	strbuf_addf(&r->log, "bind %s/%u %s; ", r->c->workloads.items[wl].name,
		    pod, node ? node : "-");
	r->binds[wl]++;
}

static void rec_release(void *ctx, uint32_t wl)
{
	struct rec *r = ctx;

	strbuf_addf(&r->log, "release %s; ", r->c->workloads.items[wl].name);
}

static const struct gang_ops rec_ops = { rec_bind, rec_release };

/* plain: the flavor has no topology and the workloads ask for none. */
static void gen(struct strbuf *sb, bool plain)
{
	const char *tr = plain ? "" : "    topologyRequest: {required: rack}\n";

	strbuf_addstr(sb, "---\n" K2 "kind: Topology\nmetadata: {name: t}\n"
			  "spec: {levels: [{nodeLabel: rack}, "
			  "{nodeLabel: kubernetes.io/hostname}]}\n");
	for (unsigned k = 0; k < 2; k++)
		for (unsigned h = 0; h < 3; h++)
			strbuf_addf(sb,
				    "---\napiVersion: v1\nkind: Node\n"
				    "metadata: {name: n%u-%u, labels: {pool: "
				    "g, rack: r%u, kubernetes.io/hostname: "
				    "n%u-%u}}\n"
				    "status: {allocatable: {cpu: \"8\", pods: "
				    "\"10\", nvidia.com/gpu: \"2\"}}\n",
				    k, h, k, k, h);
	strbuf_addf(sb,
		    "---\n" K2 "kind: ResourceFlavor\nmetadata: "
		    "{name: f}\nspec: {nodeLabels: {pool: g}%s}\n",
		    plain ? "" : ", topologyName: t");
	strbuf_addstr(sb, "---\n" K2 "kind: ClusterQueue\nmetadata: {name: q}\n"
			  "spec:\n  resourceGroups:\n  - coveredResources: "
			  "[cpu, nvidia.com/gpu]\n    flavors: [{name: f, "
			  "resources: [{name: cpu, nominalQuota: 1000}, "
			  "{name: nvidia.com/gpu, nominalQuota: 1000}]}]\n");
	fx_lq(sb, "lq", "q");
	fx_wl(sb, "a", "lq", 0, 2, "1", 2, tr);
	fx_wl(sb, "b", "lq", 0, 3, "1", 2, tr);
}

struct cfg {
	bool enable;
	int64_t timeout_s, recovery_s;
	bool block;
	int64_t limit; /* backoffLimitCount; 0 here means unlimited */
	int32_t pg_min, pg_timeout_s; /* PodGroup of "a"; 0: none */
	int64_t ckpt_s;
	bool jitter; /* seed 7 */
	bool plain;  /* no topology: the admission fixes no node */
};

/*
 * One event. act: A admitted, C created, R ready, F failed, S succeeded,
 * X finished, T tick, N node failed (node), P created and ready for every
 * pod of wl; T and N ignore wl but for the status. log: the backend calls and
 * decisions it must give ("" for none). status: the status of wl afterwards
 * (NULL: not checked).
 */
struct step {
	char act;
	const char *wl;
	int pod;
	int64_t t_s;
	const char *node;
	const char *log;
	const char *status;
};

#define MAX_STEPS 12

struct scenario {
	const char *name;
	struct cfg cfg;
	struct step steps[MAX_STEPS];
};

struct fix {
	struct cluster c;
	struct sched *s;
	struct gang *g;
	struct pod_group pg;
	struct rec rec;
};

static void fix_init(struct fix *f, const struct cfg *cfg)
{
	struct wait_for_pods_ready *w =
		&f->c.default_config.wait_for_pods_ready;
	struct gang_options opt = { .checkpoint_interval_us = cfg->ckpt_s * S,
				    .jitter = cfg->jitter,
				    .seed = 7 };
	struct strbuf sb;

	strbuf_init(&sb);
	gen(&sb, cfg->plain);
	fx_load(&f->c, sb.buf);
	strbuf_release(&sb);
	w->enable = cfg->enable;
	w->timeout_us = cfg->timeout_s * S;
	w->recovery_timeout_us = cfg->recovery_s * S;
	w->block_admission = cfg->block;
	w->requeuing.backoff_limit_count = cfg->limit ? cfg->limit : -1;
	f->s = sched_new(&f->c, NULL);
	assert_int_equal(fx_run(f->s, &f->c, NULL), 2);
	memset(&f->rec, 0, sizeof(f->rec));
	f->rec.c = &f->c;
	strbuf_init(&f->rec.log);
	f->g = gang_new(&f->c, f->s, &opt, &rec_ops, &f->rec);
	if (cfg->pg_min) {
		memset(&f->pg, 0, sizeof(f->pg));
		f->pg.name = "a";
		f->pg.min_member = cfg->pg_min;
		f->pg.schedule_timeout_s = cfg->pg_timeout_s;
		gang_set_pod_group(f->g, fx_id(&f->c, "a"), &f->pg);
	}
}

static void fix_release(struct fix *f)
{
	gang_free(f->g);
	sched_free(f->s);
	strbuf_release(&f->rec.log);
	cluster_release(&f->c);
}

static void log_decisions(struct fix *f, const struct gang_decisions *d)
{
	vec_foreach (&d->items, x) {
		strbuf_addf(&f->rec.log, "%s %s %s/%s",
			    gang_decision_kind_name(x->kind),
			    f->c.workloads.items[x->wl].name, x->reason,
			    x->cause ? x->cause : "-");
		if (x->requeue_at_us != INT64_MAX)
			strbuf_addf(&f->rec.log, " @%" PRId64,
				    x->requeue_at_us / S);
		if (x->kind == GANG_REPLACED)
			strbuf_addf(&f->rec.log, " pods=%u", x->pods);
		strbuf_addstr(&f->rec.log, "; ");
	}
}

/* What a test sees of wl. */
static void status(struct fix *f, uint32_t wl, struct strbuf *out)
{
	int64_t next = gang_next_deadline_us(f->g), pod_us, gpu_us;

	gang_lost_work(f->g, wl, &pod_us, &gpu_us);
	strbuf_addf(out, "%s %s block=%d requeues=%" PRId64,
		    gang_state_name(gang_state(f->g, wl)),
		    podgroup_phase_name(gang_phase(f->g, wl)),
		    gang_blocks_admission(f->g), gang_requeues(f->g, wl));
	if (next != INT64_MAX)
		strbuf_addf(out, " next=%" PRId64, next / S);
	if (pod_us)
		strbuf_addf(out, " lost=%" PRId64 "/%" PRId64, pod_us / S,
			    gpu_us / S);
}

/* The test's stand-in for the driver: the node is gone from the index. */
static void kill_node(struct fix *f, const char *name)
{
	struct topo *t = f->s->tas[0].t;
	int64_t n = t ? topo_find_node(t, name) : -1;

	if (!t)
		return;
	assert_true(n >= 0);
	topo_node_set_ready(t, (uint32_t)n, false);
}

static uint32_t pods_of(const struct fix *f, uint32_t wl)
{
	return (uint32_t)f->c.workloads.items[wl].podsets[0].count;
}

/*
 * The driver's part of a replacement, standing in for a scheduler API that
 * does not exist yet: move the usage of every pod that gang_pod_node()
 * places elsewhere than the admission did.
 */
static void apply_moves(struct fix *f, const struct gang_decisions *d)
{
	struct topo *t = f->s->tas[0].t;

	vec_foreach (&d->items, x) {
		const struct sched_admission *adm;
		const struct podset *ps;

		if (x->kind != GANG_REPLACED)
			continue;
		adm = sched_wl_admission(f->s, x->wl);
		ps = &f->c.workloads.items[x->wl].podsets[0];
		for (int32_t k = 0; k < adm->ps[0].count; k++) {
			const char *now =
				gang_pod_node(f->g, x->wl, (uint32_t)k);
			int64_t n = topo_find_node(t, now);

			if (n < 0 || (uint32_t)n == adm->ps[0].nodes[k])
				continue;
			topo_node_add_usage(t, adm->ps[0].nodes[k],
					    &ps->requests, -1);
			topo_node_add_usage(t, (uint32_t)n, &ps->requests, 1);
			adm->ps[0].nodes[k] = (uint32_t)n;
		}
	}
}

static void run_step(struct fix *f, const struct step *st,
		     struct gang_decisions *d)
{
	uint32_t wl = st->wl ? fx_id(&f->c, st->wl) : 0;
	uint32_t pod = (uint32_t)st->pod;
	int64_t now = st->t_s * S;

	switch (st->act) {
	case 'A':
		gang_admitted(f->g, wl, now);
		break;
	case 'C':
		gang_pod_created(f->g, wl, pod, now);
		break;
	case 'R':
		gang_pod_ready(f->g, wl, pod, now);
		break;
	case 'F':
		gang_pod_failed(f->g, wl, pod, now);
		break;
	case 'S':
		gang_pod_succeeded(f->g, wl, pod, now);
		break;
	case 'X':
		gang_finished(f->g, wl, now);
		break;
	case 'P':
		for (uint32_t p = 0; p < pods_of(f, wl); p++) {
			gang_pod_created(f->g, wl, p, now);
			gang_pod_ready(f->g, wl, p, now);
		}
		break;
	case 'T':
		gang_tick(f->g, now, d);
		break;
	case 'N':
		kill_node(f, st->node);
		gang_node_failed(f->g, st->node, now, d);
		apply_moves(f, d);
		break;
	default:
		fail_msg("bad step %c", st->act);
	}
}

static void run_scenario(const struct scenario *sc)
{
	struct fix f;
	struct strbuf sb;

	fix_init(&f, &sc->cfg);
	strbuf_init(&sb);
	for (size_t i = 0; i < MAX_STEPS && sc->steps[i].act; i++) {
		const struct step *st = &sc->steps[i];
		struct gang_decisions d;

		gang_decisions_init(&d);
		strbuf_reset(&f.rec.log);
		run_step(&f, st, &d);
		log_decisions(&f, &d);
		gang_decisions_release(&d);
		if (strcmp(f.rec.log.buf, st->log) != 0)
			fail_msg("%s step %zu: log\n  got  \"%s\"\n  want "
				 "\"%s\"",
				 sc->name, i, f.rec.log.buf, st->log);
		if (!st->status)
			continue;
		strbuf_reset(&sb);
		status(&f, fx_id(&f.c, st->wl ? st->wl : "a"), &sb);
		if (strcmp(sb.buf, st->status) != 0)
			fail_msg("%s step %zu: status\n  got  \"%s\"\n  want "
				 "\"%s\"",
				 sc->name, i, sb.buf, st->status);
	}
	strbuf_release(&sb);
	fix_release(&f);
}

#define BIND_A	   "bind a/0 n0-0; bind a/1 n0-1; "
#define BIND_B	   "bind b/0 n1-0; bind b/1 n1-1; bind b/2 n1-2; "
#define WFPR(t, r) .enable = true, .timeout_s = (t), .recovery_s = (r)

static const struct scenario scenarios[] = {
	{ "all pods bound at admission",
	  { 0 },
	  { { 'A', "a", 0, 0, NULL, BIND_A,
	      "Bound Pending block=0 requeues=0" },
	    { 'C', "a", 0, 1, NULL, "", "Bound Pending block=0 requeues=0" },
	    { 'C', "a", 1, 1, NULL, "", "Bound Scheduling block=0 requeues=0" },
	    { 'R', "a", 0, 2, NULL, "", "Bound Scheduling block=0 requeues=0" },
	    { 'R', "a", 1, 3, NULL, "", "Ready Running block=0 requeues=0" },
	    { 'S', "a", 0, 9, NULL, "", "Ready Running block=0 requeues=0" },
	    { 'S', "a", 1, 9, NULL, "", "Ready Finished block=0 requeues=0" },
	    { 'X', "a", 0, 9, NULL, "", "Idle Finished block=0 requeues=0" },
	    /* a new admission starts a new PodGroup status */
	    { 'A', "a", 0, 10, NULL, BIND_A,
	      "Bound Pending block=0 requeues=0" } } },
	{ "PodGroup: bind all once minMember pods exist",
	  { .pg_min = 2, .pg_timeout_s = 10 },
	  { { 'A', "a", 0, 0, NULL, "",
	      "Waiting Pending block=0 requeues=0 next=10" },
	    { 'C', "a", 0, 1, NULL, "",
	      "Waiting Pending block=0 requeues=0 next=10" },
	    { 'C', "a", 1, 2, NULL, BIND_A,
	      "Bound Scheduling block=0 requeues=0" },
	    { 'T', NULL, 0, 10, NULL, "", NULL } } },
	{ "PodGroup: created before admission binds at once",
	  { .pg_min = 1 },
	  { { 'C', "a", 1, 0, NULL, "", "Idle Scheduling block=0 requeues=0" },
	    { 'A', "a", 0, 1, NULL, BIND_A,
	      "Bound Scheduling block=0 requeues=0" } } },
	{ "PodGroup: schedule timeout releases everything",
	  { .pg_min = 2, .pg_timeout_s = 10 },
	  { { 'A', "a", 0, 0, NULL, "", NULL },
	    { 'C', "a", 0, 1, NULL, "", NULL },
	    { 'T', NULL, 0, 9, NULL, "",
	      "Waiting Pending block=0 requeues=0 next=10" },
	    { 'T', NULL, 0, 10, NULL,
	      "release a; Release a PodGroupTimeout/- @10; ",
	      "Idle Pending block=0 requeues=0" },
	    { 'A', "a", 0, 20, NULL, "",
	      "Waiting Pending block=0 requeues=0 next=30" },
	    { 'C', "a", 1, 21, NULL, BIND_A,
	      "Bound Scheduling block=0 requeues=0" } } },
	{ "PodGroup: default permit wait is 60 s",
	  { .pg_min = 2 },
	  { { 'A', "a", 0, 5, NULL, "",
	      "Waiting Pending block=0 requeues=0 next=65" } } },
	{ "waitForPodsReady: timeout from admission, backoff doubles",
	  { WFPR(300, 300) },
	  { { 'A', "a", 0, 0, NULL, BIND_A,
	      "Bound Pending block=0 requeues=0 next=300" },
	    { 'R', "a", 0, 10, NULL, "", NULL },
	    { 'T', NULL, 0, 299, NULL, "", NULL },
	    { 'T', NULL, 0, 300, NULL,
	      "release a; Evict a PodsReadyTimeout/WaitForStart @360; ",
	      "Idle Pending block=0 requeues=1" },
	    { 'A', "a", 0, 400, NULL, BIND_A,
	      "Bound Pending block=0 "
	      "requeues=1 next=700" },
	    { 'T', NULL, 0, 700, NULL,
	      "release a; Evict a PodsReadyTimeout/WaitForStart @820; ",
	      "Idle Pending block=0 requeues=2" },
	    { 'A', "a", 0, 900, NULL, BIND_A, NULL },
	    { 'X', "a", 0, 950, NULL, "", "Idle Pending block=0 requeues=0" },
	    { 'A', "a", 0, 1000, NULL, BIND_A, NULL },
	    { 'T', NULL, 0, 1300, NULL,
	      "release a; Evict a PodsReadyTimeout/WaitForStart @1360; ",
	      NULL } } },
	{ "waitForPodsReady: deactivate past backoffLimitCount",
	  { WFPR(100, 100), .limit = 1 },
	  { { 'A', "a", 0, 0, NULL, BIND_A, NULL },
	    { 'T', NULL, 0, 100, NULL,
	      "release a; Evict a PodsReadyTimeout/WaitForStart @160; ", NULL },
	    { 'A', "a", 0, 200, NULL, BIND_A, NULL },
	    { 'T', NULL, 0, 300, NULL,
	      "release a; Deactivate a Deactivated/RequeuingLimitExceeded; ",
	      "Idle Pending block=0 requeues=1" } } },
	{ "waitForPodsReady: recoveryTimeout after a failure",
	  { WFPR(300, 100) },
	  { { 'A', "a", 0, 0, NULL, BIND_A, NULL },
	    { 'P', "a", 0, 10, NULL, "", "Ready Running block=0 requeues=0" },
	    { 'F', "a", 1, 50, NULL, "",
	      "Recovering Failed block=0 requeues=0 next=150" },
	    { 'R', "a", 1, 120, NULL, "", "Ready Failed block=0 requeues=0" },
	    { 'F', "a", 0, 200, NULL, "",
	      "Recovering Failed block=0 requeues=0 next=300" },
	    { 'T', NULL, 0, 300, NULL,
	      "release a; Evict a PodsReadyTimeout/WaitForRecovery @360; ",
	      "Idle Failed block=0 requeues=1" } } },
	{ "waitForPodsReady: recoveryTimeout 0 disables it",
	  { WFPR(300, 0) },
	  { { 'A', "a", 0, 0, NULL, BIND_A, NULL },
	    { 'P', "a", 0, 10, NULL, "", NULL },
	    { 'F', "a", 1, 50, NULL, "",
	      "Recovering Failed block=0 requeues=0" },
	    { 'T', NULL, 0, 100000, NULL, "", NULL } } },
	{ "blockAdmission until every admitted gang is Ready",
	  { WFPR(300, 300), .block = true },
	  { { 'A', "a", 0, 0, NULL, BIND_A,
	      "Bound Pending block=1 requeues=0 next=300" },
	    { 'A', "b", 0, 0, NULL, BIND_B, NULL },
	    { 'P', "a", 0, 10, NULL, "",
	      "Ready Running block=1 requeues=0 "
	      "next=300" },
	    { 'P', "b", 0, 20, NULL, "", "Ready Running block=0 requeues=0" },
	    { 'F', "b", 0, 30, NULL, "",
	      "Recovering Failed block=0 requeues=0 next=330" } } },
	{ "blockAdmission needs waitForPodsReady",
	  { .block = true },
	  { { 'A', "a", 0, 0, NULL, BIND_A,
	      "Bound Pending block=0 requeues=0" } } },
	{ "node failure: replacement inside the rack, lost work",
	  { WFPR(300, 100), .ckpt_s = 300 },
	  { { 'A', "a", 0, 0, NULL, BIND_A, NULL },
	    { 'A', "b", 0, 0, NULL, BIND_B, NULL },
	    { 'P', "a", 0, 10, NULL, "", NULL },
	    { 'P', "b", 0, 10, NULL, "", NULL },
	    /* 990 s Ready, checkpoints every 300 s: 90 s x 2 pods lost */
	    { 'N', NULL, 0, 1000, "n0-0",
	      "bind a/0 n0-2; Replaced a NodeReplaced/- pods=1; ",
	      "Recovering Pending block=0 requeues=0 next=1100 "
	      "lost=180/360" },
	    { 'C', "a", 0, 1001, NULL, "",
	      "Recovering Scheduling block=0 requeues=0 next=1100 "
	      "lost=180/360" },
	    { 'R', "a", 0, 1002, NULL, "",
	      "Ready Running block=0 requeues=0 lost=180/360" },
	    /* the rack is full now: a second failure evicts; 98 s lost */
	    { 'N', NULL, 0, 1100, "n0-1",
	      "release a; Evict a NodeFailures/- @1100; ",
	      "Idle Pending block=0 requeues=0 lost=376/752" } } },
	{ "node failure: no room in the rack evicts",
	  { WFPR(300, 100) },
	  { { 'A', "a", 0, 0, NULL, BIND_A, NULL },
	    { 'A', "b", 0, 0, NULL, BIND_B, NULL },
	    { 'N', "b", 0, 50, "n1-1",
	      "release b; Evict b NodeFailures/- @50; ",
	      "Idle Pending block=0 requeues=0 next=300" },
	    { 'N', NULL, 0, 60, "n0-1",
	      "bind a/1 n0-2; Replaced a NodeReplaced/- pods=1; ",
	      "Bound Pending block=0 requeues=0 next=300" } } },
	{ "no topology: the backend picks the nodes",
	  { .plain = true },
	  { { 'A', "a", 0, 0, NULL, "bind a/0 -; bind a/1 -; ",
	      "Bound Pending block=0 requeues=0" },
	    { 'N', "a", 0, 50, "n0-0", "",
	      "Bound Pending block=0 requeues=0" } } },
	{ "node failure: a node with no pod of the gang changes nothing",
	  { 0 },
	  { { 'A', "a", 0, 0, NULL, BIND_A, NULL },
	    { 'N', NULL, 0, 50, "n0-2", "",
	      "Bound Pending block=0 "
	      "requeues=0" } } },
};

static void test_scenarios(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(scenarios); i++)
		run_scenario(&scenarios[i]);
}

/*
 * Random events on both workloads. Every step binds, per workload, none
 * of its pods, all of them, or exactly the pods a GANG_REPLACED decision
 * moved: never a part of a gang. Returns the whole log.
 */
static char *random_run(uint64_t seed)
{
	static const struct cfg cfg = { WFPR(60, 30),	    .block = true,
					.limit = 3,	    .pg_min = 2,
					.pg_timeout_s = 20, .ckpt_s = 7 };
	static const char acts[] = "ACCRRRFSXTTN";
	static const char *const nodes[] = { "n0-0", "n0-1", "n0-2",
					     "n1-0", "n1-1", "n1-2" };
	struct fix f;
	struct rng r;
	struct strbuf all;
	int64_t now = 0;
	char *x;

	rng_seed(&r, seed);
	fix_init(&f, &cfg);
	strbuf_init(&all);
	for (int i = 0; i < 300; i++) {
		struct step st = { .act = acts[rng_below(&r, sizeof(acts) - 1)],
				   .wl = rng_below(&r, 2) ? "a" : "b" };
		uint32_t wl = fx_id(&f.c, st.wl);
		struct gang_decisions d;

		now += (int64_t)rng_below(&r, 15);
		st.t_s = now;
		st.pod = (int)rng_below(&r, pods_of(&f, wl));
		st.node = nodes[rng_below(&r, ARRAY_SIZE(nodes))];
		if (st.act == 'A' && gang_state(f.g, wl) != GANG_IDLE)
			continue;
		if (st.act == 'N')
			st.wl = NULL;
		memset(f.rec.binds, 0, sizeof(f.rec.binds));
		gang_decisions_init(&d);
		strbuf_reset(&f.rec.log);
		run_step(&f, &st, &d);
		for (uint32_t w = 0; w < 2; w++) {
			int64_t n = f.rec.binds[w], moved = 0;

			vec_foreach (&d.items, dx) {
				if (dx->wl == w && dx->kind == GANG_REPLACED)
					moved += dx->pods;
			}
			if (n && n != moved)
				assert_int_equal(n, pods_of(&f, w));
		}
		log_decisions(&f, &d);
		gang_decisions_release(&d);
		strbuf_addf(&all, "%c %" PRId64 ": %s\n", st.act, now,
			    f.rec.log.buf);
	}
	fix_release(&f);
	x = xstrdup(all.buf);
	strbuf_release(&all);
	return x;
}

static void test_random_deterministic(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		char *x = random_run(seed), *y = random_run(seed);

		assert_string_equal(x, y);
		free(x);
		free(y);
	}
}

/* The jittered delay: base * (1 + j), j in [0, 0.0001), the same for the
 * same seed. */
static int64_t jittered_requeue_us(void)
{
	static const struct cfg cfg = { WFPR(100, 100), .jitter = true };
	struct gang_decisions d;
	struct fix f;
	int64_t at;

	fix_init(&f, &cfg);
	gang_decisions_init(&d);
	gang_admitted(f.g, fx_id(&f.c, "a"), 0);
	assert_int_equal(gang_tick(f.g, 100 * S, &d), 1);
	assert_int_equal(d.items.items[0].kind, GANG_EVICT);
	at = d.items.items[0].requeue_at_us;
	gang_decisions_release(&d);
	fix_release(&f);
	return at;
}

static void test_jitter(void **state)
{
	int64_t at = jittered_requeue_us();

	(void)state;
	assert_true(at > 160 * S && at < 160 * S + 6000);
	assert_int_equal(at, jittered_requeue_us());
}

static void count_bind(void *ctx, uint32_t wl, uint32_t pod, const char *node)
{
	(void)wl;
	(void)pod;
	(void)node;
	(*(int64_t *)ctx)++;
}

static void no_release(void *ctx, uint32_t wl)
{
	(void)ctx;
	(void)wl;
}

/*
 * A gang of 100,000 pods (a trace's largest) started, made Ready pod by
 * pod, one pod failed and Ready again: every pod event costs O(1), so the
 * whole is far under a second. When each event rescanned the gang it was
 * 10^10 pod visits (about 20 s).
 */
static void test_big_gang(void **state)
{
	static const struct gang_ops ops = { count_bind, no_release };
	const uint32_t n = 100000;
	struct cluster c;
	struct sched *s;
	struct gang *g;
	struct strbuf sb;
	int64_t binds = 0;
	uint32_t wl;
	clock_t t0;

	(void)state;
	strbuf_init(&sb);
	fx_flavor(&sb, "f");
	strbuf_addstr(&sb, "---\n" K2 "kind: ClusterQueue\nmetadata: "
			   "{name: q}\nspec:\n  resourceGroups:\n  - "
			   "coveredResources: [cpu]\n    flavors: [{name: f, "
			   "resources: [{name: cpu, nominalQuota: "
			   "1000000}]}]\n");
	fx_lq(&sb, "lq", "q");
	fx_wl(&sb, "big", "lq", 0, (int)n, "1", 0, NULL);
	fx_load(&c, sb.buf);
	strbuf_release(&sb);
	c.default_config.wait_for_pods_ready.enable = true;
	c.default_config.wait_for_pods_ready.timeout_us = 600 * S;
	s = sched_new(&c, NULL);
	assert_int_equal(fx_run(s, &c, NULL), 1);
	wl = fx_id(&c, "big");
	t0 = clock();
	g = gang_new(&c, s, NULL, &ops, &binds);
	gang_admitted(g, wl, 0);
	assert_int_equal(binds, n);
	for (uint32_t p = 0; p < n; p++) {
		assert_int_equal(gang_state(g, wl), GANG_BOUND);
		gang_pod_ready(g, wl, p, S);
	}
	assert_int_equal(gang_state(g, wl), GANG_READY);
	assert_int_equal(gang_phase(g, wl), PODGROUP_RUNNING);
	gang_pod_failed(g, wl, n / 2, 2 * S);
	assert_int_equal(gang_state(g, wl), GANG_RECOVERING);
	gang_pod_created(g, wl, n / 2, 3 * S);
	gang_pod_ready(g, wl, n / 2, 4 * S);
	assert_int_equal(gang_state(g, wl), GANG_READY);
	/* Generous for sanitizers and a loaded machine; the old rescans
	 * took two orders of magnitude more. */
	assert_true(clock() - t0 < 2 * CLOCKS_PER_SEC);
	gang_free(g);
	sched_free(s);
	cluster_release(&c);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(gang_state_name(GANG_RECOVERING), "Recovering");
	assert_string_equal(gang_decision_kind_name(GANG_DEACTIVATE),
			    "Deactivate");
	gang_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenarios),
		cmocka_unit_test(test_random_deterministic),
		cmocka_unit_test(test_jitter),
		cmocka_unit_test(test_big_gang),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
