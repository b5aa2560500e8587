// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: the per-QP accounting table.
 *
 * One struct rt_qp per local QP of an accounting device, found by
 * (device index, QP number) in an rhashtable and, for sent RC/UC packets,
 * by (device index, remote QP number, destination address) in a second
 * one.  Counters are atomic64; lookups run under RCU without locks.  The
 * list of accounting devices (struct rt_qpdev) is here too, under the
 * datapath (rocetune_nf.c), the verification (rocetune_qptrack.c) and the
 * devices' lifetime (rocetune_qpdev.c), which use it; the netlink commands
 * are in rocetune_qp_nl.c.
 *
 * Generations: rt_qp_gen only grows.  Every change of an entry records
 * the generation it read after counting (entry->gen, a maximum); a dump
 * first increments rt_qp_gen to S and returns S.  A later dump with
 * SINCE_GEN = S returns every entry whose gen >= S, which includes every
 * entry changed after the first dump read it (see rt_qp_touch()).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

#include "rocetune.h"
#include "rocetune_bth.h"
#include "rocetune_qp.h"

static unsigned int qp_max = 65536;
module_param(qp_max, uint, 0444);
MODULE_PARM_DESC(qp_max, "Initial maximum number of accounted QPs (all devices)");

static unsigned int qp_linger_ms;
module_param(qp_linger_ms, uint, 0444);
MODULE_PARM_DESC(qp_linger_ms,
		 "Initially keep the counters of a destroyed QP this long (ms, default 0; netlink QP_SET LINGER_MS changes it)");

/* How long a destroyed QP's entry stays (ms), in effect. */
static u32 rt_qp_linger_ms;
/*
 * The verification's quick run (rocetune_qptrack.c), which rt_qp_kick()
 * queues while rt_qp_quick_live: a work item of the table's, set up with
 * its function by rt_qp_quick_init().
 */
static struct delayed_work rt_qp_quick;
static bool rt_qp_quick_live;

/**
 * rt_qp_linger_ns - how long the entry of a destroyed QP stays
 *
 * Return: nanoseconds (LINGER_MS).
 */
u64 rt_qp_linger_ns(void)
{
	return (u64)READ_ONCE(rt_qp_linger_ms) * NSEC_PER_MSEC;
}

/* Accounting devices (RCU), changed under rt_qpdev_mutex. */
LIST_HEAD(rt_qpdevs);
/* Serializes device add/remove/enable and the verification work. */
DEFINE_MUTEX(rt_qpdev_mutex);
/* Serializes changes of the QP tables and of QP metadata. */
DEFINE_SPINLOCK(rt_qp_lock);
LIST_HEAD(rt_qp_list);

static struct rhashtable rt_qp_ht;
/*
 * The entries by (device, QP number), for dumps in that order: index
 * rt_qp_xa_index(); changed under rt_qp_lock, read under RCU.
 */
static DEFINE_XARRAY(rt_qp_xa);
/* Version of the table's membership, for dumps; under rt_qp_lock. */
static unsigned int rt_qp_tblseq = 1;
static struct rhashtable rt_qp_tx_ht;
static atomic_t rt_qp_count = ATOMIC_INIT(0);
static u32 rt_qp_max;
static atomic64_t rt_qp_refused = ATOMIC64_INIT(0);
static atomic64_t rt_qp_gen = ATOMIC64_INIT(1);

static const struct rhashtable_params rt_qp_params = {
	.key_len = sizeof(struct rt_qp_key),
	.key_offset = offsetof(struct rt_qp, key),
	.head_offset = offsetof(struct rt_qp, node),
	.automatic_shrinking = true,
};

static const struct rhashtable_params rt_qp_tx_params = {
	.key_len = sizeof(struct rt_qp_txkey),
	.key_offset = offsetof(struct rt_qp, txkey),
	.head_offset = offsetof(struct rt_qp, tx_node),
	.automatic_shrinking = true,
};

/**
 * rt_qp_linger_get - LINGER_MS in effect
 *
 * Return: milliseconds.
 */
u32 rt_qp_linger_get(void)
{
	return READ_ONCE(rt_qp_linger_ms);
}

