/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the parts of the API handler share (api_route.c, api_list.c,
 * api_write.c, api_watch.c, api_discovery.c): the decoded request, the
 * target resource, and the encoders of objects and Status bodies. Not a
 * public interface: src/api only.
 */
#ifndef ECHELON_API_INTERNAL_H
#define ECHELON_API_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/api.h"
#include "api/api_select.h"
#include "api/api_validate.h"
#include "base/strbuf.h"

struct api {
	struct api_store *s;
	struct api_hooks hooks;
};

enum api_table { API_TABLE_NONE, API_TABLE_V1, API_TABLE_V1BETA1 };

/* The query parameters echelon reads; strings are decoded and owned. */
struct api_query {
	char *label_selector, *field_selector;
	char *cont, *rv, *rv_match;
	char *field_manager, *propagation, *include_object;
	long long limit;	  /* 0: none */
	long long timeout_s;	  /* -1: none */
	long long grace_period_s; /* -1: none */
	bool watch, bookmarks, send_initial, send_initial_set;
	bool dry_run, force;
	enum api_field_validation fv;
};

/* The resource a path names. */
struct api_target {
	const struct api_kind *kind; /* as requested */
	const char *version;	     /* as requested (static, the kind's) */
	char *ns;		     /* NULL: none in the path */
	char *name;		     /* NULL: the collection */
	char *sub;		     /* "status", "binding" or NULL */
	bool bindings;		     /* POST namespaces/NS/bindings */
};

/* Parse the query string; -EINVAL with a 400 in resp on a bad value. */
int api_query_parse(struct api_query *q, const char *query,
		    struct api_resp *resp) MUST_CHECK;
void api_query_release(struct api_query *q);

/* The Table version the Accept header asks for. */
enum api_table api_accept_table(const char *accept);

/* Status replies (api_route.c). */
void api_resp_not_found(struct api_resp *resp, const struct api_kind *k,
			const char *name);
void api_resp_status_json(struct api_resp *resp, int code, const char *reason,
			  const char *message, json_t *details);
/* A Status body {kind: Status ...} as a new object. */
json_t *api_status_body(int code, const char *reason, const char *message,
			json_t *details);
/* {name, group, kind} for a kind's error details (kind: resource). */
json_t *api_details(const struct api_kind *k, const char *name);

/* Objects out: o (a stored object) as kind k at version, appended to out
 * as compact JSON; the stored text when no conversion is needed. */
void api_add_obj(struct strbuf *out, const struct api_obj *o,
		 const struct api_kind *k, const char *version);
/* The object as a new reference in kind k at version. */
json_t *api_obj_view(const struct api_obj *o, const struct api_kind *k,
		     const char *version);
/* Reply with one object (code 200/201), or its one-row Table. */
void api_resp_obj(struct api_resp *resp, int code, const json_t *obj,
		  const struct api_kind *k, enum api_table table,
		  const char *include, int64_t now_us);
/* A Table with no rows yet ("rows":[ open) for k; close with "]}". Its
 * metadata: rv, cont (NULL: none) and remaining (< 0: none). */
void api_table_open(struct strbuf *out, const struct api_kind *k,
		    enum api_table table, const char *rv, const char *cont,
		    long long remaining);
/* One row of obj (in k's served form), with a leading comma unless
 * first. include: "None", "Object" or NULL/"Metadata". */
void api_table_row(struct strbuf *out, const json_t *obj,
		   const struct api_kind *k, const char *include, bool first,
		   int64_t now_us);
/* The same, with text[0..len) obj's compact text (its metadata is copied
 * from it instead of encoded); text may be NULL. */
void api_table_row_text(struct strbuf *out, const json_t *obj, const char *text,
			size_t len, const struct api_kind *k,
			const char *include, bool first, int64_t now_us);

/* The handlers of each part. */
void api_get(struct api *a, const struct api_target *t,
	     const struct api_query *q, const struct api_req *r, int64_t now_us,
	     struct api_resp *resp);
void api_list(struct api *a, const struct api_target *t,
	      const struct api_query *q, const struct api_req *r,
	      int64_t now_us, struct api_resp *resp);
void api_write(struct api *a, const struct api_target *t,
	       const struct api_query *q, const struct api_req *r,
	       int64_t now_us, struct api_resp *resp);
/* now_us: the embedded clock (Table ages in events continue from it). */
void api_watch_start(struct api *a, const struct api_target *t,
		     const struct api_query *q, const struct api_req *r,
		     int64_t now_us, struct api_resp *resp);
/* Discovery, /version and /openapi: 1 when path was one of theirs. */
int api_discovery(struct api *a, const struct api_req *r,
		  struct api_resp *resp);

/* Decode a request body (JSON, or YAML for yaml content types) into
 * *ret; 400/413/415 Status in resp on failure. */
int api_decode_body(const struct api_req *r, bool patch, json_t **ret,
		    struct api_resp *resp) MUST_CHECK;

/* The list kind's and group's strings of a kind. */
const char *api_resource_verbs(void);

#endif
