// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: the events, multicast to the "events" group.
 *
 * The core hands every device and port event to rt_nl_event(), which
 * sends it while the family is registered.  An event goes to each network
 * namespace that may see the device, and a port's netdev is named only in
 * the netdev's own namespace.  The device's and the port's identity
 * (rt_nl_put_dev(), rt_nl_put_port_id()) are put here for the replies too,
 * so that this file, below every one that raises an event, calls none of
 * the module's others.
 */

#include <net/net_namespace.h>

#include "rocetune_nlmsg.h"

/* True while the family is registered: senders check it under RCU. */
static bool rt_nl_live;

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

/**
 * rt_nl_put_port_id - put a port's identity, state and netdev
 * @skb: the message
 * @rdev: the device
 * @p: its port
 * @cookie: net_cookie of the reader's network namespace (0: no reader is)
 *
 * For PORT_GET and the port events.  A netdev is named (ifindex and name)
 * only to a reader in its own network namespace, as the RDMA core's
 * netlink does.
 *
 * Return: 0 or -EMSGSIZE.
 */
int rt_nl_put_port_id(struct sk_buff *skb, struct rt_dev *rdev,
		      const struct rt_port *p, u64 cookie)
{
	if (rt_nl_put_dev_id(skb, rdev) ||
	    nla_put_u32(skb, ROCETUNE_A_PORT_INDEX, p->port) ||
	    nla_put_u8(skb, ROCETUNE_A_PORT_STATE, p->state))
		return -EMSGSIZE;
	if (!cookie)
		return 0;
	if (p->ifindex && p->net_cookie == cookie &&
	    (nla_put_u32(skb, ROCETUNE_A_PORT_NETDEV_IFINDEX, p->ifindex) ||
	     nla_put_string(skb, ROCETUNE_A_PORT_NETDEV_NAME, p->ifname)))
		return -EMSGSIZE;
	if (p->lower_ifindex && p->lower_net_cookie == cookie &&
	    (nla_put_u32(skb, ROCETUNE_A_PORT_LOWER_IFINDEX, p->lower_ifindex) ||
	     nla_put_string(skb, ROCETUNE_A_PORT_LOWER_NAME, p->lower_name)))
		return -EMSGSIZE;
	return 0;
}

/*
 * Send to every namespace that may see @ibdev: @own to the one whose
 * net_cookie is @cookie, @other (when not NULL) to the others; consumes
 * both.
 */
static void rt_nl_send_event(struct ib_device *ibdev, struct sk_buff *own,
			     struct sk_buff *other, u64 cookie)
{
	struct sk_buff *clone, *skb;
	struct net *net;

	rcu_read_lock();
	if (!READ_ONCE(rt_nl_live))
		goto out;
	for_each_net_rcu(net) {
		if (!rdma_dev_access_netns(ibdev, net) ||
		    !genl_has_listeners(&rt_genl_family, net, 0))
			continue;
		skb = other && net->net_cookie != cookie ? other : own;
		clone = skb_clone(skb, GFP_ATOMIC);
		if (!clone)
			break;
		genlmsg_multicast_netns(&rt_genl_family, net, clone, 0, 0,
					GFP_ATOMIC);
	}
out:
	rcu_read_unlock();
	nlmsg_free(own);
	nlmsg_free(other);
}

static struct sk_buff *rt_event_new(u32 type, void **hdr)
{
	struct sk_buff *skb;

	if (!READ_ONCE(rt_nl_live))
		return NULL;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	*hdr = genlmsg_put(skb, 0, 0, &rt_genl_family, 0, ROCETUNE_CMD_EVENT);
	if (!*hdr ||
	    nla_put_u32(skb, ROCETUNE_A_EVENT_TYPE, type) ||
	    nla_put_u64_64bit(skb, ROCETUNE_A_EVENT_TIME_NS, ktime_get_ns(),
			      ROCETUNE_A_PAD)) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

/* A device event; see rt_notify_dev() for its context. */
static void rt_nl_send_dev(const struct rt_event *ev)
{
	struct rt_dev *rdev = ev->rdev;
	struct sk_buff *skb;
	void *hdr;

	skb = rt_event_new(ev->type, &hdr);
	if (!skb)
		return;
	if (rt_nl_put_dev(skb, rdev) ||
	    (ev->old_name &&
	     nla_put_string(skb, ROCETUNE_A_DEV_OLD_NAME, ev->old_name))) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	rt_nl_send_event(rdev->ibdev, skb, NULL, 0);
}

/*
 * One port event, to readers in the network namespace whose net_cookie is
 * @cookie (0: all others; see rt_nl_put_port_id()).
 */
static struct sk_buff *rt_port_event_new(const struct rt_event *ev,
					 u64 cookie)
{
	bool storm = ev->type == ROCETUNE_EVENT_STORM_START ||
		     ev->type == ROCETUNE_EVENT_STORM_END;
	bool crossing = ev->type >= ROCETUNE_EVENT_STORM_START;
	struct sk_buff *skb;
	void *hdr;

	skb = rt_event_new(ev->type, &hdr);
	if (!skb)
		return NULL;
	if (rt_nl_put_port_id(skb, ev->rdev, ev->p, cookie) ||
	    (ev->prio >= 0 &&
	     nla_put_u8(skb, ROCETUNE_A_EVENT_PRIO, ev->prio)) ||
	    (crossing &&
	     (nla_put_u64_64bit(skb, ROCETUNE_A_EVENT_VALUE, ev->value,
				ROCETUNE_A_PAD) ||
	      nla_put_u64_64bit(skb, ROCETUNE_A_EVENT_THRESH, ev->thresh,
				ROCETUNE_A_PAD))) ||
	    (storm &&
	     nla_put_u64_64bit(skb, ROCETUNE_A_EVENT_DURATION_MS,
			       ev->duration_ms, ROCETUNE_A_PAD))) {
		nlmsg_free(skb);
		return NULL;
	}
	genlmsg_end(skb, hdr);
	return skb;
}

/* A port event; see rt_notify_port() for its context. */
static void rt_nl_send_port(const struct rt_event *ev)
{
	struct sk_buff *own, *other = NULL;
	struct rt_port *p = ev->p;

	/* The netdev's namespace is told its name, the others are not. */
	own = rt_port_event_new(ev, p->net_cookie);
	if (!own)
		return;
	if (p->ifindex || p->lower_ifindex) {
		other = rt_port_event_new(ev, 0);
		if (!other) {
			nlmsg_free(own);
			return;
		}
	}
	rt_nl_send_event(ev->rdev->ibdev, own, other, p->net_cookie);
}

/**
 * rt_nl_event - send an event to the "events" group
 * @ev: the event; its fields are valid during the call only
 *
 * Dropped unless the family is registered (rt_nl_events_start()).
 *
 * Context: process context, see rt_notify_dev() and rt_notify_port().
 */
void rt_nl_event(const struct rt_event *ev)
{
	if (ev->p)
		rt_nl_send_port(ev);
	else
		rt_nl_send_dev(ev);
}

/**
 * rt_nl_events_start - send events from now on
 *
 * Context: the family is registered.
 */
void rt_nl_events_start(void)
{
	WRITE_ONCE(rt_nl_live, true);
}

/**
 * rt_nl_events_stop - send no more events
 *
 * Events still being built are dropped: when this returns, no sender
 * uses the family any more, and it may be unregistered.
 */
void rt_nl_events_stop(void)
{
	WRITE_ONCE(rt_nl_live, false);
	synchronize_rcu();
}
