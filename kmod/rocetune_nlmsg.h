/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune: the messages of the netlink layer.
 *
 * DEV_GET, PORT_GET, CONFIG_GET and CONFIG_SET take one generic request
 * path of the family (rocetune_nl.c):
 *
 *	validate -> find the device -> prepare -> size -> fill
 *
 * for a "do", once per device (and per port, for a per-port message) for
 * a dump, and validate -> find the device -> set for a change.  Each
 * message lives in a file of its own (rocetune_nl_MSG.c) and gives the
 * path a struct rt_nl_request_ops; it never sees a genl_info, a dump
 * cursor or the family.  The events' sender is rocetune_nl_event.c, which
 * also puts the device's and the port's identity for every message.
 */

#ifndef _ROCETUNE_NLMSG_H
#define _ROCETUNE_NLMSG_H

#include "rocetune.h"

/**
 * struct rt_nl_req - one request (or one object of a dump) on its way
 * @net: the caller's network namespace
 * @tb: the request's attributes, validated by the policy
 * @extack: where errors are explained
 * @rdev: the device the request names (a dump: the one being filled),
 *	referenced and with its lock held; NULL for a request of the host
 *	(CONFIG_GET/SET without a device)
 * @port: the port being filled, for a per-port message
 * @dump: part of a dump rather than a "do"
 * @data: the message's own ops->data_size bytes, zeroed for each request
 *	(a dump: each device), for what prepare gathers and fill sends
 */
struct rt_nl_req {
	struct net *net;
	struct nlattr **tb;
	struct netlink_ext_ack *extack;
	struct rt_dev *rdev;
	struct rt_port *port;
	bool dump;
	void *data;
};

/* What a request must name: struct rt_nl_request_ops.dev */
enum rt_nl_dev_need {
	RT_NL_DEV_REQUIRED,	/* a device ("do"); a dump may filter by one */
	RT_NL_DEV_OPTIONAL,	/* a device or, without one, the host */
};

/**
 * struct rt_nl_request_ops - one message on the generic request path
 * @cmd: the command, which the reply also carries
 * @dev: enum rt_nl_dev_need
 * @per_port: a dump sends one reply per RoCE port rather than per device
 * @data_size: size of struct rt_nl_req.data
 * @validate: optional; checks the attributes before any lookup
 * @prepare: optional; gathers the reply (it may do the device's I/O:
 *	only that device's lock is held) and, for a "do" of a per-port
 *	message, sets req->port
 * @reply_size: upper bound of the reply's attributes
 * @fill: puts the reply's attributes; the header is the path's
 * @set: a change (CONFIG_SET); no reply is sent
 *
 * Each callback returns 0 or a negative errno with req->extack set, except
 * @fill, which returns -EMSGSIZE only when the message is full.
 */
struct rt_nl_request_ops {
	u8 cmd;
	u8 dev;
	bool per_port;
	unsigned int data_size;
	int (*validate)(struct rt_nl_req *req);
	int (*prepare)(struct rt_nl_req *req);
	size_t (*reply_size)(const struct rt_nl_req *req);
	int (*fill)(struct sk_buff *skb, const struct rt_nl_req *req);
	int (*set)(struct rt_nl_req *req);
};

/* rocetune_nl_dev.c */
extern const struct rt_nl_request_ops rt_nl_dev_request_ops;
extern const struct nla_policy rt_nl_dev_get_policy[ROCETUNE_A_DEV_NAME + 1];

/* rocetune_nl_port.c */
extern const struct rt_nl_request_ops rt_nl_port_request_ops;
extern const struct nla_policy
rt_nl_port_get_policy[ROCETUNE_A_PORT_INDEX + 1];

/* rocetune_nl_config.c */
extern const struct rt_nl_request_ops rt_nl_config_get_request_ops;
extern const struct rt_nl_request_ops rt_nl_config_set_request_ops;
extern const struct nla_policy
rt_nl_config_get_policy[ROCETUNE_A_DEV_NAME + 1];
extern const struct nla_policy
rt_nl_config_set_policy[ROCETUNE_A_ECN_RATE_THRESH + 1];

/* rocetune_nl_event.c */
int rt_nl_put_dev_id(struct sk_buff *skb, struct rt_dev *rdev);
size_t rt_nl_dev_size(void);
int rt_nl_put_dev(struct sk_buff *skb, struct rt_dev *rdev);
int rt_nl_put_port_id(struct sk_buff *skb, struct rt_dev *rdev,
		      const struct rt_port *p, u64 cookie);
void rt_nl_events_start(void);
void rt_nl_events_stop(void);

#endif /* _ROCETUNE_NLMSG_H */
