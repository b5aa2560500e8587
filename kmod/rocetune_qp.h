/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune: per-QP congestion accounting for software RoCE devices.
 *
 * Documentation/qp-accounting.rst describes what is counted and how.
 *
 * Locking:
 *  - rt_qp_lock (spinlock, BH-safe) serializes every change of the QP
 *    tables and of the QP metadata (type, remote QP, owner).  Packet
 *    accounting takes no lock: entries are found under RCU and counted
 *    with atomics.
 *  - rt_qpdev_mutex serializes adding and removing accounting devices and
 *    the verification work's use of their ib_device; readers of the
 *    device list use RCU.  A netlink request that does I/O on a device
 *    holds a reference and the device's ibdev_sem instead, never the
 *    mutex (rt_qpdev_ibdev_get()).
 *  - rt_qpdev.pend.lock (spinlock, BH-safe) serializes claiming and
 *    retiring the pending entries of a device (rocetune_qppend.c).
 *  - rt_qp.rp.lock (spinlock, BH-safe) serializes the reaction point's
 *    state of one QP (rocetune_rp.c); no other lock is taken under it.
 *  - Order: rt_qpdev_mutex, then rt_qpdev.pend.lock, then rt_qp_lock;
 *    rt_qpdev.ibdev_sem, then rt_qp_lock.  rt_qpdev_mutex and
 *    rt_qpdev.ibdev_sem are never held together.
 */
#ifndef _ROCETUNE_QP_H
#define _ROCETUNE_QP_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/rhashtable-types.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>

#include "rocetune_bth.h"

/* Per-QP counters; rt_qp_cnt_attr[] maps each to its netlink attribute. */
enum rt_qpc {
	/* Received: struct rt_qp's rx cache line. */
	RT_QPC_RX_PKTS,
	RT_QPC_RX_BYTES,
	RT_QPC_RX_ECN_CE,
	RT_QPC_RX_ECN_ECT,
	RT_QPC_RX_CNP,
	RT_QPC_RX_NAK_SEQ_ERR,
	RT_QPC_RX_RNR_NAK,
	RT_QPC_RX_ACKREQ,
	/* Sent: its tx cache line. */
	RT_QPC_TX_PKTS,
	RT_QPC_TX_BYTES,
	RT_QPC_TX_ECN_ECT,
	RT_QPC_TX_CNP,
	RT_QPC_TX_NAK_SEQ_ERR,
	RT_QPC_TX_RNR_NAK,
	RT_QPC_TX_RETRANSMIT,
	RT_QPC_NUM
};

#define RT_QPC_RX_NUM		RT_QPC_TX_PKTS
#define RT_QPC_TX_NUM		(RT_QPC_NUM - RT_QPC_TX_PKTS)
/* struct rt_qp's tx.psn: the highest request PSN sent, when this is set. */
#define RT_QP_PSN_VALID		BIT_ULL(32)

/*
 * Top-K samples held at a time (each costs 16 bytes per QP entry), and per
 * requesting user.
 */
#define RT_QP_SAMPLES		8
#define RT_QP_SAMPLES_PER_USER	2

/* The DCQCN reaction point (rocetune_rp.c). */
/*
 * Parameter defaults, in the units of the profile's [DCQCN] keys.  From the
 * DCQCN paper (SIGCOMM 2015) as the project's field notes list them: g =
 * 1/256 (4/1024), alpha timer 55 us, rate-increase timer 55 us, byte
 * counter 10 MB, F = 5, R_AI 40 Mb/s, R_HAI 200 Mb/s; from NVIDIA's
 * defaults: initial alpha 1023/1024 and a rate reduce monitor period of
 * 4 us.  The maximum rate is a veth's reported speed; the minimum is the
 * safety floor below.
 */
#define RT_RP_G_DEFAULT			4
#define RT_RP_ALPHA_PERIOD_US_DEFAULT	55
#define RT_RP_TIME_RESET_US_DEFAULT	55
#define RT_RP_BYTE_RESET_DEFAULT	10000000
#define RT_RP_THRESHOLD_DEFAULT		5
#define RT_RP_AI_MBPS_DEFAULT		40
#define RT_RP_HAI_MBPS_DEFAULT		200
#define RT_RP_INITIAL_ALPHA_DEFAULT	1023
#define RT_RP_RRMP_US_DEFAULT		4
#define RT_RP_MAX_MBPS_DEFAULT		10000
/*
 * NVIDIA's rate decrease: GD 11 (a cut by alpha/2, the paper's), at most by
 * half in one cut (50 %), no rate set on a first CNP.  The paper sets the
 * target to the current rate on every cut: ClampTargetRate 1.
 */
