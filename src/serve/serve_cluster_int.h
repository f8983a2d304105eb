/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internals of the embedded cluster shared by its files: the controller
 * state (cursor, timers, work sets, the ownerReferences index) and the
 * JSON and write helpers every controller uses. Not a public interface:
 * only src/serve/serve_cluster.c, serve_jobs.c, serve_kubelet.c,
 * serve_gc.c and serve_dcgm.c (its JSON helpers) include it.
 *
 * Every write goes through cl_update()/cl_create()/cl_delete(), which
 * count writes and never write an object that would not change, so that
 * the controllers settle: an echo of one's own write finds nothing to do.
 */
#ifndef ECHELON_SERVE_CLUSTER_INT_H
#define ECHELON_SERVE_CLUSTER_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/api_store.h"
#include "base/heap.h"
#include "base/hmap.h"
#include "base/rng.h"
#include "base/vec.h"
#include "serve/serve_cluster.h"

/* Kubernetes' names the controllers share. */
#define CL_JOB_TRACKING	  "batch.kubernetes.io/job-tracking"
#define CL_JOB_INDEX	  "batch.kubernetes.io/job-completion-index"
#define CL_FG_FINALIZER	  "foregroundDeletion"
#define CL_ORPHAN_FINALIZ "orphan"
#define CL_JOB_COMPONENT  "job-controller"
#define CL_KUBELET_VER	  "v1.35.0"
#define CL_LEASE_NS	  "kube-node-lease"
/* kube-apiserver's --event-ttl default. */
#define CL_EVENT_TTL_US (3600 * 1000000LL)
/* Kubernetes' syncJobBatchPeriod. */
#define CL_JOB_BATCH_US 1000000
/* Timers one turn fires at most (fire_timers()). */
#define CL_TIMERS_PER_TURN 512

/* A set of string keys kept in insertion order (deterministic work). */
struct cl_keyset {
	struct hmap index;
	VEC(char *) keys;
};

enum cl_timer_kind {
	CL_T_START,	/* a bound pod's containers are up: Running */
	CL_T_END,	/* a running pod's duration is over: Succeeded */
	CL_T_FAIL,	/* a running pod fails (the failure rate) */
	CL_T_JOB,	/* a Job's activeDeadlineSeconds: reconcile it */
	CL_T_BACKOFF,	/* a Job's pod failure back-off is over */
	CL_T_BATCH,	/* a Job's pods changed a batch period ago */
	CL_T_EVENT_TTL, /* an Event has not happened again for an hour */
	CL_T_LEASE,	/* a node's kubelet renews its Lease */
	CL_T_COUNT
};

struct cl_timer {
	int64_t at_us;
	uint64_t seq; /* tie-break: order of arming */
	enum cl_timer_kind kind;
	char *ns, *name, *uid;
};

/* A Job's pod failure back-off, as Kubernetes keeps it (in memory). */
struct cl_backoff {
	char *uid;
	int64_t failures; /* after the last success */
	int64_t last_us;  /* the last failure */
};

/* An object by kind, namespace, name and uid (owned strings). */
struct cl_ref {
	const struct api_kind *kind;
	char *ns, *name, *uid;
};

struct cl_refs {
	struct cl_ref *items;
	size_t len, cap;
};

void cl_refs_add(struct cl_refs *r, const struct api_kind *k, const char *ns,
		 const char *name, const char *uid);
void cl_refs_release(struct cl_refs *r);

/*
 * An index from a key (an owner's uid, a node's name) to the objects last
 * seen under it. Entries are checked again on use (the object still
 * exists with that uid and still belongs under the key) and pruned when
 * stale, so removals need no bookkeeping.
 */
struct cl_index_list {
	char *key;
	struct cl_refs list;
};

struct cl_index {
	struct hmap index; /* key -> position in lists */
	VEC(struct cl_index_list) lists;
	struct hmap seen; /* "key/uid" indexed */
};

/* Whether obj still belongs under key. */
typedef bool (*cl_index_check_fn)(const json_t *obj, const char *key);

void cl_index_init(struct cl_index *x);
void cl_index_release(struct cl_index *x);
void cl_index_add(struct cl_index *x, const char *key, const struct api_kind *k,
		  const json_t *obj);
