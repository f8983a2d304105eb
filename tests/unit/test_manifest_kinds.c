// SPDX-License-Identifier: Apache-2.0
/*
 * The manifest loader, decoding side: each supported kind is loaded from a
 * YAML (or JSON) string and the object it produced is described field by
 * field and compared with the expected text; then multi-document files, v1
 * Lists, node usage after loading folders, the all-or-nothing rule per file
 * and inputs at the hard limits. Error messages are in
 * test_manifest_errors.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "manifest/manifest.h"
#include "model/quantity.h"
#include "testutil.h"

#include "base/banned.h"

/* ---- describing objects -------------------------------------------- */

static void add_labels(struct strbuf *sb, const char *what,
		       const struct labels *l)
{
	if (!l->len)
		return;
	strbuf_addf(sb, " %s=[", what);
	for (size_t i = 0; i < l->len; i++)
		strbuf_addf(sb, "%s%s=%s", i ? "," : "", l->items[i].key,
			    l->items[i].value);
	strbuf_addch(sb, ']');
}

static void add_res(struct strbuf *sb, const char *what, const struct resvec *r,
		    const struct cluster *c)
{
	strbuf_addf(sb, " %s=", what);
	resvec_format(r, c->resources, sb);
}

static void add_taints(struct strbuf *sb, const char *what,
		       const struct taint *t, size_t n)
{
	if (!n)
		return;
	strbuf_addf(sb, " %s=[", what);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "%s%s=%s:%s", i ? "," : "", t[i].key,
			    t[i].value ? t[i].value : "",
			    taint_effect_name(t[i].effect));
	strbuf_addch(sb, ']');
}

static void add_tols(struct strbuf *sb, const struct toleration *t, size_t n)
{
	if (!n)
		return;
	strbuf_addstr(sb, " tolerations=[");
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(sb, "%s%s %s %s:%s", i ? "," : "",
			    t[i].key ? t[i].key : "*",
			    t[i].op == TOLERATION_EQUAL ? "=" : "exists",
			    t[i].value ? t[i].value : "",
			    t[i].effect < 0 ? "All"
					    : taint_effect_name(t[i].effect));
		if (t[i].has_seconds)
			strbuf_addf(sb, "/%llds", (long long)t[i].seconds);
	}
	strbuf_addch(sb, ']');
}

static void add_selector(struct strbuf *sb, const struct selector *s)
{
	strbuf_addch(sb, '{');
	for (size_t i = 0; i < s->len; i++) {
		strbuf_addf(sb, "%s%s %s", i ? "," : "", s->reqs[i].key,
			    selector_op_name(s->reqs[i].op));
		for (size_t j = 0; j < s->reqs[i].nvalues; j++)
			strbuf_addf(sb, "%s%s", j ? "|" : " ",
				    s->reqs[i].values[j]);
	}
	strbuf_addch(sb, '}');
}

static void add_groups(struct strbuf *sb, const struct cluster *c,
		       const struct resource_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(sb, " group[");
		for (size_t r = 0; r < g[i].ncovered; r++)
			strbuf_addf(
				sb, "%s%s", r ? "," : "",
				resource_name(c->resources, g[i].covered[r]));
		strbuf_addch(sb, ']');
		for (size_t f = 0; f < g[i].nflavors; f++) {
			const struct flavor_quotas *fq = &g[i].flavors[f];

			strbuf_addf(sb, " %s:", fq->flavor);
			for (size_t r = 0; r < fq->nresources; r++) {
				const struct resource_quota *q =
					&fq->resources[r];
				enum quantity_kind k =
					c->resources->kinds[q->resource];

				strbuf_addf(sb, "%s%s=", r ? "," : "",
					    resource_name(c->resources,
							  q->resource));
				quantity_format(q->nominal, k, sb);
				if (q->borrowing_limit != QUOTA_UNLIMITED) {
					strbuf_addstr(sb, "/borrow=");
					quantity_format(q->borrowing_limit, k,
							sb);
				}
				if (q->lending_limit != QUOTA_UNLIMITED) {
					strbuf_addstr(sb, "/lend=");
					quantity_format(q->lending_limit, k,
							sb);
				}
			}
		}
	}
}

static const char *opt(const char *s)
{
	return s ? s : "-";
}

static void describe_podset(struct strbuf *sb, const struct cluster *c,
			    const struct podset *ps)
{
	const struct topology_request *t = &ps->topology;

	strbuf_addf(sb, " podset %s count=%d min=%d", ps->name, ps->count,
		    ps->min_count);
	add_res(sb, "req", &ps->requests, c);
	add_labels(sb, "nodeSelector", &ps->node_selector);
	for (size_t i = 0; i < ps->affinity.len; i++) {
		strbuf_addstr(sb, " term");
		add_selector(sb, &ps->affinity.terms[i]);
	}
	add_tols(sb, ps->tolerations, ps->ntolerations);
	if (t->mode != TOPOLOGY_NONE)
		strbuf_addf(sb, " topology=%s:%s", topology_mode_name(t->mode),
			    opt(t->level));
	for (size_t i = 0; i < t->nslices; i++)
		strbuf_addf(sb, " slice=%s/%d", opt(t->slices[i].level),
			    t->slices[i].size);
	if (t->group_name)
		strbuf_addf(sb, " group=%s", t->group_name);
	if (t->pod_index_label)
		strbuf_addf(sb, " indexLabel=%s", t->pod_index_label);
}

static void describe_admission(struct strbuf *sb, const struct cluster *c,
			       const struct admission *a)
{
	strbuf_addf(sb, " admitted=%s", a->cluster_queue);
	for (size_t i = 0; i < a->npodsets; i++) {
		const struct podset_admission *pa = &a->podsets[i];

		strbuf_addf(sb, " [%s count=%d", pa->name, pa->count);
		for (int r = 0; r < RESOURCE_MAX; r++) {
			if (pa->flavors[r])
				strbuf_addf(sb, " %s:%s",
					    resource_name(c->resources, r),
					    pa->flavors[r]);
		}
		if (pa->topology) {
			const struct topology_assignment *ta = pa->topology;

			strbuf_addstr(sb, " levels=");
			for (size_t l = 0; l < ta->nlevels; l++)
				strbuf_addf(sb, "%s%s", l ? "," : "",
					    ta->levels[l]);
			for (size_t d = 0; d < ta->ndomains; d++) {
				strbuf_addch(sb, ' ');
				for (size_t l = 0; l < ta->nlevels; l++)
					strbuf_addf(sb, "%s%s", l ? "/" : "",
						    ta->domains[d].values[l]);
				strbuf_addf(sb, "=%d", ta->domains[d].count);
			}
		}
		strbuf_addch(sb, ']');
	}
}

static void describe_workload(struct strbuf *sb, const struct cluster *c,
			      const struct workload *w)
{
	strbuf_addf(sb, "%s/%s queue=%s class=%s priority=%d active=%d", w->ns,
		    w->name, opt(w->queue_name), opt(w->priority_class_name),
		    w->priority, w->active);
	if (w->pod_priority_class_name)
		strbuf_addf(sb, " podClass=%s", w->pod_priority_class_name);
	if (w->has_pod_priority)
		strbuf_addf(sb, " podPriority=%d", w->pod_priority);
	if (w->owner_kind)
		strbuf_addf(sb, " owner=%s/%s", w->owner_kind, w->owner_name);
	if (w->from_job &&
	    (w->job.suspend || w->job.active || w->job.ready >= 0))
		strbuf_addf(sb, " suspend=%d active=%d ready=%d",
			    w->job.suspend, w->job.active, w->job.ready);
	if (w->creation_us)
		strbuf_addf(sb, " created=%lld", (long long)w->creation_us);
	if (w->max_exec_us)
		strbuf_addf(sb, " maxExec=%llds",
			    (long long)(w->max_exec_us / 1000000));
	for (size_t i = 0; i < w->npodsets; i++)
		describe_podset(sb, c, &w->podsets[i]);
	if (w->admission)
		describe_admission(sb, c, w->admission);
	for (int k = 0; k < WORKLOAD_COND_COUNT; k++) {
		const struct workload_condition *wc =
			workload_cond(w, (enum workload_cond)k);

		if (wc->present)
			strbuf_addf(sb, " %s=%s/%s@%lld", workload_cond_name(k),
				    wc->status ? "True" : "False",
				    opt(wc->reason),
				    (long long)wc->transition_us);
	}
	if (w->requeue.present)
		strbuf_addf(sb, " requeue=%d@%lld", w->requeue.count,
			    (long long)w->requeue.requeue_at_us);
}

static const char *const queueing_names[] = { "BestEffortFIFO", "StrictFIFO" };
static const char *const preempt_names[] = { "Never", "LowerPriority",
					     "LowerOrNewerEqualPriority",
					     "Any" };
static const char *const stop_names[] = { "None", "Hold", "HoldAndDrain" };
static const char *const fung_names[] = { "Borrow", "TryNextFlavor",
					  "Preempt" };

static void describe_cq(struct strbuf *sb, const struct cluster *c,
			const struct cluster_queue *cq)
{
	strbuf_addf(sb, "%s cohort=%s %s stop=%s weight=%lld", cq->name,
		    opt(cq->cohort), queueing_names[cq->queueing],
		    stop_names[cq->stop], (long long)cq->fair_weight_milli);
	strbuf_addf(sb, " within=%s reclaim=%s borrow=%s",
		    preempt_names[cq->within_cluster_queue],
		    preempt_names[cq->reclaim_within_cohort],
		    cq->borrow_within_cohort == BORROW_PREEMPT_NEVER
			    ? "Never"
			    : "LowerPriority");
	if (cq->has_threshold)
		strbuf_addf(sb, "<=%d", cq->borrow_max_priority_threshold);
	strbuf_addf(sb, " fungibility=%s/%s", fung_names[cq->when_can_borrow],
		    fung_names[cq->when_can_preempt]);
	if (cq->has_preference)
		strbuf_addstr(sb,
			      cq->preference == PREFER_PREEMPTION_OVER_BORROWING
				      ? "/PreemptionOverBorrowing"
				      : "/BorrowingOverPreemption");
	if (cq->namespace_selector.len) {
		strbuf_addstr(sb, " namespaces=");
		add_selector(sb, &cq->namespace_selector);
	}
	add_groups(sb, c, cq->groups, cq->ngroups);
}

