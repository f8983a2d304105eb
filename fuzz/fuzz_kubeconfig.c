// SPDX-License-Identifier: Apache-2.0
/*
 * Fuzz target for the kubeconfig reader: every input is parsed with its
 * current context and with a context named "x". A parse either succeeds
 * with a server URL, a namespace and a context name, or fails with a
 * message and leaves the target empty. Files it names are looked up
 * under a folder that does not exist.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "kube/kube_config.h"

#include "base/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse_as(const char *text, size_t len, const char *context)
{
	struct kube_target t = { 0 };
	struct errbuf err = { { 0 } };
	int rc = kube_config_parse(text, len, "fuzz.yaml", "/nonexistent/dir",
				   context, &t, &err);

	BUG_ON(rc > 0);
	if (rc < 0) {
		BUG_ON(err.msg[0] == '\0');
		BUG_ON(t.server || t.ns || t.context || t.token);
		return;
	}
	BUG_ON(!t.server || !t.ns || !t.context);
	BUG_ON(strncmp(t.server, "http", 4) != 0);
	kube_target_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size);

	parse_as(text, strlen(text), NULL);
	parse_as(text, strlen(text), "x");
	free(text);
	return 0;
}
