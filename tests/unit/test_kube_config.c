// SPDX-License-Identifier: Apache-2.0
/*
 * Kubeconfig and in-cluster configuration: the context chosen (current
 * or asked for), inline base64 data and files relative to the
 * kubeconfig, tokens and token files, and every refusal with its file,
 * line, column and field. Also the kubeconfig `echelon serve
 * --write-kubeconfig` writes, loaded back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/alloc.h"
#include "kube/kube_config.h"
#include "serve/serve_kubeconfig.h"

static char dir[] = "/tmp/echelon-kcfg-XXXXXX";

static void put(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

static void drop(const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);

	unlink(p);
	free(p);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	put("ca.pem", "-----BEGIN CERTIFICATE-----\nCA FILE\n");
	put("c.pem", "CERT FILE\n");
	put("k.pem", "KEY FILE\n");
	put("tok", "file-token\n");
	return 0;
}

static int teardown(void **state)
{
	static const char *const names[] = {
		"ca.pem",  "c.pem",    "k.pem",	    "tok",	   "config",
		"written", "sa/token", "sa/ca.crt", "sa/namespace"
	};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		drop(names[i]);
	drop("sa");
	rmdir(dir);
	return 0;
}

/* Two clusters, two users, two contexts; "b" is current. */
#define BASE                                                                   \
	"apiVersion: v1\n"                                                     \
	"kind: Config\n"                                                       \
	"clusters:\n"                                                          \
	"- name: one\n"                                                        \
	"  cluster:\n"                                                         \
	"    server: https://10.0.0.1:6443/\n"                                 \
	"    certificate-authority: ca.pem\n"                                  \
	"- name: two\n"                                                        \
	"  cluster:\n"                                                         \
	"    server: http://127.0.0.1:8080\n"                                  \
	"    insecure-skip-tls-verify: true\n"                                 \
	"    tls-server-name: api.example\n"                                   \
	"    certificate-authority-data: Q0EgREFUQQ==\n"                       \
	"users:\n"                                                             \
	"- name: alice\n"                                                      \
	"  user:\n"                                                            \
	"    client-certificate-data: Q0VSVCBEQVRB\n"                          \
	"    client-key: k.pem\n"                                              \
	"- name: bob\n"                                                        \
	"  user:\n"                                                            \
	"    tokenFile: tok\n"                                                 \
	"contexts:\n"                                                          \
	"- name: a\n"                                                          \
	"  context: {cluster: one, user: alice}\n"                             \
	"- name: b\n"                                                          \
	"  context: {cluster: two, user: bob, namespace: team-a}\n"

struct good {
	const char *yaml, *context;
	const char *server, *ca, *cert, *key, *token, *token_file, *sni, *ns;
	bool insecure;
};

static void check_str(const char *got, const char *want, const char *what)
{
	if (!want) {
		if (got)
			fail_msg("%s: want NULL, got \"%s\"", what, got);
		return;
	}
	if (!got || strcmp(got, want) != 0)
		fail_msg("%s: want \"%s\", got \"%s\"", what, want,
			 got ? got : "(null)");
}

