// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: the web configuration file of --web.config.file, in the
 * format of the Prometheus exporter-toolkit (its docs/web-configuration.md:
 * tls_server_config, http_server_config, basic_auth_users), so that one
 * file serves rocetuned and a Prometheus server alike.
 *
 * As exporter-toolkit, an unknown key is an error; keys of the format
 * that rocetuned does not implement are refused by name rather than
 * ignored.  Files named in it are relative to the file's directory.
 * Passwords are bcrypt hashes, checked with libcrypt's crypt_rn().
 */
#define _GNU_SOURCE
#include <crypt.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <yaml.h>

#include "agent.h"

#define AG_WEB_FILE_MAX		(1u << 20)	/* a PEM file, at most */
#define AG_WEB_BCRYPT_PER_S	8	/* uncached bcrypt checks a second */

struct ag_web_user {
	char *name;
	char *hash;
	bool cached;			/* ok_digest holds a good password */
	unsigned char ok_digest[32];	/* SHA-256 of it */
};

struct ag_web_ctx {
	const char *path;
	char *dir;			/* the file's directory, with '/' */
	char *err;
	size_t errlen;
	struct ag_web *w;
};

static int ag_web_fail(struct ag_web_ctx *x, const yaml_node_t *n,
		       const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int ag_web_fail(struct ag_web_ctx *x, const yaml_node_t *n,
		       const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n)
		snprintf(x->err, x->errlen, "%s:%zu: %s", x->path,
			 n->start_mark.line + 1, msg);
	else
		snprintf(x->err, x->errlen, "%s: %s", x->path, msg);
	return -EINVAL;
}

static const char *ag_web_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ?
		(const char *)n->data.scalar.value : NULL;
}

