/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune: parsing of RoCEv2 packet headers.
 *
 * A pure function on bytes (no skb, no kernel state), so that the same
 * code runs in the netfilter hooks and in host unit tests
 * (userspace/tests/).  The layouts follow the InfiniBand Architecture
 * Specification, Annex A17 (RoCEv2): IPv4 or IPv6, UDP to port 4791,
 * Base Transport Header (BTH), then an ACK Extended Transport Header
 * (AETH) or a Datagram Extended Transport Header (DETH) for some opcodes.
 */
#ifndef _ROCETUNE_BTH_H
#define _ROCETUNE_BTH_H

#ifdef __KERNEL__
#include <linux/string.h>
#include <linux/types.h>
#else
#include <stdbool.h>
#include <string.h>
#include <linux/types.h>
#endif

#define RT_ROCE_UDP_PORT	4791
#define RT_IPV4_HLEN_MAX	60
#define RT_IPV6_HLEN		40
#define RT_UDP_HLEN		8
#define RT_BTH_LEN		12
#define RT_AETH_LEN		4
#define RT_DETH_LEN		8
/* Enough bytes for every header the parser reads. */
#define RT_PARSE_MAX		(RT_IPV4_HLEN_MAX + RT_UDP_HLEN + RT_BTH_LEN + \
				 RT_DETH_LEN)

/* BTH opcodes: transport in bits 7:5, operation in bits 4:0. */
#define RT_OP_TRANSPORT(op)	((op) & 0xe0)
#define RT_OP_RC		0x00
#define RT_OP_UC		0x20
#define RT_OP_RD		0x40
#define RT_OP_UD		0x60
#define RT_OP_CNP		0x81
#define RT_OP_RC_READ_RESP_FIRST 0x0d
#define RT_OP_RC_READ_RESP_LAST	0x0f
#define RT_OP_RC_READ_RESP_ONLY	0x10
#define RT_OP_RC_ACK		0x11
#define RT_OP_RC_ATOMIC_ACK	0x12
#define RT_OP_UD_SEND_ONLY	0x64
#define RT_OP_UD_SEND_ONLY_IMM	0x65

/* AETH syndrome: bits 6:5 are 00 ACK, 01 RNR NAK, 11 NAK. */
#define RT_AETH_TYPE_MASK	0x60
#define RT_AETH_ACK		0x00
#define RT_AETH_RNR_NAK		0x20
#define RT_AETH_NAK		0x60
#define RT_AETH_NAK_SEQ_ERR	0x60	/* NAK, code 0: PSN sequence error */

#define RT_PSN_MASK		0xffffff

/**
 * struct rt_pkt - what the parser found in one RoCEv2 packet
 * @ipver: 4 or 6
 * @ecn: the IP ECN field, 0..3 (3 = CE)
 * @ip_len: IP length of the packet, IP header included
 * @saddr: source address (IPv4 as an IPv4-mapped IPv6 address)
 * @daddr: destination address, likewise
 * @sport: UDP source port
 * @opcode: BTH opcode
 * @ackreq: BTH AckReq bit
 * @dqpn: BTH destination QP
 * @psn: BTH packet sequence number
 * @has_aeth: the opcode carries an AETH, @syndrome is valid
 * @syndrome: AETH syndrome
 * @has_deth: the opcode carries a DETH, @sqpn is valid
 * @sqpn: DETH source QP
 * @ip_hlen: length of the IP header (20 to 60 for IPv4, 40 for IPv6)
 * @udp_len: UDP length field (UDP header included)
 * @pkey: BTH P_Key
 * @tver: BTH transport header version
 * @pad: BTH pad count
 */
struct rt_pkt {
	__u8 ipver;
	__u8 ecn;
	__u16 ip_len;
	__u8 saddr[16];
	__u8 daddr[16];
	__u16 sport;
	__u8 opcode;
	bool ackreq;
	__u32 dqpn;
	__u32 psn;
	bool has_aeth;
	__u8 syndrome;
	bool has_deth;
	__u32 sqpn;
	__u8 ip_hlen;
	__u16 udp_len;
	__u16 pkey;
	__u8 tver;
	__u8 pad;
};

static inline __u16 rt_get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static inline __u32 rt_get24(const __u8 *p)
{
	return (__u32)p[0] << 16 | (__u32)p[1] << 8 | p[2];
}

static inline void rt_v4mapped(__u8 *dst, const __u8 *v4)
{
	memset(dst, 0, 10);
	dst[10] = 0xff;
	dst[11] = 0xff;
	memcpy(dst + 12, v4, 4);
}

