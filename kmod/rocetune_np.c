// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: the DCQCN notification point (NP) of software RoCE devices.
 *
 * rxe has no congestion control: it neither answers an ECN CE mark with a
 * congestion notification packet (CNP) nor reacts to one.  With the NP on
 * (per device, QP_SET NP_ENABLE), the receive hook hands every CE-marked
 * RoCEv2 packet of the device to rt_np_rx(), which answers it with one CNP
 * to the sending QP, at most one per local QP in each NP_MIN_CNP_GAP_US.
 * The data packet itself is never changed, delayed or dropped.
 *
 * A CNP (InfiniBand Architecture Specification, Annex A17) is sent from
 * the receiving address to the sender's, from the QP's UDP source port
 * (rxe uses the same port in both directions of a QP pair) to 4791, with
 * DSCP 48 and no ECN, a UDP checksum of 0, a BTH (opcode 0x81, P_Key
 * 0xffff, BECN, the sender's QP, PSN 0), 16 reserved bytes and the ICRC.
 * The sender's QP is the entry's remote QP, learned by the verification
 * from the RDMA core.  Only a packet that software RoCE would take, from
 * the QP's peer (rocetune_nf.c), is answered, and the CNP goes to that
 * peer: a CE mark on a packet from any other address, or on one rxe drops,
 * makes no CNP.  A CE mark that comes before the peer is known gets no CNP
 * and is counted (NP_CE_NO_CNP), as are CE marks of IPv6 packets (not
 * answered yet) and of packets without a QP entry.
 *
 * The CNP is built here and sent with ip_local_out() from the hook (softirq
 * context).  It has no socket, so the transmit hook leaves it alone: it is
 * counted here on the QP's TX_PKTS, TX_BYTES and TX_CNP counters, and never
 * waits in a pending entry.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ip.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/timekeeping.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/route.h>

#include "rocetune.h"
#include "rocetune_bth.h"
#include "rocetune_qp.h"

/* The CNP: IPv4 header, UDP header, BTH, 16 reserved bytes, ICRC. */
#define RT_CNP_IP_LEN		(sizeof(struct iphdr) + RT_UDP_HLEN + \
				 RT_BTH_LEN + RT_CNP_RESV_LEN + RT_ICRC_LEN)
#define RT_CNP_TTL		64
#define RT_BTH_BECN		0x40	/* in the BTH's fifth byte */

/**
 * rt_np_send - send one CNP
 * @net: the network namespace of the data packet (rxe: init_net)
 * @in: the netdev the data packet came in on; the CNP leaves through it
 * @qd: the device, for the CNP's DSCP and priority
 * @pkt: the data packet
 * @peer: the QP's peer: the CNP's destination address and QP
 * @qp: the QP, which counts the CNP as sent
 *
 * Context: rcu_read_lock() held, softirq or process context.
 * Return: 0 when the stack took the CNP, else a negative errno or a
 * NET_XMIT_ code.
 */
