/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The reflector's internals shared by its files: kube_reflect.c (lists,
 * watches, mirroring, refresh, metrics) and kube_reflect_discovery.c
 * (which kinds the server serves, at which version). Not an API.
 */
#ifndef ECHELON_KUBE_REFLECT_INT_H
#define ECHELON_KUBE_REFLECT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/hmap.h"
#include "base/metrics.h"
#include "base/rng.h"
#include "base/vec.h"
#include "kube/kube_reflect.h"

/* What a kind's reflector is doing. */
enum rk_state {
	RK_OFF,	  /* not served (or discovery not done) */
	RK_DUE,	  /* list or watch starts at due_us */
	RK_LIST,  /* a list page in flight */
	RK_WATCH, /* a watch stream open */
};

/* Per mirrored object (key "ns/name"): what the reflector knows of it. */
struct rent {
	unsigned gen; /* the list that last saw it */
	char *rv;     /* remote resourceVersion of the mirrored version */
	json_t *held; /* newest remote body, held while pending() */
};

/* One reflected kind. */
struct rkind {
	struct kube_reflect *r;
	const struct api_kind *kind;   /* the replica's (storage) kind */
	const struct api_kind *served; /* the kind served: kind or a view */
	const char *version;	       /* served version; NULL: not served */
	bool convert;		       /* served is not kind's storage form */
	char label[128]; /* metrics: "podgroups.scheduling.x-k8s.io" */
	char *base;	 /* the collection's path */
	enum rk_state st;
	bool relist;   /* the next start lists */
	bool listed;   /* a list completed once */
	bool expired;  /* the open watch said 410 */
	bool any;      /* the list is the first: resourceVersion=0 */
	bool resync;   /* a relist asked for (kube_reflect_resync) runs */
	uint64_t call; /* the list page or watch in flight */
	int64_t due_us, backoff_us;
	char *rv;   /* the list's, then the last event's resourceVersion */
	char *cont; /* the next page's continue token */
	unsigned gen;
	struct hmap objs; /* key -> struct rent * */
	VEC(char *) held; /* keys whose rent may hold a body */
	int64_t m_lists, m_relists, m_watches, m_expired, m_failures;
	int64_t m_events[5]; /* ADDED MODIFIED DELETED BOOKMARK ERROR */
	int64_t m_objects;
};

/* A discovery or refresh call in flight (ctx of its callbacks). */
struct rcall {
	struct kube_reflect *r;
	uint64_t id;
	struct rkind *rk; /* refresh: the kind */
	char *arg;	  /* discovery: the group version; refresh: key */
	char *rv;	  /* refresh: the object's rv when sent, or NULL */
};

struct kube_reflect {
	struct kube_reflect_options o;
	struct rkind kinds[API_KIND_COUNT];
	size_t nkinds;
	struct rng rng;
	int64_t now_us, start_us, synced_us;
	bool started;
	bool kinds_ready; /* their metrics series made, after discovery */
	/* Discovery. */
	bool disc_done, disc_failed;
	int disc_phase; /* 0: idle, 1: /api and /apis, 2: resource lists */
	unsigned disc_waiting;
	int64_t disc_due_us, disc_backoff_us;
	struct hmap gvs;    /* served group versions ("v1", "batch/v1") */
	struct hmap served; /* "gv resource" served */
	VEC(struct rcall *) calls; /* discovery and refresh calls */
	struct metrics *m;
	int fam[8]; /* metrics families, kube_reflect.c's F_* */
};

/* Discovery (kube_reflect_discovery.c): start it when due; on its end
 * each rkind's served, version, convert and base are set and served
 * kinds are due at once. */
void kube_reflect_discover(struct kube_reflect *r);
/* A jittered wait of about *backoff_us, which then doubles (to 30 s). */
int64_t kube_reflect_backoff(struct kube_reflect *r, int64_t *backoff_us);
/* Forget call c (its callback ran or it was cancelled) and free it. */
void kube_reflect_call_end(struct kube_reflect *r, struct rcall *c);
/* A new call record, kept in r->calls until kube_reflect_call_end(). */
struct rcall *kube_reflect_call_new(struct kube_reflect *r, const char *arg);

#define KR_BACKOFF_MIN_US 200000LL
#define KR_BACKOFF_MAX_US 30000000LL

#endif
