// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: QP_STATS_GET, the state of QP accounting per device.
 *
 * Whether a device accounts, what could not be attributed to a QP, the
 * pending entries, whether attribution is degraded, the table's size,
 * maximum and generation, the notification point's state and
 * counters, and the reaction point's state and parameters.  A dump lists every device the caller's
 * network namespace may see, by index.
 */

#include <linux/ktime.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>

#include "rocetune.h"
#include "rocetune_qp.h"

const struct nla_policy rt_qp_stats_policy[RT_QP_STATS_MAXATTR + 1] = {
	RT_POLICY_DEV,
};

/* The reaction point's state and parameters. */
static int rt_qp_stats_rp(struct sk_buff *skb, const struct rt_qpdev *qd)
{
	const struct rt_rp_params *p = &qd->rp_p;

	if (nla_put_u8(skb, ROCETUNE_A_QP_RP_ENABLE, READ_ONCE(qd->rp)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_MIN_RATE_MBPS,
			READ_ONCE(p->min_mbps)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_MAX_RATE_MBPS,
			READ_ONCE(p->max_mbps)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_AI_RATE_MBPS,
			READ_ONCE(p->ai_mbps)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_HAI_RATE_MBPS,
			READ_ONCE(p->hai_mbps)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_TIME_RESET_US,
			READ_ONCE(p->time_reset_us)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_BYTE_RESET_BYTES,
			READ_ONCE(p->byte_reset)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_THRESHOLD,
			READ_ONCE(p->threshold)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_INITIAL_ALPHA,
			READ_ONCE(p->initial_alpha)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_G, READ_ONCE(p->g)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_ALPHA_PERIOD_US,
			READ_ONCE(p->alpha_period_us)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_RRMP_US, READ_ONCE(p->rrmp_us)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_RATE_FIRST_CNP_MBPS,
			READ_ONCE(p->rate_first_mbps)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_GD, READ_ONCE(p->gd)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_MIN_DEC_FAC_PCT,
			READ_ONCE(p->min_dec_fac)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_CLAMP_TGT,
			READ_ONCE(p->clamp_tgt)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_CLAMP_TGT_ATI,
			READ_ONCE(p->clamp_tgt_ati)))
		return -EMSGSIZE;
	return 0;
}

/*
 * QP_DEGRADED: pending entries ran out within the last two verification
 * periods, and at least two seconds: once packets for unknown QPs stop
 * coming faster than the verification settles them, the device recovers
 * by itself.
 */
static bool rt_qp_stats_degraded(struct rt_qpdev *qd)
{
	u64 last = READ_ONCE(qd->overflow_ns);
	u64 span = max_t(u64, 2ULL * rt_qptrack_period() * NSEC_PER_MSEC,
			 2 * NSEC_PER_SEC);

	return last && ktime_get_coarse_ns() - last < span;
}

