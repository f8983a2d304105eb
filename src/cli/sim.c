// SPDX-License-Identifier: Apache-2.0
/*
 * echelon sim: replay jobs against a cluster in virtual time under one or
 * more scheduling policies, print the summary table side by side, and
 * write the records, time series, metrics, summary and HTML report.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/duration.h"
#include "base/strbuf.h"
#include "base/version.h"
#include "cli/outdir.h"
#include "cli/output.h"
#include "cli/sim_setup.h"
#include "sim/report.h"
#include "sim/sim_metrics.h"
#include "sim/sim_out.h"
#include "sim/sim_sweep.h"
#include "sim/trace.h"

#include "base/banned.h"

#define SYNTH_MAX (1u << 20)

struct sim_args {
	struct sim_setup_opts setup;
	struct sim_options o;
	enum sim_policy policies[SIM_POLICY_COUNT];
	size_t npolicies;
	const char *out;
	const char *log;
	VEC(struct sim_failure) failures;
	struct sim_sweep *sweep; /* --sweep; NULL: none */
	bool set_algorithm;	 /* --placement-algorithm */
	enum placement_algorithm algorithm;
	int argc; /* the command line, for the report's header */
	char **argv;
};

static void usage(FILE *out)
{
	fputs("usage: echelon sim [-f PATH...] [--trace FILE|DIR...] "
	      "[--cluster SPEC]\n"
	      "                   [--synth N] [--seed N] [--until T] "
	      "[--compare P,P...]\n"
	      "                   [--out DIR] [options]\n"
	      "\n"
	      "Replay jobs against a cluster in virtual time: admission under "
	      "the\n"
	      "queues' quotas, gang binding, pod start-up, training slowed by "
	      "the\n"
	      "placement, failures; then the summary per policy.\n"
	      "\n"
	      "  -f, --filename PATH    manifests: cluster, queues, and jobs "
	      "with\n"
	      "                         sim.echelon.dev/duration (and "
	      "/submit)\n"
	      "      --trace PATH       echelon JSONL or ITP CSV trace, or a "
	      "folder of them\n"
	      "      --cluster SPEC     generate hosts: "
	      "blocks=4,racks=8,hosts=32,gpus=8\n"
	      "      --synth N          N synthetic jobs (ITP-like); "
	      "--synth-rate R per hour\n"
	      "      --queue RULE       queue of jobs without one: "
	      "gpus<=8:small,*:large\n"
	      "      --topology T       request of multi-pod trace jobs "
	      "without one:\n"
	      "                         required:L, preferred:L (default "
	      "preferred:rack),\n"
	      "                         unconstrained or none\n"
	      "      --compare LIST     policies: tas, kube-default, "
	      "first-fit, no-gang\n"
	      "                         (default tas); --policy P is the same\n"
	      "      --no-compact       tas without compact gangs (a gang may "
	      "span more\n"
	      "                         racks than it needs when they are "
	      "free)\n"
	      "      --seed N           random seed (default 1)\n"
	      "      --until T          stop at T (seconds, or 90m, 36h...)\n"
	      "      --pod-start T      bind to Ready (default 10s)\n"
	      "      --checkpoint T     checkpoint period; work since is lost "
	      "(default none)\n"
	      "      --node-mtbf H      mean hours between failures of a node\n"
	      "      --node-repair T    repair time (default 1h)\n"
	      "      --pod-failures R   failures per running pod-hour\n"
	      "      --fail NODE@T[+R]  fail NODE at T, repaired after R\n"
	      "      --network KEYS     the throughput model's figures, e.g.\n"
	      "                         bw-rack=45,lat-block=2.6,oversub-block="
	      "2 (also\n"
	      "                         accepted in --cluster's SPEC)\n"
	      "      --algo A           ring (default) or hierarchical "
	      "all-reduce\n"
	      "      --comm-fraction F  one all-reduce share of every job's "
	      "ideal step\n"
	      "                         (default: per class, "
	      "sim.echelon.dev/parallelism)\n"
	      "      --sweep KEY=V,V... run the comparison at each value of "
	      "a --network\n"
	      "                         key and print how each figure "
	      "moves\n"
	      "      --placement-algorithm A  TAS placement: Mixed (Kueue's "
	      "default),\n"
	      "                         BestFit, LeastFreeCapacity or "
	      "FragmentationAware\n"
	      "                         (over the Configuration's "
	      "placement.algorithm)\n"
	      "      --backfill         tas: a waiting gang reserves the "
	      "domains it fits\n"
	      "                         first; others start there only when "
	      "expected to\n"
	      "                         end before\n"
	      "      --estimates SRC    runtime estimates for backfill: "
	      "history (mean of\n"
	      "                         finished jobs of the same queue and "
	      "GPUs; default),\n"
	      "                         exact (the trace's duration) or none\n"
	      "      --estimate-error F log-normal error (sigma F) on each "
	      "estimate\n"
	      "      --out DIR          write workloads.jsonl, "
	      "timeseries.csv,\n"
	      "                         metrics.prom, metrics.om, "
	      "summary.json,\n"
	      "                         report.html\n"
	      "      --log FILE         write the event log\n"
	      "      --check            check the invariants after the events "
	      "of "
	      "each time\n"
	      "                         (on by default in debug builds)\n"
	      "  -q, --quiet            no progress bar, no warnings\n",
	      out);
}

