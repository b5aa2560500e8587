// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: device and port tracking.
 *
 * One refcounted struct rt_dev per RDMA device with at least one RoCE
 * port, kept in an xarray by device index (the order of dumps).
 * rocetune.h has the locking rules.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/overflow.h>
#include <linux/slab.h>

#include "rocetune.h"
#include "rocetune_qp.h"

/* The tracked devices by index; see rocetune.h for the locking. */
DEFINE_MUTEX(rt_devs_lock);
DEFINE_XARRAY(rt_devs_xa);
/* Version of rt_devs_xa (a device came, went or was renamed), for dumps. */
unsigned int rt_devs_seq = 1;

/* A change of rt_devs_xa; rt_devs_lock held. */
static void rt_devs_changed(void)
{
	lockdep_assert_held(&rt_devs_lock);
	/* 0 means "no version" to the netlink core. */
	rt_devs_seq = rt_devs_seq + 1 ?: 1;
}

static void rt_dev_release(struct kref *ref)
{
	struct rt_dev *rdev = container_of(ref, struct rt_dev, ref);

	mutex_destroy(&rdev->lock);
	kfree(rdev);
}

/**
 * rt_dev_put - drop a reference to a device
 * @rdev: the device, or NULL
 *
 * Context: any context that may sleep (the last reference frees).
 */
void rt_dev_put(struct rt_dev *rdev)
{
	if (rdev)
		kref_put(&rdev->ref, rt_dev_release);
}

/**
 * rt_dev_find - look a tracked device up by index or name
 * @index: device index, used when @name is NULL
 * @name: device name, or NULL
 *
 * Context: process context; takes rt_devs_lock.
 * Return: the device with a reference held (rt_dev_put() it), or NULL.
 */
struct rt_dev *rt_dev_find(u32 index, const char *name)
{
	struct rt_dev *rdev = NULL;
	unsigned long i;

	mutex_lock(&rt_devs_lock);
	if (!name) {
		rdev = xa_load(&rt_devs_xa, index);
	} else {
		/* Writers of the names hold rt_devs_lock. */
		xa_for_each(&rt_devs_xa, i, rdev)
			if (!strcmp(rdev->name, name))
				break;
	}
	if (rdev)
		kref_get(&rdev->ref);
	mutex_unlock(&rt_devs_lock);
	return rdev;
}

/**
 * rt_dev_next - the tracked device with the lowest index from @index on
 * @index: where to start; set to the index of the device found
 * @seq: if not NULL, set to the version of the devices (rt_devs_seq)
 *
 * For dumps, which visit the devices in index order without holding any
 * lock between them.
 *
 * Context: process context; takes rt_devs_lock.
 * Return: the device with a reference held (rt_dev_put() it), or NULL.
 */
struct rt_dev *rt_dev_next(u32 *index, unsigned int *seq)
{
	unsigned long i = *index;
	struct rt_dev *rdev;

	mutex_lock(&rt_devs_lock);
	rdev = xa_find(&rt_devs_xa, &i, U32_MAX, XA_PRESENT);
	if (rdev) {
		kref_get(&rdev->ref);
		*index = i;
	}
	if (seq)
		*seq = rt_devs_seq;
	mutex_unlock(&rt_devs_lock);
	return rdev;
}

/**
 * rt_dev_visible - may a network namespace see a device
 * @rdev: the device
 * @net: the namespace
 *
 * Context: rdev->lock held.
 * Return: false once the device is being removed, else whether @net may
 * access it (rdma_dev_access_netns()).
 */
bool rt_dev_visible(struct rt_dev *rdev, const struct net *net)
{
	lockdep_assert_held(&rdev->lock);
	return !READ_ONCE(rdev->dying) &&
	       rdma_dev_access_netns(rdev->ibdev, net);
}

/**
 * rt_dev_port - the tracked RoCE port of a device by port number
 * @rdev: the device
 * @port: port number
 *
 * Return: the port, or NULL when @port is not a RoCE port of @rdev.
 */
