// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: QP_GET, the per-QP counters of QP accounting.
 *
 * QP_GET (do and dump), whose handlers the family's ops table
 * (rocetune_nl.c) names; they read the table of rocetune_qp.c and the
 * devices of rocetune_qpdev.c, and put their messages with the family
 * that the core holds (&rt_genl_family).  QP_SET and QP_STATS_GET have
 * files of their own.
 *
 * Top-K samples: a top-K dump copies the ranked counter of every QP the
 * caller may see into the entry's base of one sample slot, tagged with the
 * dump's generation S (the sample); a later top-K dump of the same user
 * with TOP_SAMPLE = S ranks by the change since then, and takes its own
 * sample in S's slot.  Slots are per requesting user (the effective UID of
 * the socket's opener): RT_QP_SAMPLES_PER_USER each, RT_QP_SAMPLES in all.
 * A user's new sample replaces its least recently used one; only when all
 * slots are in use by others does it take the least recently used slot.
 * A top-K dump is K-bounded: its K QPs are chosen with a heap of K.
 *
 * Dumps without TOP_K walk the table in (device, QP number) order with a
 * cursor (rt_qp_xa).  Each pass reports the table's version (rt_qp_tblseq,
 * changed when an entry comes or goes) through genl_dump_check_consistent():
 * a dump across a change is marked NLM_F_DUMP_INTR.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>
#include <rdma/restrack.h>

#include "rocetune.h"
#include "rocetune_bth.h"
#include "rocetune_qp.h"

/* Serializes top-K dumps' use of the entries' bases and of the slots. */
static DEFINE_MUTEX(rt_qp_sample_mutex);

/**
 * struct rt_qp_slot - a top-K sample slot
 * @uid: the user holding the sample
 * @gen: generation of the sample (its top-K dump), 0 while free
 * @by: the counter the sample holds
 * @used: when the slot was last used (rt_qp_slot_clock)
 */
struct rt_qp_slot {
	kuid_t uid;
	u64 gen;
	int by;
	u64 used;
};

static struct rt_qp_slot rt_qp_slots[RT_QP_SAMPLES];
static u64 rt_qp_slot_clock;

/* Netlink attribute of each counter. */
static const u16 rt_qp_cnt_attr[RT_QPC_NUM] = {
	[RT_QPC_RX_PKTS] = ROCETUNE_A_QP_RX_PKTS,
	[RT_QPC_RX_BYTES] = ROCETUNE_A_QP_RX_BYTES,
	[RT_QPC_TX_PKTS] = ROCETUNE_A_QP_TX_PKTS,
	[RT_QPC_TX_BYTES] = ROCETUNE_A_QP_TX_BYTES,
	[RT_QPC_RX_ECN_CE] = ROCETUNE_A_QP_RX_ECN_CE_PKTS,
	[RT_QPC_RX_ECN_ECT] = ROCETUNE_A_QP_RX_ECN_ECT_PKTS,
	[RT_QPC_TX_ECN_ECT] = ROCETUNE_A_QP_TX_ECN_ECT_PKTS,
	[RT_QPC_RX_CNP] = ROCETUNE_A_QP_RX_CNP_PKTS,
	[RT_QPC_TX_CNP] = ROCETUNE_A_QP_TX_CNP_PKTS,
	[RT_QPC_RX_NAK_SEQ_ERR] = ROCETUNE_A_QP_RX_NAK_SEQ_ERR,
	[RT_QPC_RX_RNR_NAK] = ROCETUNE_A_QP_RX_RNR_NAK,
	[RT_QPC_TX_NAK_SEQ_ERR] = ROCETUNE_A_QP_TX_NAK_SEQ_ERR,
	[RT_QPC_TX_RNR_NAK] = ROCETUNE_A_QP_TX_RNR_NAK,
	[RT_QPC_TX_RETRANSMIT] = ROCETUNE_A_QP_TX_RETRANSMIT_PKTS,
	[RT_QPC_RX_ACKREQ] = ROCETUNE_A_QP_RX_ACKREQ_PKTS,
};

static struct netlink_range_validation rt_qpn_range = {
	.min = 0,
	.max = RT_PSN_MASK,
};

static struct netlink_range_validation rt_top_k_range = {
	.min = 1,
	.max = RT_QP_TOP_K_MAX,
};

