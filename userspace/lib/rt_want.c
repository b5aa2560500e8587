// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: what a profile wants on a NIC, from the
 * profile and the NIC's current state alone (nothing here touches the
 * system; the backend that reads and writes it is rt_sysio.c).
 *
 * The DCQCN keys map one to one, in the same units, to the vendor files of
 * rt_cc_map[], and to rocetune.ko's attributes for software RoCE
 * (rt_rxecc.c; Documentation/profiles.rst has the table).  The field
 * widths are checked here because mlx5 keeps only the bits that fit and
 * still reports success; rocetune.ko's ranges because it would refuse the
 * value after earlier writes were made.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rt_util.h"
#include "rt_want.h"
#include "rt_dcb.h"
#include "rt_rxecc.h"

struct rt_cc_map {
	const char *mlx5;
	uint8_t mlx5_bits;
	const char *bnxt;
	uint8_t bnxt_bits;
};

static const struct rt_cc_map rt_cc_map[RT_CC_KEY_MAX] = {
	[RT_DCQCN_CNP_DSCP] = { "np_cnp_dscp", 6, "alt_vlan_dscp", 6 },
	[RT_DCQCN_CNP_PRIORITY] = { "np_cnp_prio", 3, "alt_vlan_pcp", 3 },
	[RT_DCQCN_MIN_TIME_BETWEEN_CNPS_US] = { "np_min_time_between_cnps", 32 },
	[RT_DCQCN_RATE_REDUCE_MONITOR_PERIOD_US] = {
		"rp_rate_reduce_monitor_period", 32 },
	[RT_DCQCN_MIN_RATE_MBPS] = { "rp_min_rate", 32 },
	[RT_DCQCN_MAX_RATE_MBPS] = { "rp_max_rate", 32 },
	[RT_DCQCN_AI_RATE_MBPS] = { "rp_ai_rate", 32 },
	[RT_DCQCN_HAI_RATE_MBPS] = { "rp_hai_rate", 32 },
	[RT_DCQCN_TIME_RESET_US] = { "rp_time_reset", 32 },
	[RT_DCQCN_BYTE_RESET_BYTES] = { "rp_byte_reset", 32 },
	[RT_DCQCN_THRESHOLD] = { "rp_threshold", 32 },
	[RT_DCQCN_INITIAL_ALPHA] = { "rp_initial_alpha_value", 32 },
	[RT_DCQCN_G] = { "rp_dce_tcp_g", 32, "run_avg_weight_g", 8 },
	[RT_DCQCN_GD] = { "rp_gd", 32 },
	[RT_DCQCN_MIN_DECREASE_FACTOR_PERCENT] = { "rp_min_dec_fac", 32 },
	[RT_DCQCN_RATE_ON_FIRST_CNP_MBPS] = {
		"rp_rate_to_set_on_first_cnp", 32 },
	[RT_DCQCN_CLAMP_TARGET_RATE] = { "rp_clamp_tgt_rate", 1 },
	[RT_DCQCN_CLAMP_TARGET_RATE_AFTER_TIME_INC] = {
		"rp_clamp_tgt_rate_ati", 1 },
	[RT_DCQCN_DCE_TCP_RTT_US] = { "rp_dce_tcp_rtt", 32 },
	[RT_DCQCN_ENABLE] = { NULL, 0, "enable_cc", 1 },
	[RT_CC_KEY_CNP_PRIO_MODE] = { "np_cnp_prio_mode", 1 },
};

const char *rt_cc_file(enum rt_cc_vendor vendor, unsigned int key)
{
	if (key >= RT_CC_KEY_MAX)
		return NULL;
	switch (vendor) {
	case RT_CC_MLX5:
		return rt_cc_map[key].mlx5;
	case RT_CC_BNXT_RE:
		return rt_cc_map[key].bnxt;
	default:
		return NULL;
	}
}

static unsigned int rt_cc_bits(enum rt_cc_vendor vendor, unsigned int key)
{
	return vendor == RT_CC_MLX5 ? rt_cc_map[key].mlx5_bits :
				      rt_cc_map[key].bnxt_bits;
}

