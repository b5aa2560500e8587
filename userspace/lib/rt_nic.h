/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: the RoCE NICs of this host, as the apply
 * path sees them.
 *
 * A NIC is the Ethernet netdev of a RoCE port of an RDMA device
 * (/sys/class/infiniband/DEV/ports/N with link layer Ethernet; its netdev
 * is the one of the port's default GID).  It is found through sysfs, so
 * tuning works whether or not rocetune.ko is loaded.  The DCQCN backend of
 * a NIC is chosen by the files its driver exposes (mlx5 cc_params, bnxt_re
 * cc_config under debugfs, keyed by the bus-info "ethtool -i" reports);
 * software RoCE (rxe: a "parent" netdev, node type CA) gets rocetune.ko's
 * notification and reaction points, whether or not the module is loaded
 * yet; other NICs get none, explained by their driver's name.
 */
#ifndef RT_NIC_H
#define RT_NIC_H

#include <stddef.h>
#include <stdint.h>

#include "rt_profile.h"


enum rt_cc_vendor {
	RT_CC_NONE,		/* no DCQCN interface: @cc_why says why */
	RT_CC_MLX5,		/* debugfs mlx5/BUS/cc_params/ */
	RT_CC_BNXT_RE,		/* debugfs bnxt_re/BUS/cc_config/ */
	RT_CC_RXE,		/* rocetune.ko QP_SET of the RDMA device */
};

struct rt_nic {
	struct rt_nic_id id;		/* netdev, driver, rdma_dev, bus_info */
	uint32_t port;			/* port of the RDMA device */
	int ifindex;
	enum rt_cc_vendor cc;
	char cc_dir[512];		/* the cc parameter directory, or "" */
	char cc_why[256];		/* RT_CC_NONE: the reason, for errors */
};

/* rt_sysfs_root() - $ROCETUNE_SYSFS when set, else /sys. */
const char *rt_sysfs_root(void);

/*
 * rt_nic_list() - every RoCE NIC, sorted by netdev name, one per netdev,
 * however many: *@nics is allocated (free() it; NULL when there is none).
 * Returns the number found or a negative errno with @msg.
 */
int rt_nic_list(struct rt_nic **nics, char *msg, size_t len);

/*
 * rt_nic_lookup() - the RoCE NIC whose netdev is @netdev.  -ENODEV with a
 * message when there is no such netdev, or when it carries no RoCE port.
 */
int rt_nic_lookup(const char *netdev, struct rt_nic *nic, char *msg,
		  size_t len);

#endif /* RT_NIC_H */