static int bad(const char *opt, const char *val, const char *what)
{
	cli_bad_value("sim", opt, val, what);
	return 2;
}

static int parse_time(const char *opt, const char *s, int64_t *ret)
{
	struct errbuf eb = { 0 };

	if (duration_parse_time(s, strlen(s), ret, &eb) < 0) {
		fprintf(stderr, "echelon sim: %s: %s\n", opt, eb.msg);
		cli_usage_hint("sim");
		return 2;
	}
	return 0;
}

static int parse_double(const char *opt, const char *s, double *ret)
{
	char *e;

	errno = 0;
	*ret = strtod(s, &e);
	if (e == s || *e || errno || !(*ret >= 0))
		return bad(opt, s, "expected a non-negative number");
	return 0;
}

static int parse_u64(const char *opt, const char *s, uint64_t *ret)
{
	if (cli_parse_u64(s, 0, UINT64_MAX, ret) < 0)
		return bad(opt, s, "expected a whole number");
	return 0;
}

static int parse_policies(struct sim_args *a, const char *s)
{
	char *copy = xstrdup(s), *save = NULL;
	int rc = 0;

	a->npolicies = 0;
	for (char *t = strtok_r(copy, ",", &save); t && !rc;
	     t = strtok_r(NULL, ",", &save)) {
		enum sim_policy p;

		if (sim_policy_parse(t, &p) < 0) {
			rc = bad("--compare", t,
				 "expected tas, kube-default, first-fit or "
				 "no-gang");
			break;
		}
		for (size_t i = 0; i < a->npolicies && !rc; i++) {
			if (a->policies[i] == p)
				rc = bad("--compare", t, "listed twice");
		}
		if (!rc)
			a->policies[a->npolicies++] = p;
	}
	free(copy);
	if (!rc && !a->npolicies)
		rc = bad("--compare", s, "expected at least one policy");
	return rc;
}

/* NODE@T[+R]. */
static int parse_fail(struct sim_args *a, const char *s)
{
	const char *at = strrchr(s, '@');
	struct sim_failure f = { 0 };
	char *t, *plus;
	int rc;

	if (!at || at == s || !at[1])
		return bad("--fail", s, "expected NODE@TIME[+REPAIR]");
	t = xstrdup(at + 1);
	/* T+R; a '+' of an exponent (1e+3) is part of T. */
	plus = strrchr(t, '+');
	if (plus && plus > t && (plus[-1] == 'e' || plus[-1] == 'E'))
		plus = NULL;
	if (plus)
		*plus++ = '\0';
	rc = parse_time("--fail", t, &f.at_us);
	if (!rc && plus)
		rc = parse_time("--fail", plus, &f.repair_us);
	free(t);
	if (rc)
		return rc;
	f.node = xstrndup(s, (size_t)(at - s));
	vec_push(&a->failures, f);
	return 0;
}