#define RT_RP_GD_DEFAULT		11
#define RT_RP_GD_MAX			15
#define RT_RP_MIN_DEC_FAC_DEFAULT	50
#define RT_RP_CLAMP_TGT_DEFAULT		1
#define RT_RP_CLAMP_TGT_ATI_DEFAULT	1

/*
 * Safety floor of the rate: rxe keeps up to about 64 packets of a QP in
 * flight; with its usual 1024-byte path MTU (about 1100 bytes on the wire)
 * they leave within 50 ms at 12 Mb/s.  A departure is also never set more
 * than RT_RP_HORIZON_NS ahead, whatever the rate or packet size, so a
 * packet is never held longer than that (below rxe's ACK timeout, ~67 ms
 * with perftest's timeout 14).
 */
#define RT_RP_FLOOR_MBPS		12
#define RT_RP_RATE_MAX_MBPS		1000000
#define RT_RP_HORIZON_NS		(25 * NSEC_PER_MSEC)
/*
 * A QP that retransmits (a dead peer, rxe's ACK timeout) is not paced
 * until this long after its last retransmitted packet.
 */
#define RT_RP_RETX_HOLD_NS		(100 * NSEC_PER_MSEC)
/* Upper bounds of the time and count parameters. */
#define RT_RP_US_MAX			1000000
#define RT_RP_THRESHOLD_MAX		31
#define RT_RP_ALPHA_ONE			1024

/**
 * struct rt_rp_params - a device's reaction point parameters
 * @min_mbps: MinRateMbps, never below RT_RP_FLOOR_MBPS
 * @max_mbps: MaxRateMbps: the rate of an unpaced QP and the ceiling
 * @ai_mbps: AIRateMbps, the additive increase step
 * @hai_mbps: HAIRateMbps, the hyper increase step
 * @time_reset_us: TimeResetUs, the rate-increase timer, 0 off
 * @byte_reset: ByteResetBytes, the rate-increase byte counter, 0 off
 * @threshold: Threshold, timer or byte events before additive increase (F)
 * @initial_alpha: InitialAlpha, in 1/1024
 * @g: G, the gain of the alpha update, in 1/1024
 * @alpha_period_us: DceTcpRttUs, the alpha decay period
 * @rrmp_us: RateReduceMonitorPeriodUs, the shortest time between two cuts
 * @rate_first_mbps: RateOnFirstCNPMbps: a flow's first CNP sets its rates
 *	to this instead of cutting (0 off)
 * @gd: GD, a cut is by alpha / 2^(GD - 10) of the rate
 * @min_dec_fac: MinDecreaseFactorPercent, a cut leaves at least this
 *	share of the rate (100: no cut)
 * @clamp_tgt: ClampTargetRate: a cut sets the target to the current rate
 * @clamp_tgt_ati: ClampTargetRateAfterTimeInc: so does a cut after a
 *	timer increase
 */
struct rt_rp_params {
	u32 min_mbps;
	u32 max_mbps;
	u32 ai_mbps;
	u32 hai_mbps;
	u32 time_reset_us;
	u32 byte_reset;
	u32 threshold;
	u32 initial_alpha;
	u32 g;
	u32 alpha_period_us;
	u32 rrmp_us;
	u32 rate_first_mbps;
	u32 gd;
	u32 min_dec_fac;
	u32 clamp_tgt;
	u32 clamp_tgt_ati;
};

