// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: learning the QPs of accounting devices.
 *
 * The RDMA core has no QP notifications (kernel-facts §1.7), so:
 *  - a kprobe on rdma_restrack_add() sees every QP created (user and
 *    kernel): its entry starts fresh, so a reused QP number never
 *    inherits counts;
 *  - kprobes on rdma_restrack_begin_del() and rdma_restrack_del() see QPs
 *    destroyed: their entries are dropped;
 *  - kretprobes on ib_modify_qp_with_udata() (user QPs) and ib_modify_qp()
 *    (kernel QPs) see a successful modify that sets the destination QP
 *    (and address vector): the mapping from (remote QP, destination
 *    address) to the local QP exists before the QP sends its first packet;
 *  - a work verifies every entry against the RDMA core's resource tracking
 *    every VERIFY_MS (rdma_restrack_get_byid()), drops entries of QPs that
 *    do not exist, and learns type, owner and destination of QPs created
 *    before the module was loaded (ib_query_qp()); QP numbers seen in
 *    packets wait in a device's pending entries (rocetune_qppend.c) until
 *    it runs, a tenth of VERIFY_MS after the first.
 *
 * The probe handlers take rt_qp_lock, which is only safe in the context of
 * the probed function: probes are used only when they run through ftrace
 * (KPROBES_ON_FTRACE), never from the int3 (NMI-like) path.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/ptrace.h>
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

static struct ib_qp *rt_res_qp(struct pt_regs *regs)
{
	struct rdma_restrack_entry *res;

	res = (void *)regs_get_kernel_argument(regs, 0);
	if (!res || res->type != RDMA_RESTRACK_QP || res->no_track)
		return NULL;
	return container_of(res, struct ib_qp, res);
}

static int rt_kp_add_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct ib_qp *ibqp = rt_res_qp(regs);

	if (ibqp)
		rt_qp_created(ibqp);
	return 0;
}

static int rt_kp_del_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct ib_qp *ibqp = rt_res_qp(regs);

	if (ibqp && ibqp->res.valid)
		rt_qp_destroyed(ibqp->device, ibqp->qp_num);
	return 0;
}

/* What the entry handler of a modify saves for the return handler. */
struct rt_modify_args {
	struct ib_qp *qp;
	struct ib_qp_attr *attr;
	int mask;
};

static int rt_krp_modify_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct rt_modify_args *a = (void *)ri->data;

	a->qp = (void *)regs_get_kernel_argument(regs, 0);
	a->attr = (void *)regs_get_kernel_argument(regs, 1);
	a->mask = regs_get_kernel_argument(regs, 2);
	/* Non-zero: no return handler for this call. */
	return !(a->mask & IB_QP_DEST_QPN) || !a->qp || !a->attr;
}

static int rt_krp_modify_ret(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct rt_modify_args *a = (void *)ri->data;
	struct ib_qp *qp = a->qp->real_qp ?: a->qp;
	const u8 *daddr = NULL;

	if (regs_return_value(regs))
		return 0;
	if ((a->mask & IB_QP_AV) &&
	    (rdma_ah_get_ah_flags(&a->attr->ah_attr) & IB_AH_GRH))
		daddr = rdma_ah_read_grh(&a->attr->ah_attr)->dgid.raw;
	rt_qp_connected(qp, a->attr->dest_qp_num, daddr);
	return 0;
}

static struct kprobe rt_kp_add = {
	.symbol_name = "rdma_restrack_add",
	.pre_handler = rt_kp_add_pre,
};

static struct kprobe rt_kp_begin_del = {
	.symbol_name = "rdma_restrack_begin_del",
	.pre_handler = rt_kp_del_pre,
};

static struct kprobe rt_kp_del = {
	.symbol_name = "rdma_restrack_del",
	.pre_handler = rt_kp_del_pre,
};

static struct kretprobe rt_krp_modify_udata = {
	.kp.symbol_name = "ib_modify_qp_with_udata",
	.entry_handler = rt_krp_modify_entry,
	.handler = rt_krp_modify_ret,
	.data_size = sizeof(struct rt_modify_args),
	.maxactive = 32,
};

