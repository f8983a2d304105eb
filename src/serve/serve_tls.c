// SPDX-License-Identifier: Apache-2.0
/*
 * Token, certificate and key of `echelon serve` off loopback: read from
 * --data, or made with GnuTLS (ECDSA P-256, SHA-256, ten years) and the
 * kernel's randomness, and written mode 0600 before anything uses them.
 */
#include "serve/serve_tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>
#include <gnutls/x509.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"

#include "base/banned.h"

#define MAX_SECRET_FILE (64u << 10)
#define VALID_S		(10LL * 366 * 24 * 3600)

int serve_write_private(const char *path, const char *data, size_t len,
			struct errbuf *err)
{
	char *tmp = xasprintf("%s.tmp%ld", path, (long)getpid());
	size_t off = 0;
	int fd, rc = 0;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = errbuf_set(err, -errno, "%s: cannot create: %s", path,
				strerror(errno));
		free(tmp);
		return rc;
	}
	if (fchmod(fd, 0600) < 0)
		rc = -errno;
	while (!rc && off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno != EINTR)
			rc = -errno;
		else if (n > 0)
			off += (size_t)n;
	}
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc) {
		unlink(tmp);
		errbuf_set(err, rc, "%s: cannot write: %s", path,
			   strerror(-rc));
	}
	free(tmp);
	return rc;
}

/* A whole small file, or NULL when missing (-ENOENT) or bad. */
static int read_private(const char *path, char **ret, struct errbuf *err)
{
	char *buf = NULL;
	struct stat st;
	size_t off = 0;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return -ENOENT;
		return errbuf_set(err, -errno, "%s: cannot read: %s", path,
				  strerror(errno));
	}
	if (fstat(fd, &st) < 0 || st.st_size > MAX_SECRET_FILE) {
		close(fd);
		return errbuf_set(err, -EFBIG, "%s: not a secret file", path);
	}
	/* Secrets stay private even when the file was copied in loosely. */
	if ((st.st_mode & 077) && fchmod(fd, 0600) < 0)
		rc = errbuf_set(err, -errno, "%s: cannot make it private: %s",
				path, strerror(errno));
	buf = xmalloc((size_t)st.st_size + 1);
	while (!rc && off < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + off, (size_t)st.st_size - off);

		if (n <= 0) {
			rc = errbuf_set(err, -EIO, "%s: cannot read", path);
			break;
		}
		off += (size_t)n;
	}
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[off] = '\0';
	*ret = buf;
	return 0;
}

static int make_token(char **ret, struct errbuf *err)
{
	unsigned char raw[32];
	char *hex = xmalloc(2 * sizeof(raw) + 2);
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t off = 0;

	while (fd >= 0 && off < sizeof(raw)) {
		ssize_t n = read(fd, raw + off, sizeof(raw) - off);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	if (fd >= 0)
		close(fd);
	if (off < sizeof(raw)) {
		free(hex);
		return errbuf_set(err, -EIO, "/dev/urandom: cannot read");
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	hex[2 * sizeof(raw)] = '\n';
	hex[2 * sizeof(raw) + 1] = '\0';
	*ret = hex;
	return 0;
}

static int san_ip(gnutls_x509_crt_t crt, const char *addr)
{
	unsigned char ip[16];

	if (inet_pton(AF_INET, addr, ip) == 1)
		return gnutls_x509_crt_set_subject_alt_name(
			crt, GNUTLS_SAN_IPADDRESS, ip, 4, GNUTLS_FSAN_APPEND);
	if (inet_pton(AF_INET6, addr, ip) == 1)
		return gnutls_x509_crt_set_subject_alt_name(
			crt, GNUTLS_SAN_IPADDRESS, ip, 16, GNUTLS_FSAN_APPEND);
	return 0;
}

static char *datum_str(gnutls_datum_t *d)
{
	char *s = xstrndup((const char *)d->data, d->size);

	gnutls_free(d->data);
	d->data = NULL;
	return s;
}

/* A self-signed certificate for localhost, the loopback addresses and
 * addr, with a new key. */
static int make_cert(const char *addr, int64_t wall_us, char **ret_cert,
		     char **ret_key, struct errbuf *err)
{
	gnutls_x509_privkey_t key = NULL;
	gnutls_x509_crt_t crt = NULL;
	gnutls_datum_t cd = { 0 }, kd = { 0 };
	unsigned char serial[16], kid[64];
	size_t kid_len = sizeof(kid);
	time_t now = (time_t)(wall_us / 1000000);
	char host[256];
	int rc;

	rc = gnutls_x509_privkey_init(&key);
	if (!rc)
		rc = gnutls_x509_privkey_generate(
			key, GNUTLS_PK_ECDSA,
			GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0);
	if (!rc)
		rc = gnutls_x509_crt_init(&crt);
	if (!rc)
		rc = gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial));
	serial[0] &= 0x7f;
	if (!rc)
		rc = gnutls_x509_crt_set_version(crt, 3);
	if (!rc)
		rc = gnutls_x509_crt_set_serial(crt, serial, sizeof(serial));
	if (!rc)
		rc = gnutls_x509_crt_set_activation_time(crt, now - 3600);
	if (!rc)
		rc = gnutls_x509_crt_set_expiration_time(crt, now + VALID_S);
	if (!rc)
		rc = gnutls_x509_crt_set_dn_by_oid(
			crt, GNUTLS_OID_X520_COMMON_NAME, 0, "echelon", 7);
	if (!rc)
		rc = gnutls_x509_crt_set_key(crt, key);
	if (!rc)
		rc = gnutls_x509_crt_set_basic_constraints(crt, 1, -1);
	if (!rc)
		rc = gnutls_x509_crt_set_key_usage(
			crt, GNUTLS_KEY_DIGITAL_SIGNATURE |
				     GNUTLS_KEY_KEY_CERT_SIGN);
	if (!rc)
		rc = gnutls_x509_crt_set_key_purpose_oid(
			crt, GNUTLS_KP_TLS_WWW_SERVER, 0);
	if (!rc)
		rc = gnutls_x509_crt_set_subject_alt_name(
			crt, GNUTLS_SAN_DNSNAME, "localhost", 9,
			GNUTLS_FSAN_APPEND);
	if (!rc && gethostname(host, sizeof(host)) == 0 &&
	    strnlen(host, sizeof(host)) < sizeof(host) && *host)
		rc = gnutls_x509_crt_set_subject_alt_name(
			crt, GNUTLS_SAN_DNSNAME, host, (unsigned)strlen(host),
			GNUTLS_FSAN_APPEND);
	if (!rc)
		rc = san_ip(crt, "127.0.0.1");
	if (!rc)
		rc = san_ip(crt, "::1");
	if (!rc && strcmp(addr, "0.0.0.0") != 0 && strcmp(addr, "::") != 0)
		rc = san_ip(crt, addr);
	if (!rc)
		rc = gnutls_x509_crt_get_key_id(crt, 0, kid, &kid_len);
	if (!rc)
		rc = gnutls_x509_crt_set_subject_key_id(crt, kid, kid_len);
	if (!rc)
		rc = gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0);
	if (!rc)
		rc = gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &cd);
	if (!rc)
		rc = gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &kd);
	if (rc) {
		errbuf_set(err, -EINVAL, "cannot make a certificate: %s",
			   gnutls_strerror(rc));
		gnutls_free(cd.data);
		gnutls_free(kd.data);
	} else {
		*ret_cert = datum_str(&cd);
		*ret_key = datum_str(&kd);
	}
	gnutls_x509_crt_deinit(crt);
	gnutls_x509_privkey_deinit(key);
	return rc ? -EINVAL : 0;
}