/**
 * rt_qp_linger_set - change LINGER_MS
 * @ms: milliseconds, at most RT_QP_KNOB_MAX_MS
 */
void rt_qp_linger_set(u32 ms)
{
	WRITE_ONCE(rt_qp_linger_ms, ms);
}

/**
 * rt_qp_max_get - TABLE_MAX in effect
 *
 * Return: the maximum number of entries.
 */
u32 rt_qp_max_get(void)
{
	return READ_ONCE(rt_qp_max);
}

/**
 * rt_qp_max_set - change TABLE_MAX
 * @max: the maximum number of entries, 1 to RT_QP_TABLE_LIMIT
 */
void rt_qp_max_set(u32 max)
{
	WRITE_ONCE(rt_qp_max, max);
}

/**
 * rt_qp_count_get - the number of entries in the table
 *
 * Return: the number.
 */
unsigned int rt_qp_count_get(void)
{
	return atomic_read(&rt_qp_count);
}

/**
 * rt_qp_refused_get - entries the table refused (full, no memory)
 *
 * Return: the number since the module was loaded.
 */
u64 rt_qp_refused_get(void)
{
	return atomic64_read(&rt_qp_refused);
}

/**
 * rt_qp_gen_get - the current generation
 *
 * Return: the generation.
 */
u64 rt_qp_gen_get(void)
{
	return atomic64_read(&rt_qp_gen);
}

/**
 * rt_qp_gen_next - start a dump: a new generation
 *
 * See the generation rule at the top of the file: the dump reads the
 * entries after this, which orders them after it (a full barrier).
 *
 * Return: the dump's generation.
 */
u64 rt_qp_gen_next(void)
{
	return atomic64_inc_return(&rt_qp_gen);
}

/**
 * rt_qp_table_seq - the version of the table's membership, for dumps
 *
 * Return: the version, changed when an entry comes or goes.
 */
unsigned int rt_qp_table_seq(void)
{
	return READ_ONCE(rt_qp_tblseq);
}

/**
 * rt_qp_xa_find - the first entry in the table's order from an index on
 * @idx: in: the first rt_qp_xa_index() to look at; out: the entry's
 * @max: the last index to look at
 *
 * Context: rcu_read_lock() held; the entry is valid until it is dropped.
 * Return: the entry, or NULL when there is none up to @max.
 */
struct rt_qp *rt_qp_xa_find(unsigned long *idx, unsigned long max)
{
	return xa_find(&rt_qp_xa, idx, max, XA_PRESENT);
}

/**
 * rt_qp_quick_init - set up the verification's quick run
 * @fn: the run, of the verification work (rocetune_qptrack.c)
 *
 * The verification sits above the table and its pending entries; they
 * ask it to run soon by queuing this work item (rt_qp_kick()).
 */
void rt_qp_quick_init(work_func_t fn)
{
	INIT_DELAYED_WORK(&rt_qp_quick, fn);
	WRITE_ONCE(rt_qp_quick_live, true);
}

/**
 * rt_qp_quick_fini - no more quick runs
 *
 * Context: process context; no hook runs any more.
 */
void rt_qp_quick_fini(void)
{
	WRITE_ONCE(rt_qp_quick_live, false);
	cancel_delayed_work_sync(&rt_qp_quick);
}

/**
 * rt_qp_kick - packets named a QP that has no entry: verify soon
 *
 * A quick run settles the pending entries RT_QP_QUICK_MS from now, while
 * the QP still exists even when it lives briefly; a stream of kicks makes
 * one run per RT_QP_QUICK_MS at most.
 *
 * Context: any context.
 */
void rt_qp_kick(void)
{
	if (READ_ONCE(rt_qp_quick_live))
		queue_delayed_work(system_wq, &rt_qp_quick,
				   msecs_to_jiffies(RT_QP_QUICK_MS));
}

/**
 * rt_qp_res - the RDMA core's resource tracking entry of a QP
 * @ibdev: the device
 * @qpn: the QP number
 *
 * Context: any context (only spinlocks are taken).
 * Return: the entry, referenced (rdma_restrack_put() it), or an ERR_PTR.
 */
struct rdma_restrack_entry *rt_qp_res(struct ib_device *ibdev, u32 qpn)
{
	struct rdma_restrack_entry *res;

