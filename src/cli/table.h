/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Aligned text tables for the verbs' table output, as kubectl prints
 * them: a header row in capitals, then rows of cells, each column as wide
 * as its widest cell and three spaces apart, no trailing spaces.
 *
 * The last cell of a row is never padded and does not widen its column:
 * a row may end early with a long cell (a failure reason, a message) that
 * runs on to the end of the line without pushing the other rows' columns
 * apart. Cells are copied; widths are in bytes (names are ASCII, and text
 * from the input is only ever a row's last cell).
 */
#ifndef ECHELON_CLI_TABLE_H
#define ECHELON_CLI_TABLE_H

#include <stddef.h>

#include "base/compiler.h"
#include "base/strbuf.h"
#include "base/vec.h"

struct table {
	VEC(char *) cells;
	VEC(size_t) row_end; /* index in cells after each finished row */
};

void table_init(struct table *t);
void table_release(struct table *t);
/* Add a cell to the current row. */
void table_cell(struct table *t, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* End the current row (a row without cells is an empty line). */
void table_row(struct table *t);
/* Append the finished rows, aligned, one line each, to out. */
void table_print(const struct table *t, struct strbuf *out);

#endif
