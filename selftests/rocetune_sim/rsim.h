/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rocetune_sim: a simulated DCB-capable RoCE NIC for tests.
 *
 * Each simulated device is a device on the "rocetune_sim" bus with an
 * Ethernet netdev (dcbnl and ethtool ops), an RDMA device with one RoCE
 * port on that netdev, and debugfs knobs that inject counter values,
 * counter growth and failures.  The "personality" (mlx5, irdma, bnxt_re)
 * selects counter names and a few driver behaviours.
 */
#ifndef _RSIM_H
#define _RSIM_H

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <net/dcbnl.h>

/*
 * Kernel API differences between the supported kernels (6.1 and 6.12) are
 * detected in the headers by Kbuild: RSIM_CONST_BUS_ATTR,
 * RSIM_CREATE_CQ_ATTRS.
 */
#ifdef RSIM_CONST_BUS_ATTR
#define RSIM_CONST_BUS		const
#else
#define RSIM_CONST_BUS
#endif

#define RSIM_DRV_NAME		"rocetune_sim"
#define RSIM_NUM_PRIO		8
#define RSIM_NUM_DSCP		64
#define RSIM_MAX_GROW		8
#define RSIM_TICK_MS		100
#define RSIM_FLAP_MS		200
#define RSIM_BUF_TOTAL		524288	/* port buffer less internal buffers */
#define RSIM_BUF_INTERNAL	16384
#define RSIM_BUF_CELL		128

enum rsim_personality {
	RSIM_MLX5,
	RSIM_IRDMA,
	RSIM_BNXT_RE,
	RSIM_NUM_PERSONALITIES,
};

/*
 * Entries of rsim_personalities[]: one per personality, then variants of
 * one with other counter names ("bnxt_re2": bnxt_re's renamed counters).
 */
enum {
	RSIM_BNXT_RE2_INFO = RSIM_NUM_PERSONALITIES,
	RSIM_NUM_INFOS,
};

/*
 * Counter index space of a device: per-priority PFC counters, the pause
 * storm events, then the RDMA hw counters of the personality.
 */
enum {
	RSIM_C_RX_PAUSE = 0,
	RSIM_C_TX_PAUSE = RSIM_C_RX_PAUSE + RSIM_NUM_PRIO,
	RSIM_C_RX_PAUSE_DUR = RSIM_C_TX_PAUSE + RSIM_NUM_PRIO,
	RSIM_C_TX_PAUSE_DUR = RSIM_C_RX_PAUSE_DUR + RSIM_NUM_PRIO,
	RSIM_C_STORM_WARN = RSIM_C_TX_PAUSE_DUR + RSIM_NUM_PRIO,
	RSIM_C_STORM_ERR,
	RSIM_C_HW,
};

#define RSIM_HW_MAX		32
#define RSIM_C_MAX		(RSIM_C_HW + RSIM_HW_MAX)
#define RSIM_CC_MAX		24

struct rsim_hw_counter {
	const char *name;
	bool is_32bit;
};

struct rsim_personality_info {
	const char *name;
	enum rsim_personality pers;	/* the driver behaviours */
	const char *driver;	/* the Ethernet driver ethtool -i reports */
	const struct rsim_hw_counter *hw;
	unsigned int num_hw;
	bool pfc_tunable;	/* ETHTOOL_PFC_PREVENTION_TOUT */
	bool pfc_link_flap;	/* default of the pfc_link_flap knob */
	const struct dcbnl_rtnl_ops *dcbnl_ops;	/* the driver's op set */
	bool ets_before_pfc;	/* ETS empty and PFC refused until set */
};

/* A counter that grows at a constant rate until @end (0: until stopped). */
struct rsim_grow {
	bool active;
	unsigned int idx;
	u64 rate;		/* per second */
	u64 rem;		/* carried remainder, in 1/1000 units */
	unsigned long last;
	unsigned long end;
};

struct rsim_cnt_file {
	struct rsim_dev *rsim;
	unsigned int idx;
};

struct rsim_ib;

struct rsim_dev {
	struct device dev;
	struct list_head list;
	u32 id;
	enum rsim_personality pers;
	const struct rsim_personality_info *info;
	struct net_device *netdev;
	struct rsim_ib *ib;
	struct dentry *ddir;

