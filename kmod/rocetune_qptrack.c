// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: learning the QPs of accounting devices.
 *
 * The RDMA core has no QP notifications (kernel-facts §1.7).  The module
 * uses only what it exports, from process context: the resource tracking
 * (rdma_restrack_count(), rdma_restrack_get_byid()) and ib_query_qp().  A
 * work runs once a verification period (VERIFY_MS) while some device
 * accounts; a quick run settles pending entries RT_QP_QUICK_MS after a
 * packet names a QP that has no entry (rt_qp_kick()).  For each
 * accounting device the work:
 *  1. settles the local QP numbers seen in packets (rocetune_qppend.c):
 *     a real QP's pending entry moves into the table with its counts;
 *  2. verifies every entry: a QP that the resource tracking no longer
 *     has, or has as another struct ib_qp (its number was reused), is
 *     gone: its entry lingers (LINGER_MS) or is dropped;
 *  3. scans the resource tracking for QPs that have no entry, when the
 *     device has more QPs than live entries: first just above the highest
 *     QP number seen (where new QPs get theirs), then round the whole
 *     number space, RT_QP_SCAN_BUDGET ids a run; a QP found gets an entry
 *     from zero, with its type and owner, before its first packet when it
 *     was created a period before that;
 *  4. learns the destination (remote QP and address) of RC/UC QPs, for new
 *     entries and while sent packets wait for their local QP, and settles
 *     those (rt_qppend_verify_tx()).
 * Device removal drops the device's entries (rt_qp_dev_remove()).
 *
 * A QP destroyed and another created with its number within one period
 * share an entry; drivers hand numbers out in sequence (rxe does), so this
 * takes a wrap of the number space.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

#include "rocetune.h"
#include "rocetune_qp.h"

static unsigned int qp_verify_ms = 1000;
module_param(qp_verify_ms, uint, 0444);
MODULE_PARM_DESC(qp_verify_ms,
		 "Initial period of the QP verification against the RDMA core (ms, default 1000; netlink QP_SET VERIFY_MS changes it)");

/* The verification period in effect (ms). */
static u32 rt_qptrack_period_ms;

static void rt_qptrack_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(rt_qptrack_work, rt_qptrack_work_fn);
static bool rt_qptrack_live;

/* Verification ------------------------------------------------------------- */

/*
 * Connected-type QPs whose peer is not known (not connected when the
 * verification first saw them) that a run asks again, per device, in
 * QP number order from where the last run stopped; packets for such a
 * QP ask at once (rt_qpdev.want_peer).
 */
#define RT_QP_DEST_BUDGET	256

/* What a run of the work over one device needs. */
struct rt_qptrack_run {
	struct rt_qpdev *qd;
	/* ib_query_qp()'s output, allocated once a run. */
	struct ib_qp_attr attr;
	struct ib_qp_init_attr init;
	/* Sent packets wait for their QP: ask connected QPs' destinations. */
	bool want_dest;
	/* Destinations the run may still ask without a packet's reason. */
	unsigned int dest_budget;
};

/*
 * Record what the RDMA core says about @ibqp: type and owner when @meta,
 * and the destination of an RC/UC QP past RTR when @dest.
 */
static void rt_qptrack_learn(struct rt_qptrack_run *r, struct ib_qp *ibqp,
			     bool meta, bool dest)
{
	struct ib_qp_attr *attr = &r->attr;
	struct rt_qp *from, *qp;
	const u8 *daddr = NULL;

	if (meta)
		rt_qp_set_meta(r->qd->index, ibqp);
	if (!dest || (ibqp->qp_type != IB_QPT_RC && ibqp->qp_type != IB_QPT_UC))
		return;
	memset(attr, 0, sizeof(*attr));
	if (ib_query_qp(ibqp, attr, IB_QP_STATE | IB_QP_DEST_QPN | IB_QP_AV,
			&r->init) ||
	    attr->qp_state < IB_QPS_RTR || attr->qp_state > IB_QPS_SQD)
		return;
	if (rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH)
		daddr = rdma_ah_read_grh(&attr->ah_attr)->dgid.raw;
	rcu_read_lock();
	from = rt_qppend_find_tx(r->qd, attr->dest_qp_num, daddr);
	rt_qp_connected(r->qd, ibqp, attr->dest_qp_num, daddr, from);
	/* Its round-trip probe follows the QP's sent packets. */
	qp = from ? rt_qp_lookup(r->qd->index, ibqp->qp_num) : NULL;
	if (qp)
		rt_rtt_carry(qp, from);
	rcu_read_unlock();
}

/*
 * Verify the entry of @qpn.  Return: true when it is the entry of a live
 * QP, which the resource tracking has.
 */
