// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune config: the module's sampling interval and event thresholds,
 * global or per device.
 *
 *	rocetune config show [ dev DEV ]
 *	rocetune config set [ dev DEV ] [ interval-ms MS ] [ storm-ms MS ]
 *			    [ cnp-rate-thresh N ] [ ecn-rate-thresh N ]
 *
 * "show" prints the same keywords "set" takes, so that its text output can
 * be given back to "set".  "set" sends only the values given; the kernel
 * keeps the others.  The valid ranges are the kernel's: it rejects a value
 * with a message and the range, which we show.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "rocetune.h"
#include "rt_util.h"

void rt_config_print(struct rt_print *pr, const struct rt_config *cfg)
{
	rt_print_open_object(pr, NULL);
	if (rt_has(cfg->attrs, ROCETUNE_A_DEV_NAME))
		rt_print_kv_string(pr, "dev", cfg->dev);
	if (rt_has(cfg->attrs, ROCETUNE_A_INTERVAL_MS))
		rt_print_kv_uint(pr, "interval_ms", cfg->interval_ms);
	if (rt_has(cfg->attrs, ROCETUNE_A_STORM_MS))
		rt_print_kv_uint(pr, "storm_ms", cfg->storm_ms);
	if (rt_has(cfg->attrs, ROCETUNE_A_CNP_RATE_THRESH))
		rt_print_kv_uint(pr, "cnp_rate_thresh", cfg->cnp_rate_thresh);
	if (rt_has(cfg->attrs, ROCETUNE_A_ECN_RATE_THRESH))
		rt_print_kv_uint(pr, "ecn_rate_thresh", cfg->ecn_rate_thresh);
	rt_print_text(pr, "\n");
	rt_print_close_object(pr);
}

static int rt_config_show_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct rt_cli *cli = arg;
	struct rt_config cfg;
	int err;

	err = rt_config_parse(nlh, &cfg);
	if (err) {
		rt_error("malformed configuration message from the kernel");
		return err;
	}
	rt_config_print(&cli->pr, &cfg);
	return 0;
}

/* "dev DEV", when it comes next. */
static int rt_config_parse_dev(struct rt_cli *cli, struct rt_config_req *req)
{
	if (!rt_arg_is(cli, "dev"))
		return 0;
	rt_arg_next(cli);
	return rt_arg_dev(cli, "dev", req->dev, NULL, false);
}

int rt_config_show_parse(struct rt_cli *cli, struct rt_config_req *req)
{
	int err;

	*req = (struct rt_config_req){ 0 };
	err = rt_config_parse_dev(cli, req);
	if (err)
		return err;
	return rt_arg_end(cli);
}

/*
 * The settings of "config set": the keyword "config show" prints (the
 * JSON key in kebab-case) and the shorter one of rocetune 0.1, kept.
 */
static const struct rt_config_setting {
	const char *kw;
	const char *alias;
	unsigned int attr;		/* ROCETUNE_A_* */
} rt_config_settings[] = {
	{ "interval-ms",	"interval",	ROCETUNE_A_INTERVAL_MS },
	{ "storm-ms",		NULL,		ROCETUNE_A_STORM_MS },
	{ "cnp-rate-thresh",	"cnp-rate",	ROCETUNE_A_CNP_RATE_THRESH },
	{ "ecn-rate-thresh",	"ecn-rate",	ROCETUNE_A_ECN_RATE_THRESH },
};

/*
 * The value of interval-ms or storm-ms (@attr), after keyword @kw: any
 * u32, whose range the module checks.  One that is no u32 at all is
 * refused here with the module's range, from its policy (the range its
 * own refusal names), so that both messages give the same one.
 */
static int rt_config_arg_ms(struct rt_cli *cli, const char *kw,
			    unsigned int attr, uint32_t *out)
{
	const char *v = rt_arg_next(cli);
	uint64_t x, min, max;
	int err;

	if (!v) {
		rt_usage_error("\"%s\" needs a value; try \"rocetune config help\"",
			       kw);
		return RT_EXIT_USAGE;
	}
	err = rt_parse_u64(v, 0, UINT32_MAX, &x);
	if (!err) {
		*out = (uint32_t)x;
		return 0;
	}
	if (!cli->nl.sk && !rt_nl_open(&cli->nl) &&
	    !rt_nl_attr_range(&cli->nl, ROCETUNE_CMD_CONFIG_SET, attr, &min,
			      &max))
		rt_usage_error("invalid value \"%s\" for \"%s\": %s (valid range %llu..%llu)",
			       v, kw, err == -ERANGE ? "out of range" : "not a number",
			       (unsigned long long)min, (unsigned long long)max);
	else
		rt_usage_error("invalid value \"%s\" for \"%s\": %s (milliseconds; rocetune.ko checks the range)",
			       v, kw, err == -ERANGE ? "out of range" : "not a number");
	rt_nl_close(&cli->nl);
	return RT_EXIT_USAGE;
}

