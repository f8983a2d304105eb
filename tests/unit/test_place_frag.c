// SPDX-License-Identifier: Apache-2.0
/*
 * The FragmentationAware placement algorithm: hand-made topologies where
 * it chooses differently from Kueue's profiles (and where it agrees), a
 * differential test of its choice against a brute force over every domain
 * that fits, and determinism (the same cluster listed in another order
 * gives the same nodes).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/rng.h"
#include "test_place_fixture.h"

#include "base/banned.h"

#define LEVELS3 "block,rack,kubernetes.io/hostname"
#define LEVELS2 "rack,kubernetes.io/hostname"
#define GPUS	8 /* per node */

/* Nodes "path=used" (GPUs in use of GPUS), separated by spaces. */
static void add_nodes(struct fx *f, const char *spec)
{
	char buf[1024], path[128];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		struct node *n;

		assert_non_null(eq);
		snprintf(path, sizeof(path), "%.*s", (int)(eq - tok), tok);
		n = fx_node(f, path, 64, GPUS, 110);
		n->usage.v[f->gpu] = strtol(eq + 1, NULL, 10);
	}
}

enum { ALG_MIXED, ALG_BEST_FIT, ALG_LFC, ALG_FRAG, ALG_COUNT };

static const enum placement_algorithm algs[ALG_COUNT] = {
	PLACEMENT_MIXED, PLACEMENT_BEST_FIT, PLACEMENT_LEAST_FREE_CAPACITY,
	PLACEMENT_FRAGMENTATION_AWARE
};

struct fcase {
	const char *name;
	const char *levels;
	const char *nodes;
	int count, gpu;
	enum topology_mode mode;
	const char *level;
	const char *want[ALG_COUNT]; /* Mixed, BestFit, LFC, Frag */
};

static const struct fcase cases[] = {
	/* every host that fits is idle: BestFit and LFC take the first,
	 * in the rack with the most idle hosts; Frag keeps that rack */
	{ "a small job leaves the emptiest rack whole",
	  LEVELS2,
	  "r1/h1=0 r1/h2=0 r1/h3=0 r2/h4=0 r2/h5=8",
	  1,
	  8,
	  TOPOLOGY_NONE,
	  NULL,
	  { "h1:1", "h1:1", "h1:1", "h4:1" } },
	/* three racks of 4 idle hosts hold the gang equally tightly; the
	 * first is in the block with the most idle hosts */
	{ "a rack gang leaves the largest block whole",
	  LEVELS3,
	  "b1/r1/h01=0 b1/r1/h02=0 b1/r1/h03=0 b1/r1/h04=0 "
	  "b1/r2/h05=0 b1/r2/h06=0 b1/r2/h07=0 b1/r2/h08=0 "
	  "b2/r3/h09=0 b2/r3/h10=0 b2/r3/h11=0 b2/r3/h12=0 "
	  "b2/r4/h13=0 b2/r4/h14=0 b2/r4/h15=8 b2/r4/h16=8",
	  3,
	  8,
	  TOPOLOGY_REQUIRED,
	  "rack",
	  { "h01:1 h02:1 h03:1", "h01:1 h02:1 h03:1", "h01:1 h02:1 h03:1",
	    "h09:1 h10:1 h11:1" } },
	/* the tightest rack is also the one that keeps the largest */
	{ "the tightest rack when it also keeps the largest",
	  LEVELS2,
	  "r1/h1=0 r1/h2=0 r1/h3=0 r2/h4=0 r2/h5=0 r2/h6=0 r2/h7=0 "
	  "r2/h8=0",
	  3,
	  8,
	  TOPOLOGY_REQUIRED,
	  "rack",
	  { "h1:1 h2:1 h3:1", "h1:1 h2:1 h3:1", "h1:1 h2:1 h3:1",
	    "h1:1 h2:1 h3:1" } },
	/* a busy host with room takes no idle host: all agree */
	{ "a busy host before an idle one",
	  LEVELS2,
	  "r1/h1=0 r1/h2=6 r2/h3=0",
	  1,
	  2,
	  TOPOLOGY_NONE,
	  NULL,
	  { "h2:1", "h2:1", "h2:1", "h2:1" } },
	/* two pods of 4 GPUs on one host: the idle host of the rack that
	 * has fewer idle hosts */
	{ "two pods on one host, outside the emptiest rack",
	  LEVELS2,
	  "r1/h1=4 r1/h2=0 r1/h4=0 r2/h3=0",
	  2,
	  4,
	  TOPOLOGY_UNCONSTRAINED,
	  NULL,
	  { "h2:2", "h2:2", "h2:2", "h3:2" } },
	/* unconstrained over several hosts: LFC starts from the least
	 * free, BestFit from the most (then the tightest last) */
	{ "unconstrained over several hosts",
	  LEVELS2,
	  "r1/h1=6 r1/h2=4 r2/h3=0 r2/h4=0",
	  5,
	  2,
	  TOPOLOGY_UNCONSTRAINED,
	  NULL,
	  { "h1:1 h2:2 h3:2", "h1:1 h3:4", "h1:1 h2:2 h3:2", "h1:1 h3:4" } },
};

