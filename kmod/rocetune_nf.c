// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: netfilter observer of software RoCE packets.
 *
 * Receive: NF_INET_LOCAL_IN (IPv4 and IPv6), last priority: packets the
 * host accepted for one of its own addresses, just before the UDP tunnel
 * socket of rxe takes them; forwarded packets, packets for other hosts and
 * packets the routing or a firewall refused are not counted.  Transmit:
 * NF_INET_LOCAL_OUT, last priority (rxe sends through ip_local_out() and
 * ip6_local_out()).  Only init_net: rxe works there only.  The hooks only
 * read: they always return NF_ACCEPT and never modify, delay or drop (the
 * notification point may send a CNP of its own, see rocetune_np.c; the
 * reaction point, when on, sets the departure time of a paced QP's
 * packets, see rocetune_rp.c).  A
 * packet for a QP without an entry never allocates memory here (see
 * rocetune_qppend.c).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "rocetune.h"
#include "rocetune_bth.h"
#include "rocetune_qp.h"

/**
 * rt_nf_qpdev - the accounting device on a netdev
 * @ifindex: the netdev's ifindex
 *
 * Context: rcu_read_lock() held; the result is valid until it is dropped.
 * Return: the device with accounting enabled, or NULL.
 */
static struct rt_qpdev *rt_nf_qpdev(int ifindex)
{
	struct rt_qpdev *qd;
	u32 i;

	list_for_each_entry_rcu(qd, &rt_qpdevs, node) {
		if (!READ_ONCE(qd->acct))
			continue;
		for (i = 1; i <= qd->nports; i++)
			if (qd->ifindex[i] == ifindex)
				return qd;
	}
	return NULL;
}

/**
 * rt_nf_qp - the entry to count a packet of a local QP on
 * @qd: the device
 * @qpn: the local QP number the packet names
 *
 * The QP's entry, else a pending entry of @qd for @qpn (see struct
 * rt_qppend); never allocates.
 *
 * Context: rcu_read_lock() held, any context.
 * Return: the entry, or NULL when the QP number is unknown and every
 * pending entry of @qd is in use.
 */
static struct rt_qp *rt_nf_qp(struct rt_qpdev *qd, u32 qpn)
{
	return rt_qp_lookup(qd->index, qpn) ?: rt_qppend_get(qd, qpn);
}

/* Fast exit: not UDP to port 4791.  @off is the UDP header's offset. */
static bool rt_nf_not_roce(const struct sk_buff *skb, unsigned int off)
{
	struct udphdr _uh;
	const struct udphdr *uh;

	uh = skb_header_pointer(skb, off, sizeof(_uh), &_uh);
	return !uh || uh->dest != htons(RT_ROCE_UDP_PORT);
}

static void rt_nf_count(struct sk_buff *skb, const struct net_device *ndev,
			struct net *net, bool tx)
{
	u8 buf[RT_PARSE_MAX];
	unsigned int len = min_t(unsigned int, skb->len, sizeof(buf));
	struct rt_qpdev *qd;
	struct rt_pkt pkt;
	struct rt_qp *qp;
	const u8 *b;

	if (!ndev)
		return;
	/*
	 * A software RoCE device sends from kernel sockets; a packet that a
	 * process sends to port 4791 from its own socket is not the device's.
	 */
	if (tx && skb->sk && sk_fullsock(skb->sk) && !skb->sk->sk_kern_sock)
		return;
	qd = rt_nf_qpdev(ndev->ifindex);
	if (!qd)
		return;
	b = skb_header_pointer(skb, 0, len, buf);
	if (!b || !rt_parse_roce(b, len, &pkt))
		return;

