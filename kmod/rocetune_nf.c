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

/* Fast exit: not UDP to port 4791.  @off is the UDP header's offset. */
static bool rt_nf_not_roce(const struct sk_buff *skb, unsigned int off)
{
	struct udphdr _uh;
	const struct udphdr *uh;

	uh = skb_header_pointer(skb, off, sizeof(_uh), &_uh);
	return !uh || uh->dest != htons(RT_ROCE_UDP_PORT);
}

/* rxe takes RC FLUSH and ATOMIC WRITE where the kernel has them (6.2). */
#ifdef RT_HAVE_IB_OPCODE_FLUSH
#define RT_NF_RXE_EXT	true
#else
#define RT_NF_RXE_EXT	false
#endif

/* Ask the verification for the peer of a connected QP, once. */
static void rt_nf_want_peer(struct rt_qpdev *qd)
{
	if (!READ_ONCE(qd->want_peer)) {
		WRITE_ONCE(qd->want_peer, true);
		rt_qp_kick();
	}
}

/**
 * rt_nf_rx_entry - the entry a received packet counts on
 * @qd: the receiving device
 * @pkt: the packet, which passed the header rules and the ICRC
 * @bad: set to why the packet is dropped when the result is NULL and
 *	this is not RT_GOOD
 * @acts: set when the packet may also act: trigger a CNP, cut the QP's
 *	rate, end a round trip
 *
 * The rules of rxe that need the QP (drivers/infiniband/sw/rxe/
 * rxe_recv.c, hdr_check(), Linux 6.1): the opcode's transport fits the
 * QP's type (a CNP: RC or UC), and a connected QP's packets come from its
 * peer's address.  A packet for a QP without an entry, or for a connected
 * QP whose peer the module does not know yet, waits in a pending entry of
 * its source address, which the verification admits or refuses
 * (rocetune_qppend.c); such a packet never acts.
 *
 * Context: rcu_read_lock() held, any context.
 * Return: the entry, or NULL (dropped, or every pending entry in use).
 */
static struct rt_qp *rt_nf_rx_entry(struct rt_qpdev *qd,
				    const struct rt_pkt *pkt,
				    enum rt_bad *bad, bool *acts)
{
	struct rt_qp_peer peer;
	struct rt_qp *qp;

	*acts = false;
	*bad = RT_GOOD;
	qp = rt_qp_lookup(qd->index, pkt->dqpn);
	if (!qp)
		return rt_qppend_get(qd, pkt->dqpn, pkt);
	switch (rt_qp_peer(qp, &peer)) {
	case RT_PEER_ANY:
		break;
	case RT_PEER_KNOWN:
		if (memcmp(peer.addr, pkt->saddr, sizeof(peer.addr))) {
			*bad = RT_BAD_PEER;
			return NULL;
		}
		break;
	case RT_PEER_UNKNOWN:
		if (READ_ONCE(qp->type_known) &&
		    !rt_op_fits(pkt->opcode, peer.type))
			break;
		rt_nf_want_peer(qd);
		return rt_qppend_get(qd, pkt->dqpn, pkt);
	case RT_PEER_NONE:
		*bad = RT_BAD_HDR;
		return NULL;
	}
	if (!rt_op_fits(pkt->opcode, peer.type)) {
		*bad = RT_BAD_HDR;
		return NULL;
	}
	*acts = READ_ONCE(qp->verified) && !READ_ONCE(qp->dead_ns);
	return qp;
}

/*
 * A received packet: counted on its QP only when software RoCE would take
 * it, else on the device (rx_bad); only a packet that passed every rule
 * and came for a known QP from its peer may act.
 */
