// SPDX-License-Identifier: Apache-2.0
/*
 * Arithmetic and fit checks on resource vectors. Every operation touches all
 * RESOURCE_MAX entries: unregistered ids are zero and cost less to include
 * than to skip.
 */
#include "model/resvec.h"

#include <string.h>

#include "base/alloc.h"
#include "model/quantity.h"

#include "base/banned.h"

void resvec_zero(struct resvec *r)
{
	memset(r, 0, sizeof(*r));
}

bool resvec_is_zero(const struct resvec *r)
{
	for (int i = 0; i < RESOURCE_MAX; i++) {
		if (r->v[i])
			return false;
	}
	return true;
}

void resvec_add(struct resvec *a, const struct resvec *b)
{
	for (int i = 0; i < RESOURCE_MAX; i++)
		BUG_ON(__builtin_add_overflow(a->v[i], b->v[i], &a->v[i]));
}

void resvec_sub(struct resvec *a, const struct resvec *b)
{
	for (int i = 0; i < RESOURCE_MAX; i++)
		BUG_ON(__builtin_sub_overflow(a->v[i], b->v[i], &a->v[i]));
}

void resvec_scale_add(struct resvec *a, const struct resvec *b, int64_t k)
{
	for (int i = 0; i < RESOURCE_MAX; i++) {
		int64_t p;

		BUG_ON(__builtin_mul_overflow(b->v[i], k, &p));
		BUG_ON(__builtin_add_overflow(a->v[i], p, &a->v[i]));
	}
}

bool resvec_fits(const struct resvec *req, const struct resvec *avail)
{
	for (int i = 0; i < RESOURCE_MAX; i++) {
		if (req->v[i] > 0 && req->v[i] > avail->v[i])
			return false;
	}
	return true;
}

void resvec_max(struct resvec *a, const struct resvec *b)
{
	for (int i = 0; i < RESOURCE_MAX; i++) {
		if (b->v[i] > a->v[i])
			a->v[i] = b->v[i];
	}
}

int64_t resvec_count_fits(const struct resvec *req, const struct resvec *avail)
{
	int64_t n = INT64_MAX;

	for (int i = 0; i < RESOURCE_MAX; i++) {
		int64_t c;

		if (req->v[i] <= 0)
			continue;
		c = avail->v[i] > 0 ? avail->v[i] / req->v[i] : 0;
		if (c < n)
			n = c;
	}
	return n;
}

void resvec_format(const struct resvec *r, const struct resource_registry *reg,
		   struct strbuf *out)
{
	const char *sep = "";

	for (int i = 0; i < RESOURCE_MAX; i++) {
		if (!r->v[i])
			continue;
		strbuf_addstr(out, sep);
		strbuf_addstr(out, resource_name(reg, i));
		strbuf_addch(out, '=');
		quantity_format(r->v[i], reg->kinds[i], out);
		sep = ",";
	}
}
