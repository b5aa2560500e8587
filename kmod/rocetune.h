/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune: private declarations shared by the module's files.
 */
#ifndef _ROCETUNE_H
#define _ROCETUNE_H

#include <rdma/ib_verbs.h>

/**
 * struct rt_dev - one tracked RDMA device
 * @ibdev: the device; valid from the client's add to its remove callback
 * @nports: number of RoCE ports of @ibdev
 */
struct rt_dev {
	struct ib_device *ibdev;
	unsigned int nports;
};

#endif /* _ROCETUNE_H */
