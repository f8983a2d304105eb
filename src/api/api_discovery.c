// SPDX-License-Identifier: Apache-2.0
/*
 * What clients read before anything else: /version, discovery and the
 * OpenAPI v3 documents, all generated from the kind registry.
 *
 * Discovery is aggregated (apidiscovery.k8s.io v2 or v2beta1
 * APIGroupDiscoveryList, with its exact Content-Type) when the Accept
 * header asks for it, as kubectl 1.26+ does, and legacy otherwise
 * (APIVersions, APIGroupList, APIGroup, APIResourceList). The OpenAPI v3
 * documents hold only what kubectl checks before it sends
 * fieldValidation=Strict: each kind's PATCH operation with
 * x-kubernetes-group-version-kind and a fieldValidation parameter.
 */
#include "api/api.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api/api_kind.h"
#include "base/alloc.h"
#include "base/hmap.h"

#include "base/banned.h"

#define VERBS                                                                  \
	"[\"create\",\"delete\",\"deletecollection\",\"get\",\"list\","        \
	"\"patch\",\"update\",\"watch\"]"

/* The groups served, each with its versions (preferred first), in
 * registry order. */
struct group {
	const char *name;
	const char *versions[8];
	size_t nversions;
};

static size_t groups(struct group *g, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < api_kind_count(); i++) {
		const struct api_kind *k = api_kind_at(i);
		size_t j;

		for (j = 0; j < n && strcmp(g[j].name, k->group); j++)
			;
		if (j == n) {
			if (n == max)
				continue;
			memset(&g[n], 0, sizeof(g[n]));
			g[n++].name = k->group;
		}
		for (size_t v = 0;
		     v < ARRAY_SIZE(k->versions) && k->versions[v]; v++) {
			size_t x;

			for (x = 0; x < g[j].nversions &&
				    strcmp(g[j].versions[x], k->versions[v]);
			     x++)
				;
			if (x == g[j].nversions &&
			    x < ARRAY_SIZE(g[j].versions))
				g[j].versions[g[j].nversions++] =
					k->versions[v];
		}
	}
	return n;
}

static bool serves(const struct api_kind *k, const char *group,
		   const char *version)
{
	if (strcmp(k->group, group))
		return false;
	for (size_t v = 0; v < ARRAY_SIZE(k->versions) && k->versions[v]; v++)
		if (!strcmp(k->versions[v], version))
			return true;
	return false;
}

static void add_strings(struct strbuf *out, const char *key,
			const char *const *v, size_t max)
{
	if (!v[0])
		return;
	strbuf_addf(out, ",\"%s\":[", key);
	for (size_t i = 0; i < max && v[i]; i++) {
		if (i)
			strbuf_addch(out, ',');
		strbuf_add_json_string(out, v[i]);
	}
	strbuf_addch(out, ']');
}

/* The verbs, short names and categories of a resource, as both
 * discovery forms write them. */
static void add_verbs_names(struct strbuf *out, const struct api_kind *k)
{
	strbuf_addstr(out, ",\"verbs\":" VERBS);
	add_strings(out, "shortNames", k->short_names,
		    ARRAY_SIZE(k->short_names));
	add_strings(out, "categories", k->categories,
		    ARRAY_SIZE(k->categories));
}

/* Aggregated discovery */

static void response_kind(struct strbuf *out, const char *group,
			  const char *version, const char *kind)
{
	strbuf_addstr(out, "{\"group\":");
	strbuf_add_json_string(out, group);
	strbuf_addstr(out, ",\"version\":");
	strbuf_add_json_string(out, version);
	strbuf_addstr(out, ",\"kind\":");
	strbuf_add_json_string(out, kind);
	strbuf_addch(out, '}');
}

