// SPDX-License-Identifier: Apache-2.0
/*
 * Aligned text tables: cells are kept until the table is printed, when
 * the width of every column is known.
 */
#include "cli/table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

#define TABLE_GAP 3 /* spaces between columns, as kubectl's */

void table_init(struct table *t)
{
	memset(t, 0, sizeof(*t));
}

void table_release(struct table *t)
{
	if (!t)
		return;
	vec_foreach (&t->cells, c)
		free(*c);
	vec_release(&t->cells);
	vec_release(&t->row_end);
}

void table_cell(struct table *t, const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;

	strbuf_init(&sb);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	vec_push(&t->cells, strbuf_take(&sb));
	strbuf_release(&sb); /* take leaves an empty buffer behind */
}

void table_row(struct table *t)
{
	vec_push(&t->row_end, t->cells.len);
}

void table_print(const struct table *t, struct strbuf *out)
{
	VEC(size_t) width = VEC_INIT;
	size_t start = 0;

	/* widths from every cell but the last of its row */
	vec_foreach (&t->row_end, end) {
		for (size_t i = start; i + 1 < *end; i++) {
			size_t col = i - start, len = strlen(t->cells.items[i]);

			while (width.len <= col)
				vec_push(&width, 0);
			if (len > width.items[col])
				width.items[col] = len;
		}
		start = *end;
	}
	start = 0;
	vec_foreach (&t->row_end, end) {
		for (size_t i = start; i < *end; i++) {
			const char *c = t->cells.items[i];

			strbuf_addstr(out, c);
			if (i + 1 < *end)
				strbuf_addf(out, "%*s",
					    (int)(width.items[i - start] -
						  strlen(c) + TABLE_GAP),
					    "");
		}
		strbuf_addch(out, '\n');
		start = *end;
	}
	vec_release(&width);
}
