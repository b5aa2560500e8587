// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune_sim RDMA device: one RoCEv2 port on the device's netdev, the
 * verbs the RDMA core needs from a kernel verbs provider (objects are
 * accepted and kept, nothing is ever sent or received), and port hw_stats
 * with the counter names of the personality's RDMA driver.
 */

#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/idr.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "rsim.h"

#define RSIM_GID_TBL_LEN	128
#define RSIM_MAX_QP		1024
#define RSIM_MAX_WR		4096
#define RSIM_MAX_CQE		65536

/* mlx5: q-counters (32 bit), then congestion counters (64 bit) */
static const struct rsim_hw_counter rsim_mlx5_hw[] = {
	{ "rx_write_requests", true },
	{ "rx_read_requests", true },
	{ "rx_atomic_requests", true },
	{ "out_of_buffer", true },
	{ "out_of_sequence", true },
	{ "duplicate_request", true },
	{ "rnr_nak_retry_err", true },
	{ "packet_seq_err", true },
	{ "implied_nak_seq_err", true },
	{ "local_ack_timeout_err", true },
	{ "resp_local_length_error", true },
	{ "resp_cqe_error", true },
	{ "req_cqe_error", true },
	{ "req_remote_invalid_request", true },
	{ "req_remote_access_errors", true },
	{ "resp_remote_access_errors", true },
	{ "resp_cqe_flush_error", true },
	{ "req_cqe_flush_error", true },
	{ "roce_adp_retrans", true },
	{ "roce_adp_retrans_to", true },
	{ "roce_slow_restart", true },
	{ "roce_slow_restart_cnps", true },
	{ "roce_slow_restart_trans", true },
	{ "rp_cnp_ignored", false },
	{ "rp_cnp_handled", false },
	{ "np_ecn_marked_roce_packets", false },
	{ "np_cnp_sent", false },
	{ "rx_icrc_encapsulated", false },
};

/*
 * irdma (drivers/infiniband/hw/irdma/verbs.c irdma_hw_stat_names, Linux
 * 6.1), a subset: the driver adds the hardware's deltas into 64-bit
 * values (ctrl.c irdma_update_stats()), so none wraps at 32 bits.
 */
static const struct rsim_hw_counter rsim_irdma_hw[] = {
	{ "ip4InDiscards", false },
	{ "ip4InTruncatedPkts", false },
	{ "ip6InDiscards", false },
	{ "ip6InTruncatedPkts", false },
	{ "rxVlanErrors", false },
	{ "tcpInSegs", false },
	{ "tcpOutSegs", false },
	{ "tcpRetransSegs", false },
	{ "tcpInOptErrors", false },
	{ "tcpInProtoErrors", false },
	{ "ip4InOctets", false },
	{ "ip4InPkts", false },
	{ "ip4OutOctets", false },
	{ "ip4OutPkts", false },
	{ "ip6InOctets", false },
	{ "ip6InPkts", false },
	{ "ip6OutOctets", false },
	{ "ip6OutPkts", false },
	{ "RxUDP", false },
	{ "TxUDP", false },
	{ "RxECNMrkd", false },
	{ "cnpHandled", false },
	{ "cnpIgnored", false },
	{ "cnpSent", false },
};

static const struct rsim_hw_counter rsim_bnxt_re_hw[] = {
	{ "rx_pkts", false },
	{ "rx_bytes", false },
	{ "tx_pkts", false },
	{ "tx_bytes", false },
	{ "to_retransmits", false },
	{ "seq_err_naks_rcvd", false },
	{ "max_retry_exceeded", false },
	{ "rnr_naks_rcvd", false },
	{ "missing_resp", false },
	{ "dup_req", false },
	{ "oos_drop_count", false },
	{ "rx_out_of_buffer", false },
	{ "tx_cnp_pkts", false },
	{ "rx_cnp_pkts", false },
	{ "rx_ecn_marked_pkts", false },
};

/*
 * bnxt_re with the names of the rdma-next patch "RDMA/bnxt_re: RoCE
 * related hardware counters update" (2025; release not confirmed), which
 * renames five counters to mlx5's names.
 */
static const struct rsim_hw_counter rsim_bnxt_re2_hw[] = {
	{ "rx_pkts", false },
	{ "rx_bytes", false },
	{ "tx_pkts", false },
	{ "tx_bytes", false },
	{ "local_ack_timeout_err", false },
	{ "seq_err_naks_rcvd", false },
	{ "max_retry_exceeded", false },
	{ "rnr_naks_rcvd", false },
	{ "missing_resp", false },
	{ "dup_req", false },
	{ "out_of_sequence", false },
	{ "rx_out_of_buffer", false },
	{ "np_cnp_pkts", false },
	{ "rp_cnp_handled", false },
	{ "np_ecn_marked_roce_packets", false },
};

