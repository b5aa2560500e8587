// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune_sim netdev: an Ethernet device that drops and counts what it
 * is given to send, with the DCB and ethtool ops of the simulated NIC.
 */

#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>

#include "rsim.h"

static netdev_tx_t rsim_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	DEV_STATS_INC(dev, tx_dropped);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static int rsim_open(struct net_device *dev)
{
	netif_carrier_on(dev);
	return 0;
}

static int rsim_stop(struct net_device *dev)
{
	netif_carrier_off(dev);
	return 0;
}

static const struct net_device_ops rsim_netdev_ops = {
	.ndo_open = rsim_open,
	.ndo_stop = rsim_stop,
	.ndo_start_xmit = rsim_start_xmit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

static void rsim_flap_work(struct work_struct *work)
{
	struct rsim_dev *rsim = container_of(to_delayed_work(work),
					     struct rsim_dev, flap_work);

	rtnl_lock();
	if (netif_running(rsim->netdev)) {
		netif_carrier_on(rsim->netdev);
		rsim_ib_port_event(rsim, true);
	}
	rtnl_unlock();
}

/*
 * rsim_link_flap - take the carrier down and bring it back RSIM_FLAP_MS
 * later, as mlx5 does when the PFC configuration changes.  Under RTNL.
 */
void rsim_link_flap(struct rsim_dev *rsim)
{
	atomic_inc(&rsim->link_flaps);
	if (!netif_running(rsim->netdev))
		return;
	netif_carrier_off(rsim->netdev);
	rsim_ib_port_event(rsim, false);
	mod_delayed_work(system_wq, &rsim->flap_work,
			 msecs_to_jiffies(RSIM_FLAP_MS));
}

int rsim_netdev_init(struct rsim_dev *rsim)
{
	struct rsim_netdev_priv *priv;
	struct net_device *dev;
	char name[IFNAMSIZ];
	int err;

	snprintf(name, sizeof(name), "rsim%u", rsim->id);
	dev = alloc_netdev(sizeof(*priv), name, NET_NAME_USER, ether_setup);
	if (!dev)
		return -ENOMEM;
	priv = netdev_priv(dev);
	priv->rsim = rsim;
	rsim->netdev = dev;
	INIT_DELAYED_WORK(&rsim->flap_work, rsim_flap_work);

	SET_NETDEV_DEV(dev, &rsim->dev);
	eth_hw_addr_random(dev);
	dev->netdev_ops = &rsim_netdev_ops;
	dev->ethtool_ops = &rsim_ethtool_ops;
	dev->dcbnl_ops = rsim->info->dcbnl_ops;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = 9000;
	netif_carrier_off(dev);

	err = register_netdev(dev);
	if (err)
		goto err_free_netdev;
	return 0;

err_free_netdev:
	free_netdev(dev);
	rsim->netdev = NULL;
	return err;
}

void rsim_netdev_exit(struct rsim_dev *rsim)
{
	unregister_netdev(rsim->netdev);
	cancel_delayed_work_sync(&rsim->flap_work);
	free_netdev(rsim->netdev);
	rsim->netdev = NULL;
}
