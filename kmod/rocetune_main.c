// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: RoCE congestion visibility.
 *
 * Module core: registers an RDMA client and keeps one rt_dev per RDMA
 * device that has at least one RoCE port.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "rocetune.h"

static struct ib_client rt_ib_client;

static unsigned int rt_count_roce_ports(struct ib_device *ibdev)
{
	unsigned int n = 0;
	u32 port;

	rdma_for_each_port(ibdev, port)
		if (rdma_protocol_roce(ibdev, port))
			n++;
	return n;
}

static int rt_ib_add(struct ib_device *ibdev)
{
	unsigned int nports = rt_count_roce_ports(ibdev);
	struct rt_dev *rdev;

	if (!nports)
		return -EOPNOTSUPP;

	rdev = kzalloc(sizeof(*rdev), GFP_KERNEL);
	if (!rdev)
		return -ENOMEM;
	rdev->ibdev = ibdev;
	rdev->nports = nports;

	/* Non-NULL client data is also what makes the core call .rename. */
	ib_set_client_data(ibdev, &rt_ib_client, rdev);
	pr_info("%s: tracking, %u RoCE port(s)\n", dev_name(&ibdev->dev),
		nports);
	return 0;
}

static void rt_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct rt_dev *rdev = client_data;

	pr_info("%s: removed\n", dev_name(&ibdev->dev));
	kfree(rdev);
}

static void rt_ib_rename(struct ib_device *ibdev, void *client_data)
{
	pr_info("%s: renamed\n", dev_name(&ibdev->dev));
}

static struct ib_client rt_ib_client = {
	.name = "rocetune",
	.add = rt_ib_add,
	.remove = rt_ib_remove,
	.rename = rt_ib_rename,
	/* Devices without kernel verbs carry RoCE ports too. */
	.no_kverbs_req = 1,
};

static int __init rt_init(void)
{
	int err;

	err = ib_register_client(&rt_ib_client);
	if (err) {
		pr_err("cannot register RDMA client: %d\n", err);
		return err;
	}
	pr_info("version %s loaded\n", ROCETUNE_VERSION);
	return 0;
}

static void __exit rt_exit(void)
{
	ib_unregister_client(&rt_ib_client);
	pr_info("unloaded\n");
}

module_init(rt_init);
module_exit(rt_exit);

MODULE_AUTHOR("rocetune developers");
MODULE_DESCRIPTION("RoCE congestion visibility: ECN, CNP and PFC counters");
MODULE_LICENSE("GPL");
MODULE_VERSION(ROCETUNE_VERSION);