static void describe_config(struct strbuf *sb, const struct config *cf)
{
	const struct wait_for_pods_ready *w = &cf->wait_for_pods_ready;

	strbuf_addf(sb,
		    "%s balanced=%d preferredNodeAffinity=%d "
		    "waitForPodsReady=%d timeout=%llds recovery=%llds "
		    "block=%d requeue=%s base=%lld max=%lld limit=%lld",
		    placement_algorithm_name(cf->placement.algorithm),
		    cf->placement.balanced,
		    cf->placement.preferred_node_affinity, w->enable,
		    (long long)(w->timeout_us / 1000000),
		    (long long)(w->recovery_timeout_us / 1000000),
		    w->block_admission,
		    w->requeuing.timestamp == REQUEUE_EVICTION ? "Eviction"
							       : "Creation",
		    (long long)w->requeuing.backoff_base_s,
		    (long long)w->requeuing.backoff_max_s,
		    (long long)w->requeuing.backoff_limit_count);
}

/* One line for object i of kind k. */
static void describe(struct strbuf *sb, const struct cluster *c, enum kind k,
		     size_t i)
{
	switch (k) {
	case KIND_NAMESPACE: {
		const struct nspace *ns = &c->namespaces.items[i];

		strbuf_addstr(sb, ns->name);
		add_labels(sb, "labels", &ns->labels);
		break;
	}
	case KIND_NODE: {
		const struct node *n = &c->nodes.items[i];

		strbuf_addstr(sb, n->name);
		add_labels(sb, "labels", &n->labels);
		add_taints(sb, "taints", n->taints, n->ntaints);
		strbuf_addf(sb, " unschedulable=%d ready=%d", n->unschedulable,
			    n->ready);
		add_res(sb, "allocatable", &n->allocatable, c);
		if (!resvec_is_zero(&n->usage))
			add_res(sb, "usage", &n->usage, c);
		break;
	}
	case KIND_POD: {
		const struct pod *p = &c->pods.items[i];

		strbuf_addf(sb, "%s/%s node=%s %s", p->ns, p->name,
			    opt(p->node_name), pod_phase_name(p->phase));
		add_labels(sb, "labels", &p->labels);
		add_res(sb, "requests", &p->requests, c);
		break;
	}
	case KIND_TOPOLOGY: {
		const struct topology *t = &c->topologies.items[i];

		strbuf_addf(sb, "%s", t->name);
		for (size_t l = 0; l < t->nlevels; l++)
			strbuf_addf(sb, "%s%s", l ? " > " : " ", t->levels[l]);
		break;
	}
	case KIND_FLAVOR: {
		const struct flavor *f = &c->flavors.items[i];

		strbuf_addstr(sb, f->name);
		add_labels(sb, "nodeLabels", &f->node_labels);
		add_taints(sb, "nodeTaints", f->node_taints, f->nnode_taints);
		add_tols(sb, f->tolerations, f->ntolerations);
		strbuf_addf(sb, " topology=%s", opt(f->topology_name));
		break;
	}
	case KIND_CLUSTER_QUEUE:
		describe_cq(sb, c, &c->cluster_queues.items[i]);
		break;
	case KIND_COHORT: {
		const struct cohort *co = &c->cohorts.items[i];

		strbuf_addf(sb, "%s parent=%s weight=%lld", co->name,
			    opt(co->parent), (long long)co->fair_weight_milli);
		add_groups(sb, c, co->groups, co->ngroups);
		break;
	}
	case KIND_LOCAL_QUEUE: {
		const struct local_queue *lq = &c->local_queues.items[i];

		strbuf_addf(sb, "%s/%s -> %s", lq->ns, lq->name,
			    lq->cluster_queue);
		if (lq->stop != STOP_NONE)
			strbuf_addf(sb, " stop=%s", stop_names[lq->stop]);
		break;
	}
	case KIND_PRIORITY_CLASS: {
		const struct priority_class *pc = &c->priority_classes.items[i];

		strbuf_addf(sb, "%s=%d (%s)", pc->name, pc->value,
			    opt(pc->description));
		break;
	}
	case KIND_POD_PRIORITY_CLASS: {
		const struct pod_priority_class *pc =
			&c->pod_priority_classes.items[i];

		strbuf_addf(sb, "%s=%d%s (%s)", pc->name, pc->value,
			    pc->global_default ? " default" : "",
			    opt(pc->description));
		break;
	}
	case KIND_WORKLOAD:
		describe_workload(sb, c, &c->workloads.items[i]);
		break;
	case KIND_POD_GROUP: {
		const struct pod_group *pg = &c->pod_groups.items[i];

		strbuf_addf(sb, "%s/%s minMember=%d timeout=%ds", pg->ns,
			    pg->name, pg->min_member, pg->schedule_timeout_s);
		if (pg->has_min_resources)
			add_res(sb, "minResources", &pg->min_resources, c);
		break;
	}
	case KIND_CONFIG:
		describe_config(sb, &c->configs.items[i]);
		break;
	case KIND_COUNT:
		fail();
	}
}

/* "Node=2 Pod=1": the non-zero object counts, and "jobs=N" when any. */
static void describe_counts(struct strbuf *sb, const struct cluster *c)
{
	for (int k = 0; k < KIND_COUNT; k++) {
		if (cluster_count(c, (enum kind)k))
			strbuf_addf(sb, "%s%s=%zu", sb->len ? " " : "",
				    kind_name((enum kind)k),
				    cluster_count(c, (enum kind)k));
	}
	if (c->jobs)
		strbuf_addf(sb, " jobs=%zu", c->jobs);
}

/* Load text into c; fails the test, showing the messages, unless it loads
 * without any error or warning. */
static void load_clean(struct cluster *c, const char *file, const char *text)
{
	struct diag d;
	struct strbuf sb;
	int rc;

	diag_init(&d);
	strbuf_init(&sb);
	rc = manifest_load_buffer(c, file, text, strlen(text), &d);
	diag_format(&d, &sb);
	if (rc != 0 || d.msgs.len)
		print_error("unexpected messages:\n%s", sb.buf);
	assert_int_equal(rc, 0);
	assert_int_equal(d.msgs.len, 0);
	strbuf_release(&sb);
	diag_release(&d);
}

/* ---- each kind ------------------------------------------------------ */

struct decode_case {
	const char *file;
	const char *text;
	enum kind kind;
	size_t index;
	const char *want;
};

#define KUEUE1 "apiVersion: kueue.x-k8s.io/v1beta1\n"
#define KUEUE2 "apiVersion: kueue.x-k8s.io/v1beta2\n"

/* A pod with the given spec body (indented by two spaces). */
#define POD(spec) "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n" spec

