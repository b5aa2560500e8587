/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune user-space library: the real backend of struct rt_backend_ops,
 * DCB netlink, ethtool, vendor cc files and rocetune.ko (rt_sysio.c).
 */
#ifndef RT_SYSIO_H
#define RT_SYSIO_H

#include "rt_setting.h"

/* Its context is a struct rt_sys_ctx, zeroed before the first use. */
extern const struct rt_backend_ops rt_backend_sys;

struct rt_dcb;

struct rt_sys_ctx {
	struct rt_dcb *dcb;		/* opened on first use */
};

void rt_sys_ctx_close(struct rt_sys_ctx *ctx);

#endif /* RT_SYSIO_H */