const struct nla_policy rt_qp_get_policy[RT_QP_GET_MAXATTR + 1] = {
	RT_POLICY_DEV,
	[ROCETUNE_A_QPN] = NLA_POLICY_FULL_RANGE(NLA_U32, &rt_qpn_range),
	[ROCETUNE_A_QPN_MIN] = NLA_POLICY_FULL_RANGE(NLA_U32, &rt_qpn_range),
	[ROCETUNE_A_QPN_MAX] = NLA_POLICY_FULL_RANGE(NLA_U32, &rt_qpn_range),
	[ROCETUNE_A_QP_TOP_K] = NLA_POLICY_FULL_RANGE(NLA_U32, &rt_top_k_range),
	[ROCETUNE_A_QP_TOP_BY] = { .type = NLA_U32 },
	[ROCETUNE_A_QP_SINCE_GEN] = { .type = NLA_U64 },
	[ROCETUNE_A_QP_TOP_SAMPLE] = NLA_POLICY_MIN(NLA_U64, 1),
	[ROCETUNE_A_PORT_INDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};

/**
 * struct rt_qp_snap - a copy of one entry, taken under rt_qp_lock
 * @key: device and QP number
 * @meta: the metadata fields
 * @gen: generation of the last change
 * @first_ns: first packet
 * @last_ns: last packet
 * @cnt: the counters
 * @delta: change of the ranked counter since the top-K sample
 * @has_delta: @delta is valid (a top-K dump since a sample)
 * @has_rp: the QP's reaction point handled a CNP: @rp is reported
 * @rp: the reaction point's state (under its own lock)
 * @has_rtt: the QP measured a round trip: @rtt is reported
 * @rtt: its round trips (under their own lock)
 */
struct rt_qp_snap {
	struct rt_qp_key key;
	struct {
		bool type_known, rqpn_known, owner_known;
		u8 type;
		u32 port;
		u32 rqpn;
		struct pid *owner;
		char comm[TASK_COMM_LEN];
		u64 dead_ns;
	} meta;
	u64 gen;
	u64 first_ns;
	u64 last_ns;
	u64 cnt[RT_QPC_NUM];
	u64 delta;
	bool has_delta;
	bool has_rp;
	struct rt_rp_snap rp;
	bool has_rtt;
	struct rt_rtt_snap rtt;
};

static void rt_qp_snap(struct rt_qp *qp, struct rt_qp_snap *s)
{
	int i;

	s->key = qp->key;
	spin_lock_bh(&rt_qp_lock);
	s->meta.type_known = qp->type_known;
	s->meta.rqpn_known = qp->rqpn_known;
	s->meta.owner_known = qp->owner_known;
	s->meta.type = qp->type;
	s->meta.port = qp->port;
	s->meta.rqpn = qp->txkey.rqpn;
	s->meta.owner = get_pid(qp->owner);
	memcpy(s->meta.comm, qp->comm, sizeof(s->meta.comm));
	s->meta.dead_ns = qp->dead_ns;
	spin_unlock_bh(&rt_qp_lock);
	s->gen = atomic64_read(&qp->gen);
	s->first_ns = atomic64_read(&qp->first_ns);
	s->last_ns = atomic64_read(&qp->last_ns);
	for (i = 0; i < RT_QPC_NUM; i++)
		s->cnt[i] = atomic64_read(rt_qp_cnt(qp, i));
	s->has_delta = false;
	s->has_rp = rt_rp_snap(qp, &s->rp);
	s->has_rtt = rt_rtt_snap(qp, &s->rtt);
}

/* Drop what rt_qp_snap() referenced. */
static void rt_qp_snap_put(struct rt_qp_snap *s)
{
	put_pid(s->meta.owner);
	s->meta.owner = NULL;
}

/*
 * The owner of a QP, for callers with CAP_NET_ADMIN: its PID as the
 * caller's PID namespace sees it (nothing when it does not see it), and
 * its command name; a kernel QP is PID 0 with the kernel user's name.
 */
static int rt_qp_put_owner(struct sk_buff *skb, const struct rt_qp_snap *s)
{
	pid_t pid = 0;

	if (!s->meta.owner_known)
		return 0;
	if (s->meta.owner) {
		pid = pid_vnr(s->meta.owner);
		if (!pid)
			return 0;
	}
	if (nla_put_u32(skb, ROCETUNE_A_QP_PID, pid) ||
	    nla_put_string(skb, ROCETUNE_A_QP_COMM, s->meta.comm))
		return -EMSGSIZE;
	return 0;
}

static int rt_qp_put_hw(struct sk_buff *skb, struct ib_device *ibdev,
			u32 qpn);

/* The reaction point of a QP that handled a CNP (rocetune_rp.c). */
static int rt_qp_put_rp(struct sk_buff *skb, const struct rt_rp_snap *rp)
{
	if (nla_put_u8(skb, ROCETUNE_A_QP_RP_PACED, rp->paced) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_RP_RATE_KBPS, rp->rc_kbps,
			      ROCETUNE_A_QP_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_RP_TARGET_KBPS, rp->rt_kbps,
			      ROCETUNE_A_QP_PAD) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_RP_ALPHA, rp->alpha) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_RP_CNPS, rp->cnps,
			      ROCETUNE_A_QP_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_RP_CUTS, rp->cuts,
			      ROCETUNE_A_QP_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_RP_RELEASES, rp->releases,
			      ROCETUNE_A_QP_PAD))
		return -EMSGSIZE;
	return 0;
}

