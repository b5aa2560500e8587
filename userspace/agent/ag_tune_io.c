// SPDX-License-Identifier: GPL-2.0-only
/*
 * rocetuned: the closed loop of a profile's [Tune].  A sample of the
 * port's rates from the module, one decision of the rule (ag_tune.c), and
 * the write of its parameter through the NIC's applies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ag_state.h"

/*
 * @p with only [DCQCN] @param (and [Match]): what a [Tune] decision
 * writes, read back and, on failure, restored by the engine.
 */
static void ag_param_only(struct rt_profile *p, enum rt_dcqcn_param param)
{
	unsigned int k;

	for (k = RT_PK_MATCH_NUM; k < RT_PK_NUM; k++)
		if (k != RT_PK_DCQCN + param)
			p->line[k] = 0;
}

/*
 * The rate of @metric on @port (events/s), false when the port has none
 * of the counters it adds up.
 */
static bool ag_tune_rate(const struct rt_port *port, unsigned int metric,
			 uint64_t *rate)
{
	static const unsigned int cnp[] = { ROCETUNE_A_CNT_TX_CNP_PKTS,
					    ROCETUNE_A_CNT_RX_CNP_PKTS };
	const struct rt_counter_set *r = &port->rates;
	bool rx = false, tx = false, any = false;
	unsigned int i;

	*rate = 0;
	switch (metric) {
	case RT_TM_CNP:
		if (!rt_has(port->attrs, ROCETUNE_A_RATES))
			return false;
		for (i = 0; i < ARRAY_SIZE(cnp); i++) {
			if (!rt_counter_present(r, cnp[i]))
				continue;
			*rate += r->val[cnp[i]];
			any = true;
		}
		return any;
	case RT_TM_ECN:
		metric = RT_TM_CNT + ROCETUNE_A_CNT_RX_ECN_CE_PKTS;
		break;
	case RT_TM_PAUSE:
		rx = tx = true;
		break;
	case RT_TM_RX_PAUSE:
		rx = true;
		break;
	case RT_TM_TX_PAUSE:
		tx = true;
		break;
	default:
		break;
	}
	if (rx || tx) {
		if (!rt_has(port->attrs, ROCETUNE_A_PFC))
			return false;
		for (i = 0; i < port->pfc.nprio; i++) {
			const struct rt_prio *q = &port->pfc.prio[i];

			if (rx && rt_has(q->attrs, ROCETUNE_A_PRIO_RX_PAUSE_RATE)) {
				*rate += q->rx_pause_rate;
				any = true;
			}
			if (tx && rt_has(q->attrs, ROCETUNE_A_PRIO_TX_PAUSE_RATE)) {
				*rate += q->tx_pause_rate;
				any = true;
			}
		}
		return any;
	}
	if (metric < RT_TM_CNT || !rt_has(port->attrs, ROCETUNE_A_RATES) ||
	    !rt_counter_present(r, metric - RT_TM_CNT))
		return false;
	*rate = r->val[metric - RT_TM_CNT];
	return true;
}

/* Write @value of the rule's parameter through the engine; 0: in force. */
static int ag_tune_write(struct ag *ag, struct ag_nic *an, uint32_t value)
{
	struct rt_profile *ap;
	int ret;

	ap = malloc(sizeof(*ap));
	if (!ap)
		return -ENOMEM;
	*ap = *ag_profile(an);
	ap->dcqcn[an->prof->tune_param] = value;
	ag_param_only(ap, an->prof->tune_param);
	ret = ag_apply(ag, an, ap, "tune");
	free(ap);
	return ret;
}

