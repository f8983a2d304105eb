// SPDX-License-Identifier: Apache-2.0
/*
 * Fuzz target for label and field selectors: the first byte picks the
 * kind, the rest is "labels\nfields". A selector either parses and can be
 * matched against objects of every shape, or fails with a message that
 * names the selector at fault; nothing leaks either way.
 */
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_select.h"
#include "base/alloc.h"

#include "base/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const objects[] = {
	"{}",
	"{\"metadata\":{\"name\":\"a\",\"namespace\":\"default\",\"labels\":{"
	"\"app\":\"web\",\"n\":\"5\",\"example.com/x\":\"\"}},\"spec\":{"
	"\"nodeName\":\"n1\",\"unschedulable\":true},\"status\":{\"phase\":"
	"\"Running\",\"succeeded\":3}}",
	"{\"metadata\":{\"labels\":7},\"involvedObject\":[],\"spec\":\"x\"}",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct api_kind *k;
	struct api_select *sel = (struct api_select *)&sel;
	struct errbuf err = { "" };
	char *labels, *fields, *nl;
	int rc;

	if (size < 1 || size > 4096)
		return 0;
	k = api_kind_at(data[0] % api_kind_count());
	labels = xstrndup((const char *)data + 1, size - 1);
	nl = strchr(labels, '\n');
	fields = nl ? nl + 1 : NULL;
	if (nl)
		*nl = '\0';
	rc = api_select_parse(k, labels, fields, &sel, &err);
	if (rc < 0) {
		BUG_ON(rc != -EINVAL);
		BUG_ON(strncmp(err.msg, "labelSelector: ", 15) != 0 &&
		       strncmp(err.msg, "fieldSelector: ", 15) != 0);
		BUG_ON(sel != (struct api_select *)&sel);
	} else {
		BUG_ON(rc != 0);
		/* NULL (everything) exactly when both selectors are empty. */
		BUG_ON(!sel != (!labels[0] && (!fields || !fields[0])));
		for (size_t i = 0; i < ARRAY_SIZE(objects); i++) {
			json_t *obj = json_loads(objects[i], 0, NULL);

			BUG_ON(!obj);
			(void)api_select_match(sel, obj);
			json_decref(obj);
		}
		api_select_free(sel);
	}
	free(labels);
	return 0;
}
