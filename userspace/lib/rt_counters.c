// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: the vendor-normalized port counters.
 */
#include <errno.h>
#include <string.h>

#include <netlink/attr.h>

#include "rt_counters.h"

const struct rt_counter_desc rt_counter_descs[] = {
	{ ROCETUNE_A_CNT_TX_PKTS, "tx_pkts", "tx-pkts",
	  "RoCE packets transmitted" },
	{ ROCETUNE_A_CNT_RX_PKTS, "rx_pkts", "rx-pkts",
	  "RoCE packets received" },
	{ ROCETUNE_A_CNT_RX_ECN_CE_PKTS, "rx_ecn_ce_pkts", "rx-ecn-ce-pkts",
	  "RoCE packets received with ECN Congestion Experienced" },
	{ ROCETUNE_A_CNT_TX_CNP_PKTS, "tx_cnp_pkts", "tx-cnp-pkts",
	  "Congestion Notification Packets sent" },
	{ ROCETUNE_A_CNT_RX_CNP_PKTS, "rx_cnp_pkts", "rx-cnp-pkts",
	  "Congestion Notification Packets received" },
	{ ROCETUNE_A_CNT_RX_CNP_IGNORED_PKTS, "rx_cnp_ignored_pkts",
	  "rx-cnp-ignored-pkts",
	  "Congestion Notification Packets received and ignored" },
	{ ROCETUNE_A_CNT_OUT_OF_SEQUENCE, "out_of_sequence", "out-of-sequence",
	  "Packets received out of sequence" },
	{ ROCETUNE_A_CNT_RX_SEQ_ERR_NAKS, "rx_seq_err_naks", "rx-seq-err-naks",
	  "Sequence error NAKs received" },
	{ ROCETUNE_A_CNT_RX_RNR_NAKS, "rx_rnr_naks", "rx-rnr-naks",
	  "Receiver-not-ready NAKs received" },
	{ ROCETUNE_A_CNT_LOCAL_ACK_TIMEOUTS, "local_ack_timeouts",
	  "local-ack-timeouts", "Local ACK timeouts (retransmissions)" },
	{ ROCETUNE_A_CNT_DUPLICATE_REQUESTS, "duplicate_requests",
	  "duplicate-requests", "Duplicate requests received" },
};

const size_t rt_counter_ndescs = ARRAY_SIZE(rt_counter_descs);

const struct rt_counter_desc rt_qp_counter_descs[] = {
	{ ROCETUNE_A_QP_RX_PKTS, "rx_pkts", "rx-pkts",
	  "RoCE packets received by the QP" },
	{ ROCETUNE_A_QP_RX_BYTES, "rx_bytes", "rx-bytes",
	  "Bytes (IP length) received by the QP" },
	{ ROCETUNE_A_QP_TX_PKTS, "tx_pkts", "tx-pkts",
	  "RoCE packets sent by the QP" },
	{ ROCETUNE_A_QP_TX_BYTES, "tx_bytes", "tx-bytes",
	  "Bytes (IP length) sent by the QP" },
	{ ROCETUNE_A_QP_RX_ECN_CE_PKTS, "rx_ecn_ce_pkts", "rx-ecn-ce-pkts",
	  "Packets received with ECN Congestion Experienced" },
	{ ROCETUNE_A_QP_RX_ECN_ECT_PKTS, "rx_ecn_ect_pkts", "rx-ecn-ect-pkts",
	  "Packets received ECN-capable, not marked" },
	{ ROCETUNE_A_QP_TX_ECN_ECT_PKTS, "tx_ecn_ect_pkts", "tx-ecn-ect-pkts",
	  "Packets sent ECN-capable" },
	{ ROCETUNE_A_QP_RX_CNP_PKTS, "rx_cnp_pkts", "rx-cnp-pkts",
	  "Congestion Notification Packets received" },
	{ ROCETUNE_A_QP_TX_CNP_PKTS, "tx_cnp_pkts", "tx-cnp-pkts",
	  "Congestion Notification Packets sent" },
	{ ROCETUNE_A_QP_RX_NAK_SEQ_ERR, "rx_nak_seq_err", "rx-nak-seq-err",
	  "PSN sequence error NAKs received" },
	{ ROCETUNE_A_QP_RX_RNR_NAK, "rx_rnr_nak", "rx-rnr-nak",
	  "Receiver-not-ready NAKs received" },
	{ ROCETUNE_A_QP_TX_NAK_SEQ_ERR, "tx_nak_seq_err", "tx-nak-seq-err",
	  "PSN sequence error NAKs sent" },
	{ ROCETUNE_A_QP_TX_RNR_NAK, "tx_rnr_nak", "tx-rnr-nak",
	  "Receiver-not-ready NAKs sent" },
	{ ROCETUNE_A_QP_TX_RETRANSMIT_PKTS, "tx_retransmit_pkts",
	  "tx-retransmit-pkts", "Request packets retransmitted" },
	{ ROCETUNE_A_QP_RX_ACKREQ_PKTS, "rx_ackreq_pkts", "rx-ackreq-pkts",
	  "Packets received with the AckReq bit" },
};

const size_t rt_qp_counter_ndescs = ARRAY_SIZE(rt_qp_counter_descs);

const struct rt_counter_desc *rt_qp_counter_by_name(const char *name)
{
	size_t i;

	for (i = 0; name && i < rt_qp_counter_ndescs; i++)
		if (!strcmp(rt_qp_counter_descs[i].key, name) ||
		    !strcmp(rt_qp_counter_descs[i].label, name))
			return &rt_qp_counter_descs[i];
	return NULL;
}

const struct rt_counter_desc *rt_counter_by_attr(unsigned int attr)
{
	size_t i;

	for (i = 0; i < rt_counter_ndescs; i++)
		if (rt_counter_descs[i].attr == attr)
			return &rt_counter_descs[i];
	return NULL;
}

const struct rt_counter_desc *rt_counter_by_key(const char *key)
{
	size_t i;

	for (i = 0; key && i < rt_counter_ndescs; i++)
		if (!strcmp(rt_counter_descs[i].key, key))
			return &rt_counter_descs[i];
	return NULL;
}

int rt_counter_set_parse(struct rt_counter_set *cs, struct nlattr *nest)
{
	struct nlattr *a;
	int rem;

	memset(cs, 0, sizeof(*cs));
	nla_for_each_nested(a, nest, rem) {
		int type = nla_type(a);

		if (type <= ROCETUNE_A_CNT_PAD || type > ROCETUNE_A_CNT_MAX)
			continue;
		if (nla_len(a) != sizeof(uint64_t))
			return -EINVAL;
		cs->val[type] = nla_get_u64(a);
		cs->present |= 1U << type;
	}
	return 0;
}
