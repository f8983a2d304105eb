// SPDX-License-Identifier: Apache-2.0
/*
 * Label selectors and required node affinity. Matching follows Kubernetes:
 * NotIn and DoesNotExist match a missing key, Gt and Lt need the label
 * value to parse as a decimal integer (strconv.ParseInt), and a node
 * selector term with no requirements matches no node.
 */
#include "model/selector.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

static const char *const op_names[SELECTOR_OP_COUNT] = {
	[SELECTOR_IN] = "In",
	[SELECTOR_NOT_IN] = "NotIn",
	[SELECTOR_EXISTS] = "Exists",
	[SELECTOR_DOES_NOT_EXIST] = "DoesNotExist",
	[SELECTOR_GT] = "Gt",
	[SELECTOR_LT] = "Lt",
};

void selector_init(struct selector *s)
{
	s->reqs = NULL;
	s->len = s->cap = 0;
}

void selector_release(struct selector *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->len; i++)
		free(s->reqs[i].values);
	free(s->reqs);
	selector_init(s);
}

int selector_parse_op(const char *s, enum selector_op *ret_op)
{
	for (size_t i = 0; s && i < SELECTOR_OP_COUNT; i++) {
		if (!strcmp(s, op_names[i])) {
			*ret_op = (enum selector_op)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *selector_op_name(enum selector_op op)
{
	if ((unsigned)op >= SELECTOR_OP_COUNT)
		return "?";
	return op_names[op];
}

/*
 * Go's strconv.ParseInt(s, 10, 64): an optional sign, then one or more
 * decimal digits, nothing else, in range. strtoll alone would also accept
 * leading blanks and trailing junk.
 */
static bool parse_int64(const char *s, int64_t *ret)
{
	const char *digits = s + (*s == '+' || *s == '-');
	char *end;
	long long v;

	if (*digits < '0' || *digits > '9')
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return false;
	*ret = v;
	return true;
}

/* In and NotIn: a non-empty set of label values. */
static int check_set(const char *const *values, size_t nvalues,
		     struct errbuf *eb)
{
	struct errbuf sub;

	if (nvalues == 0)
		return errbuf_set(eb, -EINVAL,
				  "values: must be specified when `operator` "
				  "is 'In' or 'NotIn'");
	for (size_t i = 0; i < nvalues; i++) {
		if (!values[i])
			return errbuf_set(eb, -EINVAL,
					  "values[%zu]: must be a string", i);
		if (label_check_value(values[i], &sub))
			return errbuf_set(eb, -EINVAL, "values[%zu]: %s", i,
					  sub.msg);
	}
	return 0;
}

/* Gt and Lt: one integer, which Kubernetes also checks as a label value. */
static int check_bound(const char *const *values, size_t nvalues,
		       struct errbuf *eb)
{
	struct errbuf sub;
	int64_t n;

	if (nvalues != 1)
		return errbuf_set(eb, -EINVAL,
				  "values: must be specified single value "
				  "when `operator` is 'Lt' or 'Gt'");
	if (!values[0] || !parse_int64(values[0], &n))
		return errbuf_set(eb, -EINVAL,
				  "values[0]: for 'Gt', 'Lt' operators, the "
				  "value must be an integer");
	if (label_check_value(values[0], &sub))
		return errbuf_set(eb, -EINVAL, "values[0]: %s", sub.msg);
	return 0;
}

static int check_values(enum selector_op op, const char *const *values,
			size_t nvalues, struct errbuf *eb)
{
	switch (op) {
	case SELECTOR_IN:
	case SELECTOR_NOT_IN:
		return check_set(values, nvalues, eb);
	case SELECTOR_EXISTS:
	case SELECTOR_DOES_NOT_EXIST:
		if (nvalues)
			return errbuf_set(eb, -EINVAL,
					  "values: may not be specified when "
					  "`operator` is 'Exists' or "
					  "'DoesNotExist'");
		return 0;
	case SELECTOR_GT:
	case SELECTOR_LT:
		return check_bound(values, nvalues, eb);
	default:
		return errbuf_set(eb, -EINVAL,
				  "operator: not a valid selector operator");
	}
}

static struct selector_req *push_req(struct selector *s)
{
	if (s->len == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4;
		s->reqs = xreallocarray(s->reqs, s->cap, sizeof(*s->reqs));
	}
	return &s->reqs[s->len++];
}

int selector_add(struct selector *s, const char *key, enum selector_op op,
		 const char *const *values, size_t nvalues, struct errbuf *eb)
{
	struct selector_req *r;
	struct errbuf sub;
	int err;

	BUG_ON(nvalues && !values);
	if (label_check_key(key, &sub))
		return errbuf_set(eb, -EINVAL, "key: %s", sub.msg);
	err = check_values(op, values, nvalues, eb);
	if (err)
		return err;
	r = push_req(s);
	r->key = key;
	r->op = op;
	r->nvalues = nvalues;
	r->values = xcalloc(nvalues ? nvalues : 1, sizeof(*r->values));
	if (nvalues)
		memcpy(r->values, values, nvalues * sizeof(*r->values));
	return 0;
}

void selector_add_match_label(struct selector *s, const char *key,
			      const char *value)
{
	struct selector_req *r;

	BUG_ON(!key || !value);
	r = push_req(s);
	r->key = key;
	r->op = SELECTOR_IN;
	r->nvalues = 1;
	r->values = xmalloc(sizeof(*r->values));
	r->values[0] = value;
}

static bool in_set(const struct selector_req *r, const char *value)
{
	for (size_t i = 0; i < r->nvalues; i++) {
		if (!strcmp(r->values[i], value))
			return true;
	}
	return false;
}

static bool compare_matches(const struct selector_req *r, const char *value)
{
	int64_t have, want;

	/* An unparsable value on either side never matches. */
	if (!value || r->nvalues != 1 || !parse_int64(value, &have) ||
	    !parse_int64(r->values[0], &want))
		return false;
	return r->op == SELECTOR_GT ? have > want : have < want;
}

static bool req_matches(const struct selector_req *r, const struct labels *l)
{
	const char *value = labels_get(l, r->key);

	switch (r->op) {
	case SELECTOR_IN:
		return value && in_set(r, value);
	case SELECTOR_NOT_IN:
		return !value || !in_set(r, value);
	case SELECTOR_EXISTS:
		return value != NULL;
	case SELECTOR_DOES_NOT_EXIST:
		return value == NULL;
	case SELECTOR_GT:
	case SELECTOR_LT:
		return compare_matches(r, value);
	default:
		return false;
	}
}

bool selector_matches(const struct selector *s, const struct labels *l)
{
	for (size_t i = 0; i < s->len; i++) {
		if (!req_matches(&s->reqs[i], l))
			return false;
	}
	return true;
}

void node_affinity_init(struct node_affinity *a)
{
	a->present = false;
	a->terms = NULL;
	a->len = a->cap = 0;
}

void node_affinity_release(struct node_affinity *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->len; i++)
		selector_release(&a->terms[i]);
	free(a->terms);
	node_affinity_init(a);
}

struct selector *node_affinity_add_term(struct node_affinity *a)
{
	struct selector *t;

	if (a->len == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 2;
		a->terms = xreallocarray(a->terms, a->cap, sizeof(*a->terms));
	}
	a->present = true;
	t = &a->terms[a->len++];
	selector_init(t);
	return t;
}

bool node_affinity_matches(const struct node_affinity *a,
			   const struct labels *l)
{
	if (!a->present)
		return true;
	for (size_t i = 0; i < a->len; i++) {
		const struct selector *t = &a->terms[i];

		/* "A null or empty node selector term matches no objects." */
		if (t->len && selector_matches(t, l))
			return true;
	}
	return false;
}