static struct kretprobe rt_krp_modify = {
	.kp.symbol_name = "ib_modify_qp",
	.entry_handler = rt_krp_modify_entry,
	.handler = rt_krp_modify_ret,
	.data_size = sizeof(struct rt_modify_args),
	.maxactive = 32,
};

static struct kprobe *rt_kprobes[] = {
	&rt_kp_add, &rt_kp_begin_del, &rt_kp_del,
};

static struct kretprobe *rt_kretprobes[] = {
	&rt_krp_modify_udata, &rt_krp_modify,
};

static bool rt_kp_on[ARRAY_SIZE(rt_kprobes)];
static bool rt_krp_on[ARRAY_SIZE(rt_kretprobes)];

/**
 * rt_qptrack_probes_ok - are all QP probes in place
 *
 * Without them QPs are learned late, from their packets and the
 * verification: the first packets an RC QP sends may be unattributed.
 * QP_STATS_GET reports it (QP_DEGRADED).
 *
 * Return: true when every probe is registered and runs through ftrace.
 */
bool rt_qptrack_probes_ok(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rt_kp_on); i++)
		if (!rt_kp_on[i])
			return false;
	for (i = 0; i < ARRAY_SIZE(rt_krp_on); i++)
		if (!rt_krp_on[i])
			return false;
	return true;
}

/* Register @kp; keep it only if its handlers run through ftrace. */
static bool rt_kp_register(struct kprobe *kp)
{
	int err = register_kprobe(kp);

	if (err) {
		pr_warn("no kprobe on %s (%d): QPs are learned later\n",
			kp->symbol_name, err);
		return false;
	}
	if (!kprobe_ftrace(kp)) {
		pr_warn("kprobe on %s is not ftrace-based: not used\n",
			kp->symbol_name);
		unregister_kprobe(kp);
		return false;
	}
	return true;
}

static bool rt_krp_register(struct kretprobe *krp)
{
	int err = register_kretprobe(krp);

	if (err) {
		pr_warn("no kretprobe on %s (%d): QPs are learned later\n",
			krp->kp.symbol_name, err);
		return false;
	}
	if (!kprobe_ftrace(&krp->kp)) {
		pr_warn("kretprobe on %s is not ftrace-based: not used\n",
			krp->kp.symbol_name);
		unregister_kretprobe(krp);
		return false;
	}
	return true;
}

/* Verification ------------------------------------------------------------- */

/**
 * rt_qptrack_res - the RDMA core's resource tracking entry of a QP
 * @ibdev: the device
 * @qpn: the QP number
 *
 * Context: any context (only spinlocks are taken).
 * Return: the entry, referenced (rdma_restrack_put() it), or an ERR_PTR.
 */
struct rdma_restrack_entry *rt_qptrack_res(struct ib_device *ibdev, u32 qpn)
{
	struct rdma_restrack_entry *res;

	res = rdma_restrack_get_byid(ibdev, RDMA_RESTRACK_QP, qpn);
	/* Special QPs are tracked as "qpn | port << 24". */
	if (IS_ERR(res) && qpn <= 1)
		res = rdma_restrack_get_byid(ibdev, RDMA_RESTRACK_QP,
					     qpn | 1U << 24);
	return res;
}

static void rt_qptrack_learn(struct ib_qp *ibqp, u32 dev, bool need_dest)
{
	struct ib_qp_init_attr *init;
	struct ib_qp_attr *attr;

	rt_qp_set_meta(dev, ibqp);

	if (!need_dest ||
	    (ibqp->qp_type != IB_QPT_RC && ibqp->qp_type != IB_QPT_UC))
		return;
	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	init = kzalloc(sizeof(*init), GFP_KERNEL);
	if (attr && init &&
	    !ib_query_qp(ibqp, attr, IB_QP_STATE | IB_QP_DEST_QPN | IB_QP_AV,
			 init) &&
	    attr->qp_state >= IB_QPS_RTR && attr->qp_state <= IB_QPS_SQD) {
		const u8 *daddr = NULL;

		if (rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH)
			daddr = rdma_ah_read_grh(&attr->ah_attr)->dgid.raw;
		rt_qp_connected(ibqp, attr->dest_qp_num, daddr);
	}
	kfree(init);
	kfree(attr);
}