static const char *rt_cc_vendor_name(enum rt_cc_vendor vendor)
{
	switch (vendor) {
	case RT_CC_MLX5:
		return "mlx5";
	case RT_CC_BNXT_RE:
		return "bnxt_re";
	case RT_CC_RXE:
		return "rxe (rocetune.ko)";
	default:
		return "?";
	}
}

/* Wanted state ---------------------------------------------------------- */

static const enum rt_pkey rt_dcb_keys[] = {
	RT_PK_TRUST, RT_PK_PFC, RT_PK_DSCP_TO_PRIORITY, RT_PK_PRIORITY_TO_TC,
	RT_PK_ETS_BANDWIDTH, RT_PK_TSA, RT_PK_MAX_RATE_MBPS,
	RT_PK_BUFFER_SIZE_BYTES, RT_PK_PRIORITY_TO_BUFFER,
	RT_PK_CABLE_LENGTH_METERS,
};

/* The first DCB key @p gives, or RT_PK_NUM. */
static enum rt_pkey rt_first_dcb_key(const struct rt_profile *p)
{
	size_t i;

	for (i = 0; i < sizeof(rt_dcb_keys) / sizeof(rt_dcb_keys[0]); i++)
		if (rt_profile_has(p, rt_dcb_keys[i]))
			return rt_dcb_keys[i];
	return RT_PK_NUM;
}

static enum rt_pkey rt_first_cc_key(const struct rt_profile *p)
{
	unsigned int i;

	for (i = 0; i < RT_DCQCN_NUM; i++)
		if (rt_profile_has(p, RT_PK_DCQCN + i))
			return RT_PK_DCQCN + i;
	return RT_PK_NUM;
}

unsigned int rt_want_needs(const struct rt_profile *p)
{
	unsigned int need = 0;

	if (rt_first_dcb_key(p) != RT_PK_NUM)
		need |= RT_NEED_DCB;
	if (rt_profile_has(p, RT_PK_PFC_STORM_TIMEOUT_MS))
		need |= RT_NEED_STORM;
	if (rt_first_cc_key(p) != RT_PK_NUM)
		need |= RT_NEED_CC;
	return need;
}

/* A copy of @cur's setting into @want, or NULL with an error when absent. */
static struct rt_setting *rt_want_from(struct rt_state *want,
				       const struct rt_nic_state *cur,
				       enum rt_set_kind kind, unsigned int key)
{
	const struct rt_setting *c = rt_state_find(&cur->st, kind, key);
	struct rt_setting *w;

	if (!c)
		return NULL;
	w = rt_state_add(want, kind, key);
	if (w)
		*w = *c;
	return w;
}

static void rt_want_ets(const struct rt_profile *p, const struct rt_nic *nic,
			const struct rt_nic_state *cur, struct rt_state *want,
			struct rt_diag *d)
{
	bool tc = rt_profile_has(p, RT_PK_PRIORITY_TO_TC);
	bool bw = rt_profile_has(p, RT_PK_ETS_BANDWIDTH);
	bool tsa = rt_profile_has(p, RT_PK_TSA);
	enum rt_pkey key = tc ? RT_PK_PRIORITY_TO_TC :
			   bw ? RT_PK_ETS_BANDWIDTH : RT_PK_TSA;
	struct rt_setting *w;
	unsigned int i, sum = 0;
	bool have_ets = false;

	if (!tc && !bw && !tsa)
		return;
	w = cur->has_ets ? rt_want_from(want, cur, RT_SK_ETS, 0) : NULL;
	if (!w) {
		rt_profile_key_err(d, p, key,
			    "%s has no ETS configuration (its driver has no DCB ETS operation)",
			    nic->id.netdev);
		return;
	}
	for (i = 0; i < RT_NTC; i++) {
		if (tc)
			w->v[i] = p->prio_tc[i];
		if (tsa)
			w->v[8 + i] = p->tsa[i];
		if (bw)
			w->v[16 + i] = p->ets_bw[i];
		if (w->v[8 + i] == RT_TSA_ETS) {
			have_ets = true;
			sum += (unsigned int)w->v[16 + i];
		}
	}
	if (have_ets && sum != 100)
		rt_profile_key_err(d, p, bw ? RT_PK_ETS_BANDWIDTH : RT_PK_TSA,
			    "the ETS traffic classes of %s would get %u%% of the bandwidth, not 100%% (%s)",
			    nic->id.netdev, sum,
			    bw ? "check TSA=" :
				 "give ETSBandwidth= for the new TSA=");
}

