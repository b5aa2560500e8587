// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: port hardware counters.
 *
 * Each RoCE port gets its own struct rdma_hw_stats from the driver, read
 * by the sampling work in process context.  Raw values are accumulated
 * into 64 bits (32-bit counters may wrap), and the vendor names are mapped
 * onto one schema by rt_cnt_table, the only place that knows them.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "rocetune.h"

/*
 * The vendor-normalization table: one row per (normalized counter, vendor
 * name).  The first row of a counter that the device has wins, so rows of
 * one counter are ordered from the best source to the weakest.
 * Documentation/counters.rst has the same table with the meaning of each
 * counter.
 */
static const struct rt_cnt_source {
	int cnt;
	const char *name;
} rt_cnt_table[] = {
	/* RoCE packets sent and received */
	{ ROCETUNE_A_CNT_TX_PKTS,		"tx_pkts" },		/* bnxt_re */
	{ ROCETUNE_A_CNT_TX_PKTS,		"sent_pkts" },		/* rxe */
	{ ROCETUNE_A_CNT_RX_PKTS,		"rx_pkts" },		/* bnxt_re */
	{ ROCETUNE_A_CNT_RX_PKTS,		"rcvd_pkts" },		/* rxe */
	/* ECN-CE marked packets received (notification point) */
	{ ROCETUNE_A_CNT_RX_ECN_CE_PKTS,	"np_ecn_marked_roce_packets" },	/* mlx5 */
	{ ROCETUNE_A_CNT_RX_ECN_CE_PKTS,	"RxECNMrkd" },		/* irdma */
	{ ROCETUNE_A_CNT_RX_ECN_CE_PKTS,	"rx_ecn_marked_pkts" },	/* bnxt_re */
	{ ROCETUNE_A_CNT_RX_ECN_CE_PKTS,	"cc_rx_ce_pkts" },	/* mlx5, optional */
	/* CNPs sent (notification point) */
	{ ROCETUNE_A_CNT_TX_CNP_PKTS,		"np_cnp_sent" },	/* mlx5 */
	{ ROCETUNE_A_CNT_TX_CNP_PKTS,		"cnpSent" },		/* irdma */
	{ ROCETUNE_A_CNT_TX_CNP_PKTS,		"tx_cnp_pkts" },	/* bnxt_re */
	{ ROCETUNE_A_CNT_TX_CNP_PKTS,		"np_cnp_pkts" },	/* bnxt_re, renamed */
	{ ROCETUNE_A_CNT_TX_CNP_PKTS,		"cc_tx_cnp_pkts" },	/* mlx5, optional */
	/* CNPs received and acted upon (reaction point) */
	{ ROCETUNE_A_CNT_RX_CNP_PKTS,		"rp_cnp_handled" },	/* mlx5 */
	{ ROCETUNE_A_CNT_RX_CNP_PKTS,		"cnpHandled" },		/* irdma */
	{ ROCETUNE_A_CNT_RX_CNP_PKTS,		"rx_cnp_pkts" },	/* bnxt_re */
	{ ROCETUNE_A_CNT_RX_CNP_PKTS,		"cc_rx_cnp_pkts" },	/* mlx5, optional */
	/* CNPs received and ignored */
	{ ROCETUNE_A_CNT_RX_CNP_IGNORED_PKTS,	"rp_cnp_ignored" },	/* mlx5 */
	{ ROCETUNE_A_CNT_RX_CNP_IGNORED_PKTS,	"cnpIgnored" },		/* irdma */
	/* packets received out of sequence */
	{ ROCETUNE_A_CNT_OUT_OF_SEQUENCE,	"out_of_sequence" },	/* mlx5 */
	{ ROCETUNE_A_CNT_OUT_OF_SEQUENCE,	"oos_drop_count" },	/* bnxt_re */
	{ ROCETUNE_A_CNT_OUT_OF_SEQUENCE,	"out_of_seq_request" },	/* rxe */
	/* sequence-error NAKs received */
	{ ROCETUNE_A_CNT_RX_SEQ_ERR_NAKS,	"packet_seq_err" },	/* mlx5 */
	{ ROCETUNE_A_CNT_RX_SEQ_ERR_NAKS,	"seq_err_naks_rcvd" },	/* bnxt_re */
	{ ROCETUNE_A_CNT_RX_SEQ_ERR_NAKS,	"rcvd_seq_err" },	/* rxe */
	/* RNR NAKs received */
	{ ROCETUNE_A_CNT_RX_RNR_NAKS,		"rnr_nak_retry_err" },	/* mlx5 */
	{ ROCETUNE_A_CNT_RX_RNR_NAKS,		"rnr_naks_rcvd" },	/* bnxt_re */
	{ ROCETUNE_A_CNT_RX_RNR_NAKS,		"rcvd_rnr_err" },	/* rxe */
	/* ACK timeouts of the requester */
	{ ROCETUNE_A_CNT_LOCAL_ACK_TIMEOUTS,	"local_ack_timeout_err" },	/* mlx5 */
	{ ROCETUNE_A_CNT_LOCAL_ACK_TIMEOUTS,	"to_retransmits" },	/* bnxt_re */
	/* duplicate requests received */
	{ ROCETUNE_A_CNT_DUPLICATE_REQUESTS,	"duplicate_request" },	/* mlx5, rxe */
	{ ROCETUNE_A_CNT_DUPLICATE_REQUESTS,	"dup_req" },		/* bnxt_re */
};

