// SPDX-License-Identifier: Apache-2.0
/*
 * Conversions between the views of one stored concept (api_kind_convert):
 * core v1 Event and events.k8s.io/v1 Event, whose fields differ in name
 * only (involvedObject is regarding, message is note, count is
 * deprecatedCount...), and Kueue's v1beta1 and v1beta2, which share the
 * storage kind. Conversions work on a copy; unknown fields pass through.
 */
#include "api/api_kind.h"

#include <string.h>

#include "base/compiler.h"

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
	if (from == core_ev && to == v1_ev)
		convert_event(out, true);
	else if (from == v1_ev && to == core_ev)
		convert_event(out, false);
	json_object_set_new(
		out, "apiVersion",
		json_string(api_kind_gv(to, version, gv, sizeof(gv))));
	json_object_set_new(out, "kind", json_string(to->kind));
	return out;
}
