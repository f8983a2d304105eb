// SPDX-License-Identifier: Apache-2.0
/*
 * echelon serve: the live scheduler on an embedded cluster behind a
 * Kubernetes-compatible API (src/serve). This file reads the options;
 * serve_main() does the rest.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/compiler.h"
#include "base/log.h"
#include "serve/serve.h"
#include "serve/serve_addr.h"
#include "serve/serve_faults.h"

#include "base/banned.h"

static void usage(FILE *out)
{
	fputs("usage: echelon serve [-f PATH...] [--cluster SPEC] "
	      "[--listen ADDR:PORT]\n"
	      "                     [--data DIR] [--speed X] "
	      "[--write-kubeconfig FILE]\n"
	      "                     [--no-schedule [--no-pod-start]] "
	      "[--sync full|normal]\n"
	      "                     [--seed N] [--faults SPEC]\n"
	      "\n"
	      "Schedule an embedded, simulated cluster in wall-clock time "
	      "behind a\n"
	      "Kubernetes-compatible API that kubectl and client libraries "
	      "use unchanged.\n"
	      "State is kept in SQLite under --data; a restart continues "
	      "where it was.\n"
	      "SIGTERM or SIGINT: stop accepting, finish writes, exit 0.\n"
	      "\n"
	      "  -f, --filename PATH      manifests (files or folders) "
	      "applied at start as\n"
	      "                           kubectl apply would: nodes, "
	      "topologies, flavors,\n"
	      "                           queues, jobs...\n"
	      "      --cluster SPEC       generate nodes, Topology and "
	      "ResourceFlavor:\n"
	      "                           blocks=1,racks=2,hosts=4,gpus=8 "
	      "(as echelon sim)\n"
	      "      --listen ADDR:PORT   default 127.0.0.1:8080; beyond "
	      "loopback TLS and a\n"
	      "                           bearer token are required (made "
	      "under --data)\n"
	      "      --data DIR           state folder (default "
	      "$XDG_STATE_HOME/echelon,\n"
	      "                           else ~/.local/state/echelon)\n"
	      "      --speed X            the embedded clock runs X times "
	      "the wall clock (1)\n"
	      "      --write-kubeconfig FILE\n"
	      "                           write a kubeconfig for this "
	      "server (mode 0600)\n"
	      "      --no-schedule        serve and simulate the nodes; an "
	      "external scheduler\n"
	      "                           binds the pods\n"
	      "      --no-pod-start       with --no-schedule: bound pods "
	      "stay Pending, never\n"
	      "                           started (no kubelet work; as "
	      "kube-scheduler's\n"
	      "                           scheduler_perf, for benchmarks)\n"
	      "      --sync MODE          full (default: durable across "
	      "power loss) or normal\n"
	      "                           (durable across a crash of the "
	      "daemon)\n"
	      "      --seed N             the embedded cluster's random "
	      "seed (default 1)\n"
	      "      --faults SPEC        for tests of clients: fail, drop "
	      "or delay API requests\n"
	      "                           and cut watches at random, e.g. "
	      "seed=7,bind=0.1:409|500,\n"
	      "                           watch410=0.05,drop=0.01,"
	      "slow=0.05:200; each binding\n"
	      "                           is logged "
	      "(docs/internals/serve.md)\n"
	      "\n"
	      "With --kubeconfig or --in-cluster, schedule the pods of that "
	      "Kubernetes\n"
	      "cluster instead (those with spec.schedulerName: echelon); "
	      "replicas elect a\n"
	      "leader through a Lease. The API here is a read-only view of "
	      "that cluster.\n"
	      "  -f, --filename PATH      objects of kinds the cluster does "
	      "not serve (e.g.\n"
	      "                           Kueue's queues without its CRDs), "
	      "kept here\n"
	      "      --kubeconfig FILE    the cluster's kubeconfig\n"
	      "      --context NAME       its context (default: "
	      "current-context)\n"
	      "      --in-cluster         the pod's service account\n"
	      "      --kube-qps X         requests per second to the API "
	      "server (200)\n"
	      "      --kube-burst N       requests at once above that "
	      "(400)\n"
	      "      --scheduler-name NAME\n"
	      "                           the pods to schedule (echelon)\n"
	      "      --lease NS/NAME      the leader election's Lease "
	      "(kube-system/echelon)\n"
	      "      --id ID              this replica in the Lease "
	      "(HOSTNAME_PID)\n",
	      out);
}

enum {
	OPT_CLUSTER = 256,
	OPT_LISTEN,
	OPT_DATA,
	OPT_SPEED,
	OPT_KUBECONFIG,
	OPT_NO_SCHEDULE,
	OPT_SYNC,
	OPT_SEED,
	OPT_REMOTE,
	OPT_CONTEXT,
	OPT_IN_CLUSTER,
	OPT_QPS,
	OPT_BURST,
	OPT_SCHEDULER_NAME,
	OPT_LEASE,
	OPT_ID,
	OPT_FAULTS,
	OPT_NO_POD_START,
};

static const struct option opts[] = {
	{ "filename", required_argument, NULL, 'f' },
	{ "cluster", required_argument, NULL, OPT_CLUSTER },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "data", required_argument, NULL, OPT_DATA },
	{ "speed", required_argument, NULL, OPT_SPEED },
	{ "write-kubeconfig", required_argument, NULL, OPT_KUBECONFIG },
	{ "no-schedule", no_argument, NULL, OPT_NO_SCHEDULE },
	{ "no-pod-start", no_argument, NULL, OPT_NO_POD_START },
	{ "sync", required_argument, NULL, OPT_SYNC },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "kubeconfig", required_argument, NULL, OPT_REMOTE },
	{ "context", required_argument, NULL, OPT_CONTEXT },
	{ "in-cluster", no_argument, NULL, OPT_IN_CLUSTER },
	{ "kube-qps", required_argument, NULL, OPT_QPS },
	{ "kube-burst", required_argument, NULL, OPT_BURST },
	{ "scheduler-name", required_argument, NULL, OPT_SCHEDULER_NAME },
	{ "lease", required_argument, NULL, OPT_LEASE },
	{ "id", required_argument, NULL, OPT_ID },
	{ "faults", required_argument, NULL, OPT_FAULTS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int bad(const char *opt, const char *val, const char *what)
{
	cli_bad_value("serve", opt, val, what);
	return 2;
}

/* Checked here so that a bad SPEC is a usage error; serve_http parses it
 * again when it starts. */
