// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the journal of changed slots: what a cursor sees after a table
 * of marks (each slot once, at its latest mark; nothing at the newest
 * cursor; -ERANGE for 0 and for cursors from before dirty_all()), and
 * thousands of random marks and reads by several cursors against a
 * brute-force model, enough to compact the journal many times.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/compiler.h"
#include "base/dirty.h"
#include "base/rng.h"

#include "base/banned.h"

#define UNIVERSE 200

struct seen {
	uint32_t slots[4 * UNIVERSE];
	size_t n;
};

static int take(void *ctx, uint32_t slot)
{
	struct seen *s = ctx;

	assert_true(s->n < ARRAY_SIZE(s->slots));
	s->slots[s->n++] = slot;
	return 0;
}

static const char *seen_text(const struct seen *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u",
					i ? " " : "", s->slots[i]);
	return buf;
}

static void test_table(void **state)
{
	static const struct {
		const char *name;
		uint32_t marks[8];
		size_t nmarks;
		size_t cursor_after; /* marks made before the cursor */
		const char *want;
	} cases[] = {
		{ "nothing marked", { 0 }, 0, 0, "" },
		{ "each once, by latest mark", { 3, 1, 3, 2 }, 4, 0, "1 3 2" },
		{ "only after the cursor", { 3, 1, 3, 2 }, 4, 2, "3 2" },
		{ "marked again after the cursor", { 5, 6, 5 }, 3, 1, "6 5" },
		{ "at the newest cursor", { 1, 2 }, 2, 2, "" },
	};

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct dirty d;
		struct seen s = { .n = 0 };
		uint64_t cursor;
		char buf[128];

		dirty_init(&d);
		cursor = dirty_seq(&d);
		for (size_t i = 0; i < cases[c].nmarks; i++) {
			if (i == cases[c].cursor_after)
				cursor = dirty_seq(&d);
			dirty_mark(&d, cases[c].marks[i]);
		}
		if (cases[c].cursor_after == cases[c].nmarks)
			cursor = dirty_seq(&d);
		assert_int_equal(dirty_since(&d, cursor, take, &s), 0);
		if (strcmp(seen_text(&s, buf, sizeof(buf)), cases[c].want))
			fail_msg("%s: got \"%s\", want \"%s\"", cases[c].name,
				 buf, cases[c].want);
		dirty_release(&d);
	}
}

static void test_too_old(void **state)
{
	struct dirty d;
	struct seen s = { .n = 0 };
	uint64_t before;

	(void)state;
	dirty_init(&d);
	/* 0 is never a cursor: a new reader does everything */
	assert_int_equal(dirty_since(&d, 0, take, &s), -ERANGE);
	dirty_mark(&d, 7);
	before = dirty_seq(&d);
	dirty_all(&d);
	assert_int_equal(dirty_since(&d, before, take, &s), -ERANGE);
	assert_int_equal(s.n, 0);
	dirty_mark(&d, 9);
	before = dirty_seq(&d) - 1; /* the cursor of dirty_all() */
	assert_int_equal(dirty_since(&d, before, take, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.slots[0], 9);
	dirty_release(&d);
}

/* Three readers at random moments over random marks: each sees exactly
 * the slots marked since its cursor, each once. */
static void test_random(void **state)
{
	struct rng r;
	struct dirty d;
	uint64_t cursor[3];
	bool model[3][UNIVERSE];

	(void)state;
	rng_seed(&r, 11);
	dirty_init(&d);
	memset(model, 0, sizeof(model));
	for (int k = 0; k < 3; k++)
		cursor[k] = dirty_seq(&d);
	for (int step = 0; step < 20000; step++) {
		uint64_t what = rng_below(&r, 100);

		if (what < 90) {
			/* a few hot slots and a wide tail */
			uint32_t slot =
				(uint32_t)(rng_below(&r, 2)
						   ? rng_below(&r, 8)
						   : rng_below(&r, UNIVERSE));

			dirty_mark(&d, slot);
			for (int k = 0; k < 3; k++)
				model[k][slot] = true;
		} else {
			int k = (int)rng_below(&r, 3);
			struct seen s = { .n = 0 };
			bool got[UNIVERSE] = { false };

			assert_int_equal(dirty_since(&d, cursor[k], take, &s),
					 0);
			for (size_t i = 0; i < s.n; i++) {
				assert_false(got[s.slots[i]]); /* once */
				got[s.slots[i]] = true;
			}
			for (uint32_t i = 0; i < UNIVERSE; i++)
				assert_int_equal(got[i], model[k][i]);
			memset(model[k], 0, sizeof(model[k]));
			cursor[k] = dirty_seq(&d);
		}
		/* bounded: about twice the slots at most */
		assert_true(d.len <= 2 * d.nslots + 64 + 1);
	}
	dirty_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_too_old),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
