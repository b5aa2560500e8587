// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of kmod/rocetune_bth.h, the RoCEv2 header parser that the
 * module's netfilter hooks use (cmocka, on the host).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../kmod/rocetune_bth.h"

/* IPv4 (20 B) + UDP (8 B) + BTH (12 B) + room for AETH/DETH. */
static void build_v4(uint8_t *b, uint8_t tos, uint8_t op, uint32_t dqpn,
		     uint32_t psn, int ackreq)
{
	memset(b, 0, 64);
	b[0] = 0x45;
	b[1] = tos;
	b[2] = 0;
	b[3] = 60;			/* total length */
	b[6] = 0x40;			/* DF */
	b[8] = 64;
	b[9] = 17;			/* UDP */
	b[12] = 10; b[15] = 1;		/* 10.0.0.1 */
	b[16] = 10; b[19] = 2;		/* 10.0.0.2 */
	b[20] = 0xc0; b[21] = 0x12;	/* sport 49170 */
	b[22] = 0x12; b[23] = 0xb7;	/* dport 4791 */
	b[28] = op;
	b[28 + 5] = dqpn >> 16;
	b[28 + 6] = dqpn >> 8;
	b[28 + 7] = dqpn;
	b[28 + 8] = ackreq ? 0x80 : 0;
	b[28 + 9] = psn >> 16;
	b[28 + 10] = psn >> 8;
	b[28 + 11] = psn;
}

static void parses_rc_send(void **state)
{
	uint8_t b[64];
	struct rt_pkt p;

	(void)state;
	build_v4(b, 0x6a, 0x04, 0x123456, 0xabcdef, 1);
	assert_int_equal(rt_parse_roce(b, sizeof(b), &p), 1);
	assert_int_equal(p.ipver, 4);
	assert_int_equal(p.ecn, 2);
	assert_int_equal(p.ip_len, 60);
	assert_int_equal(p.sport, 49170);
	assert_int_equal(p.opcode, 0x04);
	assert_int_equal(p.dqpn, 0x123456);
	assert_int_equal(p.psn, 0xabcdef);
	assert_true(p.ackreq);
	assert_false(p.has_aeth);
	assert_false(p.has_deth);
	assert_int_equal(p.daddr[10], 0xff);
	assert_int_equal(p.daddr[15], 2);
	assert_true(rt_op_is_request(p.opcode));
}

static void parses_ack_syndromes(void **state)
{
	uint8_t b[64];
	struct rt_pkt p;

	(void)state;
	build_v4(b, 3, RT_OP_RC_ACK, 17, 5, 0);
	b[40] = 0x60;			/* NAK, PSN sequence error */
	assert_int_equal(rt_parse_roce(b, 44, &p), 1);
	assert_int_equal(p.ecn, 3);
	assert_true(p.has_aeth);
	assert_int_equal(p.syndrome, RT_AETH_NAK_SEQ_ERR);
	assert_false(rt_op_is_request(p.opcode));
	b[40] = 0x3f;			/* RNR NAK */
	assert_int_equal(rt_parse_roce(b, 44, &p), 1);
	assert_int_equal(p.syndrome & RT_AETH_TYPE_MASK, RT_AETH_RNR_NAK);
	/* An ACK cut before its AETH: no syndrome. */
	assert_int_equal(rt_parse_roce(b, 40, &p), 1);
	assert_false(p.has_aeth);
}

static void parses_ud_source_qp(void **state)
{
	uint8_t b[64];
	struct rt_pkt p;

	(void)state;
	build_v4(b, 0, RT_OP_UD_SEND_ONLY, 1, 0, 0);
	b[40 + 5] = 0x00;
	b[40 + 6] = 0x00;
	b[40 + 7] = 0x17;		/* source QP 23 */
	assert_int_equal(rt_parse_roce(b, 48, &p), 1);
	assert_true(p.has_deth);
	assert_int_equal(p.sqpn, 23);
	assert_false(rt_op_is_request(p.opcode));
}

static void parses_ipv6(void **state)
{
	uint8_t b[80];
	struct rt_pkt p;

	(void)state;
	memset(b, 0, sizeof(b));
	b[0] = 0x60 | (0x6b >> 4);	/* traffic class 0x6b: ECN 3 */
	b[1] = (0x6b & 0xf) << 4;
	b[4] = 0;
	b[5] = 28;			/* payload length */
	b[6] = 17;
	b[40 + 2] = 0x12;
	b[40 + 3] = 0xb7;
	b[48] = RT_OP_CNP;
	b[48 + 7] = 9;
	assert_int_equal(rt_parse_roce(b, 60, &p), 1);
	assert_int_equal(p.ipver, 6);
	assert_int_equal(p.ecn, 3);
	assert_int_equal(p.ip_len, 68);
	assert_int_equal(p.opcode, RT_OP_CNP);
	assert_int_equal(p.dqpn, 9);
}

