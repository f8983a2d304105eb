// SPDX-License-Identifier: Apache-2.0
/*
 * Label and field selectors: parsed once per request into requirements,
 * then matched against each stored object.
 *
 * Label selectors follow Kubernetes' grammar: requirements separated by
 * commas, each "key", "!key", "key=value", "key==value", "key!=value",
 * "key in (a,b)", "key notin (a,b)", "key>N" or "key<N", white space
 * allowed between tokens; keys and values obey the label syntax. Field
 * selectors are "field=value", "field==value" or "field!=value" terms
 * separated by commas, values escaped with backslashes (\, \= \\), over
 * the fields Kubernetes indexes for the kind.
 */
#include "api/api_select.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "model/label.h"

#include "base/banned.h"

enum label_op { L_EXISTS, L_NOT_EXISTS, L_EQ, L_NE, L_IN, L_NOTIN, L_GT, L_LT };

struct label_req {
	char *key;
	enum label_op op;
	char **values;
	size_t nvalues;
	long long num; /* L_GT, L_LT */
};

/* A selectable field: its name in selectors and where objects hold it
 * (alt: a second place, for the events.k8s.io view of core Events). */
struct field_def {
	const char *name, *path, *alt;
};

struct field_req {
	const struct field_def *def;
	char *value;
	bool ne;
};

struct api_select {
	struct label_req *labels;
	size_t nlabels;
	struct field_req *fields;
	size_t nfields;
};

void api_select_free(struct api_select *sel)
{
	if (!sel)
		return;
	for (size_t i = 0; i < sel->nlabels; i++) {
		struct label_req *r = &sel->labels[i];

		free(r->key);
		for (size_t j = 0; j < r->nvalues; j++)
			free(r->values[j]);
		free(r->values);
	}
	for (size_t i = 0; i < sel->nfields; i++)
		free(sel->fields[i].value);
	free(sel->labels);
	free(sel->fields);
	free(sel);
}

/* ---- label selectors ---- */

struct lexer {
	const char *s;
	size_t i;
	struct errbuf *err;
};

static int PRINTF_LIKE(2, 3) lex_error(struct lexer *lx, const char *fmt, ...)
{
	struct strbuf msg;
	va_list ap;

	strbuf_init(&msg);
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	errbuf_set(lx->err, -EINVAL, "labelSelector: at character %zu: %s",
		   lx->i + 1, msg.buf);
	strbuf_release(&msg);
	return -EINVAL;
}

static void skip_space(struct lexer *lx)
{
	while (lx->s[lx->i] == ' ' || lx->s[lx->i] == '\t')
		lx->i++;
}

/* An identifier: everything up to white space or a special character. */
static char *identifier(struct lexer *lx)
{
	size_t start = lx->i;

	while (lx->s[lx->i] && !strchr(" \t,=!<>()", lx->s[lx->i]))
		lx->i++;
	return xstrndup(lx->s + start, lx->i - start);
}

static bool at_end_of_req(struct lexer *lx)
{
	skip_space(lx);
	return lx->s[lx->i] == '\0' || lx->s[lx->i] == ',';
}

static void add_value(struct label_req *r, char *v)
{
	r->values =
		xreallocarray(r->values, r->nvalues + 1, sizeof(*r->values));
	r->values[r->nvalues++] = v;
}

static int check_value(struct lexer *lx, size_t at, const char *v)
{
	struct errbuf eb;

	if (label_check_value(v, &eb) < 0) {
		lx->i = at;
		return lex_error(lx, "invalid value: %s", eb.msg);
	}
	return 0;
}

/* "(a, b, c)" after in or notin. */
static int value_set(struct lexer *lx, struct label_req *r)
{
	skip_space(lx);
	if (lx->s[lx->i] != '(')
		return lex_error(lx, "expected %s after in or notin", "'('");
	lx->i++;
	for (;;) {
		size_t at;
		char *v;

		skip_space(lx);
		if (lx->s[lx->i] == ')' && r->nvalues == 0)
			return lex_error(lx, "%s",
					 "the set of values is empty");
		at = lx->i;
		v = identifier(lx);
		add_value(r, v);
		if (check_value(lx, at, v) < 0)
			return -EINVAL;
		skip_space(lx);
		if (lx->s[lx->i] == ')') {
			lx->i++;
			return 0;
		}
		if (lx->s[lx->i] != ',')
			return lex_error(lx, "expected %s in the set of values",
					 "',' or ')'");
		lx->i++;
	}
}

