// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: GET /metrics over libmicrohttpd, run from the agent's own
 * poll() loop (MHD_USE_EPOLL: one file descriptor to poll, MHD_run()
 * when it is readable), so the body is built from the agent's state
 * without threads or locks.
 *
 * One daemon per address listened on (":PORT" is one dual-stack socket,
 * a host name one per address), their epoll descriptors in one more
 * epoll set: the descriptor the loop polls.  Each caps the connections
 * of one peer address and its total, and closes idle ones, so that
 * clients that connect and say nothing cannot keep a scraper out.
 * TLS, client certificates and basic auth come from --web.config.file
 * (ag_web.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include "agent.h"
#include "rt_util.h"

#define AG_HTTP_DAEMONS	16		/* addresses of a host name */
#define AG_HTTP_REALM	"rocetuned"

struct ag_http {
	struct MHD_Daemon *d[AG_HTTP_DAEMONS];
	unsigned int nd;
	int epfd;
	struct ag_web *web;
	void (*fill)(FILE *f, void *arg);
	void *arg;
};

static enum MHD_Result ag_http_reply(struct MHD_Connection *c,
				     unsigned int code, const char *type,
				     char *body, size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

/* Basic auth: 1 passed, 0 refused, -EBUSY over the bcrypt budget. */
static int ag_http_auth(struct ag_http *h, struct MHD_Connection *c)
{
	char *pw = NULL, *user;
	int ok;

	user = MHD_basic_auth_get_username_password(c, &pw);
	ok = ag_web_auth(h->web, user, pw);
	if (pw) {
		explicit_bzero(pw, strlen(pw));
		MHD_free(pw);
	}
	if (user)
		MHD_free(user);
	return ok;
}

static enum MHD_Result ag_http_refuse(struct MHD_Connection *c, int why)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	const char *msg = why ? "too many password checks; try again\n" :
				"401 Unauthorized\n";

	r = MHD_create_response_from_buffer(strlen(msg), (void *)msg,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain");
	if (why) {
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
		ret = MHD_queue_response(c, MHD_HTTP_TOO_MANY_REQUESTS, r);
	} else {
		ret = MHD_queue_basic_auth_fail_response(c, AG_HTTP_REALM, r);
	}
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result ag_http_handler(void *cls, struct MHD_Connection *c,
				       const char *url, const char *method,
				       const char *version,
				       const char *upload_data,
				       size_t *upload_data_size, void **con_cls)
{
	struct ag_http *h = cls;
	char *body = NULL;
	size_t len = 0;
	FILE *f;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	if (*con_cls && h->web && h->web->nusers) {
		int ok = ag_http_auth(h, c);

		if (ok <= 0)
			return ag_http_refuse(c, ok);
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		body = strdup("only GET\n");
		return body ? ag_http_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED,
					    "text/plain", body,
					    strlen(body)) : MHD_NO;
	}
	/*
	 * Answer on the second call, once the request is read: a response
	 * queued on the first makes libmicrohttpd (0.9.75) close the
	 * connection after it, and every scrape would connect anew.
	 */
	if (!*con_cls) {
		*con_cls = h;
		return MHD_YES;
	}
	f = open_memstream(&body, &len);
	if (!f)
		return MHD_NO;
	if (!strcmp(url, "/metrics")) {
		h->fill(f, h->arg);
		if (fclose(f))
			return MHD_NO;
		return ag_http_reply(c, MHD_HTTP_OK,
				     "text/plain; version=0.0.4; charset=utf-8",
				     body, len);
	}
	if (!strcmp(url, "/")) {
		fputs("rocetuned: metrics at /metrics\n", f);
		if (fclose(f))
			return MHD_NO;
		return ag_http_reply(c, MHD_HTTP_OK, "text/plain", body, len);
	}
	fputs("not found; metrics are at /metrics\n", f);
	if (fclose(f))
		return MHD_NO;
	return ag_http_reply(c, MHD_HTTP_NOT_FOUND, "text/plain", body, len);
}

/* "HOST:PORT", "[V6]:PORT" or ":PORT" into @host ("" for any) and @port. */
static int ag_split_listen(const char *s, char *host, size_t hlen,
			   const char **port)
{
	const char *colon;
	size_t n;

	if (s[0] == '[') {
		colon = strstr(s, "]:");
		if (!colon)
			return -EINVAL;
		n = (size_t)(colon - s - 1);
		if (n >= hlen || !n)
			return -EINVAL;
		memcpy(host, s + 1, n);
		host[n] = '\0';
		*port = colon + 2;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -EINVAL;
		n = (size_t)(colon - s);
		if (n >= hlen || memchr(s, ':', n))
			return -EINVAL;	/* an IPv6 address needs [] */
		memcpy(host, s, n);
		host[n] = '\0';
		*port = colon + 1;
	}
	return **port ? 0 : -EINVAL;
}

static void ag_http_logger(void *cls, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	(void)cls;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	/* refused peers over their limit, TLS handshakes that failed */
	ag_log(AG_DEBUG, "metrics: %s", line);
}

/* A client certificate, when one was given, chains to client_ca_file. */
static int ag_http_verify_given(gnutls_session_t s)
{
	unsigned int n = 0, status = 0;

	if (!gnutls_certificate_get_peers(s, &n) || !n)
		return 0;
	if (gnutls_certificate_verify_peers2(s, &status) < 0 || status)
		return -1;
	return 0;
}

static int ag_http_verify_required(gnutls_session_t s)
{
	unsigned int n = 0;

	if (!gnutls_certificate_get_peers(s, &n) || !n)
		return -1;
	return ag_http_verify_given(s);
}

/*
 * A new connection's TLS session, before its handshake: ask for a client
 * certificate as client_auth_type says.  libmicrohttpd itself asks
 * (GNUTLS_CERT_REQUEST) whenever it has CAs, and verifies nothing.
 */
static void ag_http_notify(void *cls, struct MHD_Connection *c,
			   void **socket_context,
			   enum MHD_ConnectionNotificationCode toe)
{
	const union MHD_ConnectionInfo *i;
	struct ag_http *h = cls;
	gnutls_session_t s;

	(void)socket_context;
	if (toe != MHD_CONNECTION_NOTIFY_STARTED || !h->web || !h->web->tls)
		return;
	i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!i || !i->tls_session)
		return;
	s = i->tls_session;
	switch (h->web->client_auth) {
	case AG_CLIENT_NONE:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_IGNORE);
		break;
	case AG_CLIENT_REQUEST:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUEST);
		break;
	case AG_CLIENT_REQUIRE_ANY:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUIRE);
		break;
	case AG_CLIENT_VERIFY_IF_GIVEN:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUEST);
		gnutls_session_set_verify_function(s, ag_http_verify_given);
		break;
	default:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUIRE);
		gnutls_session_set_verify_function(s, ag_http_verify_required);
		break;
	}
}