static void rt_nf_rx(struct net *net, const struct net_device *ndev,
		     struct rt_qpdev *qd, const struct sk_buff *skb,
		     const struct rt_pkt *pkt)
{
	enum rt_bad bad;
	struct rt_qp *qp = NULL;
	bool acts = false;

	bad = rt_check_hdr(pkt, RT_NF_RXE_EXT);
	if (bad == RT_GOOD && !rt_icrc_ok(skb, pkt))
		bad = RT_BAD_ICRC;
	if (bad == RT_GOOD)
		qp = rt_nf_rx_entry(qd, pkt, &bad, &acts);
	if (bad != RT_GOOD) {
		atomic64_inc(&qd->rx_bad[bad]);
		return;
	}
	/* The notification point answers CE marks (rocetune_np.c). */
	if (pkt->ecn == 3 && READ_ONCE(qd->np)) {
		if (acts)
			rt_np_rx(net, ndev, qd, qp, pkt);
		else
			rt_np_ce_unanswered(qd, pkt);
	}
	if (!qp) {
		atomic64_inc(&qd->unattr_rx);
		return;
	}
	rt_qp_account(qp, pkt, false);
	if (!acts)
		return;
	/* Round trips: acknowledgments in (rocetune_rtt.c). */
	rt_rtt_rx(qp, pkt);
	/* The reaction point cuts the QP's rate (rocetune_rp.c). */
	if (pkt->opcode == RT_OP_CNP && READ_ONCE(qd->rp))
		rt_rp_cnp(qd, qp);
}

/* A sent packet: the QP that sent it. */
static void rt_nf_tx(struct rt_qpdev *qd, struct sk_buff *skb,
		     const struct rt_pkt *pkt)
{
	struct rt_qp *qp;

	if (pkt->has_deth) {
		/* UD: the DETH names the sending QP. */
		qp = rt_qp_lookup(qd->index, pkt->sqpn) ?:
		     rt_qppend_get(qd, pkt->sqpn, NULL);
	} else {
		/*
		 * RC/UC: map the remote QP back to the local one, else wait
		 * in a pending entry until the local QP is known.
		 */
		qp = rt_qp_lookup_tx(qd, pkt->dqpn, pkt->daddr) ?:
		     rt_qppend_get_tx(qd, pkt->dqpn, pkt->daddr);
	}
	if (!qp) {
		atomic64_inc(&qd->unattr_tx);
		return;
	}
	u64 departure = 0;

	rt_qp_account(qp, pkt, true);
	/*
	 * The reaction point paces the QP's packets, and after it was turned
	 * off keeps them behind those still queued (rocetune_rp.c).
	 */
	if (READ_ONCE(qd->rp) || READ_ONCE(qp->rp.tail))
		departure = rt_rp_tx(qd, qp, skb);
	/* Round trips: requests out, from their departure (rocetune_rtt.c). */
	if (rt_op_is_request(pkt->opcode))
		rt_rtt_tx(qp, pkt, departure);
}

static void rt_nf_count(struct sk_buff *skb, const struct net_device *ndev,
			struct net *net, bool tx)
{
	u8 buf[RT_PARSE_MAX];
	unsigned int len = min_t(unsigned int, skb->len, sizeof(buf));
	struct rt_qpdev *qd;
	struct rt_pkt pkt;
	const u8 *b;

	if (!ndev)
		return;
	/*
	 * A software RoCE device sends from the kernel socket of each QP; a
	 * packet that a process sends to port 4791 from its own socket is
	 * not the device's, and one without a socket is the notification
	 * point's CNP, which rt_np_rx() counts itself.
	 */
	if (tx && (!skb->sk ||
		   (sk_fullsock(skb->sk) && !skb->sk->sk_kern_sock)))
		return;
	qd = rt_nf_qpdev(ndev->ifindex);
	if (!qd)
		return;
	b = skb_header_pointer(skb, 0, len, buf);
	if (!b || !rt_parse_roce(b, len, &pkt))
		return;
	if (tx)
		rt_nf_tx(qd, skb, &pkt);
	else
		rt_nf_rx(net, ndev, qd, skb, &pkt);
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
