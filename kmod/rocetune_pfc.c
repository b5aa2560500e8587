// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: per-priority PFC counters and pause-storm detection.
 *
 * The counters come from the DCB ops of the port's netdev, or of the real
 * device under a VLAN (struct ieee_pfc: requests = PFC frames sent,
 * indications = received).  For a bond or team, they are the sum over its
 * members that have DCB ops, and a priority counts as PFC-enabled only if
 * it is enabled on every one of them (a lossless class must be lossless on
 * every link).  dcbnl calls these ops under RTNL, and so do we; the
 * sampling work only try-locks RTNL so that it never waits for it (device
 * removal may run under RTNL and wait for the work).
 *
 * Pause durations have no DCB op: where the driver has them as ethtool
 * statistics (mlx5: rx_prioN_pause_duration and tx_prioN_pause_duration,
 * in microseconds) they are read at most every RT_PFC_DUR_NS, as ethtool
 * statistics of a hardware NIC may cost firmware commands.  Where they are
 * among the statistics is cached per netdev (struct rt_pfc_ss): their names
 * are walked again only when the netdev, its number of statistics or its
 * PFC-enabled priorities change (mlx5 lists the statistics of enabled
 * priorities only), and never for more than RT_PFC_SS_MAX statistics or
 * RT_PFC_SS_DEVS members of a bond.  As in the ethtool core, the driver's
 * begin and complete ops bracket its statistics ops.
 */

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/pm_runtime.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/dcbnl.h>

#include "rocetune.h"

#define RT_PFC_DUR_NS		NSEC_PER_SEC
/* A netdev with more ethtool statistics is not searched for durations. */
#define RT_PFC_SS_MAX		16384

static int rt_pfc_get_one(struct net_device *dev, struct ieee_pfc *pfc)
{
#if IS_ENABLED(CONFIG_DCB)
	const struct dcbnl_rtnl_ops *ops = dev->dcbnl_ops;

	ASSERT_RTNL();
	if (dev->reg_state == NETREG_REGISTERED && ops && ops->ieee_getpfc)
		return ops->ieee_getpfc(dev, pfc);
#endif
	return -EOPNOTSUPP;
}

/*
 * PFC of @dev: its own, or the sum over the members of a bond/team that
 * have it.  RTNL held.  Return: the number of netdevs summed, or a
 * negative errno when none has PFC.
 */
static int rt_pfc_get(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct ieee_pfc one;
	struct list_head *iter;
	struct net_device *m;
	int n = 0, prio;

	ASSERT_RTNL();
	if (!netif_is_lag_master(dev))
		return rt_pfc_get_one(dev, pfc) ?: 1;
	netdev_for_each_lower_dev(dev, m, iter) {
		memset(&one, 0, sizeof(one));
		if (rt_pfc_get_one(m, &one))
			continue;
		if (!n) {
			*pfc = one;
		} else {
			pfc->pfc_cap = min(pfc->pfc_cap, one.pfc_cap);
			pfc->pfc_en &= one.pfc_en;
			for (prio = 0; prio < IEEE_8021QAZ_MAX_TCS; prio++) {
				pfc->requests[prio] += one.requests[prio];
				pfc->indications[prio] += one.indications[prio];
			}
		}
		n++;
	}
	return n ?: -EOPNOTSUPP;
}

/*
 * The priority of an ethtool statistic "<dir>_prioN_pause_duration" (@dir
 * "rx" or "tx"), or -1 for any other name.
 */
static int rt_pfc_dur_prio(const char *s, const char *dir)
{
	if (strncmp(s, dir, 2) || strncmp(s + 2, "_prio", 5) ||
	    s[7] < '0' || s[7] >= '0' + RT_NUM_PRIO ||
	    strncmp(s + 8, "_pause_duration", ETH_GSTRING_LEN - 8))
		return -1;
	return s[7] - '0';
}

/*
 * Start using @dev's ethtool ops as the ethtool core does: the device is
 * registered and present, and the driver's begin op (if any) agreed; a
 * runtime-suspended device is not woken up for statistics.  RTNL held.
 * Return: 0 when rt_ethtool_complete() must follow, else a negative errno.
 */
static int rt_ethtool_begin(struct net_device *dev)
{
	const struct ethtool_ops *ops = dev->ethtool_ops;

	ASSERT_RTNL();
	if (dev->reg_state != NETREG_REGISTERED || !netif_device_present(dev))
		return -ENODEV;
	if (dev->dev.parent && pm_runtime_suspended(dev->dev.parent))
		return -EAGAIN;
	return ops->begin ? ops->begin(dev) : 0;
}

static void rt_ethtool_complete(struct net_device *dev)
{
	if (dev->ethtool_ops->complete)
		dev->ethtool_ops->complete(dev);
}

/*
 * Look the pause durations up among @dev's @n statistics into @ss, unless
 * @ss describes @dev with @n statistics and PFC-enabled priorities @en
 * already.  Inside rt_ethtool_begin().  Return: 0 or -ENOMEM.
 */
