// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: pending QP numbers.
 *
 * A packet names a local QP that has no entry: a QP that the verification
 * work has not found yet (its scan of the RDMA core's resource tracking
 * runs once a period), or a number that no QP has, such as one a remote
 * peer made up.  The packet path never allocates for it; it counts the
 * packet on one of RT_QP_PEND_MAX entries that each device preallocates
 * per direction (struct rt_qppend).
 *
 * Received packets and sent UD packets name the local QP number: the
 * verification work asks the RDMA core's resource tracking about each
 * claimed number; a real QP's entry moves into the table as it is, with
 * the packets counted so far; any other is dropped, its packets added to
 * the device's unattributed counts.
 *
 * Sent RC and UC packets name the remote QP and address only: their
 * pending entry waits until a local QP connected to that remote QP is
 * known (from its own packets or the scan), then its packets join that
 * QP's; after RT_QP_TXPEND_PERIODS verification periods they count as
 * unattributed.
 *
 * While every pending entry of a set is in use, packets for unknown QPs
 * are counted as unattributed at once, without a lock (QP_DEGRADED).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

#include "rocetune.h"
#include "rocetune_qp.h"

static int rt_qppend_set_init(struct rt_qpdev *qd, struct rt_qppend *pd,
			      bool tx)
{
	struct rt_qp *qp;
	int i;

	spin_lock_init(&pd->lock);
	pd->tx = tx;
	pd->nfree = 0;
	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		qp = rt_qp_alloc(qd, RT_QPN_NONE, GFP_KERNEL);
		if (!qp)
			return -ENOMEM;
		RCU_INIT_POINTER(pd->slot[i], qp);
		pd->nfree++;
	}
	return 0;
}

static void rt_qppend_set_fini(struct rt_qppend *pd)
{
	int i;

	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		rt_qp_free(rcu_dereference_protected(pd->slot[i], true));
		RCU_INIT_POINTER(pd->slot[i], NULL);
	}
	pd->nfree = 0;
}

/* Does the claimed entry @qp count for @qpn (and @tk in the transmit set)? */
static bool rt_qppend_match(struct rt_qp *qp, u32 qpn,
			    const struct rt_qp_txkey *tk)
{
	/* Pairs with the release in rt_qppend_claim(): the txkey is set. */
	if (smp_load_acquire(&qp->key.qpn) != qpn)
		return false;
	return !tk || (qp->txkey.rqpn == tk->rqpn &&
		       !memcmp(qp->txkey.daddr, tk->daddr, sizeof(tk->daddr)));
}

/*
 * The entry of @pd counting for @qpn (@tk), claiming a free one.
 * rcu_read_lock() held.  NULL when every entry is in use.
 */
static struct rt_qp *rt_qppend_claim(struct rt_qpdev *qd, struct rt_qppend *pd,
				     u32 qpn, const struct rt_qp_txkey *tk)
{
	struct rt_qp *qp, *free = NULL;
	u64 now;
	int i;

	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		qp = rcu_dereference(pd->slot[i]);
		if (qp && rt_qppend_match(qp, qpn, tk))
			return qp;
	}
	if (!READ_ONCE(pd->nfree))
		goto full;

	spin_lock_bh(&pd->lock);
	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		qp = rcu_dereference_protected(pd->slot[i],
					       lockdep_is_held(&pd->lock));
		if (!qp)
			continue;
		if (rt_qppend_match(qp, qpn, tk))
			goto out;
		if (!free && qp->key.qpn == RT_QPN_NONE)
			free = qp;
	}
	qp = free;
	if (qp) {
		if (tk)
			qp->txkey = *tk;
		/* The txkey before the number: see rt_qppend_match(). */
		smp_store_release(&qp->key.qpn, qpn);
		WRITE_ONCE(pd->nfree, pd->nfree - 1);
	}
out:
	spin_unlock_bh(&pd->lock);
	if (qp && qp == free)
		rt_qp_kick();
	if (qp)
		return qp;
full:
	now = ktime_get_coarse_ns();
	if (READ_ONCE(qd->overflow_ns) != now)
		WRITE_ONCE(qd->overflow_ns, now);
	return NULL;
}

