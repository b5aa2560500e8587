// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: QP_SET, the knobs of QP accounting.
 *
 * Accounting on and off per device (software RoCE devices only), the
 * table's maximum, how long the entries of destroyed QPs linger, and the
 * period of the verification.  Host-wide state: the ops table gives it
 * GENL_ADMIN_PERM.  Everything is checked before anything changes.
 */

#include <net/netlink.h>
#include <rdma/ib_verbs.h>

#include "rocetune.h"
#include "rocetune_qp.h"

static struct netlink_range_validation rt_linger_range = {
	.min = 0,
	.max = RT_QP_KNOB_MAX_MS,
};

static struct netlink_range_validation rt_verify_range = {
	.min = RT_QP_VERIFY_MIN_MS,
	.max = RT_QP_KNOB_MAX_MS,
};

static struct netlink_range_validation rt_table_max_range = {
	.min = 1,
	.max = RT_QP_TABLE_LIMIT,
};

const struct nla_policy rt_qp_set_policy[RT_QP_SET_MAXATTR + 1] = {
	RT_POLICY_DEV,
	[ROCETUNE_A_QP_ACCT] = NLA_POLICY_MAX(NLA_U8, 1),
	[ROCETUNE_A_QP_TABLE_MAX] = NLA_POLICY_FULL_RANGE(NLA_U32,
							  &rt_table_max_range),
	[ROCETUNE_A_QP_LINGER_MS] = NLA_POLICY_FULL_RANGE(NLA_U32,
							  &rt_linger_range),
	[ROCETUNE_A_QP_VERIFY_MS] = NLA_POLICY_FULL_RANGE(NLA_U32,
							  &rt_verify_range),
};

/**
 * rt_qp_set_doit - QP_SET: accounting on/off per device, table maximum,
 *	linger time and verification period
 * @skb: the request
 * @info: its attributes
 *
 * Turning accounting off drops the device's entries.
 *
 * Return: 0 or a negative errno.
 */
int rt_qp_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a_acct = info->attrs[ROCETUNE_A_QP_ACCT];
	struct nlattr *a_max = info->attrs[ROCETUNE_A_QP_TABLE_MAX];
	struct nlattr *a_linger = info->attrs[ROCETUNE_A_QP_LINGER_MS];
	struct nlattr *a_verify = info->attrs[ROCETUNE_A_QP_VERIFY_MS];
	struct rt_qpdev *qd = NULL;
	int err = 0;

	if (!a_acct && !a_max && !a_linger && !a_verify) {
		GENL_SET_ERR_MSG(info, "nothing to set");
		return -EINVAL;
	}
	/* Everything is checked before anything changes. */
	mutex_lock(&rt_qpdev_mutex);
	if (a_acct) {
		qd = rt_qpdev_nl_find(genl_info_net(info), info->attrs,
				      info->extack);
		if (IS_ERR_OR_NULL(qd)) {
			if (!qd)
				GENL_SET_ERR_MSG(info, "ACCT needs a device");
			err = qd ? PTR_ERR(qd) : -EINVAL;
			mutex_unlock(&rt_qpdev_mutex);
			return err;
		}
		if (nla_get_u8(a_acct) && !qd->sw) {
			NL_SET_ERR_MSG_ATTR(info->extack, a_acct,
					    "per-QP packet accounting needs a software RoCE device: a hardware device's packets do not cross the IP stack");
			mutex_unlock(&rt_qpdev_mutex);
			return -EOPNOTSUPP;
		}
		/* The only step that can fail comes first. */
		err = rt_qp_acct_set(qd, nla_get_u8(a_acct));
		if (err) {
			NL_SET_ERR_MSG_ATTR(info->extack, a_acct,
					    "cannot register the netfilter hooks");
			mutex_unlock(&rt_qpdev_mutex);
			return err;
		}
		if (!qd->acct) {
			/* Hooks and the verification stop finding the device first. */
			synchronize_rcu();
			rt_qp_flush(qd->index, false);
		}
	}
	if (a_max)
		rt_qp_max_set(nla_get_u32(a_max));
	if (a_linger)
		rt_qp_linger_set(nla_get_u32(a_linger));
	mutex_unlock(&rt_qpdev_mutex);
	if (a_verify)
		rt_qptrack_set_period(nla_get_u32(a_verify));
	return 0;
}