static struct MHD_Daemon *ag_http_daemon(struct ag_http *h,
					 const struct sockaddr *sa,
					 bool dual)
{
	struct MHD_OptionItem o[16];
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	unsigned int n = 0;

	if (sa->sa_family == AF_INET6)
		flags |= dual ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_EXTERNAL_LOGGER,
					  (intptr_t)ag_http_logger, NULL };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0,
					  (void *)sa };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT,
					  AG_HTTP_TIMEOUT_S, NULL };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT,
					  AG_HTTP_MAX_CONN, NULL };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT,
					  AG_HTTP_PER_PEER, NULL };
	if (h->web && h->web->tls) {
		flags |= MHD_USE_TLS;
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0,
						  h->web->key_pem };
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0,
						  h->web->cert_pem };
		if (h->web->ca_pem)
			o[n++] = (struct MHD_OptionItem){
				MHD_OPTION_HTTPS_MEM_TRUST, 0, h->web->ca_pem };
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES,
						  0, h->web->priorities };
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION,
						  (intptr_t)ag_http_notify, h };
	}
	o[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	return MHD_start_daemon(flags, 0, NULL, NULL, ag_http_handler, h,
				MHD_OPTION_ARRAY, o, MHD_OPTION_END);
}

static int ag_http_add(struct ag_http *h, const char *listen,
		       const struct sockaddr *sa, socklen_t salen, bool dual)
{
	const union MHD_DaemonInfo *i;
	struct epoll_event ev = { .events = EPOLLIN };
	char addr[NI_MAXHOST] = "?", port[NI_MAXSERV] = "?";
	struct MHD_Daemon *d;

	getnameinfo(sa, salen, addr, sizeof(addr), port, sizeof(port),
		    NI_NUMERICHOST | NI_NUMERICSERV);
	if (h->nd == AG_HTTP_DAEMONS) {
		ag_log(AG_WARNING, "--metrics-listen %s: more than %d addresses; not on %s",
		       listen, AG_HTTP_DAEMONS, addr);
		return 0;
	}
	d = ag_http_daemon(h, sa, dual);
	if (!d) {
		ag_log(AG_ERR, "--metrics-listen %s: cannot serve metrics on [%s]:%s (address in use, or not an address of this host?)",
		       listen, addr, port);
		return -1;
	}
	h->d[h->nd++] = d;
	i = MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD);
	if (!i || epoll_ctl(h->epfd, EPOLL_CTL_ADD, i->epoll_fd, &ev)) {
		ag_log(AG_ERR, "metrics: epoll: %s", strerror(errno));
		return -1;
	}
	ag_log(AG_INFO, "metrics on %s://%s%s%s:%s/metrics%s%s",
	       h->web && h->web->tls ? "https" : "http",
	       sa->sa_family == AF_INET6 ? "[" : "", addr,
	       sa->sa_family == AF_INET6 ? "]" : "", port,
	       dual ? " (and every IPv4 address)" : "",
	       h->web && h->web->nusers ? ", basic auth" : "");
	return 0;
}