static void rejects_non_roce(void **state)
{
	uint8_t b[64];
	struct rt_pkt p;

	(void)state;
	build_v4(b, 0, 0x04, 1, 1, 0);
	b[23] = 0xb8;			/* port 4792 */
	assert_int_equal(rt_parse_roce(b, sizeof(b), &p), 0);
	build_v4(b, 0, 0x04, 1, 1, 0);
	b[9] = 6;			/* TCP */
	assert_int_equal(rt_parse_roce(b, sizeof(b), &p), 0);
	build_v4(b, 0, 0x04, 1, 1, 0);
	b[6] = 0x20;			/* more fragments */
	assert_int_equal(rt_parse_roce(b, sizeof(b), &p), 0);
	build_v4(b, 0, 0x04, 1, 1, 0);
	assert_int_equal(rt_parse_roce(b, 39, &p), 0);	/* BTH cut */
	assert_int_equal(rt_parse_roce(b, 0, &p), 0);
	b[0] = 0x44;			/* IHL 4 */
	assert_int_equal(rt_parse_roce(b, sizeof(b), &p), 0);
}

static void psn_serial_order(void **state)
{
	(void)state;
	assert_true(rt_psn_after(1, 0));
	assert_false(rt_psn_after(0, 0));
	assert_false(rt_psn_after(0, 1));
	assert_true(rt_psn_after(0, 0xffffff));		/* wraps */
	assert_false(rt_psn_after(0xffffff, 0));
	assert_true(rt_psn_after(0x7fffff, 0));
	assert_false(rt_psn_after(0x800000, 0));
}

static void request_opcodes(void **state)
{
	(void)state;
	assert_true(rt_op_is_request(0x00));	/* RC SEND_FIRST */
	assert_true(rt_op_is_request(0x0c));	/* RC RDMA_READ_REQUEST */
	assert_false(rt_op_is_request(0x0d));	/* RC READ_RESPONSE_FIRST */
	assert_false(rt_op_is_request(0x12));	/* RC ATOMIC_ACKNOWLEDGE */
	assert_true(rt_op_is_request(0x13));	/* RC COMPARE_SWAP */
	assert_true(rt_op_is_request(0x2a));	/* UC RDMA_WRITE_ONLY */
	assert_false(rt_op_is_request(0x64));	/* UD SEND_ONLY */
	assert_false(rt_op_is_request(RT_OP_CNP));
}

/*
 * A packet of @op with @ulen bytes of UDP (header included) and its IP
 * length to match, parsed.
 */
static void parse_len(uint8_t *b, struct rt_pkt *p, uint8_t op,
		      unsigned int ulen)
{
	build_v4(b, 0, op, 0x11, 0, 0);
	b[2] = (20 + ulen) >> 8;
	b[3] = (20 + ulen) & 0xff;
	b[24] = ulen >> 8;
	b[25] = ulen & 0xff;
	b[28 + 2] = 0xff;		/* P_Key 0xffff */
	b[28 + 3] = 0xff;
	assert_int_equal(rt_parse_roce(b, 64, p), 1);
}

