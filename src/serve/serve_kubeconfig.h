/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kubeconfig `echelon serve --write-kubeconfig FILE` writes, so that
 * `kubectl --kubeconfig FILE get nodes` works at once: one cluster, user
 * and context, all named "echelon", with the server's URL, the
 * certificate as certificate-authority-data when TLS is on, and the
 * bearer token when one is required (without TLS, the server is plain
 * HTTP on loopback and insecure-skip-tls-verify is set: client-node
 * refuses http:// otherwise). Written whole (a temporary file
 * renamed), mode 0600.
 */
#ifndef ECHELON_SERVE_KUBECONFIG_H
#define ECHELON_SERVE_KUBECONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/errbuf.h"

/* Write the kubeconfig to path; ca_pem and token may be NULL. 0, or a
 * negative errno with a message in err. */
int serve_kubeconfig_write(const char *path, const char *url,
			   const char *ca_pem, const char *token,
			   struct errbuf *err) MUST_CHECK;

#endif