enum {
	OPT_TRACE = 256,
	OPT_CLUSTER,
	OPT_SYNTH,
	OPT_SYNTH_RATE,
	OPT_QUEUE,
	OPT_TOPOLOGY,
	OPT_COMPARE,
	OPT_SEED,
	OPT_UNTIL,
	OPT_OUT,
	OPT_POD_START,
	OPT_CHECKPOINT,
	OPT_MTBF,
	OPT_REPAIR,
	OPT_POD_FAIL,
	OPT_FAIL,
	OPT_ALGO,
	OPT_COMM,
	OPT_LOG,
	OPT_CHECK,
	OPT_NO_COMPACT,
	OPT_NETWORK,
	OPT_BACKFILL,
	OPT_ESTIMATES,
	OPT_ESTIMATE_ERROR,
	OPT_SWEEP,
	OPT_PLACEMENT_ALGORITHM,
};

static const struct option opts[] = {
	{ "filename", required_argument, NULL, 'f' },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "cluster", required_argument, NULL, OPT_CLUSTER },
	{ "synth", required_argument, NULL, OPT_SYNTH },
	{ "synth-rate", required_argument, NULL, OPT_SYNTH_RATE },
	{ "queue", required_argument, NULL, OPT_QUEUE },
	{ "topology", required_argument, NULL, OPT_TOPOLOGY },
	{ "compare", required_argument, NULL, OPT_COMPARE },
	{ "policy", required_argument, NULL, OPT_COMPARE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "pod-start", required_argument, NULL, OPT_POD_START },
	{ "checkpoint", required_argument, NULL, OPT_CHECKPOINT },
	{ "node-mtbf", required_argument, NULL, OPT_MTBF },
	{ "node-repair", required_argument, NULL, OPT_REPAIR },
	{ "pod-failures", required_argument, NULL, OPT_POD_FAIL },
	{ "fail", required_argument, NULL, OPT_FAIL },
	{ "algo", required_argument, NULL, OPT_ALGO },
	{ "comm-fraction", required_argument, NULL, OPT_COMM },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "no-compact", no_argument, NULL, OPT_NO_COMPACT },
	{ "network", required_argument, NULL, OPT_NETWORK },
	{ "backfill", no_argument, NULL, OPT_BACKFILL },
	{ "estimates", required_argument, NULL, OPT_ESTIMATES },
	{ "estimate-error", required_argument, NULL, OPT_ESTIMATE_ERROR },
	{ "sweep", required_argument, NULL, OPT_SWEEP },
	{ "placement-algorithm", required_argument, NULL,
	  OPT_PLACEMENT_ALGORITHM },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_opt(struct sim_args *a, int opt, const char *v)
{
	struct sim_setup_opts *s = &a->setup;
	struct sim_options *o = &a->o;
	struct errbuf eb = { 0 };
	uint64_t u;

	switch (opt) {
	case 'f':
		s->paths[s->npaths++] = v;
		return 0;
	case OPT_TRACE:
		s->traces[s->ntraces++] = v;
		return 0;
	case OPT_CLUSTER:
		s->cluster_spec = v;
		return 0;
	case OPT_SYNTH:
		/* ~3 KB a job in the cluster: 1 Mi jobs is ~4 GB already */
		if (parse_u64("--synth", v, &u))
			return 2;
		if (u == 0 || u > SYNTH_MAX)
			return bad("--synth", v, "expected 1 to 1048576 jobs");
		s->synth_jobs = (size_t)u;
		return 0;
	case OPT_SYNTH_RATE:
		return parse_double("--synth-rate", v, &s->synth_rate);
	case OPT_QUEUE:
		s->queue_rule = v;
		return 0;
	case OPT_TOPOLOGY:
		s->topology = v;
		return 0;
	case OPT_COMPARE:
		return parse_policies(a, v);
	case OPT_SEED:
		if (parse_u64("--seed", v, &o->seed))
			return 2;
		s->seed = o->seed;
		return 0;
	case OPT_UNTIL:
		return parse_time("--until", v, &o->until_us);
	case OPT_OUT:
		a->out = v;
		return 0;
	case OPT_POD_START:
		return parse_time("--pod-start", v, &o->pod_start_us);
	case OPT_CHECKPOINT:
		return parse_time("--checkpoint", v, &o->checkpoint_us);
	case OPT_MTBF:
		return parse_double("--node-mtbf", v, &o->node_mtbf_h);
	case OPT_REPAIR:
		return parse_time("--node-repair", v, &o->node_repair_us);
	case OPT_POD_FAIL:
		return parse_double("--pod-failures", v, &o->pod_fail_per_h);
	case OPT_FAIL:
		return parse_fail(a, v);
	case OPT_ALGO:
		if (strcmp(v, "ring") == 0)
			o->tp.algo = THROUGHPUT_RING;
		else if (strcmp(v, "hierarchical") == 0)
			o->tp.algo = THROUGHPUT_HIERARCHICAL;
		else
			return bad("--algo", v,
				   "expected ring or hierarchical");
		return 0;
	case OPT_COMM:
		if (parse_double("--comm-fraction", v, &o->tp.comm_fraction))
			return 2;
		if (o->tp.comm_fraction <= 0 || o->tp.comm_fraction > 1)
			return bad("--comm-fraction", v,
				   "expected a number in (0, 1]");
		return 0;
	case OPT_LOG:
		a->log = v;
		return 0;
	case OPT_CHECK:
		o->check = true;
		return 0;
	case OPT_NO_COMPACT:
		o->loose = true;
		return 0;
	case OPT_BACKFILL:
		o->backfill = true;
		return 0;
	case OPT_ESTIMATES:
		for (int e = 0; e < SIM_EST_COUNT; e++) {
			if (strcmp(v, sim_estimates_name(
					      (enum sim_estimates)e)) == 0) {
				o->estimates = (enum sim_estimates)e;
				return 0;
			}
		}
		return bad("--estimates", v, "expected history, exact or none");
	case OPT_ESTIMATE_ERROR:
		if (parse_double("--estimate-error", v, &o->estimate_error))
			return 2;
		if (!(o->estimate_error >= 0) || o->estimate_error > 10)
			return bad("--estimate-error", v,
				   "expected a number from 0 to 10");
		return 0;
	case OPT_PLACEMENT_ALGORITHM:
		a->set_algorithm = true;
		if (cli_parse_placement_algorithm("sim", v, &a->algorithm))
			return 2;
		return 0;
	case OPT_NETWORK:
		if (throughput_parse(v, "--network", &o->tp, &eb) == 0)
			return 0;
		fprintf(stderr, "echelon sim: %s\n", eb.msg);
		cli_usage_hint("sim");
		return 2;
	case OPT_SWEEP:
		if (!a->sweep)
			a->sweep = xcalloc(1, sizeof(*a->sweep));
		if (sim_sweep_parse(a->sweep, v, "--sweep", &eb) == 0)
			return 0;
		fprintf(stderr, "echelon sim: %s\n", eb.msg);
		return 2;
	case 'q':
		s->quiet = true;
		return 0;
	case 'h':
		usage(stdout);
		return 1;
	default:
		BUG_ON(1); /* parse_args() takes the errors */
		return 2;
	}
}

