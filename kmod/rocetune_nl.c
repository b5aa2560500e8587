// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: the "rocetune" generic netlink family.
 *
 * DEV_GET and PORT_GET (do and dump, filtered by device), CONFIG_GET and
 * CONFIG_SET, and the "events" multicast group.  Requests are validated
 * strictly by per-operation policies.  A device is visible only from the
 * network namespaces that may access it (rdma_dev_access_netns()).
 */

#include <net/net_namespace.h>

#include "rocetune.h"
#include "rocetune_qp.h"

static struct genl_family rt_genl_family;

/* False until the family is registered and again from its unregistration. */
static bool rt_nl_live;

/* Dump cursor, in cb->ctx. */
struct rt_dump_ctx {
	bool started;		/* the filter is resolved */
	bool filtered;		/* only the device @dev_index */
	u32 dev_index;
	u32 next_dev;		/* resume at this device index ... */
	u32 next_port;		/* ... and this port number */
};

static struct rt_dump_ctx *rt_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct rt_dump_ctx) > sizeof(cb->ctx));
	return (struct rt_dump_ctx *)cb->ctx;
}

static struct nlattr **rt_dump_attrs(struct netlink_callback *cb)
{
#ifdef RT_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/* Policies ------------------------------------------------------------ */

static struct netlink_range_validation rt_interval_range = {
	.min = RT_INTERVAL_MIN_MS,
	.max = RT_INTERVAL_MAX_MS,
};

static struct netlink_range_validation rt_storm_range = {
	.min = RT_STORM_MIN_MS,
	.max = RT_STORM_MAX_MS,
};

#define RT_POLICY_DEV							\
	[ROCETUNE_A_DEV_INDEX] = { .type = NLA_U32 },			\
	[ROCETUNE_A_DEV_NAME] = { .type = NLA_NUL_STRING,		\
				  .len = IB_DEVICE_NAME_MAX - 1 }

static const struct nla_policy rt_dev_get_policy[ROCETUNE_A_DEV_NAME + 1] = {
	RT_POLICY_DEV,
};

static const struct nla_policy rt_port_get_policy[ROCETUNE_A_PORT_INDEX + 1] = {
	RT_POLICY_DEV,
	[ROCETUNE_A_PORT_INDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct nla_policy rt_config_get_policy[ROCETUNE_A_DEV_NAME + 1] = {
	RT_POLICY_DEV,
};

static const struct nla_policy
rt_config_set_policy[ROCETUNE_A_ECN_RATE_THRESH + 1] = {
	RT_POLICY_DEV,
	[ROCETUNE_A_INTERVAL_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &rt_interval_range),
	[ROCETUNE_A_STORM_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &rt_storm_range),
	[ROCETUNE_A_CNP_RATE_THRESH] = { .type = NLA_U64 },
	[ROCETUNE_A_ECN_RATE_THRESH] = { .type = NLA_U64 },
};

/* Device lookup -------------------------------------------------------- */

/*
 * The device named by DEV_INDEX and/or DEV_NAME (both must agree), if @net
 * may see it, referenced and locked: rt_nl_dev_done() it.  No global lock
 * is held on return, so the caller may do I/O on the device.
 * Return: the device, NULL when neither attribute is there, or an ERR_PTR
 * with extack set.
 */
static struct rt_dev *rt_nl_dev(struct net *net, struct nlattr **tb,
				struct netlink_ext_ack *extack)
{
	struct nlattr *a_idx = tb[ROCETUNE_A_DEV_INDEX];
	struct nlattr *a_name = tb[ROCETUNE_A_DEV_NAME];
	struct rt_dev *rdev;

	if (!a_idx && !a_name)
		return NULL;
	rdev = rt_dev_find(a_idx ? nla_get_u32(a_idx) : 0,
			   a_name ? nla_data(a_name) : NULL);
	if (rdev) {
		mutex_lock(&rdev->lock);
		if (!rt_dev_visible(rdev, net)) {
			mutex_unlock(&rdev->lock);
			rt_dev_put(rdev);
			rdev = NULL;
		}
	}
	if (!rdev) {
		NL_SET_ERR_MSG_ATTR(extack, a_name ?: a_idx,
				    "no RDMA device with RoCE ports by this name or index");
		return ERR_PTR(-ENODEV);
	}
	if (a_idx && a_name && rdev->index != nla_get_u32(a_idx)) {
		mutex_unlock(&rdev->lock);
		rt_dev_put(rdev);
		NL_SET_ERR_MSG_ATTR(extack, a_idx,
				    "device index and name refer to different devices");
		return ERR_PTR(-EINVAL);
	}
	return rdev;
}

/* Unlock and put a device that rt_nl_dev() or rt_nl_dev_req() returned. */
static void rt_nl_dev_done(struct rt_dev *rdev)
{
	mutex_unlock(&rdev->lock);
	rt_dev_put(rdev);
}

/* The device a "do" request must name, as rt_nl_dev() returns it. */
static struct rt_dev *rt_nl_dev_req(struct genl_info *info)
{
	struct rt_dev *rdev;

	rdev = rt_nl_dev(genl_info_net(info), info->attrs, info->extack);
	if (!rdev) {
		NL_SET_ERR_MSG(info->extack, "device index or name required");
		return ERR_PTR(-EINVAL);
	}
	return rdev;
}

/* Messages -------------------------------------------------------------- */

static int rt_put_dev_id(struct sk_buff *skb, struct rt_dev *rdev)
{
	char name[IB_DEVICE_NAME_MAX];

	rt_dev_name(rdev, name);
	if (nla_put_u32(skb, ROCETUNE_A_DEV_INDEX, rdev->index) ||
	    nla_put_string(skb, ROCETUNE_A_DEV_NAME, name))
		return -EMSGSIZE;
	return 0;
}

static size_t rt_dev_msg_size(void)
{
	return nla_total_size(sizeof(u32)) +		/* DEV_INDEX */
	       nla_total_size(IB_DEVICE_NAME_MAX) +	/* DEV_NAME */
	       nla_total_size(MODULE_NAME_LEN) +	/* DEV_DRIVER */
	       nla_total_size(sizeof(u32));		/* DEV_NUM_PORTS */
}

static int rt_fill_dev(struct sk_buff *skb, struct rt_dev *rdev, u32 portid,
		       u32 seq, int flags)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &rt_genl_family, flags,
			  ROCETUNE_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (rt_put_dev_id(skb, rdev) ||
	    nla_put_string(skb, ROCETUNE_A_DEV_DRIVER, rdev->driver) ||
	    nla_put_u32(skb, ROCETUNE_A_DEV_NUM_PORTS, rdev->nports)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* Upper bound of a PORT_GET reply; rdev->lock held, the device not dying. */
static size_t rt_port_msg_size(const struct rt_port *p)
{
	size_t size, cnt, prio;
	int i;

	size = rt_dev_msg_size() +
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
 * Port identity and netdev, shared by PORT_GET and port events.  A netdev
 * is named (ifindex and name) only to a reader in its own network
 * namespace, whose net_cookie is @cookie (0: no reader is), as the RDMA
 * core's netlink does.
 */
static int rt_put_port_id(struct sk_buff *skb, struct rt_dev *rdev,
			  const struct rt_port *p, u64 cookie)
{
	if (rt_put_dev_id(skb, rdev) ||
	    nla_put_u32(skb, ROCETUNE_A_PORT_INDEX, p->port) ||
	    nla_put_u8(skb, ROCETUNE_A_PORT_STATE, p->state))
		return -EMSGSIZE;
	if (!cookie)
		return 0;
	if (p->ifindex && p->net_cookie == cookie &&
	    (nla_put_u32(skb, ROCETUNE_A_PORT_NETDEV_IFINDEX, p->ifindex) ||
	     nla_put_string(skb, ROCETUNE_A_PORT_NETDEV_NAME, p->ifname)))
		return -EMSGSIZE;
	if (p->lower_ifindex && p->lower_net_cookie == cookie &&
	    (nla_put_u32(skb, ROCETUNE_A_PORT_LOWER_IFINDEX, p->lower_ifindex) ||
	     nla_put_string(skb, ROCETUNE_A_PORT_LOWER_NAME, p->lower_name)))
		return -EMSGSIZE;
	return 0;
}

/*
 * A PORT_GET reply to a reader in @net.  Context: rdev->lock held, the
 * device not dying (rt_dev_visible()).
 */
static int rt_fill_port(struct sk_buff *skb, struct rt_dev *rdev,
			const struct rt_port *p, const struct net *net,
			u32 portid, u32 seq, int flags)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &rt_genl_family, flags,
			  ROCETUNE_CMD_PORT_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (rt_put_port_id(skb, rdev, p, net->net_cookie))
		goto err_cancel;
	if (p->sampled &&
	    nla_put_u64_64bit(skb, ROCETUNE_A_SAMPLE_TIME_NS, p->sample_ns,
			      ROCETUNE_A_PAD))
		goto err_cancel;
	/* Counters a device does not have are absent, never zero. */
	if (p->hw && p->hw_valid &&
	    (rt_put_cnts(skb, ROCETUNE_A_COUNTERS, p, false) ||
	     (p->rates_valid && rt_put_cnts(skb, ROCETUNE_A_RATES, p, true)) ||
	     rt_put_hw_cnts(skb, p)))
		goto err_cancel;
	if (p->pfc.valid && rt_put_pfc(skb, p))
		goto err_cancel;
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* DEV_GET ---------------------------------------------------------------- */

static int rt_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	struct rt_dev *rdev;
	int err;

	msg = genlmsg_new(rt_dev_msg_size(), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rdev = rt_nl_dev_req(info);
	if (IS_ERR(rdev)) {
		nlmsg_free(msg);
		return PTR_ERR(rdev);
	}
	err = rt_fill_dev(msg, rdev, info->snd_portid, info->snd_seq, 0);
	rt_nl_dev_done(rdev);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * The device filter of a dump is resolved in its first pass, not in a
 * .start callback: 6.1 gives .start no extack, while every kernel sends
 * the extack of a failed pass with NLMSG_DONE.  Takes rt_devs_lock.
 */
static int rt_dump_begin(struct netlink_callback *cb)
{
	struct rt_dump_ctx *ctx = rt_dump_ctx(cb);
	struct rt_dev *rdev;

	if (ctx->started)
		return 0;
	ctx->started = true;
	rdev = rt_nl_dev(sock_net(cb->skb->sk), rt_dump_attrs(cb), cb->extack);
	if (IS_ERR(rdev))
		return PTR_ERR(rdev);
	if (rdev) {
		ctx->filtered = true;
		ctx->dev_index = rdev->index;
		ctx->next_dev = rdev->index;
		rt_nl_dev_done(rdev);
	}
	return 0;
}

/*
 * The next device of a dump from the cursor on, referenced and locked
 * (rt_nl_dev_done() it), or NULL at the end.  Sets cb->seq to the version
 * of the devices; no lock is held between two devices.
 */
static struct rt_dev *rt_dump_next(struct netlink_callback *cb, u32 *index)
{
	struct rt_dump_ctx *ctx = rt_dump_ctx(cb);
	struct net *net = sock_net(cb->skb->sk);
	struct rt_dev *rdev;
	unsigned int seq;

	for (;;) {
		rdev = rt_dev_next(index, &seq);
		if (!rdev)
			return NULL;
		cb->seq = seq;
		if (ctx->filtered && *index != ctx->dev_index) {
			rt_dev_put(rdev);
			return NULL;
		}
		mutex_lock(&rdev->lock);
		if (rt_dev_visible(rdev, net))
			return rdev;
		rt_nl_dev_done(rdev);
		if (*index == U32_MAX)
			return NULL;
		++*index;
	}
}

/* Return of a dump pass: a partial skb is sent, an empty one is an error. */
static int rt_dump_ret(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

static int rt_nl_dev_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct rt_dump_ctx *ctx = rt_dump_ctx(cb);
	struct rt_dev *rdev;
	unsigned int off;
	u32 index;
	int err;

	err = rt_dump_begin(cb);
	if (err)
		return err;
	for (index = ctx->next_dev; (rdev = rt_dump_next(cb, &index)); index++) {
		off = skb->len;
		err = rt_fill_dev(skb, rdev, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, NLM_F_MULTI);
		rt_nl_dev_done(rdev);
		if (err)
			break;
		rt_dump_check(cb, skb, off);
		ctx->next_dev = index + 1;
		if (index == U32_MAX)
			break;
	}
	return rt_dump_ret(skb, err);
}

/* PORT_GET --------------------------------------------------------------- */

static int rt_nl_port_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a_port = info->attrs[ROCETUNE_A_PORT_INDEX];
	struct sk_buff *msg = NULL;
	struct rt_dev *rdev;
	struct rt_port *p;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, ROCETUNE_A_PORT_INDEX)) {
		NL_SET_ERR_MSG(info->extack, "port index required");
		return -EINVAL;
	}
	rdev = rt_nl_dev_req(info);
	if (IS_ERR(rdev))
		return PTR_ERR(rdev);
	p = rt_dev_port(rdev, nla_get_u32(a_port));
	if (!p) {
		NL_SET_ERR_MSG_ATTR(info->extack, a_port,
				    "not a RoCE port of this device");
		err = -ENODEV;
		goto err_done;
	}

	/* Only this device's lock is held across its I/O. */
	rt_sample_fresh(rdev);
	msg = genlmsg_new(rt_port_msg_size(p), GFP_KERNEL);
	err = msg ? rt_fill_port(msg, rdev, p, genl_info_net(info),
				 info->snd_portid,
				 info->snd_seq, 0) : -ENOMEM;
	if (err)
		goto err_done;
	rt_nl_dev_done(rdev);
	return genlmsg_reply(msg, info);

err_done:
	rt_nl_dev_done(rdev);
	nlmsg_free(msg);
	return err;
}

static int rt_nl_port_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct rt_dump_ctx *ctx = rt_dump_ctx(cb);
	struct net *net = sock_net(skb->sk);
	struct rt_dev *rdev;
	unsigned int i, off;
	u32 index;
	int err;

	err = rt_dump_begin(cb);
	if (err)
		return err;
	for (index = ctx->next_dev; (rdev = rt_dump_next(cb, &index)); index++) {
		for (i = 0; i < rdev->nports; i++) {
			struct rt_port *p = &rdev->ports[i];

			if (index == ctx->next_dev && p->port < ctx->next_port)
				continue;
			off = skb->len;
			err = rt_fill_port(skb, rdev, p, net,
					   NETLINK_CB(cb->skb).portid,
					   cb->nlh->nlmsg_seq, NLM_F_MULTI);
			if (err)
				break;
			rt_dump_check(cb, skb, off);
			ctx->next_dev = index;
			ctx->next_port = p->port + 1;
		}
		rt_nl_dev_done(rdev);
		if (err || index == U32_MAX)
			break;
	}
	return rt_dump_ret(skb, err);
}

/* CONFIG_GET / CONFIG_SET ----------------------------------------------- */

static int rt_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rt_config cfg;
	struct sk_buff *msg;
	struct rt_dev *rdev;
	void *hdr;
	int err;

	msg = genlmsg_new(rt_dev_msg_size() + 2 * nla_total_size(sizeof(u32)) +
			  2 * nla_total_size_64bit(sizeof(u64)), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &rt_genl_family, 0,
				ROCETUNE_CMD_CONFIG_GET);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free;
	}