/**
 * struct rt_rp - the reaction point state of one QP, under @lock
 * @lock: serializes the packet paths and the snapshot (BH-safe)
 * @paced: a CNP cut the rate and it has not recovered to the maximum:
 *	the QP's packets are paced
 * @rc: current rate, bit/s
 * @rt: target rate, bit/s
 * @alpha: alpha, in 1/2^20
 * @alpha_ns: start of the current alpha period (CLOCK_MONOTONIC)
 * @cnp_seen: a CNP came in the current alpha period
 * @cut_due: a CNP came within the rate reduce monitor period of the last
 *	cut: a cut is due at its end
 * @g: the G of the device when the QP last sent or got a CNP
 * @alpha_period_us: likewise, the alpha period (for rt_rp_snap())
 * @cut_ns: time of the last rate cut
 * @timer_ns: start of the current rate-increase timer period
 * @bytes: bytes sent since the last byte-counter event
 * @t_stage: timer events since the last cut
 * @b_stage: byte-counter events since the last cut
 * @t_inc: the timer raised the rate since the last cut
 * @next_ns: the QP's next departure time
 * @retx: the QP's retransmit counter when last looked at
 * @cnps: CNPs handled (received for the QP with the device's RP on)
 * @cuts: rate cuts
 * @hold_ns: not paced before this time: the QP retransmitted
 * @releases: times pacing stopped because the QP retransmitted
 * @tail: packets of the QP may still wait in the qdisc for their departure
 *	time: every packet gets one at least as late as @last_ns, so that
 *	none overtakes them (sch_fq sends a flow's packets by time)
 * @last_ns: the latest departure time the QP's packets were given
 */
struct rt_rp {
	spinlock_t lock;	/* see above */
	bool paced;
	u64 rc;
	u64 rt;
	u64 alpha;
	u64 alpha_ns;
	bool cnp_seen;
	bool cut_due;
	u32 g;
	u32 alpha_period_us;
	u64 cut_ns;
	u64 timer_ns;
	u64 bytes;
	u32 t_stage;
	u32 b_stage;
	bool t_inc;
	u64 next_ns;
	u64 retx;
	u64 hold_ns;
	u64 cnps;
	u64 cuts;
	u64 releases;
	bool tail;
	u64 last_ns;
};

/**
 * struct rt_rp_snap - what QP_GET reports of a QP's reaction point
 * @paced: see struct rt_rp
 * @rc_kbps: current rate, kbit/s
 * @rt_kbps: target rate, kbit/s
 * @alpha: alpha, in 1/1024
 * @cnps: CNPs handled
 * @cuts: rate cuts
 * @releases: pacing stopped for a retransmit
 */
struct rt_rp_snap {
	bool paced;
	u64 rc_kbps;
	u64 rt_kbps;
	u32 alpha;
	u64 cnps;
	u64 cuts;
	u64 releases;
};

/* Round-trip samples kept per QP (rocetune_rtt.c). */
#define RT_RTT_WIN		64

/**
 * struct rt_rtt - round trips of one QP, under @lock (rocetune_rtt.c)
 * @lock: serializes the packet paths and the snapshot (BH-safe)
 * @probe: a request with AckReq is awaiting its acknowledgment
 * @psn: its PSN
 * @t0: when it left, CLOCK_MONOTONIC ns: its departure time when the
 *	reaction point gave it one, else when the transmit hook saw it
 * @pace: how long it waited for that departure, ns
 * @pace_avg: moving average of @pace over the samples (weight 1/8), ns
 * @n: samples in @win, up to RT_RTT_WIN
 * @head: the slot of @win the next sample takes
 * @samples: samples taken in all
 * @win: the last @n samples, ns
 */
struct rt_rtt {
	spinlock_t lock;	/* see above */
	bool probe;
	u32 psn;
	u64 t0;
	u64 pace;
	u64 pace_avg;
	u32 n;
	u32 head;
	u64 samples;
	u32 win[RT_RTT_WIN];
};

/**
 * struct rt_rtt_snap - what QP_GET reports of a QP's round trips
 * @samples: samples taken in all
 * @n: samples in the window
 * @p50_ns: the window's median round trip
 * @p99_ns: its 99th percentile
 * @has_jitter: the window has two samples or more
 * @jitter_p50_ns: median difference between consecutive samples
 * @jitter_p99_ns: its 99th percentile
 * @pacing_ns: the mean wait of the sampled requests for their departure
 */
struct rt_rtt_snap {
	u64 samples;
	u32 n;
	u32 p50_ns;
	u32 p99_ns;
	bool has_jitter;
	u32 jitter_p50_ns;
	u32 jitter_p99_ns;
	u64 pacing_ns;
};

/**
 * struct rt_qp_key - identity of a local QP
 * @dev: RDMA device index
 * @qpn: local QP number
 */
struct rt_qp_key {
	u32 dev;
	u32 qpn;
};

/**
 * struct rt_qp_txkey - what a sent RC/UC packet tells about its QP
 * @dev: RDMA device index
 * @rqpn: destination (remote) QP number from the BTH
 * @daddr: destination IP address (IPv4-mapped for IPv4), zero when the
 *	QP's address vector was not seen
 */
