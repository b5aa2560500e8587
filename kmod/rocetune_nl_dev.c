// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: DEV_GET, the RDMA devices with RoCE ports.
 *
 * A "do" names one device, a dump lists every device the caller's
 * network namespace may see.  The device's attributes are put by
 * rt_nl_put_dev() (rocetune_nl_event.c), as the device events carry them.
 */

#include "rocetune_nlmsg.h"

const struct nla_policy rt_nl_dev_get_policy[ROCETUNE_A_DEV_NAME + 1] = {
	RT_POLICY_DEV,
};

static size_t rt_nl_dev_reply_size(const struct rt_nl_req *req)
{
	return rt_nl_dev_size();
}

static int rt_nl_dev_fill(struct sk_buff *skb, const struct rt_nl_req *req)
{
	return rt_nl_put_dev(skb, req->rdev);
}

const struct rt_nl_request_ops rt_nl_dev_request_ops = {
	.cmd = ROCETUNE_CMD_DEV_GET,
	.dev = RT_NL_DEV_REQUIRED,
	.reply_size = rt_nl_dev_reply_size,
	.fill = rt_nl_dev_fill,
};