static_assert(ARRAY_SIZE(rsim_mlx5_hw) <= RSIM_HW_MAX);
static_assert(ARRAY_SIZE(rsim_bnxt_re2_hw) <= RSIM_HW_MAX);
static_assert(ARRAY_SIZE(rsim_irdma_hw) <= RSIM_HW_MAX);
static_assert(ARRAY_SIZE(rsim_bnxt_re_hw) <= RSIM_HW_MAX);

const struct rsim_personality_info rsim_personalities[] = {
	[RSIM_MLX5] = {
		.name = "mlx5",
		.pers = RSIM_MLX5,
		.driver = "mlx5_core",
		.hw = rsim_mlx5_hw,
		.num_hw = ARRAY_SIZE(rsim_mlx5_hw),
		.pfc_tunable = true,
		.pfc_link_flap = true,
		.dcbnl_ops = &rsim_dcbnl_ops_mlx5,
	},
	[RSIM_IRDMA] = {
		.name = "irdma",
		.pers = RSIM_IRDMA,
		.driver = "ice",
		.hw = rsim_irdma_hw,
		.num_hw = ARRAY_SIZE(rsim_irdma_hw),
		.dcbnl_ops = &rsim_dcbnl_ops_ice,
	},
	[RSIM_BNXT_RE] = {
		.name = "bnxt_re",
		.pers = RSIM_BNXT_RE,
		.driver = "bnxt_en",
		.hw = rsim_bnxt_re_hw,
		.num_hw = ARRAY_SIZE(rsim_bnxt_re_hw),
		.dcbnl_ops = &rsim_dcbnl_ops_bnxt,
		.ets_before_pfc = true,
	},
	/* bnxt_re in all but the counter names: rsim_bnxt_re2_hw */
	[RSIM_BNXT_RE2_INFO] = {
		.name = "bnxt_re2",
		.pers = RSIM_BNXT_RE,
		.driver = "bnxt_en",
		.hw = rsim_bnxt_re2_hw,
		.num_hw = ARRAY_SIZE(rsim_bnxt_re2_hw),
		.dcbnl_ops = &rsim_dcbnl_ops_bnxt,
		.ets_before_pfc = true,
	},
};

struct rsim_ib {
	struct ib_device ibdev;
	struct rsim_dev *rsim;
	struct rdma_stat_desc *descs;
	struct ida qpn_ida;
	atomic_t mr_key;
};

struct rsim_pd {
	struct ib_pd ibpd;
};

struct rsim_cq {
	struct ib_cq ibcq;
};

struct rsim_qp {
	struct ib_qp ibqp;
	enum ib_qp_state state;
	struct ib_qp_cap cap;
};

struct rsim_mr {
	struct ib_mr ibmr;
};

static struct rsim_ib *to_rsim_ib(struct ib_device *ibdev)
{
	return container_of(ibdev, struct rsim_ib, ibdev);
}

static struct rsim_qp *to_rsim_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct rsim_qp, ibqp);
}

static int rsim_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *attr,
			     struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = 1;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = ~0ULL;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = 0x1af4;
	attr->max_qp = RSIM_MAX_QP;
	attr->max_qp_wr = RSIM_MAX_WR;
	attr->max_send_sge = 8;
	attr->max_recv_sge = 8;
	attr->max_sge_rd = 8;
	attr->max_cq = RSIM_MAX_QP;
	attr->max_cqe = RSIM_MAX_CQE;
	attr->max_mr = RSIM_MAX_QP;
	attr->max_pd = RSIM_MAX_QP;
	attr->max_qp_rd_atom = 16;
	attr->max_qp_init_rd_atom = 16;
	attr->max_pkeys = 1;
	return 0;
}

static int rsim_query_port(struct ib_device *ibdev, u32 port,
			   struct ib_port_attr *attr)
{
	struct rsim_ib *sib = to_rsim_ib(ibdev);
	struct net_device *ndev = sib->rsim->netdev;
	bool up = netif_running(ndev) && netif_carrier_ok(ndev);

	/* The core has zeroed @attr. */
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = ib_mtu_int_to_enum(READ_ONCE(ndev->mtu));
	if (attr->active_mtu > IB_MTU_4096)
		attr->active_mtu = IB_MTU_4096;
	attr->gid_tbl_len = RSIM_GID_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = 1 << 30;
	attr->bad_pkey_cntr = 0;
	attr->pkey_tbl_len = 1;
	attr->active_speed = IB_SPEED_EDR;
	attr->active_width = IB_WIDTH_4X;
	return 0;
}