/* The round trips of a QP that measured one (rocetune_rtt.c). */
static int rt_qp_put_rtt(struct sk_buff *skb, const struct rt_rtt_snap *r)
{
	if (nla_put_u64_64bit(skb, ROCETUNE_A_QP_RTT_SAMPLES, r->samples,
			      ROCETUNE_A_QP_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_RTT_P50_NS, r->p50_ns,
			      ROCETUNE_A_QP_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_RTT_P99_NS, r->p99_ns,
			      ROCETUNE_A_QP_PAD) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_RTT_PACING_NS, r->pacing_ns,
			      ROCETUNE_A_QP_PAD))
		return -EMSGSIZE;
	if (r->has_jitter &&
	    (nla_put_u64_64bit(skb, ROCETUNE_A_QP_JITTER_P50_NS,
			       r->jitter_p50_ns, ROCETUNE_A_QP_PAD) ||
	     nla_put_u64_64bit(skb, ROCETUNE_A_QP_JITTER_P99_NS,
			       r->jitter_p99_ns, ROCETUNE_A_QP_PAD)))
		return -EMSGSIZE;
	return 0;
}

/* One QP message; with @ibdev, also its hardware counters (do only). */
static int rt_qp_fill(struct sk_buff *skb, const struct rt_qp_snap *s,
		      u64 gen, bool admin, struct ib_device *ibdev, u32 portid,
		      u32 seq, int flags)
{
	char name[IB_DEVICE_NAME_MAX];
	struct nlattr *nest;
	void *hdr;
	int i;

	rt_qpdev_name(s->key.dev, name);
	hdr = genlmsg_put(skb, portid, seq, &rt_genl_family, flags,
			  ROCETUNE_CMD_QP_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, ROCETUNE_A_DEV_INDEX, s->key.dev) ||
	    (name[0] && nla_put_string(skb, ROCETUNE_A_DEV_NAME, name)) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_GEN, gen, ROCETUNE_A_PAD))
		goto err_cancel;
	nest = nla_nest_start(skb, ROCETUNE_A_QP);
	if (!nest)
		goto err_cancel;
	if (nla_put_u32(skb, ROCETUNE_A_QP_QPN, s->key.qpn) ||
	    nla_put_u32(skb, ROCETUNE_A_QP_DEV_INDEX, s->key.dev) ||
	    (s->meta.type_known &&
	     nla_put_u8(skb, ROCETUNE_A_QP_TYPE, s->meta.type)) ||
	    (s->meta.port &&
	     nla_put_u32(skb, ROCETUNE_A_QP_PORT, s->meta.port)) ||
	    (s->meta.rqpn_known &&
	     nla_put_u32(skb, ROCETUNE_A_QP_REMOTE_QPN, s->meta.rqpn)) ||
	    (admin && rt_qp_put_owner(skb, s)) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_CHANGED_GEN, s->gen,
			      ROCETUNE_A_QP_PAD) ||
	    (s->meta.dead_ns &&
	     nla_put_u64_64bit(skb, ROCETUNE_A_QP_DESTROYED_NS,
			       s->meta.dead_ns, ROCETUNE_A_QP_PAD)) ||
	    (s->first_ns &&
	     (nla_put_u64_64bit(skb, ROCETUNE_A_QP_FIRST_SEEN_NS, s->first_ns,
				ROCETUNE_A_QP_PAD) ||
	      nla_put_u64_64bit(skb, ROCETUNE_A_QP_LAST_SEEN_NS, s->last_ns,
				ROCETUNE_A_QP_PAD))))
		goto err_cancel_nest;
	for (i = 0; i < RT_QPC_NUM; i++)
		if (nla_put_u64_64bit(skb, rt_qp_cnt_attr[i], s->cnt[i],
				      ROCETUNE_A_QP_PAD))
			goto err_cancel_nest;
	if (s->has_delta &&
	    nla_put_u64_64bit(skb, ROCETUNE_A_QP_TOP_DELTA, s->delta,
			      ROCETUNE_A_QP_PAD))
		goto err_cancel_nest;
	if (s->has_rp && rt_qp_put_rp(skb, &s->rp))
		goto err_cancel_nest;
	if (s->has_rtt && rt_qp_put_rtt(skb, &s->rtt))
		goto err_cancel_nest;
	if (ibdev && rt_qp_put_hw(skb, ibdev, s->key.qpn) < 0)
		goto err_cancel_nest;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

err_cancel_nest:
	nla_nest_cancel(skb, nest);
err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* Counter ids probed at most, to find the counter of a QP. */
#define RT_QP_CNTR_ID_MAX	65536

/*
 * The rdma counter bound to @ibqp, referenced (rdma_restrack_put() its
 * res), or NULL.  The QP's counter pointer may change under us (a manual
 * unbind through the RDMA core's netlink frees the counter), so it is never
 * dereferenced: the device's counters are looked up by id, each with a
 * reference, until one is the QP's (there are rdma_restrack_count() of
 * them; their ids are the hardware's, small numbers).  @ibqp is referenced.
 */
static struct rdma_counter *rt_qp_counter(struct ib_device *ibdev,
					  struct ib_qp *ibqp)
{
	struct rdma_restrack_entry *res;
	struct rdma_counter *c;
	int left;
	u32 id;

