// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: the DCQCN backend of software RoCE, through
 * rocetune.ko's QP_SET and QP_STATS_GET (see rt_rxecc.h).
 *
 * Every read and write opens its own command socket: the family id
 * changes when the module is reloaded, and the agent lives longer than
 * one module load.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <linux/rocetune.h>

#include "rt_util.h"
#include "rt_nl.h"
#include "rt_profile.h"
#include "rt_rxecc.h"

/*
 * The module's bounds (kmod/rocetune_qp_nl_set.c policy): rates 12 (its
 * safety floor) .. 1000000 Mb/s, steps 0 .. 1000000 Mb/s, times
 * 0 .. 1000000 µs, the alpha period from 1 µs.
 */
#define RT_RXE_RATE_MIN		12
#define RT_RXE_RATE_MAX		1000000
#define RT_RXE_US_MAX		1000000

/*
 * One line per key; a key not listed would have no equivalent in the
 * module (every key has one).
 */
static const struct rt_rxe_param rt_rxe_params[] = {
	{ RT_DCQCN_MIN_TIME_BETWEEN_CNPS_US, ROCETUNE_A_QP_NP_MIN_CNP_GAP_US,
	  "np-min-cnp-gap-us", 0, RT_RXE_US_MAX, "µs" },
	{ RT_DCQCN_RATE_REDUCE_MONITOR_PERIOD_US, ROCETUNE_A_QP_RP_RRMP_US,
	  "rp-rate-reduce-period-us", 0, RT_RXE_US_MAX, "µs" },
	{ RT_DCQCN_MIN_RATE_MBPS, ROCETUNE_A_QP_RP_MIN_RATE_MBPS,
	  "rp-min-rate-mbps", RT_RXE_RATE_MIN, RT_RXE_RATE_MAX, "Mb/s" },
	{ RT_DCQCN_MAX_RATE_MBPS, ROCETUNE_A_QP_RP_MAX_RATE_MBPS,
	  "rp-max-rate-mbps", RT_RXE_RATE_MIN, RT_RXE_RATE_MAX, "Mb/s" },
	{ RT_DCQCN_AI_RATE_MBPS, ROCETUNE_A_QP_RP_AI_RATE_MBPS,
	  "rp-ai-rate-mbps", 0, RT_RXE_RATE_MAX, "Mb/s" },
	{ RT_DCQCN_HAI_RATE_MBPS, ROCETUNE_A_QP_RP_HAI_RATE_MBPS,
	  "rp-hai-rate-mbps", 0, RT_RXE_RATE_MAX, "Mb/s" },
	{ RT_DCQCN_TIME_RESET_US, ROCETUNE_A_QP_RP_TIME_RESET_US,
	  "rp-time-reset-us", 0, RT_RXE_US_MAX, "µs" },
	{ RT_DCQCN_BYTE_RESET_BYTES, ROCETUNE_A_QP_RP_BYTE_RESET_BYTES,
	  "rp-byte-reset-bytes", 0, UINT32_MAX, "bytes" },
	{ RT_DCQCN_THRESHOLD, ROCETUNE_A_QP_RP_THRESHOLD,
	  "rp-threshold", 1, 31, "" },
	{ RT_DCQCN_INITIAL_ALPHA, ROCETUNE_A_QP_RP_INITIAL_ALPHA,
	  "rp-initial-alpha", 0, 1023, "/1024" },
	{ RT_DCQCN_G, ROCETUNE_A_QP_RP_G, "rp-g", 0, 1023, "/1024" },
	{ RT_DCQCN_DCE_TCP_RTT_US, ROCETUNE_A_QP_RP_ALPHA_PERIOD_US,
	  "rp-alpha-period-us", 1, RT_RXE_US_MAX, "µs" },
	{ RT_DCQCN_GD, ROCETUNE_A_QP_RP_GD, "rp-gd", 0, 15, "" },
	{ RT_DCQCN_MIN_DECREASE_FACTOR_PERCENT, ROCETUNE_A_QP_RP_MIN_DEC_FAC_PCT,
	  "rp-min-dec-factor-pct", 0, 100, "%" },
	{ RT_DCQCN_RATE_ON_FIRST_CNP_MBPS, ROCETUNE_A_QP_RP_RATE_FIRST_CNP_MBPS,
	  "rp-rate-first-cnp-mbps", 0, RT_RXE_RATE_MAX, "Mb/s" },
	{ RT_DCQCN_CLAMP_TARGET_RATE, ROCETUNE_A_QP_RP_CLAMP_TGT,
	  "rp-clamp-target", 0, 1, "" },
	{ RT_DCQCN_CLAMP_TARGET_RATE_AFTER_TIME_INC,
	  ROCETUNE_A_QP_RP_CLAMP_TGT_ATI, "rp-clamp-target-ati", 0, 1, "" },
	{ RT_DCQCN_CNP_DSCP, ROCETUNE_A_QP_NP_CNP_DSCP, "np-cnp-dscp", 0, 63,
	  "" },
	{ RT_DCQCN_CNP_PRIORITY, ROCETUNE_A_QP_NP_CNP_PRIO, "np-cnp-prio", 0, 7,
	  "" },
	{ RT_DCQCN_ENABLE, ROCETUNE_A_QP_NP_ENABLE, "np/rp/accounting",
	  0, 1, "" },
};