static void run_case(const struct fcase *c, int alg, bool exhaustive,
		     struct strbuf *out)
{
	struct fx f;
	struct topo *t;
	struct podset ps;
	struct place_request req;
	struct place_result res;
	struct placement_config cfg = { algs[alg], false, false };

	fx_init(&f, c->levels);
	add_nodes(&f, c->nodes);
	t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
	fx_podset(&f, &ps, c->count, 0, c->gpu, c->mode, c->level);
	place_request_init(&req, &ps);
	req.config = &cfg;
	req.exhaustive = exhaustive;
	place_result_init(&res);
	place_podset(t, &req, &res);
	fx_format(t, &res, out);
	place_result_release(&res);
	podset_release(&ps);
	topo_free(t);
	fx_release(&f);
}

static void test_cases(void **state)
{
	struct strbuf got;

	(void)state;
	strbuf_init(&got);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		for (int a = 0; a < ALG_COUNT; a++) {
			for (int ex = 0; ex < 2; ex++) {
				strbuf_reset(&got);
				run_case(&cases[i], a, ex, &got);
				if (strcmp(got.buf, cases[i].want[a]) != 0)
					fail_msg("%s, %s%s:\n  got  %s\n  "
						 "want %s",
						 cases[i].name,
						 placement_algorithm_name(
							 algs[a]),
						 ex ? " (exhaustive)" : "",
						 got.buf, cases[i].want[a]);
			}
		}
	}
	strbuf_release(&got);
}

/* ---- Differential: the choice against every domain that fits --------- */

#define ROUNDS 800

/*
 * A cluster of blocks, racks and hosts of GPUS GPUs, some idle, some
 * full, some partly used; listed in reverse when rev (the same draws).
 */
static void make_cluster(struct fx *f, struct rng *g, bool rev)
{
	int nb = 1 + (int)rng_below(g, 3), nr = 1 + (int)rng_below(g, 4);
	int nh = 1 + (int)rng_below(g, 6), k = 0, n = nb * nr * nh;
	char(*paths)[64] = xcalloc((size_t)n, sizeof(*paths));
	int64_t *used = xcalloc((size_t)n, sizeof(*used));

	for (int b = 0; b < nb; b++) {
		for (int r = 0; r < nr; r++) {
			for (int h = 0; h < nh; h++, k++) {
				uint64_t u = rng_below(g, 10);

				snprintf(paths[k], sizeof(paths[k]),
					 "b%d/r%d-%d/h%03d", b, b, r, k);
				used[k] =
					u < 4	? 0
					: u < 7 ? GPUS
						: 1 + (int64_t)rng_below(g, 7);
			}
		}
	}
	for (int i = 0; i < n; i++) {
		int j = rev ? n - 1 - i : i;

		fx_node(f, paths[j], 64, GPUS, 110)->usage.v[f->gpu] = used[j];
	}
	free(paths);
	free(used);
}

/* The value of node n at level l. */
static const char *value(const struct fx *f, const struct node *n, int l)
{
	return labels_get(&n->labels, f->topology.levels[l]);
}

/* Whether node n lies in the domain of node m at level l. */
static bool same_domain(const struct fx *f, const struct node *n,
			const struct node *m, int l)
{
	for (int k = 0; k <= l; k++) {
		if (strcmp(value(f, n, k), value(f, m, k)) != 0)
			return false;
	}
	return true;
}