	if (!tx) {
		/* The BTH destination QP is the receiving local QP. */
		qp = rt_nf_qp(qd, pkt.dqpn);
		/* The notification point answers CE marks (rocetune_np.c). */
		if (pkt.ecn == 3 && READ_ONCE(qd->np))
			rt_np_rx(net, ndev, qd, qp, &pkt);
		if (!qp) {
			atomic64_inc(&qd->unattr_rx);
			return;
		}
		/* The reaction point cuts the QP's rate (rocetune_rp.c). */
		if (pkt.opcode == RT_OP_CNP && READ_ONCE(qd->rp))
			rt_rp_cnp(qd, qp);
	} else if (pkt.has_deth) {
		/* UD: the DETH names the sending QP. */
		qp = rt_nf_qp(qd, pkt.sqpn);
		if (!qp) {
			atomic64_inc(&qd->unattr_tx);
			return;
		}
	} else {
		/*
		 * RC/UC, CNPs: map the remote QP back to the local one, else
		 * wait in a pending entry until the local QP is known.
		 */
		qp = rt_qp_lookup_tx(qd, pkt.dqpn, pkt.daddr) ?:
		     rt_qppend_get_tx(qd, pkt.dqpn, pkt.daddr);
		if (!qp) {
			atomic64_inc(&qd->unattr_tx);
			return;
		}
	}
	rt_qp_account(qp, &pkt, tx);
	/* Round trips: requests out, acknowledgments in (rocetune_rtt.c). */
	if (tx && rt_op_is_request(pkt.opcode))
		rt_rtt_tx(qp, &pkt);
	else if (!tx)
		rt_rtt_rx(qp, &pkt, skb);
	/* The reaction point paces the QP's packets, never a CNP. */
	if (tx && pkt.opcode != RT_OP_CNP && READ_ONCE(qd->rp))
		rt_rp_tx(qd, qp, skb);
}

static unsigned int rt_nf_ipv4(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state)
{
	const struct iphdr *iph;
	struct iphdr _iph;

	iph = skb_header_pointer(skb, 0, sizeof(_iph), &_iph);
	if (!iph || iph->protocol != IPPROTO_UDP || iph->ihl < 5 ||
	    rt_nf_not_roce(skb, iph->ihl * 4))
		return NF_ACCEPT;
	if (state->hook == NF_INET_LOCAL_IN)
		rt_nf_count(skb, state->in, state->net, false);
	else
		rt_nf_count(skb, state->out, state->net, true);
	return NF_ACCEPT;
}

static unsigned int rt_nf_ipv6(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state)
{
	const struct ipv6hdr *ip6h;
	struct ipv6hdr _ip6h;

	ip6h = skb_header_pointer(skb, 0, sizeof(_ip6h), &_ip6h);
	if (!ip6h || ip6h->nexthdr != IPPROTO_UDP ||
	    rt_nf_not_roce(skb, sizeof(*ip6h)))
		return NF_ACCEPT;
	if (state->hook == NF_INET_LOCAL_IN)
		rt_nf_count(skb, state->in, state->net, false);
	else
		rt_nf_count(skb, state->out, state->net, true);
	return NF_ACCEPT;
}

static const struct nf_hook_ops rt_nf_ops[] = {
	{
		.hook = rt_nf_ipv4,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_LOCAL_IN,
		.priority = NF_IP_PRI_LAST,
	},
	{
		.hook = rt_nf_ipv4,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_LOCAL_OUT,
		.priority = NF_IP_PRI_LAST,
	},
	{
		.hook = rt_nf_ipv6,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_LOCAL_IN,
		.priority = NF_IP6_PRI_LAST,
	},
	{
		.hook = rt_nf_ipv6,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_LOCAL_OUT,
		.priority = NF_IP6_PRI_LAST,
	},
};

/**
 * rt_nf_register - register the netfilter hooks in init_net
 *
 * Only while some device accounts (rt_qp_acct_set()): without one, the
 * host's packets do not pass through them.
 *
 * Context: process context.
 * Return: 0 or a negative errno.
 */
int rt_nf_register(void)
{
	return nf_register_net_hooks(&init_net, rt_nf_ops,
				     ARRAY_SIZE(rt_nf_ops));
}

/**
 * rt_nf_unregister - unregister the netfilter hooks
 *
 * nf_unregister_net_hooks() waits for running hooks (synchronize_net()).
 *
 * Context: process context.
 */
void rt_nf_unregister(void)
{
	nf_unregister_net_hooks(&init_net, rt_nf_ops, ARRAY_SIZE(rt_nf_ops));
}
