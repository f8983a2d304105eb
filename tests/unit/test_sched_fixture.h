/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers for the scheduler tests: build a cluster from YAML written in
 * Kueue's flow style (queues, flavors, workloads) and run cycles. Include
 * after cmocka.h. Everything is static: each test program has one copy.
 */
#ifndef ECHELON_TEST_SCHED_FIXTURE_H
#define ECHELON_TEST_SCHED_FIXTURE_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "manifest/manifest.h"
#include "model/cluster.h"
#include "sched/sched.h"

#define K2 "apiVersion: kueue.x-k8s.io/v1beta2\n"

/* Load text into c (initialised here); fails on any message. */
static inline void fx_load(struct cluster *c, const char *text)
{
	struct diag d;
	struct strbuf sb;
	int rc;

	cluster_init(c);
	diag_init(&d);
	strbuf_init(&sb);
	rc = manifest_load_buffer(c, "fx.yaml", text, strlen(text), &d);
	diag_format(&d, &sb);
	if (rc != 0 || d.errors)
		print_error("unexpected messages:\n%s\n--- in:\n%s", sb.buf,
			    text);
	assert_int_equal(rc, 0);
	cluster_compute_usage(c, NULL);
	strbuf_release(&sb);
	diag_release(&d);
}

/* A Workload: count pods of cpu (and gpu when > 0) in queue lq. */
static inline void fx_wl(struct strbuf *sb, const char *name, const char *lq,
			 int prio, int count, const char *cpu, int gpu,
			 const char *extra_podset)
{
	strbuf_addf(sb,
		    "---\n" K2 "kind: Workload\n"
		    "metadata: {name: %s, namespace: ns}\n"
		    "spec:\n  queueName: %s\n  priority: %d\n"
		    "  podSets:\n  - name: main\n    count: %d\n%s"
		    "    template: {spec: {containers: [{name: c, resources: "
		    "{requests: {cpu: \"%s\"",
		    name, lq, prio, count, extra_podset ? extra_podset : "",
		    cpu);
	if (gpu > 0)
		strbuf_addf(sb, ", nvidia.com/gpu: \"%d\"", gpu);
	strbuf_addstr(sb, "}}}]}}\n");
}

/* A LocalQueue lq in namespace ns feeding cq. */
static inline void fx_lq(struct strbuf *sb, const char *lq, const char *cq)
{
	strbuf_addf(sb,
		    "---\n" K2 "kind: LocalQueue\n"
		    "metadata: {name: %s, namespace: ns}\n"
		    "spec: {clusterQueue: %s}\n",
		    lq, cq);
}

static inline void fx_flavor(struct strbuf *sb, const char *name)
{
	strbuf_addf(sb,
		    "---\n" K2 "kind: ResourceFlavor\nmetadata: {name: %s}\n",
		    name);
}

/*
 * Topology t (rack, hostname), TAS flavors fa and fb that select the nodes
 * labelled a: "1" and b: "1", and per entry of nodes[0..max) (up to the
 * first NULL) a 4-CPU node n<i> in rack r labelled with the flavors the
 * entry lists ("ab": both).
 */
static inline void fx_two_flavors(struct strbuf *sb, const char *const *nodes,
				  size_t max)
{
	strbuf_addstr(sb, "---\n" K2 "kind: Topology\nmetadata: {name: t}\n"
			  "spec: {levels: [{nodeLabel: rack}, "
			  "{nodeLabel: kubernetes.io/hostname}]}\n");
	for (const char *f = "ab"; *f; f++)
		strbuf_addf(sb,
			    "---\n" K2 "kind: ResourceFlavor\n"
			    "metadata: {name: f%c}\nspec: {nodeLabels: "
			    "{%c: \"1\"}, topologyName: t}\n",
			    *f, *f);
	for (size_t i = 0; i < max && nodes[i]; i++) {
		strbuf_addf(sb,
			    "---\napiVersion: v1\nkind: Node\n"
			    "metadata: {name: n%zu, labels: {rack: r, "
			    "kubernetes.io/hostname: n%zu",
			    i, i);
		for (const char *f = nodes[i]; *f; f++)
			strbuf_addf(sb, ", %c: \"1\"", *f);
		strbuf_addstr(sb, "}}\nstatus: {allocatable: {cpu: \"4\", "
				  "pods: \"10\"}}\n");
	}
}

/* Index of the workload called name (namespace ns). */
static inline uint32_t fx_id(const struct cluster *c, const char *name)
{
	for (uint32_t i = 0; i < c->workloads.len; i++) {
		if (strcmp(c->workloads.items[i].name, name) == 0)
			return i;
	}
	fail_msg("no workload %s", name);
	return 0;
}

/* Submit every workload in order, then cycle until nothing changes. */
static inline size_t fx_run(struct sched *s, const struct cluster *c,
			    struct sched_decisions *d)
{
	size_t total = 0, n;

	for (uint32_t i = 0; i < c->workloads.len; i++) {
		if (c->workloads.items[i].admission) {
			assert_int_equal(sched_assume_admitted(s, i, 0, NULL),
					 0);
		} else {
			sched_submit(s, i, 0);
		}
	}
	for (int k = 0; k < 100 && (n = sched_cycle(s, 0, d)); k++)
		total += n;
	return total;
}

static inline bool fx_admitted(const struct sched *s, const struct cluster *c,
			       const char *name)
{
	return sched_wl_state(s, fx_id(c, name)) == SCHED_WL_ADMITTED;
}

#endif