static int parse_args(int argc, char **argv, struct sim_args *a)
{
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, ":f:qh", opts, NULL)) != -1) {
		if (opt == '?' || opt == ':')
			return cli_getopt_error("sim", opt, argv);
		rc = parse_opt(a, opt, optarg);
		if (rc)
			return rc;
	}
	if (optind < argc)
		return cli_usage_error("sim", "unexpected argument \"%s\"",
				       cli_quote(argv[optind]));
	return 0;
}

/* The progress bar of one run: where it goes and when it began. */
struct bar {
	const char *name;
	int width;	/* of the terminal */
	double start_s; /* wall clock at the run's start */
	struct strbuf line;
};

/* The terminal's width: stderr's window, else $COLUMNS, else 80. */
static int term_width(void)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");
	uint64_t n;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (cols && cli_parse_u64(cols, 1, 10000, &n) == 0)
		return (int)n;
	return 80;
}

/*
 * "  tas  [#####.....]  42%  sim 3.2 h  120/312 jobs  ETA 12 s", in at
 * most width - 1 columns (a full line would wrap on some terminals and
 * each update would then start a new line): the bar takes what the text
 * leaves, and goes when under 10 columns; then the ETA, the jobs and the
 * simulated time go, in that order.
 */
static void bar_line(struct bar *b, const struct sim_progress *p, double eta_s)
{
	struct strbuf head, tail[3];
	size_t fixed, keep = 3;
	int room, w = b->width - 1;

	strbuf_init(&head);
	for (int i = 0; i < 3; i++)
		strbuf_init(&tail[i]);
	strbuf_addf(&head, "  %s  ", b->name);
	strbuf_addstr(&tail[0], "  sim ");
	sim_out_duration((double)p->now_us / 1e6, &tail[0]);
	strbuf_addf(&tail[1], "  %zu/%zu jobs", p->finished, p->jobs);
	strbuf_addstr(&tail[2], "  ETA ");
	if (eta_s >= 0)
		sim_out_duration(eta_s, &tail[2]);
	else
		strbuf_addch(&tail[2], '-');
	fixed = head.len + 4; /* "100%" */
	for (size_t i = 0; i < keep; i++)
		fixed += tail[i].len;
	room = w - (int)fixed - 3; /* "[", "] " */
	while (room < 10 && keep > 0 && (int)fixed > w)
		fixed -= tail[--keep].len;
	strbuf_reset(&b->line);
	strbuf_addstr(&b->line, head.buf);
	if (room >= 10) {
		int k = (int)(p->done * room);

		strbuf_addch(&b->line, '[');
		for (int i = 0; i < room; i++)
			strbuf_addch(&b->line, i < k ? '#' : '.');
		strbuf_addstr(&b->line, "] ");
	}
	strbuf_addf(&b->line, "%3d%%", (int)(p->done * 100));
	for (size_t i = 0; i < keep; i++)
		strbuf_addstr(&b->line, tail[i].buf);
	if ((int)b->line.len > w)
		strbuf_truncate(&b->line, w > 0 ? (size_t)w : 0);
	/* spaces over what a longer line before left */
	while ((int)b->line.len < w)
		strbuf_addch(&b->line, ' ');
	strbuf_release(&head);
	for (int i = 0; i < 3; i++)
		strbuf_release(&tail[i]);
}