static const struct decode_case decode_cases[] = {
	/* Node: labels, taints, unschedulable, allocatable, Ready. */
	{ "n.yaml",
	  "apiVersion: v1\n"
	  "kind: Node\n"
	  "metadata:\n"
	  "  name: gpu-0\n"
	  "  uid: 1234\n"
	  "  labels: {kubernetes.io/hostname: gpu-0, rack: r1, empty: }\n"
	  "spec:\n"
	  "  podCIDR: 10.0.0.0/24\n"
	  "  unschedulable: true\n"
	  "  taints:\n"
	  "  - {key: nvidia.com/gpu, value: present, effect: NoSchedule}\n"
	  "  - {key: maint, effect: NoExecute, timeAdded: x}\n"
	  "status:\n"
	  "  capacity: {cpu: \"128\"}\n"
	  "  allocatable: {cpu: 95500m, memory: 1536Gi, nvidia.com/gpu: 8}\n"
	  "  conditions:\n"
	  "  - {type: MemoryPressure, status: \"True\"}\n"
	  "  - {type: Ready, status: \"False\"}\n",
	  KIND_NODE, 0,
	  "gpu-0 labels=[empty=,kubernetes.io/hostname=gpu-0,rack=r1] "
	  "taints=[nvidia.com/gpu=present:NoSchedule,maint=:NoExecute] "
	  "unschedulable=1 ready=0 "
	  "allocatable=cpu=95500m,memory=1536Gi,nvidia.com/gpu=8" },
	/* No conditions: Ready; capacity stands in for allocatable. */
	{ "n.yaml",
	  "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
	  "status: {capacity: {cpu: 4, pods: 110}}\n",
	  KIND_NODE, 0,
	  "n unschedulable=0 ready=1 allocatable=cpu=4,pods=110" },
	{ "n.yaml",
	  "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
	  "status: {conditions: [{type: Ready, status: \"True\"}]}\n",
	  KIND_NODE, 0, "n unschedulable=0 ready=1 allocatable=" },
	/* Pod effective requests: containers add up, limits stand in for
	 * missing requests, pods=1; image, command... are accepted. */
	{ "p.yaml",
	  POD("  nodeName: n1\n"
	      "  restartPolicy: Never\n"
	      "  volumes: []\n"
	      "  containers:\n"
	      "  - name: a\n"
	      "    image: busybox\n"
	      "    command: [sleep]\n"
	      "    args: [\"1\"]\n"
	      "    env: [{name: X, value: y}]\n"
	      "    resources:\n"
	      "      requests: {cpu: 500m}\n"
	      "      limits: {cpu: \"2\", memory: 1Gi}\n"
	      "  - name: b\n"
	      "    resources: {requests: {cpu: 1500m, memory: 512Mi}}\n"),
	  KIND_POD, 0,
	  "default/p node=n1 Running requests=cpu=2,memory=1536Mi,pods=1" },
	/* Init containers: the largest one when it exceeds the sum. */
	{ "p.yaml",
	  POD("  initContainers:\n"
	      "  - {name: i1, resources: {requests: {cpu: \"3\"}}}\n"
	      "  - {name: i2, resources: {requests: {memory: 2Gi}}}\n"
	      "  containers:\n"
	      "  - {name: a, resources: {requests: {cpu: \"1\", "
	      "memory: 1Gi}}}\n"),
	  KIND_POD, 0,
	  "default/p node=- Pending requests=cpu=3,memory=2Gi,pods=1" },
	/* A sidecar (restartPolicy Always) adds to the containers and to
	 * every init container after it; overhead adds on top. */
	{ "p.yaml",
	  POD("  overhead: {cpu: 100m, memory: 10Mi}\n"
	      "  initContainers:\n"
	      "  - {name: early, resources: {requests: {cpu: \"1\"}}}\n"
	      "  - name: proxy\n"
	      "    restartPolicy: Always\n"
	      "    resources: {requests: {cpu: 500m, memory: 64Mi}}\n"
	      "  - {name: late, resources: {requests: {cpu: \"2\"}}}\n"
	      "  containers:\n"
	      "  - {name: a, resources: {requests: {cpu: \"1\"}}}\n"),
	  KIND_POD, 0,
	  "default/p node=- Pending requests=cpu=2600m,memory=74Mi,pods=1" },
	/* The sidecar keeps running beside the containers: 4 + 1, more than
	 * the late init container with the sidecar (2 + 1). */
	{ "p.yaml",
	  POD("  initContainers:\n"
	      "  - name: proxy\n"
	      "    restartPolicy: Always\n"
	      "    resources: {requests: {cpu: \"1\"}}\n"
	      "  - {name: late, resources: {requests: {cpu: \"2\"}}}\n"
	      "  containers:\n"
	      "  - {name: a, resources: {requests: {cpu: \"4\"}}}\n"),
	  KIND_POD, 0, "default/p node=- Pending requests=cpu=5,pods=1" },
	/* A sidecar started after an init container does not add to it. */
	{ "p.yaml",
	  POD("  initContainers:\n"
	      "  - {name: early, resources: {requests: {cpu: \"3\"}}}\n"
	      "  - name: proxy\n"
	      "    restartPolicy: Always\n"
	      "    resources: {requests: {cpu: \"1\"}}\n"
	      "  containers:\n"
	      "  - {name: a, resources: {requests: {cpu: \"1\"}}}\n"),
	  KIND_POD, 0, "default/p node=- Pending requests=cpu=3,pods=1" },
	/* Phase from status; labels; namespace. */
	{ "p.yaml",
	  "apiVersion: v1\nkind: Pod\n"
	  "metadata: {name: done, namespace: team-a, labels: {app: x}}\n"
	  "spec:\n"
	  "  nodeName: n1\n"
	  "  containers: [{name: a, resources: {requests: {cpu: 1}}}]\n"
	  "status: {phase: Succeeded, podIP: 10.0.0.1}\n",
	  KIND_POD, 0,
	  "team-a/done node=n1 Succeeded labels=[app=x] "
	  "requests=cpu=1,pods=1" },
	/* Topology levels, highest first, in both versions. */
	{ "t.yaml",
	  KUEUE2 "kind: Topology\nmetadata: {name: gpu}\nspec:\n  levels:\n"
		 "  - nodeLabel: cloud.provider.com/topology-block\n"
		 "  - nodeLabel: cloud.provider.com/topology-rack\n"
		 "  - nodeLabel: kubernetes.io/hostname\n",
	  KIND_TOPOLOGY, 0,
	  "gpu cloud.provider.com/topology-block > "
	  "cloud.provider.com/topology-rack > kubernetes.io/hostname" },
	{ "t.yaml",
	  "apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Topology\n"
	  "metadata: {name: one}\nspec: {levels: [{nodeLabel: rack}]}\n",
	  KIND_TOPOLOGY, 0, "one rack" },
	/* ResourceFlavor: labels, taints, tolerations, topology. */
	{ "f.yaml",
	  KUEUE1 "kind: ResourceFlavor\nmetadata: {name: tas}\nspec:\n"
		 "  nodeLabels: {node-group: gpu, zone: a}\n"
		 "  nodeTaints: [{key: dedicated, value: gpu, "
		 "effect: NoSchedule}]\n"
		 "  tolerations:\n"
		 "  - {key: dedicated, operator: Equal, value: gpu, "
		 "effect: NoSchedule}\n"
		 "  - {operator: Exists}\n"
		 "  - {key: k, operator: Exists, effect: NoExecute, "
		 "tolerationSeconds: 30}\n"
		 "  topologyName: gpu\n",
	  KIND_FLAVOR, 0,
	  "tas nodeLabels=[node-group=gpu,zone=a] "
	  "nodeTaints=[dedicated=gpu:NoSchedule] "
	  "tolerations=[dedicated = gpu:NoSchedule,* exists :All,"
	  "k exists :NoExecute/30s] topology=gpu" },
	/* A flavor without a spec matches every node. */
	{ "f.yaml", KUEUE2 "kind: ResourceFlavor\nmetadata: {name: default}\n",
	  KIND_FLAVOR, 0, "default topology=-" },
	/* ClusterQueue v1beta1: cohort, every policy, two groups. */
	{ "cq.yaml",
	  KUEUE1 "kind: ClusterQueue\nmetadata: {name: cq}\nspec:\n"
		 "  cohort: research\n"
		 "  queueingStrategy: StrictFIFO\n"
		 "  stopPolicy: HoldAndDrain\n"
		 "  fairSharing: {weight: \"1.5\"}\n"
		 "  admissionChecks: [x]\n"
		 "  namespaceSelector:\n"
		 "    matchLabels: {team: a}\n"
		 "    matchExpressions: [{key: env, operator: NotIn, "
		 "values: [dev, test]}]\n"
		 "  preemption:\n"
		 "    reclaimWithinCohort: Any\n"
		 "    withinClusterQueue: LowerOrNewerEqualPriority\n"
		 "    borrowWithinCohort: {policy: LowerPriority, "
		 "maxPriorityThreshold: 100}\n"
		 "  flavorFungibility: {whenCanBorrow: TryNextFlavor, "
		 "whenCanPreempt: Preempt}\n"
		 "  resourceGroups:\n"
		 "  - coveredResources: [cpu, memory]\n"
		 "    flavors:\n"
		 "    - name: spot\n"
		 "      resources:\n"
		 "      - {name: cpu, nominalQuota: 10, borrowingLimit: 5, "
		 "lendingLimit: 2}\n"
		 "      - {name: memory, nominalQuota: 64Gi}\n"
		 "    - name: on-demand\n"
		 "      resources:\n"
		 "      - {name: cpu, nominalQuota: 500m}\n"
		 "      - {name: memory, nominalQuota: \"0\"}\n"
		 "  - coveredResources: [nvidia.com/gpu]\n"
		 "    flavors:\n"
		 "    - {name: a100, resources: [{name: nvidia.com/gpu, "
		 "nominalQuota: 8}]}\n",
	  KIND_CLUSTER_QUEUE, 0,
	  "cq cohort=research StrictFIFO stop=HoldAndDrain weight=1500 "
	  "within=LowerOrNewerEqualPriority reclaim=Any "
	  "borrow=LowerPriority<=100 fungibility=TryNextFlavor/Preempt "
	  "namespaces={team In a,env NotIn dev|test} "
	  "group[cpu,memory] spot:cpu=10/borrow=5/lend=2,memory=64Gi "
	  "on-demand:cpu=500m,memory=0 "
	  "group[nvidia.com/gpu] a100:nvidia.com/gpu=8" },
	/* v1beta2 names the cohort cohortName; defaults elsewhere. */
	{ "cq.yaml",
	  KUEUE2 "kind: ClusterQueue\nmetadata: {name: cq}\n"
		 "spec: {cohortName: research, namespaceSelector: {}, "
		 "flavorFungibility: {whenCanBorrow: MayStopSearch}}\n",
	  KIND_CLUSTER_QUEUE, 0,
	  "cq cohort=research BestEffortFIFO stop=None weight=1000 "
	  "within=Never reclaim=Never borrow=Never "
	  "fungibility=Borrow/TryNextFlavor" },
	{ "cq.yaml",
	  KUEUE2 "kind: ClusterQueue\nmetadata: {name: cq}\n"
		 "spec: {flavorFungibility: {preference: "
		 "PreemptionOverBorrowing}}\n",
	  KIND_CLUSTER_QUEUE, 0,
	  "cq cohort=- BestEffortFIFO stop=None weight=1000 "
	  "within=Never reclaim=Never borrow=Never "
	  "fungibility=Borrow/TryNextFlavor/PreemptionOverBorrowing" },
	{ "cq.yaml",
	  KUEUE1 "kind: ClusterQueue\nmetadata: {name: cq}\n"
		 "spec: {stopPolicy: Hold, preemption: "
		 "{withinClusterQueue: LowerPriority, "
		 "reclaimWithinCohort: LowerPriority}}\n",
	  KIND_CLUSTER_QUEUE, 0,
	  "cq cohort=- BestEffortFIFO stop=Hold weight=1000 "
	  "within=LowerPriority reclaim=LowerPriority borrow=Never "
	  "fungibility=Borrow/TryNextFlavor" },
	/* Cohort: parent (v1alpha1 parent, then parentName) and quota. */
	{ "co.yaml",
	  "apiVersion: kueue.x-k8s.io/v1alpha1\n"
	  "kind: Cohort\nmetadata: {name: child}\n"
	  "spec:\n  parent: root\n  fairSharing: {weight: 2}\n"
	  "  resourceGroups:\n  - coveredResources: [cpu]\n"
	  "    flavors: [{name: default, resources: "
	  "[{name: cpu, nominalQuota: 4, lendingLimit: 1}]}]\n",
	  KIND_COHORT, 0,
	  "child parent=root weight=2000 group[cpu] default:cpu=4/lend=1" },
	{ "co.yaml",
	  KUEUE2 "kind: Cohort\nmetadata: {name: child}\n"
		 "spec: {parentName: root}\n",
	  KIND_COHORT, 0, "child parent=root weight=1000" },
	{ "co.yaml",
	  KUEUE1 "kind: Cohort\nmetadata: {name: child}\n"
		 "spec: {parentName: root}\n",
	  KIND_COHORT, 0, "child parent=root weight=1000" },
	{ "co.yaml", KUEUE2 "kind: Cohort\nmetadata: {name: root}\n",
	  KIND_COHORT, 0, "root parent=- weight=1000" },
	/* LocalQueue, in the default namespace unless given. */
	{ "lq.yaml",
	  KUEUE2 "kind: LocalQueue\nmetadata: {name: training, namespace: "
		 "team-a}\nspec: {clusterQueue: team-a, stopPolicy: None}\n",
	  KIND_LOCAL_QUEUE, 0, "team-a/training -> team-a" },
	{ "lq.yaml",
	  KUEUE1 "kind: LocalQueue\nmetadata: {name: q}\n"
		 "spec: {clusterQueue: cq}\n",
	  KIND_LOCAL_QUEUE, 0, "default/q -> cq" },
	/* LocalQueue stopPolicy, in both apiVersions. */
	{ "lq.yaml",
	  KUEUE1 "kind: LocalQueue\nmetadata: {name: q, namespace: a}\n"
		 "spec: {clusterQueue: cq, stopPolicy: Hold}\n",
	  KIND_LOCAL_QUEUE, 0, "a/q -> cq stop=Hold" },
	{ "lq.yaml",
	  KUEUE2 "kind: LocalQueue\nmetadata: {name: q}\n"
		 "spec: {clusterQueue: cq, stopPolicy: HoldAndDrain, "
		 "fairSharing: {weight: 2}}\n",
	  KIND_LOCAL_QUEUE, 0, "default/q -> cq stop=HoldAndDrain" },
	/* Namespace: labels; spec and status are accepted, not used. */
	{ "ns.yaml",
	  "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n"
	  "  labels: {tier: gold, kubernetes.io/metadata.name: team-a}\n"
	  "spec: {finalizers: [kubernetes]}\nstatus: {phase: Active}\n",
	  KIND_NAMESPACE, 0,
	  "team-a labels=[kubernetes.io/metadata.name=team-a,tier=gold]" },
	{ "ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n",
	  KIND_NAMESPACE, 0, "b" },
	/* WorkloadPriorityClass: value at both int32 bounds. */
	{ "pc.yaml",
	  KUEUE1 "kind: WorkloadPriorityClass\nmetadata: {name: high}\n"
		 "value: 2147483647\ndescription: most urgent\n",
	  KIND_PRIORITY_CLASS, 0, "high=2147483647 (most urgent)" },
	{ "pc.yaml",
	  KUEUE2 "kind: WorkloadPriorityClass\nmetadata: {name: low}\n"
		 "value: -2147483648\n",
	  KIND_PRIORITY_CLASS, 0, "low=-2147483648 (-)" },
	/* PriorityClass (scheduling.k8s.io): value, globalDefault,
	 * description; preemptionPolicy is accepted silently. */
	{ "pc.yaml",
	  "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
	  "metadata: {name: batch-high}\nvalue: 1000000\n"
	  "globalDefault: true\ndescription: batch jobs\n"
	  "preemptionPolicy: Never\n",
	  KIND_POD_PRIORITY_CLASS, 0,
	  "batch-high=1000000 default (batch jobs)" },
	{ "pc.yaml",
	  "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
	  "metadata: {name: low}\nvalue: -2147483648\n",
	  KIND_POD_PRIORITY_CLASS, 0, "low=-2147483648 (-)" },
	/* Pod priority of a Workload: the first pod set's template
	 * priorityClassName and spec.priority that are set. */
	{ "w.yaml",
	  KUEUE2 "kind: Workload\nmetadata: {name: w, namespace: ns}\n"
		 "spec:\n"
		 "  podSets:\n"
		 "  - name: a\n"
		 "    template: {spec: {priority: 7, containers: [{}]}}\n"
		 "  - name: b\n"
		 "    template: {spec: {priorityClassName: high, priority: 9, "
		 "containers: [{}]}}\n",
	  KIND_WORKLOAD, 0,
	  "ns/w queue=- class=- priority=0 active=1 podClass=high "
	  "podPriority=7 podset a count=1 min=1 req=pods=1 podset b "
	  "count=1 min=1 req=pods=1" },
	/* status.conditions (known types; others ignored) and
	 * status.requeueState go into the model. */
	{ "w.yaml",
	  KUEUE2 "kind: Workload\nmetadata: {name: w, namespace: ns}\n"
		 "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n"
		 "status:\n"
		 "  conditions:\n"
		 "  - {type: QuotaReserved, status: \"True\", reason: "
		 "QuotaReserved, lastTransitionTime: "
		 "\"1970-01-01T00:00:10Z\", message: m}\n"
		 "  - {type: Evicted, status: \"False\", reason: Preempted, "
		 "lastTransitionTime: \"1970-01-01T00:00:05Z\"}\n"
		 "  - {type: SomethingNew, status: \"True\"}\n"
		 "  requeueState: {count: 3, requeueAt: "
		 "\"1970-01-01T00:01:00Z\"}\n",
	  KIND_WORKLOAD, 0,
	  "ns/w queue=- class=- priority=0 active=1 podset main count=1 "
	  "min=1 req=pods=1 QuotaReserved=True/QuotaReserved@10000000 "
	  "Evicted=False/Preempted@5000000 requeue=3@60000000" },
	/* The class a Workload names is a PriorityClass when v1beta1's
	 * priorityClassSource or v1beta2's priorityClassRef says so. */
	{ "w.yaml",
	  KUEUE1 "kind: Workload\nmetadata: {name: w}\n"
		 "spec:\n"
		 "  priorityClassName: p\n"
		 "  priorityClassSource: scheduling.k8s.io/priorityclass\n"
		 "  priority: 100\n"
		 "  podSets: [{template: {spec: {containers: [{}]}}}]\n",
	  KIND_WORKLOAD, 0,
	  "default/w queue=- class=- priority=100 active=1 podClass=p "
	  "podset main count=1 min=1 req=pods=1" },
	{ "w.yaml",
	  KUEUE2 "kind: Workload\nmetadata: {name: w}\n"
		 "spec:\n"
		 "  priorityClassRef: {group: scheduling.k8s.io, kind: "
		 "PriorityClass, name: p}\n"
		 "  podSets: [{template: {spec: {containers: [{}]}}}]\n",
	  KIND_WORKLOAD, 0,
	  "default/w queue=- class=- priority=0 active=1 podClass=p "
	  "podset main count=1 min=1 req=pods=1" },
	{ "w.yaml",
	  KUEUE2 "kind: Workload\nmetadata: {name: w}\n"
		 "spec:\n"
		 "  priorityClassRef: {group: kueue.x-k8s.io, kind: "
		 "WorkloadPriorityClass, name: wpc}\n"
		 "  podSets: [{template: {spec: {priorityClassName: p, "
		 "containers: [{}]}}}]\n",
	  KIND_WORKLOAD, 0,
	  "default/w queue=- class=wpc priority=0 active=1 podClass=p "
	  "podset main count=1 min=1 req=pods=1" },
	/* A Workload's owner: the controller among its ownerReferences. */
	{ "w.yaml",
	  KUEUE2 "kind: Workload\n"
		 "metadata:\n"
		 "  name: job-x-1a2b3\n"
		 "  ownerReferences:\n"
		 "  - {apiVersion: v1, kind: ConfigMap, name: cm, uid: u1}\n"
		 "  - {apiVersion: batch/v1, kind: Job, name: x, uid: u2, "
		 "controller: true, blockOwnerDeletion: true}\n"
		 "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n",
	  KIND_WORKLOAD, 0,
	  "default/job-x-1a2b3 queue=- class=- priority=0 active=1 "
	  "owner=Job/x podset main count=1 min=1 req=pods=1" },
	/* Workload: pod sets, minCount, topology request with a slice. */
	{ "w.yaml",
	  KUEUE2
	  "kind: Workload\n"
	  "metadata:\n"
	  "  name: w1\n"
	  "  namespace: team-a\n"
	  "  creationTimestamp: \"2024-05-01T10:00:00Z\"\n"
	  "spec:\n"
	  "  queueName: training\n"
	  "  priorityClassName: production\n"
	  "  priority: 1000\n"
	  "  active: true\n"
	  "  podSets:\n"
	  "  - name: workers\n"
	  "    count: 8\n"
	  "    minCount: 4\n"
	  "    template:\n"
	  "      metadata: {labels: {app: w}}\n"
	  "      spec:\n"
	  "        nodeSelector: {node-group: gpu}\n"
	  "        tolerations: [{key: g, operator: Exists}]\n"
	  "        affinity:\n"
	  "          nodeAffinity:\n"
	  "            requiredDuringSchedulingIgnoredDuringExecution:\n"
	  "              nodeSelectorTerms:\n"
	  "              - matchExpressions:\n"
	  "                - {key: gpus, operator: Gt, values: [\"4\"]}\n"
	  "        containers:\n"
	  "        - {name: c, resources: {requests: {cpu: 8, "
	  "nvidia.com/gpu: 8}}}\n"
	  "    topologyRequest:\n"
	  "      required: block\n"
	  "      podSetSliceRequiredTopology: rack\n"
	  "      podSetSliceSize: 4\n"
	  "      podSetGroupName: g\n"
	  "      podIndexLabel: idx\n"
	  "  - name: launcher\n"
	  "    template: {spec: {containers: [{name: l}]}}\n"
	  "    topologyRequest: {unconstrained: true}\n",
	  KIND_WORKLOAD, 0,
	  "team-a/w1 queue=training class=production priority=1000 active=1 "
	  "created=1714557600000000 podset workers count=8 min=4 "
	  "req=cpu=8,pods=1,nvidia.com/gpu=8 nodeSelector=[node-group=gpu] "
	  "term{gpus Gt 4} tolerations=[g exists :All] "
	  "topology=required:block slice=rack/4 group=g indexLabel=idx "
	  "podset launcher count=1 min=1 req=pods=1 "
	  "topology=unconstrained:-" },
	/* Multi-layer slice constraints, preferred mode; admission with a
	 * topology assignment. */
	{ "w.yaml",
	  KUEUE2 "kind: Workload\nmetadata: {name: w2, namespace: ns}\n"
		 "spec:\n"
		 "  podSets:\n"
		 "  - name: main\n"
		 "    count: 16\n"
		 "    template: {spec: {containers: [{name: c}]}}\n"
		 "    topologyRequest:\n"
		 "      preferred: block\n"
		 "      podsetSliceRequiredTopologyConstraints:\n"
		 "      - {topology: block, size: 8}\n"
		 "      - {topology: rack, size: 4}\n"
		 "status:\n"
		 "  conditions: []\n"
		 "  admission:\n"
		 "    clusterQueue: team-a\n"
		 "    podSetAssignments:\n"
		 "    - name: main\n"
		 "      count: 16\n"
		 "      flavors: {cpu: tas, nvidia.com/gpu: tas}\n"
		 "      resourceUsage: {cpu: 1}\n"
		 "      topologyAssignment:\n"
		 "        levels: [rack, kubernetes.io/hostname]\n"
		 "        domains:\n"
		 "        - {values: [r1, h1], count: 8}\n"
		 "        - {values: [r1, h2], count: 8}\n",
	  KIND_WORKLOAD, 0,
	  "ns/w2 queue=- class=- priority=0 active=1 podset main count=16 "
	  "min=16 req=pods=1 topology=preferred:block slice=block/8 "
	  "slice=rack/4 admitted=team-a [main count=16 cpu:tas "
	  "nvidia.com/gpu:tas levels=rack,kubernetes.io/hostname r1/h1=8 "
	  "r1/h2=8]" },
	/* Job: pods = parallelism capped by completions, min-parallelism,
	 * required + slice annotations, queue and priority labels. */
	{ "j.yaml",
	  "apiVersion: batch/v1\nkind: Job\n"
	  "metadata:\n"
	  "  name: llama\n"
	  "  namespace: team-a\n"
	  "  labels:\n"
	  "    kueue.x-k8s.io/queue-name: training\n"
	  "    kueue.x-k8s.io/priority-class: production\n"
	  "  annotations: {kueue.x-k8s.io/job-min-parallelism: \"2\"}\n"
	  "spec:\n"
	  "  parallelism: 8\n"
	  "  completions: 6\n"
	  "  completionMode: Indexed\n"
	  "  suspend: true\n"
	  "  template:\n"
	  "    metadata:\n"
	  "      annotations:\n"
	  "        kueue.x-k8s.io/podset-required-topology: block\n"
	  "        kueue.x-k8s.io/podset-slice-required-topology: rack\n"
	  "        kueue.x-k8s.io/podset-slice-size: \"3\"\n"
	  "        kueue.x-k8s.io/podset-group-name: grp\n"
	  "    spec:\n"
	  "      restartPolicy: Never\n"
	  "      containers:\n"
	  "      - {name: t, image: x, resources: {requests: {cpu: 8}}}\n",
	  KIND_WORKLOAD, 0,
	  "team-a/job-llama queue=training class=production priority=0 "
	  "active=1 owner=Job/llama suspend=1 active=0 ready=-1 "
	  "podset main count=6 min=2 "
	  "req=cpu=8,pods=1 topology=required:block slice=rack/3 "
	  "group=grp" },
	/* Preferred mode and the JSON constraints annotation; completions
	 * above parallelism do not raise the count; the queue may be an
	 * annotation. */
	{ "j.yaml",
	  "apiVersion: batch/v1\nkind: Job\n"
	  "metadata:\n"
	  "  name: moe\n"
	  "  annotations: {kueue.x-k8s.io/queue-name: q}\n"
	  "spec:\n"
	  "  parallelism: 16\n"
	  "  completions: 100\n"
	  "  template:\n"
	  "    metadata:\n"
	  "      annotations:\n"
	  "        kueue.x-k8s.io/podset-preferred-topology: block\n"
	  "        kueue.x-k8s.io/podset-slice-required-topology-constraints:"
	  " '[{\"topology\": \"block\", \"size\": 8}, "
	  "{\"topology\": \"rack\", \"size\": 2}]'\n"
	  "    spec: {containers: [{name: t}]}\n",
	  KIND_WORKLOAD, 0,
	  "default/job-moe queue=q class=- priority=0 active=1 "
	  "owner=Job/moe podset main count=16 min=16 req=pods=1 "
	  "topology=preferred:block slice=block/8 slice=rack/2" },
	/* Runtime limits, the scheduler's estimate: a Job's label and its
	 * activeDeadlineSeconds, the smaller counts... */
	{ "j.yaml",
	  "apiVersion: batch/v1\nkind: Job\n"
	  "metadata:\n"
	  "  name: lim\n"
	  "  labels: {kueue.x-k8s.io/max-exec-time-seconds: \"600\"}\n"
	  "spec:\n"
	  "  activeDeadlineSeconds: 900\n"
	  "  template: {spec: {containers: [{name: t}]}}\n",
	  KIND_WORKLOAD, 0,
	  "default/job-lim queue=- class=- priority=0 active=1 "
	  "owner=Job/lim maxExec=600s podset main count=1 min=1 req=pods=1" },
	{ "j.yaml",
	  "apiVersion: batch/v1\nkind: Job\n"
	  "metadata:\n"
	  "  name: lim\n"
	  "  labels: {kueue.x-k8s.io/max-exec-time-seconds: \"600\"}\n"
	  "spec:\n"
	  "  activeDeadlineSeconds: 300\n"
	  "  template: {spec: {containers: [{name: t}]}}\n",
	  KIND_WORKLOAD, 0,
	  "default/job-lim queue=- class=- priority=0 active=1 "
	  "owner=Job/lim maxExec=300s podset main count=1 min=1 req=pods=1" },
	/* ... and a Workload's spec.maximumExecutionTimeSeconds. */
	{ "w.yaml",
	  KUEUE1 "kind: Workload\n"
		 "metadata: {name: w}\n"
		 "spec:\n"
		 "  maximumExecutionTimeSeconds: 3600\n"
		 "  podSets: [{name: main, count: 1, template: {spec: "
		 "{containers: [{name: t}]}}}]\n",
	  KIND_WORKLOAD, 0,
	  "default/w queue=- class=- priority=0 active=1 maxExec=3600s "
	  "podset main count=1 min=1 req=pods=1" },
	/* Unconstrained annotation; parallelism defaults to 1; a
	 * min-parallelism above the count changes nothing. */
	{ "j.yaml",
	  "apiVersion: batch/v1\nkind: Job\n"
	  "metadata:\n"
	  "  name: one\n"
	  "  annotations: {kueue.x-k8s.io/job-min-parallelism: \"5\"}\n"
	  "spec:\n"
	  "  template:\n"
	  "    metadata:\n"
	  "      annotations:\n"
	  "        kueue.x-k8s.io/podset-unconstrained-topology: \"true\"\n"
	  "    spec: {containers: [{name: t}]}\n",
	  KIND_WORKLOAD, 0,
	  "default/job-one queue=- class=- priority=0 active=1 "
	  "owner=Job/one podset main count=1 min=1 req=pods=1 "
	  "topology=unconstrained:-" },
	/* A running Job: spec.suspend false, status.active and ready; the
	 * template's priorityClassName and priority. */
	{ "j.yaml",
	  "apiVersion: batch/v1\nkind: Job\n"
	  "metadata: {name: run, namespace: ns}\n"
	  "spec:\n"
	  "  parallelism: 4\n"
	  "  suspend: false\n"
	  "  template:\n"
	  "    spec:\n"
	  "      priorityClassName: batch-high\n"
	  "      priority: 1000\n"
	  "      containers: [{name: t}]\n"
	  "status:\n"
	  "  active: 3\n"
	  "  ready: 2\n"
	  "  succeeded: 1\n"
	  "  startTime: \"2024-05-01T10:00:00Z\"\n"
	  "  conditions: []\n",
	  KIND_WORKLOAD, 0,
	  "ns/job-run queue=- class=- priority=0 active=1 "
	  "podClass=batch-high podPriority=1000 owner=Job/run suspend=0 "
	  "active=3 ready=2 podset main count=4 min=4 req=pods=1" },
	/* PodGroup. */
	{ "pg.yaml",
	  "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\n"
	  "metadata: {name: pg, namespace: ns}\n"
	  "spec: {minMember: 4, scheduleTimeoutSeconds: 60, "
	  "minResources: {cpu: 4, memory: 8Gi}}\n",
	  KIND_POD_GROUP, 0,
	  "ns/pg minMember=4 timeout=60s minResources=cpu=4,memory=8Gi" },
	{ "pg.yaml",
	  "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\n"
	  "metadata: {name: pg}\nspec: {minMember: 1}\n",
	  KIND_POD_GROUP, 0, "default/pg minMember=1 timeout=0s" },
	/* Configuration: every override... */
	{ "c.yaml",
	  "apiVersion: echelon.dev/v1alpha1\nkind: Configuration\n"
	  "metadata: {name: ignored}\n"
	  "placement: {algorithm: BestFit, balancedPlacement: true, "
	  "preferredNodeAffinity: true}\n"
	  "waitForPodsReady:\n"
	  "  timeout: 1h30m\n"
	  "  blockAdmission: true\n"
	  "  requeuingStrategy: {timestamp: Creation, backoffBaseSeconds: 5, "
	  "backoffMaxSeconds: 10, backoffLimitCount: 3}\n",
	  KIND_CONFIG, 0,
	  "BestFit balanced=1 preferredNodeAffinity=1 waitForPodsReady=1 "
	  "timeout=5400s recovery=5400s block=1 requeue=Creation base=5 "
	  "max=10 limit=3" },
	/* ... Kueue's defaults for what is left out ... */
	{ "c.yaml", "apiVersion: echelon.dev/v1alpha1\nkind: Configuration\n",
	  KIND_CONFIG, 0,
	  "Mixed balanced=0 preferredNodeAffinity=0 waitForPodsReady=0 "
	  "timeout=1800s recovery=1800s block=0 requeue=Eviction base=60 "
	  "max=3600 limit=-1" },
	/* ... and an explicit enable: false, recovery of its own. */
	{ "c.json",
	  "{\"apiVersion\": \"echelon.dev/v1alpha1\", \"kind\": "
	  "\"Configuration\", \"placement\": {\"algorithm\": "
	  "\"LeastFreeCapacity\"}, \"waitForPodsReady\": {\"enable\": false,"
	  " \"timeout\": \"90s\", \"recoveryTimeout\": \"0\"}}",
	  KIND_CONFIG, 0,
	  "LeastFreeCapacity balanced=0 preferredNodeAffinity=0 "
	  "waitForPodsReady=0 timeout=90s recovery=0s block=0 "
	  "requeue=Eviction base=60 max=3600 limit=-1" },
	/* echelon's own placement algorithm */
	{ "c.yaml",
	  "apiVersion: echelon.dev/v1alpha1\nkind: Configuration\n"
	  "placement: {algorithm: FragmentationAware}\n",
	  KIND_CONFIG, 0,
	  "FragmentationAware balanced=0 preferredNodeAffinity=0 "
	  "waitForPodsReady=0 timeout=1800s recovery=1800s block=0 "
	  "requeue=Eviction base=60 max=3600 limit=-1" },
	/* JSON input: a node, numbers as quantities. */
	{ "n.json",
	  "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": "
	  "{\"name\": \"j\", \"labels\": {\"a\": \"b\"}}, \"status\": "
	  "{\"allocatable\": {\"cpu\": 2.5, \"memory\": \"1Gi\"}}}",
	  KIND_NODE, 0,
	  "j labels=[a=b] unschedulable=0 ready=1 "
	  "allocatable=cpu=2500m,memory=1Gi" },
	/* A v1 List: objects of any kind, in order. */
	{ "l.yaml",
	  "apiVersion: v1\nkind: List\nmetadata: {}\nitems:\n"
	  "- {apiVersion: v1, kind: Node, metadata: {name: a}}\n"
	  "- apiVersion: v1\n  kind: List\n  items:\n"
	  "  - {apiVersion: v1, kind: Node, metadata: {name: b}}\n",
	  KIND_NODE, 1, "b unschedulable=0 ready=1 allocatable=" },
	/* Several documents: the third object is the second node. */
	{ "m.yaml",
	  "# comment\n---\napiVersion: v1\nkind: Node\nmetadata: {name: a}\n"
	  "---\n" KUEUE1 "kind: Cohort\nmetadata: {name: co}\n"
	  "---\n---\napiVersion: v1\nkind: Node\nmetadata: {name: z}\n...\n",
	  KIND_NODE, 1, "z unschedulable=0 ready=1 allocatable=" },
};

