// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune_sim DCB: IEEE 802.1Qaz ops (ETS, PFC, APP with DSCP, maxrate,
 * buffers, DCBX mode), validated as a real NIC driver does and kept in
 * the device; each personality has its driver's op set and APP rules.  dcbnl calls all of them
 * under RTNL.
 */

#include <linux/math64.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/dcbnl.h>

#include "rsim.h"

/*
 * mlx5's xoff threshold in bytes (en/port_buffer.c calculate_xoff(),
 * Linux 6.1): (301 + 2.16 * cable length in m) * speed in Gb/s
 * + 2.72 * MTU, in integer steps as the driver takes them; the speed is
 * the link's, at least 40 Gb/s: 100 Gb/s here.
 */
#define RSIM_SPEED_MBPS		100000
#define RSIM_MLX5_MIN_MAX_MTU	9216	/* MINIMUM_MAX_MTU of port_buffer.c */

static u32 rsim_mlx5_xoff(u32 cable_m, u32 mtu)
{
	return (301 + 216 * cable_m / 100) * RSIM_SPEED_MBPS / 1000 +
	       272 * mtu / 100;
}

void rsim_dcb_init(struct rsim_dev *rsim)
{
	int i;

	/* Like a fresh NIC: prio i on TC i, all TCs ETS with equal shares. */
	rsim->ets.ets_cap = IEEE_8021QAZ_MAX_TCS;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		rsim->ets.prio_tc[i] = i;
		rsim->ets.tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
		rsim->ets.tc_tx_bw[i] = i < 4 ? 12 : 13;
		rsim->ets.tc_rx_bw[i] = rsim->ets.tc_tx_bw[i];
	}
	/* bnxt_en keeps what a PFC set gave, and has none before one */
	rsim->pfc_delay = rsim->pers == RSIM_BNXT_RE ? 0 : 7;
	rsim->buffer.total_size = RSIM_BUF_TOTAL;
	rsim->buffer.buffer_size[0] = RSIM_BUF_TOTAL / 2;
	rsim->buf_xoff = 0;	/* the driver's dcbx.xoff before a config */
	rsim->max_tc = IEEE_8021QAZ_MAX_TCS;
	rsim->max_lltc = 2;
	/* mlx5e_dcbnl_initialize(), bnxt_dcb_init(), ice: rsim_setdcbx() */
	rsim->dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	if (rsim->pers == RSIM_MLX5)
		rsim->dcbx |= DCB_CAP_DCBX_VER_CEE;
	for (i = 0; i < RSIM_NUM_DSCP; i++)
		rsim->dscp2prio[i] = -1;
}

/*
 * bnxt_en (bnxt_dcb.c, 6.1): in host DCBX mode the ETS read is empty
 * but for ets_cap until the first ETS set (bnxt_dcbnl_ieee_getets()), and
 * a PFC set before it is EINVAL (bnxt_hwrm_queue_pfc_cfg()).
 */
static int rsim_ieee_getets(struct net_device *dev, struct ieee_ets *ets)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);

	int i;

	if (rsim->info->ets_before_pfc && !rsim->ets_set) {
		ets->ets_cap = rsim->max_tc;
		return 0;
	}
	*ets = rsim->ets;
	if (rsim->pers == RSIM_BNXT_RE)
		ets->ets_cap = rsim->max_tc;
	/*
	 * mlx5 (en_dcbnl.c mlx5e_dcbnl_ieee_getets(), 6.1) reads the
	 * bandwidth back from the firmware, which holds 100 % for a strict
	 * or vendor TC, and reports 0 % for them; it never fills tc_rx_bw.
	 */
	if (rsim->pers == RSIM_MLX5) {
		memset(ets->tc_rx_bw, 0, sizeof(ets->tc_rx_bw));
		for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
			if (ets->tc_tsa[i] != IEEE_8021QAZ_TSA_ETS)
				ets->tc_tx_bw[i] = 0;
	}
	return 0;
}

/*
 * bnxt_en (bnxt_dcb.c bnxt_ets_validate(), bnxt_dcbnl_ieee_setets(),
 * Linux 6.1), with its comparisons as they are: a priority on a TC above
 * max_tc is EINVAL (a TC equal to it passes); a TC above max_tc with a
 * bandwidth or a TSA other than strict (0) is EINVAL; only the TCs below
 * the highest one a priority maps to are checked further: a TSA other
 * than strict or ETS is ENOTSUPP (524), their ETS bandwidth over 100 is
 * EINVAL, under 100 is allowed, and a 0 % ETS TC when the sum is 100 is
 * EINVAL.  A set needs host and IEEE DCBX modes (EINVAL).
 */
