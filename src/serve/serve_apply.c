// SPDX-License-Identifier: Apache-2.0
/*
 * Start-up objects of `echelon serve`: YAML documents turned into JSON
 * (libfyaml's JSON emitter) and generated nodes encoded by src/manifest,
 * each applied through api_handle() like a client's request, so they get
 * exactly the API's validation, defaults and hooks.
 */
#include "serve/serve_apply.h"

#include <dirent.h>
#include <errno.h>
#include <libfyaml.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "manifest/enc.h"
#include "manifest/manifest.h"
#include "model/cluster.h"
#include "sim/gen.h"

#include "base/banned.h"

#define FIELD_MANAGER "echelon-serve"

struct apply {
	struct api *a;
	struct api_store *s;
	int64_t now_us;
	struct serve_apply_stats *st;
	struct diag *d;
	/* A remote cluster's replica (serve_apply_local): its kinds are
	 * refused, its namespaces are not created; dry: check only. */
	serve_apply_served_fn served;
	void *served_ctx;
	bool dry;
};

/* One request through the API; the reply's code, body in *ret_body
 * (parsed, or NULL). */
static int call(struct apply *ap, const char *method, const char *path,
		const char *query, const char *ctype, const char *body,
		json_t **ret_body)
{
	struct api_req r = {
		.method = method,
		.path = path,
		.query = query,
		.accept = "application/json",
		.content_type = ctype,
		.body = body,
		.body_len = body ? strlen(body) : 0,
		.user_agent = FIELD_MANAGER,
	};
	struct api_resp resp;
	int code;

	api_handle(ap->a, &r, ap->now_us, &resp);
	code = resp.code;
	if (ret_body)
		*ret_body = json_loadb(resp.body.buf, resp.body.len, 0, NULL);
	api_resp_release(&resp);
	return code;
}

/* A Status reply's message and causes, after "where: ". */
static void report(struct apply *ap, const char *file, int line, int col,
		   const char *what, int code, json_t *status)
{
	const char *msg = json_string_value(json_object_get(status, "message"));
	json_t *causes =
		json_object_get(json_object_get(status, "details"), "causes");
	size_t i;
	json_t *c;

	if (!json_array_size(causes)) {
		diag_add(ap->d, DIAG_ERROR, file, line, col, "%s: %s (%d)",
			 what, msg ? msg : "refused", code);
		return;
	}
	json_array_foreach(causes, i, c)
	{
		const char *f = json_string_value(json_object_get(c, "field"));
		const char *m =
			json_string_value(json_object_get(c, "message"));

		diag_add(ap->d, DIAG_ERROR, file, line, col, "%s: %s%s%s", what,
			 f ? f : "", f ? ": " : "", m ? m : "invalid");
	}
}

static char *collection(const struct api_kind *k, const char *version,
			const char *ns)
{
	struct strbuf sb;
	char *path;

	strbuf_init(&sb);
	if (*k->group)
		strbuf_addf(&sb, "/apis/%s/%s", k->group, version);
	else
		strbuf_addf(&sb, "/api/%s", version);
	if (k->namespaced)
		strbuf_addf(&sb, "/namespaces/%s", ns);
	strbuf_addf(&sb, "/%s", k->resource);
	path = strbuf_take(&sb);
	strbuf_release(&sb); /* take leaves sb initialised, with a buffer */
	return path;
}

int serve_apply_namespace(struct api *a, struct api_store *s, const char *ns,
			  int64_t now_us)
{
	const struct api_kind *k = api_kind_of("v1", "Namespace");
	struct serve_apply_stats st = { 0 };
	struct apply ap = { a, s, now_us, &st, NULL, NULL, NULL, false };
	char *body, *path;
	int code;

	if (!k || api_store_get(s, k, "", ns))
		return 0;
	body = xasprintf("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
			 "\"metadata\":{\"name\":\"%s\"}}",
			 ns);
	code = call(&ap, "POST", "/api/v1/namespaces", NULL, "application/json",
		    body, NULL);
	free(body);
	if (code != 201)
		return code == 409 ? 0 : -EINVAL;
	/* Active, as Kubernetes' namespace controller sets it. */
	path = xasprintf("/api/v1/namespaces/%s/status", ns);
	code = call(&ap, "PATCH", path, NULL, "application/merge-patch+json",
		    "{\"status\":{\"phase\":\"Active\"}}", NULL);
	free(path);
	return code == 200 ? 0 : -EINVAL;
}