/* dom[l * n + i]: the first node in node i's domain at level l. */
static uint32_t *domains(const struct fx *f)
{
	size_t n = f->nnodes;
	uint32_t *dom = xcalloc(3 * n, sizeof(*dom));
	const char **val = xcalloc(3 * n, sizeof(*val));

	for (size_t i = 0; i < n; i++) {
		for (int l = 0; l < 3; l++)
			val[(size_t)l * n + i] = value(f, &f->nodes[i], l);
	}
	for (int l = 0; l < 3; l++) {
		for (size_t i = 0; i < n; i++) {
			size_t j = 0;

			/* the same domain: the same value here and above */
			while (strcmp(val[(size_t)l * n + j],
				      val[(size_t)l * n + i]) != 0 ||
			       (l > 0 && dom[(size_t)(l - 1) * n + j] !=
						 dom[(size_t)(l - 1) * n + i]))
				j++;
			dom[(size_t)l * n + i] = (uint32_t)j;
		}
	}
	free(val);
	return dom;
}

/*
 * The key FragmentationAware maximises when the nodes marked in take[]
 * (in one domain at level cl) get pods: for each level above the hosts up
 * to cl, the most idle nodes of any domain; then minus the idle nodes
 * used; recomputed from the nodes.
 */
static void brute_key(const struct fx *f, const uint32_t *dom, const bool *take,
		      int cl, int64_t *key)
{
	size_t n = f->nnodes;
	int nl = cl < 2 ? cl + 1 : 2, used = 0;
	int64_t *idle = xcalloc(n, sizeof(*idle));

	memset(key, 0, 4 * sizeof(*key));
	for (int l = 0; l < nl; l++) {
		memset(idle, 0, n * sizeof(*idle));
		for (size_t j = 0; j < n; j++) {
			if (f->nodes[j].usage.v[f->gpu] == 0 && !take[j])
				idle[dom[(size_t)l * n + j]]++;
		}
		for (size_t j = 0; j < n; j++)
			key[l] = idle[j] > key[l] ? idle[j] : key[l];
	}
	for (size_t j = 0; j < n; j++)
		used += take[j] && f->nodes[j].usage.v[f->gpu] == 0;
	key[nl] = -used;
	free(idle);
}

static int key_cmp(const int64_t *a, const int64_t *b, int n)
{
	for (int i = 0; i < n; i++) {
		if (a[i] != b[i])
			return a[i] > b[i] ? 1 : -1;
	}
	return 0;
}

/*
 * For a gang of `count` whole-node pods at level cl (rack 1, block 0), or
 * one pod of gpu GPUs on a host (cl 2): every domain that holds it, its
 * key, and the best. The chosen domain is the one of the result's first
 * node; its key must be the best.
 */
