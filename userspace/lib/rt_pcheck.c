// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetune user-space library: tuning profiles, the checks between keys.
 *
 * Once the whole file is read, rt_check_profile() holds the keys against
 * each other: [Match] given, DSCPToPriority= with Trust=dscp, the ETS
 * bandwidth of the ets TCs, TimeoutMs= with Action=timeout, the order of
 * [DCQCN] bounds, and a [Tune] rule complete and within the profile's own
 * bounds.  What depends on the NIC is rt_want.c's.
 */
#include <stdio.h>

#include "rt_counters.h"
#include "rt_pparse.h"

/*
 * The [DCQCN] keys whose 0 is no value but another mode: a rule may not
 * reach it (Min= at least 1).
 */
static const char *const rt_dcqcn_zero_mode[RT_DCQCN_NUM] = {
	[RT_DCQCN_MAX_RATE_MBPS] = "line rate",
	[RT_DCQCN_RATE_ON_FIRST_CNP_MBPS] = "off",
};

/*
 * The pairs of [DCQCN] keys that a profile orders, lo <= hi (0 of hi:
 * no bound, when rt_dcqcn_zero_mode[hi]).  rt_check_profile() checks the
 * profile's own values; a [Tune] rule of one of them must stay within
 * the other's value all the way from Min= to Max=.
 */
static const struct {
	enum rt_dcqcn_param lo, hi;
} rt_dcqcn_order[] = {
	{ RT_DCQCN_MIN_RATE_MBPS, RT_DCQCN_MAX_RATE_MBPS },
};

/* The keys a [Tune] rule cannot do without. */
static const enum rt_pkey rt_tune_required[] = {
	RT_PK_TUNE_PARAMETER, RT_PK_TUNE_METRIC, RT_PK_TUNE_DIRECTION,
	RT_PK_TUNE_ABOVE, RT_PK_TUNE_BELOW, RT_PK_TUNE_STEP, RT_PK_TUNE_MIN,
	RT_PK_TUNE_MAX,
};

/* Any [Tune] key was given or failed. */
static bool rt_tune_any(const struct rt_pstate *st)
{
	unsigned int k;

	for (k = RT_PK_TUNE_PARAMETER; k < RT_PK_VERIFY_FOR_SEC; k++)
		if (rt_profile_has(st->p, k) || st->bad[k])
			return true;
	return false;		/* an empty [Tune] is no rule */
}

/*
 * [Tune] of one key of the ordered pair @lo <= @hi: the other key of the
 * pair is in the profile too, and Min=..Max= keeps to it.
 */
static void rt_check_tune_order(struct rt_pstate *st, enum rt_dcqcn_param lo,
				enum rt_dcqcn_param hi)
{
	struct rt_profile *p = st->p;
	enum rt_dcqcn_param t = p->tune_param, o;
	const char *tk, *ok;
	enum rt_pkey opk;
	bool upper;		/* the other key bounds the tuned one above */
	uint32_t ov;

	if (t == lo) {
		o = hi;
		upper = true;
	} else if (t == hi) {
		o = lo;
		upper = false;
	} else {
		return;
	}
	tk = rt_dcqcn_keys[t].key;
	ok = rt_dcqcn_keys[o].key;
	opk = RT_PK_DCQCN + o;
	if (st->bad[opk])
		return;
	if (!rt_profile_has(p, opk)) {
		rt_kerr(st, p->line[RT_PK_TUNE_PARAMETER], RT_PK_TUNE_PARAMETER,
			st->text[RT_PK_TUNE_PARAMETER],
			"needs %s= in [DCQCN] too (%s <= %s: the rule's %s= is checked against it)",
			ok, rt_dcqcn_keys[lo].key, rt_dcqcn_keys[hi].key,
			upper ? "Max" : "Min");
		return;
	}
	ov = p->dcqcn[o];
	if (upper) {
		if (!ov && rt_dcqcn_zero_mode[o])
			return;		/* MaxRateMbps=0: line rate, no bound */
		if (p->tune_max > ov)
			rt_kerr(st, p->line[RT_PK_TUNE_MAX], RT_PK_TUNE_MAX,
				st->text[RT_PK_TUNE_MAX],
				"above [DCQCN] %s=%u on line %u (%s <= %s: the rule would take %s past it)",
				ok, ov, p->line[opk], rt_dcqcn_keys[lo].key,
				rt_dcqcn_keys[hi].key, tk);
	} else if (p->tune_min < ov) {
		rt_kerr(st, p->line[RT_PK_TUNE_MIN], RT_PK_TUNE_MIN,
			st->text[RT_PK_TUNE_MIN],
			"below [DCQCN] %s=%u on line %u (%s <= %s: the rule would take %s under it)",
			ok, ov, p->line[opk], rt_dcqcn_keys[lo].key,
			rt_dcqcn_keys[hi].key, tk);
	}
}

