// SPDX-License-Identifier: Apache-2.0
/*
 * echelon explain workload NS/NAME: ask a running `echelon serve` (found
 * through a kubeconfig, as kubectl finds its server) why a workload waits
 * or runs as it does, and print its layered answer (the explain
 * subresource, src/serve/serve_explain.c): as text, or the
 * WorkloadExplanation as JSON or YAML.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/errbuf.h"
#include "base/strbuf.h"
#include "cli/output.h"
#include "kube/kube_config.h"
#include "kube/kube_http.h"

#include "base/banned.h"

#define EXPLAIN_TIMEOUT_US (30LL * 1000000)

struct explain_opts {
	const char *kubeconfig, *context;
	const char *target; /* NS/NAME */
	bool text;
	enum output_format fmt;
};

struct answer {
	bool done;
	int code;
	char *body;
	char *error;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: echelon explain workload NAMESPACE/NAME\n"
		"                       [--kubeconfig FILE] [--context NAME]\n"
		"                       [-o text|json|yaml]\n"
		"\n"
		"Ask a running `echelon serve` why a workload (a Kueue "
		"Workload, the\n"
		"name `kubectl get workloads` shows) waits or runs as it "
		"does, layer by\n"
		"layer: admission (quota, topology, position, who holds the "
		"quota),\n"
		"assembly (pods bound and Ready), throughput (domains spanned "
		"against\n"
		"the fewest, modelled throughput), hardware, history.\n"
		"\n"
		"      --kubeconfig FILE  the server and credentials "
		"(default:\n"
		"                         $KUBECONFIG, else ~/.kube/config; "
		"serve\n"
		"                         writes one with --write-kubeconfig)\n"
		"      --context NAME     a context of that file (default: "
		"current)\n"
		"  -o, --output FORMAT    text (default), json or yaml\n");
}

static int parse_args(int argc, char **argv, struct explain_opts *o)
{
	static const struct option opts[] = {
		{ "kubeconfig", required_argument, NULL, 'k' },
		{ "context", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	o->text = true;
	while ((opt = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'k':
			o->kubeconfig = optarg;
			break;
		case 'c':
			o->context = optarg;
			break;
		case 'o':
			o->text = strcmp(optarg, "text") == 0;
			if (!o->text &&
			    (output_parse(optarg, &o->fmt) < 0 ||
			     (o->fmt != OUTPUT_JSON && o->fmt != OUTPUT_YAML)))
				return cli_bad_value("explain", "--output",
						     optarg,
						     "expected text, json or "
						     "yaml");
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return cli_getopt_error("explain", opt, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("explain", "what to explain is missing: "
						  "workload NAMESPACE/NAME");
	if (strcmp(argv[optind], "workload") != 0 &&
	    strcmp(argv[optind], "workloads") != 0 &&
	    strcmp(argv[optind], "wl") != 0)
		return cli_usage_error("explain",
				       "%s: only workloads are explained "
				       "(echelon explain workload NS/NAME)",
				       cli_quote(argv[optind]));
	if (optind + 1 >= argc)
		return cli_usage_error(
			"explain", "the workload is missing: NAMESPACE/NAME");
	if (optind + 2 < argc)
		return cli_usage_error("explain", "unexpected argument %s",
				       cli_quote(argv[optind + 2]));
	o->target = argv[optind + 1];
	if (!strchr(o->target, '/') || o->target[0] == '/' ||
	    strchr(o->target, '/')[1] == '\0' ||
	    strchr(strchr(o->target, '/') + 1, '/'))
		return cli_usage_error("explain", "%s: expected NAMESPACE/NAME",
				       cli_quote(o->target));
	return 0;
}

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void on_done(void *ctx, const struct kube_reply *r)
{
	struct answer *a = ctx;

	a->done = true;
	a->code = r->code;
	a->body = r->body ? xstrdup(r->body) : NULL;
	a->error = r->error ? xstrdup(r->error) : NULL;
}

/* GET path from the server of t; the answer in *a. */
static int fetch(const struct kube_target *t, const char *path,
		 struct answer *a, struct errbuf *err)
{
	struct kube_http_options ho = { .target = t };
	struct kube_http *h;
	struct kube_transport tr;
	struct kube_call call = { .method = "GET",
				  .path = path,
				  .flags = KUBE_RETRY,
				  .retry_us = 5000000,
				  .timeout_us = EXPLAIN_TIMEOUT_US };
	int64_t end = mono_us() + EXPLAIN_TIMEOUT_US;
	int rc = kube_http_new(&ho, &h, err);

	if (rc < 0)
		return rc;
	tr = kube_http_transport(h);
	kube_send(&tr, &call, on_done, NULL, a);
	while (!a->done && mono_us() < end) {
		struct pollfd p = { .fd = kube_http_fd(h), .events = POLLIN };
		int ms = kube_http_timeout_ms(h, mono_us());

		poll(&p, 1, ms < 0 || ms > 200 ? 200 : ms);
		kube_http_run(h, mono_us());
	}
	kube_http_free(h);
	if (!a->done) {
		return errbuf_set(err, -ETIMEDOUT, "%s: no answer in 30 s",
				  t->server);
	}
	return 0;
}

/* The message of a Status body, or the body. */
static const char *status_message(const char *body, json_t **keep)
{
	*keep = body ? json_loads(body, 0, NULL) : NULL;
	if (json_is_string(json_object_get(*keep, "message")))
		return json_string_value(json_object_get(*keep, "message"));
	return body && *body ? body : "no message";
}

static int print_answer(const struct explain_opts *o, const struct answer *a)
{
	json_t *root, *st = NULL;
	int rc = 0;

	if (a->code != 200) {
		fprintf(stderr, "echelon explain: %s: %d: %s\n", o->target,
			a->code, status_message(a->body, &st));
		json_decref(st);
		return 1;
	}
	root = json_loads(a->body ? a->body : "", 0, NULL);
	if (!json_is_string(json_object_get(root, "text"))) {
		fprintf(stderr,
			"echelon explain: the server's answer is not an "
			"explanation (is it echelon serve?)\n");
		rc = 1;
	} else if (o->text) {
		fputs(json_string_value(json_object_get(root, "text")), stdout);
	} else {
		output_print(root, o->fmt);
	}
	json_decref(root);
	return rc;
}

int cli_explain(int argc, char **argv)
{
	struct explain_opts o = { 0 };
	struct kube_target t = { 0 };
	struct answer a = { 0 };
	struct errbuf err = { 0 };
	const char *slash;
	char *path = NULL;
	int rc = parse_args(argc, argv, &o);

	if (rc)
		return rc == 1 ? 0 : rc;
	if (kube_config_load(o.kubeconfig, o.context, &t, &err) < 0) {
		fprintf(stderr, "echelon explain: %s\n", err.msg);
		return 1;
	}
	slash = strchr(o.target, '/');
	path = xasprintf("/apis/echelon.dev/v1alpha1/namespaces/%.*s/"
			 "workloads/%s/explain",
			 (int)(slash - o.target), o.target, slash + 1);
	rc = fetch(&t, path, &a, &err);
	if (rc < 0) {
		fprintf(stderr, "echelon explain: %s\n", err.msg);
		rc = 1;
	} else if (a.code == 0) {
		fprintf(stderr, "echelon explain: cannot reach %s: %s\n",
			t.server, a.error ? a.error : "no answer");
		rc = 1;
	} else {
		rc = print_answer(&o, &a);
	}
	free(a.body);
	free(a.error);
	free(path);
	kube_target_free(&t);
	return rc;
}