static inline bool rt_op_has_aeth(__u8 op)
{
	return op == RT_OP_RC_READ_RESP_FIRST || op == RT_OP_RC_READ_RESP_LAST ||
	       op == RT_OP_RC_READ_RESP_ONLY || op == RT_OP_RC_ACK ||
	       op == RT_OP_RC_ATOMIC_ACK;
}

static inline bool rt_op_has_deth(__u8 op)
{
	return op == RT_OP_UD_SEND_ONLY || op == RT_OP_UD_SEND_ONLY_IMM;
}

/**
 * rt_op_is_request - does a packet with this opcode start a new PSN
 * @op: BTH opcode
 *
 * Return: true for RC and UC packets sent by a requester (sends, writes,
 * read and atomic requests); false for responses (read responses and
 * ACKs), other transports and CNPs.
 */
static inline bool rt_op_is_request(__u8 op)
{
	if (RT_OP_TRANSPORT(op) == RT_OP_UC)
		return true;
	if (RT_OP_TRANSPORT(op) != RT_OP_RC)
		return false;
	return op < RT_OP_RC_READ_RESP_FIRST || op > RT_OP_RC_ATOMIC_ACK;
}

/**
 * rt_psn_after - 24-bit serial number comparison
 * @a: a PSN
 * @b: another PSN
 *
 * Return: true when @a comes strictly after @b.
 */
static inline bool rt_psn_after(__u32 a, __u32 b)
{
	__u32 d = (a - b) & RT_PSN_MASK;

	return d != 0 && d < 0x800000;
}

/**
 * rt_parse_roce - parse a RoCEv2 packet starting at its IP header
 * @b: the packet's bytes from the IP header on
 * @len: number of bytes available at @b
 * @pkt: filled in on success
 *
 * Only UDP to port 4791 without IP fragmentation or IPv6 extension
 * headers is RoCEv2 here.
 *
 * Return: 1 when @pkt holds a RoCEv2 packet, 0 when it is not one (or is
 * too short to be one).
 */
static inline int rt_parse_roce(const __u8 *b, unsigned int len,
				struct rt_pkt *pkt)
{
	unsigned int off, need;
	const __u8 *bth;

	if (len < 1)
		return 0;
	pkt->ipver = b[0] >> 4;
	if (pkt->ipver == 4) {
		if (len < 20)
			return 0;
		off = (b[0] & 0x0f) * 4;
		/* Protocol UDP, no fragment offset, no more-fragments. */
		if (off < 20 || b[9] != 17 || (rt_get16(b + 6) & 0x3fff))
			return 0;
		pkt->ecn = b[1] & 3;
		pkt->ip_len = rt_get16(b + 2);
		rt_v4mapped(pkt->saddr, b + 12);
		rt_v4mapped(pkt->daddr, b + 16);
	} else if (pkt->ipver == 6) {
		if (len < RT_IPV6_HLEN || b[6] != 17)
			return 0;
		off = RT_IPV6_HLEN;
		pkt->ecn = (b[1] >> 4) & 3;
		pkt->ip_len = rt_get16(b + 4) + RT_IPV6_HLEN;
		memcpy(pkt->saddr, b + 8, 16);
		memcpy(pkt->daddr, b + 24, 16);
	} else {
		return 0;
	}

	if (len < off + RT_UDP_HLEN + RT_BTH_LEN ||
	    rt_get16(b + off + 2) != RT_ROCE_UDP_PORT)
		return 0;
	pkt->ip_hlen = off;
	pkt->sport = rt_get16(b + off);
	pkt->udp_len = rt_get16(b + off + 4);
	bth = b + off + RT_UDP_HLEN;
	pkt->opcode = bth[0];
	pkt->pad = (bth[1] >> 4) & 3;
	pkt->tver = bth[1] & 0x0f;
	pkt->pkey = rt_get16(bth + 2);
	pkt->dqpn = rt_get24(bth + 5);
	pkt->ackreq = bth[8] & 0x80;
	pkt->psn = rt_get24(bth + 9);

	need = off + RT_UDP_HLEN + RT_BTH_LEN;
	pkt->has_aeth = rt_op_has_aeth(pkt->opcode) &&
			len >= need + RT_AETH_LEN;
	pkt->syndrome = pkt->has_aeth ? bth[RT_BTH_LEN] : 0;
	pkt->has_deth = rt_op_has_deth(pkt->opcode) &&
			len >= need + RT_DETH_LEN;
	pkt->sqpn = pkt->has_deth ? rt_get24(bth + RT_BTH_LEN + 5) : 0;
	return 1;
}

/* The ICRC that ends every RoCEv2 packet, and a CNP's reserved bytes. */
#define RT_ICRC_LEN		4
#define RT_CNP_RESV_LEN		16
/* The default P_Key, the only one software RoCE has. */
#define RT_PKEY_DEFAULT		0xffff