struct rt_port *rt_dev_port(struct rt_dev *rdev, u32 port)
{
	unsigned int i;

	for (i = 0; i < rdev->nports; i++)
		if (rdev->ports[i].port == port)
			return &rdev->ports[i];
	return NULL;
}

static const char * const rt_driver_names[] = {
	[RDMA_DRIVER_MLX5] = "mlx5",
	[RDMA_DRIVER_MLX4] = "mlx4",
	[RDMA_DRIVER_CXGB4] = "cxgb4",
	[RDMA_DRIVER_BNXT_RE] = "bnxt_re",
	[RDMA_DRIVER_OCRDMA] = "ocrdma",
	[RDMA_DRIVER_IRDMA] = "irdma",
	[RDMA_DRIVER_VMW_PVRDMA] = "vmw_pvrdma",
	[RDMA_DRIVER_QEDR] = "qedr",
	[RDMA_DRIVER_HNS] = "hns",
	[RDMA_DRIVER_USNIC] = "usnic",
	[RDMA_DRIVER_RXE] = "rxe",
	[RDMA_DRIVER_SIW] = "siw",
	[RDMA_DRIVER_ERDMA] = "erdma",
};

/* Short name of the driver of a device: "rxe", "mlx5", ..., else its module's. */
static const char *rt_ib_driver(const struct ib_device *ibdev)
{
	unsigned int id = ibdev->ops.driver_id;

	if (id < ARRAY_SIZE(rt_driver_names) && rt_driver_names[id])
		return rt_driver_names[id];
	if (ibdev->ops.owner)
		return module_name(ibdev->ops.owner);
	return "unknown";
}

static void rt_ib_event(struct ib_event_handler *handler,
			struct ib_event *event)
{
	struct rt_dev *rdev = container_of(handler, struct rt_dev,
					   event_handler);

	switch (event->event) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_GID_CHANGE:
		/* The sampling work reports what changed. */
		rt_sample_kick(rdev);
		break;
	default:
		break;
	}
}

static int rt_dev_link(struct rt_dev *rdev)
{
	int err;

	mutex_lock(&rt_devs_lock);
	err = xa_insert(&rt_devs_xa, rdev->index, rdev, GFP_KERNEL);
	if (!err)
		rt_devs_changed();
	mutex_unlock(&rt_devs_lock);
	return err;
}

static unsigned int rt_count_roce_ports(struct ib_device *ibdev)
{
	unsigned int n = 0;
	u32 port;

	rdma_for_each_port(ibdev, port)
		if (rdma_protocol_roce(ibdev, port))
			n++;
	return n;
}

/**
 * rt_dev_add - start tracking a device (the RDMA client's add callback)
 * @ibdev: the new device
 * @client: our client, to attach the rt_dev to @ibdev
 *
 * Context: process context, with the RDMA core's device locks held.
 * Return: 0, -EOPNOTSUPP without RoCE ports, or -ENOMEM.
 */
