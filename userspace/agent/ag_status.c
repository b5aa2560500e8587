// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: the status socket.  A unix stream socket in the run
 * directory; a client ("rocetune agent status") writes one request line,
 * "status", "status json" or "status json pretty", and reads the answer
 * until the agent closes the connection.  Only root can connect (the
 * socket is 0600, as the run directory's other files).
 *
 * Nothing here blocks the agent's loop: the sockets are non-blocking, and
 * each client has its state (request read so far, answer left to write)
 * and AG_STATUS_TIMEOUT_MS for the whole exchange, after which it is
 * closed.  At most AG_STATUS_CLIENTS at once; when all are taken, the one
 * silent longest makes room for a new one, and while every one has
 * spoken, new ones wait in the listen backlog.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

int ag_status_path(char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/rocetuned.sock", rt_run_dir());

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int ag_status_listen(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, err;

	if (ag_status_path(sun.sun_path, sizeof(sun.sun_path))) {
		ag_log(AG_ERR, "status socket: the run directory's name is too long");
		return -ENAMETOOLONG;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	unlink(sun.sun_path);	/* ours: the pid lock is held */
	old = umask(0077);
	err = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (err || listen(fd, 8)) {
		err = -errno;
		ag_log(AG_ERR, "status socket %s: %s", sun.sun_path,
		       strerror(errno));
		close(fd);
		return err;
	}
	return fd;
}

struct ag_status_client {
	int fd;				/* -1: the slot is free */
	uint64_t deadline_ms;		/* closed then, whatever its state */
	char req[128];
	size_t got;
	char *out;			/* the answer, NULL while reading */
	size_t outlen, off;
};

struct ag_status {
	int fd;
	void (*fill)(FILE *f, bool json, bool pretty, void *arg);
	void *arg;
	struct ag_status_client c[AG_STATUS_CLIENTS];
	uint64_t served, timed_out;
};

static uint64_t ag_status_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

struct ag_status *ag_status_start(void (*fill)(FILE *f, bool json,
					       bool pretty, void *arg),
				  void *arg)
{
	struct ag_status *s = calloc(1, sizeof(*s));
	unsigned int i;

	if (!s)
		return NULL;
	s->fd = ag_status_listen();
	if (s->fd < 0) {
		free(s);
		return NULL;
	}
	s->fill = fill;
	s->arg = arg;
	for (i = 0; i < AG_STATUS_CLIENTS; i++)
		s->c[i].fd = -1;
	return s;
}

static void ag_status_drop(struct ag_status_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* The request is in: the answer, written as far as the socket takes it. */
static void ag_status_answer(struct ag_status *s, struct ag_status_client *c)
{
	FILE *f;

	c->req[c->got] = '\0';
	c->req[strcspn(c->req, "\n")] = '\0';
	f = open_memstream(&c->out, &c->outlen);
	if (!f) {
		ag_status_drop(c);
		return;
	}
	if (strncmp(c->req, "status", 6))
		fprintf(f, "unknown request \"%s\" (status [json] [pretty])\n",
			c->req);
	else
		s->fill(f, strstr(c->req, "json") != NULL,
			strstr(c->req, "pretty") != NULL, s->arg);
	if (fclose(f)) {
		c->out = NULL;
		ag_status_drop(c);
		return;
	}
	c->off = 0;
	s->served++;
}

static void ag_status_io(struct ag_status *s, struct ag_status_client *c)
{
	ssize_t n;

	while (!c->out) {
		n = read(c->fd, c->req + c->got, sizeof(c->req) - 1 - c->got);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n > 0)
			c->got += (size_t)n;
		if (n <= 0 || c->got == sizeof(c->req) - 1 ||
		    memchr(c->req, '\n', c->got))
			ag_status_answer(s, c);
		if (c->fd < 0)
			return;
	}
	while (c->off < c->outlen) {
		n = send(c->fd, c->out + c->off, c->outlen - c->off,
			 MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			ag_status_drop(c);
			return;
		}
		c->off += (size_t)n;
	}
	ag_status_drop(c);	/* all said: the client reads until EOF */
}

/*
 * A free slot, or the one of the client silent longest (@evict: drop it
 * to make room); NULL if none.
 */
static struct ag_status_client *ag_status_slot(struct ag_status *s,
					       bool evict)
{
	struct ag_status_client *old = NULL;
	unsigned int i;

	for (i = 0; i < AG_STATUS_CLIENTS; i++) {
		if (s->c[i].fd < 0)
			return &s->c[i];
		if (!s->c[i].out && !s->c[i].got &&
		    (!old || s->c[i].deadline_ms < old->deadline_ms))
			old = &s->c[i];
	}
	if (old && evict) {
		s->timed_out++;
		ag_status_drop(old);
	}
	return old;
}

static void ag_status_accept(struct ag_status *s)
{
	struct ag_status_client *c;
	int fd;

	/* Every one served already: new ones wait in the backlog. */
	while (ag_status_slot(s, false)) {
		fd = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		c = ag_status_slot(s, true);
		c->fd = fd;
		c->deadline_ms = ag_status_now_ms() + AG_STATUS_TIMEOUT_MS;
		ag_status_io(s, c);
	}
}

size_t ag_status_pollfds(const struct ag_status *s, struct pollfd *pfd)
{
	size_t n = 0, free_slots = 0;
	unsigned int i;

	for (i = 0; i < AG_STATUS_CLIENTS; i++) {
		const struct ag_status_client *c = &s->c[i];

		pfd[n].fd = c->fd;
		pfd[n].events = c->out ? POLLOUT : POLLIN;
		pfd[n].revents = 0;
		n++;
		if (c->fd < 0 || (!c->out && !c->got))
			free_slots++;
	}
	/* Listen only when a slot is free or can be freed. */
	pfd[n].fd = free_slots ? s->fd : -1;
	pfd[n].events = POLLIN;
	pfd[n].revents = 0;
	return n + 1;
}

int ag_status_timeout_ms(const struct ag_status *s)
{
	uint64_t now = ag_status_now_ms(), t = 0;
	unsigned int i;

	for (i = 0; i < AG_STATUS_CLIENTS; i++)
		if (s->c[i].fd >= 0 && (!t || s->c[i].deadline_ms < t))
			t = s->c[i].deadline_ms;
	if (!t)
		return -1;
	return t <= now ? 0 : (int)(t - now);
}

void ag_status_run(struct ag_status *s, const struct pollfd *pfd)
{
	uint64_t now;
	unsigned int i;

	for (i = 0; i < AG_STATUS_CLIENTS; i++)
		if (s->c[i].fd >= 0 && pfd[i].fd == s->c[i].fd &&
		    pfd[i].revents)
			ag_status_io(s, &s->c[i]);
	now = ag_status_now_ms();
	for (i = 0; i < AG_STATUS_CLIENTS; i++)
		if (s->c[i].fd >= 0 && s->c[i].deadline_ms <= now) {
			s->timed_out++;
			ag_status_drop(&s->c[i]);
		}
	if (pfd[AG_STATUS_CLIENTS].fd >= 0 &&
	    pfd[AG_STATUS_CLIENTS].revents)
		ag_status_accept(s);
}

void ag_status_stop(struct ag_status *s)
{
	char path[108];
	unsigned int i;

	if (!s)
		return;
	for (i = 0; i < AG_STATUS_CLIENTS; i++)
		ag_status_drop(&s->c[i]);
	close(s->fd);
	if (!ag_status_path(path, sizeof(path)))
		unlink(path);
	free(s);
}
