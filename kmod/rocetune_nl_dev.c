// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: DEV_GET, the RDMA devices with RoCE ports.
 *
 * A "do" names one device, a dump lists every device the caller's
 * network namespace may see.  The device's attributes are also those of
 * the device events (rocetune_nl_event.c), and its identity opens the
 * replies of the port and configuration messages.
 */

#include "rocetune_nlmsg.h"

const struct nla_policy rt_nl_dev_get_policy[ROCETUNE_A_DEV_NAME + 1] = {
	RT_POLICY_DEV,
};

/**
 * rt_nl_put_dev_id - put a device's index and name
 * @skb: the message
 * @rdev: the device
 *
 * Return: 0 or -EMSGSIZE.
 */
int rt_nl_put_dev_id(struct sk_buff *skb, struct rt_dev *rdev)
{
	char name[IB_DEVICE_NAME_MAX];

	rt_dev_name(rdev, name);
	if (nla_put_u32(skb, ROCETUNE_A_DEV_INDEX, rdev->index) ||
	    nla_put_string(skb, ROCETUNE_A_DEV_NAME, name))
		return -EMSGSIZE;
	return 0;
}

/**
 * rt_nl_dev_size - upper bound of what rt_nl_put_dev() puts
 *
 * Return: the size in bytes; it also bounds rt_nl_put_dev_id().
 */
size_t rt_nl_dev_size(void)
{
	return nla_total_size(sizeof(u32)) +		/* DEV_INDEX */
	       nla_total_size(IB_DEVICE_NAME_MAX) +	/* DEV_NAME */
	       nla_total_size(MODULE_NAME_LEN) +	/* DEV_DRIVER */
	       nla_total_size(sizeof(u32));		/* DEV_NUM_PORTS */
}

/**
 * rt_nl_put_dev - put a device's attributes
 * @skb: the message
 * @rdev: the device
 *
 * Return: 0 or -EMSGSIZE.
 */
int rt_nl_put_dev(struct sk_buff *skb, struct rt_dev *rdev)
{
	if (rt_nl_put_dev_id(skb, rdev) ||
	    nla_put_string(skb, ROCETUNE_A_DEV_DRIVER, rdev->driver) ||
	    nla_put_u32(skb, ROCETUNE_A_DEV_NUM_PORTS, rdev->nports))
		return -EMSGSIZE;
	return 0;
}

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
