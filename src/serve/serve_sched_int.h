/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internals of the embedded cluster's scheduler shared by its files
 * (serve_sched.c: the sync loop, the controller's backend, timers;
 * serve_sched_config.c: the controller's cluster from stored objects;
 * serve_sched_job.c: Kueue's Job reconciler and Workload objects;
 * serve_sched_pods.c: pods, binding, PodScheduled, plain pods;
 * serve_sched_gang.c: PodGroup gangs). Not an API.
 *
 * Invariants: x->wl[slot].live exactly when the controller's slot holds a
 * workload this module added; a pod UID is in x->pods at most once; the
 * backend ops only record what to do (x->acts), which the sync loop does
 * after the controller's call has returned.
 */
#ifndef ECHELON_SERVE_SCHED_INT_H
#define ECHELON_SERVE_SCHED_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/api_store.h"
#include "base/compiler.h"
#include "base/hmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "ctl/ctl.h"
#include "model/cluster.h"
#include "obs/obs_metrics.h"
#include "serve/serve_sched.h"

/* The string at o.a.b of a stored object's body, or NULL: the field
 * lookups of the sched files (a pod's spec.nodeName, status.phase,
 * metadata.uid). */
static inline const char *serve_str_at(const json_t *o, const char *a,
				       const char *b)
{
	return json_string_value(json_object_get(json_object_get(o, a), b));
}

/* The kinds this module reads and writes (storage kinds). */
enum sk {
	SK_NAMESPACE,
	SK_NODE,
	SK_TOPOLOGY,
	SK_FLAVOR,
	SK_CLUSTER_QUEUE,
	SK_COHORT,
	SK_LOCAL_QUEUE,
	SK_WPC,
	SK_PRIORITY_CLASS,
	SK_CONFIG,
	SK_WORKLOAD,
	SK_JOB,
	SK_POD_GROUP,
	SK_NATIVE_POD_GROUP, /* scheduling.k8s.io PodGroup */
	SK_POD,
	SK_COUNT,
	SK_CONFIG_COUNT = SK_CONFIG + 1 /* the kinds of the cluster's config */
};

/* A change to handle after the store's event walk (writes may follow). */
struct sev {
	enum api_ev_type type;
	enum sk kind;
	json_t *body; /* a reference of our own */
};

/* The last start-time forecast of the controller (serve_sched_forecast()):
 * NULL when the controller was made again since; when it was made (the
 * monotonic clock) and how long that took. */
struct serve_forecast {
	struct ctl_forecast *f;
	double made_s, cost_s;
};

/* What the controller's backend asked for one workload slot. */
struct swl {
	bool live;
	uint64_t h;
	char *ns, *name; /* the Workload object (or the gang's name) */
	json_t *spec;	 /* the spec the controller has, to ignore echoes */
	char *job;	 /* owning Job (same namespace), NULL: none */
	char *pod;	 /* owning Pod (Kueue's pod integration), NULL: none */
	char *owner_uid; /* the Job's or the Pod's UID, NULL: no owner */
	char *pod_group; /* PodGroup of the gang, NULL: none */
	bool native;	 /* pod_group is a scheduling.k8s.io PodGroup */
	uint32_t npods;
	uint32_t *target;   /* node per pod from the bind op, CTL_NO_NODE */
	uint8_t *want;	    /* the bind op asked, not yet done */
	char **uid_at;	    /* UID of the live pod at each index, or NULL */
	char **name_at;	    /* its name */
	uint32_t succeeded; /* its pods that succeeded */
	uint32_t failed;    /* its pods that failed (not deleted) */
	bool binding;	    /* some want[] set */
	bool release;	    /* released: its pods must go (then released) */
	bool finished;
	bool ungated;	     /* Job unsuspended for the current admission */
	int64_t parallelism; /* the Job's own while a partial admission has
				lowered it; 0 otherwise */
	char **deleting;     /* its pods echelon deleted while released,
				whose deletes the cluster may not have
				answered yet (opt.pod_pending) */
	uint32_t ndeleting;
	char *pending_msg;	    /* last FailedScheduling message written */
	const char *pending_reason; /* its reason (static), for pods that
				       come later */
	int64_t record_until_us;    /* kube: not queued yet, its admission
				       awaited while its pods are bound (until
				       then); 0: not awaited */
	uint64_t pending_key;	    /* sched_wl_pending_key() of pending_msg */
};

