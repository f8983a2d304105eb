// SPDX-License-Identifier: Apache-2.0
/*
 * Sorted label sets and the Kubernetes label syntax checks. The checks
 * follow k8s.io/apimachinery/pkg/util/validation (IsQualifiedName,
 * IsValidLabelValue, IsDNS1123Subdomain) rule for rule, and their messages
 * use the same words so that users can search for them.
 */
#include "model/label.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

#define NAME_MAX_LEN   63
#define PREFIX_MAX_LEN 253

#define NAME_CHARS_MSG                                                         \
	"consist of alphanumeric characters, '-', '_' or '.', and must "       \
	"start and end with an alphanumeric character"

void labels_init(struct labels *l)
{
	l->items = NULL;
	l->len = l->cap = 0;
}

void labels_release(struct labels *l)
{
	if (!l)
		return;
	free(l->items);
	labels_init(l);
}

/* Index of key in l, or of the slot where it would be inserted. */
static size_t lookup(const struct labels *l, const char *key, bool *found)
{
	size_t lo = 0, hi = l->len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(l->items[mid].key, key);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

static void reserve(struct labels *l, size_t n)
{
	size_t cap = l->cap ? l->cap : 4;

	if (n <= l->cap)
		return;
	while (cap < n)
		cap *= 2;
	l->items = xreallocarray(l->items, cap, sizeof(*l->items));
	l->cap = cap;
}

void labels_set(struct labels *l, const char *key, const char *value)
{
	bool found;
	size_t i;

	BUG_ON(!key || !value);
	/* Keys in order (generated sets, a sorted source) append. */
	if (l->len == 0 || strcmp(l->items[l->len - 1].key, key) < 0) {
		reserve(l, l->len + 1);
		l->items[l->len++] = (struct label){ key, value };
		return;
	}
	i = lookup(l, key, &found);
	if (found) {
		l->items[i].value = value;
		return;
	}
	reserve(l, l->len + 1);
	memmove(&l->items[i + 1], &l->items[i],
		(l->len - i) * sizeof(*l->items));
	l->items[i].key = key;
	l->items[i].value = value;
	l->len++;
}

struct ranked {
	struct label item;
	size_t rank; /* position in the input: the last one wins */
};

static int ranked_cmp(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	int c = strcmp(a->item.key, b->item.key);

	if (c)
		return c;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

void labels_set_all(struct labels *l, const struct label *items, size_t n)
{
	struct ranked *r;
	struct label *merged;
	size_t m = 0, i = 0, j = 0, k = 0, cap;

	if (n == 0)
		return;
	r = xreallocarray(NULL, n, sizeof(*r));
	for (size_t x = 0; x < n; x++) {
		BUG_ON(!items[x].key || !items[x].value);
		r[x] = (struct ranked){ items[x], x };
	}
	qsort(r, n, sizeof(*r), ranked_cmp);
	/* Keep the last of each run of equal keys. */
	for (size_t x = 0; x < n; x++) {
		if (x + 1 < n && strcmp(r[x].item.key, r[x + 1].item.key) == 0)
			continue;
		r[m++] = r[x];
	}
	/* Merge two sorted runs; the new value wins on a tie. */
	cap = l->len + m;
	merged = xreallocarray(NULL, cap, sizeof(*merged));
	while (i < l->len || j < m) {
		int c;

		if (i == l->len)
			c = 1;
		else if (j == m)
			c = -1;
		else
			c = strcmp(l->items[i].key, r[j].item.key);

		if (c < 0) {
			merged[k++] = l->items[i++];
		} else {
			merged[k++] = r[j++].item;
			i += c == 0;
		}
	}
	free(l->items);
	free(r);
	l->items = merged;
	l->len = k;
	l->cap = cap;
}

const char *labels_get(const struct labels *l, const char *key)
{
	bool found;
	size_t i = lookup(l, key, &found);

	return found ? l->items[i].value : NULL;
}

bool labels_contains_all(const struct labels *l, const struct labels *want)
{
	size_t i = 0;

	/* Both sides are sorted by key: one merge pass. */
	for (size_t j = 0; j < want->len; j++) {
		const struct label *w = &want->items[j];
		int c = -1;

		while (i < l->len && (c = strcmp(l->items[i].key, w->key)) < 0)
			i++;
		if (i == l->len || c != 0 ||
		    strcmp(l->items[i].value, w->value))
			return false;
	}
	return true;
}

void labels_copy(struct labels *dst, const struct labels *src)
{
	if (dst == src)
		return;
	dst->len = 0;
	reserve(dst, src->len);
	if (src->len)
		memcpy(dst->items, src->items, src->len * sizeof(*src->items));
	dst->len = src->len;
}

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] over s[0..len). */
static bool name_chars_ok(const char *s, size_t len)
{
	if (len == 0 || !is_alnum(s[0]) || !is_alnum(s[len - 1]))
		return false;
	for (size_t i = 1; i + 1 < len; i++) {
		char c = s[i];

		if (!is_alnum(c) && c != '-' && c != '_' && c != '.')
			return false;
	}
	return true;
}

/* Dot-separated [a-z0-9]([-a-z0-9]*[a-z0-9])? parts over s[0..len). */
static bool subdomain_chars_ok(const char *s, size_t len)
{
	size_t start = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '.') {
			if (!is_lower_alnum(s[i]) && s[i] != '-')
				return false;
			continue;
		}
		/* s[start..i) is one dot-separated part. */
		if (i == start || !is_lower_alnum(s[start]) ||
		    !is_lower_alnum(s[i - 1]))
			return false;
		start = i + 1;
	}
	return true;
}

