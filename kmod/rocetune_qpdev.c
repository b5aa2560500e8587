// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: the accounting devices' lifetime.
 *
 * One struct rt_qpdev per RDMA device, from the RDMA client's add callback
 * (rt_qp_dev_add()) to its remove callback (rt_qp_dev_remove()), in the
 * list of rocetune_qp.c; accounting on and off (the netfilter hooks of
 * rocetune_nf.c are registered while some device accounts), and the
 * lookup of a device by index or name for the netlink commands.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>

#include "rocetune.h"
#include "rocetune_qp.h"

/* Version of the device list, for QP_STATS dumps; under rt_qpdev_mutex. */
unsigned int rt_qpdev_seq = 1;

/**
 * rt_qpdev_find - an accounting device by index or name
 * @index: device index, used when @name is NULL
 * @name: device name, or NULL
 *
 * Context: rcu_read_lock() or rt_qpdev_mutex held; the device is valid
 * until it is dropped.
 * Return: the device (accounting or not), or NULL.
 */
struct rt_qpdev *rt_qpdev_find(u32 index, const char *name)
{
	struct rt_qpdev *qd;
	bool match;

	list_for_each_entry_rcu(qd, &rt_qpdevs, node,
				lockdep_is_held(&rt_qpdev_mutex)) {
		if (name) {
			spin_lock_bh(&rt_qp_lock);
			match = !strcmp(qd->name, name);
			spin_unlock_bh(&rt_qp_lock);
		} else {
			match = qd->index == index;
		}
		if (match)
			return qd;
	}
	return NULL;
}

/**
 * rt_qpdev_nl_find - the device a netlink request names
 * @net: the caller's network namespace
 * @tb: the request's attributes (DEV_INDEX and/or DEV_NAME)
 * @extack: where a failure is explained
 *
 * Context: rcu_read_lock() or rt_qpdev_mutex held, as for rt_qpdev_find().
 * Return: the device, if @net may see it; NULL when the request names
 * none; an ERR_PTR with @extack set when it names no such device, or two.
 */
struct rt_qpdev *rt_qpdev_nl_find(struct net *net, struct nlattr **tb,
				  struct netlink_ext_ack *extack)
{
	struct nlattr *a_idx = tb[ROCETUNE_A_DEV_INDEX];
	struct nlattr *a_name = tb[ROCETUNE_A_DEV_NAME];
	struct rt_qpdev *qd;

	if (!a_idx && !a_name)
		return NULL;
	qd = rt_qpdev_find(a_idx ? nla_get_u32(a_idx) : 0,
			   a_name ? nla_data(a_name) : NULL);
	if (qd && !rdma_dev_access_netns(qd->ibdev, net))
		qd = NULL;
	if (!qd) {
		NL_SET_ERR_MSG_ATTR(extack, a_name ?: a_idx,
				    "no RDMA device by this name or index");
		return ERR_PTR(-ENODEV);
	}
	if (a_idx && a_name && qd->index != nla_get_u32(a_idx)) {
		NL_SET_ERR_MSG_ATTR(extack, a_idx,
				    "device index and name refer to different devices");
		return ERR_PTR(-EINVAL);
	}
	return qd;
}

/**
 * rt_qpdev_hold - take a reference to a device
 * @qd: a device found in rt_qpdevs (rt_qpdev_find())
 *
 * Context: rcu_read_lock() or rt_qpdev_mutex held since it was found: the
 * list's reference is dropped only a grace period after it left the list.
 */
void rt_qpdev_hold(struct rt_qpdev *qd)
{
	kref_get(&qd->ref);
}

static void rt_qpdev_release(struct kref *ref)
{
	kfree(container_of(ref, struct rt_qpdev, ref));
}

/**
 * rt_qpdev_put - drop a reference to a device
 * @qd: the device
 */
void rt_qpdev_put(struct rt_qpdev *qd)
{
	kref_put(&qd->ref, rt_qpdev_release);
}

/**
 * rt_qpdev_ibdev_get - hold a device's ib_device for its I/O
 * @qd: the device, referenced
 *
 * Keeps rt_qp_dev_remove() from returning, so that the ib_device stays
 * registered, until rt_qpdev_ibdev_put(); only the users of this device
 * wait for each other's I/O, none of another device.
 *
 * Context: process context, without rt_qpdev_mutex.
 * Return: the ib_device (rt_qpdev_ibdev_put() it), or NULL when the device
 * is being removed (nothing is held then).
 */
struct ib_device *rt_qpdev_ibdev_get(struct rt_qpdev *qd)
{
	down_read(&qd->ibdev_sem);
	if (!READ_ONCE(qd->dying))
		return qd->ibdev;
	up_read(&qd->ibdev_sem);
	return NULL;
}

/**
 * rt_qpdev_ibdev_put - release what rt_qpdev_ibdev_get() held
 * @qd: the device
 */