/**
 * rt_qppend_get - the pending entry of a local QP number, claiming one
 * @qd: the device
 * @qpn: the QP number, which has no entry in the table, or whose entry
 *	does not know its peer yet
 * @pkt: a received packet, or NULL for a sent one: received packets wait
 *	in an entry per source address and transport (a CNP apart), which the
 *	verification judges against the QP's type and peer
 *
 * Context: rcu_read_lock() held, any context.
 * Return: the entry, or NULL when every pending entry is in use.
 */
struct rt_qp *rt_qppend_get(struct rt_qpdev *qd, u32 qpn,
			    const struct rt_pkt *pkt)
{
	struct rt_qp_txkey tk = { .dev = qd->index, .rqpn = RT_QPN_NONE };

	if (pkt) {
		memcpy(tk.daddr, pkt->saddr, sizeof(tk.daddr));
		tk.rqpn = pkt->opcode == RT_OP_CNP ? RT_OP_CNP :
			  RT_OP_TRANSPORT(pkt->opcode);
	}
	return rt_qppend_claim(qd, &qd->pend, qpn, &tk);
}

/**
 * rt_qppend_find_tx - the pending entry of a remote QP, if one is claimed
 * @qd: the sending device
 * @rqpn: the remote QP
 * @daddr: its address (IPv4-mapped for IPv4), or NULL if unknown
 *
 * Context: rcu_read_lock() held, any context.
 * Return: the entry that counts the packets sent to @rqpn at @daddr, or
 * NULL.
 */
struct rt_qp *rt_qppend_find_tx(struct rt_qpdev *qd, u32 rqpn,
				const u8 *daddr)
{
	struct rt_qp_txkey tk = { .dev = qd->index, .rqpn = rqpn };
	struct rt_qp *qp;
	int i;

	if (!daddr)
		return NULL;
	memcpy(tk.daddr, daddr, sizeof(tk.daddr));
	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		qp = rcu_dereference(qd->tpend.slot[i]);
		if (qp && rt_qppend_match(qp, RT_QPN_TX, &tk))
			return qp;
	}
	return NULL;
}

/**
 * rt_qppend_get_tx - the pending entry of a sent RC/UC packet's remote QP
 * @qd: the sending device
 * @rqpn: the packet's destination QP
 * @daddr: its destination address (IPv4-mapped for IPv4)
 *
 * Context: rcu_read_lock() held, any context.
 * Return: the entry, or NULL when every pending entry is in use.
 */
struct rt_qp *rt_qppend_get_tx(struct rt_qpdev *qd, u32 rqpn,
			       const u8 *daddr)
{
	struct rt_qp_txkey tk = { .dev = qd->index, .rqpn = rqpn };

	memcpy(tk.daddr, daddr, sizeof(tk.daddr));
	return rt_qppend_claim(qd, &qd->tpend, RT_QPN_TX, &tk);
}

static unsigned int rt_qppend_set_count(struct rt_qppend *pd)
{
	unsigned int n = 0;
	struct rt_qp *qp;
	int i;

	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		qp = rcu_dereference(pd->slot[i]);
		if (qp && READ_ONCE(qp->key.qpn) != RT_QPN_NONE)
			n++;
	}
	return n;
}

/**
 * rt_qppend_count - claimed pending entries of a device
 * @qd: the device
 *
 * Return: the number of QPs (local numbers and remote QPs of sent packets)
 * awaiting verification.
 */
unsigned int rt_qppend_count(struct rt_qpdev *qd)
{
	unsigned int n;

	rcu_read_lock();
	n = rt_qppend_set_count(&qd->pend) + rt_qppend_set_count(&qd->tpend);
	rcu_read_unlock();
	return n;
}

/**
 * rt_qppend_count_tx - claimed pending entries of sent packets
 * @qd: the device
 *
 * Return: the number of remote QPs whose local QP is awaited.
 */
unsigned int rt_qppend_count_tx(struct rt_qpdev *qd)
{
	unsigned int n;

	rcu_read_lock();
	n = rt_qppend_set_count(&qd->tpend);
	rcu_read_unlock();
	return n;
}

