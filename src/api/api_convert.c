// SPDX-License-Identifier: Apache-2.0
/*
 * Conversions between the views of one stored concept (api_kind_convert):
 * core v1 Event and events.k8s.io/v1 Event, whose fields differ in name
 * only (involvedObject is regarding, message is note, count is
 * deprecatedCount...), and Kueue's v1beta1 and v1beta2 where their
 * fields differ: a ClusterQueue's cohort and admission checks, a
 * LocalQueue's flavor usage, a Workload's priority class reference,
 * execution time and topology assignments (v1beta1's domain list, v1beta2's
 * compact slices). Conversions work on a copy; fields one version lacks
 * pass through, so nothing is lost on the way to storage and back.
 */
#include "api/api_kind.h"

#include <stdio.h>
#include <string.h>

#include "base/compiler.h"
#include "base/strbuf.h"

#include "base/banned.h"

/* Core v1 Event field, events.k8s.io/v1 field. */
static const char *const event_fields[][2] = {
	{ "involvedObject", "regarding" },
	{ "message", "note" },
	{ "reportingComponent", "reportingController" },
	{ "source", "deprecatedSource" },
	{ "firstTimestamp", "deprecatedFirstTimestamp" },
	{ "lastTimestamp", "deprecatedLastTimestamp" },
	{ "count", "deprecatedCount" },
};

/* Move obj[from] to obj[to], when from is present. */
static void rename_key(json_t *obj, const char *from, const char *to)
{
	json_t *v = json_object_get(obj, from);

	if (!v)
		return;
	json_object_set(obj, to, v);
	json_object_del(obj, from);
}

static void convert_event(json_t *obj, bool to_v1)
{
	for (size_t i = 0; i < ARRAY_SIZE(event_fields); i++) {
		const char *core = event_fields[i][0], *v1 = event_fields[i][1];

		if (to_v1)
			rename_key(obj, core, v1);
		else
			rename_key(obj, v1, core);
	}
	/* The core series' state is deprecated and absent from v1. */
	if (to_v1 && json_is_object(json_object_get(obj, "series")))
		json_object_del(json_object_get(obj, "series"), "state");
}

/* ---- Kueue v1beta1 <-> v1beta2 ---- */

#define KUEUE_GROUP "kueue.x-k8s.io"
/* v1beta1's priorityClassSource values. */
#define SOURCE_WPC "kueue.x-k8s.io/workloadpriorityclass"
#define SOURCE_PC  "scheduling.k8s.io/priorityclass"
/* Kueue's limit on the domains of one assignment slice. */
#define MAX_DOMAINS 100000

static json_t *member(json_t *obj, const char *key)
{
	return json_object_get(obj, key);
}

static json_t *member_object(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_object(v)) {
		v = json_object();
		json_object_set_new(obj, key, v);
	}
	return v;
}

/* v1beta2 dropped the deprecated "Preempt" and "Borrow" policies. */
static void fungibility_up(json_t *spec)
{
	static const char *const fields[][2] = {
		{ "whenCanPreempt", "Preempt" },
		{ "whenCanBorrow", "Borrow" },
	};
	json_t *ff = member(spec, "flavorFungibility");

	for (size_t i = 0; json_is_object(ff) && i < ARRAY_SIZE(fields); i++) {
		const char *v = json_string_value(member(ff, fields[i][0]));

		if (v && strcmp(v, fields[i][1]) == 0)
			json_object_set_new(ff, fields[i][0],
					    json_string("MayStopSearch"));
	}
}

static void cluster_queue(json_t *obj, bool up)
{
	json_t *spec = member(obj, "spec"), *checks, *rules;
	const json_t *c;
	size_t i;

	if (!json_is_object(spec))
		return;
	if (!up) {
		rename_key(spec, "cohortName", "cohort");
		return;
	}
	rename_key(spec, "cohort", "cohortName");
	fungibility_up(spec);
	/* A plain list of checks becomes the strategy's rules. */
	checks = member(spec, "admissionChecks");
	if (json_is_array(checks)) {
		rules = member(member_object(spec, "admissionChecksStrategy"),
			       "admissionChecks");
		if (!json_is_array(rules)) {
			rules = json_array();
			json_object_set_new(
				member(spec, "admissionChecksStrategy"),
				"admissionChecks", rules);
		}
		json_array_foreach(checks, i, c)
		{
			if (json_is_string(c))
				json_array_append_new(
					rules, json_pack("{s:O}", "name", c));
		}
		json_object_del(spec, "admissionChecks");
	}
}

static void local_queue(json_t *obj, bool up)
{
	json_t *status = member(obj, "status");

	if (!json_is_object(status))
		return;
	if (up)
		rename_key(status, "flavorUsage", "flavorsUsage");
	else
		rename_key(status, "flavorsUsage", "flavorUsage");
}

