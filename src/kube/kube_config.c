// SPDX-License-Identifier: Apache-2.0
/*
 * Reading a kubeconfig (the manifests' YAML tree, so every refusal names
 * file:line:col and the field) and the in-cluster service account into a
 * kube_target. Files a kubeconfig names are read at once, relative to
 * its own directory; inline -data fields are base64 and win over files,
 * as in client-go.
 */
#include "kube/kube_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "base/text.h"
#include "manifest/ytree.h"

#include "base/banned.h"

/* Larger kubeconfigs and certificates than this are refused. */
#define KC_MAX_FILE (4u << 20)

struct kc {
	const char *file;
	const char *dir; /* the kubeconfig's directory, for relative paths */
	struct errbuf *err;
	struct kube_target t;
};

int kube_config_read_file(const char *path, size_t max, char **ret,
			  struct errbuf *err)
{
	struct strbuf sb;
	char buf[16384];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	int rc = 0;

	if (fd < 0)
		return errbuf_set(err, -errno, "%s: %s", path, strerror(errno));
	/* A FIFO or a device would block or never end. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return errbuf_set(err, -EINVAL, "%s: not a regular file", path);
	}
	strbuf_init(&sb);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = errbuf_set(err, -errno, "%s: %s", path,
					strerror(errno));
			break;
		}
		if (sb.len + (size_t)n > max) {
			rc = errbuf_set(err, -EFBIG,
					"%s: larger than the limit of %zu "
					"bytes",
					path, max);
			break;
		}
		strbuf_add(&sb, buf, (size_t)n);
	}
	close(fd);
	if (!rc && memchr(sb.buf, '\0', sb.len))
		rc = errbuf_set(err, -EINVAL, "%s: not text (a NUL byte)",
				path);
	if (!rc)
		*ret = strbuf_take(&sb);
	strbuf_release(&sb); /* take leaves a fresh buffer */
	return rc;
}

static int kc_error(struct kc *k, const struct ynode *n, const char *field,
		    const char *fmt, ...) PRINTF_LIKE(4, 5);
