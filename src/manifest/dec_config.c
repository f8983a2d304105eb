// SPDX-License-Identifier: Apache-2.0
/*
 * Decoder for echelon's Configuration (echelon.dev/v1alpha1): placement
 * options and waitForPodsReady, with Kueue's field names and defaults.
 */
#include "manifest/dec.h"

#include <errno.h>
#include <string.h>

#include "base/banned.h"

static int placement(struct dec *x, struct ynode *n, struct config *c)
{
	int bad = 0;
	static const char *const known[] = { "algorithm", "balancedPlacement",
					     "preferredNodeAffinity", NULL };
	static const char *const algorithms[] = { "Mixed", "BestFit",
						  "LeastFreeCapacity",
						  "FragmentationAware", NULL };
	int a = (int)c->placement.algorithm;

	if (dec_expect_map(x, n) < 0)
		return -EINVAL;
	dec_check_fields(x, n, known, NULL);
	bad |= dec_enum_field(x, n, "algorithm", algorithms, &a) < 0;
	bad |= dec_bool_field(x, n, "balancedPlacement",
			      &c->placement.balanced) < 0;
	bad |= dec_bool_field(x, n, "preferredNodeAffinity",
			      &c->placement.preferred_node_affinity) < 0;
	if (bad)
		return -EINVAL;
	/* The names above are in enum placement_algorithm order. */
	c->placement.algorithm = (enum placement_algorithm)a;
	return 0;
}

static int requeuing(struct dec *x, struct ynode *n,
		     struct requeuing_strategy *r)
{
	static const char *const known[] = { "timestamp", "backoffBaseSeconds",
					     "backoffMaxSeconds",
					     "backoffLimitCount", NULL };
	static const char *const stamps[] = { "Eviction", "Creation", NULL };
	int ts = (int)r->timestamp;
	int rc = 0;

	if (dec_expect_map(x, n) < 0)
		return -EINVAL;
	dec_check_fields(x, n, known, NULL);
	if (dec_enum_field(x, n, "timestamp", stamps, &ts) < 0)
		rc = -EINVAL;
	if (dec_int_field(x, n, "backoffBaseSeconds", false, 1, INT32_MAX,
			  &r->backoff_base_s) < 0)
		rc = -EINVAL;
	if (dec_int_field(x, n, "backoffMaxSeconds", false, 1, INT32_MAX,
			  &r->backoff_max_s) < 0)
		rc = -EINVAL;
	if (dec_int_field(x, n, "backoffLimitCount", false, 0, INT32_MAX,
			  &r->backoff_limit_count) < 0)
		rc = -EINVAL;
	r->timestamp = (enum requeue_timestamp)ts;
	if (rc == 0 && r->backoff_max_s < r->backoff_base_s &&
	    dec_get(n, "backoffMaxSeconds")) {
		size_t len = dec_push(x, "backoffMaxSeconds");

		dec_error(x, dec_get(n, "backoffMaxSeconds"),
			  "must be at least backoffBaseSeconds (%lld)",
			  (long long)r->backoff_base_s);
		dec_pop(x, len);
		rc = -EINVAL;
	} else if (rc == 0 && r->backoff_max_s < r->backoff_base_s) {
		/* Only the base was given: point at it, not at nothing. */
		size_t len = dec_push(x, "backoffBaseSeconds");

		dec_error(x, dec_get(n, "backoffBaseSeconds"),
			  "must be at most backoffMaxSeconds (%lld by "
			  "default)",
			  (long long)r->backoff_max_s);
		dec_pop(x, len);
		rc = -EINVAL;
	}
	return rc;
}

static int wait_for_pods_ready(struct dec *x, struct ynode *n,
			       struct wait_for_pods_ready *w)
{
	static const char *const known[] = {
		"enable",	  "timeout",	       "recoveryTimeout",
		"blockAdmission", "requeuingStrategy", NULL
	};
	struct ynode *f;
	int has_recovery, rc = 0;

	if (dec_expect_map(x, n) < 0)
		return -EINVAL;
	dec_check_fields(x, n, known, NULL);
	/* As in Kueue v1beta2: the block being present enables it. */
	w->enable = true;
	if (dec_bool_field(x, n, "enable", &w->enable) < 0)
		rc = -EINVAL;
	if (dec_duration_field(x, n, "timeout", &w->timeout_us) < 0)
		rc = -EINVAL;
	if (dec_bool_field(x, n, "blockAdmission", &w->block_admission) < 0)
		rc = -EINVAL;
	has_recovery = dec_duration_field(x, n, "recoveryTimeout",
					  &w->recovery_timeout_us);
	if (has_recovery < 0)
		rc = -EINVAL;
	else if (has_recovery == 0)
		w->recovery_timeout_us = w->timeout_us;
	if ((f = dec_get(n, "requeuingStrategy"))) {
		size_t len = dec_push(x, "requeuingStrategy");

		if (requeuing(x, f, &w->requeuing) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	return rc;
}

int dec_config(struct dec *x, struct ynode *root)
{
	static const char *const known[] = { "apiVersion",	 "kind",
					     "metadata",	 "placement",
					     "waitForPodsReady", NULL };
	struct config *c = vec_push_zero(&x->batch->configs);
	struct ynode *f;
	int rc = 0;

	config_init(c);
	c->pos = x->obj_pos;
	dec_check_fields(x, root, known, NULL);
	if ((f = dec_get(root, "placement"))) {
		size_t len = dec_push(x, "placement");

		if (placement(x, f, c) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	if ((f = dec_get(root, "waitForPodsReady"))) {
		size_t len = dec_push(x, "waitForPodsReady");

		if (wait_for_pods_ready(x, f, &c->wait_for_pods_ready) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	if (rc < 0) {
		cluster_pop_last(x->batch, KIND_CONFIG);
		return -EINVAL;
	}
	if (x->batch->configs.len > 1) {
		cluster_pop_last(x->batch, KIND_CONFIG);
		dec_error(x, root, "only one Configuration may be given");
		return -EINVAL;
	}
	return cluster_index_last(x->batch, KIND_CONFIG) < 0 ? -EINVAL : 0;
}
