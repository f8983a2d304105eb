// SPDX-License-Identifier: Apache-2.0
/*
 * echelon serve: the live scheduler on an embedded cluster behind a
 * Kubernetes-compatible API (src/serve). This file reads the options;
 * serve_main() does the rest.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
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
	      "                     [--no-schedule] [--sync full|normal] "
	      "[--seed N]\n"
	      "                     [--faults SPEC]\n"
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
	      "(docs/internals/serve.md)\n",
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
	OPT_FAULTS,
};

static const struct option opts[] = {
	{ "filename", required_argument, NULL, 'f' },
	{ "cluster", required_argument, NULL, OPT_CLUSTER },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "data", required_argument, NULL, OPT_DATA },
	{ "speed", required_argument, NULL, OPT_SPEED },
	{ "write-kubeconfig", required_argument, NULL, OPT_KUBECONFIG },
	{ "no-schedule", no_argument, NULL, OPT_NO_SCHEDULE },
	{ "sync", required_argument, NULL, OPT_SYNC },
	{ "seed", required_argument, NULL, OPT_SEED },
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

static int parse_opt(struct serve_options *o, const char **paths, int opt,
		     const char *v)
{
	char addr[64], *end;
	uint16_t port;
	uint64_t u;

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
		usage(stderr);
		return 2;
	}
}

int cli_serve(int argc, char **argv)
{
	const char **paths = xcalloc((size_t)argc + 1, sizeof(*paths));
	struct serve_options o = {
		.listen = "127.0.0.1:8080",
		.speed = 1,
		.seed = 1,
	};
	int opt, rc = 0;

	o.paths = paths;
	optind = 1;
	while (!rc && (opt = getopt_long(argc, argv, "f:h", opts, NULL)) != -1)
		rc = parse_opt(&o, paths, opt, optarg);
	if (!rc && optind < argc) {
		fprintf(stderr, "echelon serve: unexpected argument \"%s\"\n",
			cli_quote(argv[optind]));
		rc = 2;
	}
	if (!rc)
		rc = serve_main(&o);
	else if (rc == 1) /* --help */
		rc = 0;
	free(paths);
	return rc;
}