static void agg_resource(struct strbuf *out, const struct api_kind *k,
			 const char *version)
{
	strbuf_addstr(out, "{\"resource\":");
	strbuf_add_json_string(out, k->resource);
	strbuf_addstr(out, ",\"responseKind\":");
	response_kind(out, k->group, version, k->kind);
	strbuf_addf(out, ",\"scope\":\"%s\",\"singularResource\":",
		    k->namespaced ? "Namespaced" : "Cluster");
	strbuf_add_json_string(out, k->singular);
	add_verbs_names(out, k);
	if (k->subresources) {
		bool first = true;

		strbuf_addstr(out, ",\"subresources\":[");
		if (k->subresources & API_SUB_STATUS) {
			strbuf_addstr(out, "{\"subresource\":\"status\","
					   "\"responseKind\":");
			response_kind(out, k->group, version, k->kind);
			strbuf_addstr(out, ",\"verbs\":[\"get\",\"patch\","
					   "\"update\"]}");
			first = false;
		}
		if (k->subresources & API_SUB_BINDING) {
			if (!first)
				strbuf_addch(out, ',');
			strbuf_addstr(out, "{\"subresource\":\"binding\","
					   "\"responseKind\":");
			response_kind(out, "", "v1", "Binding");
			strbuf_addstr(out, ",\"verbs\":[\"create\"]}");
		}
		strbuf_addch(out, ']');
	}
	strbuf_addch(out, '}');
}

static void agg_group(struct strbuf *out, const struct group *g)
{
	strbuf_addstr(out, "{\"metadata\":{");
	if (*g->name) {
		strbuf_addstr(out, "\"name\":");
		strbuf_add_json_string(out, g->name);
	}
	strbuf_addstr(out, "},\"versions\":[");
	for (size_t v = 0; v < g->nversions; v++) {
		bool first = true;

		if (v)
			strbuf_addch(out, ',');
		strbuf_addstr(out, "{\"version\":");
		strbuf_add_json_string(out, g->versions[v]);
		strbuf_addstr(out, ",\"resources\":[");
		for (size_t i = 0; i < api_kind_count(); i++) {
			const struct api_kind *k = api_kind_at(i);

			if (!serves(k, g->name, g->versions[v]))
				continue;
			if (!first)
				strbuf_addch(out, ',');
			first = false;
			agg_resource(out, k, g->versions[v]);
		}
		strbuf_addstr(out, "],\"freshness\":\"Current\"}");
	}
	strbuf_addstr(out, "]}");
}

/* The aggregated discovery version the Accept header asks for first:
 * "v2", "v2beta1" or NULL. */
static const char *accept_aggregated(const char *accept)
{
	const char *p = accept;

	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char range[256];

		snprintf(range, sizeof(range), "%.*s",
			 (int)(len < 255 ? len : 255), p);
		if (strstr(range, "g=apidiscovery.k8s.io") &&
		    strstr(range, "as=APIGroupDiscoveryList")) {
			if (strstr(range, "v=v2beta1"))
				return "v2beta1";
			if (strstr(range, "v=v2;") || strstr(range, "v=v2,") ||
			    (strstr(range, "v=v2") && !strstr(range, "v=v2b")))
				return "v2";
		}
		p = comma ? comma + 1 : NULL;
	}
	return NULL;
}

static void aggregated(struct api_resp *resp, const char *ver, bool core)
{
	struct group g[32];
	size_t n = groups(g, ARRAY_SIZE(g));
	bool first = true;

	resp->content_type =
		!strcmp(ver, "v2")
			? "application/json;g=apidiscovery.k8s.io;v=v2;"
			  "as=APIGroupDiscoveryList"
			: "application/json;g=apidiscovery.k8s.io;v=v2beta1;"
			  "as=APIGroupDiscoveryList";
	strbuf_addf(&resp->body,
		    "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":"
		    "\"apidiscovery.k8s.io/%s\",\"metadata\":{},\"items\":[",
		    ver);
	for (size_t i = 0; i < n; i++) {
		if (core != !*g[i].name)
			continue;
		if (!first)
			strbuf_addch(&resp->body, ',');
		first = false;
		agg_group(&resp->body, &g[i]);
	}
	strbuf_addstr(&resp->body, "]}");
}

