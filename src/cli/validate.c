// SPDX-License-Identifier: Apache-2.0
/*
 * echelon validate: load manifests, report every error and warning with
 * its location, and summarise what was loaded, one line per kind.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "cli/output.h"
#include "manifest/enc.h"
#include "model/quantity.h"

#include "base/banned.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: echelon validate -f PATH [-f PATH...] [--strict]\n"
		"                        [-o summary|json|yaml]\n"
		"\n"
		"Check manifests (files or folders of YAML/JSON) and print a\n"
		"one-line summary per kind. Every error is reported as\n"
		"file:line:col: field: what is wrong, and the exit status is "
		"1.\n"
		"\n"
		"  -f, --filename PATH   a file, a folder, or - for stdin\n"
		"  -o, --output FORMAT   summary (default), or json or yaml:\n"
		"                        every object as echelon understood "
		"it\n"
		"                        (canonical quantities, Jobs as the\n"
		"                        Workloads made from them)\n"
		"      --strict          treat warnings as errors\n");
}

static void node_summary(const struct cluster *c, struct strbuf *sb)
{
	struct resvec total;
	size_t ready = 0, cordoned = 0;

	resvec_zero(&total);
	vec_foreach (&c->nodes, n) {
		ready += n->ready;
		cordoned += n->unschedulable;
		resvec_add(&total, &n->allocatable);
	}
	strbuf_addf(sb, "%zu ready, %zu cordoned", ready, cordoned);
	for (int r = 0, first = 1; r < c->resources->count; r++) {
		if (r == RESOURCE_PODS || total.v[r] == 0)
			continue;
		strbuf_addf(sb, "%s%s=", first ? "; allocatable " : " ",
			    resource_name(c->resources, r));
		first = 0;
		quantity_format(total.v[r], c->resources->kinds[r], sb);
	}
}

static void topology_summary(const struct cluster *c, struct strbuf *sb)
{
	vec_foreach (&c->topologies, t) {
		strbuf_addf(sb, "%s%s [", t == c->topologies.items ? "" : "; ",
			    t->name);
		for (size_t l = 0; l < t->nlevels; l++)
			strbuf_addf(sb, "%s%s", l ? " > " : "", t->levels[l]);
		strbuf_addch(sb, ']');
	}
}

static void workload_summary(const struct cluster *c, struct strbuf *sb)
{
	int64_t pods = 0;
	size_t admitted = 0;

	vec_foreach (&c->workloads, w) {
		pods += workload_pod_count(w);
		admitted += w->admission != NULL;
	}
	strbuf_addf(sb, "%zu from Jobs, %zu admitted; %lld pods", c->jobs,
		    admitted, (long long)pods);
}

static void summarise(const struct cluster *c)
{
	struct strbuf sb;

	strbuf_init(&sb);
	for (int k = 0; k < KIND_COUNT; k++) {
		size_t n = cluster_count(c, (enum kind)k);

		if (!n)
			continue;
		strbuf_reset(&sb);
		if (k == KIND_NODE)
			node_summary(c, &sb);
		else if (k == KIND_TOPOLOGY)
			topology_summary(c, &sb);
		else if (k == KIND_WORKLOAD)
			workload_summary(c, &sb);
		printf("%-22s %6zu%s%s\n", kind_name((enum kind)k), n,
		       sb.len ? "  " : "", sb.buf);
	}
	strbuf_release(&sb);
}

struct validate_opts {
	const char **paths;
	size_t npaths;
	bool strict;
	bool summary;
	enum output_format fmt;
};

/* 0 to go on, else the exit status (1 is never returned here). */
static int parse_args(int argc, char **argv, struct validate_opts *o)
{
	static const struct option opts[] = {
		{ "filename", required_argument, NULL, 'f' },
		{ "strict", no_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, ":f:o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			o->summary = strcmp(optarg, "summary") == 0;
			if (!o->summary &&
			    (output_parse(optarg, &o->fmt) < 0 ||
			     o->fmt == OUTPUT_TABLE || o->fmt == OUTPUT_WIDE))
				return cli_bad_value("validate", "--output",
						     optarg,
						     "expected summary, json "
						     "or yaml");
			break;
		case 'f':
			o->paths[o->npaths++] = optarg;
			break;
		case 's':
			o->strict = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return cli_getopt_error("validate", opt, argv);
		}
	}
	return cli_usage_args("validate", argc, argv, o->npaths);
}

/* Print the summary or the objects; returns the exit status. */
static int report(const struct cluster *c, const struct validate_opts *o,
		  size_t load_warnings)
{
	struct strbuf sb;
	struct diag d;
	int rc;

	diag_init(&d);
	strbuf_init(&sb);
	cluster_check_refs(c, &d);
	diag_format(&d, &sb);
	fputs(sb.buf, stderr);
	if (o->summary) {
		summarise(c);
	} else {
		json_t *all = enc_cluster(c);

		output_print(all, o->fmt);
		json_decref(all);
	}
	rc = o->strict && (load_warnings || d.warnings) ? 1 : 0;
	strbuf_release(&sb);
	diag_release(&d);
	return rc;
}

int cli_validate(int argc, char **argv)
{
	struct validate_opts o = { .summary = true, .fmt = OUTPUT_TABLE };
	struct cluster c;
	size_t warnings = 0;
	int rc;

	o.paths = xcalloc((size_t)argc, sizeof(*o.paths));
	rc = parse_args(argc, argv, &o);
	if (rc) {
		free(o.paths);
		return rc < 0 ? 0 : 2;
	}
	cluster_init(&c);
	rc = 1;
	if (cli_load(&c, o.paths, o.npaths, false, &warnings) == 0)
		rc = report(&c, &o, warnings);
	cluster_release(&c);
	free(o.paths);
	return rc;
}