static void test_decode(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(decode_cases); i++) {
		const struct decode_case *tc = &decode_cases[i];
		struct cluster c;
		struct strbuf sb;

		cluster_init(&c);
		strbuf_init(&sb);
		load_clean(&c, tc->file, tc->text);
		assert_true(cluster_count(&c, tc->kind) > tc->index);
		describe(&sb, &c, tc->kind, tc->index);
		if (strcmp(sb.buf, tc->want) != 0)
			print_error("case %zu\n", i);
		assert_string_equal(sb.buf, tc->want);
		strbuf_release(&sb);
		cluster_release(&c);
	}
}

/* Source positions of objects and pod sets: the start of their mapping. */
static void test_positions(void **state)
{
	static const char text[] =
		"apiVersion: v1\nkind: Node\nmetadata: {name: a}\n"
		"---\n"
		"apiVersion: v1\n"
		"kind: List\n"
		"items:\n"
		"- apiVersion: v1\n"
		"  kind: Node\n"
		"  metadata: {name: b}\n"
		"- apiVersion: batch/v1\n"
		"  kind: Job\n"
		"  metadata: {name: j}\n"
		"  spec: {template: {spec: {containers: [{name: c}]}}}\n";
	struct cluster c;

	(void)state;
	cluster_init(&c);
	load_clean(&c, "pos.yaml", text);
	assert_int_equal(c.nodes.len, 2);
	assert_string_equal(c.nodes.items[0].pos.file, "pos.yaml");
	assert_int_equal(c.nodes.items[0].pos.line, 1);
	assert_int_equal(c.nodes.items[0].pos.col, 1);
	assert_int_equal(c.nodes.items[1].pos.line, 8);
	assert_int_equal(c.nodes.items[1].pos.col, 3);
	assert_int_equal(c.workloads.len, 1);
	assert_int_equal(c.workloads.items[0].pos.line, 11);
	assert_int_equal(c.workloads.items[0].pos.col, 3);
	cluster_release(&c);
}