/* Legacy discovery */

static void group_versions(struct strbuf *out, const struct group *g)
{
	strbuf_addstr(out, "\"versions\":[");
	for (size_t v = 0; v < g->nversions; v++)
		strbuf_addf(out,
			    "%s{\"groupVersion\":\"%s/%s\",\"version\":\"%s\"}",
			    v ? "," : "", g->name, g->versions[v],
			    g->versions[v]);
	strbuf_addf(out,
		    "],\"preferredVersion\":{\"groupVersion\":\"%s/%s\","
		    "\"version\":\"%s\"}",
		    g->name, g->versions[0], g->versions[0]);
}

static void legacy_group(struct strbuf *out, const struct group *g, bool top)
{
	strbuf_addstr(out, top ? "{\"kind\":\"APIGroup\",\"apiVersion\":\"v1\","
				 "\"name\":"
			       : "{\"name\":");
	strbuf_add_json_string(out, g->name);
	strbuf_addch(out, ',');
	group_versions(out, g);
	strbuf_addch(out, '}');
}

static void resource_list(struct strbuf *out, const char *group,
			  const char *version)
{
	char gv[96];
	bool first = true;

	if (*group)
		snprintf(gv, sizeof(gv), "%s/%s", group, version);
	else
		snprintf(gv, sizeof(gv), "%s", version);
	strbuf_addstr(out, "{\"kind\":\"APIResourceList\",\"apiVersion\":"
			   "\"v1\",\"groupVersion\":");
	strbuf_add_json_string(out, gv);
	strbuf_addstr(out, ",\"resources\":[");
	for (size_t i = 0; i < api_kind_count(); i++) {
		const struct api_kind *k = api_kind_at(i);
		const char *ns = k->namespaced ? "true" : "false";

		if (!serves(k, group, version))
			continue;
		strbuf_addstr(out, first ? "{\"name\":" : ",{\"name\":");
		first = false;
		strbuf_add_json_string(out, k->resource);
		strbuf_addstr(out, ",\"singularName\":");
		strbuf_add_json_string(out, k->singular);
		strbuf_addf(out, ",\"namespaced\":%s,\"kind\":", ns);
		strbuf_add_json_string(out, k->kind);
		add_verbs_names(out, k);
		strbuf_addch(out, '}');
		if (k->subresources & API_SUB_STATUS)
			strbuf_addf(out,
				    ",{\"name\":\"%s/status\",\"singularName\":"
				    "\"\",\"namespaced\":%s,\"kind\":\"%s\","
				    "\"verbs\":[\"get\",\"patch\",\"update\"]}",
				    k->resource, ns, k->kind);
		if (k->subresources & API_SUB_BINDING)
			strbuf_addf(
				out,
				",{\"name\":\"%s/binding\",\"singularName\":"
				"\"\",\"namespaced\":%s,\"kind\":"
				"\"Binding\",\"verbs\":[\"create\"]}",
				k->resource, ns);
	}
	strbuf_addstr(out, "]}");
}

/* /version */

static void version(const struct api *a, struct api_resp *resp)
{
	const char *gv =
		a->hooks.git_version ? a->hooks.git_version : "v1.35.0";
	unsigned major = 1, minor = 35;

	if (sscanf(gv, "v%u.%u", &major, &minor) != 2) {
		major = 1;
		minor = 35;
	}
	strbuf_addf(&resp->body, "{\"major\":\"%u\",\"minor\":\"%u\",", major,
		    minor);
	strbuf_addstr(&resp->body, "\"gitVersion\":");
	strbuf_add_json_string(&resp->body, gv);
	strbuf_addstr(&resp->body,
		      ",\"gitCommit\":\"\",\"gitTreeState\":\"clean\","
		      "\"buildDate\":\"1970-01-01T00:00:00Z\",\"goVersion\":"
		      "\"\",\"compiler\":\"echelon\",\"platform\":"
		      "\"linux/amd64\"}");
}

