// SPDX-License-Identifier: Apache-2.0
/*
 * Taints and tolerations, after k8s.io/api core/v1 ToleratesTaint, the API
 * server's ValidateTolerations and the scheduler's TaintToleration filter.
 * Validation reports the first problem in the order Kubernetes checks.
 */
#include "model/taint.h"

#include <errno.h>
#include <string.h>

#include "model/label.h"

#include "base/banned.h"

static const char *const effect_names[TAINT_EFFECT_COUNT] = {
	[TAINT_NO_SCHEDULE] = "NoSchedule",
	[TAINT_PREFER_NO_SCHEDULE] = "PreferNoSchedule",
	[TAINT_NO_EXECUTE] = "NoExecute",
};

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

int taint_parse_effect(const char *s, enum taint_effect *ret)
{
	for (size_t i = 0; s && i < TAINT_EFFECT_COUNT; i++) {
		if (!strcmp(s, effect_names[i])) {
			*ret = (enum taint_effect)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *taint_effect_name(enum taint_effect e)
{
	if ((unsigned)e >= TAINT_EFFECT_COUNT)
		return "?";
	return effect_names[e];
}

int toleration_parse_op(const char *s, enum toleration_op *ret)
{
	if (!s)
		return -EINVAL;
	if (!*s || !strcmp(s, "Equal")) {
		*ret = TOLERATION_EQUAL;
		return 0;
	}
	if (!strcmp(s, "Exists")) {
		*ret = TOLERATION_EXISTS;
		return 0;
	}
	return -EINVAL;
}

static int check_op_value(const struct toleration *t, struct errbuf *eb)
{
	struct errbuf sub;

	switch (t->op) {
	case TOLERATION_EQUAL:
		if (label_check_value(t->value, &sub))
			return errbuf_set(eb, -EINVAL, "value: %s", sub.msg);
		return 0;
	case TOLERATION_EXISTS:
		if (*str_or_empty(t->value))
			return errbuf_set(eb, -EINVAL,
					  "value: value must be empty when "
					  "`operator` is 'Exists'");
		return 0;
	default:
		return errbuf_set(eb, -EINVAL,
				  "operator: supported values: \"Equal\", "
				  "\"Exists\"");
	}
}

int toleration_check(const struct toleration *t, struct errbuf *eb)
{
	const char *key = str_or_empty(t->key);
	struct errbuf sub;
	int err;

	if (*key && label_check_key(key, &sub))
		return errbuf_set(eb, -EINVAL, "key: %s", sub.msg);
	if (!*key && t->op != TOLERATION_EXISTS)
		return errbuf_set(
			eb, -EINVAL,
			"operator: operator must be Exists when `key` "
			"is empty, which means \"match all values and "
			"all keys\"");
	if (t->has_seconds && t->effect != TAINT_NO_EXECUTE)
		return errbuf_set(eb, -EINVAL,
				  "effect: effect must be 'NoExecute' when "
				  "`tolerationSeconds` is set");
	err = check_op_value(t, eb);
	if (err)
		return err;
	if (t->effect < -1 || t->effect >= TAINT_EFFECT_COUNT)
		return errbuf_set(eb, -EINVAL,
				  "effect: supported values: \"NoSchedule\", "
				  "\"PreferNoSchedule\", \"NoExecute\"");
	return 0;
}

bool toleration_tolerates(const struct toleration *t, const struct taint *taint)
{
	const char *key = str_or_empty(t->key);

	if (t->effect != -1 && t->effect != (int)taint->effect)
		return false;
	if (*key && strcmp(key, str_or_empty(taint->key)))
		return false;
	switch (t->op) {
	case TOLERATION_EQUAL:
		return !strcmp(str_or_empty(t->value),
			       str_or_empty(taint->value));
	case TOLERATION_EXISTS:
		return true;
	default:
		return false;
	}
}

static bool tolerated(const struct taint *taint, const struct toleration *tols,
		      size_t ntols)
{
	for (size_t i = 0; i < ntols; i++) {
		if (toleration_tolerates(&tols[i], taint))
			return true;
	}
	return false;
}

const struct taint *taint_find_untolerated(const struct taint *taints,
					   size_t ntaints,
					   const struct toleration *tols,
					   size_t ntols)
{
	for (size_t i = 0; i < ntaints; i++) {
		const struct taint *t = &taints[i];

		if (t->effect != TAINT_NO_SCHEDULE &&
		    t->effect != TAINT_NO_EXECUTE)
			continue;
		if (!tolerated(t, tols, ntols))
			return t;
	}
	return NULL;
}
