/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune: private declarations shared by the module's files.
 *
 * Device lifetime and locking (rocetune_dev.c):
 *  - Each tracked device is a struct rt_dev with a kref, stored in the
 *    xarray rt_devs_xa under its RDMA device index (the order of dumps).
 *    rt_devs_lock protects the xarray's membership, rt_devs_seq and the
 *    writers of rt_dev.name; it is held only to find a device and take a
 *    reference (rt_dev_find(), rt_dev_next()), never across hardware I/O,
 *    RTNL, a netlink message or another mutex.
 *  - rt_dev.lock, the device's own mutex, protects the samples and the
 *    configuration.  It is held across that one device's I/O
 *    (get_hw_stats, ib_query_port, the DCB and ethtool ops under RTNL, which
 *    the sampling work only try-locks), so a slow device stalls the users
 *    of that device only, never another one, registration or rename.
 *  - @ibdev may be used only under rt_dev.lock while !@dying.  The RDMA
 *    client's remove callback unlinks the device, sets @dying (under
 *    rt_dev.work_lock), then takes rt_dev.lock once, which waits for the
 *    user in flight (those queued behind it see @dying), and stops the
 *    work: when it returns nothing uses @ibdev any more.  A reference
 *    taken before that sees @dying and reports the device as gone; the
 *    last rt_dev_put() frees it.
 *  - rt_dev.name_lock (a spinlock) protects @name for readers without
 *    rt_devs_lock; a rename holds both while it writes it.
 *  - rt_dev.work_lock (a spinlock) protects the writer of @dying, and
 *    orders rt_sample_kick() against rt_sample_stop(); users of @ibdev
 *    read @dying under rt_dev.lock (READ_ONCE()).
 *  Order: rt_devs_lock, then rt_dev.name_lock or rt_dev.work_lock;
 *  rt_dev.lock, then RTNL (try-locked by the sampling work, but a
 *  driver's query_port may take it, as rxe's does), then rt_cfg_lock,
 *  rt_dev.name_lock or rt_dev.work_lock.  rt_devs_lock and rt_dev.lock
 *  are never held together, and the remove callback (which takes
 *  rt_dev.lock) must not run under RTNL, as no RDMA driver does.
 *  - Events are raised under rt_dev.lock (port events) or in a client
 *    callback (device events) through rt_notify_dev() and rt_notify_port()
 *    (rocetune_core.c), which hand them to rt_nl_event(); they are built
 *    there and sent under rcu_read_lock() while the family is registered.
 */
#ifndef _ROCETUNE_H
#define _ROCETUNE_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>
#include <uapi/linux/rocetune.h>

#define RT_NUM_PRIO		8
#define RT_NUM_CNT		(ROCETUNE_A_CNT_MAX + 1)

#define RT_INTERVAL_MIN_MS	10
#define RT_INTERVAL_MAX_MS	10000
#define RT_INTERVAL_DEF_MS	100
#define RT_STORM_MIN_MS		10
#define RT_STORM_MAX_MS		600000
#define RT_STORM_DEF_MS		500
/* A netlink "do" request re-reads counters at most this often. */
#define RT_FRESH_READ_NS	(10 * NSEC_PER_MSEC)

/**
 * struct rt_config - sampling interval and event thresholds
 * @interval_ms: sampling period
 * @storm_ms: receiving pause frames for this long is a pause storm
 * @cnp_rate_thresh: CNP/s (received + sent) above which to notify, 0 = off
 * @ecn_rate_thresh: ECN-CE packets/s above which to notify, 0 = off
 */
struct rt_config {
	u32 interval_ms;
	u32 storm_ms;
	u64 cnp_rate_thresh;
	u64 ecn_rate_thresh;
};

/* Netdevs of a bond whose pause durations are read (the first ones). */
#define RT_PFC_SS_DEVS		4

/**
 * struct rt_pfc_ss - a netdev's pause durations among its ethtool stats
 * @ifindex: the netdev, 0 when the entry is unused
 * @ndev: the netdev's address, compared only (with @ifindex: the same one)
 * @n_stats: its ETH_SS_STATS count when its names were read
 * @en: its PFC-enabled priorities then (mlx5 lists only theirs)
 * @found: it has at least one duration statistic
 * @rx: index of rx_prioN_pause_duration of each priority, -1 when absent
 * @tx: index of tx_prioN_pause_duration of each priority, -1 when absent
 *
 * The cache of the names' walk: it is walked again only when the netdev,
 * its number of statistics or its PFC-enabled priorities change.
 */