	res = rdma_restrack_get_byid(ibdev, RDMA_RESTRACK_QP, qpn);
	/* Special QPs are tracked as "qpn | port << 24". */
	if (IS_ERR(res) && qpn <= 1)
		res = rdma_restrack_get_byid(ibdev, RDMA_RESTRACK_QP,
					     qpn | 1U << 24);
	return res;
}

/* Entries ---------------------------------------------------------------- */

/**
 * rt_qp_xa_index - the index of a QP in the table's order
 * @dev: device index
 * @qpn: QP number
 *
 * The device index above the 24 bits of the QP number, so that the order
 * of rt_qp_xa is the dumps' order.
 *
 * Return: the index.
 */
unsigned long rt_qp_xa_index(u32 dev, u32 qpn)
{
	return (unsigned long)dev << 24 | (qpn & RT_PSN_MASK);
}

static void rt_qp_unlink(struct rt_qp *qp)
{
	lockdep_assert_held(&rt_qp_lock);
	rhashtable_remove_fast(&rt_qp_ht, &qp->node, rt_qp_params);
	if (qp->tx_linked)
		rhashtable_remove_fast(&rt_qp_tx_ht, &qp->tx_node,
				       rt_qp_tx_params);
	qp->tx_linked = false;
	xa_erase(&rt_qp_xa, rt_qp_xa_index(qp->key.dev, qp->key.qpn));
	list_del_rcu(&qp->list);
	atomic_dec(&rt_qp_count);
	rt_qp_seq_bump(&rt_qp_tblseq);
	/* Readers copy the owner under rt_qp_lock, with a reference. */
	put_pid(qp->owner);
	qp->owner = NULL;
	qp->owner_known = false;
	kfree_rcu(qp, rcu);
}

/**
 * rt_qp_flush - drop every entry of a device
 * @dev: device index
 * @all: drop the entries of all devices
 *
 * Context: process context; takes rt_qp_lock.
 */
void rt_qp_flush(u32 dev, bool all)
{
	struct rt_qp *qp, *tmp;

	spin_lock_bh(&rt_qp_lock);
	list_for_each_entry_safe(qp, tmp, &rt_qp_list, list)
		if (all || qp->key.dev == dev)
			rt_qp_unlink(qp);
	spin_unlock_bh(&rt_qp_lock);
}

/* Record a change; see the generation rule at the top of the file. */
static void rt_qp_touch(struct rt_qp *qp)
{
	s64 g, old;

	/*
	 * Order the counter updates before reading the generation; pairs
	 * with the full barrier of atomic64_inc_return() in a dump's start.
	 */
	smp_mb__after_atomic();
	g = atomic64_read(&rt_qp_gen);
	old = atomic64_read(&qp->gen);
	while (old < g) {
		s64 seen = atomic64_cmpxchg(&qp->gen, old, g);

		if (seen == old)
			break;
		old = seen;
	}
}

/**
 * rt_qp_lookup - find the entry of a local QP
 * @dev: device index
 * @qpn: QP number
 *
 * Context: rcu_read_lock() held.
 * Return: the entry or NULL.
 */
struct rt_qp *rt_qp_lookup(u32 dev, u32 qpn)
{
	struct rt_qp_key key = { .dev = dev, .qpn = qpn };

	return rhashtable_lookup(&rt_qp_ht, &key, rt_qp_params);
}

/**
 * rt_qp_alloc - a new entry, not in the table yet
 * @qd: the device
 * @qpn: QP number
 * @gfp: allocation flags
 *
 * Return: the entry, or NULL.
 */
struct rt_qp *rt_qp_alloc(struct rt_qpdev *qd, u32 qpn, gfp_t gfp)
{
	struct rt_qp *qp;

	/* Zeroed: every counter, time and generation starts at 0. */
	qp = kzalloc(sizeof(*qp), gfp);
	if (!qp)
		return NULL;
	qp->key.dev = qd->index;
	qp->key.qpn = qpn;
	seqcount_spinlock_init(&qp->peer_seq, &rt_qp_lock);
	spin_lock_init(&qp->rp.lock);
	spin_lock_init(&qp->rtt.lock);
	/* A QP of a single-port device (rxe) is on port 1. */
	if (qd->nports == 1)
		qp->port = 1;
	return qp;
}

