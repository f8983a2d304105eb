// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the workload status encoding (src/status): after cycles on a
 * small cluster, each workload's object (admitted with its pod set
 * assignments and topology assignment, preempted with the preemptor and
 * reason, pending with reason, message and positions) and its conditions,
 * compared as JSON text.
 *
 * The cluster: one rack of two 4-CPU hosts in TAS flavor f, ClusterQueue
 * q with 4 CPUs of quota that preempts lower priorities; workloads low
 * (3 pods), mid (1 pod, 2 CPUs), then high (priority 10, 2 pods).
 * Preempted low keeps its creation time as its place in the queue (as in
 * Kueue), so the cycle tries it before mid with 2 CPUs free: its message
 * says 1 more needed, and mid is admitted after it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "status/status.h"
#include "test_sched_fixture.h"
#include "testutil.h"

#include "base/banned.h"

static const char cluster_yaml[] =
	"---\n" K2 "kind: Topology\nmetadata: {name: t}\n"
	"spec: {levels: [{nodeLabel: rack}, "
	"{nodeLabel: kubernetes.io/hostname}]}\n"
	"---\n" K2 "kind: ResourceFlavor\nmetadata: {name: f}\n"
	"spec: {nodeLabels: {pool: g}, topologyName: t}\n"
	"---\napiVersion: v1\nkind: Node\n"
	"metadata: {name: h1, labels: {pool: g, rack: r1, "
	"kubernetes.io/hostname: h1}}\n"
	"status: {allocatable: {cpu: \"4\", pods: \"10\"}}\n"
	"---\napiVersion: v1\nkind: Node\n"
	"metadata: {name: h2, labels: {pool: g, rack: r1, "
	"kubernetes.io/hostname: h2}}\n"
	"status: {allocatable: {cpu: \"4\", pods: \"10\"}}\n"
	"---\n" K2 "kind: ClusterQueue\nmetadata: {name: q}\n"
	"spec:\n  preemption: {withinClusterQueue: LowerPriority}\n"
	"  resourceGroups:\n  - coveredResources: [cpu]\n"
	"    flavors: [{name: f, resources: [{name: cpu, "
	"nominalQuota: 4}]}]\n";

static void load(struct cluster *c)
{
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_addstr(&sb, cluster_yaml);
	fx_lq(&sb, "lq", "q");
	fx_wl(&sb, "low", "lq", 0, 3, "1", 0, NULL);
	fx_wl(&sb, "mid", "lq", 0, 1, "2", 0, NULL);
	fx_wl(&sb, "high", "lq", 10, 2, "1", 0,
	      "    topologyRequest: {required: kubernetes.io/hostname}\n");
	fx_load(c, sb.buf);
	strbuf_release(&sb);
}

/* What each step encodes (compact JSON, keys in order). */
/* pending */
static const char pending_mid[] =
	"{\"name\":\"ns/mid\",\"clusterQueue\":\"q\",\"position\":0,\"p"
	"ositionInLocalQueue\":0,\"reason\":\"WaitingForQuota\",\"messa"
	"ge\":\"couldn't assign flavors to the workload: insufficient u"
	"nused quota for cpu in flavor f, 1 more needed\",\"conditions\""
	":[{\"type\":\"QuotaReserved\",\"status\":\"False\",\"reason\":"
	"\"WaitingForQuota\",\"message\":\"couldn't assign flavors to t"
	"he workload: insufficient unused quota for cpu in flavor f, 1 "
	"more needed\"}]}";
/* preempted */
static const char preempted_low[] =
	"{\"name\":\"ns/low\",\"clusterQueue\":\"q\",\"by\":\"ns/high\""
	",\"reason\":\"InClusterQueue\",\"conditions\":[{\"type\":\"Quo"
	"taReserved\",\"status\":\"False\",\"reason\":\"WaitingForQuota"
	"\",\"message\":\"couldn't assign flavors to the workload: insu"
	"fficient unused quota for cpu in flavor f, 1 more needed\"},{\""
	"type\":\"Admitted\",\"status\":\"False\",\"reason\":\"NoReserv"
	"ation\",\"message\":\"The workload has no reservation\"},{\"ty"
	"pe\":\"Evicted\",\"status\":\"True\",\"reason\":\"Preempted\","
	"\"message\":\"Preempted to accommodate a workload (ns/high) du"
	"e to InClusterQueue\"},{\"type\":\"Preempted\",\"status\":\"Tr"
	"ue\",\"reason\":\"InClusterQueue\",\"message\":\"Preempted to "
	"accommodate a workload (ns/high) due to InClusterQueue\"},{\"t"
	"ype\":\"Requeued\",\"status\":\"True\",\"reason\":\"Preempted\""
	",\"message\":\"The workload was requeued\"}]}";