static void rt_want_pfc(const struct rt_profile *p, const struct rt_nic *nic,
			const struct rt_nic_state *cur, struct rt_state *want,
			struct rt_diag *d)
{
	bool en = rt_profile_has(p, RT_PK_PFC);
	bool len = rt_profile_has(p, RT_PK_CABLE_LENGTH_METERS);
	struct rt_setting *w;

	if (!en && !len)
		return;
	w = cur->has_pfc ? rt_want_from(want, cur, RT_SK_PFC, 0) : NULL;
	if (!w) {
		rt_profile_key_err(d, p, en ? RT_PK_PFC : RT_PK_CABLE_LENGTH_METERS,
			    "%s has no PFC configuration (its driver has no DCB PFC operation)",
			    nic->id.netdev);
		return;
	}
	if (en)
		w->v[0] = p->pfc_en;
	if (len)
		w->v[1] = p->cable_length_m;
	/* bnxt_en's PFC capability counts lossless TCs: rt_drvcheck.c */
	if (en && w->v[3] && strcmp(nic->id.driver, "bnxt_en") &&
	    (unsigned int)__builtin_popcount(p->pfc_en) > w->v[3])
		rt_profile_key_err(d, p, RT_PK_PFC,
			    "%s can enable PFC on at most %" PRIu64 " priorities",
			    nic->id.netdev, w->v[3]);
}

/*
 * Where the driver's op table lacks an op (a DCB maxrate or buffer set
 * it lacks is skipped by dcbnl, which reports success): the op table of
 * bnxt_en and ice (Linux 6.1, also later), or "" for other drivers.
 */
static const char *rt_want_no_op(const struct rt_nic *nic)
{
	if (!strcmp(nic->id.driver, "bnxt_en"))
		return "; bnxt_en's dcbnl_ops in bnxt_dcb.c, Linux 6.1";
	if (!strcmp(nic->id.driver, "ice"))
		return "; ice's dcbnl_ops in ice_dcb_nl.c, Linux 6.1";
	return "";
}

/*
 * mlx5 keeps a max rate as a count of 100 Mb/s up to 25.5 Gb/s (at least
 * one), else of 1 Gb/s, and refuses the whole set (EINVAL) above 255 Gb/s
 * (en_dcbnl.c mlx5e_dcbnl_ieee_setmaxrate(), Linux 6.1).  The rate it
 * would keep for @r Mb/s, or 0 when it refuses it.
 */
static uint64_t rt_want_mlx5_rate(uint64_t r)
{
	if (r <= 25500)
		return r < 100 ? 100 : r / 100 * 100;
	return r <= 255000 ? r / 1000 * 1000 : 0;
}

static void rt_want_maxrate(const struct rt_profile *p,
			    const struct rt_nic *nic,
			    const struct rt_nic_state *cur,
			    struct rt_state *want, struct rt_diag *d)
{
	bool mlx5 = !strcmp(nic->id.driver, "mlx5_core");
	struct rt_setting *w;
	unsigned int i;