struct rt_qp_txkey {
	u32 dev;
	u32 rqpn;
	u8 daddr[16];
};

/**
 * enum rt_peer_kind - what an entry knows of the QP's peer (rt_qp_peer())
 * @RT_PEER_ANY: a datagram QP (UD, GSI): any sender may reach it
 * @RT_PEER_KNOWN: a connected QP (RC, UC) whose peer is known
 * @RT_PEER_UNKNOWN: a connected type whose peer is not known yet (not
 *	connected, or connected since the verification last looked)
 * @RT_PEER_NONE: a type that software RoCE does not reach (XRC, raw)
 */
enum rt_peer_kind {
	RT_PEER_ANY,
	RT_PEER_KNOWN,
	RT_PEER_UNKNOWN,
	RT_PEER_NONE,
};

/**
 * struct rt_qp_peer - a snapshot of a QP's peer
 * @type: enum ib_qp_type
 * @rqpn: the remote QP (RT_PEER_KNOWN)
 * @addr: the remote address, IPv4-mapped for IPv4 (RT_PEER_KNOWN)
 */
struct rt_qp_peer {
	u8 type;
	u32 rqpn;
	u8 addr[16];
};

/**
 * rt_op_fits - may a QP of a type receive a packet of an opcode
 * @op: BTH opcode
 * @type: enum ib_qp_type
 *
 * The opcode's transport fits the QP's type, as software RoCE requires
 * (drivers/infiniband/sw/rxe/rxe_recv.c, check_type_state(), Linux 6.1);
 * a CNP only a connected type: it is no datagram.
 *
 * Return: true when it fits.
 */
static inline bool rt_op_fits(u8 op, u8 type)
{
	switch (type) {
	case IB_QPT_RC:
		return RT_OP_TRANSPORT(op) == RT_OP_RC || op == RT_OP_CNP;
	case IB_QPT_UC:
		return RT_OP_TRANSPORT(op) == RT_OP_UC || op == RT_OP_CNP;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return RT_OP_TRANSPORT(op) == RT_OP_UD;
	default:
		return false;
	}
}

/**
 * struct rt_qp - accounting state of one local QP
 * @node: entry in the table by @key
 * @tx_node: entry in the transmit table by @txkey, when @tx_linked
 * @list: entry in rt_qp_list (RCU), for dumps and verification
 * @key: device and QP number
 * @peer_seq: orders the changes of @type, @type_known, @rqpn_known and
 *	@txkey (under rt_qp_lock) against the packet path's lockless reads
 *	of a linked entry (rt_qp_peer())
 * @txkey: how sent packets find this QP; its remote QP and address are
 *	the peer that received packets must come from.  A pending entry of
 *	received packets holds their source address in @txkey.daddr and
 *	their opcode (the first one: all have its transport) in
 *	@txkey.rqpn
 * @tx_linked: @tx_node is in the transmit table
 * @verified: the RDMA core's resource tracking knows the QP
 * @type: enum ib_qp_type, valid when @type_known
 * @type_known: @type is valid
 * @port: the QP's port, 0 while unknown
 * @rqpn_known: @txkey.rqpn is valid
 * @owner_known: @owner and @comm are valid
 * @ident: the struct ib_qp the entry was learned from; only compared (a
 *	different one under the same number is a new QP), never dereferenced
 * @owner: the owner process (thread group), referenced, NULL for kernel
 *	QPs; translated into the reader's PID namespace when sent
 * @comm: owner's command name, or the kernel user's name
 * @dead_ns: CLOCK_MONOTONIC time the QP was destroyed, 0 while it lives
 * @gen: generation of the last change (see rt_qp_gen)
 * @first_ns: CLOCK_MONOTONIC time of the first packet (coarse: the clock
 *	tick), 0 before it
 * @last_ns: likewise, of the last packet; written once a tick at most
 * @base: per top-K sample slot (rocetune_qp_nl.c), the slot's counter when
 *	the top-K dump of generation @base[].gen took it (rt_qp_sample_mutex)
 * @rcu: deferred free
 * @rx: the counters of received packets (enum rt_qpc, see rt_qp_cnt()),
 *	and in @rx.np_last_ns the CLOCK_MONOTONIC time the notification point
 *	last sent a CNP for the QP, 0 before the first (rocetune_np.c)
 * @tx: the counters of sent packets, and in @tx.psn the highest request PSN
 *	sent (24-bit serial order) with RT_QP_PSN_VALID
 * @rp: the reaction point's state (rocetune_rp.c)
 * @rtt: round trips (rocetune_rtt.c)
 */
