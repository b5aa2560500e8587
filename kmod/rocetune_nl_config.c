// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: CONFIG_GET and CONFIG_SET, the sampling configuration.
 *
 * Without a device they read or change the host's configuration, which
 * every device without one of its own follows; with a device, that
 * device's, which it then keeps.  A change is host-wide state:
 * CAP_NET_ADMIN in the initial user namespace (the ops table's
 * GENL_ADMIN_PERM).
 */

#include "rocetune_nlmsg.h"

static struct netlink_range_validation rt_interval_range = {
	.min = RT_INTERVAL_MIN_MS,
	.max = RT_INTERVAL_MAX_MS,
};

static struct netlink_range_validation rt_storm_range = {
	.min = RT_STORM_MIN_MS,
	.max = RT_STORM_MAX_MS,
};

const struct nla_policy rt_nl_config_get_policy[ROCETUNE_A_DEV_NAME + 1] = {
	RT_POLICY_DEV,
};

const struct nla_policy
rt_nl_config_set_policy[ROCETUNE_A_ECN_RATE_THRESH + 1] = {
	RT_POLICY_DEV,
	[ROCETUNE_A_INTERVAL_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &rt_interval_range),
	[ROCETUNE_A_STORM_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &rt_storm_range),
	[ROCETUNE_A_CNP_RATE_THRESH] = { .type = NLA_U64 },
	[ROCETUNE_A_ECN_RATE_THRESH] = { .type = NLA_U64 },
};

/* CONFIG_GET ------------------------------------------------------------ */

/* The configuration in effect, of the device or of the host. */
static int rt_nl_config_prepare(struct rt_nl_req *req)
{
	struct rt_config *cfg = req->data;

	if (req->rdev) {
		rt_dev_config(req->rdev, cfg);
	} else {
		spin_lock(&rt_cfg_lock);
		*cfg = rt_cfg;
		spin_unlock(&rt_cfg_lock);
	}
	return 0;
}

static size_t rt_nl_config_reply_size(const struct rt_nl_req *req)
{
	return rt_nl_dev_size() + 2 * nla_total_size(sizeof(u32)) +
	       2 * nla_total_size_64bit(sizeof(u64));
}

static int rt_nl_config_fill(struct sk_buff *skb, const struct rt_nl_req *req)
{
	const struct rt_config *cfg = req->data;

	if ((req->rdev && rt_nl_put_dev_id(skb, req->rdev)) ||
	    nla_put_u32(skb, ROCETUNE_A_INTERVAL_MS, cfg->interval_ms) ||
	    nla_put_u32(skb, ROCETUNE_A_STORM_MS, cfg->storm_ms) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_CNP_RATE_THRESH,
			      cfg->cnp_rate_thresh, ROCETUNE_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_ECN_RATE_THRESH,
			      cfg->ecn_rate_thresh, ROCETUNE_A_PAD))
		return -EMSGSIZE;
	return 0;
}

const struct rt_nl_request_ops rt_nl_config_get_request_ops = {
	.cmd = ROCETUNE_CMD_CONFIG_GET,
	.dev = RT_NL_DEV_OPTIONAL,
	.data_size = sizeof(struct rt_config),
	.prepare = rt_nl_config_prepare,
	.reply_size = rt_nl_config_reply_size,
	.fill = rt_nl_config_fill,
};

/* CONFIG_SET ------------------------------------------------------------ */

static int rt_nl_config_validate(struct rt_nl_req *req)
{
	struct nlattr **tb = req->tb;

	if (!tb[ROCETUNE_A_INTERVAL_MS] && !tb[ROCETUNE_A_STORM_MS] &&
	    !tb[ROCETUNE_A_CNP_RATE_THRESH] && !tb[ROCETUNE_A_ECN_RATE_THRESH]) {
		NL_SET_ERR_MSG(req->extack, "nothing to set");
		return -EINVAL;
	}
	return 0;
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

static int rt_nl_config_set(struct rt_nl_req *req)
{
	struct rt_dev *rdev = req->rdev;
	struct rt_config cfg;
	unsigned long i;

	if (rdev) {
		/* The device gets its own copy of what is in effect. */
		rt_dev_config(rdev, &cfg);
		rt_config_apply(&cfg, req->tb);
		rdev->cfg = cfg;
		rdev->cfg_own = true;
		rt_sample_kick(rdev);
		return 0;
	}
	spin_lock(&rt_cfg_lock);
	rt_config_apply(&rt_cfg, req->tb);
	spin_unlock(&rt_cfg_lock);
	/* Devices without their own configuration follow at once. */
	mutex_lock(&rt_devs_lock);
	xa_for_each(&rt_devs_xa, i, rdev)
		rt_sample_kick(rdev);
	mutex_unlock(&rt_devs_lock);
	return 0;
}

const struct rt_nl_request_ops rt_nl_config_set_request_ops = {
	.cmd = ROCETUNE_CMD_CONFIG_SET,
	.dev = RT_NL_DEV_OPTIONAL,
	.validate = rt_nl_config_validate,
	.set = rt_nl_config_set,
};
