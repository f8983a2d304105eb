// SPDX-License-Identifier: Apache-2.0
/*
 * Fuzz target for patches: the first byte picks the patch type, the rest
 * is a patch body (YAML for apply patches, JSON otherwise) applied to a
 * fixed pod. A patch either applies, giving an object, or fails with a
 * message; the target is never changed, and nothing leaks.
 */
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>

#include "api/api_patch.h"
#include "base/alloc.h"

#include "base/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char target_text[] =
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
	"\"labels\":{\"a\":\"1\"},\"finalizers\":[\"x\"],\"ownerReferences\":"
	"[{\"uid\":\"u\",\"name\":\"j\"}]},\"spec\":{\"containers\":[{\"name\":"
	"\"c\",\"image\":\"i\",\"env\":[{\"name\":\"E\",\"value\":\"v\"}],"
	"\"ports\":[{\"containerPort\":80}]}],\"tolerations\":[{\"key\":\"k\"}]"
	"},\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\""
	"}],\"n\":[1,2,3]}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum api_patch_type type;
	struct errbuf err = { "" };
	json_t *target, *before, *patch = NULL, *out = NULL;
	int rc;

	if (size < 1 || size > 65536)
		return 0;
	type = (enum api_patch_type)(data[0] % API_PATCH_TYPE_COUNT);
	if (type == API_PATCH_APPLY) {
		rc = api_patch_decode_yaml((const char *)data + 1, size - 1, 64,
					   &patch, &err);
		BUG_ON(rc != 0 && (rc != -EINVAL || !err.msg[0]));
		BUG_ON(rc != 0 && patch);
	} else {
		patch = json_loadb((const char *)data + 1, size - 1,
				   JSON_DECODE_ANY, NULL);
	}
	if (!patch)
		return 0;
	target = json_loads(target_text, 0, NULL);
	before = json_deep_copy(target);
	err.msg[0] = '\0';
	rc = api_patch_apply(api_kind_at(API_KIND_POD), type, target, patch,
			     &out, &err);
	BUG_ON(rc != 0 && (rc != -EINVAL || !err.msg[0] || out));
	BUG_ON(rc == 0 && !json_is_object(out));
	BUG_ON(!json_equal(target, before));
	json_decref(out);
	json_decref(before);
	json_decref(target);
	json_decref(patch);
	return 0;
}
