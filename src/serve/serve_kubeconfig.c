// SPDX-License-Identifier: Apache-2.0
/*
 * The kubeconfig of `echelon serve --write-kubeconfig`: YAML written by
 * hand (every value is a URL, base64 or hex, nothing to quote).
 */
#include "serve/serve_kubeconfig.h"

#include <errno.h>
#include <gnutls/gnutls.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "serve/serve_tls.h"

#include "base/banned.h"

int serve_kubeconfig_write(const char *path, const char *url,
			   const char *ca_pem, const char *token,
			   struct errbuf *err)
{
	struct strbuf y;
	int rc;

	strbuf_init(&y);
	strbuf_addf(&y,
		    "apiVersion: v1\nkind: Config\nclusters:\n"
		    "- name: echelon\n  cluster:\n    server: %s\n",
		    url);
	if (ca_pem) {
		gnutls_datum_t in = { (unsigned char *)ca_pem,
				      (unsigned)strlen(ca_pem) };
		gnutls_datum_t out = { 0 };

		if (gnutls_base64_encode2(&in, &out) < 0) {
			strbuf_release(&y);
			return errbuf_set(err, -EINVAL,
					  "%s: cannot encode the certificate",
					  path);
		}
		strbuf_addstr(&y, "    certificate-authority-data: ");
		strbuf_add(&y, out.data, out.size);
		strbuf_addch(&y, '\n');
		gnutls_free(out.data);
	} else {
		/* Plain HTTP on loopback: nothing to verify, but
		 * @kubernetes/client-node refuses an http:// server
		 * unless this is set. */
		strbuf_addstr(&y, "    insecure-skip-tls-verify: true\n");
	}
	strbuf_addstr(&y, "users:\n- name: echelon\n  user:");
	if (token)
		strbuf_addf(&y, "\n    token: %s\n", token);
	else
		strbuf_addstr(&y, " {}\n");
	strbuf_addstr(&y, "contexts:\n- name: echelon\n  context:\n"
			  "    cluster: echelon\n    user: echelon\n"
			  "    namespace: default\n"
			  "current-context: echelon\n");
	rc = serve_write_private(path, y.buf, y.len, err);
	strbuf_release(&y);
	return rc;
}