/* One "KEYWORD VALUE" of config set. */
static int rt_config_set_one(struct rt_cli *cli, struct rt_config_req *req)
{
	const char *kw = rt_arg_peek(cli);
	const struct rt_config_setting *st = NULL;
	size_t i;

	if (rt_keyword(kw, "dev")) {
		if (!req->dev[0])
			return rt_config_parse_dev(cli, req);
		rt_usage_error("\"dev\" given twice");
		return RT_EXIT_USAGE;
	}
	for (i = 0; i < ARRAY_SIZE(rt_config_settings); i++)
		if (rt_keyword(kw, rt_config_settings[i].kw) ||
		    rt_keyword(kw, rt_config_settings[i].alias))
			st = &rt_config_settings[i];
	if (!st) {
		rt_usage_error("unknown setting \"%s\"; try \"rocetune config help\"",
			       kw);
		return RT_EXIT_USAGE;
	}
	rt_arg_next(cli);
	req->attrs |= RT_BIT(st->attr);
	switch (st->attr) {
	case ROCETUNE_A_INTERVAL_MS:
		return rt_config_arg_ms(cli, kw, st->attr, &req->interval_ms);
	case ROCETUNE_A_STORM_MS:
		return rt_config_arg_ms(cli, kw, st->attr, &req->storm_ms);
	case ROCETUNE_A_CNP_RATE_THRESH:
		return rt_arg_u64(cli, kw, 0, UINT64_MAX, &req->cnp_rate);
	default:
		return rt_arg_u64(cli, kw, 0, UINT64_MAX, &req->ecn_rate);
	}
}

int rt_config_set_parse(struct rt_cli *cli, struct rt_config_req *req)
{
	int err;

	*req = (struct rt_config_req){ 0 };
	err = 0;
	while (!err && rt_arg_peek(cli))
		err = rt_config_set_one(cli, req);
	if (err)
		return err;
	if (!req->attrs) {
		rt_usage_error("config set: nothing to set; try \"rocetune config help\"");
		return RT_EXIT_USAGE;
	}
	return 0;
}

static int rt_config_show(struct rt_cli *cli)
{
	const char *what = "config show";
	struct rt_config_req req;
	struct nl_msg *msg;
	int err;

	err = rt_config_show_parse(cli, &req);
	if (!err)
		err = rt_cli_no_prometheus(cli);
	if (!err)
		err = rt_cli_nl_open(cli);
	if (err)
		return err;
	msg = rt_nl_msg_dev(&cli->nl, ROCETUNE_CMD_CONFIG_GET, req.dev, 0);
	if (!msg)
		return rt_cli_nl_error(cli, -ENOMEM, what);
	err = rt_nl_do(&cli->nl, msg, rt_config_show_cb, cli);
	return err ? rt_cli_nl_error(cli, err, what) : RT_EXIT_OK;
}

static int rt_config_put(struct nl_msg *msg, const struct rt_config_req *req)
{
	int err = 0;

	if (rt_has(req->attrs, ROCETUNE_A_INTERVAL_MS))
		err = nla_put_u32(msg, ROCETUNE_A_INTERVAL_MS, req->interval_ms);
	if (!err && rt_has(req->attrs, ROCETUNE_A_STORM_MS))
		err = nla_put_u32(msg, ROCETUNE_A_STORM_MS, req->storm_ms);
	if (!err && rt_has(req->attrs, ROCETUNE_A_CNP_RATE_THRESH))
		err = nla_put_u64(msg, ROCETUNE_A_CNP_RATE_THRESH, req->cnp_rate);
	if (!err && rt_has(req->attrs, ROCETUNE_A_ECN_RATE_THRESH))
		err = nla_put_u64(msg, ROCETUNE_A_ECN_RATE_THRESH, req->ecn_rate);
	return err ? -ENOMEM : 0;
}

/*
 * The ports a threshold cannot fire on: the module compares it with the
 * rates of port counters (rocetune_sample.c, rt_sample_thresholds()), and
 * a driver without them (rxe: ECN and CNPs are counted per QP only) never
 * raises its event.
 */
struct rt_config_mute {
	bool cnp, ecn;			/* the thresholds set, not 0 */
	char cnp_ports[256], ecn_ports[256];
};

