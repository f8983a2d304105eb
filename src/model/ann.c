// SPDX-License-Identifier: Apache-2.0
/*
 * The grammar of echelon's simulation annotations, read the same way by the
 * manifest decoder (which reports a bad value at its position) and by the
 * simulator.
 */
#include "model/ann.h"

#include <errno.h>
#include <string.h>

#include "base/duration.h"
#include "model/workload.h"

#include "base/banned.h"

/* A time annotation: -1 when absent. */
static int time_of(const struct labels *ann, const char *key, bool positive,
		   int64_t *ret_us, struct errbuf *eb)
{
	const char *v = labels_get(ann, key);
	int64_t us;
	int rc;

	*ret_us = -1;
	if (!v)
		return 0;
	rc = duration_parse_time(v, strlen(v), &us, eb);
	if (rc == 0 && positive && us == 0)
		rc = errbuf_set(eb, -EINVAL, "must be positive, not \"%s\"", v);
	if (rc < 0)
		return rc;
	*ret_us = us;
	return 0;
}

static int class_of(const struct labels *ann, const char **ret,
		    struct errbuf *eb)
{
	const char *klass = labels_get(ann, ANN_SIM_CLASS);

	*ret = NULL;
	if (klass && !workload_class_valid(klass))
		return errbuf_set(eb, -EINVAL,
				  "must be a string of 1 to %d letters, "
				  "digits, '.', '_' and '-', not \"%s\"",
				  WORKLOAD_CLASS_MAX_LEN, klass);
	*ret = klass;
	return 0;
}

/* The throughput model's classes (sim/throughput.h), which the model
 * layer names without depending on the simulator. */
static int parallelism_of(const struct labels *ann, const char **ret,
			  struct errbuf *eb)
{
	static const char *const names[] = { "data", "tensor", "pipeline" };
	const char *v = labels_get(ann, ANN_SIM_PARALLELISM);

	*ret = NULL;
	if (!v)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (strcmp(v, names[i]) == 0) {
			*ret = v;
			return 0;
		}
	}
	return errbuf_set(eb, -EINVAL,
			  "must be data, tensor or pipeline, not \"%.32s\"", v);
}

int ann_sim_check(const struct labels *ann, const char *key, struct errbuf *eb)
{
	struct ann_sim s;

	if (strcmp(key, ANN_SIM_CLASS) == 0)
		return class_of(ann, &s.klass, eb);
	if (strcmp(key, ANN_SIM_PARALLELISM) == 0)
		return parallelism_of(ann, &s.parallelism, eb);
	return time_of(ann, key, strcmp(key, ANN_SIM_DURATION) == 0,
		       &s.submit_us, eb);
}

int ann_sim_read(const struct labels *ann, struct ann_sim *out,
		 const char **ret_key, struct errbuf *eb)
{
	if (time_of(ann, ANN_SIM_SUBMIT, false, &out->submit_us, eb) < 0) {
		*ret_key = ANN_SIM_SUBMIT;
		return -EINVAL;
	}
	if (time_of(ann, ANN_SIM_DURATION, true, &out->duration_us, eb) < 0) {
		*ret_key = ANN_SIM_DURATION;
		return -EINVAL;
	}
	if (class_of(ann, &out->klass, eb) < 0) {
		*ret_key = ANN_SIM_CLASS;
		return -EINVAL;
	}
	if (parallelism_of(ann, &out->parallelism, eb) < 0) {
		*ret_key = ANN_SIM_PARALLELISM;
		return -EINVAL;
	}
	return 0;
}

bool ann_sim_known(const char *key)
{
	return strcmp(key, ANN_SIM_SUBMIT) == 0 ||
	       strcmp(key, ANN_SIM_DURATION) == 0 ||
	       strcmp(key, ANN_SIM_CLASS) == 0 ||
	       strcmp(key, ANN_SIM_PARALLELISM) == 0;
}
