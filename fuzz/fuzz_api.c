// SPDX-License-Identifier: Apache-2.0
/*
 * Fuzz target for the API's request decoding: the input is split at its
 * first five newlines into method, path, query, Content-Type and Accept,
 * the rest is the body, and the request is answered on a store with a
 * few objects. Every JSON reply is a valid document (a Status for
 * errors; /openapi/v2 is protobuf) with a code Kubernetes uses; a refused
 * request changes nothing; a watch it starts is pumped and freed. Leaks
 * are errors under ASan.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "api/api.h"
#include "api/api_kind.h"
#include "base/alloc.h"

#include "base/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define T0 1796130000000000LL

static const char *const seed[][2] = {
	{ "namespaces", "{\"metadata\":{\"name\":\"default\"}}" },
	{ "nodes", "{\"metadata\":{\"name\":\"n1\"}}" },
	{ "pods", "{\"metadata\":{\"name\":\"p1\",\"namespace\":\"default\","
		  "\"labels\":{\"app\":\"a\"}},\"spec\":{\"containers\":[{"
		  "\"name\":\"c\",\"image\":\"i\"}]}}" },
	{ "pods", "{\"metadata\":{\"name\":\"p2\",\"namespace\":\"default\","
		  "\"finalizers\":[\"x/y\"]},\"spec\":{\"nodeName\":\"n1\"}}" },
	{ "pods", "{\"metadata\":{\"name\":\"p3\",\"namespace\":\"default\","
		  "\"finalizers\":[\"orphan\"],\"deletionTimestamp\":"
		  "\"2026-12-01T13:00:00Z\"}}" },
};

/* The next newline-terminated field of the input, as a new string. */
static char *field(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t len = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	char *s = xstrndup((const char *)*p, len);

	*p = nl ? nl + 1 : end;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct api_store *s;
	struct api *a;
	struct api_resp resp;
	char *f[5];
	uint64_t rv;

	if (size > 1 << 16)
		return 0;
	s = api_store_new(&(struct api_store_options){ .history = 16 });
	for (size_t i = 0; i < sizeof(seed) / sizeof(seed[0]); i++) {
		const struct api_kind *k = api_kind_find("", "v1", seed[i][0]);
		json_t *o = json_loads(seed[i][1], 0, NULL);

		BUG_ON(!k || !o || api_store_create(s, k, o, T0, NULL));
	}
	a = api_new(s, NULL);
	for (int i = 0; i < 5; i++)
		f[i] = field(&p, end);
	rv = api_store_rv(s);
	{
		struct api_req r = {
			.method = f[0],
			.path = f[1],
			.query = f[2],
			.content_type = f[3],
			.accept = f[4],
			.body = (const char *)p,
			.body_len = (size_t)(end - p),
		};

		api_handle(a, &r, T0 + 1000000, &resp);
	}
	BUG_ON(resp.code < 200 || resp.code > 599);
	BUG_ON(resp.code >= 300 && api_store_rv(s) != rv);
	BUG_ON(resp.wrote != (api_store_rv(s) != rv));
	if (resp.watch) {
		struct strbuf out;

		strbuf_init(&out);
		for (int i = 0; i < 3; i++)
			(void)api_watch_next(resp.watch, T0 + i * 70000000LL,
					     &out);
		strbuf_release(&out);
	} else if (!strncmp(resp.content_type, "application/json", 16)) {
		json_t *v = json_loadb(resp.body.buf, resp.body.len, 0, NULL);

		BUG_ON(!v);
		json_decref(v);
	}
	api_resp_release(&resp);
	for (int i = 0; i < 5; i++)
		free(f[i]);
	api_free(a);
	api_store_free(s);
	return 0;
}
