// SPDX-License-Identifier: Apache-2.0
/*
 * Validation of API writes through the manifest decoders: the object's
 * JSON text is decoded into a scratch cluster exactly as `echelon
 * validate` decodes a file, and each message ("path: what is wrong")
 * becomes a cause {field, message}. Kinds without a decoder (Events,
 * Leases) get their metadata decoded the same way plus Kubernetes' own
 * rules for them; updates are checked against the stored object for the
 * fields Kubernetes keeps immutable.
 */
#include "api/api_validate.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "manifest/dec.h"
#include "manifest/manifest.h"
#include "model/label.h"

#include "base/banned.h"

/* Kubernetes' limits on Event fields (pkg/apis/core/validation). */
#define NOTE_MAX      1024
#define EVENT_STR_MAX 128

void api_causes_release(struct api_causes *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].field);
		free(c->v[i].message);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static void add_cause(struct api_causes *c, const char *field, size_t flen,
		      bool warning, const char *message)
{
	struct api_cause *k;

	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 8;
		c->v = xreallocarray(c->v, c->cap, sizeof(*c->v));
	}
	k = &c->v[c->n++];
	k->field = xstrndup(field, flen);
	k->message = xstrdup(message);
	k->warning = warning;
	if (!warning)
		c->errors++;
}

static void PRINTF_LIKE(4, 5) causef(struct api_causes *c, const char *field,
				     bool warning, const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;

	strbuf_init(&sb);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	add_cause(c, field, strlen(field), warning, sb.buf);
	strbuf_release(&sb);
}

/*
 * Length of the field path at the start of a decoder message ("spec.
 * podSets[0].count: must be..." or "metadata.labels[\"a b\"]: ..."), or 0
 * when the message does not start with one.
 */
static size_t path_len(const char *text)
{
	const char *p = text;

	while (*p) {
		if (p[0] == '[' && p[1] == '"') {
			const char *end = strstr(p + 2, "\"]");

			if (!end)
				return 0;
			p = end + 2;
		} else if (p[0] == ':' && p[1] == ' ') {
			return (size_t)(p - text);
		} else if (*p == ' ' || *p == '"') {
			return 0;
		} else {
			p++;
		}
	}
	return 0;
}

static bool unknown_field(const char *message)
{
	return strncmp(message, "unknown field \"", 15) == 0;
}

/* An unknown field's cause names the field itself ("spec.foo"), as
 * Kubernetes' strict decoding does. */
static void add_unknown(struct api_causes *out, const char *path, size_t n,
			bool warning, const char *msg)
{
	const char *name = msg + 15, *end = strchr(name, '"');
	struct strbuf field;

	strbuf_init(&field);
	strbuf_add(&field, path, n);
	if (end) {
		if (n)
			strbuf_addch(&field, '.');
		strbuf_add(&field, name, (size_t)(end - name));
	}
	add_cause(out, field.buf, field.len, warning, msg);
	strbuf_release(&field);
}

/* The decoder's messages as causes, following fv for unknown fields. */
static void take_diag(const struct diag *d, enum api_field_validation fv,
		      struct api_causes *out)
{
	for (size_t i = 0; i < d->msgs.len; i++) {
		const struct diag_msg *m = &d->msgs.items[i];
		size_t n = path_len(m->text);
		const char *msg = n ? m->text + n + 2 : m->text;
		bool warning = m->severity == DIAG_WARNING;

		if (warning && unknown_field(msg)) {
			if (fv == API_FV_IGNORE)
				continue;
			if (fv == API_FV_STRICT) {
				warning = false;
				out->unknown++;
			}
			add_unknown(out, m->text, n, warning, msg);
			continue;
		}
		add_cause(out, m->text, n, warning, msg);
	}
	if (d->dropped)
		causef(out, "", false, "%zu more errors", d->dropped);
}