	rdev = rt_nl_dev(genl_info_net(info), info->attrs, info->extack);
	if (IS_ERR(rdev)) {
		err = PTR_ERR(rdev);
		goto err_free;
	}
	if (rdev) {
		rt_dev_config(rdev, &cfg);
		err = rt_put_dev_id(msg, rdev);
		rt_nl_dev_done(rdev);
	} else {
		spin_lock(&rt_cfg_lock);
		cfg = rt_cfg;
		spin_unlock(&rt_cfg_lock);
		err = 0;
	}
	if (err ||
	    nla_put_u32(msg, ROCETUNE_A_INTERVAL_MS, cfg.interval_ms) ||
	    nla_put_u32(msg, ROCETUNE_A_STORM_MS, cfg.storm_ms) ||
	    nla_put_u64_64bit(msg, ROCETUNE_A_CNP_RATE_THRESH,
			      cfg.cnp_rate_thresh, ROCETUNE_A_PAD) ||
	    nla_put_u64_64bit(msg, ROCETUNE_A_ECN_RATE_THRESH,
			      cfg.ecn_rate_thresh, ROCETUNE_A_PAD)) {
		err = -EMSGSIZE;
		goto err_free;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return err;
}

static void rt_config_apply(struct rt_config *cfg, struct nlattr **tb)
{
	if (tb[ROCETUNE_A_INTERVAL_MS])
		cfg->interval_ms = nla_get_u32(tb[ROCETUNE_A_INTERVAL_MS]);
	if (tb[ROCETUNE_A_STORM_MS])
		cfg->storm_ms = nla_get_u32(tb[ROCETUNE_A_STORM_MS]);
	if (tb[ROCETUNE_A_CNP_RATE_THRESH])
		cfg->cnp_rate_thresh =
			nla_get_u64(tb[ROCETUNE_A_CNP_RATE_THRESH]);
	if (tb[ROCETUNE_A_ECN_RATE_THRESH])
		cfg->ecn_rate_thresh =
			nla_get_u64(tb[ROCETUNE_A_ECN_RATE_THRESH]);
}

static int rt_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct rt_config cfg;
	struct rt_dev *rdev;
	unsigned long i;
	int err = 0;

