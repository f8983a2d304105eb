// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of what runs outside the core's admissions (running.c): each row
 * is a cluster with Jobs, pods and Workloads, what sched_assume_job()
 * makes of the Job "j", and the CPU usage its ClusterQueue has afterwards:
 * a running Job is counted once (by its own Workload, by its pods, or by
 * status.active x requests), a suspended or idle one is not counted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>

#include "sched/quota.h"
#include "test_sched_fixture.h"
#include "testutil.h"

#include "base/banned.h"

/* One node, flavor "tainted" (untolerated taint) then "a" in cq. */
#define BASE                                                                   \
	"apiVersion: v1\nkind: Node\n"                                         \
	"metadata: {name: n1, labels: {pool: cpu}}\n"                          \
	"status: {allocatable: {cpu: 64, pods: 100}}\n"                        \
	"---\n" K2 "kind: ResourceFlavor\nmetadata: {name: tainted}\n"         \
	"spec: {nodeLabels: {pool: cpu}, nodeTaints: [{key: t, value: x, "     \
	"effect: NoSchedule}]}\n"                                              \
	"---\n" K2 "kind: ResourceFlavor\nmetadata: {name: a}\n"               \
	"spec: {nodeLabels: {pool: cpu}}\n"                                    \
	"---\n" K2 "kind: ClusterQueue\nmetadata: {name: cq}\n"                \
	"spec:\n  resourceGroups:\n  - coveredResources: [cpu]\n"              \
	"    flavors:\n"                                                       \
	"    - {name: tainted, resources: [{name: cpu, nominalQuota: 50}]}\n"  \
	"    - {name: a, resources: [{name: cpu, nominalQuota: 50}]}\n"        \
	"---\n" K2 "kind: LocalQueue\nmetadata: {name: lq, namespace: ns}\n"   \
	"spec: {clusterQueue: cq}\n"

/* Job j in namespace ns, pods of 2 CPUs: labels, spec fields, pod spec
 * fields, status (each may be ""). */
#define JOB(labels, spec, pod, status)                                         \
	"---\napiVersion: batch/v1\nkind: Job\n"                               \
	"metadata: {name: j, namespace: ns, labels: {" labels "}}\n"           \
	"spec:\n  parallelism: 4\n" spec "  template:\n    spec:\n" pod        \
	"      containers: [{name: c, resources: {requests: {cpu: 2}}}]\n"     \
	"" status

#define QUEUE "kueue.x-k8s.io/queue-name: lq"

/* A running pod of 1 CPU on n1 with the given labels. */
#define POD(name, labels)                                                      \
	"---\napiVersion: v1\nkind: Pod\n"                                     \
	"metadata: {name: " name ", namespace: ns, labels: {" labels "}}\n"    \
	"spec: {nodeName: n1, containers: [{name: c, resources: "              \
	"{requests: {cpu: 1}}}]}\n"

struct job_case {
	const char *text;
	enum sched_job_usage want;
	int pods;		    /* pods that sched_assume_pod() counts */
	int64_t cpu_tainted, cpu_a; /* usage of cq per flavor, millicores */
	enum sched_wl_state state;  /* of j afterwards */
};

static const struct job_case job_cases[] = {
	/* running: active x per-pod requests, on the first flavor the pods
	 * may use (they do not tolerate the taint of the first) */
	{ BASE JOB(QUEUE, "  suspend: false\n", "", "status: {active: 3}\n"),
	  SCHED_JOB_COUNTED, 0, 0, 6000, SCHED_WL_NEW },
	/* a toleration lets them use the first flavor */
	{ BASE JOB(QUEUE, "",
		   "      tolerations: [{key: t, operator: Exists}]\n",
		   "status: {active: 3}\n"),
	  SCHED_JOB_COUNTED, 0, 6000, 0, SCHED_WL_NEW },
	/* spec.suspend defaults to false; ready is read, active counts */
	{ BASE JOB(QUEUE, "", "", "status: {active: 1, ready: 0}\n"),
	  SCHED_JOB_COUNTED, 0, 0, 2000, SCHED_WL_NEW },
	/* suspended: pending, whatever status.active says */
	{ BASE JOB(QUEUE, "  suspend: true\n", "", "status: {active: 2}\n"),
	  SCHED_JOB_NOT_RUNNING, 0, 0, 0, SCHED_WL_PENDING },
	/* not suspended but no active pod: pending */
	{ BASE JOB(QUEUE, "", "", ""), SCHED_JOB_NOT_RUNNING, 0, 0, 0,
	  SCHED_WL_PENDING },
	/* its pods are listed (either job-name label): they count, in the
	 * Job's queue, on the flavor of their node; the Job not again */
	{ BASE JOB(QUEUE, "", "", "status: {active: 2}\n")
		  POD("p0", "batch.kubernetes.io/job-name: j")
			  POD("p1", "job-name: j") POD("other", "job-name: k"),
	  SCHED_JOB_PODS, 2, 2000, 0, SCHED_WL_NEW },
	/* a Workload of its own, admitted: that counts, the Job does not,
	 * nor do its pods */
	{ BASE JOB(QUEUE, "", "", "status: {active: 4}\n")
		  POD("p0", "job-name: j") "---\n" K2 "kind: Workload\n"
					   "metadata: {name: job-j-abcde, "
					   "namespace: ns, ownerReferences: "
					   "[{apiVersion: batch/v1, kind: Job, "
					   "name: j, controller: "
					   "true}]}\n"
					   "spec: {queueName: lq, podSets: "
					   "[{count: 4, template: {spec: "
					   "{containers: [{resources: "
					   "{requests: {cpu: 2}}}]}}}]}\n"
					   "status: {admission: {clusterQueue: "
					   "cq, podSetAssignments: "
					   "[{name: main, count: 4, flavors: "
					   "{cpu: a}}]}}\n",
	  SCHED_JOB_OWN_WORKLOAD, 0, 0, 8000, SCHED_WL_NEW },
	/* the same Workload stands for the Job even while it is suspended */
	{ BASE JOB(
		  QUEUE, "  suspend: true\n", "",
		  "") "---\n" K2 "kind: Workload\n"
		      "metadata: {name: job-j-abcde, namespace: ns, "
		      "ownerReferences: "
		      "[{kind: Job, name: j}]}\n"
		      "spec: {queueName: lq, podSets: [{count: 4, template: "
		      "{spec: "
		      "{containers: [{resources: {requests: {cpu: 2}}}]}}}]}\n",
	  SCHED_JOB_OWN_WORKLOAD, 0, 0, 0, SCHED_WL_NEW },
	/* running without a queue: not counted, not queued */
	{ BASE JOB("", "", "", "status: {active: 1}\n"), SCHED_JOB_NO_QUEUE, 0,
	  0, 0, SCHED_WL_NEW },
	/* no flavor the pods may use: not counted, not queued */
	{ BASE JOB(QUEUE, "", "      nodeSelector: {pool: gpu}\n",
		   "status: {active: 1}\n"),
	  SCHED_JOB_NO_FLAVOR, 0, 0, 0, SCHED_WL_NEW },
};