static void progress(void *ctx, const struct sim_progress *p)
{
	struct bar *b = ctx;
	double spent = cli_now_s() - b->start_s;
	double eta = p->done >= 0.01 ? spent * (1 - p->done) / p->done : -1;

	bar_line(b, p, eta);
	fprintf(stderr, "\r%s", b->line.buf);
	fflush(stderr);
}

static const char *const out_files[] = { "workloads.jsonl",
					 "timeseries.csv",
					 "summary.json",
					 "metrics.prom",
					 "metrics.om",
					 "report.html",
					 NULL };

/* The command line as a shell reads it back: "echelon" and each argument,
 * quoted where it holds more than letters, digits and _./=,:@%+-. */
static void command_line(int argc, char *const *argv, struct strbuf *out)
{
	strbuf_addstr(out, "echelon");
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];

		strbuf_addch(out, ' ');
		if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_./=,:@%+-") == strlen(s)) {
			strbuf_addstr(out, s);
			continue;
		}
		strbuf_addch(out, '\'');
		for (; *s; s++) {
			if (*s == '\'')
				strbuf_addstr(out, "'\\''");
			else
				strbuf_addch(out, *s);
		}
		strbuf_addch(out, '\'');
	}
}

/* Fill the --out folder (prepared by outdir_open()) and put it in place. */
static int write_outputs(struct outdir *od, const struct sim_input *in,
			 const struct sim_result *runs, size_t n,
			 const struct sim_sweep *sweep,
			 const struct sim_args *a)
{
	struct errbuf eb = { 0 };
	struct strbuf sb;
	int rc = 0;

	strbuf_init(&sb);
	for (size_t i = 0; out_files[i] && !rc; i++) {
		strbuf_reset(&sb);
		if (i == 0) {
			sim_out_workloads_jsonl(in, runs, n, &sb);
		} else if (i == 1) {
			sim_out_timeseries_csv(in, runs, n, &sb);
		} else if (i == 2) {
			sim_out_summary_json_sweep(runs, n, sweep, &sb);
		} else if (i == 3) {
			sim_metrics_write(in, runs, n, &sb);
		} else if (i == 4) {
			sim_metrics_write_openmetrics(runs, n, &sb);
		} else {
			struct report_info ri = {
				.version = ECHELON_VERSION,
				.seed = a->o.seed,
				.has_seed = true,
				.sweep = sweep,
			};
			struct strbuf cmd;

			strbuf_init(&cmd);
			command_line(a->argc, a->argv, &cmd);
			ri.command = cmd.buf;
			report_html_info(in, runs, n, &ri, &sb);
			strbuf_release(&cmd);
		}
		rc = outdir_write(od, out_files[i], &sb, &eb);
	}
	if (!rc)
		rc = outdir_commit(od, &eb);
	if (rc) {
		fprintf(stderr, "echelon sim: --out: %s\n", eb.msg);
		outdir_abort(od);
	}
	strbuf_release(&sb);
	return rc ? 1 : 0;
}

