// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: the ground floor of the module.
 *
 * What every layer may call: the one way events leave the module
 * (rt_notify_dev() and rt_notify_port(), which build them with
 * rt_nl_event()), and the portable lookup of a port's netdev.  Calls
 * between the module's files run downward only (Documentation/design.rst,
 * "Layers"): the events' builder sits below every file that raises one.
 */

#include <rdma/ib_cache.h>

#include "rocetune.h"

/**
 * rt_notify_dev - a device event
 * @rdev: the device
 * @type: ROCETUNE_EVENT_DEV_ADD, _DEV_DEL or _DEV_RENAME
 * @old_name: the name before a rename, else NULL
 *
 * Context: process context, in the RDMA client's add, remove or rename
 * callback (rdev->ibdev is valid).
 */
void rt_notify_dev(struct rt_dev *rdev, u32 type, const char *old_name)
{
	struct rt_event ev = {
		.type = type,
		.rdev = rdev,
		.old_name = old_name,
		.prio = -1,
	};

	rt_nl_event(&ev);
}

/**
 * rt_notify_port - a port event
 * @rdev: the device
 * @p: the port
 * @type: enum rocetune_event, a port or threshold event
 * @prio: the priority of a pause-storm event, else -1
 * @value: the value that crossed (threshold and storm events)
 * @thresh: the threshold it crossed
 * @duration_ms: storm length (storm events)
 *
 * Context: process context, rdev->lock held, the device not dying.
 */
void rt_notify_port(struct rt_dev *rdev, struct rt_port *p, u32 type,
		    int prio, u64 value, u64 thresh, u64 duration_ms)
{
	struct rt_event ev = {
		.type = type,
		.rdev = rdev,
		.p = p,
		.prio = prio,
		.value = value,
		.thresh = thresh,
		.duration_ms = duration_ms,
	};

	rt_nl_event(&ev);
}

/**
 * rt_port_netdev - the netdev of an RDMA port, portably
 * @ibdev: the device
 * @port: port number
 *
 * 6.12 exports ib_device_get_netdev() (RT_HAVE_IB_DEVICE_GET_NETDEV, found
 * by Kbuild in the kernel headers); before it, ask the driver's
 * get_netdev op, then the default GID entry, then the netdev the driver
 * recorded with ib_device_set_netdev().
 *
 * Context: process context.
 * Return: the netdev with a reference held (dev_put() it), or NULL.
 */
struct net_device *rt_port_netdev(struct ib_device *ibdev, u32 port)
{
#ifdef RT_HAVE_IB_DEVICE_GET_NETDEV
	return ib_device_get_netdev(ibdev, port);
#else
	const struct ib_gid_attr *attr;
	struct net_device *ndev = NULL;

	if (ibdev->ops.get_netdev)
		return ibdev->ops.get_netdev(ibdev, port);

	attr = rdma_get_gid_attr(ibdev, port, 0);
	if (!IS_ERR(attr)) {
		rcu_read_lock();
		ndev = rdma_read_gid_attr_ndev_rcu(attr);
		if (IS_ERR(ndev))
			ndev = NULL;
		else
			dev_hold(ndev);
		rcu_read_unlock();
		rdma_put_gid_attr(attr);
		if (ndev)
			return ndev;
	}

	rcu_read_lock();
	ndev = rcu_dereference(ibdev->port_data[port].netdev);
	if (ndev && ndev->reg_state == NETREG_REGISTERED)
		dev_hold(ndev);
	else
		ndev = NULL;
	rcu_read_unlock();
	return ndev;
#endif
}