#define RSIM_ENOTSUPP	524	/* the kernel's ENOTSUPP, not EOPNOTSUPP */

/*
 * bnxt_en's ETS, PFC and APP sets need host and IEEE DCBX modes, else
 * EINVAL (bnxt_dcb.c bnxt_dcbnl_ieee_setets(), _setpfc(), _setapp(),
 * _delapp(), Linux 6.1).
 */
static bool rsim_bnxt_host_ieee(const struct rsim_dev *rsim)
{
	return (rsim->dcbx & DCB_CAP_DCBX_VER_IEEE) &&
	       (rsim->dcbx & DCB_CAP_DCBX_HOST);
}

static int rsim_bnxt_validate_ets(struct rsim_dev *rsim,
				  const struct ieee_ets *ets)
{
	struct net_device *dev = rsim->netdev;
	bool zero = false;
	int i, sum = 0;
	u8 top = 0;

	if (!rsim_bnxt_host_ieee(rsim))
		return -EINVAL;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		if (ets->prio_tc[i] > rsim->max_tc) {
			netdev_err(dev, "ETS: prio %d on TC %u above the %u TCs\n",
				   i, ets->prio_tc[i], rsim->max_tc);
			return -EINVAL;
		}
		top = max(top, ets->prio_tc[i]);
		if ((ets->tc_tx_bw[i] || ets->tc_tsa[i]) && i > rsim->max_tc) {
			netdev_err(dev, "ETS: TC %d above the %u TCs is not strict with 0 %%\n",
				   i, rsim->max_tc);
			return -EINVAL;
		}
	}
	for (i = 0; i < top; i++) {
		switch (ets->tc_tsa[i]) {
		case IEEE_8021QAZ_TSA_STRICT:
			break;
		case IEEE_8021QAZ_TSA_ETS:
			sum += ets->tc_tx_bw[i];
			zero = zero || !ets->tc_tx_bw[i];
			break;
		default:
			netdev_err(dev, "ETS: TSA %u of TC %d not supported\n",
				   ets->tc_tsa[i], i);
			return -RSIM_ENOTSUPP;
		}
	}
	if (sum > 100) {
		netdev_err(dev, "ETS: bandwidth of ETS TCs sums to %d, over 100\n",
			   sum);
		return -EINVAL;
	}
	if (zero && sum == 100) {
		netdev_err(dev, "ETS: an ETS TC of 0 %% with a sum of 100\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * ice's ETS and PFC sets need IEEE DCBX mode, else EINVAL
 * (ice_dcb_nl.c ice_dcbnl_setets(), ice_dcbnl_setpfc(), Linux 6.1).
 */
static bool rsim_ice_ieee(const struct rsim_dev *rsim)
{
	return rsim->dcbx & DCB_CAP_DCBX_VER_IEEE;
}

static int rsim_validate_ets(struct net_device *dev, const struct ieee_ets *ets)
{
	bool have_ets = false;
	int i, sum = 0;

	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		if (ets->prio_tc[i] >= IEEE_8021QAZ_MAX_TCS) {
			netdev_err(dev, "ETS: prio %d on invalid TC %u\n",
				   i, ets->prio_tc[i]);
			return -EINVAL;
		}
		switch (ets->tc_tsa[i]) {
		case IEEE_8021QAZ_TSA_ETS:
			have_ets = true;
			sum += ets->tc_tx_bw[i];
			break;
		case IEEE_8021QAZ_TSA_STRICT:
		case IEEE_8021QAZ_TSA_VENDOR:
			break;
		default:
			netdev_err(dev, "ETS: TSA %u of TC %d not supported\n",
				   ets->tc_tsa[i], i);
			return -EOPNOTSUPP;
		}
	}
	if (have_ets && sum != 100) {
		netdev_err(dev, "ETS: bandwidth of ETS TCs sums to %d, not 100\n",
			   sum);
		return -EINVAL;
	}
	return 0;
}

static int rsim_ieee_setets(struct net_device *dev, struct ieee_ets *ets)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);
	int err;

	if (!rsim_set_begin(rsim, &err))
		return err;
	if (rsim->pers == RSIM_BNXT_RE)
		err = rsim_bnxt_validate_ets(rsim, ets);
	else if (rsim->pers == RSIM_IRDMA && !rsim_ice_ieee(rsim))
		err = -EINVAL;
	else
		err = rsim_validate_ets(dev, ets);
	if (err)
		return err;
	memcpy(rsim->ets.prio_tc, ets->prio_tc, sizeof(ets->prio_tc));
	memcpy(rsim->ets.tc_tsa, ets->tc_tsa, sizeof(ets->tc_tsa));
	memcpy(rsim->ets.tc_tx_bw, ets->tc_tx_bw, sizeof(ets->tc_tx_bw));
	memcpy(rsim->ets.tc_rx_bw, ets->tc_tx_bw, sizeof(ets->tc_tx_bw));
	memcpy(rsim->ets.tc_reco_bw, ets->tc_reco_bw, sizeof(ets->tc_reco_bw));
	memcpy(rsim->ets.tc_reco_tsa, ets->tc_reco_tsa,
	       sizeof(ets->tc_reco_tsa));
	memcpy(rsim->ets.reco_prio_tc, ets->reco_prio_tc,
	       sizeof(ets->reco_prio_tc));
	rsim->ets.willing = ets->willing;
	rsim->ets_set = true;
	return 0;
}

