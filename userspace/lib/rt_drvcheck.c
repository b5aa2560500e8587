// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: what the NIC's driver would refuse.
 *
 * rt_want_build() builds the state a profile wants; before anything is
 * written, rt_drvcheck() holds it against the rules of the NIC's driver
 * (named by ethtool -i), so that "profile diff" and "profile apply" refuse
 * with the driver's rule what the driver would refuse part-way through an
 * apply, or keep otherwise than asked.  Each rule names the driver source
 * it was read from (Linux 6.1 unless said otherwise); see also
 * Documentation/rocetune_sim.rst, whose simulator enforces the same rules.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <linux/dcbnl.h>

#include "rt_nic.h"
#include "rt_want.h"

/* Layout of the DCB settings (rt_sysio.c rt_read_dcb()). */
#define RT_ETS_TC(s, i)		((s)->v[(i)])
#define RT_ETS_TSA(s, i)	((s)->v[8 + (i)])
#define RT_ETS_BW(s, i)		((s)->v[16 + (i)])
#define RT_PFC_EN(s)		((s)->v[0])
#define RT_PFC_DELAY(s)		((s)->v[1])
#define RT_PFC_CAP(s)		((s)->v[3])
#define RT_BUF_PRIO(s, i)	((s)->v[(i)])
#define RT_BUF_SIZE(s, i)	((s)->v[8 + (i)])

static const struct rt_setting *rt_dc_get(const struct rt_nic_state *cur,
					  const struct rt_state *want,
					  enum rt_set_kind kind)
{
	const struct rt_setting *w = rt_state_find(want, kind, 0);

	return w ? w : rt_state_find(&cur->st, kind, 0);
}

static bool rt_dc_changes_key(const struct rt_nic_state *cur,
			      const struct rt_state *want,
			      enum rt_set_kind kind, unsigned int key)
{
	const struct rt_setting *w = rt_state_find(want, kind, key);
	const struct rt_setting *c = rt_state_find(&cur->st, kind, key);

	return w && (!c || !rt_setting_equal(w, c));
}

static bool rt_dc_changes(const struct rt_nic_state *cur,
			  const struct rt_state *want, enum rt_set_kind kind)
{
	return rt_dc_changes_key(cur, want, kind, 0);
}

/* @k if @p gives it, else the first of @alt, @alt2 it gives. */
static enum rt_pkey rt_dc_key(const struct rt_profile *p, enum rt_pkey k,
			      enum rt_pkey alt, enum rt_pkey alt2)
{
	if (rt_profile_has(p, k))
		return k;
	return rt_profile_has(p, alt) ? alt : alt2;
}

#define RT_DC_ETS(p, k)	rt_dc_key(p, k, RT_PK_PRIORITY_TO_TC, \
				  rt_profile_has(p, RT_PK_TSA) ? RT_PK_TSA : \
								 RT_PK_ETS_BANDWIDTH)
#define RT_DC_BUF(p)	rt_dc_key(p, RT_PK_BUFFER_SIZE_BYTES, \
				  RT_PK_PRIORITY_TO_BUFFER, RT_PK_PFC)

/* An unsigned number of /sys/class/net/IFNAME/@attr, or @dflt. */
static unsigned long rt_dc_netdev_attr(const char *ifname, const char *attr,
				       unsigned long dflt)
{
	char path[512];
	unsigned long v;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/class/net/%s/%s", rt_sysfs_root(),
		 ifname, attr);
	f = fopen(path, "re");
	if (!f)
		return dflt;
	n = fscanf(f, "%lu", &v);
	fclose(f);
	return n == 1 ? v : dflt;
}

/*
 * bnxt_en ETS (drivers/net/ethernet/broadcom/bnxt/bnxt_dcb.c
 * bnxt_ets_validate(), Linux 6.1), against the TC count it reports
 * (ets_cap, bp->max_tc): a priority on a TC above it, or a TC above it
 * that is not strict with 0 %, is EINVAL; of the TCs below the highest
 * one a priority maps to, a TSA other than strict or ETS is ENOTSUPP, and
 * an ETS TC of 0 % when the ETS TCs have 100 % is EINVAL (the driver
 * would starve it).  The sum of 100 % itself is rt_want_ets()'s check.
 */
