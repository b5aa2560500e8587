/* SPDX-License-Identifier: ((GPL-2.0-only WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * rocetune generic netlink protocol.
 *
 * This header is the single source of truth for the protocol between
 * rocetune.ko and user space; Documentation/netlink.rst describes each
 * command.  Rules: every enum starts at 1 after UNSPEC, values are never
 * reused or renumbered, new values are only appended before __*_MAX;
 * every counter is its own u64 attribute (padded with the set's PAD
 * attribute); no binary structures.
 */
#ifndef _UAPI_LINUX_ROCETUNE_H
#define _UAPI_LINUX_ROCETUNE_H

#define ROCETUNE_FAMILY_NAME		"rocetune"
#define ROCETUNE_FAMILY_VERSION		1

/* Multicast group of event notifications (ROCETUNE_CMD_EVENT). */
#define ROCETUNE_MCGRP_EVENTS		"events"

enum rocetune_cmd {
	ROCETUNE_CMD_UNSPEC,
	ROCETUNE_CMD_DEV_GET,		/* do, dump: devices with RoCE ports */
	ROCETUNE_CMD_PORT_GET,		/* do, dump: ports, counters, PFC */
	ROCETUNE_CMD_CONFIG_GET,	/* do: sampling and thresholds */
	ROCETUNE_CMD_CONFIG_SET,	/* do, CAP_NET_ADMIN */
	ROCETUNE_CMD_EVENT,		/* notification on ROCETUNE_MCGRP_EVENTS */
	ROCETUNE_CMD_QP_GET,		/* do, dump: per-QP accounting (rxe) */
	ROCETUNE_CMD_QP_SET,		/* do, CAP_NET_ADMIN: accounting knobs */
	ROCETUNE_CMD_QP_STATS_GET,	/* do, dump: per-device accounting state */

	__ROCETUNE_CMD_MAX,
	ROCETUNE_CMD_MAX = __ROCETUNE_CMD_MAX - 1
};

