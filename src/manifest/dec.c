// SPDX-License-Identifier: Apache-2.0
/*
 * Typed, located access to parsed YAML/JSON nodes for the manifest
 * decoders. Scalars follow Kubernetes' decoding: strings must be strings
 * (a plain 5 or true is not a string), integers and booleans must be plain
 * scalars, quantities may be either, and null means absent.
 */
#include "manifest/dec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/duration.h"
#include "model/quantity.h"

#include "base/banned.h"

void dec_init(struct dec *x, struct cluster *batch, struct diag *d,
	      const char *file)
{
	memset(x, 0, sizeof(*x));
	x->batch = batch;
	x->d = d;
	x->file = file;
	strbuf_init(&x->path);
	x->obj_pos.file = file;
}

void dec_release(struct dec *x)
{
	strbuf_release(&x->path);
}

size_t dec_push(struct dec *x, const char *field)
{
	size_t len = x->path.len;

	if (len)
		strbuf_addch(&x->path, '.');
	strbuf_addstr(&x->path, field);
	return len;
}

size_t dec_push_index(struct dec *x, size_t i)
{
	size_t len = x->path.len;

	char digits[24];
	size_t n = 0;

	do {
		digits[n++] = (char)('0' + i % 10);
		i /= 10;
	} while (i);
	strbuf_addch(&x->path, '[');
	while (n)
		strbuf_addch(&x->path, digits[--n]);
	strbuf_addch(&x->path, ']');
	return len;
}

size_t dec_push_key(struct dec *x, const char *key)
{
	size_t len = x->path.len;

	strbuf_add(&x->path, "[\"", 2);
	strbuf_addstr(&x->path, key);
	strbuf_add(&x->path, "\"]", 2);
	return len;
}

void dec_pop(struct dec *x, size_t len)
{
	strbuf_truncate(&x->path, len);
}

struct srcpos dec_pos(const struct dec *x, struct ynode *n)
{
	struct srcpos pos = x->obj_pos;

	if (n && n->line) {
		pos.line = n->line;
		pos.col = n->col;
	}
	return pos;
}

static void report(struct dec *x, enum diag_severity sev, struct ynode *n,
		   const char *fmt, va_list ap)
{
	struct srcpos pos = dec_pos(x, n);
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_vaddf(&sb, fmt, ap);
	diag_at(x->d, sev, &pos, "%s%s%s", x->path.buf, x->path.len ? ": " : "",
		sb.buf);
	strbuf_release(&sb);
}

void dec_error(struct dec *x, struct ynode *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(x, DIAG_ERROR, n, fmt, ap);
	va_end(ap);
}

void dec_warn(struct dec *x, struct ynode *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(x, DIAG_WARNING, n, fmt, ap);
	va_end(ap);
}

bool dec_is_null(struct ynode *n)
{
	return ynode_is_null(n);
}

struct ynode *dec_get(struct ynode *map, const char *key)
{
	return ynode_get(map, key);
}

static const char *type_name(struct ynode *n)
{
	if (n->type == YNODE_MAP)
		return "an object";
	if (n->type == YNODE_SEQ)
		return "a list";
	if (n->type == YNODE_ALIAS)
		return "a YAML alias (aliases are not supported)";
	return "a scalar";
}

/* An alias ("spec: *anchor") is a scalar node whose text is the anchor. */
static bool is_alias(struct ynode *n)
{
	return n->type == YNODE_ALIAS;
}

int dec_expect_map(struct dec *x, struct ynode *n)
{
	if (n->type == YNODE_MAP)
		return 0;
	if (is_alias(n))
		dec_error(x, n, "YAML aliases are not supported");
	else
		dec_error(x, n, "must be an object, not %s", type_name(n));
	return -EINVAL;
}

int dec_expect_seq(struct dec *x, struct ynode *n)
{
	if (n->type == YNODE_SEQ)
		return 0;
	if (is_alias(n))
		dec_error(x, n, "YAML aliases are not supported");
	else
		dec_error(x, n, "must be a list, not %s", type_name(n));
	return -EINVAL;
}

static bool in_list(const char *const *list, const char *s, size_t len)
{
	for (; list && *list; list++) {
		if (strlen(*list) == len && memcmp(*list, s, len) == 0)
			return true;
	}
	return false;
}