static int rt_pfc_ss_lookup(struct net_device *dev, struct rt_pfc_ss *ss,
			    int n, u8 en)
{
	const struct ethtool_ops *ops = dev->ethtool_ops;
	u8 *strings;
	int i, prio;

	if (ss->ifindex == dev->ifindex && ss->ndev == (unsigned long)dev &&
	    ss->n_stats == n && ss->en == en)
		return 0;
	ss->ifindex = 0;
	strings = kvcalloc(n, ETH_GSTRING_LEN, GFP_KERNEL);
	if (!strings)
		return -ENOMEM;
	ops->get_strings(dev, ETH_SS_STATS, strings);
	ss->found = false;
	for (prio = 0; prio < RT_NUM_PRIO; prio++) {
		ss->rx[prio] = -1;
		ss->tx[prio] = -1;
	}
	for (i = 0; i < n; i++) {
		const char *s = strings + i * ETH_GSTRING_LEN;

		prio = rt_pfc_dur_prio(s, "rx");
		if (prio >= 0) {
			ss->rx[prio] = i;
			ss->found = true;
		}
		prio = rt_pfc_dur_prio(s, "tx");
		if (prio >= 0) {
			ss->tx[prio] = i;
			ss->found = true;
		}
	}
	kvfree(strings);
	ss->ifindex = dev->ifindex;
	ss->ndev = (unsigned long)dev;
	ss->n_stats = n;
	ss->en = en;
	return 0;
}

/*
 * Add @dev's pause durations (ethtool statistics) to @rx and @tx, and the
 * priorities it has them for to @rx_mask and @tx_mask (mlx5 lists only
 * PFC-enabled priorities); @ss caches where they are, for PFC-enabled
 * priorities @en.  RTNL held.  Return: true if @dev has any.
 */
static bool rt_pfc_dur_one(struct net_device *dev, struct rt_pfc_ss *ss,
			   u8 en, u64 *rx, u64 *tx, u8 *rx_mask, u8 *tx_mask)
{
	const struct ethtool_ops *ops = dev->ethtool_ops;
	struct ethtool_stats stats = { .cmd = ETHTOOL_GSTATS };
	bool found = false;
	u64 *data;
	int n, prio;

	ASSERT_RTNL();
	if (!ops || !ops->get_sset_count || !ops->get_strings ||
	    !ops->get_ethtool_stats || rt_ethtool_begin(dev))
		return false;
	n = ops->get_sset_count(dev, ETH_SS_STATS);
	if (n <= 0 || n > RT_PFC_SS_MAX || rt_pfc_ss_lookup(dev, ss, n, en) ||
	    !ss->found)
		goto out;
	found = true;
	data = kvcalloc(n, sizeof(u64), GFP_KERNEL);
	if (!data)
		goto out;
	stats.n_stats = n;
	ops->get_ethtool_stats(dev, &stats, data);
	for (prio = 0; prio < RT_NUM_PRIO; prio++) {
		if (ss->rx[prio] >= 0) {
			rx[prio] += data[ss->rx[prio]];
			*rx_mask |= BIT(prio);
		}
		if (ss->tx[prio] >= 0) {
			tx[prio] += data[ss->tx[prio]];
			*tx_mask |= BIT(prio);
		}
	}
	kvfree(data);
out:
	rt_ethtool_complete(dev);
	return found;
}

/*
 * Pause durations of @dev (summed over the first RT_PFC_SS_DEVS members of
 * a bond), whose PFC-enabled priorities are @en; RTNL held.
 */
static void rt_pfc_dur(struct rt_pfc *pfc, struct net_device *dev, u8 en,
		       u64 now)
{
	u64 rx[RT_NUM_PRIO] = {}, tx[RT_NUM_PRIO] = {};
	u8 rx_mask = 0, tx_mask = 0;
	struct list_head *iter;
	struct net_device *m;
	bool found = false;
	unsigned int i = 0;

	if (pfc->dur_ns && now - pfc->dur_ns < RT_PFC_DUR_NS)
		return;
	pfc->dur_ns = now;
	if (netif_is_lag_master(dev)) {
		netdev_for_each_lower_dev(dev, m, iter) {
			if (i == RT_PFC_SS_DEVS)
				break;
			found |= rt_pfc_dur_one(m, &pfc->ss[i++], en, rx, tx,
						&rx_mask, &tx_mask);
		}
	} else {
		found = rt_pfc_dur_one(dev, &pfc->ss[0], en, rx, tx, &rx_mask,
				       &tx_mask);
	}
	pfc->rx_dur_mask = rx_mask;
	pfc->tx_dur_mask = tx_mask;
	if (!found)
		return;
	memcpy(pfc->rx_dur_us, rx, sizeof(rx));
	memcpy(pfc->tx_dur_us, tx, sizeof(tx));
}