static int rsim_get_port_immutable(struct ib_device *ibdev, u32 port,
				   struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer rsim_get_link_layer(struct ib_device *ibdev,
						u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int rsim_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			   u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static int rsim_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

static int rsim_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

#ifdef RSIM_CREATE_CQ_ATTRS
static int rsim_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			  struct uverbs_attr_bundle *attrs)
#else
static int rsim_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata)
#endif
{
	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > RSIM_MAX_CQE)
		return -EINVAL;
	ibcq->cqe = attr->cqe;
	return 0;
}

static int rsim_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	return 0;
}

/* Nothing is ever sent or received: there are never completions. */
static int rsim_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	return 0;
}

static int rsim_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	return 0;
}

static int rsim_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			  struct ib_udata *udata)
{
	struct rsim_ib *sib = to_rsim_ib(ibqp->device);
	struct rsim_qp *qp = to_rsim_qp(ibqp);
	int qpn;

	if (init->create_flags)
		return -EOPNOTSUPP;
	switch (init->qp_type) {
	case IB_QPT_GSI:
		qpn = 1;
		break;
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		qpn = ida_alloc_range(&sib->qpn_ida, 2, RSIM_MAX_QP + 1,
				      GFP_KERNEL);
		if (qpn < 0)
			return qpn;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->cap.max_send_wr > RSIM_MAX_WR ||
	    init->cap.max_recv_wr > RSIM_MAX_WR) {
		if (qpn > 1)
			ida_free(&sib->qpn_ida, qpn);
		return -EINVAL;
	}
	ibqp->qp_num = qpn;
	qp->state = IB_QPS_RESET;
	qp->cap = init->cap;
	return 0;
}

static int rsim_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_udata *udata)
{
	struct rsim_qp *qp = to_rsim_qp(ibqp);
	enum ib_qp_state cur, next;

	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask))
		return -EINVAL;
	qp->state = next;
	return 0;
}

static int rsim_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_qp_init_attr *init)
{
	struct rsim_qp *qp = to_rsim_qp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->cap = qp->cap;
	init->cap = qp->cap;
	init->qp_type = ibqp->qp_type;
	return 0;
}

static int rsim_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct rsim_ib *sib = to_rsim_ib(ibqp->device);

	if (ibqp->qp_num > 1)
		ida_free(&sib->qpn_ida, ibqp->qp_num);
	return 0;
}

static int rsim_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

/* Receive buffers are accepted and never filled. */
static int rsim_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	return 0;
}

static struct ib_mr *rsim_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct rsim_ib *sib = to_rsim_ib(ibpd->device);
	struct rsim_mr *mr;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->ibmr.lkey = atomic_inc_return(&sib->mr_key);
	mr->ibmr.rkey = mr->ibmr.lkey;
	return &mr->ibmr;
}

static struct ib_mr *rsim_reg_user_mr(struct ib_pd *ibpd, u64 start,
				      u64 length, u64 virt, int access,
				      struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int rsim_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	kfree(container_of(ibmr, struct rsim_mr, ibmr));
	return 0;
}

