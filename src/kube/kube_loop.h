/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The in-process transport (kube_transport.h): calls are answered by a
 * struct api (src/api) over a store, the same code `echelon serve`
 * answers HTTP with, so the reflectors, the outbox and the lease are
 * tested deterministically, without sockets or a clock. Calls are
 * queued by send() and answered, in order, by kube_loop_run(); watch
 * streams deliver what api_watch_next() produces.
 *
 * Faults for tests (seeded, per call, by rng): a reply replaced by a
 * given status (409, 404, 429 with Retry-After, 500) before the api sees
 * the call, a dropped stream (code 0), a 410 Expired in a watch stream,
 * a delay. KUBE_RETRY is honoured as the real transport does (the
 * backoff in kube_loop's own clock, advanced by kube_loop_run()).
 */
#ifndef ECHELON_KUBE_LOOP_H
#define ECHELON_KUBE_LOOP_H

#include <stdint.h>

#include "api/api.h"
#include "kube/kube_transport.h"

struct kube_loop_faults {
	unsigned long long seed;
	double fail;	  /* share of non-stream calls that fail */
	int fail_code;	  /* their status: 409, 404, 429, 500; 0: a mix */
	const char *only; /* fail only calls whose path contains this */
	double drop;	  /* share of stream lines after which it drops */
	double expire;	  /* share of stream lines replaced by a 410 */
};

struct kube_loop;
/* Answer with api (borrowed) at the clock kube_loop_run() is given. */
struct kube_loop *kube_loop_new(struct api *api);
void kube_loop_free(struct kube_loop *l);
struct kube_transport kube_loop_transport(struct kube_loop *l);
/* Faults from now on (NULL: none). */
void kube_loop_set_faults(struct kube_loop *l,
			  const struct kube_loop_faults *f);
/* Answer the calls due at now_us (queued ones, retries whose backoff
 * ended, new watch events); returns how many callbacks ran. */
int kube_loop_run(struct kube_loop *l, int64_t now_us);
/* The earliest clock a queued call or retry is due at, or a watch wants
 * to run (bookmark, timeout); INT64_MAX when none. */
int64_t kube_loop_next_us(const struct kube_loop *l);
/* Calls not yet ended (streams included). */
unsigned kube_loop_active(const struct kube_loop *l);

#endif