struct rt_qp {
	struct rhash_head node;
	struct rhash_head tx_node;
	struct list_head list;
	struct rt_qp_key key;
	seqcount_spinlock_t peer_seq;
	struct rt_qp_txkey txkey;
	bool tx_linked;
	bool verified;
	u8 type;
	bool type_known;
	u32 port;
	bool rqpn_known;
	bool owner_known;
	const void *ident;
	struct pid *owner;
	char comm[TASK_COMM_LEN];
	u64 dead_ns;
	atomic64_t gen;
	atomic64_t first_ns;
	atomic64_t last_ns;
	struct {
		u64 val;
		u64 gen;
	} base[RT_QP_SAMPLES];
	struct rcu_head rcu;
	/* Written by every packet, one cache line per direction. */
	struct {
		atomic64_t cnt[RT_QPC_RX_NUM];
		atomic64_t np_last_ns;
	} rx ____cacheline_aligned_in_smp;
	struct {
		atomic64_t cnt[RT_QPC_TX_NUM];
		atomic64_t psn;
	} tx ____cacheline_aligned_in_smp;
	struct rt_rp rp ____cacheline_aligned_in_smp;
	struct rt_rtt rtt;
};

/**
 * rt_qp_cnt - one counter of a QP
 * @qp: the entry
 * @c: the counter
 *
 * Return: the counter.
 */
static inline atomic64_t *rt_qp_cnt(struct rt_qp *qp, enum rt_qpc c)
{
	if (c < RT_QPC_TX_PKTS)
		return &qp->rx.cnt[c];
	return &qp->tx.cnt[c - RT_QPC_TX_PKTS];
}

/*
 * QP number of a free pending entry, and of a claimed entry of the transmit
 * pending set (which is keyed by its txkey instead).
 */
#define RT_QPN_NONE		U32_MAX
#define RT_QPN_TX		(U32_MAX - 1)
/* Pending entries per device and direction, not yet known QPs. */
#define RT_QP_PEND_MAX		32
/*
 * A sent packet's pending entry waits this many verification periods for
 * its local QP to become known, then its packets count as unattributed.
 */
#define RT_QP_TXPEND_PERIODS	3
/* Delay of the quick run after a packet named a QP without an entry. */
#define RT_QP_QUICK_MS		10
/* QP numbers are 24 bits; the scan's round covers them all. */
#define RT_QPN_LIMIT		BIT(24)
/* Resource tracking ids a scan looks at per device and verification. */
#define RT_QP_SCAN_BUDGET	16384
/* ...of which first this many above the highest QP number seen. */
#define RT_QP_SCAN_AHEAD	1024

/**
 * struct rt_qppend - packets of QPs not known to the table
 * @lock: serializes claiming a slot (packet path) and emptying one
 * @nfree: slots holding an unclaimed entry, read without @lock to refuse
 *	at once when every slot is in use
 * @tx: the transmit set: slots are keyed by the txkey of sent RC/UC
 *	packets (remote QP, destination), else by the local QP number
 * @slot: preallocated entries; a free one has key.qpn RT_QPN_NONE, a
 *	claimed one the QP number it counts for (RT_QPN_TX and its txkey in
 *	the transmit set)
 *
 * A packet for a QP that has no entry is counted on a pending entry:
 * nothing is allocated in the packet path, and at most RT_QP_PEND_MAX
 * numbers per device and set wait for the verification work.  A local QP
 * number is looked up in the RDMA core's resource tracking: a real QP's
 * entry moves into the table (its counts stay exact), any other is dropped
 * and its packets are added to the device's unattributed counts.  A sent
 * packet's (remote QP, destination) waits until a local QP connected to it
 * is known (RT_QP_TXPEND_PERIODS at most) and its packets join that QP's.
 */
struct rt_qppend {
	spinlock_t lock;	/* see above */
	unsigned int nfree;
	bool tx;
	struct rt_qp __rcu *slot[RT_QP_PEND_MAX];
};