/*
 * Check --out and --log before the simulation, which may take long: a
 * folder that cannot be made or a log path that is a folder is an error
 * now. Both are written beside their targets and renamed into place.
 */
static int open_outputs(const struct sim_args *a, struct outdir *od,
			struct outfile *lf)
{
	struct errbuf eb = { 0 };

	if (a->out && outdir_open(od, a->out, out_files, &eb) < 0) {
		fprintf(stderr, "echelon sim: --out: %s\n", eb.msg);
		return 1;
	}
	if (a->log && outfile_open(lf, a->log, &eb) < 0) {
		fprintf(stderr, "echelon sim: --log: %s\n", eb.msg);
		if (a->out)
			outdir_abort(od);
		return 1;
	}
	return 0;
}

/* Run every policy under model tp; the event log of each goes to log
 * (may be NULL). */
static int run_all(struct sim_args *a, const struct sim_input *in,
		   const struct throughput_config *tp, struct sim_result *runs,
		   struct strbuf *log)
{
	bool bar = !a->setup.quiet && isatty(STDERR_FILENO);
	struct bar b = { 0 };
	int rc = 0;

	strbuf_init(&b.line);
	for (size_t i = 0; i < a->npolicies; i++) {
		struct sim_options o = a->o;
		struct errbuf eb = { 0 };

		o.tp = *tp;
		o.policy = a->policies[i];
		o.failures = a->failures.items;
		o.nfailures = a->failures.len;
		o.log = log;
		o.waits = log || a->out;
		o.metrics = a->out != NULL;
		if (log)
			strbuf_addf(log, "# policy %s\n",
				    sim_policy_name(o.policy));
		if (bar) {
			b.name = sim_policy_name(o.policy);
			b.width = term_width();
			b.start_s = cli_now_s();
			o.progress = progress;
			o.progress_ctx = &b;
		}
		if (sim_run(in, &o, &runs[i], &eb) < 0) {
			fprintf(stderr, "echelon sim: %s\n", eb.msg);
			rc = 1;
			break;
		}
		if (bar)
			fputc('\n', stderr);
		if (runs[i].stalled)
			fprintf(stderr, "echelon sim: %s: %s\n",
				sim_policy_name(o.policy),
				runs[i].stop_reason.buf);
	}
	strbuf_release(&b.line);
	return rc;
}

/*
 * The runs whose outputs are written: under the model as given, or with
 * --sweep under its first value; then, with --sweep, the runs at every
 * other value, whose summaries only are kept. Only the first runs log.
 */
static int run_model(struct sim_args *a, const struct sim_input *in,
		     struct sim_result *runs, struct strbuf *log)
{
	struct sim_sweep *sw = a->sweep;
	struct throughput_config base = a->o.tp;
	int rc;

