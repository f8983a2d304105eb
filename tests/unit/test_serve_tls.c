// SPDX-License-Identifier: Apache-2.0
/*
 * serve's secrets and kubeconfig: made once with mode 0600 and read back
 * unchanged, a certificate made again for a new listen address, a
 * loosely copied secret made private, and the kubeconfig's contents.
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
#include "serve/serve_addr.h"
#include "serve/serve_kubeconfig.h"
#include "serve/serve_tls.h"

#define NOW_US (1796126400LL * 1000000) /* 2026-12-01 */

static char *tmpdir(void)
{
	char *d = xstrdup("/tmp/echelon-tls-XXXXXX");

	assert_non_null(mkdtemp(d));
	return d;
}

static void rmdir_all(const char *d)
{
	static const char *const names[] = { "token", "tls.crt", "tls.key",
					     "kubeconfig" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *p = xasprintf("%s/%s", d, names[i]);

		unlink(p);
		free(p);
	}
	rmdir(d);
}

static unsigned mode_of(const char *d, const char *name)
{
	char *p = xasprintf("%s/%s", d, name);
	struct stat st;

	assert_int_equal(stat(p, &st), 0);
	free(p);
	return st.st_mode & 0777;
}

static void test_made_once(void **state)
{
	struct serve_secrets a = { 0 }, b = { 0 };
	struct errbuf err;
	char *d = tmpdir();

	(void)state;
	assert_int_equal(serve_tls_load(d, "10.1.2.3", NOW_US, &a, &err), 0);
	assert_int_equal(strlen(a.token), 64);
	assert_non_null(strstr(a.cert_pem, "BEGIN CERTIFICATE"));
	assert_non_null(strstr(a.key_pem, "PRIVATE KEY"));
	assert_int_equal(mode_of(d, "token"), 0600);
	assert_int_equal(mode_of(d, "tls.crt"), 0600);
	assert_int_equal(mode_of(d, "tls.key"), 0600);
	/* A restart reads the same secrets. */
	assert_int_equal(serve_tls_load(d, "10.1.2.3", NOW_US, &b, &err), 0);
	assert_string_equal(a.token, b.token);
	assert_string_equal(a.cert_pem, b.cert_pem);
	assert_string_equal(a.key_pem, b.key_pem);
	serve_secrets_release(&b);
	/* The loopback address is always named; a new address is not. */
	assert_int_equal(serve_tls_load(d, "127.0.0.1", NOW_US, &b, &err), 0);
	assert_string_equal(a.cert_pem, b.cert_pem);
	serve_secrets_release(&b);
	assert_int_equal(serve_tls_load(d, "10.9.9.9", NOW_US, &b, &err), 0);
	assert_string_equal(a.token, b.token);
	assert_string_not_equal(a.cert_pem, b.cert_pem);
	serve_secrets_release(&b);
	serve_secrets_release(&a);
	rmdir_all(d);
	free(d);
}

static void test_loose_and_bad_files(void **state)
{
	struct serve_secrets s = { 0 };
	struct errbuf err;
	char *d = tmpdir();
	char *tp = xasprintf("%s/token", d);
	FILE *f = fopen(tp, "w");

	(void)state;
	fputs("0123456789abcdef0123\n", f);
	fclose(f);
	chmod(tp, 0644);
	assert_int_equal(serve_tls_load(d, "::", NOW_US, &s, &err), 0);
	assert_string_equal(s.token, "0123456789abcdef0123");
	assert_int_equal(mode_of(d, "token"), 0600);
	serve_secrets_release(&s);
	f = fopen(tp, "w");
	fputs("short\n", f);
	fclose(f);
	assert_int_equal(serve_tls_load(d, "::", NOW_US, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "16 characters"));
	assert_null(s.token);
	free(tp);
	rmdir_all(d);
	free(d);
}

static void test_kubeconfig(void **state)
{
	struct errbuf err;
	char *d = tmpdir();
	char *p = xasprintf("%s/kubeconfig", d);
	char buf[4096];
	FILE *f;
	size_t n;

	(void)state;
	assert_int_equal(serve_kubeconfig_write(p, "https://10.1.2.3:6443",
						"-----BEGIN CERTIFICATE-----\n",
						"abc123", &err),
			 0);
	assert_int_equal(mode_of(d, "kubeconfig"), 0600);
	f = fopen(p, "r");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "    server: https://10.1.2.3:6443\n"));
	assert_non_null(strstr(buf,
			       "    certificate-authority-data: "
			       "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==\n"));
	assert_non_null(strstr(buf, "    token: abc123\n"));
	assert_non_null(strstr(buf, "current-context: echelon\n"));
	assert_int_equal(serve_kubeconfig_write(p, "http://127.0.0.1:8080",
						NULL, NULL, &err),
			 0);
	f = fopen(p, "r");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_null(strstr(buf, "token"));
	assert_null(strstr(buf, "certificate-authority-data"));
	assert_non_null(strstr(buf, "insecure-skip-tls-verify: true"));
	free(p);
	rmdir_all(d);
	free(d);
}

static void test_listen_and_url(void **state)
{
	static const struct {
		const char *in, *addr;
		int port;
		bool loopback;
		const char *url;
	} table[] = {
		{ "127.0.0.1:8080", "127.0.0.1", 8080, true,
		  "http://127.0.0.1:8080" },
		{ "localhost:0", "127.0.0.1", 0, true, "http://127.0.0.1:0" },
		{ "[::1]:6443", "::1", 6443, true, "http://[::1]:6443" },
		{ "0.0.0.0:6443", "0.0.0.0", 6443, false,
		  "https://127.0.0.1:6443" },
		{ "[::]:1", "::", 1, false, "https://[::1]:1" },
		{ "10.0.0.1:65535", "10.0.0.1", 65535, false,
		  "https://10.0.0.1:65535" },
		{ "10.0.0.1:65536", NULL, 0, false, NULL },
		{ "10.0.0.1:", NULL, 0, false, NULL },
		{ "10.0.0.1:-1", NULL, 0, false, NULL },
		{ "8080", NULL, 0, false, NULL },
		{ ":8080", NULL, 0, false, NULL },
		{ "[::1:80", NULL, 0, false, NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		char addr[64];
		uint16_t port;
		int rc = serve_addr_parse(table[i].in, addr, sizeof(addr),
					  &port);
		char *url;

		if (!table[i].addr) {
			if (rc != -EINVAL)
				fail_msg("%s: accepted", table[i].in);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_string_equal(addr, table[i].addr);
		assert_int_equal(port, table[i].port);
		assert_int_equal(serve_addr_loopback(addr), table[i].loopback);
		url = serve_addr_url(!table[i].loopback, addr, port);
		assert_string_equal(url, table[i].url);
		free(url);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_made_once),
		cmocka_unit_test(test_loose_and_bad_files),
		cmocka_unit_test(test_kubeconfig),
		cmocka_unit_test(test_listen_and_url),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
