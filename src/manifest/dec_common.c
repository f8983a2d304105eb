// SPDX-License-Identifier: Apache-2.0
/*
 * Decoders for the Kubernetes structures that several kinds share: labels,
 * resource lists, taints, tolerations, label selectors, node affinity and
 * object names, validated as the API server would.
 */
#include "manifest/dec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

/*
 * One string-to-string pair into *ret: label syntax is checked when
 * as_labels, annotation key syntax otherwise. Errors past DIAG_MAX are only
 * counted, so a mapping wrong everywhere stays cheap.
 */
static int string_pair(struct dec *x, struct ynode *k, struct ynode *v,
		       bool as_labels, struct label *ret)
{
	const char *key, *value = "";
	struct errbuf eb;
	size_t len;
	int rc = 0;

	if (dec_string(x, k, &key) < 0)
		return -EINVAL;
	len = dec_push_key(x, key);
	if ((as_labels ? label_check_key(key, &eb)
		       : annotation_check_key(key, &eb)) < 0) {
		dec_error(x, k, "%s", eb.msg);
		rc = -EINVAL;
	} else if (!dec_is_null(v) && dec_string(x, v, &value) < 0) {
		rc = -EINVAL;
	} else if (as_labels && label_check_value(value, &eb) < 0) {
		dec_error(x, v, "%s", eb.msg);
		rc = -EINVAL;
	} else {
		*ret = (struct label){ key, value };
	}
	dec_pop(x, len);
	return rc;
}

/*
 * The pairs are gathered, then set at once (labels_set_all): inserting
 * them one by one into the sorted set cost quadratic time, 36 s for a Node
 * with 300,000 annotations.
 */
static int string_map(struct dec *x, struct ynode *n, bool as_labels,
		      struct labels *out)
{
	struct ynode *k, *v;
	struct label *items;
	size_t count = 0, bytes = 0;
	int rc = 0;

	if (dec_expect_map(x, n) < 0)
		return -EINVAL;
	items = xreallocarray(NULL, n->n ? n->n : 1, sizeof(*items));
	ynode_foreach_pair(n, k, v)
	{
		struct label *it = &items[count];

		if (string_pair(x, k, v, as_labels, it) < 0) {
			rc = -EINVAL;
			continue;
		}
		bytes += strlen(it->key) + strlen(it->value);
		count++;
	}
	if (!as_labels && bytes > ANNOTATIONS_MAX_BYTES) {
		dec_error(x, n,
			  "too long: must have at most %d bytes (keys and "
			  "values together), not %zu",
			  ANNOTATIONS_MAX_BYTES, bytes);
		rc = -EINVAL;
	}
	if (rc == 0)
		labels_set_all(out, items, count);
	free(items);
	return rc;
}

int dec_labels(struct dec *x, struct ynode *n, struct labels *out)
{
	return string_map(x, n, true, out);
}

int dec_labels_any(struct dec *x, struct ynode *n, struct labels *out)
{
	return string_map(x, n, false, out);
}

int dec_resource_list(struct dec *x, struct ynode *n, struct resvec *out)
{
	struct ynode *pk, *pv;
	int rc = 0;

	if (dec_expect_map(x, n) < 0)
		return -EINVAL;
	ynode_foreach_pair(n, pk, pv)
	{
		struct errbuf eb;
		const char *name;
		int64_t v;
		size_t len;
		int id;

		if (dec_string(x, pk, &name) < 0) {
			rc = -EINVAL;
			continue;
		}
		len = dec_push_key(x, name);
		id = resource_id(x->batch->resources, name, &eb);
		if (id < 0) {
			dec_error(x, pk, "%s", eb.msg);
			rc = -EINVAL;
		} else if (dec_quantity(x, pv, id, &v) < 0) {
			rc = -EINVAL;
		} else {
			out->v[id] = v;
		}
		dec_pop(x, len);
	}
	return rc;
}

static int dec_taint(struct dec *x, struct ynode *n, struct taint *t)
{
	static const char *const known[] = { "key", "value", "effect",
					     "timeAdded", NULL };
	static const char *const effects[] = { "NoSchedule", "PreferNoSchedule",
					       "NoExecute", NULL };
	int effect = -1, rc = 0;
	struct errbuf eb;

	if (dec_expect_map(x, n) < 0)
		return -EINVAL;
	dec_check_fields(x, n, known, NULL);
	memset(t, 0, sizeof(*t));
	if (dec_str_field(x, n, "key", true, &t->key) < 0)
		rc = -EINVAL;
	else if (label_check_key(t->key, &eb) < 0) {
		size_t len = dec_push(x, "key");

		dec_error(x, dec_get(n, "key"), "%s", eb.msg);
		dec_pop(x, len);
		rc = -EINVAL;
	}
	if (dec_str_field(x, n, "value", false, &t->value) < 0)
		rc = -EINVAL;
	if (dec_enum_field(x, n, "effect", effects, &effect) < 0)
		rc = -EINVAL;
	else if (effect < 0) {
		size_t len = dec_push(x, "effect");

		dec_error(x, n, "is required");
		dec_pop(x, len);
		rc = -EINVAL;
	}
	t->effect = (enum taint_effect)(effect < 0 ? 0 : effect);
	return rc;
}

