// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: the "rocetune" generic netlink family and its request path.
 *
 * The family's ops table, and the one path that DEV_GET, PORT_GET,
 * CONFIG_GET and CONFIG_SET take (rocetune_nlmsg.h): the request is
 * validated strictly by its command's policy, then by the message;
 * the device it names is found, referenced and locked (no global lock
 * is held across its I/O); the message prepares, sizes and fills its
 * reply.  A dump walks the devices by index with a cursor that resumes
 * where the previous pass stopped.  A device is visible only from the
 * network namespaces that may access it (rdma_dev_access_netns()).  The
 * QP commands have handlers of their own (rocetune_qp_nl.c): their
 * objects are the QP table's.
 */

#include <net/net_namespace.h>

#include "rocetune_nlmsg.h"
#include "rocetune_qp.h"

/* The messages on the generic path, by command. */
static const struct rt_nl_request_ops *const rt_nl_requests[] = {
	[ROCETUNE_CMD_DEV_GET] = &rt_nl_dev_request_ops,
	[ROCETUNE_CMD_PORT_GET] = &rt_nl_port_request_ops,
	[ROCETUNE_CMD_CONFIG_GET] = &rt_nl_config_get_request_ops,
	[ROCETUNE_CMD_CONFIG_SET] = &rt_nl_config_set_request_ops,
};

/* Dump cursor, in cb->ctx. */
struct rt_dump_ctx {
	bool started;		/* the filter is resolved */
	bool filtered;		/* only the device @dev_index */
	bool done;		/* the last possible index was sent */
	u32 dev_index;
	u32 next_dev;		/* resume at this device index ... */
	u32 next_port;		/* ... and this port (array index) */
};

static struct rt_dump_ctx *rt_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct rt_dump_ctx) > sizeof(cb->ctx));
	return (struct rt_dump_ctx *)cb->ctx;
}

static struct nlattr **rt_dump_attrs(struct netlink_callback *cb)
{
#ifdef RT_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/* The message of a command that the ops table sends down this path. */
static const struct rt_nl_request_ops *rt_nl_request(u8 cmd)
{
	if (WARN_ON_ONCE(cmd >= ARRAY_SIZE(rt_nl_requests) ||
			 !rt_nl_requests[cmd]))
		return NULL;
	return rt_nl_requests[cmd];
}

/* Device lookup -------------------------------------------------------- */

/*
 * The device named by DEV_INDEX and/or DEV_NAME (both must agree), if @net
 * may see it, referenced and locked: rt_nl_dev_done() it.  No global lock
 * is held on return, so the caller may do I/O on the device.
 * Return: the device, NULL when neither attribute is there, or an ERR_PTR
 * with extack set.
 */
static struct rt_dev *rt_nl_dev(struct net *net, struct nlattr **tb,
				struct netlink_ext_ack *extack)
{
	struct nlattr *a_idx = tb[ROCETUNE_A_DEV_INDEX];
	struct nlattr *a_name = tb[ROCETUNE_A_DEV_NAME];
	struct rt_dev *rdev;