	if (!sw)
		return run_all(a, in, &a->o.tp, runs, log);
	/* every value on this model first, before any run takes time */
	for (size_t v = 0; v < sw->nvalues; v++) {
		struct throughput_config tp = base;
		struct errbuf eb = { 0 };

		if (sim_sweep_apply(sw, v, &tp, &eb) < 0) {
			fprintf(stderr, "echelon sim: --sweep: %s\n", eb.msg);
			return 2;
		}
	}
	for (size_t v = 0; v < sw->nvalues; v++) {
		struct sim_result more[SIM_POLICY_COUNT] = { 0 };
		struct sim_result *r = v ? more : runs;
		struct throughput_config tp = base;
		struct errbuf eb = { 0 };

		BUG_ON(sim_sweep_apply(sw, v, &tp, &eb) < 0);
		rc = run_all(a, in, &tp, r, v ? NULL : log);
		if (!rc)
			sim_sweep_record(sw, v, r, a->npolicies);
		for (size_t i = 0; v && i < a->npolicies; i++)
			sim_result_release(&more[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static void print_sweep(const struct sim_sweep *sw, struct strbuf *sb)
{
	strbuf_reset(sb);
	strbuf_addf(sb,
		    "\nsweep of %s: each figure at each value (the table "
		    "above is at %s=%s):\n\n",
		    sw->key, sw->key, sw->values[0]);
	sim_sweep_table(sw, sb);
	output_write(sb->buf, sb->len);
}

static void print_header(const struct sim_input *in)
{
	printf("%zu jobs on %zu nodes (%lld GPUs); policies side by side:\n\n",
	       in->jobs.len, in->c->nodes.len, (long long)in->total_gpus);
}

static int simulate(struct sim_args *a)
{
	struct sim_result runs[SIM_POLICY_COUNT] = { 0 };
	bool split = false;
	struct sim_input in;
	struct strbuf sb, log;
	struct outdir od;
	struct outfile lf;
	struct cluster c;
	int rc, log_rc = 0;

	for (size_t i = 0; i < a->npolicies; i++)
		split |= a->policies[i] == SIM_POLICY_NO_GANG;
	if (open_outputs(a, &od, &lf))
		return 1;
	cluster_init(&c);
	strbuf_init(&sb);
	strbuf_init(&log);
	rc = sim_setup_load(&c, &in, &a->setup, split);
	if (!rc && a->set_algorithm)
		cli_set_placement_algorithm(&c, a->algorithm);
	if (!rc)
		rc = run_model(a, &in, runs, a->log ? &log : NULL);
	if (!rc) {
		print_header(&in);
		sim_out_table(runs, a->npolicies, &sb);
		output_write(sb.buf, sb.len);
		if (a->sweep)
			print_sweep(a->sweep, &sb);
	}
	/* Each output on its own: a failed log does not drop the results. */
	if (!rc && a->log) {
		struct errbuf eb = { 0 };

		if (outfile_commit(&lf, &log, &eb) < 0) {
			fprintf(stderr, "echelon sim: --log: %s\n", eb.msg);
			log_rc = 1;
		}
	}
	if (!rc && a->out)
		rc = write_outputs(&od, &in, runs, a->npolicies, a->sweep, a);
	rc |= log_rc;
	if (a->log)
		outfile_abort(&lf);
	if (a->out)
		outdir_abort(&od);
	for (size_t i = 0; i < a->npolicies; i++)
		sim_result_release(&runs[i]);
	sim_input_release(&in);
	cluster_release(&c);
	strbuf_release(&sb);
	strbuf_release(&log);
	return rc;
}

int cli_sim(int argc, char **argv)
{
	struct sim_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	sim_options_init(&a.o);
	a.setup.seed = a.o.seed;
	a.setup.net = &a.o.tp;
	a.setup.paths = xcalloc((size_t)argc + 1, sizeof(char *));
	a.setup.traces = xcalloc((size_t)argc + 1, sizeof(char *));
	a.policies[0] = SIM_POLICY_TAS;
	a.npolicies = 1;
	/* before getopt reorders argv */
	a.argc = argc;
	a.argv = xcalloc((size_t)argc + 1, sizeof(char *));
	memcpy(a.argv, argv, (size_t)argc * sizeof(char *));
	rc = parse_args(argc, argv, &a);
	if (rc == 0)
		rc = simulate(&a);
	else if (rc == 1)
		rc = 0; /* --help */
	vec_foreach (&a.failures, f)
		free((char *)f->node);
	vec_release(&a.failures);
	free(a.sweep);
	free(a.argv);
	free(a.setup.paths);
	free(a.setup.traces);
	return rc;
}
