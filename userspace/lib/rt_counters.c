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
