// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune: the sampling engine.
 *
 * Every device has a delayed work that samples all its RoCE ports each
 * interval: port state, netdev, hardware counters, PFC counters; it
 * computes rates and sends the threshold events.  Netlink requests serve
 * the last sample; a "do" request may ask for a fresh one, rate-limited,
 * which updates the totals but not the rates (those always span one
 * interval between two periodic samples).
 */

#include <linux/if_vlan.h>
#include <linux/spinlock.h>

#include "rocetune.h"

DEFINE_SPINLOCK(rt_cfg_lock);

/* Global defaults, under rt_cfg_lock; devices follow them unless cfg_own. */
struct rt_config rt_cfg = {
	.interval_ms = RT_INTERVAL_DEF_MS,
	.storm_ms = RT_STORM_DEF_MS,
};

/**
 * rt_dev_config - the configuration in effect for a device
 * @rdev: the device
 * @cfg: filled in
 *
 * Context: rdev->lock held.
 */
void rt_dev_config(struct rt_dev *rdev, struct rt_config *cfg)
{
	lockdep_assert_held(&rdev->lock);
	if (rdev->cfg_own) {
		*cfg = rdev->cfg;
		return;
	}
	spin_lock(&rt_cfg_lock);
	*cfg = rt_cfg;
	spin_unlock(&rt_cfg_lock);
}

/*
 * A rate above @thresh is high at once; it is normal again only after
 * RT_NORMAL_SAMPLES samples in a row at or below it, so that a bursty rate
 * (or one sampled out of phase with the hardware's updates) does not make
 * the events flap.
 */
static void rt_thresh_check(struct rt_dev *rdev, struct rt_port *p,
			    struct rt_thresh_state *st, u64 rate, u64 thresh,
			    u32 ev_high, u32 ev_normal)
{
	if (thresh && rate > thresh) {
		st->low_samples = 0;
		if (!st->high) {
			st->high = true;
			rt_notify_port(rdev, p, ev_high, -1, rate, thresh, 0);
		}
		return;
	}
	if (st->high && (!thresh || ++st->low_samples >= RT_NORMAL_SAMPLES)) {
		st->high = false;
		st->low_samples = 0;
		rt_notify_port(rdev, p, ev_normal, -1, rate, thresh, 0);
	}
}

static void rt_sample_thresholds(struct rt_dev *rdev, struct rt_port *p,
				 const struct rt_config *cfg)
{
	const int rx_cnp = ROCETUNE_A_CNT_RX_CNP_PKTS;
	const int tx_cnp = ROCETUNE_A_CNT_TX_CNP_PKTS;
	const int ecn = ROCETUNE_A_CNT_RX_ECN_CE_PKTS;

	if (!p->rates_valid)
		return;
	if (p->cnt_map[rx_cnp] >= 0 || p->cnt_map[tx_cnp] >= 0)
		rt_thresh_check(rdev, p, &p->cnp,
				p->cnt_rate[rx_cnp] + p->cnt_rate[tx_cnp],
				cfg->cnp_rate_thresh,
				ROCETUNE_EVENT_CNP_RATE_HIGH,
				ROCETUNE_EVENT_CNP_RATE_NORMAL);
	if (p->cnt_map[ecn] >= 0)
		rt_thresh_check(rdev, p, &p->ecn, p->cnt_rate[ecn],
				cfg->ecn_rate_thresh,
				ROCETUNE_EVENT_ECN_RATE_HIGH,
				ROCETUNE_EVENT_ECN_RATE_NORMAL);
}