static int kc_error(struct kc *k, const struct ynode *n, const char *field,
		    const char *fmt, ...)
{
	char what[ERRBUF_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (n)
		return errbuf_set(k->err, -EINVAL, "%s:%d:%d: %s: %s", k->file,
				  n->line, n->col, field, what);
	return errbuf_set(k->err, -EINVAL, "%s: %s: %s", k->file, field, what);
}

/* The scalar at key of map (NULL when absent or null); an error when the
 * value is not a scalar. */
static int kc_scalar(struct kc *k, const struct ynode *map, const char *key,
		     const char *path, const struct ynode **ret)
{
	const struct ynode *n = ynode_get(map, key);

	*ret = NULL;
	if (ynode_is_null(n))
		return 0;
	if (n->type != YNODE_SCALAR)
		return kc_error(k, n, path, "must be a string");
	if (strlen(n->text) != n->len)
		return kc_error(k, n, path, "holds a NUL byte");
	*ret = n;
	return 0;
}

static int kc_bool(struct kc *k, const struct ynode *map, const char *key,
		   const char *path, bool *ret)
{
	static const char *const yes[] = { "true", "True", "TRUE" };
	static const char *const no[] = { "false", "False", "FALSE" };
	const struct ynode *n;
	int rc = kc_scalar(k, map, key, path, &n);

	if (rc || !n)
		return rc;
	for (size_t i = 0; i < 3; i++) {
		if (strcmp(n->text, yes[i]) == 0) {
			*ret = true;
			return 0;
		}
		if (strcmp(n->text, no[i]) == 0) {
			*ret = false;
			return 0;
		}
	}
	return kc_error(k, n, path, "must be true or false");
}

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

/* Decode base64 (standard or URL alphabet, padding optional, white space
 * ignored) into text; NULL when s is not base64 or the text holds NUL. */
static char *b64_text(const char *s)
{
	struct strbuf out;
	unsigned acc = 0, bits = 0, pad = 0;
	char *text = NULL;

	strbuf_init(&out);
	for (; *s; s++) {
		int v = b64_value(*s);

		if (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
			continue;
		if (*s == '=' && ++pad <= 2)
			continue;
		if (v < 0 || pad)
			goto out;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(&out, (char)((acc >> bits) & 0xff));
		}
	}
	if (bits >= 6 || memchr(out.buf, '\0', out.len))
		goto out;
	text = strbuf_take(&out);
out:
	strbuf_release(&out);
	return text;
}

static char *kc_path(const struct kc *k, const char *name)
{
	if (name[0] == '/')
		return xstrdup(name);
	return xasprintf("%s/%s", k->dir, name);
}

/* A file field (read now, relative to the kubeconfig) or its -data twin
 * (base64, preferred when both are set) into *ret; NULL when neither. */
static int kc_file_or_data(struct kc *k, const struct ynode *map,
			   const char *prefix, const char *key, char **ret)
{
	char field[128], data_key[64];
	const struct ynode *file, *data;
	struct errbuf e;
	char *path;
	int rc;

	snprintf(data_key, sizeof(data_key), "%s-data", key);
	snprintf(field, sizeof(field), "%s.%s", prefix, data_key);
	rc = kc_scalar(k, map, data_key, field, &data);
	if (rc)
		return rc;
	if (data) {
		*ret = b64_text(data->text);
		if (!*ret)
			return kc_error(k, data, field,
					"not base64 of PEM text");
		return 0;
	}
	snprintf(field, sizeof(field), "%s.%s", prefix, key);
	rc = kc_scalar(k, map, key, field, &file);
	if (rc || !file)
		return rc;
	path = kc_path(k, file->text);
	rc = kube_config_read_file(path, KC_MAX_FILE, ret, &e);
	free(path);
	if (rc)
		return kc_error(k, file, field, "%s", e.msg);
	return 0;
}

/* The entry of list (clusters, users, contexts) named name: its inner
 * map (key: cluster, user, context) and its index. */
static int kc_find(struct kc *k, const struct ynode *root, const char *list,
		   const char *key, const char *name, const struct ynode *why,
		   const struct ynode **ret, size_t *ret_i)
{
	const struct ynode *seq = ynode_get(root, list), *item;
	char field[64];

	if (seq && seq->type != YNODE_SEQ && !ynode_is_null(seq))
		return kc_error(k, seq, list, "must be a list");
	for (size_t i = 0; seq && seq->type == YNODE_SEQ && i < seq->n; i++) {
		const struct ynode *n;
		int rc;

		item = seq->kids[i];
		snprintf(field, sizeof(field), "%s[%zu].name", list, i);
		if (item->type != YNODE_MAP)
			return kc_error(k, item, field, "must be a mapping");
		rc = kc_scalar(k, item, "name", field, &n);
		if (rc)
			return rc;
		if (!n || strcmp(n->text, name) != 0)
			continue;
		*ret = ynode_get(item, key);
		*ret_i = i;
		if (*ret && (*ret)->type != YNODE_MAP) {
			snprintf(field, sizeof(field), "%s[%zu].%s", list, i,
				 key);
			return kc_error(k, *ret, field, "must be a mapping");
		}
		if (!*ret) {
			snprintf(field, sizeof(field), "%s[%zu]", list, i);
			return kc_error(k, item, field, "no %s", key);
		}
		return 0;
	}
	return kc_error(k, why, list, "no entry named \"%s\"", name);
}

static int kc_cluster(struct kc *k, const struct ynode *c, size_t i)
{
	struct kube_target *t = &k->t;
	const struct ynode *n;
	char p[64], f[96];
	size_t len;
	int rc;

	snprintf(p, sizeof(p), "clusters[%zu].cluster", i);
	snprintf(f, sizeof(f), "%s.server", p);
	rc = kc_scalar(k, c, "server", f, &n);
	if (rc)
		return rc;
	if (!n)
		return kc_error(k, c, f, "missing");
	if (strncmp(n->text, "https://", 8) != 0 &&
	    strncmp(n->text, "http://", 7) != 0)
		return kc_error(k, n, f, "must be an http:// or https:// URL");
	len = n->len;
	while (len > 0 && n->text[len - 1] == '/')
		len--;
	t->server = xstrndup(n->text, len);
	snprintf(f, sizeof(f), "%s.insecure-skip-tls-verify", p);
	rc = kc_bool(k, c, "insecure-skip-tls-verify", f, &t->insecure);
	snprintf(f, sizeof(f), "%s.tls-server-name", p);
	if (!rc)
		rc = kc_scalar(k, c, "tls-server-name", f, &n);
	if (!rc && n)
		t->tls_server_name = xstrdup(n->text);
	if (!rc)
		rc = kc_file_or_data(k, c, p, "certificate-authority",
				     &t->ca_pem);
	return rc;
}

static int kc_user(struct kc *k, const struct ynode *u, size_t i)
{
	static const char *const refused[] = { "exec", "auth-provider",
					       "username", "password" };
	struct kube_target *t = &k->t;
	const struct ynode *n;
	char p[64], f[96];
	int rc;

	snprintf(p, sizeof(p), "users[%zu].user", i);
	for (size_t j = 0; j < sizeof(refused) / sizeof(*refused); j++) {
		n = ynode_get(u, refused[j]);
		snprintf(f, sizeof(f), "%s.%s", p, refused[j]);
		if (n && !ynode_is_null(n))
			return kc_error(k, n, f,
					"not supported: use a token or a "
					"client certificate");
	}
	rc = kc_file_or_data(k, u, p, "client-certificate", &t->cert_pem);
	if (!rc)
		rc = kc_file_or_data(k, u, p, "client-key", &t->key_pem);
	if (!rc && !t->cert_pem != !t->key_pem)
		return kc_error(k, u, p,
				"client-certificate and client-key go "
				"together");
	snprintf(f, sizeof(f), "%s.token", p);
	if (!rc)
		rc = kc_scalar(k, u, "token", f, &n);
	if (!rc && n) {
		t->token = xstrdup(n->text);
		return 0;
	}
	snprintf(f, sizeof(f), "%s.tokenFile", p);
	if (!rc)
		rc = kc_scalar(k, u, "tokenFile", f, &n);
	if (!rc && n) {
		struct errbuf e;

		t->token_file = kc_path(k, n->text);
		rc = kube_config_read_file(t->token_file, KC_MAX_FILE,
					   &t->token, &e);
		if (rc)
			return kc_error(k, n, f, "%s", e.msg);
		t->token[strcspn(t->token, "\r\n")] = '\0';
	}
	return rc;
}

/* The context to use: the one asked for, else current-context. */
static int kc_context(struct kc *k, const struct ynode *root, const char *want)
{
	const struct ynode *cur = NULL, *ctx, *n, *cn, *un;
	const struct ynode *c, *u;
	char p[64], f[96];
	size_t i, ci, ui;
	int rc;

	if (!want) {
		rc = kc_scalar(k, root, "current-context", "current-context",
			       &cur);
		if (rc)
			return rc;
		if (!cur)
			return kc_error(k, root, "current-context",
					"missing (or give a context)");
		want = cur->text;
	}
	rc = kc_find(k, root, "contexts", "context", want, cur, &ctx, &i);
	if (rc)
		return rc;
	snprintf(p, sizeof(p), "contexts[%zu].context", i);
	snprintf(f, sizeof(f), "%s.cluster", p);
	rc = kc_scalar(k, ctx, "cluster", f, &cn);
	if (!rc && !cn)
		rc = kc_error(k, ctx, f, "missing");
	snprintf(f, sizeof(f), "%s.user", p);
	if (!rc)
		rc = kc_scalar(k, ctx, "user", f, &un);
	snprintf(f, sizeof(f), "%s.namespace", p);
	if (!rc)
		rc = kc_scalar(k, ctx, "namespace", f, &n);
	if (rc)
		return rc;
	k->t.context = xstrdup(want);
	k->t.ns = xstrdup(n ? n->text : "default");
	rc = kc_find(k, root, "clusters", "cluster", cn->text, cn, &c, &ci);
	if (!rc)
		rc = kc_cluster(k, c, ci);
	/* A context without a user sends no credentials. */
	if (!rc && un)
		rc = kc_find(k, root, "users", "user", un->text, un, &u, &ui);
	if (!rc && un)
		rc = kc_user(k, u, ui);
	return rc;
}

static int kc_parse(struct kc *k, const char *buf, size_t len,
		    const char *context)
{
	struct ynode *root = NULL;
	struct yparser *p;
	struct diag d;
	size_t bad, nul;
	int rc;

	/* As for manifests: libfyaml 0.7 can loop forever on bytes that are
	 * not UTF-8 in a directive line, and stops at a NUL byte. */
	bad = text_find_bad_utf8(buf, len);
	nul = text_find_nul(buf, len, NULL, NULL);
	if (bad < len || nul < len) {
		int line, col;

		text_position(buf, bad < nul ? bad : nul, &line, &col);
		return errbuf_set(k->err, -EINVAL, "%s:%d:%d: invalid YAML: %s",
				  k->file, line, col,
				  bad < nul ? "not UTF-8" : "a NUL byte");
	}
	diag_init(&d);
	p = yparser_new(buf, len, false, k->file, &d);
	rc = yparser_next(p, &root);
	if (rc < 0 || d.errors) {
		struct strbuf sb;

		strbuf_init(&sb);
		diag_format(&d, &sb);
		sb.buf[strcspn(sb.buf, "\n")] = '\0';
		rc = errbuf_set(k->err, -EINVAL, "%s", sb.buf);
		strbuf_release(&sb);
	} else if (rc == 0 || ynode_is_null(root)) {
		rc = errbuf_set(k->err, -EINVAL, "%s: empty", k->file);
	} else if (root->type != YNODE_MAP) {
		rc = kc_error(k, root, "(top)", "must be a mapping");
	} else {
		rc = kc_context(k, root, context);
	}
	yparser_free(p);
	diag_release(&d);
	return rc;
}

/* NULL: $KUBECONFIG's first file, else ~/.kube/config. */
static char *default_path(struct errbuf *err)
{
	const char *env = getenv("KUBECONFIG");
	const char *home = getenv("HOME");

	if (env && *env) {
		size_t n = strcspn(env, ":");

		if (n)
			return xstrndup(env, n);
	}
	if (home && *home)
		return xasprintf("%s/.kube/config", home);
	errbuf_set(err, -ENOENT,
		   "no kubeconfig: set KUBECONFIG or HOME, or give a file");
	return NULL;
}

int kube_config_parse(const char *text, size_t len, const char *file,
		      const char *dir, const char *context,
		      struct kube_target *t, struct errbuf *err)
{
	struct kc k = { .file = file, .dir = dir, .err = err };
	int rc = kc_parse(&k, text, len, context);

	if (!rc)
		*t = k.t;
	else
		kube_target_free(&k.t);
	return rc;
}

int kube_config_load(const char *path, const char *context,
		     struct kube_target *t, struct errbuf *err)
{
	char *owned = path ? xstrdup(path) : default_path(err);
	char *buf = NULL, *dir, *slash;
	int rc;

	if (!owned)
		return -ENOENT;
	rc = kube_config_read_file(owned, KC_MAX_FILE, &buf, err);
	if (rc)
		goto out;
	slash = strrchr(owned, '/');
	if (!slash)
		dir = xstrdup(".");
	else
		dir = xstrndup(owned,
			       slash == owned ? 1 : (size_t)(slash - owned));
	rc = kube_config_parse(buf, strlen(buf), owned, dir, context, t, err);
	free(dir);
out:
	free(buf);
	free(owned);
	return rc;
}

static int read_in(const char *root, const char *name, char **ret,
		   struct errbuf *err)
{
	char *p = xasprintf("%s/%s", root, name);
	int rc = kube_config_read_file(p, KC_MAX_FILE, ret, err);

	free(p);
	return rc;
}

int kube_config_in_cluster(const char *root, struct kube_target *t,
			   struct errbuf *err)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	struct kube_target k = { 0 };
	struct errbuf ignored;
	char *ns = NULL;
	int rc;

	if (!root)
		root = "/var/run/secrets/kubernetes.io/serviceaccount";
	if (!host || !*host || !port || !*port)
		return errbuf_set(err, -ENOENT,
				  "not in a cluster: KUBERNETES_SERVICE_HOST "
				  "and KUBERNETES_SERVICE_PORT are not set");
	k.server = xasprintf(strchr(host, ':') ? "https://[%s]:%s"
					       : "https://%s:%s",
			     host, port);
	k.token_file = xasprintf("%s/token", root);
	rc = kube_config_read_file(k.token_file, KC_MAX_FILE, &k.token, err);
	if (!rc)
		rc = read_in(root, "ca.crt", &k.ca_pem, err);
	if (rc) {
		kube_target_free(&k);
		return rc;
	}
	k.token[strcspn(k.token, "\r\n")] = '\0';
	if (read_in(root, "namespace", &ns, &ignored) == 0)
		ns[strcspn(ns, "\r\n")] = '\0';
	k.ns = ns && *ns ? ns : xstrdup("default");
	if (k.ns != ns)
		free(ns);
	k.context = xstrdup("in-cluster");
	*t = k;
	return 0;
}

void kube_target_free(struct kube_target *t)
{
	if (!t)
		return;
	free(t->server);
	free(t->ca_pem);
	free(t->cert_pem);
	free(t->key_pem);
	free(t->token);
	free(t->token_file);
	free(t->tls_server_name);
	free(t->ns);
	free(t->context);
	memset(t, 0, sizeof(*t));
}
