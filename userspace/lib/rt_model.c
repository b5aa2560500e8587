// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: parsing netlink messages into the model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "rt_model.h"

static struct nla_policy rt_policy[ROCETUNE_A_MAX + 1] = {
	[ROCETUNE_A_DEV_INDEX]		= { .type = NLA_U32 },
	[ROCETUNE_A_DEV_NAME]		= { .type = NLA_STRING },
	[ROCETUNE_A_DEV_DRIVER]		= { .type = NLA_STRING },
	[ROCETUNE_A_DEV_NUM_PORTS]	= { .type = NLA_U32 },
	[ROCETUNE_A_PORT_INDEX]		= { .type = NLA_U32 },
	[ROCETUNE_A_PORT_STATE]		= { .type = NLA_U8 },
	[ROCETUNE_A_PORT_NETDEV_IFINDEX] = { .type = NLA_U32 },
	[ROCETUNE_A_PORT_NETDEV_NAME]	= { .type = NLA_STRING },
	[ROCETUNE_A_PORT_LOWER_IFINDEX]	= { .type = NLA_U32 },
	[ROCETUNE_A_PORT_LOWER_NAME]	= { .type = NLA_STRING },
	[ROCETUNE_A_COUNTERS]		= { .type = NLA_NESTED },
	[ROCETUNE_A_RATES]		= { .type = NLA_NESTED },
	[ROCETUNE_A_HW_COUNTERS]	= { .type = NLA_NESTED },
	[ROCETUNE_A_PFC]		= { .type = NLA_NESTED },
	[ROCETUNE_A_SAMPLE_TIME_NS]	= { .type = NLA_U64 },
	[ROCETUNE_A_INTERVAL_MS]	= { .type = NLA_U32 },
	[ROCETUNE_A_STORM_MS]		= { .type = NLA_U32 },
	[ROCETUNE_A_CNP_RATE_THRESH]	= { .type = NLA_U64 },
	[ROCETUNE_A_ECN_RATE_THRESH]	= { .type = NLA_U64 },
	[ROCETUNE_A_EVENT_TYPE]		= { .type = NLA_U32 },
	[ROCETUNE_A_EVENT_TIME_NS]	= { .type = NLA_U64 },
	[ROCETUNE_A_EVENT_PRIO]		= { .type = NLA_U8 },
	[ROCETUNE_A_EVENT_VALUE]	= { .type = NLA_U64 },
	[ROCETUNE_A_EVENT_THRESH]	= { .type = NLA_U64 },
	[ROCETUNE_A_EVENT_DURATION_MS]	= { .type = NLA_U64 },
	[ROCETUNE_A_DEV_OLD_NAME]	= { .type = NLA_STRING },
	[ROCETUNE_A_QP]			= { .type = NLA_NESTED },
	[ROCETUNE_A_QP_GEN]		= { .type = NLA_U64 },
};

static struct nla_policy rt_hwc_policy[ROCETUNE_A_HWC_MAX + 1] = {
	[ROCETUNE_A_HWC_NAME]		= { .type = NLA_STRING },
	[ROCETUNE_A_HWC_VALUE]		= { .type = NLA_U64 },
};

static struct nla_policy rt_pfc_policy[ROCETUNE_A_PFC_MAX + 1] = {
	[ROCETUNE_A_PFC_CAP]		= { .type = NLA_U8 },
	[ROCETUNE_A_PFC_ENABLED]	= { .type = NLA_U8 },
	[ROCETUNE_A_PFC_PRIO]		= { .type = NLA_NESTED },
};

static struct nla_policy rt_prio_policy[ROCETUNE_A_PRIO_MAX + 1] = {
	[ROCETUNE_A_PRIO_INDEX]		= { .type = NLA_U8 },
	[ROCETUNE_A_PRIO_TX_PAUSE]	= { .type = NLA_U64 },
	[ROCETUNE_A_PRIO_RX_PAUSE]	= { .type = NLA_U64 },
	[ROCETUNE_A_PRIO_TX_PAUSE_RATE]	= { .type = NLA_U64 },
	[ROCETUNE_A_PRIO_RX_PAUSE_RATE]	= { .type = NLA_U64 },
	[ROCETUNE_A_PRIO_RX_PAUSE_DURATION_US] = { .type = NLA_U64 },
	[ROCETUNE_A_PRIO_TX_PAUSE_DURATION_US] = { .type = NLA_U64 },
	[ROCETUNE_A_PRIO_STORM]		= { .type = NLA_U8 },
};