/* Decode a list into a new array of items of the given size. */
typedef int (*item_fn)(struct dec *x, struct ynode *n, void *item);

static int dec_array(struct dec *x, struct ynode *n, size_t size,
		     item_fn decode, void **ret, size_t *ret_n)
{
	struct ynode *item;
	char *items;
	int rc = 0;

	*ret = NULL;
	*ret_n = 0;
	if (dec_expect_seq(x, n) < 0)
		return -EINVAL;
	items = n->n ? xcalloc(n->n, size) : NULL;
	ynode_foreach(n, item)
	{
		size_t len = dec_push_index(x, i_item);

		if (decode(x, item, items + i_item * size) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	*ret = items;
	*ret_n = n->n;
	return rc;
}

static int taint_item(struct dec *x, struct ynode *n, void *item)
{
	return dec_taint(x, n, item);
}

int dec_taints(struct dec *x, struct ynode *n, struct taint **ret,
	       size_t *ret_n)
{
	void *items;
	int rc = dec_array(x, n, sizeof(**ret), taint_item, &items, ret_n);

	*ret = items;
	return rc;
}

static int dec_toleration(struct dec *x, struct ynode *n, struct toleration *t)
{
	static const char *const known[] = {
		"key", "operator", "value", "effect", "tolerationSeconds", NULL
	};
	static const char *const ops[] = { "Equal", "Exists", NULL };
	static const char *const effects[] = { "NoSchedule", "PreferNoSchedule",
					       "NoExecute", NULL };
	int op = 0, effect = -1, rc = 0;
	struct errbuf eb;

	if (dec_expect_map(x, n) < 0)
		return -EINVAL;
	dec_check_fields(x, n, known, NULL);
	memset(t, 0, sizeof(*t));
	if (dec_str_field(x, n, "key", false, &t->key) < 0)
		rc = -EINVAL;
	if (dec_enum_field(x, n, "operator", ops, &op) < 0)
		rc = -EINVAL;
	if (dec_str_field(x, n, "value", false, &t->value) < 0)
		rc = -EINVAL;
	if (dec_enum_field(x, n, "effect", effects, &effect) < 0)
		rc = -EINVAL;
	t->op = (enum toleration_op)op;
	t->effect = effect;
	switch (dec_int_field(x, n, "tolerationSeconds", false, INT64_MIN,
			      INT64_MAX, &t->seconds)) {
	case 1:
		t->has_seconds = true;
		break;
	case 0:
		break;
	default:
		rc = -EINVAL;
	}
	if (rc == 0 && toleration_check(t, &eb) < 0) {
		dec_error(x, n, "%s", eb.msg);
		rc = -EINVAL;
	}
	return rc;
}

static int toleration_item(struct dec *x, struct ynode *n, void *item)
{
	return dec_toleration(x, n, item);
}

int dec_tolerations(struct dec *x, struct ynode *n, struct toleration **ret,
		    size_t *ret_n)
{
	void *items;
	int rc = dec_array(x, n, sizeof(**ret), toleration_item, &items, ret_n);

	*ret = items;
	return rc;
}

/* The values list of a requirement, interned; caller frees the array. */
static int req_values(struct dec *x, struct ynode *n, const char ***ret,
		      size_t *ret_n)
{
	struct ynode *v = dec_get(n, "values"), *item;
	size_t len, i = 0;
	int rc = 0;

	*ret = NULL;
	*ret_n = 0;
	if (!v)
		return 0;
	len = dec_push(x, "values");
	if (dec_expect_seq(x, v) < 0) {
		dec_pop(x, len);
		return -EINVAL;
	}
	*ret = xcalloc((size_t)v->n + 1, sizeof(**ret));
	ynode_foreach(v, item)
	{
		size_t l2 = dec_push_index(x, i);

		if (dec_string(x, item, &(*ret)[i]) < 0)
			rc = -EINVAL;
		dec_pop(x, l2);
		i++;
	}
	*ret_n = i;
	dec_pop(x, len);
	return rc;
}

static int dec_requirement(struct dec *x, struct ynode *n, struct selector *out,
			   bool node_selector)
{
	int bad = 0;
	static const char *const known[] = { "key", "operator", "values",
					     NULL };
	const char *key = NULL, *opname = NULL;
	const char **values = NULL;
	enum selector_op op;
	struct errbuf eb;
	size_t nvalues;
	int rc = 0;

	if (dec_expect_map(x, n) < 0)
		return -EINVAL;
	dec_check_fields(x, n, known, NULL);
	bad |= dec_str_field(x, n, "key", true, &key) < 0;
	bad |= dec_str_field(x, n, "operator", true, &opname) < 0;
	bad |= req_values(x, n, &values, &nvalues) < 0;
	if (bad) {
		rc = -EINVAL;
		goto out;
	}
	if (selector_parse_op(opname, &op) < 0 ||
	    (!node_selector && (op == SELECTOR_GT || op == SELECTOR_LT))) {
		size_t len = dec_push(x, "operator");

		dec_error(x, dec_get(n, "operator"),
			  "unsupported operator \"%s\"", opname);
		dec_pop(x, len);
		rc = -EINVAL;
		goto out;
	}
	if (selector_add(out, key, op, values, nvalues, &eb) < 0) {
		dec_error(x, n, "%s", eb.msg);
		rc = -EINVAL;
	}
out:
	free(values);
	return rc;
}

static int dec_requirements(struct dec *x, struct ynode *seq,
			    struct selector *out, bool node_selector)
{
	struct ynode *item;
	size_t i = 0;
	int rc = 0;

	if (dec_expect_seq(x, seq) < 0)
		return -EINVAL;
	ynode_foreach(seq, item)
	{
		size_t len = dec_push_index(x, i++);

		if (dec_requirement(x, item, out, node_selector) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	return rc;
}

int dec_label_selector(struct dec *x, struct ynode *n, struct selector *out)
{
	static const char *const known[] = { "matchLabels", "matchExpressions",
					     NULL };
	struct labels ml;
	struct ynode *f;
	size_t len;
	int rc = 0;

	if (dec_expect_map(x, n) < 0)
		return -EINVAL;
	dec_check_fields(x, n, known, NULL);
	labels_init(&ml);
	if ((f = dec_get(n, "matchLabels"))) {
		len = dec_push(x, "matchLabels");
		if (dec_labels(x, f, &ml) < 0)
			rc = -EINVAL;
		for (size_t i = 0; i < ml.len; i++)
			selector_add_match_label(out, ml.items[i].key,
						 ml.items[i].value);
		dec_pop(x, len);
	}
	labels_release(&ml);
	if ((f = dec_get(n, "matchExpressions"))) {
		len = dec_push(x, "matchExpressions");
		if (dec_requirements(x, f, out, false) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	return rc;
}

static int dec_terms(struct dec *x, struct ynode *terms,
		     struct node_affinity *out)
{
	static const char *const known[] = { "matchExpressions", NULL };
	static const char *const ignored[] = { "matchFields", NULL };
	struct ynode *item, *f;
	size_t i = 0;
	int rc = 0;

	if (dec_expect_seq(x, terms) < 0)
		return -EINVAL;
	out->present = true;
	ynode_foreach(terms, item)
	{
		size_t len = dec_push_index(x, i++);
		struct selector *term = node_affinity_add_term(out);

		if (dec_expect_map(x, item) < 0) {
			rc = -EINVAL;
		} else {
			dec_check_fields(x, item, known, ignored);
			if (dec_get(item, "matchFields"))
				dec_warn(x, item,
					 "matchFields is not supported; "
					 "the term matches no node");
			if ((f = dec_get(item, "matchExpressions"))) {
				size_t l2 = dec_push(x, "matchExpressions");

				if (dec_requirements(x, f, term, true) < 0)
					rc = -EINVAL;
				dec_pop(x, l2);
			}
		}
		dec_pop(x, len);
	}
	return rc;
}

static int required_terms(struct dec *x, struct ynode *req,
			  struct node_affinity *out)
{
	struct ynode *terms;
	size_t len = dec_push(x, "nodeSelectorTerms");
	int rc;

	if (dec_expect_map(x, req) < 0) {
		rc = -EINVAL;
	} else if (!(terms = dec_get(req, "nodeSelectorTerms"))) {
		dec_error(x, req, "is required");
		rc = -EINVAL;
	} else {
		rc = dec_terms(x, terms, out);
	}
	dec_pop(x, len);
	return rc;
}

static int preferred_term(struct dec *x, struct ynode *item,
			  struct preferred_term *t)
{
	static const char *const known[] = { "weight", "preference", NULL };
	static const char *const pref_known[] = { "matchExpressions",
						  "matchFields", NULL };
	struct ynode *pref, *f;
	int64_t weight = 0;
	size_t len;
	int rc = 0;

	if (dec_expect_map(x, item) < 0)
		return -EINVAL;
	dec_check_fields(x, item, known, NULL);
	if (dec_int_field(x, item, "weight", true, 1, 100, &weight) < 0)
		rc = -EINVAL;
	t->weight = (int32_t)weight;
	len = dec_push(x, "preference");
	if (!(pref = dec_get(item, "preference"))) {
		dec_error(x, item, "is required");
		rc = -EINVAL;
	} else if (dec_expect_map(x, pref) < 0) {
		rc = -EINVAL;
	} else {
		dec_check_fields(x, pref, pref_known, NULL);
		if ((f = dec_get(pref, "matchExpressions"))) {
			size_t l2 = dec_push(x, "matchExpressions");

			if (dec_requirements(x, f, &t->match, true) < 0)
				rc = -EINVAL;
			dec_pop(x, l2);
		}
	}
	dec_pop(x, len);
	return rc;
}

static int preferred_terms(struct dec *x, struct ynode *list,
			   struct preferred_term **ret, size_t *ret_n)
{
	struct ynode *item;
	int rc = 0;

	if (dec_expect_seq(x, list) < 0)
		return -EINVAL;
	*ret = list->n ? xcalloc(list->n, sizeof(**ret)) : NULL;
	*ret_n = list->n;
	for (size_t i = 0; i < list->n; i++)
		selector_init(&(*ret)[i].match);
	ynode_foreach(list, item)
	{
		size_t len = dec_push_index(x, i_item);

		if (preferred_term(x, item, &(*ret)[i_item]) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	return rc;
}

int dec_node_affinity(struct dec *x, struct ynode *affinity,
		      struct node_affinity *out,
		      struct preferred_term **ret_pref, size_t *ret_npref)
{
	static const char *const known[] = { "nodeAffinity", NULL };
	static const char *const ignored[] = { "podAffinity", "podAntiAffinity",
					       NULL };
	static const char *const na_known[] = {
		"requiredDuringSchedulingIgnoredDuringExecution",
		"preferredDuringSchedulingIgnoredDuringExecution", NULL
	};
	struct ynode *na, *f;
	size_t l1, l2;
	int rc = 0;

	if (dec_expect_map(x, affinity) < 0)
		return -EINVAL;
	dec_check_fields(x, affinity, known, ignored);
	if (!(na = dec_get(affinity, "nodeAffinity")))
		return 0;
	l1 = dec_push(x, "nodeAffinity");
	if (dec_expect_map(x, na) < 0) {
		dec_pop(x, l1);
		return -EINVAL;
	}
	dec_check_fields(x, na, na_known, NULL);
	if ((f = dec_get(na,
			 "requiredDuringSchedulingIgnoredDuringExecution"))) {
		l2 = dec_push(x,
			      "requiredDuringSchedulingIgnoredDuringExecution");
		if (required_terms(x, f, out) < 0)
			rc = -EINVAL;
		dec_pop(x, l2);
	}
	f = dec_get(na, "preferredDuringSchedulingIgnoredDuringExecution");
	if (f) {
		l2 = dec_push(
			x, "preferredDuringSchedulingIgnoredDuringExecution");
		if (preferred_terms(x, f, ret_pref, ret_npref) < 0)
			rc = -EINVAL;
		dec_pop(x, l2);
	}
	dec_pop(x, l1);
	return rc;
}

static bool dns_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

int dec_check_name(struct dec *x, struct ynode *n, const char *name,
		   bool subdomain)
{
	size_t len = strlen(name), max = subdomain ? 253 : 63;
	const char *what =
		subdomain ? "a DNS-1123 subdomain" : "a DNS-1123 label";

	if (len == 0 || len > max)
		goto bad;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];

		if (dns_char(c))
			continue;
		if ((c == '-' || (subdomain && c == '.')) && i > 0 &&
		    i + 1 < len && dns_char(name[i - 1]) &&
		    dns_char(name[i + 1]))
			continue;
		if (c == '-' && i > 0 && i + 1 < len)
			continue;
		goto bad;
	}
	return 0;
bad:
	dec_error(x, n,
		  "\"%s\" is not %s: at most %zu lowercase letters, digits, "
		  "'-'%s, starting and ending with a letter or digit",
		  name, what, max, subdomain ? " and '.'" : "");
	return -EINVAL;
}
