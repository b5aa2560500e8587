// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: QP_SET, the knobs of QP accounting.
 *
 * Accounting on and off per device (software RoCE devices only), the
 * device's notification point (rocetune_np.c) and its shortest time
 * between CNPs, the table's maximum, how long the entries of destroyed QPs
 * linger, and the period of the verification.  Host-wide state: the ops table gives it
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

static struct netlink_range_validation rt_np_gap_range = {
	.min = 0,
	.max = RT_NP_GAP_US_MAX,
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
	[ROCETUNE_A_QP_NP_ENABLE] = NLA_POLICY_MAX(NLA_U8, 1),
	[ROCETUNE_A_QP_NP_MIN_CNP_GAP_US] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &rt_np_gap_range),
};

/*
 * The notification point of @qd (NP_ENABLE, NP_MIN_CNP_GAP_US), checked
 * against the accounting the same request leaves (@acct).
 */
static int rt_qp_set_np_check(struct genl_info *info, struct rt_qpdev *qd,
			      bool acct)
{
	struct nlattr *a_np = info->attrs[ROCETUNE_A_QP_NP_ENABLE];

	if (!a_np || !nla_get_u8(a_np))
		return 0;
	if (!qd->sw) {
		NL_SET_ERR_MSG_ATTR(info->extack, a_np,
				    "the notification point needs a software RoCE device: a hardware device has its own");
		return -EOPNOTSUPP;
	}
	if (!acct) {
		NL_SET_ERR_MSG_ATTR(info->extack, a_np,
				    "the notification point needs the device's QP accounting on");
		return -EINVAL;
	}
	return 0;
}

/**
 * rt_qp_set_doit - QP_SET: accounting and the notification point on/off
 *	per device, table maximum, linger time and verification period
 * @skb: the request
 * @info: its attributes
 *
 * Turning accounting off drops the device's entries and turns its
 * notification point off.
 *
 * Return: 0 or a negative errno.
 */
int rt_qp_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a_acct = info->attrs[ROCETUNE_A_QP_ACCT];
	struct nlattr *a_max = info->attrs[ROCETUNE_A_QP_TABLE_MAX];
	struct nlattr *a_linger = info->attrs[ROCETUNE_A_QP_LINGER_MS];
	struct nlattr *a_verify = info->attrs[ROCETUNE_A_QP_VERIFY_MS];
	struct nlattr *a_np = info->attrs[ROCETUNE_A_QP_NP_ENABLE];
	struct nlattr *a_gap = info->attrs[ROCETUNE_A_QP_NP_MIN_CNP_GAP_US];
	struct rt_qpdev *qd = NULL;
	int err = 0;

	if (!a_acct && !a_max && !a_linger && !a_verify && !a_np && !a_gap) {
		GENL_SET_ERR_MSG(info, "nothing to set");
		return -EINVAL;
	}
	/* Everything is checked before anything changes. */
	mutex_lock(&rt_qpdev_mutex);
	if (a_acct || a_np || a_gap) {
		qd = rt_qpdev_nl_find(genl_info_net(info), info->attrs,
				      info->extack);
		if (IS_ERR_OR_NULL(qd)) {
			if (!qd)
				NL_SET_ERR_MSG_ATTR(info->extack,
						    a_acct ?: a_np ?: a_gap,
						    "a per-device setting needs a device index or name");
			err = qd ? PTR_ERR(qd) : -EINVAL;
			mutex_unlock(&rt_qpdev_mutex);
			return err;
		}
		err = rt_qp_set_np_check(info, qd,
					 a_acct ? nla_get_u8(a_acct) : qd->acct);
		if (err) {
			mutex_unlock(&rt_qpdev_mutex);
			return err;
		}
	}
	if (a_acct) {
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
	if (a_gap)
		WRITE_ONCE(qd->np_gap_us, nla_get_u32(a_gap));
	if (a_np)
		WRITE_ONCE(qd->np, nla_get_u8(a_np));
	if (a_max)
		rt_qp_max_set(nla_get_u32(a_max));
	if (a_linger)
		rt_qp_linger_set(nla_get_u32(a_linger));
	mutex_unlock(&rt_qpdev_mutex);
	if (a_verify)
		rt_qptrack_set_period(nla_get_u32(a_verify));
	return 0;
}