/* ":PORT": one IPv6 socket that takes IPv4 too, or IPv4 alone. */
static int ag_http_any(struct ag_http *h, const char *listen, uint16_t port)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in s4 = { .sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	int fd;

	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		close(fd);
		return ag_http_add(h, listen, (struct sockaddr *)&s6,
				   sizeof(s6), true);
	}
	ag_log(AG_NOTICE, "--metrics-listen %s: no IPv6 on this host (%s); IPv4 only",
	       listen, strerror(errno));
	return ag_http_add(h, listen, (struct sockaddr *)&s4, sizeof(s4),
			   false);
}

struct ag_http *ag_http_start(const char *listen, struct ag_web *web,
			      void (*fill)(FILE *f, void *arg), void *arg)
{
	struct addrinfo hints = { 0 }, *ai = NULL, *a, *b;
	struct ag_http *h;
	const char *port;
	uint32_t portnum;
	char host[256];
	int err = 0;

	if (ag_split_listen(listen, host, sizeof(host), &port) ||
	    rt_parse_u32(port, 0, 65535, &portnum)) {
		ag_log(AG_ERR, "--metrics-listen %s: not ADDR:PORT (:PORT, 127.0.0.1:PORT, [::1]:PORT, HOST:PORT)",
		       listen);
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->fill = fill;
	h->arg = arg;
	h->web = web;
	h->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (h->epfd < 0) {
		ag_log(AG_ERR, "metrics: epoll: %s", strerror(errno));
		free(h);
		return NULL;
	}
	if (!host[0]) {
		err = ag_http_any(h, listen, (uint16_t)portnum);
		goto out;
	}
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
	err = getaddrinfo(host, port, &hints, &ai);
	if (err == EAI_NONAME || err == EAI_ADDRFAMILY) {
		/* AI_ADDRCONFIG hides ::1 on a host with only loopback v6 */
		hints.ai_flags = AI_NUMERICSERV;
		err = getaddrinfo(host, port, &hints, &ai);
	}
	if (err) {
		ag_log(AG_ERR, "--metrics-listen %s: %s", listen,
		       gai_strerror(err));
		err = -1;
		goto out;
	}
	for (a = ai; a && !err; a = a->ai_next) {
		for (b = ai; b != a; b = b->ai_next)
			if (b->ai_addrlen == a->ai_addrlen &&
			    !memcmp(b->ai_addr, a->ai_addr, a->ai_addrlen))
				break;
		if (b == a)	/* each address once */
			err = ag_http_add(h, listen, a->ai_addr, a->ai_addrlen,
					  false);
	}
	freeaddrinfo(ai);
out:
	if (err || !h->nd) {
		ag_http_stop(h);
		return NULL;
	}
	return h;
}

int ag_http_fd(const struct ag_http *h)
{
	return h->epfd;
}

int ag_http_timeout_ms(struct ag_http *h)
{
	MHD_UNSIGNED_LONG_LONG ms;
	int t = -1;
	unsigned int i;

	for (i = 0; i < h->nd; i++) {
		if (MHD_get_timeout(h->d[i], &ms) != MHD_YES)
			continue;
		if (ms > 60000)
			ms = 60000;
		if (t < 0 || (int)ms < t)
			t = (int)ms;
	}
	return t;
}

void ag_http_run(struct ag_http *h)
{
	unsigned int i;

	for (i = 0; i < h->nd; i++)
		MHD_run(h->d[i]);
}

void ag_http_stop(struct ag_http *h)
{
	unsigned int i;

	if (!h)
		return;
	for (i = 0; i < h->nd; i++)
		MHD_stop_daemon(h->d[i]);
	if (h->epfd >= 0)
		close(h->epfd);
	free(h);
}
