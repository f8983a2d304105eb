// SPDX-License-Identifier: Apache-2.0
/*
 * The registry of served kinds: names, versions, scope, subresources and
 * Table columns, as Kubernetes and the CustomResourceDefinitions of Kueue
 * and Coscheduling declare them (short names and printer columns are
 * theirs, so that `kubectl get cq` or `kubectl get pg -o wide` behave as
 * on a real cluster). The row cells are computed in api_table.c.
 */
#include "api/api_kind.h"

#include <stdio.h>
#include <string.h>

#include "api/api_table.h"
#include "base/alloc.h"

#include "base/banned.h"

#define NAME_COL                                                               \
	{                                                                      \
		"Name", "string", "name",                                      \
			"Name must be unique within a namespace.", 0           \
	}
#define AGE_COL(what)                                                          \
	{                                                                      \
		"Age", "string", "", "How long ago the " what " was created.", \
			0                                                      \
	}
#define DATE_AGE_COL(what)                                                     \
	{                                                                      \
		"Age", "date", "", "Time this " what " was created", 0         \
	}
#define COLS(a) .columns = (a), .ncolumns = ARRAY_SIZE(a)

static const struct api_column namespace_cols[] = {
	NAME_COL,
	{ "Status", "string", "", "The status of the namespace", 0 },
	AGE_COL("namespace"),
};

static const struct api_column node_cols[] = {
	NAME_COL,
	{ "Status", "string", "", "The status of the node", 0 },
	{ "Roles", "string", "", "The roles of the node", 0 },
	AGE_COL("node"),
	{ "Version", "string", "", "Kubelet version reported by the node.", 0 },
	{ "Internal-IP", "string", "", "The node's InternalIP address.", 1 },
	{ "External-IP", "string", "", "The node's ExternalIP address.", 1 },
	{ "OS-Image", "string", "", "OS image reported by the node.", 1 },
	{ "Kernel-Version", "string", "",
	  "Kernel version reported by the node.", 1 },
	{ "Container-Runtime", "string", "",
	  "Container runtime version reported by the node.", 1 },
};

static const struct api_column pod_cols[] = {
	NAME_COL,
	{ "Ready", "string", "",
	  "The aggregate readiness state of this pod for accepting traffic.",
	  0 },
	{ "Status", "string", "",
	  "The aggregate status of the containers in this pod.", 0 },
	{ "Restarts", "string", "",
	  "The number of times the containers in this pod have been "
	  "restarted and when the last container in this pod has restarted.",
	  0 },
	AGE_COL("pod"),
	{ "IP", "string", "", "The pod's IP address.", 1 },
	{ "Node", "string", "", "The node the pod is bound to.", 1 },
	{ "Nominated Node", "string", "",
	  "The node the scheduler nominated for this pod.", 1 },
	{ "Readiness Gates", "string", "",
	  "The readiness gates of this pod that hold, of all of them.", 1 },
};

static const struct api_column event_cols[] = {
	{ "Last Seen", "string", "", "When the event was last observed.", 0 },
	{ "Type", "string", "", "Normal or Warning.", 0 },
	{ "Reason", "string", "", "Why the action was taken.", 0 },
	{ "Object", "string", "", "The object this event is about.", 0 },
	{ "Subobject", "string", "",
	  "The part of the object this event is about.", 1 },
	{ "Source", "string", "", "The component that reported the event.", 1 },
	{ "Message", "string", "", "A human-readable description.", 0 },
	{ "First Seen", "string", "", "When the event was first observed.", 1 },
	{ "Count", "string", "", "How many times the event occurred.", 1 },
	{ "Name", "string", "name", "Name must be unique within a namespace.",
	  1 },
};

static const struct api_column job_cols[] = {
	NAME_COL,
	{ "Status", "string", "", "Status of the job.", 0 },
	{ "Completions", "string", "",
	  "The successful completions of the job, of those desired.", 0 },
	{ "Duration", "string", "", "Time the job took (or has taken) to run.",
	  0 },
	AGE_COL("job"),
	{ "Containers", "string", "",
	  "Names of each container in the template.", 1 },
	{ "Images", "string", "",
	  "Images referenced by each container in "
	  "the template.",
	  1 },
	{ "Selector", "string", "",
	  "Query over pods that should match the "
	  "number of completions.",
	  1 },
};

static const struct api_column lease_cols[] = {
	NAME_COL,
	{ "Holder", "string", "", "The identity of the lease's holder.", 0 },
	AGE_COL("lease"),
};