	if (!tb[ROCETUNE_A_INTERVAL_MS] && !tb[ROCETUNE_A_STORM_MS] &&
	    !tb[ROCETUNE_A_CNP_RATE_THRESH] && !tb[ROCETUNE_A_ECN_RATE_THRESH]) {
		NL_SET_ERR_MSG(info->extack, "nothing to set");
		return -EINVAL;
	}

	rdev = rt_nl_dev(genl_info_net(info), tb, info->extack);
	if (IS_ERR(rdev)) {
		err = PTR_ERR(rdev);
	} else if (rdev) {
		/* The device gets its own copy of what is in effect. */
		rt_dev_config(rdev, &cfg);
		rt_config_apply(&cfg, tb);
		rdev->cfg = cfg;
		rdev->cfg_own = true;
		rt_sample_kick(rdev);
		rt_nl_dev_done(rdev);
	} else {
		spin_lock(&rt_cfg_lock);
		rt_config_apply(&rt_cfg, tb);
		spin_unlock(&rt_cfg_lock);
		/* Devices without their own configuration follow at once. */
		mutex_lock(&rt_devs_lock);
		xa_for_each(&rt_devs_xa, i, rdev)
			rt_sample_kick(rdev);
		mutex_unlock(&rt_devs_lock);
	}
	return err;
}

