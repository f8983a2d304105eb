/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The defaults of Kubernetes' API server for the kinds whose readers rely
 * on them: batch/v1 Job (selector, pod-template labels, parallelism,
 * completions, backoffLimit, ...; its pod template as a Pod's spec) and
 * v1 Pod (restartPolicy, dnsPolicy, securityContext, per-container
 * imagePullPolicy, ...), through one function for the pod spec. Each
 * default is set only where the field is absent (or null), so an
 * explicit value always wins.
 */
#include "api/api_default.h"

#include <stdint.h>
#include <string.h>

#define JOB_UID_LABEL	  "batch.kubernetes.io/controller-uid"
#define JOB_NAME_LABEL	  "batch.kubernetes.io/job-name"
#define LEGACY_UID_LABEL  "controller-uid"
#define LEGACY_NAME_LABEL "job-name"

/* obj[key], set to an empty object when absent or null; NULL when the
 * field holds something else (validation reports it). */
static json_t *object_at(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v)) {
		v = json_object();
		json_object_set_new(obj, key, v);
	}
	return json_is_object(v) ? v : NULL;
}

/* Set obj[key] to v (stolen) unless obj has a non-null value there. */
static void set_default(json_t *obj, const char *key, json_t *v)
{
	json_t *old = json_object_get(obj, key);

	if (old && !json_is_null(old))
		json_decref(v);
	else
		json_object_set_new(obj, key, v);
}

/* The kubelet's default: always pull a :latest (or untagged) image. */
static const char *pull_policy(const char *image)
{
	const char *at = strchr(image, '@');
	size_t len = at ? (size_t)(at - image) : strlen(image);
	const char *name = image, *colon;

	for (size_t i = 0; i < len; i++)
		if (image[i] == '/')
			name = image + i + 1;
	colon = memchr(name, ':', len - (size_t)(name - image));

	if (!colon)
		return at ? "IfNotPresent" : "Always";
	if ((size_t)(image + len - (colon + 1)) == 6 &&
	    memcmp(colon + 1, "latest", 6) == 0)
		return "Always";
	return "IfNotPresent";
}

static void default_containers(json_t *spec, const char *key)
{
	json_t *list = json_object_get(spec, key);
	size_t i;
	json_t *c;

	if (!json_is_array(list))
		return;
	json_array_foreach(list, i, c)
	{
		const char *image;

		if (!json_is_object(c))
			continue;
		set_default(c, "terminationMessagePath",
			    json_string("/dev/termination-log"));
		set_default(c, "terminationMessagePolicy", json_string("File"));
		image = json_string_value(json_object_get(c, "image"));
		if (image)
			set_default(c, "imagePullPolicy",
				    json_string(pull_policy(image)));
	}
}

/* Kubernetes' SetDefaults_PodSpec and SetDefaults_Container: every pod
 * spec, a Pod's own or a template's (a Job's spec.template). */
static void default_pod_spec(json_t *spec)
{
	set_default(spec, "restartPolicy", json_string("Always"));
	set_default(spec, "schedulerName", json_string("default-scheduler"));
	set_default(spec, "terminationGracePeriodSeconds", json_integer(30));
	set_default(spec, "dnsPolicy", json_string("ClusterFirst"));
	set_default(spec, "securityContext", json_object());
	default_containers(spec, "initContainers");
	default_containers(spec, "containers");
}

/* SetDefaults_Pod and the Priority admission plugin: a Pod only. */
static void default_pod(json_t *obj)
{
	json_t *spec = object_at(obj, "spec");
	json_t *pcn;

	if (!spec)
		return;
	default_pod_spec(spec);
	set_default(spec, "enableServiceLinks", json_true());
	pcn = json_object_get(spec, "priorityClassName");
	if (!json_is_string(pcn) || !*json_string_value(pcn))
		set_default(spec, "priority", json_integer(0));
}

/* The selector Kubernetes generates for a Job: its pods carry the Job's
 * uid and name as labels, and the selector matches the uid. Labels the
 * template already has are kept (a conflict is validation's to find). */
static void job_selector(json_t *obj, json_t *spec, const char *uid)
{
	const char *name = json_string_value(
		json_object_get(object_at(obj, "metadata"), "name"));
	json_t *tmpl = object_at(spec, "template");
	json_t *md = tmpl ? object_at(tmpl, "metadata") : NULL;
	json_t *labels = md ? object_at(md, "labels") : NULL;
	json_t *sel = object_at(spec, "selector");
	json_t *ml = sel ? object_at(sel, "matchLabels") : NULL;

	if (labels) {
		set_default(labels, JOB_UID_LABEL, json_string(uid));
		set_default(labels, LEGACY_UID_LABEL, json_string(uid));
		if (name) {
			set_default(labels, JOB_NAME_LABEL, json_string(name));
			set_default(labels, LEGACY_NAME_LABEL,
				    json_string(name));
		}
	}
	if (ml)
		set_default(ml, JOB_UID_LABEL, json_string(uid));
}

static void default_job(json_t *obj, const char *uid, bool create)
{
	json_t *spec = object_at(obj, "spec");
	json_t *par, *pfp, *bpi, *tmpl, *tspec;

	if (!spec)
		return;
	par = json_object_get(spec, "parallelism");
	if (!par || json_is_null(par)) {
		set_default(spec, "completions", json_integer(1));
		json_object_set_new(spec, "parallelism", json_integer(1));
	}
	bpi = json_object_get(spec, "backoffLimitPerIndex");
	set_default(spec, "backoffLimit",
		    json_integer(bpi && !json_is_null(bpi) ? INT32_MAX : 6));
	set_default(spec, "completionMode", json_string("NonIndexed"));
	set_default(spec, "suspend", json_false());
	pfp = json_object_get(spec, "podFailurePolicy");
	set_default(spec, "podReplacementPolicy",
		    json_string(pfp && !json_is_null(pfp)
					? "Failed"
					: "TerminatingOrFailed"));
	if (create && uid && *uid &&
	    !json_is_true(json_object_get(spec, "manualSelector")))
		job_selector(obj, spec, uid);
	/* The template is defaulted as a Pod's spec is (not the Pod-only
	 * defaults: a template has no priority of its own). */
	tmpl = json_object_get(spec, "template");
	tspec = json_is_object(tmpl) ? json_object_get(tmpl, "spec") : NULL;
	if (json_is_object(tspec))
		default_pod_spec(tspec);
}

void api_default(const struct api_kind *k, json_t *obj, const char *uid,
		 bool create)
{
	if (!k || !json_is_object(obj))
		return;
	if (!*k->group && strcmp(k->kind, "Pod") == 0)
		default_pod(obj);
	else if (strcmp(k->group, "batch") == 0 && strcmp(k->kind, "Job") == 0)
		default_job(obj, uid, create);
}
