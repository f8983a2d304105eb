// SPDX-License-Identifier: Apache-2.0
/*
 * Workload status from the scheduler, in Kueue's words: what `echelon
 * plan` prints and the daemon serves. The topology assignment goes
 * through the one encoder of src/manifest/enc.c.
 */
#include "status/status.h"

#include "base/strbuf.h"
#include "manifest/enc.h"
#include "place/place_assignment.h"

#include "base/banned.h"

/* "ns/name" of workload wl. */
static json_t *wl_name(const struct cluster *c, uint32_t wl)
{
	const struct workload *w = &c->workloads.items[wl];

	return json_sprintf("%s/%s", w->ns ? w->ns : "", w->name);
}

json_t *status_conditions(const struct sched *s, uint32_t wl)
{
	json_t *arr = json_array();

	for (int t = 0; t < SCHED_COND_COUNT; t++) {
		struct sched_condition c =
			sched_wl_condition(s, wl, (enum sched_cond)t);
		json_t *j;

		if (!c.present)
			continue;
		j = json_object();
		json_object_set_new(
			j, "type",
			json_string(sched_cond_name((enum sched_cond)t)));
		json_object_set_new(j, "status",
				    json_string(c.status ? "True" : "False"));
		json_object_set_new(j, "reason", json_string(c.reason));
		if (c.message && *c.message)
			json_object_set_new(j, "message",
					    json_string(c.message));
		json_array_append_new(arr, j);
	}
	return arr;
}

/* Per-pod requests times the admitted count, for the resources that got
 * a flavor: Kueue's resourceUsage. */
static json_t *resource_usage(const struct cluster *c, const struct podset *ps,
			      const struct sched_podset_admission *pa)
{
	json_t *o = json_object();

	for (int r = 0; r < RESOURCE_MAX; r++) {
		if (pa->flavor[r] < 0)
			continue;
		json_object_set_new(
			o, resource_name(c->resources, r),
			enc_quantity(c, r, ps->requests.v[r] * pa->count));
	}
	return o;
}

static json_t *podset_assignment(const struct cluster *c, const struct sched *s,
				 const struct workload *w, size_t i,
				 const struct sched_podset_admission *pa,
				 bool v1beta2)
{
	json_t *j = json_object(), *fl = json_object();
	const struct topo *t = sched_topo(s, pa->tas_flavor);

	json_object_set_new(j, "name", json_string(w->podsets[i].name));
	json_object_set_new(j, "count", json_integer(pa->count));
	for (int r = 0; r < RESOURCE_MAX; r++) {
		if (pa->flavor[r] < 0)
			continue;
		json_object_set_new(
			fl, resource_name(c->resources, r),
			json_string(c->flavors.items[pa->flavor[r]].name));
	}
	json_object_set_new(j, "flavors", fl);
	if (v1beta2)
		json_object_set_new(j, "resourceUsage",
				    resource_usage(c, &w->podsets[i], pa));
	if (t && pa->nodes && pa->count > 0) {
		struct topology_assignment *ta = place_assignment_of_nodes(
			t, pa->nodes, (size_t)pa->count);

		json_object_set_new(j, "topologyAssignment",
				    v1beta2 ? enc_topology_assignment_slices(ta)
					    : enc_topology_assignment(ta));
		topology_assignment_free(ta);
	}
	return j;
}

json_t *status_podset_assignments(const struct cluster *c,
				  const struct sched *s, uint32_t wl)
{
	const struct sched_admission *adm = sched_wl_admission(s, wl);
	json_t *arr = json_array();

	for (size_t k = 0; adm && k < adm->npodsets; k++)
		json_array_append_new(
			arr, podset_assignment(c, s, &c->workloads.items[wl], k,
					       &adm->ps[k], false));
	return arr;
}

json_t *status_admission(const struct cluster *c, const struct sched *s,
			 uint32_t wl)
{
	const struct sched_admission *adm = sched_wl_admission(s, wl);
	json_t *arr;

	if (!adm)
		return NULL;
	arr = json_array();
	for (size_t k = 0; k < adm->npodsets; k++)
		json_array_append_new(
			arr, podset_assignment(c, s, &c->workloads.items[wl], k,
					       &adm->ps[k], true));
	return json_pack("{s:s,s:o}", "clusterQueue", sched_cq_name(s, adm->cq),
			 "podSetAssignments", arr);
}

/* The name of wl's ClusterQueue, or null. */
static json_t *cq_name(const struct sched *s, uint32_t wl)
{
	const char *cq = sched_cq_name(s, sched_wl_cq(s, wl));

	return cq ? json_string(cq) : json_null();
}

json_t *status_admitted(const struct cluster *c, const struct sched *s,
			uint32_t wl)
{
	json_t *j = json_object();

	json_object_set_new(j, "name", wl_name(c, wl));
	json_object_set_new(j, "clusterQueue", cq_name(s, wl));
	json_object_set_new(j, "podSets", status_podset_assignments(c, s, wl));
	json_object_set_new(j, "conditions", status_conditions(s, wl));
	return j;
}

json_t *status_preempted(const struct cluster *c, const struct sched *s,
			 const struct sched_decision *d)
{
	json_t *j = json_object();

	json_object_set_new(j, "name", wl_name(c, d->wl));
	/* the queue it was admitted in, where its quota was taken back */
	json_object_set_new(j, "clusterQueue",
			    json_string(sched_cq_name(s, d->cq)));
	json_object_set_new(j, "by", wl_name(c, d->by));
	json_object_set_new(j, "reason",
			    json_string(sched_preempt_reason_name(d->reason)));
	json_object_set_new(j, "conditions", status_conditions(s, d->wl));
	return j;
}

json_t *status_pending(const struct cluster *c, const struct sched *s,
		       uint32_t wl, int64_t cq_pos, int64_t lq_pos)
{
	json_t *j = json_object();
	enum sched_pend why;
	struct strbuf msg;

	strbuf_init(&msg);
	why = sched_wl_pending(s, wl, &msg);
	json_object_set_new(j, "name", wl_name(c, wl));
	json_object_set_new(j, "clusterQueue", cq_name(s, wl));
	json_object_set_new(j, "position",
			    cq_pos >= 0 ? json_integer(cq_pos) : json_null());
	json_object_set_new(j, "positionInLocalQueue",
			    lq_pos >= 0 ? json_integer(lq_pos) : json_null());
	json_object_set_new(j, "reason", json_string(sched_pend_name(why)));
	json_object_set_new(j, "message", json_string(msg.buf));
	json_object_set_new(j, "conditions", status_conditions(s, wl));
	strbuf_release(&msg);
	return j;
}
