/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A seeded pseudo-random generator (xoshiro256**, seeded by splitmix64).
 *
 * The core never reads entropy: every random choice comes from an rng that
 * the driver seeds, so a run with the same seed repeats exactly.
 */
#ifndef ECHELON_BASE_RNG_H
#define ECHELON_BASE_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, n); n > 0. Unbiased (rejection sampling). */
uint64_t rng_below(struct rng *r, uint64_t n);
/* Uniform in [0, 1). */
double rng_double(struct rng *r);

#endif