/*
 * [Tune]: complete, a rate or timer, within the parameter's range and
 * the profile's own bounds, with hysteresis.
 */
static void rt_check_tune(struct rt_pstate *st)
{
	struct rt_profile *p = st->p;
	const struct rt_dcqcn_key *dk;
	enum rt_pkey pk, base;
	unsigned int i, line;
	bool bad = false;
	uint32_t b;

	if (!rt_tune_any(st))
		return;
	line = st->tune_line ? st->tune_line : 1;
	for (i = 0; i < ARRAY_SIZE(rt_tune_required); i++) {
		pk = rt_tune_required[i];
		if (st->bad[pk]) {
			bad = true;
		} else if (!rt_profile_has(p, pk)) {
			rt_perr(st, line,
				"[Tune]: no %s= (a rule needs Parameter, Metric, Direction, Above, Below, Step, Min and Max)",
				rt_pkey_name(pk));
			bad = true;
		}
	}
	for (pk = RT_PK_TUNE_PARAMETER; pk < RT_PK_VERIFY_FOR_SEC; pk++)
		bad |= st->bad[pk];
	if (rt_profile_has(p, RT_PK_TUNE_GUARD_TOLERANCE) &&
	    !rt_profile_has(p, RT_PK_TUNE_GUARD) && !st->bad[RT_PK_TUNE_GUARD])
		rt_kerr(st, p->line[RT_PK_TUNE_GUARD_TOLERANCE],
			RT_PK_TUNE_GUARD_TOLERANCE,
			st->text[RT_PK_TUNE_GUARD_TOLERANCE],
			"only used with Guard= (Guard= is not given)");
	/* Without every key, the rule as a whole cannot be judged. */
	if (bad)
		goto incomplete;

	dk = &rt_dcqcn_keys[p->tune_param];
	base = RT_PK_DCQCN + p->tune_param;
	if (!rt_profile_has(p, base)) {
		if (!st->bad[base])
			rt_kerr(st, p->line[RT_PK_TUNE_PARAMETER],
				RT_PK_TUNE_PARAMETER,
				st->text[RT_PK_TUNE_PARAMETER],
				"needs %s= in [DCQCN] (the value the rule starts from and returns to)",
				dk->key);
		goto incomplete;
	}
	b = p->dcqcn[p->tune_param];
	if (p->tune_min < dk->min || p->tune_min > dk->max)
		rt_kerr(st, p->line[RT_PK_TUNE_MIN], RT_PK_TUNE_MIN,
			st->text[RT_PK_TUNE_MIN],
			"outside the range of %s (%u..%u)", dk->key, dk->min,
			dk->max);
	if (p->tune_max < dk->min || p->tune_max > dk->max)
		rt_kerr(st, p->line[RT_PK_TUNE_MAX], RT_PK_TUNE_MAX,
			st->text[RT_PK_TUNE_MAX],
			"outside the range of %s (%u..%u)", dk->key, dk->min,
			dk->max);
	if (rt_dcqcn_zero_mode[p->tune_param] && !p->tune_min)
		rt_kerr(st, p->line[RT_PK_TUNE_MIN], RT_PK_TUNE_MIN,
			st->text[RT_PK_TUNE_MIN],
			"%s=0 is no rate but %s: a rule may not switch to it (at least 1)",
			dk->key, rt_dcqcn_zero_mode[p->tune_param]);
	for (i = 0; i < ARRAY_SIZE(rt_dcqcn_order); i++)
		rt_check_tune_order(st, rt_dcqcn_order[i].lo,
				    rt_dcqcn_order[i].hi);
	if (p->tune_min >= p->tune_max) {
		rt_kerr(st, p->line[RT_PK_TUNE_MIN], RT_PK_TUNE_MIN,
			st->text[RT_PK_TUNE_MIN],
			"not below Max=%u on line %u (Min < Max)", p->tune_max,
			p->line[RT_PK_TUNE_MAX]);
	} else {
		if (b < p->tune_min || b > p->tune_max)
			rt_kerr(st, p->line[base], base, st->text[base],
				"outside [Tune] Min=%u..Max=%u (lines %u, %u): the rule starts from this value",
				p->tune_min, p->tune_max,
				p->line[RT_PK_TUNE_MIN],
				p->line[RT_PK_TUNE_MAX]);
		if (p->tune_step > p->tune_max - p->tune_min)
			rt_kerr(st, p->line[RT_PK_TUNE_STEP], RT_PK_TUNE_STEP,
				st->text[RT_PK_TUNE_STEP],
				"larger than Max - Min = %u (lines %u, %u): one step would cross the limits",
				p->tune_max - p->tune_min,
				p->line[RT_PK_TUNE_MIN],
				p->line[RT_PK_TUNE_MAX]);
	}
	if (p->tune_below >= p->tune_above)
		rt_kerr(st, p->line[RT_PK_TUNE_BELOW], RT_PK_TUNE_BELOW,
			st->text[RT_PK_TUNE_BELOW],
			"not below Above=%llu on line %u (hysteresis: act above Above=, go back only below Below=)",
			(unsigned long long)p->tune_above,
			p->line[RT_PK_TUNE_ABOVE]);
	return;
incomplete:
	/* No half rule for the agent: as if [Tune] were not given. */
	p->line[RT_PK_TUNE_PARAMETER] = 0;
}

