// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: QP_SET, the knobs of QP accounting.
 *
 * Accounting on and off per device (software RoCE devices only), the
 * device's notification point (rocetune_np.c), its shortest time between
 * CNPs and their DSCP and priority, its reaction point (rocetune_rp.c) and
 * the reaction point's parameters, the table's maximum, how long the
 * entries of destroyed QPs linger, and the period of the verification.
 * Host-wide state: the ops table gives it GENL_ADMIN_PERM.  Everything is
 * checked before anything changes.
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

static struct netlink_range_validation rt_rp_rate_range = {
	.min = RT_RP_FLOOR_MBPS,
	.max = RT_RP_RATE_MAX_MBPS,
};

static struct netlink_range_validation rt_rp_step_range = {
	.min = 0,
	.max = RT_RP_RATE_MAX_MBPS,
};

static struct netlink_range_validation rt_rp_us_range = {
	.min = 0,
	.max = RT_RP_US_MAX,
};

static struct netlink_range_validation rt_rp_period_range = {
	.min = 1,
	.max = RT_RP_US_MAX,
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
	[ROCETUNE_A_QP_RP_ENABLE] = NLA_POLICY_MAX(NLA_U8, 1),
	[ROCETUNE_A_QP_RP_MIN_RATE_MBPS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &rt_rp_rate_range),
	[ROCETUNE_A_QP_RP_MAX_RATE_MBPS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &rt_rp_rate_range),
	[ROCETUNE_A_QP_RP_AI_RATE_MBPS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &rt_rp_step_range),
	[ROCETUNE_A_QP_RP_HAI_RATE_MBPS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &rt_rp_step_range),
	[ROCETUNE_A_QP_RP_TIME_RESET_US] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &rt_rp_us_range),
	[ROCETUNE_A_QP_RP_BYTE_RESET_BYTES] = { .type = NLA_U32 },
	[ROCETUNE_A_QP_RP_THRESHOLD] =
		NLA_POLICY_RANGE(NLA_U32, 1, RT_RP_THRESHOLD_MAX),
	[ROCETUNE_A_QP_RP_INITIAL_ALPHA] =
		NLA_POLICY_MAX(NLA_U32, RT_RP_ALPHA_ONE - 1),
	[ROCETUNE_A_QP_RP_G] = NLA_POLICY_MAX(NLA_U32, RT_RP_ALPHA_ONE - 1),
	[ROCETUNE_A_QP_RP_ALPHA_PERIOD_US] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &rt_rp_period_range),
	[ROCETUNE_A_QP_RP_RRMP_US] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &rt_rp_us_range),
	[ROCETUNE_A_QP_RP_RATE_FIRST_CNP_MBPS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &rt_rp_step_range),
	[ROCETUNE_A_QP_RP_GD] = NLA_POLICY_MAX(NLA_U32, RT_RP_GD_MAX),
	[ROCETUNE_A_QP_RP_MIN_DEC_FAC_PCT] = NLA_POLICY_MAX(NLA_U32, 100),
	[ROCETUNE_A_QP_RP_CLAMP_TGT] = NLA_POLICY_MAX(NLA_U32, 1),
	[ROCETUNE_A_QP_RP_CLAMP_TGT_ATI] = NLA_POLICY_MAX(NLA_U32, 1),
	[ROCETUNE_A_QP_NP_CNP_DSCP] = NLA_POLICY_MAX(NLA_U32, 63),
	[ROCETUNE_A_QP_NP_CNP_PRIO] = NLA_POLICY_MAX(NLA_U32, 7),
};

/* The reaction point's parameters, by attribute. */
static const struct {
	int attr;
	size_t off;
} rt_rp_param_attrs[] = {
	{ ROCETUNE_A_QP_RP_MIN_RATE_MBPS,
	  offsetof(struct rt_rp_params, min_mbps) },
	{ ROCETUNE_A_QP_RP_MAX_RATE_MBPS,
	  offsetof(struct rt_rp_params, max_mbps) },
	{ ROCETUNE_A_QP_RP_AI_RATE_MBPS,
	  offsetof(struct rt_rp_params, ai_mbps) },
	{ ROCETUNE_A_QP_RP_HAI_RATE_MBPS,
	  offsetof(struct rt_rp_params, hai_mbps) },
	{ ROCETUNE_A_QP_RP_TIME_RESET_US,
	  offsetof(struct rt_rp_params, time_reset_us) },
	{ ROCETUNE_A_QP_RP_BYTE_RESET_BYTES,
	  offsetof(struct rt_rp_params, byte_reset) },
	{ ROCETUNE_A_QP_RP_THRESHOLD,
	  offsetof(struct rt_rp_params, threshold) },
	{ ROCETUNE_A_QP_RP_INITIAL_ALPHA,
	  offsetof(struct rt_rp_params, initial_alpha) },
	{ ROCETUNE_A_QP_RP_G, offsetof(struct rt_rp_params, g) },
	{ ROCETUNE_A_QP_RP_ALPHA_PERIOD_US,
	  offsetof(struct rt_rp_params, alpha_period_us) },
	{ ROCETUNE_A_QP_RP_RRMP_US, offsetof(struct rt_rp_params, rrmp_us) },
	{ ROCETUNE_A_QP_RP_RATE_FIRST_CNP_MBPS,
	  offsetof(struct rt_rp_params, rate_first_mbps) },
	{ ROCETUNE_A_QP_RP_GD, offsetof(struct rt_rp_params, gd) },
	{ ROCETUNE_A_QP_RP_MIN_DEC_FAC_PCT,
	  offsetof(struct rt_rp_params, min_dec_fac) },
	{ ROCETUNE_A_QP_RP_CLAMP_TGT,
	  offsetof(struct rt_rp_params, clamp_tgt) },
	{ ROCETUNE_A_QP_RP_CLAMP_TGT_ATI,
	  offsetof(struct rt_rp_params, clamp_tgt_ati) },
};