	if (!a_idx && !a_name)
		return NULL;
	rdev = rt_dev_find(a_idx ? nla_get_u32(a_idx) : 0,
			   a_name ? nla_data(a_name) : NULL);
	if (rdev) {
		mutex_lock(&rdev->lock);
		if (!rt_dev_visible(rdev, net)) {
			mutex_unlock(&rdev->lock);
			rt_dev_put(rdev);
			rdev = NULL;
		}
	}
	if (!rdev) {
		NL_SET_ERR_MSG_ATTR(extack, a_name ?: a_idx,
				    "no RDMA device with RoCE ports by this name or index");
		return ERR_PTR(-ENODEV);
	}
	if (a_idx && a_name && rdev->index != nla_get_u32(a_idx)) {
		mutex_unlock(&rdev->lock);
		rt_dev_put(rdev);
		NL_SET_ERR_MSG_ATTR(extack, a_idx,
				    "device index and name refer to different devices");
		return ERR_PTR(-EINVAL);
	}
	return rdev;
}

/* Unlock and put a device that rt_nl_dev() returned. */
static void rt_nl_dev_done(struct rt_dev *rdev)
{
	mutex_unlock(&rdev->lock);
	rt_dev_put(rdev);
}

/*
 * The device filter of a dump is resolved in its first pass, not in a
 * .start callback: 6.1 gives .start no extack, while every kernel sends
 * the extack of a failed pass with NLMSG_DONE.  Takes rt_devs_lock.
 */
static int rt_dump_begin(struct netlink_callback *cb)
{
	struct rt_dump_ctx *ctx = rt_dump_ctx(cb);
	struct rt_dev *rdev;

	if (ctx->started)
		return 0;
	ctx->started = true;
	rdev = rt_nl_dev(sock_net(cb->skb->sk), rt_dump_attrs(cb), cb->extack);
	if (IS_ERR(rdev))
		return PTR_ERR(rdev);
	if (rdev) {
		ctx->filtered = true;
		ctx->dev_index = rdev->index;
		ctx->next_dev = rdev->index;
		rt_nl_dev_done(rdev);
	}
	return 0;
}

/*
 * The next device of a dump from the cursor on, referenced and locked
 * (rt_nl_dev_done() it), or NULL at the end.  Sets cb->seq to the version
 * of the devices; no lock is held between two devices.
 */
static struct rt_dev *rt_dump_next(struct netlink_callback *cb, u32 *index)
{
	struct rt_dump_ctx *ctx = rt_dump_ctx(cb);
	struct net *net = sock_net(cb->skb->sk);
	struct rt_dev *rdev;
	unsigned int seq;

	for (;;) {
		rdev = rt_dev_next(index, &seq);
		if (!rdev)
			return NULL;
		cb->seq = seq;
		if (ctx->filtered && *index != ctx->dev_index) {
			rt_dev_put(rdev);
			return NULL;
		}
		mutex_lock(&rdev->lock);
		if (rt_dev_visible(rdev, net))
			return rdev;
		rt_nl_dev_done(rdev);
		if (*index == U32_MAX)
			return NULL;
		++*index;
	}
}

/* Return of a dump pass: a partial skb is sent, an empty one is an error. */
static int rt_dump_ret(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/* The request path ------------------------------------------------------ */

/*
 * Validate a request and find its device: the first steps of every
 * request.  On success, rt_nl_req_end() it.
 */
static int rt_nl_req_begin(struct rt_nl_req *req,
			   const struct rt_nl_request_ops *ops)
{
	struct rt_dev *rdev;
	int err;

	if (ops->validate) {
		err = ops->validate(req);
		if (err)
			return err;
	}
	if (!req->dump) {
		rdev = rt_nl_dev(req->net, req->tb, req->extack);
		if (IS_ERR(rdev))
			return PTR_ERR(rdev);
		if (!rdev && ops->dev == RT_NL_DEV_REQUIRED) {
			NL_SET_ERR_MSG(req->extack,
				       "device index or name required");
			return -EINVAL;
		}
		req->rdev = rdev;
	}
	if (ops->data_size) {
		req->data = kzalloc(ops->data_size, GFP_KERNEL);
		if (!req->data) {
			if (req->rdev)
				rt_nl_dev_done(req->rdev);
			return -ENOMEM;
		}
	}
	return 0;
}

static void rt_nl_req_end(struct rt_nl_req *req)
{
	if (req->rdev && !req->dump)
		rt_nl_dev_done(req->rdev);
	kfree(req->data);
}

/* The "do" of every message that answers: prepare, size, fill, reply. */
static int rt_nl_default_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct rt_nl_request_ops *ops = rt_nl_request(info->genlhdr->cmd);
	struct rt_nl_req req = {
		.net = genl_info_net(info),
		.tb = info->attrs,
		.extack = info->extack,
	};
	struct sk_buff *msg;
	void *hdr;
	int err;

	if (!ops)
		return -EOPNOTSUPP;
	err = rt_nl_req_begin(&req, ops);
	if (err)
		return err;
	if (ops->prepare) {
		err = ops->prepare(&req);
		if (err)
			goto out;
	}
	msg = genlmsg_new(ops->reply_size(&req), GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto out;
	}
	hdr = genlmsg_put_reply(msg, info, &rt_genl_family, 0, ops->cmd);
	if (!hdr || ops->fill(msg, &req)) {
		/* The size was an upper bound: this is a bug. */
		WARN_ON_ONCE(1);
		nlmsg_free(msg);
		err = -EMSGSIZE;
		goto out;
	}
	genlmsg_end(msg, hdr);
	rt_nl_req_end(&req);
	return genlmsg_reply(msg, info);

out:
	rt_nl_req_end(&req);
	return err;
}

/* The "do" of every message that changes something. */
static int rt_nl_default_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct rt_nl_request_ops *ops = rt_nl_request(info->genlhdr->cmd);
	struct rt_nl_req req = {
		.net = genl_info_net(info),
		.tb = info->attrs,
		.extack = info->extack,
	};
	int err;