/* ---- whole files ---------------------------------------------------- */

struct counts_case {
	const char *file;
	const char *text;
	const char *want; /* describe_counts() */
};

static const struct counts_case counts_cases[] = {
	/* Empty files and comment-only files hold nothing. */
	{ "e.yaml", "", "" },
	{ "e.yaml", "# nothing\n---\n---\n", "" },
	/* Every kind in one multi-document file. */
	{ "all.yaml",
	  "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n---\n"
	  "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\n"
	  "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
	  "spec: {containers: [{name: c}]}\n---\n" KUEUE2
	  "kind: Topology\nmetadata: {name: t}\n"
	  "spec: {levels: [{nodeLabel: rack}]}\n---\n" KUEUE2
	  "kind: ResourceFlavor\nmetadata: {name: f}\n---\n" KUEUE2
	  "kind: ClusterQueue\nmetadata: {name: cq}\nspec: {}\n---\n" KUEUE2
	  "kind: Cohort\nmetadata: {name: co}\n---\n" KUEUE2
	  "kind: LocalQueue\nmetadata: {name: lq}\n"
	  "spec: {clusterQueue: cq}\n---\n" KUEUE2
	  "kind: WorkloadPriorityClass\nmetadata: {name: pc}\nvalue: 1\n"
	  "---\n" KUEUE2 "kind: Workload\nmetadata: {name: w}\n"
	  "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n---\n"
	  "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n"
	  "spec: {template: {spec: {containers: [{}]}}}\n---\n"
	  "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\n"
	  "metadata: {name: pg}\nspec: {minMember: 2}\n---\n"
	  "apiVersion: echelon.dev/v1alpha1\nkind: Configuration\n",
	  "Namespace=1 Node=1 Pod=1 Topology=1 ResourceFlavor=1 "
	  "ClusterQueue=1 Cohort=1 "
	  "LocalQueue=1 WorkloadPriorityClass=1 Workload=2 PodGroup=1 "
	  "Configuration=1 jobs=1" },
	/* The same name in two namespaces, or in two kinds, is no clash;
	 * a Job "x" and a Workload "x" differ (job-x). */
	{ "ns.yaml",
	  KUEUE1 "kind: LocalQueue\nmetadata: {name: q, namespace: a}\n"
		 "spec: {clusterQueue: cq}\n---\n" KUEUE1
		 "kind: LocalQueue\nmetadata: {name: q, namespace: b}\n"
		 "spec: {clusterQueue: cq}\n---\n" KUEUE1
		 "kind: ClusterQueue\nmetadata: {name: q}\nspec: {}\n---\n"
		 "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\n"
		 "spec: {template: {spec: {containers: [{}]}}}\n---\n" KUEUE1
		 "kind: Workload\nmetadata: {name: x}\n"
		 "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n",
	  "ClusterQueue=1 LocalQueue=2 Workload=2 jobs=1" },
	/* JSON: one document, a List in it. */
	{ "l.json",
	  "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": ["
	  "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": "
	  "{\"name\": \"a\"}}, {\"apiVersion\": \"v1\", \"kind\": \"Node\", "
	  "\"metadata\": {\"name\": \"b\"}}]}",
	  "Node=2" },
	/* A List without items, or with null items, is empty. */
	{ "l.yaml", "apiVersion: v1\nkind: List\n", "" },
	{ "l.yaml", "apiVersion: v1\nkind: List\nitems: []\n", "" },
	{ "l.yaml", "apiVersion: v1\nkind: List\nitems: ~\n", "" },
};

static void test_counts(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(counts_cases); i++) {
		const struct counts_case *tc = &counts_cases[i];
		struct cluster c;
		struct strbuf sb;

		cluster_init(&c);
		strbuf_init(&sb);
		load_clean(&c, tc->file, tc->text);
		describe_counts(&sb, &c);
		if (strcmp(sb.buf, tc->want) != 0)
			print_error("case %zu\n", i);
		assert_string_equal(sb.buf, tc->want);
		strbuf_release(&sb);
		cluster_release(&c);
	}
}

