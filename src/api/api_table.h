/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rows `kubectl get` prints for each served kind: the cells of
 * meta.k8s.io/v1 Table replies, computed as the API server's printers
 * compute them for built-in kinds (pods' READY and STATUS, nodes' ROLES,
 * jobs' COMPLETIONS...) and as the CustomResourceDefinition printer
 * columns do for Kueue's and Coscheduling's kinds. Cells are always the
 * wide row (every column, priority 1 included): kubectl drops the
 * priority 1 columns itself unless asked for -o wide.
 *
 * Pure: the server's clock comes in as now_us; objects are only read.
 */
#ifndef ECHELON_API_TABLE_H
#define ECHELON_API_TABLE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "api/api_kind.h"

/*
 * A duration as kubectl prints ages (Kubernetes' HumanDuration): "45s",
 * "3m20s", "12m", "5h", "4h10m", "2d3h", "14d", "3y20d"; "0s" for a
 * small negative skew and "<invalid>" below -1 s. buf holds ≥ 16 bytes.
 */
const char *api_table_age(int64_t d_us, char *buf, size_t size);
/*
 * The age at now_us of an RFC 3339 timestamp ("<unknown>" when ts is
 * NULL, empty or not a timestamp), as api_table_age() prints it.
 */
const char *api_table_since(const char *ts, int64_t now_us, char *buf,
			    size_t size);

/* The columnDefinitions array of k's Table (new reference). */
json_t *api_table_columns(const struct api_kind *k);
/* The cells of obj's row (new reference; k->ncolumns cells). */
json_t *api_table_row_cells(const struct api_kind *k, const json_t *obj,
			    int64_t now_us);

/* The cells functions of the registry (struct api_kind.cells). */
void api_table_namespace(const json_t *obj, int64_t now_us, json_t *cells);
void api_table_node(const json_t *obj, int64_t now_us, json_t *cells);
void api_table_pod(const json_t *obj, int64_t now_us, json_t *cells);
void api_table_event(const json_t *obj, int64_t now_us, json_t *cells);
void api_table_job(const json_t *obj, int64_t now_us, json_t *cells);
void api_table_lease(const json_t *obj, int64_t now_us, json_t *cells);
void api_table_priority_class(const json_t *obj, int64_t now_us, json_t *cells);
void api_table_name_age(const json_t *obj, int64_t now_us, json_t *cells);
void api_table_cluster_queue(const json_t *obj, int64_t now_us, json_t *cells);
void api_table_local_queue(const json_t *obj, int64_t now_us, json_t *cells);
void api_table_wpc(const json_t *obj, int64_t now_us, json_t *cells);
void api_table_workload(const json_t *obj, int64_t now_us, json_t *cells);
void api_table_pod_group(const json_t *obj, int64_t now_us, json_t *cells);
void api_table_native_pod_group(const json_t *obj, int64_t now_us,
				json_t *cells);

#endif