static bool rt_qptrack_verify(struct rt_qptrack_run *r, u32 qpn)
{
	struct rt_qpdev *qd = r->qd;
	struct rdma_restrack_entry *res;
	bool verified, need_dest;
	const void *ident;
	struct ib_qp *ibqp;
	struct rt_qp *qp;
	u64 dead_ns;

	rcu_read_lock();
	qp = rt_qp_lookup(qd->index, qpn);
	verified = qp && READ_ONCE(qp->verified);
	need_dest = qp && !READ_ONCE(qp->rqpn_known) &&
		    (!READ_ONCE(qp->type_known) ||
		     READ_ONCE(qp->type) == IB_QPT_RC ||
		     READ_ONCE(qp->type) == IB_QPT_UC);
	dead_ns = qp ? READ_ONCE(qp->dead_ns) : 0;
	ident = qp ? READ_ONCE(qp->ident) : NULL;
	rcu_read_unlock();
	if (!qp)
		return false;

	res = rt_qp_res(qd->ibdev, qpn);
	if (IS_ERR(res)) {
		/* Gone: it lingers, then goes. */
		if (!dead_ns)
			rt_qp_kill(qd->index, qpn);
		else if (ktime_get_ns() - dead_ns >= rt_qp_linger_ns())
			rt_qp_forget(qd->index, qpn);
		return false;
	}
	ibqp = container_of(res, struct ib_qp, res);
	if (dead_ns || (ident && ident != ibqp)) {
		/* Its number belongs to a new QP now, which the scan finds. */
		rdma_restrack_put(res);
		rt_qp_forget(qd->index, qpn);
		return false;
	}
	if (need_dest && verified && !r->want_dest) {
		/* Idle since it was seen unconnected: ask some each run. */
		if (qpn < qd->dest_next || !r->dest_budget)
			need_dest = false;
		else if (!--r->dest_budget)
			qd->dest_next = qpn + 1;
	}
	rt_qptrack_learn(r, ibqp, !verified, need_dest);
	rdma_restrack_put(res);
	if (qpn < RT_QPN_LIMIT && qpn > qd->scan_hi)
		qd->scan_hi = qpn;
	return true;
}

/*
 * Look at resource tracking id @id for a QP without an entry.  Return: 1
 * when one was found (and has an entry now, or is not tracked by number),
 * 0 when none, -ENOSPC or -ENOMEM when no entry can be made.
 */
static int rt_qptrack_probe(struct rt_qptrack_run *r, u32 id)
{
	struct rt_qpdev *qd = r->qd;
	struct rdma_restrack_entry *res;
	struct ib_qp *ibqp;
	bool known;
	int ret = 1;

	res = rdma_restrack_get_byid(qd->ibdev, RDMA_RESTRACK_QP, id);
	if (IS_ERR(res))
		return 0;
	ibqp = container_of(res, struct ib_qp, res);
	/* XRC QPs are tracked under another id than their number. */
	if (ibqp->qp_num == id) {
		rcu_read_lock();
		known = rt_qp_lookup(qd->index, id);
		rcu_read_unlock();
		if (known) {
			ret = 0;
		} else {
			ret = rt_qp_learned(qd, ibqp);
			if (!ret || ret == -EEXIST) {
				rt_qptrack_learn(r, ibqp, false, true);
				ret = 1;
			}
		}
		if (id > qd->scan_hi)
			qd->scan_hi = id;
	}
	rdma_restrack_put(res);
	return ret;
}

/* Special QPs (0, 1) the RDMA core has and the table does not. */
static int rt_qptrack_special(struct rt_qpdev *qd)
{
	struct rdma_restrack_entry *res;
	bool known;
	int n = 0;
	u32 qpn;

	for (qpn = 0; qpn <= 1; qpn++) {
		rcu_read_lock();
		known = rt_qp_lookup(qd->index, qpn);
		rcu_read_unlock();
		if (known)
			continue;
		res = rt_qp_res(qd->ibdev, qpn);
		if (IS_ERR(res))
			continue;
		rdma_restrack_put(res);
		n++;
	}
	return n;
}

/* Find the QPs of a device that have no entry; @live entries have one. */
static void rt_qptrack_scan(struct rt_qptrack_run *r, unsigned int live)
{
	struct rt_qpdev *qd = r->qd;
	int missing, ret, n;
	u32 id;

	missing = rdma_restrack_count(qd->ibdev, RDMA_RESTRACK_QP, true) -
		  live - rt_qptrack_special(qd);
	/* New QPs get numbers just above the last ones, in most drivers. */
	id = qd->scan_hi + 1;
	for (n = 0; missing > 0 && n < RT_QP_SCAN_BUDGET; n++) {
		if (n == RT_QP_SCAN_AHEAD)
			id = qd->scan_next;
		if (id < 2 || id >= RT_QPN_LIMIT)
			id = 2;
		ret = rt_qptrack_probe(r, id);
		if (ret < 0)
			return;
		missing -= ret;
		id++;
		if (n >= RT_QP_SCAN_AHEAD)
			qd->scan_next = id;
		if (!(n % 1024))
			cond_resched();
	}
}

