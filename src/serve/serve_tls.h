/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The secrets `echelon serve` needs when it listens beyond loopback: a
 * bearer token and a self-signed certificate with its key, made on the
 * first start (GnuTLS; the token from /dev/urandom) and kept under
 * --data as token, tls.crt and tls.key, mode 0600. The certificate names
 * localhost, the loopback addresses and the listen address, and is its
 * own CA, so a kubeconfig can carry it as certificate-authority-data; it
 * is made again when the listen address is not among its names.
 */
#ifndef ECHELON_SERVE_TLS_H
#define ECHELON_SERVE_TLS_H

#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/errbuf.h"

struct serve_secrets {
	char *token;	/* 64 hex digits */
	char *cert_pem; /* PEM */
	char *key_pem;	/* PEM */
};

/* Read the secrets from dir, making what is missing (wall_us: the
 * certificate's start). 0, or a negative errno with a message in err;
 * *ret (zeroed by the caller) is filled only on success. */
int serve_tls_load(const char *dir, const char *addr, int64_t wall_us,
		   struct serve_secrets *ret, struct errbuf *err) MUST_CHECK;
/* Write len bytes of data to path with mode 0600, whole or not at all (a
 * temporary file, synced, then renamed). 0 or a negative errno (err). */
int serve_write_private(const char *path, const char *data, size_t len,
			struct errbuf *err) MUST_CHECK;
/* Free the strings; NULL members are fine. */
void serve_secrets_release(struct serve_secrets *s);

#endif