static u32 *rt_rp_param(struct rt_rp_params *p, unsigned int i)
{
	return (u32 *)((u8 *)p + rt_rp_param_attrs[i].off);
}

/* The first reaction point parameter of the request, or NULL. */
static struct nlattr *rt_qp_set_rp_any(struct genl_info *info)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rt_rp_param_attrs); i++)
		if (info->attrs[rt_rp_param_attrs[i].attr])
			return info->attrs[rt_rp_param_attrs[i].attr];
	return NULL;
}

/*
 * The reaction point of @qd (RP_ENABLE and its parameters), checked
 * against the accounting the same request leaves (@acct); the parameters
 * it leaves are returned in @p.
 */
static int rt_qp_set_rp_check(struct genl_info *info, struct rt_qpdev *qd,
			      bool acct, struct rt_rp_params *p)
{
	struct nlattr *a_rp = info->attrs[ROCETUNE_A_QP_RP_ENABLE];
	struct nlattr *a_min = info->attrs[ROCETUNE_A_QP_RP_MIN_RATE_MBPS];
	struct nlattr *a_max = info->attrs[ROCETUNE_A_QP_RP_MAX_RATE_MBPS];
	struct nlattr *a;
	unsigned int i;

	*p = qd->rp_p;
	for (i = 0; i < ARRAY_SIZE(rt_rp_param_attrs); i++) {
		a = info->attrs[rt_rp_param_attrs[i].attr];
		if (a)
			*rt_rp_param(p, i) = nla_get_u32(a);
	}
	if (p->min_mbps > p->max_mbps) {
		NL_SET_ERR_MSG_ATTR(info->extack, a_min ?: a_max,
				    "the reaction point's minimum rate is above its maximum");
		return -EINVAL;
	}
	if (!a_rp || !nla_get_u8(a_rp))
		return 0;
	if (!qd->sw) {
		NL_SET_ERR_MSG_ATTR(info->extack, a_rp,
				    "the reaction point needs a software RoCE device: a hardware device has its own");
		return -EOPNOTSUPP;
	}
	if (!acct) {
		NL_SET_ERR_MSG_ATTR(info->extack, a_rp,
				    "the reaction point needs the device's QP accounting on");
		return -EINVAL;
	}
	return 0;
}

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
 * rt_qp_set_doit - QP_SET: accounting, the notification and reaction
 *	points on/off per device and their parameters, table maximum,
 *	linger time and verification period
 * @skb: the request
 * @info: its attributes
 *
 * Turning accounting off drops the device's entries and turns its
 * notification and reaction points off.
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
	struct nlattr *a_dscp = info->attrs[ROCETUNE_A_QP_NP_CNP_DSCP];
	struct nlattr *a_prio = info->attrs[ROCETUNE_A_QP_NP_CNP_PRIO];
	struct nlattr *a_rp = info->attrs[ROCETUNE_A_QP_RP_ENABLE];
	struct nlattr *a_rpp = rt_qp_set_rp_any(info);
	struct rt_qpdev *qd = NULL;
	struct rt_rp_params rpp;
	unsigned int i;
	int err = 0;

	if (!a_acct && !a_max && !a_linger && !a_verify && !a_np && !a_gap &&
	    !a_dscp && !a_prio && !a_rp && !a_rpp) {
		GENL_SET_ERR_MSG(info, "nothing to set");
		return -EINVAL;
	}
	/* Everything is checked before anything changes. */
	mutex_lock(&rt_qpdev_mutex);
	if (a_acct || a_np || a_gap || a_dscp || a_prio || a_rp || a_rpp) {
		qd = rt_qpdev_nl_find(genl_info_net(info), info->attrs,
				      info->extack);
		if (IS_ERR_OR_NULL(qd)) {
			if (!qd)
				NL_SET_ERR_MSG_ATTR(info->extack,
						    a_acct ?: a_np ?: a_gap ?:
						    a_dscp ?: a_prio ?:
						    a_rp ?: a_rpp,
						    "a per-device setting needs a device index or name");
			err = qd ? PTR_ERR(qd) : -EINVAL;
			mutex_unlock(&rt_qpdev_mutex);
			return err;
		}
		err = rt_qp_set_np_check(info, qd,
					 a_acct ? nla_get_u8(a_acct) : qd->acct) ?:
		      rt_qp_set_rp_check(info, qd,
					 a_acct ? nla_get_u8(a_acct) : qd->acct,
					 &rpp);
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
	if (a_dscp)
		WRITE_ONCE(qd->np_cnp_dscp, nla_get_u32(a_dscp));
	if (a_prio)
		WRITE_ONCE(qd->np_cnp_prio, nla_get_u32(a_prio));
	if (a_np)
		WRITE_ONCE(qd->np, nla_get_u8(a_np));
	/* Each parameter is read on its own by the hooks. */
	for (i = 0; a_rpp && i < ARRAY_SIZE(rt_rp_param_attrs); i++)
		WRITE_ONCE(*rt_rp_param(&qd->rp_p, i), *rt_rp_param(&rpp, i));
	if (a_rp)
		WRITE_ONCE(qd->rp, nla_get_u8(a_rp));
	if (a_max)
		rt_qp_max_set(nla_get_u32(a_max));
	if (a_linger)
		rt_qp_linger_set(nla_get_u32(a_linger));
	mutex_unlock(&rt_qpdev_mutex);
	if (a_verify)
		rt_qptrack_set_period(nla_get_u32(a_verify));
	return 0;
}