static void rt_qptrack_dev(struct rt_qptrack_run *r)
{
	struct rt_qpdev *qd = r->qd;
	unsigned int live = 0;
	u32 qpn;

	rt_qppend_verify(qd);
	/* Sent packets wait for their QP, or received ones for its peer. */
	r->want_dest = rt_qppend_count_tx(qd) > 0 ||
		       xchg(&qd->want_peer, false);
	r->dest_budget = RT_QP_DEST_BUDGET;
	for (qpn = 0; rt_qp_next_entry(qd->index, &qpn); qpn++) {
		live += rt_qptrack_verify(r, qpn);
		cond_resched();
	}
	/* All asked that were due: the next run starts from the lowest. */
	if (r->dest_budget)
		qd->dest_next = 0;
	rt_qptrack_scan(r, live);
	rt_qppend_verify_tx(qd, (u64)RT_QP_TXPEND_PERIODS *
			    rt_qptrack_period() * NSEC_PER_MSEC);
}

static void rt_qptrack_work_fn(struct work_struct *work)
{
	struct rt_qptrack_run *r;
	struct rt_qpdev *qd;
	bool any = false;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	mutex_lock(&rt_qpdev_mutex);
	list_for_each_entry(qd, &rt_qpdevs, node) {
		if (!READ_ONCE(qd->acct))
			continue;
		any = true;
		if (!r)
			break;
		r->qd = qd;
		rt_qptrack_dev(r);
	}
	mutex_unlock(&rt_qpdev_mutex);
	kfree(r);
	/* While a device accounts: its new QPs are found by the scan. */
	if (any && READ_ONCE(rt_qptrack_live))
		queue_delayed_work(system_wq, &rt_qptrack_work,
				   msecs_to_jiffies(rt_qptrack_period() ?: 1));
}

/**
 * rt_qptrack_period - the verification period in effect
 *
 * Return: milliseconds.
 */
u32 rt_qptrack_period(void)
{
	return READ_ONCE(rt_qptrack_period_ms);
}

/**
 * rt_qptrack_set_period - change the verification period
 * @ms: the new period
 *
 * A verification already scheduled with the old period is rescheduled, so
 * that the new one holds from now on (a test that slows verification down
 * must not see one more run at the old period).
 *
 * Context: process context, without rt_qpdev_mutex (the work takes it).
 */
void rt_qptrack_set_period(u32 ms)
{
	cancel_delayed_work_sync(&rt_qptrack_work);
	WRITE_ONCE(rt_qptrack_period_ms, ms);
	if (READ_ONCE(rt_qptrack_live))
		queue_delayed_work(system_wq, &rt_qptrack_work,
				   msecs_to_jiffies(ms));
}

/* A quick run (rt_qp_kick()): what packets named, now. */
static void rt_qptrack_quick_fn(struct work_struct *work)
{
	struct rt_qptrack_run *r;
	struct rt_qpdev *qd;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return;
	mutex_lock(&rt_qpdev_mutex);
	list_for_each_entry(qd, &rt_qpdevs, node) {
		if (!READ_ONCE(qd->acct))
			continue;
		r->qd = qd;
		/*
		 * Sent packets wait for their QP, or received packets for a
		 * connected QP's peer: a whole run (which scans for new QPs
		 * and asks connected QPs for their destination).
		 */
		if (rt_qppend_count_tx(qd) || READ_ONCE(qd->want_peer))
			rt_qptrack_dev(r);
		else
			rt_qppend_verify(qd);
	}
	mutex_unlock(&rt_qpdev_mutex);
	kfree(r);
}

/**
 * rt_qptrack_wake - a device started accounting: learn its QPs
 *
 * Context: any context.
 */
void rt_qptrack_wake(void)
{
	if (READ_ONCE(rt_qptrack_live))
		queue_delayed_work(system_wq, &rt_qptrack_work,
				   msecs_to_jiffies(RT_QP_QUICK_MS));
}

/**
 * rt_qptrack_init - start learning QPs
 *
 * Return: 0.
 */
int __init rt_qptrack_init(void)
{
	/* The bounds of QP_SET's VERIFY_MS; 0 would verify in a loop. */
	WRITE_ONCE(rt_qptrack_period_ms,
		   clamp_t(u32, qp_verify_ms, RT_QP_VERIFY_MIN_MS,
			   RT_QP_KNOB_MAX_MS));
	if (rt_qptrack_period_ms != qp_verify_ms)
		pr_warn("qp_verify_ms=%u out of range, using %u\n",
			qp_verify_ms, rt_qptrack_period_ms);
	WRITE_ONCE(rt_qptrack_live, true);
	rt_qp_quick_init(rt_qptrack_quick_fn);
	return 0;
}

/**
 * rt_qptrack_fini - stop the work
 */
void rt_qptrack_fini(void)
{
	rt_qp_quick_fini();
	WRITE_ONCE(rt_qptrack_live, false);
	cancel_delayed_work_sync(&rt_qptrack_work);
}