static void rt_config_mute_add(char *buf, size_t len, const struct rt_port *p)
{
	size_t n = strlen(buf);

	if (n + 2 < len)
		snprintf(buf + n, len - n, "%s%s/%u", n ? ", " : "", p->dev,
			 p->port);
}

static int rt_config_mute_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct rt_config_mute *m = arg;
	struct rt_port p = { 0 };

	if (rt_port_parse(nlh, &p)) {
		rt_port_free(&p);
		return 0;
	}
	if (m->cnp &&
	    !rt_counter_present(&p.counters, ROCETUNE_A_CNT_RX_CNP_PKTS) &&
	    !rt_counter_present(&p.counters, ROCETUNE_A_CNT_TX_CNP_PKTS))
		rt_config_mute_add(m->cnp_ports, sizeof(m->cnp_ports), &p);
	if (m->ecn &&
	    !rt_counter_present(&p.counters, ROCETUNE_A_CNT_RX_ECN_CE_PKTS))
		rt_config_mute_add(m->ecn_ports, sizeof(m->ecn_ports), &p);
	rt_port_free(&p);
	return 0;
}

/* After a set: say which ports a threshold just set cannot fire on. */
static void rt_config_mute_note(struct rt_cli *cli,
				const struct rt_config_req *req)
{
	struct rt_config_mute m = {
		.cnp = rt_has(req->attrs, ROCETUNE_A_CNP_RATE_THRESH) &&
		       req->cnp_rate,
		.ecn = rt_has(req->attrs, ROCETUNE_A_ECN_RATE_THRESH) &&
		       req->ecn_rate,
	};
	struct nl_msg *msg;

	if (!m.cnp && !m.ecn)
		return;
	msg = rt_nl_msg_dev(&cli->nl, ROCETUNE_CMD_PORT_GET, req->dev, 0);
	if (!msg || rt_nl_dump(&cli->nl, msg, rt_config_mute_cb, &m))
		return;
	if (m.cnp_ports[0])
		fprintf(stderr, "rocetune: note: cnp-rate-thresh never fires on %s: no CNP port counter (rx_cnp_pkts, tx_cnp_pkts) to compare it with (rxe counts CNPs per QP only: rocetune qp show)\n",
			m.cnp_ports);
	if (m.ecn_ports[0])
		fprintf(stderr, "rocetune: note: ecn-rate-thresh never fires on %s: no ECN-CE port counter (rx_ecn_ce_pkts) to compare it with (rxe counts CE marks per QP only: rocetune qp show)\n",
			m.ecn_ports);
}

static int rt_config_set(struct rt_cli *cli)
{
	const char *what = "config set";
	struct rt_config_req req;
	struct nl_msg *msg;
	int err;

	err = rt_config_set_parse(cli, &req);
	if (!err)
		err = rt_cli_no_prometheus(cli);
	if (!err)
		err = rt_cli_nl_open(cli);
	if (err)
		return err;
	msg = rt_nl_msg_dev(&cli->nl, ROCETUNE_CMD_CONFIG_SET, req.dev, 0);
	if (!msg || rt_config_put(msg, &req)) {
		nlmsg_free(msg);
		return rt_cli_nl_error(cli, -ENOMEM, what);
	}
	err = rt_nl_do(&cli->nl, msg, NULL, NULL);
	if (err)
		return rt_cli_nl_error(cli, err, what);
	if (cli->nl.ext_msg[0])
		rt_error("warning: %s", cli->nl.ext_msg);
	rt_config_mute_note(cli, &req);
	return RT_EXIT_OK;
}

static int rt_config_help(struct rt_cli *cli)
{
	(void)cli;
	printf("Usage: rocetune config show [ dev DEV ]\n"
	       "       rocetune config set [ dev DEV ] [ interval-ms MS ] [ storm-ms MS ]\n"
	       "                           [ cnp-rate-thresh N ] [ ecn-rate-thresh N ]\n"
	       "       rocetune config help\n"
	       "interval-ms: sampling interval; storm-ms: pause time that makes a storm;\n"
	       "cnp-rate-thresh, ecn-rate-thresh: events above this many packets/s, 0 turns\n"
	       "them off.  \"config show\" prints what \"config set\" takes; the module checks\n"
	       "the ranges and says which values it accepts.\n");
	return RT_EXIT_OK;
}

static const struct rt_cmd rt_config_cmds[] = {
	{ "show",	rt_config_show },
	{ "set",	rt_config_set },
	{ "help",	rt_config_help },
	{ NULL,		NULL },
};

int rt_cmd_config(struct rt_cli *cli)
{
	cli->object = "config";
	return rt_cli_dispatch(cli, rt_config_cmds);
}