void rt_qpdev_ibdev_put(struct rt_qpdev *qd)
{
	up_read(&qd->ibdev_sem);
}

/**
 * rt_qpdev_name - copy the name of a device
 * @index: device index
 * @buf: IB_DEVICE_NAME_MAX bytes, "" when the device is gone
 */
void rt_qpdev_name(u32 index, char *buf)
{
	struct rt_qpdev *qd;

	buf[0] = '\0';
	rcu_read_lock();
	qd = rt_qpdev_find(index, NULL);
	if (qd) {
		spin_lock_bh(&rt_qp_lock);
		strscpy(buf, qd->name, IB_DEVICE_NAME_MAX);
		spin_unlock_bh(&rt_qp_lock);
	}
	rcu_read_unlock();
}

/**
 * rt_qp_dev_rename - follow a device rename
 * @ibdev: the device, which has its new name already
 *
 * Context: process context (the RDMA client's rename callback).
 */
void rt_qp_dev_rename(struct ib_device *ibdev)
{
	struct rt_qpdev *qd;

	mutex_lock(&rt_qpdev_mutex);
	list_for_each_entry(qd, &rt_qpdevs, node) {
		if (qd->ibdev != ibdev)
			continue;
		spin_lock_bh(&rt_qp_lock);
		strscpy(qd->name, dev_name(&ibdev->dev), sizeof(qd->name));
		spin_unlock_bh(&rt_qp_lock);
	}
	mutex_unlock(&rt_qpdev_mutex);
}

/* Devices with accounting on; the hooks are registered while there are. */
static unsigned int rt_qp_nacct;

/**
 * rt_qp_acct_set - turn accounting of a device on or off
 * @qd: the device
 * @on: accounting on
 *
 * The netfilter hooks are registered with the first device that accounts
 * and unregistered with the last (so that a host without one pays nothing
 * per packet).  Turning accounting off also turns the device's
 * notification and reaction points off: they live in the same hooks.
 *
 * Context: process context, rt_qpdev_mutex held.
 * Return: 0, or the error of registering the hooks.
 */
int rt_qp_acct_set(struct rt_qpdev *qd, bool on)
{
	int err;

	lockdep_assert_held(&rt_qpdev_mutex);
	if (qd->acct == on)
		return 0;
	if (on) {
		if (!rt_qp_nacct) {
			err = rt_nf_register();
			if (err)
				return err;
		}
		WRITE_ONCE(rt_qp_nacct, rt_qp_nacct + 1);
		WRITE_ONCE(qd->overflow_ns, 0);
		WRITE_ONCE(qd->acct, true);
		/* Learn the device's QPs. */
		rt_qptrack_wake();
		return 0;
	}
	WRITE_ONCE(qd->np, false);
	if (qd->rp) {
		/*
		 * The hooks keep the packets of paced QPs behind those still
		 * queued until their departure times have passed: at most the
		 * horizon from now (rt_rp_tx()).
		 */
		WRITE_ONCE(qd->rp, false);
		msleep(DIV_ROUND_UP(RT_RP_HORIZON_NS, NSEC_PER_MSEC) + 1);
	}
	WRITE_ONCE(qd->acct, false);
	/* Waits for the hooks running, so that none finds @qd after it. */
	WRITE_ONCE(rt_qp_nacct, rt_qp_nacct - 1);
	if (!rt_qp_nacct)
		rt_nf_unregister();
	return 0;
}

/**
 * rt_qp_hooks - are the netfilter hooks registered
 *
 * Return: true while some device accounts.
 */
bool rt_qp_hooks(void)
{
	return READ_ONCE(rt_qp_nacct) != 0;
}