/* Upper bound of LINGER_MS and VERIFY_MS: one day; VERIFY_MS from 10 ms. */
#define RT_QP_KNOB_MAX_MS	(24 * 3600 * 1000)
#define RT_QP_VERIFY_MIN_MS	10
/*
 * The notification point's shortest time between two CNPs of a QP: NVIDIA's
 * default of np_min_time_between_cnps (µs), and the largest accepted.
 */
#define RT_NP_GAP_US_DEFAULT	4
#define RT_NP_GAP_US_MAX	1000000
/* NVIDIA's CNP DSCP 48 and priority 6 (field notes, unverified). */
#define RT_NP_CNP_DSCP_DEFAULT	48
#define RT_NP_CNP_PRIO_DEFAULT	6

/* Bounds of TABLE_MAX (entries, about 600 bytes each) and of TOP_K. */
#define RT_QP_TABLE_LIMIT	1048576
#define RT_QP_TOP_K_MAX		1024

/**
 * struct rt_qpdev - an RDMA device known to QP accounting
 * @node: entry in rt_qpdevs (RCU)
 * @ref: references: rt_qpdevs', and one per request that holds the device
 *	(rt_qpdev_hold())
 * @ibdev_sem: held for reading by a request across its use of @ibdev
 *	(rt_qpdev_ibdev_get()), for writing by rt_qp_dev_remove() to set @dying
 * @dying: rt_qp_dev_remove() is under way: a request no longer uses @ibdev
 * @ibdev: the device, valid until rt_qp_dev_remove()
 * @index: RDMA device index
 * @name: device name, under rt_qp_lock
 * @nports: number of ports (numbered from 1)
 * @sw: software RoCE (rxe): its packets cross the IP stack
 * @acct: accounting is enabled
 * @unattr_rx: received packets without a QP entry (unknown QP number,
 *	table full)
 * @unattr_tx: sent packets whose local QP is not known
 * @np: the notification point answers CE marks with CNPs (rocetune_np.c);
 *	only while @acct
 * @np_gap_us: the notification point's shortest time between two CNPs of
 *	one QP, in µs
 * @np_cnp_dscp: the DSCP of its CNPs
 * @np_cnp_prio: their priority (skb->priority: the qdisc band, a VLAN's
 *	PCP through its egress map)
 * @np_cnp_sent: CNPs the notification point handed to the IP stack
 * @np_cnp_failed: CNPs it could not send (no route, no memory, dropped
 *	on the way out)
 * @np_ce_coalesced: CE marks within @np_gap_us of their QP's last CNP
 * @np_ce_no_cnp: CE marks it could not answer: the receiving QP has no
 *	entry, its remote QP is not known yet or it is destroyed, or IPv6
 * @rp: the reaction point paces the device's QPs after CNPs
 *	(rocetune_rp.c); only while @acct
 * @rp_p: the reaction point's parameters, each read on its own
 * @pend: QP numbers seen in packets, awaiting verification
 * @tpend: remote QPs of sent packets, awaiting their local QP
 * @overflow_ns: CLOCK_MONOTONIC (coarse) time a packet was last counted
 *	as unattributed at once because every pending entry was in use, 0
 *	before the first (QP_DEGRADED: within the last two verification
 *	periods, and at least two seconds)
 * @want_peer: a packet came for a connected QP whose peer is not known:
 *	the next verification asks the RDMA core (rocetune_qptrack.c)
 * @rx_bad: received packets software RoCE drops, counted on no QP, by
 *	enum rt_bad (RT_BAD_HDR, RT_BAD_ICRC, RT_BAD_PEER)
 * @retired: pending entries taken out of their slots, settled after an RCU
 *	grace period (rocetune_qppend.c; verification work only)
 * @scan_next: the next resource tracking id the scan for QPs that have no
 *	entry looks at (verification work only)
 * @scan_hi: the highest QP number the scan found (verification work only)
 * @dest_next: the QP number from which the next verification asks the
 *	RDMA core again for the peers of connected-type QPs that had none
 *	(verification work only)
 * @rcu: deferred free
 * @ifindex: ifindex of each port's netdev in the initial network namespace
 *	(where the hooks are), by port number, 0 for none; taken when the
 *	device appears (the netdev of a software RoCE device's port stays
 *	the same for the device's life)
 */