static uint64_t stored_rv(struct apply *ap, const struct api_kind *k,
			  const char *ns, const char *name)
{
	const struct api_obj *o;

	o = api_store_get(ap->s, api_kind_storage(k), k->namespaced ? ns : "",
			  name);
	return o ? o->rv : 0;
}

/* PATCH obj's status onto the status subresource (merge). */
static int apply_status(struct apply *ap, const char *item, json_t *status,
			const char *file, int line, int col, const char *what)
{
	json_t *patch = json_pack("{sO}", "status", status), *reply = NULL;
	char *path = xasprintf("%s/status", item);
	char *body = json_dumps(patch, JSON_COMPACT);
	int code, rc = 0;

	code = call(ap, "PATCH", path, "fieldManager=" FIELD_MANAGER,
		    "application/merge-patch+json", body, &reply);
	if (code >= 300) {
		report(ap, file, line, col, what, code, reply);
		rc = -EINVAL;
	}
	json_decref(reply);
	json_decref(patch);
	free(body);
	free(path);
	return rc;
}

/*
 * The merge patch of obj onto its stored object, less what a controller
 * owns once the object exists: an existing Job's spec.suspend is Kueue's
 * (its webhook suspends a queued Job, admission resumes it), so applying
 * the same file again at a restart must not suspend an admitted Job and
 * so delete its running pods. Returns a new JSON text.
 */
static char *update_body(const struct api_kind *k, const json_t *obj)
{
	json_t *patch, *spec;
	char *body;

	if (k != api_kind_at(API_KIND_JOB))
		return json_dumps(obj, JSON_COMPACT);
	patch = json_deep_copy(obj);
	spec = json_object_get(patch, "spec");
	if (json_is_object(spec))
		json_object_del(spec, "suspend");
	body = json_dumps(patch, JSON_COMPACT);
	json_decref(patch);
	return body;
}

static int put_object(struct apply *ap, json_t *obj, const struct api_kind *k,
		      const char *version, const char *file, int line, int col);

/* An object for a remote cluster's replica: only of a kind the cluster
 * does not serve (the rest is the cluster's to hold), in a namespace
 * the cluster has; then put unless dry. */
static int check_local(struct apply *ap, json_t *obj, const struct api_kind *k,
		       const char *version, const char *file, int line, int col)
{
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	json_t *meta = json_object_get(obj, "metadata");
	const char *ns = json_string_value(json_object_get(meta, "namespace"));
	const char *name = json_string_value(json_object_get(meta, "name"));

	if (ap->served(ap->served_ctx, k)) {
		diag_add(ap->d, DIAG_ERROR, file, line, col,
			 "%s %s: the cluster serves %s: apply it to the "
			 "cluster (kubectl apply), not to echelon",
			 kind, name, k->resource);
		return -EINVAL;
	}
	if (k->namespaced &&
	    !api_store_get(ap->s, api_kind_of("v1", "Namespace"), "", ns)) {
		diag_add(ap->d, DIAG_ERROR, file, line, col,
			 "%s %s/%s: namespace \"%s\" is not in the cluster",
			 kind, ns, name, ns);
		return -EINVAL;
	}
	return ap->dry ? 0 : put_object(ap, obj, k, version, file, line, col);
}

/* Create obj, or merge it into the stored one. obj is borrowed. */
static int apply_object(struct apply *ap, json_t *obj, const char *file,
			int line, int col)
{
	const char *av = json_string_value(json_object_get(obj, "apiVersion"));
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	json_t *meta = json_object_get(obj, "metadata");
	const char *name = json_string_value(json_object_get(meta, "name"));
	const char *ns = json_string_value(json_object_get(meta, "namespace"));
	const struct api_kind *k = av && kind ? api_kind_of(av, kind) : NULL;
	const char *version = av && strchr(av, '/') ? strchr(av, '/') + 1 : av;

	if (k && !name && strcmp(k->kind, "Configuration") == 0) {
		/* echelon's Configuration is one per cluster and files may
		 * leave it unnamed (as Kueue's); the API needs a name. */
		name = "default";
		if (!json_is_object(meta)) {
			meta = json_object();
			json_object_set_new(obj, "metadata", meta);
		}
		json_object_set_new(meta, "name", json_string(name));
	}
	if (!k || !name) {
		diag_add(ap->d, DIAG_ERROR, file, line, col,
			 !k ? "kind \"%s\" (apiVersion \"%s\") is not served"
			    : "%s (apiVersion \"%s\"): metadata.name: "
			      "required",
			 kind ? kind : "", av ? av : "");
		return -EINVAL;
	}
	if (k->namespaced && !ns) {
		ns = "default";
		json_object_set_new(meta, "namespace", json_string(ns));
	}
	if (ap->served)
		return check_local(ap, obj, k, version, file, line, col);
	if (k->namespaced &&
	    serve_apply_namespace(ap->a, ap->s, ns, ap->now_us) < 0) {
		diag_add(ap->d, DIAG_ERROR, file, line, col,
			 "namespace \"%s\" cannot be created", ns);
		return -EINVAL;
	}
	return put_object(ap, obj, k, version, file, line, col);
}