/* OpenAPI v3 */

/* The path of one object of kind k at version, as OpenAPI names it. */
static void kind_path(const struct api_kind *k, const char *version, char *path,
		      size_t size)
{
	if (*k->group)
		snprintf(path, size, "/apis/%s/%s/%s%s/{name}", k->group,
			 version,
			 k->namespaced ? "namespaces/{namespace}/" : "",
			 k->resource);
	else
		snprintf(path, size, "/api/%s/%s%s/{name}", version,
			 k->namespaced ? "namespaces/{namespace}/" : "",
			 k->resource);
}

static void openapi_doc(const struct api *a, struct strbuf *out,
			const char *group, const char *version)
{
	const char *gv =
		a->hooks.git_version ? a->hooks.git_version : "v1.35.0";
	bool first = true;

	strbuf_addstr(out, "{\"openapi\":\"3.0.0\",\"info\":{\"title\":"
			   "\"Kubernetes\",\"version\":");
	strbuf_add_json_string(out, gv);
	strbuf_addstr(out, "},\"paths\":{");
	for (size_t i = 0; i < api_kind_count(); i++) {
		const struct api_kind *k = api_kind_at(i);
		char path[512];

		if (!serves(k, group, version))
			continue;
		kind_path(k, version, path, sizeof(path));
		if (!first)
			strbuf_addch(out, ',');
		first = false;
		strbuf_add_json_string(out, path);
		strbuf_addstr(out, ":{\"patch\":{\"operationId\":");
		strbuf_addf(out, "\"patch%s\"", k->kind);
		strbuf_addstr(out,
			      ",\"parameters\":["
			      "{\"name\":\"dryRun\",\"in\":\"query\","
			      "\"schema\":{\"type\":\"string\","
			      "\"uniqueItems\":true}},"
			      "{\"name\":\"fieldManager\",\"in\":\"query\","
			      "\"schema\":{\"type\":\"string\","
			      "\"uniqueItems\":true}},"
			      "{\"name\":\"fieldValidation\",\"in\":"
			      "\"query\",\"schema\":{\"type\":\"string\","
			      "\"uniqueItems\":true}},"
			      "{\"name\":\"force\",\"in\":\"query\","
			      "\"schema\":{\"type\":\"boolean\","
			      "\"uniqueItems\":true}}],"
			      "\"responses\":{\"200\":{\"description\":"
			      "\"OK\"}},\"x-kubernetes-action\":\"patch\","
			      "\"x-kubernetes-group-version-kind\":");
		response_kind(out, group, version, k->kind);
		strbuf_addstr(out, "}}");
	}
	strbuf_addstr(out, "},\"components\":{\"schemas\":{}}}");
}

static void openapi_index(const struct api *a, struct strbuf *out)
{
	struct group g[32];
	size_t n = groups(g, ARRAY_SIZE(g));
	bool first = true;

	strbuf_addstr(out, "{\"paths\":{");
	for (size_t i = 0; i < n; i++) {
		for (size_t v = 0; v < g[i].nversions; v++) {
			struct strbuf doc;
			char path[160];

			strbuf_init(&doc);
			openapi_doc(a, &doc, g[i].name, g[i].versions[v]);
			if (*g[i].name)
				snprintf(path, sizeof(path), "apis/%s/%s",
					 g[i].name, g[i].versions[v]);
			else
				snprintf(path, sizeof(path), "api/%s",
					 g[i].versions[v]);
			strbuf_addf(out,
				    "%s\"%s\":{\"serverRelativeURL\":"
				    "\"/openapi/v3/%s?hash=%016" PRIX64 "\"}",
				    first ? "" : ",", path, path,
				    hmap_hash(doc.buf, doc.len));
			first = false;
			strbuf_release(&doc);
		}
	}
	strbuf_addstr(out, "}}");
}