static int rsim_ieee_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);
	int i;

	memset(pfc, 0, sizeof(*pfc));
	/* bnxt_en reports max_lltc as the PFC capability (bnxt_dcb.c, 6.1) */
	pfc->pfc_cap = rsim->pers == RSIM_BNXT_RE ? rsim->max_lltc :
						   IEEE_8021QAZ_MAX_TCS;
	pfc->pfc_en = rsim->pfc_en;
	pfc->mbc = rsim->pfc_mbc;	/* 0 but on bnxt_en: none keeps it */
	pfc->delay = rsim->pfc_delay;
	spin_lock(&rsim->stats_lock);
	rsim_grow_advance(rsim, jiffies);
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		pfc->requests[i] = rsim->cnt[RSIM_C_TX_PAUSE + i];
		pfc->indications[i] = rsim->cnt[RSIM_C_RX_PAUSE + i];
	}
	spin_unlock(&rsim->stats_lock);
	return 0;
}

/* The buffers a PFC-enabled priority maps to: the lossless ones. */
static u8 rsim_lossless(u8 pfc_en, const u8 *prio2buffer)
{
	u8 mask = 0;
	int i;

	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
		if (pfc_en & BIT(i))
			mask |= BIT(prio2buffer[i]);
	return mask;
}

/*
 * mlx5 (en/port_buffer.c update_xoff_threshold(), Linux 6.1): each
 * lossless buffer needs xoff + max MTU (at least 9216) + one cell, else
 * ENOMEM.
 */