/* Events ------------------------------------------------------------------ */

/*
 * Send to every namespace that may see @ibdev: @own to the one whose
 * net_cookie is @cookie, @other (when not NULL) to the others; consumes
 * both.
 */
static void rt_nl_send_event(struct ib_device *ibdev, struct sk_buff *own,
			     struct sk_buff *other, u64 cookie)
{
	struct sk_buff *clone, *skb;
	struct net *net;

	rcu_read_lock();
	if (!READ_ONCE(rt_nl_live))
		goto out;
	for_each_net_rcu(net) {
		if (!rdma_dev_access_netns(ibdev, net) ||
		    !genl_has_listeners(&rt_genl_family, net, 0))
			continue;
		skb = other && net->net_cookie != cookie ? other : own;
		clone = skb_clone(skb, GFP_ATOMIC);
		if (!clone)
			break;
		genlmsg_multicast_netns(&rt_genl_family, net, clone, 0, 0,
					GFP_ATOMIC);
	}
out:
	rcu_read_unlock();
	nlmsg_free(own);
	nlmsg_free(other);
}

static struct sk_buff *rt_event_new(u32 type, void **hdr)
{
	struct sk_buff *skb;

	if (!READ_ONCE(rt_nl_live))
		return NULL;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	*hdr = genlmsg_put(skb, 0, 0, &rt_genl_family, 0, ROCETUNE_CMD_EVENT);
	if (!*hdr ||
	    nla_put_u32(skb, ROCETUNE_A_EVENT_TYPE, type) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_EVENT_TIME_NS, ktime_get_ns(),
			      ROCETUNE_A_PAD)) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