static void rt_sample_port(struct rt_dev *rdev, struct rt_port *p, u64 now,
			   bool periodic, const struct rt_config *cfg)
{
	struct net_device *ndev, *lower = NULL;
	struct ib_port_attr attr;
	enum ib_port_state state;
	bool changed;

	/* The driver's view: the cache follows events some drivers omit. */
	state = ib_query_port(rdev->ibdev, p->port, &attr) ? IB_PORT_NOP :
								attr.state;
	changed = state != p->state;
	p->state = state;
	if (p->sampled && changed)
		rt_notify_port(rdev, p, ROCETUNE_EVENT_PORT_STATE, -1, 0, 0,
			       0);

	ndev = rt_port_netdev(rdev->ibdev, p->port);
	if (ndev && is_vlan_dev(ndev))
		lower = vlan_dev_real_dev(ndev);
	changed = (ndev ? ndev->ifindex : 0) != p->ifindex ||
		  (lower ? lower->ifindex : 0) != p->lower_ifindex ||
		  (ndev && strcmp(ndev->name, p->ifname));
	p->ifindex = ndev ? ndev->ifindex : 0;
	strscpy(p->ifname, ndev ? ndev->name : "", sizeof(p->ifname));
	p->net_cookie = ndev ? dev_net(ndev)->net_cookie : 0;
	p->lower_ifindex = lower ? lower->ifindex : 0;
	p->lower_net_cookie = lower ? dev_net(lower)->net_cookie : 0;
	strscpy(p->lower_name, lower ? lower->name : "",
		sizeof(p->lower_name));
	if (p->sampled && changed)
		rt_notify_port(rdev, p, ROCETUNE_EVENT_PORT_NETDEV, -1, 0, 0,
			       0);

	if (p->hw)
		rt_counters_read(rdev, p, now, periodic);
	rt_pfc_read(rdev, p, lower ?: ndev, now, periodic, cfg);
	if (ndev)
		dev_put(ndev);
	if (periodic)
		rt_sample_thresholds(rdev, p, cfg);

	p->sample_ns = now;
	p->sampled = true;
}

static void rt_sample(struct rt_dev *rdev, bool periodic,
		      struct rt_config *cfg)
{
	u64 now = ktime_get_ns();
	unsigned int i;

	rt_dev_config(rdev, cfg);
	for (i = 0; i < rdev->nports; i++)
		rt_sample_port(rdev, &rdev->ports[i], now, periodic, cfg);
}

/**
 * rt_sample_work - the sampling work of a device
 * @work: rdev->work
 */
void rt_sample_work(struct work_struct *work)
{
	struct rt_dev *rdev = container_of(to_delayed_work(work),
					   struct rt_dev, work);
	struct rt_config cfg;

	mutex_lock(&rdev->lock);
	if (!READ_ONCE(rdev->dying)) {
		rt_sample(rdev, true, &cfg);
		queue_delayed_work(system_wq, &rdev->work,
				   msecs_to_jiffies(cfg.interval_ms));
	}
	mutex_unlock(&rdev->lock);
}

/**
 * rt_sample_fresh - take a sample now unless the last one is very recent
 * @rdev: the device
 *
 * For netlink "do" requests, so that they see current counters without
 * reading the hardware more often than every RT_FRESH_READ_NS.  Rates,
 * thresholds and storm detection stay with the periodic samples.
 *
 * Context: process context, rdev->lock held (and no other rocetune lock).
 */
void rt_sample_fresh(struct rt_dev *rdev)
{
	struct rt_config cfg;

	lockdep_assert_held(&rdev->lock);
	if (!READ_ONCE(rdev->dying) && rdev->nports &&
	    ktime_get_ns() - rdev->ports[0].sample_ns >= RT_FRESH_READ_NS)
		rt_sample(rdev, false, &cfg);
}

/**
 * rt_sample_start - start the sampling work of a new device
 * @rdev: the device
 */
void rt_sample_start(struct rt_dev *rdev)
{
	queue_delayed_work(system_wq, &rdev->work, 0);
}

/**
 * rt_sample_kick - run the sampling work now, e.g. after a port event
 * @rdev: the device; once it is stopped, nothing happens
 *
 * Context: any context.
 */
void rt_sample_kick(struct rt_dev *rdev)
{
	unsigned long flags;

	spin_lock_irqsave(&rdev->work_lock, flags);
	if (!rdev->dying)
		mod_delayed_work(system_wq, &rdev->work, 0);
	spin_unlock_irqrestore(&rdev->work_lock, flags);
}

/**
 * rt_sample_stop - stop the sampling work of a device for good
 * @rdev: the device, no longer in rt_devs_xa
 *
 * Marks the device dying, then takes its lock once: that waits for the
 * one user in flight, while the users queued behind it find the device
 * dying and leave at once.  When this returns no sample and no request
 * uses rdev->ibdev any more, and neither the work nor rt_sample_kick()
 * queues the work again.
 *
 * Context: process context, without rdev->lock and RTNL.
 */
void rt_sample_stop(struct rt_dev *rdev)
{
	unsigned long flags;

	spin_lock_irqsave(&rdev->work_lock, flags);
	WRITE_ONCE(rdev->dying, true);
	spin_unlock_irqrestore(&rdev->work_lock, flags);
	mutex_lock(&rdev->lock);
	mutex_unlock(&rdev->lock);
	cancel_delayed_work_sync(&rdev->work);
}