#define RT_RXE_NPARAMS	(sizeof(rt_rxe_params) / sizeof(rt_rxe_params[0]))

const struct rt_rxe_param *rt_rxe_param(unsigned int key)
{
	size_t i;

	for (i = 0; i < RT_RXE_NPARAMS; i++)
		if (rt_rxe_params[i].key == key)
			return &rt_rxe_params[i];
	return NULL;
}

int rt_rxe_check(unsigned int key, uint32_t v, const char *dev, char *msg,
		 size_t len)
{
	const struct rt_rxe_param *p = rt_rxe_param(key);

	if (!p) {
		rt_fmt(msg, len, "rxe (rocetune.ko) has no equivalent of this key");
		return -EINVAL;
	}
	if (v >= p->min && v <= p->max)
		return 0;
	if (key == RT_DCQCN_MAX_RATE_MBPS && !v)
		rt_fmt(msg, len,
		       "0 (line rate) is out of range for %s: software RoCE has no line rate; rocetune.ko's %s takes %" PRIu32 "..%" PRIu32 " %s",
		       dev, p->name, p->min, p->max, p->unit);
	else
		rt_fmt(msg, len,
		       "%" PRIu32 " is out of range for %s: rocetune.ko's %s takes %" PRIu32 "..%" PRIu32 "%s%s",
		       v, dev, p->name, p->min, p->max, p->unit[0] ? " " : "",
		       p->unit);
	return -EINVAL;
}

unsigned int rt_rxe_check_profile(const struct rt_profile *p, const char *dev,
				  struct rt_diag *d)
{
	unsigned int i, nerr = d->n;
	char msg[RT_DIAG_LEN];
	enum rt_pkey k;

	for (i = 0; i < RT_DCQCN_NUM; i++) {
		k = RT_PK_DCQCN + i;
		if (!rt_profile_has(p, k) ||
		    !rt_rxe_check(i, p->dcqcn[i], dev, msg, sizeof(msg)))
			continue;
		rt_diag_add(d, "%s:%u: [%s] %s: %s%s", p->path, p->line[k],
			    rt_pkey_section(k), rt_pkey_name(k), msg,
			    rt_rxe_param(i) ? "" :
			    " (see Documentation/profiles.rst)");
	}
	return d->n - nerr;
}

/* Open a command socket; a missing family is "not loaded". */
static int rt_rxe_open(struct rt_nl *nl, char *msg, size_t len)
{
	int err;

	memset(nl, 0, sizeof(*nl));
	err = rt_nl_open(nl);
	if (err == -ENOENT)
		rt_fmt(msg, len,
		       "rocetune.ko is not loaded (no \"rocetune\" generic netlink family): software RoCE's DCQCN is the module's (modprobe rocetune)");
	else if (err)
		rt_fmt(msg, len, "cannot open a rocetune netlink socket: %s",
		       nl->lib_msg ? nl->lib_msg : strerror(-err));
	return err;
}

/* "the module's message (EINVAL)" of a failed request. */
static void rt_rxe_nl_fail(const struct rt_nl *nl, int err, char *why,
			   size_t len)
{
	const char *name = strerrorname_np(-err);

	rt_fmt(why, len, "%s (%s)",
	       nl->ext_msg[0] ? nl->ext_msg : strerror(-err),
	       name ? name : "?");
}

struct rt_rxe_read_arg {
	struct rt_state *st;
	bool missing;
};

static int rt_rxe_read_cb(const struct nlmsghdr *nlh, void *argp)
{
	struct nlattr *tb[ROCETUNE_A_MAX + 1];
	struct rt_rxe_read_arg *arg = argp;
	struct rt_setting *s;
	size_t i;

	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, ROCETUNE_A_MAX,
			  NULL) < 0)
		return -EINVAL;
	for (i = 0; i < RT_RXE_NPARAMS; i++) {
		const struct rt_rxe_param *p = &rt_rxe_params[i];

		if (p->key == RT_DCQCN_ENABLE) {
			if (!tb[ROCETUNE_A_QP_ACCT] ||
			    !tb[ROCETUNE_A_QP_NP_ENABLE] ||
			    !tb[ROCETUNE_A_QP_RP_ENABLE]) {
				arg->missing = true;
				continue;
			}
		} else if (!tb[p->attr]) {
			arg->missing = true;
			continue;
		}
		s = rt_state_add(arg->st, RT_SK_CC, p->key);
		if (!s)
			return -ENOSPC;
		if (p->key == RT_DCQCN_ENABLE) {
			s->n = RT_RXE_EN_N;
			s->v[RT_RXE_EN_ACCT] = nla_get_u8(tb[ROCETUNE_A_QP_ACCT]);
			s->v[RT_RXE_EN_NP] =
				nla_get_u8(tb[ROCETUNE_A_QP_NP_ENABLE]);
			s->v[RT_RXE_EN_RP] =
				nla_get_u8(tb[ROCETUNE_A_QP_RP_ENABLE]);
		} else {
			s->n = 1;
			s->v[0] = nla_get_u32(tb[p->attr]);
		}
	}
	return 0;
}

