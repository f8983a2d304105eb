/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A LocalQueue: the namespaced name that users submit to, pointing at one
 * ClusterQueue, and its stop policy (Hold: its pending workloads are not
 * admitted; HoldAndDrain: its admitted ones are evicted too). Plain data;
 * strings are interned elsewhere.
 */
#ifndef ECHELON_MODEL_LOCAL_QUEUE_H
#define ECHELON_MODEL_LOCAL_QUEUE_H

#include "base/diag.h"
#include "model/cluster_queue.h"

struct local_queue {
	const char *ns;
	const char *name;
	const char *cluster_queue;
	enum stop_policy stop; /* spec.stopPolicy, STOP_NONE by default */
	struct srcpos pos;
};

#endif
