// SPDX-License-Identifier: Apache-2.0
/*
 * The resource registry and Kubernetes' rules for resource names.
 *
 * A name is either one of the standard unprefixed names (cpu, memory, pods,
 * ephemeral-storage, storage, hugepages-<size>) or a qualified name
 * "<DNS subdomain>/<name>" outside the reserved kubernetes.io domain, as
 * the API server requires of extended resources. Lookups scan the array:
 * with at most RESOURCE_MAX names that is as fast as any hash.
 */
#include "model/resource.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

#define PREFIX_MAX	253 /* a DNS subdomain */
#define NAME_PART_MAX	63
#define HUGEPAGES	"hugepages-"
#define RESERVED_DOMAIN "kubernetes.io"

static const char *const fixed_names[RESOURCE_FIXED_COUNT] = {
	[RESOURCE_CPU] = "cpu",
	[RESOURCE_MEMORY] = "memory",
	[RESOURCE_PODS] = "pods",
};

static const char *const standard_names[] = {
	"cpu", "memory", "pods", "ephemeral-storage", "storage",
};

void resource_registry_init(struct resource_registry *r)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < RESOURCE_FIXED_COUNT; i++) {
		r->names[i] = xstrdup(fixed_names[i]);
		r->kinds[i] = resource_kind_for(fixed_names[i]);
	}
	r->count = RESOURCE_FIXED_COUNT;
}

void resource_registry_release(struct resource_registry *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->count; i++) {
		free(r->names[i]);
		r->names[i] = NULL;
	}
	r->count = 0;
}

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* A DNS-1123 subdomain: dot-separated labels of [a-z0-9-], each starting
 * and ending with a letter or digit. */
static bool is_subdomain(const char *s, size_t len)
{
	if (len == 0 || len > PREFIX_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		bool edge = i == 0 || i == len - 1 || s[i - 1] == '.' ||
			    s[i + 1] == '.';

		if (s[i] == '.' && !edge)
			continue;
		if (!is_lower_alnum(s[i]) && (edge || s[i] != '-'))
			return false;
	}
	return true;
}

/* The name part of a qualified name: [A-Za-z0-9-_.], alphanumeric ends. */
static bool is_name_part(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len > NAME_PART_MAX)
		return false;
	if (!is_alnum(s[0]) || !is_alnum(s[len - 1]))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!is_alnum(s[i]) && !strchr("-_.", s[i]))
			return false;
	}
	return true;
}

static bool is_reserved(const char *prefix, size_t len)
{
	size_t rlen = strlen(RESERVED_DOMAIN);

	if (len < rlen || memcmp(prefix + len - rlen, RESERVED_DOMAIN, rlen))
		return false;
	return len == rlen || prefix[len - rlen - 1] == '.';
}

static bool is_standard(const char *name)
{
	int64_t size;

	for (size_t i = 0; i < ARRAY_SIZE(standard_names); i++) {
		if (!strcmp(name, standard_names[i]))
			return true;
	}
	if (strncmp(name, HUGEPAGES, strlen(HUGEPAGES)))
		return false;
	return quantity_parse(name + strlen(HUGEPAGES), QUANTITY_BYTES, &size,
			      NULL) == 0 &&
	       size > 0;
}

/* The reason name is invalid, or NULL when it is valid. */
static const char *invalid_reason(const char *name)
{
	const char *slash = strchr(name, '/');

	if (!*name)
		return "must not be empty";
	if (!slash) {
		if (is_standard(name))
			return NULL;
		if (!strncmp(name, HUGEPAGES, strlen(HUGEPAGES)))
			return "the size of hugepages-<size> must be a "
			       "positive byte quantity, like \"hugepages-2Mi\"";
		return "not a standard resource name; an extended resource "
		       "needs a domain prefix, like \"example.com/foo\"";
	}
	if (!is_subdomain(name, (size_t)(slash - name)))
		return "the prefix must be a DNS subdomain of lowercase "
		       "letters, digits, '-' and '.', like \"example.com\"";
	if (is_reserved(name, (size_t)(slash - name)))
		return "the kubernetes.io domain is reserved for Kubernetes";
	if (!is_name_part(slash + 1))
		return "the part after '/' must be 1-63 letters, digits, '-', "
		       "'_' or '.', starting and ending with a letter or digit";
	return NULL;
}

static int invalid(struct errbuf *eb, const char *name, const char *reason)
{
	char q[4 * NAME_PART_MAX + 8];
	size_t len = 0, i;

	for (i = 0; name[i] && i < NAME_PART_MAX; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			len += snprintf(q + len, sizeof(q) - len, "\\x%02x", c);
		else
			q[len++] = (char)c;
	}
	q[len] = '\0';
	return errbuf_set(eb, -EINVAL, "invalid resource name \"%s%s\": %s", q,
			  name[i] ? "..." : "", reason);
}

int resource_id(struct resource_registry *r, const char *name,
		struct errbuf *eb)
{
	const char *reason;
	int id = resource_lookup(r, name);

	if (id >= 0)
		return id;
	reason = invalid_reason(name);
	if (reason)
		return invalid(eb, name, reason);
	if (r->count >= RESOURCE_MAX)
		return errbuf_set(eb, -ENOSPC,
				  "resource \"%s\": too many resource names "
				  "(at most %d)",
				  name, RESOURCE_MAX);
	id = r->count++;
	r->names[id] = xstrdup(name);
	r->kinds[id] = resource_kind_for(name);
	return id;
}

int resource_lookup(const struct resource_registry *r, const char *name)
{
	for (int i = 0; i < r->count; i++) {
		if (!strcmp(r->names[i], name))
			return i;
	}
	return -1;
}

const char *resource_name(const struct resource_registry *r, int id)
{
	BUG_ON(id < 0 || id >= r->count);
	return r->names[id];
}

enum quantity_kind resource_kind_for(const char *name)
{
	if (!strcmp(name, "cpu"))
		return QUANTITY_MILLI;
	if (!strcmp(name, "memory") || !strcmp(name, "ephemeral-storage") ||
	    !strcmp(name, "storage") ||
	    !strncmp(name, HUGEPAGES, strlen(HUGEPAGES)))
		return QUANTITY_BYTES;
	return QUANTITY_UNITS;
}