static uint64_t rt_attr_mask(struct nlattr **tb, int max)
{
	uint64_t mask = 0;
	int i;

	for (i = 1; i <= max && i < 64; i++)
		if (tb[i])
			mask |= RT_BIT(i);
	return mask;
}

static void rt_get_name(char *dst, const struct nlattr *a)
{
	if (a)
		snprintf(dst, RT_NAME_LEN, "%s", (const char *)nla_data(a));
}

static uint32_t rt_get_u32(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

static uint64_t rt_get_u64(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static uint8_t rt_get_u8(struct nlattr *a)
{
	return a ? nla_get_u8(a) : 0;
}

/* Top-level attributes of @nlh into @tb, validated; returns their mask. */
static int rt_parse_top(const struct nlmsghdr *nlh, struct nlattr **tb,
			uint64_t *mask)
{
	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, ROCETUNE_A_MAX,
			  rt_policy) < 0)
		return -EINVAL;
	*mask = rt_attr_mask(tb, ROCETUNE_A_MAX);
	return 0;
}

int rt_dev_parse(const struct nlmsghdr *nlh, struct rt_dev *dev)
{
	struct nlattr *tb[ROCETUNE_A_MAX + 1];
	int err;

	memset(dev, 0, sizeof(*dev));
	err = rt_parse_top(nlh, tb, &dev->attrs);
	if (err)
		return err;
	dev->index = rt_get_u32(tb[ROCETUNE_A_DEV_INDEX]);
	dev->num_ports = rt_get_u32(tb[ROCETUNE_A_DEV_NUM_PORTS]);
	rt_get_name(dev->name, tb[ROCETUNE_A_DEV_NAME]);
	rt_get_name(dev->driver, tb[ROCETUNE_A_DEV_DRIVER]);
	return 0;
}

static int rt_hwc_parse_entry(struct rt_port *port, struct nlattr *entry)
{
	struct nlattr *tb[ROCETUNE_A_HWC_MAX + 1];
	struct rt_hwc *hwc;

	if (nla_parse_nested(tb, ROCETUNE_A_HWC_MAX, entry, rt_hwc_policy) < 0)
		return -EINVAL;
	if (!tb[ROCETUNE_A_HWC_NAME] || !tb[ROCETUNE_A_HWC_VALUE])
		return -EINVAL;
	hwc = realloc(port->hwc, (port->nhwc + 1) * sizeof(*hwc));
	if (!hwc)
		return -ENOMEM;
	port->hwc = hwc;
	hwc = &port->hwc[port->nhwc];
	hwc->name = strdup(nla_get_string(tb[ROCETUNE_A_HWC_NAME]));
	if (!hwc->name)
		return -ENOMEM;
	hwc->value = nla_get_u64(tb[ROCETUNE_A_HWC_VALUE]);
	port->nhwc++;
	return 0;
}

static int rt_hwc_parse(struct rt_port *port, struct nlattr *nest)
{
	struct nlattr *a;
	int rem, err;

	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) != ROCETUNE_A_HWC_ENTRY)
			continue;
		err = rt_hwc_parse_entry(port, a);
		if (err)
			return err;
	}
	return 0;
}