	if (!READ_ONCE(ibqp->counter))
		return NULL;
	left = rdma_restrack_count(ibdev, RDMA_RESTRACK_COUNTER, true);
	for (id = 0; left > 0 && id < RT_QP_CNTR_ID_MAX; id++) {
		res = rdma_restrack_get_byid(ibdev, RDMA_RESTRACK_COUNTER, id);
		if (IS_ERR(res))
			continue;
		left--;
		c = container_of(res, struct rdma_counter, res);
		if (READ_ONCE(ibqp->counter) == c)
			return c;
		rdma_restrack_put(res);
	}
	return NULL;
}

/*
 * Per-QP hardware counters: the rdma counter bound to the QP (mlx5 only in
 * 6.1 and 6.12, kernel-facts §1.5), read the way the RDMA core's netlink
 * does (its rdma_counter_query_stats() is not exported); a disabled
 * optional counter is left out.  @ibdev is held (rt_qpdev_ibdev_get()): it
 * stays registered.  Return: 1 when counters were put, 0 when the QP has none,
 * -EMSGSIZE.
 */
static int rt_qp_put_hw(struct sk_buff *skb, struct ib_device *ibdev, u32 qpn)
{
	struct rdma_restrack_entry *res;
	struct rdma_hw_stats *st;
	struct rdma_counter *c;
	struct nlattr *nest, *e;
	int i, err = 0;

	if (!ibdev->ops.counter_update_stats)
		return 0;
	res = rdma_restrack_get_byid(ibdev, RDMA_RESTRACK_QP, qpn);
	if (IS_ERR(res))
		return 0;
	c = rt_qp_counter(ibdev, container_of(res, struct ib_qp, res));
	rdma_restrack_put(res);
	if (!c)
		return 0;
	mutex_lock(&c->lock);
	st = c->stats;
	if (!st || ibdev->ops.counter_update_stats(c))
		goto out;
	nest = nla_nest_start(skb, ROCETUNE_A_QP_HW_COUNTERS);
	if (!nest) {
		err = -EMSGSIZE;
		goto out;
	}
	for (i = 0; i < st->num_counters; i++) {
		if (!rt_hw_enabled(st, i))
			continue;
		e = nla_nest_start(skb, ROCETUNE_A_HWC_ENTRY);
		if (!e ||
		    nla_put_string(skb, ROCETUNE_A_HWC_NAME, st->descs[i].name) ||
		    nla_put_u64_64bit(skb, ROCETUNE_A_HWC_VALUE, st->value[i],
				      ROCETUNE_A_HWC_PAD)) {
			nla_nest_cancel(skb, nest);
			err = -EMSGSIZE;
			goto out;
		}
		nla_nest_end(skb, e);
	}
	nla_nest_end(skb, nest);
	err = 1;
out:
	mutex_unlock(&c->lock);
	rdma_restrack_put(&c->res);
	return err;
}

/*
 * A QP_GET do reply for a QP without an entry (accounting off, e.g. a
 * hardware device): its hardware counters only, if it has any.
 */
static int rt_qp_hw_only(struct genl_info *info, struct ib_device *ibdev,
			 u32 dev, u32 qpn)
{
	struct nlattr *nest;
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &rt_genl_family, 0,
				ROCETUNE_CMD_QP_GET);
	err = -EMSGSIZE;
	if (!hdr || nla_put_u32(msg, ROCETUNE_A_DEV_INDEX, dev))
		goto err_free;
	nest = nla_nest_start(msg, ROCETUNE_A_QP);
	if (!nest || nla_put_u32(msg, ROCETUNE_A_QP_QPN, qpn) ||
	    nla_put_u32(msg, ROCETUNE_A_QP_DEV_INDEX, dev))
		goto err_free;
	err = rt_qp_put_hw(msg, ibdev, qpn);
	if (err < 0)
		goto err_free;
	if (!err) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[ROCETUNE_A_QPN],
				    "no accounted QP and no hardware counter bound to it");
		err = -ENOENT;
		goto err_free;
	}
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return err;
}

/**
 * rt_qp_get_doit - QP_GET do: one QP by device and QP number
 * @skb: the request
 * @info: its attributes
 *
 * Return: 0 or a negative errno (with extack).
 */