static int check_prefix(const char *s, size_t len, struct errbuf *eb)
{
	if (len == 0)
		return errbuf_set(eb, -EINVAL, "prefix part must be non-empty");
	if (len > PREFIX_MAX_LEN)
		return errbuf_set(
			eb, -EINVAL,
			"prefix part must be no more than %d characters",
			PREFIX_MAX_LEN);
	if (!subdomain_chars_ok(s, len))
		return errbuf_set(eb, -EINVAL,
				  "prefix part a lowercase RFC 1123 subdomain "
				  "must consist of lower case alphanumeric "
				  "characters, '-' or '.', and must start and "
				  "end with an alphanumeric character");
	return 0;
}

static int check_name(const char *s, struct errbuf *eb)
{
	size_t len = strlen(s);

	if (len == 0)
		return errbuf_set(eb, -EINVAL, "name part must be non-empty");
	if (len > NAME_MAX_LEN)
		return errbuf_set(
			eb, -EINVAL,
			"name part must be no more than %d characters",
			NAME_MAX_LEN);
	if (!name_chars_ok(s, len))
		return errbuf_set(eb, -EINVAL,
				  "name part must " NAME_CHARS_MSG);
	return 0;
}

int label_check_key(const char *key, struct errbuf *eb)
{
	const char *slash;
	int err;

	if (!key)
		return errbuf_set(eb, -EINVAL, "name part must be non-empty");
	slash = strchr(key, '/');
	if (!slash)
		return check_name(key, eb);
	if (strchr(slash + 1, '/'))
		return errbuf_set(eb, -EINVAL,
				  "a qualified name must " NAME_CHARS_MSG
				  ", with an optional DNS subdomain prefix and "
				  "'/' (e.g. 'example.com/MyName')");
	err = check_prefix(key, (size_t)(slash - key), eb);
	if (err)
		return err;
	return check_name(slash + 1, eb);
}

int label_check_value(const char *value, struct errbuf *eb)
{
	size_t len = value ? strlen(value) : 0;

	if (len == 0)
		return 0;
	if (len > NAME_MAX_LEN)
		return errbuf_set(eb, -EINVAL,
				  "must be no more than %d characters",
				  NAME_MAX_LEN);
	if (!name_chars_ok(value, len))
		return errbuf_set(eb, -EINVAL,
				  "a valid label must be an empty string "
				  "or " NAME_CHARS_MSG);
	return 0;
}

int annotation_check_key(const char *key, struct errbuf *eb)
{
	char *lower;
	int rc;

	if (!key)
		return label_check_key(key, eb);
	lower = xstrdup(key);
	for (char *p = lower; *p; p++) {
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	}
	rc = label_check_key(lower, eb);
	free(lower);
	return rc;
}
