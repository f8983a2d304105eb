// SPDX-License-Identifier: Apache-2.0
/*
 * Fuzz target for the manifest loader: every input is decoded as a YAML
 * file and as a JSON file into a fresh cluster. A load must either succeed
 * with no error reported, or fail with at least one error and leave the
 * cluster empty (all-or-nothing); every message must format.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "manifest/manifest.h"

#include "base/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void load_as(const char *name, const uint8_t *data, size_t size)
{
	struct cluster c;
	struct strbuf sb;
	struct diag d;
	int rc;

	cluster_init(&c);
	diag_init(&d);
	strbuf_init(&sb);
	rc = manifest_load_buffer(&c, name, (const char *)data, size, &d);
	BUG_ON(rc != 0 && rc != -EINVAL);
	BUG_ON((rc == 0) != (d.errors == 0));
	if (rc < 0) {
		for (int k = 0; k < KIND_COUNT; k++)
			BUG_ON(cluster_count(&c, (enum kind)k) != 0);
	}
	diag_format(&d, &sb);
	BUG_ON(d.msgs.len > 0 && sb.len == 0);
	strbuf_release(&sb);
	diag_release(&d);
	cluster_release(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Beyond what a fuzzer needs to find parser bugs. */
	if (size > 1 << 20)
		return 0;
	load_as("fuzz.yaml", data, size);
	load_as("fuzz.json", data, size);
	return 0;
}
