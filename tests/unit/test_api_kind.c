// SPDX-License-Identifier: Apache-2.0
/*
 * The registry of served kinds: every kind is found by its path and by
 * its apiVersion and kind, with Kubernetes' and Kueue's names, scope and
 * subresources; ids index the registry; Event views share one storage.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "api/api_kind.h"
#include "base/compiler.h"
#include "api/api_table.h"

#include "base/banned.h"

struct kind_case {
	const char *group, *version, *resource;
	const char *api_version, *kind, *singular;
	const char *short_name; /* one of them, or NULL for none */
	const char *category;	/* NULL for none */
	bool namespaced;
	unsigned subresources;
	const char *column0, *last_column;
};

static const struct kind_case kind_cases[] = {
	{ "", "v1", "namespaces", "v1", "Namespace", "namespace", "ns", NULL,
	  false, API_SUB_STATUS, "Name", "Age" },
	{ "", "v1", "nodes", "v1", "Node", "node", "no", NULL, false,
	  API_SUB_STATUS, "Name", "Container-Runtime" },
	{ "", "v1", "pods", "v1", "Pod", "pod", "po", "all", true,
	  API_SUB_STATUS | API_SUB_BINDING, "Name", "Readiness Gates" },
	{ "", "v1", "events", "v1", "Event", "event", "ev", NULL, true, 0,
	  "Last Seen", "Name" },
	{ "events.k8s.io", "v1", "events", "events.k8s.io/v1", "Event", "event",
	  "ev", NULL, true, 0, "Last Seen", "Name" },
	{ "batch", "v1", "jobs", "batch/v1", "Job", "job", NULL, "all", true,
	  API_SUB_STATUS, "Name", "Selector" },
	{ "coordination.k8s.io", "v1", "leases", "coordination.k8s.io/v1",
	  "Lease", "lease", NULL, NULL, true, 0, "Name", "Age" },
	{ "scheduling.k8s.io", "v1", "priorityclasses", "scheduling.k8s.io/v1",
	  "PriorityClass", "priorityclass", "pc", NULL, false, 0, "Name",
	  "PreemptionPolicy" },
	{ "kueue.x-k8s.io", "v1beta2", "topologies", "kueue.x-k8s.io/v1beta2",
	  "Topology", "topology", "topo", NULL, false, 0, "Name", "Age" },
	{ "kueue.x-k8s.io", "v1beta1", "resourceflavors",
	  "kueue.x-k8s.io/v1beta1", "ResourceFlavor", "resourceflavor", "rf",
	  NULL, false, 0, "Name", "Age" },
	{ "kueue.x-k8s.io", "v1beta2", "clusterqueues",
	  "kueue.x-k8s.io/v1beta2", "ClusterQueue", "clusterqueue", "cq", NULL,
	  false, API_SUB_STATUS, "Name", "Admitted Workloads" },
	{ "kueue.x-k8s.io", "v1beta1", "cohorts", "kueue.x-k8s.io/v1beta1",
	  "Cohort", "cohort", "co", NULL, false, API_SUB_STATUS, "Name",
	  "Age" },
	{ "kueue.x-k8s.io", "v1beta2", "localqueues", "kueue.x-k8s.io/v1beta2",
	  "LocalQueue", "localqueue", "lq", NULL, true, API_SUB_STATUS, "Name",
	  "Admitted Workloads" },
	{ "kueue.x-k8s.io", "v1beta2", "workloadpriorityclasses",
	  "kueue.x-k8s.io/v1beta2", "WorkloadPriorityClass",
	  "workloadpriorityclass", "wpc", NULL, false, 0, "Name", "Value" },
	{ "kueue.x-k8s.io", "v1beta1", "workloads", "kueue.x-k8s.io/v1beta1",
	  "Workload", "workload", "kwl", NULL, true, API_SUB_STATUS, "Name",
	  "Age" },
	{ "scheduling.x-k8s.io", "v1alpha1", "podgroups",
	  "scheduling.x-k8s.io/v1alpha1", "PodGroup", "podgroup", "pg", NULL,
	  true, API_SUB_STATUS, "Name", "Age" },
	{ "echelon.dev", "v1alpha1", "configurations", "echelon.dev/v1alpha1",
	  "Configuration", "configuration", NULL, NULL, false, 0, "Name",
	  "Age" },
	{ "scheduling.k8s.io", "v1beta1", "podgroups",
	  "scheduling.k8s.io/v1beta1", "PodGroup", "podgroup", NULL, NULL, true,
	  API_SUB_STATUS, "Name", "Age" },
};

