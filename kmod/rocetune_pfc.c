// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: per-priority PFC counters and pause-storm detection.
 *
 * The counters come from the DCB ops of the port's netdev, or of the real
 * device under a VLAN (struct ieee_pfc: requests = PFC frames sent,
 * indications = received).  dcbnl calls these ops under RTNL, and so do
 * we; the sampling work only try-locks RTNL so that it never waits for it
 * (device removal may run under RTNL and wait for the work).
 */

#include <linux/rtnetlink.h>
#include <net/dcbnl.h>

#include "rocetune.h"

static int rt_pfc_get(struct net_device *dev, struct ieee_pfc *pfc)
{
#if IS_ENABLED(CONFIG_DCB)
	const struct dcbnl_rtnl_ops *ops;
	int err = -EOPNOTSUPP;

	if (!rtnl_trylock())
		return -EBUSY;
	ops = dev->dcbnl_ops;
	if (dev->reg_state == NETREG_REGISTERED && ops && ops->ieee_getpfc)
		err = ops->ieee_getpfc(dev, pfc);
	rtnl_unlock();
	return err;
#else
	return -EOPNOTSUPP;
#endif
}

static void rt_storm_end(struct rt_dev *rdev, struct rt_port *p, int prio,
			 u64 now)
{
	struct rt_pfc *pfc = &p->pfc;

	if (pfc->storm[prio])
		rt_nl_port_event(rdev, p, ROCETUNE_EVENT_STORM_END, prio,
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
		rt_nl_port_event(rdev, p, ROCETUNE_EVENT_STORM_START, prio,
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
	err = dcbdev ? rt_pfc_get(dcbdev, &cur) : -ENODEV;
	if (err == -EBUSY)
		return;
	if (err) {
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