struct rt_pfc_ss {
	int ifindex;
	unsigned long ndev;
	int n_stats;
	u8 en;
	bool found;
	int rx[RT_NUM_PRIO];
	int tx[RT_NUM_PRIO];
};

/**
 * struct rt_pfc - per-priority PFC state of a port's netdev
 * @valid: the fields below come from a successful ieee_getpfc
 * @rates_valid: @tx_rate and @rx_rate cover a full interval
 * @cap: pfc_cap of struct ieee_pfc
 * @enabled: bitmap of PFC-enabled priorities
 * @tx: PFC frames sent (ieee_pfc requests)
 * @rx: PFC frames received (ieee_pfc indications)
 * @tx_rate: frames/s sent over the last interval
 * @rx_rate: frames/s received over the last interval
 * @tx_base: @tx at the last periodic sample
 * @rx_base: @rx at the last periodic sample
 * @base_ns: CLOCK_MONOTONIC time of the last periodic sample, 0 when
 *	@tx_base and @rx_base are not valid
 * @rx_since_ns: start of the current run of intervals with pause received
 * @rx_last_ns: last sample that saw new pause frames in the current run
 * @storm: a pause storm is under way on the priority
 * @rx_dur_mask: priorities whose @rx_dur_us holds the driver's duration
 * @tx_dur_mask: priorities whose @tx_dur_us holds the driver's duration
 * @dur_ns: CLOCK_MONOTONIC time of the last attempt to read them
 * @ss: where the netdevs (a bond's members) have their pause durations
 * @rx_dur_us: time paused by received PFC frames, microseconds
 * @tx_dur_us: time the port asked its peer to pause, microseconds
 */
struct rt_pfc {
	bool valid;
	bool rates_valid;
	u8 cap;
	u8 enabled;
	u64 tx[RT_NUM_PRIO];
	u64 rx[RT_NUM_PRIO];
	u64 tx_rate[RT_NUM_PRIO];
	u64 rx_rate[RT_NUM_PRIO];
	u64 tx_base[RT_NUM_PRIO];
	u64 rx_base[RT_NUM_PRIO];
	u64 base_ns;
	u64 rx_since_ns[RT_NUM_PRIO];
	u64 rx_last_ns[RT_NUM_PRIO];
	bool storm[RT_NUM_PRIO];
	u8 rx_dur_mask;
	u8 tx_dur_mask;
	u64 dur_ns;
	struct rt_pfc_ss ss[RT_PFC_SS_DEVS];
	u64 rx_dur_us[RT_NUM_PRIO];
	u64 tx_dur_us[RT_NUM_PRIO];
};

/* Samples in a row at or below a rate threshold before it is normal again. */
#define RT_NORMAL_SAMPLES	3

/**
 * struct rt_thresh_state - state of one rate threshold of a port
 * @high: the rate is above the threshold
 * @low_samples: samples in a row at or below it while @high
 */
struct rt_thresh_state {
	bool high;
	unsigned int low_samples;
};

/**
 * struct rt_port - one RoCE port of a tracked device
 * @port: port number
 * @hw: our own hw_stats structure from the driver, or NULL
 * @hw_raw: raw values read last time, one per @hw counter
 * @hw_acc: 64-bit accumulated values, one per @hw counter
 * @cnt_map: index into @hw of each normalized counter, -1 when absent
 * @cnt_rate: per-second rate of each normalized counter
 * @cnt_base: each normalized counter at the last periodic sample
 * @base_ns: CLOCK_MONOTONIC time of the last periodic read, 0 when
 *	@cnt_base is not valid
 * @hw_valid: @hw_raw and @hw_acc hold a successful read
 * @sampled: at least one sample was taken
 * @rates_valid: @cnt_rate covers a full interval
 * @sample_ns: CLOCK_MONOTONIC time of the last sample (periodic or not)
 * @state: port state at the last sample
 * @ifindex: ifindex of the port's netdev, 0 when there is none
 * @ifname: name of the port's netdev
 * @net_cookie: net_cookie of the netdev's network namespace: only callers
 *	and listeners in that namespace are told @ifindex and @ifname
 * @lower_ifindex: ifindex of the real device under a VLAN, else 0
 * @lower_name: its name
 * @lower_net_cookie: likewise for the real device
 * @pfc: per-priority PFC state
 * @cnp: state of the CNP rate threshold
 * @ecn: state of the ECN-CE rate threshold
 */
