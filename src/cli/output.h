/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Output formats shared by the verbs that print structured results
 * (-o table|json|yaml): parsing the option, and printing a jansson value
 * as indented JSON or as YAML (block style, keys in insertion order); and
 * the final check that standard output was written at all.
 */
#ifndef ECHELON_CLI_OUTPUT_H
#define ECHELON_CLI_OUTPUT_H

#include <jansson.h>

#include "base/compiler.h"

enum output_format {
	OUTPUT_TABLE,
	OUTPUT_JSON,
	OUTPUT_YAML,
	OUTPUT_WIDE, /* a table with more columns (kubectl's -o wide) */
	OUTPUT_FORMAT_COUNT
};

/* "table", "json", "yaml" or "wide"; -EINVAL otherwise (*ret untouched). */
int output_parse(const char *s, enum output_format *ret) MUST_CHECK;
/* Print v to stdout as JSON (indented) or YAML; fmt must be one of them. */
void output_print(json_t *v, enum output_format fmt);
/* Write s[0..len) to stdout, remembering why the first failed write
 * failed, for output_close_stdout(). */
void output_write(const char *s, size_t len);
/*
 * Flush and close stdout and report on stderr, with the reason, when any
 * write to it failed (stdio's error flag is sticky, so this covers every
 * printf too). Returns 0, or -1 when output was lost: the command must
 * then exit non-zero. Called once, by main().
 */
int output_close_stdout(void) MUST_CHECK;

#endif
