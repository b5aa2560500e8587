// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: the invariant CRC (ICRC) of RoCEv2 packets.
 *
 * Every RoCEv2 packet ends with an ICRC (InfiniBand Architecture
 * Specification, Annex A17.3.3): the CRC-32 of the packet from the IP
 * header to the byte before the ICRC, preceded by 8 bytes of ones (the
 * masked LRH of InfiniBand) and with the fields that routers may change
 * masked to ones: in IPv4 the TOS, the TTL and the header checksum, in IPv6
 * the traffic class, the flow label and the hop limit; the UDP checksum;
 * the BTH's fifth byte (FECN, BECN, reserved).  It is stored in the
 * packet in little-endian order.
 *
 * The notification point writes it into its CNPs; the receive hook checks
 * it, as rxe does before it takes a packet
 * (drivers/infiniband/sw/rxe/rxe_icrc.c, Linux 6.1).  The CRC is no
 * protection against forgery (anyone can compute it): a packet with a
 * wrong one is dropped by rxe, so the module must not count it either.
 */

#include <linux/crc32.h>
#include <linux/skbuff.h>

#include "rocetune.h"
#include "rocetune_bth.h"
#include "rocetune_qp.h"

/* The CRC-32 of 8 bytes of ones, from the all-ones start value. */
#define RT_ICRC_SEED		0xdebb20e3
/* Bytes of payload the CRC reads through at a time, from a copy if need be. */
#define RT_ICRC_CHUNK		256

/**
 * rt_icrc - compute the ICRC of a RoCEv2 packet
 * @skb: the packet, its IP header at skb->data
 * @ip_hlen: length of its IP header: 20 (IPv4 without options) or 40
 * @end: offset of the ICRC from skb->data (the UDP payload's end less 4)
 * @icrc: set to the ICRC as the packet carries it (little-endian order)
 *
 * Context: any context.
 * Return: true, or false when @skb is shorter than @end or @end does not
 * leave room for the IP, UDP and BTH headers.
 */
bool rt_icrc(const struct sk_buff *skb, unsigned int ip_hlen,
	     unsigned int end, u32 *icrc)
{
	u8 hdr[RT_IPV6_HLEN + RT_UDP_HLEN + RT_BTH_LEN];
	unsigned int hl = ip_hlen + RT_UDP_HLEN + RT_BTH_LEN;
	u8 buf[RT_ICRC_CHUNK];
	unsigned int off, n;
	const u8 *p;
	u32 crc;

	if ((ip_hlen != 20 && ip_hlen != RT_IPV6_HLEN) || end < hl ||
	    skb_copy_bits(skb, 0, hdr, hl))
		return false;
	if (ip_hlen == 20) {
		hdr[1] = 0xff;			/* TOS */
		hdr[8] = 0xff;			/* TTL */
		hdr[10] = 0xff;			/* header checksum */
		hdr[11] = 0xff;
	} else {
		hdr[0] |= 0x0f;			/* traffic class, flow label */
		hdr[1] = 0xff;
		hdr[2] = 0xff;
		hdr[3] = 0xff;
		hdr[7] = 0xff;			/* hop limit */
	}
	hdr[ip_hlen + 6] = 0xff;		/* UDP checksum */
	hdr[ip_hlen + 7] = 0xff;
	hdr[ip_hlen + RT_UDP_HLEN + 4] = 0xff;	/* FECN, BECN, reserved */
	crc = crc32_le(RT_ICRC_SEED, hdr, hl);
	for (off = hl; off < end; off += n) {
		n = min_t(unsigned int, end - off, sizeof(buf));
		p = skb_header_pointer(skb, off, n, buf);
		if (!p)
			return false;
		crc = crc32_le(crc, p, n);
	}
	*icrc = ~crc;
	return true;
}

/**
 * rt_icrc_ok - does a received packet carry the right ICRC
 * @skb: the packet, its IP header at skb->data
 * @pkt: what rt_parse_roce() found in it, passed by rt_check_hdr()
 *
 * Context: any context.
 * Return: true when the ICRC is right.
 */
bool rt_icrc_ok(const struct sk_buff *skb, const struct rt_pkt *pkt)
{
	unsigned int end = pkt->ip_hlen + pkt->udp_len - RT_ICRC_LEN;
	__le32 buf, want;
	const __le32 *p;
	u32 icrc;

	p = skb_header_pointer(skb, end, sizeof(buf), &buf);
	if (!p || !rt_icrc(skb, pkt->ip_hlen, end, &icrc))
		return false;
	memcpy(&want, p, sizeof(want));
	return le32_to_cpu(want) == icrc;
}