/* Without a Configuration the cluster's is Kueue's default. */
static void test_default_config(void **state)
{
	struct cluster c;
	struct strbuf sb;

	(void)state;
	cluster_init(&c);
	strbuf_init(&sb);
	load_clean(&c, "n.yaml",
		   "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n");
	describe_config(&sb, cluster_config(&c));
	assert_string_equal(sb.buf,
			    "Mixed balanced=0 preferredNodeAffinity=0 "
			    "waitForPodsReady=0 timeout=1800s "
			    "recovery=1800s block=0 requeue=Eviction base=60 "
			    "max=3600 limit=-1");
	strbuf_reset(&sb);
	load_clean(&c, "c.yaml",
		   "apiVersion: echelon.dev/v1alpha1\nkind: Configuration\n"
		   "placement: {algorithm: BestFit}\n");
	describe_config(&sb, cluster_config(&c));
	assert_true(strncmp(sb.buf, "BestFit ", 8) == 0);
	strbuf_release(&sb);
	cluster_release(&c);
}

/* ---- folders, usage, all-or-nothing ------------------------------- */

static char *format_diag(const struct diag *d)
{
	struct strbuf sb;
	char *text;

	strbuf_init(&sb);
	diag_format(d, &sb);
	text = strbuf_take(&sb);
	strbuf_release(&sb);
	return text;
}