struct rt_qpdev {
	struct list_head node;
	struct kref ref;
	struct rw_semaphore ibdev_sem;	/* see above */
	bool dying;
	struct ib_device *ibdev;
	u32 index;
	char name[IB_DEVICE_NAME_MAX];
	u32 nports;
	bool sw;
	bool acct;
	atomic64_t unattr_rx;
	atomic64_t unattr_tx;
	bool np;
	u32 np_gap_us;
	u32 np_cnp_dscp;
	u32 np_cnp_prio;
	atomic64_t np_cnp_sent;
	atomic64_t np_cnp_failed;
	atomic64_t np_ce_coalesced;
	atomic64_t np_ce_no_cnp;
	bool rp;
	struct rt_rp_params rp_p;
	struct rt_qppend pend;
	struct rt_qppend tpend;
	u64 overflow_ns;
	bool want_peer;
	atomic64_t rx_bad[RT_BAD_PEER + 1];
	struct list_head retired;
	u32 scan_next;
	u32 scan_hi;
	u32 dest_next;
	struct rcu_head rcu;
	int ifindex[];
};

/* Bump a version that dumps compare; 0 means "none" to the netlink core. */
static inline void rt_qp_seq_bump(unsigned int *seq)
{
	WRITE_ONCE(*seq, *seq + 1 ?: 1);
}

/*
 * The files of QP accounting, each calling only those below it
 * (Documentation/design.rst, "Layers"): rocetune_qp_nl.c,
 * rocetune_qp_nl_set.c and rocetune_qp_nl_stats.c (the netlink
 * commands), rocetune_qpdev.c (the devices' lifetime), rocetune_nf.c (the
 * datapath), rocetune_np.c and rocetune_rp.c (the notification and
 * reaction points, which the datapath calls) and rocetune_qptrack.c (the
 * verification), rocetune_qppend.c (the pending entries), rocetune_qp.c
 * (the table and the device list).
 */

#define RT_QP_GET_MAXATTR	ROCETUNE_A_QP_TOP_SAMPLE
#define RT_QP_SET_MAXATTR	ROCETUNE_A_QP_NP_CNP_PRIO
#define RT_QP_STATS_MAXATTR	ROCETUNE_A_DEV_NAME

/* rocetune_qp_nl.c */
extern const struct nla_policy rt_qp_get_policy[];
int rt_qp_get_doit(struct sk_buff *skb, struct genl_info *info);
int rt_qp_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int rt_qp_get_done(struct netlink_callback *cb);

/* rocetune_qp_nl_set.c */
extern const struct nla_policy rt_qp_set_policy[];
int rt_qp_set_doit(struct sk_buff *skb, struct genl_info *info);

/* rocetune_qp_nl_stats.c */
extern const struct nla_policy rt_qp_stats_policy[];
int rt_qp_stats_doit(struct sk_buff *skb, struct genl_info *info);
int rt_qp_stats_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/* rocetune_qpdev.c */
extern unsigned int rt_qpdev_seq;

int __init rt_qpdev_init(void);
void rt_qpdev_fini(void);
int rt_qp_dev_add(struct ib_device *ibdev);
void rt_qp_dev_remove(struct ib_device *ibdev);
void rt_qp_dev_rename(struct ib_device *ibdev);
struct rt_qpdev *rt_qpdev_find(u32 index, const char *name);
struct rt_qpdev *rt_qpdev_nl_find(struct net *net, struct nlattr **tb,
				  struct netlink_ext_ack *extack);
void rt_qpdev_name(u32 index, char *buf);
void rt_qpdev_hold(struct rt_qpdev *qd);
void rt_qpdev_put(struct rt_qpdev *qd);
struct ib_device *rt_qpdev_ibdev_get(struct rt_qpdev *qd);
void rt_qpdev_ibdev_put(struct rt_qpdev *qd);
int rt_qp_acct_set(struct rt_qpdev *qd, bool on);
bool rt_qp_hooks(void);

/* rocetune_nf.c */
int rt_nf_register(void);
void rt_nf_unregister(void);

/* rocetune_icrc.c */
bool rt_icrc(const struct sk_buff *skb, unsigned int ip_hlen,
	     unsigned int end, u32 *icrc);
bool rt_icrc_ok(const struct sk_buff *skb, const struct rt_pkt *pkt);

/* rocetune_np.c */
void rt_np_rx(struct net *net, const struct net_device *in,
	      struct rt_qpdev *qd, struct rt_qp *qp, const struct rt_pkt *pkt);
void rt_np_ce_unanswered(struct rt_qpdev *qd, const struct rt_pkt *pkt);