static int rt_prio_parse(struct rt_prio *prio, struct nlattr *nest)
{
	struct nlattr *tb[ROCETUNE_A_PRIO_MAX + 1];

	if (nla_parse_nested(tb, ROCETUNE_A_PRIO_MAX, nest, rt_prio_policy) < 0)
		return -EINVAL;
	if (!tb[ROCETUNE_A_PRIO_INDEX] ||
	    nla_get_u8(tb[ROCETUNE_A_PRIO_INDEX]) >= RT_PFC_PRIOS)
		return -EINVAL;
	prio->attrs = rt_attr_mask(tb, ROCETUNE_A_PRIO_MAX);
	prio->index = nla_get_u8(tb[ROCETUNE_A_PRIO_INDEX]);
	prio->tx_pause = rt_get_u64(tb[ROCETUNE_A_PRIO_TX_PAUSE]);
	prio->rx_pause = rt_get_u64(tb[ROCETUNE_A_PRIO_RX_PAUSE]);
	prio->tx_pause_rate = rt_get_u64(tb[ROCETUNE_A_PRIO_TX_PAUSE_RATE]);
	prio->rx_pause_rate = rt_get_u64(tb[ROCETUNE_A_PRIO_RX_PAUSE_RATE]);
	prio->rx_pause_duration_us =
		rt_get_u64(tb[ROCETUNE_A_PRIO_RX_PAUSE_DURATION_US]);
	prio->tx_pause_duration_us =
		rt_get_u64(tb[ROCETUNE_A_PRIO_TX_PAUSE_DURATION_US]);
	prio->storm = rt_get_u8(tb[ROCETUNE_A_PRIO_STORM]) != 0;
	return 0;
}

static int rt_pfc_parse(struct rt_pfc *pfc, struct nlattr *nest)
{
	struct nlattr *tb[ROCETUNE_A_PFC_MAX + 1];
	struct nlattr *a;
	int rem, err;

	if (nla_parse_nested(tb, ROCETUNE_A_PFC_MAX, nest, rt_pfc_policy) < 0)
		return -EINVAL;
	pfc->attrs = rt_attr_mask(tb, ROCETUNE_A_PFC_MAX);
	pfc->cap = rt_get_u8(tb[ROCETUNE_A_PFC_CAP]);
	pfc->enabled = rt_get_u8(tb[ROCETUNE_A_PFC_ENABLED]);
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) != ROCETUNE_A_PFC_PRIO)
			continue;
		if (pfc->nprio == RT_PFC_PRIOS)
			return -EINVAL;
		err = rt_prio_parse(&pfc->prio[pfc->nprio], a);
		if (err)
			return err;
		pfc->nprio++;
	}
	return 0;
}

static int rt_port_parse_nests(struct rt_port *port, struct nlattr **tb)
{
	int err = 0;

	if (tb[ROCETUNE_A_COUNTERS])
		err = rt_counter_set_parse(&port->counters, tb[ROCETUNE_A_COUNTERS]);
	if (!err && tb[ROCETUNE_A_RATES])
		err = rt_counter_set_parse(&port->rates, tb[ROCETUNE_A_RATES]);
	if (!err && tb[ROCETUNE_A_HW_COUNTERS])
		err = rt_hwc_parse(port, tb[ROCETUNE_A_HW_COUNTERS]);
	if (!err && tb[ROCETUNE_A_PFC])
		err = rt_pfc_parse(&port->pfc, tb[ROCETUNE_A_PFC]);
	return err;
}

int rt_port_parse(const struct nlmsghdr *nlh, struct rt_port *port)
{
	struct nlattr *tb[ROCETUNE_A_MAX + 1];
	int err;

	memset(port, 0, sizeof(*port));
	err = rt_parse_top(nlh, tb, &port->attrs);
	if (err)
		return err;
	port->dev_index = rt_get_u32(tb[ROCETUNE_A_DEV_INDEX]);
	port->port = rt_get_u32(tb[ROCETUNE_A_PORT_INDEX]);
	port->state = rt_get_u8(tb[ROCETUNE_A_PORT_STATE]);
	port->netdev_ifindex = rt_get_u32(tb[ROCETUNE_A_PORT_NETDEV_IFINDEX]);
	port->lower_ifindex = rt_get_u32(tb[ROCETUNE_A_PORT_LOWER_IFINDEX]);
	port->sample_time_ns = rt_get_u64(tb[ROCETUNE_A_SAMPLE_TIME_NS]);
	rt_get_name(port->dev, tb[ROCETUNE_A_DEV_NAME]);
	rt_get_name(port->netdev, tb[ROCETUNE_A_PORT_NETDEV_NAME]);
	rt_get_name(port->lower, tb[ROCETUNE_A_PORT_LOWER_NAME]);
	return rt_port_parse_nests(port, tb);
}