	if (!rt_profile_has(p, RT_PK_MAX_RATE_MBPS))
		return;
	w = cur->has_maxrate ? rt_want_from(want, cur, RT_SK_MAXRATE, 0) :
			       NULL;
	if (!w) {
		rt_profile_key_err(d, p, RT_PK_MAX_RATE_MBPS,
			    "%s has no per-TC max rate (its driver%s%s has no DCB maxrate operation, ieee_setmaxrate%s; the kernel would ignore the setting silently)",
			    nic->id.netdev, nic->id.driver[0] ? " " : "",
			    nic->id.driver, rt_want_no_op(nic));
		return;
	}
	for (i = 0; i < RT_NTC; i++) {
		uint64_t r = p->maxrate_mbps[i], kept = rt_want_mlx5_rate(r);

		if (mlx5 && r && !kept) {
			rt_profile_key_err(d, p, RT_PK_MAX_RATE_MBPS,
				    "TC %u: %" PRIu64 " Mb/s: mlx5_core refuses a max rate above 255000 Mb/s (EINVAL for the whole set; en_dcbnl.c mlx5e_dcbnl_ieee_setmaxrate(), Linux 6.1)",
				    i, r);
			return;
		}
		if (mlx5 && r && kept != r) {
			rt_profile_key_err(d, p, RT_PK_MAX_RATE_MBPS,
				    "TC %u: %" PRIu64 " Mb/s: mlx5 keeps multiples of 100 Mb/s up to 25500, of 1000 Mb/s up to 255000, and would round it to %" PRIu64 " Mb/s: give %" PRIu64 " (en_dcbnl.c mlx5e_dcbnl_ieee_setmaxrate(), Linux 6.1)",
				    i, r, kept, kept);
			return;
		}
		w->v[i] = r * 1000;
	}
}

static void rt_want_buffer(const struct rt_profile *p,
			   const struct rt_nic *nic,
			   const struct rt_nic_state *cur,
			   struct rt_state *want, struct rt_diag *d)
{
	bool size = rt_profile_has(p, RT_PK_BUFFER_SIZE_BYTES);
	bool map = rt_profile_has(p, RT_PK_PRIORITY_TO_BUFFER);
	struct rt_setting *w;
	unsigned int i;

	if (!size && !map)
		return;
	w = cur->has_buffer ? rt_want_from(want, cur, RT_SK_BUFFER, 0) : NULL;
	if (!w) {
		rt_profile_key_err(d, p,
			    size ? RT_PK_BUFFER_SIZE_BYTES :
				   RT_PK_PRIORITY_TO_BUFFER,
			    "%s has no port buffer configuration (its driver%s%s has no DCB buffer operation, dcbnl_setbuffer%s; the kernel would ignore the setting silently)",
			    nic->id.netdev, nic->id.driver[0] ? " " : "",
			    nic->id.driver, rt_want_no_op(nic));
		return;
	}
	for (i = 0; i < RT_NBUF; i++) {
		if (map)
			w->v[i] = p->prio_buffer[i];
		if (size)
			w->v[8 + i] = p->buffer_size[i];
	}
}

static void rt_want_trust(const struct rt_profile *p,
			  const struct rt_nic_state *cur,
			  struct rt_state *want)
{
	bool dscp = p->trust == RT_TRUST_DSCP;
	struct rt_setting *w;
	unsigned int i;

	if (!rt_profile_has(p, RT_PK_TRUST))
		return;
	for (i = 0; i < RT_NDSCP; i++) {
		w = rt_state_add(want, RT_SK_DSCP, i);
		if (!w)
			return;
		w->n = 2;
		if (!dscp) {
			w->absent = true;
		} else if (rt_profile_has(p, RT_PK_DSCP_TO_PRIORITY)) {
			w->absent = p->dscp_prio[i] < 0;
			w->v[0] = w->absent ? 0 : (uint64_t)p->dscp_prio[i];
		} else {
			w->v[0] = i >> 3;	/* the default map of mlnx_qos */
		}
		/* exactly one entry: a duplicated DSCP is drift */
		w->v[1] = w->absent ? 0 : 1u << w->v[0];
	}
	if (!cur->has_apptrust)
		return;
	w = rt_state_add(want, RT_SK_APPTRUST, 0);
	if (!w)
		return;
	if (dscp) {
		w->n = 2;
		w->v[0] = 5;	/* IEEE_8021QAZ_APP_SEL_DSCP */
		w->v[1] = RT_DCB_APP_SEL_PCP;
	} else {
		w->n = 1;
		w->v[0] = RT_DCB_APP_SEL_PCP;
	}
}