static int64_t cpu_usage(const struct cluster *c, const struct sched *s,
			 const char *flavor)
{
	const struct quota *q = sched_quota(s);
	const struct flavor *fl = cluster_find(c, KIND_FLAVOR, NULL, flavor);
	int cpu = resource_lookup(c->resources, "cpu");

	assert_non_null(fl);
	assert_true(cpu >= 0);
	return q->nodes[0].usage[QUOTA_FR(fl - c->flavors.items, cpu)];
}

static void run_case(const struct job_case *tc)
{
	struct cluster c;
	struct sched *s;
	uint32_t j;
	int pods = 0;
	enum sched_job_usage got;

	fx_load(&c, tc->text);
	s = sched_new(&c, NULL);
	j = fx_id(&c, "job-j");
	vec_foreach (&c.pods, p)
		pods += sched_assume_pod(s, p) == 0;
	assert_int_equal(pods, tc->pods);
	for (uint32_t i = 0; i < c.workloads.len; i++) {
		if (c.workloads.items[i].admission)
			assert_int_equal(sched_assume_admitted(s, i, 0, NULL),
					 0);
	}
	got = sched_assume_job(s, j);
	assert_int_equal(got, tc->want);
	if (got == SCHED_JOB_NOT_RUNNING)
		sched_submit(s, j, 0);
	assert_int_equal(sched_wl_state(s, j), tc->state);
	assert_int_equal(cpu_usage(&c, s, "tainted"), tc->cpu_tainted);
	assert_int_equal(cpu_usage(&c, s, "a"), tc->cpu_a);
	sched_free(s);
	cluster_release(&c);
}

static void test_jobs(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(job_cases); i++) {
		print_message("case %zu\n", i);
		run_case(&job_cases[i]);
	}
}

/* A running Job's usage keeps a pending workload out until it fits. */
static void test_job_usage_blocks(void **state)
{
	struct sched_decisions d;
	struct strbuf sb;
	struct cluster c;
	struct sched *s;

	(void)state;
	strbuf_init(&sb);
	/* 8 CPUs of flavor a used */
	strbuf_addstr(&sb, BASE JOB(QUEUE, "", "", "status: {active: 4}\n"));
	fx_wl(&sb, "fits", "lq", 0, 1, "42", 0, NULL);
	fx_wl(&sb, "waits", "lq", 0, 1, "1", 0, NULL);
	fx_load(&c, sb.buf);
	strbuf_release(&sb);
	s = sched_new(&c, NULL);
	sched_decisions_init(&d);
	assert_int_equal(sched_assume_job(s, fx_id(&c, "job-j")),
			 SCHED_JOB_COUNTED);
	sched_submit(s, fx_id(&c, "fits"), 0);
	sched_submit(s, fx_id(&c, "waits"), 0);
	while (sched_cycle(s, 0, &d))
		;
	assert_true(fx_admitted(s, &c, "fits"));
	assert_int_equal(sched_wl_state(s, fx_id(&c, "waits")),
			 SCHED_WL_PENDING);
	sched_decisions_release(&d);
	sched_free(s);
	cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jobs),
		cmocka_unit_test(test_job_usage_blocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