/* Top-level attributes. */
enum rocetune_attr {
	ROCETUNE_A_UNSPEC,
	ROCETUNE_A_PAD,
	ROCETUNE_A_DEV_INDEX,		/* u32: RDMA device index */
	ROCETUNE_A_DEV_NAME,		/* string: RDMA device name */
	ROCETUNE_A_DEV_DRIVER,		/* string: "rxe", "mlx5", ... */
	ROCETUNE_A_DEV_NUM_PORTS,	/* u32: RoCE ports of the device */
	ROCETUNE_A_PORT_INDEX,		/* u32: port number, from 1 */
	ROCETUNE_A_PORT_STATE,		/* u8: enum ib_port_state */
	ROCETUNE_A_PORT_NETDEV_IFINDEX,	/* u32: netdev of the port */
	ROCETUNE_A_PORT_NETDEV_NAME,	/* string */
	ROCETUNE_A_PORT_LOWER_IFINDEX,	/* u32: physical netdev under a VLAN/bond */
	ROCETUNE_A_PORT_LOWER_NAME,	/* string */
	ROCETUNE_A_COUNTERS,		/* nest: enum rocetune_a_cnt, totals */
	ROCETUNE_A_RATES,		/* nest: enum rocetune_a_cnt, per second */
	ROCETUNE_A_HW_COUNTERS,		/* nest: ROCETUNE_A_HWC_ENTRY... */
	ROCETUNE_A_PFC,			/* nest: enum rocetune_a_pfc */
	ROCETUNE_A_SAMPLE_TIME_NS,	/* u64: CLOCK_MONOTONIC of the sample */
	ROCETUNE_A_INTERVAL_MS,		/* u32: sampling interval */
	ROCETUNE_A_STORM_MS,		/* u32: pause-storm duration threshold */
	ROCETUNE_A_CNP_RATE_THRESH,	/* u64: CNP/s (rx + tx), 0 = off */
	ROCETUNE_A_ECN_RATE_THRESH,	/* u64: ECN-CE packets/s, 0 = off */
	ROCETUNE_A_EVENT_TYPE,		/* u32: enum rocetune_event */
	ROCETUNE_A_EVENT_TIME_NS,	/* u64: CLOCK_MONOTONIC of the event */
	ROCETUNE_A_EVENT_PRIO,		/* u8: priority (PFC events) */
	ROCETUNE_A_EVENT_VALUE,		/* u64: the value that crossed */
	ROCETUNE_A_EVENT_THRESH,	/* u64: the threshold it crossed */
	ROCETUNE_A_EVENT_DURATION_MS,	/* u64: storm length so far / total */
	ROCETUNE_A_DEV_OLD_NAME,	/* string: name before a rename */
	ROCETUNE_A_QP,			/* nest: enum rocetune_a_qp, one QP */
	ROCETUNE_A_QPN,			/* u32: QP number (QP_GET do) */
	ROCETUNE_A_QPN_MIN,		/* u32: QP_GET dump: lowest QPN */
	ROCETUNE_A_QPN_MAX,		/* u32: QP_GET dump: highest QPN */
	ROCETUNE_A_QP_TOP_K,		/* u32: dump only the K QPs with most TOP_BY */
	ROCETUNE_A_QP_TOP_BY,		/* u32: a u64 counter of enum rocetune_a_qp */
	ROCETUNE_A_QP_SINCE_GEN,	/* u64: dump only QPs changed since this GEN */
	ROCETUNE_A_QP_GEN,		/* u64: generation of a dump, for SINCE_GEN */
	ROCETUNE_A_QP_ACCT,		/* u8: per-device QP accounting on/off */
	ROCETUNE_A_QP_TABLE_MAX,	/* u32: maximum QP entries (all devices) */
	ROCETUNE_A_QP_TABLE_COUNT,	/* u32: QP entries in use (all devices) */
	ROCETUNE_A_QP_REFUSED,		/* u64: QP entries refused, table full */
	ROCETUNE_A_QP_UNATTR_RX,	/* u64: received packets with no QP entry */
	ROCETUNE_A_QP_UNATTR_TX,	/* u64: sent packets with no local QP known */
	ROCETUNE_A_QP_LOOPBACK_UNSEEN,	/* u8: 1: same-device traffic is not seen */
	ROCETUNE_A_QP_TOP_SAMPLE,	/* u64: TOP_K by the change since this GEN */
	ROCETUNE_A_QP_LINGER_MS,	/* u32: a destroyed QP's entry stays this long */
	ROCETUNE_A_QP_VERIFY_MS,	/* u32: period of the QP verification */
	ROCETUNE_A_QP_PENDING,		/* u32: QPs seen in packets, awaiting verification */
	ROCETUNE_A_QP_DEGRADED,		/* u8: 1: pending entries ran out, packets unattributed */
	ROCETUNE_A_QP_HOOKS,		/* u8: 1 while the netfilter hooks are registered */
	ROCETUNE_A_QP_NP_ENABLE,	/* u8: per-device DCQCN notification point on/off */
	ROCETUNE_A_QP_NP_MIN_CNP_GAP_US,	/* u32: shortest time between two CNPs of a QP */
	ROCETUNE_A_QP_NP_CNP_SENT,	/* u64: CNPs the notification point sent */
	ROCETUNE_A_QP_NP_CNP_FAILED,	/* u64: CNPs it could not send */
	ROCETUNE_A_QP_NP_CE_COALESCED,	/* u64: CE marks within the gap of a CNP */
	ROCETUNE_A_QP_NP_CE_NO_CNP,	/* u64: CE marks without CNP: remote QP unknown */
	ROCETUNE_A_QP_RP_ENABLE,	/* u8: per-device DCQCN reaction point on/off */
	ROCETUNE_A_QP_RP_MIN_RATE_MBPS,	/* u32: MinRateMbps */
	ROCETUNE_A_QP_RP_MAX_RATE_MBPS,	/* u32: MaxRateMbps */
	ROCETUNE_A_QP_RP_AI_RATE_MBPS,	/* u32: AIRateMbps */
	ROCETUNE_A_QP_RP_HAI_RATE_MBPS,	/* u32: HAIRateMbps */
	ROCETUNE_A_QP_RP_TIME_RESET_US,	/* u32: TimeResetUs, 0 = off */
	ROCETUNE_A_QP_RP_BYTE_RESET_BYTES,	/* u32: ByteResetBytes, 0 = off */
	ROCETUNE_A_QP_RP_THRESHOLD,	/* u32: Threshold (F) */
	ROCETUNE_A_QP_RP_INITIAL_ALPHA,	/* u32: InitialAlpha, 1/1024 */
	ROCETUNE_A_QP_RP_G,		/* u32: G, 1/1024 */
	ROCETUNE_A_QP_RP_ALPHA_PERIOD_US,	/* u32: DceTcpRttUs */
	ROCETUNE_A_QP_RP_RRMP_US,	/* u32: RateReduceMonitorPeriodUs */
	ROCETUNE_A_QP_RP_RATE_FIRST_CNP_MBPS,	/* u32: RateOnFirstCNPMbps, 0 = off */
	ROCETUNE_A_QP_RP_GD,		/* u32: GD, cut = alpha / 2^(GD - 10) */
	ROCETUNE_A_QP_RP_MIN_DEC_FAC_PCT,	/* u32: MinDecreaseFactorPercent */
	ROCETUNE_A_QP_RP_CLAMP_TGT,	/* u32: ClampTargetRate, 0/1 */
	ROCETUNE_A_QP_RP_CLAMP_TGT_ATI,	/* u32: ClampTargetRateAfterTimeInc, 0/1 */
	ROCETUNE_A_QP_NP_CNP_DSCP,	/* u32: CNPDSCP, DSCP of the CNPs */
	ROCETUNE_A_QP_NP_CNP_PRIO,	/* u32: CNPPriority, their skb priority */
	ROCETUNE_A_QP_RX_BAD_HDR,	/* u64: received, dropped by rxe's header rules */
	ROCETUNE_A_QP_RX_BAD_ICRC,	/* u64: received with a wrong ICRC */
	ROCETUNE_A_QP_RX_BAD_PEER,	/* u64: received not from the QP's peer */