/* POST obj, or merge-PATCH it into the stored one. */
static int put_object(struct apply *ap, json_t *obj, const struct api_kind *k,
		      const char *version, const char *file, int line, int col)
{
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	json_t *meta = json_object_get(obj, "metadata"), *reply = NULL;
	const char *name = json_string_value(json_object_get(meta, "name"));
	const char *ns = json_string_value(json_object_get(meta, "namespace"));
	char *coll, *item, *body, *what;
	uint64_t before;
	int code, rc = 0;

	coll = collection(k, version, ns);
	item = xasprintf("%s/%s", coll, name);
	what = k->namespaced ? xasprintf("%s %s/%s", kind, ns, name)
			     : xasprintf("%s %s", kind, name);
	before = stored_rv(ap, k, ns, name);
	body = before ? update_body(k, obj) : json_dumps(obj, JSON_COMPACT);
	if (!before) {
		code = call(ap, "POST", coll,
			    "fieldManager=" FIELD_MANAGER
			    "&fieldValidation=Strict",
			    "application/json", body, &reply);
	} else {
		code = call(ap, "PATCH", item,
			    "fieldManager=" FIELD_MANAGER
			    "&fieldValidation=Strict",
			    "application/merge-patch+json", body, &reply);
	}
	if (code >= 300) {
		report(ap, file, line, col, what, code, reply);
		rc = -EINVAL;
	} else if (!before && json_is_object(json_object_get(obj, "status")) &&
		   (k->subresources & API_SUB_STATUS)) {
		/* A file's status seeds a new object only: once it exists,
		 * its status is the cluster's (a kubelet's, the scheduler's),
		 * as kubectl apply leaves a status subresource alone. */
		rc = apply_status(ap, item, json_object_get(obj, "status"),
				  file, line, col, what);
	}
	if (!rc && !before)
		ap->st->created++;
	else if (!rc && stored_rv(ap, k, ns, name) != before)
		ap->st->updated++;
	else if (!rc)
		ap->st->unchanged++;
	json_decref(reply);
	free(body);
	free(what);
	free(item);
	free(coll);
	return rc;
}

/* Where a document starts: its first key. */
static void doc_pos(struct fy_node *root, int *line, int *col)
{
	void *it = NULL;
	struct fy_node_pair *p = fy_node_mapping_iterate(root, &it);
	struct fy_token *t =
		p ? fy_node_get_scalar_token(fy_node_pair_key(p)) : NULL;
	const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;

	*line = m ? m->line + 1 : 0;
	*col = m ? m->column + 1 : 0;
}

static int apply_file(struct apply *ap, const char *path)
{
	struct fy_parse_cfg cfg = { .flags = FYPCF_QUIET };
	struct fy_parser *fyp = fy_parser_create(&cfg);
	struct fy_document *fyd;
	int rc = 0;

	if (!fyp || fy_parser_set_input_file(fyp, path) != 0) {
		diag_add(ap->d, DIAG_ERROR, path, 0, 0, "cannot read");
		fy_parser_destroy(fyp);
		return -EIO;
	}
	/* A dry pass reports every problem, not only the first. */
	while ((!rc || ap->dry) && (fyd = fy_parse_load_document(fyp))) {
		struct fy_node *root = fy_document_root(fyd);
		char *text = NULL;
		json_t *obj = NULL;
		int line = 0, col = 0;

		if (root && fy_node_is_mapping(root)) {
			doc_pos(root, &line, &col);
			text = fy_emit_document_to_string(
				fyd, FYECF_MODE_JSON_ONELINE);
			obj = text ? json_loads(text, 0, NULL) : NULL;
			if (!obj) {
				diag_add(ap->d, DIAG_ERROR, path, line, col,
					 "not a JSON-compatible document");
				rc = -EINVAL;
			} else if (apply_object(ap, obj, path, line, col) < 0) {
				rc = -EINVAL;
			}
		}
		json_decref(obj);
		free(text);
		fy_parse_document_destroy(fyp, fyd);
	}
	fy_parser_destroy(fyp);
	return rc;
}