/* The operator after a key; -1 when there is none (err set). */
static int label_op(struct lexer *lx)
{
	const char *p = lx->s + lx->i;

	if (strncmp(p, "==", 2) == 0 || strncmp(p, "!=", 2) == 0) {
		lx->i += 2;
		return p[0] == '=' ? L_EQ : L_NE;
	}
	if (*p == '=' || *p == '>' || *p == '<') {
		lx->i++;
		return *p == '=' ? L_EQ : *p == '>' ? L_GT : L_LT;
	}
	if (strncmp(p, "in", 2) == 0 && strchr(" \t(", p[2]) && p[2]) {
		lx->i += 2;
		return L_IN;
	}
	if (strncmp(p, "notin", 5) == 0 && strchr(" \t(", p[5]) && p[5]) {
		lx->i += 5;
		return L_NOTIN;
	}
	lex_error(lx, "expected %s", "=, ==, !=, in, notin, <, > or ','");
	return -1;
}

static int label_req(struct lexer *lx, struct label_req *r)
{
	struct errbuf eb;
	size_t at;
	int op;

	skip_space(lx);
	at = lx->i;
	if (lx->s[lx->i] == '!') {
		lx->i++;
		skip_space(lx);
		at = lx->i;
		r->op = L_NOT_EXISTS;
	}
	r->key = identifier(lx);
	if (!r->key[0])
		return lex_error(lx, "expected %s", "a label key");
	if (label_check_key(r->key, &eb) < 0) {
		lx->i = at;
		return lex_error(lx, "invalid key: %s", eb.msg);
	}
	if (r->op == L_NOT_EXISTS || at_end_of_req(lx)) {
		if (!at_end_of_req(lx))
			return lex_error(lx, "expected %s after !key",
					 "',' or the end");
		return 0;
	}
	if ((op = label_op(lx)) < 0)
		return -EINVAL;
	r->op = (enum label_op)op;
	if (op == L_IN || op == L_NOTIN) {
		if (value_set(lx, r) < 0)
			return -EINVAL;
	} else {
		char *v, *end;

		skip_space(lx);
		at = lx->i;
		v = identifier(lx);
		add_value(r, v);
		if (op == L_GT || op == L_LT) {
			errno = 0;
			r->num = strtoll(v, &end, 10);
			if (!*v || *end || errno) {
				lx->i = at;
				return lex_error(lx, "\"%s\" is not an integer",
						 v);
			}
		} else if (check_value(lx, at, v) < 0) {
			return -EINVAL;
		}
	}
	if (!at_end_of_req(lx))
		return lex_error(lx, "expected %s", "',' or the end");
	return 0;
}

static int parse_labels(struct api_select *sel, const char *s,
			struct errbuf *err)
{
	struct lexer lx = { s, 0, err };

	for (;;) {
		struct label_req *r;

		sel->labels = xreallocarray(sel->labels, sel->nlabels + 1,
					    sizeof(*sel->labels));
		r = &sel->labels[sel->nlabels++];
		memset(r, 0, sizeof(*r));
		if (label_req(&lx, r) < 0)
			return -EINVAL;
		if (lx.s[lx.i] == '\0')
			return 0;
		lx.i++; /* ',' */
	}
}

/* ---- field selectors ---- */

static const struct field_def common_fields[] = {
	{ "metadata.name", "metadata.name", NULL },
	{ "metadata.namespace", "metadata.namespace", NULL },
};

static const struct field_def pod_fields[] = {
	{ "spec.nodeName", "spec.nodeName", NULL },
	{ "spec.restartPolicy", "spec.restartPolicy", NULL },
	{ "spec.schedulerName", "spec.schedulerName", NULL },
	{ "spec.serviceAccountName", "spec.serviceAccountName", NULL },
	{ "spec.hostNetwork", "spec.hostNetwork", NULL },
	{ "status.phase", "status.phase", NULL },
	{ "status.podIP", "status.podIP", NULL },
	{ "status.nominatedNodeName", "status.nominatedNodeName", NULL },
};