static int rsim_mlx5_headroom(struct rsim_dev *rsim, const u32 *size,
			      u8 lossless, u32 xoff)
{
	u32 mtu = max_t(u32, rsim->netdev->max_mtu, RSIM_MLX5_MIN_MAX_MTU);
	u32 need = xoff + mtu + RSIM_BUF_CELL;
	int i;

	for (i = 0; i < DCBX_MAX_BUFFERS; i++) {
		if ((lossless & BIT(i)) && size[i] < need) {
			netdev_err(rsim->netdev, "lossless buffer %d of %u bytes is under xoff %u + MTU %u + cell %u\n",
				   i, size[i], xoff, mtu, RSIM_BUF_CELL);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * mlx5 PFC (en_dcbnl.c mlx5e_dcbnl_ieee_setpfc(), Linux 6.1): a change of
 * the PFC priorities is written first and flaps the link; a delay (cable
 * length, m) of 0, of 1000 or more, or unchanged is ignored without an
 * error; mbc is not kept.  Once a buffer set has put the port buffers in
 * manual mode (mlx5e_port_manual_buffer_config()), a cable length that
 * changes xoff, or PFC priorities that make another buffer lossless, are
 * checked against the buffer sizes: ENOMEM, and the cable length is
 * restored, but the PFC priorities stay written.
 */
static int rsim_mlx5_setpfc(struct rsim_dev *rsim, const struct ieee_pfc *pfc)
{
	bool pfc_changed = rsim->pfc_en != pfc->pfc_en, len_changed = false;
	u8 lossless = rsim->buf_lossless, next;
	u16 old_delay = rsim->pfc_delay;
	bool update = false;
	int err = 0;
	u32 xoff;

	if (pfc_changed) {
		rsim->pfc_en = pfc->pfc_en;
		if (rsim->pfc_link_flap)
			rsim_link_flap(rsim);
	}
	if (pfc->delay && pfc->delay < 1000 && pfc->delay != rsim->pfc_delay) {
		rsim->pfc_delay = pfc->delay;
		len_changed = true;
	}
	if (!rsim->buf_manual)
		return 0;
	xoff = rsim_mlx5_xoff(rsim->pfc_delay, rsim->netdev->mtu);
	if (len_changed) {
		update = true;
		err = rsim_mlx5_headroom(rsim, rsim->buffer.buffer_size,
					 lossless, xoff);
	}
	next = rsim_lossless(rsim->pfc_en, rsim->buffer.prio2buffer);
	if (!err && pfc_changed && next != lossless) {
		update = true;
		lossless = next;
		err = rsim_mlx5_headroom(rsim, rsim->buffer.buffer_size,
					 lossless, xoff);
	}
	if (!err && !update && xoff != rsim->buf_xoff)
		err = rsim_mlx5_headroom(rsim, rsim->buffer.buffer_size,
					 lossless, xoff);
	if (err) {
		rsim->pfc_delay = old_delay;
		return err;
	}
	rsim->buf_lossless = lossless;
	rsim->buf_xoff = xoff;
	return 0;
}

/*
 * bnxt_en PFC (bnxt_dcb.c bnxt_dcbnl_ieee_setpfc(),
 * bnxt_hwrm_queue_pfc_cfg(), Linux 6.1): EINVAL outside host IEEE mode,
 * before the first ETS set, and when the PFC priorities fall into more of the TCs below max_tc than
 * max_lltc; the structure is kept as given (delay and mbc too).
 */
static int rsim_bnxt_setpfc(struct rsim_dev *rsim, const struct ieee_pfc *pfc)
{
	unsigned int lltc = 0;
	int tc, prio;

	if (!rsim_bnxt_host_ieee(rsim))
		return -EINVAL;
	if (!rsim->ets_set) {
		netdev_err(rsim->netdev, "PFC: no ETS set yet\n");
		return -EINVAL;
	}
	for (tc = 0; tc < rsim->max_tc; tc++) {
		for (prio = 0; prio < IEEE_8021QAZ_MAX_TCS; prio++) {
			if ((pfc->pfc_en & BIT(prio)) &&
			    rsim->ets.prio_tc[prio] == tc) {
				lltc++;
				break;
			}
		}
	}
	if (lltc > rsim->max_lltc) {
		netdev_err(rsim->netdev, "PFC: %u lossless TCs, the hardware has %u\n",
			   lltc, rsim->max_lltc);
		return -EINVAL;
	}
	rsim->pfc_en = pfc->pfc_en;
	rsim->pfc_mbc = pfc->mbc;
	rsim->pfc_delay = pfc->delay;
	return 0;
}

/*
 * ice PFC (ice_dcb_nl.c ice_dcbnl_setpfc(), Linux 6.1): only the enabled
 * priorities are taken; the delay is read from the hardware and mbc is
 * not set, so both read back unchanged.
 */
static int rsim_ieee_setpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);
	int err;

	if (!rsim_set_begin(rsim, &err))
		return err;
	switch (rsim->pers) {
	case RSIM_MLX5:
		return rsim_mlx5_setpfc(rsim, pfc);
	case RSIM_BNXT_RE:
		return rsim_bnxt_setpfc(rsim, pfc);
	default:
		if (!rsim_ice_ieee(rsim))
			return -EINVAL;
		rsim->pfc_en = pfc->pfc_en;
		return 0;
	}
}

static int rsim_ieee_getmaxrate(struct net_device *dev,
				struct ieee_maxrate *maxrate)
{
	*maxrate = rsim_from_netdev(dev)->maxrate;
	return 0;
}

/*
 * Only mlx5 has a maxrate op here.  Its port keeps a u8 count of 100 Mb/s
 * up to 25.5 Gb/s, else of 1 Gb/s up to 255 Gb/s; a rate is rounded down
 * to its unit (a nonzero rate below 100 Mb/s to 100 Mb/s), one above
 * 255 Gb/s refuses the whole set with EINVAL, and the get reads back the
 * rounded rates (mlx5e_dcbnl_ieee_setmaxrate/getmaxrate, en_dcbnl.c,
 * Linux 6.1).  Rates are in kbit/s.
 */
#define RSIM_MLX5_100MBPS	100000ULL
#define RSIM_MLX5_1GBPS		1000000ULL

static int rsim_ieee_setmaxrate(struct net_device *dev,
				struct ieee_maxrate *maxrate)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);
	struct ieee_maxrate kept = {};
	int err, i;

	if (!rsim_set_begin(rsim, &err))
		return err;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		u64 r = maxrate->tc_maxrate[i];
		u64 unit = r <= 255 * RSIM_MLX5_100MBPS ? RSIM_MLX5_100MBPS :
							  RSIM_MLX5_1GBPS;

		if (r > 255 * RSIM_MLX5_1GBPS) {
			netdev_err(dev, "tc_%d maxrate %llu Kbps exceeds limit %llu\n",
				   i, r, 255 * RSIM_MLX5_1GBPS);
			return -EINVAL;
		}
		if (r)
			kept.tc_maxrate[i] = max(div64_u64(r, unit), 1ULL) * unit;
	}
	rsim->maxrate = kept;
	return 0;
}