/* Decode the object as `echelon validate` decodes a file. */
static void decode(const char *text, size_t len, enum api_field_validation fv,
		   struct api_causes *out)
{
	struct cluster scratch;
	struct diag d;

	cluster_init(&scratch);
	diag_init(&d);
	if (manifest_load_buffer(&scratch, "object.json", text, len, &d) < 0 &&
	    d.errors == 0)
		diag_add(&d, DIAG_ERROR, NULL, 0, 0, "the object is invalid");
	take_diag(&d, fv, out);
	diag_release(&d);
	cluster_release(&scratch);
}

/* The fields of the kinds the manifests do not hold, as Kubernetes
 * defines them: anything else is an unknown field. */
static const char *const core_event_fields[] = { "apiVersion",
						 "kind",
						 "metadata",
						 "involvedObject",
						 "reason",
						 "message",
						 "source",
						 "firstTimestamp",
						 "lastTimestamp",
						 "count",
						 "type",
						 "eventTime",
						 "series",
						 "action",
						 "related",
						 "reportingComponent",
						 "reportingInstance",
						 NULL };
static const char *const event_v1_fields[] = { "apiVersion",
					       "kind",
					       "metadata",
					       "eventTime",
					       "series",
					       "reportingController",
					       "reportingInstance",
					       "action",
					       "reason",
					       "regarding",
					       "related",
					       "note",
					       "type",
					       "deprecatedSource",
					       "deprecatedFirstTimestamp",
					       "deprecatedLastTimestamp",
					       "deprecatedCount",
					       NULL };
static const char *const lease_fields[] = { "apiVersion", "kind", "metadata",
					    "spec", NULL };
static const char *const lease_spec_fields[] = {
	"holderIdentity",   "leaseDurationSeconds",
	"acquireTime",	    "renewTime",
	"leaseTransitions", "strategy",
	"preferredHolder",  NULL
};

/* Kubernetes' own PodGroup (scheduling.k8s.io v1beta1; v1alpha2 has
 * the same shape). */
static const char *const native_pod_group_fields[] = { "apiVersion", "kind",
						       "metadata",   "spec",
						       "status",     NULL };
static const char *const native_pod_group_spec_fields[] = {
	"podGroupTemplateRef",
	"workloadRef",
	"parentCompositePodGroupName",
	"schedulingPolicy",
	"schedulingConstraints",
	"resourceClaims",
	"disruptionMode",
	"priorityClassName",
	"priority",
	"preemptionPolicy",
	NULL
};

/*
 * Decode only the metadata, for the kinds the manifests do not hold, and
 * check the fields of the object (and of its spec, when spec_known) with
 * the decoders' own helper, so unknown fields read as they do for every
 * other kind.
 */
static void decode_metadata(const char *text, size_t len, bool namespaced,
			    const char *const *known,
			    const char *const *spec_known,
			    enum api_field_validation fv,
			    struct api_causes *out)
{
	struct cluster scratch, batch;
	struct ynode *root = NULL, *spec;
	struct dec_meta m;
	struct yparser *p;
	struct diag d;
	struct dec x;

	cluster_init(&scratch);
	cluster_init_batch(&batch, &scratch);
	diag_init(&d);
	dec_init(&x, &batch, &d, "object.json");
	p = yparser_new(text, len, true, "object.json", &d);
	if (yparser_next(p, &root) > 0 && root && root->type == YNODE_MAP) {
		/* Problems are reported in d; m is released either way. */
		int rc = dec_metadata(&x, root, namespaced, &m);

		(void)rc;
		dec_meta_release(&m);
		dec_check_fields(&x, root, known, NULL);
		spec = dec_get(root, "spec");
		if (spec_known && spec && spec->type == YNODE_MAP) {
			size_t l = dec_push(&x, "spec");

			dec_check_fields(&x, spec, spec_known, NULL);
			dec_pop(&x, l);
		}
	}
	yparser_free(p);
	take_diag(&d, fv, out);
	dec_release(&x);
	diag_release(&d);
	cluster_release(&batch);
	cluster_release(&scratch);
}

