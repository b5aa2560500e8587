// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: pending QP numbers.
 *
 * A packet names a local QP number that has no entry: a QP created before
 * the module was loaded (or one the probes missed), or a number that no QP
 * has, such as one a remote peer made up.  The packet path never allocates
 * for it; it counts the packet on one of RT_QP_PEND_MAX entries that each
 * device preallocates (struct rt_qppend).  The verification work then asks
 * the RDMA core's resource tracking about each claimed number: a real QP's
 * entry moves into the table as it is, with the packets counted so far; any
 * other is dropped, its packets added to the device's unattributed counts.
 * While every pending entry is in use, packets for unknown numbers are
 * counted as unattributed at once, without a lock.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

#include "rocetune.h"
#include "rocetune_qp.h"

/**
 * rt_qppend_init - preallocate the pending entries of a device
 * @qd: the device, whose index and ports are set
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int rt_qppend_init(struct rt_qpdev *qd)
{
	struct rt_qppend *pd = &qd->pend;
	struct rt_qp *qp;
	int i;

	spin_lock_init(&pd->lock);
	pd->nfree = 0;
	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		qp = rt_qp_alloc(qd, RT_QPN_NONE, GFP_KERNEL);
		if (!qp) {
			rt_qppend_fini(qd);
			return -ENOMEM;
		}
		RCU_INIT_POINTER(pd->slot[i], qp);
		pd->nfree++;
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
	struct rt_qppend *pd = &qd->pend;
	int i;

	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		rt_qp_free(rcu_dereference_protected(pd->slot[i], true));
		RCU_INIT_POINTER(pd->slot[i], NULL);
	}
	pd->nfree = 0;
}

/**
 * rt_qppend_get - the pending entry of a QP number, claiming one
 * @qd: the device
 * @qpn: the QP number, which has no entry in the table
 *
 * Context: rcu_read_lock() held, any context.
 * Return: the entry, or NULL when every pending entry is in use.
 */
struct rt_qp *rt_qppend_get(struct rt_qpdev *qd, u32 qpn)
{
	struct rt_qppend *pd = &qd->pend;
	struct rt_qp *qp, *free = NULL;
	int i;

	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		qp = rcu_dereference(pd->slot[i]);
		if (qp && READ_ONCE(qp->key.qpn) == qpn)
			return qp;
	}
	if (!READ_ONCE(pd->nfree))
		return NULL;

	spin_lock_bh(&pd->lock);
	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		qp = rcu_dereference_protected(pd->slot[i],
					       lockdep_is_held(&pd->lock));
		if (!qp)
			continue;
		if (qp->key.qpn == qpn)
			goto out;
		if (!free && qp->key.qpn == RT_QPN_NONE)
			free = qp;
	}
	qp = free;
	if (qp) {
		WRITE_ONCE(qp->key.qpn, qpn);
		WRITE_ONCE(pd->nfree, pd->nfree - 1);
	}
out:
	spin_unlock_bh(&pd->lock);
	if (qp && qp == free)
		rt_qptrack_kick();
	return qp;
}

/**
 * rt_qppend_discard - a QP was created: its number's pending packets were
 *	not its own
 * @qd: the device
 * @qpn: the new QP's number
 *
 * The pending entry is marked stale; the verification work drops it and
 * counts its packets as unattributed.
 *
 * Context: any context.
 */
void rt_qppend_discard(struct rt_qpdev *qd, u32 qpn)
{
	struct rt_qppend *pd = &qd->pend;
	struct rt_qp *qp;
	bool found = false;
	int i;

	spin_lock_bh(&pd->lock);
	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		qp = rcu_dereference_protected(pd->slot[i],
					       lockdep_is_held(&pd->lock));
		if (qp && qp->key.qpn == qpn) {
			WRITE_ONCE(qp->key.qpn, RT_QPN_STALE);
			found = true;
		}
	}
	spin_unlock_bh(&pd->lock);
	if (found)
		rt_qptrack_kick();
}

/**
 * rt_qppend_count - claimed pending entries of a device
 * @qd: the device
 *
 * Return: the number of QP numbers awaiting verification.
 */