int rt_qp_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	bool admin = netlink_capable(skb, CAP_NET_ADMIN);
	struct ib_device *ibdev;
	struct rt_qp_snap *s;
	struct rt_qpdev *qd;
	struct sk_buff *msg;
	struct rt_qp *qp;
	u32 qpn;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, ROCETUNE_A_QPN)) {
		GENL_SET_ERR_MSG(info, "a QP number is required");
		return -EINVAL;
	}
	if (!info->attrs[ROCETUNE_A_DEV_INDEX] &&
	    !info->attrs[ROCETUNE_A_DEV_NAME]) {
		GENL_SET_ERR_MSG(info, "a device index or name is required");
		return -EINVAL;
	}
	qpn = nla_get_u32(info->attrs[ROCETUNE_A_QPN]);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	/*
	 * A reference keeps the device, and its ib_device stays registered
	 * while it is held for the hardware part: no global lock is held
	 * across the device's I/O.
	 */
	rcu_read_lock();
	qd = rt_qpdev_nl_find(genl_info_net(info), info->attrs, info->extack);
	if (!IS_ERR(qd))
		rt_qpdev_hold(qd);
	rcu_read_unlock();
	if (IS_ERR(qd)) {
		err = PTR_ERR(qd);
		goto out_free;
	}
	rcu_read_lock();
	qp = rt_qp_lookup(qd->index, qpn);
	if (qp)
		rt_qp_snap(qp, s);
	rcu_read_unlock();
	ibdev = rt_qpdev_ibdev_get(qd);
	if (!ibdev) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[ROCETUNE_A_DEV_NAME] ?:
				    info->attrs[ROCETUNE_A_DEV_INDEX],
				    "no RDMA device by this name or index");
		err = -ENODEV;
		goto out_put;
	}
	if (!qp) {
		err = rt_qp_hw_only(info, ibdev, qd->index, qpn);
		goto out;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto out;
	}
	err = rt_qp_fill(msg, s, rt_qp_gen_get(), admin, ibdev,
			 info->snd_portid, info->snd_seq, 0);
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	err = genlmsg_reply(msg, info);
out:
	rt_qpdev_ibdev_put(qd);
out_put:
	rt_qpdev_put(qd);
out_free:
	rt_qp_snap_put(s);
	kfree(s);
	return err;
}

/**
 * struct rt_qp_rank - one selected QP
 * @val: the ranked value: the TOP_BY counter, or its change since the
 *	sample
 * @key: the QP
 */
struct rt_qp_rank {
	u64 val;
	struct rt_qp_key key;
};

/**
 * struct rt_qp_sel - what a QP_GET dump selects
 * @dev: device index, when @filtered
 * @filtered: only QPs of @dev
 * @port: only QPs of this port (0: all)
 * @qmin: lowest QP number
 * @qmax: highest QP number
 * @since: only QPs changed since this generation (0: all)
 * @topk: only the @topk QPs ranked highest (0: all, by key)
 * @by: the counter to rank by
 * @sample: rank by the change since this top-K sample (0: by totals)
 */
struct rt_qp_sel {
	u32 dev;
	bool filtered;
	u32 port;
	u32 qmin, qmax;
	u64 since;
	u32 topk;
	int by;
	u64 sample;
};

/**
 * struct rt_qp_dump - state of a QP_GET dump, cb->args[0] points to it
 * @sel: the selection
 * @gen: generation returned by this dump
 * @next: without TOP_K, the rt_qp_xa index of the next QP to look at
 * @admin: the caller may see owners
 * @delta: @top[].val is the change since a sample, sent as TOP_DELTA
 * @n: with TOP_K, the number of @top
 * @pos: the next entry of @top to send
 * @top: with TOP_K, the selected QPs, highest first (at most TOP_K)
 */
struct rt_qp_dump {
	struct rt_qp_sel sel;
	u64 gen;
	unsigned long next;
	bool admin;
	bool delta;
	unsigned int n;
	unsigned int pos;
	struct rt_qp_rank top[];
};

static int rt_qp_key_cmp(const struct rt_qp_key *x, const struct rt_qp_key *y)
{
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->qpn != y->qpn)
		return x->qpn < y->qpn ? -1 : 1;
	return 0;
}

/* Rank order: the highest value first, then by key. */
static int rt_qp_rank_cmp(const void *a, const void *b)
{
	const struct rt_qp_rank *x = a, *y = b;

	if (x->val != y->val)
		return x->val > y->val ? -1 : 1;
	return rt_qp_key_cmp(&x->key, &y->key);
}

/*
 * The K highest ranked QPs: a heap of at most K whose root is the lowest
 * ranked of them, replaced when a higher one comes.
 */
static void rt_qp_heap_down(struct rt_qp_rank *h, unsigned int n,
			    unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, low = i;

		if (l < n && rt_qp_rank_cmp(&h[l], &h[low]) > 0)
			low = l;
		if (l + 1 < n && rt_qp_rank_cmp(&h[l + 1], &h[low]) > 0)
			low = l + 1;
		if (low == i)
			return;
		swap(h[i], h[low]);
		i = low;
	}
}

static void rt_qp_heap_up(struct rt_qp_rank *h, unsigned int i)
{
	while (i) {
		unsigned int parent = (i - 1) / 2;

		if (rt_qp_rank_cmp(&h[i], &h[parent]) <= 0)
			return;
		swap(h[i], h[parent]);
		i = parent;
	}
}

/* Offer @r to the heap @h of @n (room for @k).  Return: the new size. */
static unsigned int rt_qp_heap_offer(struct rt_qp_rank *h, unsigned int n,
				     unsigned int k, const struct rt_qp_rank *r)
{
	if (n < k) {
		h[n] = *r;
		rt_qp_heap_up(h, n);
		return n + 1;
	}
	if (rt_qp_rank_cmp(r, &h[0]) < 0) {
		h[0] = *r;
		rt_qp_heap_down(h, n, 0);
	}
	return n;
}