static const char *str(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

static const json_t *meta(const json_t *obj)
{
	return json_object_get(obj, "metadata");
}

/* Kubernetes' checks of an Event in its events.k8s.io/v1 shape, given
 * the names its fields have in the shape obj is in. */
struct event_names {
	const char *regarding, *note, *controller;
};

static void check_new_event(const json_t *ev, const struct event_names *f,
			    struct api_causes *out)
{
	static const char *const required[] = { "reportingInstance", "action",
						"reason" };
	const char *type = str(ev, "type");
	const char *note = str(ev, f->note);
	const char *ctrl = str(ev, f->controller);
	const json_t *series = json_object_get(ev, "series");
	struct errbuf eb;

	if (!str(ev, "eventTime"))
		causef(out, "eventTime", false, "is required");
	if (!type || (strcmp(type, "Normal") && strcmp(type, "Warning")))
		causef(out, "type", false,
		       "must be \"Normal\" or \"Warning\", not \"%s\"",
		       type ? type : "");
	if (!ctrl || !*ctrl)
		causef(out, f->controller, false, "is required");
	else if (label_check_key(ctrl, &eb) < 0)
		causef(out, f->controller, false,
		       "\"%s\" is not a qualified name: %s", ctrl, eb.msg);
	for (size_t i = 0; i < ARRAY_SIZE(required); i++) {
		const char *s = str(ev, required[i]);

		if (!s || !*s)
			causef(out, required[i], false, "is required");
		else if (strlen(s) > EVENT_STR_MAX)
			causef(out, required[i], false,
			       "must have at most %d bytes", EVENT_STR_MAX);
	}
	if (note && strlen(note) > NOTE_MAX)
		causef(out, f->note, false, "must have at most %d bytes",
		       NOTE_MAX);
	if (series && !json_is_null(series)) {
		if (json_integer_value(json_object_get(series, "count")) < 2)
			causef(out, "series.count", false,
			       "must be at least 2");
		if (!str(series, "lastObservedTime"))
			causef(out, "series.lastObservedTime", false,
			       "is required");
	}
}

/* Whether an Event is in its events.k8s.io/v1 shape. */
static bool event_v1_shape(const struct api_kind *k, const json_t *ev)
{
	const struct api_kind *v1 = api_kind_at(API_KIND_EVENT_V1);

	return api_kind_of(str(ev, "apiVersion"), "Event") == v1 ||
	       (k == v1 && !str(ev, "apiVersion"));
}

static void check_event(const struct api_kind *k, const json_t *ev,
			struct api_causes *out)
{
	bool v1_shape = event_v1_shape(k, ev);
	struct event_names f = { "involvedObject", "message",
				 "reportingComponent" };
	const char *ns = str(meta(ev), "namespace");
	const char *ins;

	if (v1_shape)
		f = (struct event_names){ "regarding", "note",
					  "reportingController" };
	/* events.k8s.io requires the new fields; a core Event has them
	 * when it says when it happened in eventTime. */
	if (v1_shape || str(ev, "eventTime"))
		check_new_event(ev, &f, out);
	else if (str(ev, "message") && strlen(str(ev, "message")) > NOTE_MAX)
		causef(out, "message", false, "must have at most %d bytes",
		       NOTE_MAX);
	/* The object an Event is about lives in the Event's namespace. */
	ins = str(json_object_get(ev, f.regarding), "namespace");
	if (ins && *ins && (!ns || strcmp(ins, ns) != 0))
		causef(out,
		       v1_shape ? "regarding.namespace"
				: "involvedObject.namespace",
		       false, "\"%s\" does not match the Event's namespace",
		       ins);
}

static void check_lease(const json_t *lease, struct api_causes *out)
{
	const json_t *spec = json_object_get(lease, "spec");
	const json_t *d = json_object_get(spec, "leaseDurationSeconds");
	const json_t *t = json_object_get(spec, "leaseTransitions");

	if (spec && !json_is_object(spec)) {
		causef(out, "spec", false, "must be an object");
		return;
	}
	if (d && !json_is_null(d) &&
	    (!json_is_integer(d) || json_integer_value(d) <= 0))
		causef(out, "spec.leaseDurationSeconds", false,
		       "must be a positive integer");
	if (t && !json_is_null(t) &&
	    (!json_is_integer(t) || json_integer_value(t) < 0))
		causef(out, "spec.leaseTransitions", false,
		       "must be a non-negative integer");
}

/* obj's apiVersion and kind name k (or the Event view k stands for). */
static int check_type(const struct api_kind *k, const json_t *obj,
		      struct api_causes *out)
{
	const char *av = str(obj, "apiVersion"), *kind = str(obj, "kind");
	const struct api_kind *is = api_kind_of(av, kind);

	if (!av || !kind) {
		causef(out, av ? "kind" : "apiVersion", false, "is required");
		return -EINVAL;
	}
	if (!is || api_kind_storage(is) != api_kind_storage(k)) {
		char gv[96];

		causef(out, "kind", false,
		       "%s %s is not what this path serves (%s %s)", av, kind,
		       api_kind_gv(k, NULL, gv, sizeof(gv)), k->kind);
		return -EINVAL;
	}
	return 0;
}

/* ---- updates: what Kubernetes keeps immutable ---- */

static const json_t *at2(const json_t *obj, const char *a, const char *b)
{
	return json_object_get(json_object_get(obj, a), b);
}

static bool same_value(const json_t *a, const json_t *b)
{
	if (!a || json_is_null(a))
		return !b || json_is_null(b);
	return b && json_equal((json_t *)a, (json_t *)b);
}

static void immutable(const json_t *obj, const json_t *old, const char *a,
		      const char *b, struct api_causes *out)
{
	char field[96];

	if (same_value(at2(obj, a, b), at2(old, a, b)))
		return;
	snprintf(field, sizeof(field), "%s.%s", a, b);
	causef(out, field, false, "field is immutable");
}

/* A pod spec without the fields an update may change. */
static json_t *pod_spec_fixed(const json_t *pod)
{
	static const char *const mutable_fields[] = {
		"activeDeadlineSeconds", "tolerations",
		"terminationGracePeriodSeconds", "schedulingGates"
	};
	static const char *const lists[] = { "containers", "initContainers" };
	json_t *spec = json_deep_copy(json_object_get(pod, "spec")), *c;
	size_t i;

	if (!json_is_object(spec))
		return spec;
	for (i = 0; i < ARRAY_SIZE(mutable_fields); i++)
		json_object_del(spec, mutable_fields[i]);
	for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
		json_array_foreach(json_object_get(spec, lists[l]), i, c)
		{
			if (json_is_object(c))
				json_object_del(c, "image");
		}
	}
	return spec;
}

