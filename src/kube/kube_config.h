/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where the Kubernetes API server is and how to authenticate to it: a
 * kubeconfig file (libfyaml) or the in-cluster service account. Pure
 * apart from reading the files it names.
 */
#ifndef ECHELON_KUBE_CONFIG_H
#define ECHELON_KUBE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"
#include "base/errbuf.h"

struct kube_target {
	char *server;	       /* "https://10.0.0.1:6443", no trailing '/' */
	char *ca_pem;	       /* CA bundle (PEM text), NULL: system CAs */
	char *cert_pem;	       /* client certificate (PEM text) or NULL */
	char *key_pem;	       /* its key (PEM text) or NULL */
	char *token;	       /* bearer token or NULL */
	char *token_file;      /* re-read when it changes (in-cluster tokens
				  rotate), or NULL */
	char *tls_server_name; /* SNI and verification name, or NULL */
	bool insecure;	       /* insecure-skip-tls-verify */
	char *ns;	       /* the context's namespace ("default") */
	char *context;	       /* the context's name; "in-cluster" */
};

/*
 * Load context (NULL: current-context) from the kubeconfig at path (NULL:
 * the first file of $KUBECONFIG, else ~/.kube/config). The
 * certificate-authority, client-certificate, client-key and tokenFile
 * files are read now, relative to the kubeconfig's directory; the -data
 * fields are base64. Refused with a message naming the file, line and
 * field: a missing context, cluster or user, an exec or auth-provider
 * credential plugin ("not supported: use a token or a client
 * certificate"), a server URL that is not http(s). Returns 0 or a
 * negative errno with the message in err; t is filled only on success.
 */
int kube_config_load(const char *path, const char *context,
		     struct kube_target *t, struct errbuf *err) MUST_CHECK;
/* kube_config_load() of a kubeconfig already read: len bytes of text
 * (NUL-ended), called file in messages, relative paths under dir. */
int kube_config_parse(const char *text, size_t len, const char *file,
		      const char *dir, const char *context,
		      struct kube_target *t, struct errbuf *err) MUST_CHECK;
/*
 * The in-cluster configuration: https://$KUBERNETES_SERVICE_HOST:
 * $KUBERNETES_SERVICE_PORT, the token file, CA and namespace under root
 * (NULL: /var/run/secrets/kubernetes.io/serviceaccount).
 */
int kube_config_in_cluster(const char *root, struct kube_target *t,
			   struct errbuf *err) MUST_CHECK;
void kube_target_free(struct kube_target *t);
/* Read the whole regular text file at path (at most max bytes, no NUL
 * byte) into *ret (owned by the caller). 0, or a negative errno with "path:
 * why" in err. */
int kube_config_read_file(const char *path, size_t max, char **ret,
			  struct errbuf *err) MUST_CHECK;

#endif
