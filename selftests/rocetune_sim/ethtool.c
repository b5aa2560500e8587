// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune_sim ethtool: driver info, link settings, the per-priority PFC
 * statistics under the names of the personality's Ethernet driver, and
 * the pfc-prevention-tout tunable (mlx5 only, 80..8000 ms).
 */

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "rsim.h"

#define RSIM_PFC_TOUT_MIN	80
#define RSIM_PFC_TOUT_MAX	8000
#define RSIM_PFC_TOUT_AUTO_MS	100

/*
 * rsim_stats_list - the ethtool statistics of @rsim: fill @idx (counter
 * indices) and @names (ETH_GSTRING_LEN each) when not NULL and return how
 * many there are.  mlx5 lists only PFC-enabled priorities, as mlx5 does.
 */
static unsigned int rsim_stats_list(struct rsim_dev *rsim, unsigned int *idx,
				    u8 *names)
{
	unsigned int n = 0, p;

#define RSIM_STAT(i, fmt, ...) do {					\
		if (idx)						\
			idx[n] = (i);					\
		if (names)						\
			snprintf(names + n * ETH_GSTRING_LEN,		\
				 ETH_GSTRING_LEN, fmt, ##__VA_ARGS__);	\
		n++;							\
	} while (0)

	switch (rsim->pers) {
	case RSIM_MLX5:
		for (p = 0; p < RSIM_NUM_PRIO; p++) {
			if (!(rsim->pfc_en & BIT(p)))
				continue;
			RSIM_STAT(RSIM_C_RX_PAUSE + p, "rx_prio%u_pause", p);
			RSIM_STAT(RSIM_C_RX_PAUSE_DUR + p,
				  "rx_prio%u_pause_duration", p);
			RSIM_STAT(RSIM_C_TX_PAUSE + p, "tx_prio%u_pause", p);
			RSIM_STAT(RSIM_C_TX_PAUSE_DUR + p,
				  "tx_prio%u_pause_duration", p);
		}
		RSIM_STAT(RSIM_C_STORM_WARN, "tx_pause_storm_warning_events");
		RSIM_STAT(RSIM_C_STORM_ERR, "tx_pause_storm_error_events");
		break;
	case RSIM_IRDMA:
		for (p = 0; p < RSIM_NUM_PRIO; p++) {
			RSIM_STAT(RSIM_C_TX_PAUSE + p, "tx_priority_%u_xoff.nic", p);
			RSIM_STAT(RSIM_C_RX_PAUSE + p, "rx_priority_%u_xoff.nic", p);
		}
		break;
	default:
		for (p = 0; p < RSIM_NUM_PRIO; p++) {
			RSIM_STAT(RSIM_C_RX_PAUSE + p, "rx_pfc_ena_frames_pri%u", p);
			RSIM_STAT(RSIM_C_TX_PAUSE + p, "tx_pfc_ena_frames_pri%u", p);
		}
		break;
	}
#undef RSIM_STAT
	return n;
}

static void rsim_get_drvinfo(struct net_device *dev,
			     struct ethtool_drvinfo *info)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);

	strscpy(info->driver, rsim->info->driver, sizeof(info->driver));
	strscpy(info->bus_info, dev_name(&rsim->dev), sizeof(info->bus_info));
}

static int rsim_get_link_ksettings(struct net_device *dev,
				   struct ethtool_link_ksettings *cmd)
{
	cmd->base.speed = SPEED_100000;
	cmd->base.duplex = DUPLEX_FULL;
	cmd->base.port = PORT_DA;
	cmd->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

static int rsim_get_sset_count(struct net_device *dev, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return rsim_stats_list(rsim_from_netdev(dev), NULL, NULL);
}

static void rsim_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	if (sset == ETH_SS_STATS)
		rsim_stats_list(rsim_from_netdev(dev), NULL, data);
}

static void rsim_get_ethtool_stats(struct net_device *dev,
				   struct ethtool_stats *stats, u64 *data)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);
	unsigned int idx[RSIM_C_MAX];
	unsigned int i, n;

	n = rsim_stats_list(rsim, idx, NULL);
	spin_lock(&rsim->stats_lock);
	rsim_grow_advance(rsim, jiffies);
	for (i = 0; i < n && i < stats->n_stats; i++)
		data[i] = rsim->cnt[idx[i]];
	spin_unlock(&rsim->stats_lock);
}

static int rsim_get_tunable(struct net_device *dev,
			    const struct ethtool_tunable *tuna, void *data)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);

	if (tuna->id != ETHTOOL_PFC_PREVENTION_TOUT || !rsim->info->pfc_tunable)
		return -EOPNOTSUPP;
	*(u16 *)data = rsim->pfc_prevention_tout;
	return 0;
}

static int rsim_set_tunable(struct net_device *dev,
			    const struct ethtool_tunable *tuna,
			    const void *data)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);
	u16 tout = *(const u16 *)data;
	int err;

	if (!rsim_set_begin(rsim, &err))
		return err;
	if (tuna->id != ETHTOOL_PFC_PREVENTION_TOUT || !rsim->info->pfc_tunable)
		return -EOPNOTSUPP;
	if (tout == PFC_STORM_PREVENTION_AUTO) {
		tout = RSIM_PFC_TOUT_AUTO_MS;
	} else if (tout != PFC_STORM_PREVENTION_DISABLE &&
		   (tout < RSIM_PFC_TOUT_MIN || tout > RSIM_PFC_TOUT_MAX)) {
		netdev_err(dev, "pfc-prevention-tout %u ms is outside %u..%u\n",
			   tout, RSIM_PFC_TOUT_MIN, RSIM_PFC_TOUT_MAX);
		return -EINVAL;
	}
	rsim->pfc_prevention_tout = tout;
	return 0;
}

const struct ethtool_ops rsim_ethtool_ops = {
	.get_drvinfo = rsim_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = rsim_get_link_ksettings,
	.get_sset_count = rsim_get_sset_count,
	.get_strings = rsim_get_strings,
	.get_ethtool_stats = rsim_get_ethtool_stats,
	.get_tunable = rsim_get_tunable,
	.set_tunable = rsim_set_tunable,
};
