// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune monitor: print the module's events as they come; with -j one
 * JSON object per line.
 *
 *	rocetune [ -j ] monitor [ events ]
 */
#include <errno.h>
#include <stdio.h>

#include "rocetune.h"

static void rt_event_print_dev(struct rt_print *pr, const struct rt_event *ev)
{
	if (rt_has(ev->attrs, ROCETUNE_A_DEV_NAME))
		rt_print_string(pr, RT_PRINT_ANY, "dev", " %s", ev->dev);
	if (rt_has(ev->attrs, ROCETUNE_A_DEV_INDEX))
		rt_print_uint(pr, RT_PRINT_JSON, "dev_index", NULL, ev->dev_index);
	if (rt_has(ev->attrs, ROCETUNE_A_PORT_INDEX))
		rt_print_uint(pr, RT_PRINT_ANY, "port", "/%" PRIu64, ev->port);
	if (rt_has(ev->attrs, ROCETUNE_A_DEV_OLD_NAME))
		rt_print_kv_string(pr, "old_name", ev->old_name);
}

static void rt_event_print_port(struct rt_print *pr, const struct rt_event *ev)
{
	const char *state = rt_port_state_name(ev->state);
	char num[8];

	if (rt_has(ev->attrs, ROCETUNE_A_PORT_STATE)) {
		snprintf(num, sizeof(num), "%u", ev->state);
		rt_print_kv_string(pr, "state", state ? state : num);
	}
	if (rt_has(ev->attrs, ROCETUNE_A_PORT_NETDEV_NAME))
		rt_print_kv_string(pr, "netdev", ev->netdev);
	if (rt_has(ev->attrs, ROCETUNE_A_PORT_NETDEV_IFINDEX))
		rt_print_kv_uint(pr, "netdev_ifindex", ev->netdev_ifindex);
	if (rt_has(ev->attrs, ROCETUNE_A_EVENT_PRIO))
		rt_print_kv_uint(pr, "prio", ev->prio);
}

static void rt_event_print_values(struct rt_print *pr, const struct rt_event *ev)
{
	if (rt_has(ev->attrs, ROCETUNE_A_EVENT_VALUE))
		rt_print_kv_uint(pr, "value", ev->value);
	if (rt_has(ev->attrs, ROCETUNE_A_EVENT_THRESH))
		rt_print_kv_uint(pr, "thresh", ev->thresh);
	if (rt_has(ev->attrs, ROCETUNE_A_EVENT_DURATION_MS))
		rt_print_kv_uint(pr, "duration_ms", ev->duration_ms);
	if (rt_has(ev->attrs, ROCETUNE_A_EVENT_TIME_NS))
		rt_print_kv_uint(pr, "time_ns", ev->time_ns);
}

void rt_event_print(struct rt_print *pr, const struct rt_event *ev)
{
	const char *name = rt_event_name(ev->type);
	char num[16];

	snprintf(num, sizeof(num), "%u", ev->type);
	rt_print_open_object(pr, NULL);
	rt_print_string(pr, RT_PRINT_ANY, "event", "%s", name ? name : num);
	rt_event_print_dev(pr, ev);
	rt_event_print_port(pr, ev);
	rt_event_print_values(pr, ev);
	rt_print_text(pr, "\n");
	rt_print_close_object(pr);
	fflush(pr->f);
}

static int rt_monitor_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct rt_cli *cli = arg;
	struct rt_event ev;

	if (rt_event_parse(nlh, &ev)) {
		rt_error("malformed event message from the kernel; skipped");
		return 0;
	}
	rt_event_print(&cli->pr, &ev);
	return 0;
}

static int rt_monitor_open(struct rt_cli *cli)
{
	int err = rt_nl_event_open(&cli->nl, ROCETUNE_MCGRP_EVENTS, 0);

	if (err == -ENOENT) {
		rt_error("the rocetune kernel module is not loaded (modprobe rocetune)");
		return RT_EXIT_ERROR;
	}
	if (err)
		return rt_cli_nl_error(cli, err, "cannot subscribe to events");
	return 0;
}

/*
 * What the monitor listens to, one line on stderr (stdout is the events',
 * one JSON object per line with -j): until the first event comes, which
 * may be never, the user knows it runs and what would show.
 */
static void rt_monitor_say(void)
{
	unsigned int t;

	fprintf(stderr, "rocetune: monitor: listening to rocetune.ko's \"%s\" group, every device:",
		ROCETUNE_MCGRP_EVENTS);
	for (t = 1; t <= ROCETUNE_EVENT_MAX; t++)
		if (rt_event_name(t))
			fprintf(stderr, "%s %s", t > 1 ? "," : "",
				rt_event_name(t));
	fprintf(stderr, "; Ctrl-C stops\n");
}

static int rt_monitor_run(struct rt_cli *cli)
{
	int err;

	err = rt_arg_end(cli);
	if (!err)
		err = rt_cli_no_prometheus(cli);
	if (!err)
		err = rt_monitor_open(cli);
	if (err)
		return err;
	rt_monitor_say();
	cli->pr.pretty = false;		/* one event per line, also with -p */
	for (;;) {
		err = rt_nl_event_recv(&cli->nl, rt_monitor_cb, cli);
		if (err == -ENOBUFS) {
			rt_error("events lost: the socket buffer overran");
			continue;
		}
		if (err)
			return rt_cli_nl_error(cli, err, "monitor");
	}
}

static int rt_monitor_help(struct rt_cli *cli)
{
	(void)cli;
	printf("Usage: rocetune [ -j ] monitor [ events ]\n"
	       "       rocetune monitor help\n"
	       "Prints events until interrupted; with -j one JSON object per line.\n"
	       "Says what it listens to on stderr when it starts.\n");
	return RT_EXIT_OK;
}

static const struct rt_cmd rt_monitor_cmds[] = {
	{ "events",	rt_monitor_run },
	{ "help",	rt_monitor_help },
	{ NULL,		NULL },
};

int rt_cmd_monitor(struct rt_cli *cli)
{
	cli->object = "monitor";
	return rt_cli_dispatch(cli, rt_monitor_cmds);
}
