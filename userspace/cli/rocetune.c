// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: command-line tool for the rocetune kernel module.
 *
 *	rocetune [ OPTIONS ] OBJECT { COMMAND | help }
 *
 * main parses the global options and hands over to the object; each
 * object lives in its own file (dev.c, port.c, config.c, monitor.c, qp.c).
 */
#include <stdio.h>

#include "rocetune.h"

static int rt_cmd_help(struct rt_cli *cli)
{
	(void)cli;
	rt_usage(stdout);
	return RT_EXIT_OK;
}

static const struct rt_cmd rt_objects[] = {
	{ "help",	rt_cmd_help },
	{ "dev",	rt_cmd_dev },
	{ "port",	rt_cmd_port },
	{ "config",	rt_cmd_config },
	{ "monitor",	rt_cmd_monitor },
	{ "qp",		rt_cmd_qp },
	{ "profile",	rt_cmd_profile },
	{ "agent",	rt_cmd_agent },
	{ NULL,		NULL },
};

int main(int argc, char **argv)
{
	struct rt_cli cli;
	int ret;

	ret = rt_cli_options(&cli, argc, argv);
	if (ret >= 0)
		return ret;
	if (!rt_arg_peek(&cli)) {
		rt_usage(stderr);
		return RT_EXIT_USAGE;
	}
	rt_print_init(&cli.pr, stdout, cli.json, cli.pretty);
	ret = rt_cli_dispatch(&cli, rt_objects);
	rt_nl_close(&cli.nl);
	if (fflush(stdout) && ret == RT_EXIT_OK) {
		rt_error("cannot write the output");
		ret = RT_EXIT_ERROR;
	}
	return ret;
}