/*
 * OpenAPI v2, as kubectl 1.27 and 1.28 read it (protobuf, gnostic's
 * openapi.v2.Document): only what their field validation check looks
 * at, each kind's PATCH operation with its group-version-kind and a
 * fieldValidation query parameter. Field numbers are those of
 * OpenAPIv2.proto.
 */

static void pb_key(struct strbuf *out, unsigned field, unsigned wire)
{
	unsigned v = field << 3 | wire;

	while (v >= 0x80) {
		strbuf_addch(out, (char)(v | 0x80));
		v >>= 7;
	}
	strbuf_addch(out, (char)v);
}

static void pb_bytes(struct strbuf *out, unsigned field, const void *p,
		     size_t len)
{
	size_t v = len;

	pb_key(out, field, 2);
	while (v >= 0x80) {
		strbuf_addch(out, (char)(v | 0x80));
		v >>= 7;
	}
	strbuf_addch(out, (char)v);
	strbuf_add(out, p, len);
}

static void pb_str(struct strbuf *out, unsigned field, const char *s)
{
	pb_bytes(out, field, s, strlen(s));
}

/* The message in msg as field of out; msg is emptied. */
static void pb_msg(struct strbuf *out, unsigned field, struct strbuf *msg)
{
	pb_bytes(out, field, msg->buf, msg->len);
	strbuf_reset(msg);
}

/* A PATCH operation (Operation) for kind k at version. */
static void pb_patch_op(struct strbuf *op, const struct api_kind *k,
			const char *version)
{
	static const char *const params[] = { "dryRun", "fieldManager",
					      "fieldValidation", "force" };
	struct strbuf a, b, yaml;

	strbuf_init(&a);
	strbuf_init(&b);
	strbuf_init(&yaml);
	strbuf_addf(&yaml, "patch%s", k->kind);
	pb_str(op, 5, yaml.buf);
	for (size_t i = 0; i < ARRAY_SIZE(params); i++) {
		/* QueryParameterSubSchema in NonBodyParameter in Parameter
		 * in ParametersItem. */
		pb_str(&a, 2, "query");
		pb_str(&a, 4, params[i]);
		pb_str(&a, 6,
		       strcmp(params[i], "force") ? "string" : "boolean");
		pb_msg(&b, 3, &a);
		pb_msg(&a, 2, &b);
		pb_msg(&b, 1, &a);
		pb_msg(op, 8, &b);
	}
	strbuf_reset(&yaml);
	strbuf_addstr(&yaml, "group: ");
	strbuf_add_json_string(&yaml, k->group);
	strbuf_addf(&yaml, "\nkind: %s\nversion: %s\n", k->kind, version);
	pb_str(&a, 2, yaml.buf); /* Any.yaml */
	pb_str(&b, 1, "x-kubernetes-group-version-kind");
	pb_msg(&b, 2, &a);
	pb_msg(op, 13, &b);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&yaml);
}

static void openapi_v2(const struct api *a, struct strbuf *out)
{
	const char *gv =
		a->hooks.git_version ? a->hooks.git_version : "v1.35.0";
	struct strbuf m, item, paths;

	strbuf_init(&m);
	strbuf_init(&item);
	strbuf_init(&paths);
	pb_str(out, 1, "2.0");
	pb_str(&m, 1, "Kubernetes");
	pb_str(&m, 2, gv);
	pb_msg(out, 2, &m);
	for (size_t i = 0; i < api_kind_count(); i++) {
		const struct api_kind *k = api_kind_at(i);

		for (size_t v = 0;
		     v < ARRAY_SIZE(k->versions) && k->versions[v]; v++) {
			char path[512];

			kind_path(k, k->versions[v], path, sizeof(path));
			pb_patch_op(&m, k, k->versions[v]);
			pb_msg(&item, 8, &m);  /* PathItem.patch */
			pb_str(&m, 1, path);   /* NamedPathItem.name */
			pb_msg(&m, 2, &item);  /* NamedPathItem.value */
			pb_msg(&paths, 2, &m); /* Paths.path */
		}
	}
	pb_msg(out, 8, &paths);
	strbuf_release(&m);
	strbuf_release(&item);
	strbuf_release(&paths);
}