/**
 * rt_qp_dev_add - start QP accounting state for a device
 * @ibdev: the device (from the RDMA client's add callback)
 *
 * Accounting is on by default for software RoCE (rxe), whose packets
 * cross the IP stack, and off for other drivers.
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int rt_qp_dev_add(struct ib_device *ibdev)
{
	u32 nports = rdma_end_port(ibdev);
	struct rt_qpdev *qd;
	u32 port;

	/* Indexed by port number, from 1. */
	qd = kzalloc(struct_size(qd, ifindex, nports + 1), GFP_KERNEL);
	if (!qd)
		return -ENOMEM;
	/* rt_qpdevs' reference, the one rt_qp_dev_remove() drops. */
	kref_init(&qd->ref);
	init_rwsem(&qd->ibdev_sem);
	qd->ibdev = ibdev;
	qd->index = ibdev->index;
	strscpy(qd->name, dev_name(&ibdev->dev), sizeof(qd->name));
	qd->nports = nports;
	qd->sw = ibdev->ops.driver_id == RDMA_DRIVER_RXE;
	atomic64_set(&qd->unattr_rx, 0);
	atomic64_set(&qd->unattr_tx, 0);
	qd->np_gap_us = RT_NP_GAP_US_DEFAULT;
	qd->np_cnp_dscp = RT_NP_CNP_DSCP_DEFAULT;
	qd->np_cnp_prio = RT_NP_CNP_PRIO_DEFAULT;
	atomic64_set(&qd->np_cnp_sent, 0);
	atomic64_set(&qd->np_cnp_failed, 0);
	atomic64_set(&qd->np_ce_coalesced, 0);
	atomic64_set(&qd->np_ce_no_cnp, 0);
	qd->rp_p = (struct rt_rp_params) {
		.min_mbps = RT_RP_FLOOR_MBPS,
		.max_mbps = RT_RP_MAX_MBPS_DEFAULT,
		.ai_mbps = RT_RP_AI_MBPS_DEFAULT,
		.hai_mbps = RT_RP_HAI_MBPS_DEFAULT,
		.time_reset_us = RT_RP_TIME_RESET_US_DEFAULT,
		.byte_reset = RT_RP_BYTE_RESET_DEFAULT,
		.threshold = RT_RP_THRESHOLD_DEFAULT,
		.initial_alpha = RT_RP_INITIAL_ALPHA_DEFAULT,
		.g = RT_RP_G_DEFAULT,
		.alpha_period_us = RT_RP_ALPHA_PERIOD_US_DEFAULT,
		.rrmp_us = RT_RP_RRMP_US_DEFAULT,
		.gd = RT_RP_GD_DEFAULT,
		.min_dec_fac = RT_RP_MIN_DEC_FAC_DEFAULT,
		.clamp_tgt = RT_RP_CLAMP_TGT_DEFAULT,
		.clamp_tgt_ati = RT_RP_CLAMP_TGT_ATI_DEFAULT,
	};
	if (rt_qppend_init(qd)) {
		kfree(qd);
		return -ENOMEM;
	}
	rdma_for_each_port(ibdev, port) {
		struct net_device *ndev;

		ndev = rt_port_netdev(ibdev, port);
		if (!ndev)
			continue;
		/* An ifindex means nothing in another namespace. */
		if (net_eq(dev_net(ndev), &init_net))
			qd->ifindex[port] = ndev->ifindex;
		dev_put(ndev);
	}
	mutex_lock(&rt_qpdev_mutex);
	list_add_tail_rcu(&qd->node, &rt_qpdevs);
	rt_qp_seq_bump(&rt_qpdev_seq);
	/* A software RoCE device accounts from the start. */
	if (qd->sw && rt_qp_acct_set(qd, true))
		pr_warn("%s: cannot register netfilter hooks: not accounted\n",
			qd->name);
	mutex_unlock(&rt_qpdev_mutex);
	return 0;
}

/**
 * rt_qp_dev_remove - drop the QP accounting state of a device
 * @ibdev: the device (from the RDMA client's remove callback)
 *
 * After this returns no hook, verification or request uses @ibdev any
 * more; a request that still holds a reference sees the device as gone,
 * and the last reference frees it.
 *
 * Context: process context, may sleep.
 */
void rt_qp_dev_remove(struct ib_device *ibdev)
{
	struct rt_qpdev *qd;

	mutex_lock(&rt_qpdev_mutex);
	list_for_each_entry(qd, &rt_qpdevs, node)
		if (qd->ibdev == ibdev)
			break;
	if (list_entry_is_head(qd, &rt_qpdevs, node)) {
		mutex_unlock(&rt_qpdev_mutex);
		return;
	}
	rt_qp_acct_set(qd, false);
	list_del_rcu(&qd->node);
	rt_qp_seq_bump(&rt_qpdev_seq);
	mutex_unlock(&rt_qpdev_mutex);
	/* Waits for the request using @ibdev; the later ones see @dying. */
	down_write(&qd->ibdev_sem);
	WRITE_ONCE(qd->dying, true);
	up_write(&qd->ibdev_sem);
	/* No reader finds the device after this; then drop its QPs. */
	synchronize_rcu();
	rt_qp_flush(qd->index, false);
	rt_qppend_fini(qd);
	/* After the grace period: no lookup takes a reference any more. */
	rt_qpdev_put(qd);
}

/**
 * rt_qpdev_init - set up QP accounting: the tables and the verification
 *
 * Return: 0 or a negative errno.
 */
int __init rt_qpdev_init(void)
{
	int err;

	err = rt_qp_init();
	if (err)
		return err;
	err = rt_qptrack_init();
	if (err)
		rt_qp_fini();
	return err;
}

/**
 * rt_qpdev_fini - tear QP accounting down
 *
 * Called after every device was removed (rt_qp_dev_remove()).
 */
void rt_qpdev_fini(void)
{
	/* The last device's removal unregistered the hooks. */
	WARN_ON(rt_qp_nacct);
	rt_qptrack_fini();
	rt_qp_fini();
}