static bool has(const char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n && list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

static void test_kinds(void **state)
{
	(void)state;
	assert_int_equal(api_kind_count(), ARRAY_SIZE(kind_cases));
	for (size_t i = 0; i < ARRAY_SIZE(kind_cases); i++) {
		const struct kind_case *c = &kind_cases[i];
		const struct api_kind *k =
			api_kind_find(c->group, c->version, c->resource);

		assert_non_null(k);
		assert_ptr_equal(api_kind_of(c->api_version, c->kind), k);
		assert_string_equal(k->singular, c->singular);
		assert_int_equal(k->namespaced, c->namespaced);
		assert_int_equal(k->subresources, c->subresources);
		if (c->short_name)
			assert_true(has(k->short_names, 4, c->short_name));
		else
			assert_null(k->short_names[0]);
		if (c->category)
			assert_true(has(k->categories, 2, c->category));
		else
			assert_null(k->categories[0]);
		assert_string_equal(k->columns[0].name, c->column0);
		assert_string_equal(k->columns[k->ncolumns - 1].name,
				    c->last_column);
		assert_ptr_equal(api_kind_at(k->id), k);
		assert_non_null(k->cells);
	}
}

struct miss_case {
	const char *group, *version, *resource;
};

static const struct miss_case misses[] = {
	{ "", "v2", "pods" },
	{ "", "v1", "pod" },
	{ "", "v1", "po" },
	{ "apps", "v1", "pods" },
	{ "kueue.x-k8s.io", "v1alpha1", "workloads" },
	{ "batch", "v1", "Jobs" },
	{ "", NULL, "pods" },
};

static void test_misses(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(misses); i++)
		assert_null(api_kind_find(misses[i].group, misses[i].version,
					  misses[i].resource));
	assert_null(api_kind_of("v1", "Job"));
	assert_null(api_kind_of("batch/v2", "Job"));
	assert_null(api_kind_of("/v1", "Pod"));
	assert_null(api_kind_of("batch/", "Job"));
	assert_null(api_kind_of("a/b/v1", "Job"));
	assert_null(api_kind_of("", "Pod"));
	assert_null(api_kind_of(NULL, "Pod"));
	assert_null(api_kind_of("v1", NULL));
	assert_null(api_kind_at(api_kind_count()));
}

static void test_versions_and_storage(void **state)
{
	const struct api_kind *wl = api_kind_at(API_KIND_WORKLOAD);
	const struct api_kind *ev = api_kind_at(API_KIND_EVENT);
	const struct api_kind *ev1 = api_kind_at(API_KIND_EVENT_V1);
	char buf[96];

	(void)state;
	/* v1beta2 is preferred and stored; v1beta1 is served too. */
	assert_string_equal(wl->versions[0], "v1beta2");
	assert_true(api_kind_serves(wl, "v1beta1"));
	assert_false(api_kind_serves(wl, "v1alpha1"));
	assert_ptr_equal(api_kind_storage(wl), wl);
	assert_ptr_equal(api_kind_storage(ev1), ev);
	assert_ptr_equal(api_kind_storage(ev), ev);
	assert_string_equal(api_kind_gv(wl, NULL, buf, sizeof(buf)),
			    "kueue.x-k8s.io/v1beta2");
	assert_string_equal(api_kind_gv(wl, "v1beta1", buf, sizeof(buf)),
			    "kueue.x-k8s.io/v1beta1");
	assert_string_equal(api_kind_gv(ev, NULL, buf, sizeof(buf)), "v1");
	/* Every kind's storage is itself or a kind stored as itself. */
	for (size_t i = 0; i < api_kind_count(); i++) {
		const struct api_kind *s = api_kind_storage(api_kind_at(i));

		assert_ptr_equal(api_kind_storage(s), s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_misses),
		cmocka_unit_test(test_versions_and_storage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