/* One sample of the NIC's port rates, one decision of its rule. */
void ag_tune_tick(struct ag *ag, struct ag_nic *an)
{
	const struct rt_profile *p = an->prof;
	const char *param = rt_dcqcn_keys[p->tune_param].key;
	const char *nd = an->nic.id.netdev;
	struct ag_tune_decision d;
	struct ag_tune_in in = { 0 };
	struct rt_port port;
	uint64_t sample_ns;
	char guard[160] = "";
	enum ag_tune_stop was;
	bool ok, applied;
	int err, level;

	if (!ag->cmd_open || !an->nic.id.rdma_dev[0])
		return;		/* no module, no rates: nothing to decide on */
	err = ag_port_get(ag, an, &port);
	if (err > 0)
		return;
	if (err) {
		ag_log(AG_DEBUG, "%s: tune: no port sample of %s/%u: %s", nd,
		       an->nic.id.rdma_dev, an->nic.port, strerror(-err));
		rt_port_free(&port);
		return;
	}
	in.now_ms = ag_now_ms();
	ok = ag_tune_rate(&port, p->tune_metric, &in.metric);
	if (ok && an->tr.guard)
		ok = ag_tune_rate(&port, p->tune_guard, &in.guard);
	if (!ok) {
		if (!an->tune_unavailable)
			ag_log(AG_WARNING, "%s: [Tune] Metric=%s%s%s: the port %s/%u has no such rate (yet): %s stays %u",
			       nd, rt_tune_metric_name(p->tune_metric),
			       an->tr.guard ? " Guard=" : "",
			       an->tr.guard ? rt_tune_metric_name(p->tune_guard) : "",
			       an->nic.id.rdma_dev, an->nic.port, param,
			       an->ts.value);
		an->tune_unavailable = true;
		rt_port_free(&port);
		return;
	}
	an->tune_unavailable = false;
	/* A sample the rule has not seen, taken after its last write. */
	sample_ns = port.sample_time_ns;
	in.fresh = rt_has(port.attrs, ROCETUNE_A_SAMPLE_TIME_NS) &&
		   sample_ns > an->tune_sample_ns;
	rt_port_free(&port);

	ag_tune_decide(&an->tr, &an->ts, &in, &d);
	applied = false;
	if (d.action != AG_TUNE_HOLD) {
		err = ag_tune_write(ag, an, d.to);
		if (err == -EBUSY)
			return;	/* another apply: decide at the next sample */
		applied = !err;
	}
	if (in.fresh)
		an->tune_sample_ns = applied ? ag_now_ns() : sample_ns;
	was = an->ts.stopped;
	ag_tune_update(&an->tr, &an->ts, &in, &d, applied);
	ag_stats_tune(&an->st, &d);
	an->st.tune_value = an->ts.value;
	an->st.tune_stopped = an->ts.stopped;
	if (!was && an->ts.stopped == AG_TUNE_STOP_OSCILLATION)
		ag_log(AG_WARNING, "%s: tune %s stopped (oscillation: %u reversals of direction in the last %u changes within an hour, the last %u -> %u): %u stays in force until the profiles are reloaded or the agent restarts",
		       nd, param, an->ts.reversals, an->ts.nchanges, d.from,
		       d.to, an->ts.value);
	else if (!was && an->ts.stopped == AG_TUNE_STOP_BUDGET)
		ag_log(AG_WARNING, "%s: tune %s stopped (budget: MaxWritesPerHour=%u spent, %u writes in the last hour; it would %s): %u stays in force until the profiles are reloaded or the agent restarts",
		       nd, param, an->tr.max_writes,
		       ag_tune_writes(&an->ts, in.now_ms),
		       d.dir > 0 ? "go up" : d.dir < 0 ? "go down" :
		       "revert", an->ts.value);
	if (applied && ag_eff_build(an))
		ag_log(AG_ERR, "%s: out of memory", nd);

	if (an->tr.guard)
		snprintf(guard, sizeof(guard), "; Guard=%s %" PRIu64 "/s%s",
			 rt_tune_metric_name(p->tune_guard), in.guard,
			 d.action == AG_TUNE_REVERT ? ", before the step" : "");
	if (d.action == AG_TUNE_REVERT) {
		ag_log(AG_WARNING, "%s: tune %s %u -> %u %s (revert, guard: %s rose to %" PRIu64 "/s, %" PRIu64 "/s before the step + GuardTolerance=%" PRIu64 ")",
		       nd, param, d.from, d.to,
		       applied ? "in force" : "FAILED",
		       rt_tune_metric_name(p->tune_guard), in.guard,
		       an->ts.guard_before, an->tr.guard_tol);
		an->tune_logged = AG_TUNE_R_IDLE;
		return;
	}
	if (d.action != AG_TUNE_HOLD) {
		ag_log(AG_NOTICE, "%s: tune %s %u -> %u %s (%s %s: %s %" PRIu64 "/s %s %s=%" PRIu64 "%s)",
		       nd, param, d.from, d.to, applied ? "in force" : "FAILED",
		       ag_tune_action_name(d.action), ag_tune_dir_name(d.dir),
		       rt_tune_metric_name(p->tune_metric), in.metric,
		       d.reason == AG_TUNE_R_HIGH ? ">" : "<",
		       d.reason == AG_TUNE_R_HIGH ? "Above" : "Below",
		       d.reason == AG_TUNE_R_HIGH ? an->tr.above : an->tr.below,
		       guard);
		an->tune_logged = AG_TUNE_R_IDLE;
		return;
	}
	/* A hold: said once per reason, the rest at debug level. */
	level = d.reason == AG_TUNE_R_IDLE || d.reason == AG_TUNE_R_NO_DATA ||
		d.reason == AG_TUNE_R_STOPPED || d.reason == AG_TUNE_R_BUDGET ||
		d.reason == an->tune_logged ? AG_DEBUG : AG_INFO;
	if (level == AG_INFO)
		an->tune_logged = d.reason;
	else if (d.reason == AG_TUNE_R_IDLE)
		an->tune_logged = AG_TUNE_R_IDLE;
	ag_log(level, "%s: tune %s %u held (%s: %s %" PRIu64 "/s, Above=%" PRIu64 " Below=%" PRIu64 ", Min=%u Max=%u, CooldownMs=%u%s)",
	       nd, param, d.from, ag_tune_reason_name(d.reason),
	       rt_tune_metric_name(p->tune_metric), in.metric, an->tr.above,
	       an->tr.below, an->tr.min, an->tr.max, an->tr.cooldown_ms, guard);
}
