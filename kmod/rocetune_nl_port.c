// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: PORT_GET, the congestion and PFC counters of RoCE ports.
 *
 * One reply per port: its identity and state, its netdev (to readers in
 * the netdev's network namespace only), the normalized counters and their
 * rates, the device's own counters by name, and PFC per priority.  A
 * counter a device does not have is absent, never zero.  The port's
 * identity is also that of the port events (rocetune_nl_event.c).
 */

#include "rocetune_nlmsg.h"

const struct nla_policy rt_nl_port_get_policy[ROCETUNE_A_PORT_INDEX + 1] = {
	RT_POLICY_DEV,
	[ROCETUNE_A_PORT_INDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* Upper bound of a PORT_GET reply; rdev->lock held, the device not dying. */
static size_t rt_nl_port_reply_size(const struct rt_nl_req *req)
{
	const struct rt_port *p = req->port;
	size_t size, cnt, prio;
	int i;

	size = rt_nl_dev_size() +
	       nla_total_size(sizeof(u32)) +		/* PORT_INDEX */
	       nla_total_size(sizeof(u8)) +		/* PORT_STATE */
	       2 * nla_total_size(sizeof(u32)) +	/* (LOWER_)IFINDEX */
	       2 * nla_total_size(IFNAMSIZ) +		/* (LOWER_)NAME */
	       nla_total_size_64bit(sizeof(u64));	/* SAMPLE_TIME_NS */
	cnt = nla_total_size(0) + RT_NUM_CNT * nla_total_size_64bit(sizeof(u64));
	size += 2 * cnt;				/* COUNTERS, RATES */
	size += nla_total_size(0);			/* HW_COUNTERS */
	for (i = 0; p->hw && i < p->hw->num_counters; i++)
		size += nla_total_size(0) +
			nla_total_size(strlen(p->hw->descs[i].name) + 1) +
			nla_total_size_64bit(sizeof(u64));
	prio = nla_total_size(0) + 2 * nla_total_size(sizeof(u8)) +
	       6 * nla_total_size_64bit(sizeof(u64));
	size += nla_total_size(0) + 2 * nla_total_size(sizeof(u8)) +
		RT_NUM_PRIO * prio;			/* PFC */
	return size;
}

static int rt_put_cnts(struct sk_buff *skb, int type, const struct rt_port *p,
		       bool rates)
{
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < RT_NUM_CNT; i++) {
		u64 v;

		if (p->cnt_map[i] < 0)
			continue;
		v = rates ? p->cnt_rate[i] : p->hw_acc[p->cnt_map[i]];
		if (nla_put_u64_64bit(skb, i, v, ROCETUNE_A_CNT_PAD))
			goto err_cancel;
	}
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int rt_put_hw_cnts(struct sk_buff *skb, const struct rt_port *p)
{
	struct nlattr *nest, *entry;
	int i;

	nest = nla_nest_start(skb, ROCETUNE_A_HW_COUNTERS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < p->hw->num_counters; i++) {
		/* A disabled optional counter has no value: absent. */
		if (!rt_hw_enabled(p->hw, i))
			continue;
		entry = nla_nest_start(skb, ROCETUNE_A_HWC_ENTRY);
		if (!entry ||
		    nla_put_string(skb, ROCETUNE_A_HWC_NAME,
				   p->hw->descs[i].name) ||
		    nla_put_u64_64bit(skb, ROCETUNE_A_HWC_VALUE, p->hw_raw[i],
				      ROCETUNE_A_HWC_PAD))
			goto err_cancel;
		nla_nest_end(skb, entry);
	}
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int rt_put_pfc(struct sk_buff *skb, const struct rt_port *p)
{
	const struct rt_pfc *pfc = &p->pfc;
	struct nlattr *nest, *pn;
	int prio;

	nest = nla_nest_start(skb, ROCETUNE_A_PFC);
	if (!nest ||
	    nla_put_u8(skb, ROCETUNE_A_PFC_CAP, pfc->cap) ||
	    nla_put_u8(skb, ROCETUNE_A_PFC_ENABLED, pfc->enabled))
		goto err_cancel;
	for (prio = 0; prio < RT_NUM_PRIO; prio++) {
		pn = nla_nest_start(skb, ROCETUNE_A_PFC_PRIO);
		if (!pn ||
		    nla_put_u8(skb, ROCETUNE_A_PRIO_INDEX, prio) ||
		    nla_put_u64_64bit(skb, ROCETUNE_A_PRIO_TX_PAUSE,
				      pfc->tx[prio], ROCETUNE_A_PRIO_PAD) ||
		    nla_put_u64_64bit(skb, ROCETUNE_A_PRIO_RX_PAUSE,
				      pfc->rx[prio], ROCETUNE_A_PRIO_PAD) ||
		    nla_put_u8(skb, ROCETUNE_A_PRIO_STORM, pfc->storm[prio]))
			goto err_cancel;
		if (pfc->rates_valid &&
		    (nla_put_u64_64bit(skb, ROCETUNE_A_PRIO_TX_PAUSE_RATE,
				       pfc->tx_rate[prio], ROCETUNE_A_PRIO_PAD) ||
		     nla_put_u64_64bit(skb, ROCETUNE_A_PRIO_RX_PAUSE_RATE,
				       pfc->rx_rate[prio], ROCETUNE_A_PRIO_PAD)))
			goto err_cancel;
		if ((pfc->rx_dur_mask & BIT(prio)) &&
		    nla_put_u64_64bit(skb, ROCETUNE_A_PRIO_RX_PAUSE_DURATION_US,
				      pfc->rx_dur_us[prio], ROCETUNE_A_PRIO_PAD))
			goto err_cancel;
		if ((pfc->tx_dur_mask & BIT(prio)) &&
		    nla_put_u64_64bit(skb, ROCETUNE_A_PRIO_TX_PAUSE_DURATION_US,
				      pfc->tx_dur_us[prio], ROCETUNE_A_PRIO_PAD))
			goto err_cancel;
		nla_nest_end(skb, pn);
	}
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/*
 * A "do" names its port; the sample is taken now unless it is very
 * recent.  A dump sends what the periodic sample holds: it would read
 * every device's hardware otherwise.
 */
static int rt_nl_port_validate(struct rt_nl_req *req)
{
	if (!req->dump &&
	    NL_REQ_ATTR_CHECK(req->extack, NULL, req->tb, ROCETUNE_A_PORT_INDEX)) {
		NL_SET_ERR_MSG(req->extack, "port index required");
		return -EINVAL;
	}
	return 0;
}

static int rt_nl_port_prepare(struct rt_nl_req *req)
{
	struct nlattr *a_port = req->tb[ROCETUNE_A_PORT_INDEX];

	if (req->dump)
		return 0;
	req->port = rt_dev_port(req->rdev, nla_get_u32(a_port));
	if (!req->port) {
		NL_SET_ERR_MSG_ATTR(req->extack, a_port,
				    "not a RoCE port of this device");
		return -ENODEV;
	}
	/* Only this device's lock is held across its I/O. */
	rt_sample_fresh(req->rdev);
	return 0;
}

/* Context: rdev->lock held, the device not dying (rt_dev_visible()). */
static int rt_nl_port_fill(struct sk_buff *skb, const struct rt_nl_req *req)
{
	const struct rt_port *p = req->port;

	if (rt_nl_put_port_id(skb, req->rdev, p, req->net->net_cookie))
		return -EMSGSIZE;
	if (p->sampled &&
	    nla_put_u64_64bit(skb, ROCETUNE_A_SAMPLE_TIME_NS, p->sample_ns,
			      ROCETUNE_A_PAD))
		return -EMSGSIZE;
	/* Counters a device does not have are absent, never zero. */
	if (p->hw && p->hw_valid &&
	    (rt_put_cnts(skb, ROCETUNE_A_COUNTERS, p, false) ||
	     (p->rates_valid && rt_put_cnts(skb, ROCETUNE_A_RATES, p, true)) ||
	     rt_put_hw_cnts(skb, p)))
		return -EMSGSIZE;
	if (p->pfc.valid && rt_put_pfc(skb, p))
		return -EMSGSIZE;
	return 0;
}

const struct rt_nl_request_ops rt_nl_port_request_ops = {
	.cmd = ROCETUNE_CMD_PORT_GET,
	.dev = RT_NL_DEV_REQUIRED,
	.per_port = true,
	.validate = rt_nl_port_validate,
	.prepare = rt_nl_port_prepare,
	.reply_size = rt_nl_port_reply_size,
	.fill = rt_nl_port_fill,
};
