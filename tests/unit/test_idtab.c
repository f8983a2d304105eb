// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the id index: thousands of random adds, finds and removals
 * against a brute-force model, over a small universe of keys whose hashes
 * are forced to collide (a few bits only), so long probe runs, wrap-around
 * and backward-shift deletion are all exercised; and the probing
 * invariants checked after every change.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>

#include "base/compiler.h"
#include "base/idtab.h"
#include "base/rng.h"

#include "base/banned.h"

#define UNIVERSE 300

/* Object id's key is key[id]; ids whose key is taken are not in. */
struct model {
	uint32_t key[UNIVERSE];
	bool in[UNIVERSE];
	uint32_t seek;
};

static bool eq(const void *ctx, uint32_t id)
{
	const struct model *m = ctx;

	return m->key[id] == m->seek;
}

static uint64_t hash_of(uint32_t key, uint64_t bits)
{
	return (key * 0x9e3779b97f4a7c15ULL) & bits;
}

/* Every member sits in the run that starts at its home. */
static void check_table(const struct idtab *t, const struct model *m)
{
	size_t mask = t->cap - 1, used = 0;

	for (size_t j = 0; j < t->cap; j++) {
		const struct idtab_slot *s = &t->slots[j];

		if (s->id == IDTAB_NONE)
			continue;
		used++;
		assert_true(m->in[s->id]);
		for (size_t i = s->hash & mask; i != j; i = (i + 1) & mask)
			assert_int_not_equal(t->slots[i].id, IDTAB_NONE);
	}
	assert_int_equal(used, t->len);
	assert_true(t->len * 4 <= t->cap * 3);
}

static const struct {
	uint64_t hash_bits; /* a mask: few bits, many collisions */
	uint32_t keys;	    /* distinct keys */
	unsigned steps;
} cases[] = {
	{ 0x0, 40, 2000 },		/* one hash for all */
	{ 0x7, 100, 5000 },		/* eight */
	{ 0xffffffffULL, 300, 20000 },	/* all distinct in practice */
	{ 0xff00000000ULL, 300, 5000 }, /* high bits only: home 0 */
};

static void test_random(void **state)
{
	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct model m = { 0 };
		struct idtab t;
		struct rng r;
		uint32_t owner[UNIVERSE];

		rng_seed(&r, c + 1);
		idtab_init(&t);
		assert_int_equal(idtab_find(&t, 1, eq, &m), IDTAB_NONE);
		assert_false(idtab_del(&t, 1, 0));
		for (uint32_t k = 0; k < UNIVERSE; k++)
			owner[k] = IDTAB_NONE;
		for (unsigned s = 0; s < cases[c].steps; s++) {
			uint32_t key = (uint32_t)rng_below(&r, cases[c].keys);
			uint64_t h = hash_of(key, cases[c].hash_bits);
			uint32_t id = (uint32_t)rng_below(&r, UNIVERSE);

			m.seek = key;
			assert_int_equal(idtab_find(&t, h, eq, &m), owner[key]);
			if (owner[key] != IDTAB_NONE) {
				assert_true(idtab_del(&t, h, owner[key]));
				m.in[owner[key]] = false;
				owner[key] = IDTAB_NONE;
			} else if (!m.in[id]) {
				m.key[id] = key;
				m.in[id] = true;
				owner[key] = id;
				idtab_add(&t, h, id);
			}
			check_table(&t, &m);
		}
		idtab_release(&t);
		idtab_release(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