/* Put @qp into the table unless it is full; rt_qp_lock held. */
static int rt_qp_link(struct rt_qp *qp)
{
	unsigned long idx = rt_qp_xa_index(qp->key.dev, qp->key.qpn);
	int err;

	lockdep_assert_held(&rt_qp_lock);
	if (atomic_read(&rt_qp_count) >= READ_ONCE(rt_qp_max)) {
		atomic64_inc(&rt_qp_refused);
		return -ENOSPC;
	}
	/*
	 * The ordered index first, as a reserved slot that no reader sees:
	 * a failure then leaves nothing that a reader could have found.
	 */
	err = xa_reserve(&rt_qp_xa, idx, GFP_ATOMIC);
	if (err) {
		atomic64_inc(&rt_qp_refused);
		return err;
	}
	err = rhashtable_lookup_insert_fast(&rt_qp_ht, &qp->node, rt_qp_params);
	if (err) {
		/* Does nothing when the slot holds the QP's entry already. */
		xa_release(&rt_qp_xa, idx);
		if (err != -EEXIST)
			atomic64_inc(&rt_qp_refused);
		return err;
	}
	/* Into the reserved slot: allocates nothing, cannot fail. */
	xa_store(&rt_qp_xa, idx, qp, GFP_ATOMIC);
	list_add_tail_rcu(&qp->list, &rt_qp_list);
	atomic_inc(&rt_qp_count);
	rt_qp_seq_bump(&rt_qp_tblseq);
	rt_qp_touch(qp);
	return 0;
}

/* Insert a new entry; rt_qp_lock held.  Return: the entry or NULL. */
static struct rt_qp *rt_qp_insert(struct rt_qpdev *qd, u32 qpn)
{
	struct rt_qp *qp;

	lockdep_assert_held(&rt_qp_lock);
	qp = rt_qp_alloc(qd, qpn, GFP_ATOMIC);
	if (!qp) {
		atomic64_inc(&rt_qp_refused);
		return NULL;
	}
	if (rt_qp_link(qp)) {
		kfree(qp);
		return NULL;
	}
	return qp;
}

/**
 * rt_qp_adopt - put a pending entry into the table
 * @qp: the entry, whose QP the RDMA core knows
 *
 * Packets may count on @qp while it moves: it stays the same object.
 *
 * Context: process context.
 * Return: 0, -EEXIST when the QP has an entry already, -ENOSPC when the
 * table is full (counted as refused).
 */
int rt_qp_adopt(struct rt_qp *qp)
{
	int err;

	spin_lock_bh(&rt_qp_lock);
	err = rt_qp_link(qp);
	spin_unlock_bh(&rt_qp_lock);
	return err;
}

/*
 * The entry of a local QP, creating it (rt_qp_lock must not be held).
 * Only for QPs that the RDMA core says exist (the verification work): a
 * packet never creates an entry.  Context: rcu_read_lock() held.
 */
static struct rt_qp *rt_qp_get_or_create(struct rt_qpdev *qd, u32 qpn)
{
	struct rt_qp *qp = rt_qp_lookup(qd->index, qpn);

	if (qp)
		return qp;
	spin_lock_bh(&rt_qp_lock);
	qp = rt_qp_lookup(qd->index, qpn);
	if (!qp) {
		qp = rt_qp_insert(qd, qpn);
		/* Its owner is learned by the verification. */
		if (qp)
			rt_qp_kick();
	}
	spin_unlock_bh(&rt_qp_lock);
	return qp;
}

/**
 * rt_qp_lookup_tx - find the local QP that sends to a remote QP
 * @qd: the sending device
 * @rqpn: the destination QP of the packet
 * @daddr: the packet's destination address (IPv4-mapped for IPv4)
 *
 * Context: rcu_read_lock() held.
 * Return: the entry, or NULL when no local QP is known to be connected to
 * @rqpn at @daddr (or to @rqpn at an unknown address).
 */
