/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Resource vectors: one int64 per resource id of a resource_registry.
 *
 * Values are in the canonical unit of each resource (milli-cpu, bytes,
 * units). A struct resvec is a plain value, copied by assignment and owning
 * nothing; ids the registry has not handed out stay zero. Requests and
 * capacities are never negative, but a difference (what is left on an
 * over-committed node) may be. Arithmetic that would overflow int64 is a
 * bug, caught by BUG_ON.
 */
#ifndef ECHELON_MODEL_RESVEC_H
#define ECHELON_MODEL_RESVEC_H

#include <stdbool.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "model/resource.h"

struct resvec {
	int64_t v[RESOURCE_MAX];
};

void resvec_zero(struct resvec *r);
bool resvec_is_zero(const struct resvec *r);
/* a += b; BUG on overflow. */
void resvec_add(struct resvec *a, const struct resvec *b);
/* a -= b; BUG on overflow. */
void resvec_sub(struct resvec *a, const struct resvec *b);
/* a += k * b; BUG on overflow. */
void resvec_scale_add(struct resvec *a, const struct resvec *b, int64_t k);

/*
 * Whether one copy of req fits in avail: req[i] <= avail[i] for every
 * resource that req asks for (req[i] > 0). A resource req does not ask for
 * never blocks it, even where avail[i] is negative, as in Kubernetes' fit
 * check. Same as resvec_count_fits(req, avail) >= 1.
 */
bool resvec_fits(const struct resvec *req, const struct resvec *avail);

/* a = the elementwise maximum of a and b. */
void resvec_max(struct resvec *a, const struct resvec *b);

/*
 * How many copies of req fit in avail: the minimum, over the resources req
 * asks for (req[i] > 0), of avail[i] / req[i], a negative avail[i] counting
 * as 0. INT64_MAX when req asks for nothing (all zero).
 */
int64_t resvec_count_fits(const struct resvec *req, const struct resvec *avail);

/*
 * Append "cpu=4,memory=16Gi,nvidia.com/gpu=8" to out: the nonzero entries
 * in id order, each in its canonical quantity form; nothing when r is zero.
 * Every nonzero id must be registered in reg (BUG otherwise).
 */
void resvec_format(const struct resvec *r, const struct resource_registry *reg,
		   struct strbuf *out);

#endif