void dec_check_fields(struct dec *x, struct ynode *map,
		      const char *const *known, const char *const *ignored)
{
	for (size_t i = 0; i < map->n; i++) {
		struct ynode *k = map->kids[2 * i];
		const char *s;
		size_t len;

		if (k->type != YNODE_SCALAR) {
			dec_error(x, k, "field names must be strings");
			continue;
		}
		s = k->text;
		len = k->len;
		if (!in_list(known, s, len) && !in_list(ignored, s, len))
			dec_warn(x, k, "unknown field \"%.*s\" is ignored",
				 (int)len, s);
	}
}

/* A scalar that YAML would type as a number, boolean or null. */
static bool plain_non_string(struct ynode *n, const char *s, size_t len)
{
	char *end;
	char buf[64];

	if (!n->plain)
		return false;
	if (len == 0 || len >= sizeof(buf))
		return false;
	if (!strchr("0123456789+-.tTfF", s[0]))
		return false;
	if ((len == 4 && (!memcmp(s, "true", 4) || !memcmp(s, "True", 4))) ||
	    (len == 5 && (!memcmp(s, "false", 5) || !memcmp(s, "False", 5))))
		return true;
	memcpy(buf, s, len);
	buf[len] = '\0';
	strtod(buf, &end);
	return *end == '\0' &&
	       (buf[0] == '-' || buf[0] == '+' || buf[0] == '.' ||
		(buf[0] >= '0' && buf[0] <= '9'));
}

static int scalar(struct dec *x, struct ynode *n, const char *what,
		  const char **ret, size_t *ret_len)
{
	if (is_alias(n)) {
		dec_error(x, n, "YAML aliases are not supported");
		return -EINVAL;
	}
	if (n->type != YNODE_SCALAR) {
		dec_error(x, n, "must be %s, not %s", what, type_name(n));
		return -EINVAL;
	}
	*ret = n->text;
	*ret_len = n->len;
	return 0;
}

int dec_string(struct dec *x, struct ynode *n, const char **ret)
{
	const char *s;
	size_t len;

	if (scalar(x, n, "a string", &s, &len) < 0)
		return -EINVAL;
	if (plain_non_string(n, s, len)) {
		dec_error(x, n, "must be a string, not %.*s (quote it)",
			  (int)len, s);
		return -EINVAL;
	}
	if (memchr(s, '\0', len)) {
		dec_error(x, n, "must not contain NUL characters");
		return -EINVAL;
	}
	*ret = intern_strn(x->batch->strings, s, len);
	return 0;
}