/*
 * What becomes of a pending entry the verification took out of its slot:
 * its packets go to the table entry of QP number @dst (a packet raced with
 * the QP's entry appearing, a sent packet's local QP became known, or a
 * connected QP's peer was confirmed), or with @dst RT_QPN_NONE to the
 * device's unattributed counts; with @bad, its received packets are ones
 * software RoCE drops (not from the QP's peer, or an opcode the QP's type
 * does not take) and go to the device's count of that reason.
 */
struct rt_qppend_out {
	struct list_head node;
	struct rt_qp *qp;
	u32 dst;
	enum rt_bad bad;
	unsigned long gp;
};

/* Add the counts of @from to @to (no packet counts on @from any more). */
static void rt_qppend_merge(struct rt_qp *to, struct rt_qp *from)
{
	u64 psn = atomic64_read(&from->tx.psn);
	u64 first = atomic64_read(&from->first_ns);
	u64 last = atomic64_read(&from->last_ns);
	int i;

	for (i = 0; i < RT_QPC_NUM; i++)
		atomic64_add(atomic64_read(rt_qp_cnt(from, i)),
			     rt_qp_cnt(to, i));
	/* Mostly carried over already (rt_qp_connected()). */
	rt_qp_psn_advance(to, psn);
	if (first && (!atomic64_read(&to->first_ns) ||
		      first < (u64)atomic64_read(&to->first_ns)))
		atomic64_set(&to->first_ns, first);
	if (last > (u64)atomic64_read(&to->last_ns))
		atomic64_set(&to->last_ns, last);
}

/*
 * Settle the entries taken out once no packet can count on them any more:
 * those whose RCU grace period has passed (all with @all, after the caller
 * waited for one).  The verification never waits for a grace period
 * itself, so that a run follows its kick within RT_QP_QUICK_MS even while
 * a spray makes every run drop entries.  rt_qpdev_mutex held, or @qd gone
 * from every reader.
 */
static void rt_qppend_reap(struct rt_qpdev *qd, bool all)
{
	struct rt_qppend_out *o, *tmp;
	struct rt_qp *dst;

	list_for_each_entry_safe(o, tmp, &qd->retired, node) {
		if (!all && !poll_state_synchronize_rcu(o->gp))
			break;
		rcu_read_lock();
		dst = NULL;
		if (o->dst != RT_QPN_NONE)
			dst = rt_qp_lookup(qd->index, o->dst);
		if (o->bad != RT_GOOD) {
			atomic64_add(atomic64_read(rt_qp_cnt(o->qp, RT_QPC_RX_PKTS)),
				     &qd->rx_bad[o->bad]);
			atomic64_add(atomic64_read(rt_qp_cnt(o->qp, RT_QPC_TX_PKTS)),
				     &qd->unattr_tx);
		} else if (dst) {
			rt_qppend_merge(dst, o->qp);
		} else {
			atomic64_add(atomic64_read(rt_qp_cnt(o->qp, RT_QPC_RX_PKTS)),
				     &qd->unattr_rx);
			atomic64_add(atomic64_read(rt_qp_cnt(o->qp, RT_QPC_TX_PKTS)),
				     &qd->unattr_tx);
		}
		rcu_read_unlock();
		rt_qp_free(o->qp);
		list_del(&o->node);
		kfree(o);
	}
	/* The rest soon, not a whole period later. */
	if (!all && !list_empty(&qd->retired))
		rt_qp_kick();
}

/* Queue the entries taken out for rt_qppend_reap(), in order. */
static void rt_qppend_fold(struct rt_qpdev *qd, struct list_head *out)
{
	unsigned long gp = start_poll_synchronize_rcu();
	struct rt_qppend_out *o;

	list_for_each_entry(o, out, node)
		o->gp = gp;
	list_splice_tail_init(out, &qd->retired);
	rt_qppend_reap(qd, false);
}

/*
 * May the QP @ibqp take the received packets that its pending entry @qp
 * counted (drivers/infiniband/sw/rxe/rxe_recv.c, check_type_state() and
 * check_addr(), Linux 6.1): their transport fits the QP's type, and a
 * connected QP is connected (RTR to SQD) to the address they came from.
 * Sent packets are the QP's own.  Return: RT_GOOD, RT_BAD_HDR or
 * RT_BAD_PEER.
 */