static int rt_np_send(struct net *net, const struct net_device *in,
		      const struct rt_qpdev *qd, const struct rt_pkt *pkt,
		      const struct rt_qp_peer *peer, struct rt_qp *qp)
{
	struct flowi4 fl4 = {};
	struct rt_pkt cnp = {};
	struct sk_buff *skb;
	struct udphdr *uh;
	struct iphdr *iph;
	struct rtable *rt;
	unsigned int hlen;
	__le32 icrc;
	u32 crc;
	u8 *bth;
	int err;

	fl4.flowi4_oif = in->ifindex;
	fl4.flowi4_proto = IPPROTO_UDP;
	memcpy(&fl4.daddr, peer->addr + 12, 4);
	memcpy(&fl4.saddr, pkt->daddr + 12, 4);
	fl4.fl4_sport = htons(pkt->sport);
	fl4.fl4_dport = htons(RT_ROCE_UDP_PORT);
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);

	hlen = LL_RESERVED_SPACE(rt->dst.dev);
	skb = alloc_skb(hlen + RT_CNP_IP_LEN, GFP_ATOMIC);
	if (!skb) {
		ip_rt_put(rt);
		return -ENOMEM;
	}
	skb_reserve(skb, hlen);
	skb_dst_set(skb, &rt->dst);
	skb_put_zero(skb, RT_CNP_IP_LEN);
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, sizeof(*iph));
	skb->protocol = htons(ETH_P_IP);
	skb->ip_summed = CHECKSUM_NONE;
	skb->priority = READ_ONCE(qd->np_cnp_prio);

	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	/* Not ECN-capable. */
	iph->tos = READ_ONCE(qd->np_cnp_dscp) << 2;
	iph->tot_len = htons(RT_CNP_IP_LEN);
	iph->id = 0;			/* DF set: no fragments to tell apart */
	iph->frag_off = htons(IP_DF);
	iph->ttl = RT_CNP_TTL;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = fl4.saddr;
	iph->daddr = fl4.daddr;

	uh = udp_hdr(skb);
	uh->source = htons(pkt->sport);
	uh->dest = htons(RT_ROCE_UDP_PORT);
	uh->len = htons(RT_CNP_IP_LEN - sizeof(*iph));
	uh->check = 0;			/* RoCEv2: the ICRC protects it */

	bth = (u8 *)(uh + 1);
	bth[0] = RT_OP_CNP;
	bth[2] = 0xff;			/* P_Key 0xffff, the default */
	bth[3] = 0xff;
	bth[4] = RT_BTH_BECN;
	bth[5] = peer->rqpn >> 16;
	bth[6] = peer->rqpn >> 8;
	bth[7] = peer->rqpn;
	/* PSN 0 and the reserved bytes: zero already. */

	if (!rt_icrc(skb, sizeof(*iph), RT_CNP_IP_LEN - RT_ICRC_LEN, &crc)) {
		kfree_skb(skb);
		return -EINVAL;
	}
	icrc = cpu_to_le32(crc);
	memcpy(skb_tail_pointer(skb) - RT_ICRC_LEN, &icrc, sizeof(icrc));

	/* What the QP counts of it: the transmit hook leaves it alone. */
	cnp.ipver = 4;
	cnp.ecn = 0;
	cnp.ip_len = RT_CNP_IP_LEN;
	cnp.opcode = RT_OP_CNP;
	cnp.dqpn = peer->rqpn;

	/*
	 * ip_local_out() sets the length and the header checksum and runs
	 * NF_INET_LOCAL_OUT.  Called once: net_xmit_eval() would send twice.
	 */
	err = ip_local_out(net, NULL, skb);
	if (err == NET_XMIT_CN)
		err = 0;
	if (!err)
		rt_qp_account(qp, &cnp, true);
	return err;
}

/**
 * rt_np_gap_ok - may a QP send a CNP now
 * @qp: the local QP
 * @gap_us: the device's NP_MIN_CNP_GAP_US
 *
 * Takes the QP's slot when the last CNP is at least @gap_us old; two CE
 * marks racing for one slot give one CNP.
 *
 * Return: true when the caller sends the CNP.
 */
static bool rt_np_gap_ok(struct rt_qp *qp, u32 gap_us)
{
	u64 now = ktime_get_ns();
	u64 last = atomic64_read(&qp->rx.np_last_ns);

	if (last && now - last < (u64)gap_us * NSEC_PER_USEC)
		return false;
	return atomic64_cmpxchg(&qp->rx.np_last_ns, last, now) == last;
}

/**
 * rt_np_rx - a CE-marked packet came in for a QP, from its peer
 * @net: its network namespace
 * @in: the netdev it came in on
 * @qd: the device
 * @qp: the receiving local QP's entry
 * @pkt: the packet, whose ECN field is CE, which software RoCE would take
 *	and which came from the QP's peer (rocetune_nf.c)
 *
 * Answers the packet with a CNP to the sending QP when that QP is known
 * and the local QP's last CNP is old enough; counts what it did on @qd.
 * CNPs themselves are not answered.
 *
 * Context: rcu_read_lock() held, any context (the receive hook).
 */
void rt_np_rx(struct net *net, const struct net_device *in,
	      struct rt_qpdev *qd, struct rt_qp *qp, const struct rt_pkt *pkt)
{
	struct rt_qp_peer peer;

	if (pkt->opcode == RT_OP_CNP)
		return;
	if (pkt->ipver != 4 || rt_qp_peer(qp, &peer) != RT_PEER_KNOWN) {
		atomic64_inc(&qd->np_ce_no_cnp);
		return;
	}
	if (!rt_np_gap_ok(qp, READ_ONCE(qd->np_gap_us))) {
		atomic64_inc(&qd->np_ce_coalesced);
		return;
	}
	if (rt_np_send(net, in, qd, pkt, &peer, qp))
		atomic64_inc(&qd->np_cnp_failed);
	else
		atomic64_inc(&qd->np_cnp_sent);
}

/**
 * rt_np_ce_unanswered - a CE-marked packet that the NP may not answer
 * @qd: the device
 * @pkt: the packet: software RoCE would take it, but it came for a QP
 *	without a known peer or entry
 *
 * Context: any context (the receive hook).
 */
void rt_np_ce_unanswered(struct rt_qpdev *qd, const struct rt_pkt *pkt)
{
	if (pkt->opcode != RT_OP_CNP)
		atomic64_inc(&qd->np_ce_no_cnp);
}
