/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Events, as Kubernetes components record them: one core/v1 Event object
 * (also served as events.k8s.io/v1) per occurrence about an object, with
 * a repeat of the same reason and message about the same object counted
 * on the existing Event (count, lastTimestamp, series) instead of a new
 * one. Used by the embedded cluster (its controllers and kubelets) and
 * the scheduler.
 */
#ifndef ECHELON_SERVE_EVENT_H
#define ECHELON_SERVE_EVENT_H

#include <jansson.h>
#include <stdint.h>

#include "api/api_store.h"
#include "base/compiler.h"

/* Record an event about object regarding (a stored object's body):
 * type "Normal" or "Warning", reason ("Scheduled"), action ("Binding"),
 * controller (reportingController, e.g. "echelon.dev/scheduler"),
 * message (cut to 1024 bytes). The Event lives in regarding's namespace
 * ("default" for a cluster-scoped object), named <name>.<16 hex> after a
 * hash of (uid, type, reason, message, controller), so a repeat is one
 * lookup. Returns 0 or a negative errno (-EINVAL: regarding has no name
 * or uid, or an argument is NULL). */
int serve_event(struct api_store *s, const json_t *regarding, const char *type,
		const char *reason, const char *action, const char *controller,
		int64_t now_us, const char *fmt, ...) PRINTF_LIKE(8, 9);

/* Who records an Event and about which part of the object. */
struct serve_event_source {
	/* source.component and reportingComponent (reportingController in
	 * events.k8s.io/v1): "kubelet", "job-controller", ... */
	const char *component;
	/* reportingInstance; NULL: "echelon" (the kubelet: its node) */
	const char *instance;
	/* source.host (deprecatedSource.host); NULL: none */
	const char *host;
	/* involvedObject.fieldPath ("spec.containers{main}"); NULL: the
	 * whole object */
	const char *field_path;
};

/* serve_event() with the source spelled out, as the kubelet records
 * Events (component "kubelet", instance and host its node, a container's
 * fieldPath). action may be NULL: the legacy recorders the kubelet uses
 * set none. The repeat key also holds host and fieldPath. Same returns
 * as serve_event() (-EINVAL: src or src->component NULL as well). */
int serve_event_from(struct api_store *s, const json_t *regarding,
		     const struct serve_event_source *src, const char *type,
		     const char *reason, const char *action, int64_t now_us,
		     const char *fmt, ...) PRINTF_LIKE(8, 9);

#endif