/* A device event; see rt_notify_dev() for its context. */
static void rt_nl_send_dev(const struct rt_event *ev)
{
	struct rt_dev *rdev = ev->rdev;
	struct sk_buff *skb;
	void *hdr;

	skb = rt_event_new(ev->type, &hdr);
	if (!skb)
		return;
	if (rt_put_dev_id(skb, rdev) ||
	    nla_put_string(skb, ROCETUNE_A_DEV_DRIVER, rdev->driver) ||
	    nla_put_u32(skb, ROCETUNE_A_DEV_NUM_PORTS, rdev->nports) ||
	    (ev->old_name &&
	     nla_put_string(skb, ROCETUNE_A_DEV_OLD_NAME, ev->old_name))) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	rt_nl_send_event(rdev->ibdev, skb, NULL, 0);
}

/*
 * One port event, to readers in the network namespace whose net_cookie is
 * @cookie (0: all others; see rt_put_port_id()).
 */
static struct sk_buff *rt_port_event_new(const struct rt_event *ev,
					 u64 cookie)
{
	bool storm = ev->type == ROCETUNE_EVENT_STORM_START ||
		     ev->type == ROCETUNE_EVENT_STORM_END;
	bool crossing = ev->type >= ROCETUNE_EVENT_STORM_START;
	struct sk_buff *skb;
	void *hdr;

	skb = rt_event_new(ev->type, &hdr);
	if (!skb)
		return NULL;
	if (rt_put_port_id(skb, ev->rdev, ev->p, cookie) ||
	    (ev->prio >= 0 &&
	     nla_put_u8(skb, ROCETUNE_A_EVENT_PRIO, ev->prio)) ||
	    (crossing &&
	     (nla_put_u64_64bit(skb, ROCETUNE_A_EVENT_VALUE, ev->value,
				ROCETUNE_A_PAD) ||
	      nla_put_u64_64bit(skb, ROCETUNE_A_EVENT_THRESH, ev->thresh,
				ROCETUNE_A_PAD))) ||
	    (storm &&
	     nla_put_u64_64bit(skb, ROCETUNE_A_EVENT_DURATION_MS,
			       ev->duration_ms, ROCETUNE_A_PAD))) {
		nlmsg_free(skb);
		return NULL;
	}
	genlmsg_end(skb, hdr);
	return skb;
}

