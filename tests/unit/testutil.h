/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the unit tests. Include after cmocka's prerequisites
 * (stdarg.h, stddef.h, stdint.h, setjmp.h) and cmocka.h.
 */
#ifndef ECHELON_TESTUTIL_H
#define ECHELON_TESTUTIL_H

/* The source tree (ECHELON_SOURCE_DIR, set by ctest), or "." */
const char *testutil_source_dir(void);
/* A heap path "<source dir>/<rel>"; caller frees. */
char *testutil_path(const char *rel);
/* Fail the test unless text holds line as a whole line. */
void testutil_assert_line(const char *text, const char *line);

/* Parse JSON the test wrote itself; fails the test (with jansson's
 * message and the text) when it is not JSON. The caller owns the value. */
struct json_t;
struct json_t *testutil_json(const char *text);

#endif