int dec_int(struct dec *x, struct ynode *n, int64_t min, int64_t max,
	    int64_t *ret)
{
	const char *s;
	char buf[32], *end;
	size_t len;
	long long v;

	if (scalar(x, n, "an integer", &s, &len) < 0)
		return -EINVAL;
	if (!n->plain || len == 0 || len >= sizeof(buf)) {
		dec_error(x, n, "must be an integer");
		return -EINVAL;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (*end || buf[0] == ' ' || buf[0] == '+') {
		dec_error(x, n, "must be an integer, not %s", buf);
		return -EINVAL;
	}
	if (errno == ERANGE || v < min || v > max) {
		dec_error(x, n, "must be between %lld and %lld, not %s",
			  (long long)min, (long long)max, buf);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

int dec_bool(struct dec *x, struct ynode *n, bool *ret)
{
	static const char *const yes[] = { "true", "True", "TRUE", NULL };
	static const char *const no[] = { "false", "False", "FALSE", NULL };
	const char *s;
	size_t len;

	if (scalar(x, n, "a boolean", &s, &len) < 0)
		return -EINVAL;
	if (n->plain && in_list(yes, s, len)) {
		*ret = true;
		return 0;
	}
	if (n->plain && in_list(no, s, len)) {
		*ret = false;
		return 0;
	}
	dec_error(x, n, "must be a boolean (true or false), not %s%.*s%s",
		  n->plain ? "" : "the string \"", (int)len, s,
		  n->plain ? "" : "\"");
	return -EINVAL;
}

int dec_quantity(struct dec *x, struct ynode *n, int resource, int64_t *ret)
{
	struct errbuf eb;
	const char *s;
	char buf[128];
	size_t len;
	int rc;

	if (scalar(x, n, "a quantity", &s, &len) < 0)
		return -EINVAL;
	if (len >= sizeof(buf)) {
		dec_error(x, n, "quantity is too long (%zu characters)", len);
		return -EINVAL;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	rc = quantity_parse(buf, x->batch->resources->kinds[resource], ret,
			    &eb);
	if (rc < 0) {
		dec_error(x, n, "%s", eb.msg);
		return -EINVAL;
	}
	return 0;
}

int dec_duration(struct dec *x, struct ynode *n, int64_t *ret_us)
{
	struct errbuf eb;
	const char *s;
	int64_t us;

	if (dec_string(x, n, &s) < 0)
		return -EINVAL;
	if (duration_parse(s, strlen(s), &us, &eb) < 0) {
		dec_error(x, n, "%s", eb.msg);
		return -EINVAL;
	}
	if (us < 0) {
		dec_error(x, n, "must not be negative, not \"%s\"", s);
		return -EINVAL;
	}
	*ret_us = us;
	return 0;
}

/* Shared shape of the *_field accessors. */
#define FIELD_BODY(call)                                                       \
	struct ynode *n = dec_get(map, key);                                   \
	size_t len;                                                            \
	int rc;                                                                \
	if (!n) {                                                              \
		if (required) {                                                \
			len = dec_push(x, key);                                \
			dec_error(x, map, "is required");                      \
			dec_pop(x, len);                                       \
			return -EINVAL;                                        \
		}                                                              \
		return 0;                                                      \
	}                                                                      \
	len = dec_push(x, key);                                                \
	rc = (call);                                                           \
	dec_pop(x, len);                                                       \
	return rc < 0 ? rc : 1

int dec_str_field(struct dec *x, struct ynode *map, const char *key,
		  bool required, const char **ret)
{
	FIELD_BODY(dec_string(x, n, ret));
}

int dec_int_field(struct dec *x, struct ynode *map, const char *key,
		  bool required, int64_t min, int64_t max, int64_t *ret)
{
	FIELD_BODY(dec_int(x, n, min, max, ret));
}

int dec_bool_field(struct dec *x, struct ynode *map, const char *key, bool *ret)
{
	const bool required = false;

	FIELD_BODY(dec_bool(x, n, ret));
}

static int dec_time(struct dec *x, struct ynode *n, int64_t *ret_us)
{
	const char *s;

	if (dec_string(x, n, &s) < 0)
		return -EINVAL;
	if (dec_parse_time(s, ret_us) < 0) {
		dec_error(x, n,
			  "must be an RFC 3339 time such as "
			  "\"2024-05-01T10:00:00Z\", not \"%s\"",
			  s);
		return -EINVAL;
	}
	return 0;
}

int dec_time_field(struct dec *x, struct ynode *map, const char *key,
		   int64_t *ret_us)
{
	const bool required = false;

	FIELD_BODY(dec_time(x, n, ret_us));
}

int dec_duration_field(struct dec *x, struct ynode *map, const char *key,
		       int64_t *ret_us)
{
	const bool required = false;

	FIELD_BODY(dec_duration(x, n, ret_us));
}

static int one_of(struct dec *x, struct ynode *n, const char *const *names,
		  int *ret)
{
	const char *s;
	struct strbuf sb;

	if (dec_string(x, n, &s) < 0)
		return -EINVAL;
	for (int i = 0; names[i]; i++) {
		if (strcmp(s, names[i]) == 0) {
			*ret = i;
			return 0;
		}
	}
	strbuf_init(&sb);
	for (int i = 0; names[i]; i++)
		strbuf_addf(&sb, "%s\"%s\"", i ? ", " : "", names[i]);
	dec_error(x, n, "unsupported value \"%s\": must be one of %s", s,
		  sb.buf);
	strbuf_release(&sb);
	return -EINVAL;
}

int dec_enum_field(struct dec *x, struct ynode *map, const char *key,
		   const char *const *names, int *ret)
{
	const bool required = false;

	FIELD_BODY(one_of(x, n, names, ret));
}
