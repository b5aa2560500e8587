// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune agent: what the running agent (rocetuned) holds per NIC.
 *
 *	rocetune [ -j [ -p ] ] agent [ status ]
 *
 * Asks rocetuned over its status socket (RUN_DIR/rocetuned.sock, RUN_DIR
 * being $ROCETUNE_RUN_DIR or /run/rocetune) and prints its answer: per
 * NIC the profile in force, the last apply's result, the drift state and
 * the pause-storm watchdog.  Exit 1 when no agent answers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "rocetune.h"
#include "rt_apply.h"

static int rt_agent_status(struct rt_cli *cli)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	const char *req;
	char buf[4096];
	ssize_t n;
	int fd, err;

	err = rt_arg_end(cli);
	if (!err)
		err = rt_cli_no_prometheus(cli);
	if (err)
		return err;
	n = snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/rocetuned.sock",
		     rt_run_dir());
	if (n < 0 || (size_t)n >= sizeof(sun.sun_path)) {
		rt_error("%s: the run directory's name is too long",
			 rt_run_dir());
		return RT_EXIT_ERROR;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rt_error("socket: %s", strerror(errno));
		return RT_EXIT_ERROR;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		err = errno;
		close(fd);
		if (err == ENOENT || err == ECONNREFUSED)
			rt_error("rocetuned is not running (nothing listens on %s)",
				 sun.sun_path);
		else
			rt_error("cannot reach rocetuned at %s: %s%s",
				 sun.sun_path, strerror(err),
				 err == EACCES ? " (it needs root)" : "");
		return RT_EXIT_ERROR;
	}
	req = !cli->json ? "status\n" :
	      cli->pretty ? "status json pretty\n" : "status json\n";
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		rt_error("cannot ask rocetuned: %s", strerror(errno));
		close(fd);
		return RT_EXIT_ERROR;
	}
	err = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	if (n < 0)
		err = errno;
	close(fd);
	if (err) {
		rt_error("reading rocetuned's answer: %s%s", strerror(err),
			 err == EAGAIN ? " (no answer in 5 s)" : "");
		return RT_EXIT_ERROR;
	}
	return RT_EXIT_OK;
}

static int rt_agent_help(struct rt_cli *cli)
{
	(void)cli;
	printf("Usage: rocetune [ -j [ -p ] ] agent [ status ]\n"
	       "       rocetune agent help\n"
	       "Shows what the running rocetuned holds per NIC (socket %s/rocetuned.sock).\n",
	       rt_run_dir());
	return RT_EXIT_OK;
}

static const struct rt_cmd rt_agent_cmds[] = {
	{ "status",	rt_agent_status },
	{ "help",	rt_agent_help },
	{ NULL,		NULL },
};

int rt_cmd_agent(struct rt_cli *cli)
{
	cli->object = "agent";
	return rt_cli_dispatch(cli, rt_agent_cmds);
}
