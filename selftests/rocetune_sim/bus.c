// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune_sim bus: devices are created and destroyed at run time through
 * /sys/bus/rocetune_sim/new_device ("ID PERSONALITY") and del_device
 * ("ID").  Each is a real device on the bus, so that its uevents, and
 * those of its netdev and RDMA device, reach udev.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "rsim.h"

static LIST_HEAD(rsim_devs);
static DEFINE_MUTEX(rsim_devs_lock);	/* rsim_devs, rsim_bus_enabled */
static bool rsim_bus_enabled;

static struct bus_type rsim_bus;

static void rsim_dev_release(struct device *dev)
{
	struct rsim_dev *rsim = container_of(dev, struct rsim_dev, dev);

	mutex_destroy(&rsim->cc_lock);
	kfree(rsim);
}

static ssize_t personality_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct rsim_dev *rsim = container_of(dev, struct rsim_dev, dev);

	return sysfs_emit(buf, "%s\n", rsim->info->name);
}
static DEVICE_ATTR_RO(personality);

static struct attribute *rsim_dev_attrs[] = {
	&dev_attr_personality.attr,
	NULL,
};
ATTRIBUTE_GROUPS(rsim_dev);

static const struct device_type rsim_dev_type = {
	.groups = rsim_dev_groups,
	.release = rsim_dev_release,
};

static struct rsim_dev *rsim_dev_find(u32 id)
{
	struct rsim_dev *rsim;

	list_for_each_entry(rsim, &rsim_devs, list)
		if (rsim->id == id)
			return rsim;
	return NULL;
}

static int rsim_dev_new(u32 id, unsigned int info)
{
	struct rsim_dev *rsim;
	int err;

	rsim = kzalloc(sizeof(*rsim), GFP_KERNEL);
	if (!rsim)
		return -ENOMEM;
	rsim->id = id;
	rsim->info = &rsim_personalities[info];
	rsim->pers = rsim->info->pers;
	spin_lock_init(&rsim->stats_lock);
	mutex_init(&rsim->cc_lock);
	atomic_set(&rsim->fail_next_set, 0);
	atomic64_set(&rsim->set_count, 0);
	spin_lock_init(&rsim->set_lock);
	rsim->ignore_set_skip = -1;
	atomic_set(&rsim->link_flaps, 0);
	rsim->pfc_link_flap = rsim->info->pfc_link_flap;
	rsim->num_cnt = RSIM_C_HW + rsim->info->num_hw;
	rsim_dcb_init(rsim);

	rsim->dev.bus = &rsim_bus;
	rsim->dev.type = &rsim_dev_type;
	rsim->dev.id = id;
	dev_set_name(&rsim->dev, RSIM_DRV_NAME "%u", id);
	err = device_register(&rsim->dev);
	if (err)
		goto err_put_dev;

	err = rsim_netdev_init(rsim);
	if (err)
		goto err_unregister_dev;
	err = rsim_ib_init(rsim);
	if (err)
		goto err_netdev_exit;
	err = rsim_dev_debugfs_init(rsim);
	if (err)
		goto err_ib_exit;

	list_add_tail(&rsim->list, &rsim_devs);
	return 0;

err_ib_exit:
	rsim_ib_exit(rsim);
err_netdev_exit:
	rsim_netdev_exit(rsim);
err_unregister_dev:
	device_unregister(&rsim->dev);
	return err;
err_put_dev:
	put_device(&rsim->dev);
	return err;
}

static void rsim_dev_del(struct rsim_dev *rsim)
{
	list_del(&rsim->list);
	rsim_dev_debugfs_exit(rsim);
	rsim_ib_exit(rsim);
	rsim_netdev_exit(rsim);
	device_unregister(&rsim->dev);
}

static int rsim_parse_personality(const char *s)
{
	int i;

	for (i = 0; i < RSIM_NUM_INFOS; i++)
		if (!strcmp(s, rsim_personalities[i].name))
			return i;
	return -EINVAL;
}

static ssize_t rsim_new_device(const char *buf, size_t count)
{
	char pname[16];
	int pers, n, err;
	u32 id;

	n = sscanf(buf, "%u %15s", &id, pname);
	if (n < 1)
		return -EINVAL;
	if (n == 1)
		strscpy(pname, "mlx5", sizeof(pname));
	pers = rsim_parse_personality(pname);
	if (pers < 0)
		return pers;

	mutex_lock(&rsim_devs_lock);
	if (!rsim_bus_enabled) {
		err = -EBUSY;
		goto out;
	}
	if (rsim_dev_find(id)) {
		err = -EEXIST;
		goto out;
	}
	err = rsim_dev_new(id, pers);
out:
	mutex_unlock(&rsim_devs_lock);
	return err ? err : count;
}

static ssize_t rsim_del_device(const char *buf, size_t count)
{
	struct rsim_dev *rsim;
	int err = 0;
	u32 id;

	if (kstrtou32(buf, 0, &id))
		return -EINVAL;

	mutex_lock(&rsim_devs_lock);
	rsim = rsim_bus_enabled ? rsim_dev_find(id) : NULL;
	if (rsim)
		rsim_dev_del(rsim);
	else
		err = -ENOENT;
	mutex_unlock(&rsim_devs_lock);
	return err ? err : count;
}

static ssize_t new_device_store(RSIM_CONST_BUS struct bus_type *bus,
				const char *buf, size_t count)
{
	return rsim_new_device(buf, count);
}
static BUS_ATTR_WO(new_device);

static ssize_t del_device_store(RSIM_CONST_BUS struct bus_type *bus,
				const char *buf, size_t count)
{
	return rsim_del_device(buf, count);
}
static BUS_ATTR_WO(del_device);

static struct attribute *rsim_bus_attrs[] = {
	&bus_attr_new_device.attr,
	&bus_attr_del_device.attr,
	NULL,
};
ATTRIBUTE_GROUPS(rsim_bus);

static struct bus_type rsim_bus = {
	.name = RSIM_DRV_NAME,
	.bus_groups = rsim_bus_groups,
};

static int __init rsim_init(void)
{
	int err;

	rsim_counters_init();
	err = rsim_debugfs_init();
	if (err)
		return err;
	err = bus_register(&rsim_bus);
	if (err)
		goto err_debugfs_exit;

	mutex_lock(&rsim_devs_lock);
	rsim_bus_enabled = true;
	mutex_unlock(&rsim_devs_lock);
	return 0;

err_debugfs_exit:
	rsim_debugfs_exit();
	return err;
}

static void __exit rsim_exit(void)
{
	struct rsim_dev *rsim, *tmp;

	mutex_lock(&rsim_devs_lock);
	rsim_bus_enabled = false;
	list_for_each_entry_safe(rsim, tmp, &rsim_devs, list)
		rsim_dev_del(rsim);
	mutex_unlock(&rsim_devs_lock);

	bus_unregister(&rsim_bus);
	rsim_debugfs_exit();
}

module_init(rsim_init);
module_exit(rsim_exit);

MODULE_DESCRIPTION("rocetune test driver: simulated DCB-capable RoCE NIC");
MODULE_LICENSE("GPL");
MODULE_INFO(test, "Y");
