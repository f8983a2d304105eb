// SPDX-License-Identifier: Apache-2.0
/*
 * The -f objects of a remote cluster's replica (serve_apply_local): kinds
 * the cluster serves are refused with their file:line:col, as are
 * objects in namespaces the cluster lacks, and one refusal applies
 * nothing; the rest is applied as serve_apply applies it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "api/api.h"
#include "api/api_kind.h"
#include "api/api_store.h"
#include "base/alloc.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "serve/serve_apply.h"

#define NOW_US 1700000000000000LL

/* The stand-in cluster serves the core and batch groups, not Kueue's. */
static bool core_served(void *ctx, const struct api_kind *k)
{
	(void)ctx;
	return !*k->group || strcmp(k->group, "batch") == 0;
}

static const char queues[] = "apiVersion: kueue.x-k8s.io/v1beta2\n"
			     "kind: ResourceFlavor\n"
			     "metadata:\n"
			     "  name: default-flavor\n"
			     "---\n"
			     "apiVersion: kueue.x-k8s.io/v1beta2\n"
			     "kind: ClusterQueue\n"
			     "metadata:\n"
			     "  name: cq\n"
			     "spec:\n"
			     "  namespaceSelector: {}\n"
			     "  resourceGroups:\n"
			     "  - coveredResources: [nvidia.com/gpu]\n"
			     "    flavors:\n"
			     "    - name: default-flavor\n"
			     "      resources:\n"
			     "      - name: nvidia.com/gpu\n"
			     "        nominalQuota: 8\n"
			     "---\n"
			     "apiVersion: kueue.x-k8s.io/v1beta2\n"
			     "kind: LocalQueue\n"
			     "metadata:\n"
			     "  name: lq\n"
			     "  namespace: %s\n"
			     "spec:\n"
			     "  clusterQueue: cq\n";

static const char node[] = "---\n"
			   "apiVersion: v1\n"
			   "kind: Node\n"
			   "metadata:\n"
			   "  name: n1\n";

struct apply_case {
	const char *ns;	    /* the LocalQueue's */
	bool with_node;	    /* a served kind in the same file */
	int rc;		    /* serve_apply_local's */
	const char *errors; /* substrings of the diagnostics, '|' apart */
	size_t queues;	    /* ClusterQueues in the replica afterwards */
};

static void put_namespace(struct api_store *s, const char *name)
{
	json_t *ns = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind",
			       "Namespace", "metadata", "name", name);
	const struct api_obj *o;

	assert_int_equal(api_store_create(s, api_kind_at(API_KIND_NAMESPACE),
					  ns, NOW_US, &o),
			 0);
}

static void run_case(const struct apply_case *c, const char *dir)
{
	struct api_store *s = api_store_new(NULL);
	struct api *a = api_new(s, NULL);
	struct serve_apply_stats st = { 0 };
	char *path = xasprintf("%s/local.yaml", dir);
	const char *paths[] = { path };
	const struct api_kind *cq =
		api_kind_of("kueue.x-k8s.io/v1beta2", "ClusterQueue");
	struct strbuf sb;
	struct diag d;
	FILE *f;
	int rc;

	put_namespace(s, "team-a");
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, queues, c->ns);
	if (c->with_node)
		fputs(node, f);
	fclose(f);
	diag_init(&d);
	rc = serve_apply_local(a, s, paths, 1, core_served, NULL, NOW_US, &st,
			       &d);
	strbuf_init(&sb);
	diag_format(&d, &sb);
	assert_int_equal(rc, c->rc);
	if (c->errors) {
		char *want = xstrdup(c->errors);

		for (char *w = want, *bar; w; w = bar ? bar + 1 : NULL) {
			bar = strchr(w, '|');
			if (bar)
				*bar = '\0';
			if (!strstr(sb.buf, w))
				fail_msg("no \"%s\" in:\n%s", w, sb.buf);
		}
		free(want);
	} else if (sb.len) {
		fail_msg("unexpected diagnostics:\n%s", sb.buf);
	}
	assert_int_equal(api_store_count(s, cq), c->queues);
	/* No Namespace is ever made here: they are the cluster's. */
	assert_int_equal(api_store_count(s, api_kind_at(API_KIND_NAMESPACE)),
			 1);
	if (!c->rc)
		assert_int_equal(st.created, 3);
	strbuf_release(&sb);
	diag_release(&d);
	unlink(path);
	free(path);
	api_free(a);
	api_store_free(s);
}

static void test_local(void **state)
{
	static const struct apply_case table[] = {
		{ "team-a", false, 0, NULL, 1 },
		{ "team-b", false, -EINVAL,
		  "local.yaml:20:1: LocalQueue team-b/lq: namespace "
		  "\"team-b\" is not in the cluster",
		  0 },
		{ "team-a", true, -EINVAL,
		  "local.yaml:28:1: Node n1: the cluster serves nodes: apply "
		  "it to the cluster",
		  0 },
		{ "team-b", true, -EINVAL,
		  "namespace \"team-b\"|the cluster serves nodes", 0 },
	};
	char dir[] = "/tmp/echelon-apply-test.XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		run_case(&table[i], dir);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_local),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