static void rt_dc_bnxt_ets(const struct rt_profile *p, const struct rt_nic *nic,
			   const struct rt_nic_state *cur,
			   const struct rt_setting *ets, struct rt_diag *d)
{
	unsigned int i, top = 0, sum = 0, cap = cur->ets_cap;
	int zero = -1;

	for (i = 0; i < RT_NTC; i++) {
		if (cap && RT_ETS_TC(ets, i) > cap) {
			rt_profile_key_err(d, p, RT_DC_ETS(p, RT_PK_PRIORITY_TO_TC),
				    "bnxt_en refuses priority %u on TC %u: %s has %u TCs (bnxt_dcb.c bnxt_ets_validate())",
				    i, (unsigned int)RT_ETS_TC(ets, i),
				    nic->id.netdev, cap);
			return;
		}
		if (cap && i > cap &&
		    (RT_ETS_BW(ets, i) || RT_ETS_TSA(ets, i) != RT_TSA_STRICT)) {
			rt_profile_key_err(d, p, RT_DC_ETS(p, RT_PK_TSA),
				    "bnxt_en refuses TC %u unless it is strict with 0%% bandwidth: %s has %u TCs (bnxt_dcb.c bnxt_ets_validate())",
				    i, nic->id.netdev, cap);
			return;
		}
		if (RT_ETS_TC(ets, i) > top)
			top = (unsigned int)RT_ETS_TC(ets, i);
	}
	for (i = 0; i < top; i++) {
		if (RT_ETS_TSA(ets, i) == RT_TSA_ETS) {
			sum += (unsigned int)RT_ETS_BW(ets, i);
			if (!RT_ETS_BW(ets, i) && zero < 0)
				zero = (int)i;
		} else if (RT_ETS_TSA(ets, i) != RT_TSA_STRICT) {
			rt_profile_key_err(d, p, RT_DC_ETS(p, RT_PK_TSA),
				    "bnxt_en supports only strict and ETS for TC %u (ENOTSUPP, bnxt_dcb.c bnxt_ets_validate())",
				    i);
			return;
		}
	}
	if (zero >= 0 && sum == 100)
		rt_profile_key_err(d, p, RT_DC_ETS(p, RT_PK_ETS_BANDWIDTH),
			    "bnxt_en refuses ETS TC %d with 0%% bandwidth while the ETS TCs have 100%% (it would starve the TC; bnxt_dcb.c bnxt_ets_validate())",
			    zero);
}

/*
 * bnxt_en PFC (bnxt_dcb.c bnxt_hwrm_queue_pfc_cfg(), Linux 6.1): the TCs
 * below max_tc that hold a PFC priority (by the ETS priority map) are the
 * lossless TCs, at most max_lltc, which the driver reports as pfc_cap.
 */
static void rt_dc_bnxt_pfc(const struct rt_profile *p, const struct rt_nic *nic,
			   const struct rt_nic_state *cur,
			   const struct rt_setting *ets,
			   const struct rt_setting *pfc, struct rt_diag *d)
{
	unsigned int prio, tcs = 0, n = 0;
	unsigned int cap = cur->ets_cap ? cur->ets_cap : RT_NTC;

	for (prio = 0; prio < RT_NPRIO; prio++)
		if ((RT_PFC_EN(pfc) & (1u << prio)) && RT_ETS_TC(ets, prio) < cap)
			tcs |= 1u << RT_ETS_TC(ets, prio);
	n = (unsigned int)__builtin_popcount(tcs);
	if (n > RT_PFC_CAP(pfc))
		rt_profile_key_err(d, p, rt_dc_key(p, RT_PK_PFC, RT_PK_PRIORITY_TO_TC,
					    RT_PK_TSA),
			    "bnxt_en allows PFC in at most %u traffic classes on %s (max_lltc, its PFC capability), and the PFC priorities would be in %u (bnxt_dcb.c bnxt_hwrm_queue_pfc_cfg())",
			    (unsigned int)RT_PFC_CAP(pfc), nic->id.netdev, n);
}