static struct rdma_hw_stats *rsim_alloc_hw_port_stats(struct ib_device *ibdev,
						      u32 port)
{
	struct rsim_ib *sib = to_rsim_ib(ibdev);

	return rdma_alloc_hw_stats_struct(sib->descs, sib->rsim->info->num_hw,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int rsim_get_hw_stats(struct ib_device *ibdev,
			     struct rdma_hw_stats *stats, u32 port, int index)
{
	struct rsim_dev *rsim = to_rsim_ib(ibdev)->rsim;
	int i, n = min_t(int, stats->num_counters, rsim->info->num_hw);
	u32 refresh = READ_ONCE(rsim->hw_refresh_ms);
	u32 delay = READ_ONCE(rsim->hw_delay_ms);

	/* Slow firmware; the RDMA core reads hw_stats in process context. */
	if (delay)
		msleep(delay);
	spin_lock(&rsim->stats_lock);
	/*
	 * Like hardware that refreshes its counters on its own schedule
	 * (bnxt_re and irdma copy them out periodically): with hw_refresh_ms,
	 * reads in between return the values of the last refresh.
	 */
	if (!refresh || !rsim->hw_latched ||
	    time_after_eq(jiffies, rsim->hw_latched_at +
				   msecs_to_jiffies(refresh))) {
		rsim_grow_advance(rsim, jiffies);
		for (i = 0; i < n; i++)
			rsim->hw_latch[i] = rsim->cnt[RSIM_C_HW + i];
		rsim->hw_latched_at = refresh && rsim->hw_latched ?
			rsim->hw_latched_at + msecs_to_jiffies(refresh) *
			((jiffies - rsim->hw_latched_at) /
			 msecs_to_jiffies(refresh)) : jiffies;
		rsim->hw_latched = true;
	}
	for (i = 0; i < n; i++)
		stats->value[i] = rsim->hw_latch[i];
	spin_unlock(&rsim->stats_lock);
	return n;
}

static const struct ib_device_ops rsim_ib_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,

	.alloc_hw_port_stats = rsim_alloc_hw_port_stats,
	.alloc_pd = rsim_alloc_pd,
	.create_cq = rsim_create_cq,
	.create_qp = rsim_create_qp,
	.dealloc_pd = rsim_dealloc_pd,
	.dereg_mr = rsim_dereg_mr,
	.destroy_cq = rsim_destroy_cq,
	.destroy_qp = rsim_destroy_qp,
	.get_dma_mr = rsim_get_dma_mr,
	.get_hw_stats = rsim_get_hw_stats,
	.get_link_layer = rsim_get_link_layer,
	.get_port_immutable = rsim_get_port_immutable,
	.modify_qp = rsim_modify_qp,
	.poll_cq = rsim_poll_cq,
	.post_recv = rsim_post_recv,
	.post_send = rsim_post_send,
	.query_device = rsim_query_device,
	.query_pkey = rsim_query_pkey,
	.query_port = rsim_query_port,
	.query_qp = rsim_query_qp,
	.reg_user_mr = rsim_reg_user_mr,
	.req_notify_cq = rsim_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, rsim_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, rsim_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, rsim_qp, ibqp),
};

/*
 * rsim_ib_port_event - tell the RDMA core that the port went up or down.
 * Under RTNL, which also orders it against rsim_ib_exit().
 */
void rsim_ib_port_event(struct rsim_dev *rsim, bool up)
{
	struct ib_event ev = {};

	ASSERT_RTNL();
	if (!rsim->ib)
		return;
	ev.device = &rsim->ib->ibdev;
	ev.element.port_num = 1;
	ev.event = up ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

int rsim_ib_init(struct rsim_dev *rsim)
{
	const struct rsim_personality_info *info = rsim->info;
	struct rsim_ib *sib;
	char name[IB_DEVICE_NAME_MAX];
	unsigned int i;
	int err;

	sib = ib_alloc_device(rsim_ib, ibdev);
	if (!sib)
		return -ENOMEM;
	sib->rsim = rsim;
	ida_init(&sib->qpn_ida);
	sib->descs = kcalloc(info->num_hw, sizeof(*sib->descs), GFP_KERNEL);
	if (!sib->descs) {
		err = -ENOMEM;
		goto err_dealloc;
	}
	for (i = 0; i < info->num_hw; i++)
		sib->descs[i].name = info->hw[i].name;

	sib->ibdev.node_type = RDMA_NODE_IB_CA;
	sib->ibdev.phys_port_cnt = 1;
	sib->ibdev.num_comp_vectors = 1;
	sib->ibdev.dev.parent = &rsim->dev;
	addrconf_addr_eui48((u8 *)&sib->ibdev.node_guid,
			    rsim->netdev->dev_addr);
	strscpy(sib->ibdev.node_desc, RSIM_DRV_NAME,
		sizeof(sib->ibdev.node_desc));
	ib_set_device_ops(&sib->ibdev, &rsim_ib_ops);

	err = ib_device_set_netdev(&sib->ibdev, rsim->netdev, 1);
	if (err)
		goto err_free_descs;

	snprintf(name, sizeof(name), "rsim_ib%u", rsim->id);
	err = ib_register_device(&sib->ibdev, name, NULL);
	if (err)
		goto err_free_descs;

	rtnl_lock();
	rsim->ib = sib;
	rtnl_unlock();
	return 0;

err_free_descs:
	kfree(sib->descs);
err_dealloc:
	ida_destroy(&sib->qpn_ida);
	ib_dealloc_device(&sib->ibdev);
	return err;
}

void rsim_ib_exit(struct rsim_dev *rsim)
{
	struct rsim_ib *sib = rsim->ib;
	struct rdma_stat_desc *descs = sib->descs;

	rtnl_lock();
	rsim->ib = NULL;
	rtnl_unlock();

	ib_unregister_device(&sib->ibdev);
	ida_destroy(&sib->qpn_ida);
	ib_dealloc_device(&sib->ibdev);
	kfree(descs);
}