struct rt_qp *rt_qp_lookup_tx(struct rt_qpdev *qd, u32 rqpn, const u8 *daddr)
{
	struct rt_qp_txkey key = { .dev = qd->index, .rqpn = rqpn };
	struct rt_qp *qp;

	memcpy(key.daddr, daddr, sizeof(key.daddr));
	qp = rhashtable_lookup(&rt_qp_tx_ht, &key, rt_qp_tx_params);
	if (qp)
		return qp;
	memset(key.daddr, 0, sizeof(key.daddr));
	return rhashtable_lookup(&rt_qp_tx_ht, &key, rt_qp_tx_params);
}

/**
 * rt_qp_peer - what an entry knows of its QP's peer
 * @qp: an entry of the table
 * @peer: set to the QP's type, and for RT_PEER_KNOWN to its remote QP and
 *	address
 *
 * Lockless: a snapshot consistent with the last change by the
 * verification (rt_qp_connected(), rt_qp_set_meta()).
 *
 * Context: rcu_read_lock() held, any context.
 * Return: the kind of peer.
 */
enum rt_peer_kind rt_qp_peer(struct rt_qp *qp, struct rt_qp_peer *peer)
{
	static const u8 none[16];
	bool type_known, known;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&qp->peer_seq);
		type_known = qp->type_known;
		peer->type = qp->type;
		known = qp->rqpn_known;
		peer->rqpn = qp->txkey.rqpn;
		memcpy(peer->addr, qp->txkey.daddr, sizeof(peer->addr));
	} while (read_seqcount_retry(&qp->peer_seq, seq));

	if (!type_known)
		return RT_PEER_UNKNOWN;
	switch (peer->type) {
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return RT_PEER_ANY;
	case IB_QPT_RC:
	case IB_QPT_UC:
		if (!known || !memcmp(peer->addr, none, sizeof(none)))
			return RT_PEER_UNKNOWN;
		return RT_PEER_KNOWN;
	default:
		return RT_PEER_NONE;
	}
}

static void rt_qp_rx_add(struct rt_qp *qp, enum rt_qpc c, u64 v)
{
	atomic64_add(v, &qp->rx.cnt[c]);
}

static void rt_qp_tx_add(struct rt_qp *qp, enum rt_qpc c, u64 v)
{
	atomic64_add(v, &qp->tx.cnt[c - RT_QPC_TX_PKTS]);
}

/**
 * rt_qp_psn_advance - raise the highest request PSN a QP has sent
 * @qp: the entry
 * @psn: a PSN sent, with RT_QP_PSN_VALID (without it nothing changes)
 *
 * A QP's requester sends its packets one at a time, but its highest PSN
 * is also carried over from the pending entry that counted them before
 * (rt_qp_connected(), rocetune_qppend.c): the update is atomic.
 *
 * Context: any.
 * Return: true when @psn comes after every PSN recorded (it is new), false
 * when it does not (a retransmission).
 */
bool rt_qp_psn_advance(struct rt_qp *qp, u64 psn)
{
	s64 old = atomic64_read(&qp->tx.psn);

	if (!(psn & RT_QP_PSN_VALID))
		return false;
	do {
		if ((old & RT_QP_PSN_VALID) && !rt_psn_after(psn, (u32)old))
			return false;
	} while (!atomic64_try_cmpxchg(&qp->tx.psn, &old,
				       RT_QP_PSN_VALID | (u32)psn));
	return true;
}

/**
 * rt_qp_account - count one packet on a QP
 * @qp: the entry
 * @pkt: the parsed packet
 * @tx: the QP sent it (else it received it)
 *
 * A request whose PSN does not come after the highest one the QP sent is
 * a retransmission.
 *
 * Context: rcu_read_lock() held, any context.
 */