/* A port event; see rt_notify_port() for its context. */
static void rt_nl_send_port(const struct rt_event *ev)
{
	struct sk_buff *own, *other = NULL;
	struct rt_port *p = ev->p;

	/* The netdev's namespace is told its name, the others are not. */
	own = rt_port_event_new(ev, p->net_cookie);
	if (!own)
		return;
	if (p->ifindex || p->lower_ifindex) {
		other = rt_port_event_new(ev, 0);
		if (!other) {
			nlmsg_free(own);
			return;
		}
	}
	rt_nl_send_event(ev->rdev->ibdev, own, other, p->net_cookie);
}

/* The sender of the events (rt_notify()), registered while the family is. */
static void rt_nl_send(const struct rt_event *ev)
{
	if (ev->p)
		rt_nl_send_port(ev);
	else
		rt_nl_send_dev(ev);
}

/* Family -------------------------------------------------------------------- */

static const struct genl_ops rt_genl_ops[] = {
	{
		.cmd = ROCETUNE_CMD_DEV_GET,
		.doit = rt_nl_dev_get_doit,
		.dumpit = rt_nl_dev_get_dumpit,
		.policy = rt_dev_get_policy,
		.maxattr = ROCETUNE_A_DEV_NAME,
	},
	{
		.cmd = ROCETUNE_CMD_PORT_GET,
		.doit = rt_nl_port_get_doit,
		.dumpit = rt_nl_port_get_dumpit,
		.policy = rt_port_get_policy,
		.maxattr = ROCETUNE_A_PORT_INDEX,
	},
	{
		.cmd = ROCETUNE_CMD_CONFIG_GET,
		.doit = rt_nl_config_get_doit,
		.policy = rt_config_get_policy,
		.maxattr = ROCETUNE_A_DEV_NAME,
	},
	{
		.cmd = ROCETUNE_CMD_CONFIG_SET,
		.doit = rt_nl_config_set_doit,
		.policy = rt_config_set_policy,
		.maxattr = ROCETUNE_A_ECN_RATE_THRESH,
		/* Host-wide state: CAP_NET_ADMIN in the initial namespace. */
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = ROCETUNE_CMD_QP_GET,
		.doit = rt_qp_get_doit,
		.dumpit = rt_qp_get_dumpit,
		.done = rt_qp_get_done,
		.policy = rt_qp_get_policy,
		.maxattr = RT_QP_GET_MAXATTR,
	},
	{
		.cmd = ROCETUNE_CMD_QP_SET,
		.doit = rt_qp_set_doit,
		.policy = rt_qp_set_policy,
		.maxattr = RT_QP_SET_MAXATTR,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = ROCETUNE_CMD_QP_STATS_GET,
		.doit = rt_qp_stats_doit,
		.dumpit = rt_qp_stats_dumpit,
		.policy = rt_qp_stats_policy,
		.maxattr = RT_QP_STATS_MAXATTR,
	},
};