/*
 * APP entries, per driver.  Every driver keeps the entries in dcbnl's own
 * table too (dcb_ieee_setapp()/dcb_ieee_delapp()), which is what "dcb app
 * show" reads; dcb_ieee_setapp() refuses only an identical entry (EEXIST)
 * and puts a new one first in the table.  Read from Linux 6.1:
 * net/dcb/dcbnl.c dcb_ieee_setapp(), dcb_app_add().
 */
static bool rsim_app_dscp_ok(const struct dcb_app *app)
{
	return app->selector == IEEE_8021QAZ_APP_SEL_DSCP &&
	       app->protocol < RSIM_NUM_DSCP;
}

static void rsim_app_unmap(struct rsim_dev *rsim, u16 dscp)
{
	rsim->dscp2prio[dscp] = -1;
	if (!--rsim->num_dscp_apps)
		rsim->trust_dscp = false;
}

/*
 * mlx5 (drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c, 6.1,
 * mlx5e_dcbnl_ieee_setapp/delapp): DSCP selector only, DSCP < 64; the
 * first DSCP entry switches the port to DSCP trust, deleting the last one
 * back to PCP; an add for a mapped DSCP replaces its old entry; a delete
 * whose priority is not the mapped one is ENOENT.
 */
static int rsim_mlx5_setapp(struct net_device *dev, struct dcb_app *app)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);
	struct dcb_app old;
	int err;

	if (!rsim_set_begin(rsim, &err))
		return err;
	if (!rsim_app_dscp_ok(app) || app->priority >= RSIM_NUM_PRIO)
		return -EINVAL;

	if (rsim->dscp2prio[app->protocol] == app->priority)
		return 0;
	if (rsim->dscp2prio[app->protocol] >= 0) {
		old = *app;
		old.priority = rsim->dscp2prio[app->protocol];
		err = dcb_ieee_delapp(dev, &old);
		if (err)
			return err;
		rsim_app_unmap(rsim, app->protocol);
	}
	err = dcb_ieee_setapp(dev, app);
	if (err)
		return err;
	rsim->dscp2prio[app->protocol] = app->priority;
	rsim->num_dscp_apps++;
	rsim->trust_dscp = true;
	return 0;
}

static int rsim_mlx5_delapp(struct net_device *dev, struct dcb_app *app)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);
	int err;

	if (!rsim_set_begin(rsim, &err))
		return err;
	if (!rsim_app_dscp_ok(app))
		return -EINVAL;
	if (rsim->dscp2prio[app->protocol] != app->priority)
		return -ENOENT;
	err = dcb_ieee_delapp(dev, app);
	if (err)
		return err;
	rsim_app_unmap(rsim, app->protocol);
	return 0;
}

/*
 * ice (drivers/net/ethernet/intel/ice/ice_dcb_nl.c, 6.1,
 * ice_dcbnl_setapp/delapp): an add needs IEEE DCBX mode (EINVAL); DSCP
 * selector only, DSCP < 64, priority below the TC count (8); the entry
 * goes to dcbnl's table first, so an identical one is EEXIST; a DSCP that
 * is already mapped is EINVAL and the new entry is taken out again (a
 * remap needs a delete first).  The
 * first mapping switches the port to DSCP QoS, deleting the last one back
 * to VLAN (PCP) QoS.
 */