static const struct field_def event_fields[] = {
	{ "involvedObject.kind", "involvedObject.kind", "regarding.kind" },
	{ "involvedObject.namespace", "involvedObject.namespace",
	  "regarding.namespace" },
	{ "involvedObject.name", "involvedObject.name", "regarding.name" },
	{ "involvedObject.uid", "involvedObject.uid", "regarding.uid" },
	{ "involvedObject.apiVersion", "involvedObject.apiVersion",
	  "regarding.apiVersion" },
	{ "involvedObject.resourceVersion", "involvedObject.resourceVersion",
	  "regarding.resourceVersion" },
	{ "involvedObject.fieldPath", "involvedObject.fieldPath",
	  "regarding.fieldPath" },
	{ "reason", "reason", NULL },
	{ "reportingComponent", "reportingComponent", "reportingController" },
	{ "source", "source.component", "deprecatedSource.component" },
	{ "type", "type", NULL },
};

/* events.k8s.io/v1 names the same fields its own way. */
static const struct field_def event_v1_fields[] = {
	{ "regarding.kind", "involvedObject.kind", "regarding.kind" },
	{ "regarding.namespace", "involvedObject.namespace",
	  "regarding.namespace" },
	{ "regarding.name", "involvedObject.name", "regarding.name" },
	{ "regarding.uid", "involvedObject.uid", "regarding.uid" },
	{ "regarding.apiVersion", "involvedObject.apiVersion",
	  "regarding.apiVersion" },
	{ "regarding.resourceVersion", "involvedObject.resourceVersion",
	  "regarding.resourceVersion" },
	{ "regarding.fieldPath", "involvedObject.fieldPath",
	  "regarding.fieldPath" },
	{ "reportingController", "reportingComponent", "reportingController" },
	{ "deprecatedSource", "source.component",
	  "deprecatedSource.component" },
};

static const struct field_def node_fields[] = {
	{ "spec.unschedulable", "spec.unschedulable", NULL },
};

static const struct field_def namespace_fields[] = {
	{ "status.phase", "status.phase", NULL },
};

static const struct field_def job_fields[] = {
	{ "status.successful", "status.succeeded", NULL },
};

static const struct field_def workload_fields[] = {
	{ "spec.queueName", "spec.queueName", NULL },
	{ "status.admission.clusterQueue", "status.admission.clusterQueue",
	  NULL },
};

static const struct field_def *find_in(const struct field_def *defs, size_t n,
				       const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(defs[i].name) == len &&
		    strncmp(defs[i].name, name, len) == 0)
			return &defs[i];
	return NULL;
}

#define FIND(defs) find_in(defs, ARRAY_SIZE(defs), name, len)

static const struct field_def *find_field(const struct api_kind *k,
					  const char *name, size_t len)
{
	const struct field_def *d = FIND(common_fields);

	if (d)
		return d;
	switch ((enum api_kind_id)k->id) {
	case API_KIND_POD:
		return FIND(pod_fields);
	case API_KIND_EVENT_V1:
		/* The core names work too. */
		d = FIND(event_v1_fields);
		return d ? d : FIND(event_fields);
	case API_KIND_EVENT:
		return FIND(event_fields);
	case API_KIND_NODE:
		return FIND(node_fields);
	case API_KIND_NAMESPACE:
		return FIND(namespace_fields);
	case API_KIND_JOB:
		return FIND(job_fields);
	case API_KIND_WORKLOAD:
		return FIND(workload_fields);
	default:
		return NULL;
	}
}

/* Unescape a field selector value (\\ \, \=). */
static int unescape(const char *field, const char *s, size_t len, char **ret,
		    struct errbuf *err)
{
	struct strbuf sb;

	strbuf_init(&sb);
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '\\') {
			strbuf_addch(&sb, s[i]);
			continue;
		}
		if (i + 1 >= len || !strchr("\\,=", s[i + 1])) {
			strbuf_release(&sb);
			return errbuf_set(
				err, -EINVAL,
				"fieldSelector: invalid escape in the "
				"value of %s, \"%.*s\": only \\\\, "
				"\\, and \\= are allowed",
				field, (int)len, s);
		}
		strbuf_addch(&sb, s[++i]);
	}
	*ret = strbuf_take(&sb);
	strbuf_release(&sb);
	return 0;
}