/* Whether the certificate names addr (a wildcard: the loopback one). */
static bool cert_covers(const char *pem, const char *addr)
{
	gnutls_datum_t d = { (unsigned char *)pem, (unsigned)strlen(pem) };
	gnutls_x509_crt_t crt;
	unsigned char ip[16];
	unsigned n = 0;
	bool ok = false;

	if (strcmp(addr, "0.0.0.0") == 0)
		addr = "127.0.0.1";
	else if (strcmp(addr, "::") == 0)
		addr = "::1";
	if (inet_pton(AF_INET, addr, ip) == 1)
		n = 4;
	else if (inet_pton(AF_INET6, addr, ip) == 1)
		n = 16;
	if (!n || gnutls_x509_crt_init(&crt) < 0)
		return false;
	if (gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM) == 0)
		ok = gnutls_x509_crt_check_ip(crt, ip, n, 0) != 0;
	gnutls_x509_crt_deinit(crt);
	return ok;
}

static char *path_in(const char *dir, const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

int serve_tls_load(const char *dir, const char *addr, int64_t wall_us,
		   struct serve_secrets *ret, struct errbuf *err)
{
	char *tp = path_in(dir, "token"), *cp = path_in(dir, "tls.crt");
	char *kp = path_in(dir, "tls.key");
	struct serve_secrets s = { 0 };
	int rc, kr;

	rc = read_private(tp, &s.token, err);
	if (rc == -ENOENT) {
		rc = make_token(&s.token, err);
		if (!rc)
			rc = serve_write_private(tp, s.token, strlen(s.token),
						 err);
	}
	if (!rc) {
		s.token[strcspn(s.token, "\r\n")] = '\0';
		if (strlen(s.token) < 16)
			rc = errbuf_set(err, -EINVAL,
					"%s: a token has 16 characters at "
					"least",
					tp);
	}
	if (!rc) {
		rc = read_private(cp, &s.cert_pem, err);
		kr = rc ? rc : read_private(kp, &s.key_pem, err);
		if (kr == -ENOENT || rc == -ENOENT ||
		    (!kr && !cert_covers(s.cert_pem, addr))) {
			free(s.cert_pem);
			free(s.key_pem);
			s.cert_pem = s.key_pem = NULL;
			rc = make_cert(addr, wall_us, &s.cert_pem, &s.key_pem,
				       err);
			/* The key first: a certificate is never left
			 * without its key. */
			if (!rc)
				rc = serve_write_private(
					kp, s.key_pem, strlen(s.key_pem), err);
			if (!rc)
				rc = serve_write_private(cp, s.cert_pem,
							 strlen(s.cert_pem),
							 err);
		} else if (!rc) {
			rc = kr;
		}
	}
	free(tp);
	free(cp);
	free(kp);
	if (rc) {
		serve_secrets_release(&s);
		return rc;
	}
	*ret = s;
	return 0;
}

void serve_secrets_release(struct serve_secrets *s)
{
	free(s->token);
	free(s->cert_pem);
	free(s->key_pem);
	s->token = s->cert_pem = s->key_pem = NULL;
}