static const struct api_column priority_class_cols[] = {
	NAME_COL,
	{ "Value", "integer", "", "The priority of pods of this class.", 0 },
	{ "Global-Default", "boolean", "",
	  "Whether this class is the default of pods without one.", 0 },
	AGE_COL("priority class"),
	{ "PreemptionPolicy", "string", "",
	  "Whether pods of this class may preempt lower priority pods.", 0 },
};

/* Custom resources without printer columns get NAME and AGE. */
static const struct api_column name_age_cols[] = {
	NAME_COL,
	{ "Age", "date", "", "Time the object was created", 0 },
};

static const struct api_column cluster_queue_cols[] = {
	NAME_COL,
	{ "Cohort", "string", "", "Cohort that this ClusterQueue belongs to",
	  0 },
	{ "Strategy", "string", "",
	  "The queueing strategy used to prioritize workloads", 1 },
	{ "Pending Workloads", "integer", "", "Number of pending workloads",
	  0 },
	{ "Admitted Workloads", "integer", "",
	  "Number of admitted workloads that haven't finished yet", 1 },
};

static const struct api_column local_queue_cols[] = {
	NAME_COL,
	{ "ClusterQueue", "string", "", "Backing ClusterQueue", 0 },
	{ "Pending Workloads", "integer", "", "Number of pending workloads",
	  0 },
	{ "Admitted Workloads", "integer", "",
	  "Number of admitted workloads that haven't finished yet.", 0 },
};

static const struct api_column wpc_cols[] = {
	NAME_COL,
	{ "Value", "integer", "", "Value of workloadPriorityClass's Priority",
	  0 },
};

static const struct api_column workload_cols[] = {
	NAME_COL,
	{ "Queue", "string", "",
	  "Name of the queue this workload was submitted to", 0 },
	{ "Reserved in", "string", "",
	  "Name of the ClusterQueue where the workload is reserving quota", 0 },
	{ "Admitted", "string", "", "Admission status", 0 },
	{ "Finished", "string", "", "Workload finished", 0 },
	DATE_AGE_COL("workload"),
};

static const struct api_column pod_group_cols[] = {
	NAME_COL,
	{ "Phase", "string", "", "Current phase of PodGroup.", 0 },
	{ "MinMember", "integer", "",
	  "The minimal number of members/tasks to run the pod group.", 0 },
	{ "Running", "integer", "", "The number of actively running pods.", 0 },
	{ "Succeeded", "integer", "",
	  "The number of pods which reached phase Succeeded.", 0 },
	{ "Failed", "integer", "",
	  "The number of pods which reached phase Failed.", 0 },
	DATE_AGE_COL("PodGroup"),
};

/* Kubernetes' own PodGroup (KEP-4671): kube-scheduler's gang of the pods
 * whose spec.schedulingGroup.podGroupName names it. */
static const struct api_column native_pod_group_cols[] = {
	NAME_COL,
	{ "MinCount", "integer", "",
	  "The pods that must be schedulable together (gang policy).", 0 },
	{ "Topology", "string", "",
	  "The node label whose one domain must hold every pod.", 0 },
	{ "Scheduled", "string", "",
	  "Status of the PodGroupInitiallyScheduled condition.", 0 },
	{ "Reason", "string", "",
	  "Reason of the PodGroupInitiallyScheduled condition.", 1 },
	DATE_AGE_COL("PodGroup"),
};

#define KUEUE_GV .group = "kueue.x-k8s.io", .versions = { "v1beta2", "v1beta1" }