void rt_qp_account(struct rt_qp *qp, const struct rt_pkt *pkt, bool tx)
{
	/* The clock tick is enough for first and last seen, and cheap. */
	u64 now = ktime_get_coarse_ns();
	u8 syn = pkt->syndrome & RT_AETH_TYPE_MASK;

	if (tx) {
		rt_qp_tx_add(qp, RT_QPC_TX_PKTS, 1);
		rt_qp_tx_add(qp, RT_QPC_TX_BYTES, pkt->ip_len);
		if (pkt->ecn)
			rt_qp_tx_add(qp, RT_QPC_TX_ECN_ECT, 1);
		if (pkt->opcode == RT_OP_CNP)
			rt_qp_tx_add(qp, RT_QPC_TX_CNP, 1);
		if (pkt->has_aeth && pkt->syndrome == RT_AETH_NAK_SEQ_ERR)
			rt_qp_tx_add(qp, RT_QPC_TX_NAK_SEQ_ERR, 1);
		if (pkt->has_aeth && syn == RT_AETH_RNR_NAK)
			rt_qp_tx_add(qp, RT_QPC_TX_RNR_NAK, 1);
		if (rt_op_is_request(pkt->opcode) &&
		    !rt_qp_psn_advance(qp, RT_QP_PSN_VALID | pkt->psn))
			rt_qp_tx_add(qp, RT_QPC_TX_RETRANSMIT, 1);
	} else {
		rt_qp_rx_add(qp, RT_QPC_RX_PKTS, 1);
		rt_qp_rx_add(qp, RT_QPC_RX_BYTES, pkt->ip_len);
		if (pkt->ecn == 3)
			rt_qp_rx_add(qp, RT_QPC_RX_ECN_CE, 1);
		else if (pkt->ecn)
			rt_qp_rx_add(qp, RT_QPC_RX_ECN_ECT, 1);
		if (pkt->opcode == RT_OP_CNP)
			rt_qp_rx_add(qp, RT_QPC_RX_CNP, 1);
		if (pkt->has_aeth && pkt->syndrome == RT_AETH_NAK_SEQ_ERR)
			rt_qp_rx_add(qp, RT_QPC_RX_NAK_SEQ_ERR, 1);
		if (pkt->has_aeth && syn == RT_AETH_RNR_NAK)
			rt_qp_rx_add(qp, RT_QPC_RX_RNR_NAK, 1);
		if (pkt->ackreq)
			rt_qp_rx_add(qp, RT_QPC_RX_ACKREQ, 1);
	}
	/* Both directions share these: written once a tick at most. */
	if (!atomic64_read(&qp->first_ns))
		atomic64_cmpxchg(&qp->first_ns, 0, now);
	if (atomic64_read(&qp->last_ns) != now)
		atomic64_set(&qp->last_ns, now);
	rt_qp_touch(qp);
}

/**
 * rt_qp_owner - record the owner of a QP from its restrack entry
 * @qp: the entry, not yet in the table or under rt_qp_lock
 * @ibqp: the QP, referenced
 */
void rt_qp_owner(struct rt_qp *qp, struct ib_qp *ibqp)
{
	struct task_struct *task = ibqp->res.task;
	struct pid *old = qp->owner;

	if (task) {
		qp->owner = get_task_pid(task, PIDTYPE_TGID);
		get_task_comm(qp->comm, task);
	} else {
		qp->owner = NULL;
		strscpy(qp->comm, ibqp->res.kern_name ?: "", sizeof(qp->comm));
	}
	put_pid(old);
	qp->owner_known = true;
}

/**
 * rt_qp_free - free an entry that no reader can find any more
 * @qp: the entry (not in the table, after an RCU grace period)
 */
void rt_qp_free(struct rt_qp *qp)
{
	if (qp)
		put_pid(qp->owner);
	kfree(qp);
}

/**
 * rt_qp_forget - drop the entry of a QP
 * @dev: device index
 * @qpn: QP number
 *
 * Context: any context; takes rt_qp_lock.
 */
void rt_qp_forget(u32 dev, u32 qpn)
{
	struct rt_qp *qp;

	rcu_read_lock();
	spin_lock_bh(&rt_qp_lock);
	qp = rt_qp_lookup(dev, qpn);
	if (qp)
		rt_qp_unlink(qp);
	spin_unlock_bh(&rt_qp_lock);
	rcu_read_unlock();
}

/**
 * rt_qp_kill - a QP is gone: drop its entry, or mark it to linger
 * @dev: device index
 * @qpn: QP number
 *
 * With the qp_linger_ms parameter, the entry stays (marked destroyed) for
 * that long, so that the final counts of short-lived QPs can be read.
 *
 * Context: any context; takes rt_qp_lock.
 */