/* The group named g (a path segment), or NULL. */
static const struct group *find_group(const struct group *g, size_t n,
				      const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(g[i].name, name))
			return &g[i];
	return NULL;
}

static bool has_version(const struct group *g, const char *v)
{
	for (size_t i = 0; g && i < g->nversions; i++)
		if (!strcmp(g->versions[i], v))
			return true;
	return false;
}

int api_discovery(struct api *a, const struct api_req *r, struct api_resp *resp)
{
	struct group g[32];
	size_t n = groups(g, ARRAY_SIZE(g));
	const char *p = r->path;
	const struct group *grp;
	char name[128], ver[64];
	const char *agg;

	if (strcmp(r->method, "GET") && strcmp(r->method, "HEAD"))
		return 0;
	agg = accept_aggregated(r->accept);
	if (!strcmp(p, "/version") || !strcmp(p, "/version/")) {
		version(a, resp);
	} else if (!strcmp(p, "/api") || !strcmp(p, "/api/")) {
		if (agg)
			aggregated(resp, agg, true);
		else
			strbuf_addstr(&resp->body,
				      "{\"kind\":\"APIVersions\",\"versions\":"
				      "[\"v1\"],\"serverAddressByClientCIDRs\":"
				      "[]}");
	} else if (!strcmp(p, "/apis") || !strcmp(p, "/apis/")) {
		if (agg) {
			aggregated(resp, agg, false);
		} else {
			bool first = true;

			strbuf_addstr(
				&resp->body,
				"{\"kind\":\"APIGroupList\",\"apiVersion\":"
				"\"v1\",\"groups\":[");
			for (size_t i = 0; i < n; i++) {
				if (!*g[i].name)
					continue;
				if (!first)
					strbuf_addch(&resp->body, ',');
				first = false;
				legacy_group(&resp->body, &g[i], false);
			}
			strbuf_addstr(&resp->body, "]}");
		}
	} else if (sscanf(p, "/api/%63[^/]", ver) == 1 &&
		   strlen(p) == 5 + strlen(ver) &&
		   has_version(find_group(g, n, ""), ver)) {
		resource_list(&resp->body, "", ver);
	} else if (sscanf(p, "/apis/%127[^/]", name) == 1 &&
		   strlen(p) == 6 + strlen(name) &&
		   (grp = find_group(g, n, name)) && *name) {
		legacy_group(&resp->body, grp, true);
	} else if (sscanf(p, "/apis/%127[^/]/%63[^/]", name, ver) == 2 &&
		   strlen(p) == 7 + strlen(name) + strlen(ver) && *name &&
		   has_version(find_group(g, n, name), ver)) {
		resource_list(&resp->body, name, ver);
	} else if (!strcmp(p, "/openapi/v2")) {
		openapi_v2(a, &resp->body);
		resp->content_type =
			"application/com.github.proto-openapi.spec."
			"v2.v1.0+protobuf";
	} else if (!strcmp(p, "/openapi/v3") || !strcmp(p, "/openapi/v3/")) {
		openapi_index(a, &resp->body);
	} else if (sscanf(p, "/openapi/v3/api/%63[^/]", ver) == 1 &&
		   strlen(p) == 16 + strlen(ver) &&
		   has_version(find_group(g, n, ""), ver)) {
		openapi_doc(a, &resp->body, "", ver);
	} else if (sscanf(p, "/openapi/v3/apis/%127[^/]/%63[^/]", name, ver) ==
			   2 &&
		   strlen(p) == 18 + strlen(name) + strlen(ver) && *name &&
		   has_version(find_group(g, n, name), ver)) {
		openapi_doc(a, &resp->body, name, ver);
	} else {
		return 0;
	}
	resp->code = 200;
	if (!resp->content_type)
		resp->content_type = "application/json";
	return 1;
}