int rt_dev_add(struct ib_device *ibdev, struct ib_client *client)
{
	unsigned int nports = rt_count_roce_ports(ibdev);
	struct rt_dev *rdev;
	unsigned int i = 0;
	u32 port;
	int err;

	if (!nports)
		return -EOPNOTSUPP;

	rdev = kzalloc(struct_size(rdev, ports, nports), GFP_KERNEL);
	if (!rdev)
		return -ENOMEM;
	kref_init(&rdev->ref);
	rdev->ibdev = ibdev;
	rdev->index = ibdev->index;
	strscpy(rdev->name, dev_name(&ibdev->dev), sizeof(rdev->name));
	strscpy(rdev->driver, rt_ib_driver(ibdev), sizeof(rdev->driver));
	mutex_init(&rdev->lock);
	spin_lock_init(&rdev->name_lock);
	spin_lock_init(&rdev->work_lock);
	INIT_DELAYED_WORK(&rdev->work, rt_sample_work);
	rdev->nports = nports;
	rdma_for_each_port(ibdev, port) {
		if (!rdma_protocol_roce(ibdev, port))
			continue;
		rdev->ports[i].port = port;
		/* Without hw_stats the port simply has no counters. */
		if (rt_counters_init(rdev, &rdev->ports[i]))
			pr_warn("%s/%u: no memory for its hw counters, reported without them\n",
				rdev->name, port);
		i++;
	}
	/* rt_devs_xa's reference, the one the remove callback drops. */
	err = rt_dev_link(rdev);
	if (err)
		goto err_free;

	INIT_IB_EVENT_HANDLER(&rdev->event_handler, ibdev, rt_ib_event);
	ib_register_event_handler(&rdev->event_handler);
	/* Non-NULL client data is also what makes the core call .rename. */
	ib_set_client_data(ibdev, client, rdev);
	/* Without QP accounting state the device is simply not accounted. */
	if (rt_qp_dev_add(ibdev))
		pr_warn("%s: no memory for QP accounting, not accounted\n",
			rdev->name);

	rt_notify_dev(rdev, ROCETUNE_EVENT_DEV_ADD, NULL);
	rt_sample_start(rdev);
	pr_info("%s: tracking, %u RoCE port(s)\n", rdev->name, nports);
	return 0;

err_free:
	for (i = 0; i < rdev->nports; i++)
		rt_counters_fini(&rdev->ports[i]);
	rt_dev_put(rdev);
	return err;
}

/**
 * rt_dev_remove - stop tracking a device (the RDMA client's remove callback)
 * @rdev: the device
 *
 * Unlinks the device first, so that no lookup finds it, stops the event
 * handler, marks it dying and stops the sampling work (rt_sample_stop()
 * waits for the user of @rdev->ibdev in flight): when this returns nothing
 * uses it any more.  A request that still holds a reference sees
 * the device as gone; the last reference frees it.
 *
 * Context: process context, not under RTNL or any rocetune lock.
 */
void rt_dev_remove(struct rt_dev *rdev)
{
	char name[IB_DEVICE_NAME_MAX];
	unsigned int i;

	mutex_lock(&rt_devs_lock);
	xa_erase(&rt_devs_xa, rdev->index);
	rt_devs_changed();
	mutex_unlock(&rt_devs_lock);

	rt_qp_dev_remove(rdev->ibdev);
	ib_unregister_event_handler(&rdev->event_handler);
	rt_sample_stop(rdev);
	rt_notify_dev(rdev, ROCETUNE_EVENT_DEV_DEL, NULL);

	/* The hw_stats came from the driver: back to it while it exists. */
	mutex_lock(&rdev->lock);
	for (i = 0; i < rdev->nports; i++)
		rt_counters_fini(&rdev->ports[i]);
	mutex_unlock(&rdev->lock);
	rt_dev_name(rdev, name);
	pr_info("%s: removed\n", name);
	rt_dev_put(rdev);
}

/**
 * rt_dev_rename - follow a device rename (the RDMA client's rename callback)
 * @rdev: the device, whose ib_device has its new name already
 *
 * Takes rt_devs_lock and the name's spinlock only: the core calls this
 * with its device list locked, which must never wait for hardware I/O.
 */
void rt_dev_rename(struct rt_dev *rdev)
{
	const char *new = dev_name(&rdev->ibdev->dev);
	char old[IB_DEVICE_NAME_MAX];

	mutex_lock(&rt_devs_lock);
	spin_lock(&rdev->name_lock);
	strscpy(old, rdev->name, sizeof(old));
	strscpy(rdev->name, new, sizeof(rdev->name));
	spin_unlock(&rdev->name_lock);
	rt_devs_changed();
	mutex_unlock(&rt_devs_lock);
	rt_notify_dev(rdev, ROCETUNE_EVENT_DEV_RENAME, old);
	pr_info("%s: renamed from %s\n", new, old);
	rt_qp_dev_rename(rdev->ibdev);
}
