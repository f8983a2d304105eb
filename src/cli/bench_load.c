// SPDX-License-Identifier: Apache-2.0
/*
 * echelon bench load: generate N Node objects as one multi-document YAML
 * stream (labels for block, rack and host, 8 GPUs each), load it with
 * manifest_load_buffer(), and report the time and the peak memory as one
 * JSON object. With --labels or --annotations N, one Node holding N of
 * them instead, in descending key order (the worst order for a sorted
 * set built one insert at a time).
 */
#include "cli/cli.h"

#include <getopt.h>
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

/* One Node with n labels or annotations (section), keys descending. */
static void generate_big(struct strbuf *sb, const char *section, long n)
{
	strbuf_addf(sb,
		    "apiVersion: v1\nkind: Node\nmetadata:\n"
		    "  name: big\n  %s:\n",
		    section);
	for (long i = n - 1; i >= 0; i--)
		strbuf_addf(sb, "    example.com/key-%07ld: value-%ld\n", i, i);
}

static const char *const sections[] = { NULL, "labels", "annotations" };

/* 0, or the exit status. */
static int parse(int argc, char **argv, long *nodes, int *section)
{
	static const char *const names[] = { "--nodes", "--labels",
					     "--annotations" };
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 1 },
		{ "labels", required_argument, NULL, 2 },
		{ "annotations", required_argument, NULL, 3 },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		uint64_t v;

		if (opt < 1 || opt > 3 || optind > argc)
			goto usage;
		if (cli_parse_u64(optarg, 1, 10000000, &v) < 0) {
			cli_bad_value("bench load", names[opt - 1], optarg,
				      "expected 1 to 10000000");
			return 2;
		}
		*nodes = (long)v;
		*section = opt - 1;
	}
	if (optind == argc)
		return 0;
usage:
	fprintf(stderr, "usage: echelon bench load [--nodes N | --labels N | "
			"--annotations N]\n"
			"\nLoad N generated Node objects (default 100000), or "
			"one Node with N labels\nor annotations, and print "
			"the time and peak memory as JSON.\n");
	return 2;
}

int cli_bench_load(int argc, char **argv)
{
	long nodes = 100000, rss_before, rss_after;
	int section = 0;
	struct cluster c;
	struct strbuf sb;
	struct diag d;
	double t0, t1, c0, c1;
	int rc;

	rc = parse(argc, argv, &nodes, &section);
	if (rc)
		return rc;
	strbuf_init(&sb);
	if (section)
		generate_big(&sb, sections[section], nodes);
	else
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
	if (section)
		printf("{\"%s\":%ld,", sections[section], nodes);
	else
		printf("{\"nodes\":%ld,", nodes);
	printf("\"loaded\":%zu,\"input_bytes\":%zu,"
	       "\"seconds\":%.3f,\"cpu_seconds\":%.3f,\"nodes_per_s\":%.0f,"
	       "\"peak_rss_mb\":%.1f,\"rss_growth_mb\":%.1f,\"errors\":%zu}\n",
	       c.nodes.len, sb.len, t1 - t0, c1 - c0,
	       (double)c.nodes.len / (t1 - t0), (double)rss_after / 1024.0,
	       (double)(rss_after - rss_before) / 1024.0, d.errors);
	/* One Node's map over Kubernetes' limits is refused: say how. */
	if (section && d.msgs.len)
		fprintf(stderr, "%s\n", d.msgs.items[0].text);
	diag_release(&d);
	cluster_release(&c);
	strbuf_release(&sb);
	return rc < 0 && !section ? 1 : 0;
}