	if (!ops || WARN_ON_ONCE(!ops->set))
		return -EOPNOTSUPP;
	err = rt_nl_req_begin(&req, ops);
	if (err)
		return err;
	err = ops->set(&req);
	rt_nl_req_end(&req);
	return err;
}

/* One reply of a dump; the skb is left as it was when it does not fit. */
static int rt_nl_dump_one(struct sk_buff *skb, struct netlink_callback *cb,
			  const struct rt_nl_request_ops *ops,
			  const struct rt_nl_req *req)
{
	unsigned int off = skb->len;
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &rt_genl_family, NLM_F_MULTI, ops->cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (ops->fill(skb, req)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	rt_dump_check(cb, skb, off);
	return 0;
}

/*
 * The replies of one device, from the cursor on, which each reply
 * advances.  Context: req->rdev locked, visible to the reader.
 */
static int rt_nl_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
			  const struct rt_nl_request_ops *ops,
			  struct rt_nl_req *req)
{
	struct rt_dump_ctx *ctx = rt_dump_ctx(cb);
	struct rt_dev *rdev = req->rdev;
	unsigned int i;
	int err;

	if (ops->data_size)
		memset(req->data, 0, ops->data_size);
	if (ops->prepare) {
		err = ops->prepare(req);
		if (err)
			return err;
	}
	if (!ops->per_port)
		return rt_nl_dump_one(skb, cb, ops, req);
	for (i = ctx->next_port; i < rdev->nports; i++) {
		req->port = &rdev->ports[i];
		err = rt_nl_dump_one(skb, cb, ops, req);
		if (err)
			return err;
		ctx->next_port = i + 1;
	}
	return 0;
}

/* The dump of every message that has one: every device, or the one named. */
static int rt_nl_default_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	const struct genlmsghdr *ghdr = nlmsg_data(cb->nlh);
	const struct rt_nl_request_ops *ops = rt_nl_request(ghdr->cmd);
	struct rt_dump_ctx *ctx = rt_dump_ctx(cb);
	struct rt_nl_req req = {
		.net = sock_net(cb->skb->sk),
		.tb = rt_dump_attrs(cb),
		.extack = cb->extack,
		.dump = true,
	};
	struct rt_dev *rdev;
	u32 index;
	int err;

	if (!ops)
		return -EOPNOTSUPP;
	err = rt_dump_begin(cb);
	if (err || ctx->done)
		return err;
	err = rt_nl_req_begin(&req, ops);
	if (err)
		return err;
	for (index = ctx->next_dev; (rdev = rt_dump_next(cb, &index)); index++) {
		if (index != ctx->next_dev) {
			ctx->next_dev = index;
			ctx->next_port = 0;
		}
		req.rdev = rdev;
		err = rt_nl_dump_dev(skb, cb, ops, &req);
		req.rdev = NULL;
		rt_nl_dev_done(rdev);
		if (err)
			break;
		if (index == U32_MAX) {
			ctx->done = true;
			break;
		}
		ctx->next_dev = index + 1;
		ctx->next_port = 0;
	}
	rt_nl_req_end(&req);
	return rt_dump_ret(skb, err);
}