/* YAML 1.1 booleans, as Go's yaml.v2 reads them. */
static int ag_web_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes",
		"Yes", "YES", "on", "On", "ON", "y", "Y" };
	static const char *const no[] = { "false", "False", "FALSE", "no",
		"No", "NO", "off", "Off", "OFF", "n", "N" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* Read @name (relative to the web config's directory) into @out. */
static int ag_web_read(struct ag_web_ctx *x, const yaml_node_t *n,
		       const char *key, const char *name, char **out)
{
	char *path = NULL, *buf;
	size_t len;
	FILE *f;

	if (!*name)
		return ag_web_fail(x, n, "%s: empty file name", key);
	if (name[0] == '/')
		path = strdup(name);
	else if (asprintf(&path, "%s%s", x->dir, name) < 0)
		path = NULL;
	if (!path)
		return -ENOMEM;
	f = fopen(path, "re");
	if (!f) {
		ag_web_fail(x, n, "%s %s: %s", key, path, strerror(errno));
		free(path);
		return -EINVAL;
	}
	buf = malloc(AG_WEB_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		free(path);
		return -ENOMEM;
	}
	len = fread(buf, 1, AG_WEB_FILE_MAX + 1, f);
	if (ferror(f) || len > AG_WEB_FILE_MAX || !len) {
		ag_web_fail(x, n, "%s %s: %s", key, path,
			    ferror(f) ? strerror(errno) :
			    len ? "larger than 1 MiB" : "empty");
		fclose(f);
		free(buf);
		free(path);
		return -EINVAL;
	}
	fclose(f);
	buf[len] = '\0';
	free(*out);
	*out = buf;
	free(path);
	return 0;
}

static const char *const ag_client_auth_names[] = {
	[AG_CLIENT_NONE] = "NoClientCert",
	[AG_CLIENT_REQUEST] = "RequestClientCert",
	[AG_CLIENT_REQUIRE_ANY] = "RequireAnyClientCert",
	[AG_CLIENT_VERIFY_IF_GIVEN] = "VerifyClientCertIfGiven",
	[AG_CLIENT_REQUIRE_VERIFY] = "RequireAndVerifyClientCert",
};

/* TLS10 .. TLS13 as 0 .. 3, -1 otherwise. */
static int ag_web_tls_version(const char *s)
{
	static const char *const v[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(s, v[i]))
			return i;
	return -1;
}

static int ag_web_tls(struct ag_web_ctx *x, yaml_document_t *doc,
		      const yaml_node_t *keyn, const yaml_node_t *map)
{
	struct ag_web *w = x->w;
	const yaml_node_pair_t *p;
	const yaml_node_t *kn, *vn, *ca_n = NULL;
	bool have_auth = false;
	const char *k, *v;
	int err, ver;

	if (map->type == YAML_SCALAR_NODE && !*ag_web_scalar(map))
		return 0;	/* "tls_server_config:" alone: no TLS */
	if (map->type != YAML_MAPPING_NODE)
		return ag_web_fail(x, map, "tls_server_config: not a mapping");
	w->tls = true;
	for (p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		kn = yaml_document_get_node(doc, p->key);
		vn = yaml_document_get_node(doc, p->value);
		k = ag_web_scalar(kn);
		if (!k)
			return ag_web_fail(x, kn, "tls_server_config: a key that is not a string");
		if (!strcmp(k, "cipher_suites") ||
		    !strcmp(k, "curve_preferences") ||
		    !strcmp(k, "client_allowed_sans"))
			return ag_web_fail(x, kn, "tls_server_config: %s: not supported by rocetuned (GnuTLS picks them; leave it out)",
					   k);
		v = ag_web_scalar(vn);
		if (!v)
			return ag_web_fail(x, vn, "tls_server_config: %s: not a string",
					   k);
		if (!strcmp(k, "cert_file")) {
			err = ag_web_read(x, vn, "tls_server_config: cert_file",
					  v, &w->cert_pem);
		} else if (!strcmp(k, "key_file")) {
			err = ag_web_read(x, vn, "tls_server_config: key_file",
					  v, &w->key_pem);
		} else if (!strcmp(k, "client_ca_file")) {
			err = ag_web_read(x, vn, "tls_server_config: client_ca_file",
					  v, &w->ca_pem);
			ca_n = vn;
		} else if (!strcmp(k, "client_auth_type")) {
			unsigned int i;

			err = -EINVAL;
			for (i = 0; i < AG_CLIENT_NUM; i++)
				if (!strcmp(v, ag_client_auth_names[i]))
					err = 0;
			if (!strcmp(v, "RequireClientCert")) {
				i = AG_CLIENT_REQUIRE_ANY;	/* its old name */
				err = 0;
			}
			if (err)
				return ag_web_fail(x, vn, "tls_server_config: client_auth_type: \"%s\" is none of NoClientCert, RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert",
						   v);
			for (i = 0; i < AG_CLIENT_NUM; i++)
				if (!strcmp(v, ag_client_auth_names[i]))
					break;
			w->client_auth = i < AG_CLIENT_NUM ? i :
					 AG_CLIENT_REQUIRE_ANY;
			have_auth = true;
		} else if (!strcmp(k, "min_version") ||
			   !strcmp(k, "max_version")) {
			ver = ag_web_tls_version(v);
			if (ver < 0)
				return ag_web_fail(x, vn, "tls_server_config: %s: \"%s\" is none of TLS10, TLS11, TLS12, TLS13",
						   k, v);
			if (k[1] == 'i')
				w->min_version = ver;
			else
				w->max_version = ver;
		} else if (!strcmp(k, "prefer_server_cipher_suites")) {
			if (ag_web_bool(v, &w->server_order))
				return ag_web_fail(x, vn, "tls_server_config: prefer_server_cipher_suites: \"%s\" is not a boolean",
						   v);
		} else {
			return ag_web_fail(x, kn, "tls_server_config: unknown key \"%s\"",
					   k);
		}
		if (err)
			return err;
	}
	if (!w->cert_pem)
		return ag_web_fail(x, keyn, "tls_server_config: missing cert_file");
	if (!w->key_pem)
		return ag_web_fail(x, keyn, "tls_server_config: missing key_file");
	if (w->min_version > w->max_version)
		return ag_web_fail(x, keyn, "tls_server_config: min_version is above max_version");
	if (w->ca_pem && (!have_auth || w->client_auth == AG_CLIENT_NONE))
		return ag_web_fail(x, ca_n, "tls_server_config: client_ca_file without a client_auth_type that asks for a client certificate");
	if (!w->ca_pem && (w->client_auth == AG_CLIENT_VERIFY_IF_GIVEN ||
			   w->client_auth == AG_CLIENT_REQUIRE_VERIFY))
		return ag_web_fail(x, keyn, "tls_server_config: client_auth_type %s needs client_ca_file (the CAs client certificates are checked against)",
				   ag_client_auth_names[w->client_auth]);
	return 0;
}

static int ag_web_http(struct ag_web_ctx *x, yaml_document_t *doc,
		       const yaml_node_t *map)
{
	const yaml_node_pair_t *p;
	const yaml_node_t *kn, *vn;
	const char *k, *v;
	bool b;

	if (map->type == YAML_SCALAR_NODE && !*ag_web_scalar(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return ag_web_fail(x, map, "http_server_config: not a mapping");
	for (p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		kn = yaml_document_get_node(doc, p->key);
		vn = yaml_document_get_node(doc, p->value);
		k = ag_web_scalar(kn);
		if (!k)
			return ag_web_fail(x, kn, "http_server_config: a key that is not a string");
		if (!strcmp(k, "http2")) {
			v = ag_web_scalar(vn);
			if (!v || ag_web_bool(v, &b))
				return ag_web_fail(x, vn, "http_server_config: http2: not a boolean");
			/* rocetuned speaks HTTP/1.1 only: http2 offers, not forces */
			continue;
		}
		if (!strcmp(k, "headers"))
			return ag_web_fail(x, kn, "http_server_config: headers: not supported by rocetuned");
		return ag_web_fail(x, kn, "http_server_config: unknown key \"%s\"",
				   k);
	}
	return 0;
}

/* $2a$, $2b$ or $2y$, a two-digit cost, 53 characters of salt and hash. */
static bool ag_web_is_bcrypt(const char *h)
{
	size_t i;

	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' ||
	    !strchr("aby", h[2]) || h[3] != '$' || h[6] != '$' ||
	    h[4] < '0' || h[4] > '3' || h[5] < '0' || h[5] > '9')
		return false;
	for (i = 7; i < 60; i++)
		if (!strchr("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
			    h[i]))
			return false;
	return true;
}

static int ag_web_users(struct ag_web_ctx *x, yaml_document_t *doc,
			const yaml_node_t *map)
{
	struct ag_web *w = x->w;
	const yaml_node_pair_t *p;
	const yaml_node_t *kn, *vn;
	const char *k, *v;
	size_t n, i;

	if (map->type == YAML_SCALAR_NODE && !*ag_web_scalar(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return ag_web_fail(x, map, "basic_auth_users: not a mapping of user to bcrypt hash");
	n = (size_t)(map->data.mapping.pairs.top -
		     map->data.mapping.pairs.start);
	w->users = calloc(n ? n : 1, sizeof(*w->users));
	if (!w->users)
		return -ENOMEM;
	for (p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		kn = yaml_document_get_node(doc, p->key);
		vn = yaml_document_get_node(doc, p->value);
		k = ag_web_scalar(kn);
		v = ag_web_scalar(vn);
		if (!k || !*k || strchr(k, ':'))
			return ag_web_fail(x, kn, "basic_auth_users: a user name that is not a string without ':'");
		if (!v || !ag_web_is_bcrypt(v))
			return ag_web_fail(x, vn, "basic_auth_users: %s: not a bcrypt hash ($2a$, $2b$ or $2y$, 60 characters; htpasswd -nBC 10 %s)",
					   k, k);
		for (i = 0; i < w->nusers; i++)
			if (!strcmp(w->users[i].name, k))
				return ag_web_fail(x, kn, "basic_auth_users: %s: given twice",
						   k);
		w->users[w->nusers].name = strdup(k);
		w->users[w->nusers].hash = strdup(v);
		if (!w->users[w->nusers].name || !w->users[w->nusers].hash) {
			w->nusers++;
			return -ENOMEM;
		}
		w->nusers++;
	}
	return 0;
}

/* What GnuTLS says of the certificate, key and CAs, and the priorities. */
static int ag_web_check_tls(struct ag_web_ctx *x)
{
	static const char *const vers[] = { "+VERS-TLS1.0", "+VERS-TLS1.1",
		"+VERS-TLS1.2", "+VERS-TLS1.3" };
	struct ag_web *w = x->w;
	gnutls_certificate_credentials_t cred;
	gnutls_priority_t prio;
	gnutls_datum_t c, k;
	const char *where;
	size_t off;
	int err, i;

	off = (size_t)snprintf(w->priorities, sizeof(w->priorities),
			       "NORMAL:-VERS-ALL");
	for (i = w->min_version; i <= w->max_version; i++)
		off += (size_t)snprintf(w->priorities + off,
					sizeof(w->priorities) - off, ":%s",
					vers[i]);
	if (w->server_order)
		snprintf(w->priorities + off, sizeof(w->priorities) - off,
			 ":%%SERVER_PRECEDENCE");
	err = gnutls_priority_init(&prio, w->priorities, &where);
	if (err < 0)
		return ag_web_fail(x, NULL, "tls_server_config: GnuTLS refuses the versions (%s): %s",
				   w->priorities, gnutls_strerror(err));
	gnutls_priority_deinit(prio);
	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return -ENOMEM;
	c.data = (unsigned char *)w->cert_pem;
	c.size = (unsigned int)strlen(w->cert_pem);
	k.data = (unsigned char *)w->key_pem;
	k.size = (unsigned int)strlen(w->key_pem);
	err = gnutls_certificate_set_x509_key_mem2(cred, &c, &k,
						   GNUTLS_X509_FMT_PEM, NULL,
						   0);
	if (err < 0) {
		gnutls_certificate_free_credentials(cred);
		return ag_web_fail(x, NULL, "tls_server_config: cert_file and key_file: %s (PEM, an unencrypted key that matches the certificate)",
				   gnutls_strerror(err));
	}
	if (w->ca_pem) {
		c.data = (unsigned char *)w->ca_pem;
		c.size = (unsigned int)strlen(w->ca_pem);
		err = gnutls_certificate_set_x509_trust_mem(cred, &c,
							    GNUTLS_X509_FMT_PEM);
		if (err <= 0) {
			gnutls_certificate_free_credentials(cred);
			return ag_web_fail(x, NULL, "tls_server_config: client_ca_file: %s",
					   err ? gnutls_strerror(err) :
					   "no PEM certificate in it");
		}
	}
	gnutls_certificate_free_credentials(cred);
	return 0;
}

static int ag_web_doc(struct ag_web_ctx *x, yaml_document_t *doc)
{
	const yaml_node_t *root = yaml_document_get_root_node(doc);
	const yaml_node_pair_t *p;
	const yaml_node_t *kn, *vn;
	bool seen[3] = { false, false, false };
	const char *k;
	int err;

	if (!root)
		return 0;		/* an empty file: plain HTTP, no auth */
	if (root->type == YAML_SCALAR_NODE && !*ag_web_scalar(root))
		return 0;
	if (root->type != YAML_MAPPING_NODE)
		return ag_web_fail(x, root, "not a mapping of tls_server_config, http_server_config, basic_auth_users");
	for (p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		kn = yaml_document_get_node(doc, p->key);
		vn = yaml_document_get_node(doc, p->value);
		k = ag_web_scalar(kn);
		if (!k)
			return ag_web_fail(x, kn, "a key that is not a string");
		if (!strcmp(k, "tls_server_config") && !seen[0]) {
			seen[0] = true;
			err = ag_web_tls(x, doc, kn, vn);
		} else if (!strcmp(k, "http_server_config") && !seen[1]) {
			seen[1] = true;
			err = ag_web_http(x, doc, vn);
		} else if (!strcmp(k, "basic_auth_users") && !seen[2]) {
			seen[2] = true;
			err = ag_web_users(x, doc, vn);
		} else if (!strcmp(k, "tls_server_config") ||
			   !strcmp(k, "http_server_config") ||
			   !strcmp(k, "basic_auth_users")) {
			return ag_web_fail(x, kn, "%s given twice", k);
		} else {
			return ag_web_fail(x, kn, "unknown key \"%s\" (tls_server_config, http_server_config, basic_auth_users)",
					   k);
		}
		if (err)
			return err;
	}
	return x->w->tls ? ag_web_check_tls(x) : 0;
}

int ag_web_load(const char *path, struct ag_web **out, char *err,
		size_t errlen)
{
	struct ag_web_ctx x = { .path = path, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	yaml_document_t doc;
	const char *slash;
	FILE *f;
	int ret;

	*out = NULL;
	x.w = calloc(1, sizeof(*x.w));
	if (!x.w)
		return -ENOMEM;
	x.w->min_version = 2;		/* TLS12, exporter-toolkit's default */
	x.w->max_version = 3;
	x.w->server_order = true;
	slash = strrchr(path, '/');
	x.dir = slash ? strndup(path, (size_t)(slash - path + 1)) : strdup("");
	if (!x.dir) {
		ag_web_free(x.w);
		return -ENOMEM;
	}
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		ret = -ENOMEM;
		goto out;
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, errlen, "%s:%zu: not YAML: %s", path,
			 parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "error");
		yaml_parser_delete(&parser);
		fclose(f);
		ret = -EINVAL;
		goto out;
	}
	ret = ag_web_doc(&x, &doc);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(f);
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	free(x.dir);
	if (ret) {
		ag_web_free(x.w);
		return ret;
	}
	x.w->crypt = calloc(1, sizeof(struct crypt_data));
	if (!x.w->crypt) {
		ag_web_free(x.w);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	*out = x.w;
	return 0;
}

void ag_web_free(struct ag_web *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	free(w->users);
	free(w->cert_pem);
	if (w->key_pem)
		explicit_bzero(w->key_pem, strlen(w->key_pem));
	free(w->key_pem);
	free(w->ca_pem);
	free(w->crypt);
	free(w);
}

static bool ag_web_same(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	unsigned char d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= x[i] ^ y[i];
	return !d;
}

static uint64_t ag_web_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

/*
 * crypt_rn(@pw, @hash) == @hash, within the budget of bcrypt checks a
 * second (-EBUSY beyond it: each costs the loop milliseconds).
 */
static int ag_web_bcrypt(struct ag_web *w, const char *pw, const char *hash)
{
	uint64_t now = ag_web_now_s();
	const char *h;

	if (now != w->bcrypt_second) {
		w->bcrypt_second = now;
		w->bcrypt_n = 0;
	}
	if (w->bcrypt_n >= AG_WEB_BCRYPT_PER_S)
		return -EBUSY;
	w->bcrypt_n++;
	h = crypt_rn(pw, hash, w->crypt, sizeof(struct crypt_data));
	return h && strlen(h) == strlen(hash) &&
	       ag_web_same(h, hash, strlen(hash)) ? 1 : 0;
}

int ag_web_auth(struct ag_web *w, const char *user, const char *pw)
{
	unsigned char d[32];
	struct ag_web_user *u = NULL;
	size_t i;
	int ok;

	if (!w->nusers)
		return 1;
	if (!user || !pw)
		return 0;
	for (i = 0; i < w->nusers; i++)
		if (!strcmp(w->users[i].name, user))
			u = &w->users[i];
	if (!u) {
		/* as long as for a known user */
		ok = ag_web_bcrypt(w, pw, w->users[0].hash);
		return ok < 0 ? ok : 0;
	}
	if (gnutls_hash_fast(GNUTLS_DIG_SHA256, pw, strlen(pw), d) < 0)
		return 0;
	if (u->cached && ag_web_same(d, u->ok_digest, sizeof(d)))
		return 1;
	ok = ag_web_bcrypt(w, pw, u->hash);
	if (ok == 1) {
		memcpy(u->ok_digest, d, sizeof(d));
		u->cached = true;
	}
	return ok;
}

const char *ag_web_client_auth_name(enum ag_client_auth a)
{
	return a < AG_CLIENT_NUM ? ag_client_auth_names[a] : "?";
}