static void check_pod_update(const json_t *obj, const json_t *old,
			     struct api_causes *out)
{
	json_t *a = pod_spec_fixed(obj), *b = pod_spec_fixed(old);

	if (!same_value(a, b))
		causef(out, "spec", false,
		       "pod updates may not change fields other than "
		       "spec.containers[*].image, "
		       "spec.initContainers[*].image, "
		       "spec.activeDeadlineSeconds, spec.tolerations, "
		       "spec.terminationGracePeriodSeconds and removals from "
		       "spec.schedulingGates");
	json_decref(a);
	json_decref(b);
}

static void check_update(const struct api_kind *k, const json_t *obj,
			 const json_t *old, struct api_causes *out)
{
	switch ((enum api_kind_id)k->id) {
	case API_KIND_POD:
		check_pod_update(obj, old, out);
		break;
	case API_KIND_JOB:
		immutable(obj, old, "spec", "selector", out);
		immutable(obj, old, "spec", "completionMode", out);
		/* The template may change while the Job is suspended. */
		if (!json_is_true(at2(old, "spec", "suspend")))
			immutable(obj, old, "spec", "template", out);
		break;
	case API_KIND_WORKLOAD:
		/* Kueue's webhook: what quota was reserved for stays. */
		if (json_object_get(json_object_get(old, "status"),
				    "admission")) {
			immutable(obj, old, "spec", "podSets", out);
			immutable(obj, old, "spec", "queueName", out);
		}
		break;
	case API_KIND_PRIORITY_CLASS:
		if (!same_value(json_object_get(obj, "value"),
				json_object_get(old, "value")))
			causef(out, "value", false,
			       "may not be changed in an update");
		break;
	default:
		break;
	}
}