	__ROCETUNE_A_MAX,
	ROCETUNE_A_MAX = __ROCETUNE_A_MAX - 1
};

/*
 * Vendor-normalized port counters (nested in ROCETUNE_A_COUNTERS and
 * ROCETUNE_A_RATES), all u64.  A counter the device does not have is
 * absent, never zero.  Documentation/counters.rst maps each to the vendor
 * names it comes from.
 */
enum rocetune_a_cnt {
	ROCETUNE_A_CNT_UNSPEC,
	ROCETUNE_A_CNT_PAD,
	ROCETUNE_A_CNT_TX_PKTS,
	ROCETUNE_A_CNT_RX_PKTS,
	ROCETUNE_A_CNT_RX_ECN_CE_PKTS,
	ROCETUNE_A_CNT_TX_CNP_PKTS,
	ROCETUNE_A_CNT_RX_CNP_PKTS,
	ROCETUNE_A_CNT_RX_CNP_IGNORED_PKTS,
	ROCETUNE_A_CNT_OUT_OF_SEQUENCE,
	ROCETUNE_A_CNT_RX_SEQ_ERR_NAKS,
	ROCETUNE_A_CNT_RX_RNR_NAKS,
	ROCETUNE_A_CNT_LOCAL_ACK_TIMEOUTS,
	ROCETUNE_A_CNT_DUPLICATE_REQUESTS,

	__ROCETUNE_A_CNT_MAX,
	ROCETUNE_A_CNT_MAX = __ROCETUNE_A_CNT_MAX - 1
};

/* ROCETUNE_A_HW_COUNTERS holds one ROCETUNE_A_HWC_ENTRY nest per counter. */
enum rocetune_a_hwc {
	ROCETUNE_A_HWC_UNSPEC,
	ROCETUNE_A_HWC_PAD,
	ROCETUNE_A_HWC_ENTRY,		/* nest: NAME + VALUE */
	ROCETUNE_A_HWC_NAME,		/* string: the driver's counter name */
	ROCETUNE_A_HWC_VALUE,		/* u64: the driver's value, unmodified */

	__ROCETUNE_A_HWC_MAX,
	ROCETUNE_A_HWC_MAX = __ROCETUNE_A_HWC_MAX - 1
};