static void rt_want_storm(const struct rt_profile *p, const struct rt_nic *nic,
			  const struct rt_nic_state *cur,
			  struct rt_state *want, struct rt_diag *d)
{
	struct rt_setting *w;

	if (!rt_profile_has(p, RT_PK_PFC_STORM_TIMEOUT_MS))
		return;
	if (!cur->storm_ok) {
		rt_profile_key_err(d, p, RT_PK_PFC_STORM_TIMEOUT_MS, "%s",
			    cur->storm_err);
		return;
	}
	w = rt_want_from(want, cur, RT_SK_PFC_STORM, 0);
	if (w)
		w->v[0] = p->pfc_storm_tout;
	(void)nic;
}

/* The profile's value of @key, else the NIC's; false when neither. */
static bool rt_want_cc_value(const struct rt_profile *p,
			     const struct rt_nic_state *cur, unsigned int key,
			     uint64_t *v)
{
	const struct rt_setting *c;

	if (rt_profile_has(p, RT_PK_DCQCN + key)) {
		*v = p->dcqcn[key];
		return true;
	}
	c = rt_state_find(&cur->st, RT_SK_CC, key);
	if (!c || c->n != 1)
		return false;
	*v = c->v[0];
	return true;
}

/*
 * Software RoCE: rocetune.ko's parameters (rt_rxecc.c), each checked
 * against the module's range (also when the module is not loaded); the
 * minimum rate not above the maximum the apply leaves; Enable= as its
 * three switches.
 */
static void rt_want_rxe(const struct rt_profile *p, const struct rt_nic *nic,
			const struct rt_nic_state *cur, struct rt_state *want,
			struct rt_diag *d)
{
	const char *dev = nic->id.rdma_dev;
	unsigned int i, nerr = d->n;
	char msg[RT_DIAG_LEN];
	struct rt_setting *w;
	uint64_t lo, hi;

	for (i = 0; i < RT_DCQCN_NUM; i++)
		if (rt_profile_has(p, RT_PK_DCQCN + i) &&
		    rt_rxe_check(i, p->dcqcn[i], dev, msg, sizeof(msg)))
			rt_profile_key_err(d, p, RT_PK_DCQCN + i, "%s%s", msg,
				    rt_rxe_param(i) ? "" :
				    " (see Documentation/profiles.rst)");
	if (d->n != nerr)
		return;
	if (!cur->cc_ok) {
		rt_profile_key_err(d, p, rt_first_cc_key(p), "%s", cur->cc_err);
		return;
	}
	for (i = 0; i < RT_DCQCN_NUM; i++) {
		if (!rt_profile_has(p, RT_PK_DCQCN + i))
			continue;
		w = rt_want_from(want, cur, RT_SK_CC, i);
		if (!w) {
			rt_profile_key_err(d, p, RT_PK_DCQCN + i,
				    "%s: rocetune.ko did not report this parameter",
				    dev);
			continue;
		}
		if (i != RT_DCQCN_ENABLE) {
			w->v[0] = p->dcqcn[i];
		} else if (p->dcqcn[i]) {
			/* NP and RP need the device's QP accounting. */
			w->v[RT_RXE_EN_ACCT] = 1;
			w->v[RT_RXE_EN_NP] = 1;
			w->v[RT_RXE_EN_RP] = 1;
		} else {
			/* Off: NP and RP; the accounting stays as it is. */
			w->v[RT_RXE_EN_NP] = 0;
			w->v[RT_RXE_EN_RP] = 0;
		}
	}
	if ((rt_profile_has(p, RT_PK_DCQCN + RT_DCQCN_MIN_RATE_MBPS) ||
	     rt_profile_has(p, RT_PK_DCQCN + RT_DCQCN_MAX_RATE_MBPS)) &&
	    rt_want_cc_value(p, cur, RT_DCQCN_MIN_RATE_MBPS, &lo) &&
	    rt_want_cc_value(p, cur, RT_DCQCN_MAX_RATE_MBPS, &hi) && lo > hi)
		rt_profile_key_err(d, p,
			    rt_profile_has(p, RT_PK_DCQCN + RT_DCQCN_MIN_RATE_MBPS) ?
			    RT_PK_DCQCN + RT_DCQCN_MIN_RATE_MBPS :
			    RT_PK_DCQCN + RT_DCQCN_MAX_RATE_MBPS,
			    "%s would get a minimum rate of %" PRIu64 " Mb/s above its maximum of %" PRIu64 " Mb/s%s (rocetune.ko refuses that)",
			    dev, lo, hi,
			    rt_profile_has(p, RT_PK_DCQCN + RT_DCQCN_MIN_RATE_MBPS) &&
			    rt_profile_has(p, RT_PK_DCQCN + RT_DCQCN_MAX_RATE_MBPS) ?
			    "" : " (the other is the device's current value)");
}