static int parse_faults(struct serve_options *o, const char *v)
{
	struct serve_faults *f;
	struct errbuf err;

	if (serve_faults_parse(v, &f, &err) < 0)
		return bad("--faults", v, err.msg);
	serve_faults_free(f);
	o->faults = v;
	/* The bindings the server answers are logged at info. */
	if (log_get_level() < LOG_INFO)
		log_set_level(LOG_INFO);
	return 0;
}

/* A DNS-1123 name: labels of [a-z0-9-] starting and ending alphanumeric,
 * at most 63 bytes each; with dots between them (a subdomain, at most
 * 253 bytes) when subdomain, else one label. */
static bool dns_name(const char *s, size_t len, bool subdomain)
{
	size_t run = 0;

	if (!len || len > (subdomain ? 253u : 63u))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

		if (c == '.' && subdomain && run && s[i - 1] != '-') {
			run = 0;
			continue;
		}
		if (!alnum && (c != '-' || !run))
			return false;
		if (++run > 63)
			return false;
	}
	return s[len - 1] != '-' && s[len - 1] != '.';
}

static int parse_double(const char *opt, const char *v, double min, double max,
			double *ret)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (end == v || *end || errno || !(d >= min) || d > max) {
		char what[96];

		snprintf(what, sizeof(what), "expected a number from %g to %g",
			 min, max);
		return bad(opt, v, what);
	}
	*ret = d;
	return 0;
}