/**
 * rt_hw_enabled - does a hardware counter have a value
 * @hw: the port's hw_stats
 * @i: the counter's index
 *
 * An optional counter (mlx5's cc_* and others) is disabled until the RDMA
 * core enables it, which it never does for the hw_stats structure this
 * module has the driver allocate: the driver does not read it, and it is
 * reported absent rather than zero.
 *
 * Return: true when counter @i is read.
 */
bool rt_hw_enabled(const struct rdma_hw_stats *hw, int i)
{
	return !hw->is_disabled || !test_bit(i, hw->is_disabled);
}

static int rt_hw_index(const struct rdma_hw_stats *hw, const char *name)
{
	int i;

	for (i = 0; i < hw->num_counters; i++)
		if (hw->descs[i].name && !strcmp(hw->descs[i].name, name) &&
		    rt_hw_enabled(hw, i))
			return i;
	return -1;
}

static void rt_cnt_map_build(struct rt_port *p)
{
	unsigned int i;
	int idx;

	for (i = 0; i < ARRAY_SIZE(p->cnt_map); i++)
		p->cnt_map[i] = -1;
	if (!p->hw)
		return;
	for (i = 0; i < ARRAY_SIZE(rt_cnt_table); i++) {
		const struct rt_cnt_source *src = &rt_cnt_table[i];

		if (p->cnt_map[src->cnt] >= 0)
			continue;
		idx = rt_hw_index(p->hw, src->name);
		if (idx >= 0)
			p->cnt_map[src->cnt] = idx;
	}
}

/**
 * rt_counters_init - set up the hardware counters of a port
 * @rdev: the device
 * @p: the port, whose @port is set
 *
 * A port whose driver has no per-port hw_stats gets no counters (all
 * normalized counters absent); that is not an error.
 *
 * Return: 0, or -ENOMEM.
 */
int rt_counters_init(struct rt_dev *rdev, struct rt_port *p)
{
	struct ib_device *ibdev = rdev->ibdev;
	struct rdma_hw_stats *hw;
	int err = 0;

	rt_cnt_map_build(p);
	if (!ibdev->ops.alloc_hw_port_stats || !ibdev->ops.get_hw_stats)
		return 0;
	hw = ibdev->ops.alloc_hw_port_stats(ibdev, p->port);
	if (!hw)
		return 0;
	if (hw->num_counters <= 0)
		goto err_free_hw;
	err = -ENOMEM;
	p->hw_raw = kcalloc(hw->num_counters, sizeof(u64), GFP_KERNEL);
	if (!p->hw_raw)
		goto err_free_hw;
	p->hw_acc = kcalloc(hw->num_counters, sizeof(u64), GFP_KERNEL);
	if (!p->hw_acc)
		goto err_free_raw;
	p->hw = hw;
	rt_cnt_map_build(p);
	return 0;

err_free_raw:
	kfree(p->hw_raw);
	p->hw_raw = NULL;
err_free_hw:
	rdma_free_hw_stats_struct(hw);
	return err;
}

/**
 * rt_counters_fini - free what rt_counters_init() allocated
 * @p: the port; its sampling work must be stopped
 */
void rt_counters_fini(struct rt_port *p)
{
	if (!p->hw)
		return;
	kfree(p->hw_acc);
	kfree(p->hw_raw);
	rdma_free_hw_stats_struct(p->hw);
	p->hw = NULL;
}

/**
 * rt_counters_read - read a port's hardware counters and update the totals
 * @rdev: the device
 * @p: the port, which has hw_stats
 * @now: CLOCK_MONOTONIC time of this read
 * @periodic: a sample of the sampling work, which also computes the rates
 *
 * Rates always cover the time between two periodic samples: an on-demand
 * read in between updates the totals only, so that it neither shortens the
 * rate window nor makes a rate out of a few milliseconds.
 *
 * Context: process context, rdev->lock held and the device not dying
 * (the driver may sleep); no global lock.
 */
void rt_counters_read(struct rt_dev *rdev, struct rt_port *p, u64 now,
		      bool periodic)
{
	struct ib_device *ibdev = rdev->ibdev;
	struct rdma_hw_stats *hw = p->hw;
	bool had = p->hw_valid;
	u64 dt_ns;
	int i, ret;

	lockdep_assert_held(&rdev->lock);
	mutex_lock(&hw->lock);
	ret = ibdev->ops.get_hw_stats(ibdev, hw, p->port, 0);
	if (ret >= 0) {
		for (i = 0; i < hw->num_counters; i++) {
			u64 cur = hw->value[i];

			if (had)
				p->hw_acc[i] += rt_delta(p->hw_raw[i], cur);
			else
				p->hw_acc[i] = cur;
			p->hw_raw[i] = cur;
		}
	}
	mutex_unlock(&hw->lock);
	if (ret < 0) {
		pr_debug("device %u port %u: reading hw counters failed: %d\n",
			 rdev->index, p->port, ret);
		if (periodic) {
			p->rates_valid = false;
			p->base_ns = 0;
		}
		return;
	}

	p->hw_valid = true;
	if (!periodic)
		return;
	dt_ns = p->base_ns ? now - p->base_ns : 0;
	p->rates_valid = dt_ns != 0;
	for (i = 0; i < RT_NUM_CNT; i++) {
		u64 cur = p->cnt_map[i] >= 0 ? p->hw_acc[p->cnt_map[i]] : 0;

		p->cnt_rate[i] = p->rates_valid && p->cnt_map[i] >= 0 ?
				 rt_rate(cur - p->cnt_base[i], dt_ns) : 0;
		p->cnt_base[i] = cur;
	}
	p->base_ns = now;
}