int rt_rxe_read(const char *dev, struct rt_state *st, char *msg, size_t len)
{
	struct rt_rxe_read_arg arg = { .st = st };
	char why[RT_NL_MSG_LEN + 32];
	struct nl_msg *m;
	struct rt_nl nl;
	int err;

	err = rt_rxe_open(&nl, msg, len);
	if (err)
		return err;
	m = rt_nl_msg_dev(&nl, ROCETUNE_CMD_QP_STATS_GET, dev, 0);
	err = m ? rt_nl_do(&nl, m, rt_rxe_read_cb, &arg) : -ENOMEM;
	if (err) {
		rt_rxe_nl_fail(&nl, err, why, sizeof(why));
		rt_fmt(msg, len, "rocetune.ko: QP_STATS_GET of %s: %s", dev,
		       why);
	} else if (arg.missing) {
		rt_fmt(msg, len,
		       "this rocetune.ko has no DCQCN notification and reaction point (QP_STATS_GET of %s lacks QP_NP_* or QP_RP_*): update the module",
		       dev);
		err = -EPROTO;
	}
	rt_nl_close(&nl);
	return err;
}

/* QP_SET of @dev with the three switches of @want that differ from @cur. */
static int rt_rxe_put_enable(struct nl_msg *m, const struct rt_setting *want,
			     const struct rt_setting *cur)
{
	static const int attr[RT_RXE_EN_N] = {
		[RT_RXE_EN_ACCT] = ROCETUNE_A_QP_ACCT,
		[RT_RXE_EN_NP] = ROCETUNE_A_QP_NP_ENABLE,
		[RT_RXE_EN_RP] = ROCETUNE_A_QP_RP_ENABLE,
	};
	bool any = false;
	unsigned int i;

	for (i = 0; i < RT_RXE_EN_N; i++) {
		if (!cur->absent && cur->n == RT_RXE_EN_N &&
		    cur->v[i] == want->v[i])
			continue;
		if (nla_put_u8(m, attr[i], want->v[i] ? 1 : 0))
			return -ENOMEM;
		any = true;
	}
	/* Nothing differs: say it again, QP_SET needs something to set. */
	if (!any && nla_put_u8(m, attr[RT_RXE_EN_NP], want->v[RT_RXE_EN_NP]))
		return -ENOMEM;
	return 0;
}

int rt_rxe_write(const char *dev, const struct rt_setting *want,
		 const struct rt_setting *cur, char *msg, size_t len)
{
	const struct rt_rxe_param *p = rt_rxe_param(want->key);
	char why[RT_NL_MSG_LEN + 32], val[64];
	struct nl_msg *m;
	struct rt_nl nl;
	int err;

	if (!p || want->kind != RT_SK_CC ||
	    (p->key == RT_DCQCN_ENABLE ? want->n != RT_RXE_EN_N :
					 want->n != 1)) {
		rt_fmt(msg, len, "%s: no rocetune.ko attribute for this setting",
		       dev);
		return -EINVAL;
	}
	err = rt_rxe_open(&nl, msg, len);
	if (err)
		return err;
	m = rt_nl_msg_dev(&nl, ROCETUNE_CMD_QP_SET, dev, 0);
	if (!m)
		err = -ENOMEM;
	else if (p->key == RT_DCQCN_ENABLE)
		err = rt_rxe_put_enable(m, want, cur);
	else if (nla_put_u32(m, p->attr, (uint32_t)want->v[0]))
		err = -ENOMEM;
	if (err) {
		nlmsg_free(m);
		rt_fmt(msg, len, "out of memory");
		rt_nl_close(&nl);
		return err;
	}
	err = rt_nl_do(&nl, m, NULL, NULL);
	if (err) {
		rt_rxe_nl_fail(&nl, err, why, sizeof(why));
		rt_setting_value(want, val, sizeof(val));
		rt_fmt(msg, len, "rocetune.ko refused QP_SET of %s %s %s: %s",
		       dev, p->name, val, why);
	}
	rt_nl_close(&nl);
	return err;
}
