// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: GET /metrics over libmicrohttpd, run from the agent's own
 * poll() loop (MHD_USE_EPOLL: one file descriptor to poll, MHD_run()
 * when it is readable).
 *
 * A scrape never waits in the loop: the loop writes the agent's own
 * series (its state, no I/O), suspends the connection and queues the
 * rest for the collector thread, which runs the netlink dumps of the
 * module's ports and QPs on its own socket (ag_collect_metrics()).  It
 * takes every scrape queued at once, collects once for all of them,
 * moves them to the done list and wakes the loop by an eventfd in the
 * epoll set; the loop resumes them and libmicrohttpd calls the handler
 * again, which answers.  The two share only the two lists, under h->mu.
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
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include "agent.h"
#include "rt_util.h"

#define AG_HTTP_DAEMONS	16		/* addresses of a host name */
#define AG_HTTP_REALM	"rocetuned"
#define AG_HTTP_PROM	"text/plain; version=0.0.4; charset=utf-8"

/* One scrape: its connection is suspended while the collector works. */
struct ag_scrape {
	struct MHD_Connection *c;
	char *body;			/* the loop's part, then all of it */
	size_t len;
	void *job;			/* for src.collect, free()d */
	struct ag_scrape *next;
};

struct ag_http {
	struct MHD_Daemon *d[AG_HTTP_DAEMONS];
	unsigned int nd;
	int epfd;
	int efd;			/* the collector's "done" to the loop */
	struct ag_web *web;
	struct ag_http_src src;
	pthread_t thr;
	bool thr_started;
	pthread_mutex_t mu;		/* queue, done, stop */
	pthread_cond_t cv;		/* queue or stop */
	struct ag_scrape *queue;	/* for the collector */
	struct ag_scrape *done;		/* for the loop to resume */
	bool stop;
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

/* Append @n bytes of @t to @sc's body; false when out of memory. */
static bool ag_scrape_append(struct ag_scrape *sc, const char *t, size_t n)
{
	char *b;

	if (!n)
		return true;
	b = realloc(sc->body, sc->len + n + 1);
	if (!b)
		return false;
	memcpy(b + sc->len, t, n);
	sc->len += n;
	b[sc->len] = '\0';
	sc->body = b;
	return true;
}

static void *ag_http_collector(void *arg)
{
	struct ag_http *h = arg;
	struct ag_scrape *batch, *sc;
	uint64_t one = 1;
	char *t = NULL;
	size_t tlen = 0;
	FILE *f;

	pthread_mutex_lock(&h->mu);
	for (;;) {
		while (!h->queue && !h->stop)
			pthread_cond_wait(&h->cv, &h->mu);
		if (h->stop)
			break;
		batch = h->queue;	/* the newest first */
		h->queue = NULL;
		pthread_mutex_unlock(&h->mu);

		/* one collection, the newest scrape's, for all of them */
		f = open_memstream(&t, &tlen);
		if (f) {
			h->src.collect(f, batch->job);
			if (fclose(f)) {
				ag_log(AG_WARNING, "metrics: no memory for the module's series");
				tlen = 0;
			}
		} else {
			ag_log(AG_WARNING, "metrics: no memory for the module's series");
		}
		for (sc = batch; sc; sc = sc->next) {
			if (t && !ag_scrape_append(sc, t, tlen))
				ag_log(AG_WARNING, "metrics: no memory for the module's series");
			free(sc->job);
			sc->job = NULL;
		}
		free(t);
		t = NULL;
		tlen = 0;

		pthread_mutex_lock(&h->mu);
		for (sc = batch; sc->next; sc = sc->next)
			;
		sc->next = h->done;
		h->done = batch;
		if (write(h->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			ag_log(AG_ERR, "metrics: eventfd: %s", strerror(errno));
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* Hand the scrape to the collector; its connection waits, suspended. */
static enum MHD_Result ag_http_scrape(struct ag_http *h,
				      struct MHD_Connection *c,
				      void **con_cls, char *body, size_t len,
				      void *job)
{
	struct ag_scrape *sc;

	sc = job ? calloc(1, sizeof(*sc)) : NULL;
	if (!sc) {
		free(job);	/* out of memory: what the loop wrote */
		return ag_http_reply(c, MHD_HTTP_OK, AG_HTTP_PROM, body, len);
	}
	sc->c = c;
	sc->body = body;
	sc->len = len;
	sc->job = job;
	MHD_suspend_connection(c);
	*con_cls = sc;
	pthread_mutex_lock(&h->mu);
	sc->next = h->queue;
	h->queue = sc;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return MHD_YES;
}

/* The end of a request: a scrape's memory, answered or not. */
static void ag_http_completed(void *cls, struct MHD_Connection *c,
			      void **con_cls,
			      enum MHD_RequestTerminationCode toe)
{
	struct ag_scrape *sc = *con_cls;

	(void)c;
	(void)toe;
	if (!sc || *con_cls == cls)
		return;
	free(sc->body);
	free(sc->job);
	free(sc);
	*con_cls = NULL;
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
	if (*con_cls == h && h->web && h->web->nusers) {
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
	if (*con_cls != h) {
		/* resumed: the collector has completed the scrape */
		struct ag_scrape *sc = *con_cls;

		body = sc->body;
		sc->body = NULL;
		return ag_http_reply(c, MHD_HTTP_OK, AG_HTTP_PROM, body,
				     sc->len);
	}
	f = open_memstream(&body, &len);
	if (!f)
		return MHD_NO;
	if (!strcmp(url, "/metrics")) {
		void *job = h->src.fill(f, h->src.arg);

		if (fclose(f)) {
			free(job);
			free(body);
			return MHD_NO;
		}
		return ag_http_scrape(h, c, con_cls, body, len, job);
	}
	if (!strcmp(url, "/ready") && h->src.ready) {
		bool ready = !h->src.ready(f, h->src.arg);

		if (ready)
			fputs("ready\n", f);
		if (fclose(f))
			return MHD_NO;
		return ag_http_reply(c, ready ? MHD_HTTP_OK :
				     MHD_HTTP_SERVICE_UNAVAILABLE,
				     "text/plain; charset=utf-8", body, len);
	}
	if (!strcmp(url, "/")) {
		fputs("rocetuned: metrics at /metrics, readiness at /ready\n", f);
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
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
			     MHD_ALLOW_SUSPEND_RESUME;
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
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED,
					  (intptr_t)ag_http_completed, h };
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

/* The collector thread, blocking every signal: the loop's signalfd takes them. */
static int ag_http_thread(struct ag_http *h)
{
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t all, old;
	int err;

	h->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (h->efd < 0 || epoll_ctl(h->epfd, EPOLL_CTL_ADD, h->efd, &ev)) {
		ag_log(AG_ERR, "metrics: the collector's eventfd: %s",
		       strerror(errno));
		return -1;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&h->thr, NULL, ag_http_collector, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		ag_log(AG_ERR, "metrics: cannot start the collector thread: %s",
		       strerror(err));
		return -1;
	}
	h->thr_started = true;
	return 0;
}

struct ag_http *ag_http_start(const char *listen, struct ag_web *web,
			      const struct ag_http_src *src)
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
	h->src = *src;
	h->web = web;
	h->efd = -1;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	h->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (h->epfd < 0 || ag_http_thread(h)) {
		if (h->epfd < 0)
			ag_log(AG_ERR, "metrics: epoll: %s", strerror(errno));
		ag_http_stop(h);
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

/* Resume the connections of @sc's list: the handler answers them. */
static void ag_http_resume(struct ag_scrape *sc)
{
	struct ag_scrape *next;

	for (; sc; sc = next) {
		next = sc->next;
		sc->next = NULL;
		MHD_resume_connection(sc->c);
	}
}

void ag_http_run(struct ag_http *h)
{
	struct ag_scrape *done;
	unsigned int i;
	uint64_t v;

	if (read(h->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		ag_log(AG_WARNING, "metrics: eventfd: %s", strerror(errno));
	pthread_mutex_lock(&h->mu);
	done = h->done;
	h->done = NULL;
	pthread_mutex_unlock(&h->mu);
	ag_http_resume(done);
	for (i = 0; i < h->nd; i++)
		MHD_run(h->d[i]);
}

void ag_http_stop(struct ag_http *h)
{
	unsigned int i;

	if (!h)
		return;
	if (h->thr_started) {
		pthread_mutex_lock(&h->mu);
		h->stop = true;
		pthread_cond_signal(&h->cv);
		pthread_mutex_unlock(&h->mu);
		pthread_join(h->thr, NULL);
	}
	/* scrapes not answered: closed with their daemon, which frees them */
	ag_http_resume(h->queue);
	ag_http_resume(h->done);
	h->queue = h->done = NULL;
	for (i = 0; i < h->nd; i++)
		MHD_stop_daemon(h->d[i]);
	if (h->efd >= 0)
		close(h->efd);
	if (h->epfd >= 0)
		close(h->epfd);
	pthread_cond_destroy(&h->cv);
	pthread_mutex_destroy(&h->mu);
	free(h);
}