static int rsim_ice_setapp(struct net_device *dev, struct dcb_app *app)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);
	int err;

	if (!rsim_set_begin(rsim, &err))
		return err;
	if (!(rsim->dcbx & DCB_CAP_DCBX_VER_IEEE) || !rsim_app_dscp_ok(app) ||
	    app->priority >= RSIM_NUM_PRIO)
		return -EINVAL;
	err = dcb_ieee_setapp(dev, app);
	if (err)
		return err;
	if (rsim->dscp2prio[app->protocol] >= 0) {
		netdev_err(dev, "DSCP %u is already mapped to priority %d\n",
			   app->protocol, rsim->dscp2prio[app->protocol]);
		dcb_ieee_delapp(dev, app);
		return -EINVAL;
	}
	rsim->dscp2prio[app->protocol] = app->priority;
	rsim->num_dscp_apps++;
	rsim->trust_dscp = true;
	return 0;
}

static int rsim_ice_delapp(struct net_device *dev, struct dcb_app *app)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);
	int err;

	if (!rsim_set_begin(rsim, &err))
		return err;
	err = dcb_ieee_delapp(dev, app);
	if (err)
		return err;
	if (rsim_app_dscp_ok(app) && rsim->dscp2prio[app->protocol] >= 0)
		rsim_app_unmap(rsim, app->protocol);
	return 0;
}

/*
 * bnxt_en (drivers/net/ethernet/broadcom/bnxt/bnxt_dcb.c, 6.1,
 * bnxt_dcbnl_ieee_setapp/delapp, bnxt_hwrm_queue_dscp2pri_cfg): any
 * selector goes to dcbnl's table, DSCP above the firmware's maximum (63)
 * is EINVAL; a second entry for a mapped DSCP is added beside the old
 * one; the firmware's DSCP map takes each add's priority, and any delete
 * of a DSCP entry unmaps that DSCP, whatever entries are left.
 */
static int rsim_bnxt_setapp(struct net_device *dev, struct dcb_app *app)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);
	bool dscp = app->selector == IEEE_8021QAZ_APP_SEL_DSCP;
	int err;

	if (!rsim_set_begin(rsim, &err))
		return err;
	if (!rsim_bnxt_host_ieee(rsim))
		return -EINVAL;
	if (dscp && app->protocol >= RSIM_NUM_DSCP)
		return -EINVAL;
	err = dcb_ieee_setapp(dev, app);
	if (err)
		return err;
	if (dscp)
		rsim->dscp2prio[app->protocol] = app->priority;
	return 0;
}

static int rsim_bnxt_delapp(struct net_device *dev, struct dcb_app *app)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);
	bool dscp = app->selector == IEEE_8021QAZ_APP_SEL_DSCP;
	int err;

	if (!rsim_set_begin(rsim, &err))
		return err;
	if (!rsim_bnxt_host_ieee(rsim))
		return -EINVAL;
	if (dscp && app->protocol >= RSIM_NUM_DSCP)
		return -EINVAL;
	err = dcb_ieee_delapp(dev, app);
	if (err)
		return err;
	if (dscp)
		rsim->dscp2prio[app->protocol] = -1;
	return 0;
}

static int rsim_getbuffer(struct net_device *dev, struct dcbnl_buffer *buf)
{
	*buf = rsim_from_netdev(dev)->buffer;
	return 0;
}

/*
 * mlx5 port buffer (en_dcbnl.c mlx5e_dcbnl_setbuffer(), en/port_buffer.c
 * mlx5e_port_manual_buffer_config(), port_set_buffer(),
 * port_update_shared_buffer(), Linux 6.1), in the driver's order: a set
 * that changes nothing does nothing; otherwise the buffers go to manual
 * mode.  A new priority map that changes which buffers are lossless is
 * checked against the *current* sizes (ENOMEM); new sizes: a lossless
 * buffer of 0 is EINVAL, more than the port's spare space (total_size,
 * which excludes the internal buffers) EINVAL, a lossless buffer under
 * xoff + MTU + cell ENOMEM; the sizes are floored to the cell size, and
 * a shared pool of under 4 cells left is EINVAL.  A set that changes
 * neither sizes nor lossless buffers still checks them when xoff moved
 * (MTU change).
 */