/* rocetune_rp.c */
void rt_rp_cnp(struct rt_qpdev *qd, struct rt_qp *qp);
u64 rt_rp_tx(struct rt_qpdev *qd, struct rt_qp *qp, struct sk_buff *skb);
bool rt_rp_snap(struct rt_qp *qp, struct rt_rp_snap *s);

/* rocetune_rtt.c */
void rt_rtt_tx(struct rt_qp *qp, const struct rt_pkt *pkt, u64 departure);
void rt_rtt_rx(struct rt_qp *qp, const struct rt_pkt *pkt);
void rt_rtt_carry(struct rt_qp *to, struct rt_qp *from);
bool rt_rtt_snap(struct rt_qp *qp, struct rt_rtt_snap *s);

/* rocetune_qptrack.c */
int __init rt_qptrack_init(void);
void rt_qptrack_fini(void);
void rt_qptrack_wake(void);
u32 rt_qptrack_period(void);
void rt_qptrack_set_period(u32 ms);

/* rocetune_qppend.c */
int rt_qppend_init(struct rt_qpdev *qd);
void rt_qppend_fini(struct rt_qpdev *qd);
struct rt_qp *rt_qppend_get(struct rt_qpdev *qd, u32 qpn,
			    const struct rt_pkt *pkt);
struct rt_qp *rt_qppend_find_tx(struct rt_qpdev *qd, u32 rqpn,
				const u8 *daddr);
struct rt_qp *rt_qppend_get_tx(struct rt_qpdev *qd, u32 rqpn,
			       const u8 *daddr);
unsigned int rt_qppend_count(struct rt_qpdev *qd);
unsigned int rt_qppend_count_tx(struct rt_qpdev *qd);
bool rt_qppend_verify(struct rt_qpdev *qd);
bool rt_qppend_verify_tx(struct rt_qpdev *qd, u64 max_age_ns);

/* rocetune_qp.c */
extern struct list_head rt_qpdevs;
extern struct mutex rt_qpdev_mutex;
extern spinlock_t rt_qp_lock;
extern struct list_head rt_qp_list;

int __init rt_qp_init(void);
void rt_qp_fini(void);
u32 rt_qp_linger_get(void);
void rt_qp_linger_set(u32 ms);
u64 rt_qp_linger_ns(void);
u32 rt_qp_max_get(void);
void rt_qp_max_set(u32 max);
unsigned int rt_qp_count_get(void);
u64 rt_qp_refused_get(void);
u64 rt_qp_gen_get(void);
u64 rt_qp_gen_next(void);
unsigned int rt_qp_table_seq(void);
unsigned long rt_qp_xa_index(u32 dev, u32 qpn);
struct rt_qp *rt_qp_xa_find(unsigned long *idx, unsigned long max);
void rt_qp_quick_init(work_func_t fn);
void rt_qp_quick_fini(void);
void rt_qp_kick(void);
struct rdma_restrack_entry *rt_qp_res(struct ib_device *ibdev, u32 qpn);
void rt_qp_flush(u32 dev, bool all);
struct rt_qp *rt_qp_lookup(u32 dev, u32 qpn);
struct rt_qp *rt_qp_alloc(struct rt_qpdev *qd, u32 qpn, gfp_t gfp);
int rt_qp_adopt(struct rt_qp *qp);
struct rt_qp *rt_qp_lookup_tx(struct rt_qpdev *qd, u32 rqpn,
			      const u8 *daddr);
enum rt_peer_kind rt_qp_peer(struct rt_qp *qp, struct rt_qp_peer *peer);
bool rt_qp_psn_advance(struct rt_qp *qp, u64 psn);
void rt_qp_account(struct rt_qp *qp, const struct rt_pkt *pkt, bool tx);
void rt_qp_connected(struct rt_qpdev *qd, struct ib_qp *ibqp, u32 rqpn,
		     const u8 *daddr, struct rt_qp *from);
void rt_qp_set_meta(u32 dev, struct ib_qp *ibqp);
int rt_qp_learned(struct rt_qpdev *qd, struct ib_qp *ibqp);
void rt_qp_owner(struct rt_qp *qp, struct ib_qp *ibqp);
void rt_qp_free(struct rt_qp *qp);
void rt_qp_forget(u32 dev, u32 qpn);
void rt_qp_kill(u32 dev, u32 qpn);
bool rt_qp_next_entry(u32 dev, u32 *qpn);

#endif /* _ROCETUNE_QP_H */