/*
 * bnxt_en refuses a PFC set (EINVAL) until ETS has been set once, and
 * until then reads an empty ETS (all zero but ets_cap): bnxt_dcb.c
 * bnxt_hwrm_queue_pfc_cfg() and bnxt_dcbnl_ieee_getets(), Linux 6.1.
 * ETS is written before PFC (rt_apply.c), so a PFC change is refused only
 * when the apply writes no ETS.
 */
static void rt_dc_bnxt_pfc_before_ets(const struct rt_profile *p,
				      const struct rt_nic *nic,
				      const struct rt_nic_state *cur,
				      const struct rt_state *want,
				      struct rt_diag *d)
{
	const struct rt_setting *ets = rt_state_find(&cur->st, RT_SK_ETS, 0);
	unsigned int i;

	if (!ets || rt_dc_changes(cur, want, RT_SK_ETS))
		return;
	for (i = 0; i < ets->n; i++)
		if (ets->v[i])
			return;
	rt_profile_key_err(d, p, rt_dc_key(p, RT_PK_PFC, RT_PK_CABLE_LENGTH_METERS,
					   RT_PK_PFC),
		    "bnxt_en refuses PFC until ETS has been set once, and the ETS of %s reads empty (never set): give PriorityToTC=, TSA= or ETSBandwidth= in the profile, which rocetune writes before PFC (bnxt_dcb.c bnxt_hwrm_queue_pfc_cfg())",
		    nic->id.netdev);
}

/*
 * mlx5 port buffers (en/port_buffer.c mlx5e_port_manual_buffer_config(),
 * update_xoff_threshold(), port_update_shared_buffer(), calculate_xoff(),
 * Linux 6.1).  A lossless buffer (one a PFC priority maps to) needs
 * xoff + max MTU + one cell (ENOMEM; 0 bytes: EINVAL), where xoff =
 * (301 + 2.16 * cable m) * Gb/s + 2.72 * MTU, the speed at least
 * 40 Gb/s; the sizes may not exceed total_size (EINVAL) and must leave
 * the shared pool 4 cells (EINVAL).  The bounds used here are the lowest
 * the driver can have: the max MTU at least 9216 (MINIMUM_MAX_MTU; a
 * ConnectX has more), a cell of 128 bytes (the driver's default), the
 * link speed from sysfs or 40 Gb/s.
 */
#define RT_MLX5_MIN_MAX_MTU	9216
#define RT_MLX5_CELL		128

