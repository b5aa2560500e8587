// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune port: RoCE ports, their normalized counters, rates, raw driver
 * counters (-s) and per-priority PFC state.
 *
 *	rocetune [ -s ] [ -o prometheus ] port show [ DEV[/PORT] ]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetune.h"
#include "rt_prom.h"

#define RT_INDENT	"        "

struct rt_port_list {
	struct rt_port *v;
	size_t n;
	size_t cap;
};

static void rt_port_print_ids(struct rt_print *pr, const struct rt_port *p)
{
	const char *state = rt_port_state_name(p->state);
	char num[8];

	rt_print_string(pr, RT_PRINT_ANY, "dev", "%s/", p->dev);
	if (rt_has(p->attrs, ROCETUNE_A_DEV_INDEX))
		rt_print_uint(pr, RT_PRINT_JSON, "dev_index", NULL, p->dev_index);
	rt_print_uint(pr, RT_PRINT_ANY, "port", "%" PRIu64 ":", p->port);
	if (rt_has(p->attrs, ROCETUNE_A_PORT_STATE)) {
		snprintf(num, sizeof(num), "%u", p->state);
		rt_print_kv_string(pr, "state", state ? state : num);
	}
}

static void rt_port_print_netdevs(struct rt_print *pr, const struct rt_port *p)
{
	if (rt_has(p->attrs, ROCETUNE_A_PORT_NETDEV_NAME))
		rt_print_kv_string(pr, "netdev", p->netdev);
	if (rt_has(p->attrs, ROCETUNE_A_PORT_NETDEV_IFINDEX))
		rt_print_kv_uint(pr, "netdev_ifindex", p->netdev_ifindex);
	if (rt_has(p->attrs, ROCETUNE_A_PORT_LOWER_NAME))
		rt_print_kv_string(pr, "lower_netdev", p->lower);
	if (rt_has(p->attrs, ROCETUNE_A_PORT_LOWER_IFINDEX))
		rt_print_kv_uint(pr, "lower_netdev_ifindex", p->lower_ifindex);
	rt_print_text(pr, "\n");
}

static void rt_port_print_counters(struct rt_print *pr, const char *key,
				   const struct rt_counter_set *cs)
{
	char title[32];
	size_t i;

	rt_print_keyword(title, sizeof(title), key);
	rt_print_open_object(pr, key);
	rt_print_text(pr, "    %s:\n", title);
	for (i = 0; i < rt_counter_ndescs; i++) {
		const struct rt_counter_desc *d = &rt_counter_descs[i];

		if (rt_counter_present(cs, d->attr))
			rt_print_counter(pr, d->key, d->label, RT_INDENT,
					 cs->val[d->attr]);
	}
	rt_print_close_object(pr);
}

static void rt_port_print_hw(struct rt_print *pr, const struct rt_port *p)
{
	int width = pr->label_width;
	size_t i;

	/* Driver names can be long (np_ecn_marked_roce_packets): widen. */
	for (i = 0; i < p->nhwc; i++)
		if ((int)strlen(p->hwc[i].name) > pr->label_width)
			pr->label_width = (int)strlen(p->hwc[i].name);
	rt_print_open_object(pr, "hw_counters");
	rt_print_text(pr, "    hw-counters:\n");
	for (i = 0; i < p->nhwc; i++)
		rt_print_counter(pr, p->hwc[i].name, p->hwc[i].name, RT_INDENT,
				 p->hwc[i].value);
	rt_print_close_object(pr);
	pr->label_width = width;
}

static void rt_port_print_prio(struct rt_print *pr, const struct rt_prio *q)
{
	rt_print_open_object(pr, NULL);
	rt_print_uint(pr, RT_PRINT_ANY, "prio", RT_INDENT "prio %" PRIu64 ":",
		      q->index);
	if (rt_has(q->attrs, ROCETUNE_A_PRIO_TX_PAUSE))
		rt_print_kv_uint(pr, "tx_pause", q->tx_pause);
	if (rt_has(q->attrs, ROCETUNE_A_PRIO_RX_PAUSE))
		rt_print_kv_uint(pr, "rx_pause", q->rx_pause);
	if (rt_has(q->attrs, ROCETUNE_A_PRIO_TX_PAUSE_RATE))
		rt_print_kv_uint(pr, "tx_pause_rate", q->tx_pause_rate);
	if (rt_has(q->attrs, ROCETUNE_A_PRIO_RX_PAUSE_RATE))
		rt_print_kv_uint(pr, "rx_pause_rate", q->rx_pause_rate);
	if (rt_has(q->attrs, ROCETUNE_A_PRIO_RX_PAUSE_DURATION_US))
		rt_print_kv_uint(pr, "rx_pause_duration_us",
				 q->rx_pause_duration_us);
	if (rt_has(q->attrs, ROCETUNE_A_PRIO_TX_PAUSE_DURATION_US))
		rt_print_kv_uint(pr, "tx_pause_duration_us",
				 q->tx_pause_duration_us);
	if (rt_has(q->attrs, ROCETUNE_A_PRIO_STORM))
		rt_print_kv_bool(pr, "storm", q->storm);
	rt_print_text(pr, "\n");
	rt_print_close_object(pr);
}

static void rt_port_print_enabled(struct rt_print *pr, uint8_t enabled)
{
	unsigned int i;
	bool first = true;

	rt_print_open_array(pr, "enabled");
	rt_print_text(pr, " enabled ");
	for (i = 0; i < RT_PFC_PRIOS; i++) {
		if (!(enabled & (1U << i)))
			continue;
		rt_print_uint(pr, RT_PRINT_ANY, NULL,
			      first ? "%" PRIu64 : ",%" PRIu64, i);
		first = false;
	}
	if (first)
		rt_print_text(pr, "none");
	rt_print_close_array(pr);
}

