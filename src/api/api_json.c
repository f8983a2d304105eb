// SPDX-License-Identifier: Apache-2.0
/*
 * A compact JSON encoder over jansson values. jansson's own dump spends
 * most of its time in stdio and per-character callbacks; replies of
 * hundreds of objects are built here instead, by copying runs of plain
 * bytes and formatting integers by hand.
 */
#include "api/api_json.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/banned.h"

void api_json_add_string(struct strbuf *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t run = 0;

	strbuf_addch(out, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[7];
		size_t n = 2;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		strbuf_add(out, s + run, i - run);
		run = i + 1;
		esc[0] = '\\';
		switch (c) {
		case '"':
		case '\\':
			esc[1] = (char)c;
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		case '\b':
			esc[1] = 'b';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		default:
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			n = 6;
		}
		strbuf_add(out, esc, n);
	}
	strbuf_add(out, s + run, len - run);
	strbuf_addch(out, '"');
}

static void add_int(struct strbuf *out, json_int_t v)
{
	char buf[24], *p = buf + sizeof(buf);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	strbuf_add(out, p, (size_t)(buf + sizeof(buf) - p));
}

static void add_real(struct strbuf *out, double d)
{
	char buf[40], *e;
	int n = snprintf(buf, sizeof(buf), "%.17g", d);

	/* As jansson writes reals: a real stays a real when read back, and
	 * the exponent has no '+' and no leading zeros. */
	e = strchr(buf, 'e');
	if (!e) {
		strbuf_add(out, buf, (size_t)n);
		if (!strpbrk(buf, ".n"))
			strbuf_addstr(out, ".0");
		return;
	}
	strbuf_add(out, buf, (size_t)(e - buf + 1));
	e++;
	if (*e == '-')
		strbuf_addch(out, *e);
	if (*e == '-' || *e == '+')
		e++;
	while (*e == '0' && e[1])
		e++;
	strbuf_addstr(out, e);
}

void api_json_add(struct strbuf *out, const json_t *v)
{
	const char *key;
	size_t klen, i;
	json_t *x;

	switch (v ? json_typeof(v) : JSON_NULL) {
	case JSON_OBJECT: {
		bool first = true;

		strbuf_addch(out, '{');
		json_object_keylen_foreach((json_t *)v, key, klen, x)
		{
			if (!first)
				strbuf_addch(out, ',');
			first = false;
			api_json_add_string(out, key, klen);
			strbuf_addch(out, ':');
			api_json_add(out, x);
		}
		strbuf_addch(out, '}');
		break;
	}
	case JSON_ARRAY:
		strbuf_addch(out, '[');
		json_array_foreach(v, i, x)
		{
			if (i)
				strbuf_addch(out, ',');
			api_json_add(out, x);
		}
		strbuf_addch(out, ']');
		break;
	case JSON_STRING:
		api_json_add_string(out, json_string_value(v),
				    json_string_length(v));
		break;
	case JSON_INTEGER:
		add_int(out, json_integer_value(v));
		break;
	case JSON_REAL:
		add_real(out, json_real_value(v));
		break;
	case JSON_TRUE:
		strbuf_addstr(out, "true");
		break;
	case JSON_FALSE:
		strbuf_addstr(out, "false");
		break;
	default:
		strbuf_addstr(out, "null");
	}
}

/* The end of the JSON string that starts at p (a quote), or NULL. */
static const char *string_end(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* The end of the JSON value that starts at p, or NULL. */
static const char *value_end(const char *p, const char *end)
{
	int depth = 0;

	if (p < end && *p == '"')
		return string_end(p, end);
	for (; p < end; p++) {
		if (*p == '"') {
			p = string_end(p, end);
			if (!p)
				return NULL;
			p--;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (depth-- == 0)
				return p;
			if (depth == 0)
				return p + 1;
		} else if (*p == ',' && depth == 0) {
			return p;
		}
	}
	return depth == 0 ? p : NULL;
}

bool api_json_member(const char *text, size_t len, const char *key,
		     const char **ret_val, size_t *ret_len)
{
	const char *p = text, *end = text + len;
	size_t klen = strlen(key);

	p = skip_space(p, end);
	if (p == end || *p != '{')
		return false;
	p = skip_space(p + 1, end);
	while (p < end && *p == '"') {
		const char *kend = string_end(p, end), *v, *vend;

		if (!kend)
			return false;
		v = skip_space(kend, end);
		if (v == end || *v != ':')
			return false;
		v = skip_space(v + 1, end);
		vend = value_end(v, end);
		if (!vend)
			return false;
		if ((size_t)(kend - p) == klen + 2 &&
		    !memcmp(p + 1, key, klen)) {
			*ret_val = v;
			*ret_len = (size_t)(vend - v);
			return true;
		}
		p = skip_space(vend, end);
		if (p == end || *p != ',')
			return false;
		p = skip_space(p + 1, end);
	}
	return false;
}