/* A pod's flags in x->pods (by UID). */
enum {
	SP_READY_SENT = 1 << 0,
	SP_FAILED_SENT = 1 << 1,
	SP_PLAIN = 1 << 2,	/* no queue, no gang: bound one by one */
	SP_PLAIN_HELD = 1 << 3, /* its requests are on its node's usage */
	SP_AWAIT_HELD = 1 << 4	/* bound, of a workload waiting for its
				   admission record: on its node's usage too
				   (serve_sched_await_release()) */
};

struct serve_sched {
	struct api_store *s;
	struct serve_sched_options opt; /* scheduler_name owned */
	const struct api_kind *kinds[SK_COUNT];
	struct cluster c;
	struct ctl *ctl;
	struct serve_status *status; /* what the last syncs wrote */
	uint64_t cursor;
	int64_t now_us;
	bool config_dirty;
	bool restoring; /* the first pass after new(): adopt admissions */
	VEC(struct sev) evs;
	VEC(struct swl) wl;	  /* by controller slot */
	struct hmap by_name;	  /* "ns/name" of a Workload -> slot */
	struct hmap by_owner;	  /* UID of a Workload's Job or Pod -> slot */
	struct hmap owned;	  /* UID of a Job or Pod -> 1 while a Workload
				     names it its controller: one is made per
				     owner, found whatever its name */
	struct hmap pods;	  /* pod UID -> SP_* flags */
	struct hmap restored_adm; /* gang key -> whether its PodGroup keeps
				     an admission, during a restore only */
	struct hmap held_req;	  /* UID of a pod counted on its node
				     (serve_sched_plain_usage) -> its requests,
				     a struct resvec * (owned) */
	struct hmap bad;	  /* UID of a refused config object -> rv */
	struct hmap done;	/* "ns/name" of Workloads whose Job ended while
				   pending: never queued again */
	struct hmap specs;	/* "kind/ns/name" of a ClusterQueue,
				   LocalQueue or PodGroup -> hash of what the
				   config reads (spec_changed) */
	struct hmap refused;	/* "Kind/ns/name" of a gang's object whose
				   pods echelon cannot honour: Event sent */
	struct hmap early;	/* "ns/name" of a waiting pod of a queued Job
				   whose Workload is not read yet, or of a
				   Job not read yet */
	struct hmap early_jobs; /* UIDs of Jobs not read yet that some pod
				   in early waits for (one left behind by a
				   Job never read stays until a restart) */
	VEC(uint32_t) acts;	/* slots with binds or a release */
	VEC(char *) plain;	/* "ns/name" of plain pods to bind */
	struct hmap plain_keys; /* plain's keys (no duplicates) */
	VEC(char *) new_gangs;	/* "ns/PodGroup": to make */
	struct hmap new_gang_keys; /* new_gangs' keys (no duplicates) */
	struct hmap pg_pods;	   /* gang key of a PodGroup -> its pods' names
				      (struct serve_sched_pg_pods *): our pods
				      that name it, whatever their phase; so that
				      a gang is made without walking every pod of
				      its namespace (serve_sched_gang.c) */
	/* Prepared (serve_sched_prepare()) and not synced since: the UIDs
	 * of the pods bound when it read, so that a pod shown bound since
	 * tells a bind of another leader from a status written by a
	 * kubelet (serve_sched_state_unread()). */
	struct hmap prepared_bound;
	int writes;
	uint64_t pending_cycles; /* ctl cycles at the last pending pass */
	uint32_t awaiting;	 /* slots with record_until_us set */
	/* /metrics: kept across rebuilds of the controller, so that the
	 * counters never go back */
	struct metrics *metrics;
	struct obs_metrics *obs;
	uint64_t pending_seq; /* ctl_changes_seq() at that pass */
	/* The last start-time forecast, in a box of its own so that readers
	 * of a const serve_sched refresh it. */
	struct serve_forecast *forecast;
};

/* serve_sched_gang.c */
/* Free the PodGroup member index and the gangs still to make. */
void serve_sched_gang_release(struct serve_sched *x);

/* serve_sched.c */
/* Whether this sync has made its max_writes (serve_sched_options). */
bool serve_sched_spent(const struct serve_sched *x);
/* The options' progress hook, if any (serve_sched_options.progress):
 * between the parts of a long pass. */
void serve_sched_progress(struct serve_sched *x);
/* serve_status_member_fn over the index of our pods by PodGroup: the
 * first in name order still naming scheduler-plugins PodGroup ns/pg. */