/* admitted */
static const char admitted_high[] =
	"{\"name\":\"ns/high\",\"clusterQueue\":\"q\",\"podSets\":[{\"n"
	"ame\":\"main\",\"count\":2,\"flavors\":{\"cpu\":\"f\"},\"topol"
	"ogyAssignment\":{\"levels\":[\"kubernetes.io/hostname\"],\"dom"
	"ains\":[{\"values\":[\"h1\"],\"count\":2}]}}],\"conditions\":["
	"{\"type\":\"QuotaReserved\",\"status\":\"True\",\"reason\":\"Q"
	"uotaReserved\",\"message\":\"Quota reserved in ClusterQueue q\""
	"},{\"type\":\"Admitted\",\"status\":\"True\",\"reason\":\"Admi"
	"tted\",\"message\":\"The workload is admitted\"}]}";
/* pending after preemption */
static const char pending_low[] =
	"{\"name\":\"ns/low\",\"clusterQueue\":\"q\",\"position\":0,\"p"
	"ositionInLocalQueue\":0,\"reason\":\"WaitingForQuota\",\"messa"
	"ge\":\"couldn't assign flavors to the workload: insufficient u"
	"nused quota for cpu in flavor f, 1 more needed\",\"conditions\""
	":[{\"type\":\"QuotaReserved\",\"status\":\"False\",\"reason\":"
	"\"WaitingForQuota\",\"message\":\"couldn't assign flavors to t"
	"he workload: insufficient unused quota for cpu in flavor f, 1 "
	"more needed\"},{\"type\":\"Admitted\",\"status\":\"False\",\"r"
	"eason\":\"NoReservation\",\"message\":\"The workload has no re"
	"servation\"},{\"type\":\"Evicted\",\"status\":\"True\",\"reaso"
	"n\":\"Preempted\",\"message\":\"Preempted to accommodate a wor"
	"kload (ns/high) due to InClusterQueue\"},{\"type\":\"Preempted"
	"\",\"status\":\"True\",\"reason\":\"InClusterQueue\",\"message"
	"\":\"Preempted to accommodate a workload (ns/high) due to InCl"
	"usterQueue\"},{\"type\":\"Requeued\",\"status\":\"True\",\"rea"
	"son\":\"Preempted\",\"message\":\"The workload was requeued\"}"
	"]}";
/* conditions */
static const char conditions_mid[] =
	"[{\"type\":\"QuotaReserved\",\"status\":\"True\",\"reason\":\""
	"QuotaReserved\",\"message\":\"Quota reserved in ClusterQueue q"
	"\"},{\"type\":\"Admitted\",\"status\":\"True\",\"reason\":\"Ad"
	"mitted\",\"message\":\"The workload is admitted\"}]";

static void expect(json_t *j, const char *want, const char *what)
{
	char *got = json_dumps(j, JSON_PRESERVE_ORDER | JSON_COMPACT);

	if (strcmp(got, want) != 0)
		fail_msg("%s:\n got %s\nwant %s", what, got, want);
	free(got);
	json_decref(j);
}

static void test_status(void **state)
{
	int64_t cqp[3], lqp[3];
	struct sched_decisions d;
	struct sched *s;
	struct cluster c;
	uint32_t low, mid, high;

	(void)state;
	load(&c);
	low = fx_id(&c, "low");
	mid = fx_id(&c, "mid");
	high = fx_id(&c, "high");
	s = sched_new(&c, NULL);
	sched_decisions_init(&d);
	/* low fits, mid waits for quota */
	sched_submit(s, low, 0);
	sched_submit(s, mid, 0);
	while (sched_cycle(s, 0, &d))
		;
	assert_true(fx_admitted(s, &c, "low") && !fx_admitted(s, &c, "mid"));
	sched_positions(s, cqp, lqp);
	expect(status_pending(&c, s, mid, cqp[mid], lqp[mid]), pending_mid,
	       "pending");
	expect(status_podset_assignments(&c, s, mid), "[]", "not admitted");
	/* high preempts low, then takes a host */
	d.items.len = 0;
	sched_submit(s, high, 1);
	while (sched_cycle(s, 1, &d))
		;
	assert_int_equal(d.items.items[0].kind, SCHED_DECIDE_PREEMPT);
	expect(status_preempted(&c, s, &d.items.items[0]), preempted_low,
	       "preempted");
	expect(status_admitted(&c, s, high), admitted_high, "admitted");
	sched_positions(s, cqp, lqp);
	expect(status_pending(&c, s, low, cqp[low], lqp[low]), pending_low,
	       "pending after preemption");
	expect(status_conditions(s, mid), conditions_mid, "conditions");
	sched_decisions_release(&d);
	sched_free(s);
	cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