static int rsim_setbuffer(struct net_device *dev, struct dcbnl_buffer *buf)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);
	bool map_changed, size_changed, update = false;
	u32 xoff, cells = 0;
	u8 lossless, next;
	u64 sum = 0;
	int i, err;

	if (!rsim_set_begin(rsim, &err))
		return err;
	for (i = 0; i < DCBX_MAX_BUFFERS; i++) {
		if (buf->prio2buffer[i] >= DCBX_MAX_BUFFERS)
			return -EINVAL;
		sum += buf->buffer_size[i];
		cells += buf->buffer_size[i] / RSIM_BUF_CELL;
	}
	map_changed = memcmp(buf->prio2buffer, rsim->buffer.prio2buffer,
			     sizeof(buf->prio2buffer));
	size_changed = memcmp(buf->buffer_size, rsim->buffer.buffer_size,
			      sizeof(buf->buffer_size));
	if (!map_changed && !size_changed)
		return 0;
	if (!rsim->buf_manual) {
		rsim->buf_lossless = rsim_lossless(rsim->pfc_en,
						   rsim->buffer.prio2buffer);
		rsim->buf_manual = true;
	}
	lossless = rsim->buf_lossless;
	xoff = rsim_mlx5_xoff(rsim->pfc_delay, dev->mtu);
	next = rsim_lossless(rsim->pfc_en, buf->prio2buffer);
	if (map_changed && next != lossless) {
		update = true;
		lossless = next;
		err = rsim_mlx5_headroom(rsim, rsim->buffer.buffer_size,
					 lossless, xoff);
		if (err)
			return err;
	}
	if (size_changed) {
		for (i = 0; i < DCBX_MAX_BUFFERS; i++) {
			if ((lossless & BIT(i)) && !buf->buffer_size[i]) {
				netdev_err(dev, "lossless buffer %d cannot be of size 0\n",
					   i);
				return -EINVAL;
			}
		}
		if (sum > RSIM_BUF_TOTAL) {
			netdev_err(dev, "buffers of %llu bytes exceed the %u bytes of the port\n",
				   sum, RSIM_BUF_TOTAL);
			return -EINVAL;
		}
		update = true;
		err = rsim_mlx5_headroom(rsim, buf->buffer_size, lossless,
					 xoff);
		if (err)
			return err;
		if (RSIM_BUF_TOTAL / RSIM_BUF_CELL - cells < 4) {
			netdev_err(dev, "buffers of %u cells leave under 4 cells of %u for the shared pool\n",
				   cells, RSIM_BUF_TOTAL / RSIM_BUF_CELL);
			return -EINVAL;
		}
	}
	if (!update && xoff != rsim->buf_xoff) {
		err = rsim_mlx5_headroom(rsim, rsim->buffer.buffer_size,
					 lossless, xoff);
		if (err)
			return err;
	}
	if (size_changed)
		for (i = 0; i < DCBX_MAX_BUFFERS; i++)
			rsim->buffer.buffer_size[i] =
				rounddown(buf->buffer_size[i], RSIM_BUF_CELL);
	memcpy(rsim->buffer.prio2buffer, buf->prio2buffer,
	       sizeof(buf->prio2buffer));
	rsim->buf_lossless = lossless;
	rsim->buf_xoff = xoff;
	return 0;
}

static u8 rsim_getdcbx(struct net_device *dev)
{
	return rsim_from_netdev(dev)->dcbx;
}

/*
 * DCBX mode, per driver; each returns 0 on success, 1 on failure (what
 * dcbnl passes to user space in DCB_ATTR_DCBX).
 *
 * mlx5 (en_dcbnl.c mlx5e_dcbnl_setdcbx(), mlx5e_dcbnl_initialize(),
 * Linux 6.1), on a NIC with the dcbx capability: starts in host mode as
 * CEE|IEEE|HOST; LLD_MANAGED is refused; mode 0 hands DCBX to the
 * firmware, which drops HOST and keeps the versions (accepted again when
 * already there); any other mode without HOST is refused; else the mode
 * is taken as given (back in host mode), any mix of CEE and IEEE.
 */
static u8 rsim_mlx5_setdcbx(struct rsim_dev *rsim, u8 mode)
{
	if (mode & DCB_CAP_DCBX_LLD_MANAGED)
		return 1;
	if (!mode) {
		rsim->dcbx &= ~DCB_CAP_DCBX_HOST;
		return 0;
	}
	if (!(mode & DCB_CAP_DCBX_HOST))
		return 1;
	rsim->dcbx = mode;
	return 0;
}

/*
 * bnxt_en (bnxt_dcb.c bnxt_dcbnl_setdcbx(), bnxt_dcb_init(), Linux 6.1),
 * a PF whose firmware runs no LLDP agent: starts as IEEE|HOST; once the
 * mode has LLD_MANAGED every set is refused (the NVRAM has it); a mode
 * with HOST must be IEEE without CEE; a mode without HOST is taken as
 * given, after which the ETS, PFC and APP sets are EINVAL (they need host
 * and IEEE modes).
 */