static bool manifest_file(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
	       (n > 4 && strcmp(name + n - 4, ".yml") == 0) ||
	       (n > 5 && strcmp(name + n - 5, ".json") == 0);
}

/* A file, or a folder's manifests in name order (as the loader reads
 * them; it has already checked that every entry can be read). */
static int apply_path(struct apply *ap, const char *path, int depth)
{
	struct dirent **ents;
	struct stat st;
	int n, rc = 0;

	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode) || depth > 32)
		return apply_file(ap, path);
	n = scandir(path, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char *child = xasprintf("%s/%s", path, name);

		if ((!rc || ap->dry) && name[0] != '.' &&
		    (manifest_file(name) ||
		     (stat(child, &st) == 0 && S_ISDIR(st.st_mode))) &&
		    apply_path(ap, child, depth + 1) < 0)
			rc = -EINVAL;
		free(child);
		free(ents[i]);
	}
	free(ents);
	return rc;
}

static int apply_encoded(struct apply *ap, const struct cluster *c, enum kind k,
			 size_t i)
{
	json_t *obj = enc_object(c, k, i);
	int rc = apply_object(ap, obj, "--cluster", 0, 0);

	json_decref(obj);
	return rc;
}

/* The nodes (from index first on), Topology and ResourceFlavor that
 * --cluster's spec added to c. */
static int apply_generated(struct apply *ap, const struct cluster *c,
			   const struct gen_spec *gs, size_t first)
{
	int rc = 0;

	for (size_t j = 0; j < cluster_count(c, KIND_TOPOLOGY) && !rc; j++) {
		if (strcmp(c->topologies.items[j].name, gs->topology_name) == 0)
			rc = apply_encoded(ap, c, KIND_TOPOLOGY, j);
	}
	for (size_t j = 0; j < cluster_count(c, KIND_FLAVOR) && !rc; j++) {
		if (strcmp(c->flavors.items[j].name, gs->flavor_name) == 0)
			rc = apply_encoded(ap, c, KIND_FLAVOR, j);
	}
	for (size_t j = first; j < cluster_count(c, KIND_NODE) && !rc; j++)
		rc = apply_encoded(ap, c, KIND_NODE, j);
	return rc;
}

int serve_apply_check(const char *const *paths, size_t npaths, struct diag *d)
{
	struct cluster c;
	int rc;

	cluster_init(&c);
	rc = manifest_load_paths(&c, paths, npaths, d) < 0 ? -EINVAL : 0;
	cluster_release(&c);
	return rc;
}

int serve_apply_local(struct api *a, struct api_store *s,
		      const char *const *paths, size_t npaths,
		      serve_apply_served_fn served, void *ctx, int64_t now_us,
		      struct serve_apply_stats *st, struct diag *d)
{
	struct apply ap = { a, s, now_us, st, d, served, ctx, true };
	int rc = serve_apply_check(paths, npaths, d), bad = 0;

	/* Every document is looked at before any is applied: one refused
	 * refuses them all. */
	for (size_t i = 0; i < npaths && !rc; i++) {
		if (apply_path(&ap, paths[i], 0) < 0)
			bad = -EINVAL;
	}
	if (rc || bad)
		return -EINVAL;
	ap.dry = false;
	for (size_t i = 0; i < npaths && !rc; i++)
		rc = apply_path(&ap, paths[i], 0);
	return rc;
}

int serve_apply(struct api *a, struct api_store *s, const char *const *paths,
		size_t npaths, const char *spec, int64_t now_us,
		struct serve_apply_stats *st, struct diag *d)
{
	struct apply ap = { a, s, now_us, st, d, NULL, NULL, false };
	struct cluster c;
	struct gen_spec gs;
	struct errbuf eb;
	size_t generated = 0;
	int rc = 0;

	/* Check first, as `echelon sim` reads the same input, so nothing is
	 * applied from bad input. */
	cluster_init(&c);
	if (npaths && manifest_load_paths(&c, paths, npaths, d) < 0)
		rc = -EINVAL;
	if (spec && gen_parse(spec, "--cluster", &gs, &eb) < 0) {
		diag_add(d, DIAG_ERROR, NULL, 0, 0, "%s", eb.msg);
		rc = -EINVAL;
	} else if (spec) {
		generated = cluster_count(&c, KIND_NODE);
		if (gen_build(&c, &gs, d) < 0)
			rc = -EINVAL;
	}
	for (size_t i = 0; i < npaths && !rc; i++)
		rc = apply_path(&ap, paths[i], 0);
	if (!rc && spec)
		rc = apply_generated(&ap, &c, &gs, generated);
	cluster_release(&c);
	return rc;
}
