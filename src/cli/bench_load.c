// SPDX-License-Identifier: Apache-2.0
/*
 * echelon bench load: generate N Node objects as one multi-document YAML
 * stream (labels for block, rack and host, 8 GPUs each), load it with
 * manifest_load_buffer(), and report the time and the peak memory as one
 * JSON object.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "manifest/manifest.h"

#include "base/banned.h"

static void generate(struct strbuf *sb, long nodes)
{
	for (long i = 0; i < nodes; i++) {
		long block = i / 1024, rack = (i / 32) % 32;

		strbuf_addf(sb,
			    "---\napiVersion: v1\nkind: Node\nmetadata:\n"
			    "  name: node-%ld\n  labels:\n"
			    "    node-group: tas-gpu\n"
			    "    cloud.provider.com/topology-block: b%ld\n"
			    "    cloud.provider.com/topology-rack: b%ld-r%ld\n"
			    "    kubernetes.io/hostname: node-%ld\n"
			    "status:\n  allocatable:\n    cpu: \"96\"\n"
			    "    memory: 1536Gi\n    pods: \"110\"\n"
			    "    nvidia.com/gpu: \"8\"\n"
			    "  conditions:\n  - type: Ready\n"
			    "    status: \"True\"\n",
			    i, block, block, rack, i);
	}
}

int cli_bench_load(int argc, char **argv)
{
	long nodes = 100000, rss_before, rss_after;
	struct cluster c;
	struct strbuf sb;
	struct diag d;
	double t0, t1, c0, c1;
	int rc;

	if (argc == 3 && strcmp(argv[1], "--nodes") == 0) {
		uint64_t v;

		if (cli_parse_u64(argv[2], 1, 10000000, &v) < 0) {
			cli_bad_value("bench load", "--nodes", argv[2],
				      "expected 1 to 10000000");
			return 2;
		}
		nodes = (long)v;
	} else if (argc != 1) {
		fprintf(stderr, "usage: echelon bench load [--nodes N]\n"
				"\nLoad N generated Node objects (default "
				"100000) and print the time and peak memory "
				"as JSON.\n");
		return 2;
	}
	strbuf_init(&sb);
	generate(&sb, nodes);
	rss_before = cli_peak_rss_kb();
	cluster_init(&c);
	diag_init(&d);
	t0 = cli_now_s();
	c0 = cli_cpu_s();
	rc = manifest_load_buffer(&c, "nodes.yaml", sb.buf, sb.len, &d);
	t1 = cli_now_s();
	c1 = cli_cpu_s();
	rss_after = cli_peak_rss_kb();
	printf("{\"nodes\":%ld,\"loaded\":%zu,\"input_bytes\":%zu,"
	       "\"seconds\":%.3f,\"cpu_seconds\":%.3f,\"nodes_per_s\":%.0f,"
	       "\"peak_rss_mb\":%.1f,\"rss_growth_mb\":%.1f,\"errors\":%zu}\n",
	       nodes, c.nodes.len, sb.len, t1 - t0, c1 - c0,
	       (double)nodes / (t1 - t0), (double)rss_after / 1024.0,
	       (double)(rss_after - rss_before) / 1024.0, d.errors);
	diag_release(&d);
	cluster_release(&c);
	strbuf_release(&sb);
	return rc < 0 ? 1 : 0;
}
