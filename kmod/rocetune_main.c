// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: RoCE congestion visibility.
 *
 * Module init and exit, the top of its layers (Documentation/design.rst):
 * registers an RDMA client that keeps one rt_dev per RDMA device with at
 * least one RoCE port, and the "rocetune" generic netlink family that
 * reports them.  The ground floor is rocetune_core.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <rdma/ib_verbs.h>

#include "rocetune.h"
#include "rocetune_qp.h"

static struct ib_client rt_ib_client;

static int rt_ib_add(struct ib_device *ibdev)
{
	return rt_dev_add(ibdev, &rt_ib_client);
}

static void rt_ib_remove(struct ib_device *ibdev, void *client_data)
{
	rt_dev_remove(client_data);
}

static void rt_ib_rename(struct ib_device *ibdev, void *client_data)
{
	rt_dev_rename(client_data);
}

static struct ib_client rt_ib_client = {
	.name = "rocetune",
	.add = rt_ib_add,
	.remove = rt_ib_remove,
	.rename = rt_ib_rename,
	/* Devices without kernel verbs carry RoCE ports too. */
	.no_kverbs_req = 1,
};

/*
 * The client comes first so that the family never reports a device that is
 * not tracked yet; exit is the exact reverse: the family goes first, so no
 * request or event uses a device while the client tears them down, and
 * ib_unregister_client() returns only when no callback runs any more.
 */
static int __init rt_init(void)
{
	int err;

	err = rt_qpdev_init();
	if (err) {
		pr_err("cannot set up QP accounting: %d\n", err);
		return err;
	}
	err = ib_register_client(&rt_ib_client);
	if (err) {
		pr_err("cannot register RDMA client: %d\n", err);
		goto err_qp;
	}
	err = rt_nl_init();
	if (err) {
		pr_err("cannot register generic netlink family: %d\n", err);
		goto err_client;
	}
	pr_info("version %s loaded\n", ROCETUNE_VERSION);
	return 0;

err_client:
	ib_unregister_client(&rt_ib_client);
err_qp:
	rt_qpdev_fini();
	return err;
}

static void __exit rt_exit(void)
{
	rt_nl_fini();
	ib_unregister_client(&rt_ib_client);
	rt_qpdev_fini();
	pr_info("unloaded\n");
}

module_init(rt_init);
module_exit(rt_exit);

MODULE_AUTHOR("rocetune developers");
MODULE_DESCRIPTION("RoCE congestion visibility: ECN, CNP and PFC counters");
MODULE_LICENSE("GPL");
MODULE_VERSION(ROCETUNE_VERSION);
MODULE_ALIAS_GENL_FAMILY(ROCETUNE_FAMILY_NAME);