/* The Kubernetes backend's options; 1 when opt is not one of them. */
static int parse_kube_opt(struct serve_options *o, int opt, const char *v)
{
	const char *slash;

	switch (opt) {
	case OPT_REMOTE:
		if (!*v)
			return bad("--kubeconfig", v, "expected a file");
		o->remote = v;
		return 0;
	case OPT_CONTEXT:
		if (!*v)
			return bad("--context", v, "expected a context's name");
		o->context = v;
		return 0;
	case OPT_IN_CLUSTER:
		o->in_cluster = true;
		return 0;
	case OPT_QPS:
		return parse_double("--kube-qps", v, 0.1, 1e6, &o->qps);
	case OPT_BURST:
		return parse_double("--kube-burst", v, 1, 1e6, &o->burst);
	case OPT_SCHEDULER_NAME:
		if (!dns_name(v, strlen(v), true))
			return bad("--scheduler-name", v,
				   "expected a DNS-1123 subdomain, as "
				   "spec.schedulerName");
		o->scheduler_name = v;
		return 0;
	case OPT_LEASE:
		slash = strchr(v, '/');
		if (!slash || !dns_name(v, (size_t)(slash - v), false) ||
		    !dns_name(slash + 1, strlen(slash + 1), true))
			return bad("--lease", v,
				   "expected NAMESPACE/NAME, e.g. "
				   "kube-system/echelon");
		o->lease = v;
		return 0;
	case OPT_ID:
		if (!*v || strlen(v) > 253)
			return bad("--id", v,
				   "expected a name of 1 to 253 bytes");
		o->identity = v;
		return 0;
	default:
		return 1;
	}
}

/* Options of one mode given in the other, or missing. */
static int check_modes(const struct serve_options *o, uint64_t seen)
{
	static const struct {
		int opt;
		const char *name;
	} embedded[] = {
		{ OPT_CLUSTER, "--cluster" },
		{ OPT_SPEED, "--speed" },
		{ OPT_KUBECONFIG, "--write-kubeconfig" },
		{ OPT_NO_SCHEDULE, "--no-schedule" },
		{ OPT_SYNC, "--sync" },
		{ OPT_FAULTS, "--faults" },
		{ OPT_NO_POD_START, "--no-pod-start" },
	},
	  remote[] = {
		  { OPT_CONTEXT, "--context" },
		  { OPT_QPS, "--kube-qps" },
		  { OPT_BURST, "--kube-burst" },
		  { OPT_SCHEDULER_NAME, "--scheduler-name" },
		  { OPT_LEASE, "--lease" },
		  { OPT_ID, "--id" },
	  };
	bool kube = o->remote || o->in_cluster;

	if (o->remote && o->in_cluster)
		return cli_usage_error("serve", "--kubeconfig and "
						"--in-cluster exclude each "
						"other");
	if (o->context && !o->remote)
		return cli_usage_error("serve", "--context needs --kubeconfig");
	for (size_t i = 0; kube && i < ARRAY_SIZE(embedded); i++) {
		if (seen & (1ULL << (embedded[i].opt - OPT_CLUSTER)))
			return cli_usage_error(
				"serve",
				"%s is for the embedded cluster, not with "
				"%s",
				embedded[i].name,
				o->remote ? "--kubeconfig" : "--in-cluster");
	}
	for (size_t i = 0; !kube && i < ARRAY_SIZE(remote); i++) {
		if (seen & (1ULL << (remote[i].opt - OPT_CLUSTER)))
			return cli_usage_error("serve",
					       "%s needs --kubeconfig or "
					       "--in-cluster",
					       remote[i].name);
	}
	if (o->no_pod_start && !o->no_schedule)
		return cli_usage_error("serve", "--no-pod-start needs "
						"--no-schedule (the embedded "
						"scheduler waits for its pods "
						"to start)");
	return 0;
}