static enum rt_bad rt_qppend_admit(struct ib_qp *ibqp, struct rt_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr = {};
	const u8 *dgid;

	if (qp->txkey.rqpn == RT_QPN_NONE)
		return RT_GOOD;
	if (!rt_op_fits(qp->txkey.rqpn, ibqp->qp_type))
		return RT_BAD_HDR;
	if (ibqp->qp_type != IB_QPT_RC && ibqp->qp_type != IB_QPT_UC)
		return RT_GOOD;
	if (ib_query_qp(ibqp, &attr, IB_QP_STATE | IB_QP_AV, &init) ||
	    attr.qp_state < IB_QPS_RTR || attr.qp_state > IB_QPS_SQD ||
	    !(rdma_ah_get_ah_flags(&attr.ah_attr) & IB_AH_GRH))
		return RT_BAD_PEER;
	dgid = rdma_ah_read_grh(&attr.ah_attr)->dgid.raw;
	if (memcmp(dgid, qp->txkey.daddr, sizeof(qp->txkey.daddr)))
		return RT_BAD_PEER;
	return RT_GOOD;
}

/*
 * Look the number of a claimed entry up in the RDMA core: a real QP's
 * entry learns its type and owner and moves into the table, if the QP
 * takes its packets.  The entry is out of its slot; packets that found it
 * before may still count on it.  Return: 0 when it moved, else what
 * rt_qp_adopt() says, -ENOENT when no such QP exists, or -EACCES when the
 * QP does not take its packets (*@bad says why).
 */
static int rt_qppend_promote(struct rt_qpdev *qd, struct rt_qp *qp,
			     enum rt_bad *bad)
{
	struct rdma_restrack_entry *res;
	struct ib_qp *ibqp;
	int err;

	res = rt_qp_res(qd->ibdev, qp->key.qpn);
	if (IS_ERR(res))
		return -ENOENT;
	ibqp = container_of(res, struct ib_qp, res);
	*bad = rt_qppend_admit(ibqp, qp);
	if (*bad != RT_GOOD) {
		rdma_restrack_put(res);
		return -EACCES;
	}
	WRITE_ONCE(qp->type, ibqp->qp_type);
	WRITE_ONCE(qp->type_known, true);
	if (ibqp->port)
		WRITE_ONCE(qp->port, ibqp->port);
	rt_qp_owner(qp, ibqp);
	WRITE_ONCE(qp->ident, ibqp);
	/* The entry's peer is the verification's to learn. */
	memset(&qp->txkey, 0, sizeof(qp->txkey));
	/* Not verified yet: the verification also learns its destination. */
	err = rt_qp_adopt(qp);
	rdma_restrack_put(res);
	return err;
}

/*
 * Replace slot @i of @pd by @fresh (may be NULL: the slot stays empty
 * until a later run) and return what it held.  @pd->lock held.
 */
static struct rt_qp *rt_qppend_swap(struct rt_qppend *pd, int i,
				    struct rt_qp *fresh)
{
	struct rt_qp *qp;

	qp = rcu_dereference_protected(pd->slot[i], lockdep_is_held(&pd->lock));
	rcu_assign_pointer(pd->slot[i], fresh);
	if (fresh)
		WRITE_ONCE(pd->nfree, pd->nfree + 1);
	return qp;
}

/*
 * Before a slot is emptied: its fresh entry (NULL when none could be had:
 * the slot stays empty until a later run) and the record of what becomes
 * of the old one, allocated first as the slot's lock does not sleep.
 * Return: the record, or NULL (nothing allocated) to stop for this run.
 */
static struct rt_qppend_out *rt_qppend_prep(struct rt_qpdev *qd,
					    struct rt_qp **fresh)
{
	struct rt_qppend_out *o;

	*fresh = rt_qp_alloc(qd, RT_QPN_NONE, GFP_KERNEL);
	o = kmalloc(sizeof(*o), GFP_KERNEL);
	if (!o) {
		kfree(*fresh);
		*fresh = NULL;
	}
	return o;
}

/**
 * rt_qppend_verify - settle the local QP numbers pending on a device
 * @qd: the device
 *
 * Every claimed entry is looked up in the RDMA core: a real QP's entry
 * moves into the table; the others go, their packets counted as
 * unattributed.  Each emptied slot gets a fresh entry.
 *
 * Context: process context, rt_qpdev_mutex held (@qd stays).
 * Return: true when entries were settled (more may come soon).
 */