/* Per-port PFC state of the port's (lower) netdev, from its DCB ops. */
enum rocetune_a_pfc {
	ROCETUNE_A_PFC_UNSPEC,
	ROCETUNE_A_PFC_PAD,
	ROCETUNE_A_PFC_CAP,		/* u8: traffic classes that can be PFC-enabled */
	ROCETUNE_A_PFC_ENABLED,		/* u8: bitmap of PFC-enabled priorities */
	ROCETUNE_A_PFC_PRIO,		/* nest, one per priority: rocetune_a_prio */

	__ROCETUNE_A_PFC_MAX,
	ROCETUNE_A_PFC_MAX = __ROCETUNE_A_PFC_MAX - 1
};

enum rocetune_a_prio {
	ROCETUNE_A_PRIO_UNSPEC,
	ROCETUNE_A_PRIO_PAD,
	ROCETUNE_A_PRIO_INDEX,		/* u8: priority 0..7 */
	ROCETUNE_A_PRIO_TX_PAUSE,	/* u64: PFC frames sent (ieee_pfc requests) */
	ROCETUNE_A_PRIO_RX_PAUSE,	/* u64: PFC frames received (indications) */
	ROCETUNE_A_PRIO_TX_PAUSE_RATE,	/* u64: frames/s over the last interval */
	ROCETUNE_A_PRIO_RX_PAUSE_RATE,	/* u64: frames/s over the last interval */
	ROCETUNE_A_PRIO_RX_PAUSE_DURATION_US,	/* u64: where the driver has it */
	ROCETUNE_A_PRIO_TX_PAUSE_DURATION_US,	/* u64: where the driver has it */
	ROCETUNE_A_PRIO_STORM,		/* u8: 1 while a pause storm lasts */

	__ROCETUNE_A_PRIO_MAX,
	ROCETUNE_A_PRIO_MAX = __ROCETUNE_A_PRIO_MAX - 1
};

/*
 * One queue pair (nested in ROCETUNE_A_QP).  Packet counters are exact
 * counts of RoCEv2 packets seen by the module's netfilter hooks on the
 * device's netdev (software RoCE only); Documentation/qp-accounting.rst.
 */