static int parse_opt(struct serve_options *o, const char **paths, int opt,
		     const char *v)
{
	char addr[64], *end;
	uint16_t port;
	uint64_t u;
	int rc;

	switch (opt) {
	case 'f':
		if (strcmp(v, "-") == 0)
			return bad("-f", v,
				   "expected a file or folder (standard "
				   "input is not read again at a restart)");
		paths[o->npaths++] = v;
		return 0;
	case OPT_CLUSTER:
		o->cluster = v;
		return 0;
	case OPT_LISTEN:
		if (serve_addr_parse(v, addr, sizeof(addr), &port) < 0)
			return bad("--listen", v,
				   "expected ADDR:PORT with a numeric "
				   "address, e.g. 127.0.0.1:8080 or "
				   "[::1]:8080");
		o->listen = v;
		return 0;
	case OPT_DATA:
		if (!*v)
			return bad("--data", v, "expected a folder");
		o->data = v;
		return 0;
	case OPT_SPEED:
		errno = 0;
		o->speed = strtod(v, &end);
		if (end == v || *end || errno || !(o->speed > 0) ||
		    o->speed > 1e6)
			return bad("--speed", v,
				   "expected a number above 0, at most "
				   "1000000");
		return 0;
	case OPT_KUBECONFIG:
		if (!*v)
			return bad("--write-kubeconfig", v, "expected a file");
		o->write_kubeconfig = v;
		return 0;
	case OPT_NO_SCHEDULE:
		o->no_schedule = true;
		return 0;
	case OPT_NO_POD_START:
		o->no_pod_start = true;
		return 0;
	case OPT_SYNC:
		if (strcmp(v, "full") == 0)
			o->sync_normal = false;
		else if (strcmp(v, "normal") == 0)
			o->sync_normal = true;
		else
			return bad("--sync", v, "expected full or normal");
		return 0;
	case OPT_SEED:
		if (cli_parse_u64(v, 0, UINT64_MAX, &u) < 0)
			return bad("--seed", v, "expected a whole number");
		o->seed = u;
		return 0;
	case OPT_FAULTS:
		return parse_faults(o, v);
	case 'h':
		usage(stdout);
		return 1;
	default:
		rc = parse_kube_opt(o, opt, v);
		if (rc != 1)
			return rc;
		usage(stderr);
		return 2;
	}
}

/* The daemon's heap grows and shrinks by hundreds of megabytes a turn
 * (the objects it writes are copied, their history kept, then dropped).
 * glibc gave the top of the heap back to the kernel whenever 128 KiB of
 * it was free (main() fixes the mmap threshold, which also fixes the trim
 * threshold) and took it again at the next turn, every page zeroed anew:
 * 46 % of a new leader's first pass over 50,000 pods was the kernel
 * clearing pages, 10 % with these. The peak is unchanged; memory freed
 * stays with the process for the next turn. */
static void heap_for_daemon(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
	mallopt(M_TOP_PAD, 64 * 1024 * 1024);
#endif
}

int cli_serve(int argc, char **argv)
{
	const char **paths = xcalloc((size_t)argc + 1, sizeof(*paths));
	struct serve_options o = {
		.listen = "127.0.0.1:8080",
		.speed = 1,
		.seed = 1,
	};
	uint64_t seen = 0;
	int opt, rc = 0;

	o.paths = paths;
	optind = 1;
	while (!rc &&
	       (opt = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		rc = parse_opt(&o, paths, opt, optarg);
		if (opt >= OPT_CLUSTER)
			seen |= 1ULL << (opt - OPT_CLUSTER);
	}
	if (!rc && optind < argc) {
		fprintf(stderr, "echelon serve: unexpected argument \"%s\"\n",
			cli_quote(argv[optind]));
		rc = 2;
	}
	if (!rc)
		rc = check_modes(&o, seen);
	if (!rc)
		heap_for_daemon();
	if (!rc)
		rc = serve_main(&o);
	else if (rc == 1) /* --help */
		rc = 0;
	free(paths);
	return rc;
}
