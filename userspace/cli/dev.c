// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune dev: RDMA devices with RoCE ports.
 *
 *	rocetune dev show [ DEV ]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "rocetune.h"

/*
 * Text: "INDEX: NAME: driver DRIVER num-ports N", as rdma dev show; JSON:
 * the keys every object uses for a device, "dev_index" and "dev".
 */
void rt_dev_print(struct rt_print *pr, const struct rt_dev *dev)
{
	rt_print_open_object(pr, NULL);
	if (rt_has(dev->attrs, ROCETUNE_A_DEV_INDEX))
		rt_print_uint(pr, RT_PRINT_ANY, "dev_index", "%" PRIu64 ": ",
			      dev->index);
	rt_print_string(pr, RT_PRINT_ANY, "dev", "%s:", dev->name);
	if (rt_has(dev->attrs, ROCETUNE_A_DEV_DRIVER))
		rt_print_kv_string(pr, "driver", dev->driver);
	if (rt_has(dev->attrs, ROCETUNE_A_DEV_NUM_PORTS))
		rt_print_kv_uint(pr, "num_ports", dev->num_ports);
	rt_print_text(pr, "\n");
	rt_print_close_object(pr);
}

/* The devices of one dump, printed only when it is complete. */
struct rt_dev_list {
	struct rt_dev *v;
	size_t n, cap;
};

static int rt_dev_show_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct rt_dev_list *list = arg;
	struct rt_dev dev, *v;
	size_t cap;
	int err;

	err = rt_dev_parse(nlh, &dev);
	if (err) {
		rt_error("malformed device message from the kernel");
		return err;
	}
	if (list->n == list->cap) {
		cap = list->cap ? 2 * list->cap : 8;
		v = realloc(list->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		list->v = v;
		list->cap = cap;
	}
	list->v[list->n++] = dev;
	return 0;
}

int rt_dev_show_parse(struct rt_cli *cli, struct rt_dev_req *req)
{
	int err;

	req->dev[0] = '\0';
	if (rt_arg_peek(cli)) {
		err = rt_arg_dev_port(cli, req->dev, NULL, false);
		if (err)
			return err;
	}
	return rt_arg_end(cli);
}

static int rt_dev_show(struct rt_cli *cli)
{
	struct rt_dev_list list = { 0 };
	struct rt_dev_req req;
	struct nl_msg *msg;
	int err, tries;
	size_t i;

	err = rt_dev_show_parse(cli, &req);
	if (!err)
		err = rt_cli_no_prometheus(cli);
	if (err)
		return err;
	err = rt_cli_nl_open(cli);
	if (err)
		return err;
	/* A dump that devices coming or going made inconsistent: again. */
	for (tries = 0; tries < RT_DUMP_TRIES; tries++) {
		msg = rt_nl_msg_dev(&cli->nl, ROCETUNE_CMD_DEV_GET, req.dev, 0);
		if (!msg) {
			err = -ENOMEM;
			break;
		}
		list.n = 0;
		if (req.dev[0])
			err = rt_nl_do(&cli->nl, msg, rt_dev_show_cb, &list);
		else
			err = rt_nl_dump(&cli->nl, msg, rt_dev_show_cb, &list);
		if (err != -EINTR)
			break;
	}
	if (!err) {
		rt_print_open_array(&cli->pr, NULL);
		for (i = 0; i < list.n; i++)
			rt_dev_print(&cli->pr, &list.v[i]);
		rt_print_close_array(&cli->pr);
	}
	free(list.v);
	return err ? rt_cli_nl_error(cli, err, "dev show") : RT_EXIT_OK;
}

static int rt_dev_help(struct rt_cli *cli)
{
	(void)cli;
	printf("Usage: rocetune dev show [ DEV ]\n"
	       "       rocetune dev help\n");
	return RT_EXIT_OK;
}

static const struct rt_cmd rt_dev_cmds[] = {
	{ "show",	rt_dev_show },
	{ "help",	rt_dev_help },
	{ NULL,		NULL },
};

int rt_cmd_dev(struct rt_cli *cli)
{
	cli->object = "dev";
	return rt_cli_dispatch(cli, rt_dev_cmds);
}