enum rocetune_a_qp {
	ROCETUNE_A_QP_UNSPEC,
	ROCETUNE_A_QP_PAD,
	ROCETUNE_A_QP_QPN,		/* u32: local QP number */
	ROCETUNE_A_QP_TYPE,		/* u8: enum ib_qp_type, if known */
	ROCETUNE_A_QP_REMOTE_QPN,	/* u32: destination QP, if known */
	ROCETUNE_A_QP_PID,		/* u32: owner (CAP_NET_ADMIN callers only) */
	ROCETUNE_A_QP_COMM,		/* string: owner's command name (likewise) */
	ROCETUNE_A_QP_CHANGED_GEN,	/* u64: generation of the last change */
	ROCETUNE_A_QP_FIRST_SEEN_NS,	/* u64: CLOCK_MONOTONIC, first packet */
	ROCETUNE_A_QP_LAST_SEEN_NS,	/* u64: CLOCK_MONOTONIC, last packet */
	ROCETUNE_A_QP_RX_PKTS,		/* u64 */
	ROCETUNE_A_QP_RX_BYTES,		/* u64: IP length (header included) */
	ROCETUNE_A_QP_TX_PKTS,		/* u64 */
	ROCETUNE_A_QP_TX_BYTES,		/* u64: IP length (header included) */
	ROCETUNE_A_QP_RX_ECN_CE_PKTS,	/* u64: received with ECN CE */
	ROCETUNE_A_QP_RX_ECN_ECT_PKTS,	/* u64: received ECT(0)/ECT(1), not CE */
	ROCETUNE_A_QP_TX_ECN_ECT_PKTS,	/* u64: sent ECN-capable (ECN != 0) */
	ROCETUNE_A_QP_RX_CNP_PKTS,	/* u64: BTH opcode 0x81 received */
	ROCETUNE_A_QP_TX_CNP_PKTS,	/* u64: BTH opcode 0x81 sent */
	ROCETUNE_A_QP_RX_NAK_SEQ_ERR,	/* u64: AETH NAK PSN sequence error */
	ROCETUNE_A_QP_RX_RNR_NAK,	/* u64: AETH RNR NAK received */
	ROCETUNE_A_QP_TX_NAK_SEQ_ERR,	/* u64: ... sent */
	ROCETUNE_A_QP_TX_RNR_NAK,	/* u64: ... sent */
	ROCETUNE_A_QP_TX_RETRANSMIT_PKTS,	/* u64: request PSN not after the highest sent */
	ROCETUNE_A_QP_HW_COUNTERS,	/* nest: ROCETUNE_A_HWC_ENTRY... (bound hw counter) */
	ROCETUNE_A_QP_DEV_INDEX,	/* u32: RDMA device index */
	ROCETUNE_A_QP_RX_ACKREQ_PKTS,	/* u64: received with BTH AckReq set */
	ROCETUNE_A_QP_DESTROYED_NS,	/* u64: CLOCK_MONOTONIC of the QP's destroy */
	ROCETUNE_A_QP_TOP_DELTA,	/* u64: change of TOP_BY since TOP_SAMPLE */
	ROCETUNE_A_QP_PORT,		/* u32: the QP's port, if known */
	ROCETUNE_A_QP_RP_PACED,		/* u8: 1: the reaction point paces the QP */
	ROCETUNE_A_QP_RP_RATE_KBPS,	/* u64: reaction point current rate (Rc) */
	ROCETUNE_A_QP_RP_TARGET_KBPS,	/* u64: ... target rate (Rt) */
	ROCETUNE_A_QP_RP_ALPHA,		/* u32: ... alpha, 1/1024 */
	ROCETUNE_A_QP_RP_CNPS,		/* u64: CNPs the reaction point handled */
	ROCETUNE_A_QP_RP_CUTS,		/* u64: ... rate cuts */
	ROCETUNE_A_QP_RP_RELEASES,	/* u64: ... pacing stopped: retransmit */
	ROCETUNE_A_QP_RTT_SAMPLES,	/* u64: round trips measured (AckReq -> ACK) */
	ROCETUNE_A_QP_RTT_P50_NS,	/* u64: median of the last 64 round trips */
	ROCETUNE_A_QP_RTT_P99_NS,	/* u64: their 99th percentile */
	ROCETUNE_A_QP_JITTER_P50_NS,	/* u64: median difference of consecutive ones */
	ROCETUNE_A_QP_JITTER_P99_NS,	/* u64: its 99th percentile */
	ROCETUNE_A_QP_RTT_PACING_NS,	/* u64: mean wait of a probe for its departure */

	__ROCETUNE_A_QP_MAX,
	ROCETUNE_A_QP_MAX = __ROCETUNE_A_QP_MAX - 1
};

/* ROCETUNE_A_EVENT_TYPE values. */
enum rocetune_event {
	ROCETUNE_EVENT_UNSPEC,
	ROCETUNE_EVENT_DEV_ADD,		/* a device with RoCE ports appeared */
	ROCETUNE_EVENT_DEV_DEL,		/* ... went away */
	ROCETUNE_EVENT_DEV_RENAME,	/* DEV_NAME is new, DEV_OLD_NAME old */
	ROCETUNE_EVENT_PORT_STATE,	/* PORT_STATE changed */
	ROCETUNE_EVENT_PORT_NETDEV,	/* the port's netdev changed */
	ROCETUNE_EVENT_STORM_START,	/* PRIO received pause for >= STORM_MS */
	ROCETUNE_EVENT_STORM_END,	/* ... and stopped; DURATION_MS total */
	ROCETUNE_EVENT_CNP_RATE_HIGH,	/* CNP rate rose above its threshold */
	ROCETUNE_EVENT_CNP_RATE_NORMAL,	/* ... and fell back below it */
	ROCETUNE_EVENT_ECN_RATE_HIGH,	/* ECN-CE rate rose above its threshold */
	ROCETUNE_EVENT_ECN_RATE_NORMAL,	/* ... and fell back below it */

	__ROCETUNE_EVENT_MAX,
	ROCETUNE_EVENT_MAX = __ROCETUNE_EVENT_MAX - 1
};

#endif /* _UAPI_LINUX_ROCETUNE_H */