static void rt_storm_end(struct rt_dev *rdev, struct rt_port *p, int prio,
			 u64 now)
{
	struct rt_pfc *pfc = &p->pfc;

	if (pfc->storm[prio])
		rt_notify_port(rdev, p, ROCETUNE_EVENT_STORM_END, prio,
			       pfc->rx_rate[prio], 0,
			       div_u64(pfc->rx_last_ns[prio] -
				       pfc->rx_since_ns[prio],
				       NSEC_PER_MSEC));
	pfc->storm[prio] = false;
	pfc->rx_since_ns[prio] = 0;
	pfc->rx_last_ns[prio] = 0;
}

static void rt_storm_check(struct rt_dev *rdev, struct rt_port *p, int prio,
			   u64 drx, u64 dt_ns, u64 now,
			   const struct rt_config *cfg)
{
	struct rt_pfc *pfc = &p->pfc;
	u64 len;

	if (!drx) {
		/*
		 * A run of pause frames ends only after a full interval
		 * without any: counters that drivers refresh on their own
		 * schedule (or a short on-demand sample) may show no change
		 * in one sample in the middle of a storm.
		 */
		if (pfc->rx_since_ns[prio] &&
		    now - pfc->rx_last_ns[prio] >=
		    (u64)cfg->interval_ms * NSEC_PER_MSEC)
			rt_storm_end(rdev, p, prio, now);
		return;
	}
	/* Pause frames throughout this interval: the run started with it. */
	if (!pfc->rx_since_ns[prio])
		pfc->rx_since_ns[prio] = now - dt_ns;
	pfc->rx_last_ns[prio] = now;
	len = now - pfc->rx_since_ns[prio];
	if (!pfc->storm[prio] && len >= (u64)cfg->storm_ms * NSEC_PER_MSEC) {
		pfc->storm[prio] = true;
		rt_notify_port(rdev, p, ROCETUNE_EVENT_STORM_START, prio,
			       pfc->rx_rate[prio], cfg->storm_ms,
			       div_u64(len, NSEC_PER_MSEC));
	}
}

/**
 * rt_pfc_read - sample the PFC counters of a port
 * @rdev: the device
 * @p: the port
 * @dcbdev: the netdev that carries PFC (held), or NULL
 * @now: CLOCK_MONOTONIC time of this sample
 * @periodic: a sample of the sampling work: computes the rates and
 *	detects pause storms over the time since the previous one; an
 *	on-demand sample updates the totals only
 * @cfg: the device's configuration
 *
 * Updates @p->pfc, the per-priority rates, and sends pause-storm events.
 * When RTNL is busy the previous sample is kept.
 *
 * Context: process context, rdev->lock held.
 */
void rt_pfc_read(struct rt_dev *rdev, struct rt_port *p,
		 struct net_device *dcbdev, u64 now, bool periodic,
		 const struct rt_config *cfg)
{
	struct rt_pfc *pfc = &p->pfc;
	struct ieee_pfc cur = {};
	int prio, err;
	u64 dt_ns;

	lockdep_assert_held(&rdev->lock);
	err = -ENODEV;
	if (dcbdev) {
		if (!rtnl_trylock())
			return;
		err = rt_pfc_get(dcbdev, &cur);
		if (err > 0 && periodic)
			rt_pfc_dur(pfc, dcbdev, cur.pfc_en, now);
		rtnl_unlock();
	}
	if (err < 0) {
		for (prio = 0; prio < RT_NUM_PRIO; prio++)
			rt_storm_end(rdev, p, prio, now);
		memset(pfc, 0, sizeof(*pfc));
		return;
	}

	pfc->valid = true;
	pfc->cap = cur.pfc_cap;
	pfc->enabled = cur.pfc_en;
	for (prio = 0; prio < RT_NUM_PRIO; prio++) {
		pfc->tx[prio] = cur.requests[prio];
		pfc->rx[prio] = cur.indications[prio];
	}
	if (!periodic)
		return;

	dt_ns = pfc->base_ns ? now - pfc->base_ns : 0;
	pfc->rates_valid = dt_ns != 0;
	for (prio = 0; prio < RT_NUM_PRIO; prio++) {
		u64 dtx = rt_delta(pfc->tx_base[prio], pfc->tx[prio]);
		u64 drx = rt_delta(pfc->rx_base[prio], pfc->rx[prio]);

		pfc->tx_rate[prio] = pfc->rates_valid ? rt_rate(dtx, dt_ns) : 0;
		pfc->rx_rate[prio] = pfc->rates_valid ? rt_rate(drx, dt_ns) : 0;
		if (pfc->rates_valid)
			rt_storm_check(rdev, p, prio, drx, dt_ns, now, cfg);
		pfc->tx_base[prio] = pfc->tx[prio];
		pfc->rx_base[prio] = pfc->rx[prio];
	}
	pfc->base_ns = now;
}