static void rt_dc_mlx5_buffer(const struct rt_profile *p,
			      const struct rt_nic *nic,
			      const struct rt_nic_state *cur,
			      const struct rt_setting *buf,
			      const struct rt_setting *pfc, struct rt_diag *d)
{
	const struct rt_setting *cpfc = rt_state_find(&cur->st, RT_SK_PFC, 0);
	unsigned long mtu = rt_dc_netdev_attr(nic->id.netdev, "mtu", 1500);
	unsigned long speed = rt_dc_netdev_attr(nic->id.netdev, "speed", 0);
	unsigned long cable = RT_PFC_DELAY(pfc), xoff, need;
	unsigned int i, lossless = 0;
	uint64_t sum = 0;

	/* mlx5 ignores a delay of 0 or of 1000 m and more */
	if ((!cable || cable >= 1000) && cpfc)
		cable = RT_PFC_DELAY(cpfc);
	if (speed < 40000 || speed > 800000)
		speed = 40000;
	xoff = (301 + 216 * cable / 100) * speed / 1000 + 272 * mtu / 100;
	need = xoff + RT_MLX5_MIN_MAX_MTU + RT_MLX5_CELL;
	for (i = 0; i < RT_NPRIO; i++)
		if (RT_PFC_EN(pfc) & (1u << i))
			lossless |= 1u << RT_BUF_PRIO(buf, i);
	for (i = 0; i < RT_NBUF; i++) {
		sum += RT_BUF_SIZE(buf, i);
		if ((lossless & (1u << i)) && RT_BUF_SIZE(buf, i) < need) {
			rt_profile_key_err(d, p, RT_DC_BUF(p),
				    "mlx5_core needs at least %lu bytes in lossless buffer %u of %s, not %" PRIu64 " (xoff %lu for %lu m at %lu Gb/s and MTU %lu, + max MTU %u + one %u-byte cell; en/port_buffer.c update_xoff_threshold())",
				    need, i, nic->id.netdev, RT_BUF_SIZE(buf, i),
				    xoff, cable, speed / 1000, mtu,
				    RT_MLX5_MIN_MAX_MTU, RT_MLX5_CELL);
			return;
		}
	}
	if (cur->buf_total && sum > cur->buf_total) {
		rt_profile_key_err(d, p, RT_DC_BUF(p),
			    "the buffers of %s would have %" PRIu64 " bytes, over the %u bytes of its port (en/port_buffer.c mlx5e_port_manual_buffer_config())",
			    nic->id.netdev, sum, cur->buf_total);
		return;
	}
	if (cur->buf_total && sum > cur->buf_total - 4 * RT_MLX5_CELL)
		rt_profile_key_err(d, p, RT_DC_BUF(p),
			    "the buffers of %s would have %" PRIu64 " bytes: mlx5_core keeps at least 4 cells (%u bytes) of the %u for the shared pool (en/port_buffer.c port_update_shared_buffer())",
			    nic->id.netdev, sum, 4 * RT_MLX5_CELL,
			    cur->buf_total);
}

/*
 * ice takes only the enabled priorities (and the capability) of a PFC
 * set: the delay, which CableLengthMeters= writes, is the hardware's and
 * reads back unchanged (ice_dcb_nl.c ice_dcbnl_setpfc(), Linux 6.1).
 */
static void rt_dc_ice_pfc(const struct rt_profile *p, const struct rt_nic *nic,
			  const struct rt_nic_state *cur,
			  const struct rt_setting *pfc, struct rt_diag *d)
{
	const struct rt_setting *c = rt_state_find(&cur->st, RT_SK_PFC, 0);

	if (c && RT_PFC_DELAY(pfc) != RT_PFC_DELAY(c))
		rt_profile_key_err(d, p, RT_PK_CABLE_LENGTH_METERS,
			    "ice takes no PFC delay (cable length): that of %s stays %" PRIu64 " (ice_dcb_nl.c ice_dcbnl_setpfc())",
			    nic->id.netdev, RT_PFC_DELAY(c));
}

/* Does @want change a DSCP APP entry of @cur (@adds: by adding one)? */
static bool rt_dc_dscp_changes(const struct rt_nic_state *cur,
			       const struct rt_state *want, bool adds)
{
	const struct rt_setting *w;
	unsigned int i;

	for (i = 0; i < RT_NDSCP; i++) {
		w = rt_state_find(want, RT_SK_DSCP, i);
		if (w && (!adds || !w->absent) &&
		    rt_dc_changes_key(cur, want, RT_SK_DSCP, i))
			return true;
	}
	return false;
}

/* "host ieee", "lld-managed cee", ... as dcb dcbx show names them. */
static void rt_dc_dcbx_name(uint8_t m, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", m & DCB_CAP_DCBX_HOST ? " host" : "",
		 m & DCB_CAP_DCBX_LLD_MANAGED ? " lld-managed" : "",
		 m & DCB_CAP_DCBX_VER_CEE ? " cee" : "",
		 m & DCB_CAP_DCBX_VER_IEEE ? " ieee" : "");
}

/*
 * The DCBX mode the driver's IEEE ETS, PFC and APP sets need, else EINVAL:
 * bnxt_en host and IEEE (bnxt_dcb.c bnxt_dcbnl_ieee_setets(), _setpfc(),
 * _setapp(), _delapp()), ice IEEE without LLD_MANAGED for ETS, PFC and
 * APP adds (ice_dcb_nl.c ice_dcbnl_setets(), _setpfc(), _setapp();
 * Linux 6.1).  A mode that could not be read (0) is not held against.
 */
