/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A LocalQueue: the namespaced name that users submit to, pointing at one
 * ClusterQueue. Plain data; strings are interned elsewhere.
 */
#ifndef ECHELON_MODEL_LOCAL_QUEUE_H
#define ECHELON_MODEL_LOCAL_QUEUE_H

#include "base/diag.h"

struct local_queue {
	const char *ns;
	const char *name;
	const char *cluster_queue;
	struct srcpos pos;
};

#endif
