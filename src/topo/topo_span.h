/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The short form of a placement (the verbs' tables, the daemon's
 * explanations): how many domains of each topology level a pod set's pods
 * are on, lowest level first, and for the levels above the lowest the
 * fewest that could hold it
 * ("8 hosts, 1 rack (min 1), 1 block (min 1)"). The full list of domains
 * is what `-o wide` and the structured outputs show.
 */
#ifndef ECHELON_TOPO_SPAN_H
#define ECHELON_TOPO_SPAN_H

#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "model/resvec.h"
#include "topo/topo.h"

/*
 * Append the summary of count pods of request req on the nodes
 * n[0..count) (node indices of t) to out. A level is named after its
 * label's last word ("cloud.provider.com/topology-rack" is "rack",
 * kubernetes.io/hostname "host"), in the plural unless there is one.
 */
void topo_span_summary(const struct topo *t, const uint32_t *n, size_t count,
		       const struct resvec *req, struct strbuf *out);

#endif