/* Append to out the objects under key that pass check (others are
 * dropped from the index). */
void cl_index_get(struct cl_index *x, struct api_store *s, const char *key,
		  cl_index_check_fn check, struct cl_refs *out);
/* Drop key and what is under it. */
void cl_index_forget(struct cl_index *x, const char *key);

/* A kubelet's budget of Events: eventBurst tokens refilled at
 * eventRecordQPS, the kubelet's defaults. */
struct cl_bucket {
	double tokens;
	int64_t at_us;
};

struct serve_cluster {
	struct api_store *s;
	struct serve_cluster_options o;
	const struct api_kind *pod_k, *job_k, *node_k, *event_k, *lease_k;
	struct rng rng;
	uint64_t cursor;
	bool relist;	  /* read every object before the next events */
	int writes;	  /* of the current sync */
	int64_t now_us;	  /* of the current sync */
	int64_t fired_us; /* the now_us fired counts timers for */
	unsigned fired;	  /* timers fired at fired_us (CL_TIMERS_PER_TURN) */

	struct heap timers;
	uint64_t timer_seq;
	struct hmap armed; /* "uid/kind" -> the time it is armed for */

	struct cl_keyset jobs;	  /* "ns/name" of Jobs to reconcile */
	struct cl_keyset nodes;	  /* names of Nodes to check */
	struct cl_keyset pods;	  /* "ns/name" of pods for the kubelet */
	struct cl_keyset gone;	  /* uids whose dependents to collect */
	struct cl_keyset owners;  /* uids of owners to look at again */
	struct cl_keyset dropped; /* names of deleted Nodes */

	/* Job uid -> index in backoff: failures since the last success. */
	struct hmap backoff_index;
	VEC(struct cl_backoff) backoff;

	struct cl_index owned;	 /* owner uid -> dependents */
	struct cl_index on_node; /* node name -> pods bound to it */

	/* The kubelets' memory (serve_kubelet.c), lost at a restart as a
	 * kubelet's is. */
	struct hmap images;	  /* "node/image" -> hash of the puller */
	struct hmap pulling;	  /* pod uid -> when it was accepted */
	struct hmap bucket_index; /* node name -> index in buckets */
	VEC(struct cl_bucket) buckets;
	struct hmap killed;	  /* uids of pods whose containers stopped */
	struct hmap speed;	  /* pod uid -> its node's speed (parts per
				     million) when its end was armed */
	struct hmap fault_warned; /* "node=gpu-fault value" warned about */
	VEC(json_t *) stopped;	  /* deleted running pods (references) */
};

/* Key sets. */
void cl_keyset_init(struct cl_keyset *k);
void cl_keyset_release(struct cl_keyset *k);
void cl_keyset_add(struct cl_keyset *k, const char *key);
/* Hand the keys over (caller frees each and the array) and empty k. */
char **cl_keyset_take(struct cl_keyset *k, size_t *ret_n);

/* JSON helpers. */
/* The value at a dotted path ("status.phase") or NULL. */
json_t *cl_get(const json_t *o, const char *path);
const char *cl_str(const json_t *o, const char *path);
/* The object at key of o, created when missing or not an object. */
json_t *cl_obj(json_t *o, const char *key);
json_t *cl_arr(json_t *o, const char *key);
/* RFC 3339 in UTC with seconds ("2026-12-01T13:00:00Z"). */
json_t *cl_jtime(int64_t us);
/* Parse RFC 3339 seconds ("2026-12-01T13:00:00Z") into the embedded
 * clock's instant (base/timemap.h); -1 when not one. */
int64_t cl_parse_time(const char *s);
/* The condition of type in array conds, or NULL. */
json_t *cl_cond(const json_t *conds, const char *type);
/* How each kind keeps its conditions' times. */
enum cl_cond_style {
	CL_COND_JOB,  /* any change: lastProbeTime and lastTransitionTime */
	CL_COND_POD,  /* lastProbeTime null; lastTransitionTime on status */
	CL_COND_NODE, /* lastHeartbeatTime on change; transition on status */
	CL_COND_STYLE_COUNT
};

/* Set condition type in the array "conditions" of status to status st,
 * reason and message (NULL or "": none), times as style says. Returns
 * whether anything changed. */