/* Family -------------------------------------------------------------------- */

static const struct genl_ops rt_genl_ops[] = {
	{
		.cmd = ROCETUNE_CMD_DEV_GET,
		.doit = rt_nl_default_doit,
		.dumpit = rt_nl_default_dumpit,
		.policy = rt_nl_dev_get_policy,
		.maxattr = ROCETUNE_A_DEV_NAME,
	},
	{
		.cmd = ROCETUNE_CMD_PORT_GET,
		.doit = rt_nl_default_doit,
		.dumpit = rt_nl_default_dumpit,
		.policy = rt_nl_port_get_policy,
		.maxattr = ROCETUNE_A_PORT_INDEX,
	},
	{
		.cmd = ROCETUNE_CMD_CONFIG_GET,
		.doit = rt_nl_default_doit,
		.policy = rt_nl_config_get_policy,
		.maxattr = ROCETUNE_A_DEV_NAME,
	},
	{
		.cmd = ROCETUNE_CMD_CONFIG_SET,
		.doit = rt_nl_default_set_doit,
		.policy = rt_nl_config_set_policy,
		.maxattr = ROCETUNE_A_ECN_RATE_THRESH,
		/* Host-wide state: CAP_NET_ADMIN in the initial namespace. */
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = ROCETUNE_CMD_QP_GET,
		.doit = rt_qp_get_doit,
		.dumpit = rt_qp_get_dumpit,
		.done = rt_qp_get_done,
		.policy = rt_qp_get_policy,
		.maxattr = RT_QP_GET_MAXATTR,
	},
	{
		.cmd = ROCETUNE_CMD_QP_SET,
		.doit = rt_qp_set_doit,
		.policy = rt_qp_set_policy,
		.maxattr = RT_QP_SET_MAXATTR,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = ROCETUNE_CMD_QP_STATS_GET,
		.doit = rt_qp_stats_doit,
		.dumpit = rt_qp_stats_dumpit,
		.policy = rt_qp_stats_policy,
		.maxattr = RT_QP_STATS_MAXATTR,
	},
};

static const struct genl_multicast_group rt_genl_mcgrps[] = {
	{
		.name = ROCETUNE_MCGRP_EVENTS,
#ifdef GENL_MCAST_CAP_NET_ADMIN
		.flags = GENL_MCAST_CAP_NET_ADMIN,
#endif
	},
};

struct genl_family rt_genl_family __ro_after_init = {
	.name = ROCETUNE_FAMILY_NAME,
	.version = ROCETUNE_FAMILY_VERSION,
	.netnsok = true,
	/* Our own locks serialize; no genl_mutex around the handlers. */
	.parallel_ops = true,
	/* Strict validation from the first command on. */
	.resv_start_op = 0,
	.module = THIS_MODULE,
	.ops = rt_genl_ops,
	.n_ops = ARRAY_SIZE(rt_genl_ops),
	.mcgrps = rt_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(rt_genl_mcgrps),
};

/**
 * rt_nl_init - register the generic netlink family
 *
 * Return: 0 or a negative errno.
 */
int __init rt_nl_init(void)
{
	int err;

	/* The QP handlers put their headers with it from the first request. */
	err = genl_register_family(&rt_genl_family);
	if (err)
		return err;
	rt_nl_events_start();
	return 0;
}

/**
 * rt_nl_fini - unregister the generic netlink family
 */
void rt_nl_fini(void)
{
	rt_nl_events_stop();
	genl_unregister_family(&rt_genl_family);
}