void rt_port_free(struct rt_port *port)
{
	size_t i;

	for (i = 0; i < port->nhwc; i++)
		free(port->hwc[i].name);
	free(port->hwc);
	port->hwc = NULL;
	port->nhwc = 0;
}

int rt_config_parse(const struct nlmsghdr *nlh, struct rt_config *cfg)
{
	struct nlattr *tb[ROCETUNE_A_MAX + 1];
	int err;

	memset(cfg, 0, sizeof(*cfg));
	err = rt_parse_top(nlh, tb, &cfg->attrs);
	if (err)
		return err;
	cfg->dev_index = rt_get_u32(tb[ROCETUNE_A_DEV_INDEX]);
	cfg->interval_ms = rt_get_u32(tb[ROCETUNE_A_INTERVAL_MS]);
	cfg->storm_ms = rt_get_u32(tb[ROCETUNE_A_STORM_MS]);
	cfg->cnp_rate_thresh = rt_get_u64(tb[ROCETUNE_A_CNP_RATE_THRESH]);
	cfg->ecn_rate_thresh = rt_get_u64(tb[ROCETUNE_A_ECN_RATE_THRESH]);
	rt_get_name(cfg->dev, tb[ROCETUNE_A_DEV_NAME]);
	return 0;
}

int rt_event_parse(const struct nlmsghdr *nlh, struct rt_event *ev)
{
	struct nlattr *tb[ROCETUNE_A_MAX + 1];
	int err;

	memset(ev, 0, sizeof(*ev));
	err = rt_parse_top(nlh, tb, &ev->attrs);
	if (err)
		return err;
	ev->type = rt_get_u32(tb[ROCETUNE_A_EVENT_TYPE]);
	ev->dev_index = rt_get_u32(tb[ROCETUNE_A_DEV_INDEX]);
	ev->port = rt_get_u32(tb[ROCETUNE_A_PORT_INDEX]);
	ev->state = rt_get_u8(tb[ROCETUNE_A_PORT_STATE]);
	ev->prio = rt_get_u8(tb[ROCETUNE_A_EVENT_PRIO]);
	ev->netdev_ifindex = rt_get_u32(tb[ROCETUNE_A_PORT_NETDEV_IFINDEX]);
	ev->value = rt_get_u64(tb[ROCETUNE_A_EVENT_VALUE]);
	ev->thresh = rt_get_u64(tb[ROCETUNE_A_EVENT_THRESH]);
	ev->duration_ms = rt_get_u64(tb[ROCETUNE_A_EVENT_DURATION_MS]);
	ev->time_ns = rt_get_u64(tb[ROCETUNE_A_EVENT_TIME_NS]);
	rt_get_name(ev->dev, tb[ROCETUNE_A_DEV_NAME]);
	rt_get_name(ev->old_name, tb[ROCETUNE_A_DEV_OLD_NAME]);
	rt_get_name(ev->netdev, tb[ROCETUNE_A_PORT_NETDEV_NAME]);
	return 0;
}