bool cl_set_cond(json_t *status, const char *type, const char *st,
		 const char *reason, const char *message, int64_t now_us,
		 enum cl_cond_style style);
bool cl_cond_true(const json_t *obj, const char *type);
bool cl_has_finalizer(const json_t *obj, const char *f);
/* Remove finalizer f from obj's metadata; returns whether it was there. */
bool cl_drop_finalizer(json_t *obj, const char *f);
/* The controller ownerReference of obj, or NULL. */
const json_t *cl_controller_ref(const json_t *obj);
bool cl_terminal(const json_t *pod);
bool cl_deleting(const json_t *obj);

/* Writes (counted; never a no-op). body is stolen. */
int cl_update(struct serve_cluster *c, const struct api_obj *o, json_t *body,
	      int64_t now_us);
/* cl_create fills the server-side defaults (api_default) first, as the
 * API server does for a controller's writes. */
int cl_create(struct serve_cluster *c, const struct api_kind *k, json_t *body,
	      int64_t now_us, const struct api_obj **ret);
/* Delete o; one with finalizers is only marked (nothing to do when it
 * is already). */
int cl_delete(struct serve_cluster *c, const struct api_obj *o, int64_t now_us);
/* Drop finalizer f from o (the store removes o when it was being deleted
 * and has no finalizer left). */
int cl_release_finalizer(struct serve_cluster *c, const struct api_obj *o,
			 const char *f, int64_t now_us);
/* Delete o without waiting for its finalizer f (the controller's own). */
int cl_delete_dropping(struct serve_cluster *c, const struct api_obj *o,
		       const char *f, int64_t now_us);

/* Timers: one per object uid and kind; arming again moves it. */
void cl_arm(struct serve_cluster *c, enum cl_timer_kind kind, int64_t at_us,
	    const char *ns, const char *name, const char *uid);
bool cl_armed(const struct serve_cluster *c, const char *uid,
	      enum cl_timer_kind kind);
/* When uid's timer of kind is due, or -1 when it is not armed. */
int64_t cl_armed_at(const struct serve_cluster *c, const char *uid,
		    enum cl_timer_kind kind);
void cl_disarm_mark(struct serve_cluster *c, const char *uid,
		    enum cl_timer_kind kind);
void cl_mark_job(struct serve_cluster *c, const char *ns, const char *name);

/* The Job controller (serve_jobs.c). */
void cl_jobs_reconcile(struct serve_cluster *c, const char *ns,
		       const char *name, int64_t now_us);
/* Drop what is kept about Job uid (gone). */
void cl_jobs_forget(struct serve_cluster *c, const char *uid);
void cl_jobs_release(struct serve_cluster *c);

/* The kubelets and node lifecycle (serve_kubelet.c). */
void cl_kubelet_pod(struct serve_cluster *c, const char *ns, const char *name,
		    int64_t now_us);
void cl_kubelet_timer(struct serve_cluster *c, const struct cl_timer *t,
		      int64_t now_us);
void cl_node_check(struct serve_cluster *c, const char *name, int64_t now_us);
void cl_node_deleted(struct serve_cluster *c, const char *name, int64_t now_us);
/* A pod deleted while its containers ran (body as it was): queued for
 * the kubelet's Killing Events, recorded by cl_kubelet_stopped(). */
void cl_kubelet_gone(struct serve_cluster *c, const json_t *body);
void cl_kubelet_stopped(struct serve_cluster *c, int64_t now_us);
void cl_kubelet_release(struct serve_cluster *c);
/* A node's Lease is due for renewal (t names the node). */
void cl_lease_timer(struct serve_cluster *c, const struct cl_timer *t,
		    int64_t now_us);

/* Garbage collection (serve_gc.c). */
void cl_gc_index(struct serve_cluster *c, const struct api_kind *k,
		 const json_t *obj);
/* Append to out the dependents of owner uid still in the store that
 * still name it in their ownerReferences (stale entries are pruned). */
void cl_gc_dependents(struct serve_cluster *c, const char *owner_uid,
		      struct cl_refs *out);
void cl_gc_collect(struct serve_cluster *c, const char *uid, int64_t now_us);
void cl_gc_owner(struct serve_cluster *c, const char *uid, int64_t now_us);

#endif