static struct nlattr **rt_qp_dump_attrs(struct netlink_callback *cb)
{
#ifdef RT_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

static int rt_qp_top_by(struct nlattr *a, struct netlink_ext_ack *extack)
{
	u32 attr = nla_get_u32(a);
	int i;

	for (i = 0; i < RT_QPC_NUM; i++)
		if (rt_qp_cnt_attr[i] == attr)
			return i;
	NL_SET_ERR_MSG_ATTR(extack, a, "not a counter of a QP");
	return -EINVAL;
}

/*
 * The user a dump's samples belong to: who opened the requesting socket
 * (the request's sender, not cb->skb->sk: the family's kernel socket).
 */
static kuid_t rt_qp_requester(struct netlink_callback *cb)
{
	const struct sock *sk = NETLINK_CB(cb->skb).sk;
	const struct socket *sock = sk ? sk->sk_socket : NULL;

	if (!sock || !sock->file)
		return INVALID_UID;
	return sock->file->f_cred->euid;
}

/*
 * The slot of a new sample of @uid, which may replace its sample @since
 * (0: none); rt_qp_sample_mutex held.  Return: the slot, or NULL when
 * @since is not a sample of @uid (with extack).
 */
static struct rt_qp_slot *rt_qp_slot_get(kuid_t uid, u64 since,
					 struct nlattr *a_since,
					 struct netlink_ext_ack *extack)
{
	struct rt_qp_slot *sl, *own = NULL, *any = NULL;
	unsigned int held = 0;

	lockdep_assert_held(&rt_qp_sample_mutex);
	for (sl = rt_qp_slots; sl < rt_qp_slots + RT_QP_SAMPLES; sl++) {
		if (sl->gen && uid_eq(sl->uid, uid)) {
			if (since && sl->gen == since)
				return sl;
			held++;
			if (!own || sl->used < own->used)
				own = sl;
		}
		if (!any || (any->gen && (!sl->gen || sl->used < any->used)))
			any = sl;
	}
	if (since) {
		NL_SET_ERR_MSG_ATTR(extack, a_since,
				    "sample not held: a newer top-K sample replaced it");
		return NULL;
	}
	return held >= RT_QP_SAMPLES_PER_USER ? own : any;
}

/*
 * A top-K dump's sample in slot @slot: the value of counter @by to rank
 * @qp by (its change since @since when @since is the QP's sample in the
 * slot, else its total: the QP is newer than the sample), then the QP's
 * new base, tagged @gen.  rt_qp_sample_mutex and rcu held.
 */
static u64 rt_qp_sample(struct rt_qp *qp, unsigned int slot, int by,
			u64 since, u64 gen)
{
	u64 v = atomic64_read(rt_qp_cnt(qp, by)), val = v;

	if (since && qp->base[slot].gen == since)
		val = v - qp->base[slot].val;
	qp->base[slot].val = v;
	qp->base[slot].gen = gen;
	return val;
}

static int rt_qp_sel_parse(struct net *net, struct nlattr **tb,
			   struct rt_qp_sel *sel,
			   struct netlink_ext_ack *extack)
{
	struct rt_qpdev *qd;

