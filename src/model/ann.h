/* SPDX-License-Identifier: Apache-2.0 */
/*
 * echelon's own annotations, in its sim.echelon.dev/ namespace, and their
 * grammar: a Workload's or Job's simulation inputs (when it is submitted,
 * its runtime at the ideal placement, its job class, its parallelism for
 * the throughput model). The model keeps an
 * object's annotations as they are (struct workload.annotations); the
 * manifest decoder checks these with this module, to report a bad value at
 * its position, and the simulator reads them with it.
 */
#ifndef ECHELON_MODEL_ANN_H
#define ECHELON_MODEL_ANN_H

#include <stdbool.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/errbuf.h"
#include "model/label.h"

#define ANN_SIM_PREFIX	    "sim.echelon.dev/"
#define ANN_SIM_SUBMIT	    ANN_SIM_PREFIX "submit"
#define ANN_SIM_DURATION    ANN_SIM_PREFIX "duration"
#define ANN_SIM_CLASS	    ANN_SIM_PREFIX "class"
#define ANN_SIM_PARALLELISM ANN_SIM_PREFIX "parallelism"

/* A workload's simulation inputs; -1 (NULL for strings) when absent. */
struct ann_sim {
	int64_t submit_us;	 /* from the start of the run, >= 0 */
	int64_t duration_us;	 /* > 0 */
	const char *klass;	 /* borrowed from the annotations */
	const char *parallelism; /* "data", "tensor" or "pipeline"; borrowed */
};

/*
 * Read the simulation inputs of ann into *out: submit and duration are
 * seconds or Go durations (duration_parse_time()), the duration positive,
 * the class workload_class_valid(), the parallelism data, tensor or
 * pipeline (sim/throughput.h's classes). Returns 0, or -EINVAL with a message
 * in eb and the key at fault in *ret_key (the first one; out is then
 * partly filled).
 */
int ann_sim_read(const struct labels *ann, struct ann_sim *out,
		 const char **ret_key, struct errbuf *eb) MUST_CHECK;
/* Check only annotation key (one of the four) of ann: 0 when absent or
 * valid, else -EINVAL with a message in eb. */
int ann_sim_check(const struct labels *ann, const char *key,
		  struct errbuf *eb) MUST_CHECK;
/* Whether key is one of the keys above (others in the namespace are
 * unknown). */
bool ann_sim_known(const char *key);

#endif