/* The header rules of software RoCE, one by one, at their boundaries. */
static void header_rules(void **state)
{
	uint8_t b[64];
	struct rt_pkt p;

	(void)state;
	/* RC SEND_ONLY: BTH and ICRC, 24 bytes of UDP at the least. */
	parse_len(b, &p, 0x04, 8 + 12 + 4);
	assert_int_equal(rt_check_hdr(&p, false), RT_GOOD);
	parse_len(b, &p, 0x04, 8 + 12 + 3);
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	/* A bare BTH, no ICRC: what a naive forger sends. */
	parse_len(b, &p, RT_OP_CNP, 8 + 12);
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	/* A CNP is exactly BTH, 16 reserved bytes and the ICRC. */
	parse_len(b, &p, RT_OP_CNP, 8 + 32);
	assert_int_equal(rt_check_hdr(&p, false), RT_GOOD);
	parse_len(b, &p, RT_OP_CNP, 8 + 36);
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	/* RDMA WRITE ONLY carries a RETH: 16 bytes more. */
	parse_len(b, &p, 0x0a, 8 + 12 + 4);
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	parse_len(b, &p, 0x0a, 8 + 28 + 4);
	assert_int_equal(rt_check_hdr(&p, false), RT_GOOD);
	/* UD SEND_ONLY carries a DETH. */
	parse_len(b, &p, 0x64, 8 + 12 + 4);
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	parse_len(b, &p, 0x64, 8 + 20 + 4);
	assert_int_equal(rt_check_hdr(&p, false), RT_GOOD);
	/* The pad counts against the payload. */
	parse_len(b, &p, 0x04, 8 + 12 + 4);
	b[28 + 1] = 0x30;		/* pad 3 */
	assert_int_equal(rt_parse_roce(b, 64, &p), 1);
	assert_int_equal(p.pad, 3);
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	/* BTH version 1. */
	parse_len(b, &p, 0x04, 8 + 16);
	b[28 + 1] = 0x01;
	assert_int_equal(rt_parse_roce(b, 64, &p), 1);
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	/* P_Key: the default 0x7fff or 0xffff only. */
	parse_len(b, &p, 0x04, 8 + 16);
	b[28 + 2] = 0x7f;
	assert_int_equal(rt_parse_roce(b, 64, &p), 1);
	assert_int_equal(rt_check_hdr(&p, false), RT_GOOD);
	b[28 + 2] = 0x12;
	b[28 + 3] = 0x34;
	assert_int_equal(rt_parse_roce(b, 64, &p), 1);
	assert_int_equal(p.pkey, 0x1234);
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	/* Destination QP 0. */
	parse_len(b, &p, 0x04, 8 + 16);
	b[28 + 7] = 0;
	assert_int_equal(rt_parse_roce(b, 64, &p), 1);
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	/* A UDP length beyond the IP length; one short of it is fine. */
	parse_len(b, &p, 0x04, 8 + 16);
	b[25] += 4;
	assert_int_equal(rt_parse_roce(b, 64, &p), 1);
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	/* IPv4 options: the ICRC covers a 20-byte header only. */
	parse_len(b, &p, 0x04, 8 + 16);
	p.ip_hlen = 24;
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	/* Opcodes rxe does not take; FLUSH only from 6.2. */
	parse_len(b, &p, 0x15, 8 + 40);
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	parse_len(b, &p, 0x40, 8 + 40);		/* RD */
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	parse_len(b, &p, 0x2c, 8 + 40);		/* UC: no READ */
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	parse_len(b, &p, 0x1c, 8 + 36);
	assert_int_equal(rt_check_hdr(&p, false), RT_BAD_HDR);
	assert_int_equal(rt_check_hdr(&p, true), RT_GOOD);
}

/* The transport headers of each opcode rxe takes (IBA chapter 9). */
static void opcode_lengths(void **state)
{
	(void)state;
	assert_int_equal(rt_op_hdr_len(0x00, false), 12);	/* SEND_FIRST */
	assert_int_equal(rt_op_hdr_len(0x05, false), 16);	/* SEND_ONLY_IMM */
	assert_int_equal(rt_op_hdr_len(0x06, false), 28);	/* WRITE_FIRST */
	assert_int_equal(rt_op_hdr_len(0x0b, false), 32);	/* WRITE_ONLY_IMM */
	assert_int_equal(rt_op_hdr_len(0x0c, false), 28);	/* READ_REQUEST */
	assert_int_equal(rt_op_hdr_len(0x11, false), 16);	/* ACK */
	assert_int_equal(rt_op_hdr_len(0x12, false), 24);	/* ATOMIC_ACK */
	assert_int_equal(rt_op_hdr_len(0x13, false), 40);	/* CMP_SWAP */
	assert_int_equal(rt_op_hdr_len(0x17, false), 16);	/* SEND_ONLY_INV */
	assert_int_equal(rt_op_hdr_len(0x18, false), 0);
	assert_int_equal(rt_op_hdr_len(0x2b, false), 32);	/* UC WRITE_ONLY_IMM */
	assert_int_equal(rt_op_hdr_len(0x65, false), 24);	/* UD SEND_ONLY_IMM */
	assert_int_equal(rt_op_hdr_len(0x66, false), 0);
	assert_int_equal(rt_op_hdr_len(0x80, false), 0);
	assert_int_equal(rt_op_hdr_len(0xff, false), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_rc_send),
		cmocka_unit_test(parses_ack_syndromes),
		cmocka_unit_test(parses_ud_source_qp),
		cmocka_unit_test(parses_ipv6),
		cmocka_unit_test(rejects_non_roce),
		cmocka_unit_test(psn_serial_order),
		cmocka_unit_test(request_opcodes),
		cmocka_unit_test(header_rules),
		cmocka_unit_test(opcode_lengths),
	};

	return cmocka_run_group_tests_name("rocetune_bth", tests, NULL, NULL);
}