static int rt_qp_stats_fill(struct sk_buff *skb, struct rt_qpdev *qd,
			    u32 portid, u32 seq, int flags)
{
	char name[IB_DEVICE_NAME_MAX];
	void *hdr;

	spin_lock_bh(&rt_qp_lock);
	strscpy(name, qd->name, sizeof(name));
	spin_unlock_bh(&rt_qp_lock);
	hdr = genlmsg_put(skb, portid, seq, &rt_genl_family, flags,
			  ROCETUNE_CMD_QP_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, ROCETUNE_A_DEV_INDEX, qd->index) ||
	    nla_put_string(skb, ROCETUNE_A_DEV_NAME, name) ||
	    nla_put_u8(skb, ROCETUNE_A_QP_ACCT, READ_ONCE(qd->acct)) ||
	    nla_put_u8(skb, ROCETUNE_A_QP_LOOPBACK_UNSEEN, qd->sw) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_UNATTR_RX,
			      atomic64_read(&qd->unattr_rx), ROCETUNE_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_UNATTR_TX,
			      atomic64_read(&qd->unattr_tx), ROCETUNE_A_PAD) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_PENDING, rt_qppend_count(qd)) ||
	    nla_put_u8(skb, ROCETUNE_A_QP_DEGRADED, rt_qp_stats_degraded(qd)) ||
	    nla_put_u8(skb, ROCETUNE_A_QP_HOOKS, rt_qp_hooks()) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_TABLE_MAX, rt_qp_max_get()) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_LINGER_MS, rt_qp_linger_get()) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_VERIFY_MS, rt_qptrack_period()) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_TABLE_COUNT, rt_qp_count_get()) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_REFUSED, rt_qp_refused_get(),
			      ROCETUNE_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_GEN,
			      rt_qp_gen_get(), ROCETUNE_A_PAD) ||
	    nla_put_u8(skb, ROCETUNE_A_QP_NP_ENABLE, READ_ONCE(qd->np)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_NP_MIN_CNP_GAP_US,
			READ_ONCE(qd->np_gap_us)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_NP_CNP_DSCP,
			READ_ONCE(qd->np_cnp_dscp)) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_NP_CNP_PRIO,
			READ_ONCE(qd->np_cnp_prio)) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_NP_CNP_SENT,
			      atomic64_read(&qd->np_cnp_sent), ROCETUNE_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_NP_CNP_FAILED,
			      atomic64_read(&qd->np_cnp_failed),
			      ROCETUNE_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_NP_CE_COALESCED,
			      atomic64_read(&qd->np_ce_coalesced),
			      ROCETUNE_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_NP_CE_NO_CNP,
			      atomic64_read(&qd->np_ce_no_cnp),
			      ROCETUNE_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_RX_BAD_HDR,
			      atomic64_read(&qd->rx_bad[RT_BAD_HDR]),
			      ROCETUNE_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_RX_BAD_ICRC,
			      atomic64_read(&qd->rx_bad[RT_BAD_ICRC]),
			      ROCETUNE_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_RX_BAD_PEER,
			      atomic64_read(&qd->rx_bad[RT_BAD_PEER]),
			      ROCETUNE_A_PAD) ||
	    rt_qp_stats_rp(skb, qd)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * rt_qp_stats_doit - QP_STATS_GET do: accounting state of one device
 * @skb: the request
 * @info: its attributes
 *
 * Return: 0 or a negative errno.
 */
int rt_qp_stats_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rt_qpdev *qd;
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	/*
	 * Under RCU, never rt_qpdev_mutex: a reader must not wait behind the
	 * verification, which holds it across a whole scan.
	 */
	rcu_read_lock();
	qd = rt_qpdev_nl_find(genl_info_net(info), info->attrs, info->extack);
	if (IS_ERR_OR_NULL(qd)) {
		if (!qd)
			GENL_SET_ERR_MSG(info, "a device index or name is required");
		err = qd ? PTR_ERR(qd) : -EINVAL;
		rcu_read_unlock();
		nlmsg_free(msg);
		return err;
	}
	err = rt_qp_stats_fill(msg, qd, info->snd_portid, info->snd_seq, 0);
	rcu_read_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/**
 * rt_qp_stats_dumpit - QP_STATS_GET dump: every device, by index
 * @skb: the message to fill
 * @cb: the dump; cb->args[0] is the next device index
 *
 * A pass after a device came or went marks the dump NLM_F_DUMP_INTR.
 *
 * Return: the length of @skb or a negative errno.
 */
int rt_qp_stats_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	u32 next = cb->args[0], best;
	struct rt_qpdev *qd, *pick;
	unsigned int off;
	int err = 0;

	/* Under RCU, as the do. */
	rcu_read_lock();
	cb->seq = READ_ONCE(rt_qpdev_seq);
	for (;;) {
		pick = NULL;
		best = U32_MAX;
		list_for_each_entry_rcu(qd, &rt_qpdevs, node)
			if (qd->index >= next && qd->index <= best &&
			    rdma_dev_access_netns(qd->ibdev,
						  sock_net(cb->skb->sk))) {
				pick = qd;
				best = qd->index;
			}
		if (!pick)
			break;
		off = skb->len;
		err = rt_qp_stats_fill(skb, pick, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			break;
		rt_dump_check(cb, skb, off);
		next = pick->index + 1;
	}
	rcu_read_unlock();
	cb->args[0] = next;
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}
