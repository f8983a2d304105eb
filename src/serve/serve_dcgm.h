/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Simulated GPU signals of the embedded cluster, as NVIDIA's dcgm-exporter
 * reports them: per node and GPU, utilization, temperature, power, SM
 * clock and the last XID error, under dcgm-exporter's series and label
 * names (gpu, UUID, device, modelName, Hostname, and container, namespace
 * and pod of the pod the GPU is allocated to).
 *
 * The values are a function of the stored objects alone, never random:
 * a node's GPUs (status.capacity of nvidia.com/gpu) go to the pods bound
 * to it in (namespace, name) order, each container taking as many as it
 * asks for; a GPU of a Running pod is busy (high utilization, warm, near
 * its power limit), others idle; a small per-GPU offset from the node's
 * name and the index keeps the series apart. A node annotated
 * sim.echelon.dev/gpu-fault shows its fault (see serve_dcgm_fault_parse):
 * the XID on one GPU, the temperature of one GPU, and all its busy GPUs
 * clocked down by the slowdown factor, by which the simulated kubelet also
 * stretches the run of its pods (serve_kubelet.c).
 *
 * Pure: reads the store, writes nothing, no clock.
 */
#ifndef ECHELON_SERVE_DCGM_H
#define ECHELON_SERVE_DCGM_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/api_store.h"
#include "base/compiler.h"
#include "base/errbuf.h"
#include "base/strbuf.h"

/* The node annotation that degrades a simulated node, and the one the
 * simulated kubelet adds with the time it first saw the fault. */
#define SERVE_DCGM_FAULT_ANN "sim.echelon.dev/gpu-fault"
#define SERVE_DCGM_SINCE_ANN "sim.echelon.dev/gpu-fault-since"
/* The GPU model when the node has no nvidia.com/gpu.product label. */
#define SERVE_DCGM_MODEL "NVIDIA H100 80GB HBM3"
/* SM clock of a busy healthy GPU, in MHz; a node's speed is its busy
 * GPUs' clock against this. */
#define SERVE_DCGM_SM_CLOCK_MHZ 1980
/* At or above this GPU temperature (°C) a GPU is overheating. */
#define SERVE_DCGM_HOT_C 85
/* Most GPUs per node the signals cover. */
#define SERVE_DCGM_MAX_GPUS 64

/* A node's fault, as the annotation's comma-separated key=value list
 * gives it: xid=CODE (an XID error on GPU gpu), temp=CELSIUS (GPU gpu
 * at that temperature), slowdown=FACTOR (0 < FACTOR <= 1: the node's
 * GPUs run at that share of their speed), gpu=INDEX (default 0). */
struct serve_dcgm_fault {
	bool set;
	int32_t xid;	  /* 0: none */
	int32_t gpu;	  /* the GPU the XID and temperature are on */
	int32_t temp_c;	  /* 0: not given */
	double slowdown;  /* 1: full speed */
	int64_t since_us; /* SERVE_DCGM_SINCE_ANN, or -1 */
};

/* Parse an annotation value into *ret (written only on success).
 * Returns 0, or -EINVAL with a message naming the key at fault. */
int serve_dcgm_fault_parse(const char *s, struct serve_dcgm_fault *ret,
			   struct errbuf *err) MUST_CHECK;
/* Node's fault from its annotations (ret->set false when it has none).
 * Returns 0, or -EINVAL as serve_dcgm_fault_parse (*ret cleared). */
int serve_dcgm_node_fault(const json_t *node, struct serve_dcgm_fault *ret,
			  struct errbuf *err) MUST_CHECK;
/* The speed of node's pods: its fault's slowdown, 1 when none or bad. */
double serve_dcgm_slowdown(const json_t *node);

/* One GPU's signals. The strings point into the store's objects: valid
 * until the store's next write. */
struct serve_dcgm_gpu {
	uint32_t index;
	char uuid[48];
	int32_t util;	  /* DCGM_FI_DEV_GPU_UTIL, % */
	int32_t temp_c;	  /* DCGM_FI_DEV_GPU_TEMP */
	double power_w;	  /* DCGM_FI_DEV_POWER_USAGE */
	int32_t sm_clock; /* DCGM_FI_DEV_SM_CLOCK, MHz */
	int32_t xid;	  /* DCGM_FI_DEV_XID_ERRORS: the last XID, 0 none */
	const char *ns, *pod, *container; /* NULL: not allocated */
	bool busy;			  /* its pod is Running */
};

struct serve_dcgm_node {
	const char *name, *model;
	struct serve_dcgm_fault fault;
	uint32_t ngpus;
	struct serve_dcgm_gpu gpus[SERVE_DCGM_MAX_GPUS];
};

/* The signals of Node name (*ret filled; 0), or -ENOENT when the store
 * has no such node. */
int serve_dcgm_node(const struct api_store *s, const char *name,
		    struct serve_dcgm_node *ret) MUST_CHECK;
/* Append every node's series to out, in Prometheus text format, as
 * dcgm-exporter serves them. */
void serve_dcgm_metrics(const struct api_store *s, struct strbuf *out);

#endif