/* Indexed by enum api_kind_id: the order is the id. */
static const struct api_kind kinds[] = {
	[API_KIND_NAMESPACE] = { .id = API_KIND_NAMESPACE,
				 .group = "",
				 .versions = { "v1" },
				 .resource = "namespaces",
				 .singular = "namespace",
				 .kind = "Namespace",
				 .short_names = { "ns" },
				 .subresources = API_SUB_STATUS,
				 COLS(namespace_cols),
				 .cells = api_table_namespace },
	[API_KIND_NODE] = { .id = API_KIND_NODE,
			    .group = "",
			    .versions = { "v1" },
			    .resource = "nodes",
			    .singular = "node",
			    .kind = "Node",
			    .short_names = { "no" },
			    .subresources = API_SUB_STATUS,
			    COLS(node_cols),
			    .cells = api_table_node },
	[API_KIND_POD] = { .id = API_KIND_POD,
			   .group = "",
			   .versions = { "v1" },
			   .resource = "pods",
			   .singular = "pod",
			   .kind = "Pod",
			   .short_names = { "po" },
			   .categories = { "all" },
			   .namespaced = true,
			   .subresources = API_SUB_STATUS | API_SUB_BINDING,
			   COLS(pod_cols),
			   .cells = api_table_pod },
	[API_KIND_EVENT] = { .id = API_KIND_EVENT,
			     .group = "",
			     .versions = { "v1" },
			     .resource = "events",
			     .singular = "event",
			     .kind = "Event",
			     .short_names = { "ev" },
			     .namespaced = true,
			     COLS(event_cols),
			     .cells = api_table_event },
	[API_KIND_EVENT_V1] = { .id = API_KIND_EVENT_V1,
				.group = "events.k8s.io",
				.versions = { "v1" },
				.resource = "events",
				.singular = "event",
				.kind = "Event",
				.short_names = { "ev" },
				.namespaced = true,
				COLS(event_cols),
				.cells = api_table_event },
	[API_KIND_JOB] = { .id = API_KIND_JOB,
			   .group = "batch",
			   .versions = { "v1" },
			   .resource = "jobs",
			   .singular = "job",
			   .kind = "Job",
			   .categories = { "all" },
			   .namespaced = true,
			   .subresources = API_SUB_STATUS,
			   COLS(job_cols),
			   .cells = api_table_job },
	[API_KIND_LEASE] = { .id = API_KIND_LEASE,
			     .group = "coordination.k8s.io",
			     .versions = { "v1" },
			     .resource = "leases",
			     .singular = "lease",
			     .kind = "Lease",
			     .namespaced = true,
			     COLS(lease_cols),
			     .cells = api_table_lease },
	[API_KIND_PRIORITY_CLASS] = { .id = API_KIND_PRIORITY_CLASS,
				      .group = "scheduling.k8s.io",
				      .versions = { "v1" },
				      .resource = "priorityclasses",
				      .singular = "priorityclass",
				      .kind = "PriorityClass",
				      .short_names = { "pc" },
				      COLS(priority_class_cols),
				      .cells = api_table_priority_class },
	[API_KIND_TOPOLOGY] = { .id = API_KIND_TOPOLOGY,
				KUEUE_GV,
				.resource = "topologies",
				.singular = "topology",
				.kind = "Topology",
				.short_names = { "topo" },
				COLS(name_age_cols),
				.cells = api_table_name_age },
	[API_KIND_RESOURCE_FLAVOR] = { .id = API_KIND_RESOURCE_FLAVOR,
				       KUEUE_GV,
				       .resource = "resourceflavors",
				       .singular = "resourceflavor",
				       .kind = "ResourceFlavor",
				       .short_names = { "flavor", "flavors",
							"rf" },
				       COLS(name_age_cols),
				       .cells = api_table_name_age },
	[API_KIND_CLUSTER_QUEUE] = { .id = API_KIND_CLUSTER_QUEUE,
				     KUEUE_GV,
				     .resource = "clusterqueues",
				     .singular = "clusterqueue",
				     .kind = "ClusterQueue",
				     .short_names = { "cq" },
				     .subresources = API_SUB_STATUS,
				     COLS(cluster_queue_cols),
				     .cells = api_table_cluster_queue },
	[API_KIND_COHORT] = { .id = API_KIND_COHORT,
			      KUEUE_GV,
			      .resource = "cohorts",
			      .singular = "cohort",
			      .kind = "Cohort",
			      .short_names = { "co" },
			      .subresources = API_SUB_STATUS,
			      COLS(name_age_cols),
			      .cells = api_table_name_age },
	[API_KIND_LOCAL_QUEUE] = { .id = API_KIND_LOCAL_QUEUE,
				   KUEUE_GV,
				   .resource = "localqueues",
				   .singular = "localqueue",
				   .kind = "LocalQueue",
				   .short_names = { "queue", "queues", "lq" },
				   .namespaced = true,
				   .subresources = API_SUB_STATUS,
				   COLS(local_queue_cols),
				   .cells = api_table_local_queue },
	[API_KIND_WORKLOAD_PRIORITY_CLASS] = { .id = API_KIND_WORKLOAD_PRIORITY_CLASS,
					       KUEUE_GV,
					       .resource = "workloadprioritycla"
							   "sses",
					       .singular =
						       "workloadpriorityclass",
					       .kind = "WorkloadPriorityClass",
					       .short_names = { "wpc" },
					       COLS(wpc_cols),
					       .cells = api_table_wpc },
	[API_KIND_WORKLOAD] = { .id = API_KIND_WORKLOAD,
				KUEUE_GV,
				.resource = "workloads",
				.singular = "workload",
				.kind = "Workload",
				.short_names = { "kwl", "kueueworkload",
						 "kueueworkloads" },
				.namespaced = true,
				.subresources = API_SUB_STATUS,
				COLS(workload_cols),
				.cells = api_table_workload },
	[API_KIND_POD_GROUP] = { .id = API_KIND_POD_GROUP,
				 .group = "scheduling.x-k8s.io",
				 .versions = { "v1alpha1" },
				 .resource = "podgroups",
				 .singular = "podgroup",
				 .kind = "PodGroup",
				 .short_names = { "pg", "pgs" },
				 .namespaced = true,
				 .subresources = API_SUB_STATUS,
				 COLS(pod_group_cols),
				 .cells = api_table_pod_group },
	[API_KIND_CONFIGURATION] = { .id = API_KIND_CONFIGURATION,
				     .group = "echelon.dev",
				     .versions = { "v1alpha1" },
				     .resource = "configurations",
				     .singular = "configuration",
				     .kind = "Configuration",
				     COLS(name_age_cols),
				     .cells = api_table_name_age },
	/* v1beta1 (1.37) preferred; v1alpha2 (1.36) has the same shape */
	[API_KIND_NATIVE_POD_GROUP] = { .id = API_KIND_NATIVE_POD_GROUP,
					.group = "scheduling.k8s.io",
					.versions = { "v1beta1", "v1alpha2" },
					.resource = "podgroups",
					.singular = "podgroup",
					.kind = "PodGroup",
					.namespaced = true,
					.subresources = API_SUB_STATUS,
					COLS(native_pod_group_cols),
					.cells = api_table_native_pod_group },
};