void rt_qp_kill(u32 dev, u32 qpn)
{
	struct rt_qp *qp;

	if (!rt_qp_linger_ns()) {
		rt_qp_forget(dev, qpn);
		return;
	}
	rcu_read_lock();
	spin_lock_bh(&rt_qp_lock);
	qp = rt_qp_lookup(dev, qpn);
	if (qp && !qp->dead_ns) {
		WRITE_ONCE(qp->dead_ns, ktime_get_ns());
		rt_qp_touch(qp);
	}
	spin_unlock_bh(&rt_qp_lock);
	rcu_read_unlock();
}

/**
 * rt_qp_connected - a QP got its destination QP: map its sent packets
 * @qd: the QP's device, which accounts
 * @ibqp: the QP
 * @rqpn: its destination QP number
 * @daddr: the destination IP address (IPv4-mapped), or NULL if unknown
 * @from: the pending entry that counted the QP's sent packets so far, or
 *	NULL (rt_qppend_find_tx())
 *
 * A previous mapping of the same (device, remote QP, address) belongs to
 * a QP that is gone or was reconnected; it is replaced.
 *
 * The QP's next sent packets count on its entry, the earlier ones join it
 * later (rt_qppend_verify_tx()).  Its highest PSN so far carries over now,
 * as the entry starts to count: a retransmission that follows is one.  It
 * is read again once the entry counts, for a packet that @from counted in
 * between; one retransmission sent in those few instructions may count as
 * new.
 *
 * Context: process context, rcu_read_lock() held (@from stays), and
 * rt_qpdev_mutex held (the verification work, which visits the accounting
 * devices only); takes rt_qp_lock.
 */
void rt_qp_connected(struct rt_qpdev *qd, struct ib_qp *ibqp, u32 rqpn,
		     const u8 *daddr, struct rt_qp *from)
{
	struct rt_qp *qp, *old;

	lockdep_assert_held(&rt_qpdev_mutex);
	rcu_read_lock();
	qp = rt_qp_get_or_create(qd, ibqp->qp_num);
	if (!qp)
		goto out;
	spin_lock_bh(&rt_qp_lock);
	if (qp->tx_linked)
		rhashtable_remove_fast(&rt_qp_tx_ht, &qp->tx_node,
				       rt_qp_tx_params);
	qp->tx_linked = false;
	write_seqcount_begin(&qp->peer_seq);
	qp->txkey.dev = qd->index;
	qp->txkey.rqpn = rqpn;
	if (daddr)
		memcpy(qp->txkey.daddr, daddr, sizeof(qp->txkey.daddr));
	else
		memset(qp->txkey.daddr, 0, sizeof(qp->txkey.daddr));
	WRITE_ONCE(qp->rqpn_known, true);
	WRITE_ONCE(qp->type, ibqp->qp_type);
	WRITE_ONCE(qp->type_known, true);
	write_seqcount_end(&qp->peer_seq);
	if (ibqp->port)
		WRITE_ONCE(qp->port, ibqp->port);
	old = rhashtable_lookup(&rt_qp_tx_ht, &qp->txkey, rt_qp_tx_params);
	if (old) {
		rhashtable_remove_fast(&rt_qp_tx_ht, &old->tx_node,
				       rt_qp_tx_params);
		old->tx_linked = false;
	}
	if (from)
		rt_qp_psn_advance(qp, atomic64_read(&from->tx.psn));
	if (!rhashtable_insert_fast(&rt_qp_tx_ht, &qp->tx_node,
				    rt_qp_tx_params))
		qp->tx_linked = true;
	if (from)
		rt_qp_psn_advance(qp, atomic64_read(&from->tx.psn));
	rt_qp_touch(qp);
	spin_unlock_bh(&rt_qp_lock);
out:
	rcu_read_unlock();
}

/* Record type, port, owner and identity of @ibqp; marks @qp verified. */
static void rt_qp_meta(struct rt_qp *qp, struct ib_qp *ibqp)
{
	WRITE_ONCE(qp->type, ibqp->qp_type);
	WRITE_ONCE(qp->type_known, true);
	if (ibqp->port)
		WRITE_ONCE(qp->port, ibqp->port);
	rt_qp_owner(qp, ibqp);
	WRITE_ONCE(qp->ident, ibqp);
	WRITE_ONCE(qp->verified, true);
}