static struct nla_policy rt_qp_policy[ROCETUNE_A_QP_MAX + 1] = {
	[ROCETUNE_A_QP_QPN]		= { .type = NLA_U32 },
	[ROCETUNE_A_QP_TYPE]		= { .type = NLA_U8 },
	[ROCETUNE_A_QP_REMOTE_QPN]	= { .type = NLA_U32 },
	[ROCETUNE_A_QP_PID]		= { .type = NLA_U32 },
	[ROCETUNE_A_QP_COMM]		= { .type = NLA_STRING },
	[ROCETUNE_A_QP_CHANGED_GEN]	= { .type = NLA_U64 },
	[ROCETUNE_A_QP_FIRST_SEEN_NS]	= { .type = NLA_U64 },
	[ROCETUNE_A_QP_LAST_SEEN_NS]	= { .type = NLA_U64 },
	[ROCETUNE_A_QP_HW_COUNTERS]	= { .type = NLA_NESTED },
	[ROCETUNE_A_QP_DEV_INDEX]	= { .type = NLA_U32 },
	[ROCETUNE_A_QP_DESTROYED_NS]	= { .type = NLA_U64 },
	[ROCETUNE_A_QP_TOP_DELTA]	= { .type = NLA_U64 },
	[ROCETUNE_A_QP_PORT]		= { .type = NLA_U32 },
	[ROCETUNE_A_QP_RP_PACED]	= { .type = NLA_U8 },
	[ROCETUNE_A_QP_RP_RATE_KBPS]	= { .type = NLA_U64 },
	[ROCETUNE_A_QP_RP_TARGET_KBPS]	= { .type = NLA_U64 },
	[ROCETUNE_A_QP_RP_ALPHA]	= { .type = NLA_U32 },
	[ROCETUNE_A_QP_RP_CNPS]		= { .type = NLA_U64 },
	[ROCETUNE_A_QP_RP_CUTS]		= { .type = NLA_U64 },
	[ROCETUNE_A_QP_RP_RELEASES]	= { .type = NLA_U64 },
	[ROCETUNE_A_QP_RTT_SAMPLES]	= { .type = NLA_U64 },
	[ROCETUNE_A_QP_RTT_P50_NS]	= { .type = NLA_U64 },
	[ROCETUNE_A_QP_RTT_P99_NS]	= { .type = NLA_U64 },
	[ROCETUNE_A_QP_JITTER_P50_NS]	= { .type = NLA_U64 },
	[ROCETUNE_A_QP_JITTER_P99_NS]	= { .type = NLA_U64 },
	[ROCETUNE_A_QP_RTT_PACING_NS]	= { .type = NLA_U64 },
};

int rt_qp_parse(const struct nlmsghdr *nlh, struct rt_qp *qp)
{
	struct nlattr *tb[ROCETUNE_A_MAX + 1], *q[ROCETUNE_A_QP_MAX + 1];
	size_t i;
	int err;

	memset(qp, 0, sizeof(*qp));
	err = rt_parse_top(nlh, tb, &qp->attrs);
	if (err)
		return err;
	if (!tb[ROCETUNE_A_QP] ||
	    nla_parse_nested(q, ROCETUNE_A_QP_MAX, tb[ROCETUNE_A_QP],
			     rt_qp_policy) < 0 ||
	    !q[ROCETUNE_A_QP_QPN])
		return -EINVAL;
	/* The counters are u64: one of another size is malformed. */
	for (i = 0; i < rt_qp_counter_ndescs; i++) {
		struct nlattr *a = q[rt_qp_counter_descs[i].attr];

		if (a && nla_len(a) != sizeof(uint64_t))
			return -EINVAL;
		qp->cnt[rt_qp_counter_descs[i].attr] = rt_get_u64(a);
	}
	qp->qattrs = rt_attr_mask(q, ROCETUNE_A_QP_MAX);
	qp->dev_index = rt_get_u32(tb[ROCETUNE_A_DEV_INDEX]);
	rt_get_name(qp->dev, tb[ROCETUNE_A_DEV_NAME]);
	qp->gen = rt_get_u64(tb[ROCETUNE_A_QP_GEN]);
	qp->qpn = rt_get_u32(q[ROCETUNE_A_QP_QPN]);
	qp->port = rt_get_u32(q[ROCETUNE_A_QP_PORT]);
	qp->type = rt_get_u8(q[ROCETUNE_A_QP_TYPE]);
	qp->remote_qpn = rt_get_u32(q[ROCETUNE_A_QP_REMOTE_QPN]);
	qp->pid = rt_get_u32(q[ROCETUNE_A_QP_PID]);
	rt_get_name(qp->comm, q[ROCETUNE_A_QP_COMM]);
	qp->changed_gen = rt_get_u64(q[ROCETUNE_A_QP_CHANGED_GEN]);
	qp->first_seen_ns = rt_get_u64(q[ROCETUNE_A_QP_FIRST_SEEN_NS]);
	qp->last_seen_ns = rt_get_u64(q[ROCETUNE_A_QP_LAST_SEEN_NS]);
	qp->destroyed_ns = rt_get_u64(q[ROCETUNE_A_QP_DESTROYED_NS]);
	qp->top_delta = rt_get_u64(q[ROCETUNE_A_QP_TOP_DELTA]);
	qp->rp_paced = rt_get_u8(q[ROCETUNE_A_QP_RP_PACED]);
	qp->rp_alpha = rt_get_u32(q[ROCETUNE_A_QP_RP_ALPHA]);
	qp->rp_rate_kbps = rt_get_u64(q[ROCETUNE_A_QP_RP_RATE_KBPS]);
	qp->rp_target_kbps = rt_get_u64(q[ROCETUNE_A_QP_RP_TARGET_KBPS]);
	qp->rp_cnps = rt_get_u64(q[ROCETUNE_A_QP_RP_CNPS]);
	qp->rp_cuts = rt_get_u64(q[ROCETUNE_A_QP_RP_CUTS]);
	qp->rp_releases = rt_get_u64(q[ROCETUNE_A_QP_RP_RELEASES]);
	qp->rtt_samples = rt_get_u64(q[ROCETUNE_A_QP_RTT_SAMPLES]);
	qp->rtt_p50_ns = rt_get_u64(q[ROCETUNE_A_QP_RTT_P50_NS]);
	qp->rtt_p99_ns = rt_get_u64(q[ROCETUNE_A_QP_RTT_P99_NS]);
	qp->jitter_p50_ns = rt_get_u64(q[ROCETUNE_A_QP_JITTER_P50_NS]);
	qp->jitter_p99_ns = rt_get_u64(q[ROCETUNE_A_QP_JITTER_P99_NS]);
	qp->rtt_pacing_ns = rt_get_u64(q[ROCETUNE_A_QP_RTT_PACING_NS]);
	return 0;
}