/*
 * [Verify]: a sample interval fits in the baseline and in the watch, or
 * neither would measure a rate.
 */
static void rt_check_verify(struct rt_pstate *st)
{
	const struct rt_profile *p = st->p;
	enum rt_pkey k = RT_PK_VERIFY_INTERVAL_MS;

	if (!rt_profile_has(p, k) || st->bad[k])
		return;
	if (!st->bad[RT_PK_VERIFY_BASELINE_SEC] &&
	    p->verify_interval_ms > p->verify_baseline_s * 1000u)
		rt_kerr(st, p->line[k], k, st->text[k],
			"longer than the baseline (BaselineSec=%u): the baseline needs at least one interval",
			p->verify_baseline_s);
	else if (!st->bad[RT_PK_VERIFY_FOR_SEC] &&
		 p->verify_interval_ms > p->verify_for_s * 1000u)
		rt_kerr(st, p->line[k], k, st->text[k],
			"longer than the watch (ForSec=%u): it would sample nothing",
			p->verify_for_s);
}

/* Checks of keys against each other, once the whole file is read. */
void rt_check_profile(struct rt_pstate *st)
{
	struct rt_profile *p = st->p;
	unsigned int i, sum = 0;
	bool any_ets = false;
	struct rt_shown b;

	if (!st->seen_match)
		rt_perr(st, 1,
			"no [Match] section (every profile needs one; an empty [Match] matches every RoCE NIC)");

	if (rt_profile_has(p, RT_PK_DSCP_TO_PRIORITY) &&
	    !st->bad[RT_PK_DSCP_TO_PRIORITY] && !st->bad[RT_PK_TRUST] && p->trust != RT_TRUST_DSCP) {
		if (rt_profile_has(p, RT_PK_TRUST))
			rt_kerr(st, p->line[RT_PK_DSCP_TO_PRIORITY],
				RT_PK_DSCP_TO_PRIORITY,
				st->text[RT_PK_DSCP_TO_PRIORITY],
				"needs Trust=dscp in the same profile (Trust=%s is on line %u)",
				rt_show(&b, st->text[RT_PK_TRUST]),
				p->line[RT_PK_TRUST]);
		else
			rt_kerr(st, p->line[RT_PK_DSCP_TO_PRIORITY],
				RT_PK_DSCP_TO_PRIORITY,
				st->text[RT_PK_DSCP_TO_PRIORITY],
				"needs Trust=dscp in the same profile (Trust= is not given)");
	}

	if (rt_profile_has(p, RT_PK_ETS_BANDWIDTH) &&
	    !st->bad[RT_PK_ETS_BANDWIDTH] && !st->bad[RT_PK_TSA]) {
		const char *bw = st->text[RT_PK_ETS_BANDWIDTH];
		unsigned int ln = p->line[RT_PK_ETS_BANDWIDTH];

		for (i = 0; i < RT_NTC; i++) {
			if (p->tsa[i] == RT_TSA_ETS) {
				any_ets = true;
				sum += p->ets_bw[i];
			} else if (p->ets_bw[i]) {
				rt_kerr(st, ln, RT_PK_ETS_BANDWIDTH, bw,
					"TC %u has %u%% but TSA= on line %u makes it %s (only ets TCs get bandwidth)",
					i, p->ets_bw[i], p->line[RT_PK_TSA],
					p->tsa[i] == RT_TSA_STRICT ?
					"strict" : "vendor");
			}
		}
		if (any_ets && sum != 100)
			rt_kerr(st, ln, RT_PK_ETS_BANDWIDTH, bw,
				"the bandwidth of the ets TCs sums to %u%% (it must be 100%%; %s)",
				sum, rt_profile_has(p, RT_PK_TSA) ?
				"TCs not in TSA= are ets" :
				"without TSA= every TC is ets");
	}

	if (rt_profile_has(p, RT_PK_WD_TIMEOUT_MS) &&
	    !st->bad[RT_PK_WD_TIMEOUT_MS] && !st->bad[RT_PK_WD_ACTION] &&
	    p->wd_action != RT_WD_TIMEOUT) {
		if (rt_profile_has(p, RT_PK_WD_ACTION))
			rt_kerr(st, p->line[RT_PK_WD_TIMEOUT_MS],
				RT_PK_WD_TIMEOUT_MS,
				st->text[RT_PK_WD_TIMEOUT_MS],
				"only used by Action=timeout (Action=%s is on line %u)",
				rt_show(&b, st->text[RT_PK_WD_ACTION]),
				p->line[RT_PK_WD_ACTION]);
		else
			rt_kerr(st, p->line[RT_PK_WD_TIMEOUT_MS],
				RT_PK_WD_TIMEOUT_MS,
				st->text[RT_PK_WD_TIMEOUT_MS],
				"only used by Action=timeout (Action= is not given: alert)");
	}

	rt_check_tune(st);
	rt_check_verify(st);

	for (i = 0; i < ARRAY_SIZE(rt_dcqcn_order); i++) {
		enum rt_dcqcn_param lo = rt_dcqcn_order[i].lo;
		enum rt_dcqcn_param hi = rt_dcqcn_order[i].hi;
		enum rt_pkey lk = RT_PK_DCQCN + lo, hk = RT_PK_DCQCN + hi;
		char unless[64] = "";

		if (!rt_profile_has(p, lk) || !rt_profile_has(p, hk) ||
		    st->bad[lk] || st->bad[hk] ||
		    (!p->dcqcn[hi] && rt_dcqcn_zero_mode[hi]) ||
		    p->dcqcn[lo] <= p->dcqcn[hi])
			continue;
		if (rt_dcqcn_zero_mode[hi])
			snprintf(unless, sizeof(unless), " unless %s=0",
				 rt_dcqcn_keys[hi].key);
		rt_kerr(st, p->line[lk], lk, st->text[lk],
			"above %s=%u on line %u (%s <= %s%s)",
			rt_dcqcn_keys[hi].key, p->dcqcn[hi], p->line[hk],
			rt_dcqcn_keys[lo].key, rt_dcqcn_keys[hi].key, unless);
	}
}