const json_t *serve_sched_pg_first(void *ctx, const char *ns, const char *pg);
struct swl *serve_sched_slot(struct serve_sched *x, uint32_t slot);
void serve_sched_queue_act(struct serve_sched *x, uint32_t slot);
/* The live slot of the Workload ns/name, or -ENOENT. */
int64_t serve_sched_find(const struct serve_sched *x, const char *ns,
			 const char *name);
/* Warning Event about obj (reason, message), counted as a write. */
void serve_sched_warn(struct serve_sched *x, const json_t *obj,
		      const char *reason, const char *fmt, ...)
	PRINTF_LIKE(4, 5);
/* Whether a pod of this spec (or a Job's template's) is echelon's: its
 * schedulerName is ours (unset or "default-scheduler" too, but for a
 * replica of a real cluster). */
bool serve_sched_ours(const struct serve_sched *x, const json_t *spec);
/* Whether the store holds kind k of this module (its storage kind). */
int serve_sched_kind(const struct serve_sched *x, const struct api_kind *k);

/* serve_explain.c */
/* The explain subresource (/apis/echelon.dev/v1alpha1/namespaces/NS/
 * workloads/NAME/explain) as an api hook; -ENOENT for other paths. */
int serve_sched_explain(struct serve_sched *x, const struct api_req *r,
			int64_t now_us, struct api_resp *resp);

/* serve_sched_forecast.c */
/* The start-time forecast of the controller (ctl_forecast.h), made again
 * only when the controller changed, and then not before four times the
 * last one's cost has passed (forecasts take at most a fifth of the
 * daemon's time); runtimes: a Job's sim.echelon.dev/duration plus the
 * pods' start-up in the embedded cluster, else the controller's estimate.
 * Valid until the next call. */
const struct ctl_forecast *serve_sched_forecast(const struct serve_sched *x);

/* serve_sched_config.c */
/* Build the controller's cluster from the stored config objects (first
 * time: the cluster is empty); as ctl_reconfigure's change. */
int serve_sched_load_config(void *ctx, struct cluster *c);
/* A Node changed: its Ready condition and cordon go to the controller at
 * once; anything else needs a rebuild (returns true). */
bool serve_sched_node_changed(struct serve_sched *x, const json_t *node,
			      bool deleted);
/* A plain pod (SP_PLAIN_HELD) came onto its node (sign 1) or left it
 * (-1): its requests on the node's usage, without a rebuild. */
void serve_sched_plain_usage(struct serve_sched *x, const json_t *pod,
			     int sign);
/* Rebuild the cluster's config if it changed since. */
void serve_sched_reconfigure(struct serve_sched *x);

/* serve_sched_job.c */
/* A Job changed: its Workload made when it has none, its end finishes
 * the workload. */
void serve_sched_job(struct serve_sched *x, const struct sev *e);
/* Whether Job job is one the Job reconciler takes: Kueue's queue label,
 * its template echelon's and naming no PodGroup, not ended. */
bool serve_sched_job_queued(const struct serve_sched *x, const json_t *job);
/* A Workload changed. */
void serve_sched_workload(struct serve_sched *x, const struct sev *e);
/* Decode one object's JSON into a workload (moved to *ret_w), -EINVAL
 * with the decoder's message in msg when it refuses it. */
int serve_sched_decode_workload(struct serve_sched *x, const json_t *obj,
				struct workload *ret_w, struct strbuf *msg);
/* Set a Job's spec.suspend, and spec.parallelism when >= 0; 1 when
 * written, 0 when it was so already. */
int serve_sched_suspend(struct serve_sched *x, const char *ns, const char *job,
			bool suspend, int64_t parallelism);
/* Slot's owner ended (its Job Complete or Failed, its Pod terminated,
 * its owner deleted): finished when admitted (quota and nodes free), its
 * Finished condition with Kueue's reason ("Succeeded", "Failed",
 * "OwnerNotFound"; static) and message (copied), else out of its queue
 * and the controller for good (the slot is dropped). */
void serve_sched_end(struct serve_sched *x, uint32_t slot, const char *reason,
		     const char *message);
/* Forget slot's workload (its object is gone). */
void serve_sched_drop(struct serve_sched *x, uint32_t slot);

/* Kube mode: queue the workloads added in this sync, but not one whose
 * pods the replica shows bound already (by a previous leader, whose
 * admission record has not been read yet): that one waits for its
 * record (adopted when read) for a while, or until no pod of it is
 * bound. */
void serve_sched_awaited(struct serve_sched *x);
/* The earliest time a workload stops waiting for its record, or
 * INT64_MAX. */