static int field_term(const struct api_kind *k, struct api_select *sel,
		      const char *t, size_t len, struct errbuf *err)
{
	struct field_req *r;
	size_t op = len, oplen = 0;

	/* The first unescaped operator: "!=", "==" or "=". */
	for (size_t i = 0; i < len; i++) {
		if (t[i] == '\\') {
			i++;
		} else if (t[i] == '!' && i + 1 < len && t[i + 1] == '=') {
			op = i;
			oplen = 2;
			break;
		} else if (t[i] == '=') {
			op = i;
			oplen = i + 1 < len && t[i + 1] == '=' ? 2 : 1;
			break;
		}
	}
	if (!oplen)
		return errbuf_set(err, -EINVAL,
				  "fieldSelector: \"%.*s\" is not "
				  "field=value, field==value or field!=value",
				  (int)len, t);
	sel->fields = xreallocarray(sel->fields, sel->nfields + 1,
				    sizeof(*sel->fields));
	r = &sel->fields[sel->nfields];
	r->def = find_field(k, t, op);
	r->ne = t[op] == '!';
	if (!r->def)
		return errbuf_set(err, -EINVAL,
				  "fieldSelector: field label not supported "
				  "for %s: \"%.*s\"",
				  k->resource, (int)op, t);
	if (unescape(r->def->name, t + op + oplen, len - op - oplen, &r->value,
		     err) < 0)
		return -EINVAL;
	sel->nfields++;
	return 0;
}

static int parse_fields(const struct api_kind *k, struct api_select *sel,
			const char *s, struct errbuf *err)
{
	size_t start = 0, i = 0;

	for (;; i++) {
		if (s[i] == '\\' && s[i + 1]) {
			i++;
			continue;
		}
		if (s[i] != ',' && s[i] != '\0')
			continue;
		/* Empty terms (",," or a trailing comma) select nothing
		 * more, as in Kubernetes. */
		if (i > start &&
		    field_term(k, sel, s + start, i - start, err) < 0)
			return -EINVAL;
		if (s[i] == '\0')
			return 0;
		start = i + 1;
	}
}

int api_select_parse(const struct api_kind *k, const char *labels,
		     const char *fields, struct api_select **ret,
		     struct errbuf *err)
{
	struct api_select *sel;
	int rc = 0;

	if ((!labels || !*labels) && (!fields || !*fields)) {
		*ret = NULL;
		return 0;
	}
	sel = xcalloc(1, sizeof(*sel));
	if (labels && *labels)
		rc = parse_labels(sel, labels, err);
	if (rc == 0 && fields && *fields)
		rc = parse_fields(k, sel, fields, err);
	if (rc < 0) {
		api_select_free(sel);
		return rc;
	}
	*ret = sel;
	return 0;
}

/* ---- matching ---- */

static bool label_match(const struct label_req *r, const json_t *labels)
{
	const char *v = json_string_value(json_object_get(labels, r->key));
	char *end;
	long long n;

	switch (r->op) {
	case L_EXISTS:
		return v;
	case L_NOT_EXISTS:
		return !v;
	case L_EQ:
	case L_IN:
	case L_NE:
	case L_NOTIN:
		for (size_t i = 0; v && i < r->nvalues; i++)
			if (strcmp(v, r->values[i]) == 0)
				return r->op == L_EQ || r->op == L_IN;
		return r->op == L_NE || r->op == L_NOTIN;
	case L_GT:
	case L_LT:
		if (!v)
			return false;
		errno = 0;
		n = strtoll(v, &end, 10);
		if (!*v || *end || errno)
			return false;
		return r->op == L_GT ? n > r->num : n < r->num;
	}
	return false;
}

/* A field's value as a selector sees it: strings as they are, numbers
 * and booleans as text, absent as "". */
static bool field_match(const struct field_req *r, const json_t *obj)
{
	const json_t *v = api_kind_field(obj, r->def->path);
	char buf[32];
	const char *s = "";

	if (!v && r->def->alt)
		v = api_kind_field(obj, r->def->alt);
	if (json_is_string(v)) {
		s = json_string_value(v);
	} else if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld",
			 (long long)json_integer_value(v));
		s = buf;
	} else if (json_is_boolean(v)) {
		s = json_is_true(v) ? "true" : "false";
	}
	return (strcmp(s, r->value) == 0) != r->ne;
}

bool api_select_match(const struct api_select *sel, const json_t *obj)
{
	const json_t *labels;

	if (!sel)
		return true;
	labels = api_kind_field(obj, "metadata.labels");
	for (size_t i = 0; i < sel->nlabels; i++)
		if (!label_match(&sel->labels[i], labels))
			return false;
	for (size_t i = 0; i < sel->nfields; i++)
		if (!field_match(&sel->fields[i], obj))
			return false;
	return true;
}
