// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: the status socket.  A unix stream socket in the run
 * directory; a client ("rocetune agent status") writes one request line,
 * "status", "status json" or "status json pretty", and reads the answer
 * until the agent closes the connection.  Only root can connect (the
 * socket is 0600, as the run directory's other files).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
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

void ag_status_serve(int fd, void (*fill)(FILE *f, bool json, bool pretty,
					  void *arg), void *arg)
{
	struct timeval tv = { .tv_sec = 1 };
	char req[128];
	ssize_t n;
	size_t got = 0;
	FILE *f;
	int c;

	c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return;
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (got < sizeof(req) - 1) {
		n = read(c, req + got, sizeof(req) - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
		if (memchr(req, '\n', got))
			break;
	}
	req[got] = '\0';
	req[strcspn(req, "\n")] = '\0';
	f = fdopen(c, "w");
	if (!f) {
		close(c);
		return;
	}
	if (strncmp(req, "status", 6)) {
		fprintf(f, "unknown request \"%s\" (status [json] [pretty])\n",
			req);
	} else {
		fill(f, strstr(req, "json") != NULL,
		     strstr(req, "pretty") != NULL, arg);
	}
	fclose(f);
}
