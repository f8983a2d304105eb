/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A generated cluster: blocks x racks x hosts x GPUs, described by a spec
 * such as "blocks=4,racks=8,hosts=32,gpus=8" (racks per block, hosts per
 * rack, GPUs per host; 4 x 8 x 32 = 1,024 hosts, 8,192 GPUs).
 *
 * Optional keys: cpu and memory per GPU (quantities; default 12 and
 * 192Gi, a 96-cpu, 1.5 TiB 8-GPU host as in examples/quickstart), pods per
 * GPU (default 14: 112 pods on 8 GPUs, near Kubernetes' 110), prefix of the
 * host names (default "gpu"), and the names of the Topology (topology=,
 * default "gpu-topology") and ResourceFlavor (flavor=, default "tas-gpu")
 * to create; an empty name creates neither object.
 *
 * Hosts are named <prefix>-b<i>-r<j>-h<k> and labelled, as Kueue's TAS
 * documentation does, cloud.provider.com/topology-block=block-<i>,
 * cloud.provider.com/topology-rack=rack-<i>-<j> and kubernetes.io/hostname
 * =<name>, plus node-group=<flavor> for the flavor's node selector. The
 * Topology has those three levels, block first; the ResourceFlavor selects
 * node-group=<flavor> and names the Topology, so that TAS placement runs on
 * the generated cluster as on the quickstart's.
 */
#ifndef ECHELON_SIM_GEN_H
#define ECHELON_SIM_GEN_H

#include <stdint.h>

#include "base/compiler.h"
#include "base/diag.h"
#include "base/errbuf.h"
#include "model/cluster.h"
#include "sim/throughput.h"

#define GEN_LABEL_BLOCK	 "cloud.provider.com/topology-block"
#define GEN_LABEL_RACK	 "cloud.provider.com/topology-rack"
#define GEN_LABEL_GROUP	 "node-group"
#define GEN_GPU_RESOURCE "nvidia.com/gpu"
#define GEN_MAX_HOSTS	 (1 << 20)
#define GEN_MAX_GPUS	 1024 /* per host */
#define GEN_NAME_MAX	 64

struct gen_spec {
	int32_t blocks;
	int32_t racks_per_block;
	int32_t hosts_per_rack;
	int32_t gpus_per_host;
	int64_t cpu_milli_per_gpu;
	int64_t memory_per_gpu; /* bytes */
	int64_t pods_per_gpu;
	char prefix[GEN_NAME_MAX];
	char topology_name[GEN_NAME_MAX]; /* "": no Topology */
	char flavor_name[GEN_NAME_MAX];	  /* "": no ResourceFlavor */
};

/* One host of 8 GPUs with the defaults above. */
void gen_spec_init(struct gen_spec *s);

/*
 * Parse a spec "key=value,key=value" over the defaults. origin names the
 * spec in messages (NULL: "spec"). Returns 0 and fills *ret, or -EINVAL
 * with "origin:1:col: key: what is wrong" in eb, col pointing into text.
 */
int gen_parse(const char *text, const char *origin, struct gen_spec *ret,
	      struct errbuf *eb) MUST_CHECK;

/*
 * gen_parse() that also takes the throughput model's network keys
 * (throughput_set_key(): bw-rack=45, oversub-block=2, ...) into net
 * (unchanged unless the whole spec is good): the bandwidth, latency and
 * oversubscription of each level of the generated cluster.
 */
int gen_parse_network(const char *text, const char *origin,
		      struct gen_spec *ret, struct throughput_config *net,
		      struct errbuf *eb) MUST_CHECK;

/* The spec as text that gen_parse() reads back; appended to out. */
void gen_format(const struct gen_spec *s, struct strbuf *out);

/*
 * Add the spec's hosts, Topology and ResourceFlavor to c, all or nothing:
 * -EEXIST with one error in d per clashing name, nothing added.
 */
int gen_build(struct cluster *c, const struct gen_spec *s,
	      struct diag *d) MUST_CHECK;

/*
 * The node label of a level alias as traces write it: "block", "rack",
 * "host" (or "hostname") give the labels above; anything else is returned
 * unchanged.
 */
const char *gen_level_label(const char *level);

#endif