	/* DCB and ethtool state, changed under RTNL */
	struct ieee_ets ets;
	bool ets_set;			/* an ETS set succeeded */
	u8 pfc_en;
	u8 pfc_mbc;
	u16 pfc_delay;
	struct ieee_maxrate maxrate;
	struct dcbnl_buffer buffer;
	bool buf_manual;		/* mlx5: a buffer set changed something */
	u8 buf_lossless;		/* mlx5: buffers the port holds lossless */
	u32 buf_xoff;			/* mlx5: xoff of the last buffer config */
	u8 max_tc;			/* bnxt_en: TCs of the hardware */
	u8 max_lltc;			/* bnxt_en: lossless TCs of the hardware */
	u8 dcbx;
	/*
	 * The device's DSCP->priority map (-1: not mapped), as the driver
	 * programs it: mlx5 and ice keep one entry per DSCP; bnxt_en's
	 * firmware takes the latest add and forgets the DSCP on any delete.
	 */
	s8 dscp2prio[RSIM_NUM_DSCP];
	unsigned int num_dscp_apps;	/* mlx5, ice: DSCPs mapped */
	bool trust_dscp;		/* mlx5, ice: DSCP (L3) trust */
	u16 pfc_prevention_tout;

	/* knobs */
	atomic_t fail_next_set;		/* errno (positive) or 0 */
	/* set operations that reached the device (rsim_set_begin()) */
	atomic64_t set_count;
	spinlock_t set_lock;		/* the fail_set and ignore_set knobs */
	u32 fail_set_skip;
	int fail_set_err;		/* errno (positive), 0: disarmed */
	int ignore_set_skip;		/* -1: disarmed */
	bool cc_lockdown;
	bool pfc_link_flap;
	atomic_t link_flaps;
	struct delayed_work flap_work;

	/* counters: @cnt and @grow under @stats_lock */
	spinlock_t stats_lock;
	u64 cnt[RSIM_C_MAX];
	unsigned int num_cnt;
	struct rsim_grow grow[RSIM_MAX_GROW];
	struct delayed_work grow_work;
	struct rsim_cnt_file cnt_files[RSIM_C_MAX];
	/* hw_stats refreshed only every @hw_refresh_ms (0: always live) */
	u32 hw_refresh_ms;
	unsigned long hw_latched_at;
	bool hw_latched;
	u64 hw_latch[RSIM_HW_MAX];
	/* every hw_stats read sleeps this long first (slow firmware) */
	u32 hw_delay_ms;

	/* congestion control parameters (debugfs.c), under @cc_lock */
	struct mutex cc_lock;
	u32 cc[RSIM_CC_MAX];
	struct rsim_cnt_file cc_files[RSIM_CC_MAX];
};

extern const struct rsim_personality_info rsim_personalities[];

struct rsim_netdev_priv {
	struct rsim_dev *rsim;
};

static inline struct rsim_dev *rsim_from_netdev(struct net_device *dev)
{
	struct rsim_netdev_priv *priv = netdev_priv(dev);

	return priv->rsim;
}

/* model.c */
const char *rsim_cnt_name(const struct rsim_dev *rsim, unsigned int idx);
int rsim_cnt_lookup(const struct rsim_dev *rsim, const char *name);
u64 rsim_cnt_mask(const struct rsim_dev *rsim, unsigned int idx);
void rsim_counters_init(void);
bool rsim_grow_advance(struct rsim_dev *rsim, unsigned long now);
bool rsim_set_begin(struct rsim_dev *rsim, int *err);

/* debugfs.c */
int rsim_debugfs_init(void);
void rsim_debugfs_exit(void);
int rsim_dev_debugfs_init(struct rsim_dev *rsim);
void rsim_dev_debugfs_exit(struct rsim_dev *rsim);

/* netdev.c */
int rsim_netdev_init(struct rsim_dev *rsim);
void rsim_netdev_exit(struct rsim_dev *rsim);
void rsim_link_flap(struct rsim_dev *rsim);

/* dcb.c */
extern const struct dcbnl_rtnl_ops rsim_dcbnl_ops_mlx5;
extern const struct dcbnl_rtnl_ops rsim_dcbnl_ops_ice;
extern const struct dcbnl_rtnl_ops rsim_dcbnl_ops_bnxt;
void rsim_dcb_init(struct rsim_dev *rsim);

/* ethtool.c */
extern const struct ethtool_ops rsim_ethtool_ops;

/* ib.c */
int rsim_ib_init(struct rsim_dev *rsim);
void rsim_ib_exit(struct rsim_dev *rsim);
void rsim_ib_port_event(struct rsim_dev *rsim, bool up);

#endif /* _RSIM_H */