/*
 * tests/data/manifest/usage: nodes n1 and n2, and pods on them, one
 * Succeeded (holds nothing), one Failed, one Pending (unbound) and one on
 * a node that is not defined (a warning).
 */
static void test_usage(void **state)
{
	char *dir = testutil_path("tests/data/manifest/usage");
	const char *paths[] = { dir };
	struct cluster c;
	struct strbuf sb;
	struct diag d;
	char *text, *want;

	(void)state;
	cluster_init(&c);
	diag_init(&d);
	strbuf_init(&sb);
	assert_int_equal(manifest_load_paths(&c, paths, 1, &d), 0);
	text = format_diag(&d);
	want = xasprintf("%s/pods.yaml:40:1: warning: spec.nodeName: node "
			 "\"gone\" is not defined; the pod's usage is not "
			 "counted\n",
			 dir);
	assert_string_equal(text, want);
	assert_int_equal(c.nodes.len, 2);
	assert_int_equal(c.pods.len, 6);
	describe(&sb, &c, KIND_NODE, 0);
	assert_string_equal(sb.buf, "n1 unschedulable=0 ready=1 "
				    "allocatable=cpu=8,memory=32Gi,pods=110 "
				    "usage=cpu=3500m,memory=5Gi,pods=2");
	strbuf_reset(&sb);
	describe(&sb, &c, KIND_NODE, 1);
	assert_string_equal(sb.buf, "n2 unschedulable=0 ready=1 "
				    "allocatable=cpu=8,memory=32Gi,pods=110");
	free(text);
	free(want);
	free(dir);
	strbuf_release(&sb);
	diag_release(&d);
	cluster_release(&c);
}

/* References to undefined objects are warnings; built-in PriorityClasses
 * are defined; a second global default PriorityClass is a warning. */
static void test_check_refs(void **state)
{
	static const char text[] =
		"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
		"metadata: {name: a}\nvalue: 1\nglobalDefault: true\n"
		"---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
		"metadata: {name: b}\nvalue: 2\nglobalDefault: true\n"
		"---\n" KUEUE2 "kind: Workload\nmetadata: {name: w}\n"
		"spec: {priorityClassName: wpc, podSets: [{template: {spec: "
		"{priorityClassName: pc, containers: [{}]}}}]}\n"
		"---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n"
		"spec: {template: {spec: {priorityClassName: gone, "
		"containers: [{}]}}}\n"
		"---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: k}\n"
		"spec: {template: {spec: {priorityClassName: a, "
		"containers: [{}]}}}\n"
		"---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: s}\n"
		"spec: {template: {spec: {priorityClassName: "
		"system-node-critical, containers: [{}]}}}\n";
	struct cluster c;
	struct diag d;
	char *out;

	(void)state;
	cluster_init(&c);
	load_clean(&c, "r.yaml", text);
	diag_init(&d);
	cluster_check_refs(&c, &d);
	out = format_diag(&d);
	assert_string_equal(
		out, "r.yaml:13:1: warning: spec.priorityClassName: "
		     "WorkloadPriorityClass \"wpc\" is not defined\n"
		     "r.yaml:13:1: warning: spec.podSets.template.spec."
		     "priorityClassName: PriorityClass \"pc\" is not "
		     "defined\n"
		     "r.yaml:18:1: warning: spec.template.spec."
		     "priorityClassName: PriorityClass \"gone\" is not "
		     "defined\n"
		     "r.yaml:7:1: warning: globalDefault: PriorityClass "
		     "\"a\" is also the global default; the lowest value "
		     "counts\n");
	free(out);
	diag_release(&d);
	cluster_release(&c);
}

/*
 * tests/data/manifest/batch, loaded in name order: 1-good.yaml (node a,
 * queue cq), 2-bad.yaml (node b, and a ClusterQueue with one error),
 * 3-clash.yaml (node c, and node a again), 4-good.json (node d). Only
 * the files without errors and clashes are applied.
 */
static void test_all_or_nothing_files(void **state)
{
	char *dir = testutil_path("tests/data/manifest/batch");
	const char *paths[] = { dir };
	struct cluster c;
	struct strbuf sb;
	struct diag d;
	char *text, *want;

	(void)state;
	cluster_init(&c);
	diag_init(&d);
	strbuf_init(&sb);
	assert_int_equal(manifest_load_paths(&c, paths, 1, &d), -EINVAL);
	text = format_diag(&d);
	want = xasprintf("%s/2-bad.yaml:11:21: spec.queueingStrategy: "
			 "unsupported value \"Fast\": must be one of "
			 "\"BestEffortFIFO\", \"StrictFIFO\"\n"
			 "%s/3-clash.yaml:6:1: metadata.name: Node \"a\" is "
			 "already defined at %s/1-good.yaml:1:1\n",
			 dir, dir, dir);
	assert_string_equal(text, want);
	assert_int_equal(d.errors, 2);
	describe_counts(&sb, &c);
	assert_string_equal(sb.buf, "Node=2 ClusterQueue=1");
	assert_non_null(cluster_find(&c, KIND_NODE, NULL, "a"));
	assert_non_null(cluster_find(&c, KIND_NODE, NULL, "d"));
	assert_null(cluster_find(&c, KIND_NODE, NULL, "b"));
	assert_null(cluster_find(&c, KIND_NODE, NULL, "c"));
	/* A rejected file registers no resource names. */
	assert_int_equal(resource_lookup(c.resources, "example.com/bad"), -1);
	assert_true(resource_lookup(c.resources, "example.com/good") >= 0);
	free(text);
	free(want);
	free(dir);
	strbuf_release(&sb);
	diag_release(&d);
	cluster_release(&c);
}

/* Missing paths are errors of their own; the others still load. */
static void test_missing_path(void **state)
{
	char *dir = testutil_path("tests/data/manifest/usage/nodes.yaml");
	const char *paths[] = { "/nonexistent/echelon.yaml", dir };
	struct cluster c;
	struct diag d;
	char *text;

	(void)state;
	cluster_init(&c);
	diag_init(&d);
	assert_int_equal(manifest_load_paths(&c, paths, 2, &d), -EINVAL);
	text = format_diag(&d);
	assert_string_equal(text, "/nonexistent/echelon.yaml: cannot open: "
				  "No such file or directory\n");
	assert_int_equal(c.nodes.len, 2);
	free(text);
	free(dir);
	diag_release(&d);
	cluster_release(&c);
}

struct buffers_case {
	const char *first;  /* loads cleanly */
	const char *second; /* rejected as a whole */
	const char *want;   /* messages of the second */
	const char *counts; /* after both */
};

static const struct buffers_case buffers_cases[] = {
	/* A name clash with the earlier file rejects the whole later file,
	 * its other objects included. */
	{ "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n",
	  "apiVersion: v1\nkind: Node\nmetadata: {name: b}\n---\n"
	  "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n",
	  "2.yaml:5:1: metadata.name: Node \"a\" is already defined at "
	  "1.yaml:1:1\n",
	  "Node=1" },
	/* Every clash is reported. */
	{ KUEUE1 "kind: LocalQueue\nmetadata: {name: q, namespace: x}\n"
		 "spec: {clusterQueue: cq}\n---\n" KUEUE1
		 "kind: ResourceFlavor\nmetadata: {name: f}\n",
	  KUEUE2 "kind: ResourceFlavor\nmetadata: {name: f}\n---\n" KUEUE2
		 "kind: LocalQueue\nmetadata: {name: q, namespace: x}\n"
		 "spec: {clusterQueue: other}\n",
	  "2.yaml:1:1: metadata.name: ResourceFlavor \"f\" is already "
	  "defined at 1.yaml:6:1\n"
	  "2.yaml:5:1: metadata.name: LocalQueue \"x/q\" is already defined "
	  "at 1.yaml:1:1\n",
	  "ResourceFlavor=1 LocalQueue=1" },
	/* A Job and an earlier Workload of the same name. */
	{ KUEUE1 "kind: Workload\nmetadata: {name: job-x}\n"
		 "spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n",
	  "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\n"
	  "spec: {template: {spec: {containers: [{}]}}}\n",
	  "2.yaml:1:1: metadata.name: Workload \"default/job-x\" is already "
	  "defined at 1.yaml:1:1\n",
	  "Workload=1" },
	/* Only one Configuration, across files too. */
	{ "apiVersion: echelon.dev/v1alpha1\nkind: Configuration\n",
	  "apiVersion: echelon.dev/v1alpha1\nkind: Configuration\n",
	  "2.yaml:1:1: metadata.name: Configuration \"\" is already defined "
	  "at 1.yaml:1:1\n",
	  "Configuration=1" },
	/* One error anywhere rejects every object of the file. */
	{ "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n",
	  "apiVersion: v1\nkind: Node\nmetadata: {name: b}\n"
	  "status: {allocatable: {example.com/new: 1}}\n---\n"
	  "apiVersion: v1\nkind: Node\nmetadata: {name: c}\n"
	  "spec: {unschedulable: 1}\n",
	  "2.yaml:9:23: spec.unschedulable: must be a boolean (true or "
	  "false), not 1\n",
	  "Node=1" },
};

