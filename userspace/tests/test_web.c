// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of rocetuned's web configuration file (ag_web.c, cmocka):
 * the errors a bad file gets (file:line and the key), and basic auth:
 * right and wrong passwords, the remembered good password and the
 * budget of bcrypt checks.  TLS, certificates and a real Prometheus are
 * selftests/agent_web.sh's.
 */
#define _GNU_SOURCE
#include <crypt.h>
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

#include "agent.h"

static char dir[] = "/tmp/rt-web-test.XXXXXX";
static char hash[128];

/* bcrypt of "pw" at the lowest cost, from libcrypt */
static int setup(void **state)
{
	char salt[64];

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	if (!crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof(salt)))
		return -1;
	snprintf(hash, sizeof(hash), "%s", crypt("pw", salt));
	return strncmp(hash, "$2b$04$", 7) ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

/* Load @text from dir/name; the error text in @err. */
static int load(const char *name, const char *text, struct ag_web **w,
		char *err, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	err[0] = '\0';
	return ag_web_load(path, w, err, len);
}

/* The file is refused, and the error has @want (after "dir/"). */
static void refused(const char *name, const char *text, const char *want)
{
	struct ag_web *w = (void *)1;
	char err[1024], full[512];

	assert_int_equal(load(name, text, &w, err, sizeof(err)), -EINVAL);
	assert_null(w);
	snprintf(full, sizeof(full), "%s/%s", dir, want);
	if (!strstr(err, full))
		fail_msg("error \"%s\" has not \"%s\"", err, full);
}

static void web_errors(void **state)
{
	(void)state;
	refused("a.yml", "foo: 1\n", "a.yml:1: unknown key \"foo\"");
	refused("b.yml", "# c\n\ntls_server_config:\n  cert_file: x.crt\n  bad: 1\n",
		"b.yml:4: tls_server_config: cert_file ");
	refused("c.yml", "tls_server_config:\n  curve_preferences: [X25519]\n",
		"c.yml:2: tls_server_config: curve_preferences: not supported");
	refused("d.yml", "tls_server_config:\n  min_version: TLS14\n",
		"d.yml:2: tls_server_config: min_version: \"TLS14\" is none of");
	refused("e.yml", "basic_auth_users:\n  u: $2b$04$short\n",
		"e.yml:2: basic_auth_users: u: not a bcrypt hash");
	refused("f.yml", "basic_auth_users: [u]\n",
		"f.yml:1: basic_auth_users: not a mapping");
	refused("g.yml", "http_server_config:\n  headers:\n    X-A: b\n",
		"g.yml:2: http_server_config: headers: not supported");
	refused("h.yml", "http_server_config:\n  http2: maybe\n",
		"h.yml:2: http_server_config: http2: not a boolean");
	refused("i.yml", "- a\n- b\n", "i.yml:1: not a mapping");
	refused("j.yml", "a: [\n", "j.yml:2: not YAML");
	refused("k.yml", "tls_server_config:\n  client_auth_type: NoClientCert\n",
		"k.yml:1: tls_server_config: missing cert_file");
	refused("l.yml", "basic_auth_users: {}\nbasic_auth_users: {}\n",
		"l.yml:2: basic_auth_users given twice");
}

static void web_empty(void **state)
{
	struct ag_web *w;
	char err[256];

	(void)state;
	assert_int_equal(load("empty.yml", "", &w, err, sizeof(err)), 0);
	assert_non_null(w);
	assert_false(w->tls);
	assert_int_equal(w->nusers, 0);
	/* no users: anyone passes */
	assert_int_equal(ag_web_auth(w, NULL, NULL), 1);
	ag_web_free(w);
	assert_int_equal(load("http2.yml", "http_server_config:\n  http2: false\n",
			      &w, err, sizeof(err)), 0);
	ag_web_free(w);
}

static void web_basic_auth(void **state)
{
	struct ag_web *w;
	char text[256], err[256];
	int i, busy = 0;

	(void)state;
	snprintf(text, sizeof(text), "basic_auth_users:\n  prom: '%s'\n", hash);
	assert_int_equal(load("auth.yml", text, &w, err, sizeof(err)), 0);
	assert_int_equal(w->nusers, 1);
	assert_int_equal(ag_web_auth(w, "prom", "pw"), 1);
	assert_int_equal(ag_web_auth(w, "prom", "pW"), 0);
	assert_int_equal(ag_web_auth(w, "root", "pw"), 0);
	assert_int_equal(ag_web_auth(w, NULL, NULL), 0);
	assert_int_equal(ag_web_auth(w, "prom", NULL), 0);
	/* wrong passwords run into the budget of bcrypt checks ... */
	for (i = 0; i < 40; i++)
		if (ag_web_auth(w, "prom", "wrong") == -EBUSY)
			busy++;
	assert_true(busy >= 40 - 2 * 8);
	/* ... while the good one, remembered, needs no check */
	assert_int_equal(ag_web_auth(w, "prom", "pw"), 1);
	/* and a good password not remembered waits for the next second */
	sleep(2);
	assert_int_equal(ag_web_auth(w, "prom", "pw2"), 0);
	assert_int_equal(ag_web_auth(w, "prom", "pw"), 1);
	ag_web_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(web_errors),
		cmocka_unit_test(web_empty),
		cmocka_unit_test(web_basic_auth),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