/* spec.priorityClassSource and priorityClassName, or priorityClassRef. */
static void priority_class(json_t *spec, bool up)
{
	if (up) {
		const char *name =
			json_string_value(member(spec, "priorityClassName"));
		const char *src =
			json_string_value(member(spec, "priorityClassSource"));
		bool pod = src && strcmp(src, SOURCE_PC) == 0;

		/* A name without a source names a WorkloadPriorityClass,
		 * as the decoders read it. */
		if (name && (!src || !*src || pod || !strcmp(src, SOURCE_WPC)))
			json_object_set_new(
				spec, "priorityClassRef",
				json_pack("{s:s, s:s, s:s}", "group",
					  pod ? "scheduling.k8s.io"
					      : KUEUE_GROUP,
					  "kind",
					  pod ? "PriorityClass"
					      : "WorkloadPriorityClass",
					  "name", name));
		json_object_del(spec, "priorityClassName");
		json_object_del(spec, "priorityClassSource");
		return;
	}
	json_t *ref = member(spec, "priorityClassRef");
	const char *group = json_string_value(member(ref, "group"));
	const char *kind = json_string_value(member(ref, "kind"));
	const char *name = json_string_value(member(ref, "name"));
	const char *src = NULL;

	if (group && kind && !strcmp(group, KUEUE_GROUP) &&
	    !strcmp(kind, "WorkloadPriorityClass"))
		src = SOURCE_WPC;
	else if (group && kind && !strcmp(group, "scheduling.k8s.io") &&
		 !strcmp(kind, "PriorityClass"))
		src = SOURCE_PC;
	if (!src || !name)
		return;
	json_object_set_new(spec, "priorityClassName", json_string(name));
	json_object_set_new(spec, "priorityClassSource", json_string(src));
	json_object_del(spec, "priorityClassRef");
}

/* Every value at one level the same: that value, else NULL. */
static const char *common_value(const json_t *domains, size_t level)
{
	const char *first = NULL;
	const json_t *d;
	size_t i;

	json_array_foreach(domains, i, d)
	{
		const char *v = json_string_value(
			json_array_get(json_object_get(d, "values"), level));

		if (!v || (first && strcmp(v, first) != 0))
			return NULL;
		first = v;
	}
	return first;
}

/* v1beta1 {levels, domains[{values, count}]} into one v1beta2 slice. */
static void domains_to_slices(json_t *ta)
{
	json_t *domains = member(ta, "domains"), *slices = json_array();
	size_t nlevels = json_array_size(member(ta, "levels")), n, i;
	json_t *slice, *per_level, *counts, *indiv;
	json_int_t first = 0;
	bool same = true;
	const json_t *d;

	if (!json_is_array(domains))
		return;
	n = json_array_size(domains);
	if (n) {
		per_level = json_array();
		for (size_t l = 0; l < nlevels; l++) {
			const char *u = common_value(domains, l);
			json_t *roots = json_array();

			if (u) {
				json_array_append_new(
					per_level,
					json_pack("{s:s}", "universal", u));
				json_decref(roots);
				continue;
			}
			json_array_foreach(domains, i, d)
			{
				const char *v =
					json_string_value(json_array_get(
						json_object_get(d, "values"),
						l));

				json_array_append_new(roots,
						      json_string(v ? v : ""));
			}
			json_array_append_new(
				per_level, json_pack("{s:{s:o}}", "individual",
						     "roots", roots));
		}
		indiv = json_array();
		json_array_foreach(domains, i, d)
		{
			json_int_t c =
				json_integer_value(json_object_get(d, "count"));

			if (i == 0)
				first = c;
			same = same && c == first;
			json_array_append_new(indiv, json_integer(c));
		}
		if (same) {
			counts = json_pack("{s:I}", "universal", first);
			json_decref(indiv);
		} else {
			counts = json_pack("{s:o}", "individual", indiv);
		}
		slice = json_pack("{s:I, s:o, s:o}", "domainCount",
				  (json_int_t)n, "valuesPerLevel", per_level,
				  "podCounts", counts);
		json_array_append_new(slices, slice);
	}
	json_object_set_new(ta, "slices", slices);
	json_object_del(ta, "domains");
}

/* One level's value for domain j of a slice, in buf; NULL if malformed. */
static const char *slice_value(const json_t *lv, size_t j, struct strbuf *buf)
{
	const json_t *ind = json_object_get(lv, "individual");
	const char *u = json_string_value(json_object_get(lv, "universal"));
	const char *root, *pre, *suf;

	if (u)
		return u;
	root = json_string_value(
		json_array_get(json_object_get(ind, "roots"), j));
	if (!root)
		return NULL;
	pre = json_string_value(json_object_get(ind, "prefix"));
	suf = json_string_value(json_object_get(ind, "suffix"));
	strbuf_reset(buf);
	strbuf_addf(buf, "%s%s%s", pre ? pre : "", root, suf ? suf : "");
	return buf->buf;
}