static void rt_qptrack_verify(struct rt_qpdev *qd, u32 qpn)
{
	struct rdma_restrack_entry *res;
	bool verified, need_dest;
	struct rt_qp *qp;
	u64 dead_ns;

	rcu_read_lock();
	qp = rt_qp_lookup(qd->index, qpn);
	verified = qp && READ_ONCE(qp->verified);
	need_dest = qp && !READ_ONCE(qp->rqpn_known);
	dead_ns = qp ? READ_ONCE(qp->dead_ns) : 0;
	rcu_read_unlock();
	if (!qp)
		return;
	if (dead_ns) {
		/* Destroyed: it lingers, then goes. */
		if (ktime_get_ns() - dead_ns >= rt_qp_linger_ns())
			rt_qp_forget(qd->index, qpn);
		return;
	}

	res = rt_qptrack_res(qd->ibdev, qpn);
	if (IS_ERR(res)) {
		rt_qp_forget(qd->index, qpn);
		return;
	}
	if (!verified)
		rt_qptrack_learn(container_of(res, struct ib_qp, res),
				 qd->index, need_dest);
	rdma_restrack_put(res);
}

static void rt_qptrack_work_fn(struct work_struct *work)
{
	struct rt_qp_key *keys;
	struct rt_qpdev *qd;
	bool any = false;
	int n, i;

	mutex_lock(&rt_qpdev_mutex);
	list_for_each_entry(qd, &rt_qpdevs, node) {
		if (!READ_ONCE(qd->acct))
			continue;
		/* First the numbers seen in packets, then every entry. */
		any |= rt_qppend_verify(qd);
		n = rt_qp_keys(qd->index, &keys, false);
		for (i = 0; i < n; i++) {
			rt_qptrack_verify(qd, keys[i].qpn);
			cond_resched();
		}
		any |= n > 0;
		kvfree(keys);
	}
	mutex_unlock(&rt_qpdev_mutex);
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

/**
 * rt_qptrack_kick - a new entry needs verification soon
 *
 * Soon is a tenth of the verification period.  Context: any context.
 */
void rt_qptrack_kick(void)
{
	if (READ_ONCE(rt_qptrack_live))
		queue_delayed_work(system_wq, &rt_qptrack_work,
				   msecs_to_jiffies(rt_qptrack_period() / 10));
}

/**
 * rt_qptrack_init - register the QP probes
 *
 * A probe that cannot be registered is reported and done without: QPs are
 * then learned from their packets and the verification work only.
 *
 * Return: 0.
 */
int __init rt_qptrack_init(void)
{
	unsigned int i;

	/* The bounds of QP_SET's VERIFY_MS; 0 would verify in a loop. */
	WRITE_ONCE(rt_qptrack_period_ms,
		   clamp_t(u32, qp_verify_ms, RT_QP_VERIFY_MIN_MS,
			   RT_QP_KNOB_MAX_MS));
	if (rt_qptrack_period_ms != qp_verify_ms)
		pr_warn("qp_verify_ms=%u out of range, using %u\n",
			qp_verify_ms, rt_qptrack_period_ms);
	WRITE_ONCE(rt_qptrack_live, true);
	for (i = 0; i < ARRAY_SIZE(rt_kprobes); i++)
		rt_kp_on[i] = rt_kp_register(rt_kprobes[i]);
	for (i = 0; i < ARRAY_SIZE(rt_kretprobes); i++)
		rt_krp_on[i] = rt_krp_register(rt_kretprobes[i]);
	if (!rt_qptrack_probes_ok())
		pr_warn("QP attribution degraded: QPs are learned from their packets and the verification only\n");
	return 0;
}

/**
 * rt_qptrack_fini - unregister the probes and stop the work
 */
void rt_qptrack_fini(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rt_kretprobes); i++)
		if (rt_krp_on[i])
			unregister_kretprobe(rt_kretprobes[i]);
	for (i = 0; i < ARRAY_SIZE(rt_kprobes); i++)
		if (rt_kp_on[i])
			unregister_kprobe(rt_kprobes[i]);
	WRITE_ONCE(rt_qptrack_live, false);
	cancel_delayed_work_sync(&rt_qptrack_work);
}
