// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: the ground floor of the module.
 *
 * What every layer may call and that calls nothing of the module's: the
 * one way events go up (rt_notify(), to the sender that the netlink layer
 * registers), the netlink family for the handlers below the family's own
 * file, and the portable lookup of a port's netdev.  Calls between
 * the module's files run downward only (Documentation/design.rst, "Layers"):
 * a lower layer tells an upper one something only through a function that
 * the upper one registered, here or with the QP table.
 */

#include <rdma/ib_cache.h>

#include "rocetune.h"

/* The netlink layer's sender, set while its family is registered. */
static void (*rt_notify_send)(const struct rt_event *ev);
/* The netlink layer's family, set before it is registered. */
static const struct genl_family *rt_core_genl_family;

/**
 * rt_core_set_family - the netlink layer's family, for lower handlers
 * @family: the family, before it is registered
 *
 * The handlers of a command live below the family that names them: they
 * put their messages' headers with rt_core_family().
 */
void rt_core_set_family(const struct genl_family *family)
{
	WRITE_ONCE(rt_core_genl_family, family);
}

/**
 * rt_core_family - the generic netlink family of the module
 *
 * Context: a request or dump of the family, which is registered then.
 * Return: the family.
 */
const struct genl_family *rt_core_family(void)
{
	return READ_ONCE(rt_core_genl_family);
}

/**
 * rt_notify_register - set who is told the events
 * @send: the sender, or NULL to stop telling anyone
 *
 * A sender that is replaced may still run for an event already under
 * way: it must drop what it can no longer send (rt_nl_fini()).
 */
void rt_notify_register(void (*send)(const struct rt_event *ev))
{
	WRITE_ONCE(rt_notify_send, send);
}

/**
 * rt_notify - tell the upper layers an event
 * @ev: the event; its fields are valid during the call only
 *
 * Context: the sender's: process context, see rt_notify_dev() and
 * rt_notify_port().
 */
void rt_notify(const struct rt_event *ev)
{
	void (*send)(const struct rt_event *ev) = READ_ONCE(rt_notify_send);

	if (send)
		send(ev);
}

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

	rt_notify(&ev);
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

	rt_notify(&ev);
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