/* One slice's domains appended to out; -1 when it is malformed. */
static int slice_domains(const json_t *slice, size_t nlevels, json_t *out)
{
	const json_t *per_level = json_object_get(slice, "valuesPerLevel");
	const json_t *counts = json_object_get(slice, "podCounts");
	const json_t *uc = json_object_get(counts, "universal");
	const json_t *ic = json_object_get(counts, "individual");
	json_int_t n =
		json_integer_value(json_object_get(slice, "domainCount"));
	struct strbuf buf;
	int rc = 0;

	if (n < 0 || n > MAX_DOMAINS || json_array_size(per_level) != nlevels)
		return -1;
	strbuf_init(&buf);
	for (json_int_t j = 0; j < n && rc == 0; j++) {
		json_t *values = json_array();
		const json_t *c = uc ? uc : json_array_get(ic, (size_t)j);

		for (size_t l = 0; l < nlevels; l++) {
			const char *v = slice_value(
				json_array_get(per_level, l), (size_t)j, &buf);

			if (!v) {
				rc = -1;
				break;
			}
			json_array_append_new(values, json_string(v));
		}
		if (!json_is_integer(c))
			rc = -1;
		if (rc == 0)
			json_array_append_new(out,
					      json_pack("{s:o, s:O}", "values",
							values, "count", c));
		else
			json_decref(values);
	}
	strbuf_release(&buf);
	return rc;
}

static void slices_to_domains(json_t *ta)
{
	json_t *slices = member(ta, "slices"), *domains = json_array();
	size_t nlevels = json_array_size(member(ta, "levels")), i;
	const json_t *slice;

	if (!json_is_array(slices)) {
		json_decref(domains);
		return;
	}
	json_array_foreach(slices, i, slice)
	{
		/* Malformed: leave it as it is rather than guess. */
		if (slice_domains(slice, nlevels, domains) < 0) {
			json_decref(domains);
			return;
		}
	}
	json_object_set_new(ta, "domains", domains);
	json_object_del(ta, "slices");
}

static void workload(json_t *obj, bool up)
{
	json_t *spec = member(obj, "spec"), *status = member(obj, "status");
	json_t *psa, *a;
	size_t i;

	if (json_is_object(spec))
		priority_class(spec, up);
	if (!json_is_object(status))
		return;
	if (up)
		rename_key(status, "accumulatedPastExexcutionTimeSeconds",
			   "accumulatedPastExecutionTimeSeconds");
	else
		rename_key(status, "accumulatedPastExecutionTimeSeconds",
			   "accumulatedPastExexcutionTimeSeconds");
	psa = member(member(status, "admission"), "podSetAssignments");
	json_array_foreach(psa, i, a)
	{
		json_t *ta = member(a, "topologyAssignment");

		if (!json_is_object(ta))
			continue;
		if (up)
			domains_to_slices(ta);
		else
			slices_to_domains(ta);
	}
}

/* obj (a Kueue kind at version from) to version to. */
static void convert_kueue(json_t *obj, const struct api_kind *k,
			  const char *from, const char *to)
{
	bool up;

	if (strcmp(from, to) == 0)
		return;
	up = strcmp(to, "v1beta2") == 0;
	switch ((enum api_kind_id)k->id) {
	case API_KIND_CLUSTER_QUEUE:
		cluster_queue(obj, up);
		break;
	case API_KIND_LOCAL_QUEUE:
		local_queue(obj, up);
		break;
	case API_KIND_WORKLOAD:
		workload(obj, up);
		break;
	default:
		break;
	}
}

json_t *api_kind_convert(const json_t *obj, const struct api_kind *to,
			 const char *version)
{
	const struct api_kind *from, *core_ev = api_kind_at(API_KIND_EVENT),
				     *v1_ev = api_kind_at(API_KIND_EVENT_V1);
	char gv[96];
	json_t *out;

	if (!json_is_object(obj))
		return NULL;
	if (!version || !api_kind_serves(to, version))
		version = to->versions[0];
	out = json_deep_copy(obj);
	from = api_kind_of(
		json_string_value(json_object_get(obj, "apiVersion")),
		json_string_value(json_object_get(obj, "kind")));
	if (from == core_ev && to == v1_ev) {
		convert_event(out, true);
	} else if (from == v1_ev && to == core_ev) {
		convert_event(out, false);
	} else if (from == to && strcmp(to->group, KUEUE_GROUP) == 0) {
		const char *av =
			json_string_value(json_object_get(obj, "apiVersion"));

		convert_kueue(out, to, strchr(av, '/') + 1, version);
	}
	json_object_set_new(
		out, "apiVersion",
		json_string(api_kind_gv(to, version, gv, sizeof(gv))));
	json_object_set_new(out, "kind", json_string(to->kind));
	return out;
}