static void check_round(struct rng *g)
{
	struct fx f;
	struct topo *t;
	struct podset ps;
	struct place_request req;
	struct place_result res;
	struct placement_config cfg = { PLACEMENT_FRAGMENTATION_AWARE, false,
					false };
	int cl = (int)rng_below(g, 3), count = 1, gpu = GPUS;
	int64_t best[4], got[4], key[4];
	bool *take, any = false;
	uint32_t *dom;
	size_t chosen;

	fx_init(&f, LEVELS3);
	make_cluster(&f, g, false);
	t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
	take = xcalloc(f.nnodes, sizeof(*take));
	dom = domains(&f);
	if (cl == 2)
		gpu = 1 + (int)rng_below(g, GPUS);
	else
		count = 1 + (int)rng_below(g, 6);
	fx_podset(&f, &ps, count, 0, gpu,
		  cl == 2 ? TOPOLOGY_NONE : TOPOLOGY_REQUIRED,
		  cl == 2 ? NULL : f.topology.levels[cl]);
	place_request_init(&req, &ps);
	req.config = &cfg;
	place_result_init(&res);
	place_podset(t, &req, &res);
	/* every domain at cl that holds the request: brute force */
	for (size_t i = 0; i < f.nnodes; i++) {
		int fit = 0;

		if (cl == 2) {
			fit = GPUS - f.nodes[i].usage.v[f.gpu] >= gpu;
		} else {
			for (size_t j = 0; j < f.nnodes; j++)
				fit += dom[cl * f.nnodes + j] ==
					       dom[cl * f.nnodes + i] &&
				       f.nodes[j].usage.v[f.gpu] == 0;
			fit = fit >= count;
		}
		if (!fit)
			continue;
		/* whole-node pods take idle nodes; a host takes itself */
		memset(take, 0, f.nnodes * sizeof(*take));
		for (size_t j = 0, k = 0; j < f.nnodes && k < (size_t)count;
		     j++) {
			if (cl == 2 ? j == i
				    : dom[cl * f.nnodes + j] ==
						      dom[cl * f.nnodes + i] &&
					      f.nodes[j].usage.v[f.gpu] == 0) {
				take[j] = true;
				k++;
			}
		}
		brute_key(&f, dom, take, cl, key);
		if (!any || key_cmp(key, best, 4) > 0)
			memcpy(best, key, sizeof(best));
		any = true;
	}
	if (res.fit != any)
		fail_msg(
			"level %d count %d gpu %d: fit %d, brute force %d (%s)",
			cl, count, gpu, res.fit, any, res.reason.buf);
	if (res.fit) {
		const struct node *n0 = t->node_src[res.worker_nodes.items[0]];

		memset(take, 0, f.nnodes * sizeof(*take));
		for (size_t k = 0; k < res.worker_nodes.len; k++) {
			const struct node *n =
				t->node_src[res.worker_nodes.items[k]];

			take[n - f.nodes] = true;
			assert_true(same_domain(&f, n, n0, cl));
		}
		chosen = (size_t)(n0 - f.nodes);
		brute_key(&f, dom, take, cl, got);
		if (key_cmp(got, best, 4) != 0)
			fail_msg("level %d count %d gpu %d: chose %s, key "
				 "%lld/%lld/%lld, best %lld/%lld/%lld",
				 cl, count, gpu, f.nodes[chosen].name,
				 (long long)got[0], (long long)got[1],
				 (long long)got[2], (long long)best[0],
				 (long long)best[1], (long long)best[2]);
	}
	free(take);
	free(dom);
	place_result_release(&res);
	podset_release(&ps);
	topo_free(t);
	fx_release(&f);
}

static void test_brute_force(void **state)
{
	struct rng g;

	(void)state;
	rng_seed(&g, 20261201);
	for (int i = 0; i < ROUNDS; i++)
		check_round(&g);
}

/* ---- Determinism ------------------------------------------------------- */

/*
 * The same cluster listed in reverse gets the same nodes, and so does a
 * placement made again on a result that kept its counts.
 */
static void test_determinism(void **state)
{
	struct rng g;

	(void)state;
	rng_seed(&g, 11);
	for (int round = 0; round < 100; round++) {
		struct fx f, rev;
		struct topo *t, *tr;
		struct podset ps, psr;
		struct place_request req, reqr;
		struct place_result a, b;
		struct placement_config cfg = { PLACEMENT_FRAGMENTATION_AWARE,
						false, false };
		struct strbuf sa, sb;
		int count = 1 + (int)rng_below(&g, 4);
		int gpu = 1 + (int)rng_below(&g, GPUS);
		struct rng g2 = g;

		fx_init(&f, LEVELS3);
		make_cluster(&f, &g, false);
		fx_init(&rev, LEVELS3);
		make_cluster(&rev, &g2, true);
		t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
		tr = topo_new(&rev.topology, NULL, rev.nodes, rev.nnodes,
			      &rev.reg);
		fx_podset(&f, &ps, count, 0, gpu, TOPOLOGY_PREFERRED, "rack");
		fx_podset(&rev, &psr, count, 0, gpu, TOPOLOGY_PREFERRED,
			  "rack");
		place_request_init(&req, &ps);
		place_request_init(&reqr, &psr);
		req.config = reqr.config = &cfg;
		place_result_init(&a);
		place_result_init(&b);
		strbuf_init(&sa);
		strbuf_init(&sb);
		place_podset(t, &req, &a);
		place_podset(tr, &reqr, &b);
		fx_format(t, &a, &sa);
		fx_format(tr, &b, &sb);
		assert_string_equal(sa.buf, sb.buf);
		strbuf_reset(&sb);
		place_podset(t, &req, &a);
		fx_format(t, &a, &sb);
		assert_string_equal(sa.buf, sb.buf);
		strbuf_release(&sa);
		strbuf_release(&sb);
		place_result_release(&a);
		place_result_release(&b);
		podset_release(&ps);
		podset_release(&psr);
		topo_free(t);
		topo_free(tr);
		fx_release(&f);
		fx_release(&rev);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_brute_force),
		cmocka_unit_test(test_determinism),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