static const struct genl_multicast_group rt_genl_mcgrps[] = {
	{
		.name = ROCETUNE_MCGRP_EVENTS,
#ifdef GENL_MCAST_CAP_NET_ADMIN
		.flags = GENL_MCAST_CAP_NET_ADMIN,
#endif
	},
};

static struct genl_family rt_genl_family __ro_after_init = {
	.name = ROCETUNE_FAMILY_NAME,
	.version = ROCETUNE_FAMILY_VERSION,
	.netnsok = true,
	/* Our own locks serialize; no genl_mutex around the handlers. */
	.parallel_ops = true,
	/* Strict validation from the first command on. */
	.resv_start_op = 0,
	.module = THIS_MODULE,
	.ops = rt_genl_ops,
	.n_ops = ARRAY_SIZE(rt_genl_ops),
	.mcgrps = rt_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(rt_genl_mcgrps),
};

/**
 * rt_nl_init - register the generic netlink family
 *
 * Return: 0 or a negative errno.
 */
int __init rt_nl_init(void)
{
	int err;

	/* The QP handlers put their headers with it from the first request. */
	rt_core_set_family(&rt_genl_family);
	err = genl_register_family(&rt_genl_family);
	if (err)
		return err;
	WRITE_ONCE(rt_nl_live, true);
	rt_notify_register(rt_nl_send);
	return 0;
}

/**
 * rt_nl_fini - unregister the generic netlink family
 *
 * Events still being built are dropped: senders check rt_nl_live under RCU.
 */
void rt_nl_fini(void)
{
	rt_notify_register(NULL);
	WRITE_ONCE(rt_nl_live, false);
	synchronize_rcu();
	genl_unregister_family(&rt_genl_family);
}