static void test_good(void **state)
{
	static const struct good cases[] = {
		{ BASE "current-context: b\n", NULL, "http://127.0.0.1:8080",
		  "CA DATA", NULL, NULL, "file-token", "/tok", "api.example",
		  "team-a", true },
		{ BASE "current-context: b\n", "a", "https://10.0.0.1:6443",
		  "-----BEGIN CERTIFICATE-----\nCA FILE\n", "CERT DATA",
		  "KEY FILE\n", NULL, NULL, NULL, "default", false },
		/* a token wins over a token file; no user: no credentials */
		{ "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
		  "users: [{name: u, user: {token: abc, tokenFile: nope}}]\n"
		  "contexts: [{name: x, context: {cluster: c, user: u}},\n"
		  "  {name: y, context: {cluster: c}}]\n"
		  "current-context: x\n",
		  NULL, "https://h", NULL, NULL, NULL, "abc", NULL, NULL,
		  "default", false },
		{ "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
		  "contexts: [{name: y, context: {cluster: c}}]\n",
		  "y", "https://h", NULL, NULL, NULL, NULL, NULL, NULL,
		  "default", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const struct good *c = &cases[i];
		struct kube_target t = { 0 };
		struct errbuf err = { 0 };
		char *path = xasprintf("%s/config", dir);
		char *tf = c->token_file ? xasprintf("%s%s", dir, c->token_file)
					 : NULL;

		put("config", c->yaml);
		if (kube_config_load(path, c->context, &t, &err) != 0)
			fail_msg("case %zu: %s", i, err.msg);
		check_str(t.server, c->server, "server");
		check_str(t.ca_pem, c->ca, "ca");
		check_str(t.cert_pem, c->cert, "cert");
		check_str(t.key_pem, c->key, "key");
		check_str(t.token, c->token, "token");
		check_str(t.token_file, tf, "token_file");
		check_str(t.tls_server_name, c->sni, "tls-server-name");
		check_str(t.ns, c->ns, "namespace");
		if (c->context)
			check_str(t.context, c->context, "context");
		assert_int_equal(t.insecure, c->insecure);
		kube_target_free(&t);
		free(tf);
		free(path);
	}
}

struct bad {
	const char *yaml, *context;
	const char *want; /* after "<dir>/config" */
};

static void test_refused(void **state)
{
	static const struct bad cases[] = {
		{ BASE, NULL,
		  ":1:1: current-context: missing (or give a context)" },
		{ BASE "current-context: zz\n", NULL,
		  ":27:18: contexts: no entry named \"zz\"" },
		{ BASE, "zz", ": contexts: no entry named \"zz\"" },
		{ "clusters: [{name: c, cluster: {server: 'ftp://h'}}]\n"
		  "contexts: [{name: x, context: {cluster: c}}]\n",
		  "x",
		  ":1:41: clusters[0].cluster.server: must be an http:// or "
		  "https:// URL" },
		{ "clusters: [{name: c, cluster: {insecure-skip-tls-verify: "
		  "yes}}]\n"
		  "contexts: [{name: x, context: {cluster: c}}]\n",
		  "x", ":1:31: clusters[0].cluster.server: missing" },
		{ "clusters: [{name: c, cluster: {server: 'https://h',\n"
		  "  insecure-skip-tls-verify: maybe}}]\n"
		  "contexts: [{name: x, context: {cluster: c}}]\n",
		  "x",
		  ":2:29: clusters[0].cluster.insecure-skip-tls-verify: must "
		  "be true or false" },
		{ "clusters: [{name: c, cluster: {server: 'https://h',\n"
		  "  certificate-authority-data: 'not*base64'}}]\n"
		  "contexts: [{name: x, context: {cluster: c}}]\n",
		  "x",
		  ":2:32: clusters[0].cluster.certificate-authority-data: not "
		  "base64 of PEM text" },
		{ "clusters: [{name: c, cluster: {server: 'https://h',\n"
		  "  certificate-authority: missing.pem}}]\n"
		  "contexts: [{name: x, context: {cluster: c}}]\n",
		  "x", ":2:26: clusters[0].cluster.certificate-authority: " },
		{ "clusters: [{name: c, cluster: {server: 'https://h',\n"
		  "  certificate-authority: /dev/null}}]\n"
		  "contexts: [{name: x, context: {cluster: c}}]\n",
		  "x",
		  ":2:26: clusters[0].cluster.certificate-authority: "
		  "/dev/null: "
		  "not a regular file" },
		{ "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
		  "users:\n"
		  "- name: u\n"
		  "  user:\n"
		  "    exec: {command: aws}\n"
		  "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
		  "x",
		  ":5:11: users[0].user.exec: not supported: use a token or a "
		  "client certificate" },
		{ "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
		  "users: [{name: u, user: {auth-provider: {name: gcp}}}]\n"
		  "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
		  "x",
		  ":2:41: users[0].user.auth-provider: not supported: use a "
		  "token or a client certificate" },
		{ "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
		  "users: [{name: u, user: {client-key: k.pem}}]\n"
		  "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
		  "x",
		  ":2:25: users[0].user: client-certificate and client-key go "
		  "together" },
		{ "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
		  "contexts: [{name: x, context: {cluster: c, user: "
		  "nobody}}]\n",
		  "x", ":2:50: users: no entry named \"nobody\"" },
		{ "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
		  "contexts: [{name: x, context: {cluster: d}}]\n",
		  "x", ":2:41: clusters: no entry named \"d\"" },
		{ "clusters: [{name: c}]\n"
		  "contexts: [{name: x, context: {cluster: c}}]\n",
		  "x", ":1:12: clusters[0]: no cluster" },
		{ "contexts: {name: x}\n", "x",
		  ":1:11: contexts: must be a list" },
		{ "contexts: [{name: x, context: [1]}]\n", "x",
		  ":1:31: contexts[0].context: must be a mapping" },
		{ "contexts: [{name: x, context: {cluster: [c]}}]\n", "x",
		  ":1:41: contexts[0].context.cluster: must be a string" },
		{ "- a list\n", NULL, ":1:1: (top): must be a mapping" },
		{ "a: [\n", NULL, ":2:1: invalid YAML" },
		/* libfyaml would loop forever on this one (found by fuzzing) */
		{ "a: 1\n%\xb8: x\n", NULL, ":2:2: invalid YAML: not UTF-8" },
		{ "", NULL, ": empty" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const struct bad *c = &cases[i];
		struct kube_target t = { 0 };
		struct errbuf err = { 0 };
		char *path = xasprintf("%s/config", dir);
		char *want = xasprintf("%s%s", path, c->want);

		put("config", c->yaml);
		assert_int_equal(kube_config_load(path, c->context, &t, &err),
				 -EINVAL);
		if (strncmp(err.msg, want, strlen(want)) != 0)
			fail_msg("case %zu:\n want %s\n got  %s", i, want,
				 err.msg);
		assert_null(t.server);
		free(want);
		free(path);
	}
}

/* A missing file is its errno; $KUBECONFIG's first file is the default. */
static void test_default_path(void **state)
{
	struct kube_target t = { 0 };
	struct errbuf err;
	char *env = xasprintf("%s/config:/nonexistent", dir);
	char *missing = xasprintf("%s/none", dir);

	(void)state;
	put("config", BASE "current-context: a\n");
	setenv("KUBECONFIG", env, 1);
	assert_int_equal(kube_config_load(NULL, NULL, &t, &err), 0);
	assert_string_equal(t.server, "https://10.0.0.1:6443");
	assert_string_equal(t.context, "a");
	kube_target_free(&t);
	assert_int_equal(kube_config_load(missing, NULL, &t, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "none: No such file"));
	unsetenv("KUBECONFIG");
	free(missing);
	free(env);
}

static void test_in_cluster(void **state)
{
	struct kube_target t = { 0 };
	struct errbuf err;
	char *sa = xasprintf("%s/sa", dir);
	char *tf = xasprintf("%s/token", sa);

	(void)state;
	unsetenv("KUBERNETES_SERVICE_HOST");
	assert_int_equal(kube_config_in_cluster(sa, &t, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "KUBERNETES_SERVICE_HOST"));
	setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	assert_int_equal(mkdir(sa, 0700), 0);
	assert_int_equal(kube_config_in_cluster(sa, &t, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "sa/token: No such file"));
	put("sa/token", "sa-token\n");
	put("sa/ca.crt", "SA CA\n");
	assert_int_equal(kube_config_in_cluster(sa, &t, &err), 0);
	assert_string_equal(t.server, "https://[fd00::1]:443");
	assert_string_equal(t.token, "sa-token");
	assert_string_equal(t.token_file, tf);
	assert_string_equal(t.ca_pem, "SA CA\n");
	assert_string_equal(t.ns, "default");
	assert_string_equal(t.context, "in-cluster");
	kube_target_free(&t);
	put("sa/namespace", "team-b\n");
	setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
	assert_int_equal(kube_config_in_cluster(sa, &t, &err), 0);
	assert_string_equal(t.server, "https://10.96.0.1:443");
	assert_string_equal(t.ns, "team-b");
	kube_target_free(&t);
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	free(tf);
	free(sa);
}

/* What `echelon serve --write-kubeconfig` writes loads as written. */
static void test_serve_writes(void **state)
{
	static const char pem[] = "-----BEGIN CERTIFICATE-----\nMIIB\n"
				  "-----END CERTIFICATE-----\n";
	struct kube_target t = { 0 };
	struct errbuf err;
	char *path = xasprintf("%s/written", dir);

	(void)state;
	assert_int_equal(serve_kubeconfig_write(path, "https://127.0.0.1:6443",
						pem, "0123abcd", &err),
			 0);
	assert_int_equal(kube_config_load(path, NULL, &t, &err), 0);
	assert_string_equal(t.server, "https://127.0.0.1:6443");
	assert_string_equal(t.ca_pem, pem);
	assert_string_equal(t.token, "0123abcd");
	assert_false(t.insecure);
	assert_string_equal(t.context, "echelon");
	kube_target_free(&t);
	assert_int_equal(serve_kubeconfig_write(path, "http://127.0.0.1:8080",
						NULL, NULL, &err),
			 0);
	assert_int_equal(kube_config_load(path, "echelon", &t, &err), 0);
	assert_string_equal(t.server, "http://127.0.0.1:8080");
	assert_null(t.ca_pem);
	assert_null(t.token);
	assert_true(t.insecure);
	kube_target_free(&t);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_in_cluster),
		cmocka_unit_test(test_serve_writes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