int64_t serve_sched_awaited_us(const struct serve_sched *x);
/* An admission read back (ctl_adopt()): its pods' nodes are the
 * controller's (the unbound ones are bound there), and its Job must run
 * (the restart may have come before its start or binds). */
void serve_sched_adopted(struct serve_sched *x, uint32_t slot);
/* Fill slot's record for its new workload, made from obj (a Workload
 * object: its controlling Job or Pod is read from its ownerReferences). */
void serve_sched_slot_fill(struct serve_sched *x, uint32_t slot, uint64_t h,
			   const json_t *obj);
/* Kueue's pod integration: the Workload of a queued pod of no Job and no
 * PodGroup (one pod set of one pod), owned by the pod, unless the pod
 * has one already. */
void serve_sched_pod_workload(struct serve_sched *x, const json_t *pod);

/* serve_sched_gang.c */
/* A pod of a PodGroup, or a plain pod with a queue: its gang's member,
 * or the gang is made once its pods are there (a plain pod's is its
 * Workload object, serve_sched_pod_workload). */
void serve_sched_gang_pod(struct serve_sched *x, const struct sev *e,
			  const char *uid);
/* A PodGroup changed. */
void serve_sched_pod_group(struct serve_sched *x, const struct sev *e);
/* Whether e (a ClusterQueue, LocalQueue or PodGroup) changed more than
 * its status and admission annotation since last seen (serve_sched.c). */
bool serve_sched_spec_changed(struct serve_sched *x, const struct sev *e);
/* Make the gangs of pods that became complete in this sync. */
void serve_sched_gangs(struct serve_sched *x);
/* The PodGroup pod belongs to, or NULL: spec.schedulingGroup.podGroupName
 * (*ret_native true: a scheduling.k8s.io PodGroup) before the label
 * scheduling.x-k8s.io/pod-group. */
const char *serve_sched_pod_group_of(const json_t *pod, bool *ret_native);
/* The admission obj keeps in SERVE_ADMISSION_ANNOTATION (a new
 * reference to a JSON object), or NULL. */
json_t *serve_sched_admission_json(const json_t *obj);
/* Native PodGroup ns/name: condition PodGroupInitiallyScheduled False
 * with reason SchedulerError and msg, unless it is True already. */
void serve_sched_pod_group_error(struct serve_sched *x, const char *ns,
				 const char *name, const char *msg);

/* serve_sched_pods.c */
void serve_sched_pod(struct serve_sched *x, const struct sev *e);
/* Job job_uid of namespace ns was read and is not queued: its pods that
 * waited for it (x->early) are handled as any pod now. */
void serve_sched_early_job(struct serve_sched *x, const char *ns,
			   const char *job_uid);
/* Slot stops waiting for its admission record (adopted, or queued): its
 * bound pods leave the node usage they held meanwhile (SP_AWAIT_HELD);
 * one gone from the store already leaves it with its DELETED event. */
void serve_sched_await_release(struct serve_sched *x, uint32_t slot);
/* Whether a pod of this spec asks for what echelon cannot honour
 * (inter-pod affinity, topology spread, volumes of claims and their zone
 * constraints, host ports, resource claims); the first such field's path
 * ("spec.topologySpreadConstraints") appended to field (may be NULL). */
bool serve_sched_unsupported(const json_t *spec, struct strbuf *field);
/* Refuse the owner object obj (a Job whose template asks for what
 * echelon cannot honour): a Warning Event, once, naming the field. True
 * when refused. */
bool serve_sched_refuse_owner(struct serve_sched *x, const json_t *obj,
			      const json_t *spec);
/* A pod of no queue and no gang (or one bound outside the controller):
 * bound one by one, its usage counted on its node. */
void serve_sched_plain_pod(struct serve_sched *x, const struct sev *e,
			   const char *uid);
/* A pod of slot's gang changed: its index, bind state, Ready, Failed. */
void serve_sched_member_pod(struct serve_sched *x, uint32_t slot,
			    const struct sev *e, const char *uid);
/* Bind what the controller asked for slot, when all its pods exist;
 * suspend or wait for the pods of a released one. Returns 1 when the
 * controller was told something (bind results, released), else 0. */
int serve_sched_act(struct serve_sched *x, uint32_t slot);
/* PodScheduled=False and FailedScheduling for pending gangs. */
void serve_sched_pending(struct serve_sched *x);
/* Bind plain pods one by one, as kube-scheduler would. */
void serve_sched_plain(struct serve_sched *x);

#endif