bool rt_qppend_verify(struct rt_qpdev *qd)
{
	struct rt_qppend *pd = &qd->pend;
	struct rt_qppend_out *o;
	struct rt_qp *qp, *fresh;
	LIST_HEAD(out);
	bool any = false;
	enum rt_bad bad;
	int i, err;

	lockdep_assert_held(&rt_qpdev_mutex);
	rt_qppend_reap(qd, false);
	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		qp = rcu_access_pointer(pd->slot[i]);
		if (qp && READ_ONCE(qp->key.qpn) == RT_QPN_NONE)
			continue;
		o = rt_qppend_prep(qd, &fresh);
		if (!o)
			break;
		spin_lock_bh(&pd->lock);
		qp = rt_qppend_swap(pd, i, fresh);
		spin_unlock_bh(&pd->lock);
		/* ib_query_qp() may sleep: out of the slot's lock. */
		bad = RT_GOOD;
		err = qp ? rt_qppend_promote(qd, qp, &bad) : -ENOENT;
		any = true;
		if (!qp || !err) {
			kfree(o);
			continue;
		}
		o->qp = qp;
		o->dst = err == -EEXIST ? qp->key.qpn : RT_QPN_NONE;
		o->bad = bad;
		list_add_tail(&o->node, &out);
	}
	if (!list_empty(&out))
		rt_qppend_fold(qd, &out);
	return any;
}

/**
 * rt_qppend_verify_tx - settle the remote QPs of sent packets of a device
 * @qd: the device
 * @max_age_ns: how long an entry waits for its local QP
 *
 * An entry whose (remote QP, destination) a local QP's entry is now
 * connected to joins that entry; one older than @max_age_ns goes, its
 * packets counted as unattributed.  Each emptied slot gets a fresh entry.
 *
 * Context: process context, rt_qpdev_mutex held (@qd stays).
 * Return: true while entries are pending.
 */
bool rt_qppend_verify_tx(struct rt_qpdev *qd, u64 max_age_ns)
{
	struct rt_qppend *pd = &qd->tpend;
	u64 now = ktime_get_coarse_ns();
	struct rt_qppend_out *o;
	struct rt_qp *qp, *dst, *fresh;
	LIST_HEAD(out);
	bool any = false;
	u64 first;
	u32 to;
	int i;

	lockdep_assert_held(&rt_qpdev_mutex);
	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		qp = rcu_access_pointer(pd->slot[i]);
		if (!qp || READ_ONCE(qp->key.qpn) == RT_QPN_NONE)
			continue;
		rcu_read_lock();
		dst = rt_qp_lookup_tx(qd, qp->txkey.rqpn, qp->txkey.daddr);
		to = dst ? dst->key.qpn : RT_QPN_NONE;
		rcu_read_unlock();
		first = atomic64_read(&qp->first_ns);
		if (!dst && (!first || now - first < max_age_ns)) {
			any = true;
			continue;
		}
		o = rt_qppend_prep(qd, &fresh);
		if (!o)
			break;
		spin_lock_bh(&pd->lock);
		o->qp = rt_qppend_swap(pd, i, fresh);
		spin_unlock_bh(&pd->lock);
		o->dst = to;
		o->bad = RT_GOOD;
		list_add_tail(&o->node, &out);
	}
	if (!list_empty(&out))
		rt_qppend_fold(qd, &out);
	return any;
}

/**
 * rt_qppend_init - preallocate the pending entries of a device
 * @qd: the device, whose index and ports are set
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int rt_qppend_init(struct rt_qpdev *qd)
{
	INIT_LIST_HEAD(&qd->retired);
	if (rt_qppend_set_init(qd, &qd->pend, false) ||
	    rt_qppend_set_init(qd, &qd->tpend, true)) {
		rt_qppend_fini(qd);
		return -ENOMEM;
	}
	return 0;
}

/**
 * rt_qppend_fini - free the pending entries of a device
 * @qd: the device, which no packet path or verification uses any more
 *	(after an RCU grace period)
 */
void rt_qppend_fini(struct rt_qpdev *qd)
{
	rt_qppend_reap(qd, true);
	rt_qppend_set_fini(&qd->pend);
	rt_qppend_set_fini(&qd->tpend);
}