/**
 * rt_op_hdr_len - the transport headers of an opcode software RoCE takes
 * @op: BTH opcode
 *
 * The BTH and the extended transport headers that the opcode carries
 * (InfiniBand Architecture Specification, chapter 9 and Annex A17: RETH
 * 16 bytes, AETH 4, AtomicETH 28, AtomicAckETH 8, ImmDt and IETH 4, DETH
 * 8), for the RC, UC and UD opcodes rxe implements
 * (drivers/infiniband/sw/rxe/rxe_opcode.c, Linux 6.1; FLUSH and ATOMIC
 * WRITE from Linux 6.2, see @ext), and a CNP (opcode 0x81: BTH and 16
 * reserved bytes).
 * @ext: the kernel's rxe also takes RC FLUSH and ATOMIC WRITE
 *
 * Return: the length in bytes, 0 for an opcode rxe drops.
 */
static inline unsigned int rt_op_hdr_len(__u8 op, bool ext)
{
	/* RC opcodes 0x00..0x17; UC takes 0x00..0x0b of them, at 0x20. */
	static const __u8 rc[] = {
		12, 12, 12, 16, 12, 16,		/* SEND FIRST .. ONLY_IMM */
		28, 12, 12, 16, 28, 32,		/* RDMA WRITE FIRST .. ONLY_IMM */
		28,				/* RDMA READ request */
		16, 12, 16, 16,			/* READ RESPONSE FIRST .. ONLY */
		16, 24,				/* ACK, ATOMIC ACK */
		40, 40,				/* CMP_SWAP, FETCH_ADD */
		0,				/* reserved */
		16, 16,				/* SEND LAST/ONLY with INVALIDATE */
	};

	if (op < sizeof(rc))
		return rc[op];
	if (ext && op == 0x1c)			/* RC FLUSH: FETH + RETH */
		return 32;
	if (ext && op == 0x1d)			/* RC ATOMIC WRITE: RETH */
		return 28;
	if (op >= RT_OP_UC && op <= RT_OP_UC + 0x0b)
		return rc[op - RT_OP_UC];
	if (op == RT_OP_UD_SEND_ONLY)
		return RT_BTH_LEN + RT_DETH_LEN;
	if (op == RT_OP_UD_SEND_ONLY_IMM)
		return RT_BTH_LEN + RT_DETH_LEN + 4;
	if (op == RT_OP_CNP)
		return RT_BTH_LEN + RT_CNP_RESV_LEN;
	return 0;
}

/* Why a received packet is not one rxe would take (rt_check_hdr()). */
enum rt_bad {
	RT_GOOD,
	RT_BAD_HDR,
	RT_BAD_ICRC,
	RT_BAD_PEER,
};

/**
 * rt_check_hdr - the header rules of software RoCE that need no QP
 * @pkt: a parsed packet
 * @ext: see rt_op_hdr_len()
 *
 * The rules rxe applies before it looks at the QP
 * (drivers/infiniband/sw/rxe/rxe_recv.c, rxe_rcv() and hdr_check(), Linux
 * 6.1): an IPv4 header without options (the ICRC covers a 20-byte one), a
 * UDP length that fits the IP length, a known opcode whose headers, pad
 * and ICRC fit the UDP payload, BTH version 0, destination QP not 0 and a
 * P_Key that matches the default one (15 bits 0x7fff; rxe's
 * pkey_match()).  A CNP, which rxe does not take at all, must have exactly
 * its length (BTH, 16 reserved bytes, ICRC) and no pad.
 *
 * Return: RT_GOOD or RT_BAD_HDR.
 */
static inline enum rt_bad rt_check_hdr(const struct rt_pkt *pkt, bool ext)
{
	unsigned int hlen = rt_op_hdr_len(pkt->opcode, ext);
	unsigned int pay = pkt->udp_len - RT_UDP_HLEN;

	if (pkt->ipver == 4 && pkt->ip_hlen != 20)
		return RT_BAD_HDR;
	if (pkt->udp_len < RT_UDP_HLEN ||
	    pkt->ip_hlen + pkt->udp_len != pkt->ip_len)
		return RT_BAD_HDR;
	if (!hlen || pay < hlen + pkt->pad + RT_ICRC_LEN)
		return RT_BAD_HDR;
	if (pkt->opcode == RT_OP_CNP &&
	    (pay != hlen + RT_ICRC_LEN || pkt->pad))
		return RT_BAD_HDR;
	if (pkt->tver || !pkt->dqpn || (pkt->pkey & 0x7fff) != 0x7fff)
		return RT_BAD_HDR;
	return RT_GOOD;
}

#endif /* _ROCETUNE_BTH_H */