static u8 rsim_bnxt_setdcbx(struct rsim_dev *rsim, u8 mode)
{
	if (rsim->dcbx & DCB_CAP_DCBX_LLD_MANAGED)
		return 1;
	if ((mode & DCB_CAP_DCBX_HOST) &&
	    ((mode & DCB_CAP_DCBX_VER_CEE) || !(mode & DCB_CAP_DCBX_VER_IEEE)))
		return 1;
	rsim->dcbx = mode;
	return 0;
}

/*
 * ice (ice_dcb_nl.c ice_dcbnl_setdcbx(), ice_dcb_lib.h, Linux 6.1), with
 * the software LLDP agent: starts as IEEE|HOST; LLD_MANAGED, CEE with
 * IEEE and a mode without HOST are refused, and so is the current mode
 * (ICE_DCB_NO_HW_CHG is 1) and any change while the port is in DSCP QoS
 * mode (a DSCP APP entry mapped); else the mode is taken.
 */
static u8 rsim_ice_setdcbx(struct rsim_dev *rsim, u8 mode)
{
	if ((mode & DCB_CAP_DCBX_LLD_MANAGED) ||
	    ((mode & DCB_CAP_DCBX_VER_IEEE) && (mode & DCB_CAP_DCBX_VER_CEE)) ||
	    !(mode & DCB_CAP_DCBX_HOST) || mode == rsim->dcbx ||
	    rsim->num_dscp_apps)
		return 1;
	rsim->dcbx = mode;
	return 0;
}

static u8 rsim_setdcbx(struct net_device *dev, u8 mode)
{
	struct rsim_dev *rsim = rsim_from_netdev(dev);
	int err;

	if (!rsim_set_begin(rsim, &err))
		return err ? 1 : 0;
	switch (rsim->pers) {
	case RSIM_MLX5:
		return rsim_mlx5_setdcbx(rsim, mode);
	case RSIM_BNXT_RE:
		return rsim_bnxt_setdcbx(rsim, mode);
	default:
		return rsim_ice_setdcbx(rsim, mode);
	}
}

/*
 * The op sets of the drivers: none has apptrust ops (6.1 and 6.12);
 * ice and bnxt_en have no maxrate or buffer ops, so dcbnl leaves those
 * attributes out of a get and ignores them in a set (which then reports
 * success).  mlx5: en_dcbnl.c mlx5e_dcbnl_ops; ice: ice_dcb_nl.c
 * dcbnl_ops; bnxt_en: bnxt_dcb.c dcbnl_ops (6.1).
 */
const struct dcbnl_rtnl_ops rsim_dcbnl_ops_mlx5 = {
	.ieee_getets = rsim_ieee_getets,
	.ieee_setets = rsim_ieee_setets,
	.ieee_getmaxrate = rsim_ieee_getmaxrate,
	.ieee_setmaxrate = rsim_ieee_setmaxrate,
	.ieee_getpfc = rsim_ieee_getpfc,
	.ieee_setpfc = rsim_ieee_setpfc,
	.ieee_setapp = rsim_mlx5_setapp,
	.ieee_delapp = rsim_mlx5_delapp,
	.getdcbx = rsim_getdcbx,
	.setdcbx = rsim_setdcbx,
	.dcbnl_getbuffer = rsim_getbuffer,
	.dcbnl_setbuffer = rsim_setbuffer,
};

const struct dcbnl_rtnl_ops rsim_dcbnl_ops_ice = {
	.ieee_getets = rsim_ieee_getets,
	.ieee_setets = rsim_ieee_setets,
	.ieee_getpfc = rsim_ieee_getpfc,
	.ieee_setpfc = rsim_ieee_setpfc,
	.ieee_setapp = rsim_ice_setapp,
	.ieee_delapp = rsim_ice_delapp,
	.getdcbx = rsim_getdcbx,
	.setdcbx = rsim_setdcbx,
};

const struct dcbnl_rtnl_ops rsim_dcbnl_ops_bnxt = {
	.ieee_getets = rsim_ieee_getets,
	.ieee_setets = rsim_ieee_setets,
	.ieee_getpfc = rsim_ieee_getpfc,
	.ieee_setpfc = rsim_ieee_setpfc,
	.ieee_setapp = rsim_bnxt_setapp,
	.ieee_delapp = rsim_bnxt_delapp,
	.getdcbx = rsim_getdcbx,
	.setdcbx = rsim_setdcbx,
};