_Static_assert(ARRAY_SIZE(kinds) == API_KIND_COUNT,
	       "every kind id has a registry entry");

size_t api_kind_count(void)
{
	return ARRAY_SIZE(kinds);
}

const struct api_kind *api_kind_at(size_t i)
{
	if (i >= ARRAY_SIZE(kinds))
		return NULL;
	BUG_ON(kinds[i].id != i);
	return &kinds[i];
}

bool api_kind_serves(const struct api_kind *k, const char *version)
{
	if (!version)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(k->versions) && k->versions[i]; i++)
		if (strcmp(k->versions[i], version) == 0)
			return true;
	return false;
}

const struct api_kind *api_kind_find(const char *group, const char *version,
				     const char *resource)
{
	if (!group || !resource)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		const struct api_kind *k = &kinds[i];

		if (strcmp(k->group, group) == 0 &&
		    strcmp(k->resource, resource) == 0 &&
		    api_kind_serves(k, version))
			return k;
	}
	return NULL;
}

/* Split "group/version" (core: "version") into group (in buf) and version.
 * -1 when the group does not fit or a part is empty. */
static int split_gv(const char *api_version, char *buf, size_t size,
		    const char **ret_version)
{
	const char *slash = strchr(api_version, '/');
	size_t glen;

	if (!slash) {
		buf[0] = '\0';
		*ret_version = api_version;
		return *api_version ? 0 : -1;
	}
	glen = (size_t)(slash - api_version);
	if (glen == 0 || glen >= size || !slash[1] || strchr(slash + 1, '/'))
		return -1;
	memcpy(buf, api_version, glen);
	buf[glen] = '\0';
	*ret_version = slash + 1;
	return 0;
}

const struct api_kind *api_kind_of(const char *api_version, const char *kind)
{
	const char *version;
	char group[256];

	if (!api_version || !kind ||
	    split_gv(api_version, group, sizeof(group), &version) < 0)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		const struct api_kind *k = &kinds[i];

		if (strcmp(k->group, group) == 0 &&
		    strcmp(k->kind, kind) == 0 && api_kind_serves(k, version))
			return k;
	}
	return NULL;
}

const struct api_kind *api_kind_storage(const struct api_kind *k)
{
	if (k == &kinds[API_KIND_EVENT_V1])
		return &kinds[API_KIND_EVENT];
	return k;
}

const char *api_kind_gv(const struct api_kind *k, const char *version,
			char *buf, size_t size)
{
	if (!version)
		version = k->versions[0];
	if (k->group[0])
		snprintf(buf, size, "%s/%s", k->group, version);
	else
		snprintf(buf, size, "%s", version);
	return buf;
}

const json_t *api_kind_field(const json_t *obj, const char *path)
{
	char key[64];

	while (obj && *path) {
		size_t n = strcspn(path, ".");

		if (!json_is_object(obj) || n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		obj = json_object_get(obj, key);
		path += n + (path[n] == '.');
	}
	return obj;
}