static void rt_want_cc(const struct rt_profile *p, const struct rt_nic *nic,
		       const struct rt_nic_state *cur, struct rt_state *want,
		       struct rt_diag *d)
{
	enum rt_pkey first = rt_first_cc_key(p);
	struct rt_setting *w;
	unsigned int i;

	if (first == RT_PK_NUM)
		return;
	if (nic->cc == RT_CC_NONE) {
		rt_profile_key_err(d, p, first, "%s: %s", nic->id.netdev,
			    nic->cc_why);
		return;
	}
	if (nic->cc == RT_CC_RXE) {
		rt_want_rxe(p, nic, cur, want, d);
		return;
	}
	if (!cur->cc_ok) {
		rt_profile_key_err(d, p, first, "%s", cur->cc_err);
		return;
	}
	for (i = 0; i < RT_DCQCN_NUM; i++) {
		const char *file = rt_cc_file(nic->cc, i);
		unsigned int bits;
		uint32_t v = p->dcqcn[i];

		if (!rt_profile_has(p, RT_PK_DCQCN + i))
			continue;
		if (!file) {
			rt_profile_key_err(d, p, RT_PK_DCQCN + i,
				    "%s has no equivalent of this key (%s)",
				    rt_cc_vendor_name(nic->cc),
				    i == RT_DCQCN_ENABLE ?
				    "upstream mlx5 enables DCQCN per priority only in firmware: mlxconfig ROCE_CC_PRIO_MASK" :
				    "see Documentation/profiles.rst");
			continue;
		}
		bits = rt_cc_bits(nic->cc, i);
		if (bits < 32 && v >> bits) {
			rt_profile_key_err(d, p, RT_PK_DCQCN + i,
				    "%u does not fit the %u-bit field of %s %s (the driver would keep only the low bits)",
				    v, bits, rt_cc_vendor_name(nic->cc), file);
			continue;
		}
		w = rt_want_from(want, cur, RT_SK_CC, i);
		if (!w) {
			rt_profile_key_err(d, p, RT_PK_DCQCN + i,
				    "%s/%s could not be read", nic->cc_dir,
				    file);
			continue;
		}
		w->v[0] = v;
	}
}

int rt_want_build(const struct rt_profile *p, const struct rt_nic *nic,
		  const struct rt_nic_state *cur, struct rt_state *want,
		  struct rt_diag *d)
{
	unsigned int nerr = d->n;
	enum rt_pkey key = rt_first_dcb_key(p);

	memset(want, 0, sizeof(*want));
	if (key != RT_PK_NUM && !cur->dcb_ok) {
		rt_profile_key_err(d, p, key, "%s", cur->dcb_err);
	} else if (key != RT_PK_NUM) {
		rt_want_ets(p, nic, cur, want, d);
		rt_want_pfc(p, nic, cur, want, d);
		rt_want_maxrate(p, nic, cur, want, d);
		rt_want_buffer(p, nic, cur, want, d);
		rt_want_trust(p, cur, want);
		rt_drvcheck(p, nic, cur, want, d);
	}
	rt_want_storm(p, nic, cur, want, d);
	rt_want_cc(p, nic, cur, want, d);
	if (want->n >= RT_SET_MAX)
		rt_diag_add(d, "%s: too many settings", p->path);
	return d->n == nerr ? 0 : -EINVAL;
}
