// SPDX-License-Identifier: Apache-2.0
/*
 * Fuzz target for the quantity parser: every input is parsed as each kind;
 * a success must be non-negative, and its canonical text must parse back to
 * the same value; a failure must leave the output alone and explain itself.
 */
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/errbuf.h"
#include "base/strbuf.h"
#include "model/quantity.h"

#include "base/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *s, enum quantity_kind kind)
{
	struct errbuf eb = { "" };
	struct strbuf sb;
	int64_t v = -1, back = -1;
	int rc = quantity_parse(s, kind, &v, &eb);

	if (rc < 0) {
		BUG_ON(rc != -EINVAL && rc != -ERANGE);
		BUG_ON(v != -1 || eb.msg[0] != '"');
		return;
	}
	BUG_ON(rc != 0 || v < 0);
	strbuf_init(&sb);
	quantity_format(v, kind, &sb);
	BUG_ON(quantity_parse(sb.buf, kind, &back, NULL) != 0);
	BUG_ON(back != v);
	strbuf_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size > 4 * QUANTITY_MAX_LEN)
		return 0;
	s = xstrndup((const char *)data, size);
	for (int k = 0; k < QUANTITY_KIND_COUNT; k++)
		check(s, (enum quantity_kind)k);
	free(s);
	return 0;
}