struct rt_port {
	u32 port;
	struct rdma_hw_stats *hw;
	u64 *hw_raw;
	u64 *hw_acc;
	int cnt_map[RT_NUM_CNT];
	u64 cnt_rate[RT_NUM_CNT];
	u64 cnt_base[RT_NUM_CNT];
	u64 base_ns;
	bool hw_valid;
	bool sampled;
	bool rates_valid;
	u64 sample_ns;
	enum ib_port_state state;
	int ifindex;
	char ifname[IFNAMSIZ];
	u64 net_cookie;
	int lower_ifindex;
	char lower_name[IFNAMSIZ];
	u64 lower_net_cookie;
	struct rt_pfc pfc;
	struct rt_thresh_state cnp;
	struct rt_thresh_state ecn;
};

/**
 * struct rt_dev - one tracked RDMA device
 * @ref: references: rt_devs_xa's, and one per user found by a lookup
 * @ibdev: the device; used only under @lock while !@dying
 * @index: RDMA device index
 * @name: device name, updated on rename (see rocetune.h's locking rules)
 * @driver: short name of the driver, copied at add
 * @lock: protects the samples, @cfg and @cfg_own; users of @ibdev hold it
 * @name_lock: protects @name for readers without rt_devs_lock
 * @work_lock: protects @dying; orders rt_sample_kick() against
 *	rt_sample_stop()
 * @work: the sampling work
 * @event_handler: port events of @ibdev
 * @dying: the device is being removed: @ibdev is no longer used
 * @cfg: per-device configuration, used when @cfg_own
 * @cfg_own: the device has its own configuration
 * @nports: number of entries in @ports (RoCE ports only)
 * @ports: the RoCE ports
 */
struct rt_dev {
	struct kref ref;
	struct ib_device *ibdev;
	u32 index;
	char name[IB_DEVICE_NAME_MAX];
	char driver[MODULE_NAME_LEN];
	struct mutex lock;	/* see the locking rules above */
	spinlock_t name_lock;	/* @name, for readers */
	spinlock_t work_lock;	/* @work against rt_sample_stop() */
	struct delayed_work work;
	struct ib_event_handler event_handler;
	bool dying;
	struct rt_config cfg;
	bool cfg_own;
	unsigned int nports;
	struct rt_port ports[];
};

/**
 * rt_rate - per-second rate of an increase over an interval
 * @delta: the increase
 * @dt_ns: the interval in nanoseconds
 *
 * Return: @delta per second, 0 for an empty interval.
 */
static inline u64 rt_rate(u64 delta, u64 dt_ns)
{
	if (!dt_ns)
		return 0;
	return mul_u64_u64_div_u64(delta, NSEC_PER_SEC, dt_ns);
}

/**
 * rt_delta - increase of a counter between two reads, wrap-safe
 * @prev: previous raw value
 * @cur: current raw value
 *
 * Drivers do not say how wide a counter is.  A value that went down
 * either wrapped at 2^32 (a 32-bit hardware counter such as mlx5's
 * q-counters) or was reset (a 64-bit counter, or any counter of a device
 * that was reset).  It wrapped only if it was a 32-bit value and the step
 * across 2^32 is less than 2^31 - billions of events between two samples
 * otherwise; anything else is a reset, and the counter counts from zero.
 *
 * Return: the increase.
 */
static inline u64 rt_delta(u64 prev, u64 cur)
{
	u32 wrapped;

	if (cur >= prev)
		return cur - prev;
	wrapped = (u32)(cur - prev);
	if (prev <= U32_MAX && wrapped < BIT(31))
		return wrapped;
	return cur;
}

/**
 * struct rt_event - an event of a device or of one of its ports
 * @type: enum rocetune_event
 * @rdev: the device
 * @p: the port of a port or threshold event, NULL for a device event
 * @old_name: the name before a rename (ROCETUNE_EVENT_DEV_RENAME), else NULL
 * @prio: the priority of a pause-storm event, else -1
 * @value: the value that crossed (threshold and storm events)
 * @thresh: the threshold it crossed
 * @duration_ms: storm length (storm events)
 */