static void test_all_or_nothing_buffers(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(buffers_cases); i++) {
		const struct buffers_case *tc = &buffers_cases[i];
		int nres;
		struct cluster c;
		struct strbuf sb;
		struct diag d;
		char *text;

		cluster_init(&c);
		diag_init(&d);
		strbuf_init(&sb);
		load_clean(&c, "1.yaml", tc->first);
		nres = c.resources->count;
		assert_int_equal(manifest_load_buffer(&c, "2.yaml", tc->second,
						      strlen(tc->second), &d),
				 -EINVAL);
		text = format_diag(&d);
		assert_string_equal(text, tc->want);
		describe_counts(&sb, &c);
		assert_string_equal(sb.buf, tc->counts);
		assert_int_equal(c.resources->count, nres);
		free(text);
		strbuf_release(&sb);
		diag_release(&d);
		cluster_release(&c);
	}
}

/* A rejected file does not use up the resource registry: after files
 * naming 13 new resources each were rejected, a valid one still loads. */
static void test_rejected_resources(void **state)
{
	struct cluster c;
	struct strbuf sb;
	struct diag d;

	(void)state;
	cluster_init(&c);
	diag_init(&d);
	strbuf_init(&sb);
	for (int f = 0; f < 3; f++) {
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "apiVersion: v1\nkind: Node\n"
				   "metadata: {name: n}\n"
				   "status:\n  allocatable:\n");
		for (int r = 0; r < RESOURCE_MAX - RESOURCE_FIXED_COUNT; r++)
			strbuf_addf(&sb, "    f%d.io/r%d: 1\n", f, r);
		strbuf_addstr(&sb, "spec: {unschedulable: maybe}\n");
		assert_int_equal(manifest_load_buffer(&c, "bad.yaml", sb.buf,
						      sb.len, &d),
				 -EINVAL);
		assert_int_equal(d.errors, (size_t)f + 1);
		assert_int_equal(c.resources->count, RESOURCE_FIXED_COUNT);
	}
	load_clean(&c, "good.yaml",
		   "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
		   "status: {allocatable: {nvidia.com/gpu: 8}}\n");
	assert_int_equal(c.nodes.len, 1);
	strbuf_release(&sb);
	diag_release(&d);
	cluster_release(&c);
}

/* ---- limits --------------------------------------------------------- */

/* Load and return the messages; the load must fail. */
static char *load_failing(struct cluster *c, const char *file, const char *text,
			  size_t len, struct diag *d)
{
	assert_int_equal(manifest_load_buffer(c, file, text, len, d), -EINVAL);
	assert_true(d->errors > 0);
	for (int k = 0; k < KIND_COUNT; k++)
		assert_int_equal(cluster_count(c, (enum kind)k), 0);
	return format_diag(d);
}

static void test_deep_nesting(void **state)
{
	static const char *const files[] = { "deep.yaml", "deep.json" };
	const size_t depth = 100000;
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb);
	/* Nested flow lists and objects far beyond any manifest. */
	for (size_t i = 0; i < depth; i++)
		strbuf_addstr(&sb, i % 2 ? "[" : "{\"a\": ");
	for (size_t i = depth; i-- > 0;)
		strbuf_addstr(&sb, i % 2 ? "]" : "}");
	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		struct cluster c;
		struct diag d;
		char *text;

		cluster_init(&c);
		diag_init(&d);
		text = load_failing(&c, files[f], sb.buf, sb.len, &d);
		assert_non_null(strstr(text, "invalid YAML: "));
		free(text);
		diag_release(&d);
		cluster_release(&c);
	}
	/* Block-style nesting in a decoded field. */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "apiVersion: v1\nkind: Node\nmetadata:\n"
			   "  name: n\n  labels:\n");
	for (size_t i = 0; i < 200; i++)
		strbuf_addf(&sb, "%*s- \n", (int)(2 * i + 4), "");
	{
		struct cluster c;
		struct diag d;
		char *text;

		cluster_init(&c);
		diag_init(&d);
		text = load_failing(&c, "deep.yaml", sb.buf, sb.len, &d);
		assert_int_equal(d.errors, 1);
		free(text);
		diag_release(&d);
		cluster_release(&c);
	}
	strbuf_release(&sb);
}

/* Lists nest at most 4 deep. */
static void test_nested_lists(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb);
	for (int depth = 1; depth <= 6; depth++) {
		struct cluster c;
		struct diag d;
		char *text;
		int rc;

		strbuf_reset(&sb);
		for (int i = 0; i < depth; i++)
			strbuf_addstr(&sb, "{\"apiVersion\": \"v1\", \"kind\": "
					   "\"List\", \"items\": [");
		strbuf_addstr(&sb, "{\"apiVersion\": \"v1\", \"kind\": "
				   "\"Node\", \"metadata\": {\"name\": "
				   "\"n\"}}");
		for (int i = 0; i < depth; i++)
			strbuf_addstr(&sb, "]}");
		cluster_init(&c);
		diag_init(&d);
		rc = manifest_load_buffer(&c, "l.json", sb.buf, sb.len, &d);
		text = format_diag(&d);
		if (depth <= 4) {
			assert_int_equal(rc, 0);
			assert_int_equal(c.nodes.len, 1);
		} else {
			assert_int_equal(rc, -EINVAL);
			assert_non_null(strstr(text, "items[0].items[0]."
						     "items[0].items[0].kind: "
						     "Lists may be nested at "
						     "most 4 deep\n"));
		}
		free(text);
		diag_release(&d);
		cluster_release(&c);
	}
	strbuf_release(&sb);
}

/* Many objects, many errors, long strings. */
static void test_huge(void **state)
{
	struct cluster c;
	struct strbuf sb;
	struct diag d;
	char *text;

	(void)state;
	strbuf_init(&sb);
	/* 20000 nodes load. */
	for (int i = 0; i < 20000; i++)
		strbuf_addf(&sb,
			    "---\napiVersion: v1\nkind: Node\n"
			    "metadata: {name: n%d}\n"
			    "status: {allocatable: {cpu: 4}}\n",
			    i);
	cluster_init(&c);
	load_clean(&c, "many.yaml", sb.buf);
	assert_int_equal(c.nodes.len, 20000);
	assert_non_null(cluster_find(&c, KIND_NODE, NULL, "n19999"));
	cluster_release(&c);

	/* 5000 errors: DIAG_MAX kept, the rest counted. */
	strbuf_reset(&sb);
	for (int i = 0; i < 5000; i++)
		strbuf_addstr(&sb, "---\napiVersion: v1\nkind: Node\n"
				   "metadata: {name: BAD}\n");
	cluster_init(&c);
	diag_init(&d);
	text = load_failing(&c, "errors.yaml", sb.buf, sb.len, &d);
	assert_int_equal(d.msgs.len, DIAG_MAX);
	assert_int_equal(d.msgs.len + d.dropped, 5000);
	free(text);
	diag_release(&d);
	cluster_release(&c);

	/* A 1 MB name is reported, not copied around unbounded. */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "apiVersion: v1\nkind: Node\nmetadata: {name: ");
	for (int i = 0; i < (1 << 20); i++)
		strbuf_addch(&sb, 'a');
	strbuf_addstr(&sb, "}\n");
	cluster_init(&c);
	diag_init(&d);
	text = load_failing(&c, "long.yaml", sb.buf, sb.len, &d);
	assert_int_equal(d.errors, 1);
	assert_non_null(strstr(text, "is not a DNS-1123 subdomain"));
	free(text);
	diag_release(&d);
	cluster_release(&c);

	/* More resource names than the registry holds. */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
			   "status:\n  allocatable:\n");
	for (int r = 0; r < RESOURCE_MAX; r++)
		strbuf_addf(&sb, "    x.io/r%02d: 1\n", r);
	cluster_init(&c);
	diag_init(&d);
	text = load_failing(&c, "res.yaml", sb.buf, sb.len, &d);
	assert_string_equal(text,
			    "res.yaml:19:5: status.allocatable[\"x.io/r13\"]: "
			    "resource \"x.io/r13\": too many resource names "
			    "(at most 16)\n"
			    "res.yaml:20:5: status.allocatable[\"x.io/r14\"]: "
			    "resource \"x.io/r14\": too many resource names "
			    "(at most 16)\n"
			    "res.yaml:21:5: status.allocatable[\"x.io/r15\"]: "
			    "resource \"x.io/r15\": too many resource names "
			    "(at most 16)\n");
	free(text);
	diag_release(&d);
	cluster_release(&c);
	strbuf_release(&sb);
}

/* Bytes that are not UTF-8, and NUL bytes, anywhere in the input. */
static void test_binary(void **state)
{
	static const struct {
		const char *text;
		size_t len;
		const char *want;
	} cases[] = {
		/* libfyaml 0.7 loops forever on this one without the
		 * check. */
		{ "%\x80\n", 3,
		  "b.yaml:1:2: invalid YAML: not UTF-8 (byte 0x80)\n" },
		{ "a: b\n%\xed\xa0\x80\n", 8,
		  "b.yaml:2:2: invalid YAML: not UTF-8 (byte 0xed)\n" },
		{ "k\xc3\xa9: \xc0\xaf\n", 8,
		  "b.yaml:1:5: invalid YAML: not UTF-8 (byte 0xc0)\n" },
		{ "apiVersion: v1\nkind: Node\nmetadata: {name: \"a\\0b\"}\n",
		  51,
		  "b.yaml:3:19: metadata.name: must not contain NUL "
		  "characters\n" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cluster c;
		struct diag d;
		char *text;

		cluster_init(&c);
		diag_init(&d);
		text = load_failing(&c, "b.yaml", cases[i].text, cases[i].len,
				    &d);
		assert_string_equal(text, cases[i].want);
		free(text);
		diag_release(&d);
		cluster_release(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_default_config),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_check_refs),
		cmocka_unit_test(test_all_or_nothing_files),
		cmocka_unit_test(test_missing_path),
		cmocka_unit_test(test_all_or_nothing_buffers),
		cmocka_unit_test(test_rejected_resources),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_nested_lists),
		cmocka_unit_test(test_huge),
		cmocka_unit_test(test_binary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