const char *rt_qp_type_name(unsigned int type)
{
	/* enum ib_qp_type */
	static const char * const names[] = {
		[0] = "SMI", [1] = "GSI", [2] = "RC", [3] = "UC", [4] = "UD",
		[5] = "RAW_IPV6", [6] = "RAW_ETHERTYPE", [8] = "RAW_PACKET",
		[9] = "XRC_INI", [10] = "XRC_TGT",
	};

	if (type < ARRAY_SIZE(names) && names[type])
		return names[type];
	return "other";
}

static const char * const rt_port_states[] = {
	"nop", "down", "init", "armed", "active", "active_defer",
};

const char *rt_port_state_name(unsigned int state)
{
	if (state < ARRAY_SIZE(rt_port_states))
		return rt_port_states[state];
	return NULL;
}

static const char * const rt_event_names[ROCETUNE_EVENT_MAX + 1] = {
	[ROCETUNE_EVENT_DEV_ADD]	 = "dev_add",
	[ROCETUNE_EVENT_DEV_DEL]	 = "dev_del",
	[ROCETUNE_EVENT_DEV_RENAME]	 = "dev_rename",
	[ROCETUNE_EVENT_PORT_STATE]	 = "port_state",
	[ROCETUNE_EVENT_PORT_NETDEV]	 = "port_netdev",
	[ROCETUNE_EVENT_STORM_START]	 = "storm_start",
	[ROCETUNE_EVENT_STORM_END]	 = "storm_end",
	[ROCETUNE_EVENT_CNP_RATE_HIGH]	 = "cnp_rate_high",
	[ROCETUNE_EVENT_CNP_RATE_NORMAL] = "cnp_rate_normal",
	[ROCETUNE_EVENT_ECN_RATE_HIGH]	 = "ecn_rate_high",
	[ROCETUNE_EVENT_ECN_RATE_NORMAL] = "ecn_rate_normal",
};

const char *rt_event_name(unsigned int type)
{
	return type <= ROCETUNE_EVENT_MAX ? rt_event_names[type] : NULL;
}