struct rt_event {
	u32 type;
	struct rt_dev *rdev;
	struct rt_port *p;
	const char *old_name;
	int prio;
	u64 value;
	u64 thresh;
	u64 duration_ms;
};

/* The policy of the device attributes, which every command accepts. */
#define RT_POLICY_DEV							\
	[ROCETUNE_A_DEV_INDEX] = { .type = NLA_U32 },			\
	[ROCETUNE_A_DEV_NAME] = { .type = NLA_NUL_STRING,		\
				  .len = IB_DEVICE_NAME_MAX - 1 }

/* rocetune_nl.c: the generic netlink family, registered by rt_nl_init() */
extern struct genl_family rt_genl_family;

/* rocetune_nl_event.c */
void rt_nl_event(const struct rt_event *ev);

/* rocetune_core.c */
void rt_notify_dev(struct rt_dev *rdev, u32 type, const char *old_name);
void rt_notify_port(struct rt_dev *rdev, struct rt_port *p, u32 type,
		    int prio, u64 value, u64 thresh, u64 duration_ms);
struct net_device *rt_port_netdev(struct ib_device *ibdev, u32 port);

/* rocetune_dev.c */
extern struct mutex rt_devs_lock;
extern struct xarray rt_devs_xa;
extern unsigned int rt_devs_seq;

/**
 * rt_dump_check - mark a dump inconsistent when its objects changed
 * @cb: the dump, whose seq the pass set to the dumped objects' version
 * @skb: the dump's message
 * @off: where in @skb the message just added starts
 *
 * The netlink core then sets NLM_F_DUMP_INTR on the message when the
 * version differs from the previous pass's (genl_dump_check_consistent()).
 */
static inline void rt_dump_check(struct netlink_callback *cb,
				 struct sk_buff *skb, unsigned int off)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)(skb->data + off);

	genl_dump_check_consistent(cb, genlmsg_data(nlmsg_data(nlh)));
}

/**
 * rt_dev_name - copy a device's current name
 * @rdev: the device
 * @buf: IB_DEVICE_NAME_MAX bytes
 *
 * Context: any context but under rt_dev.name_lock.
 */
static inline void rt_dev_name(struct rt_dev *rdev, char *buf)
{
	spin_lock(&rdev->name_lock);
	strscpy(buf, rdev->name, IB_DEVICE_NAME_MAX);
	spin_unlock(&rdev->name_lock);
}

struct rt_dev *rt_dev_find(u32 index, const char *name);
struct rt_dev *rt_dev_next(u32 *index, unsigned int *seq);
void rt_dev_put(struct rt_dev *rdev);
bool rt_dev_visible(struct rt_dev *rdev, const struct net *net);
struct rt_port *rt_dev_port(struct rt_dev *rdev, u32 port);
int rt_dev_add(struct ib_device *ibdev, struct ib_client *client);
void rt_dev_remove(struct rt_dev *rdev);
void rt_dev_rename(struct rt_dev *rdev);

/* rocetune_counters.c */
int rt_counters_init(struct rt_dev *rdev, struct rt_port *p);
bool rt_hw_enabled(const struct rdma_hw_stats *hw, int i);
void rt_counters_fini(struct rt_port *p);
void rt_counters_read(struct rt_dev *rdev, struct rt_port *p, u64 now,
		      bool periodic);

/* rocetune_pfc.c */
void rt_pfc_read(struct rt_dev *rdev, struct rt_port *p,
		 struct net_device *dcbdev, u64 now, bool periodic,
		 const struct rt_config *cfg);

/* rocetune_sample.c */
extern spinlock_t rt_cfg_lock;
extern struct rt_config rt_cfg;
void rt_dev_config(struct rt_dev *rdev, struct rt_config *cfg);
void rt_sample_start(struct rt_dev *rdev);
void rt_sample_stop(struct rt_dev *rdev);
void rt_sample_kick(struct rt_dev *rdev);
void rt_sample_fresh(struct rt_dev *rdev);
void rt_sample_work(struct work_struct *work);

/* rocetune_nl.c */
int __init rt_nl_init(void);
void rt_nl_fini(void);

#endif /* _ROCETUNE_H */