/**
 * rt_qp_set_meta - record what the RDMA core says about a QP
 * @dev: device index
 * @ibqp: the QP, referenced (its type and owner are recorded)
 *
 * Marks the entry verified.  Context: process context.
 */
void rt_qp_set_meta(u32 dev, struct ib_qp *ibqp)
{
	struct rt_qp *qp;

	rcu_read_lock();
	spin_lock_bh(&rt_qp_lock);
	qp = rt_qp_lookup(dev, ibqp->qp_num);
	if (qp) {
		write_seqcount_begin(&qp->peer_seq);
		rt_qp_meta(qp, ibqp);
		write_seqcount_end(&qp->peer_seq);
	}
	spin_unlock_bh(&rt_qp_lock);
	rcu_read_unlock();
}

/**
 * rt_qp_learned - a QP that has no entry was found: make its entry
 * @qd: the device
 * @ibqp: the QP, referenced
 *
 * The entry starts at zero, with the type, port and owner the RDMA core
 * holds.  Context: process context.
 * Return: 0, -EEXIST when it has an entry, -ENOSPC when the table is full,
 * -ENOMEM.
 */
int rt_qp_learned(struct rt_qpdev *qd, struct ib_qp *ibqp)
{
	struct rt_qp *qp;
	int err;

	qp = rt_qp_alloc(qd, ibqp->qp_num, GFP_KERNEL);
	if (!qp) {
		atomic64_inc(&rt_qp_refused);
		return -ENOMEM;
	}
	rt_qp_meta(qp, ibqp);
	spin_lock_bh(&rt_qp_lock);
	err = rt_qp_link(qp);
	spin_unlock_bh(&rt_qp_lock);
	if (err)
		rt_qp_free(qp);
	return err;
}

/**
 * rt_qp_next_entry - the next entry of a device, in QP number order
 * @dev: device index
 * @qpn: in: the first QP number to look at; out: the entry's
 *
 * A cursor that holds nothing between calls: entries may come and go.
 *
 * Return: true when there is one at or after *@qpn.
 */
bool rt_qp_next_entry(u32 dev, u32 *qpn)
{
	unsigned long idx = rt_qp_xa_index(dev, *qpn);
	struct rt_qp *qp;

	if (*qpn > RT_PSN_MASK)
		return false;
	rcu_read_lock();
	qp = xa_find(&rt_qp_xa, &idx, rt_qp_xa_index(dev, RT_PSN_MASK),
		     XA_PRESENT);
	if (qp)
		*qpn = qp->key.qpn;
	rcu_read_unlock();
	return qp;
}

/* Init ------------------------------------------------------------------- */

/**
 * rt_qp_init - set up the QP tables
 *
 * Return: 0 or a negative errno.
 */
int __init rt_qp_init(void)
{
	int err;

	/* rt_qp_xa_index(): a device index above a 24-bit QP number. */
	BUILD_BUG_ON(BITS_PER_LONG < 64);
	rt_qp_max = clamp_t(u32, qp_max, 1, RT_QP_TABLE_LIMIT);
	if (rt_qp_max != qp_max)
		pr_warn("qp_max=%u out of range, using %u\n", qp_max, rt_qp_max);
	rt_qp_linger_ms = min_t(u32, qp_linger_ms, RT_QP_KNOB_MAX_MS);
	err = rhashtable_init(&rt_qp_ht, &rt_qp_params);
	if (err)
		return err;
	err = rhashtable_init(&rt_qp_tx_ht, &rt_qp_tx_params);
	if (err)
		rhashtable_destroy(&rt_qp_ht);
	return err;
}

/**
 * rt_qp_fini - tear the QP tables down
 *
 * Called after every device was removed (rt_qp_dev_remove()) and the
 * verification stopped.
 */
void rt_qp_fini(void)
{
	rt_qp_flush(0, true);
	xa_destroy(&rt_qp_xa);
	rcu_barrier();
	rhashtable_destroy(&rt_qp_tx_ht);
	rhashtable_destroy(&rt_qp_ht);
}