static void rt_port_print_pfc(struct rt_print *pr, const struct rt_pfc *pfc)
{
	unsigned int i;

	rt_print_open_object(pr, "pfc");
	rt_print_text(pr, "    pfc:");
	if (rt_has(pfc->attrs, ROCETUNE_A_PFC_CAP))
		rt_print_kv_uint(pr, "cap", pfc->cap);
	if (rt_has(pfc->attrs, ROCETUNE_A_PFC_ENABLED))
		rt_port_print_enabled(pr, pfc->enabled);
	rt_print_text(pr, "\n");
	rt_print_open_array(pr, "prio");
	for (i = 0; i < pfc->nprio; i++)
		rt_port_print_prio(pr, &pfc->prio[i]);
	rt_print_close_array(pr);
	rt_print_close_object(pr);
}

void rt_port_print(struct rt_print *pr, const struct rt_port *p, bool stats)
{
	rt_print_open_object(pr, NULL);
	rt_port_print_ids(pr, p);
	rt_port_print_netdevs(pr, p);
	if (rt_has(p->attrs, ROCETUNE_A_COUNTERS))
		rt_port_print_counters(pr, "counters", &p->counters);
	if (rt_has(p->attrs, ROCETUNE_A_RATES))
		rt_port_print_counters(pr, "rates", &p->rates);
	if (stats && rt_has(p->attrs, ROCETUNE_A_HW_COUNTERS))
		rt_port_print_hw(pr, p);
	if (rt_has(p->attrs, ROCETUNE_A_PFC))
		rt_port_print_pfc(pr, &p->pfc);
	rt_print_close_object(pr);
}

static int rt_port_list_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct rt_port_list *list = arg;
	struct rt_port *v;
	int err;

	if (list->n == list->cap) {
		list->cap = list->cap ? 2 * list->cap : 8;
		v = realloc(list->v, list->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		list->v = v;
	}
	err = rt_port_parse(nlh, &list->v[list->n]);
	if (err) {
		rt_port_free(&list->v[list->n]);
		rt_error("malformed port message from the kernel");
		return err;
	}
	list->n++;
	return 0;
}

static void rt_port_list_free(struct rt_port_list *list)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		rt_port_free(&list->v[i]);
	free(list->v);
}

int rt_port_show_parse(struct rt_cli *cli, struct rt_port_req *req)
{
	int err;

	req->dev[0] = '\0';
	req->port = 0;
	if (rt_arg_peek(cli)) {
		err = rt_arg_dev_port(cli, req->dev, &req->port, true);
		if (err)
			return err;
	}
	return rt_arg_end(cli);
}

static int rt_port_fetch(struct rt_cli *cli, const struct rt_port_req *req,
			 struct rt_port_list *list)
{
	struct nl_msg *msg;

	msg = rt_nl_msg_dev(&cli->nl, ROCETUNE_CMD_PORT_GET, req->dev, req->port);
	if (!msg)
		return -ENOMEM;
	if (req->port)
		return rt_nl_do(&cli->nl, msg, rt_port_list_cb, list);
	/* The kernel filters a dump by device and names an unknown one. */
	return rt_nl_dump(&cli->nl, msg, rt_port_list_cb, list);
}

static void rt_port_output(struct rt_cli *cli, const struct rt_port_list *list)
{
	size_t i;

	if (cli->output == RT_OUTPUT_PROMETHEUS) {
		rt_prom_write_ports(stdout, list->v, list->n, cli->stats);
		return;
	}
	rt_print_open_array(&cli->pr, NULL);
	for (i = 0; i < list->n; i++)
		rt_port_print(&cli->pr, &list->v[i], cli->stats);
	rt_print_close_array(&cli->pr);
}

static int rt_port_show(struct rt_cli *cli)
{
	struct rt_port_list list = { 0 };
	struct rt_port_req req;
	int err, tries;

	err = rt_port_show_parse(cli, &req);
	if (err)
		return err;
	err = rt_cli_nl_open(cli);
	if (err)
		return err;
	/* Nothing is printed before the end: a dump the kernel marks as
	 * inconsistent (devices changed meanwhile) is simply run again.
	 */
	for (tries = 0; tries < RT_DUMP_TRIES; tries++) {
		err = rt_port_fetch(cli, &req, &list);
		if (err != -EINTR)
			break;
		rt_port_list_free(&list);
		list = (struct rt_port_list){ 0 };
	}
	if (err) {
		rt_port_list_free(&list);
		return rt_cli_nl_error(cli, err, "port show");
	}
	rt_port_output(cli, &list);
	rt_port_list_free(&list);
	return RT_EXIT_OK;
}

static int rt_port_help(struct rt_cli *cli)
{
	(void)cli;
	printf("Usage: rocetune [ -j [ -p ] | -o prometheus ] [ -s ] port show [ DEV[/PORT] ]\n"
	       "       rocetune port help\n"
	       "-s adds the raw driver counters (hw-counters).\n");
	return RT_EXIT_OK;
}

static const struct rt_cmd rt_port_cmds[] = {
	{ "show",	rt_port_show },
	{ "help",	rt_port_help },
	{ NULL,		NULL },
};

int rt_cmd_port(struct rt_cli *cli)
{
	cli->object = "port";
	return rt_cli_dispatch(cli, rt_port_cmds);
}