/* Whether a Workload's admission holds v1beta2's compact topology
 * slices, which the decoder reads only as v1beta1's domain list. */
static bool has_slices(const json_t *obj)
{
	const json_t *psa =
		api_kind_field(obj, "status.admission.podSetAssignments");
	const json_t *a;
	size_t i;

	json_array_foreach(psa, i, a)
	{
		if (api_kind_field(a, "topologyAssignment.slices"))
			return true;
	}
	return false;
}

/* A native PodGroup's gang policy: gang.minCount a positive integer,
 * as the API server requires. */
static void check_native_pod_group(const json_t *obj, struct api_causes *out)
{
	const json_t *gang =
		json_object_get(json_object_get(json_object_get(obj, "spec"),
						"schedulingPolicy"),
				"gang");
	const json_t *min = json_object_get(gang, "minCount");

	if (gang && (!json_is_integer(min) || json_integer_value(min) < 1))
		causef(out, "spec.schedulingPolicy.gang.minCount", false,
		       "must be an integer of at least 1");
}

int api_validate(const struct api_kind *k, const json_t *obj, const json_t *old,
		 enum api_field_validation fv, struct api_causes *out)
{
	size_t errors = out->errors;
	char *text;

	if (!json_is_object(obj)) {
		causef(out, "", false, "must be a JSON object");
		return -EINVAL;
	}
	if (check_type(k, obj, out) < 0)
		return -EINVAL;
	if (k->namespaced) {
		const char *ns = str(meta(obj), "namespace");

		if (!ns || !*ns)
			causef(out, "metadata.namespace", false, "is required");
	}
	if (k->id == API_KIND_WORKLOAD && has_slices(obj)) {
		/* Decoded as v1beta1, whose domains carry the same pods. */
		json_t *v1 = api_kind_convert(obj, k, "v1beta1");

		text = json_dumps(v1, JSON_COMPACT);
		json_decref(v1);
	} else {
		text = json_dumps(obj, JSON_COMPACT);
	}
	BUG_ON(!text);
	switch ((enum api_kind_id)k->id) {
	case API_KIND_EVENT:
	case API_KIND_EVENT_V1:
		decode_metadata(text, strlen(text), true,
				event_v1_shape(k, obj) ? event_v1_fields
						       : core_event_fields,
				NULL, fv, out);
		check_event(k, obj, out);
		break;
	case API_KIND_LEASE:
		decode_metadata(text, strlen(text), true, lease_fields,
				lease_spec_fields, fv, out);
		check_lease(obj, out);
		break;
	case API_KIND_NATIVE_POD_GROUP:
		decode_metadata(text, strlen(text), true,
				native_pod_group_fields,
				native_pod_group_spec_fields, fv, out);
		check_native_pod_group(obj, out);
		break;
	default:
		decode(text, strlen(text), fv, out);
	}
	free(text);
	if (old && json_is_object(old))
		check_update(k, obj, old, out);
	return out->errors > errors ? -EINVAL : 0;
}
