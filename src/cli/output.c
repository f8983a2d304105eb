// SPDX-License-Identifier: Apache-2.0
/*
 * Structured output: JSON through jansson, and YAML written from the same
 * jansson values (scalars in JSON syntax, which YAML accepts as is).
 */
#include "cli/output.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/strbuf.h"

#include "base/banned.h"

/* The error of the first write to standard output that failed, or 0. */
static int stdout_errno;

void output_write(const char *s, size_t len)
{
	if (fwrite(s, 1, len, stdout) != len && !stdout_errno)
		stdout_errno = errno ? errno : EIO;
}

int output_close_stdout(void)
{
	int failed, err = stdout_errno;

	errno = 0;
	failed = fflush(stdout) != 0;
	if (failed && !err)
		err = errno;
	failed |= ferror(stdout) != 0;
	if (fclose(stdout) != 0 && !failed) {
		failed = 1;
		err = errno;
	}
	if (!failed && !stdout_errno)
		return 0;
	if (err)
		fprintf(stderr, "echelon: cannot write standard output: %s\n",
			strerror(err));
	else
		fprintf(stderr, "echelon: cannot write standard output\n");
	return -1;
}

int output_parse(const char *s, enum output_format *ret)
{
	static const char *const names[OUTPUT_FORMAT_COUNT] = {
		[OUTPUT_TABLE] = "table",
		[OUTPUT_JSON] = "json",
		[OUTPUT_YAML] = "yaml",
		[OUTPUT_WIDE] = "wide",
	};

	for (int i = 0; i < OUTPUT_FORMAT_COUNT; i++) {
		if (strcmp(s, names[i]) == 0) {
			*ret = (enum output_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* A string YAML reads back as the same string without quotes: words of
 * letters, digits and "_./-" that start with a letter, "_" or "/" and are
 * not one of YAML's booleans or nulls. */
static bool plain_safe(const char *s)
{
	static const char *const reserved[] = { "true", "false", "yes",
						"no",	"on",	 "off",
						"null", "y",	 "n" };

	if (!*s || !(isalpha((unsigned char)*s) || *s == '_' || *s == '/'))
		return false;
	for (const char *p = s; *p; p++) {
		if (!isalnum((unsigned char)*p) && !strchr("_./-", *p))
			return false;
	}
	for (size_t i = 0; i < ARRAY_SIZE(reserved); i++) {
		if (strcasecmp(s, reserved[i]) == 0)
			return false;
	}
	return true;
}

static void yaml_scalar(json_t *v, struct strbuf *out)
{
	char *s;

	if (json_is_string(v) && plain_safe(json_string_value(v))) {
		strbuf_addstr(out, json_string_value(v));
		return;
	}
	s = json_dumps(v, JSON_ENCODE_ANY);

	BUG_ON(!s);
	strbuf_addstr(out, s);
	free(s);
}

static bool nonempty_container(json_t *v)
{
	return (json_is_object(v) && json_object_size(v)) ||
	       (json_is_array(v) && json_array_size(v));
}

static void yaml_emit(json_t *v, int indent, bool in_seq, struct strbuf *out)
{
	const char *key;
	json_t *val;
	size_t i;
	bool first = true;

	if (json_is_object(v)) {
		json_object_foreach(v, key, val)
		{
			if (!(first && in_seq))
				strbuf_addf(out, "%*s", indent, "");
			first = false;
			strbuf_addf(out, "%s:", key);
			if (nonempty_container(val)) {
				strbuf_addch(out, '\n');
				yaml_emit(val, indent + 2, false, out);
			} else {
				strbuf_addch(out, ' ');
				yaml_scalar(val, out);
				strbuf_addch(out, '\n');
			}
		}
		return;
	}
	json_array_foreach(v, i, val)
	{
		strbuf_addf(out, "%*s- ", indent, "");
		if (json_is_object(val) && json_object_size(val)) {
			yaml_emit(val, indent + 2, true, out);
		} else {
			yaml_scalar(val, out);
			strbuf_addch(out, '\n');
		}
	}
}

void output_print(json_t *v, enum output_format fmt)
{
	struct strbuf sb;
	char *s;

	BUG_ON(fmt != OUTPUT_JSON && fmt != OUTPUT_YAML);
	if (fmt == OUTPUT_JSON) {
		s = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		BUG_ON(!s);
		output_write(s, strlen(s));
		output_write("\n", 1);
		free(s);
		return;
	}
	strbuf_init(&sb);
	yaml_emit(v, 0, false, &sb);
	output_write(sb.buf, sb.len);
	strbuf_release(&sb);
}
