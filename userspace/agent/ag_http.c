// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: GET /metrics over libmicrohttpd, run from the agent's own
 * poll() loop (MHD_USE_EPOLL: one file descriptor to poll, MHD_run()
 * when it is readable), so the body is built from the agent's state
 * without threads or locks.
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "agent.h"

struct ag_http {
	struct MHD_Daemon *d;
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
		if (n >= hlen)
			return -EINVAL;
		memcpy(host, s + 1, n);
		host[n] = '\0';
		*port = colon + 2;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -EINVAL;
		n = (size_t)(colon - s);
		if (n >= hlen)
			return -EINVAL;
		memcpy(host, s, n);
		host[n] = '\0';
		*port = colon + 1;
	}
	return **port ? 0 : -EINVAL;
}

struct ag_http *ag_http_start(const char *listen,
			      void (*fill)(FILE *f, void *arg), void *arg)
{
	struct addrinfo hints = { 0 }, *ai = NULL;
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	struct ag_http *h;
	const char *port;
	char host[256];
	int err;

	if (ag_split_listen(listen, host, sizeof(host), &port)) {
		ag_log(AG_ERR, "--metrics-listen %s: not ADDR:PORT ([ADDR6]:PORT, :PORT)",
		       listen);
		return NULL;
	}
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	err = getaddrinfo(host[0] ? host : NULL, port, &hints, &ai);
	if (err) {
		ag_log(AG_ERR, "--metrics-listen %s: %s", listen,
		       gai_strerror(err));
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		freeaddrinfo(ai);
		return NULL;
	}
	h->fill = fill;
	h->arg = arg;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, ag_http_handler, h,
				MHD_OPTION_SOCK_ADDR, ai->ai_addr,
				MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				MHD_OPTION_CONNECTION_LIMIT, 16u,
				MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!h->d) {
		ag_log(AG_ERR, "cannot serve metrics on %s (address in use, or not an address of this host?)",
		       listen);
		free(h);
		return NULL;
	}
	ag_log(AG_INFO, "metrics on http://%s/metrics", listen);
	return h;
}

int ag_http_fd(const struct ag_http *h)
{
	const union MHD_DaemonInfo *i;

	i = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	return i ? i->epoll_fd : -1;
}

int ag_http_timeout_ms(struct ag_http *h)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (MHD_get_timeout(h->d, &ms) != MHD_YES)
		return -1;
	return ms > 60000 ? 60000 : (int)ms;
}

void ag_http_run(struct ag_http *h)
{
	MHD_run(h->d);
}

void ag_http_stop(struct ag_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	free(h);
}
