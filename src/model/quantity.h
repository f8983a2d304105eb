/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kubernetes resource quantities ("500m", "1.5Gi", "2e3") as exact integers.
 *
 * A quantity is parsed without floating point and converted to the canonical
 * unit of its kind: milli-units for cpu, bytes for memory and storage, whole
 * units for pods and extended resources. A fractional result is rounded up,
 * as Kubernetes' Value() and MilliValue() do, except for whole units, where
 * it is an error. Every quantity in echelon is a request or a capacity, so a
 * negative one is an error. The page docs/internals/quantities.md gives the
 * grammar. Parsing has no side effects and holds no state.
 */
#ifndef ECHELON_MODEL_QUANTITY_H
#define ECHELON_MODEL_QUANTITY_H

#include <stdint.h>

#include "base/compiler.h"
#include "base/errbuf.h"
#include "base/strbuf.h"

/* Longest quantity text accepted, in bytes. */
#define QUANTITY_MAX_LEN 64

enum quantity_kind {
	QUANTITY_MILLI, /* cpu: stored in milli-units */
	QUANTITY_BYTES, /* memory, storage: bytes */
	QUANTITY_UNITS, /* pods, nvidia.com/gpu, extended resources: units */
	QUANTITY_KIND_COUNT
};

/*
 * Parse s (not NULL) as a quantity of the given kind. Returns 0 and stores
 * the value in canonical units in *ret_value, or returns -EINVAL (empty,
 * malformed, unknown suffix, negative, fractional whole units, longer than
 * QUANTITY_MAX_LEN) or -ERANGE (over INT64_MAX in canonical units) with a
 * message in eb (may be NULL) that quotes s. *ret_value is written only on
 * success.
 */
int quantity_parse(const char *s, enum quantity_kind kind, int64_t *ret_value,
		   struct errbuf *eb) MUST_CHECK;

/*
 * Append the canonical text of value to out. Milli-units: "2" when whole,
 * else "1500m". Bytes: the shorter of the forms with the largest binary
 * suffix that divides exactly ("2Gi", "1536Mi") and with the largest such
 * decimal suffix ("500M", "1T"), binary on a tie; plain digits when neither
 * divides. Units: plain digits. quantity_parse() of the text gives value
 * back for every value >= 0. A negative value gets a leading '-'.
 */
void quantity_format(int64_t value, enum quantity_kind kind,
		     struct strbuf *out);

#endif
