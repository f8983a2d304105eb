/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Output formats shared by the verbs that print structured results
 * (-o table|json|yaml): parsing the option, and printing a jansson value
 * as indented JSON or as YAML (block style, keys in insertion order).
 */
#ifndef ECHELON_CLI_OUTPUT_H
#define ECHELON_CLI_OUTPUT_H

#include <jansson.h>

#include "base/compiler.h"

enum output_format {
	OUTPUT_TABLE,
	OUTPUT_JSON,
	OUTPUT_YAML,
	OUTPUT_FORMAT_COUNT
};

/* "table", "json" or "yaml"; -EINVAL otherwise (*ret untouched). */
int output_parse(const char *s, enum output_format *ret) MUST_CHECK;
/* Print v to stdout as JSON (indented) or YAML; fmt must not be TABLE. */
void output_print(json_t *v, enum output_format fmt);

#endif