unsigned int rt_qppend_count(struct rt_qpdev *qd)
{
	struct rt_qppend *pd = &qd->pend;
	unsigned int n = 0;
	struct rt_qp *qp;
	int i;

	rcu_read_lock();
	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		qp = rcu_dereference(pd->slot[i]);
		if (qp && READ_ONCE(qp->key.qpn) != RT_QPN_NONE)
			n++;
	}
	rcu_read_unlock();
	return n;
}

/*
 * What becomes of a pending entry the verification took out of its slot:
 * its packets go to the table entry of its QP (a packet raced with the
 * QP's entry appearing), or to the device's unattributed counts.
 */
struct rt_qppend_out {
	struct list_head node;
	struct rt_qp *qp;
	bool merge;
};

/* The packets of a dropped pending entry; after an RCU grace period. */
static void rt_qppend_fold(struct rt_qpdev *qd, struct rt_qp *qp, bool merge)
{
	struct rt_qp *dst = NULL;
	int i;

	rcu_read_lock();
	if (merge)
		dst = rt_qp_lookup(qd->index, qp->key.qpn);
	if (dst) {
		for (i = 0; i < RT_QPC_NUM; i++)
			atomic64_add(atomic64_read(rt_qp_cnt(qp, i)),
				     rt_qp_cnt(dst, i));
	} else {
		atomic64_add(atomic64_read(rt_qp_cnt(qp, RT_QPC_RX_PKTS)),
			     &qd->unattr_rx);
		atomic64_add(atomic64_read(rt_qp_cnt(qp, RT_QPC_TX_PKTS)),
			     &qd->unattr_tx);
	}
	rcu_read_unlock();
	rt_qp_free(qp);
}

/*
 * Look the number of a claimed entry up in the RDMA core: a real QP's
 * entry learns its type and owner and moves into the table.  @pd->lock
 * held.  Return: 0 when it moved, else what rt_qp_adopt() says, or
 * -ENOENT when no such QP exists.
 */
static int rt_qppend_promote(struct rt_qpdev *qd, struct rt_qp *qp)
{
	struct rdma_restrack_entry *res;
	struct ib_qp *ibqp;
	int err;

	res = rt_qptrack_res(qd->ibdev, qp->key.qpn);
	if (IS_ERR(res))
		return -ENOENT;
	ibqp = container_of(res, struct ib_qp, res);
	qp->type = ibqp->qp_type;
	qp->type_known = true;
	if (ibqp->port)
		qp->port = ibqp->port;
	rt_qp_owner(qp, ibqp);
	/* Not verified yet: the verification also learns its destination. */
	err = rt_qp_adopt(qp);
	rdma_restrack_put(res);
	return err;
}

/**
 * rt_qppend_verify - settle the pending entries of a device
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
	struct rt_qppend_out *o, *tmp;
	struct rt_qp *qp, *fresh;
	LIST_HEAD(out);
	bool any = false;
	int i, err;

	lockdep_assert_held(&rt_qpdev_mutex);
	for (i = 0; i < RT_QP_PEND_MAX; i++) {
		qp = rcu_access_pointer(pd->slot[i]);
		if (qp && READ_ONCE(qp->key.qpn) == RT_QPN_NONE)
			continue;
		/* A fresh entry first, as the lock below does not sleep. */
		fresh = rt_qp_alloc(qd, RT_QPN_NONE, GFP_KERNEL);
		o = kmalloc(sizeof(*o), GFP_KERNEL);
		if (!o) {
			kfree(fresh);
			break;
		}
		spin_lock_bh(&pd->lock);
		qp = rcu_dereference_protected(pd->slot[i],
					       lockdep_is_held(&pd->lock));
		err = -ENOENT;
		if (qp && qp->key.qpn != RT_QPN_STALE)
			err = rt_qppend_promote(qd, qp);
		rcu_assign_pointer(pd->slot[i], fresh);
		if (fresh)
			WRITE_ONCE(pd->nfree, pd->nfree + 1);
		spin_unlock_bh(&pd->lock);
		any = true;
		if (!qp || !err) {
			kfree(o);
			continue;
		}
		o->qp = qp;
		o->merge = err == -EEXIST;
		list_add_tail(&o->node, &out);
	}
	if (list_empty(&out))
		return any;
	/* No packet counts on the entries taken out after this. */
	synchronize_rcu();
	list_for_each_entry_safe(o, tmp, &out, node) {
		rt_qppend_fold(qd, o->qp, o->merge);
		kfree(o);
	}
	return any;
}