	memset(sel, 0, sizeof(*sel));
	sel->qmax = RT_PSN_MASK;
	sel->by = RT_QPC_RX_ECN_CE;
	if (tb[ROCETUNE_A_PORT_INDEX])
		sel->port = nla_get_u32(tb[ROCETUNE_A_PORT_INDEX]);
	rcu_read_lock();
	qd = rt_qpdev_nl_find(net, tb, extack);
	if (!IS_ERR_OR_NULL(qd)) {
		sel->filtered = true;
		sel->dev = qd->index;
		if (sel->port > qd->nports) {
			NL_SET_ERR_MSG_ATTR(extack, tb[ROCETUNE_A_PORT_INDEX],
					    "not a port of this device");
			qd = ERR_PTR(-ENODEV);
		}
	}
	rcu_read_unlock();
	if (IS_ERR(qd))
		return PTR_ERR(qd);
	if (tb[ROCETUNE_A_QPN_MIN])
		sel->qmin = nla_get_u32(tb[ROCETUNE_A_QPN_MIN]);
	if (tb[ROCETUNE_A_QPN_MAX])
		sel->qmax = nla_get_u32(tb[ROCETUNE_A_QPN_MAX]);
	if (sel->qmin > sel->qmax) {
		NL_SET_ERR_MSG_ATTR(extack, tb[ROCETUNE_A_QPN_MIN],
				    "QPN_MIN is above QPN_MAX");
		return -EINVAL;
	}
	if (tb[ROCETUNE_A_QPN]) {
		sel->qmin = nla_get_u32(tb[ROCETUNE_A_QPN]);
		sel->qmax = sel->qmin;
	}
	if (tb[ROCETUNE_A_QP_SINCE_GEN])
		sel->since = nla_get_u64(tb[ROCETUNE_A_QP_SINCE_GEN]);
	if (tb[ROCETUNE_A_QP_TOP_K])
		sel->topk = nla_get_u32(tb[ROCETUNE_A_QP_TOP_K]);
	if (tb[ROCETUNE_A_QP_TOP_BY]) {
		sel->by = rt_qp_top_by(tb[ROCETUNE_A_QP_TOP_BY], extack);
		if (sel->by < 0)
			return sel->by;
	}
	if (tb[ROCETUNE_A_QP_TOP_SAMPLE]) {
		if (!sel->topk) {
			NL_SET_ERR_MSG_ATTR(extack, tb[ROCETUNE_A_QP_TOP_SAMPLE],
					    "a top-K sample needs TOP_K");
			return -EINVAL;
		}
		sel->sample = nla_get_u64(tb[ROCETUNE_A_QP_TOP_SAMPLE]);
	}
	return 0;
}

/*
 * Is @qp one of the selection's?  Also false for a QP of a device that the
 * caller's namespace may not see; *@qd caches the QP's device.  rcu held.
 */
static bool rt_qp_selected(struct net *net, const struct rt_qp_sel *sel,
			   struct rt_qp *qp, struct rt_qpdev **qd,
			   bool *visible)
{
	if (!*qd || (*qd)->index != qp->key.dev)
		*qd = rt_qpdev_find(qp->key.dev, NULL);
	*visible = *qd && rdma_dev_access_netns((*qd)->ibdev, net);
	return *visible &&
	       (!sel->filtered || qp->key.dev == sel->dev) &&
	       (!sel->port || READ_ONCE(qp->port) == sel->port) &&
	       qp->key.qpn >= sel->qmin && qp->key.qpn <= sel->qmax &&
	       (u64)atomic64_read(&qp->gen) >= sel->since;
}

/* Entries a walk of the table looks at between two points to reschedule. */
#define RT_QP_WALK_BATCH	1024

/*
 * Every RT_QP_WALK_BATCH entries of a walk of the table in rt_qp_xa order
 * (which resumes from an index, whatever came or went): let others run,
 * out of the RCU section.  *@qd, found under it, is forgotten.
 */
static void rt_qp_walk_pause(unsigned int *n, struct rt_qpdev **qd)
{
	if (++*n % RT_QP_WALK_BATCH || !need_resched())
		return;
	rcu_read_unlock();
	cond_resched();
	rcu_read_lock();
	*qd = NULL;
}

/*
 * A top-K dump's selection, K-bounded, and its sample: every QP the caller
 * may see gets a base in the slot (rt_qp_sample_mutex held).  The table is
 * walked in its order, with points to reschedule.
 */
static void rt_qp_select_top(struct net *net, struct rt_qp_dump *d,
			     unsigned int slot)
{
	const struct rt_qp_sel *sel = &d->sel;
	struct rt_qpdev *qd = NULL;
	unsigned long idx;
	unsigned int n = 0;
	struct rt_qp_rank r;
	struct rt_qp *qp;
	bool visible, in;

	rcu_read_lock();
	for (idx = 0; (qp = rt_qp_xa_find(&idx, ULONG_MAX)); idx++) {
		in = rt_qp_selected(net, sel, qp, &qd, &visible);
		if (visible) {
			r.val = rt_qp_sample(qp, slot, sel->by, sel->sample,
					     d->gen);
			if (in) {
				r.key = qp->key;
				d->n = rt_qp_heap_offer(d->top, d->n,
							sel->topk, &r);
			}
		}
		rt_qp_walk_pause(&n, &qd);
	}
	rcu_read_unlock();
	sort(d->top, d->n, sizeof(*d->top), rt_qp_rank_cmp, NULL);
}

/**
 * rt_qp_dump_begin - QP_GET dump: parse the request; with TOP_K, select
 * @cb: the dump
 *
 * Runs in the first pass of the dump rather than in .start, so that its
 * errors reach user space with their extack on 6.1 too (see rt_dump_begin()
 * in rocetune_nl.c).
 * Filters: device, port, QP number range, changed since a generation.
 * Without TOP_K the passes walk the table in order; with TOP_K, only the K
 * QPs with the highest TOP_BY counter (default rx_ecn_ce_pkts) are sent,
 * highest first, or with TOP_SAMPLE those with the highest change since
 * that sample of the caller's.  Each QP is looked up again when sent, so
 * QPs and devices may go away mid-dump.
 *
 * Return: 0 or a negative errno.
 */
static int rt_qp_dump_begin(struct netlink_callback *cb)
{
	struct net *net = sock_net(cb->skb->sk);
	struct nlattr **tb = rt_qp_dump_attrs(cb);
	struct rt_qp_slot *slot;
	struct rt_qp_dump *d;
	struct rt_qp_sel sel;
	int err;

	cb->args[0] = 0;
	err = rt_qp_sel_parse(net, tb, &sel, cb->extack);
	if (err)
		return err;
	/* Bounded: TOP_K is at most RT_QP_TOP_K_MAX. */
	d = kvzalloc(struct_size(d, top, sel.topk), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->sel = sel;
	d->admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	d->delta = sel.sample != 0;
	if (sel.filtered)
		d->next = rt_qp_xa_index(sel.dev, sel.qmin);
	if (!sel.topk) {
		/* First the generation, then the entries: see rocetune_qp.c. */
		d->gen = rt_qp_gen_next();
		cb->args[0] = (long)d;
		return 0;
	}

	mutex_lock(&rt_qp_sample_mutex);
	slot = rt_qp_slot_get(rt_qp_requester(cb), sel.sample,
			      tb[ROCETUNE_A_QP_TOP_SAMPLE], cb->extack);
	if (!slot) {
		mutex_unlock(&rt_qp_sample_mutex);
		kvfree(d);
		return -ESTALE;
	}
	if (sel.sample && slot->by != sel.by) {
		mutex_unlock(&rt_qp_sample_mutex);
		kvfree(d);
		NL_SET_ERR_MSG_ATTR(cb->extack, tb[ROCETUNE_A_QP_TOP_BY],
				    "the sample holds another counter: rank by the TOP_BY it was taken with");
		return -EINVAL;
	}
	d->gen = rt_qp_gen_next();
	rt_qp_select_top(net, d, slot - rt_qp_slots);
	slot->uid = rt_qp_requester(cb);
	slot->gen = d->gen;
	slot->by = sel.by;
	slot->used = ++rt_qp_slot_clock;
	mutex_unlock(&rt_qp_sample_mutex);
	cb->args[0] = (long)d;
	return 0;
}

/*
 * The next QP of a dump without TOP_K from @d->next on, copied into @s;
 * rt_qp_xa index in *@idx.  Return: false at the end.
 */
static bool rt_qp_next(struct net *net, struct rt_qp_dump *d,
		       struct rt_qp_snap *s, unsigned long *idx)
{
	unsigned long max = ULONG_MAX;
	struct rt_qpdev *qd = NULL;
	unsigned int n = 0;
	struct rt_qp *qp;
	bool visible;

	if (d->sel.filtered)
		max = rt_qp_xa_index(d->sel.dev, d->sel.qmax);
	rcu_read_lock();
	for (*idx = d->next; (qp = rt_qp_xa_find(idx, max)); ++*idx) {
		if (rt_qp_selected(net, &d->sel, qp, &qd, &visible)) {
			rt_qp_snap(qp, s);
			rcu_read_unlock();
			return true;
		}
		rt_qp_walk_pause(&n, &qd);
	}
	rcu_read_unlock();
	return false;
}

/* Send the selected QPs of a top-K dump. */
static int rt_qp_dump_top(struct sk_buff *skb, struct netlink_callback *cb,
			  struct rt_qp_dump *d, struct rt_qp_snap *s)
{
	int err = 0;

	for (; d->pos < d->n; d->pos++) {
		const struct rt_qp_rank *r = &d->top[d->pos];
		struct rt_qp *qp;

		rcu_read_lock();
		qp = rt_qp_lookup(r->key.dev, r->key.qpn);
		if (qp)
			rt_qp_snap(qp, s);
		rcu_read_unlock();
		if (!qp)
			continue;
		s->delta = r->val;
		s->has_delta = d->delta;
		err = rt_qp_fill(skb, s, d->gen, d->admin, NULL,
				 NETLINK_CB(cb->skb).portid,
				 cb->nlh->nlmsg_seq, NLM_F_MULTI);
		rt_qp_snap_put(s);
		if (err)
			break;
	}
	return err;
}

/**
 * rt_qp_get_dumpit - QP_GET dump: send the selected QPs
 * @skb: the message to fill
 * @cb: the dump
 *
 * A top-K dump sends the QPs it selected at once (the ranking is one
 * moment's); the others follow the table with a cursor, and a pass after
 * a QP came or went marks the dump NLM_F_DUMP_INTR.
 *
 * Return: the length of @skb, 0 at the end, or a negative errno.
 */
int rt_qp_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(cb->skb->sk);
	struct rt_qp_dump *d;
	struct rt_qp_snap *s;
	unsigned long idx;
	int err = 0;

	if (!cb->args[1]) {
		cb->args[1] = 1;
		err = rt_qp_dump_begin(cb);
		if (err)
			return err;
	}
	d = (struct rt_qp_dump *)cb->args[0];
	if (!d)
		return 0;
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	if (d->sel.topk) {
		err = rt_qp_dump_top(skb, cb, d, s);
		goto out;
	}
	cb->seq = rt_qp_table_seq();
	while (rt_qp_next(net, d, s, &idx)) {
		unsigned int off = skb->len;

		err = rt_qp_fill(skb, s, d->gen, d->admin, NULL,
				 NETLINK_CB(cb->skb).portid,
				 cb->nlh->nlmsg_seq, NLM_F_MULTI);
		rt_qp_snap_put(s);
		if (err)
			break;
		rt_dump_check(cb, skb, off);
		d->next = idx + 1;
	}
out:
	kfree(s);
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/**
 * rt_qp_get_done - QP_GET dump: free its state
 * @cb: the dump
 *
 * Return: 0.
 */
int rt_qp_get_done(struct netlink_callback *cb)
{
	kvfree((void *)cb->args[0]);
	cb->args[0] = 0;
	return 0;
}