static void rt_dc_dcbx(const struct rt_profile *p, const struct rt_nic *nic,
		       const struct rt_nic_state *cur, bool ets_ch,
		       bool pfc_ch, bool app_ch, struct rt_diag *d)
{
	bool bnxt = !strcmp(nic->id.driver, "bnxt_en");
	uint8_t m = cur->dcbx;
	enum rt_pkey key;
	char mode[64];

	if (!m || (!ets_ch && !pfc_ch && !app_ch))
		return;
	if (bnxt ? (m & DCB_CAP_DCBX_HOST) && (m & DCB_CAP_DCBX_VER_IEEE) :
		   !(m & DCB_CAP_DCBX_LLD_MANAGED) && (m & DCB_CAP_DCBX_VER_IEEE))
		return;
	key = ets_ch ? RT_DC_ETS(p, RT_PK_PRIORITY_TO_TC) :
	      pfc_ch ? rt_dc_key(p, RT_PK_PFC, RT_PK_CABLE_LENGTH_METERS,
				 RT_PK_PFC) :
		       rt_dc_key(p, RT_PK_DSCP_TO_PRIORITY, RT_PK_TRUST,
				 RT_PK_TRUST);
	rt_dc_dcbx_name(m, mode, sizeof(mode));
	rt_profile_key_err(d, p, key,
		    "%s takes ETS, PFC and DSCP APP settings only in %s DCBX mode, and %s is in mode%s (%s; dcb dcbx set dev %s %s)",
		    bnxt ? "bnxt_en" : "ice", bnxt ? "host IEEE" : "IEEE",
		    nic->id.netdev, mode,
		    bnxt ? "bnxt_dcb.c bnxt_dcbnl_ieee_setets()" :
			   "ice_dcb_nl.c ice_dcbnl_setets()",
		    nic->id.netdev, "host ieee");
}

void rt_drvcheck(const struct rt_profile *p, const struct rt_nic *nic,
		 const struct rt_nic_state *cur, const struct rt_state *want,
		 struct rt_diag *d)
{
	const struct rt_setting *ets = rt_dc_get(cur, want, RT_SK_ETS);
	const struct rt_setting *pfc = rt_dc_get(cur, want, RT_SK_PFC);
	const struct rt_setting *buf = rt_dc_get(cur, want, RT_SK_BUFFER);
	bool ets_ch = rt_dc_changes(cur, want, RT_SK_ETS);
	bool pfc_ch = rt_dc_changes(cur, want, RT_SK_PFC);
	bool buf_ch = rt_dc_changes(cur, want, RT_SK_BUFFER);

	if (!strcmp(nic->id.driver, "bnxt_en") || !strcmp(nic->id.driver, "ice"))
		rt_dc_dcbx(p, nic, cur, ets_ch, pfc_ch,
			   rt_dc_dscp_changes(cur, want,
					      !strcmp(nic->id.driver, "ice")),
			   d);
	if (!strcmp(nic->id.driver, "bnxt_en")) {
		if (ets && ets_ch)
			rt_dc_bnxt_ets(p, nic, cur, ets, d);
		if (ets && pfc && (ets_ch || pfc_ch))
			rt_dc_bnxt_pfc(p, nic, cur, ets, pfc, d);
		if (pfc_ch)
			rt_dc_bnxt_pfc_before_ets(p, nic, cur, want, d);
	} else if (!strcmp(nic->id.driver, "ice")) {
		if (pfc && pfc_ch)
			rt_dc_ice_pfc(p, nic, cur, pfc, d);
	} else if (!strcmp(nic->id.driver, "mlx5_core")) {
		/*
		 * mlx5 reads a strict or vendor TC back as 0 %: the profile
		 * rule against their bandwidth (rt_pcheck.c) covers it.
		 * Without a buffer set, the firmware sizes the buffers.
		 */
		if (buf && pfc && buf_ch)
			rt_dc_mlx5_buffer(p, nic, cur, buf, pfc, d);
	}
}
